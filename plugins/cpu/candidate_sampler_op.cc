// LogUniformCandidateSampler: samples num_sampled classes from [0, range_max) with the
// log-uniform (Zipfian) distribution
//     P(k) = (log(k + 2) - log(k + 1)) / log(range_max + 1),
// with or without replacement (unique), and reports the expected count of each true and each
// sampled class (TensorFlow's formulas: p * num_sampled, or with unique sampling
// 1 - (1 - p)^num_tries). Seeds as in random_kernels.h.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
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
    if (range_max_ <= kMaxTable) {
      probability_ = std::make_unique<Memo[]>(static_cast<size_t>(range_max_));
      log1m_probability_ = std::make_unique<Memo[]>(static_cast<size_t>(range_max_));
    }
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
    if (unique_ && num_sampled_ <= kLinearSearchMax) {
      // Few samples (nce_loss takes 64): a scan of those drawn so far beats a hash set's
      // node allocations. Same draws, same order, same result.
      int64_t n = 0;
      while (n < num_sampled_) {
        const int64_t v = draw();
        ++num_tries;
        if (std::find(out, out + n, v) == out + n) out[n++] = v;
      }
    } else if (unique_) {
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
      if (num_tries == num_sampled_)
        return static_cast<float>(Probability(k) * static_cast<double>(num_sampled_));
      return static_cast<float>(-std::expm1(static_cast<double>(num_tries) * Log1mProbability(k)));
    };
    float* te = true_expected.mutable_data<float>();
    for (int64_t i = 0; i < num_classes; ++i) te[i] = expected(classes[i]);
    float* se = sampled_expected.mutable_data<float>();
    for (int64_t i = 0; i < num_sampled_; ++i) se[i] = expected(out[i]);
  }

 private:
  // A class's terms, computed once per kernel: a step asks for 192 classes in word2vec's
  // nce_loss (true and sampled), Zipf-distributed, so most repeat across steps, and each
  // costs two logs (and a log1p) in doubles. A memo holds exactly what the formula gives
  // (NaN = not yet): results are the same bits with and without it. Concurrent steps may
  // both fill an entry, with the same value.
  struct Memo {
    std::atomic<double> value{std::numeric_limits<double>::quiet_NaN()};
  };
  static constexpr int64_t kMaxTable = int64_t{1} << 18;  // 4 MiB of memos at most
  static constexpr int64_t kLinearSearchMax = 256;

  template <typename F>
  static double Memoized(Memo* table, int64_t k, F&& compute) {
    if (table == nullptr) return compute();
    std::atomic<double>& slot = table[static_cast<size_t>(k)].value;
    double v = slot.load(std::memory_order_relaxed);
    if (std::isnan(v)) {
      v = compute();
      slot.store(v, std::memory_order_relaxed);
    }
    return v;
  }
  double Probability(int64_t k) const {
    return Memoized(probability_.get(), k, [&] {
      return (std::log(static_cast<double>(k) + 2.0) - std::log(static_cast<double>(k) + 1.0)) /
             log_range_;
    });
  }
  double Log1mProbability(int64_t k) const {
    return Memoized(log1m_probability_.get(), k, [&] { return std::log1p(-Probability(k)); });
  }

  int64_t num_true_ = 1, num_sampled_ = 1, range_max_ = 1;
  bool unique_ = false;
  double log_range_ = 0;
  std::unique_ptr<Source> source_;
  std::unique_ptr<Memo[]> probability_, log1m_probability_;  // null above kMaxTable classes
};

}  // namespace

void RegisterCandidateSamplerKernels(tgraph::plugin::Init& init) {
  init.Kernel<LogUniformSamplerOp>(KernelBuilder("LogUniformCandidateSampler", "CPU"));
}

}  // namespace tgraph_cpu
