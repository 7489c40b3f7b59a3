// FusedBatchNormGrad, FusedBatchNormGradV2 and FusedBatchNormGradV3 on the CPU (what
// TensorFlow's own training graphs hold for a fused batch normalization), NHWC / NCHW and
// V3's NDHWC / NCDHW, x viewed as [outer, C, inner] as the forward kernel views it
// (batch_norm_ops.cc). reserve_space_1 and _2 are the forward pass's mean and variance: the
// batch's (biased) with is_training, else the given ones. With inv = 1 / sqrt(var + epsilon)
// and xc = x - mean, per channel over its n elements:
//   offset_backprop = sum(dy), scale_backprop = inv * sum(dy * xc)
//   training:  x_backprop = scale * inv * (dy - sum(dy) / n - xc * inv^2 * sum(dy * xc) / n)
//   inference: x_backprop = scale * inv * dy
// The sums are taken in double; x of type half / bfloat16 is computed in float. The trailing
// two outputs are TensorFlow's placeholders (scalars there; zeros here).
#include <Eigen/Core>

#include <cmath>
#include <string>
#include <vector>

#include "array_kernel_util.h"
#include "model_op_kernels.h"

namespace tgraph_cpu {
namespace {

using tgraph::plugin::Construction;
using tgraph::plugin::Context;
using tgraph::plugin::KernelBuilder;
using tgraph::plugin::TensorMut;
using tgraph::plugin::TensorView;
using array_util::ShapeString;

template <typename T>
class FusedBatchNormGradOp {
 public:
  explicit FusedBatchNormGradOp(Construction& c) {
    c.GetAttr("epsilon", &epsilon_);
    c.GetAttr("is_training", &training_);
    std::string format;
    if (!c.GetAttr("data_format", &format)) return;
    five_d_ = format == "NDHWC" || format == "NCDHW";
    channels_first_ = format == "NCHW" || format == "NCDHW";
  }

  void Compute(Context& ctx) {
    const TensorView dy = ctx.input(0);
    const TensorView x = ctx.input(1);
    const std::vector<int64_t> dims = x.dims();
    const size_t rank = five_d_ ? 5 : 4;
    if (dims.size() != rank || dy.dims() != dims) {
      ctx.Fail(TG_INVALID_ARGUMENT, "y_backprop and x must be " + std::to_string(rank) +
                                        "-dimensional and of one shape, got " +
                                        ShapeString(dy.dims()) + " and " + ShapeString(dims));
      return;
    }
    const size_t cdim = channels_first_ ? 1 : rank - 1;
    const int64_t channels = dims[cdim];
    int64_t outer = 1, inner = 1;
    for (size_t d = 0; d < rank; ++d) {
      if (d < cdim) outer *= dims[d];
      if (d > cdim) inner *= dims[d];
    }
    static const char* const kNames[] = {"scale", "reserve_space_1", "reserve_space_2"};
    for (int i = 2; i < 5; ++i) {
      const TensorView v = ctx.input(i);
      if (v.rank() != 1 || v.dim(0) != channels) {
        ctx.Fail(TG_INVALID_ARGUMENT, std::string(kNames[i - 2]) + " must be a vector of " +
                                          std::to_string(channels) + " values (the channels of x " +
                                          ShapeString(dims) + "), got shape " + ShapeString(v.dims()));
        return;
      }
    }
    TensorMut dx = ctx.AllocateOutput(0, dims);
    TensorMut dscale = ctx.AllocateOutput(1, {channels});
    TensorMut doffset = ctx.AllocateOutput(2, {channels});
    TensorMut placeholders[] = {ctx.AllocateOutput(3, {}), ctx.AllocateOutput(4, {})};
    if (!ctx.ok()) return;
    for (TensorMut& p : placeholders) p.mutable_data<float>()[0] = 0.0f;
    const float* scale = ctx.input(2).data<float>();
    const float* mean = ctx.input(3).data<float>();
    const float* var = ctx.input(4).data<float>();
    const T* g = dy.data<T>();
    const T* in = x.data<T>();
    const size_t nc = static_cast<size_t>(channels);
    std::vector<double> sum_dy(nc, 0.0), sum_dy_xc(nc, 0.0);
    for (int64_t r = 0; r < outer * channels; ++r) {
      const size_t c = static_cast<size_t>(r % channels);
      const T* gp = g + r * inner;
      const T* xp = in + r * inner;
      const double m = mean[c];
      double a = 0, b = 0;
      for (int64_t k = 0; k < inner; ++k) {
        const double gk = static_cast<float>(gp[k]);
        a += gk;
        b += gk * (static_cast<float>(xp[k]) - m);
      }
      sum_dy[c] += a;
      sum_dy_xc[c] += b;
    }
    // Per channel: dx = k * dy + k0 + k1 * (x - mean).
    std::vector<float> k(nc), k0(nc), k1(nc);
    const double n = static_cast<double>(outer * inner);
    float* ds = dscale.mutable_data<float>();
    float* doff = doffset.mutable_data<float>();
    for (size_t c = 0; c < nc; ++c) {
      const double inv = 1.0 / std::sqrt(static_cast<double>(var[c]) + static_cast<double>(epsilon_));
      ds[c] = static_cast<float>(sum_dy_xc[c] * inv);
      doff[c] = static_cast<float>(sum_dy[c]);
      const double si = static_cast<double>(scale[c]) * inv;
      k[c] = static_cast<float>(si);
      if (training_ && n > 0) {
        k0[c] = static_cast<float>(-si * sum_dy[c] / n);
        k1[c] = static_cast<float>(-si * inv * inv * sum_dy_xc[c] / n);
      } else {
        k0[c] = k1[c] = 0.0f;
      }
    }
    T* out = dx.mutable_data<T>();
    ctx.ParallelFor(outer * channels, 1.0 + 4.0 * static_cast<double>(inner), [&](int64_t b, int64_t e) {
      for (int64_t r = b; r < e; ++r) {
        const size_t c = static_cast<size_t>(r % channels);
        const float kc = k[c], k0c = k0[c], k1c = k1[c], mc = mean[c];
        const T* gp = g + r * inner;
        const T* xp = in + r * inner;
        T* q = out + r * inner;
        for (int64_t i = 0; i < inner; ++i) {
          q[i] = static_cast<T>(kc * static_cast<float>(gp[i]) + k0c +
                                k1c * (static_cast<float>(xp[i]) - mc));
        }
      }
    });
  }

 private:
  float epsilon_ = 1e-4f;
  bool training_ = true;
  bool five_d_ = false;
  bool channels_first_ = false;
};

}  // namespace

void RegisterBatchNormGradKernels(tgraph::plugin::Init& init) {
  init.Kernel<FusedBatchNormGradOp<float>>(
      KernelBuilder("FusedBatchNormGrad", "CPU").TypeConstraint("T", TG_FLOAT));
  for (const char* op : {"FusedBatchNormGradV2", "FusedBatchNormGradV3"}) {
    init.Kernel<FusedBatchNormGradOp<float>>(
        KernelBuilder(op, "CPU").TypeConstraint("T", TG_FLOAT).TypeConstraint("U", TG_FLOAT));
    init.Kernel<FusedBatchNormGradOp<Eigen::half>>(
        KernelBuilder(op, "CPU").TypeConstraint("T", TG_HALF).TypeConstraint("U", TG_FLOAT));
    init.Kernel<FusedBatchNormGradOp<Eigen::bfloat16>>(
        KernelBuilder(op, "CPU").TypeConstraint("T", TG_BFLOAT16).TypeConstraint("U", TG_FLOAT));
  }
}

}  // namespace tgraph_cpu
