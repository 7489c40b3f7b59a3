// The 16-bit floating-point formats tgraph stores as raw bits (IEEE binary16 for TG_HALF,
// bfloat16 for TG_BFLOAT16): conversion to and from double for parsing and printing.
#ifndef TGRAPH_TOOLS_IO_SMALL_FLOAT_H_
#define TGRAPH_TOOLS_IO_SMALL_FLOAT_H_

#include <cstdint>

namespace tgraph::tool {

// A binary interchange format: sign, `exponent_bits`, `mantissa_bits` (without the implicit
// bit), with subnormals, infinities and NaN.
struct SmallFloatFormat {
  int exponent_bits;
  int mantissa_bits;
};

inline constexpr SmallFloatFormat kHalfFormat{5, 10};
inline constexpr SmallFloatFormat kBFloat16Format{8, 7};

// The exact value of `bits`.
double SmallFloatToDouble(uint32_t bits, SmallFloatFormat format);
// `value` rounded to the nearest representable value (ties to even); overflow gives infinity.
uint32_t DoubleToSmallFloat(double value, SmallFloatFormat format);

}  // namespace tgraph::tool

#endif  // TGRAPH_TOOLS_IO_SMALL_FLOAT_H_
