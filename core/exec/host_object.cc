#include "core/exec/host_object.h"

#include <cstring>
#include <string>

#include "core/base/dtype.h"

namespace tgraph {

StatusOr<Tensor> MakeObjectTensor(DataType dtype, std::unique_ptr<HostObject> object) {
  HostObject* raw = object.release();
  auto buffer = std::make_shared<TensorBuffer>(
      raw, 0, [](void* p, size_t) { delete static_cast<HostObject*>(p); });
  return Tensor::Wrap(dtype, {}, std::move(buffer));
}

StatusOr<Tensor> OwnedCopy(const Tensor& t) {
  if (!t.IsBorrowedView()) return t;
  if (t.dtype() == DT_VARIANT || t.dtype() == DT_RESOURCE) {
    // A borrowed object: its bytes are not the value, a clone of the object is.
    const auto* object = t.data() != nullptr && t.rank() == 0 ? static_cast<const HostObject*>(t.data()) : nullptr;
    std::unique_ptr<HostObject> clone = object != nullptr ? object->Clone() : nullptr;
    if (clone == nullptr) {
      return Unimplemented("a borrowed ", DataTypeName(t.dtype()), " value that is not a TensorList cannot be kept");
    }
    return MakeObjectTensor(t.dtype(), std::move(clone));
  }
  TG_ASSIGN_OR_RETURN(Tensor copy, Tensor::AllocateUninitialized(t.dtype(), t.dims()));
  if (t.dtype() == DT_STRING) {
    copy.strings() = t.strings();
  } else if (t.ByteSize() != 0) {
    std::memcpy(copy.data(), t.data(), t.ByteSize());
  }
  return copy;
}

namespace {
Status CheckElements(DataType dtype) {
  if (dtype == DT_STRING || IsPlainDataType(dtype)) return Status::OK();
  return Unimplemented("elements of dtype ", DataTypeName(dtype), " are not supported here");
}
}  // namespace

StatusOr<Tensor> SliceRow(const Tensor& t, int64_t i) {
  TG_RETURN_IF_ERROR(CheckElements(t.dtype()));
  if (t.rank() < 1 || i < 0 || i >= t.dims()[0]) {
    return InvalidArgument("row ", i, " of a tensor of shape ", t.shape().ToString());
  }
  std::vector<int64_t> elem(t.dims().begin() + 1, t.dims().end());
  TG_ASSIGN_OR_RETURN(Tensor row, Tensor::AllocateUninitialized(t.dtype(), elem));
  const int64_t n = row.NumElements();
  if (t.dtype() == DT_STRING) {
    for (int64_t k = 0; k < n; ++k) {
      row.strings()[static_cast<size_t>(k)] = t.strings()[static_cast<size_t>(i * n + k)];
    }
  } else if (row.ByteSize() != 0) {
    std::memcpy(row.data(), static_cast<const char*>(t.data()) + row.ByteSize() * static_cast<size_t>(i),
                row.ByteSize());
  }
  return row;
}

StatusOr<Tensor> StackRows(DataType dtype, const std::vector<int64_t>& elem,
                           const std::vector<const Tensor*>& rows) {
  TG_RETURN_IF_ERROR(CheckElements(dtype));
  std::vector<int64_t> dims{static_cast<int64_t>(rows.size())};
  dims.insert(dims.end(), elem.begin(), elem.end());
  TG_ASSIGN_OR_RETURN(Tensor out, Tensor::Allocate(dtype, dims));
  TG_ASSIGN_OR_RETURN(int64_t n, NumElementsOf(elem));
  const size_t row_bytes = static_cast<size_t>(n) * DataTypeSize(dtype);
  for (size_t i = 0; i < rows.size(); ++i) {
    const Tensor* r = rows[i];
    if (r == nullptr || r->dtype() == DT_INVALID) continue;  // zeros
    if (r->dtype() != dtype || r->dims() != elem) {
      return InvalidArgument("element ", i, " is ", DataTypeName(r->dtype()), " ",
                             r->shape().ToString(), "; expected ", DataTypeName(dtype), " ",
                             PartialShape(elem).ToString());
    }
    if (dtype == DT_STRING) {
      for (int64_t k = 0; k < n; ++k) {
        out.strings()[i * static_cast<size_t>(n) + static_cast<size_t>(k)] = r->strings()[static_cast<size_t>(k)];
      }
    } else if (row_bytes != 0) {
      std::memcpy(static_cast<char*>(out.data()) + i * row_bytes, r->data(), row_bytes);
    }
  }
  return out;
}

StatusOr<Tensor> Zeros(DataType dtype, const std::vector<int64_t>& dims) {
  TG_RETURN_IF_ERROR(CheckElements(dtype));
  return Tensor::Allocate(dtype, dims);
}

namespace {
template <typename T>
void AddInto(Tensor* out, const Tensor& a, const Tensor& b) {
  T* o = out->flat<T>();
  const T* x = a.flat<T>();
  const T* y = b.flat<T>();
  for (int64_t i = 0; i < out->NumElements(); ++i) o[i] = static_cast<T>(x[i] + y[i]);
}
}  // namespace

StatusOr<Tensor> AddTensors(const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype() || a.dims() != b.dims()) {
    return InvalidArgument("cannot add ", DataTypeName(a.dtype()), " ", a.shape().ToString(),
                           " and ", DataTypeName(b.dtype()), " ", b.shape().ToString());
  }
  TG_ASSIGN_OR_RETURN(Tensor out, Tensor::AllocateUninitialized(a.dtype(), a.dims()));
  switch (a.dtype()) {
    case DT_FLOAT: AddInto<float>(&out, a, b); break;
    case DT_DOUBLE: AddInto<double>(&out, a, b); break;
    case DT_INT32: AddInto<int32_t>(&out, a, b); break;
    case DT_INT64: AddInto<int64_t>(&out, a, b); break;
    default:
      return Unimplemented("adding two writes of dtype ", DataTypeName(a.dtype()));
  }
  return out;
}

}  // namespace tgraph
