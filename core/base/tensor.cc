#include "core/base/tensor.h"

#include <complex>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>
#include <string>

#include "core/base/allocation_faults.h"
#include "core/base/buffer_pool.h"
#include "core/base/memory_account.h"
#include "core/base/memory_limit.h"
#include "core/base/tensor_limits.h"

namespace tgraph {

std::shared_ptr<TensorBuffer> TensorBuffer::Allocate(size_t size, bool zero) {
  if (ConsumeTensorAllocationFault()) return nullptr;
  if (size <= TensorBuffer::kInlineBytes) return std::make_shared<TensorBuffer>(size);
  constexpr size_t kAlignment = 64;
  // Rounding up must not wrap around to a tiny allocation that memset then overruns.
  if (size > std::numeric_limits<size_t>::max() - kAlignment) return nullptr;
  // Large buffers come from the pool (buffer_pool.h: reused across steps, page-aligned);
  // smaller ones from malloc, whose arenas serve them well.
  BufferPool* pool = size >= BufferPool::kMinBytes ? BufferPool::Global() : nullptr;
  void* data = nullptr;
  bool fresh = false;
  if (pool != nullptr) {
    data = pool->Get(size, &fresh);
  } else {
    const size_t rounded = (size + kAlignment - 1) / kAlignment * kAlignment;
    data = std::aligned_alloc(kAlignment, rounded);
  }
  if (data == nullptr) return nullptr;
#ifdef NDEBUG
  if (zero && !fresh) std::memset(data, 0, size);  // fresh mappings are zeroed already
#else
  std::memset(data, zero ? 0 : 0xA5, size);
#endif
  auto release = [pool](void* p, size_t bytes) {
    if (pool != nullptr) {
      pool->Put(p, bytes);
    } else {
      std::free(p);
    }
  };
  // The buffer object itself may fail to allocate: then `data` is freed here, not leaked.
  try {
    if (const std::shared_ptr<MemoryAccount>* account = CurrentMemoryAccount()) {
      auto buffer = std::make_shared<TensorBuffer>(
          data, size, [account = *account, release](void* p, size_t bytes) {
            release(p, bytes);
            account->Credit(static_cast<int64_t>(bytes));
          });
      (*account)->Charge(static_cast<int64_t>(size));
      return buffer;
    }
    return std::make_shared<TensorBuffer>(data, size, release);
  } catch (const std::bad_alloc&) {
    release(data, size);
    return nullptr;
  }
}

StatusOr<int64_t> NumElementsOf(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < 0) return InvalidArgument("dimension ", i, " is ", dims[i], "; must be >= 0");
    if (dims[i] != 0 && n > std::numeric_limits<int64_t>::max() / dims[i]) {
      return InvalidArgument("tensor shape ", PartialShape(dims).ToString(),
                             " has too many elements");
    }
    n *= dims[i];
  }
  return n;
}

uint64_t MaxTensorBytes() {
  static const uint64_t limit = MemoryLimitFromEnvironment("TGRAPH_MAX_TENSOR_BYTES");
  return limit;
}

namespace {
Status TooLarge(DataType dtype, const std::vector<int64_t>& dims, uint64_t bytes) {
  std::string why = bytes == std::numeric_limits<uint64_t>::max()
                        ? std::string("more bytes than a size_t holds")
                        : std::to_string(bytes) + " bytes";
  return ResourceExhausted("a ", DataTypeName(dtype), " tensor of shape ",
                           PartialShape(dims).ToString(), " needs ", why,
                           ", over the limit of ", MaxTensorBytes(),
                           " bytes (physical memory, or TGRAPH_MAX_TENSOR_BYTES)");
}
}  // namespace

StatusOr<Tensor> Tensor::Allocate(DataType dtype, std::vector<int64_t> dims) {
  return AllocateImpl(dtype, std::move(dims), /*zero=*/true);
}

StatusOr<Tensor> Tensor::AllocateUninitialized(DataType dtype, std::vector<int64_t> dims) {
  return AllocateImpl(dtype, std::move(dims), /*zero=*/false);
}

StatusOr<Tensor> Tensor::AllocateImpl(DataType dtype, std::vector<int64_t> dims, bool zero) {
  if (!IsValidDataType(dtype) || IsRefType(dtype)) {
    return InvalidArgument("cannot allocate a tensor of dtype ", DataTypeName(dtype));
  }
  TG_ASSIGN_OR_RETURN(int64_t n, NumElementsOf(dims));
  Tensor t;
  t.dtype_ = dtype;
  t.dims_ = std::move(dims);
  t.num_elements_ = n;
  const size_t elem = dtype == DT_STRING ? sizeof(std::string) : DataTypeSize(dtype);
  if (elem == 0) return Unimplemented("tensors of dtype ", DataTypeName(dtype), " are not supported");
  const uint64_t bytes = static_cast<uint64_t>(n) > std::numeric_limits<size_t>::max() / elem
                             ? std::numeric_limits<uint64_t>::max()
                             : static_cast<uint64_t>(n) * elem;
  if (bytes > MaxTensorBytes()) return TooLarge(dtype, t.dims_, bytes);
  if (dtype == DT_STRING) {
    try {
      t.strings_ = std::make_shared<std::vector<std::string>>(static_cast<size_t>(n));
    } catch (const std::bad_alloc&) {
      return ResourceExhausted("out of memory allocating a string tensor of shape ",
                               PartialShape(t.dims_).ToString());
    }
    return t;
  }
  t.buffer_ = TensorBuffer::Allocate(static_cast<size_t>(bytes), zero);
  if (!t.buffer_) return ResourceExhausted("out of memory allocating ", n * elem, " bytes");
  return t;
}

