// Reading a core kernel's attrs and small inputs, and shape helpers, shared by the
// TensorArray / Stack kernels and the TensorList kernels.
#pragma once

#include <cstdint>
#include <vector>

#include "core/base/shape.h"
#include "core/base/status.h"
#include "core/base/tensor.h"
#include "core/exec/list_kernels.h"
#include "tgraph/proto/attr_value.pb.h"

namespace tgraph::list_kernels {

StatusOr<const tf::AttrValue*> Attr(const CoreKernelIo& io, const char* name);
StatusOr<DataType> AttrType(const CoreKernelIo& io, const char* name);
StatusOr<bool> AttrBool(const CoreKernelIo& io, const char* name);
StatusOr<int64_t> AttrInt(const CoreKernelIo& io, const char* name);
StatusOr<PartialShape> AttrShape(const CoreKernelIo& io, const char* name);
// Input i as an int32 / int64 scalar (`what` names it in errors).
StatusOr<int64_t> ScalarInt(const CoreKernelIo& io, int i, const char* what);
StatusOr<std::vector<int64_t>> IntVector(const Tensor& t, const char* what);
// An element_shape input: a scalar -1 is an unknown rank, a vector's -1 dims unknown dims.
StatusOr<PartialShape> ShapeInput(const CoreKernelIo& io, int i);
StatusOr<Tensor> ScalarOf(DataType dtype, int64_t v);
// Before an array or list gets `n` element slots (a size, an index or num_elements from the
// graph): RESOURCE_EXHAUSTED naming `what` when the slots alone would exceed the tensor
// memory limit (MaxTensorBytes), so that a value from an input never allocates what it
// claims (issue 21, item 4; found by the op_run fuzzer: TensorArrayV3 of size 2^36). A
// caller growing to index + 1 passes the index (so that the sum cannot overflow).
Status CheckSlots(int64_t n, const char* what);
// The flow output `out`: flow_in's (input `in`) value passed on.
Status PassFlow(const CoreKernelIo& io, int in, int out);
// *shape merged with `other`, or INVALID_ARGUMENT (`what` names the op).
Status MergeInto(PartialShape* shape, const PartialShape& other, const char* what);
StatusOr<std::vector<int64_t>> FullyDefined(const PartialShape& s, const char* what);

// Each family's kernels (tensor_array_kernels.cc, tensor_list_kernels.cc).
std::vector<CoreKernel> TensorArrayKernels();
std::vector<CoreKernel> TensorListKernels();

}  // namespace tgraph::list_kernels
