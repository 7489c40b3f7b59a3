// _MaxPoolWithIndex and _FusedMaxPoolGradWithIndex (NHWC; core/ops/fused_ops.cc), which the
// plan-time rewrite core/rewrite/fusion_pool_index.cc puts in place of MaxPool and its
// _FusedMaxPoolGrad: the pool writes, next to each pooled value, a byte coding its window's
// winner, and the gradient reads those bytes instead of the pool's (4x larger, in float) input.
//
// The code: bits 0-6 the window-local index (over the window's pixels inside the image, rows
// then columns) of the element MaxPoolGrad (nn_backprop_pool.cc) routes the gradient to: the
// first maximum, scanning from the window's first element so that a later one wins only when
// strictly greater (a NaN wins only when it comes first); bit 7 set when that element is
// > 0, which is ReluGrad's mask over the pool's input (_FusedMaxPoolGrad's num_features 0).
// The pooled values are MaxPool's (pooling_ops.cc: from the lowest value up, NaNs skipped),
// which is not always the winner's value (a NaN first in its window), hence both maxima.
//
// Both kernels make the choices the unfused ones make, in the same order, so that the
// results are bit-identical, the bias gradient's sums included.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "nn_backprop_common.h"
#include "vector_lanes.h"

namespace tgraph_cpu::nn {
namespace {

using tgraph::plugin::Construction;
using tgraph::plugin::Context;

constexpr int64_t kMaxWindow = 128;  // window-local indices in 7 bits
constexpr int kPositive = 0x80;

// Window sizes must fit the code's 7 bits.
bool GetIndexPoolAttrs(Construction& c, PoolAttrs* a) {
  if (!GetPoolAttrs(c, /*allow_explicit=*/true, a)) return false;
  if (a->ksize[1] * a->ksize[2] > kMaxWindow) {
    c.Fail(TG_INVALID_ARGUMENT, "windows of at most " + std::to_string(kMaxWindow) +
                                    " elements are supported, got ksize " + ShapeString(a->ksize));
    return false;
  }
  return true;
}

// The windows over an NHWC input.
struct IndexPlan {
  int64_t batch = 0, in_h = 0, in_w = 0, depth = 0, out_h = 0, out_w = 0;
  int64_t k_h = 1, k_w = 1, s_h = 1, s_w = 1, pad_top = 0, pad_left = 0;
  bool disjoint = false, tiled = false;  // as MaxPoolGradPlan's (nn_backprop_pool.cc)

