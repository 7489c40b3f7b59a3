// MaxPoolGrad and AvgPoolGrad (NHWC), with the windows of MaxPool / AvgPool
// (conv_pool_common.h).
//
// MaxPoolGrad routes each output gradient to the first maximum of its window, scanning rows
// then columns (as TensorFlow does: a later element wins only when strictly greater). Windows
// may overlap, so the work is split into (image, channel block) units that own disjoint parts
// of the result: no two threads write one element.
//
// _FusedMaxPoolGrad (MaxPoolGrad -> ReluGrad, with BiasAddGrad as a second output) runs the
// same code in float, double and bfloat16 (computed in float: PoolMath below). Windows that
// never overlap (the CNN's 2x2 stride 2) take a vectorised path in float and double
// (DisjointWindow): the first layer's gradient of the bench/compare CNN step (64x28x28x32)
// went from 1.10 to 0.57-0.61 ms on one thread, about the memory's pace (bench/README.md).
//
// AvgPoolGrad is a gather: each input element sums grad / count over the windows that cover
// it, count being the number of input (not padding) elements in the window, as AvgPool
// divides by. One input pixel per work item.
#include <algorithm>
#include <string>
#include <type_traits>
#include <vector>

#include "bf16_bits.h"
#include "nn_backprop_common.h"
#include "vector_lanes.h"

namespace tgraph_cpu::nn {
namespace {

using tgraph::plugin::Construction;
using tgraph::plugin::Context;

// The pooled output shape of `input` (NHWC), or a failed context.
bool PooledShape(Context& ctx, const PoolAttrs& attrs, const std::vector<int64_t>& input,
                 Window* wh, Window* ww, std::vector<int64_t>* out) {
  std::string error;
  if (!ComputePoolWindows(attrs, input[1], input[2], wh, ww, &error)) {
    ctx.Fail(TG_INVALID_ARGUMENT,
             error + ": input " + ShapeString(input) + ", ksize " + ShapeString(attrs.ksize));
    return false;
  }
  *out = {input[0], wh->out, ww->out, input[3]};
  return true;
}

// `t` must have the pooled shape `want`.
bool CheckPooledShape(Context& ctx, const char* what, const std::vector<int64_t>& got,
                      const std::vector<int64_t>& want, const std::vector<int64_t>& input) {
  if (got == want) return true;
  ctx.Fail(TG_INVALID_ARGUMENT, std::string(what) + " must have the pooled shape " +
                                    ShapeString(want) + " of input " + ShapeString(input) +
                                    ", got " + ShapeString(got));
  return false;
}

// Where the max-pool gradient of an NHWC input goes, and how the work is cut: units of
// (image, channel block) that own disjoint parts of the result, so no two threads write one
// element.
struct MaxPoolGradPlan {
  int64_t batch = 0, in_h = 0, in_w = 0, depth = 0, out_h = 0, out_w = 0;
  int64_t k_h = 1, k_w = 1, s_h = 1, s_w = 1, pad_top = 0, pad_left = 0;
  int64_t blocks = 1, block = 0;  // channel blocks per image, channels per block
  // Windows that never overlap (stride >= window): each window writes its pixels' gradient
  // outright (the routed value or 0), and only pixels no window covers need zeroing first;
  // when the windows tile the image (2x2 stride 2 SAME, ...) there are none.
  bool disjoint = false, tiled = false;

