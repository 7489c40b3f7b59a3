// The TensorArray (TF1's TensorArrayV3 family) and Stack (StackV2 family) kernels: a
// DT_RESOURCE handle shares one array or stack (reference semantics, with a mutex) across
// iterations and frames; see core/exec/host_object.h.
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "core/exec/host_object.h"
#include "core/exec/list_kernel_util.h"

namespace tgraph::list_kernels {
namespace {

// ---- TensorArray ----

struct TensorArrayState {
  std::mutex mu;
  DataType dtype = DT_INVALID;
  PartialShape element_shape;
  bool dynamic_size = false;
  bool identical_element_shapes = false;
  bool aggregate = false;  // a gradient array: a second write to an index adds
  bool closed = false;
  std::vector<Tensor> items;  // DT_INVALID: not written
  std::map<std::string, std::shared_ptr<TensorArrayState>> grads;
};

struct TensorArrayHandle : HostObject {
  std::shared_ptr<TensorArrayState> ta;
};

StatusOr<std::shared_ptr<TensorArrayState>> ArrayOf(const CoreKernelIo& io) {
  auto* h = ObjectOf<TensorArrayHandle>(io.in(0), DT_RESOURCE);
  if (h == nullptr || !h->ta) return InvalidArgument("input 0 is not a TensorArray handle");
  return h->ta;
}

StatusOr<Tensor> HandleTensor(std::shared_ptr<TensorArrayState> ta) {
  auto h = std::make_unique<TensorArrayHandle>();
  h->ta = std::move(ta);
  return MakeObjectTensor(DT_RESOURCE, std::move(h));
}

Status CheckOpen(const TensorArrayState& ta) {
  if (ta.closed) return InvalidArgument("the TensorArray has already been closed");
  return Status::OK();
}

// Writes `value` at `index` (ta.mu held).
Status WriteLocked(TensorArrayState& ta, int64_t index, const Tensor& value) {
  TG_RETURN_IF_ERROR(CheckOpen(ta));
  if (value.dtype() != ta.dtype) {
    return InvalidArgument("TensorArray of dtype ", DataTypeName(ta.dtype), " cannot take a value of dtype ",
                           DataTypeName(value.dtype()));
  }
  if (index < 0) return InvalidArgument("Tried to write to index ", index, " of a TensorArray");
  if (index >= static_cast<int64_t>(ta.items.size())) {
    if (!ta.dynamic_size) {
      return InvalidArgument("Tried to write to index ", index, " but array is not resizeable and size is: ",
                             ta.items.size());
    }
    TG_RETURN_IF_ERROR(CheckSlots(index, "a TensorArray grown to write"));
    ta.items.resize(static_cast<size_t>(index) + 1);
  }
  // Every element must fit the declared shape; with identical_element_shapes the first
  // write also fixes the unknown dims for the rest (and for reading unwritten ones as zeros).
  if (ta.identical_element_shapes) {
    TG_RETURN_IF_ERROR(MergeInto(&ta.element_shape, value.shape(), "TensorArray write"));
  } else if (!ta.element_shape.IsCompatibleWith(value.shape())) {
    return InvalidArgument("TensorArray write: shape ", value.shape().ToString(),
                           " is incompatible with the element shape ", ta.element_shape.ToString());
  }
  Tensor& slot = ta.items[static_cast<size_t>(index)];
  TG_ASSIGN_OR_RETURN(Tensor owned, OwnedCopy(value));
  if (slot.dtype() != DT_INVALID) {
    if (!ta.aggregate) {
      return InvalidArgument("Could not write to TensorArray index ", index,
                             " because it has already been written to");
    }
    TG_ASSIGN_OR_RETURN(owned, AddTensors(slot, owned));
  }
  slot = std::move(owned);
  return Status::OK();
}

// The element at `index`; in a gradient array, zeros of the element shape when it was never
// written (ta.mu held).
StatusOr<Tensor> ReadLocked(TensorArrayState& ta, int64_t index) {
  TG_RETURN_IF_ERROR(CheckOpen(ta));
  if (index < 0 || index >= static_cast<int64_t>(ta.items.size())) {
    return InvalidArgument("Tried to read from index ", index, " but array size is: ", ta.items.size());
  }
  const Tensor& t = ta.items[static_cast<size_t>(index)];
  if (t.dtype() != DT_INVALID) return t;
  // Only a gradient array reads an unwritten element, as zeros (of a known shape).
  if (!ta.aggregate || !ta.element_shape.IsFullyDefined()) {
    return InvalidArgument("Could not read from TensorArray index ", index,
                           " because it has not yet been written to");
  }
  return Zeros(ta.dtype, ta.element_shape.dims());
}

Status TensorArrayV3(const CoreKernelIo& io) {
  TG_ASSIGN_OR_RETURN(int64_t size, ScalarInt(io, 0, "size"));
  if (size < 0) return InvalidArgument("TensorArray size must be >= 0, got ", size);
  TG_RETURN_IF_ERROR(CheckSlots(size, "a TensorArray"));
  auto ta = std::make_shared<TensorArrayState>();
  TG_ASSIGN_OR_RETURN(ta->dtype, AttrType(io, "dtype"));
  TG_ASSIGN_OR_RETURN(ta->element_shape, AttrShape(io, "element_shape"));
  TG_ASSIGN_OR_RETURN(ta->dynamic_size, AttrBool(io, "dynamic_size"));
  TG_ASSIGN_OR_RETURN(ta->identical_element_shapes, AttrBool(io, "identical_element_shapes"));
  ta->items.resize(static_cast<size_t>(size));
  TG_ASSIGN_OR_RETURN(Tensor handle, HandleTensor(std::move(ta)));
  io.out(0, std::move(handle));
  TG_ASSIGN_OR_RETURN(Tensor flow, ScalarOf(DT_FLOAT, 0));
  io.out(1, std::move(flow));
  return Status::OK();
}

Status TensorArrayWriteV3(const CoreKernelIo& io) {
  TG_ASSIGN_OR_RETURN(auto ta, ArrayOf(io));
  TG_ASSIGN_OR_RETURN(int64_t index, ScalarInt(io, 1, "index"));
  {
    std::lock_guard<std::mutex> lock(ta->mu);
    TG_RETURN_IF_ERROR(WriteLocked(*ta, index, io.in(2)));
  }
  return PassFlow(io, 3, 0);
}

Status CheckReadType(const CoreKernelIo& io, const TensorArrayState& ta) {
  TG_ASSIGN_OR_RETURN(DataType dtype, AttrType(io, "dtype"));
  if (dtype != ta.dtype) {
    return InvalidArgument("TensorArray dtype is ", DataTypeName(ta.dtype), " but op has dtype ",
                           DataTypeName(dtype));
  }
  return Status::OK();
}

Status TensorArrayReadV3(const CoreKernelIo& io) {
  TG_ASSIGN_OR_RETURN(auto ta, ArrayOf(io));
  TG_ASSIGN_OR_RETURN(int64_t index, ScalarInt(io, 1, "index"));
  std::lock_guard<std::mutex> lock(ta->mu);
  TG_RETURN_IF_ERROR(CheckReadType(io, *ta));
  TG_ASSIGN_OR_RETURN(Tensor t, ReadLocked(*ta, index));
  io.out(0, std::move(t));
  return Status::OK();
}

Status TensorArrayGatherV3(const CoreKernelIo& io) {
  TG_ASSIGN_OR_RETURN(auto ta, ArrayOf(io));
  TG_ASSIGN_OR_RETURN(std::vector<int64_t> indices, IntVector(io.in(1), "indices"));
  TG_ASSIGN_OR_RETURN(PartialShape attr_shape, AttrShape(io, "element_shape"));
  std::lock_guard<std::mutex> lock(ta->mu);
  TG_RETURN_IF_ERROR(CheckReadType(io, *ta));
  std::vector<Tensor> rows;
  for (int64_t i : indices) {
    TG_ASSIGN_OR_RETURN(Tensor t, ReadLocked(*ta, i));
    rows.push_back(std::move(t));
  }
  std::vector<int64_t> elem;
  if (!rows.empty()) {
    elem = rows[0].dims();
  } else {
    PartialShape s = ta->element_shape;
    TG_RETURN_IF_ERROR(MergeInto(&s, attr_shape, "TensorArrayGatherV3"));
    TG_ASSIGN_OR_RETURN(elem, FullyDefined(s, "TensorArrayGatherV3 of no elements"));
  }
  std::vector<const Tensor*> ptrs;
  for (const Tensor& t : rows) ptrs.push_back(&t);
  TG_ASSIGN_OR_RETURN(Tensor out, StackRows(ta->dtype, elem, ptrs));
  io.out(0, std::move(out));
  return Status::OK();
}

Status TensorArrayScatterV3(const CoreKernelIo& io) {
  TG_ASSIGN_OR_RETURN(auto ta, ArrayOf(io));
  TG_ASSIGN_OR_RETURN(std::vector<int64_t> indices, IntVector(io.in(1), "indices"));
  const Tensor& value = io.in(2);
  if (value.rank() < 1 || value.dims()[0] != static_cast<int64_t>(indices.size())) {
    return InvalidArgument("value of shape ", value.shape().ToString(), " does not have ", indices.size(),
                           " rows, one per index");
  }
  {
    std::lock_guard<std::mutex> lock(ta->mu);
    for (size_t k = 0; k < indices.size(); ++k) {
      TG_ASSIGN_OR_RETURN(Tensor row, SliceRow(value, static_cast<int64_t>(k)));
      TG_RETURN_IF_ERROR(WriteLocked(*ta, indices[k], row));
    }
  }
  return PassFlow(io, 3, 0);
}

Status TensorArraySizeV3(const CoreKernelIo& io) {
  TG_ASSIGN_OR_RETURN(auto ta, ArrayOf(io));
  std::lock_guard<std::mutex> lock(ta->mu);
  TG_RETURN_IF_ERROR(CheckOpen(*ta));
  TG_ASSIGN_OR_RETURN(Tensor t, ScalarOf(DT_INT32, static_cast<int64_t>(ta->items.size())));
  io.out(0, std::move(t));
  return Status::OK();
}

Status TensorArrayCloseV3(const CoreKernelIo& io) {
  TG_ASSIGN_OR_RETURN(auto ta, ArrayOf(io));
  std::lock_guard<std::mutex> lock(ta->mu);
  ta->items.clear();
  ta->grads.clear();
  ta->closed = true;
  return Status::OK();
}

Status TensorArrayConcatV3(const CoreKernelIo& io) {
  TG_ASSIGN_OR_RETURN(auto ta, ArrayOf(io));
  std::lock_guard<std::mutex> lock(ta->mu);
  TG_RETURN_IF_ERROR(CheckReadType(io, *ta));
  TG_ASSIGN_OR_RETURN(PartialShape except0, AttrShape(io, "element_shape_except0"));
  std::vector<Tensor> rows;
  std::vector<const Tensor*> ptrs;
  TG_ASSIGN_OR_RETURN(Tensor lengths, Tensor::Allocate(DT_INT64, {static_cast<int64_t>(ta->items.size())}));
  int64_t total = 0;
  std::vector<int64_t> rest;
  bool have_rest = false;
  for (size_t i = 0; i < ta->items.size(); ++i) {
    TG_ASSIGN_OR_RETURN(Tensor t, ReadLocked(*ta, static_cast<int64_t>(i)));
    if (t.rank() < 1) return InvalidArgument("TensorArrayConcatV3: element ", i, " is a scalar");
    std::vector<int64_t> r(t.dims().begin() + 1, t.dims().end());
    if (have_rest && r != rest) {
      return InvalidArgument("TensorArrayConcatV3: element ", i, " has shape ", t.shape().ToString(),
                             ", unlike element 0 past dim 0");
    }
    rest = r;
    have_rest = true;
    lengths.flat<int64_t>()[i] = t.dims()[0];
    total += t.dims()[0];
    rows.push_back(std::move(t));
  }
  if (!have_rest) {
    TG_ASSIGN_OR_RETURN(rest, FullyDefined(except0, "TensorArrayConcatV3 of no elements"));
  }
  // Concatenating along dim 0 is stacking the rows of every element.
  std::vector<Tensor> flat_rows;
  for (const Tensor& t : rows) {
    for (int64_t k = 0; k < t.dims()[0]; ++k) {
      TG_ASSIGN_OR_RETURN(Tensor row, SliceRow(t, k));
      flat_rows.push_back(std::move(row));
    }
  }
  for (const Tensor& t : flat_rows) ptrs.push_back(&t);
  TG_ASSIGN_OR_RETURN(Tensor out, StackRows(ta->dtype, rest, ptrs));
  (void)total;
  io.out(0, std::move(out));
  io.out(1, std::move(lengths));
  return Status::OK();
}

Status TensorArraySplitV3(const CoreKernelIo& io) {
  TG_ASSIGN_OR_RETURN(auto ta, ArrayOf(io));
  const Tensor& value = io.in(1);
  TG_ASSIGN_OR_RETURN(std::vector<int64_t> lengths, IntVector(io.in(2), "lengths"));
  if (value.rank() < 1) return InvalidArgument("TensorArraySplitV3: value must have rank >= 1");
  int64_t total = 0;
  for (int64_t l : lengths) {
    if (l < 0) return InvalidArgument("TensorArraySplitV3: a negative length ", l);
    total += l;
  }
  if (total != value.dims()[0]) {
    return InvalidArgument("TensorArraySplitV3: lengths sum to ", total, " but value has ", value.dims()[0],
                           " rows");
  }
  {
    std::lock_guard<std::mutex> lock(ta->mu);
    int64_t start = 0;
    for (size_t i = 0; i < lengths.size(); ++i) {
      std::vector<Tensor> rows;
      std::vector<const Tensor*> ptrs;
      for (int64_t k = 0; k < lengths[i]; ++k) {
        TG_ASSIGN_OR_RETURN(Tensor row, SliceRow(value, start + k));
        rows.push_back(std::move(row));
      }
      for (const Tensor& r : rows) ptrs.push_back(&r);
      std::vector<int64_t> rest(value.dims().begin() + 1, value.dims().end());
      TG_ASSIGN_OR_RETURN(Tensor piece, StackRows(value.dtype(), rest, ptrs));
      TG_RETURN_IF_ERROR(WriteLocked(*ta, static_cast<int64_t>(i), piece));
      start += lengths[i];
    }
  }
  return PassFlow(io, 3, 0);
}

Status TensorArrayGradV3(const CoreKernelIo& io) {
  TG_ASSIGN_OR_RETURN(auto ta, ArrayOf(io));
  TG_ASSIGN_OR_RETURN(const tf::AttrValue* source, Attr(io, "source"));
  std::shared_ptr<TensorArrayState> grad;
  {
    std::lock_guard<std::mutex> lock(ta->mu);
    TG_RETURN_IF_ERROR(CheckOpen(*ta));
    auto& slot = ta->grads[source->s()];
    if (!slot) {
      slot = std::make_shared<TensorArrayState>();
      slot->dtype = ta->dtype;
      slot->element_shape = ta->element_shape;
      slot->identical_element_shapes = ta->identical_element_shapes;
      slot->aggregate = true;
      slot->items.resize(ta->items.size());
    }
    grad = slot;
  }
  TG_ASSIGN_OR_RETURN(Tensor handle, HandleTensor(std::move(grad)));
  io.out(0, std::move(handle));
  return PassFlow(io, 1, 1);
}

// ---- Stack ----

struct StackState {
  std::mutex mu;
  DataType dtype = DT_INVALID;
  int64_t max_size = -1;
  std::string name;
  bool closed = false;
  std::vector<Tensor> items;
};

struct StackHandle : HostObject {
  std::shared_ptr<StackState> stack;
};

StatusOr<std::shared_ptr<StackState>> StackOf(const CoreKernelIo& io) {
  auto* h = ObjectOf<StackHandle>(io.in(0), DT_RESOURCE);
  if (h == nullptr || !h->stack) return InvalidArgument("input 0 is not a stack handle");
  if (h->stack->closed) return InvalidArgument("Stack[", h->stack->name, "] has already been closed.");
  return h->stack;
}

Status StackV2(const CoreKernelIo& io) {
  TG_ASSIGN_OR_RETURN(int64_t max_size, ScalarInt(io, 0, "max_size"));
  auto stack = std::make_shared<StackState>();
  TG_ASSIGN_OR_RETURN(stack->dtype, AttrType(io, "elem_type"));
  TG_ASSIGN_OR_RETURN(const tf::AttrValue* name, Attr(io, "stack_name"));
  stack->name = name->s().empty() ? io.op().name() : name->s();
  stack->max_size = max_size;
  auto h = std::make_unique<StackHandle>();
  h->stack = std::move(stack);
  TG_ASSIGN_OR_RETURN(Tensor handle, MakeObjectTensor(DT_RESOURCE, std::move(h)));
  io.out(0, std::move(handle));
  return Status::OK();
}

Status StackPushV2(const CoreKernelIo& io) {
  TG_ASSIGN_OR_RETURN(auto stack, StackOf(io));
  const Tensor& elem = io.in(1);
  TG_ASSIGN_OR_RETURN(Tensor owned, OwnedCopy(elem));
  {
    std::lock_guard<std::mutex> lock(stack->mu);
    if (elem.dtype() != stack->dtype) {
      return InvalidArgument("Stack[", stack->name, "] holds ", DataTypeName(stack->dtype), ", not ",
                             DataTypeName(elem.dtype()));
    }
    if (stack->max_size >= 0 && static_cast<int64_t>(stack->items.size()) >= stack->max_size) {
      return InvalidArgument("Stack[", stack->name, "] overflowed its max_size (", stack->max_size, ")");
    }
    stack->items.push_back(owned);
  }
  io.out(0, std::move(owned));
  return Status::OK();
}

Status StackPopV2(const CoreKernelIo& io) {
  TG_ASSIGN_OR_RETURN(auto stack, StackOf(io));
  TG_ASSIGN_OR_RETURN(DataType dtype, AttrType(io, "elem_type"));
  std::lock_guard<std::mutex> lock(stack->mu);
  if (dtype != stack->dtype) {
    return InvalidArgument("Stack[", stack->name, "] holds ", DataTypeName(stack->dtype), ", not ",
                           DataTypeName(dtype));
  }
  if (stack->items.empty()) return InvalidArgument("Stack[", stack->name, "] is empty.");
  io.out(0, std::move(stack->items.back()));
  stack->items.pop_back();
  return Status::OK();
}

Status StackCloseV2(const CoreKernelIo& io) {
  TG_ASSIGN_OR_RETURN(auto stack, StackOf(io));
  std::lock_guard<std::mutex> lock(stack->mu);
  stack->items.clear();
  stack->closed = true;
  return Status::OK();
}

}  // namespace

std::vector<CoreKernel> TensorArrayKernels() {
  return {
      {"TensorArrayV3", TensorArrayV3},
      {"TensorArrayWriteV3", TensorArrayWriteV3},
      {"TensorArrayReadV3", TensorArrayReadV3},
      {"TensorArrayGatherV3", TensorArrayGatherV3},
      {"TensorArrayScatterV3", TensorArrayScatterV3},
      {"TensorArraySizeV3", TensorArraySizeV3},
      {"TensorArrayCloseV3", TensorArrayCloseV3},
      {"TensorArrayConcatV3", TensorArrayConcatV3},
      {"TensorArraySplitV3", TensorArraySplitV3},
      {"TensorArrayGradV3", TensorArrayGradV3},
      {"StackV2", StackV2},
      {"StackPushV2", StackPushV2},
      {"StackPopV2", StackPopV2},
      {"StackCloseV2", StackCloseV2},
  };
}

}  // namespace tgraph::list_kernels
