// FusedBatchNorm, FusedBatchNormV2 and FusedBatchNormV3 on the CPU, NHWC / NCHW (and V3's
// NDHWC / NCDHW), as TensorFlow's CPU kernels compute them:
//  - inference: y = (x - mean) * scale / sqrt(variance + epsilon) + offset; batch_mean and
//    reserve_space_1 are the given mean, batch_variance and reserve_space_2 the variance;
//  - training: the batch's mean and biased variance normalise x (and go to the reserve
//    spaces); batch_variance is the unbiased one, and with exponential_avg_factor f != 1
//    the batch outputs are running averages (1 - f) * given + f * batch.
// reserve_space_3 (V3) is empty. x of type half / bfloat16 is computed in float. Plain loops
// over x viewed as [outer, C, inner]: Eigen adds nothing here but compile time.
#include <Eigen/Core>

#include <cmath>
#include <string>
#include <vector>

#include "model_op_kernels.h"

namespace tgraph_cpu {
namespace {

using tgraph::plugin::Construction;
using tgraph::plugin::Context;
using tgraph::plugin::KernelBuilder;
using tgraph::plugin::TensorMut;
using tgraph::plugin::TensorView;

std::string Dims(const std::vector<int64_t>& d) {
  std::string s = "[";
  for (size_t i = 0; i < d.size(); ++i) s.append(i ? "," : "").append(std::to_string(d[i]));
  return s + "]";
}

template <typename T>
class FusedBatchNormOp {
 public:
  explicit FusedBatchNormOp(Construction& c) {
    c.GetAttr("epsilon", &epsilon_);
    if (c.HasAttr("exponential_avg_factor")) c.GetAttr("exponential_avg_factor", &factor_);
    c.GetAttr("is_training", &training_);
    std::string format;
    if (!c.GetAttr("data_format", &format)) return;
    five_d_ = format == "NDHWC" || format == "NCDHW";
    channels_first_ = format == "NCHW" || format == "NCDHW";
  }