  int64_t units() const { return batch * blocks; }
  double CostPerUnit() const {
    return static_cast<double>(out_h * out_w * k_h * k_w * block + in_h * in_w * block);
  }
};

MaxPoolGradPlan PlanMaxPoolGrad(const PoolAttrs& attrs, const std::vector<int64_t>& in_dims,
                                const Window& wh, const Window& ww) {
  MaxPoolGradPlan p;
  p.batch = in_dims[0];
  p.in_h = in_dims[1];
  p.in_w = in_dims[2];
  p.depth = in_dims[3];
  p.out_h = wh.out;
  p.out_w = ww.out;
  p.k_h = attrs.ksize[1];
  p.k_w = attrs.ksize[2];
  p.s_h = attrs.strides[1];
  p.s_w = attrs.strides[2];
  p.pad_top = wh.pad_before;
  p.pad_left = ww.pad_before;
  // Few images: split the channels too, so every thread has work (blocks of >= 8 channels
  // keep the inner loops vectorisable).
  p.blocks = std::clamp<int64_t>((16 + p.batch - 1) / std::max<int64_t>(p.batch, 1), 1,
                                 std::max<int64_t>((p.depth + 7) / 8, 1));
  p.block = (p.depth + p.blocks - 1) / p.blocks;
  p.disjoint = p.s_h >= p.k_h && p.s_w >= p.k_w;
  // Windows [o * k - pad, o * k - pad + k) for o < out, back to back, cover [0, in).
  auto tiles = [](int64_t out, int64_t stride, int64_t k, int64_t pad, int64_t in) {
    return stride == k && out * k - pad >= in;
  };
  p.tiled = p.disjoint && tiles(p.out_h, p.s_h, p.k_h, p.pad_top, p.in_h) &&
            tiles(p.out_w, p.s_w, p.k_w, p.pad_left, p.in_w);
  return p;
}

// How a storage type computes: float and double in themselves, bfloat16 (_FusedMaxPoolGrad
// only) in float — widened when read, rounded once when a sum is written; a routed or
// masked gradient is a copy, exact in any type.
template <typename T>
struct PoolMath {
  using Acc = T;
  static Acc Load(T x) { return x; }
  static T Store(Acc x) { return x; }
};
template <>
struct PoolMath<BF16> {
  using Acc = float;
  static float Load(BF16 x) { return F(x); }
  static BF16 Store(float x) { return ToBf16(x); }
};

// What a window's routed gradient goes through (_FusedMaxPoolGrad's ReluGrad).
enum class ReluMask {
  kNone,        // MaxPoolGrad
  kOfMaximum,   // features are orig_input: the maximum's sign
  kOfFeatures,  // features of their own: each pixel's sign
};

// One window of windows that never overlap, in float or double: MaxPoolGradUnits' general
// loops below make the same choices in the same order, and this is their fast path. The
// channels go in vectors (vector_lanes.h) whose maxima, window-local indices of the maxima
// and routed gradient stay in registers while the window's pixels are read; then every pixel
// of the window is written (the routed value or 0). `sum` (the unit's bias gradient, with a
// mask) receives what the window passes on. All reads of a vector's channels come before
// its writes, so the result may be orig_input's buffer. The indices are as wide as the lanes
// (int32 for float): a window of 2^31 pixels takes the general loops.
template <typename T, ReluMask kMask>
inline void DisjointWindow(const T* image, const T* mask, T* grad_image, const T* grad_pixel,
                           T* sum, int64_t h0, int64_t h1, int64_t w0, int64_t w1, int64_t in_w,
                           int64_t depth, int64_t nc) {
  auto block = [&](int64_t c, auto lanes) {
    using V = typename decltype(lanes)::V;
    using M = typename decltype(lanes)::M;
    const V zero{};
    V mx;
    LoadLanes(&mx, image + (h0 * in_w + w0) * depth + c);
    M arg{};
    M here = arg;  // the window-local index of pixel (h, w), in every lane
    for (int64_t h = h0; h < h1; ++h) {
      for (int64_t w = w0; w < w1; ++w, here += 1) {
        if (h == h0 && w == w0) continue;
        V x;
        LoadLanes(&x, image + (h * in_w + w) * depth + c);
        const auto greater = x > mx;
        mx = greater ? x : mx;
        arg = greater ? here : arg;
      }
    }
    V g, value, total = zero;
    LoadLanes(&g, grad_pixel + c);
    value = g;
    if constexpr (kMask != ReluMask::kNone) LoadLanes(&total, sum + c);
    if constexpr (kMask == ReluMask::kOfMaximum) {
      value = mx > zero ? g : zero;
      total += value;
    }
    here = M{};
    for (int64_t h = h0; h < h1; ++h) {
      for (int64_t w = w0; w < w1; ++w, here += 1) {
        const int64_t at = (h * in_w + w) * depth + c;
        V d;
        if constexpr (kMask == ReluMask::kOfFeatures) {
          V f;
          LoadLanes(&f, mask + at);
          const auto keep = (arg == here) & (f > zero);
          d = keep ? value : zero;
          total += keep ? g : zero;
        } else {
          d = arg == here ? value : zero;
        }
        StoreLanes(grad_image + at, d);
      }
    }
    if constexpr (kMask != ReluMask::kNone) StoreLanes(sum + c, total);
  };
  constexpr int64_t kLanes = Lanes<T>::kCount;
  int64_t c = 0;
  for (; c + kLanes <= nc; c += kLanes) block(c, Lanes<T>{});
  for (; c < nc; ++c) block(c, OneLane<T>{});
}

// The max-pool gradient of units [begin, end): each output gradient goes to the first
// maximum of its window, scanning rows then columns (as TensorFlow does: a later element
// wins only when strictly greater, so a NaN wins only when it comes first).
//
// With `features` (_FusedMaxPoolGrad), the result then goes through ReluGrad (kept where
// features > 0, else 0), and `bias_partial` ([batch, depth]) receives each image's sum of
// the result per channel. `features_are_input`: features is orig_input itself, so the
// element a window routes to is its maximum, and the mask is the maximum's sign.
//
// Per window, each loop runs over the unit's channels (contiguous: it vectorises), finding
// the maxima and their window-local indices (Index: int32 whenever a window fits, so that it
// shares the floats' vector lanes) without a branch on the data. The kernel is bound by
// memory: each input pixel is read once and each result pixel written once. Overlapping
// windows add up in the result itself, or for bfloat16 in a float image of the unit's
// channels, rounded once when the unit is done (as the bf16 MaxPoolGrad sums).
template <typename T, typename Index>
void MaxPoolGradUnits(const MaxPoolGradPlan& p, const T* in, const T* g, const T* features,
                      bool features_are_input, T* dx, double* bias_partial, int64_t begin,
                      int64_t end) {
  using M = PoolMath<T>;
  using A = typename M::Acc;
  constexpr bool kWide = !std::is_same_v<T, A>;  // computes in a wider type than it stores
  // Routed and masked gradients are copies of stored values: copied as their bits (plain
  // integer selects for bfloat16, which vectorise), never widened and rounded back.
  using Bits = std::conditional_t<kWide, uint16_t, T>;
  static_assert(sizeof(Bits) == sizeof(T));
  const int64_t depth = p.depth, in_w = p.in_w, image_size = p.in_h * p.in_w * p.depth;
  const T zero = M::Store(A(0));
  std::vector<A> max_buffer(static_cast<size_t>(p.block));
  std::vector<Bits> routed_buffer(max_buffer.size());
  std::vector<A> sum_buffer(max_buffer.size());
  std::vector<Index> arg_buffer(max_buffer.size());
  // For bfloat16, the maxima's indices narrowed to 16 bits before the writes, so that the
  // selects compare and copy 16-bit lanes (mixed 32- and 16-bit lanes do not vectorise).
  const bool narrow_args = kWide && p.k_h * p.k_w <= 0xffff;
  std::vector<uint16_t> arg16_buffer(narrow_args ? max_buffer.size() : 0);
  uint16_t* __restrict arg16 = arg16_buffer.data();
  // Overlapping windows' sums for a wide type: [in_h * in_w, block].
  std::vector<A> acc_buffer(kWide && !p.disjoint ? static_cast<size_t>(p.in_h * p.in_w * p.block) : 0);
  A* __restrict mx = max_buffer.data();
  Bits* __restrict routed = routed_buffer.data();
  A* __restrict sum = sum_buffer.data();  // per image: a few hundred windows, in A
  Index* __restrict arg = arg_buffer.data();
  const bool relu = features != nullptr;
  for (int64_t u = begin; u < end; ++u) {
    const int64_t n = u / p.blocks;
    const int64_t c0 = (u % p.blocks) * p.block, c1 = std::min(c0 + p.block, depth);
    const int64_t nc = c1 - c0;
    if (nc <= 0) continue;
    // No __restrict on image and grad_image: the result may be orig_input's buffer (tiled
    // windows read each pixel before writing it). The loops' own pointers below each touch
    // one of them only.
    const T* image = in + n * image_size + c0;
    const T* mask = relu ? features + n * image_size + c0 : nullptr;
    T* grad_image = dx + n * image_size + c0;
    const T* grad = g + n * p.out_h * p.out_w * depth + c0;
    // Where overlapping windows add up: the result, or the float image (pixel stride nc).
    A* acc_image = nullptr;
    int64_t acc_stride = depth;
    if constexpr (kWide) {
      acc_image = acc_buffer.data();
      acc_stride = nc;
    } else {
      acc_image = grad_image;
    }
    std::fill(sum, sum + nc, A(0));
    if (p.tiled) {
      // Every pixel is written below.
    } else if (kWide && !p.disjoint) {
      std::fill(acc_image, acc_image + p.in_h * p.in_w * nc, A(0));
    } else if (nc == depth) {
      std::fill(grad_image, grad_image + image_size, zero);
    } else {
      for (int64_t i = 0; i < p.in_h * p.in_w; ++i) {
        std::fill(grad_image + i * depth, grad_image + i * depth + nc, zero);
      }
    }
    for (int64_t oh = 0; oh < p.out_h; ++oh) {
      const int64_t h0 = std::max<int64_t>(oh * p.s_h - p.pad_top, 0);
      const int64_t h1 = std::min<int64_t>(oh * p.s_h - p.pad_top + p.k_h, p.in_h);
      for (int64_t ow = 0; ow < p.out_w; ++ow) {
        const int64_t w0 = std::max<int64_t>(ow * p.s_w - p.pad_left, 0);
        const int64_t w1 = std::min<int64_t>(ow * p.s_w - p.pad_left + p.k_w, in_w);
        if (h0 >= h1 || w0 >= w1) continue;  // cannot happen with valid attrs; be safe
        if constexpr (!kWide) {
          if (p.disjoint && p.k_h * p.k_w < (int64_t{1} << 31)) {
            const T* grad_pixel = grad + (oh * p.out_w + ow) * depth;
            if (!relu) {
              DisjointWindow<T, ReluMask::kNone>(image, mask, grad_image, grad_pixel, sum, h0, h1,
                                                 w0, w1, in_w, depth, nc);
            } else if (features_are_input) {
              DisjointWindow<T, ReluMask::kOfMaximum>(image, mask, grad_image, grad_pixel, sum,
                                                      h0, h1, w0, w1, in_w, depth, nc);
            } else {
              DisjointWindow<T, ReluMask::kOfFeatures>(image, mask, grad_image, grad_pixel, sum,
                                                       h0, h1, w0, w1, in_w, depth, nc);
            }
            continue;
          }
        }
        {
          const T* __restrict v = image + (h0 * in_w + w0) * depth;
          for (int64_t c = 0; c < nc; ++c) {
            mx[c] = M::Load(v[c]);
            arg[c] = 0;
          }
        }
        Index at_window = 0;
        for (int64_t h = h0; h < h1; ++h) {
          for (int64_t w = w0; w < w1; ++w, ++at_window) {
            if (at_window == 0) continue;
            const T* __restrict v = image + (h * in_w + w) * depth;
            const Index here = at_window;
            for (int64_t c = 0; c < nc; ++c) {
              const A m = mx[c], x = M::Load(v[c]);
              const Index a = arg[c];
              const bool greater = x > m;
              mx[c] = greater ? x : m;
              arg[c] = greater ? here : a;
            }
          }
        }
        const T* __restrict grad_pixel = grad + (oh * p.out_w + ow) * depth;
        if (!p.disjoint) {
          // Overlapping windows add up; ReluGrad's mask comes after the unit is done.
          const int64_t width = w1 - w0;
          for (int64_t c = 0; c < nc; ++c) {
            const int64_t i = static_cast<int64_t>(arg[c]);
            acc_image[((h0 + i / width) * in_w + w0 + i % width) * acc_stride + c] +=
                M::Load(grad_pixel[c]);
          }
          continue;
        }
        // The value each window's maximum receives: the gradient as stored, or masked by the
        // maximum's sign in `routed`.
        const Bits* __restrict stored = reinterpret_cast<const Bits*>(grad_pixel);
        const Bits* __restrict value = stored;
        if (relu && features_are_input) {
          for (int64_t c = 0; c < nc; ++c) {
            const bool keep = mx[c] > A(0);
            if constexpr (kWide) {
              routed[c] = stored[c] & static_cast<uint16_t>(-static_cast<int32_t>(keep));
            } else {
              routed[c] = keep ? stored[c] : Bits(0);
            }
            sum[c] += keep ? M::Load(grad_pixel[c]) : A(0);
          }
          value = routed;
        }
        if (narrow_args) {
          for (int64_t c = 0; c < nc; ++c) arg16[c] = static_cast<uint16_t>(arg[c]);
        }
        Index here = 0;
        for (int64_t h = h0; h < h1; ++h) {
          for (int64_t w = w0; w < w1; ++w, ++here) {
            const int64_t at = (h * in_w + w) * depth;
            Bits* __restrict d = reinterpret_cast<Bits*>(grad_image + at);
            if constexpr (kWide) {
              if (narrow_args && !(relu && !features_are_input)) {
                // As an AND with an all-ones or zero mask: a select of stores would be a branch.
                const uint16_t here16 = static_cast<uint16_t>(here);
                for (int64_t c = 0; c < nc; ++c) {
                  d[c] = value[c] & static_cast<uint16_t>(-static_cast<int32_t>(arg16[c] == here16));
                }
                continue;
              }
            }
            if (relu && !features_are_input) {
              const T* __restrict f = mask + at;
              for (int64_t c = 0; c < nc; ++c) {
                const bool keep = arg[c] == here && M::Load(f[c]) > A(0);
                d[c] = keep ? value[c] : Bits(0);
                sum[c] += keep ? M::Load(grad_pixel[c]) : A(0);
              }
            } else {
              for (int64_t c = 0; c < nc; ++c) d[c] = arg[c] == here ? value[c] : Bits(0);
            }
          }
        }
      }
    }
    if (!p.disjoint && (relu || kWide)) {
      // The mask (fused), and for a wide type the rounding of the sums.
      for (int64_t i = 0; i < p.in_h * p.in_w; ++i) {
        T* d = grad_image + i * depth;  // a float result is its own sums: no __restrict
        const A* a = acc_image + i * acc_stride;
        const T* __restrict f = relu ? mask + i * depth : nullptr;
        for (int64_t c = 0; c < nc; ++c) {
          const A v = !relu || M::Load(f[c]) > A(0) ? a[c] : A(0);
          sum[c] += v;
          d[c] = M::Store(v);
        }
      }
    }
    if (!relu) continue;
    for (int64_t c = 0; c < nc; ++c) bias_partial[n * depth + c0 + c] = static_cast<double>(sum[c]);
  }
}

// MaxPoolGrad (kFused false): inputs orig_input, orig_output, grad. _FusedMaxPoolGrad (kFused,
// core/ops/fused_ops.cc; made by the plan-time fusion from MaxPoolGrad -> ReluGrad (->
// BiasAddGrad)): a fourth input, ReluGrad's features, and a second output, the result's sum
// per channel (BiasAddGrad of it).
template <typename T, bool kFused>
class MaxPoolGradOp {
 public:
  explicit MaxPoolGradOp(Construction& c) {
    if (!GetPoolAttrs(c, /*allow_explicit=*/true, &attrs_)) return;
    if constexpr (kFused) {
      if (c.GetAttr("num_features", &num_features_) && num_features_ > 1) {
        c.Fail(TG_INVALID_ARGUMENT, "num_features must be 0 or 1, got " +
                                        std::to_string(num_features_));
      }
    }
  }

