#include "core/graph/attr_value_util.h"

#include "core/graph/proto_convert.h"

namespace tgraph {

tf::AttrValue AttrOfString(std::string value) {
  tf::AttrValue attr;
  attr.set_s(std::move(value));
  return attr;
}

tf::AttrValue AttrOfInt(int64_t value) {
  tf::AttrValue attr;
  attr.set_i(value);
  return attr;
}

tf::AttrValue AttrOfFloat(float value) {
  tf::AttrValue attr;
  attr.set_f(value);
  return attr;
}

tf::AttrValue AttrOfBool(bool value) {
  tf::AttrValue attr;
  attr.set_b(value);
  return attr;
}

tf::AttrValue AttrOfType(DataType value) {
  tf::AttrValue attr;
  attr.set_type(static_cast<tf::DataType>(value));
  return attr;
}

tf::AttrValue AttrOfShape(const PartialShape& value) {
  tf::AttrValue attr;
  ShapeToProto(value, attr.mutable_shape());
  return attr;
}

tf::AttrValue AttrOfTensor(const Tensor& value) {
  tf::AttrValue attr;
  TensorToProto(value, attr.mutable_tensor());
  return attr;
}

// The list helpers always touch mutable_list(), so an empty vector still yields `list {}`
// (an empty list attr), never an unset value.

tf::AttrValue AttrOfStringList(const std::vector<std::string>& values) {
  tf::AttrValue attr;
  auto* list = attr.mutable_list();
  for (const auto& v : values) list->add_s(v);
  return attr;
}

tf::AttrValue AttrOfIntList(const std::vector<int64_t>& values) {
  tf::AttrValue attr;
  auto* list = attr.mutable_list();
  for (int64_t v : values) list->add_i(v);
  return attr;
}

tf::AttrValue AttrOfFloatList(const std::vector<float>& values) {
  tf::AttrValue attr;
  auto* list = attr.mutable_list();
  for (float v : values) list->add_f(v);
  return attr;
}

tf::AttrValue AttrOfBoolList(const std::vector<bool>& values) {
  tf::AttrValue attr;
  auto* list = attr.mutable_list();
  for (bool v : values) list->add_b(v);
  return attr;
}

tf::AttrValue AttrOfTypeList(const std::vector<DataType>& values) {
  tf::AttrValue attr;
  auto* list = attr.mutable_list();
  for (DataType v : values) list->add_type(static_cast<tf::DataType>(v));
  return attr;
}

tf::AttrValue AttrOfShapeList(const std::vector<PartialShape>& values) {
  tf::AttrValue attr;
  auto* list = attr.mutable_list();
  for (const auto& v : values) ShapeToProto(v, list->add_shape());
  return attr;
}

tf::AttrValue AttrOfTensorList(const std::vector<Tensor>& values) {
  tf::AttrValue attr;
  auto* list = attr.mutable_list();
  for (const auto& v : values) TensorToProto(v, list->add_tensor());
  return attr;
}

std::string AttrValueKind(const tf::AttrValue& value) {
  switch (value.value_case()) {
    case tf::AttrValue::kS: return "string";
    case tf::AttrValue::kI: return "int";
    case tf::AttrValue::kF: return "float";
    case tf::AttrValue::kB: return "bool";
    case tf::AttrValue::kType: return "type";
    case tf::AttrValue::kShape: return "shape";
    case tf::AttrValue::kTensor: return "tensor";
    case tf::AttrValue::kFunc: return "func";
    case tf::AttrValue::kPlaceholder: return "placeholder";
    case tf::AttrValue::kList: {
      const auto& list = value.list();
      // A well-formed list fills one field; report the first non-empty one.
      if (list.s_size() > 0) return "list(string)";
      if (list.i_size() > 0) return "list(int)";
      if (list.f_size() > 0) return "list(float)";
      if (list.b_size() > 0) return "list(bool)";
      if (list.type_size() > 0) return "list(type)";
      if (list.shape_size() > 0) return "list(shape)";
      if (list.tensor_size() > 0) return "list(tensor)";
      if (list.func_size() > 0) return "list(func)";
      return "list(any)";
    }
    case tf::AttrValue::VALUE_NOT_SET: break;
  }
  return "";  // no value set: there is no TF type string for it
}

bool IsDefaultAttrValue(const tf::OpDef& def, const std::string& name,
                        const tf::AttrValue& value) {
  for (const auto& a : def.attr()) {
    if (a.name() == name && a.has_default_value()) {
      return a.default_value().SerializeAsString() == value.SerializeAsString();
    }
  }
  return false;
}

}  // namespace tgraph
