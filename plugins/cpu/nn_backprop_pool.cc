// MaxPoolGrad and AvgPoolGrad (NHWC), with the windows of MaxPool / AvgPool
// (conv_pool_common.h).
//
// MaxPoolGrad routes each output gradient to the first maximum of its window, scanning rows
// then columns (as TensorFlow does: a later element wins only when strictly greater). Windows
// may overlap, so the work is split into (image, channel block) units that own disjoint parts
// of the result: no two threads write one element.
//
// AvgPoolGrad is a gather: each input element sums grad / count over the windows that cover
// it, count being the number of input (not padding) elements in the window, as AvgPool
// divides by. One input pixel per work item.
#include <algorithm>
#include <string>
#include <vector>

#include "nn_backprop_common.h"

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

template <typename T>
class MaxPoolGradOp {
 public:
  explicit MaxPoolGradOp(Construction& c) { GetPoolAttrs(c, /*allow_explicit=*/true, &attrs_); }

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
    auto out = ctx.AllocateOutput(0, in_dims);
    if (!ctx.ok()) return;
    const int64_t batch = in_dims[0], in_h = in_dims[1], in_w = in_dims[2], depth = in_dims[3];
    if (batch * in_h * in_w * depth == 0) return;
    const int64_t out_h = wh.out, out_w = ww.out;
    const int64_t k_h = attrs_.ksize[1], k_w = attrs_.ksize[2];
    const int64_t s_h = attrs_.strides[1], s_w = attrs_.strides[2];
    const int64_t pad_top = wh.pad_before, pad_left = ww.pad_before;
    const T* in = x.template data<T>();
    const T* g = dy.template data<T>();
    T* dx = out.template mutable_data<T>();
    // Few images: split the channels too, so every thread has work (blocks of >= 8 channels
    // keep the inner loops vectorisable).
    const int64_t blocks = std::clamp<int64_t>((16 + batch - 1) / batch, 1, (depth + 7) / 8);
    const int64_t block = (depth + blocks - 1) / blocks;
    const double cost =
        static_cast<double>(out_h * out_w * k_h * k_w * block + in_h * in_w * block);
    // Windows that never overlap (stride >= window): each window writes its pixels' gradient
    // outright (the routed value or 0), and only pixels no window covers need zeroing first;
    // when the windows tile the image (2x2 stride 2 SAME, ...) there are none.
    const bool disjoint = s_h >= k_h && s_w >= k_w;
    // Windows [o * k - pad, o * k - pad + k) for o < out, back to back, cover [0, in).
    auto tiles = [](int64_t out, int64_t stride, int64_t k, int64_t pad, int64_t in) {
      return stride == k && out * k - pad >= in;
    };
    const bool tiled = disjoint && tiles(out_h, s_h, k_h, pad_top, in_h) &&
                       tiles(out_w, s_w, k_w, pad_left, in_w);
    ctx.ParallelFor(batch * blocks, cost, [&](int64_t begin, int64_t end) {
      // Per channel of the block: the window's maximum and where it is (the offset of its
      // pixel in the image), found in one branch-free pass that vectorises over channels.
      std::vector<T> max_buffer(static_cast<size_t>(block));
      std::vector<int64_t> arg_buffer(max_buffer.size());
      T* __restrict mx = max_buffer.data();
      int64_t* __restrict arg = arg_buffer.data();
      for (int64_t u = begin; u < end; ++u) {
        const int64_t n = u / blocks;
        const int64_t c0 = (u % blocks) * block, c1 = std::min(c0 + block, depth);
        const int64_t nc = c1 - c0;
        if (nc <= 0) continue;
        const T* __restrict image = in + n * in_h * in_w * depth + c0;
        T* __restrict grad_image = dx + n * in_h * in_w * depth + c0;
        if (tiled) {
          // Every pixel is written below.
        } else if (nc == depth) {
          std::fill(grad_image, grad_image + in_h * in_w * depth, T(0));
        } else {
          for (int64_t i = 0; i < in_h * in_w; ++i) {
            std::fill(grad_image + i * depth, grad_image + i * depth + nc, T(0));
          }
        }
        const T* __restrict grad = g + n * out_h * out_w * depth + c0;
        for (int64_t oh = 0; oh < out_h; ++oh) {
          const int64_t h0 = std::max<int64_t>(oh * s_h - pad_top, 0);
          const int64_t h1 = std::min<int64_t>(oh * s_h - pad_top + k_h, in_h);
          for (int64_t ow = 0; ow < out_w; ++ow) {
            const int64_t w0 = std::max<int64_t>(ow * s_w - pad_left, 0);
            const int64_t w1 = std::min<int64_t>(ow * s_w - pad_left + k_w, in_w);
            if (h0 >= h1 || w0 >= w1) continue;  // cannot happen with valid attrs; be safe
            // A later element wins only when strictly greater: the first maximum, and a
            // NaN only when it comes first (as TensorFlow routes it).
            const int64_t first = (h0 * in_w + w0) * depth;
            for (int64_t c = 0; c < nc; ++c) {
              mx[c] = image[first + c];
              arg[c] = first;
            }
            for (int64_t h = h0; h < h1; ++h) {
              for (int64_t w = (h == h0 ? w0 + 1 : w0); w < w1; ++w) {
                const int64_t at = (h * in_w + w) * depth;
                const T* __restrict v = image + at;
                for (int64_t c = 0; c < nc; ++c) {
                  const bool greater = v[c] > mx[c];
                  mx[c] = greater ? v[c] : mx[c];
                  arg[c] = greater ? at : arg[c];
                }
              }
            }
            const T* __restrict grad_pixel = grad + (oh * out_w + ow) * depth;
            if (disjoint) {
              for (int64_t h = h0; h < h1; ++h) {
                for (int64_t w = w0; w < w1; ++w) {
                  const int64_t at = (h * in_w + w) * depth;
                  T* __restrict d = grad_image + at;
                  for (int64_t c = 0; c < nc; ++c) d[c] = arg[c] == at ? grad_pixel[c] : T(0);
                }
              }
              continue;
            }
            for (int64_t c = 0; c < nc; ++c) grad_image[arg[c] + c] += grad_pixel[c];
          }
        }
      }
    });
  }

 private:
  PoolAttrs attrs_;
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
  init.Kernel<MaxPoolGradOp<T>>(
      tgraph::plugin::KernelBuilder("MaxPoolGrad", "CPU").TypeConstraint("T", DTypeOf<T>::value));
  init.Kernel<AvgPoolGradOp<T>>(tgraph::plugin::KernelBuilder("AvgPoolGrad", "CPU")
                                    .TypeConstraint("T", DTypeOf<T>::value)
                                    .HostMemory("orig_input_shape"));
}

}  // namespace

void RegisterPoolingGrad(tgraph::plugin::Init& init) {
  RegisterFor<float>(init);
  RegisterFor<double>(init);
}

}  // namespace tgraph_cpu::nn