  void Compute(Context& ctx) {
    const auto x = ctx.input(0), y = ctx.input(1), dy = ctx.input(2);
    const std::vector<int64_t> in_dims = x.dims();
    if (in_dims.size() != 4) {
      ctx.Fail(TG_INVALID_ARGUMENT, "orig_input must be 4-D, got shape " + ShapeString(in_dims));
      return;
    }
    Window wh, ww;
    std::vector<int64_t> pooled;
    if (!PooledShape(ctx, attrs_, in_dims, &wh, &ww, &pooled) ||
        !CheckPooledShape(ctx, "orig_output", y.dims(), pooled, in_dims) ||
        !CheckPooledShape(ctx, "grad", dy.dims(), pooled, in_dims)) {
      return;
    }
    // _FusedMaxPoolGrad's features: input 3, or orig_input itself when there is none.
    const T* features = nullptr;
    if constexpr (kFused) {
      if (num_features_ > 0) {
        const auto f = ctx.input(3);
        if (f.dims() != in_dims) {
          ctx.Fail(TG_INVALID_ARGUMENT, "features must have orig_input's shape " +
                                            ShapeString(in_dims) + ", got " + ShapeString(f.dims()));
          return;
        }
        features = f.template data<T>();
      } else {
        features = x.template data<T>();
      }
    }
    const MaxPoolGradPlan p = PlanMaxPoolGrad(attrs_, in_dims, wh, ww);
    // Tiled windows read each pixel before writing it, and no other window reads it: the
    // result may take orig_input's buffer when nobody else holds it (it is usually dead
    // after the gradient), and writes into lines that are already in the cache.
    auto out = p.tiled ? ctx.ForwardOrAllocateOutput(0, 0, in_dims) : ctx.AllocateOutput(0, in_dims);
    if (!ctx.ok()) return;
    tgraph::plugin::TensorMut bias;
    if constexpr (kFused) {
      bias = ctx.AllocateOutput(1, {p.depth});
      if (!ctx.ok()) return;
    }
    if (p.batch * p.in_h * p.in_w * p.depth == 0) {
      if constexpr (kFused) {
        std::fill(bias.template mutable_data<T>(), bias.template mutable_data<T>() + p.depth,
                  PoolMath<T>::Store(0));
      }
      return;
    }
    const T* in = x.template data<T>();
    const T* g = dy.template data<T>();
    T* dx = out.template mutable_data<T>();
    const bool features_are_input = kFused && num_features_ == 0;
    std::vector<double> partial(kFused ? static_cast<size_t>(p.batch * p.depth) : 0);
    // Window-local indices fit int32 unless one window spans 2^31 pixels.
    const bool narrow = p.in_h * p.in_w < (int64_t{1} << 31);
    ctx.ParallelFor(p.units(), p.CostPerUnit(), [&](int64_t begin, int64_t end) {
      if (narrow) {
        MaxPoolGradUnits<T, int32_t>(p, in, g, features, features_are_input, dx, partial.data(),
                                     begin, end);
      } else {
        MaxPoolGradUnits<T, int64_t>(p, in, g, features, features_are_input, dx, partial.data(),
                                     begin, end);
      }
    });
    if constexpr (kFused) {
      // Images summed in order: the result does not depend on how the pool ran the units.
      T* b = bias.template mutable_data<T>();
      for (int64_t c = 0; c < p.depth; ++c) {
        double s = 0;
        for (int64_t n = 0; n < p.batch; ++n) s += partial[static_cast<size_t>(n * p.depth + c)];
        b[c] = PoolMath<T>::Store(static_cast<typename PoolMath<T>::Acc>(s));
      }
    }
  }

