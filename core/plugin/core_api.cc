// The TG_CoreApi table: every service a plugin can call. No C++ exception leaves these
// functions (they are called from C); misuse (NULL handles, indices out of range) yields a
// status where the function has one and a neutral value (NULL, 0, -1) where it has not.
#include "core/plugin/core_api.h"

#include "core/autodiff/plugin_gradient.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstddef>
#include <cstring>
#include <mutex>

#include "core/base/buffer_versions.h"
#include "core/base/dtype.h"
#include "core/exec/thread_pool.h"
#include "core/graph/attr_value_util.h"
#include "core/graph/proto_convert.h"
#include "core/plugin/abi_handles.h"
#include "core/plugin/checkpoint_services.h"
#include "core/plugin/kernel_context.h"
#include "core/plugin/registry.h"
#include "core/plugin/status_boundary.h"

namespace tgraph {
namespace {

// ---- helpers ----

// An int received from C where an enum is declared: copy the bytes, never read an invalid
// enumerator as the enum type.
template <typename E>
int EnumValue(const E& e) {
  static_assert(sizeof(E) == sizeof(int), "ABI enums are int-sized");
  int v;
  std::memcpy(&v, &e, sizeof v);
  return v;
}

TG_DataType ToC(DataType t) { return static_cast<TG_DataType>(static_cast<int>(t)); }

// dims[0, num_dims) from the plugin as a vector; INVALID_ARGUMENT naming `what` for a
// negative rank, NULL dims or a negative dim.
// Callers prefix the error with what was asked; they build that label only on failure,
// because the success path runs once per kernel call.
Status ReadDims(const int64_t* dims, int num_dims, std::vector<int64_t>* out) {
  if (num_dims < 0) return InvalidArgument("negative number of dims ", num_dims);
  if (num_dims > 0 && dims == nullptr) return InvalidArgument("dims is NULL");
  out->assign(dims, dims + num_dims);
  for (int i = 0; i < num_dims; ++i) {
    if ((*out)[static_cast<size_t>(i)] < 0) {
      return InvalidArgument("dimension ", i, " is ", (*out)[static_cast<size_t>(i)], "; must be >= 0");
    }
  }
  return Status::OK();
}

Status ReadDims(const char* what, const int64_t* dims, int num_dims, std::vector<int64_t>* out) {
  Status s = ReadDims(dims, num_dims, out);
  return s.ok() ? s : s.Prepend(StrCat(what, ": "));
}

std::string NodeLabel(const Operation& op) { return StrCat("node '", op.name(), "' (", op.type(), ")"); }

// ---- status and logging ----

void ApiSetStatus(TG_Status* status, TG_Code code, const char* message) {
  if (status == nullptr) return;
  int c = EnumValue(code);
  const char* msg = message == nullptr ? "" : message;
  NoThrow(0, [&] {
    if (c < 0 || c > static_cast<int>(Code::kUnauthenticated)) {
      status->status = Status(Code::kUnknown, StrCat("(invalid status code ", c, ") ", msg));
    } else {
      status->status = Status(static_cast<Code>(c), msg);
    }
    return 0;
  });
}

TG_Code ApiStatusCode(const TG_Status* status) {
  if (status == nullptr) return TG_INVALID_ARGUMENT;
  return static_cast<TG_Code>(static_cast<int>(status->status.code()));
}

void ApiLog(TG_LogSeverity severity, const char* message) {
  const int s = EnumValue(severity);
  const char* label = s >= TG_LOG_ERROR ? "ERROR" : s == TG_LOG_WARNING ? "WARNING" : "INFO";
  if (message == nullptr) message = "";
  // Lines logged while a plugin loads stay on its record, whatever is printed.
  if (PluginRegistrations* regs = PluginRegistrations::Active()) {
    regs->AddMessage(StrCat(label, ": ", message));
  }
  // Info is for those who ask (TGRAPH_LOG_PLUGIN_INFO=1); warnings and errors always show.
  if (s <= TG_LOG_INFO) {
    static const bool verbose = [] {
      const char* v = std::getenv("TGRAPH_LOG_PLUGIN_INFO");
      return v != nullptr && v[0] != '\0' && v[0] != '0';
    }();
    if (!verbose) return;
  }
  static std::mutex mu;
  std::lock_guard<std::mutex> lock(mu);
  std::fprintf(stderr, "tgraph plugin %s: %s\n", label, message);
}

// ---- registration ----

template <typename Def, typename AddFn>
void Register(const char* fn_name, const Def* def, TG_Status* status, AddFn&& add) {
  Guard(status, [&]() -> Status {
    PluginRegistrations* regs = PluginRegistrations::Active();
    if (regs == nullptr) {
      return FailedPrecondition(fn_name, " may only be called during TG_PluginInit");
    }
    if (def == nullptr) return InvalidArgument(fn_name, ": the definition is NULL");
    return add(regs, *def);
  });
}

void ApiRegisterOp(const TG_OpDefinition* def, TG_Status* status) {
  Register("register_op", def, status,
           [](PluginRegistrations* r, const TG_OpDefinition& d) { return r->AddOp(d); });
}
void ApiRegisterKernel(const TG_KernelDefinition* def, TG_Status* status) {
  Register("register_kernel", def, status,
           [](PluginRegistrations* r, const TG_KernelDefinition& d) { return r->AddKernel(d); });
}
void ApiRegisterGradient(const TG_GradientDefinition* def, TG_Status* status) {
  Register("register_gradient", def, status,
           [](PluginRegistrations* r, const TG_GradientDefinition& d) { return r->AddGradient(d); });
}
void ApiRegisterDevice(const TG_DeviceDefinition* def, TG_Status* status) {
  Register("register_device", def, status,
           [](PluginRegistrations* r, const TG_DeviceDefinition& d) { return r->AddDevice(d); });
}
int ApiDeviceTypeRegistered(const char* device_type) {
  if (device_type == nullptr) return 0;
  return NoThrow(0, [&] { return DeviceRegistry::Global()->Find(device_type) != nullptr ? 1 : 0; });
}
void ApiRegisterSaver(const TG_SaverDefinition* def, TG_Status* status) {
  Register("register_saver", def, status,
           [](PluginRegistrations* r, const TG_SaverDefinition& d) { return r->AddSaver(d); });
}

// ---- tensors ----

TG_DataType ApiTensorDtype(const TG_Tensor* t) { return t == nullptr ? TG_INVALID_DTYPE : ToC(t->tensor.dtype()); }
int ApiTensorNumDims(const TG_Tensor* t) { return t == nullptr ? -1 : t->tensor.rank(); }
int64_t ApiTensorDim(const TG_Tensor* t, int i) {
  if (t == nullptr || i < 0 || i >= t->tensor.rank()) return -1;
  return t->tensor.dims()[static_cast<size_t>(i)];
}
int64_t ApiTensorNumElements(const TG_Tensor* t) { return t == nullptr ? 0 : t->tensor.NumElements(); }
size_t ApiTensorByteSize(const TG_Tensor* t) { return t == nullptr ? 0 : t->tensor.ByteSize(); }
void* ApiTensorData(const TG_Tensor* t) {
  if (t == nullptr || t->tensor.ByteSize() == 0) return nullptr;
  return t->tensor.data();
}

inline void FillTensorInfo(const Tensor& t, TG_TensorInfo* info) {
  info->dtype = ToC(t.dtype());
  info->num_dims = t.rank();
  info->dims = info->num_dims > 0 ? t.dims().data() : nullptr;
  info->num_elements = t.NumElements();
  info->data = t.ByteSize() == 0 ? nullptr : t.data();
}

void ApiTensorInfo(const TG_Tensor* t, TG_TensorInfo* info) {
  if (info == nullptr) return;
  // Every plugin so far passes this struct_size: the fields are written in place.
  if (t != nullptr && info->struct_size >= sizeof(TG_TensorInfo)) {
    return FillTensorInfo(t->tensor, info);
  }
  TG_TensorInfo full{sizeof full, TG_INVALID_DTYPE, -1, nullptr, 0, nullptr};
  if (t != nullptr) FillTensorInfo(t->tensor, &full);
  // Only the fields the caller's struct has.
  const size_t size = std::min(info->struct_size, sizeof full);
  if (size > sizeof(size_t)) {
    std::memcpy(reinterpret_cast<char*>(info) + sizeof(size_t),
                reinterpret_cast<const char*>(&full) + sizeof(size_t), size - sizeof(size_t));
  }
}

bool IsStringElement(const TG_Tensor* t, int64_t index) {
  return t != nullptr && t->tensor.dtype() == DT_STRING && index >= 0 &&
         index < t->tensor.NumElements();
}

void ApiTensorGetString(const TG_Tensor* t, int64_t index, const char** data, size_t* len) {
  const char* d = nullptr;
  size_t n = 0;
  if (IsStringElement(t, index)) {
    const std::string& s = t->tensor.strings()[static_cast<size_t>(index)];
    d = s.data();
    n = s.size();
  }
  if (data != nullptr) *data = d;
  if (len != nullptr) *len = n;
}

void ApiTensorSetString(TG_Tensor* t, int64_t index, const char* data, size_t len) {
  if (!IsStringElement(t, index) || (data == nullptr && len > 0)) return;
  NoThrow(0, [&] {
    t->tensor.strings()[static_cast<size_t>(index)].assign(data == nullptr ? "" : data, len);
    return 0;
  });
}

TG_Tensor* ApiNewHostTensor(TG_DataType dtype, const int64_t* dims, int num_dims, TG_Status* status) {
  return GuardValue<TG_Tensor*>(status, nullptr, [&](TG_Tensor** out) -> Status {
    std::vector<int64_t> d;
    TG_RETURN_IF_ERROR(ReadDims("new_host_tensor", dims, num_dims, &d));
    const int t = EnumValue(dtype);
    if (!IsValidDataType(t)) return InvalidArgument("new_host_tensor: invalid dtype ", t);
    TG_ASSIGN_OR_RETURN(Tensor tensor,
                        Tensor::AllocateUninitialized(static_cast<DataType>(t), std::move(d)));
    *out = new TG_Tensor{std::move(tensor)};
    return Status::OK();
  });
}

void ApiDeleteHostTensor(TG_Tensor* t) { delete t; }

// ---- kernel construction ----

const Operation* ConsOp(const TG_KernelConstruction* ctx) { return ctx == nullptr ? nullptr : ctx->op; }

const char* ApiConsNodeName(const TG_KernelConstruction* ctx) {
  const Operation* op = ConsOp(ctx);
  return op == nullptr ? "" : op->name().c_str();
}
const char* ApiConsOpType(const TG_KernelConstruction* ctx) {
  const Operation* op = ConsOp(ctx);
  return op == nullptr ? "" : op->type().c_str();
}
int ApiConsNumInputs(const TG_KernelConstruction* ctx) {
  const Operation* op = ConsOp(ctx);
  return op == nullptr ? 0 : op->num_inputs();
}
int ApiConsNumOutputs(const TG_KernelConstruction* ctx) {
  const Operation* op = ConsOp(ctx);
  return op == nullptr ? 0 : op->num_outputs();
}
TG_DataType ApiConsInputType(const TG_KernelConstruction* ctx, int i) {
  const Operation* op = ConsOp(ctx);
  if (op == nullptr || i < 0 || i >= op->num_inputs()) return TG_INVALID_DTYPE;
  return ToC(op->input_type(i));
}
TG_DataType ApiConsOutputType(const TG_KernelConstruction* ctx, int i) {
  const Operation* op = ConsOp(ctx);
  if (op == nullptr || i < 0 || i >= op->num_outputs()) return TG_INVALID_DTYPE;
  return ToC(op->output_type(i));
}

// The attr `name` of the node, which must be of `kind` (AttrValueKind's spelling); an
// empty list passes for any list kind.
StatusOr<const tf::AttrValue*> FindAttr(const TG_KernelConstruction* ctx, const char* name,
                                        const char* kind) {
  const Operation* op = ConsOp(ctx);
  if (op == nullptr) return InvalidArgument("attr getter: the construction context is NULL");
  if (name == nullptr) return InvalidArgument(NodeLabel(*op), ": attr name is NULL");
  const tf::AttrValue* value = op->FindAttr(name);
  if (value == nullptr) return InvalidArgument(NodeLabel(*op), ": no attr '", name, "'");
  const std::string actual = AttrValueKind(*value);
  const bool is_list = std::strncmp(kind, "list(", 5) == 0;
  if (actual != kind && !(is_list && actual == "list(any)")) {
    return InvalidArgument(NodeLabel(*op), ": attr '", name, "' is of kind '",
                           actual.empty() ? "unset" : actual, "', not '", kind, "'");
  }
  return value;
}

void ApiAttrInt(const TG_KernelConstruction* ctx, const char* name, int64_t* value, TG_Status* status) {
  Guard(status, [&]() -> Status {
    TG_ASSIGN_OR_RETURN(const tf::AttrValue* v, FindAttr(ctx, name, "int"));
    if (value != nullptr) *value = v->i();
    return Status::OK();
  });
}
void ApiAttrFloat(const TG_KernelConstruction* ctx, const char* name, float* value, TG_Status* status) {
  Guard(status, [&]() -> Status {
    TG_ASSIGN_OR_RETURN(const tf::AttrValue* v, FindAttr(ctx, name, "float"));
    if (value != nullptr) *value = v->f();
    return Status::OK();
  });
}
void ApiAttrBool(const TG_KernelConstruction* ctx, const char* name, int* value, TG_Status* status) {
  Guard(status, [&]() -> Status {
    TG_ASSIGN_OR_RETURN(const tf::AttrValue* v, FindAttr(ctx, name, "bool"));
    if (value != nullptr) *value = v->b() ? 1 : 0;
    return Status::OK();
  });
}
void ApiAttrType(const TG_KernelConstruction* ctx, const char* name, TG_DataType* value, TG_Status* status) {
  Guard(status, [&]() -> Status {
    TG_ASSIGN_OR_RETURN(const tf::AttrValue* v, FindAttr(ctx, name, "type"));
    if (value != nullptr) *value = static_cast<TG_DataType>(static_cast<int>(v->type()));
    return Status::OK();
  });
}
void ApiAttrString(const TG_KernelConstruction* ctx, const char* name, const char** value, size_t* len,
                   TG_Status* status) {
  Guard(status, [&]() -> Status {
    TG_ASSIGN_OR_RETURN(const tf::AttrValue* v, FindAttr(ctx, name, "string"));
    if (value != nullptr) *value = v->s().data();
    if (len != nullptr) *len = v->s().size();
    return Status::OK();
  });
}

// Copies at most `max` of `n` values (through get(i)) and reports n.
template <typename T, typename Get>
Status CopyList(int n, T* values, size_t max, size_t* len, Get&& get) {
  if (len != nullptr) *len = static_cast<size_t>(n);
  if (values == nullptr) return Status::OK();
  const size_t count = std::min(max, static_cast<size_t>(n));
  for (size_t i = 0; i < count; ++i) values[i] = get(static_cast<int>(i));
  return Status::OK();
}

void ApiAttrIntList(const TG_KernelConstruction* ctx, const char* name, int64_t* values, size_t max,
                    size_t* len, TG_Status* status) {
  Guard(status, [&]() -> Status {
    TG_ASSIGN_OR_RETURN(const tf::AttrValue* v, FindAttr(ctx, name, "list(int)"));
    return CopyList(v->list().i_size(), values, max, len, [&](int i) { return v->list().i(i); });
  });
}
void ApiAttrFloatList(const TG_KernelConstruction* ctx, const char* name, float* values, size_t max,
                      size_t* len, TG_Status* status) {
  Guard(status, [&]() -> Status {
    TG_ASSIGN_OR_RETURN(const tf::AttrValue* v, FindAttr(ctx, name, "list(float)"));
    return CopyList(v->list().f_size(), values, max, len, [&](int i) { return v->list().f(i); });
  });
}
void ApiAttrTypeList(const TG_KernelConstruction* ctx, const char* name, TG_DataType* values,
                     size_t max, size_t* len, TG_Status* status) {
  Guard(status, [&]() -> Status {
    TG_ASSIGN_OR_RETURN(const tf::AttrValue* v, FindAttr(ctx, name, "list(type)"));
    return CopyList(v->list().type_size(), values, max, len, [&](int i) {
      return static_cast<TG_DataType>(static_cast<int>(v->list().type(i)));
    });
  });
}
void ApiAttrShape(const TG_KernelConstruction* ctx, const char* name, int64_t* dims, int max_dims,
                  int* num_dims, TG_Status* status) {
  Guard(status, [&]() -> Status {
    TG_ASSIGN_OR_RETURN(const tf::AttrValue* v, FindAttr(ctx, name, "shape"));
    auto shape = ShapeFromProto(v->shape());
    if (!shape.ok()) {
      return InvalidArgument(NodeLabel(*ctx->op), ": attr '", name, "': ", shape.status().message());
    }
    const PartialShape& s = shape.value();
    if (num_dims != nullptr) *num_dims = s.rank();
    if (dims != nullptr && s.known_rank()) {
      const int count = std::min(std::max(max_dims, 0), s.rank());
      for (int i = 0; i < count; ++i) dims[i] = s.dim(i);
    }
    return Status::OK();
  });
}
// A list(string) attr (e.g. the fused ops' `fused_ops`) comes back as a 1-D DT_STRING tensor:
// the ABI has no string-list getter, and appending one would change every plugin's header.
StatusOr<Tensor> StringListTensor(const tf::AttrValue& v) {
  const auto& items = v.list().s();
  TG_ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(DT_STRING, {static_cast<int64_t>(items.size())}));
  for (int i = 0; i < items.size(); ++i) t.strings()[static_cast<size_t>(i)] = items.Get(i);
  return t;
}

const TG_Tensor* ApiAttrTensor(const TG_KernelConstruction* ctx, const char* name, TG_Status* status) {
  return GuardValue<const TG_Tensor*>(status, nullptr, [&](const TG_Tensor** out) -> Status {
    auto* mutable_ctx = const_cast<TG_KernelConstruction*>(ctx);
    if (const Operation* op = ConsOp(ctx); op != nullptr && name != nullptr) {
      const tf::AttrValue* list = op->FindAttr(name);
      const std::string kind = list == nullptr ? std::string() : AttrValueKind(*list);
      if (kind == "list(string)" || kind == "list(any)") {
        TG_ASSIGN_OR_RETURN(Tensor strings, StringListTensor(*list));
        mutable_ctx->attr_tensors.push_back(std::make_unique<TG_Tensor>(TG_Tensor{std::move(strings)}));
        *out = mutable_ctx->attr_tensors.back().get();
        return Status::OK();
      }
    }
    TG_ASSIGN_OR_RETURN(const tf::AttrValue* v, FindAttr(ctx, name, "tensor"));
    // A Const's value was parsed when the node was made: share it instead of parsing again.
    if (std::strcmp(name, "value") == 0 && ctx->op->constant_value() != nullptr) {
      mutable_ctx->attr_tensors.push_back(std::make_unique<TG_Tensor>(TG_Tensor{*ctx->op->constant_value()}));
    } else {
      auto parsed = TensorFromProto(v->tensor());
      if (!parsed.ok()) {
        return InvalidArgument(NodeLabel(*ctx->op), ": attr '", name, "': ", parsed.status().message());
      }
      mutable_ctx->attr_tensors.push_back(std::make_unique<TG_Tensor>(TG_Tensor{std::move(parsed).value()}));
    }
    *out = mutable_ctx->attr_tensors.back().get();
    return Status::OK();
  });
}
void ApiConstructionDecline(TG_KernelConstruction* ctx, const char* reason) {
  if (ctx == nullptr) return;
  NoThrow(0, [&] {
    ctx->declined = true;
    ctx->decline_reason = reason == nullptr ? "" : reason;
    return 0;
  });
}
// ABI 8: a static shape (the graph's inference) into the caller's array, as
// shape_input_shape gives one: the rank, -1 for an unknown rank.
int CopyStaticShape(const PartialShape& s, int64_t* dims, int max_dims) {
  if (!s.known_rank()) return -1;
  if (dims != nullptr) {
    const int count = std::min(std::max(max_dims, 0), s.rank());
    for (int d = 0; d < count; ++d) dims[d] = s.dim(d);
  }
  return s.rank();
}
int ApiConstructionInputShape(const TG_KernelConstruction* ctx, int i, int64_t* dims,
                              int max_dims) {
  const Operation* op = ConsOp(ctx);
  if (op == nullptr || i < 0 || i >= op->num_inputs()) return -1;
  return CopyStaticShape(op->input(i).shape(), dims, max_dims);
}
int ApiConstructionOutputShape(const TG_KernelConstruction* ctx, int i, int64_t* dims,
                               int max_dims) {
  const Operation* op = ConsOp(ctx);
  if (op == nullptr || i < 0 || i >= op->num_outputs()) return -1;
  return CopyStaticShape(op->output_shape(i), dims, max_dims);
}
int ApiHasAttr(const TG_KernelConstruction* ctx, const char* name) {
  const Operation* op = ConsOp(ctx);
  if (op == nullptr || name == nullptr) return 0;
  return NoThrow(0, [&] { return op->FindAttr(name) != nullptr ? 1 : 0; });
}

// ---- kernel compute ----

bool InputIndexOk(const TG_KernelContext* ctx, int i) {
  return ctx != nullptr && i >= 0 && static_cast<size_t>(i) < ctx->inputs.size();
}
bool OutputIndexOk(const TG_KernelContext* ctx, int i) {
  return ctx != nullptr && i >= 0 && static_cast<size_t>(i) < ctx->outputs.size();
}

// Fails the node with `st` unless it failed already (the first failure is the one kept).
void FailContext(TG_KernelContext* ctx, const Status& st) {
  if (ctx != nullptr && ctx->status.status.ok()) SetStatus(&ctx->status, st);
}

const char* ApiContextNodeName(const TG_KernelContext* ctx) {
  return ctx == nullptr || ctx->op == nullptr ? "" : ctx->op->name().c_str();
}
TG_Status* ApiContextStatus(TG_KernelContext* ctx) { return ctx == nullptr ? nullptr : &ctx->status; }
int ApiNumInputs(const TG_KernelContext* ctx) { return ctx == nullptr ? 0 : static_cast<int>(ctx->inputs.size()); }
int ApiNumOutputs(const TG_KernelContext* ctx) { return ctx == nullptr ? 0 : static_cast<int>(ctx->outputs.size()); }
const TG_Tensor* ApiInput(TG_KernelContext* ctx, int i) {
  return InputIndexOk(ctx, i) ? ctx->inputs[static_cast<size_t>(i)].value : nullptr;
}
const TG_Tensor* ApiInputInfo(TG_KernelContext* ctx, int i, TG_TensorInfo* info) {
  if (!InputIndexOk(ctx, i)) return nullptr;
  const TG_Tensor* t = ctx->inputs[static_cast<size_t>(i)].value;
  if (info != nullptr && info->struct_size >= sizeof(TG_TensorInfo)) {
    FillTensorInfo(t->tensor, info);  // every kernel call of an element-wise op: inline
    return t;
  }
  // A struct_size that covers no field is a plugin bug (an unset size), not an old struct:
  // filling nothing would leave the kernel reading garbage, so the kernel fails instead.
  if (info != nullptr && info->struct_size <= offsetof(TG_TensorInfo, dtype)) {
    if (ctx->status.status.ok()) {
      ctx->status.status =
          InvalidArgument("input_info(", i, "): the TG_TensorInfo's struct_size is ",
                          info->struct_size, ", which covers none of its fields; set it to "
                          "sizeof(TG_TensorInfo)");
    }
    return t;
  }
  ApiTensorInfo(t, info);
  return t;
}
TG_DataType ApiExpectedOutputType(const TG_KernelContext* ctx, int i) {
  if (!OutputIndexOk(ctx, i)) return TG_INVALID_DTYPE;
  return ToC(BaseType(ctx->outputs[static_cast<size_t>(i)].type));
}

// Can output i still be produced (in range, not a ref output, not produced yet)? The fast
// check of every kernel call; CheckOutputSlot says why not.
bool OutputSlotFree(const TG_KernelContext* ctx, int i) {
  if (!OutputIndexOk(ctx, i)) return false;
  const KernelCallOutput& out = ctx->outputs[static_cast<size_t>(i)];
  return !out.set && !IsRefType(out.type);
}

// The checks every way of producing output i shares.
Status CheckOutputSlot(const TG_KernelContext* ctx, int i, const char* fn) {
  if (OutputSlotFree(ctx, i)) return Status::OK();
  if (!OutputIndexOk(ctx, i)) {
    return InvalidArgument(ctx == nullptr ? std::string("kernel") : NodeLabel(*ctx->op), ": ", fn,
                           ": output index ", i, " out of range");
  }
  if (IsRefType(ctx->outputs[static_cast<size_t>(i)].type)) {
    return InvalidArgument(NodeLabel(*ctx->op), ": ", fn, ": output ", i,
                           " is a ref output (use forward_ref_input_to_ref_output)");
  }
  if (ctx->outputs[static_cast<size_t>(i)].set) {
    return InvalidArgument(NodeLabel(*ctx->op), ": ", fn, ": output ", i, " was already produced");
  }
  return Status::OK();
}

TG_Tensor* ApiAllocateOutput(TG_KernelContext* ctx, int i, const int64_t* dims, int num_dims,
                             TG_Status* status) {
  return GuardValue<TG_Tensor*>(status, nullptr, [&](TG_Tensor** out) -> Status {
    TG_RETURN_IF_ERROR(CheckOutputSlot(ctx, i, "allocate_output"));
    std::vector<int64_t> d;
    if (Status s = ReadDims(dims, num_dims, &d); !s.ok()) {
      return s.Prepend(StrCat(NodeLabel(*ctx->op), ": allocate_output ", i, ": "));
    }
    KernelCallOutput& slot = ctx->outputs[static_cast<size_t>(i)];
    const DataType dtype = BaseType(slot.type);
    auto t = ctx->device_memory && !slot.host_memory
                 ? AllocateDeviceTensor(ctx->device, dtype, std::move(d))
                 : Tensor::AllocateUninitialized(dtype, std::move(d));
    if (!t.ok()) return t.status().Prepend(StrCat(NodeLabel(*ctx->op), ": output ", i, ": "));
    slot.value->tensor = std::move(t).value();
    slot.set = true;
    *out = slot.value;
    return Status::OK();
  });
}

// True when the dims a plugin passed are exactly `have` (a tensor's own shape).
inline bool DimsEqual(const int64_t* dims, int num_dims, const std::vector<int64_t>& have) {
  // Kernels usually pass the input's own dims (TensorInfo::dims): the same pointer.
  return num_dims == static_cast<int>(have.size()) &&
         (num_dims == 0 || dims == have.data() ||
          (dims != nullptr && std::equal(dims, dims + num_dims, have.begin())));
}

// forward_input_to_output with a new shape of the same element count (a reshape): the
// output owns the buffer under that shape and the input reads it through a view until
// compute ends (inputs are cleared before outputs). Out of line: it builds a vector and a
// status, which the common same-shape path below should not pay a stack frame for.
[[gnu::noinline]] TG_Tensor* ForwardReshaped(Tensor& in, KernelCallOutput& slot,
                                             DataType out_type, const int64_t* dims,
                                             int num_dims) {
  std::vector<int64_t> d;
  if (!ReadDims(dims, num_dims, &d).ok()) return nullptr;
  auto n = NumElementsOf(d);
  if (!n.ok() || n.value() != in.NumElements()) return nullptr;
  // Same dtype and element count: Wrap cannot fail.
  auto t = Tensor::Wrap(out_type, std::move(d), in.TakeBufferLeavingView());
  if (!t.ok()) return nullptr;
  slot.value->tensor = std::move(t).value();
  slot.set = true;
  return slot.value;
}

// Input `input_index`'s tensor when its buffer may become another tensor's (an output's, a
// variable's) of plain dtype `dtype`: the input is not read again later nor a variable's,
// and only this call holds the buffer (no caller, feed, fetch, other consumer, constant or
// variable sees it). Null otherwise.
Tensor* SolelyHeldInput(TG_KernelContext* ctx, int input_index, DataType dtype) {
  const KernelCallInput& call = ctx->inputs[static_cast<size_t>(input_index)];
  if (!call.may_forward || call.ref != nullptr) return nullptr;
  Tensor& in = call.value->tensor;
  if (in.dtype() != dtype || !IsPlainDataType(dtype) || !in.buffer()) return nullptr;
  if (in.buffer().use_count() != 1) return nullptr;
  return &in;
}

TG_Tensor* ApiForwardInputToOutput(TG_KernelContext* ctx, int input_index, int output_index,
                                   const int64_t* dims, int num_dims) {
  return NoThrow<TG_Tensor*>(nullptr, [&]() -> TG_Tensor* {
    if (!InputIndexOk(ctx, input_index) || !OutputSlotFree(ctx, output_index)) {
      return nullptr;
    }
    KernelCallOutput& slot = ctx->outputs[static_cast<size_t>(output_index)];
    const DataType out_type = BaseType(slot.type);
    Tensor* held = SolelyHeldInput(ctx, input_index, out_type);
    if (held == nullptr) return nullptr;
    Tensor& in = *held;
    if (!DimsEqual(dims, num_dims, in.dims())) {
      return ForwardReshaped(in, slot, out_type, dims, num_dims);
    }
    // The common case (elementwise ops): the input's own, already valid shape.
    in.TakeLeavingViewInto(&slot.value->tensor);
    slot.set = true;
    return slot.value;
  });
}

// set_output: a tensor the kernel made on the host (a restored checkpoint tensor) becomes
// the output as it is, so a large variable is never copied on its way to Assign.
void ApiSetOutput(TG_KernelContext* ctx, int i, TG_Tensor* t, TG_Status* status) {
  std::unique_ptr<TG_Tensor> owned(t);
  Guard(status, [&]() -> Status {
    TG_RETURN_IF_ERROR(CheckOutputSlot(ctx, i, "set_output"));
    if (owned == nullptr) return InvalidArgument(NodeLabel(*ctx->op), ": set_output ", i, ": NULL tensor");
    KernelCallOutput& out = ctx->outputs[static_cast<size_t>(i)];
    const DataType out_type = BaseType(out.type);
    if (owned->tensor.dtype() != out_type) {
      return InvalidArgument(NodeLabel(*ctx->op), ": set_output ", i, ": tensor of dtype ",
                             DataTypeName(owned->tensor.dtype()), " for an output of dtype ",
                             DataTypeName(out_type));
    }
    if (ctx->device_memory && !out.host_memory) {
      return InvalidArgument(NodeLabel(*ctx->op), ": set_output ", i,
                             ": the output lives in device memory; set_output takes host tensors");
    }
    out.value->tensor = std::move(owned->tensor);
    out.set = true;
    return Status::OK();
  });
}

// Is `t` one of this call's inputs or an output already produced?
bool IsAliasable(const TG_KernelContext* ctx, const TG_Tensor* t) {
  for (const KernelCallInput& in : ctx->inputs) {
    if (in.value == t) return true;
  }
  for (const KernelCallOutput& out : ctx->outputs) {
    if (out.value == t && out.set) return true;
  }
  for (const auto& r : ctx->ref_views) {
    if (r.get() == t) return true;
  }
  return false;
}

// set_output_alias's common case (Identity and friends): a value input that owns its
// buffer, aliased with its own shape. The output takes the input's reference over and the
// input reads on through a view until compute ends (no reference count is touched). False
// when that does not apply: the caller then shares the buffer the general way.
bool TakeInputForAlias(TG_KernelContext* ctx, int i, const TG_Tensor* t, const int64_t* dims,
                       int num_dims) {
  size_t k = 0;
  while (k < ctx->inputs.size() && ctx->inputs[k].value != t) ++k;
  if (k == ctx->inputs.size()) return false;
  const KernelCallInput& call = ctx->inputs[k];
  Tensor& in = call.value->tensor;
  if (!call.may_forward || call.ref != nullptr || in.IsBorrowedView() || !in.buffer()) return false;
  if (!DimsEqual(dims, num_dims, in.dims())) return false;
  KernelCallOutput& out = ctx->outputs[static_cast<size_t>(i)];
  in.TakeLeavingViewInto(&out.value->tensor);
  out.set = true;
  return true;
}

void ApiSetOutputAlias(TG_KernelContext* ctx, int i, const TG_Tensor* t, const int64_t* dims,
                       int num_dims, TG_Status* status) {
  Guard(status, [&]() -> Status {
    TG_RETURN_IF_ERROR(CheckOutputSlot(ctx, i, "set_output_alias"));
    auto where = [&] { return StrCat(NodeLabel(*ctx->op), ": set_output_alias ", i); };
    if (t == nullptr || !IsAliasable(ctx, t)) {
      return InvalidArgument(where(), ": the tensor is not an input or produced output of this call");
    }
    // An input forwarded earlier in this call is only a view: alias its owner instead.
    if (t->tensor.IsBorrowedView()) {
      for (const KernelCallOutput& out : ctx->outputs) {
        const Tensor& o = out.value->tensor;
        if (out.set && !o.IsBorrowedView() && o.data() == t->tensor.data()) {
          t = out.value;
          break;
        }
      }
    }
    const Tensor& src = t->tensor;
    KernelCallOutput& out = ctx->outputs[static_cast<size_t>(i)];
    const DataType out_type = BaseType(out.type);
    if (src.dtype() != out_type) {
      return InvalidArgument(where(), ": tensor of dtype ", DataTypeName(src.dtype()),
                             " for an output of dtype ", DataTypeName(out_type));
    }
    if (TakeInputForAlias(ctx, i, t, dims, num_dims)) return Status::OK();
    std::vector<int64_t> d;
    if (Status s = ReadDims(dims, num_dims, &d); !s.ok()) return s.Prepend(where() + ": ");
    TG_ASSIGN_OR_RETURN(int64_t n, NumElementsOf(d));
    if (n != src.NumElements()) {
      return InvalidArgument(where(), ": shape ", PartialShape(d).ToString(), " has ", n,
                             " elements but the tensor has ", src.NumElements(), " (shape ",
                             src.shape().ToString(), ")");
    }
    Tensor result;
    if (d == src.dims()) {
      result = src;  // shares buffer (or strings)
    } else if (IsPlainDataType(out_type)) {
      TG_ASSIGN_OR_RETURN(result, Tensor::Wrap(out_type, std::move(d), src.buffer()));
    } else {
      // Strings cannot be viewed with another shape: copy them (same element count).
      TG_ASSIGN_OR_RETURN(result, Tensor::Allocate(out_type, std::move(d)));
      result.strings() = src.strings();
    }
    out.value->tensor = std::move(result);
    out.set = true;
    return Status::OK();
  });
}

TG_Tensor* ApiAllocateTemp(TG_KernelContext* ctx, TG_DataType dtype, const int64_t* dims, int num_dims,
                           TG_Status* status) {
  return GuardValue<TG_Tensor*>(status, nullptr, [&](TG_Tensor** out) -> Status {
    if (ctx == nullptr) return InvalidArgument("allocate_temp: the context is NULL");
    std::vector<int64_t> d;
    auto where = [&] { return StrCat(NodeLabel(*ctx->op), ": allocate_temp"); };
    if (Status s = ReadDims(dims, num_dims, &d); !s.ok()) return s.Prepend(where() + ": ");
    const int t = EnumValue(dtype);
    if (!IsValidDataType(t)) return InvalidArgument(where(), ": invalid dtype ", t);
    // Temporaries live where the kernel computes.
    auto tensor = ctx->device_memory ? AllocateDeviceTensor(ctx->device, static_cast<DataType>(t), std::move(d))
                                     : Tensor::AllocateUninitialized(static_cast<DataType>(t), std::move(d));
    if (!tensor.ok()) return tensor.status().Prepend(where() + ": ");
    ctx->temps.push_back(std::make_unique<TG_Tensor>(TG_Tensor{std::move(tensor).value()}));
    *out = ctx->temps.back().get();
    return Status::OK();
  });
}

void* ApiDeviceStream(TG_KernelContext* ctx) {
  return ctx == nullptr || ctx->device == nullptr ? nullptr : ctx->device->stream();
}
void* ApiDeviceState(TG_KernelContext* ctx) {
  return ctx == nullptr || ctx->device == nullptr ? nullptr : ctx->device->state;
}

// ---- thread pool ----

TG_ThreadPool* ApiIntraOpPool(TG_KernelContext* ctx) {
  return ctx == nullptr || ctx->pool == nullptr ? ThreadPool::InlineHandle() : ctx->pool;
}
int ApiPoolNumThreads(const TG_ThreadPool* pool) {
  return pool == nullptr || pool->pool == nullptr ? 1 : pool->pool->NumThreads();
}
void ApiParallelFor(TG_ThreadPool* pool, int64_t total, double cost_per_unit_ns, TG_ParallelForFn fn,
                    void* arg) {
  if (fn == nullptr || total <= 0) return;
  ThreadPool* p = pool == nullptr ? nullptr : pool->pool;
  // Most calls on small tensors run inline: decide that before building a std::function.
  if (ThreadPool::RunsInline(p, total, cost_per_unit_ns)) {
    fn(arg, 0, total);
    return;
  }
  const std::function<void(int64_t, int64_t)> body = [fn, arg](int64_t b, int64_t e) { fn(arg, b, e); };
  try {
    ThreadPool::ParallelFor(p, total, cost_per_unit_ns, body);
  } catch (...) {
    // Could not hand out work (out of memory scheduling): run what is left inline.
    fn(arg, 0, total);
  }
}
void ApiPoolSchedule(TG_ThreadPool* pool, void (*fn)(void* arg), void* arg) {
  if (fn == nullptr) return;
  ThreadPool* p = pool == nullptr ? nullptr : pool->pool;
  if (p == nullptr) {
    fn(arg);
    return;
  }
  try {
    p->Schedule([fn, arg] { fn(arg); });
  } catch (...) {
    fn(arg);  // the caller waits for it either way
  }
}
int ApiPoolCurrentThreadId(const TG_ThreadPool* pool) {
  if (pool == nullptr || pool->pool == nullptr) return -1;
  return pool->pool->CurrentThreadId();
}

// ---- ref inputs ----

VariableSlot* RefSlot(TG_KernelContext* ctx, int i) {
  return InputIndexOk(ctx, i) ? ctx->inputs[static_cast<size_t>(i)].ref : nullptr;
}

// Runs fn() with the slot's mutex held (taking it unless this call holds it already).
template <typename Fn>
auto WithSlot(TG_KernelContext* ctx, int i, Fn&& fn) {
  const KernelCallInput& call = ctx->inputs[static_cast<size_t>(i)];
  VariableSlot* slot = call.ref;
  if (call.locked) return fn(*slot);
  std::lock_guard<std::mutex> lock(slot->mu);
  return fn(*slot);
}

Status NotARef(TG_KernelContext* ctx, int i, const char* fn) {
  if (ctx == nullptr) return InvalidArgument(fn, ": the context is NULL");
  return InvalidArgument(NodeLabel(*ctx->op), ": ", fn, ": input ", i, " is not a ref input");
}

TG_Tensor* ApiMutableRefInput(TG_KernelContext* ctx, int i, TG_Status* status) {
  return GuardValue<TG_Tensor*>(status, nullptr, [&](TG_Tensor** out) -> Status {
    if (RefSlot(ctx, i) == nullptr) return NotARef(ctx, i, "mutable_ref_input");
    return WithSlot(ctx, i, [&](VariableSlot& slot) -> Status {
      if (!slot.initialized) {
        return FailedPrecondition("Attempting to use uninitialized value ", slot.name, " (",
                                  NodeLabel(*ctx->op), ")");
      }
      // The caller may write the variable from here on: a new version now, and another
      // when compute returns (FinishKernelCompute), so a reader that ran during the write
      // and cached what it saw under this number never matches again.
      BufferVersions::Touch(slot.value.buffer());
      ctx->ref_views.push_back(std::make_unique<TG_Tensor>(TG_Tensor{slot.value}));
      *out = ctx->ref_views.back().get();
      return Status::OK();
    });
  });
}

void ApiLockRefInput(TG_KernelContext* ctx, int i) {
  VariableSlot* slot = RefSlot(ctx, i);
  if (slot == nullptr || ctx->inputs[static_cast<size_t>(i)].locked) return;
  slot->mu.lock();
  ctx->inputs[static_cast<size_t>(i)].locked = true;
}

void ApiUnlockRefInput(TG_KernelContext* ctx, int i) {
  VariableSlot* slot = RefSlot(ctx, i);
  if (slot == nullptr || !ctx->inputs[static_cast<size_t>(i)].locked) return;
  ctx->inputs[static_cast<size_t>(i)].locked = false;
  slot->mu.unlock();
}

// The variable in `slot` takes a new buffer, put in its place by `set(&slot.value)`: the old
// buffer leaves the variable (readers of this run may still hold it) and loses its number,
// which could otherwise outlive the variable's hold on it; the new one gets a number no
// reader has seen (as mutable_ref_input), and the variable is initialized in this kernel's
// memory space. Called under the slot's lock (WithSlot).
template <typename Set>
void ReplaceVariableBuffer(TG_KernelContext* ctx, VariableSlot& slot, Set&& set) {
  BufferVersions::Drop(slot.value.buffer().get());
  set(&slot.value);
  BufferVersions::Touch(slot.value.buffer());
  slot.initialized = true;
  slot.space.store(ctx->device_memory ? ctx->device : nullptr, std::memory_order_release);
}

TG_Tensor* ApiReallocateRefInput(TG_KernelContext* ctx, int i, const int64_t* dims, int num_dims,
                                 TG_Status* status) {
  return GuardValue<TG_Tensor*>(status, nullptr, [&](TG_Tensor** out) -> Status {
    if (RefSlot(ctx, i) == nullptr) return NotARef(ctx, i, "reallocate_ref_input");
    auto where = [&] { return StrCat(NodeLabel(*ctx->op), ": reallocate_ref_input ", i); };
    std::vector<int64_t> d;
    if (Status s = ReadDims(dims, num_dims, &d); !s.ok()) return s.Prepend(where() + ": ");
    // A variable on a device keeps its storage in that device's memory.
    const DataType dtype = BaseType(ctx->op->input_type(i));
    auto t = ctx->device_memory ? AllocateDeviceTensor(ctx->device, dtype, std::move(d))
                                : Tensor::Allocate(dtype, std::move(d));
    if (!t.ok()) return t.status().Prepend(where() + ": ");
    return WithSlot(ctx, i, [&](VariableSlot& slot) -> Status {
      ReplaceVariableBuffer(ctx, slot, [&](Tensor* value) { *value = std::move(t).value(); });
      ctx->ref_views.push_back(std::make_unique<TG_Tensor>(TG_Tensor{slot.value}));
      *out = ctx->ref_views.back().get();
      return Status::OK();
    });
  });
}

void ApiForwardRefInputToRefOutput(TG_KernelContext* ctx, int input_index, int output_index) {
  if (ctx == nullptr) return;
  NoThrow(0, [&] {
    if (RefSlot(ctx, input_index) == nullptr) {
      FailContext(ctx, NotARef(ctx, input_index, "forward_ref_input_to_ref_output"));
    } else if (!OutputIndexOk(ctx, output_index) || !IsRefType(ctx->op->output_type(output_index))) {
      FailContext(ctx, InvalidArgument(NodeLabel(*ctx->op),
                                       ": forward_ref_input_to_ref_output: output ", output_index,
                                       " is not a ref output"));
    } else {
      KernelCallOutput& out = ctx->outputs[static_cast<size_t>(output_index)];
      out.ref = RefSlot(ctx, input_index);
      out.set = true;
    }
    return 0;
  });
}

int ApiIsRefInitialized(TG_KernelContext* ctx, int i) {
  if (RefSlot(ctx, i) == nullptr) return 0;
  return WithSlot(ctx, i, [](VariableSlot& slot) { return slot.initialized ? 1 : 0; });
}

// ABI 7: the version of input i's bytes (buffer_versions.h): non-zero only for variables'
// and graph constants' buffers, which every write path renumbers.
uint64_t ApiInputVersion(TG_KernelContext* ctx, int i) {
  if (!InputIndexOk(ctx, i)) return 0;
  const Tensor& t = ctx->inputs[static_cast<size_t>(i)].value->tensor;
  return BufferVersions::Get(t.buffer().get());
}

// ABI 8: the variable behind ref input `ref_index` takes input `input_index`'s buffer when
// this call is its only holder (TensorFlow's Assign forwarding its value): as
// forward_input_to_output decides that, then as reallocate_ref_input replaces the
// variable's tensor, numbers included.
int ApiForwardInputToRefInput(TG_KernelContext* ctx, int input_index, int ref_index) {
  if (ctx == nullptr || !InputIndexOk(ctx, input_index) || RefSlot(ctx, ref_index) == nullptr) {
    return 0;
  }
  return NoThrow(0, [&]() -> int {
    // A host-memory input of a kernel whose variables live in device memory stays put.
    if (ctx->device_memory && ctx->inputs[static_cast<size_t>(input_index)].host_memory) return 0;
    Tensor* in = SolelyHeldInput(ctx, input_index, BaseType(ctx->op->input_type(ref_index)));
    if (in == nullptr) return 0;
    return WithSlot(ctx, ref_index, [&](VariableSlot& slot) -> int {
      // The input reads on through a view until compute returns, as after forwarding.
      ReplaceVariableBuffer(ctx, slot, [&](Tensor* value) { in->TakeLeavingViewInto(value); });
      return 1;
    });
  });
}

// ---- shape functions ----

const InferenceContext* Ic(const TG_ShapeContext* ctx) { return ctx == nullptr ? nullptr : ctx->ic; }

int ApiShapeNumInputs(const TG_ShapeContext* ctx) {
  const InferenceContext* ic = Ic(ctx);
  return ic == nullptr ? 0 : ic->num_inputs();
}
int ApiShapeInputRank(const TG_ShapeContext* ctx, int i) {
  const InferenceContext* ic = Ic(ctx);
  if (ic == nullptr || i < 0 || i >= ic->num_inputs()) return -1;
  return ic->input_shape(i).rank();
}
int64_t ApiShapeInputDim(const TG_ShapeContext* ctx, int i, int d) {
  const InferenceContext* ic = Ic(ctx);
  if (ic == nullptr || i < 0 || i >= ic->num_inputs()) return -1;
  const PartialShape& s = ic->input_shape(i);
  if (!s.known_rank() || d < 0 || d >= s.rank()) return -1;
  return s.dim(d);
}
const TG_Tensor* ApiShapeInputValue(const TG_ShapeContext* ctx, int i) {
  const InferenceContext* ic = Ic(ctx);
  if (ic == nullptr || i < 0 || i >= ic->num_inputs() || ic->input_value(i) == nullptr) return nullptr;
  return NoThrow<const TG_Tensor*>(nullptr, [&]() -> const TG_Tensor* {
    auto* c = const_cast<TG_ShapeContext*>(ctx);
    auto& slot = c->values[static_cast<size_t>(i)];
    if (slot == nullptr) slot = std::make_unique<TG_Tensor>(TG_Tensor{*ic->input_value(i)});
    return slot.get();
  });
}
void ApiShapeSetOutput(TG_ShapeContext* ctx, int i, const int64_t* dims, int num_dims) {
  if (ctx == nullptr || ctx->ic == nullptr) return;
  NoThrow(0, [&] {
    InferenceContext& ic = *ctx->ic;
    Status st;
    if (i < 0 || i >= ic.num_outputs()) {
      st = ic.Error("shape_set_output: output index ", i, " out of range (", ic.num_outputs(),
                    " outputs)");
    } else if (num_dims == -1) {
      ic.set_output(i, PartialShape::Unknown());
    } else if (num_dims < -1 || (num_dims > 0 && dims == nullptr)) {
      st = ic.Error("shape_set_output: bad dims for output ", i);
    } else {
      std::vector<int64_t> d(dims, dims + num_dims);
      st = ValidatePartialShapeDims(d);
      if (st.ok()) {
        ic.set_output(i, PartialShape(std::move(d)));
      } else {
        st = ic.Error("shape_set_output: output ", i, ": ", st.message());
      }
    }
    if (!st.ok() && ctx->deferred.ok()) ctx->deferred = st;
    return 0;
  });
}
void ApiShapeAttrInt(const TG_ShapeContext* ctx, const char* name, int64_t* value, TG_Status* status) {
  Guard(status, [&]() -> Status {
    if (Ic(ctx) == nullptr || name == nullptr) return InvalidArgument("shape_attr_int: bad arguments");
    int64_t v = 0;
    TG_RETURN_IF_ERROR(ctx->ic->GetAttr(name, &v));
    if (value != nullptr) *value = v;
    return Status::OK();
  });
}
void ApiShapeAttrBool(const TG_ShapeContext* ctx, const char* name, int* value, TG_Status* status) {
  Guard(status, [&]() -> Status {
    if (Ic(ctx) == nullptr || name == nullptr) return InvalidArgument("shape_attr_bool: bad arguments");
    bool v = false;
    TG_RETURN_IF_ERROR(ctx->ic->GetAttr(name, &v));
    if (value != nullptr) *value = v ? 1 : 0;
    return Status::OK();
  });
}
const char* ApiShapeNodeName(const TG_ShapeContext* ctx) {
  const InferenceContext* ic = Ic(ctx);
  return ic == nullptr ? "" : ic->node_name().c_str();
}

// ---- ABI 6: shape-function getters ----

// The attr `name` of the node being shaped, of `kind` (as FindAttr for construction).
StatusOr<const tf::AttrValue*> ShapeAttr(const TG_ShapeContext* ctx, const char* name,
                                         const char* kind) {
  const InferenceContext* ic = Ic(ctx);
  if (ic == nullptr) return InvalidArgument("shape attr getter: the shape context is NULL");
  if (name == nullptr) return ic->Error("attr name is NULL");
  auto it = ic->attrs().find(name);
  if (it == ic->attrs().end()) return ic->Error("no attr '", name, "'");
  const std::string actual = AttrValueKind(it->second);
  const bool is_list = std::strncmp(kind, "list(", 5) == 0;
  if (actual != kind && !(is_list && actual == "list(any)")) {
    return ic->Error("attr '", name, "' is of kind '", actual.empty() ? "unset" : actual,
                     "', not '", kind, "'");
  }
  return &it->second;
}

// A shape proto's rank and dims as shape_attr_shape reports them.
Status ReportShape(const InferenceContext& ic, const char* name, const tf::TensorShapeProto& proto,
                   int64_t* dims, int max_dims, int* num_dims) {
  auto shape = ShapeFromProto(proto);
  if (!shape.ok()) return ic.Error("attr '", name, "': ", shape.status().message());
  const PartialShape& s = shape.value();
  if (num_dims != nullptr) *num_dims = s.rank();
  if (dims != nullptr && s.known_rank()) {
    const int count = std::min(std::max(max_dims, 0), s.rank());
    for (int i = 0; i < count; ++i) dims[i] = s.dim(i);
  }
  return Status::OK();
}

void ApiShapeAttrFloat(const TG_ShapeContext* ctx, const char* name, float* value, TG_Status* status) {
  Guard(status, [&]() -> Status {
    TG_ASSIGN_OR_RETURN(const tf::AttrValue* v, ShapeAttr(ctx, name, "float"));
    if (value != nullptr) *value = v->f();
    return Status::OK();
  });
}
void ApiShapeAttrType(const TG_ShapeContext* ctx, const char* name, TG_DataType* value,
                      TG_Status* status) {
  Guard(status, [&]() -> Status {
    TG_ASSIGN_OR_RETURN(const tf::AttrValue* v, ShapeAttr(ctx, name, "type"));
    if (value != nullptr) *value = static_cast<TG_DataType>(static_cast<int>(v->type()));
    return Status::OK();
  });
}
void ApiShapeAttrString(const TG_ShapeContext* ctx, const char* name, const char** value,
                        size_t* len, TG_Status* status) {
  Guard(status, [&]() -> Status {
    TG_ASSIGN_OR_RETURN(const tf::AttrValue* v, ShapeAttr(ctx, name, "string"));
    if (value != nullptr) *value = v->s().data();
    if (len != nullptr) *len = v->s().size();
    return Status::OK();
  });
}
void ApiShapeAttrShape(const TG_ShapeContext* ctx, const char* name, int64_t* dims, int max_dims,
                       int* num_dims, TG_Status* status) {
  Guard(status, [&]() -> Status {
    TG_ASSIGN_OR_RETURN(const tf::AttrValue* v, ShapeAttr(ctx, name, "shape"));
    return ReportShape(*ctx->ic, name, v->shape(), dims, max_dims, num_dims);
  });
}
void ApiShapeAttrIntList(const TG_ShapeContext* ctx, const char* name, int64_t* values, size_t max,
                         size_t* len, TG_Status* status) {
  Guard(status, [&]() -> Status {
    TG_ASSIGN_OR_RETURN(const tf::AttrValue* v, ShapeAttr(ctx, name, "list(int)"));
    return CopyList(v->list().i_size(), values, max, len, [&](int i) { return v->list().i(i); });
  });
}
void ApiShapeAttrFloatList(const TG_ShapeContext* ctx, const char* name, float* values, size_t max,
                           size_t* len, TG_Status* status) {
  Guard(status, [&]() -> Status {
    TG_ASSIGN_OR_RETURN(const tf::AttrValue* v, ShapeAttr(ctx, name, "list(float)"));
    return CopyList(v->list().f_size(), values, max, len, [&](int i) { return v->list().f(i); });
  });
}
void ApiShapeAttrTypeList(const TG_ShapeContext* ctx, const char* name, TG_DataType* values,
                          size_t max, size_t* len, TG_Status* status) {
  Guard(status, [&]() -> Status {
    TG_ASSIGN_OR_RETURN(const tf::AttrValue* v, ShapeAttr(ctx, name, "list(type)"));
    return CopyList(v->list().type_size(), values, max, len, [&](int i) {
      return static_cast<TG_DataType>(static_cast<int>(v->list().type(i)));
    });
  });
}
void ApiShapeAttrStringList(const TG_ShapeContext* ctx, const char* name, const char** values,
                            size_t* lens, size_t max, size_t* len, TG_Status* status) {
  Guard(status, [&]() -> Status {
    TG_ASSIGN_OR_RETURN(const tf::AttrValue* v, ShapeAttr(ctx, name, "list(string)"));
    const int n = v->list().s_size();
    if (len != nullptr) *len = static_cast<size_t>(n);
    const size_t count = std::min(max, static_cast<size_t>(n));
    for (size_t k = 0; k < count; ++k) {
      const std::string& item = v->list().s(static_cast<int>(k));
      if (values != nullptr) values[k] = item.data();
      if (lens != nullptr) lens[k] = item.size();
    }
    return Status::OK();
  });
}
void ApiShapeAttrShapeList(const TG_ShapeContext* ctx, const char* name, size_t index,
                           int64_t* dims, int max_dims, int* num_dims, size_t* len,
                           TG_Status* status) {
  Guard(status, [&]() -> Status {
    TG_ASSIGN_OR_RETURN(const tf::AttrValue* v, ShapeAttr(ctx, name, "list(shape)"));
    const size_t n = static_cast<size_t>(v->list().shape_size());
    if (len != nullptr) *len = n;
    if (index >= n) return Status::OK();
    return ReportShape(*ctx->ic, name, v->list().shape(static_cast<int>(index)), dims, max_dims,
                       num_dims);
  });
}
int ApiShapeHasAttr(const TG_ShapeContext* ctx, const char* name) {
  const InferenceContext* ic = Ic(ctx);
  if (ic == nullptr || name == nullptr) return 0;
  return NoThrow(0, [&] { return ic->attrs().count(name) != 0 ? 1 : 0; });
}
TG_DataType ApiShapeInputType(const TG_ShapeContext* ctx, int i) {
  const InferenceContext* ic = Ic(ctx);
  if (ic == nullptr || i < 0 || i >= ic->num_inputs()) return TG_INVALID_DTYPE;
  return ToC(BaseType(ic->input_type(i)));
}
int ApiShapeInputShape(const TG_ShapeContext* ctx, int i, int64_t* dims, int max_dims) {
  const InferenceContext* ic = Ic(ctx);
  if (ic == nullptr || i < 0 || i >= ic->num_inputs()) return -1;
  const PartialShape& s = ic->input_shape(i);
  if (!s.known_rank()) return -1;
  if (dims != nullptr) {
    const int count = std::min(std::max(max_dims, 0), s.rank());
    for (int d = 0; d < count; ++d) dims[d] = s.dim(d);
  }
  return s.rank();
}
void ApiShapeSetOutputFromInput(TG_ShapeContext* ctx, int output, int input) {
  if (ctx == nullptr || ctx->ic == nullptr) return;
  NoThrow(0, [&] {
    InferenceContext& ic = *ctx->ic;
    Status st;
    if (output < 0 || output >= ic.num_outputs()) {
      st = ic.Error("shape_set_output_from_input: output index ", output, " out of range (",
                    ic.num_outputs(), " outputs)");
    } else if (input < 0 || input >= ic.num_inputs()) {
      st = ic.Error("shape_set_output_from_input: input index ", input, " out of range (",
                    ic.num_inputs(), " inputs)");
    } else {
      ic.set_output(output, ic.input_shape(input));
    }
    if (!st.ok() && ctx->deferred.ok()) ctx->deferred = st;
    return 0;
  });
}

TG_CoreApi MakeApi() {
  TG_CoreApi api;
  std::memset(&api, 0, sizeof api);
  api.struct_size = sizeof(TG_CoreApi);
  api.abi_version = TG_PLUGIN_ABI_VERSION;
  api.set_status = ApiSetStatus;
  api.status_code = ApiStatusCode;
  api.log = ApiLog;
  api.register_op = ApiRegisterOp;
  api.register_kernel = ApiRegisterKernel;
  api.register_gradient = ApiRegisterGradient;
  api.register_device = ApiRegisterDevice;
  api.register_saver = ApiRegisterSaver;
  api.tensor_dtype = ApiTensorDtype;
  api.tensor_num_dims = ApiTensorNumDims;
  api.tensor_dim = ApiTensorDim;
  api.tensor_num_elements = ApiTensorNumElements;
  api.tensor_byte_size = ApiTensorByteSize;
  api.tensor_data = ApiTensorData;
  api.tensor_get_string = ApiTensorGetString;
  api.tensor_set_string = ApiTensorSetString;
  api.new_host_tensor = ApiNewHostTensor;
  api.delete_host_tensor = ApiDeleteHostTensor;
  api.construction_node_name = ApiConsNodeName;
  api.construction_op_type = ApiConsOpType;
  api.construction_num_inputs = ApiConsNumInputs;
  api.construction_num_outputs = ApiConsNumOutputs;
  api.construction_input_type = ApiConsInputType;
  api.construction_output_type = ApiConsOutputType;
  api.attr_int = ApiAttrInt;
  api.attr_float = ApiAttrFloat;
  api.attr_bool = ApiAttrBool;
  api.attr_type = ApiAttrType;
  api.attr_string = ApiAttrString;
  api.attr_int_list = ApiAttrIntList;
  api.attr_float_list = ApiAttrFloatList;
  api.attr_type_list = ApiAttrTypeList;
  api.attr_shape = ApiAttrShape;
  api.attr_tensor = ApiAttrTensor;
  api.has_attr = ApiHasAttr;
  api.context_node_name = ApiContextNodeName;
  api.context_status = ApiContextStatus;
  api.num_inputs = ApiNumInputs;
  api.num_outputs = ApiNumOutputs;
  api.input = ApiInput;
  api.expected_output_type = ApiExpectedOutputType;
  api.allocate_output = ApiAllocateOutput;
  api.forward_input_to_output = ApiForwardInputToOutput;
  api.set_output_alias = ApiSetOutputAlias;
  api.allocate_temp = ApiAllocateTemp;
  api.device_stream = ApiDeviceStream;
  api.device_state = ApiDeviceState;
  api.intra_op_pool = ApiIntraOpPool;
  api.pool_num_threads = ApiPoolNumThreads;
  api.parallel_for = ApiParallelFor;
  api.pool_schedule = ApiPoolSchedule;
  api.pool_current_thread_id = ApiPoolCurrentThreadId;
  api.mutable_ref_input = ApiMutableRefInput;
  api.lock_ref_input = ApiLockRefInput;
  api.unlock_ref_input = ApiUnlockRefInput;
  api.reallocate_ref_input = ApiReallocateRefInput;
  api.forward_ref_input_to_ref_output = ApiForwardRefInputToRefOutput;
  api.is_ref_initialized = ApiIsRefInitialized;
  api.shape_num_inputs = ApiShapeNumInputs;
  api.shape_input_rank = ApiShapeInputRank;
  api.shape_input_dim = ApiShapeInputDim;
  api.shape_input_value = ApiShapeInputValue;
  api.shape_set_output = ApiShapeSetOutput;
  api.shape_attr_int = ApiShapeAttrInt;
  api.shape_attr_bool = ApiShapeAttrBool;
  api.shape_node_name = ApiShapeNodeName;
  FillGradientServices(&api);
  api.device_type_registered = ApiDeviceTypeRegistered;
  api.tensor_info = ApiTensorInfo;
  api.input_info = ApiInputInfo;
  FillCheckpointServices(&api);
  api.set_output = ApiSetOutput;
  api.construction_decline = ApiConstructionDecline;
  api.shape_attr_float = ApiShapeAttrFloat;
  api.shape_attr_type = ApiShapeAttrType;
  api.shape_attr_string = ApiShapeAttrString;
  api.shape_attr_shape = ApiShapeAttrShape;
  api.shape_attr_int_list = ApiShapeAttrIntList;
  api.shape_attr_float_list = ApiShapeAttrFloatList;
  api.shape_attr_type_list = ApiShapeAttrTypeList;
  api.shape_attr_string_list = ApiShapeAttrStringList;
  api.shape_attr_shape_list = ApiShapeAttrShapeList;
  api.shape_has_attr = ApiShapeHasAttr;
  api.shape_input_type = ApiShapeInputType;
  api.shape_input_shape = ApiShapeInputShape;
  api.shape_set_output_from_input = ApiShapeSetOutputFromInput;
  // ABI 7
  api.input_version = ApiInputVersion;
  // ABI 8
  api.construction_input_shape = ApiConstructionInputShape;
  api.construction_output_shape = ApiConstructionOutputShape;
  api.forward_input_to_ref_input = ApiForwardInputToRefInput;
  return api;
}

}  // namespace

const TG_CoreApi* CoreApi() {
  static const TG_CoreApi api = MakeApi();
  return &api;
}

}  // namespace tgraph
