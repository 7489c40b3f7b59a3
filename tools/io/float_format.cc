#include "float_format.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "small_float.h"

namespace tgraph::tool {
namespace {

constexpr int kPrecision = 8;  // numpy's default print precision

// A finite decimal: digits[0].digits[1..] x 10^exponent, no trailing zeros ("0" for zero).
struct Decimal {
  bool negative = false;
  std::string digits;
  int exponent = 0;
};

// Reads the decimal that to_chars/printf wrote: [-]ddd[.ddd][e[+-]dd].
Decimal ParseDecimal(std::string_view text) {
  Decimal d;
  size_t i = 0;
  if (i < text.size() && text[i] == '-') {
    d.negative = true;
    ++i;
  }
  int point = -1;  // digits before the decimal point
  for (; i < text.size() && text[i] != 'e'; ++i) {
    if (text[i] == '.') {
      point = static_cast<int>(d.digits.size());
    } else {
      d.digits.push_back(text[i]);
    }
  }
  if (point < 0) point = static_cast<int>(d.digits.size());
  int exponent = 0;
  if (i < text.size()) {
    std::string_view e = text.substr(i + 1);
    if (!e.empty() && e[0] == '+') e.remove_prefix(1);
    std::from_chars(e.data(), e.data() + e.size(), exponent);
  }
  const size_t first = d.digits.find_first_not_of('0');
  if (first == std::string::npos) {
    d.digits.assign(1, '0');
    d.exponent = 0;
    return d;
  }
  d.exponent = exponent + point - 1 - static_cast<int>(first);
  d.digits.erase(0, first);
  d.digits.erase(d.digits.find_last_not_of('0') + 1);
  return d;
}

double RoundTo(double value, FloatKind kind) {
  switch (kind) {
    case FloatKind::kHalf:
      return SmallFloatToDouble(DoubleToSmallFloat(value, kHalfFormat), kHalfFormat);
    case FloatKind::kBFloat16:
      return SmallFloatToDouble(DoubleToSmallFloat(value, kBFloat16Format), kBFloat16Format);
    case FloatKind::kFloat:
      return static_cast<float>(value);
    case FloatKind::kDouble:
      return value;
  }
  return value;
}

std::string Printf(const char* format, int precision, double value) {
  char buffer[512];
  std::snprintf(buffer, sizeof buffer, format, precision, value);
  return buffer;
}

// The fewest significant digits that read back (rounded to `kind`) as `value`.
Decimal ShortestDigits(double value, FloatKind kind) {
  char buffer[64];
  if (kind == FloatKind::kFloat || kind == FloatKind::kDouble) {
    auto result =
        kind == FloatKind::kFloat
            ? std::to_chars(buffer, buffer + sizeof buffer, static_cast<float>(value),
                            std::chars_format::scientific)
            : std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::scientific);
    return ParseDecimal(std::string_view(buffer, static_cast<size_t>(result.ptr - buffer)));
  }
  // 16-bit types: try more digits until the decimal reads back; the closest decimal of each
  // length is the one to try.
  for (int digits = 1;; ++digits) {
    std::string text = Printf("%.*e", digits - 1, value);
    if (digits >= 17 || RoundTo(std::strtod(text.c_str(), nullptr), kind) == value) {
      return ParseDecimal(text);
    }
  }
}

// `value`'s shortest digits, or when those go beyond numpy's precision (counted after the
// point), the value rounded there. Positional output always has every digit of the integer
// part: where the shortest digits stop before the units (large floats, all integers), numpy
// prints the exact integer.
Decimal NumpyDigits(double value, FloatKind kind, bool scientific) {
  Decimal d = ShortestDigits(value, kind);
  if (!scientific && d.exponent >= static_cast<int>(d.digits.size())) {
    return ParseDecimal(Printf("%.*f", 0, value));
  }
  const int after_point = scientific ? static_cast<int>(d.digits.size()) - 1
                                     : static_cast<int>(d.digits.size()) - 1 - d.exponent;
  if (after_point <= kPrecision) return d;
  return ParseDecimal(Printf(scientific ? "%.*e" : "%.*f", kPrecision, value));
}

}  // namespace

