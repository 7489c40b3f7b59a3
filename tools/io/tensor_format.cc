// FormatTensor: the text numpy's repr() prints for the same array, following numpy 1.x's
// arrayprint with default options (line width 75, summarization beyond 1000 elements with 3
// at each edge, precision 8).
#include <algorithm>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "float_format.h"
#include "npy_header.h"
#include "numpy_dtype.h"
#include "small_float.h"
#include "tensor_io.h"

namespace tgraph::tool {
namespace {

constexpr size_t kLineWidth = 75;
constexpr int64_t kSummarizeThreshold = 1000;
constexpr int64_t kEdgeItems = 3;
constexpr std::string_view kSeparator = ", ";

using ElementFormatter = std::function<std::string(int64_t index)>;

// The elements numpy shows: all of them, or with summarization those within kEdgeItems of
// either end of every long axis (row-major flat indices).
std::vector<int64_t> ShownIndices(const std::vector<int64_t>& shape, bool summarize) {
  std::vector<int64_t> indices = {0};
  for (int64_t dim : shape) {
    std::vector<int64_t> along;
    for (int64_t i = 0; i < dim; ++i) {
      if (summarize && dim > 2 * kEdgeItems && i == kEdgeItems) i = dim - kEdgeItems;
      along.push_back(i);
    }
    std::vector<int64_t> next;
    for (int64_t base : indices) {
      for (int64_t i : along) next.push_back(base * dim + i);
    }
    indices = std::move(next);
  }
  return indices;
}

template <typename T>
T ElementAt(const TG_Tensor* t, int64_t index) {
  T value;
  std::memcpy(&value, static_cast<const char*>(TG_TensorData(t)) + index * sizeof(T), sizeof(T));
  return value;
}

// Integers right-aligned to the widest shown value.
template <typename T>
ElementFormatter IntegerFormatter(const TG_Tensor* t, const std::vector<int64_t>& shown) {
  size_t width = 0;
  for (int64_t i : shown) width = std::max(width, std::to_string(ElementAt<T>(t, i)).size());
  return [t, width](int64_t i) {
    std::string s = std::to_string(ElementAt<T>(t, i));
    return std::string(width - std::min(width, s.size()), ' ') + s;
  };
}

// Floating-point element `index` (of a complex tensor: part `part` of it) as an exact double.
double FloatAt(const TG_Tensor* t, int64_t index, int part = 0) {
  switch (TG_TensorType(t)) {
    case TG_HALF:
      return SmallFloatToDouble(ElementAt<uint16_t>(t, index), kHalfFormat);
    case TG_BFLOAT16:
      return SmallFloatToDouble(ElementAt<uint16_t>(t, index), kBFloat16Format);
    case TG_FLOAT:
      return ElementAt<float>(t, index);
    case TG_COMPLEX64:
      return ElementAt<float>(t, 2 * index + part);
    case TG_COMPLEX128:
      return ElementAt<double>(t, 2 * index + part);
    default:
      return ElementAt<double>(t, index);
  }
}

FloatKind KindOf(TG_DataType dtype) {
  switch (dtype) {
    case TG_HALF:
      return FloatKind::kHalf;
    case TG_BFLOAT16:
      return FloatKind::kBFloat16;
    case TG_FLOAT:
    case TG_COMPLEX64:
      return FloatKind::kFloat;
    default:
      return FloatKind::kDouble;
  }
}

ElementFormatter RealFormatter(const TG_Tensor* t, const std::vector<int64_t>& shown) {
  std::vector<double> values;
  for (int64_t i : shown) values.push_back(FloatAt(t, i));
  NumpyFloatFormat format(values, KindOf(TG_TensorType(t)), /*sign_plus=*/false);
  return [t, format](int64_t i) { return format(FloatAt(t, i)); };
}

ElementFormatter ComplexFormatter(const TG_Tensor* t, const std::vector<int64_t>& shown) {
  std::vector<double> real, imag;
  for (int64_t i : shown) {
    real.push_back(FloatAt(t, i, 0));
    imag.push_back(FloatAt(t, i, 1));
  }
  const FloatKind kind = KindOf(TG_TensorType(t));
  NumpyFloatFormat real_format(real, kind, false), imag_format(imag, kind, true);
  return [t, real_format, imag_format](int64_t i) {
    std::string imag_text = imag_format(FloatAt(t, i, 1));
    // The 'j' goes before the padding that aligns the imaginary parts.
    imag_text.insert(imag_text.find_last_not_of(' ') + 1, 1, 'j');
    return real_format(FloatAt(t, i, 0)) + imag_text;
  };
}

std::string_view StringAt(const TG_Tensor* t, int64_t index) {
  const char* data = nullptr;
  size_t len = 0;
  TG_Status* status = TG_NewStatus();
  TG_TensorGetString(t, index, &data, &len, status);
  TG_DeleteStatus(status);
  return data == nullptr ? std::string_view() : std::string_view(data, len);
}

// Python's repr of bytes, of the element as numpy holds it ('S' drops trailing NULs).
std::string BytesRepr(std::string_view s) {
  while (!s.empty() && s.back() == '\0') s.remove_suffix(1);
  const bool has_single = s.find('\'') != std::string_view::npos;
  const char quote = has_single && s.find('"') == std::string_view::npos ? '"' : '\'';
  std::string out = "b";
  out.push_back(quote);
  for (char c : s) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (c == quote || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (u < 0x20 || u >= 0x7f) {
      static constexpr char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[u >> 4];
      out += kHex[u & 0xf];
    } else {
      out += c;
    }
  }
  out.push_back(quote);
  return out;
}

ElementFormatter FormatterFor(const TG_Tensor* t, const std::vector<int64_t>& shown) {
  switch (TG_TensorType(t)) {
    case TG_INT8:
      return IntegerFormatter<int8_t>(t, shown);
    case TG_INT16:
      return IntegerFormatter<int16_t>(t, shown);
    case TG_INT32:
      return IntegerFormatter<int32_t>(t, shown);
    case TG_INT64:
      return IntegerFormatter<int64_t>(t, shown);
    case TG_UINT8:
      return IntegerFormatter<uint8_t>(t, shown);
    case TG_UINT16:
      return IntegerFormatter<uint16_t>(t, shown);
    case TG_UINT32:
      return IntegerFormatter<uint32_t>(t, shown);
    case TG_UINT64:
      return IntegerFormatter<uint64_t>(t, shown);
    case TG_HALF:
    case TG_BFLOAT16:
    case TG_FLOAT:
    case TG_DOUBLE:
      return RealFormatter(t, shown);
    case TG_COMPLEX64:
    case TG_COMPLEX128:
      return ComplexFormatter(t, shown);
    case TG_BOOL: {
      // In arrays numpy pads True to the width of False.
      const std::string true_text = TG_NumDims(t) > 0 ? " True" : "True";
      return [t, true_text](int64_t i) { return ElementAt<uint8_t>(t, i) ? true_text : "False"; };
    }
    case TG_STRING:
      return [t](int64_t i) { return BytesRepr(StringAt(t, i)); };
    default:
      return nullptr;
  }
}

// numpy's _formatArray: nested brackets, rows wrapped at the line width, "..." for the
// elided middle of long axes.
class ArrayLayout {
 public:
  ArrayLayout(std::vector<int64_t> shape, bool summarize, ElementFormatter element)
      : shape_(std::move(shape)),
        strides_(shape_.size(), 1),
        summarize_(summarize),
        element_(std::move(element)) {
    for (size_t k = shape_.size(); k-- > 1;) strides_[k - 1] = strides_[k] * shape_[k];
  }

