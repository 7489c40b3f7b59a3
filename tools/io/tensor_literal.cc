// ParseTensorLiteral: a tensor typed on the command line. Nesting of [...] gives the shape;
// leaves are numbers, true/false, or (for TG_STRING) JSON-style quoted strings.
#include <cctype>
#include <charconv>
#include <cmath>
#include <complex>
#include <cstring>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "io_error.h"
#include "owned_handles.h"
#include "small_float.h"
#include "tensor_io.h"
#include "utf8.h"

namespace tgraph::tool {
namespace {

constexpr size_t kMaxNesting = 64;

struct Leaf {
  std::string text;  // the token, or the decoded contents of a quoted string
  bool quoted;
  size_t offset;  // where it starts in the literal, for messages
};

// Reads the nesting and leaves; the shape is fixed by the first list seen at each depth and
// every other list at that depth must match it (no ragged nesting).
class LiteralParser {
 public:
  explicit LiteralParser(std::string_view text) : text_(text) {}

  IoError Parse(std::vector<Leaf>* leaves, std::vector<int64_t>* shape) {
    leaves_ = leaves;
    if (IoError e = ParseValue(0); !e.ok()) return e;
    SkipSpace();
    if (pos_ != text_.size()) return Error("unexpected text after the value");
    if (leaf_depth_ < 0) leaf_depth_ = static_cast<int>(shape_.size());
    if (static_cast<size_t>(leaf_depth_) != shape_.size()) return Error("ragged nesting");
    *shape = shape_;
    return Ok();
  }

 private:
  IoError Error(const std::string& what) const {
    return Fail(TG_INVALID_ARGUMENT, what + " at offset " + std::to_string(pos_));
  }

  void SkipSpace() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }

  IoError ParseValue(size_t depth) {
    SkipSpace();
    if (pos_ >= text_.size()) return Error("expected a value");
    if (text_[pos_] == '[') return ParseList(depth);
    if (leaf_depth_ < 0) leaf_depth_ = static_cast<int>(depth);
    if (static_cast<size_t>(leaf_depth_) != depth || shape_.size() > depth) {
      return Error(
          "ragged nesting (a value where the other elements are lists, or the "
          "reverse)");
    }
    return text_[pos_] == '"' ? ParseQuoted() : ParseToken();
  }

  IoError ParseList(size_t depth) {
    if (depth == kMaxNesting) {
      return Error("nested deeper than " + std::to_string(kMaxNesting) + " levels");
    }
    if (leaf_depth_ >= 0 && depth >= static_cast<size_t>(leaf_depth_)) {
      return Error("ragged nesting (a list where the other elements are values)");
    }
    ++pos_;  // '['
    int64_t count = 0;
    SkipSpace();
    if (pos_ < text_.size() && text_[pos_] == ']') {
      ++pos_;
    } else {
      while (true) {
        if (IoError e = ParseValue(depth + 1); !e.ok()) return e;
        ++count;
        SkipSpace();
        if (pos_ < text_.size() && text_[pos_] == ',') {
          ++pos_;
          continue;
        }
        if (pos_ < text_.size() && text_[pos_] == ']') {
          ++pos_;
          break;
        }
        return Error("expected ',' or ']'");
      }
    }
    if (shape_.size() <= depth) shape_.resize(depth + 1, -1);
    if (shape_[depth] < 0) {
      shape_[depth] = count;
    } else if (shape_[depth] != count) {
      return Error("ragged nesting (lists of " + std::to_string(shape_[depth]) + " and " +
                   std::to_string(count) + " elements at depth " + std::to_string(depth) + ")");
    }
    return Ok();
  }

  IoError ParseToken() {
    const size_t start = pos_;
    while (pos_ < text_.size() && std::strchr(",[]\" \t\r\n", text_[pos_]) == nullptr) ++pos_;
    if (pos_ == start) return Error("expected a value");
    leaves_->push_back({std::string(text_.substr(start, pos_ - start)), false, start});
    return Ok();
  }

  IoError ParseHex(size_t digits, uint32_t* value) {
    if (text_.size() - pos_ < digits) return Error("truncated escape");
    const char* begin = text_.data() + pos_;
    auto [next, ec] = std::from_chars(begin, begin + digits, *value, 16);
    if (ec != std::errc() || next != begin + digits) return Error("bad hex escape");
    pos_ += digits;
    return Ok();
  }

