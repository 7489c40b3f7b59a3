// BiasGelu: y = gelu(x + bias), the bias add and GELU activation of a transformer MLP fused
// into one pass over memory. x is [..., C], bias is [C]. `approximate` picks the tanh
// approximation (as GPT-2 / BERT code uses) over the exact erf form.
//
// A complete tgraph plugin: op definition (TF spec strings), shape function, CPU kernel for
// float and double (intra-op parallel, writes in place when it can), and its gradient: a
// helper op with its own kernel, and a gradient function that builds it. Built against the installed SDK only (tgraph/plugin.hpp over plugin.h).
#include <cmath>
#include <cstddef>
#include <cstring>
#include <string>
#include <vector>

#include "tgraph/plugin.hpp"

namespace {

using tgraph::plugin::Construction;
using tgraph::plugin::Context;
using tgraph::plugin::ShapeContext;

// Static shapes: bias must be a vector whose length matches x's last dimension; y has x's
// shape (its last dimension taken from bias when x does not know it). Shapes are partial:
// rank -1 and dims -1 mean unknown (input_shape reads one in a single call, plugin ABI 6).
void BiasGeluShape(ShapeContext& c) {
  const tgraph::plugin::PartialShape x = c.input_shape(0);
  const int x_rank = x.rank();
  const int b_rank = c.input_rank(1);
  if (b_rank >= 0 && b_rank != 1) {
    c.Fail("bias must be a vector, got rank " + std::to_string(b_rank));
    return;
  }
  if (x_rank == 0) {
    c.Fail("x must have rank >= 1 (its last dimension is the channel dimension)");
    return;
  }
  if (x_rank < 0) {
    c.SetOutputUnknownRank(0);
    return;
  }
  std::vector<int64_t> dims = x.dims;
  const int64_t channels = b_rank == 1 ? c.input_dim(1, 0) : -1;
  int64_t& last = dims.back();
  if (last >= 0 && channels >= 0 && last != channels) {
    c.Fail("x has " + std::to_string(last) + " channels but bias has " + std::to_string(channels));
    return;
  }
  if (last < 0) last = channels;
  c.SetOutput(0, dims);
}

template <typename T>
T Gelu(T v, bool approximate) {
  if (approximate) {
    const T k = static_cast<T>(0.7978845608028654);  // sqrt(2 / pi)
    return static_cast<T>(0.5) * v * (static_cast<T>(1) + std::tanh(k * (v + static_cast<T>(0.044715) * v * v * v)));
  }
  return static_cast<T>(0.5) * v * (static_cast<T>(1) + std::erf(v * static_cast<T>(0.7071067811865476)));
}

class BiasGeluKernel {
 public:
  explicit BiasGeluKernel(Construction& c) { c.GetAttr("approximate", &approximate_); }

  void Compute(Context& ctx) {
    if (ctx.input(0).dtype() == TG_DOUBLE) {
      Run<double>(ctx);
    } else {
      Run<float>(ctx);
    }
  }

 private:
  template <typename T>
  void Run(Context& ctx) {
    auto x = ctx.input(0);
    auto bias = ctx.input(1);
    if (x.rank() < 1 || bias.rank() != 1 || x.dim(x.rank() - 1) != bias.dim(0)) {
      ctx.Fail(TG_INVALID_ARGUMENT, "x must be [..., C] and bias [C]; got ranks " +
                                        std::to_string(x.rank()) + " and " + std::to_string(bias.rank()));
      return;
    }
    const int64_t channels = bias.dim(0);
    const int64_t n = x.num_elements();
    // Reuse x's buffer when nobody else needs it (the elementwise op reads each element
    // before writing it).
    auto y = ctx.ForwardOrAllocateOutput(0, 0, x.dims());
    if (!ctx.ok() || n == 0) return;
    const T* xp = x.data<T>();
    const T* bp = bias.data<T>();
    T* yp = y.mutable_data<T>();
    const bool approximate = approximate_;
    // ~20 ns per element (a transcendental and a few multiplies).
    ctx.ParallelFor(n, 20.0, [&](int64_t begin, int64_t end) {
      int64_t c = begin % channels;
      for (int64_t i = begin; i < end; ++i) {
        yp[i] = Gelu<T>(xp[i] + bp[c], approximate);
        if (++c == channels) c = 0;
      }
    });
  }

  bool approximate_ = false;
};

// d/dv gelu(v), for the gradient kernel.
template <typename T>
T GeluDerivative(T v, bool approximate) {
  if (approximate) {
    const T k = static_cast<T>(0.7978845608028654);
    const T c = static_cast<T>(0.044715);
    const T t = std::tanh(k * (v + c * v * v * v));
    return static_cast<T>(0.5) * (static_cast<T>(1) + t) +
           static_cast<T>(0.5) * v * (static_cast<T>(1) - t * t) * k *
               (static_cast<T>(1) + static_cast<T>(3) * c * v * v);
  }
  const T cdf = static_cast<T>(0.5) * (static_cast<T>(1) + std::erf(v * static_cast<T>(0.7071067811865476)));
  const T pdf = std::exp(static_cast<T>(-0.5) * v * v) * static_cast<T>(0.3989422804014327);
  return cdf + v * pdf;
}

// BiasGeluGrad(dy, x, bias) = dy * gelu'(x + bias): the gradient of BiasGelu with respect to
// x (and, summed over all but the channel dimension, with respect to bias).
class BiasGeluGradKernel {
 public:
  explicit BiasGeluGradKernel(Construction& c) { c.GetAttr("approximate", &approximate_); }

