"""tf.bitwise: element-wise bit operations on integer tensors."""
from tgraph.ops.math_more_ops import (bitwise_and, bitwise_or, bitwise_xor, invert,  # noqa: F401
                                      left_shift, right_shift)
