#include "core/ops/shape_inference.h"

#include <algorithm>

#include "core/graph/attr_value_util.h"
#include "core/graph/proto_convert.h"

namespace tgraph {

InferenceContext::InferenceContext(const std::string& node_name, const std::string& op_type,
                                   const AttrMap& attrs, std::vector<DataType> input_types,
                                   std::vector<PartialShape> input_shapes,
                                   std::vector<const Tensor*> input_values, int num_outputs)
    : node_name_(node_name),
      op_type_(op_type),
      attrs_(attrs),
      input_types_(std::move(input_types)),
      input_shapes_(std::move(input_shapes)),
      input_values_(std::move(input_values)),
      output_shapes_(static_cast<size_t>(std::max(num_outputs, 0))) {
  // Callers may leave types/values short (e.g. no constants known); the accessors index
  // by input, so pad them to one entry per input.
  input_types_.resize(input_shapes_.size(), DT_INVALID);
  input_values_.resize(input_shapes_.size(), nullptr);
}

namespace {

// The attr, or an error naming node and attr when it is absent or of another kind.
StatusOr<const tf::AttrValue*> FindTyped(const InferenceContext& c, const std::string& name,
                                         tf::AttrValue::ValueCase want, const char* kind) {
  auto it = c.attrs().find(name);
  if (it == c.attrs().end()) return c.Error("missing attr '", name, "'");
  const tf::AttrValue& value = it->second;
  // An empty list is a valid value for every list kind.
  if (value.value_case() != want) {
    return c.Error("attr '", name, "' has kind '", AttrValueKind(value), "', expected '", kind,
                   "'");
  }
  return &value;
}

// Lists: the named field must hold the values, or the list must be empty.
StatusOr<const tf::AttrValue::ListValue*> FindList(const InferenceContext& c,
                                                   const std::string& name, const char* kind) {
  TG_ASSIGN_OR_RETURN(const tf::AttrValue* value, FindTyped(c, name, tf::AttrValue::kList, kind));
  const std::string actual = AttrValueKind(*value);
  if (actual != kind && actual != "list(any)") {
    return c.Error("attr '", name, "' has kind '", actual, "', expected '", kind, "'");
  }
  return &value->list();
}

}  // namespace

Status InferenceContext::GetAttr(const std::string& name, int64_t* value) const {
  TG_ASSIGN_OR_RETURN(const tf::AttrValue* attr, FindTyped(*this, name, tf::AttrValue::kI, "int"));
  *value = attr->i();
  return Status::OK();
}

Status InferenceContext::GetAttr(const std::string& name, bool* value) const {
  TG_ASSIGN_OR_RETURN(const tf::AttrValue* attr,
                      FindTyped(*this, name, tf::AttrValue::kB, "bool"));
  *value = attr->b();
  return Status::OK();
}

Status InferenceContext::GetAttr(const std::string& name, float* value) const {
  TG_ASSIGN_OR_RETURN(const tf::AttrValue* attr,
                      FindTyped(*this, name, tf::AttrValue::kF, "float"));
  *value = attr->f();
  return Status::OK();
}

Status InferenceContext::GetAttr(const std::string& name, DataType* value) const {
  TG_ASSIGN_OR_RETURN(const tf::AttrValue* attr,
                      FindTyped(*this, name, tf::AttrValue::kType, "type"));
  if (!IsValidDataType(attr->type())) {
    return Error("attr '", name, "' holds invalid dtype ", static_cast<int>(attr->type()));
  }
  *value = static_cast<DataType>(attr->type());
  return Status::OK();
}

Status InferenceContext::GetAttr(const std::string& name, std::string* value) const {
  TG_ASSIGN_OR_RETURN(const tf::AttrValue* attr,
                      FindTyped(*this, name, tf::AttrValue::kS, "string"));
  *value = attr->s();
  return Status::OK();
}

Status InferenceContext::GetAttr(const std::string& name, PartialShape* value) const {
  TG_ASSIGN_OR_RETURN(const tf::AttrValue* attr,
                      FindTyped(*this, name, tf::AttrValue::kShape, "shape"));
  auto shape = ShapeFromProto(attr->shape());
  if (!shape.ok()) return Error("attr '", name, "': ", shape.status().message());
  *value = std::move(shape).value();
  return Status::OK();
}

Status InferenceContext::GetAttr(const std::string& name, std::vector<int64_t>* value) const {
  TG_ASSIGN_OR_RETURN(const tf::AttrValue::ListValue* list, FindList(*this, name, "list(int)"));
  value->assign(list->i().begin(), list->i().end());
  return Status::OK();
}

Status InferenceContext::GetAttr(const std::string& name, std::vector<DataType>* value) const {
  TG_ASSIGN_OR_RETURN(const tf::AttrValue::ListValue* list, FindList(*this, name, "list(type)"));
  value->clear();
  for (int t : list->type()) {
    if (!IsValidDataType(t)) return Error("attr '", name, "' holds invalid dtype ", t);
    value->push_back(static_cast<DataType>(t));
  }
  return Status::OK();
}

Status InferenceContext::GetAttr(const std::string& name, std::vector<std::string>* value) const {
  TG_ASSIGN_OR_RETURN(const tf::AttrValue::ListValue* list,
                      FindList(*this, name, "list(string)"));
  value->assign(list->s().begin(), list->s().end());
  return Status::OK();
}

Status InferenceContext::WithRank(int input, int rank, PartialShape* out) const {
  const PartialShape& shape = input_shape(input);
  if (!shape.known_rank()) {
    *out = PartialShape::UnknownOfRank(rank);
    return Status::OK();
  }
  if (shape.rank() != rank) {
    return Error("input ", input, " must be rank ", rank, " but has shape ", shape.ToString());
  }
  *out = shape;
  return Status::OK();
}

namespace shape_fns {

Status UnknownShape(InferenceContext& c) {
  for (int i = 0; i < c.num_outputs(); ++i) c.set_output(i, PartialShape::Unknown());
  return Status::OK();
}

Status UnchangedShape(InferenceContext& c) {
  if (c.num_inputs() < 1 || c.num_outputs() < 1) {
    return c.Error("UnchangedShape needs an input and an output");
  }
  c.set_output(0, c.input_shape(0));
  return Status::OK();
}

Status UnchangedShapes(InferenceContext& c) {
  for (int i = 0; i < c.num_outputs() && i < c.num_inputs(); ++i) c.set_output(i, c.input_shape(i));
  return Status::OK();
}

Status ScalarShape(InferenceContext& c) {
  if (c.num_outputs() < 1) return c.Error("ScalarShape needs an output");
  c.set_output(0, PartialShape::Scalar());
  return Status::OK();
}

Status BroadcastShapes(const PartialShape& a, const PartialShape& b, PartialShape* out) {
  if (!a.known_rank() || !b.known_rank()) {
    *out = PartialShape::Unknown();
    return Status::OK();
  }
  const int rank = std::max(a.rank(), b.rank());
  std::vector<int64_t> dims(static_cast<size_t>(rank));
  // Align from the right; a missing leading dim behaves as 1.
  for (int i = 0; i < rank; ++i) {
    const int ia = a.rank() - rank + i;
    const int ib = b.rank() - rank + i;
    const int64_t da = ia >= 0 ? a.dim(ia) : 1;
    const int64_t db = ib >= 0 ? b.dim(ib) : 1;
    int64_t d;
    if (da == 1) {
      d = db;  // 1 stretches to anything, including an unknown size
    } else if (db == 1) {
      d = da;
    } else if (da < 0) {
      // Unknown against a known size > 1: the unknown must be 1 or equal, so the result is
      // the known size. Unknown against unknown stays unknown.
      d = db;
    } else if (db < 0) {
      d = da;
    } else if (da == db) {
      d = da;
    } else {
      return InvalidArgument("Incompatible shapes for broadcasting: ", a.ToString(), " and ",
                             b.ToString(), " (dimension ", i, ": ", da, " vs. ", db, ")");
    }
    dims[static_cast<size_t>(i)] = d;
  }
  *out = PartialShape(std::move(dims));
  return Status::OK();
}

Status BroadcastBinaryOpShape(InferenceContext& c) {
  if (c.num_inputs() < 2 || c.num_outputs() < 1) {
    return c.Error("broadcasting needs two inputs and an output");
  }
  PartialShape out;
  Status s = BroadcastShapes(c.input_shape(0), c.input_shape(1), &out);
  if (!s.ok()) return c.Error(s.message());
  c.set_output(0, std::move(out));
  return Status::OK();
}

std::optional<std::vector<int64_t>> ConstInts(const InferenceContext& c, int i) {
  const Tensor* t = c.input_value(i);
  if (t == nullptr) return std::nullopt;
  std::vector<int64_t> out;
  out.reserve(static_cast<size_t>(t->NumElements()));
  if (t->dtype() == DT_INT32) {
    for (int64_t k = 0; k < t->NumElements(); ++k) out.push_back(t->flat<int32_t>()[k]);
  } else if (t->dtype() == DT_INT64) {
    for (int64_t k = 0; k < t->NumElements(); ++k) out.push_back(t->flat<int64_t>()[k]);
  } else {
    return std::nullopt;
  }
  return out;
}

Status MergeAllInputsShape(InferenceContext& c) {
  if (c.num_outputs() < 1) return c.Error("MergeAllInputsShape needs an output");
  PartialShape merged;  // unknown rank merges with anything
  for (int i = 0; i < c.num_inputs(); ++i) {
    PartialShape next;
    if (!merged.Merge(c.input_shape(i), &next).ok()) {
      return c.Error("all inputs must have compatible shapes, but input ", i, " has shape ",
                     c.input_shape(i).ToString(), " where earlier inputs have ",
                     merged.ToString());
    }
    merged = std::move(next);
  }
  c.set_output(0, std::move(merged));
  return Status::OK();
}

Status ShapeFromAttr(InferenceContext& c) {
  if (c.num_outputs() < 1) return c.Error("ShapeFromAttr needs an output");
  PartialShape shape;
  TG_RETURN_IF_ERROR(c.GetAttr("shape", &shape));
  c.set_output(0, std::move(shape));
  return Status::OK();
}

}  // namespace shape_fns
}  // namespace tgraph