  std::vector<int64_t> pooled() const { return {batch, out_h, out_w, depth}; }
  // Rows [h0, h1) and columns [w0, w1) of window (oh, ow) inside the image.
  void Bounds(int64_t oh, int64_t ow, int64_t* h0, int64_t* h1, int64_t* w0, int64_t* w1) const {
    *h0 = std::max<int64_t>(oh * s_h - pad_top, 0);
    *h1 = std::min<int64_t>(oh * s_h - pad_top + k_h, in_h);
    *w0 = std::max<int64_t>(ow * s_w - pad_left, 0);
    *w1 = std::min<int64_t>(ow * s_w - pad_left + k_w, in_w);
  }
};

bool MakePlan(Context& ctx, const PoolAttrs& a, const std::vector<int64_t>& in, IndexPlan* p) {
  Window wh, ww;
  std::string error;
  if (!ComputePoolWindows(a, in[1], in[2], &wh, &ww, &error)) {
    ctx.Fail(TG_INVALID_ARGUMENT, error + ": input " + ShapeString(in) + ", ksize " + ShapeString(a.ksize));
    return false;
  }
  p->batch = in[0];
  p->in_h = in[1];
  p->in_w = in[2];
  p->depth = in[3];
  p->out_h = wh.out;
  p->out_w = ww.out;
  p->k_h = a.ksize[1];
  p->k_w = a.ksize[2];
  p->s_h = a.strides[1];
  p->s_w = a.strides[2];
  p->pad_top = wh.pad_before;
  p->pad_left = ww.pad_before;
  p->disjoint = p->s_h >= p->k_h && p->s_w >= p->k_w;
  auto tiles = [](int64_t out, int64_t stride, int64_t k, int64_t pad, int64_t in_size) {
    return stride == k && out * k - pad >= in_size;
  };
  p->tiled = p->disjoint && tiles(p->out_h, p->s_h, p->k_h, p->pad_top, p->in_h) &&
             tiles(p->out_w, p->s_w, p->k_w, p->pad_left, p->in_w);
  return true;
}

// Codes to and from a lane mask type M (vector_lanes.h): one byte per lane.
template <typename M>
inline void StoreCodes(uint8_t* p, const M& m) {
  if constexpr (std::is_integral_v<M>) {
    *p = static_cast<uint8_t>(m);
  } else {
    constexpr int kCount = sizeof(M) / sizeof(m[0]);
    typedef uint8_t B __attribute__((vector_size(kCount)));
    const B b = __builtin_convertvector(m, B);
    std::memcpy(p, &b, kCount);
  }
}
template <typename M>
inline void LoadCodes(M* m, const uint8_t* p) {
  if constexpr (std::is_integral_v<M>) {
    *m = static_cast<M>(*p);
  } else {
    constexpr int kCount = sizeof(M) / sizeof((*m)[0]);
    typedef uint8_t B __attribute__((vector_size(kCount)));
    B b;
    std::memcpy(&b, p, kCount);
    *m = __builtin_convertvector(b, M);
  }
}

// One output pixel of _MaxPoolWithIndex, over all channels in vectors: MaxPool's value and
// MaxPoolGrad's winner, kept in registers while the window's pixels are read.
template <typename T>
inline void PoolPixel(const T* image, int64_t h0, int64_t h1, int64_t w0, int64_t w1,
                      int64_t in_w, int64_t depth, T* out, uint8_t* code) {
  auto block = [&](int64_t c, auto lanes) {
    using V = typename decltype(lanes)::V;
    using M = typename decltype(lanes)::M;
    const V zero{};
    V value = zero + std::numeric_limits<T>::lowest();
    V best;
    LoadLanes(&best, image + (h0 * in_w + w0) * depth + c);
    M arg{};
    M here = arg;
    for (int64_t h = h0; h < h1; ++h) {
      for (int64_t w = w0; w < w1; ++w, here += 1) {
        V x;
        LoadLanes(&x, image + (h * in_w + w) * depth + c);
        value = x > value ? x : value;
        const auto greater = x > best;
        best = greater ? x : best;
        arg = greater ? here : arg;
      }
    }
    StoreLanes(out + c, value);
    const M codes = best > zero ? arg + kPositive : arg;
    StoreCodes(code + c, codes);
  };
  constexpr int64_t kLanes = Lanes<T>::kCount;
  int64_t c = 0;
  for (; c + kLanes <= depth; c += kLanes) block(c, Lanes<T>{});
  for (; c < depth; ++c) block(c, OneLane<T>{});
}

template <typename T>
class MaxPoolWithIndexOp {
 public:
  explicit MaxPoolWithIndexOp(Construction& c) { GetIndexPoolAttrs(c, &attrs_); }

  void Compute(Context& ctx) {
    const auto input = ctx.input(0);
    if (input.rank() != 4) {
      ctx.Fail(TG_INVALID_ARGUMENT, "input must be 4-D, got shape " + ShapeString(input.dims()));
      return;
    }
    IndexPlan p;
    if (!MakePlan(ctx, attrs_, input.dims(), &p)) return;
    auto out = ctx.AllocateOutput(0, p.pooled());
    auto index = ctx.AllocateOutput(1, p.pooled());
    if (!ctx.ok()) return;
    const int64_t pixels = p.batch * p.out_h * p.out_w;
    if (pixels == 0 || p.depth == 0) return;
    const T* in = input.template data<T>();
    T* o = out.template mutable_data<T>();
    uint8_t* codes = index.template mutable_data<uint8_t>();
    ctx.ParallelFor(pixels, static_cast<double>(p.k_h * p.k_w * p.depth),
                    [&](int64_t begin, int64_t end) {
                      for (int64_t q = begin; q < end; ++q) {
                        const int64_t n = q / (p.out_h * p.out_w);
                        int64_t h0, h1, w0, w1;
                        p.Bounds((q / p.out_w) % p.out_h, q % p.out_w, &h0, &h1, &w0, &w1);
                        if (h0 >= h1 || w0 >= w1) continue;  // cannot happen with valid attrs
                        PoolPixel(in + n * p.in_h * p.in_w * p.depth, h0, h1, w0, w1, p.in_w,
                                  p.depth, o + q * p.depth, codes + q * p.depth);
                      }
                    });
  }

