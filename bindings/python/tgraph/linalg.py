"""tf.linalg: the band-part and diagonal functions under TF's tf.linalg names."""
# noqa: F401 - re-exports
from tgraph.ops.math_ops import matmul, norm  # noqa: F401
from tgraph.ops.matrix_segment_ops import (band_part, matrix_diag as diag,  # noqa: F401
                                           matrix_diag_part as diag_part,
                                           matrix_set_diag as set_diag, tensor_diag,
                                           tensor_diag_part)
from tgraph.ops.matrix_segment_ops import cross  # noqa: F401,E402
