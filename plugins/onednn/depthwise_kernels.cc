// DepthwiseConv2dNative and _FusedDepthwiseConv2dNative (NHWC) on oneDNN's depthwise
// convolution (a grouped convolution of one group per input channel: brdgmm_dw / jit_dw,
// vectorized along the channels), in float and, where oneDNN's bfloat16 kernels run, in
// bfloat16. The fused op's bias is the primitive's bias input and its activation a post-op,
// so the output is written once, biased and activated; a MobileNet's depthwise layers then
// cost one pass each instead of three (the convolution, its batch norm's offset, Relu6).
//
// Channel multiplier 1 only: oneDNN runs other multipliers on its generic grouped kernel,
// several times slower than the Eigen kernel (plugins/cpu/depthwise_conv_op.cc), so a node
// whose filter's static shape shows another multiplier is declined at creation and the Eigen
// kernel takes it (one known only at run time runs here, correctly, on that kernel). The
// filter is TensorFlow's [KH, KW, C, 1], reordered into the primitive's layout and kept
// across runs while its bytes stay the same, the split over the pool (batch elements, or
// one image's bands of output rows) and every check and message are Conv2D's
// (conv_common.h, conv2d_geometry.h, fused_epilogue.h).
#include <string>
#include <vector>

#include "bf16_mode.h"
#include "conv2d_geometry.h"
#include "conv_common.h"

namespace tgraph_onednn {
namespace {

using namespace conv;  // NOLINT: the kernels' shared pieces (conv_common.h)
using tgraph::plugin::Construction;

// kFused: _FusedDepthwiseConv2dNative (input 2 the bias).
template <typename D, bool kFused>
class DepthwiseConv2dOp {
 public:
  using T = typename D::Storage;

  explicit DepthwiseConv2dOp(Construction& c) {
    if (!tgraph_cpu::nn::GetConvAttrs(c, &attrs_)) return;
    const tgraph::plugin::PartialShape filter = c.input_shape(1);
    if (filter.rank() == 4 && filter.dims[3] >= 0 && filter.dims[3] != 1) {
      c.Decline("depthwise convolution with channel multiplier " +
                std::to_string(filter.dims[3]) + ": this kernel takes multiplier 1 only");
      return;
    }
    if constexpr (kFused) epilogue_.Read(c);
  }

  void Compute(Context& ctx) {
    // The filter's version before its bytes are read (kept_pack.h).
    const uint64_t filter_version = ctx.input_version(1);
    const auto input = ctx.input(0);
    const auto filter = ctx.input(1);
    ConvGeometry g;
    int64_t multiplier = 0;
    if (!tgraph_cpu::nn::DepthwiseForwardGeometry(ctx, attrs_, input, filter, &g, &multiplier)) {
      return;
    }
    auto out = ctx.AllocateOutput(0, {g.batch, g.out_h, g.out_w, g.out_depth});
    if (!ctx.ok()) return;
    if (kFused && !tgraph_cpu::nn::FusedEpilogue::CheckBias(ctx, D::kTg, g.out_depth)) return;
    if (g.pixels() == 0 || g.out_depth == 0) return;
    ConvShape s = ShapeOf(attrs_, g, D::kDnnl);
    s.groups = g.depth;
    const int parts = ConvParts(ctx, s.MultiplyAdds(), s.batch, std::max(s.batch, s.out_h));
    std::shared_ptr<const SplitConvEntry<dnnl::primitive>> e;
    try {
      e = cache_.Get(s.Key(parts), [&] { return ForwardEntry(s, parts, kFused ? &epilogue_ : nullptr); });
    } catch (const dnnl::error& err) {
      FailWith(ctx, What<D>(" (depthwise) creation"), err);
      return;
    }
    tgraph::plugin::TensorMut packed;
    std::shared_ptr<const KeptPack> kept;
    const void* weights =
        Reordered(ctx, e->filter, filter.data<T>(), &packed, &kept_filter_, filter_version, &kept);
    if (weights == nullptr) return;
    const T* bias = kFused ? ctx.input(2).data<T>() : nullptr;
    RunForwardParts(ctx, *e, s, input.data<T>(), weights, bias, out.mutable_data<T>(), D::kWhat);
  }

 private:
  tgraph_cpu::nn::ConvAttrs attrs_;
  FusedEpilogue epilogue_;  // kFused only
  PrimitiveCache<SplitConvEntry<dnnl::primitive>> cache_;
  KeptPackCache kept_filter_;
};

template <typename D>
void RegisterFor(tgraph::plugin::Init& init, int32_t priority) {
  using tgraph::plugin::KernelBuilder;
  init.Kernel<DepthwiseConv2dOp<D, false>>(
      KernelBuilder("DepthwiseConv2dNative", "CPU").TypeConstraint("T", D::kTg).Priority(priority));
  // At the unfused op's priority, so that the plan-time fusion (core/rewrite/fusion.cc) fuses.
  init.Kernel<DepthwiseConv2dOp<D, true>>(KernelBuilder("_FusedDepthwiseConv2dNative", "CPU")
                                              .TypeConstraint("T", D::kTg)
                                              .Priority(priority));
}

}  // namespace

void RegisterDepthwiseKernels(tgraph::plugin::Init& init) {
  RegisterFor<Float>(init, kOneDnnPriority);
  if (Bf16ChoiceForThisCpu().native_available) RegisterFor<BFloat16>(init, Bf16Priority());
}

}  // namespace tgraph_onednn