  void Compute(Context& ctx) {
    const TensorView x = ctx.input(0);
    const std::vector<int64_t> dims = x.dims();
    const size_t rank = five_d_ ? 5 : 4;
    if (dims.size() != rank) {
      ctx.Fail(TG_INVALID_ARGUMENT, std::string("x must be ") + std::to_string(rank) +
                                        "-dimensional, got shape " + Dims(dims));
      return;
    }
    const size_t cdim = channels_first_ ? 1 : rank - 1;
    const int64_t channels = dims[cdim];
    int64_t outer = 1, inner = 1;
    for (size_t d = 0; d < rank; ++d) {
      if (d < cdim) outer *= dims[d];
      if (d > cdim) inner *= dims[d];
    }
    const bool stats_given = !training_ || factor_ != 1.0f;
    static const char* const kNames[] = {"x", "scale", "offset", "mean", "variance"};
    for (int i = 1; i < 5; ++i) {
      const TensorView v = ctx.input(i);
      const bool may_be_empty = i >= 3 && !stats_given;
      if (v.rank() != 1 || (v.dim(0) != channels && !(may_be_empty && v.dim(0) == 0))) {
        ctx.Fail(TG_INVALID_ARGUMENT, std::string(kNames[i]) + " must be a vector of " +
                                          std::to_string(channels) +
                                          " values (the channels of x " + Dims(dims) +
                                          "), got shape " + Dims(v.dims()));
        return;
      }
    }
    TensorMut y = ctx.AllocateOutput(0, dims);
    std::vector<TensorMut> stats;
    for (int i = 1; i < 5; ++i) stats.push_back(ctx.AllocateOutput(i, {channels}));
    if (ctx.num_outputs() > 5) ctx.AllocateOutput(5, {0});
    if (!ctx.ok()) return;
    const float* scale = ctx.input(1).data<float>();
    const float* offset = ctx.input(2).data<float>();
    const T* in = x.data<T>();
    const size_t nc = static_cast<size_t>(channels);
    const int64_t count = outer * inner;  // elements per channel
    std::vector<float> mean(nc), var(nc);  // what normalises x
    float* out_stats[4];
    for (int i = 0; i < 4; ++i) out_stats[i] = stats[static_cast<size_t>(i)].mutable_data<float>();
    if (training_) {
      // Two passes in double, in memory order: the sums, then the squared deviations.
      std::vector<double> sum(nc, 0.0), sq(nc, 0.0);
      for (int64_t r = 0; r < outer * channels; ++r) {
        const T* p = in + r * inner;
        double acc = 0;
        for (int64_t k = 0; k < inner; ++k) acc += static_cast<double>(static_cast<float>(p[k]));
        sum[static_cast<size_t>(r % channels)] += acc;
      }
      const double n = static_cast<double>(count);
      for (size_t c = 0; c < nc; ++c) sum[c] = count > 0 ? sum[c] / n : 0.0;
      for (int64_t r = 0; r < outer * channels; ++r) {
        const T* p = in + r * inner;
        const double m = sum[static_cast<size_t>(r % channels)];
        double acc = 0;
        for (int64_t k = 0; k < inner; ++k) {
          const double d = static_cast<double>(static_cast<float>(p[k])) - m;
          acc += d * d;
        }
        sq[static_cast<size_t>(r % channels)] += acc;
      }
      const float* old_mean = stats_given ? ctx.input(3).data<float>() : nullptr;
      const float* old_var = stats_given ? ctx.input(4).data<float>() : nullptr;
      for (size_t c = 0; c < nc; ++c) {
        mean[c] = static_cast<float>(sum[c]);
        var[c] = count > 0 ? static_cast<float>(sq[c] / n) : 0.0f;
        // TF's batch_variance is the unbiased estimate (n / (n - 1)).
        const float unbiased =
            count > 1 ? static_cast<float>(sq[c] / (n - 1)) : var[c];
        float batch_mean = mean[c], batch_var = unbiased;
        if (factor_ != 1.0f) {
          batch_mean = (1.0f - factor_) * old_mean[c] + factor_ * batch_mean;
          batch_var = (1.0f - factor_) * old_var[c] + factor_ * batch_var;
        }
        out_stats[0][c] = batch_mean;
        out_stats[1][c] = batch_var;
        out_stats[2][c] = mean[c];
        out_stats[3][c] = var[c];
      }
    } else {
      const float* m = ctx.input(3).data<float>();
      const float* v = ctx.input(4).data<float>();
      for (size_t c = 0; c < nc; ++c) {
        mean[c] = out_stats[0][c] = out_stats[2][c] = m[c];
        var[c] = out_stats[1][c] = out_stats[3][c] = v[c];
      }
    }
    // y = (x - mean) * (scale / sqrt(var + epsilon)) + offset, per channel.
    std::vector<float> mul(nc);
    for (size_t c = 0; c < nc; ++c) mul[c] = scale[c] / std::sqrt(var[c] + epsilon_);
    T* out = y.mutable_data<T>();
    ctx.ParallelFor(outer * channels, 1.0 + 2.0 * static_cast<double>(inner),
                    [&](int64_t b, int64_t e) {
                      for (int64_t r = b; r < e; ++r) {
                        const size_t c = static_cast<size_t>(r % channels);
                        const float mc = mean[c], ac = mul[c], oc = offset[c];
                        const T* p = in + r * inner;
                        T* q = out + r * inner;
                        for (int64_t k = 0; k < inner; ++k) {
                          q[k] = static_cast<T>((static_cast<float>(p[k]) - mc) * ac + oc);
                        }
                      }
                    });
  }

 private:
  float epsilon_ = 1e-4f;
  float factor_ = 1.0f;
  bool training_ = true;
  bool five_d_ = false;
  bool channels_first_ = false;
};

}  // namespace

void RegisterBatchNormKernels(tgraph::plugin::Init& init) {
  init.Kernel<FusedBatchNormOp<float>>(
      KernelBuilder("FusedBatchNorm", "CPU").TypeConstraint("T", TG_FLOAT));
  for (const char* op : {"FusedBatchNormV2", "FusedBatchNormV3"}) {
    init.Kernel<FusedBatchNormOp<float>>(
        KernelBuilder(op, "CPU").TypeConstraint("T", TG_FLOAT).TypeConstraint("U", TG_FLOAT));
    init.Kernel<FusedBatchNormOp<Eigen::half>>(
        KernelBuilder(op, "CPU").TypeConstraint("T", TG_HALF).TypeConstraint("U", TG_FLOAT));
    init.Kernel<FusedBatchNormOp<Eigen::bfloat16>>(
        KernelBuilder(op, "CPU").TypeConstraint("T", TG_BFLOAT16).TypeConstraint("U", TG_FLOAT));
  }
}

}  // namespace tgraph_cpu