 private:
  PoolAttrs attrs_;
};

// One window of windows that never overlap (DisjointWindow's kOfMaximum in
// nn_backprop_pool.cc, from the codes): every pixel of the window is written, the routed
// gradient where the code points and it is positive, else 0; `sum` receives what passes.
template <typename T>
inline void GradWindow(const uint8_t* code, const T* grad_pixel, T* grad_image, T* sum,
                       int64_t h0, int64_t h1, int64_t w0, int64_t w1, int64_t in_w,
                       int64_t depth, int64_t nc) {
  auto block = [&](int64_t c, auto lanes) {
    using V = typename decltype(lanes)::V;
    using M = typename decltype(lanes)::M;
    const V zero{};
    M codes;
    LoadCodes(&codes, code + c);
    V g, total;
    LoadLanes(&g, grad_pixel + c);
    LoadLanes(&total, sum + c);
    const V value = (codes & kPositive) != 0 ? g : zero;
    total += value;
    const M arg = codes & (kPositive - 1);
    M here{};
    for (int64_t h = h0; h < h1; ++h) {
      for (int64_t w = w0; w < w1; ++w, here += 1) {
        const V d = arg == here ? value : zero;
        StoreLanes(grad_image + (h * in_w + w) * depth + c, d);
      }
    }
    StoreLanes(sum + c, total);
  };
  constexpr int64_t kLanes = Lanes<T>::kCount;
  int64_t c = 0;
  for (; c + kLanes <= nc; c += kLanes) block(c, Lanes<T>{});
  for (; c < nc; ++c) block(c, OneLane<T>{});
}

// Inputs orig_input_shape, index, grad; outputs the gradient of the pool's input through
// ReluGrad, and its sum per channel.
template <typename T>
class FusedMaxPoolGradWithIndexOp {
 public:
  explicit FusedMaxPoolGradWithIndexOp(Construction& c) { GetIndexPoolAttrs(c, &attrs_); }

