// _FusedMatMul, _FusedConv2D and _FusedDepthwiseConv2dNative (TensorFlow's fused
// contractions, made by the plan-time rewrites or found in frozen TF graphs): MatMul's,
// Conv2D's or DepthwiseConv2dNative's own code computes the product
// into the output, then one pass adds the bias (and the addend of a fused residual Add) and
// applies the activation in place (BiasAdd's loop), so the step, the intermediate buffers and two passes over the output are saved.
//
// fused_ops supported, and the checks of the attrs and the bias: fused_epilogue.h.
#include <string>
#include <vector>

#include "conv_pool_common.h"
#include "fused_epilogue.h"
#include "nn_common.h"

namespace tgraph_cpu::nn {
namespace {

using tgraph::plugin::Construction;
using tgraph::plugin::Context;
using tgraph::plugin::TensorMut;

// The epilogue a node's fused_ops attr asks for (parsing and bias checks shared with the
// oneDNN plugin's kernels: fused_epilogue.h).
struct Epilogue : FusedEpilogue {
  // Adds input 2 (the bias) along the last dimension of `out`, then input 3 (the addend)
  // when fused_ops has Add, and activates, in place.
  template <typename T>
  void Apply(Context& ctx, const TensorMut& out) const {
    if (!ctx.ok() || !out.valid()) return;
    const std::vector<int64_t> dims = out.dims();
    const int64_t channels = dims.empty() ? 0 : dims.back();
    if (!CheckBias(ctx, DTypeOf<T>::value, channels)) return;
    if (add && !CheckAddend(ctx, DTypeOf<T>::value, dims)) return;
    const int64_t elements = out.num_elements();
    if (elements == 0) return;
    T* data = out.template mutable_data<T>();
    AddBias<T>(ctx, data, ctx.input(2).template data<T>(), data, elements / channels, channels,
               1, activation, alpha, add ? ctx.input(3).template data<T>() : nullptr);
  }
};

template <typename T>
class FusedMatMulOp {
 public:
  explicit FusedMatMulOp(Construction& c) {
    if (!c.GetAttr("transpose_a", &trans_a_) || !c.GetAttr("transpose_b", &trans_b_)) return;
    epilogue_.Read(c);  // no residual Add: as oneDNN's _FusedMatMul, which the fusion makes
  }

  void Compute(Context& ctx) {
    const TensorMut out = MatMulToOutput<T>(ctx, trans_a_, trans_b_);
    epilogue_.Apply<T>(ctx, out);
  }

 private:
  bool trans_a_ = false;
  bool trans_b_ = false;
  Epilogue epilogue_;
};

template <typename T>
class FusedConv2DOp {
 public:
  explicit FusedConv2DOp(Construction& c) {
    if (!GetConvAttrs(c, &attrs_) || !CheckFusedConvAttrs(c)) return;
    epilogue_.Read(c, /*addend_supported=*/true);
  }

  void Compute(Context& ctx) {
    const TensorMut out = Conv2DToOutput<T>(ctx, attrs_);
    epilogue_.Apply<T>(ctx, out);
  }

 private:
  ConvAttrs attrs_;
  Epilogue epilogue_;
};

// No residual Add: TensorFlow's definition has none, and the fusion makes none.
template <typename T>
class FusedDepthwiseConv2dOp {
 public:
  explicit FusedDepthwiseConv2dOp(Construction& c) {
    if (!GetConvAttrs(c, &attrs_)) return;
    epilogue_.Read(c);
  }

  void Compute(Context& ctx) {
    const TensorMut out = DepthwiseConv2dToOutput<T>(ctx, attrs_);
    epilogue_.Apply<T>(ctx, out);
  }

 private:
  ConvAttrs attrs_;
  Epilogue epilogue_;
};

}  // namespace

void RegisterFusedContractions(tgraph::plugin::Init& init) {
  using tgraph::plugin::KernelBuilder;
  init.Kernel<FusedMatMulOp<float>>(KernelBuilder("_FusedMatMul", "CPU").TypeConstraint("T", TG_FLOAT));
  init.Kernel<FusedConv2DOp<float>>(KernelBuilder("_FusedConv2D", "CPU").TypeConstraint("T", TG_FLOAT));
  init.Kernel<FusedConv2DOp<double>>(
      KernelBuilder("_FusedConv2D", "CPU").TypeConstraint("T", TG_DOUBLE));
  init.Kernel<FusedDepthwiseConv2dOp<float>>(
      KernelBuilder("_FusedDepthwiseConv2dNative", "CPU").TypeConstraint("T", TG_FLOAT));
  init.Kernel<FusedDepthwiseConv2dOp<double>>(
      KernelBuilder("_FusedDepthwiseConv2dNative", "CPU").TypeConstraint("T", TG_DOUBLE));
}

}  // namespace tgraph_cpu::nn
