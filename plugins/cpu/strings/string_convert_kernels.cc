// Conversions between strings and numbers, as TensorFlow's feature preprocessing does them:
// StringToHashBucketFast (Fingerprint64 mod num_buckets, TensorFlow's exact buckets),
// StringToNumber (whitespace around the number allowed, anything else an error naming the
// string) and AsString (printf formats built from the attrs, as TensorFlow builds them; every
// dtype of its op def but variant).
#include "fingerprint64.h"
#include "string_kernels.h"

#include "../array_kernel_util.h"
#include <Eigen/Core>  // Eigen::half, Eigen::bfloat16 (AsString widens them to float)
#include <algorithm>
#include <charconv>
#include <cstdio>
#include <clocale>
#include <cstdlib>
#include <locale.h>  // newlocale, locale_t (POSIX)
#include <stdlib.h>  // strtod_l, strtof_l
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace tgraph_cpu {
namespace {

using tgraph::plugin::Construction;
using tgraph::plugin::Context;
using tgraph::plugin::KernelBuilder;
using tgraph::plugin::TensorMut;
using tgraph::plugin::TensorView;

class StringToHashBucketFastOp {
 public:
  explicit StringToHashBucketFastOp(Construction& c) {
    if (c.GetAttr("num_buckets", &num_buckets_) && num_buckets_ < 1) {
      c.Fail(TG_INVALID_ARGUMENT, std::string("num_buckets must be at least 1, got ")
                                      .append(std::to_string(num_buckets_)));
    }
  }
  void Compute(Context& ctx) {
    TensorView in = ctx.input(0);
    TensorMut out = ctx.AllocateOutput(0, in.dims());
    if (!ctx.ok()) return;
    int64_t* buckets = out.mutable_data<int64_t>();
    const uint64_t n = static_cast<uint64_t>(num_buckets_);
    for (int64_t i = 0; i < in.num_elements(); ++i) {
      buckets[i] = static_cast<int64_t>(Fingerprint64(in.string_at(i)) % n);
    }
  }

 private:
  int64_t num_buckets_ = 1;
};

bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}
std::string_view StripSpace(std::string_view s) {
  while (!s.empty() && IsSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsSpace(s.back())) s.remove_suffix(1);
  return s;
}

// A whole (space-trimmed) string as an integer of T: optional sign, decimal digits, in range.
template <typename T>
bool ParseInt(std::string_view s, T* out) {
  s = StripSpace(s);
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  if (s.empty() || s.front() == '+') return false;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && end == s.data() + s.size();
}

// A whole (space-trimmed) string as a float or double: decimal or hex, "inf", "nan" in any
// case; out-of-range values become +-inf (or 0), as TensorFlow's double-conversion gives.
template <typename T>
bool ParseFloat(std::string_view s, T* out) {
  s = StripSpace(s);
  if (s.empty()) return false;
  const std::string text(s);  // strtod needs a terminated string
  // The "C" locale whatever the process set (a "de_DE" LC_NUMERIC would read "1,5").
  static const locale_t c_locale = newlocale(LC_ALL_MASK, "C", locale_t{});
  if (c_locale == locale_t{}) return false;
  char* end = nullptr;
  if constexpr (std::is_same_v<T, float>) {
    *out = strtof_l(text.c_str(), &end, c_locale);
  } else {
    *out = strtod_l(text.c_str(), &end, c_locale);
  }
  return end == text.c_str() + text.size();
}

class StringToNumberOp {
 public:
  explicit StringToNumberOp(Construction& c) { c.GetAttr("out_type", &out_type_); }
  void Compute(Context& ctx) {
    switch (out_type_) {
      case TG_FLOAT: return Run<float>(ctx, ParseFloat<float>);
      case TG_DOUBLE: return Run<double>(ctx, ParseFloat<double>);
      case TG_INT32: return Run<int32_t>(ctx, ParseInt<int32_t>);
      case TG_INT64: return Run<int64_t>(ctx, ParseInt<int64_t>);
      case TG_UINT32: return Run<uint32_t>(ctx, ParseInt<uint32_t>);
      case TG_UINT64: return Run<uint64_t>(ctx, ParseInt<uint64_t>);
      default:
        ctx.Fail(TG_INVALID_ARGUMENT, std::string("StringToNumber cannot produce dtype ")
                                          .append(std::to_string(static_cast<int>(out_type_))));
    }
  }

 private:
  template <typename T>
  void Run(Context& ctx, bool (*parse)(std::string_view, T*)) {
    TensorView in = ctx.input(0);
    TensorMut out = ctx.AllocateOutput(0, in.dims());
    if (!ctx.ok()) return;
    T* values = out.mutable_data<T>();
    for (int64_t i = 0; i < in.num_elements(); ++i) {
      const std::string_view s = in.string_at(i);
      if (!parse(s, &values[i])) {
        std::string message = "StringToNumberOp could not correctly convert string: ";
        message += s;
        ctx.Fail(TG_INVALID_ARGUMENT, message);
        return;
      }
    }
  }

  TG_DataType out_type_ = TG_FLOAT;
};

std::string TypeName(TG_DataType t) {
  switch (t) {
    case TG_INT8: return "int8";
    case TG_INT16: return "int16";
    case TG_INT32: return "int32";
    case TG_INT64: return "int64";
    case TG_UINT8: return "uint8";
    case TG_UINT16: return "uint16";
    case TG_UINT32: return "uint32";
    case TG_UINT64: return "uint64";
    case TG_BOOL: return "bool";
    case TG_STRING: return "string";
    default: return std::string("dtype ").append(std::to_string(static_cast<int>(t)));
  }
}

// AsString: one printf format for the whole tensor, "%" + fill + width + "." precision +
// the conversion of the dtype, checked as TensorFlow checks the attrs.
class AsStringOp {
 public:
  explicit AsStringOp(Construction& c) { Init(c); }

  void Compute(Context& ctx) {
    TensorView in = ctx.input(0);
    TensorMut out = ctx.AllocateOutput(0, in.dims());
    if (!ctx.ok()) return;
    // width and precision are int64 attrs a graph may set to anything: each string's length
    // is known before it is built, so an absurd one fails here instead of allocating it.
    uint64_t total = 0;
    std::string s;
    for (int64_t i = 0; i < in.num_elements(); ++i) {
      // A width (or a float's precision) past the budget fails before snprintf pads it, and
      // so does a precision whose digits glibc's printf could not build in the budget.
      if (min_length_ > kMaxOutputBytes - total || float_digits_ > kMaxOutputBytes / kDigitBytes ||
          !Format(in, i, kMaxOutputBytes - total, &s)) {
        return ctx.Fail(TG_RESOURCE_EXHAUSTED,
                        std::string("AsString: the formatted strings would exceed ")
                            .append(std::to_string(kMaxOutputBytes))
                            .append(" bytes (width or precision too large)"));
      }
      total += s.size();
      out.set_string(i, s);
    }
  }

 private:
  void Init(Construction& c) {
    int64_t precision = -1, width = -1;
    bool scientific = false, shortest = false;
    std::string fill;
    if (!c.GetAttr("T", &dtype_) || !c.GetAttr("precision", &precision) ||
        !c.GetAttr("scientific", &scientific) || !c.GetAttr("shortest", &shortest) ||
        !c.GetAttr("width", &width) || !c.GetAttr("fill", &fill)) {
      return;
    }
    const bool is_float = dtype_ == TG_FLOAT || dtype_ == TG_DOUBLE || dtype_ == TG_HALF ||
                          dtype_ == TG_BFLOAT16 || dtype_ == TG_COMPLEX64 ||
                          dtype_ == TG_COMPLEX128;
    if (fill.size() > 1) return c.Fail(TG_INVALID_ARGUMENT, "Fill string must be one or fewer characters");
    if (scientific && shortest) {
      return c.Fail(TG_INVALID_ARGUMENT, "Cannot select both scientific and shortest notation");
    }
    if (!is_float && (scientific || shortest)) {
      return c.Fail(TG_INVALID_ARGUMENT, std::string("scientific and shortest format not supported for datatype ").append(TypeName(dtype_)));
    }
    // A string's precision truncates it ("%.2s"); ints and bools have none.
    if (!is_float && dtype_ != TG_STRING && precision > -1) {
      return c.Fail(TG_INVALID_ARGUMENT, std::string("precision not supported for datatype ").append(TypeName(dtype_)));
    }
    std::string format(1, '%');  // built locally: GCC 12 -O3 warns on format_ = "%"
    if (!fill.empty()) {
      if (std::string_view(" +-0#").find(fill[0]) == std::string_view::npos) {
        return c.Fail(TG_INVALID_ARGUMENT, std::string("Fill argument not supported: \"").append(fill).append("\""));
      }
      format += fill;
    }
    if (width > -1) format += std::to_string(width);
    min_length_ = static_cast<uint64_t>(std::max<int64_t>(
        {width, is_float ? precision : 0, 0}));
    float_digits_ = static_cast<uint64_t>(is_float ? std::max<int64_t>(precision, 0) : 0);
    if (precision > -1) {
      format += ".";
      format += std::to_string(precision);
    }
    switch (dtype_) {
      case TG_INT8:
      case TG_INT16:
      case TG_INT32: format += "d"; break;
      case TG_INT64: format += "lld"; break;
      case TG_UINT8:
      case TG_UINT16:
      case TG_UINT32: format += "u"; break;
      case TG_UINT64: format += "llu"; break;
      case TG_FLOAT:
      case TG_DOUBLE:
      case TG_HALF:
      case TG_BFLOAT16:
      case TG_COMPLEX64:
      case TG_COMPLEX128: format += shortest ? "g" : scientific ? "e" : "f"; break;
      case TG_STRING: format += "s"; break;
      default: break;  // bool: "true" / "false" whatever the attrs
    }
    // A complex number is "(real,imag)", each part in the float format.
    format_ = dtype_ == TG_COMPLEX64 || dtype_ == TG_COMPLEX128
                  ? std::string("(").append(format).append(",").append(format).append(")")
                  : std::move(format);
  }

  // The whole output's string bytes (snprintf itself stops at INT_MAX per string).
  static constexpr uint64_t kMaxOutputBytes = uint64_t{1} << 30;
  // glibc's printf builds a float's digits as wide characters in a buffer it mallocs, four
  // bytes a digit of precision: a precision of 900 M (a 900 MB string, within the budget)
  // asked for 3.6 GB before printing anything (found by fuzz/op_run).
  static constexpr uint64_t kDigitBytes = 4;

  // False, with nothing allocated, when the string would be longer than `budget` bytes.
  template <typename... V>
  bool Printf(uint64_t budget, std::string* s, V... values) const {
    const int n = std::snprintf(nullptr, 0, format_.c_str(), values...);
    if (n < 0 || static_cast<uint64_t>(n) > budget) return false;
    s->assign(static_cast<size_t>(n), '\0');
    if (n > 0) std::snprintf(s->data(), s->size() + 1, format_.c_str(), values...);
    return true;
  }

  bool Format(const TensorView& in, int64_t i, uint64_t budget, std::string* s) const {
    switch (dtype_) {
      case TG_INT8: return Printf(budget, s, static_cast<int>(in.data<int8_t>()[i]));
      case TG_INT16: return Printf(budget, s, static_cast<int>(in.data<int16_t>()[i]));
      case TG_INT32: return Printf(budget, s, static_cast<int>(in.data<int32_t>()[i]));
      case TG_INT64: return Printf(budget, s, static_cast<long long>(in.data<int64_t>()[i]));
      case TG_UINT8: return Printf(budget, s, static_cast<unsigned>(in.data<uint8_t>()[i]));
      case TG_UINT16: return Printf(budget, s, static_cast<unsigned>(in.data<uint16_t>()[i]));
      case TG_UINT32: return Printf(budget, s, static_cast<unsigned>(in.data<uint32_t>()[i]));
      case TG_UINT64: return Printf(budget, s, static_cast<unsigned long long>(in.data<uint64_t>()[i]));
      case TG_FLOAT: return Printf(budget, s, static_cast<double>(in.data<float>()[i]));
      case TG_DOUBLE: return Printf(budget, s, in.data<double>()[i]);
      case TG_HALF: return Printf(budget, s, static_cast<double>(static_cast<float>(in.data<Eigen::half>()[i])));
      case TG_BFLOAT16:
        return Printf(budget, s, static_cast<double>(static_cast<float>(in.data<Eigen::bfloat16>()[i])));
      case TG_COMPLEX64: {
        const float* c = in.data<float>() + 2 * i;
        return Printf(budget, s, static_cast<double>(c[0]), static_cast<double>(c[1]));
      }
      case TG_COMPLEX128: {
        const double* c = in.data<double>() + 2 * i;
        return Printf(budget, s, c[0], c[1]);
      }
      case TG_BOOL: *s = in.data<bool>()[i] ? "true" : "false"; return true;
      case TG_STRING: return Printf(budget, s, std::string(in.string_at(i)).c_str());
      default: s->clear(); return true;
    }
  }

  TG_DataType dtype_ = TG_FLOAT;
  std::string format_;
  uint64_t min_length_ = 0;  // no string of this op is shorter: the width, a float's digits
  uint64_t float_digits_ = 0;  // a float's precision (0 for other dtypes)
};

}  // namespace

void RegisterStringConvertKernels(tgraph::plugin::Init& init) {
  init.Kernel<StringToHashBucketFastOp>(KernelBuilder("StringToHashBucketFast", "CPU"));
  init.Kernel<StringToNumberOp>(
      KernelBuilder("StringToNumber", "CPU")
          .TypeConstraint("out_type", {TG_FLOAT, TG_DOUBLE, TG_INT32, TG_INT64, TG_UINT32,
                                       TG_UINT64}));
  init.Kernel<AsStringOp>(KernelBuilder("AsString", "CPU")
                              .TypeConstraint("T", {TG_FLOAT, TG_DOUBLE, TG_HALF, TG_BFLOAT16,
                                                    TG_COMPLEX64, TG_COMPLEX128, TG_INT8, TG_INT16,
                                                    TG_INT32, TG_INT64, TG_UINT8, TG_UINT16,
                                                    TG_UINT32, TG_UINT64, TG_BOOL, TG_STRING}));
}

}  // namespace tgraph_cpu