  std::string Format(const std::string& hanging_indent, size_t width) const {
    return Recurse(0, 0, hanging_indent, width);
  }

 private:
  // Appends `word` to `line`, first moving the line to `s` when the word would pass `width`
  // (unless the line holds nothing but the indent, where wrapping would not help).
  static void Extend(std::string* s, std::string* line, const std::string& word, size_t width,
                     const std::string& indent) {
    if (line->size() + word.size() > width && line->size() > indent.size()) {
      *s += line->substr(0, line->find_last_not_of(' ') + 1) + "\n";
      *line = indent;
    }
    *line += word;
  }

  std::string Recurse(size_t axis, int64_t offset, const std::string& indent, size_t width) const {
    if (axis == shape_.size()) return element_(offset);
    const std::string next_indent = indent + " ";
    const size_t next_width = width - 1;  // room for the "]" that closes this level
    const int64_t length = shape_[axis];
    const bool elide = summarize_ && length > 2 * kEdgeItems;
    std::vector<int64_t> items;
    for (int64_t i = 0; i < length; ++i) {
      if (elide && i == kEdgeItems) {
        items.push_back(-1);  // the "..." marker
        i = length - kEdgeItems;
      }
      items.push_back(i);
    }
    auto nested = [&](int64_t i) {
      return Recurse(axis + 1, offset + i * strides_[axis], next_indent, next_width);
    };
    std::string s;
    if (axis + 1 == shape_.size()) {
      const size_t element_width = width - 1;  // room for the separator's "," or the "]"
      std::string line = indent;
      for (size_t k = 0; k < items.size(); ++k) {
        Extend(&s, &line, items[k] < 0 ? "..." : nested(items[k]), element_width, indent);
        if (k + 1 < items.size()) line += kSeparator;
      }
      s += line;
    } else {
      // Rows separated by "," and one blank line per axis below the next.
      std::string row_separator(shape_.size() - axis, '\n');
      row_separator[0] = ',';
      for (size_t k = 0; k < items.size(); ++k) {
        s += indent + (items[k] < 0 ? "..." : nested(items[k]));
        if (k + 1 < items.size()) s += row_separator;
      }
    }
    s.replace(0, indent.size(), 1, '[');
    s.push_back(']');
    return s;
  }

