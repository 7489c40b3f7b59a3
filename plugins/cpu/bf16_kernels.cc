// bfloat16 kernels for automatic mixed precision (core/rewrite/auto_mixed_precision.cc):
// BiasAdd, BiasAddGrad, Softmax and LogSoftmax, which had float / double kernels only; and,
// at priority 1 above the generic kernels of cast_op.cc and grad_helper_cwise.cc (which
// convert element by element through Eigen's bfloat16 class, several times slower), Cast
// between float and bfloat16 and ReluGrad in bfloat16 — the Casts at the edges of every
// bf16 region and the Relu gradient between two bf16 products run on each training step.
//
// Everything works on the raw 16-bit patterns (the upper half of a float's bits) in plain
// loops the compiler vectorises: widening is a shift, rounding to nearest even is integer
// arithmetic (NaN stays a quiet NaN, as Eigen's conversion does). Each kernel computes in
// float and rounds its result once, so a bf16 op is its float twin on the rounded inputs,
// rounded.
#include "bf16_kernels.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "cwise_ops_common.h"
#include "nn_common.h"

namespace tgraph_cpu {
namespace {

using tgraph::plugin::Construction;
using tgraph::plugin::Context;
using nn::ShapeString;

// A bfloat16 value as stored: its bit pattern.
struct BF16 {
  uint16_t bits;
};

inline float F(BF16 x) {
  const uint32_t u = static_cast<uint32_t>(x.bits) << 16;
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

// Rounded to nearest even; NaN becomes the quiet NaN of its sign (0x7fc0 / 0xffc0), as with
// Eigen's conversion.
inline BF16 ToBf16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  const uint32_t rounded = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
  const bool nan = (u & 0x7fffffffu) > 0x7f800000u;
  return BF16{static_cast<uint16_t>(nan ? ((u >> 16) & 0x8000u) | 0x7fc0u : rounded)};
}

// The conversions as plain loops over restrict-qualified buffers (the compiler vectorises
// them: 8 or 16 elements per instruction).
[[gnu::noinline]] void FloatsToBf16(const float* __restrict x, uint16_t* __restrict y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    uint32_t u;
    std::memcpy(&u, x + i, sizeof u);
    const uint32_t rounded = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
    const uint32_t quiet = ((u >> 16) & 0x8000u) | 0x7fc0u;
    y[i] = static_cast<uint16_t>((u & 0x7fffffffu) > 0x7f800000u ? quiet : rounded);
  }
}
[[gnu::noinline]] void FloatsTruncatedToBf16(const float* __restrict x, uint16_t* __restrict y,
                                             int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    uint32_t u;
    std::memcpy(&u, x + i, sizeof u);
    const uint32_t quiet = ((u >> 16) & 0x8000u) | 0x7fc0u;
    y[i] = static_cast<uint16_t>((u & 0x7fffffffu) > 0x7f800000u ? quiet : u >> 16);
  }
}
[[gnu::noinline]] void Bf16ToFloats(const uint16_t* __restrict x, float* __restrict y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const uint32_t u = static_cast<uint32_t>(x[i]) << 16;
    float f;
    std::memcpy(&f, &u, sizeof f);
    y[i] = f;
  }
}

// The elementwise loops here cost about 0.1 ns per element (vectorised, in cache). Under
// 10 us of work the pool's hand-off costs more than it saves (and on a busy machine the
// helper may not run for a while): such calls run inline (cwise_ops_common.h's rule).
constexpr double kCostPerElement = 0.1;
template <typename F>
void ForElements(Context& ctx, int64_t n, F&& fn) {
  if (TooSmallForPool(n, kCostPerElement)) return fn(int64_t{0}, n);
  ctx.ParallelFor(n, kCostPerElement, std::forward<F>(fn));
}

// data_format of BiasAdd and BiasAddGrad: NHWC (channels last) or NCHW (dimension 1).
bool ReadFormat(Construction& c, bool* nchw) {
  std::string format;
  if (!c.GetAttr("data_format", &format)) return false;
  *nchw = format == "NCHW";
  if (!*nchw && format != "NHWC") {
    c.Fail(TG_INVALID_ARGUMENT, "unknown data_format '" + format + "'");
    return false;
  }
  return true;
}

// `dims` as [outer, channels, inner] around the channel dimension; false (node failed) when
// the rank is too small for the format.
bool ChannelSplit(Context& ctx, const std::vector<int64_t>& dims, bool nchw, const char* what,
                  int64_t* outer, int64_t* channels, int64_t* inner) {
  const size_t min_rank = nchw ? 3 : 2;
  if (dims.size() < min_rank) {
    ctx.Fail(TG_INVALID_ARGUMENT, std::string(what) + " must have rank at least " +
                                      std::to_string(min_rank) + " for data_format " +
                                      (nchw ? "NCHW" : "NHWC") + ", got shape " + ShapeString(dims));
    return false;
  }
  const size_t c = nchw ? 1 : dims.size() - 1;
  *outer = *inner = 1;
  for (size_t i = 0; i < c; ++i) *outer *= dims[i];
  for (size_t i = c + 1; i < dims.size(); ++i) *inner *= dims[i];
  *channels = dims[c];
  return true;
}