  void Compute(Context& ctx) {
    std::vector<int64_t> in_dims;
    if (!ReadShapeInput(ctx, 0, "orig_input_shape", {4}, &in_dims)) return;
    IndexPlan p;
    if (!MakePlan(ctx, attrs_, in_dims, &p)) return;
    const auto index = ctx.input(1), dy = ctx.input(2);
    if (index.dtype() != TG_UINT8) {
      ctx.Fail(TG_INVALID_ARGUMENT, "index must be uint8");
      return;
    }
    for (const auto& [what, dims] : {std::pair{"index", index.dims()}, std::pair{"grad", dy.dims()}}) {
      if (dims != p.pooled()) {
        ctx.Fail(TG_INVALID_ARGUMENT, std::string(what) + " must have the pooled shape " +
                                          ShapeString(p.pooled()) + " of orig_input_shape " +
                                          ShapeString(in_dims) + ", got " + ShapeString(dims));
        return;
      }
    }
    auto out = ctx.AllocateOutput(0, in_dims);
    auto bias = ctx.AllocateOutput(1, {p.depth});
    if (!ctx.ok()) return;
    T* b = bias.template mutable_data<T>();
    if (p.batch * p.in_h * p.in_w * p.depth == 0) {
      std::fill(b, b + p.depth, T(0));
      return;
    }
    const uint8_t* codes = index.template data<uint8_t>();
    const T* g = dy.template data<T>();
    T* dx = out.template mutable_data<T>();
    // Units of (image, channel block), as MaxPoolGradPlan cuts them.
    const int64_t blocks = std::clamp<int64_t>((16 + p.batch - 1) / std::max<int64_t>(p.batch, 1), 1,
                                               std::max<int64_t>((p.depth + 7) / 8, 1));
    const int64_t block = (p.depth + blocks - 1) / blocks;
    std::vector<double> partial(static_cast<size_t>(p.batch * p.depth));
    const double cost = static_cast<double>(p.out_h * p.out_w * p.k_h * p.k_w * block + p.in_h * p.in_w * block);
    ctx.ParallelFor(p.batch * blocks, cost, [&](int64_t begin, int64_t end) {
      std::vector<T> sum_buffer(static_cast<size_t>(block));
      T* sum = sum_buffer.data();
      for (int64_t u = begin; u < end; ++u) {
        const int64_t n = u / blocks;
        const int64_t c0 = (u % blocks) * block, c1 = std::min(c0 + block, p.depth);
        const int64_t nc = c1 - c0;
        if (nc <= 0) continue;
        const int64_t image_size = p.in_h * p.in_w * p.depth;
        T* grad_image = dx + n * image_size + c0;
        const int64_t pooled_offset = n * p.out_h * p.out_w * p.depth + c0;
        std::fill(sum, sum + nc, T(0));
        if (!p.tiled) {
          for (int64_t i = 0; i < p.in_h * p.in_w; ++i) {
            std::fill(grad_image + i * p.depth, grad_image + i * p.depth + nc, T(0));
          }
        }
        for (int64_t oh = 0; oh < p.out_h; ++oh) {
          for (int64_t ow = 0; ow < p.out_w; ++ow) {
            int64_t h0, h1, w0, w1;
            p.Bounds(oh, ow, &h0, &h1, &w0, &w1);
            if (h0 >= h1 || w0 >= w1) continue;
            const int64_t at = pooled_offset + (oh * p.out_w + ow) * p.depth;
            if (p.disjoint) {
              GradWindow(codes + at, g + at, grad_image, sum, h0, h1, w0, w1, p.in_w, p.depth, nc);
              continue;
            }
            // Overlapping windows add up in the result, positive winners only (ReluGrad's
            // mask: a winner's sign is the same for every window it wins).
            const int64_t width = w1 - w0;
            for (int64_t c = 0; c < nc; ++c) {
              const int code = codes[at + c];
              if ((code & kPositive) == 0) continue;
              const int64_t i = code & (kPositive - 1);
              grad_image[((h0 + i / width) * p.in_w + w0 + i % width) * p.depth + c] += g[at + c];
            }
          }
        }
        if (!p.disjoint) {
          for (int64_t i = 0; i < p.in_h * p.in_w; ++i) {
            const T* d = grad_image + i * p.depth;
            for (int64_t c = 0; c < nc; ++c) sum[c] += d[c];
          }
        }
        for (int64_t c = 0; c < nc; ++c) partial[static_cast<size_t>(n * p.depth + c0 + c)] = static_cast<double>(sum[c]);
      }
    });
    // Images summed in order: the result does not depend on how the pool ran the units.
    for (int64_t c = 0; c < p.depth; ++c) {
      double s = 0;
      for (int64_t n = 0; n < p.batch; ++n) s += partial[static_cast<size_t>(n * p.depth + c)];
      b[c] = static_cast<T>(s);
    }
  }

 private:
  PoolAttrs attrs_;
};

template <typename T>
void RegisterFor(tgraph::plugin::Init& init) {
  init.Kernel<MaxPoolWithIndexOp<T>>(tgraph::plugin::KernelBuilder("_MaxPoolWithIndex", "CPU")
                                         .TypeConstraint("T", DTypeOf<T>::value));
  init.Kernel<FusedMaxPoolGradWithIndexOp<T>>(
      tgraph::plugin::KernelBuilder("_FusedMaxPoolGradWithIndex", "CPU")
          .TypeConstraint("T", DTypeOf<T>::value)
          .HostMemory("orig_input_shape"));
}

}  // namespace

void RegisterPoolingWithIndex(tgraph::plugin::Init& init) {
  RegisterFor<float>(init);
  RegisterFor<double>(init);
}

}  // namespace tgraph_cpu::nn
