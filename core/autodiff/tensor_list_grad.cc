// Gradients of the TensorList ops that lowered loops use (TensorFlow's list_ops.py): SetItem,
// GetItem, Stack, FromTensor, Gather, Scatter (V1, V2, IntoExistingList), PushBack, PopBack. A list's
// gradient is a list (DT_VARIANT) of its elements' gradients; an element that got none is
// unset and reads as zeros. AddGradients carries gradients along the variant edges of these
// ops and of the control-flow plumbing (CarriesListGradient), sums lists with AddN and makes
// zero lists with ZerosLike (core kernels, core/exec/tensor_list_kernels.cc).
#include "core/autodiff/list_grad.h"

namespace tgraph {
namespace {

// d(list with item set at index): the list's gradient with that element zeroed goes to the
// input list, the element's gradient to the item.
Status SetItemGrad(GradientContext& ctx) {
  if (!ctx.has_grad(0)) return ctx.status();
  const Output dlist = ctx.grad(0);
  const Output index = ctx.input(1), item = ctx.input(2);
  const DataType dtype = ctx.AttrType("element_dtype");
  ctx.SetInputGrad(0, ctx.Op("TensorListSetItem", {dlist, index, ctx.ZerosLike(item)}));
  ctx.SetInputGrad(2, ctx.Op("TensorListGetItem", {dlist, index, ctx.Shape(item)},
                             {{"element_dtype", AttrOfType(dtype)}}));
  return ctx.status();
}

// A list as long as the op's input list (input 0), its element shape and dtype, every
// element unset (reads as zeros): the gradient of a list the op read some elements of.
Output UnsetListLikeInput(GradientContext& ctx) {
  const Output list = ctx.input(0);
  const DataType dtype = ctx.AttrType("element_dtype");
  Output shape = ctx.Op("TensorListElementShape", {list}, {{"shape_type", AttrOfType(DT_INT32)}});
  Output length = ctx.Op("TensorListLength", {list});
  return ctx.Op("TensorListReserve", {shape, length}, {{"element_dtype", AttrOfType(dtype)}});
}

// d(element index of a list): a list as long as the input, only that element set.
Status GetItemGrad(GradientContext& ctx) {
  if (!ctx.has_grad(0)) return ctx.status();
  ctx.SetInputGrad(0, ctx.Op("TensorListSetItem",
                             {UnsetListLikeInput(ctx), ctx.input(1), ctx.grad(0)}));
  return ctx.status();
}

// d(stacked tensor): its rows as a list.
Status StackGrad(GradientContext& ctx) {
  if (!ctx.has_grad(0)) return ctx.status();
  ctx.SetInputGrad(0, ctx.Op("TensorListFromTensor", {ctx.grad(0), ctx.input(1)}));
  return ctx.status();
}

// d(list of a tensor's rows): the list's gradient stacked (unset elements as zeros).
Status FromTensorGrad(GradientContext& ctx) {
  if (!ctx.has_grad(0)) return ctx.status();
  const DataType dtype = ctx.AttrType("element_dtype");
  ctx.SetInputGrad(0, ctx.Op("TensorListStack", {ctx.grad(0), ctx.ScalarInt32(-1)},
                             {{"element_dtype", AttrOfType(dtype)}}));
  return ctx.status();
}

// The element shape of `tensor`'s rows (its shape without dim 0), for reading them back.
Output RowShape(GradientContext& ctx, Output tensor) {
  return ctx.Op("Slice", {ctx.Shape(tensor), ctx.ConstInt32({1}), ctx.ConstInt32({-1})});
}

// d(elements at indices, stacked): a list as long as the input with the rows scattered back
// (an index read twice keeps one row's gradient, as in TensorFlow).
Status GatherGrad(GradientContext& ctx) {
  if (!ctx.has_grad(0)) return ctx.status();
  ctx.SetInputGrad(0, ctx.Op("TensorListScatterIntoExistingList",
                             {UnsetListLikeInput(ctx), ctx.grad(0), ctx.input(1)}));
  return ctx.status();
}

// d(list scattered from a tensor's rows): the list's gradient gathered at the indices.
Status ScatterGrad(GradientContext& ctx) {
  if (!ctx.has_grad(0)) return ctx.status();
  const Output tensor = ctx.input(0);
  const DataType dtype = ctx.AttrType("element_dtype");
  ctx.SetInputGrad(0, ctx.Op("TensorListGather", {ctx.grad(0), ctx.input(1), RowShape(ctx, tensor)},
                             {{"element_dtype", AttrOfType(dtype)}}));
  return ctx.status();
}

// d(list with rows scattered into it): the rows' gradients gathered; the input list's is
// the list's gradient with those elements zeroed.
Status ScatterIntoExistingGrad(GradientContext& ctx) {
  if (!ctx.has_grad(0)) return ctx.status();
  const Output dlist = ctx.grad(0);
  const Output tensor = ctx.input(1), indices = ctx.input(2);
  const DataType dtype = ctx.AttrType("element_dtype");
  ctx.SetInputGrad(1, ctx.Op("TensorListGather", {dlist, indices, RowShape(ctx, tensor)},
                             {{"element_dtype", AttrOfType(dtype)}}));
  ctx.SetInputGrad(0, ctx.Op("TensorListScatterIntoExistingList", {dlist, ctx.ZerosLike(tensor), indices}));
  return ctx.status();
}

// d(list with an element appended): the list's gradient with its last element popped, and
// that element.
Status PushBackGrad(GradientContext& ctx) {
  if (!ctx.has_grad(0)) return ctx.status();
  const DataType dtype = ctx.AttrType("element_dtype");
  std::vector<Output> popped = ctx.OpOutputs("TensorListPopBack", {ctx.grad(0), ctx.Shape(ctx.input(1))},
                                             {{"element_dtype", AttrOfType(dtype)}});
  if (popped.size() != 2) return ctx.status();
  ctx.SetInputGrad(0, popped[0]);
  ctx.SetInputGrad(1, popped[1]);
  return ctx.status();
}

// d(list without its last element, that element): the element's gradient pushed back onto
// the shorter list's (zeros for the one that got none: an unset list as long as the shorter
// list, where TensorFlow starts from an empty list, which could not be summed with the
// input list's other gradients).
Status PopBackGrad(GradientContext& ctx) {
  if (!ctx.has_grad(0) && !ctx.has_grad(1)) return ctx.status();
  const Output dlist = ctx.has_grad(0) ? ctx.grad(0) : ctx.ZerosLike(ctx.output(0));
  const Output delement = ctx.has_grad(1) ? ctx.grad(1) : ctx.ZerosLike(ctx.output(1));
  ctx.SetInputGrad(0, ctx.Op("TensorListPushBack", {dlist, delement}));
  return ctx.status();
}

}  // namespace

bool CarriesListGradient(const std::string& op_type) {
  static const char* const kOps[] = {
      "TensorListSetItem", "TensorListGetItem", "TensorListStack", "TensorListFromTensor",
      "TensorListGather", "TensorListScatterIntoExistingList", "TensorListPushBack",
      "TensorListPopBack",
      // the plumbing a list travels through in conds and loops
      "Identity", "Enter", "RefEnter", "Exit", "RefExit", "Merge", "RefMerge", "Switch", "RefSwitch",
      "NextIteration", "RefNextIteration"};
  for (const char* op : kOps) {
    if (op_type == op) return true;
  }
  return false;
}

Status RegisterTensorListGradients(GradientFunctionRegistry& registry) {
  Status first;
  auto keep = [&first](Status s) {
    if (!s.ok() && first.ok()) first = s;
  };
  keep(registry.Register("TensorListSetItem", SetItemGrad));
  keep(registry.Register("TensorListGetItem", GetItemGrad));
  keep(registry.Register("TensorListStack", StackGrad));
  keep(registry.Register("TensorListFromTensor", FromTensorGrad));
  keep(registry.Register("TensorListGather", GatherGrad));
  keep(registry.Register("TensorListScatter", ScatterGrad));
  keep(registry.Register("TensorListScatterV2", ScatterGrad));
  keep(registry.Register("TensorListScatterIntoExistingList", ScatterIntoExistingGrad));
  keep(registry.Register("TensorListPushBack", PushBackGrad));
  keep(registry.Register("TensorListPopBack", PopBackGrad));
  // Their inputs are sizes and shapes: nothing to differentiate.
  keep(registry.RegisterNotDifferentiable("TensorListReserve"));
  keep(registry.RegisterNotDifferentiable("EmptyTensorList"));
  return first;
}

}  // namespace tgraph
