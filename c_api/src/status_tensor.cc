// TG_Status, TG_Buffer, data types, TG_Tensor, TG_Version, and the helpers shared by the
// other c_api sources.
#include <array>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "c_api/src/c_api_internal.h"

using namespace tgraph;
using namespace tgraph::capi;

namespace tgraph::capi {

Status CheckOutput(const char* fn, const Graph* g, TG_Output o) {
  if (o.oper == nullptr) return InvalidArgument(fn, ": the tensor's operation is NULL");
  const Operation* op = ToOp(o.oper);
  if (g != nullptr && op->graph() != g) {
    return InvalidArgument(fn, ": tensor '", op->name(), ":", o.index, "' is not in this graph");
  }
  if (o.index < 0 || o.index >= op->num_outputs()) {
    return OutOfRange(fn, ": operation '", op->name(), "' has ", op->num_outputs(),
                      " output(s); there is no output ", o.index);
  }
  return Status::OK();
}

namespace {
void FreeLibraryBytes(void* data, size_t) { std::free(data); }
}  // namespace

Status FillBuffer(TG_Buffer* buffer, const std::string& bytes) {
  if (buffer == nullptr) return InvalidArgument("the output TG_Buffer is NULL");
  // malloc(0) may return NULL; always ask for at least one byte.
  void* copy = std::malloc(bytes.size() == 0 ? 1 : bytes.size());
  if (copy == nullptr) return ResourceExhausted("out of memory allocating ", bytes.size(), " bytes");
  if (!bytes.empty()) std::memcpy(copy, bytes.data(), bytes.size());
  if (buffer->data_deallocator != nullptr) {
    buffer->data_deallocator(const_cast<void*>(buffer->data), buffer->length);
  }
  buffer->data = copy;
  buffer->length = bytes.size();
  buffer->data_deallocator = FreeLibraryBytes;
  return Status::OK();
}

Status ShapeFromDims(const char* what, const int64_t* dims, int num_dims, PartialShape* out) {
  if (num_dims == -1) {
    *out = PartialShape::Unknown();
    return Status::OK();
  }
  if (num_dims < -1) return InvalidArgument(what, ": num_dims is ", num_dims, " (must be >= -1)");
  if (num_dims > 0 && dims == nullptr) return InvalidArgument(what, ": dims is NULL");
  std::vector<int64_t> v(dims, dims + num_dims);
  for (int i = 0; i < num_dims; ++i) {
    if (v[static_cast<size_t>(i)] < -1) {
      return InvalidArgument(what, ": dim ", i, " is ", v[static_cast<size_t>(i)],
                             " (must be >= -1; -1 means unknown)");
    }
  }
  *out = PartialShape(std::move(v));
  return Status::OK();
}

}  // namespace tgraph::capi

// ---- version ----

extern "C" const char* TG_Version(void) {
  return TGRAPH_VERSION_STRING;
}

// ---- status ----

extern "C" TG_Status* TG_NewStatus(void) { return new (std::nothrow) TG_Status(); }

extern "C" void TG_DeleteStatus(TG_Status* s) { delete s; }

extern "C" void TG_SetStatus(TG_Status* s, TG_Code code, const char* msg) {
  if (s == nullptr) return;
  int c = EnumValue(code);
  if (c < 0 || c > 16) c = static_cast<int>(Code::kUnknown);
  NoThrow(0, [&] {
    s->status = Status(static_cast<Code>(c), Str(msg));
    return 0;
  });
}

extern "C" TG_Code TG_GetCode(const TG_Status* s) {
  return s == nullptr ? TG_OK : static_cast<TG_Code>(s->status.code());
}

extern "C" const char* TG_Message(const TG_Status* s) {
  return s == nullptr ? "" : s->status.message().c_str();
}

extern "C" const char* TG_CodeName(TG_Code code) {
  int c = EnumValue(code);
  if (c < 0 || c > 16) return "UNKNOWN_CODE";
  return tgraph::CodeName(static_cast<Code>(c));
}

// ---- data types ----

extern "C" size_t TG_DataTypeSize(TG_DataType dt) {
  int v = EnumValue(dt);
  return IsValidDataType(v) ? DataTypeSize(static_cast<DataType>(v)) : 0;
}

extern "C" const char* TG_DataTypeName(TG_DataType dt) {
  // Names for 0..133, built once (thread-safe static initialisation).
  static const std::array<std::string, 134>* names = [] {
    auto* table = new std::array<std::string, 134>();
    for (int v = 0; v < 134; ++v) {
      if (v == 0 || IsValidDataType(v)) (*table)[static_cast<size_t>(v)] = DataTypeName(static_cast<DataType>(v));
    }
    return table;
  }();
  int v = EnumValue(dt);
  if (v < 0 || v >= 134 || (*names)[static_cast<size_t>(v)].empty()) return nullptr;
  return (*names)[static_cast<size_t>(v)].c_str();
}

// ---- buffers ----