  void Compute(Context& ctx) {
    if (ctx.input(0).dtype() == TG_DOUBLE) {
      Run<double>(ctx);
    } else {
      Run<float>(ctx);
    }
  }

 private:
  template <typename T>
  void Run(Context& ctx) {
    auto dy = ctx.input(0);
    auto x = ctx.input(1);
    auto bias = ctx.input(2);
    if (x.rank() < 1 || bias.rank() != 1 || x.dim(x.rank() - 1) != bias.dim(0) ||
        dy.dims() != x.dims()) {
      ctx.Fail(TG_INVALID_ARGUMENT, "dy and x must be [..., C] of one shape and bias [C]");
      return;
    }
    const int64_t channels = bias.dim(0);
    const int64_t n = x.num_elements();
    auto dx = ctx.ForwardOrAllocateOutput(0, 0, x.dims());
    if (!ctx.ok() || n == 0) return;
    const T* dyp = dy.data<T>();
    const T* xp = x.data<T>();
    const T* bp = bias.data<T>();
    T* out = dx.mutable_data<T>();
    const bool approximate = approximate_;
    ctx.ParallelFor(n, 30.0, [&](int64_t begin, int64_t end) {
      int64_t c = begin % channels;
      for (int64_t i = begin; i < end; ++i) {
        out[i] = dyp[i] * GeluDerivative<T>(xp[i] + bp[c], approximate);
        if (++c == channels) c = 0;
      }
    });
  }

  bool approximate_ = false;
};

// The gradient of BiasGelu, built through the core's gradient services (plugin ABI 2):
// dx = BiasGeluGrad(dy, x, bias), dbias = BiasAddGrad(dx), a core op.
void BiasGeluGradient(TG_GradientContext* ctx, void* /*user_data*/, TG_Status* status) {
  const TG_CoreApi* api = tgraph::plugin::Api();
  if (api->struct_size < offsetof(TG_CoreApi, grad_set_input_gradient) + sizeof(void*)) {
    tgraph::plugin::SetStatus(status, TG_UNIMPLEMENTED,
                              "BiasGelu gradient: this tgraph core predates the gradient services");
    return;
  }
  const int dy = api->grad_output_gradient(ctx, 0);
  if (dy < 0) return;  // no gradient reaches y: none for x and bias either
  int approximate = 0;
  api->grad_attr_bool(ctx, "approximate", &approximate, status);
  if (!tgraph::plugin::IsOk(status)) return;

  TG_GradNodeBuilder* node = api->grad_new_node(ctx, "BiasGeluGrad", nullptr);
  api->grad_node_add_input(node, dy);
  api->grad_node_add_input(node, api->grad_input(ctx, 0));
  api->grad_node_add_input(node, api->grad_input(ctx, 1));
  api->grad_node_set_attr_bool(node, "approximate", approximate);
  const int dx = api->grad_finish_node(node, status);
  if (!tgraph::plugin::IsOk(status)) return;

  node = api->grad_new_node(ctx, "BiasAddGrad", nullptr);
  api->grad_node_add_input(node, dx);
  const int dbias = api->grad_finish_node(node, status);
  if (!tgraph::plugin::IsOk(status)) return;

  api->grad_set_input_gradient(ctx, 0, dx, status);
  if (!tgraph::plugin::IsOk(status)) return;
  api->grad_set_input_gradient(ctx, 1, dbias, status);
}

}  // namespace

extern "C" TG_PLUGIN_EXPORT void TG_PluginInit(const TG_PluginInitArgs* args, TG_Status* status) {
  tgraph::plugin::Init init(args, status, "bias_gelu", "1.0.0");
  init.Op(tgraph::plugin::OpBuilder("BiasGelu")
              .Input("x: T")
              .Input("bias: T")
              .Output("y: T")
              .Attr("T: {float, double}")
              .Attr("approximate: bool = false")
              .Summary("y = gelu(x + bias), bias broadcast over the last dimension of x")
              .SetShapeFn(BiasGeluShape));
  init.Kernel<BiasGeluKernel>(tgraph::plugin::KernelBuilder("BiasGelu", "CPU")
                                  .TypeConstraint("T", {TG_FLOAT, TG_DOUBLE})
                                  .CostPerElementNs(20.0));
  init.Op(tgraph::plugin::OpBuilder("BiasGeluGrad")
              .Input("dy: T")
              .Input("x: T")
              .Input("bias: T")
              .Output("dx: T")
              .Attr("T: {float, double}")
              .Attr("approximate: bool = false")
              .Summary("dy * gelu'(x + bias): BiasGelu's gradient with respect to x")
              // dx has x's shape, partial or not (plugin ABI 6).
              .SetShapeFn([](ShapeContext& c) { c.SetOutputSameAsInput(0, 1); }));
  init.Kernel<BiasGeluGradKernel>(tgraph::plugin::KernelBuilder("BiasGeluGrad", "CPU")
                                      .TypeConstraint("T", {TG_FLOAT, TG_DOUBLE})
                                      .CostPerElementNs(30.0));
  if (!init.ok()) return;

  TG_GradientDefinition grad;
  std::memset(&grad, 0, sizeof grad);
  grad.struct_size = sizeof grad;
  grad.op_type = "BiasGelu";
  grad.fn = BiasGeluGradient;
  tgraph::plugin::Api()->register_gradient(&grad, status);
}
