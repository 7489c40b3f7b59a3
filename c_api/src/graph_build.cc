// Graphs, lookup, static shapes, finalize, and building operations (TG_NewOperation ...
// TG_FinishOperation with every attr setter).
#include <cstring>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "c_api/src/c_api_internal.h"
#include "core/graph/attr_value_util.h"
#include "core/graph/proto_convert.h"

using namespace tgraph;
using namespace tgraph::capi;

// ---- graphs ----

namespace tgraph::capi {
namespace {
std::mutex graph_handles_mu;
std::unordered_map<const Graph*, TG_Graph*>& GraphHandles() {
  static auto* handles = new std::unordered_map<const Graph*, TG_Graph*>();
  return *handles;
}
}  // namespace

TG_Graph* GraphHandleOf(const Graph* graph) {
  std::lock_guard<std::mutex> lock(graph_handles_mu);
  auto it = GraphHandles().find(graph);
  return it == GraphHandles().end() ? nullptr : it->second;
}
void RegisterGraphHandle(TG_Graph* handle) {
  std::lock_guard<std::mutex> lock(graph_handles_mu);
  GraphHandles()[&handle->graph] = handle;
}
void UnregisterGraphHandle(TG_Graph* handle) {
  std::lock_guard<std::mutex> lock(graph_handles_mu);
  GraphHandles().erase(&handle->graph);
}
}  // namespace tgraph::capi

extern "C" TG_Graph* TG_NewGraph(void) {
  return NoThrow<TG_Graph*>(nullptr, [] {
    auto handle = std::make_unique<TG_Graph>();
    RegisterGraphHandle(handle.get());
    return handle.release();
  });
}

extern "C" void TG_DeleteGraph(TG_Graph* g) {
  if (g == nullptr) return;
  UnregisterGraphHandle(g);
  delete g;
}

extern "C" TG_Operation* TG_GraphOperationByName(TG_Graph* g, const char* oper_name) {
  if (g == nullptr || oper_name == nullptr) return nullptr;
  return NoThrow<TG_Operation*>(nullptr, [&] {
    GraphLock lock(g->graph.mutex());
    return ToC(g->graph.FindOperation(oper_name));
  });
}

extern "C" TG_Output TG_GraphOutputByName(TG_Graph* g, const char* tensor_name,
                                          TG_Status* status) {
  return GuardValue<TG_Output>(status, NullOutput(), [&](TG_Output* out) -> Status {
    if (g == nullptr) return NullArg("TG_GraphOutputByName", "the graph");
    if (tensor_name == nullptr) return NullArg("TG_GraphOutputByName", "tensor_name");
    GraphLock lock(g->graph.mutex());
    TG_ASSIGN_OR_RETURN(Output o, g->graph.FindOutput(tensor_name));
    *out = ToC(o);
    return Status::OK();
  });
}

extern "C" TG_Operation* TG_GraphNextOperation(TG_Graph* g, size_t* pos) {
  if (g == nullptr || pos == nullptr) return nullptr;
  return NoThrow<TG_Operation*>(nullptr, [&]() -> TG_Operation* {
    GraphLock lock(g->graph.mutex());
    if (*pos >= static_cast<size_t>(g->graph.num_operations())) return nullptr;
    Operation* op = g->graph.operation(static_cast<int>(*pos));
    ++*pos;
    return ToC(op);
  });
}

extern "C" int TG_GraphNumOperations(TG_Graph* g) {
  if (g == nullptr) return 0;
  return NoThrow(0, [&] {
    GraphLock lock(g->graph.mutex());
    return g->graph.num_operations();
  });
}

// ---- static shapes ----