extern "C" TG_Buffer* TG_NewBuffer(void) {
  auto* b = static_cast<TG_Buffer*>(std::calloc(1, sizeof(TG_Buffer)));
  return b;
}

extern "C" TG_Buffer* TG_NewBufferFromString(const void* proto, size_t proto_len) {
  TG_Buffer* b = TG_NewBuffer();
  if (b == nullptr) return nullptr;
  if (proto == nullptr && proto_len > 0) proto_len = 0;
  Status st = NoThrow(ResourceExhausted("out of memory"), [&] {
    return FillBuffer(b, std::string(static_cast<const char*>(proto), proto_len));
  });
  if (!st.ok()) {
    std::free(b);
    return nullptr;
  }
  return b;
}

extern "C" void TG_DeleteBuffer(TG_Buffer* buffer) {
  if (buffer == nullptr) return;
  if (buffer->data_deallocator != nullptr) {
    buffer->data_deallocator(const_cast<void*>(buffer->data), buffer->length);
  }
  std::free(buffer);
}

extern "C" TG_Buffer TG_GetBuffer(TG_Buffer* buffer) {
  if (buffer == nullptr) return TG_Buffer{nullptr, 0, nullptr};
  return *buffer;
}

// ---- tensors ----

namespace {

Status DimsVector(const int64_t* dims, int num_dims, std::vector<int64_t>* out) {
  if (num_dims < 0) return InvalidArgument("num_dims is ", num_dims, " (must be >= 0)");
  if (num_dims > 0 && dims == nullptr) return InvalidArgument("dims is NULL");
  out->assign(dims, dims + num_dims);
  return Status::OK();
}

bool IsTensorDataType(int v) { return IsValidDataType(v) && !IsRefType(static_cast<DataType>(v)); }

}  // namespace

extern "C" TG_Tensor* TG_AllocateTensor(TG_DataType dtype, const int64_t* dims, int num_dims,
                                        size_t len) {
  return NoThrow<TG_Tensor*>(nullptr, [&]() -> TG_Tensor* {
    std::vector<int64_t> d;
    const int dtype_value = EnumValue(dtype);
    if (!IsTensorDataType(dtype_value)) return nullptr;
    if (!DimsVector(dims, num_dims, &d).ok()) return nullptr;
    DataType dt = static_cast<DataType>(dtype_value);
    if (dt == DT_STRING) {
      if (len != 0) return nullptr;
    } else {
      if (!IsPlainDataType(dt)) return nullptr;
      auto n = NumElementsOf(d);
      if (!n.ok()) return nullptr;
      uint64_t elems = static_cast<uint64_t>(n.value());
      if (elems > std::numeric_limits<size_t>::max() / DataTypeSize(dt)) return nullptr;
      if (elems * DataTypeSize(dt) != len) return nullptr;
    }
    auto t = Tensor::Allocate(dt, std::move(d));
    if (!t.ok()) return nullptr;
    return new TG_Tensor{std::move(t).value()};
  });
}

extern "C" TG_Tensor* TG_NewTensor(TG_DataType dtype, const int64_t* dims, int num_dims,
                                   void* data, size_t len,
                                   void (*deallocator)(void* data, size_t len, void* arg),
                                   void* deallocator_arg) {
  // Until the buffer owns the data, this guard is responsible for calling the deallocator.
  struct Release {
    void (*fn)(void*, size_t, void*);
    void* data;
    size_t len;
    void* arg;
    ~Release() {
      if (fn != nullptr) fn(data, len, arg);
    }
  } release{deallocator, data, len, deallocator_arg};

  return NoThrow<TG_Tensor*>(nullptr, [&]() -> TG_Tensor* {
    std::vector<int64_t> d;
    const int dtype_value = EnumValue(dtype);
    if (!IsTensorDataType(dtype_value)) return nullptr;
    DataType dt = static_cast<DataType>(dtype_value);
    if (!IsPlainDataType(dt)) return nullptr;
    if (!DimsVector(dims, num_dims, &d).ok()) return nullptr;
    auto n = NumElementsOf(d);
    if (!n.ok()) return nullptr;
    uint64_t elems = static_cast<uint64_t>(n.value());
    if (elems > std::numeric_limits<size_t>::max() / DataTypeSize(dt)) return nullptr;
    if (elems * DataTypeSize(dt) != len) return nullptr;
    if (len > 0 && data == nullptr) return nullptr;

    std::shared_ptr<TensorBuffer> buffer;
    if (reinterpret_cast<uintptr_t>(data) % 64 != 0 && len > 0) {
      // Unaligned: copy into aligned storage; the guard frees the caller's data on return.
      buffer = TensorBuffer::Allocate(len);
      if (!buffer) return nullptr;
      std::memcpy(buffer->data(), data, len);
    } else {
      auto fn = release.fn;
      void* arg = release.arg;
      buffer = std::make_shared<TensorBuffer>(data, len, [fn, arg](void* p, size_t size) {
        if (fn != nullptr) fn(p, size, arg);
      });
      release.fn = nullptr;  // the buffer owns the data now
    }
    auto t = Tensor::Wrap(dt, std::move(d), std::move(buffer));
    if (!t.ok()) return nullptr;  // the buffer (if it owns the data) runs the deallocator
    return new TG_Tensor{std::move(t).value()};
  });
}

