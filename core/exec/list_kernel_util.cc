#include "core/exec/list_kernel_util.h"

#include "core/base/tensor_limits.h"

#include "core/graph/proto_convert.h"

namespace tgraph::list_kernels {

StatusOr<const tf::AttrValue*> Attr(const CoreKernelIo& io, const char* name) {
  const tf::AttrValue* v = io.op().FindAttr(name);
  if (v == nullptr) return InvalidArgument("no attr '", name, "'");
  return v;
}
StatusOr<DataType> AttrType(const CoreKernelIo& io, const char* name) {
  TG_ASSIGN_OR_RETURN(const tf::AttrValue* v, Attr(io, name));
  return static_cast<DataType>(v->type());
}
StatusOr<bool> AttrBool(const CoreKernelIo& io, const char* name) {
  TG_ASSIGN_OR_RETURN(const tf::AttrValue* v, Attr(io, name));
  return v->b();
}
StatusOr<int64_t> AttrInt(const CoreKernelIo& io, const char* name) {
  TG_ASSIGN_OR_RETURN(const tf::AttrValue* v, Attr(io, name));
  return v->i();
}
StatusOr<PartialShape> AttrShape(const CoreKernelIo& io, const char* name) {
  TG_ASSIGN_OR_RETURN(const tf::AttrValue* v, Attr(io, name));
  return ShapeFromProto(v->shape());
}

StatusOr<int64_t> ScalarInt(const CoreKernelIo& io, int i, const char* what) {
  const Tensor& t = io.in(i);
  if (t.NumElements() != 1 || t.rank() != 0 || (t.dtype() != DT_INT32 && t.dtype() != DT_INT64)) {
    return InvalidArgument(what, " must be an int32 scalar, got ", DataTypeName(t.dtype()), " ",
                           t.shape().ToString());
  }
  return t.dtype() == DT_INT32 ? int64_t{*t.flat<int32_t>()} : *t.flat<int64_t>();
}

StatusOr<std::vector<int64_t>> IntVector(const Tensor& t, const char* what) {
  if (t.rank() != 1 || (t.dtype() != DT_INT32 && t.dtype() != DT_INT64)) {
    return InvalidArgument(what, " must be an int vector, got ", DataTypeName(t.dtype()), " ",
                           t.shape().ToString());
  }
  std::vector<int64_t> v(static_cast<size_t>(t.NumElements()));
  for (size_t k = 0; k < v.size(); ++k) {
    v[k] = t.dtype() == DT_INT32 ? int64_t{t.flat<int32_t>()[k]} : t.flat<int64_t>()[k];
  }
  return v;
}

// An element_shape input: a scalar -1 is an unknown rank, a vector's -1 dims unknown dims.
StatusOr<PartialShape> ShapeInput(const CoreKernelIo& io, int i) {
  const Tensor& t = io.in(i);
  if (t.dtype() != DT_INT32 && t.dtype() != DT_INT64) {
    return InvalidArgument("element_shape must be int32 or int64, got ", DataTypeName(t.dtype()));
  }
  if (t.rank() == 0) {
    TG_ASSIGN_OR_RETURN(int64_t v, ScalarInt(io, i, "element_shape"));
    if (v != -1) return InvalidArgument("a scalar element_shape must be -1 (unknown rank), got ", v);
    return PartialShape::Unknown();
  }
  TG_ASSIGN_OR_RETURN(std::vector<int64_t> dims, IntVector(t, "element_shape"));
  for (int64_t& d : dims) {
    if (d < -1) return InvalidArgument("element_shape has a dim of ", d);
    if (d == -1) d = PartialShape::kUnknownDim;
  }
  return PartialShape(std::move(dims));
}

Status CheckSlots(int64_t n, const char* what) {
  const uint64_t limit = MaxTensorBytes();
  if (n <= 0 || static_cast<uint64_t>(n) <= limit / sizeof(Tensor)) return Status::OK();
  return ResourceExhausted(what, " of ", n, " elements needs ", sizeof(Tensor),
                           " bytes per element, over the limit of ", limit,
                           " bytes (physical memory, or TGRAPH_MAX_TENSOR_BYTES)");
}

StatusOr<Tensor> ScalarOf(DataType dtype, int64_t v) {
  TG_ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(dtype, {}));
  if (dtype == DT_INT32) *t.flat<int32_t>() = static_cast<int32_t>(v);
  if (dtype == DT_INT64) *t.flat<int64_t>() = v;
  if (dtype == DT_FLOAT) *t.flat<float>() = static_cast<float>(v);
  return t;
}

// The flow output: flow_in's value passed on.
Status PassFlow(const CoreKernelIo& io, int in, int out) {
  const Tensor& f = io.in(in);
  float v = f.dtype() == DT_FLOAT && f.NumElements() == 1 ? *f.flat<float>() : 0.0f;
  TG_ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(DT_FLOAT, {}));
  *t.flat<float>() = v;
  io.out(out, std::move(t));
  return Status::OK();
}

Status MergeInto(PartialShape* shape, const PartialShape& other, const char* what) {
  PartialShape merged;
  Status s = shape->Merge(other, &merged);
  if (!s.ok()) {
    return InvalidArgument(what, ": shape ", other.ToString(), " is incompatible with the element shape ",
                           shape->ToString());
  }
  *shape = std::move(merged);
  return Status::OK();
}

StatusOr<std::vector<int64_t>> FullyDefined(const PartialShape& s, const char* what) {
  if (!s.IsFullyDefined()) {
    return InvalidArgument(what, ": the element shape ", s.ToString(),
                           " is not fully defined, so unset elements cannot be read as zeros");
  }
  return s.dims();
}

}  // namespace tgraph::list_kernels
