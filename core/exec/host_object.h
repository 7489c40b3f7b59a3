// Values that are C++ objects rather than elements: a TensorList (a DT_VARIANT scalar) and
// a TensorArray's handle (a DT_RESOURCE scalar). The tensor's buffer points at the object
// and deletes it when the last copy of the tensor goes (Tensor::Wrap accepts such scalars:
// a buffer of size 0 whose data is the object), so a list or array lives exactly as long
// as some value refers to it — across iterations, frames and runs alike — and nothing is
// left behind in the session.
#pragma once

#include <memory>
#include <vector>

#include "core/base/status.h"
#include "core/base/tensor.h"

namespace tgraph {

class HostObject {
 public:
  virtual ~HostObject() = default;
  // A copy of a value object (a TensorList: kept beyond a call that only borrowed it, as a
  // stack push does); null for an object with reference semantics (a TensorArray).
  virtual std::unique_ptr<HostObject> Clone() const { return nullptr; }
};

// A scalar of `dtype` (DT_VARIANT or DT_RESOURCE) owning `object`.
StatusOr<Tensor> MakeObjectTensor(DataType dtype, std::unique_ptr<HostObject> object);

// The object behind `t` as a T, or null when `t` is not a scalar of `dtype` holding one.
template <typename T>
T* ObjectOf(const Tensor& t, DataType dtype) {
  if (t.dtype() != dtype || t.rank() != 0 || t.data() == nullptr) return nullptr;
  return dynamic_cast<T*>(static_cast<HostObject*>(t.data()));
}

// A tensor that owns its elements: `t` itself when it already does (sharing the buffer),
// a copy when `t` only borrows them (a run's slot read in place, a constant's view), which
// must not be kept beyond the call.
StatusOr<Tensor> OwnedCopy(const Tensor& t);

// Element helpers for the list and array kernels (any dtype but resource and variant).
// Slice i of `t` along dim 0.
StatusOr<Tensor> SliceRow(const Tensor& t, int64_t i);
// `rows` (each of shape `elem`) stacked along a new dim 0: shape [rows.size()] + elem.
// A row that is DT_INVALID (never written) reads as zeros.
StatusOr<Tensor> StackRows(DataType dtype, const std::vector<int64_t>& elem,
                           const std::vector<const Tensor*>& rows);
// Zeros of `dtype` and `dims`.
StatusOr<Tensor> Zeros(DataType dtype, const std::vector<int64_t>& dims);
// a + b elementwise (same dtype and shape; float, double, half-free numeric types).
StatusOr<Tensor> AddTensors(const Tensor& a, const Tensor& b);

}  // namespace tgraph
