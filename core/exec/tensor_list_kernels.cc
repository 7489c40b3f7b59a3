// The TensorList kernels (TF2's lowered loops): a DT_VARIANT value; SetItem and PushBack
// make a new list of shared element tensors; see core/exec/host_object.h.
#include <memory>
#include <utility>
#include <vector>

#include "core/exec/host_object.h"
#include "core/exec/list_kernel_util.h"

namespace tgraph::list_kernels {
namespace {

// ---- TensorList ----

struct TensorListValue : HostObject {
  DataType dtype = DT_INVALID;
  PartialShape element_shape;
  int64_t max_num_elements = -1;
  std::vector<Tensor> items;  // DT_INVALID: not set
  // A value: a copy shares the (immutable) element tensors.
  std::unique_ptr<HostObject> Clone() const override { return std::make_unique<TensorListValue>(*this); }
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
  TG_RETURN_IF_ERROR(CheckSlots(size, "a TensorList"));
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
  if (index >= static_cast<int64_t>(l->items.size())) {
    TG_RETURN_IF_ERROR(CheckSlots(index, "a TensorList grown to set an item"));
    l->items.resize(static_cast<size_t>(index) + 1);
  }
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

// Row i of `t` into element indices[i] of `l`, which grows to fit the largest index.
Status ScatterRows(TensorListValue* l, const Tensor& t, const std::vector<int64_t>& indices) {
  if (t.dtype() != l->dtype) return InvalidArgument("tensor is ", DataTypeName(t.dtype()));
  if (t.rank() < 1 || t.dims()[0] != static_cast<int64_t>(indices.size())) {
    return InvalidArgument("Invalid number of rows in input tensor: tensor of shape ",
                           t.shape().ToString(), " for ", indices.size(), " indices");
  }
  const PartialShape row(std::vector<int64_t>(t.dims().begin() + 1, t.dims().end()));
  TG_RETURN_IF_ERROR(MergeInto(&l->element_shape, row, "TensorListScatter"));
  for (size_t i = 0; i < indices.size(); ++i) {
    const int64_t index = indices[i];
    if (index < 0) return InvalidArgument("Indices in TensorListScatter must all be non-negative, got ", index);
    if (index >= static_cast<int64_t>(l->items.size())) {
      TG_RETURN_IF_ERROR(CheckSlots(index, "a scattered TensorList"));
      l->items.resize(static_cast<size_t>(index) + 1);
    }
    TG_ASSIGN_OR_RETURN(Tensor r, SliceRow(t, static_cast<int64_t>(i)));
    l->items[static_cast<size_t>(index)] = std::move(r);
  }
  return Status::OK();
}

// TensorListScatter (3 inputs) and TensorListScatterV2 (num_elements, input 3).
Status TensorListScatter(const CoreKernelIo& io) {
  TG_ASSIGN_OR_RETURN(std::vector<int64_t> indices, IntVector(io.in(1), "indices"));
  auto l = std::make_unique<TensorListValue>();
  TG_ASSIGN_OR_RETURN(l->dtype, AttrType(io, "element_dtype"));
  TG_ASSIGN_OR_RETURN(l->element_shape, ShapeInput(io, 2));
  if (io.num_inputs() > 3) {
    TG_ASSIGN_OR_RETURN(int64_t n, ScalarInt(io, 3, "num_elements"));
    if (n < -1) return InvalidArgument("num_elements must be >= -1, got ", n);
    TG_RETURN_IF_ERROR(CheckSlots(n, "a scattered TensorList"));
    if (n > 0) l->items.resize(static_cast<size_t>(n));
    for (int64_t index : indices) {
      if (n >= 0 && index >= n) {
        return InvalidArgument("TensorListScatter: index ", index, " does not fit num_elements ", n);
      }
    }
  }
  TG_RETURN_IF_ERROR(ScatterRows(l.get(), io.in(0), indices));
  return OutList(io, 0, std::move(l));
}

Status TensorListScatterIntoExistingList(const CoreKernelIo& io) {
  TG_ASSIGN_OR_RETURN(const TensorListValue* in, ListOf(io, 0));
  TG_ASSIGN_OR_RETURN(std::vector<int64_t> indices, IntVector(io.in(2), "indices"));
  auto l = std::make_unique<TensorListValue>(*in);
  TG_RETURN_IF_ERROR(ScatterRows(l.get(), io.in(1), indices));
  return OutList(io, 0, std::move(l));
}

// ---- gradients' arithmetic on lists (TensorFlow's variant ZerosLike and AddN) ----

const TensorListValue* AnyList(const CoreKernelIo& io, int i) { return ObjectOf<TensorListValue>(io.in(i), DT_VARIANT); }

// A list of the same length whose elements are all unset: they read as zeros.
Status TensorListZerosLike(const CoreKernelIo& io) {
  const TensorListValue* in = AnyList(io, 0);
  if (in == nullptr) return InvalidArgument("ZerosLike of a variant that is not a TensorList");
  auto l = std::make_unique<TensorListValue>();
  l->dtype = in->dtype;
  l->element_shape = in->element_shape;
  l->max_num_elements = in->max_num_elements;
  l->items.resize(in->items.size());
  // The set elements tell the unset ones' shape (reading one needs it).
  for (const Tensor& t : in->items) {
    if (t.dtype() != DT_INVALID && !l->element_shape.IsFullyDefined()) {
      TG_RETURN_IF_ERROR(MergeInto(&l->element_shape, t.shape(), "ZerosLike of a TensorList"));
    }
  }
  return OutList(io, 0, std::move(l));
}

// Element-wise sum of lists of one length: an element set in none stays unset (zeros).
Status TensorListAddN(const CoreKernelIo& io) {
  std::vector<const TensorListValue*> lists;
  for (int i = 0; i < io.num_inputs(); ++i) {
    const TensorListValue* l = AnyList(io, i);
    if (l == nullptr) return InvalidArgument("AddN input ", i, " is a variant that is not a TensorList");
    if (!lists.empty() && (l->dtype != lists[0]->dtype || l->items.size() != lists[0]->items.size())) {
      return InvalidArgument("AddN of TensorLists of different dtypes or lengths: ", DataTypeName(l->dtype), "[",
                             l->items.size(), "] and ", DataTypeName(lists[0]->dtype), "[", lists[0]->items.size(),
                             "]");
    }
    lists.push_back(l);
  }
  if (lists.empty()) return InvalidArgument("AddN needs at least one input");
  auto out = std::make_unique<TensorListValue>(*lists[0]);
  for (size_t k = 0; k < out->items.size(); ++k) {
    Tensor sum;  // elements are immutable: the first set one is shared, not copied
    for (const TensorListValue* l : lists) {
      const Tensor& t = l->items[k];
      if (t.dtype() == DT_INVALID) continue;
      if (sum.dtype() == DT_INVALID) {
        sum = t;
      } else {
        TG_ASSIGN_OR_RETURN(sum, AddTensors(sum, t));
      }
    }
    out->items[k] = std::move(sum);
  }
  return OutList(io, 0, std::move(out));
}

}  // namespace

std::vector<CoreKernel> TensorListKernels() {
  return {
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
      {"TensorListScatter", TensorListScatter},
      {"TensorListScatterV2", TensorListScatter},
      {"TensorListScatterIntoExistingList", TensorListScatterIntoExistingList},
      {"ZerosLike", TensorListZerosLike, "T"},
      {"AddN", TensorListAddN, "T"},
  };
}

}  // namespace tgraph::list_kernels