  // JSON escapes, plus \xNN for an arbitrary byte.
  IoError ParseEscape(std::string* out) {
    if (pos_ >= text_.size()) return Error("unterminated string");
    const char c = text_[pos_++];
    static constexpr std::string_view kSimple = "\"\\/bfnrt", kMeaning = "\"\\/\b\f\n\r\t";
    if (size_t k = kSimple.find(c); k != std::string_view::npos) {
      out->push_back(kMeaning[k]);
      return Ok();
    }
    uint32_t value = 0;
    if (c == 'x') {
      if (IoError e = ParseHex(2, &value); !e.ok()) return e;
      out->push_back(static_cast<char>(value));
      return Ok();
    }
    if (c != 'u') return Error(std::string("unknown escape \\") + c);
    if (IoError e = ParseHex(4, &value); !e.ok()) return e;
    if (value >= 0xd800 && value <= 0xdbff) {  // a UTF-16 surrogate pair
      uint32_t low = 0;
      if (!text_.substr(pos_).starts_with("\\u")) return Error("unpaired surrogate");
      pos_ += 2;
      if (IoError e = ParseHex(4, &low); !e.ok()) return e;
      if (low < 0xdc00 || low > 0xdfff) return Error("unpaired surrogate");
      value = 0x10000 + ((value - 0xd800) << 10) + (low - 0xdc00);
    } else if (value >= 0xdc00 && value <= 0xdfff) {
      return Error("unpaired surrogate");
    }
    AppendUtf8(value, out);
    return Ok();
  }

  IoError ParseQuoted() {
    const size_t start = pos_++;
    std::string value;
    while (true) {
      if (pos_ >= text_.size()) return Error("unterminated string");
      const char c = text_[pos_++];
      if (c == '"') break;
      if (c != '\\') {
        value.push_back(c);
      } else if (IoError e = ParseEscape(&value); !e.ok()) {
        return e;
      }
    }
    leaves_->push_back({std::move(value), true, start});
    return Ok();
  }

