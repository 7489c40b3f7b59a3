#include "core/exec/resource_variables.h"

#include <algorithm>
#include <cstring>
#include <mutex>
#include <type_traits>
#include <utility>

#include "core/base/buffer_versions.h"
#include "core/base/dtype.h"
#include "core/exec/list_kernel_util.h"

namespace tgraph {

bool IsVarHandleOp(const Operation& op) { return op.type() == "VarHandleOp"; }

bool TakesVariableHandle(const Operation& op, int i) {
  if (i < 0 || i >= op.num_inputs() || op.input_type(i) != DT_RESOURCE) return false;
  const std::string& t = op.type();
  // The optimizer updates run in the CPU plugin, which reaches variables only as ref inputs.
  return t.rfind("ResourceApply", 0) == 0 || t.rfind("ResourceSparseApply", 0) == 0;
}

VariableSlot* VariableOfHandle(const Tensor& t) {
  auto* h = ObjectOf<ResourceVariableHandle>(t, DT_RESOURCE);
  return h == nullptr ? nullptr : h->slot.get();
}

StatusOr<Tensor> MakeVariableHandle(std::shared_ptr<VariableSlot> slot, std::string key, DataType dtype) {
  auto h = std::make_unique<ResourceVariableHandle>();
  h->slot = std::move(slot);
  h->key = std::move(key);
  h->dtype = dtype;
  return MakeObjectTensor(DT_RESOURCE, std::move(h));
}

namespace {

using list_kernels::AttrBool;
using list_kernels::AttrInt;
using list_kernels::AttrType;

std::string Label(const CoreKernelIo& io) { return StrCat("node '", io.op().name(), "' (", io.op().type(), ")"); }

StatusOr<ResourceVariableHandle*> HandleOf(const CoreKernelIo& io, int i = 0) {
  auto* h = ObjectOf<ResourceVariableHandle>(io.in(i), DT_RESOURCE);
  if (h == nullptr || h->slot == nullptr) {
    return InvalidArgument(Label(io), ": input ", i, " is not a resource variable's handle (a VarHandleOp output)");
  }
  return h;
}

// The variable's value must be there (slot.mu held): TensorFlow's ReadVariableOp fails the
// same way, with FAILED_PRECONDITION, on a variable no initializer has run for.
Status CheckInitialized(const CoreKernelIo& io, const VariableSlot& slot) {
  if (slot.initialized) return Status::OK();
  return FailedPrecondition("Error while reading resource variable ", slot.name, " in ", Label(io),
                            ": the variable is uninitialized (run its initializer first)");
}

Status CheckDtype(const CoreKernelIo& io, DataType have, const char* attr = "dtype") {
  TG_ASSIGN_OR_RETURN(DataType want, AttrType(io, attr));
  if (have != want) {
    return InvalidArgument(Label(io), ": the variable holds ", DataTypeName(have), " but the op's ", attr, " is ",
                           DataTypeName(want));
  }
  return Status::OK();
}

// A copy that owns its elements and shares them with nobody: what a variable may update in
// place, and what a read hands out (a later in-place update must not change a value read
// before it, as TensorFlow's copy-on-write variables guarantee).
StatusOr<Tensor> DeepCopy(const Tensor& t) {
  if (t.dtype() != DT_STRING && !IsPlainDataType(t.dtype())) {
    return Unimplemented("a variable of dtype ", DataTypeName(t.dtype()));
  }
  TG_ASSIGN_OR_RETURN(Tensor copy, Tensor::AllocateUninitialized(t.dtype(), t.dims()));
  if (t.dtype() == DT_STRING) {
    copy.strings() = t.strings();
  } else if (t.ByteSize() != 0) {
    std::memcpy(copy.data(), t.data(), t.ByteSize());
  }
  return copy;
}

// The variable takes `value` as its new buffer (slot.mu held): the old buffer loses its
// number (input_version) and the new one gets a fresh one, as the ref-input writes do.
void SetValue(VariableSlot& slot, Tensor value) {
  BufferVersions::Drop(slot.value.buffer().get());
  slot.value = std::move(value);
  BufferVersions::Touch(slot.value.buffer());
  slot.initialized = true;
  slot.space.store(nullptr, std::memory_order_release);
}

Status ReadVariableOp(const CoreKernelIo& io) {
  TG_ASSIGN_OR_RETURN(ResourceVariableHandle * h, HandleOf(io));
  std::lock_guard<std::mutex> lock(h->slot->mu);
  TG_RETURN_IF_ERROR(CheckInitialized(io, *h->slot));
  TG_RETURN_IF_ERROR(CheckDtype(io, h->slot->value.dtype()));
  TG_ASSIGN_OR_RETURN(Tensor out, DeepCopy(h->slot->value));
  io.out(0, std::move(out));
  return Status::OK();
}

Status AssignVariableOp(const CoreKernelIo& io) {
  TG_ASSIGN_OR_RETURN(ResourceVariableHandle * h, HandleOf(io));
  const Tensor& value = io.in(1);
  TG_RETURN_IF_ERROR(CheckDtype(io, value.dtype()));
  if (h->dtype != DT_INVALID && h->dtype != value.dtype()) {
    return InvalidArgument(Label(io), ": variable ", h->slot->name, " is ", DataTypeName(h->dtype),
                           ", the value ", DataTypeName(value.dtype()));
  }
  // validate_shape (TF 2.x's attr, false by default): the value must keep the variable's
  // current shape.
  const tf::AttrValue* validate = io.op().FindAttr("validate_shape");
  TG_ASSIGN_OR_RETURN(Tensor copy, DeepCopy(value));
  std::lock_guard<std::mutex> lock(h->slot->mu);
  if (validate != nullptr && validate->b() && h->slot->initialized && h->slot->value.dims() != value.dims()) {
    return InvalidArgument(Label(io), ": trying to assign a value of shape ", value.shape().ToString(),
                           " to variable ", h->slot->name, " of shape ", h->slot->value.shape().ToString());
  }
  SetValue(*h->slot, std::move(copy));
  return Status::OK();
}

// ---- element-wise updates of numeric variables ----

template <typename T>
struct AddOp {
  static T Apply(T a, T b) { return static_cast<T>(a + b); }
};
template <typename T>
struct SubOp {
  static T Apply(T a, T b) { return static_cast<T>(a - b); }
};
template <typename T>
struct SetOp {
  static T Apply(T, T b) { return b; }
};

// Calls f.template operator()<T>() with T the C++ type of `dtype` (the real numeric types).
template <typename F>
Status DispatchNumeric(DataType dtype, const char* what, F&& f) {
  switch (dtype) {
    case DT_FLOAT: return f.template operator()<float>();
    case DT_DOUBLE: return f.template operator()<double>();
    case DT_INT32: return f.template operator()<int32_t>();
    case DT_INT64: return f.template operator()<int64_t>();
    case DT_INT16: return f.template operator()<int16_t>();
    case DT_INT8: return f.template operator()<int8_t>();
    case DT_UINT8: return f.template operator()<uint8_t>();
    case DT_UINT16: return f.template operator()<uint16_t>();
    case DT_UINT32: return f.template operator()<uint32_t>();
    case DT_UINT64: return f.template operator()<uint64_t>();
    default:
      return Unimplemented(what, " of dtype ", DataTypeName(dtype));
  }
}

// AssignAddVariableOp / AssignSubVariableOp: the variable becomes a new buffer holding
// old (op) value, so no value read earlier changes.
template <template <typename> class Op>
Status UpdateVariable(const CoreKernelIo& io) {
  TG_ASSIGN_OR_RETURN(ResourceVariableHandle * h, HandleOf(io));
  const Tensor& value = io.in(1);
  TG_RETURN_IF_ERROR(CheckDtype(io, value.dtype()));
  std::lock_guard<std::mutex> lock(h->slot->mu);
  VariableSlot& slot = *h->slot;
  TG_RETURN_IF_ERROR(CheckInitialized(io, slot));
  if (slot.value.dtype() != value.dtype() || slot.value.dims() != value.dims()) {
    return InvalidArgument(Label(io), ": variable ", slot.name, " is ", DataTypeName(slot.value.dtype()), " ",
                           slot.value.shape().ToString(), " but the value is ", DataTypeName(value.dtype()), " ",
                           value.shape().ToString());
  }
  TG_ASSIGN_OR_RETURN(Tensor out, Tensor::AllocateUninitialized(value.dtype(), value.dims()));
  TG_RETURN_IF_ERROR(DispatchNumeric(value.dtype(), io.op().type().c_str(), [&]<typename T>() -> Status {
    const T* a = slot.value.flat<T>();
    const T* b = value.flat<T>();
    T* o = out.flat<T>();
    for (int64_t i = 0; i < out.NumElements(); ++i) o[i] = Op<T>::Apply(a[i], b[i]);
    return Status::OK();
  }));
  SetValue(slot, std::move(out));
  return Status::OK();
}

Status VarIsInitializedOp(const CoreKernelIo& io) {
  bool initialized = false;
  if (VariableSlot* slot = VariableOfHandle(io.in(0))) {
    std::lock_guard<std::mutex> lock(slot->mu);
    initialized = slot->initialized;
  }
  TG_ASSIGN_OR_RETURN(Tensor out, Tensor::AllocateUninitialized(DT_BOOL, {}));
  *out.flat<bool>() = initialized;
  io.out(0, std::move(out));
  return Status::OK();
}

// The variable's value goes and it reads as uninitialized again (the slot stays: a later
// AssignVariableOp through the same handle recreates it, as in TensorFlow). Destroying what
// does not exist fails unless ignore_lookup_error; other resources (a TensorArray) live as
// long as their handles and need no destroying.
Status DestroyResourceOp(const CoreKernelIo& io) {
  TG_ASSIGN_OR_RETURN(bool ignore, AttrBool(io, "ignore_lookup_error"));
  VariableSlot* slot = VariableOfHandle(io.in(0));
  if (slot == nullptr) {
    if (io.in(0).dtype() == DT_RESOURCE && io.in(0).data() != nullptr) return Status::OK();
    return InvalidArgument(Label(io), ": input 0 is not a resource handle");
  }
  std::lock_guard<std::mutex> lock(slot->mu);
  if (!slot->initialized) {
    if (ignore) return Status::OK();
    return NotFound(Label(io), ": resource variable ", slot->name, " does not exist");
  }
  BufferVersions::Drop(slot->value.buffer().get());
  slot->value = Tensor();
  slot->initialized = false;
  return Status::OK();
}

Status VariableShape(const CoreKernelIo& io) {
  TG_ASSIGN_OR_RETURN(ResourceVariableHandle * h, HandleOf(io));
  TG_ASSIGN_OR_RETURN(DataType out_type, AttrType(io, "out_type"));
  std::vector<int64_t> dims;
  {
    std::lock_guard<std::mutex> lock(h->slot->mu);
    TG_RETURN_IF_ERROR(CheckInitialized(io, *h->slot));
    dims = h->slot->value.dims();
  }
  TG_ASSIGN_OR_RETURN(Tensor out, Tensor::AllocateUninitialized(out_type, {static_cast<int64_t>(dims.size())}));
  for (size_t i = 0; i < dims.size(); ++i) {
    if (out_type == DT_INT32) {
      if (dims[i] > INT32_MAX) {
        return InvalidArgument(Label(io), ": dimension ", i, " (", dims[i], ") does not fit out_type int32");
      }
      out.flat<int32_t>()[i] = static_cast<int32_t>(dims[i]);
    } else {
      out.flat<int64_t>()[i] = dims[i];
    }
  }
  io.out(0, std::move(out));
  return Status::OK();
}

// ---- rows addressed by indices ----

// The indices as int64, each checked against `rows` before anything is read or written.
StatusOr<std::vector<int64_t>> RowIndices(const CoreKernelIo& io, const Tensor& t, int64_t rows) {
  if (t.dtype() != DT_INT32 && t.dtype() != DT_INT64) {
    return InvalidArgument(Label(io), ": indices must be int32 or int64, got ", DataTypeName(t.dtype()));
  }
  std::vector<int64_t> out(static_cast<size_t>(t.NumElements()));
  for (size_t i = 0; i < out.size(); ++i) {
    out[i] = t.dtype() == DT_INT32 ? int64_t{t.flat<int32_t>()[i]} : t.flat<int64_t>()[i];
    if (out[i] < 0 || out[i] >= rows) {
      return InvalidArgument(Label(io), ": indices[", i, "] = ", out[i], " is not in [0, ", rows, ")");
    }
  }
  return out;
}

// ResourceGather (batch_dims 0): output = indices.shape + var.shape[1:], row by row.
Status ResourceGather(const CoreKernelIo& io) {
  TG_ASSIGN_OR_RETURN(ResourceVariableHandle * h, HandleOf(io));
  TG_ASSIGN_OR_RETURN(int64_t batch_dims, AttrInt(io, "batch_dims"));
  if (batch_dims != 0) {
    return Unimplemented(Label(io), ": batch_dims = ", batch_dims, " (only 0 is supported here)");
  }
  const Tensor& indices = io.in(1);
  std::lock_guard<std::mutex> lock(h->slot->mu);
  const VariableSlot& slot = *h->slot;
  TG_RETURN_IF_ERROR(CheckInitialized(io, slot));
  TG_RETURN_IF_ERROR(CheckDtype(io, slot.value.dtype()));
  const Tensor& params = slot.value;
  if (params.rank() < 1) {
    return InvalidArgument(Label(io), ": variable ", slot.name, " must be at least rank 1, but has shape ",
                           params.shape().ToString());
  }
  if (params.dtype() != DT_STRING && !IsPlainDataType(params.dtype())) {
    return Unimplemented(Label(io), ": a variable of dtype ", DataTypeName(params.dtype()));
  }
  TG_ASSIGN_OR_RETURN(std::vector<int64_t> rows, RowIndices(io, indices, params.dims()[0]));
  std::vector<int64_t> dims = indices.dims();
  dims.insert(dims.end(), params.dims().begin() + 1, params.dims().end());
  TG_ASSIGN_OR_RETURN(Tensor out, Tensor::AllocateUninitialized(params.dtype(), dims));
  const int64_t row = params.dims()[0] == 0 ? 0 : params.NumElements() / params.dims()[0];
  for (size_t i = 0; i < rows.size(); ++i) {
    if (params.dtype() == DT_STRING) {
      for (int64_t k = 0; k < row; ++k) {
        out.strings()[i * static_cast<size_t>(row) + static_cast<size_t>(k)] =
            params.strings()[static_cast<size_t>(rows[i] * row + k)];
      }
    } else {
      const size_t bytes = static_cast<size_t>(row) * DataTypeSize(params.dtype());
      if (bytes != 0) {
        std::memcpy(static_cast<char*>(out.data()) + i * bytes,
                    static_cast<const char*>(params.data()) + static_cast<size_t>(rows[i]) * bytes, bytes);
      }
    }
  }
  io.out(0, std::move(out));
  return Status::OK();
}

// ResourceScatter{Update,Add,Sub}: var[indices[i], ...] op= updates[i, ...]
// in place (duplicates apply in order), updates being indices.shape + var.shape[1:] or a
// scalar for every element. Every index and the shapes are checked before the first write.
template <template <typename> class Op>
Status ResourceScatter(const CoreKernelIo& io) {
  TG_ASSIGN_OR_RETURN(ResourceVariableHandle * h, HandleOf(io));
  const Tensor& indices = io.in(1);
  const Tensor& updates = io.in(2);
  TG_RETURN_IF_ERROR(CheckDtype(io, updates.dtype()));
  std::lock_guard<std::mutex> lock(h->slot->mu);
  VariableSlot& slot = *h->slot;
  TG_RETURN_IF_ERROR(CheckInitialized(io, slot));
  Tensor& var = slot.value;
  if (var.dtype() != updates.dtype()) {
    return InvalidArgument(Label(io), ": variable ", slot.name, " is ", DataTypeName(var.dtype()),
                           ", the updates ", DataTypeName(updates.dtype()));
  }
  if (var.rank() < 1) {
    return InvalidArgument(Label(io), ": variable ", slot.name, " must be at least rank 1, but has shape ",
                           var.shape().ToString());
  }
  TG_ASSIGN_OR_RETURN(std::vector<int64_t> rows, RowIndices(io, indices, var.dims()[0]));
  std::vector<int64_t> want = indices.dims();
  want.insert(want.end(), var.dims().begin() + 1, var.dims().end());
  const bool scalar = updates.rank() == 0;
  if (!scalar && updates.dims() != want) {
    return InvalidArgument(Label(io), ": updates has shape ", updates.shape().ToString(),
                           " but must be a scalar or indices.shape + var.shape[1:] = ",
                           PartialShape(want).ToString());
  }
  const int64_t row = var.dims()[0] == 0 ? 0 : var.NumElements() / var.dims()[0];
  if constexpr (std::is_same_v<Op<int>, SetOp<int>>) {
    // An update of any dtype: rows of bytes (or strings) replaced.
    if (var.dtype() == DT_STRING) {
      for (size_t i = 0; i < rows.size(); ++i) {
        for (int64_t k = 0; k < row; ++k) {
          var.strings()[static_cast<size_t>(rows[i] * row + k)] =
              updates.strings()[scalar ? 0 : i * static_cast<size_t>(row) + static_cast<size_t>(k)];
        }
      }
    } else if (!IsPlainDataType(var.dtype())) {
      return Unimplemented(Label(io), " of dtype ", DataTypeName(var.dtype()));
    } else {
      const size_t size = DataTypeSize(var.dtype());
      char* v = static_cast<char*>(var.data());
      const char* u = static_cast<const char*>(updates.data());
      for (size_t i = 0; i < rows.size(); ++i) {
        for (int64_t k = 0; k < row; ++k) {
          const size_t from = scalar ? 0 : (i * static_cast<size_t>(row) + static_cast<size_t>(k)) * size;
          std::memcpy(v + static_cast<size_t>(rows[i] * row + k) * size, u + from, size);
        }
      }
    }
  } else {
    TG_RETURN_IF_ERROR(DispatchNumeric(var.dtype(), io.op().type().c_str(), [&]<typename T>() -> Status {
      T* v = var.flat<T>();
      const T* u = updates.flat<T>();
      for (size_t i = 0; i < rows.size(); ++i) {
        T* dst = v + rows[i] * row;
        for (int64_t k = 0; k < row; ++k) {
          dst[k] = Op<T>::Apply(dst[k], scalar ? u[0] : u[static_cast<int64_t>(i) * row + k]);
        }
      }
      return Status::OK();
    }));
  }
  // Written in place: a new number, so no reader matches what it derived from the old bytes.
  BufferVersions::Touch(var.buffer());
  return Status::OK();
}

// VarHandleOp runs as a constant step (the plan makes its handle); this kernel only lets
// placement put it on the CPU and fails if anything ever calls it.
Status VarHandleOp(const CoreKernelIo& io) {
  return Internal(Label(io), ": a VarHandleOp runs as a plan step, not a kernel");
}

}  // namespace

std::vector<CoreKernel> ResourceVariableKernels() {
  return {
      {"VarHandleOp", VarHandleOp},
      {"ReadVariableOp", ReadVariableOp},
      {"AssignVariableOp", AssignVariableOp},
      {"AssignAddVariableOp", UpdateVariable<AddOp>},
      {"AssignSubVariableOp", UpdateVariable<SubOp>},
      {"VarIsInitializedOp", VarIsInitializedOp},
      {"DestroyResourceOp", DestroyResourceOp},
      {"VariableShape", VariableShape},
      {"ResourceGather", ResourceGather},
      {"ResourceScatterUpdate", ResourceScatter<SetOp>},
      {"ResourceScatterAdd", ResourceScatter<AddOp>},
      {"ResourceScatterSub", ResourceScatter<SubOp>},
  };
}

}  // namespace tgraph