extern "C" void TG_GraphSetTensorShape(TG_Graph* g, TG_Output output, const int64_t* dims,
                                       int num_dims, TG_Status* status) {
  Guard(status, [&]() -> Status {
    if (g == nullptr) return NullArg("TG_GraphSetTensorShape", "the graph");
    GraphLock lock(g->graph.mutex());
    TG_RETURN_IF_ERROR(CheckOutput("TG_GraphSetTensorShape", &g->graph, output));
    PartialShape shape;
    TG_RETURN_IF_ERROR(ShapeFromDims("TG_GraphSetTensorShape", dims, num_dims, &shape));
    return g->graph.SetOutputShape(ToOutput(output), shape);
  });
}

extern "C" int TG_GraphGetTensorNumDims(TG_Graph* g, TG_Output output, TG_Status* status) {
  return GuardValue<int>(status, -1, [&](int* out) -> Status {
    if (g == nullptr) return NullArg("TG_GraphGetTensorNumDims", "the graph");
    GraphLock lock(g->graph.mutex());
    TG_RETURN_IF_ERROR(CheckOutput("TG_GraphGetTensorNumDims", &g->graph, output));
    *out = ToOp(output.oper)->output_shape(output.index).rank();
    return Status::OK();
  });
}

extern "C" void TG_GraphGetTensorShape(TG_Graph* g, TG_Output output, int64_t* dims,
                                       int num_dims, TG_Status* status) {
  Guard(status, [&]() -> Status {
    if (g == nullptr) return NullArg("TG_GraphGetTensorShape", "the graph");
    GraphLock lock(g->graph.mutex());
    TG_RETURN_IF_ERROR(CheckOutput("TG_GraphGetTensorShape", &g->graph, output));
    const Operation* op = ToOp(output.oper);
    const PartialShape& shape = op->output_shape(output.index);
    if (num_dims != shape.rank()) {
      return InvalidArgument("TG_GraphGetTensorShape: tensor '", op->name(), ":", output.index,
                             "' has rank ", shape.rank(), " (shape ", shape.ToString(),
                             "), but num_dims is ", num_dims);
    }
    if (num_dims > 0 && dims == nullptr) return NullArg("TG_GraphGetTensorShape", "dims");
    for (int i = 0; i < num_dims; ++i) dims[i] = shape.dim(i);
    return Status::OK();
  });
}

extern "C" void TG_GraphFinalize(TG_Graph* g) {
  if (g == nullptr) return;
  NoThrow(0, [&] {
    GraphLock lock(g->graph.mutex());
    g->graph.Finalize();
    return 0;
  });
}

extern "C" int TG_GraphIsFinalized(const TG_Graph* g) {
  if (g == nullptr) return 0;
  return NoThrow(0, [&] {
    GraphLock lock(g->graph.mutex());
    return g->graph.finalized() ? 1 : 0;
  });
}

// ---- operation descriptions ----

namespace {

// Records the first error found while describing the operation.
void Fail(TG_OperationDescription* desc, const Status& st) {
  if (desc != nullptr && desc->error.ok() && !st.ok()) desc->error = st;
}

// Runs a setter body that stores an attr; any error (or exception) is remembered by the
// description and also reported through `status` when the setter has one.
template <typename Fn>
void SetAttr(const char* fn_name, TG_OperationDescription* desc, const char* attr_name,
             TG_Status* status, Fn&& make_value) noexcept {
  Status st;
  try {
    if (desc == nullptr) {
      st = NullArg(fn_name, "the operation description");
    } else if (attr_name == nullptr || attr_name[0] == '\0') {
      st = InvalidArgument(fn_name, ": the attr name is NULL or empty (operation '",
                           desc->spec.name, "', type '", desc->spec.type, "')");
    } else {
      tf::AttrValue value;
      st = make_value(&value);
      if (st.ok()) {
        desc->spec.attrs[attr_name] = std::move(value);
      } else {
        st = st.Prepend(StrCat(fn_name, ": attr '", attr_name, "' of operation '",
                               desc->spec.name.empty() ? desc->spec.type : desc->spec.name,
                               "': "));
      }
    }
  } catch (...) {
    st = StatusFromCurrentException();
  }
  if (desc != nullptr) {
    try {
      Fail(desc, st);
    } catch (...) {
      desc->error = Status(st.code(), std::string());
    }
  }
  if (status != nullptr) SetStatus(status, st);
}

Status CheckCount(int n) {
  if (n < 0) return InvalidArgument("the number of values is ", n);
  return Status::OK();
}

template <typename T>
Status CheckArray(const T* values, int n) {
  TG_RETURN_IF_ERROR(CheckCount(n));
  if (n > 0 && values == nullptr) return InvalidArgument("the values array is NULL");
  return Status::OK();
}

Status CheckDataType(int dtype) {
  if (!IsValidDataType(dtype)) return InvalidArgument(dtype, " is not a data type");
  return Status::OK();
}

Status ParseShapeProto(const void* proto, size_t len, tf::TensorShapeProto* out) {
  if (proto == nullptr && len > 0) return InvalidArgument("the proto bytes are NULL");
  if (len > static_cast<size_t>(INT32_MAX) ||
      !out->ParseFromArray(proto == nullptr ? "" : proto, static_cast<int>(len))) {
    return InvalidArgument("the bytes are not a valid TensorShapeProto");
  }
  // Validate the shape's content too (dims >= -1, unknown_rank without dims).
  TG_RETURN_IF_ERROR(ShapeFromProto(*out).status());
  return Status::OK();
}

}  // namespace

