// TensorArray gradients, as TensorFlow's tensor_array_grad.py builds them: the gradient of an
// array is a second array (TensorArrayGradV3, one per gradient pass, named by its `source`:
// the "gradients" / "gradients_1" scope the pass builds in), and the `flow` floats order the
// two arrays' reads and writes:
//   Read(i)      -> write the value's gradient at i into the gradient array; flow_in's
//                   gradient is that write's flow (writes to one index add up)
//   Write(i, v)  -> v's gradient is a read at i of the gradient array; flow_in's is flow_out's
//   Gather(idx)  -> scatter into the gradient array;  Scatter(idx, v) -> gather from it
//   Concat       -> split the gradient by the lengths; Split(v, lengths) -> concat
// Handles, sizes, closes and stacks carry no gradient. TensorList ops (DT_VARIANT values)
// have none here yet: AddGradients carries gradients along float edges only.
#include "core/autodiff/list_grad.h"

#include <string>

namespace tgraph {
namespace {

// The gradient pass's scope, from a tensor it built ("gradients_1/x_grad/..." ->
// "gradients_1"); "gradients" for a gradient fed from outside.
std::string GradSource(const Output& grad) {
  const std::string& name = grad.op->name();
  const size_t slash = name.find('/');
  const std::string first = name.substr(0, slash);
  return first.rfind("gradients", 0) == 0 ? first : "gradients";
}

// The gradient array of the op's array (input 0), made after `after` (the forward op) ran.
std::vector<Output> GradArray(GradientContext& ctx, Output flow) {
  Output barrier = ctx.OpNode("Identity", {flow}, {}, "write_barrier", {ctx.op()})->output(0);
  return ctx.OpOutputs("TensorArrayGradV3", {ctx.input(0), barrier},
                       {{"source", AttrOfString(GradSource(flow))}});
}

Status ReadGrad(GradientContext& ctx) {
  if (!ctx.has_grad(0)) return ctx.status();
  Output grad = ctx.grad(0);
  std::vector<Output> ga = GradArray(ctx, ctx.input(2));
  if (ga.size() != 2) return ctx.status();
  ctx.SetInputGrad(2, ctx.Op("TensorArrayWriteV3", {ga[0], ctx.input(1), grad, ga[1]}));
  return ctx.status();
}

Status WriteGrad(GradientContext& ctx) {
  if (!ctx.has_grad(0)) return ctx.status();
  Output flow = ctx.grad(0);
  std::vector<Output> ga = GradArray(ctx, flow);
  if (ga.size() != 2) return ctx.status();
  ctx.SetInputGrad(2, ctx.Op("TensorArrayReadV3", {ga[0], ctx.input(1), ga[1]},
                             {{"dtype", AttrOfType(ctx.AttrType("T"))}}));
  ctx.SetInputGrad(3, flow);
  return ctx.status();
}

Status GatherGrad(GradientContext& ctx) {
  if (!ctx.has_grad(0)) return ctx.status();
  Output grad = ctx.grad(0);
  std::vector<Output> ga = GradArray(ctx, ctx.input(2));
  if (ga.size() != 2) return ctx.status();
  ctx.SetInputGrad(2, ctx.Op("TensorArrayScatterV3", {ga[0], ctx.input(1), grad, ga[1]}));
  return ctx.status();
}

Status ScatterGrad(GradientContext& ctx) {
  if (!ctx.has_grad(0)) return ctx.status();
  Output flow = ctx.grad(0);
  std::vector<Output> ga = GradArray(ctx, flow);
  if (ga.size() != 2) return ctx.status();
  ctx.SetInputGrad(2, ctx.Op("TensorArrayGatherV3", {ga[0], ctx.input(1), ga[1]},
                             {{"dtype", AttrOfType(ctx.AttrType("T"))}}));
  ctx.SetInputGrad(3, flow);
  return ctx.status();
}

Status ConcatGrad(GradientContext& ctx) {
  if (!ctx.has_grad(0)) return ctx.status();
  Output grad = ctx.grad(0);
  std::vector<Output> ga = GradArray(ctx, ctx.input(1));
  if (ga.size() != 2) return ctx.status();
  ctx.SetInputGrad(1, ctx.Op("TensorArraySplitV3", {ga[0], grad, ctx.output(1), ga[1]}));
  return ctx.status();
}

Status SplitGrad(GradientContext& ctx) {
  if (!ctx.has_grad(0)) return ctx.status();
  Output flow = ctx.grad(0);
  std::vector<Output> ga = GradArray(ctx, flow);
  if (ga.size() != 2) return ctx.status();
  ctx.SetInputGrad(1, ctx.Op("TensorArrayConcatV3", {ga[0], ga[1]},
                             {{"dtype", AttrOfType(ctx.AttrType("T"))}}));
  ctx.SetInputGrad(3, flow);
  return ctx.status();
}

}  // namespace

Status RegisterListGradients(GradientFunctionRegistry& registry) {
  Status first;
  auto keep = [&first](Status s) {
    if (!s.ok() && first.ok()) first = s;
  };
  keep(registry.Register("TensorArrayReadV3", ReadGrad));
  keep(registry.Register("TensorArrayWriteV3", WriteGrad));
  keep(registry.Register("TensorArrayGatherV3", GatherGrad));
  keep(registry.Register("TensorArrayScatterV3", ScatterGrad));
  keep(registry.Register("TensorArrayConcatV3", ConcatGrad));
  keep(registry.Register("TensorArraySplitV3", SplitGrad));
  for (const char* op : {"TensorArrayV3", "TensorArrayGradV3", "TensorArraySizeV3", "TensorArrayCloseV3",
                         "StackV2", "StackPushV2", "StackPopV2", "StackCloseV2", "TensorListLength",
                         "TensorListElementShape"}) {
    keep(registry.RegisterNotDifferentiable(op));
  }
  keep(RegisterTensorListGradients(registry));
  return first;
}

}  // namespace tgraph
