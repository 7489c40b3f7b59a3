// bfloat16 kernels for automatic mixed precision (core/rewrite/auto_mixed_precision.cc):
// BiasAdd, BiasAddGrad, Softmax, LogSoftmax, MaxPool and MaxPoolGrad, which had float /
// double kernels only; and,
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
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "bf16_bits.h"
#include "conv_pool_common.h"
#include "cwise_ops_common.h"
#include "nn_common.h"

namespace tgraph_cpu {
namespace {

using tgraph::plugin::Construction;
using tgraph::plugin::Context;
using nn::ShapeString;

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

// MaxPool (NHWC): each window's maximum, padding ignored (conv_pool_common.h's windows and
// attrs, as the float kernel of pooling_ops.cc). The maximum of bf16 values is one of them:
// exact.
class MaxPoolBf16 {
 public:
  static constexpr float kLowest = -3.38953139e38f;  // bf16's lowest finite value (0xff7f)

  explicit MaxPoolBf16(Construction& c) { nn::GetPoolAttrs(c, /*allow_explicit=*/true, &attrs_); }

  void Compute(Context& ctx) {
    const auto input = ctx.input(0);
    if (input.rank() != 4) {
      return ctx.Fail(TG_INVALID_ARGUMENT, "input must be 4-D, got shape " + ShapeString(input.dims()));
    }
    const int64_t batch = input.dim(0), in_h = input.dim(1), in_w = input.dim(2), depth = input.dim(3);
    nn::Window wh, ww;
    std::string error;
    if (!nn::ComputePoolWindows(attrs_, in_h, in_w, &wh, &ww, &error)) {
      return ctx.Fail(TG_INVALID_ARGUMENT, error + ": input " + ShapeString(input.dims()) +
                                               ", ksize " + ShapeString(attrs_.ksize));
    }
    const int64_t out_h = wh.out, out_w = ww.out;
    auto out = ctx.AllocateOutput(0, {batch, out_h, out_w, depth});
    const int64_t pixels = batch * out_h * out_w;
    if (!ctx.ok() || pixels == 0 || depth == 0) return;
    const int64_t k_h = attrs_.ksize[1], k_w = attrs_.ksize[2];
    const int64_t s_h = attrs_.strides[1], s_w = attrs_.strides[2];
    const BF16* in = input.data<BF16>();
    BF16* o = out.mutable_data<BF16>();
    ctx.ParallelFor(pixels, kCostPerElement * static_cast<double>(k_h * k_w * depth),
                    [&](int64_t begin, int64_t end) {
      std::vector<float> best(static_cast<size_t>(depth));
      for (int64_t p = begin; p < end; ++p) {
        const int64_t n = p / (out_h * out_w), oh = (p / out_w) % out_h, ow = p % out_w;
        const int64_t h0 = std::max<int64_t>(oh * s_h - wh.pad_before, 0);
        const int64_t h1 = std::min<int64_t>(oh * s_h - wh.pad_before + k_h, in_h);
        const int64_t w0 = std::max<int64_t>(ow * s_w - ww.pad_before, 0);
        const int64_t w1 = std::min<int64_t>(ow * s_w - ww.pad_before + k_w, in_w);
        std::fill(best.begin(), best.end(), kLowest);  // windows in the padding only
        for (int64_t h = h0; h < h1; ++h) {
          for (int64_t w = w0; w < w1; ++w) {
            const BF16* src = in + ((n * in_h + h) * in_w + w) * depth;
            for (int64_t c = 0; c < depth; ++c) {
              const float v = F(src[c]);
              best[static_cast<size_t>(c)] = v > best[static_cast<size_t>(c)] ? v : best[static_cast<size_t>(c)];
            }
          }
        }
        for (int64_t c = 0; c < depth; ++c) o[p * depth + c] = ToBf16(best[static_cast<size_t>(c)]);
      }
    });
  }

 private:
  nn::PoolAttrs attrs_;
};

// MaxPoolGrad (NHWC): each output gradient goes to the first maximum of its window (rows,
// then columns; a later element wins only when strictly greater), as the float kernel of
// nn_backprop_pool.cc. Overlapping windows' contributions are summed in float (one image per
// work item: images own disjoint parts of the result) and rounded once.
class MaxPoolGradBf16 {
 public:
  explicit MaxPoolGradBf16(Construction& c) { nn::GetPoolAttrs(c, /*allow_explicit=*/true, &attrs_); }