 private:
  PoolAttrs attrs_;
  int64_t num_features_ = 0;  // _FusedMaxPoolGrad: 1 when ReluGrad's features are input 3
};

template <typename T>
class AvgPoolGradOp {
 public:
  explicit AvgPoolGradOp(Construction& c) { GetPoolAttrs(c, /*allow_explicit=*/false, &attrs_); }

  void Compute(Context& ctx) {
    std::vector<int64_t> in_dims;
    if (!ReadShapeInput(ctx, 0, "orig_input_shape", {4}, &in_dims)) return;
    const auto dy = ctx.input(1);
    Window wh, ww;
    std::vector<int64_t> pooled;
    if (!PooledShape(ctx, attrs_, in_dims, &wh, &ww, &pooled) ||
        !CheckPooledShape(ctx, "grad", dy.dims(), pooled, in_dims)) {
      return;
    }
    auto out = ctx.AllocateOutput(0, in_dims);
    if (!ctx.ok()) return;
    const int64_t batch = in_dims[0], in_h = in_dims[1], in_w = in_dims[2], depth = in_dims[3];
    if (batch * in_h * in_w * depth == 0) return;
    const int64_t out_h = wh.out, out_w = ww.out;
    const int64_t k_h = attrs_.ksize[1], k_w = attrs_.ksize[2];
    const int64_t s_h = attrs_.strides[1], s_w = attrs_.strides[2];
    const int64_t pad_top = wh.pad_before, pad_left = ww.pad_before;
    // Input (not padding) rows and columns of each window: count = rows * cols.
    auto covered = [](int64_t n_out, int64_t stride, int64_t pad, int64_t k, int64_t in) {
      std::vector<int64_t> v(static_cast<size_t>(n_out));
      for (int64_t o = 0; o < n_out; ++o) {
        const int64_t start = o * stride - pad;
        v[static_cast<size_t>(o)] = std::min<int64_t>(start + k, in) - std::max<int64_t>(start, 0);
      }
      return v;
    };
    const std::vector<int64_t> rows = covered(out_h, s_h, pad_top, k_h, in_h);
    const std::vector<int64_t> cols = covered(out_w, s_w, pad_left, k_w, in_w);
    const T* g = dy.template data<T>();
    T* dx = out.template mutable_data<T>();
    // The first output index whose window (start o * stride - pad, length k) reaches i, and
    // the last one starting at or before i.
    auto first_window = [](int64_t i, int64_t stride, int64_t pad, int64_t k) {
      const int64_t t = i + pad - k + 1;
      return t <= 0 ? int64_t{0} : (t + stride - 1) / stride;
    };
    const double cost =
        static_cast<double>(depth * ((k_h + s_h - 1) / s_h) * ((k_w + s_w - 1) / s_w) + depth);
    ctx.ParallelFor(batch * in_h * in_w, cost, [&](int64_t begin, int64_t end) {
      for (int64_t p = begin; p < end; ++p) {
        const int64_t n = p / (in_h * in_w);
        const int64_t ih = (p / in_w) % in_h;
        const int64_t iw = p % in_w;
        T* dst = dx + p * depth;
        std::fill(dst, dst + depth, T(0));
        const int64_t oh0 = first_window(ih, s_h, pad_top, k_h);
        const int64_t oh1 = std::min<int64_t>((ih + pad_top) / s_h, out_h - 1);
        const int64_t ow0 = first_window(iw, s_w, pad_left, k_w);
        const int64_t ow1 = std::min<int64_t>((iw + pad_left) / s_w, out_w - 1);
        for (int64_t oh = oh0; oh <= oh1; ++oh) {
          for (int64_t ow = ow0; ow <= ow1; ++ow) {
            const int64_t count =
                std::max<int64_t>(rows[static_cast<size_t>(oh)] * cols[static_cast<size_t>(ow)], 1);
            const T scale = T(1) / static_cast<T>(count);
            const T* src = g + ((n * out_h + oh) * out_w + ow) * depth;
            for (int64_t c = 0; c < depth; ++c) dst[c] += src[c] * scale;
          }
        }
      }
    });
  }

