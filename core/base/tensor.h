// A host tensor: dtype, fully defined shape and a reference-counted buffer. Plain dtypes keep
// their elements in the buffer (row-major, host byte order); DT_STRING keeps one std::string
// per element. Copies share the buffer.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/base/dtype.h"
#include "core/base/shape.h"
#include "core/base/status.h"

namespace tgraph {

// Memory for a tensor's elements, freed through the function that came with it.
class TensorBuffer {
 public:
  using Deallocator = std::function<void(void* data, size_t size)>;
  TensorBuffer(void* data, size_t size, Deallocator deallocator)
      : data_(data), size_(size), deallocator_(std::move(deallocator)) {}
  // Zeroed storage of `size` <= kInlineBytes bytes inside the object itself: with
  // make_shared a small tensor (a scalar, a short vector) costs one allocation, not two.
  static constexpr size_t kInlineBytes = 16;
  explicit TensorBuffer(size_t size) : data_(inline_), size_(size) {}
  ~TensorBuffer() {
    if (deallocator_) deallocator_(data_, size_);
  }
  TensorBuffer(const TensorBuffer&) = delete;
  TensorBuffer& operator=(const TensorBuffer&) = delete;

  void* data() const { return data_; }
  size_t size() const { return size_; }

  // Owned, zeroed memory, 64-byte aligned (Eigen and SIMD kernels want the alignment);
  // buffers of at most kInlineBytes are inline and 16-byte aligned, which no vector load
  // of such a small buffer can exceed.
  // `zero` false leaves the bytes unset (debug builds fill them with 0xA5).
  static std::shared_ptr<TensorBuffer> Allocate(size_t size, bool zero = true);

 private:
  void* data_;
  size_t size_;
  Deallocator deallocator_;
  alignas(16) unsigned char inline_[kInlineBytes] = {};
};

class Tensor {
 public:
  Tensor() = default;  // DT_INVALID, no elements

  // Allocates zero-filled storage (empty strings for DT_STRING). Fails on an invalid dtype,
  // a negative dim, or a size that overflows.
  static StatusOr<Tensor> Allocate(DataType dtype, std::vector<int64_t> dims);
  // As Allocate, but a plain dtype's bytes are left unset: for kernel outputs and
  // temporaries, which kernels overwrite in full (zeroing a large output costs as much as
  // an elementwise op). Debug builds, the sanitizer stage among them, fill the bytes with
  // 0xA5 instead, so a kernel that reads what it never wrote fails its tests.
  static StatusOr<Tensor> AllocateUninitialized(DataType dtype, std::vector<int64_t> dims);
  // Adopts memory owned by the caller's deallocator; `size` must equal the shape's byte size.
  static StatusOr<Tensor> Wrap(DataType dtype, std::vector<int64_t> dims,
                               std::shared_ptr<TensorBuffer> buffer);

  DataType dtype() const { return dtype_; }
  const std::vector<int64_t>& dims() const { return dims_; }
  int rank() const { return static_cast<int>(dims_.size()); }
  int64_t NumElements() const { return num_elements_; }
  PartialShape shape() const { return PartialShape(dims_); }

  // Plain dtypes: the element bytes. DT_STRING: nullptr (use strings()).
  void* data() const { return buffer_ ? buffer_->data() : nullptr; }
  size_t ByteSize() const { return buffer_ ? buffer_->size() : 0; }
  template <typename T>
  T* flat() const { return static_cast<T*>(data()); }
  const std::shared_ptr<TensorBuffer>& buffer() const { return buffer_; }

  // Hands the buffer to the caller, its new owner, while this tensor keeps reading the same
  // bytes through a view that owns nothing and must not outlive the new owner. Forwarding
  // a kernel's input to its output uses it: the input stays readable while the kernel
  // computes, and no reference count is touched on the way.
  std::shared_ptr<TensorBuffer> TakeBufferLeavingView();
  // The same for a whole tensor of this dtype and shape: the returned tensor owns the
  // buffer, this one keeps reading it as a view. (Forwarding with an unchanged shape: no
  // shape is re-validated, since this one's already was.)
  Tensor TakeLeavingView();
  // As `*owner = TakeLeavingView()`, written into `owner` in place.
  // Inline, with no temporaries: the kernel-call path runs it once per forwarded output.
  void TakeLeavingViewInto(Tensor* owner) {
    owner->dtype_ = dtype_;
    if (dims_.empty()) {
      owner->dims_.clear();  // scalars: no call into vector's copy-assignment
    } else {
      owner->dims_ = dims_;
    }
    owner->num_elements_ = num_elements_;
    owner->buffer_ = std::move(buffer_);
    // A view: an alias of no control block (use_count() 0), as IsBorrowedView expects.
    buffer_ = std::shared_ptr<TensorBuffer>(std::shared_ptr<TensorBuffer>(), owner->buffer_.get());
    if (strings_ != owner->strings_) owner->strings_ = strings_;
  }
  // A copy that reads this tensor's bytes without owning them (no reference count changes
  // when it is copied); it must not outlive this tensor. Strings are shared as usual.
  Tensor BorrowedView() const;
  // Makes this a view of `owner` (as `*this = owner.BorrowedView()`, in place).
  void BorrowFrom(const Tensor& owner);
  // Is this such a view (a buffer it reads but does not own)?
  bool IsBorrowedView() const { return buffer_ != nullptr && buffer_.use_count() == 0; }

  // Back to an empty DT_INVALID tensor, as `*this = Tensor()` but in place (the executor
  // clears every kernel's inputs after each call). The dims' capacity is kept for reuse.
  void Clear() {
    dtype_ = DT_INVALID;
    dims_.clear();
    num_elements_ = 0;
    buffer_.reset();
    strings_.reset();
  }

  // DT_STRING elements, row-major.
  std::vector<std::string>& strings() { return *strings_; }
  const std::vector<std::string>& strings() const { return *strings_; }

  // Element-wise equality of dtype, shape and contents (tests and constant folding).
  bool Equals(const Tensor& other) const;
  // A short human-readable summary: "float [2,3] {1, 2, 3, ...}".
  std::string DebugString(int max_elements = 8) const;

 private:
  static StatusOr<Tensor> AllocateImpl(DataType dtype, std::vector<int64_t> dims, bool zero);

  DataType dtype_ = DT_INVALID;
  std::vector<int64_t> dims_;
  int64_t num_elements_ = 0;
  std::shared_ptr<TensorBuffer> buffer_;
  std::shared_ptr<std::vector<std::string>> strings_;
};

// Number of elements of `dims`, or an error naming the offending dim / overflow.
StatusOr<int64_t> NumElementsOf(const std::vector<int64_t>& dims);

}  // namespace tgraph
