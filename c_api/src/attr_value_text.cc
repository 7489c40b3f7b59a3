// One-line text for AttrValue protos (see attr_value_text.h).
#include "c_api/src/attr_value_text.h"

#include <sstream>

#include "core/base/dtype.h"
#include "core/base/status.h"

namespace tgraph::capi {
namespace {

std::string TypeText(int type) {
  return IsValidDataType(type) ? DataTypeName(static_cast<DataType>(type))
                               : StrCat("<dtype ", type, ">");
}

std::string Quoted(const std::string& s) { return "'" + s + "'"; }

std::string FloatText(float f) {
  std::ostringstream out;
  out << f;
  return out.str();
}

// "float [2,3]": a tensor attr is summarised (its elements may be many).
std::string TensorText(const tf::TensorProto& tensor) {
  return StrCat("<tensor ", TypeText(tensor.dtype()), " ", ShapeProtoText(tensor.tensor_shape()),
                ">");
}

template <typename Items, typename Fn>
std::string ListText(const Items& items, Fn text_of) {
  std::string s = "[";
  for (int i = 0; i < items.size(); ++i) {
    if (i > 0) s += ", ";
    s += text_of(items.Get(i));
  }
  return s + "]";
}

std::string ListValueText(const tf::AttrValue::ListValue& list) {
  if (list.s_size() > 0) return ListText(list.s(), Quoted);
  if (list.i_size() > 0) return ListText(list.i(), [](int64_t i) { return std::to_string(i); });
  if (list.f_size() > 0) return ListText(list.f(), FloatText);
  if (list.b_size() > 0) {
    return ListText(list.b(), [](bool b) { return std::string(b ? "true" : "false"); });
  }
  if (list.type_size() > 0) return ListText(list.type(), [](int t) { return TypeText(t); });
  if (list.shape_size() > 0) return ListText(list.shape(), ShapeProtoText);
  if (list.tensor_size() > 0) return ListText(list.tensor(), TensorText);
  if (list.func_size() > 0) {
    return ListText(list.func(), [](const tf::NameAttrList& f) { return f.name(); });
  }
  return "[]";
}

}  // namespace

std::string ShapeProtoText(const tf::TensorShapeProto& shape) {
  if (shape.unknown_rank()) return "<unknown>";
  std::string s = "[";
  for (int i = 0; i < shape.dim_size(); ++i) {
    if (i > 0) s += ",";
    int64_t size = shape.dim(i).size();
    s += size < 0 ? std::string("?") : std::to_string(size);
  }
  return s + "]";
}

std::string AttrValueText(const tf::AttrValue& value) {
  switch (value.value_case()) {
    case tf::AttrValue::kS:
      return Quoted(value.s());
    case tf::AttrValue::kI:
      return std::to_string(value.i());
    case tf::AttrValue::kF:
      return FloatText(value.f());
    case tf::AttrValue::kB:
      return value.b() ? "true" : "false";
    case tf::AttrValue::kType:
      return TypeText(value.type());
    case tf::AttrValue::kShape:
      return ShapeProtoText(value.shape());
    case tf::AttrValue::kTensor:
      return TensorText(value.tensor());
    case tf::AttrValue::kList:
      return ListValueText(value.list());
    case tf::AttrValue::kFunc:
      return value.func().name();
    case tf::AttrValue::kPlaceholder:
      return "$" + value.placeholder();
    case tf::AttrValue::VALUE_NOT_SET:
      return "";
  }
  return "";
}

}  // namespace tgraph::capi
