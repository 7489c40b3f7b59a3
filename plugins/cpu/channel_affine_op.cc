// _FusedChannelAffine (tgraph's own op, made by the plan-time fusion, fusion_affine.cc):
// y = activation(x * scale + offset), scale and offset vectors along x's last dimension, in
// one pass over x. Each element is rounded as the Mul and Add kernels it stands for round
// it (the product, then the sum: this file is compiled without floating-point contraction,
// so no FMA merges the two), so the fused graph's values are the unfused graph's exactly.
#include <string>

#include "nn_common.h"

namespace tgraph_cpu::nn {
namespace {

using tgraph::plugin::Construction;
using tgraph::plugin::Context;

template <typename T, Activation A>
void Affine(Context& ctx, const T* x, const T* scale, const T* offset, T* y, int64_t rows,
            int64_t channels) {
  ctx.ParallelFor(rows, 2.0 * static_cast<double>(channels), [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const T* in = x + r * channels;
      T* out = y + r * channels;
      for (int64_t c = 0; c < channels; ++c) {
        const T product = in[c] * scale[c];
        out[c] = Activate<A>(T(product + offset[c]), 0.0f);
      }
    }
  });
}

template <typename T>
class ChannelAffineOp {
 public:
  explicit ChannelAffineOp(Construction& c) {
    std::string activation;
    if (!c.GetAttr("activation", &activation)) return;
    if (activation == "Relu") {
      activation_ = Activation::kRelu;
    } else if (activation == "Relu6") {
      activation_ = Activation::kRelu6;
    } else if (activation != "None") {
      c.Fail(TG_INVALID_ARGUMENT, "_FusedChannelAffine: unknown activation '" + activation +
                                      "' (None, Relu or Relu6)");
    }
  }

  void Compute(Context& ctx) {
    const auto x = ctx.input(0);
    const auto scale = ctx.input(1);
    const auto offset = ctx.input(2);
    const int64_t channels = x.rank() == 0 ? -1 : x.dim(x.rank() - 1);
    for (const auto& [v, what] : {std::pair{&scale, "scale"}, std::pair{&offset, "offset"}}) {
      if (v->rank() != 1 || v->dim(0) != channels) {
        ctx.Fail(TG_INVALID_ARGUMENT, std::string(what) + " must be a vector of x's last dimension, got " +
                                          ShapeString(v->dims()) + " for x " + ShapeString(x.dims()));
        return;
      }
    }
    auto y = ctx.ForwardOrAllocateOutput(0, 0, x.dims());
    if (!ctx.ok() || x.num_elements() == 0) return;
    const T* in = x.data<T>();
    const T* s = scale.data<T>();
    const T* o = offset.data<T>();
    T* out = y.mutable_data<T>();
    const int64_t rows = x.num_elements() / channels;
    switch (activation_) {
      case Activation::kRelu: return Affine<T, Activation::kRelu>(ctx, in, s, o, out, rows, channels);
      case Activation::kRelu6: return Affine<T, Activation::kRelu6>(ctx, in, s, o, out, rows, channels);
      default: return Affine<T, Activation::kNone>(ctx, in, s, o, out, rows, channels);
    }
  }

 private:
  Activation activation_ = Activation::kNone;
};

}  // namespace

void RegisterChannelAffine(tgraph::plugin::Init& init) {
  using tgraph::plugin::KernelBuilder;
  init.Kernel<ChannelAffineOp<float>>(
      KernelBuilder("_FusedChannelAffine", "CPU").TypeConstraint("T", TG_FLOAT));
  init.Kernel<ChannelAffineOp<double>>(
      KernelBuilder("_FusedChannelAffine", "CPU").TypeConstraint("T", TG_DOUBLE));
}

}  // namespace tgraph_cpu::nn