NumpyFloatFormat::Parts NumpyFloatFormat::Split(double value, bool final) const {
  // Scientific values print with the same number of digits after the point, the exact value
  // rounded there (numpy's min_digits: the digits beyond the shortest are real, not zeros).
  const Decimal d = final && scientific_
                        ? ParseDecimal(Printf("%.*e", static_cast<int>(mantissa_digits_), value))
                        : NumpyDigits(value, kind_, scientific_);
  Parts p;
  if (std::signbit(value)) {
    p.integer.assign(1, '-');
  } else if (sign_plus_) {
    p.integer.assign(1, '+');
  }
  if (scientific_) {
    p.integer += d.digits[0];
    p.fraction = d.digits.substr(1);
    std::string e = std::to_string(std::abs(d.exponent));
    if (e.size() < 2) e.insert(0, 2 - e.size(), '0');
    p.exponent = (d.exponent < 0 ? "-" : "+") + e;
  } else if (d.exponent >= 0) {
    const size_t integer_digits = static_cast<size_t>(d.exponent) + 1;
    std::string digits = d.digits;
    if (digits.size() < integer_digits) digits.append(integer_digits - digits.size(), '0');
    p.integer += digits.substr(0, integer_digits);
    p.fraction = digits.substr(integer_digits);
  } else {
    p.integer += "0";
    p.fraction = std::string(static_cast<size_t>(-d.exponent - 1), '0') + d.digits;
  }
  return p;
}

NumpyFloatFormat::NumpyFloatFormat(const std::vector<double>& values, FloatKind kind,
                                   bool sign_plus)
    : kind_(kind), sign_plus_(sign_plus) {
  std::vector<double> finite;
  double max_abs = 0, min_abs = INFINITY;
  bool has_nonfinite = false, has_negative_inf = false;
  for (double v : values) {
    if (!std::isfinite(v)) {
      has_nonfinite = true;
      has_negative_inf |= std::isinf(v) && v < 0;
      continue;
    }
    finite.push_back(v);
    if (v != 0) {
      max_abs = std::max(max_abs, std::fabs(v));
      min_abs = std::min(min_abs, std::fabs(v));
    }
  }
  // numpy divides in the element type (the ratio may round, or overflow to inf).
  if (max_abs > 0) {
    scientific_ = max_abs >= 1e8 || min_abs < 0.0001 || RoundTo(max_abs / min_abs, kind) > 1000.;
  }
  for (double v : finite) {
    const Parts p = Split(v, /*final=*/false);
    pad_left_ = std::max(pad_left_, p.integer.size());
    pad_right_ = std::max(pad_right_, p.fraction.size());
    exponent_digits_ = std::max(exponent_digits_, p.exponent.empty() ? 0 : p.exponent.size() - 1);
  }
  if (scientific_) {
    mantissa_digits_ = pad_right_;
    pad_right_ = exponent_digits_ + 2 + mantissa_digits_;
  }
  if (has_nonfinite) {
    // Room for "nan" and "inf" (with a sign when one is printed) in the same width.
    const size_t inf_length = 3 + (sign_plus_ || has_negative_inf ? 1 : 0);
    const size_t after = pad_right_ + 1;
    if (inf_length > after) pad_left_ = std::max(pad_left_, inf_length - after);
    if (3 > after) pad_left_ = std::max(pad_left_, 3 - after);
  }
}

std::string NumpyFloatFormat::operator()(double value) const {
  std::string text;
  if (!std::isfinite(value)) {
    if (std::isnan(value)) {
      text = sign_plus_ ? "+nan" : "nan";
    } else {
      text = value < 0 ? "-inf" : sign_plus_ ? "+inf" : "inf";
    }
    const size_t width = pad_left_ + pad_right_ + 1;
    return std::string(width > text.size() ? width - text.size() : 0, ' ') + text;
  }
  const Parts p = Split(value, /*final=*/true);
  text.assign(pad_left_ > p.integer.size() ? pad_left_ - p.integer.size() : 0, ' ');
  text += p.integer + "." + p.fraction;
  if (scientific_) {
    text.append(mantissa_digits_ - std::min(mantissa_digits_, p.fraction.size()), '0');
    std::string digits = p.exponent.substr(1);
    if (digits.size() < exponent_digits_) digits.insert(0, exponent_digits_ - digits.size(), '0');
    return text + "e" + p.exponent[0] + digits;
  }
  return text.append(pad_right_ - std::min(pad_right_, p.fraction.size()), ' ');
}

}  // namespace tgraph::tool