  void Compute(Context& ctx) {
    const auto x = ctx.input(0), y = ctx.input(1), dy = ctx.input(2);
    const std::vector<int64_t> in_dims = x.dims();
    if (in_dims.size() != 4) {
      return ctx.Fail(TG_INVALID_ARGUMENT, "orig_input must be 4-D, got shape " + ShapeString(in_dims));
    }
    nn::Window wh, ww;
    std::string error;
    if (!nn::ComputePoolWindows(attrs_, in_dims[1], in_dims[2], &wh, &ww, &error)) {
      return ctx.Fail(TG_INVALID_ARGUMENT, error + ": input " + ShapeString(in_dims) + ", ksize " +
                                               ShapeString(attrs_.ksize));
    }
    const std::vector<int64_t> pooled = {in_dims[0], wh.out, ww.out, in_dims[3]};
    for (const auto& [what, got] : {std::pair<const char*, std::vector<int64_t>>{"orig_output", y.dims()},
                                    std::pair<const char*, std::vector<int64_t>>{"grad", dy.dims()}}) {
      if (got != pooled) {
        return ctx.Fail(TG_INVALID_ARGUMENT, std::string(what) + " must have the pooled shape " +
                                                 ShapeString(pooled) + " of input " +
                                                 ShapeString(in_dims) + ", got " + ShapeString(got));
      }
    }
    auto out = ctx.AllocateOutput(0, in_dims);
    const int64_t batch = in_dims[0], in_h = in_dims[1], in_w = in_dims[2], depth = in_dims[3];
    const int64_t image = in_h * in_w * depth;
    if (!ctx.ok() || batch * image == 0) return;
    auto sums = ctx.AllocateTemp(TG_FLOAT, {batch * image});
    if (!ctx.ok()) return;
    float* acc = sums.mutable_data<float>();
    const int64_t out_h = wh.out, out_w = ww.out;
    const int64_t k_h = attrs_.ksize[1], k_w = attrs_.ksize[2];
    const int64_t s_h = attrs_.strides[1], s_w = attrs_.strides[2];
    const BF16* in = x.data<BF16>();
    const BF16* g = dy.data<BF16>();
    BF16* dx = out.mutable_data<BF16>();
    ctx.ParallelFor(batch, kCostPerElement * 8.0 * static_cast<double>(image),
                    [&](int64_t begin, int64_t end) {
      std::vector<float> best_v(static_cast<size_t>(depth));
      std::vector<int32_t> where_v(static_cast<size_t>(depth));  // an image is < 2^31 elements
      float* best = best_v.data();
      int32_t* where = where_v.data();
      for (int64_t n = begin; n < end; ++n) {
        float* a = acc + n * image;
        std::fill(a, a + image, 0.f);
        const BF16* img = in + n * image;
        for (int64_t oh = 0; oh < out_h; ++oh) {
          for (int64_t ow = 0; ow < out_w; ++ow) {
            const int64_t h0 = std::max<int64_t>(oh * s_h - wh.pad_before, 0);
            const int64_t h1 = std::min<int64_t>(oh * s_h - wh.pad_before + k_h, in_h);
            const int64_t w0 = std::max<int64_t>(ow * s_w - ww.pad_before, 0);
            const int64_t w1 = std::min<int64_t>(ow * s_w - ww.pad_before + k_w, in_w);
            if (h0 >= h1 || w0 >= w1) continue;  // a window in the padding only
            // The window's first element, then later ones where strictly greater: selects
            // over 32-bit lanes, which the compiler vectorises along the channels.
            const int32_t first = static_cast<int32_t>((h0 * in_w + w0) * depth);
            for (int64_t c = 0; c < depth; ++c) {
              best[c] = F(img[first + c]);
              where[c] = first + static_cast<int32_t>(c);
            }
            for (int64_t h = h0; h < h1; ++h) {
              for (int64_t w = (h == h0 ? w0 + 1 : w0); w < w1; ++w) {
                const int32_t at = static_cast<int32_t>((h * in_w + w) * depth);
                const BF16* src = img + at;
                for (int64_t c = 0; c < depth; ++c) {
                  const float v = F(src[c]);
                  const bool greater = v > best[c];
                  best[c] = greater ? v : best[c];
                  where[c] = greater ? at + static_cast<int32_t>(c) : where[c];
                }
              }
            }
            const BF16* grad = g + ((n * out_h + oh) * out_w + ow) * depth;
            for (int64_t c = 0; c < depth; ++c) a[where[c]] += F(grad[c]);
          }
        }
        for (int64_t i = 0; i < image; ++i) dx[n * image + i] = ToBf16(a[i]);
      }
    });
  }

 private:
  nn::PoolAttrs attrs_;
};

}  // namespace

void RegisterBf16Kernels(tgraph::plugin::Init& init) {
  using tgraph::plugin::KernelBuilder;
  init.Kernel<BiasAddBf16>(KernelBuilder("BiasAdd", "CPU").TypeConstraint("T", TG_BFLOAT16));
  init.Kernel<BiasAddGradBf16>(KernelBuilder("BiasAddGrad", "CPU").TypeConstraint("T", TG_BFLOAT16));
  init.Kernel<SoftmaxBf16<false>>(KernelBuilder("Softmax", "CPU").TypeConstraint("T", TG_BFLOAT16));
  init.Kernel<SoftmaxBf16<true>>(KernelBuilder("LogSoftmax", "CPU").TypeConstraint("T", TG_BFLOAT16));
  init.Kernel<MaxPoolBf16>(KernelBuilder("MaxPool", "CPU").TypeConstraint("T", TG_BFLOAT16));
  init.Kernel<MaxPoolGradBf16>(KernelBuilder("MaxPoolGrad", "CPU").TypeConstraint("T", TG_BFLOAT16));
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