extern "C" TG_OperationDescription* TG_NewOperation(TG_Graph* g, const char* op_type,
                                                    const char* oper_name) {
  return NoThrow<TG_OperationDescription*>(nullptr, [&] {
    auto* desc = new TG_OperationDescription();
    desc->graph = g;
    desc->spec.type = Str(op_type);
    desc->spec.name = Str(oper_name);
    if (g == nullptr) Fail(desc, NullArg("TG_NewOperation", "the graph"));
    if (op_type == nullptr || op_type[0] == '\0') {
      Fail(desc, InvalidArgument("TG_NewOperation: the op type of operation '", desc->spec.name,
                                 "' is NULL or empty"));
    }
    return desc;
  });
}

extern "C" void TG_SetDevice(TG_OperationDescription* desc, const char* device) {
  if (desc == nullptr) return;
  NoThrow(0, [&] {
    desc->spec.device = Str(device);
    return 0;
  });
}

extern "C" void TG_AddInput(TG_OperationDescription* desc, TG_Output input) {
  if (desc == nullptr) return;
  NoThrow(0, [&] {
    if (input.oper == nullptr) {
      Fail(desc, InvalidArgument("input ", desc->spec.inputs.size(), " of operation '",
                                 desc->spec.name, "' (", desc->spec.type,
                                 ") has a NULL operation"));
      return 0;
    }
    NodeSpec::InputGroup group;
    group.tensors.push_back(ToOutput(input));
    group.is_list = false;
    desc->spec.inputs.push_back(std::move(group));
    return 0;
  });
}

extern "C" void TG_AddInputList(TG_OperationDescription* desc, const TG_Output* inputs,
                                int num_inputs) {
  if (desc == nullptr) return;
  NoThrow(0, [&] {
    Status st = CheckArray(inputs, num_inputs);
    if (!st.ok()) {
      Fail(desc, st.Prepend(StrCat("input list of operation '", desc->spec.name, "': ")));
      return 0;
    }
    NodeSpec::InputGroup group;
    group.is_list = true;
    for (int i = 0; i < num_inputs; ++i) {
      if (inputs[i].oper == nullptr) {
        Fail(desc, InvalidArgument("element ", i, " of an input list of operation '",
                                   desc->spec.name, "' (", desc->spec.type,
                                   ") has a NULL operation"));
        return 0;
      }
      group.tensors.push_back(ToOutput(inputs[i]));
    }
    desc->spec.inputs.push_back(std::move(group));
    return 0;
  });
}