  std::string_view text_;
  size_t pos_ = 0;
  std::vector<Leaf>* leaves_ = nullptr;
  std::vector<int64_t> shape_;  // -1 until a list at that depth ends
  int leaf_depth_ = -1;
};

std::string DtypeName(TG_DataType dtype) {
  const char* name = TG_DataTypeName(dtype);
  return name != nullptr ? name : "invalid";
}

// `text` in quotes, cut short for a message.
std::string Quoted(const std::string& text) {
  constexpr size_t kShown = 60;
  std::string quoted(1, '\'');
  quoted.append(text, 0, kShown);
  if (text.size() > kShown) quoted.append("...");
  quoted.push_back('\'');
  return quoted;
}

IoError BadValue(const Leaf& leaf, TG_DataType dtype, const std::string& why) {
  return Fail(TG_INVALID_ARGUMENT, Quoted(leaf.text) + " at offset " + std::to_string(leaf.offset) +
                                       " " + why + " " + DtypeName(dtype));
}

// from_chars does not take a leading '+'.
std::string_view WithoutPlus(std::string_view s) {
  return s.size() > 1 && s[0] == '+' && s[1] != '-' ? s.substr(1) : s;
}

template <typename T>
IoError ParseInteger(const Leaf& leaf, TG_DataType dtype, T* out) {
  const std::string_view s = WithoutPlus(leaf.text);
  const char* end = s.data() + s.size();
  // Parsed in the widest type of the sign it has, to tell "out of range" from "not a number".
  bool in_range = false;
  std::from_chars_result result{};
  if (!s.empty() && s[0] == '-') {
    int64_t value = 0;
    result = std::from_chars(s.data(), end, value);
    in_range = result.ec == std::errc() && std::in_range<T>(value);
    *out = static_cast<T>(value);
  } else {
    uint64_t value = 0;
    result = std::from_chars(s.data(), end, value);
    in_range = result.ec == std::errc() && std::in_range<T>(value);
    *out = static_cast<T>(value);
  }
  if (result.ptr != end || s.empty() ||
      (result.ec != std::errc() && result.ec != std::errc::result_out_of_range)) {
    return BadValue(leaf, dtype, "is not an integer of type");
  }
  if (!in_range) {
    return BadValue(leaf, dtype,
                    "is out of range (" + std::to_string(std::numeric_limits<T>::min()) + ".." +
                        std::to_string(std::numeric_limits<T>::max()) + ") for");
  }
  return Ok();
}

IoError ParseReal(const Leaf& leaf, std::string_view s, TG_DataType dtype, double* out) {
  s = WithoutPlus(s);
  auto [next, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  if (next != s.data() + s.size() || s.empty() ||
      (ec != std::errc() && ec != std::errc::result_out_of_range)) {
    return BadValue(leaf, dtype, "is not a number of type");
  }
  if (ec == std::errc::result_out_of_range) {
    return BadValue(leaf, dtype, "is out of the range of");
  }
  return Ok();
}

// A value that was finite before rounding to the element type must stay finite.
IoError CheckFinite(const Leaf& leaf, TG_DataType dtype, double parsed, double rounded) {
  if (std::isfinite(parsed) && !std::isfinite(rounded)) {
    return BadValue(leaf, dtype, "is out of the range of");
  }
  return Ok();
}

IoError ParseFloat(const Leaf& leaf, TG_DataType dtype, float* out) {
  // Parse as float directly so the decimal is rounded once.
  std::string_view s = WithoutPlus(leaf.text);
  auto [next, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  if (ec == std::errc() && next == s.data() + s.size()) return Ok();
  double d;  // subnormal or out of range, or not a number at all
  if (IoError e = ParseReal(leaf, leaf.text, dtype, &d); !e.ok()) return e;
  *out = static_cast<float>(d);
  return CheckFinite(leaf, dtype, d, *out);
}

IoError ParseSmallFloat(const Leaf& leaf, TG_DataType dtype, SmallFloatFormat format,
                        uint16_t* out) {
  double d;
  if (IoError e = ParseReal(leaf, leaf.text, dtype, &d); !e.ok()) return e;
  *out = static_cast<uint16_t>(DoubleToSmallFloat(d, format));
  return CheckFinite(leaf, dtype, d, SmallFloatToDouble(*out, format));
}

// Python's complex syntax: "1.5", "2j", "1+2j", "-1.5e3-2j".
template <typename T>
IoError ParseComplex(const Leaf& leaf, TG_DataType dtype, std::complex<T>* out) {
  std::string_view s = leaf.text;
  double real = 0, imag = 0;
  if (!s.empty() && (s.back() == 'j' || s.back() == 'J')) {
    s.remove_suffix(1);
    size_t split = std::string_view::npos;  // where the imaginary part's sign starts
    for (size_t i = s.size(); i-- > 1;) {
      if ((s[i] == '+' || s[i] == '-') && s[i - 1] != 'e' && s[i - 1] != 'E') {
        split = i;
        break;
      }
    }
    std::string_view imag_text = split == std::string_view::npos ? s : s.substr(split);
    if (imag_text == "+" || imag_text == "-" || imag_text.empty()) {
      return BadValue(leaf, dtype, "is not a number of type");
    }
    if (IoError e = ParseReal(leaf, imag_text, dtype, &imag); !e.ok()) return e;
    if (split != std::string_view::npos) {
      if (IoError e = ParseReal(leaf, s.substr(0, split), dtype, &real); !e.ok()) return e;
    }
  } else if (IoError e = ParseReal(leaf, s, dtype, &real); !e.ok()) {
    return e;
  }
  *out = {static_cast<T>(real), static_cast<T>(imag)};
  if (IoError e = CheckFinite(leaf, dtype, real, out->real()); !e.ok()) return e;
  return CheckFinite(leaf, dtype, imag, out->imag());
}

IoError ParseBool(const Leaf& leaf, TG_DataType dtype, uint8_t* out) {
  for (const char* word : {"true", "True", "1"}) {
    if (leaf.text == word) {
      *out = 1;
      return Ok();
    }
  }
  for (const char* word : {"false", "False", "0"}) {
    if (leaf.text == word) {
      *out = 0;
      return Ok();
    }
  }
  return BadValue(leaf, dtype, "is not true or false, for");
}

// Converts every leaf with `parse` into a numeric tensor's buffer.
template <typename T, typename ParseFn>
IoError MakeNumeric(const std::vector<Leaf>& leaves, const std::vector<int64_t>& shape,
                    TG_DataType dtype, ParseFn parse, TensorPtr* out) {
  std::vector<T> values(leaves.size());
  for (size_t i = 0; i < leaves.size(); ++i) {
    if (leaves[i].quoted) {
      return Fail(TG_INVALID_ARGUMENT, "a quoted string at offset " +
                                           std::to_string(leaves[i].offset) + " in a " +
                                           DtypeName(dtype) + " literal");
    }
    if (IoError e = parse(leaves[i], dtype, &values[i]); !e.ok()) return e;
  }
  const size_t bytes = values.size() * sizeof(T);
  out->reset(TG_AllocateTensor(dtype, shape.data(), static_cast<int>(shape.size()), bytes));
  if (*out == nullptr) return Fail(TG_RESOURCE_EXHAUSTED, "cannot allocate the tensor");
  if (bytes > 0) std::memcpy(TG_TensorData(out->get()), values.data(), bytes);
  return Ok();
}

IoError MakeStrings(const std::vector<Leaf>& leaves, const std::vector<int64_t>& shape,
                    TensorPtr* out) {
  std::vector<const char*> pointers;
  std::vector<size_t> lengths;
  for (const Leaf& leaf : leaves) {
    if (!leaf.quoted) {
      return Fail(TG_INVALID_ARGUMENT, Quoted(leaf.text) + " at offset " +
                                           std::to_string(leaf.offset) +
                                           " is not a quoted string (\"...\")");
    }
    pointers.push_back(leaf.text.data());
    lengths.push_back(leaf.text.size());
  }
  StatusPtr status(TG_NewStatus());
  out->reset(TG_NewStringTensor(shape.data(), static_cast<int>(shape.size()), pointers.data(),
                                lengths.data(), status.get()));
  return ErrorOf(status.get());
}

IoError MakeTensor(const std::vector<Leaf>& leaves, const std::vector<int64_t>& shape,
                   TG_DataType dtype, TensorPtr* out) {
  auto small_float = [](SmallFloatFormat format) {
    return [format](const Leaf& leaf, TG_DataType dt, uint16_t* v) {
      return ParseSmallFloat(leaf, dt, format, v);
    };
  };
  auto real = [](const Leaf& leaf, TG_DataType dt, double* v) {
    return ParseReal(leaf, leaf.text, dt, v);
  };
  switch (dtype) {
    case TG_FLOAT:
      return MakeNumeric<float>(leaves, shape, dtype, ParseFloat, out);
    case TG_DOUBLE:
      return MakeNumeric<double>(leaves, shape, dtype, real, out);
    case TG_HALF:
      return MakeNumeric<uint16_t>(leaves, shape, dtype, small_float(kHalfFormat), out);
    case TG_BFLOAT16:
      return MakeNumeric<uint16_t>(leaves, shape, dtype, small_float(kBFloat16Format), out);
    case TG_INT8:
      return MakeNumeric<int8_t>(leaves, shape, dtype, ParseInteger<int8_t>, out);
    case TG_INT16:
      return MakeNumeric<int16_t>(leaves, shape, dtype, ParseInteger<int16_t>, out);
    case TG_INT32:
      return MakeNumeric<int32_t>(leaves, shape, dtype, ParseInteger<int32_t>, out);
    case TG_INT64:
      return MakeNumeric<int64_t>(leaves, shape, dtype, ParseInteger<int64_t>, out);
    case TG_UINT8:
      return MakeNumeric<uint8_t>(leaves, shape, dtype, ParseInteger<uint8_t>, out);
    case TG_UINT16:
      return MakeNumeric<uint16_t>(leaves, shape, dtype, ParseInteger<uint16_t>, out);
    case TG_UINT32:
      return MakeNumeric<uint32_t>(leaves, shape, dtype, ParseInteger<uint32_t>, out);
    case TG_UINT64:
      return MakeNumeric<uint64_t>(leaves, shape, dtype, ParseInteger<uint64_t>, out);
    case TG_BOOL:
      return MakeNumeric<uint8_t>(leaves, shape, dtype, ParseBool, out);
    case TG_COMPLEX64:
      return MakeNumeric<std::complex<float>>(leaves, shape, dtype, ParseComplex<float>, out);
    case TG_COMPLEX128:
      return MakeNumeric<std::complex<double>>(leaves, shape, dtype, ParseComplex<double>, out);
    case TG_STRING:
      return MakeStrings(leaves, shape, out);
    default:
      return Fail(TG_UNIMPLEMENTED, "literals of type " + DtypeName(dtype) + " are not supported");
  }
}

IoError ParseLiteral(const std::string& text, TG_DataType dtype, TensorPtr* out) {
  std::vector<Leaf> leaves;
  std::vector<int64_t> shape;
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (dtype == TG_STRING &&
      (first == std::string::npos || (text[first] != '"' && text[first] != '['))) {
    // A bare word is the string itself, so `--feed name=abc` needs no shell-escaped quotes.
    leaves.push_back({text, true, 0});
  } else {
    if (first == std::string::npos) return Fail(TG_INVALID_ARGUMENT, "empty literal");
    if (IoError e = LiteralParser(text).Parse(&leaves, &shape); !e.ok()) return e;
  }
  return MakeTensor(leaves, shape, dtype, out);
}

}  // namespace

TG_Tensor* ParseTensorLiteral(const std::string& text, TG_DataType dtype, TG_Status* status) {
  TensorPtr tensor;
  if (IoError e = ParseLiteral(text, dtype, &tensor); !e.ok()) {
    Report(e, DtypeName(dtype) + " literal " + Quoted(text), status);
    return nullptr;
  }
  TG_SetStatus(status, TG_OK, "");
  return tensor.release();
}

}  // namespace tgraph::tool