extern "C" TG_Tensor* TG_NewStringTensor(const int64_t* dims, int num_dims,
                                         const char* const* strs, const size_t* lens,
                                         TG_Status* status) {
  return GuardValue<TG_Tensor*>(status, nullptr, [&](TG_Tensor** out) -> Status {
    std::vector<int64_t> d;
    TG_RETURN_IF_ERROR(DimsVector(dims, num_dims, &d).Prepend("TG_NewStringTensor: "));
    TG_ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(DT_STRING, std::move(d)));
    int64_t n = t.NumElements();
    if (n > 0 && (strs == nullptr || lens == nullptr)) {
      return NullArg("TG_NewStringTensor", strs == nullptr ? "strs" : "lens");
    }
    for (int64_t i = 0; i < n; ++i) {
      size_t k = static_cast<size_t>(i);
      if (strs[k] == nullptr && lens[k] > 0) {
        return InvalidArgument("TG_NewStringTensor: string ", i, " is NULL with length ", lens[k]);
      }
      if (lens[k] > 0) t.strings()[k].assign(strs[k], lens[k]);
    }
    *out = new TG_Tensor{std::move(t)};
    return Status::OK();
  });
}

extern "C" void TG_TensorGetString(const TG_Tensor* t, int64_t index, const char** data,
                                   size_t* len, TG_Status* status) {
  Guard(status, [&]() -> Status {
    if (t == nullptr) return NullArg("TG_TensorGetString", "the tensor");
    if (data == nullptr || len == nullptr) return NullArg("TG_TensorGetString", "data or len");
    if (t->tensor.dtype() != DT_STRING) {
      return InvalidArgument("TG_TensorGetString: the tensor is ", DataTypeName(t->tensor.dtype()),
                             ", not string");
    }
    if (index < 0 || index >= t->tensor.NumElements()) {
      return OutOfRange("TG_TensorGetString: index ", index, " is out of range for a tensor of ",
                        t->tensor.NumElements(), " element(s)");
    }
    const std::string& s = t->tensor.strings()[static_cast<size_t>(index)];
    *data = s.data();
    *len = s.size();
    return Status::OK();
  });
}

extern "C" void TG_DeleteTensor(TG_Tensor* t) { delete t; }

extern "C" TG_DataType TG_TensorType(const TG_Tensor* t) {
  return t == nullptr ? TG_INVALID_DTYPE : static_cast<TG_DataType>(t->tensor.dtype());
}

extern "C" int TG_NumDims(const TG_Tensor* t) { return t == nullptr ? 0 : t->tensor.rank(); }

extern "C" int64_t TG_Dim(const TG_Tensor* t, int dim_index) {
  if (t == nullptr || dim_index < 0 || dim_index >= t->tensor.rank()) return -1;
  return t->tensor.dims()[static_cast<size_t>(dim_index)];
}

extern "C" size_t TG_TensorByteSize(const TG_Tensor* t) {
  if (t == nullptr || t->tensor.dtype() == DT_STRING) return 0;
  return t->tensor.ByteSize();
}

extern "C" void* TG_TensorData(const TG_Tensor* t) {
  if (t == nullptr || t->tensor.dtype() == DT_STRING) return nullptr;
  return t->tensor.data();
}

extern "C" int64_t TG_TensorElementCount(const TG_Tensor* t) {
  return t == nullptr ? 0 : t->tensor.NumElements();
}

extern "C" TG_Tensor* TG_NewTensorFromCopy(TG_DataType dtype, const int64_t* dims, int num_dims,
                                           const void* data, size_t len) {
  const int dtype_value = EnumValue(dtype);
  if (!IsTensorDataType(dtype_value) || dtype_value == TG_STRING || (data == nullptr && len > 0)) {
    return nullptr;
  }
  // Passed on only once valid: copying an out-of-range enum by value is undefined behaviour.
  TG_Tensor* t = TG_AllocateTensor(static_cast<TG_DataType>(dtype_value), dims, num_dims, len);
  if (t != nullptr && len > 0) std::memcpy(t->tensor.data(), data, len);
  return t;
}

extern "C" int TG_TensorDescribe(const TG_Tensor* t, TG_DataType* dtype, int64_t* dims,
                                 int max_dims, void** data) {
  if (t == nullptr) return -1;
  const int rank = t->tensor.rank();
  if (dtype != nullptr) *dtype = static_cast<TG_DataType>(t->tensor.dtype());
  if (dims != nullptr) {
    for (int i = 0; i < rank && i < max_dims; ++i) {
      dims[i] = t->tensor.dims()[static_cast<size_t>(i)];
    }
  }
  if (data != nullptr) *data = t->tensor.dtype() == DT_STRING ? nullptr : t->tensor.data();
  return rank;
}