class BiasAddBf16 {
 public:
  explicit BiasAddBf16(Construction& c) { ReadFormat(c, &nchw_); }

  void Compute(Context& ctx) {
    const auto value = ctx.input(0);
    const auto bias = ctx.input(1);
    const std::vector<int64_t> dims = value.dims();
    int64_t outer = 0, channels = 0, inner = 0;
    if (!ChannelSplit(ctx, dims, nchw_, "value", &outer, &channels, &inner)) return;
    if (bias.rank() != 1) {
      return ctx.Fail(TG_INVALID_ARGUMENT, "bias must be 1-D, got shape " + ShapeString(bias.dims()));
    }
    if (bias.dim(0) != channels) {
      return ctx.Fail(TG_INVALID_ARGUMENT, "bias size " + std::to_string(bias.dim(0)) +
                                               " must equal the channel dimension of value " +
                                               ShapeString(dims));
    }
    auto out = ctx.ForwardOrAllocateOutput(0, 0, dims);
    if (!ctx.ok() || outer * channels * inner == 0) return;
    const BF16* x = value.data<BF16>();
    const BF16* b = bias.data<BF16>();
    BF16* o = out.mutable_data<BF16>();
    if (inner == 1) {  // channels last: rows of `channels` values
      auto rows = [&](int64_t begin, int64_t end) {
        for (int64_t r = begin; r < end; ++r) {
          const BF16* src = x + r * channels;
          BF16* dst = o + r * channels;
          for (int64_t c = 0; c < channels; ++c) dst[c] = ToBf16(F(src[c]) + F(b[c]));
        }
      };
      if (TooSmallForPool(outer * channels, kCostPerElement)) return rows(0, outer);
      return ctx.ParallelFor(outer, kCostPerElement * static_cast<double>(channels),
                             [&](int64_t begin, int64_t end) { rows(begin, end); });
    }
    ctx.ParallelFor(outer * channels, kCostPerElement * static_cast<double>(inner),
                    [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        const float bv = F(b[r % channels]);
        for (int64_t i = r * inner; i < (r + 1) * inner; ++i) o[i] = ToBf16(F(x[i]) + bv);
      }
    });
  }

 private:
  bool nchw_ = false;
};

class BiasAddGradBf16 {
 public:
  explicit BiasAddGradBf16(Construction& c) { ReadFormat(c, &nchw_); }

  void Compute(Context& ctx) {
    const auto in = ctx.input(0);
    const std::vector<int64_t> dims = in.dims();
    int64_t outer = 0, channels = 0, inner = 0;
    if (!ChannelSplit(ctx, dims, nchw_, "out_backprop", &outer, &channels, &inner)) return;
    auto out = ctx.AllocateOutput(0, {channels});
    if (!ctx.ok() || channels == 0) return;
    const BF16* x = in.data<BF16>();
    BF16* o = out.mutable_data<BF16>();
    std::vector<float> sum(static_cast<size_t>(channels), 0.f);
    if (inner == 1) {
      // Channels last: rows added into one float vector (vectorised along the channels).
      for (int64_t r = 0; r < outer; ++r) {
        const BF16* row = x + r * channels;
        for (int64_t c = 0; c < channels; ++c) sum[static_cast<size_t>(c)] += F(row[c]);
      }
    } else {
      ctx.ParallelFor(channels, static_cast<double>(outer * inner), [&](int64_t begin, int64_t end) {
        for (int64_t c = begin; c < end; ++c) {
          float s = 0;
          for (int64_t r = 0; r < outer; ++r) {
            const BF16* run = x + (r * channels + c) * inner;
            for (int64_t i = 0; i < inner; ++i) s += F(run[i]);
          }
          sum[static_cast<size_t>(c)] = s;
        }
      });
    }
    for (int64_t c = 0; c < channels; ++c) o[c] = ToBf16(sum[static_cast<size_t>(c)]);
  }

 private:
  bool nchw_ = false;
};

template <bool kLog>
class SoftmaxBf16 {
 public:
  explicit SoftmaxBf16(Construction&) {}

  void Compute(Context& ctx) {
    const auto logits = ctx.input(0);
    if (logits.rank() < 1) {
      return ctx.Fail(TG_INVALID_ARGUMENT,
                      "logits must have rank at least 1, got shape " + ShapeString(logits.dims()));
    }
    const std::vector<int64_t> dims = logits.dims();
    auto out = ctx.ForwardOrAllocateOutput(0, 0, dims);
    if (!ctx.ok() || logits.num_elements() == 0) return;
    const int64_t classes = dims.back();
    const int64_t rows = logits.num_elements() / classes;
    const BF16* in = logits.data<BF16>();
    BF16* o = out.mutable_data<BF16>();
    ctx.ParallelFor(rows, static_cast<double>(classes) * 10.0, [&](int64_t begin, int64_t end) {
      std::vector<float> y(static_cast<size_t>(classes));
      for (int64_t r = begin; r < end; ++r) {
        const BF16* x = in + r * classes;
        float max = F(x[0]);
        for (int64_t j = 1; j < classes; ++j) max = std::max(max, F(x[j]));
        float sum = 0;
        for (int64_t j = 0; j < classes; ++j) {
          y[static_cast<size_t>(j)] = F(x[j]) - max;
          sum += std::exp(y[static_cast<size_t>(j)]);
        }
        BF16* dst = o + r * classes;  // may be x itself: every element was read above
        if constexpr (kLog) {
          const float log_sum = std::log(sum);
          for (int64_t j = 0; j < classes; ++j) dst[j] = ToBf16(y[static_cast<size_t>(j)] - log_sum);
        } else {
          for (int64_t j = 0; j < classes; ++j) dst[j] = ToBf16(std::exp(y[static_cast<size_t>(j)]) / sum);
        }
      }
    });
  }
};