  std::vector<int64_t> shape_;
  std::vector<int64_t> strides_;
  bool summarize_;
  ElementFormatter element_;
};

// numpy prints no dtype for the default types (float64, int64, complex128, bool) of non-empty
// arrays; strings show their fixed width.
std::string DtypeText(const TG_Tensor* t) {
  const TG_DataType dtype = TG_TensorType(t);
  if (dtype == TG_STRING) {
    size_t width = 1;
    for (int64_t i = 0; i < TG_TensorElementCount(t); ++i) {
      width = std::max(width, StringAt(t, i).size());
    }
    return "'|S" + std::to_string(width) + "'";
  }
  const std::optional<NumpyType> numpy = NumpyTypeOf(dtype);
  if (numpy) return numpy->name;
  const char* name = TG_DataTypeName(dtype);
  return name != nullptr ? name : "invalid";
}

bool DtypeImplied(TG_DataType dtype) {
  return dtype == TG_DOUBLE || dtype == TG_INT64 || dtype == TG_COMPLEX128 || dtype == TG_BOOL;
}

}  // namespace

std::string FormatTensor(const TG_Tensor* t) {
  if (t == nullptr) return "<null tensor>";
  std::vector<int64_t> shape;
  for (int i = 0; i < TG_NumDims(t); ++i) shape.push_back(TG_Dim(t, i));
  const int64_t count = TG_TensorElementCount(t);
  const bool show_dtype = !DtypeImplied(TG_TensorType(t)) || count == 0;
  const std::string prefix = "array(";
  std::string body;
  if (count == 0) {
    body = shape.size() == 1 ? "[]" : "[], shape=" + ShapeRepr(shape);
  } else {
    const bool summarize = count > kSummarizeThreshold;
    const std::vector<int64_t> shown = ShownIndices(shape, summarize);
    ElementFormatter element = FormatterFor(t, shown);
    if (element == nullptr) {
      return "<tensor of dtype " + DtypeText(t) + ", shape " + ShapeRepr(shape) + ">";
    }
    // Continuation lines align under the first "["; the ")" or "," that follows the last
    // line counts against the width.
    body = ArrayLayout(shape, summarize, std::move(element))
               .Format(std::string(prefix.size() + 1, ' '), kLineWidth - 1);
  }
  std::string text = prefix + body + (show_dtype ? "," : ")");
  if (!show_dtype) return text;
  const std::string dtype = "dtype=" + DtypeText(t) + ")";
  const size_t last_line = text.size() - (text.rfind('\n') + 1);
  const bool wrap = last_line + dtype.size() + 1 > kLineWidth;
  if (wrap)
    text.append(1, '\n').append(prefix.size(), ' ');
  else
    text.push_back(' ');
  return text + dtype;
}

}  // namespace tgraph::tool