extern "C" void TG_AddControlInput(TG_OperationDescription* desc, TG_Operation* input) {
  if (desc == nullptr) return;
  NoThrow(0, [&] {
    if (input == nullptr) {
      Fail(desc, InvalidArgument("a control input of operation '", desc->spec.name,
                                 "' is NULL"));
    } else {
      desc->spec.control_inputs.push_back(ToOp(input));
    }
    return 0;
  });
}

extern "C" void TG_ColocateWith(TG_OperationDescription* desc, TG_Operation* op) {
  if (desc == nullptr) return;
  NoThrow(0, [&] {
    if (op == nullptr) {
      Fail(desc, InvalidArgument("operation '", desc->spec.name,
                                 "' is asked to colocate with a NULL operation"));
    } else {
      desc->spec.colocate_with.push_back(ToOp(op));
    }
    return 0;
  });
}

// ---- attr setters ----

extern "C" void TG_SetAttrString(TG_OperationDescription* desc, const char* attr_name,
                                 const void* value, size_t length) {
  SetAttr("TG_SetAttrString", desc, attr_name, nullptr, [&](tf::AttrValue* v) -> Status {
    if (value == nullptr && length > 0) return InvalidArgument("the value is NULL");
    v->set_s(std::string(static_cast<const char*>(value), value == nullptr ? 0 : length));
    return Status::OK();
  });
}

extern "C" void TG_SetAttrStringList(TG_OperationDescription* desc, const char* attr_name,
                                     const void* const* values, const size_t* lengths,
                                     int num_values) {
  SetAttr("TG_SetAttrStringList", desc, attr_name, nullptr, [&](tf::AttrValue* v) -> Status {
    TG_RETURN_IF_ERROR(CheckArray(values, num_values));
    if (num_values > 0 && lengths == nullptr) return InvalidArgument("the lengths array is NULL");
    auto* list = v->mutable_list();
    for (int i = 0; i < num_values; ++i) {
      if (values[i] == nullptr && lengths[i] > 0) return InvalidArgument("value ", i, " is NULL");
      list->add_s(std::string(static_cast<const char*>(values[i]),
                              values[i] == nullptr ? 0 : lengths[i]));
    }
    return Status::OK();
  });
}

extern "C" void TG_SetAttrInt(TG_OperationDescription* desc, const char* attr_name,
                              int64_t value) {
  SetAttr("TG_SetAttrInt", desc, attr_name, nullptr, [&](tf::AttrValue* v) -> Status {
    v->set_i(value);
    return Status::OK();
  });
}

extern "C" void TG_SetAttrIntList(TG_OperationDescription* desc, const char* attr_name,
                                  const int64_t* values, int num_values) {
  SetAttr("TG_SetAttrIntList", desc, attr_name, nullptr, [&](tf::AttrValue* v) -> Status {
    TG_RETURN_IF_ERROR(CheckArray(values, num_values));
    auto* list = v->mutable_list();
    for (int i = 0; i < num_values; ++i) list->add_i(values[i]);
    return Status::OK();
  });
}

extern "C" void TG_SetAttrFloat(TG_OperationDescription* desc, const char* attr_name,
                                float value) {
  SetAttr("TG_SetAttrFloat", desc, attr_name, nullptr, [&](tf::AttrValue* v) -> Status {
    v->set_f(value);
    return Status::OK();
  });
}

extern "C" void TG_SetAttrFloatList(TG_OperationDescription* desc, const char* attr_name,
                                    const float* values, int num_values) {
  SetAttr("TG_SetAttrFloatList", desc, attr_name, nullptr, [&](tf::AttrValue* v) -> Status {
    TG_RETURN_IF_ERROR(CheckArray(values, num_values));
    auto* list = v->mutable_list();
    for (int i = 0; i < num_values; ++i) list->add_f(values[i]);
    return Status::OK();
  });
}

extern "C" void TG_SetAttrBool(TG_OperationDescription* desc, const char* attr_name,
                               unsigned char value) {
  SetAttr("TG_SetAttrBool", desc, attr_name, nullptr, [&](tf::AttrValue* v) -> Status {
    v->set_b(value != 0);
    return Status::OK();
  });
}

