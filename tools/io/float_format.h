// numpy's formatting of floating-point array elements with its default print options
// (precision 8, floatmode 'maxprec', suppress False): one format is chosen for all the
// values an array prints -- positional or scientific, and the widths that align them -- and
// then applied to each value. Digits are the shortest that read back as the same value of the
// element type, cut to 8 after the point (what numpy's Dragon4 produces).
#ifndef TGRAPH_TOOLS_IO_FLOAT_FORMAT_H_
#define TGRAPH_TOOLS_IO_FLOAT_FORMAT_H_

#include <string>
#include <vector>

namespace tgraph::tool {

// The element type the values were read from: it decides which digits are "shortest".
enum class FloatKind { kHalf, kBFloat16, kFloat, kDouble };

class NumpyFloatFormat {
 public:
  // `values`: every value that will be printed (exactly, as double). `sign_plus`: print '+'
  // before non-negative values (numpy does for the imaginary part of complex numbers).
  NumpyFloatFormat(const std::vector<double>& values, FloatKind kind, bool sign_plus);

  std::string operator()(double value) const;

 private:
  // A finite value split as numpy prints it: [sign]int "." frac ["e" exponent]; `final` once
  // the format is chosen (the first pass over the values decides the widths).
  struct Parts {
    std::string integer;   // with the sign
    std::string fraction;  // without trailing zeros
    std::string exponent;  // scientific only: sign and at least two digits, e.g. "-05"
  };
  Parts Split(double value, bool final) const;

  FloatKind kind_;
  bool sign_plus_;
  bool scientific_ = false;
  size_t pad_left_ = 0;         // characters before the point
  size_t pad_right_ = 0;        // characters after the point (positional), or the whole tail
  size_t mantissa_digits_ = 0;  // scientific: digits after the point, equal for all values
  size_t exponent_digits_ = 0;  // scientific: digits of the exponent, equal for all values
};

}  // namespace tgraph::tool

#endif  // TGRAPH_TOOLS_IO_FLOAT_FORMAT_H_
