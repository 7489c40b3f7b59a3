// LogUniformCandidateSampler: samples num_sampled classes from [0, range_max) with the
// log-uniform (Zipfian) distribution
//     P(k) = (log(k + 2) - log(k + 1)) / log(range_max + 1),
// with or without replacement (unique), and reports the expected count of each true and each
// sampled class (TensorFlow's formulas: p * num_sampled, or with unique sampling
// 1 - (1 - p)^num_tries). Seeds as in random_kernels.h.
#include <cmath>
#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

#include "array_kernel_util.h"
#include "random_kernels.h"

namespace tgraph_cpu {
namespace {

using namespace array_util;
using random::Block;
using random::Source;
using tgraph::plugin::KernelBuilder;

class LogUniformSamplerOp {
 public:
  explicit LogUniformSamplerOp(Construction& c) {
    int64_t seed = 0, seed2 = 0;
    c.GetAttr("num_true", &num_true_);
    c.GetAttr("num_sampled", &num_sampled_);
    c.GetAttr("unique", &unique_);
    c.GetAttr("range_max", &range_max_);
    c.GetAttr("seed", &seed);
    c.GetAttr("seed2", &seed2);
    if (!c.ok()) return;
    if (num_true_ < 1 || num_sampled_ < 1 || range_max_ < 1) {
      c.Fail(TG_INVALID_ARGUMENT, "num_true, num_sampled and range_max must be positive");
      return;
    }
    if (unique_ && num_sampled_ > range_max_) {
      c.Fail(TG_INVALID_ARGUMENT, "Sampler's range is too small: num_sampled (" +
                                      std::to_string(num_sampled_) + ") > range_max (" +
                                      std::to_string(range_max_) + ") with unique=true");
      return;
    }
    log_range_ = std::log1p(static_cast<double>(range_max_));
    source_ = std::make_unique<Source>(seed, seed2);
  }

  void Compute(Context& ctx) {
    TensorView true_classes = ctx.input(0);
    if (true_classes.rank() != 2 || true_classes.dim(1) != num_true_) {
      ctx.Fail(TG_INVALID_ARGUMENT, "true_classes must be a matrix with num_true (" +
                                        std::to_string(num_true_) + ") columns, but has shape " +
                                        ShapeString(true_classes.dims()));
      return;
    }
    const int64_t* classes = true_classes.data<int64_t>();
    const int64_t num_classes = true_classes.num_elements();
    for (int64_t i = 0; i < num_classes; ++i) {
      if (classes[i] < 0 || classes[i] >= range_max_) {
        ctx.Fail(TG_INVALID_ARGUMENT,
                 BadIndexMessage(i, true_classes.dims(), classes[i], range_max_, "true_classes"));
        return;
      }
    }
    TensorMut sampled = ctx.AllocateOutput(0, {num_sampled_});
    TensorMut true_expected = ctx.AllocateOutput(1, true_classes.dims());
    TensorMut sampled_expected = ctx.AllocateOutput(2, {num_sampled_});
    if (!ctx.ok()) return;

    // Draws come from consecutive blocks of the stream: a block's four words make two
    // doubles, one per draw.
    int64_t* out = sampled.mutable_data<int64_t>();
    Block block{};
    int used = 2;
    auto draw = [&]() {
      if (used == 2) {
        block = source_->At(source_->Reserve(1));
        used = 0;
      }
      const double u = random::Uniform01(block[static_cast<size_t>(2 * used)],
                                         block[static_cast<size_t>(2 * used + 1)]);
      ++used;
      const auto value = static_cast<int64_t>(std::exp(u * log_range_)) - 1;
      return std::min(std::max<int64_t>(value, 0), range_max_ - 1);
    };
    int64_t num_tries = 0;
    if (unique_) {
      std::unordered_set<int64_t> seen;
      int64_t n = 0;
      while (n < num_sampled_) {
        const int64_t v = draw();
        ++num_tries;
        if (seen.insert(v).second) out[n++] = v;
      }
    } else {
      for (int64_t n = 0; n < num_sampled_; ++n) out[n] = draw();
      num_tries = num_sampled_;
    }
    auto expected = [&](int64_t k) {
      const double p = Probability(k);
      if (num_tries == num_sampled_)
        return static_cast<float>(p * static_cast<double>(num_sampled_));
      return static_cast<float>(-std::expm1(static_cast<double>(num_tries) * std::log1p(-p)));
    };
    float* te = true_expected.mutable_data<float>();
    for (int64_t i = 0; i < num_classes; ++i) te[i] = expected(classes[i]);
    float* se = sampled_expected.mutable_data<float>();
    for (int64_t i = 0; i < num_sampled_; ++i) se[i] = expected(out[i]);
  }

 private:
  double Probability(int64_t k) const {
    return (std::log(static_cast<double>(k) + 2.0) - std::log(static_cast<double>(k) + 1.0)) /
           log_range_;
  }

  int64_t num_true_ = 1, num_sampled_ = 1, range_max_ = 1;
  bool unique_ = false;
  double log_range_ = 0;
  std::unique_ptr<Source> source_;
};

}  // namespace

void RegisterCandidateSamplerKernels(tgraph::plugin::Init& init) {
  init.Kernel<LogUniformSamplerOp>(KernelBuilder("LogUniformCandidateSampler", "CPU"));
}

}  // namespace tgraph_cpu