extern "C" void TG_SetAttrBoolList(TG_OperationDescription* desc, const char* attr_name,
                                   const unsigned char* values, int num_values) {
  SetAttr("TG_SetAttrBoolList", desc, attr_name, nullptr, [&](tf::AttrValue* v) -> Status {
    TG_RETURN_IF_ERROR(CheckArray(values, num_values));
    auto* list = v->mutable_list();
    for (int i = 0; i < num_values; ++i) list->add_b(values[i] != 0);
    return Status::OK();
  });
}

extern "C" void TG_SetAttrType(TG_OperationDescription* desc, const char* attr_name,
                               TG_DataType value) {
  SetAttr("TG_SetAttrType", desc, attr_name, nullptr, [&](tf::AttrValue* v) -> Status {
    int dtype = EnumValue(value);
    TG_RETURN_IF_ERROR(CheckDataType(dtype));
    v->set_type(static_cast<tf::DataType>(dtype));
    return Status::OK();
  });
}

extern "C" void TG_SetAttrTypeList(TG_OperationDescription* desc, const char* attr_name,
                                   const TG_DataType* values, int num_values) {
  SetAttr("TG_SetAttrTypeList", desc, attr_name, nullptr, [&](tf::AttrValue* v) -> Status {
    TG_RETURN_IF_ERROR(CheckArray(values, num_values));
    auto* list = v->mutable_list();
    for (int i = 0; i < num_values; ++i) {
      int dtype = EnumValue(values[i]);
      TG_RETURN_IF_ERROR(CheckDataType(dtype).Prepend(StrCat("element ", i, ": ")));
      list->add_type(static_cast<tf::DataType>(dtype));
    }
    return Status::OK();
  });
}

extern "C" void TG_SetAttrShape(TG_OperationDescription* desc, const char* attr_name,
                                const int64_t* dims, int num_dims) {
  SetAttr("TG_SetAttrShape", desc, attr_name, nullptr, [&](tf::AttrValue* v) -> Status {
    PartialShape shape;
    TG_RETURN_IF_ERROR(ShapeFromDims("shape", dims, num_dims, &shape));
    ShapeToProto(shape, v->mutable_shape());
    return Status::OK();
  });
}

extern "C" void TG_SetAttrShapeList(TG_OperationDescription* desc, const char* attr_name,
                                    const int64_t* const* dims, const int* num_dims,
                                    int num_shapes) {
  SetAttr("TG_SetAttrShapeList", desc, attr_name, nullptr, [&](tf::AttrValue* v) -> Status {
    TG_RETURN_IF_ERROR(CheckCount(num_shapes));
    if (num_shapes > 0 && (dims == nullptr || num_dims == nullptr)) {
      return InvalidArgument("dims or num_dims is NULL");
    }
    auto* list = v->mutable_list();
    for (int i = 0; i < num_shapes; ++i) {
      PartialShape shape;
      TG_RETURN_IF_ERROR(ShapeFromDims(StrCat("shape ", i).c_str(), dims[i], num_dims[i], &shape));
      ShapeToProto(shape, list->add_shape());
    }
    return Status::OK();
  });
}

extern "C" void TG_SetAttrTensorShapeProto(TG_OperationDescription* desc,
                                           const char* attr_name, const void* proto,
                                           size_t proto_len, TG_Status* status) {
  SetAttr("TG_SetAttrTensorShapeProto", desc, attr_name, status, [&](tf::AttrValue* v) {
    return ParseShapeProto(proto, proto_len, v->mutable_shape());
  });
}

