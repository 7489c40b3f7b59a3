#include "core/exec/list_kernels.h"

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "core/exec/host_object.h"
#include "core/graph/proto_convert.h"

namespace tgraph {
namespace {

// ---- reading attrs and small inputs ----

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

// ---- TensorList ----

struct TensorListValue : HostObject {
  DataType dtype = DT_INVALID;
  PartialShape element_shape;
  int64_t max_num_elements = -1;
  std::vector<Tensor> items;  // DT_INVALID: not set
};

StatusOr<const TensorListValue*> ListOf(const CoreKernelIo& io, int i) {
  const auto* l = ObjectOf<TensorListValue>(io.in(i), DT_VARIANT);
  if (l == nullptr) return InvalidArgument("input ", i, " is not a TensorList");
  TG_ASSIGN_OR_RETURN(DataType want, AttrType(io, "element_dtype"));
  if (l->dtype != want) {
    return InvalidArgument("Invalid data types; op elements ", DataTypeName(want), " but list elements ",
                           DataTypeName(l->dtype));
  }
  return l;
}

Status OutList(const CoreKernelIo& io, int i, std::unique_ptr<TensorListValue> l) {
  TG_ASSIGN_OR_RETURN(Tensor t, MakeObjectTensor(DT_VARIANT, std::move(l)));
  io.out(i, std::move(t));
  return Status::OK();
}

// Element `index`, or zeros of the list's element shape merged with `shape`.
StatusOr<Tensor> ListItem(const TensorListValue& l, int64_t index, const PartialShape& shape) {
  const Tensor& t = l.items[static_cast<size_t>(index)];
  if (t.dtype() != DT_INVALID) return t;
  PartialShape s = l.element_shape;
  TG_RETURN_IF_ERROR(MergeInto(&s, shape, "TensorList read"));
  // The shapes of the set elements tell an unset one's shape too (all are alike).
  for (const Tensor& other : l.items) {
    if (other.dtype() != DT_INVALID && !s.IsFullyDefined()) TG_RETURN_IF_ERROR(MergeInto(&s, other.shape(), "TensorList read"));
  }
  TG_ASSIGN_OR_RETURN(std::vector<int64_t> dims, FullyDefined(s, "TensorList read of an unset element"));
  return Zeros(l.dtype, dims);
}

StatusOr<Tensor> StackList(const TensorListValue& l, const std::vector<int64_t>& indices,
                           const PartialShape& shape) {
  std::vector<Tensor> rows;
  for (int64_t i : indices) {
    if (i < 0 || i >= static_cast<int64_t>(l.items.size())) {
      return InvalidArgument("index ", i, " is out of range for a TensorList of ", l.items.size(),
                             " elements");
    }
    TG_ASSIGN_OR_RETURN(Tensor t, ListItem(l, i, shape));
    rows.push_back(std::move(t));
  }
  std::vector<int64_t> elem;
  if (!rows.empty()) {
    elem = rows[0].dims();
  } else {
    PartialShape s = l.element_shape;
    TG_RETURN_IF_ERROR(MergeInto(&s, shape, "TensorListStack"));
    TG_ASSIGN_OR_RETURN(elem, FullyDefined(s, "stacking a TensorList of no elements"));
  }
  std::vector<const Tensor*> ptrs;
  for (const Tensor& t : rows) ptrs.push_back(&t);
  return StackRows(l.dtype, elem, ptrs);
}

Status NewList(const CoreKernelIo& io, int64_t size, int64_t max) {
  auto l = std::make_unique<TensorListValue>();
  TG_ASSIGN_OR_RETURN(l->dtype, AttrType(io, "element_dtype"));
  TG_ASSIGN_OR_RETURN(l->element_shape, ShapeInput(io, 0));
  l->max_num_elements = max;
  l->items.resize(static_cast<size_t>(size));
  return OutList(io, 0, std::move(l));
}

Status TensorListReserve(const CoreKernelIo& io) {
  TG_ASSIGN_OR_RETURN(int64_t n, ScalarInt(io, 1, "num_elements"));
  if (n < 0) return InvalidArgument("num_elements must be >= 0, got ", n);
  return NewList(io, n, -1);
}

Status EmptyTensorList(const CoreKernelIo& io) {
  TG_ASSIGN_OR_RETURN(int64_t max, ScalarInt(io, 1, "max_num_elements"));
  return NewList(io, 0, max);
}

Status TensorListFromTensor(const CoreKernelIo& io) {
  const Tensor& t = io.in(0);
  if (t.rank() < 1) return InvalidArgument("TensorListFromTensor needs a tensor of rank >= 1");
  auto l = std::make_unique<TensorListValue>();
  TG_ASSIGN_OR_RETURN(l->dtype, AttrType(io, "element_dtype"));
  if (t.dtype() != l->dtype) return InvalidArgument("tensor is ", DataTypeName(t.dtype()));
  TG_ASSIGN_OR_RETURN(l->element_shape, ShapeInput(io, 1));
  const PartialShape rows(std::vector<int64_t>(t.dims().begin() + 1, t.dims().end()));
  TG_RETURN_IF_ERROR(MergeInto(&l->element_shape, rows, "TensorListFromTensor"));
  for (int64_t i = 0; i < t.dims()[0]; ++i) {
    TG_ASSIGN_OR_RETURN(Tensor row, SliceRow(t, i));
    l->items.push_back(std::move(row));
  }
  return OutList(io, 0, std::move(l));
}

Status TensorListSetItem(const CoreKernelIo& io) {
  TG_ASSIGN_OR_RETURN(const TensorListValue* in, ListOf(io, 0));
  TG_ASSIGN_OR_RETURN(int64_t index, ScalarInt(io, 1, "index"));
  TG_ASSIGN_OR_RETURN(bool resize, AttrBool(io, "resize_if_index_out_of_bounds"));
  const Tensor& item = io.in(2);
  if (item.dtype() != in->dtype) return InvalidArgument("item is ", DataTypeName(item.dtype()));
  auto l = std::make_unique<TensorListValue>(*in);
  if (index < 0 || (index >= static_cast<int64_t>(l->items.size()) && !resize)) {
    return InvalidArgument("Trying to modify element ", index, " in a list with ", l->items.size(),
                           " elements.");
  }
  if (index >= static_cast<int64_t>(l->items.size())) l->items.resize(static_cast<size_t>(index) + 1);
  if (!l->element_shape.IsCompatibleWith(item.shape())) {
    return InvalidArgument("item of shape ", item.shape().ToString(), " does not fit the list's element shape ",
                           l->element_shape.ToString());
  }
  TG_ASSIGN_OR_RETURN(l->items[static_cast<size_t>(index)], OwnedCopy(item));
  return OutList(io, 0, std::move(l));
}

Status TensorListGetItem(const CoreKernelIo& io) {
  TG_ASSIGN_OR_RETURN(const TensorListValue* l, ListOf(io, 0));
  TG_ASSIGN_OR_RETURN(int64_t index, ScalarInt(io, 1, "index"));
  TG_ASSIGN_OR_RETURN(PartialShape shape, ShapeInput(io, 2));
  if (index < 0 || index >= static_cast<int64_t>(l->items.size())) {
    return InvalidArgument("Trying to access element ", index, " in a list with ", l->items.size(),
                           " elements.");
  }
  TG_ASSIGN_OR_RETURN(Tensor t, ListItem(*l, index, shape));
  io.out(0, std::move(t));
  return Status::OK();
}

Status TensorListStack(const CoreKernelIo& io) {
  TG_ASSIGN_OR_RETURN(const TensorListValue* l, ListOf(io, 0));
  TG_ASSIGN_OR_RETURN(PartialShape shape, ShapeInput(io, 1));
  TG_ASSIGN_OR_RETURN(int64_t num, AttrInt(io, "num_elements"));
  if (num != -1 && num != static_cast<int64_t>(l->items.size())) {
    return InvalidArgument("Operation expected a list with ", num, " elements but got a list with ",
                           l->items.size(), " elements.");
  }
  std::vector<int64_t> all(l->items.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int64_t>(i);
  TG_ASSIGN_OR_RETURN(Tensor t, StackList(*l, all, shape));
  io.out(0, std::move(t));
  return Status::OK();
}

Status TensorListGather(const CoreKernelIo& io) {
  TG_ASSIGN_OR_RETURN(const TensorListValue* l, ListOf(io, 0));
  TG_ASSIGN_OR_RETURN(std::vector<int64_t> indices, IntVector(io.in(1), "indices"));
  TG_ASSIGN_OR_RETURN(PartialShape shape, ShapeInput(io, 2));
  TG_ASSIGN_OR_RETURN(Tensor t, StackList(*l, indices, shape));
  io.out(0, std::move(t));
  return Status::OK();
}

Status TensorListLength(const CoreKernelIo& io) {
  const auto* l = ObjectOf<TensorListValue>(io.in(0), DT_VARIANT);
  if (l == nullptr) return InvalidArgument("input 0 is not a TensorList");
  TG_ASSIGN_OR_RETURN(Tensor t, ScalarOf(DT_INT32, static_cast<int64_t>(l->items.size())));
  io.out(0, std::move(t));
  return Status::OK();
}

Status TensorListElementShape(const CoreKernelIo& io) {
  const auto* l = ObjectOf<TensorListValue>(io.in(0), DT_VARIANT);
  if (l == nullptr) return InvalidArgument("input 0 is not a TensorList");
  TG_ASSIGN_OR_RETURN(DataType type, AttrType(io, "shape_type"));
  if (!l->element_shape.known_rank()) {
    TG_ASSIGN_OR_RETURN(Tensor t, ScalarOf(type, -1));
    io.out(0, std::move(t));
    return Status::OK();
  }
  const int rank = l->element_shape.rank();
  TG_ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(type, {rank}));
  for (int i = 0; i < rank; ++i) {
    const int64_t d = l->element_shape.dim(i) < 0 ? -1 : l->element_shape.dim(i);
    if (type == DT_INT32) t.flat<int32_t>()[i] = static_cast<int32_t>(d);
    else t.flat<int64_t>()[i] = d;
  }
  io.out(0, std::move(t));
  return Status::OK();
}

Status TensorListPushBack(const CoreKernelIo& io) {
  TG_ASSIGN_OR_RETURN(const TensorListValue* in, ListOf(io, 0));
  const Tensor& item = io.in(1);
  if (item.dtype() != in->dtype) return InvalidArgument("tensor is ", DataTypeName(item.dtype()));
  if (!in->element_shape.IsCompatibleWith(item.shape())) {
    return InvalidArgument("Tried to push item with shape ", item.shape().ToString(),
                           " onto a list with element shape ", in->element_shape.ToString());
  }
  if (in->max_num_elements >= 0 && static_cast<int64_t>(in->items.size()) >= in->max_num_elements) {
    return InvalidArgument("Tried to push item into a full list: list size ", in->items.size(),
                           ", max_num_elements ", in->max_num_elements);
  }
  auto l = std::make_unique<TensorListValue>(*in);
  TG_ASSIGN_OR_RETURN(Tensor owned, OwnedCopy(item));
  l->items.push_back(std::move(owned));
  return OutList(io, 0, std::move(l));
}

Status TensorListPopBack(const CoreKernelIo& io) {
  TG_ASSIGN_OR_RETURN(const TensorListValue* in, ListOf(io, 0));
  TG_ASSIGN_OR_RETURN(PartialShape shape, ShapeInput(io, 1));
  if (in->items.empty()) return InvalidArgument("Trying to pop from an empty list.");
  TG_ASSIGN_OR_RETURN(Tensor last, ListItem(*in, static_cast<int64_t>(in->items.size()) - 1, shape));
  auto l = std::make_unique<TensorListValue>(*in);
  l->items.pop_back();
  TG_RETURN_IF_ERROR(OutList(io, 0, std::move(l)));
  io.out(1, std::move(last));
  return Status::OK();
}

}  // namespace

const std::vector<CoreKernel>& ListKernels() {
  static const std::vector<CoreKernel> kernels = {
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
      {"TensorListReserve", TensorListReserve},
      {"EmptyTensorList", EmptyTensorList},
      {"TensorListFromTensor", TensorListFromTensor},
      {"TensorListSetItem", TensorListSetItem},
      {"TensorListGetItem", TensorListGetItem},
      {"TensorListStack", TensorListStack},
      {"TensorListGather", TensorListGather},
      {"TensorListLength", TensorListLength},
      {"TensorListElementShape", TensorListElementShape},
      {"TensorListPushBack", TensorListPushBack},
      {"TensorListPopBack", TensorListPopBack},
  };
  return kernels;
}

}  // namespace tgraph