 private:
  PoolAttrs attrs_;
};

template <typename T>
void RegisterFor(tgraph::plugin::Init& init) {
  init.Kernel<MaxPoolGradOp<T, false>>(
      tgraph::plugin::KernelBuilder("MaxPoolGrad", "CPU").TypeConstraint("T", DTypeOf<T>::value));
  init.Kernel<MaxPoolGradOp<T, true>>(tgraph::plugin::KernelBuilder("_FusedMaxPoolGrad", "CPU")
                                          .TypeConstraint("T", DTypeOf<T>::value));
  init.Kernel<AvgPoolGradOp<T>>(tgraph::plugin::KernelBuilder("AvgPoolGrad", "CPU")
                                    .TypeConstraint("T", DTypeOf<T>::value)
                                    .HostMemory("orig_input_shape"));
}

}  // namespace

void RegisterPoolingGrad(tgraph::plugin::Init& init) {
  RegisterFor<float>(init);
  RegisterFor<double>(init);
  // bfloat16 (mixed precision's CNN step): the fused gradient only; MaxPoolGrad and
  // ReluGrad in bfloat16 are bf16_kernels.cc's. At the priority of its ReluGrad (1), which
  // the plan-time fusion must not find above the fused kernel's.
  init.Kernel<MaxPoolGradOp<BF16, true>>(tgraph::plugin::KernelBuilder("_FusedMaxPoolGrad", "CPU")
                                             .TypeConstraint("T", TG_BFLOAT16)
                                             .Priority(1));
}

}  // namespace tgraph_cpu::nn
