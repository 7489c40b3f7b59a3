// The OpenCL C program "compare": Equal / NotEqual / Less / LessEqual / Greater /
// GreaterEqual of float and int operands, Equal / NotEqual of bools, and LogicalAnd /
// LogicalOr / LogicalNot, each to a DT_BOOL output (one byte, 0 or 1). The binary ones are
// the `_same` / `_bcast` pairs of BINARY_T (kBinaryPrelude in cl_sources.cc, prepended).
//
// A scalar comparison in OpenCL C yields int 1 or 0, and every comparison with a NaN is
// false except !=, as in C++ (the CPU plugin's Eigen expressions). Bools are read as bytes,
// any nonzero byte true, and written as 0 or 1.
#include "cl_sources.h"

namespace tgraph_opencl {

const char kCompareSource[] = R"CLC(
#define COMPARISONS(T, SUFFIX)                          \
  BINARY_T(tg_equal_##SUFFIX, T, uchar, a == b)         \
  BINARY_T(tg_not_equal_##SUFFIX, T, uchar, a != b)     \
  BINARY_T(tg_less_##SUFFIX, T, uchar, a < b)           \
  BINARY_T(tg_less_equal_##SUFFIX, T, uchar, a <= b)    \
  BINARY_T(tg_greater_##SUFFIX, T, uchar, a > b)        \
  BINARY_T(tg_greater_equal_##SUFFIX, T, uchar, a >= b)

COMPARISONS(float, f32)
COMPARISONS(int, i32)

BINARY_T(tg_equal_bool, uchar, uchar, (a != 0) == (b != 0))
BINARY_T(tg_not_equal_bool, uchar, uchar, (a != 0) != (b != 0))
BINARY_T(tg_logical_and, uchar, uchar, a && b)
BINARY_T(tg_logical_or, uchar, uchar, a || b)

__kernel void tg_logical_not(__global const uchar* x, __global uchar* y, int n) {
  int i = get_global_id(0);
  if (i < n) y[i] = (uchar)(x[i] == 0);
}
)CLC";

}  // namespace tgraph_opencl