extern "C" void TG_SetAttrTensorShapeProtoList(TG_OperationDescription* desc,
                                               const char* attr_name, const void* const* protos,
                                               const size_t* proto_lens, int num_shapes,
                                               TG_Status* status) {
  SetAttr("TG_SetAttrTensorShapeProtoList", desc, attr_name, status,
          [&](tf::AttrValue* v) -> Status {
            TG_RETURN_IF_ERROR(CheckArray(protos, num_shapes));
            if (num_shapes > 0 && proto_lens == nullptr) {
              return InvalidArgument("proto_lens is NULL");
            }
            auto* list = v->mutable_list();
            for (int i = 0; i < num_shapes; ++i) {
              TG_RETURN_IF_ERROR(ParseShapeProto(protos[i], proto_lens[i], list->add_shape())
                                     .Prepend(StrCat("shape ", i, ": ")));
            }
            return Status::OK();
          });
}

extern "C" void TG_SetAttrTensor(TG_OperationDescription* desc, const char* attr_name,
                                 const TG_Tensor* value, TG_Status* status) {
  SetAttr("TG_SetAttrTensor", desc, attr_name, status, [&](tf::AttrValue* v) -> Status {
    if (value == nullptr) return InvalidArgument("the tensor is NULL");
    if (value->tensor.dtype() == DT_INVALID) return InvalidArgument("the tensor is empty");
    TensorToProto(value->tensor, v->mutable_tensor());
    return Status::OK();
  });
}

extern "C" void TG_SetAttrTensorList(TG_OperationDescription* desc, const char* attr_name,
                                     const TG_Tensor* const* values, int num_values,
                                     TG_Status* status) {
  SetAttr("TG_SetAttrTensorList", desc, attr_name, status, [&](tf::AttrValue* v) -> Status {
    TG_RETURN_IF_ERROR(CheckArray(values, num_values));
    auto* list = v->mutable_list();
    for (int i = 0; i < num_values; ++i) {
      if (values[i] == nullptr) return InvalidArgument("tensor ", i, " is NULL");
      TensorToProto(values[i]->tensor, list->add_tensor());
    }
    return Status::OK();
  });
}

extern "C" void TG_SetAttrValueProto(TG_OperationDescription* desc, const char* attr_name,
                                     const void* proto, size_t proto_len, TG_Status* status) {
  SetAttr("TG_SetAttrValueProto", desc, attr_name, status, [&](tf::AttrValue* v) -> Status {
    if (proto == nullptr && proto_len > 0) return InvalidArgument("the proto bytes are NULL");
    if (proto_len > static_cast<size_t>(INT32_MAX) ||
        !v->ParseFromArray(proto == nullptr ? "" : proto, static_cast<int>(proto_len))) {
      return InvalidArgument("the bytes are not a valid AttrValue proto");
    }
    if (v->value_case() == tf::AttrValue::VALUE_NOT_SET) {
      return InvalidArgument("the AttrValue proto holds no value");
    }
    return Status::OK();
  });
}

// ---- finishing ----

extern "C" TG_Operation* TG_FinishOperation(TG_OperationDescription* desc, TG_Status* status) {
  std::unique_ptr<TG_OperationDescription> owned(desc);
  return GuardValue<TG_Operation*>(status, nullptr, [&](TG_Operation** out) -> Status {
    if (desc == nullptr) return NullArg("TG_FinishOperation", "the operation description");
    TG_RETURN_IF_ERROR(desc->error);
    TG_Graph* g = desc->graph;
    GraphLock lock(g->graph.mutex());
    TG_RETURN_IF_ERROR(CheckNotInDeviceFunction("TG_FinishOperation", g));
    // The core does not check colocation anchors; do it here.
    for (const Operation* op : desc->spec.colocate_with) {
      if (op->graph() != &g->graph) {
        return InvalidArgument("operation '", desc->spec.name.empty() ? desc->spec.type : desc->spec.name,
                               "' is asked to colocate with '", op->name(),
                               "', which is in another graph");
      }
    }
    TG_ASSIGN_OR_RETURN(Operation * op, g->graph.AddOperation(std::move(desc->spec)));
    *out = ToC(op);
    return Status::OK();
  });
}

extern "C" void TG_AbandonOperation(TG_OperationDescription* desc) { delete desc; }
