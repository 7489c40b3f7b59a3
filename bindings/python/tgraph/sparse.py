"""tf.sparse: the sparse segment reductions under TF's tf.sparse names."""
# noqa: F401 - re-exports
from tgraph.ops.matrix_segment_ops import (sparse_segment_mean as segment_mean,  # noqa: F401
                                           sparse_segment_sqrt_n as segment_sqrt_n,
                                           sparse_segment_sum as segment_sum)
