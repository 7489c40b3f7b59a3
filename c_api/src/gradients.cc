// TG_AddGradients and its variants: the C face of core/autodiff.
#include "c_api/src/c_api_internal.h"
#include "core/autodiff/add_gradients.h"
#include "core/autodiff/gradient_registry.h"
#include "core/plugin/registry.h"

using namespace tgraph;
using namespace tgraph::capi;

namespace {

// Reads the C arrays, runs AddGradients, and hands each GradValue to `emit`.
template <typename Emit>
Status AddGradientsImpl(const char* fn, TG_Graph* g, const char* prefix, TG_Output* y, int ny,
                        TG_Output* x, int nx, TG_Output* dx, bool allow_sparse, Emit&& emit) {
  if (g == nullptr) return NullArg(fn, "the graph");
  if (ny <= 0 || y == nullptr) return InvalidArgument(fn, ": no ys to differentiate (ny = ", ny, ")");
  if (nx < 0 || (nx > 0 && x == nullptr)) return InvalidArgument(fn, ": bad xs (nx = ", nx, ")");
  GraphLock lock(g->graph.mutex());
  TG_RETURN_IF_ERROR(CheckNotInDeviceFunction(fn, g));
  std::vector<Output> ys, xs, grad_ys;
  for (int i = 0; i < ny; ++i) {
    TG_RETURN_IF_ERROR(CheckOutput(fn, &g->graph, y[i]));
    ys.push_back(ToOutput(y[i]));
  }
  for (int i = 0; i < nx; ++i) {
    TG_RETURN_IF_ERROR(CheckOutput(fn, &g->graph, x[i]));
    xs.push_back(ToOutput(x[i]));
  }
  if (dx != nullptr) {
    for (int i = 0; i < ny; ++i) {
      TG_RETURN_IF_ERROR(CheckOutput(fn, &g->graph, dx[i]));
      grad_ys.push_back(ToOutput(dx[i]));
    }
  }
  AddGradientsOptions options;
  if (prefix != nullptr) options.prefix = prefix;
  options.allow_sparse = allow_sparse;
  TG_ASSIGN_OR_RETURN(std::vector<GradValue> grads,
                      AddGradients(g->graph, ys, xs, grad_ys, options));
  for (int i = 0; i < nx; ++i) emit(i, grads[static_cast<size_t>(i)]);
  return Status::OK();
}

TG_Output OrNull(Output o) { return o.op == nullptr ? TG_Output{nullptr, 0} : ToC(o); }

}  // namespace

extern "C" void TG_AddGradientsWithPrefix(TG_Graph* g, const char* prefix, TG_Output* y, int ny,
                                          TG_Output* x, int nx, TG_Output* dx, TG_Status* status,
                                          TG_Output* dy) {
  Guard(status, [&]() -> Status {
    const char* fn = "TG_AddGradients";
    if (nx > 0 && dy == nullptr) return NullArg(fn, "dy");
    return AddGradientsImpl(fn, g, prefix, y, ny, x, nx, dx, false,
                            [&](int i, const GradValue& v) { dy[i] = OrNull(v.values); });
  });
}

extern "C" void TG_AddGradients(TG_Graph* g, TG_Output* y, int ny, TG_Output* x, int nx,
                                TG_Output* dx, TG_Status* status, TG_Output* dy) {
  TG_AddGradientsWithPrefix(g, nullptr, y, ny, x, nx, dx, status, dy);
}

extern "C" void TG_AddGradientsSparse(TG_Graph* g, const char* prefix, TG_Output* y, int ny,
                                      TG_Output* x, int nx, TG_Output* dx, TG_Status* status,
                                      TG_Output* dy_values, TG_Output* dy_indices,
                                      TG_Output* dy_dense_shape) {
  Guard(status, [&]() -> Status {
    const char* fn = "TG_AddGradientsSparse";
    if (nx > 0 && (dy_values == nullptr || dy_indices == nullptr || dy_dense_shape == nullptr)) {
      return NullArg(fn, "an output array");
    }
    return AddGradientsImpl(fn, g, prefix, y, ny, x, nx, dx, true, [&](int i, const GradValue& v) {
      dy_values[i] = OrNull(v.values);
      dy_indices[i] = OrNull(v.indices);
      dy_dense_shape[i] = OrNull(v.dense_shape);
    });
  });
}

namespace {

// Runs a binding's gradient function for ctx.op() and takes its results into ctx. The
// callback builds through the C API on the graph's handle; the graph lock AddGradients holds
// is recursive, so its calls take it again on this thread.
Status CallGradientCallback(TG_GradientCallback fn, void* arg, GradientContext& ctx) {
  Operation* op = ctx.op();
  TG_Graph* handle = GraphHandleOf(&ctx.graph());
  if (handle == nullptr) {
    return FailedPrecondition("the gradient of op type '", op->type(),
                              "' is a binding's callback, which builds only on graphs made by "
                              "TG_NewGraph (not a function body or an internal graph)");
  }
  std::vector<TG_Output> output_grads(static_cast<size_t>(op->num_outputs()));
  for (int k = 0; k < op->num_outputs(); ++k) {
    output_grads[static_cast<size_t>(k)] = OrNull(ctx.has_grad(k) ? ctx.grad(k) : Output{});
  }
  TG_RETURN_IF_ERROR(ctx.status());
  std::vector<TG_Output> input_grads(static_cast<size_t>(op->num_inputs()), TG_Output{nullptr, 0});
  TG_Status status;
  fn(arg, handle, ToC(op), output_grads.data(), op->num_outputs(), input_grads.data(),
     op->num_inputs(), &status);
  TG_RETURN_IF_ERROR(status.status);
  for (int i = 0; i < op->num_inputs(); ++i) {
    const TG_Output g = input_grads[static_cast<size_t>(i)];
    if (g.oper == nullptr) continue;
    TG_RETURN_IF_ERROR(CheckOutput("TG_GradientCallback", &ctx.graph(), g)
                           .Prepend(StrCat("the gradient of input ", i, ": ")));
    ctx.SetInputGrad(i, ToOutput(g));
  }
  return Status::OK();
}

}  // namespace

extern "C" void TG_RegisterGradientCallback(const char* op_type, TG_GradientCallback fn,
                                            void* arg, TG_Status* status) {
  Guard(status, [&]() -> Status {
    const char* name = "TG_RegisterGradientCallback";
    if (op_type == nullptr || *op_type == '\0') return NullArg(name, "op_type");
    if (fn == nullptr) return NullArg(name, "fn");
    if (GradientRegistry::Global()->Find(op_type) != nullptr) {
      return AlreadyExists("a gradient for op type '", op_type,
                           "' is already registered (by a plugin)");
    }
    return GradientFunctionRegistry::Global().Register(
        op_type, [fn, arg](GradientContext& ctx) { return CallGradientCallback(fn, arg, ctx); });
  });
}