namespace {
// Points at `buffer` with no control block: copying it touches no reference count, and its
// use_count() is 0, which is how IsBorrowedView tells it from an owner.
std::shared_ptr<TensorBuffer> Unowned(TensorBuffer* buffer) {
  return std::shared_ptr<TensorBuffer>(std::shared_ptr<TensorBuffer>(), buffer);
}
}  // namespace

Tensor Tensor::BorrowedView() const {
  Tensor view;
  view.BorrowFrom(*this);
  return view;
}

void Tensor::BorrowFrom(const Tensor& owner) {
  dtype_ = owner.dtype_;
  dims_ = owner.dims_;
  num_elements_ = owner.num_elements_;
  if (owner.buffer_) {
    buffer_ = Unowned(owner.buffer_.get());
  } else {
    buffer_.reset();
  }
  strings_ = owner.strings_;
}

std::shared_ptr<TensorBuffer> Tensor::TakeBufferLeavingView() {
  std::shared_ptr<TensorBuffer> owned = std::move(buffer_);
  buffer_ = Unowned(owned.get());
  return owned;
}

Tensor Tensor::TakeLeavingView() {
  Tensor owner;
  TakeLeavingViewInto(&owner);
  return owner;
}

StatusOr<Tensor> Tensor::Wrap(DataType dtype, std::vector<int64_t> dims,
                              std::shared_ptr<TensorBuffer> buffer) {
  // A variant or resource scalar is an object (core/exec/host_object.h): a buffer of no
  // bytes whose data is the object and whose deallocator deletes it.
  if ((dtype == DT_VARIANT || dtype == DT_RESOURCE) && dims.empty()) {
    if (!buffer || buffer->size() != 0 || buffer->data() == nullptr) {
      return InvalidArgument("a ", DataTypeName(dtype), " scalar wraps an object");
    }
    Tensor t;
    t.dtype_ = dtype;
    t.num_elements_ = 1;
    t.buffer_ = std::move(buffer);
    return t;
  }
  if (!IsPlainDataType(dtype) || IsRefType(dtype)) {
    return InvalidArgument("cannot wrap memory as a tensor of dtype ", DataTypeName(dtype));
  }
  TG_ASSIGN_OR_RETURN(int64_t n, NumElementsOf(dims));
  // An overflowing product could wrap around to match a small buffer.
  if (static_cast<uint64_t>(n) > std::numeric_limits<size_t>::max() / DataTypeSize(dtype)) {
    return InvalidArgument("tensor of ", n, " elements is too large");
  }
  size_t want = static_cast<size_t>(n) * DataTypeSize(dtype);
  if (!buffer || buffer->size() != want) {
    return InvalidArgument("buffer of ", buffer ? buffer->size() : 0, " bytes does not hold a ",
                           DataTypeName(dtype), " tensor of shape ", PartialShape(dims).ToString(),
                           " (", want, " bytes)");
  }
  Tensor t;
  t.dtype_ = dtype;
  t.dims_ = std::move(dims);
  t.num_elements_ = n;
  t.buffer_ = std::move(buffer);
  return t;
}

bool Tensor::Equals(const Tensor& other) const {
  if (dtype_ != other.dtype_ || dims_ != other.dims_) return false;
  if (dtype_ == DT_STRING) return *strings_ == *other.strings_;
  if (ByteSize() != other.ByteSize()) return false;
  return ByteSize() == 0 || std::memcmp(data(), other.data(), ByteSize()) == 0;
}

namespace {

template <typename T>
void AppendValues(std::ostringstream& os, const void* data, int64_t count) {
  const T* p = static_cast<const T*>(data);
  for (int64_t i = 0; i < count; ++i) {
    if (i) os << ", ";
    if constexpr (sizeof(T) == 1 && std::is_integral_v<T>) {
      os << static_cast<int>(p[i]);
    } else {
      os << p[i];
    }
  }
}

}  // namespace

std::string Tensor::DebugString(int max_elements) const {
  std::ostringstream os;
  os << DataTypeName(dtype_) << " " << PartialShape(dims_).ToString() << " {";
  int64_t count = std::min<int64_t>(num_elements_, max_elements);
  switch (dtype_) {
    case DT_FLOAT: AppendValues<float>(os, data(), count); break;
    case DT_DOUBLE: AppendValues<double>(os, data(), count); break;
    case DT_INT32: AppendValues<int32_t>(os, data(), count); break;
    case DT_INT64: AppendValues<int64_t>(os, data(), count); break;
    case DT_INT16: AppendValues<int16_t>(os, data(), count); break;
    case DT_INT8: AppendValues<int8_t>(os, data(), count); break;
    case DT_UINT8: AppendValues<uint8_t>(os, data(), count); break;
    case DT_UINT16: AppendValues<uint16_t>(os, data(), count); break;
    case DT_UINT32: AppendValues<uint32_t>(os, data(), count); break;
    case DT_UINT64: AppendValues<uint64_t>(os, data(), count); break;
    case DT_BOOL: AppendValues<bool>(os, data(), count); break;
    case DT_STRING:
      for (int64_t i = 0; i < count; ++i) os << (i ? ", \"" : "\"") << (*strings_)[i] << "\"";
      break;
    default: os << "..."; count = num_elements_; break;
  }
  if (count < num_elements_) os << ", ...";
  os << "}";
  return os.str();
}

}  // namespace tgraph