// ReluGrad: the gradient where the feature is positive, else 0 (NaN features give 0, as
// `f > 0` is false for them).
class ReluGradBf16 {
 public:
  explicit ReluGradBf16(Construction&) {}

  void Compute(Context& ctx) {
    const auto g = ctx.input(0);
    const auto f = ctx.input(1);
    if (g.dims() != f.dims()) {
      return ctx.Fail(TG_INVALID_ARGUMENT, "gradients and features must have the same shape, got " +
                                               ShapeString(g.dims()) + " and " + ShapeString(f.dims()));
    }
    auto out = ctx.ForwardOrAllocateOutput(0, 0, g.dims());
    const int64_t n = g.num_elements();
    if (!ctx.ok() || n == 0) return;
    const uint16_t* gv = g.data<uint16_t>();
    const uint16_t* fv = f.data<uint16_t>();
    uint16_t* o = out.mutable_data<uint16_t>();  // may be gv itself (forwarded)
    ForElements(ctx, n, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        // Positive: sign clear, not zero, not NaN (0x7f80 is +inf, which is positive), i.e.
        // bits - 1 below 0x7f80 in 16-bit arithmetic; a mask, so the loop vectorises.
        const uint16_t below = static_cast<uint16_t>(fv[i] - 1u) < 0x7f80u;
        o[i] = static_cast<uint16_t>(gv[i] & static_cast<uint16_t>(-below));
      }
    });
  }
};

// Cast float -> bfloat16 (rounded, or truncated with Truncate=true) and bfloat16 -> float.
template <bool kToBf16>
class CastBf16 {
 public:
  explicit CastBf16(Construction& c) {
    if (kToBf16 && c.HasAttr("Truncate")) c.GetAttr("Truncate", &truncate_);
  }

  void Compute(Context& ctx) {
    const auto in = ctx.input(0);
    auto out = ctx.AllocateOutput(0, in.dims());
    const int64_t n = in.num_elements();
    if (!ctx.ok() || n == 0) return;
    if constexpr (kToBf16) {
      const float* x = in.data<float>();
      uint16_t* y = out.mutable_data<uint16_t>();
      ForElements(ctx, n, [&](int64_t begin, int64_t end) {
        if (truncate_) {
          FloatsTruncatedToBf16(x + begin, y + begin, end - begin);
        } else {
          FloatsToBf16(x + begin, y + begin, end - begin);
        }
      });
    } else {
      const uint16_t* x = in.data<uint16_t>();
      float* y = out.mutable_data<float>();
      ForElements(ctx, n, [&](int64_t begin, int64_t end) { Bf16ToFloats(x + begin, y + begin, end - begin); });
    }
  }

 private:
  bool truncate_ = false;
};

}  // namespace

void RegisterBf16Kernels(tgraph::plugin::Init& init) {
  using tgraph::plugin::KernelBuilder;
  init.Kernel<BiasAddBf16>(KernelBuilder("BiasAdd", "CPU").TypeConstraint("T", TG_BFLOAT16));
  init.Kernel<BiasAddGradBf16>(KernelBuilder("BiasAddGrad", "CPU").TypeConstraint("T", TG_BFLOAT16));
  init.Kernel<SoftmaxBf16<false>>(KernelBuilder("Softmax", "CPU").TypeConstraint("T", TG_BFLOAT16));
  init.Kernel<SoftmaxBf16<true>>(KernelBuilder("LogSoftmax", "CPU").TypeConstraint("T", TG_BFLOAT16));
  // Above the generic kernels (priority 0) of the same ops and dtypes.
  init.Kernel<ReluGradBf16>(
      KernelBuilder("ReluGrad", "CPU").TypeConstraint("T", TG_BFLOAT16).Priority(1));
  init.Kernel<CastBf16<true>>(KernelBuilder("Cast", "CPU")
                                  .TypeConstraint("SrcT", TG_FLOAT)
                                  .TypeConstraint("DstT", TG_BFLOAT16)
                                  .Priority(1));
  init.Kernel<CastBf16<false>>(KernelBuilder("Cast", "CPU")
                                   .TypeConstraint("SrcT", TG_BFLOAT16)
                                   .TypeConstraint("DstT", TG_FLOAT)
                                   .Priority(1));
}

}  // namespace tgraph_cpu
