#include "small_float.h"

#include <cmath>

namespace tgraph::tool {

double SmallFloatToDouble(uint32_t bits, SmallFloatFormat format) {
  const uint32_t mantissa_mask = (1u << format.mantissa_bits) - 1;
  const uint32_t exponent_mask = (1u << format.exponent_bits) - 1;
  const int bias = static_cast<int>(exponent_mask >> 1);
  const bool negative = (bits >> (format.exponent_bits + format.mantissa_bits)) & 1u;
  const uint32_t exponent = (bits >> format.mantissa_bits) & exponent_mask;
  const uint32_t mantissa = bits & mantissa_mask;
  double magnitude;
  if (exponent == exponent_mask) {
    magnitude = mantissa == 0 ? INFINITY : NAN;
  } else if (exponent == 0) {
    magnitude = std::ldexp(static_cast<double>(mantissa), 1 - bias - format.mantissa_bits);
  } else {
    magnitude = std::ldexp(static_cast<double>(mantissa | (mantissa_mask + 1)),
                           static_cast<int>(exponent) - bias - format.mantissa_bits);
  }
  return negative ? -magnitude : magnitude;
}

uint32_t DoubleToSmallFloat(double value, SmallFloatFormat format) {
  const uint32_t exponent_mask = (1u << format.exponent_bits) - 1;
  const int bias = static_cast<int>(exponent_mask >> 1);
  const uint32_t sign =
      std::signbit(value) ? 1u << (format.exponent_bits + format.mantissa_bits) : 0u;
  const uint32_t infinity = exponent_mask << format.mantissa_bits;
  if (std::isnan(value)) return sign | infinity | (1u << (format.mantissa_bits - 1));
  const double magnitude = std::fabs(value);
  if (std::isinf(magnitude)) return sign | infinity;
  const int min_exponent = 1 - bias;
  if (magnitude < std::ldexp(1.0, min_exponent)) {
    // Subnormal: a count of the smallest step. Rounding up to 2^mantissa_bits steps gives
    // exactly the bits of the smallest normal number.
    const double steps = std::nearbyint(std::ldexp(magnitude, format.mantissa_bits - min_exponent));
    return sign | static_cast<uint32_t>(steps);
  }
  int exponent;
  std::frexp(magnitude, &exponent);
  --exponent;  // magnitude = 1.f * 2^exponent
  double significand = std::nearbyint(std::ldexp(magnitude, format.mantissa_bits - exponent));
  if (significand == std::ldexp(1.0, format.mantissa_bits + 1)) {
    significand /= 2;
    ++exponent;
  }
  if (exponent > bias) return sign | infinity;
  const uint32_t fraction = static_cast<uint32_t>(significand) - (1u << format.mantissa_bits);
  return sign | (static_cast<uint32_t>(exponent + bias) << format.mantissa_bits) | fraction;
}

}  // namespace tgraph::tool
