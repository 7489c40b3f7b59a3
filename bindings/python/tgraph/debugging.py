"""tf.debugging: check_numerics under TF's tf.debugging name."""
from tgraph.ops.matrix_segment_ops import check_numerics  # noqa: F401
