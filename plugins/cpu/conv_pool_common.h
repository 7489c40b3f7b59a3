// Shared by Conv2D / MaxPool / AvgPool (conv_ops.cc, pooling_ops.cc) and their gradients
// (nn_backprop_*.cc): attr parsing, the geometry of one NHWC convolution, the im2col gather,
// and reading an int32 shape input. One copy, so a forward op and its gradient can never
// disagree on windows, padding or which attrs they accept.
#pragma once

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "nn_common.h"

namespace tgraph_cpu::nn {

// ---- attrs ----

// Conv2D and its backprops: NHWC only (another data_format is declined, so that a kernel
// that takes it runs the node), 4 positive strides and dilations (1 on batch and
// depth), padding SAME / VALID / EXPLICIT with explicit_paddings.
struct ConvAttrs {
  std::vector<int64_t> strides, dilations, pads;
  Padding padding = Padding::kValid;
};

inline bool GetConvAttrs(tgraph::plugin::Construction& c, ConvAttrs* a) {
  std::string format;
  if (!c.GetAttr("data_format", &format)) return false;
  if (format != "NHWC") {
    // Declined, not failed: a device kernel that takes the format (the GPU plugins take
    // NCHW) runs the node instead (plugin ABI 6).
    c.Decline(c.op_type() + " on the CPU supports only data_format 'NHWC', got '" + format + "'");
    return false;
  }
  if (!GetFourPositive(c, "strides", &a->strides) ||
      !GetFourPositive(c, "dilations", &a->dilations)) {
    return false;
  }
  if (a->strides[0] != 1 || a->strides[3] != 1) {
    c.Fail(TG_INVALID_ARGUMENT,
           "strides in the batch and depth dimensions must be 1, got " + ShapeString(a->strides));
    return false;
  }
  if (a->dilations[0] != 1 || a->dilations[3] != 1) {
    c.Fail(TG_INVALID_ARGUMENT, "dilations in the batch and depth dimensions must be 1, got " +
                                    ShapeString(a->dilations));
    return false;
  }
  return GetPaddingAttrs(c, /*allow_explicit=*/true, &a->padding, &a->pads);
}

// MaxPool / AvgPool and their gradients: NHWC only, windows over height and width only
// (other formats and depth windows are declined).
// `allow_explicit`: the op has explicit_paddings (MaxPool does, AvgPool does not).
struct PoolAttrs {
  std::vector<int64_t> ksize, strides, pads;
  Padding padding = Padding::kValid;
};

inline bool GetPoolAttrs(tgraph::plugin::Construction& c, bool allow_explicit, PoolAttrs* a) {
  std::string format;
  if (!c.GetAttr("data_format", &format)) return false;
  if (format != "NHWC") {
    c.Decline(c.op_type() + " on the CPU supports only data_format 'NHWC', got '" + format + "'");
    return false;
  }
  if (!GetFourPositive(c, "ksize", &a->ksize) || !GetFourPositive(c, "strides", &a->strides)) {
    return false;
  }
  if (a->ksize[0] != 1 || a->strides[0] != 1) {
    c.Fail(TG_INVALID_ARGUMENT, "pooling over the batch dimension is not supported (ksize " +
                                    ShapeString(a->ksize) + ", strides " + ShapeString(a->strides) +
                                    ")");
    return false;
  }
  if (a->ksize[3] != 1 || a->strides[3] != 1) {
    c.Decline("pooling over the depth dimension is not supported on the CPU (ksize " +
              ShapeString(a->ksize) + ", strides " + ShapeString(a->strides) + ")");
    return false;
  }
  if (!GetPaddingAttrs(c, allow_explicit, &a->padding, &a->pads)) return false;
  // Every window must cover at least one input element.
  const auto& p = a->pads;
  if (p[2] >= a->ksize[1] || p[3] >= a->ksize[1] || p[4] >= a->ksize[2] || p[5] >= a->ksize[2]) {
    c.Fail(TG_INVALID_ARGUMENT, "explicit paddings must be smaller than the window (ksize " +
                                    ShapeString(a->ksize) + ", explicit_paddings " +
                                    ShapeString(p) + ")");
    return false;
  }
  return true;
}

// The height and width windows of a pooling op over an in_h x in_w image. False with a
// message in *error when the output would be negative.
inline bool ComputePoolWindows(const PoolAttrs& a, int64_t in_h, int64_t in_w, Window* wh,
                               Window* ww, std::string* error) {
  return ComputeWindow(in_h, a.ksize[1], 1, a.strides[1], a.padding, a.pads[2], a.pads[3], wh,
                       error) &&
         ComputeWindow(in_w, a.ksize[2], 1, a.strides[2], a.padding, a.pads[4], a.pads[5], ww,
                       error);
}

// ---- shape inputs ----

// An int32 vector input holding a shape (input_sizes, filter_sizes, orig_input_shape): its
// values, each >= 0. `allowed` lists the accepted lengths. Fails the context otherwise.
inline bool ReadShapeInput(tgraph::plugin::Context& ctx, int index, const char* what,
                           std::initializer_list<int64_t> allowed, std::vector<int64_t>* out) {
  const auto t = ctx.input(index);
  const bool length_ok =
      t.rank() == 1 && std::find(allowed.begin(), allowed.end(), t.dim(0)) != allowed.end();
  if (t.dtype() != TG_INT32 || !length_ok) {
    std::string lengths;
    for (int64_t n : allowed) lengths += (lengths.empty() ? "" : " or ") + std::to_string(n);
    ctx.Fail(TG_INVALID_ARGUMENT, std::string(what) + " must be an int32 vector of " + lengths +
                                      " values, got shape " + ShapeString(t.dims()));
    return false;
  }
  const int32_t* v = t.data<int32_t>();
  out->assign(v, v + t.num_elements());
  for (int64_t d : *out) {
    if (d < 0) {
      ctx.Fail(TG_INVALID_ARGUMENT,
               std::string(what) + " must be non-negative, got " + ShapeString(*out));
      return false;
    }
  }
  return true;
}

// ---- convolution geometry and im2col ----

// One NHWC 2-D convolution: input [batch, in_h, in_w, depth], filter [k_h, k_w, depth,
// out_depth], output [batch, out_h, out_w, out_depth]. The filter is the row-major matrix
// [patch, out_depth]; patch rows are laid out (kh, kw, channel) like the filter.
struct ConvGeometry {
  int64_t batch = 0, in_h = 0, in_w = 0, depth = 0;
  int64_t k_h = 0, k_w = 0, out_depth = 0;
  int64_t s_h = 1, s_w = 1, d_h = 1, d_w = 1;
  int64_t pad_top = 0, pad_left = 0;
  int64_t out_h = 0, out_w = 0;

  int64_t patch() const { return k_h * k_w * depth; }
  int64_t pixels() const { return batch * out_h * out_w; }  // rows of the patch matrix
  int64_t input_size() const { return batch * in_h * in_w * depth; }

  // The input already is the patch matrix [pixels, patch]: 1x1 windows at stride 1 with no
  // padding, or one window covering each whole image.
  bool InputIsPatchMatrix() const {
    const bool one_by_one = k_h == 1 && k_w == 1 && s_h == 1 && s_w == 1 && pad_top == 0 &&
                            pad_left == 0 && out_h == in_h && out_w == in_w;
    const bool whole_image = k_h == in_h && k_w == in_w && out_h == 1 && out_w == 1 &&
                             pad_top == 0 && pad_left == 0 && (d_h == 1 || k_h == 1) &&
                             (d_w == 1 || k_w == 1);
    return one_by_one || whole_image;
  }
};

// Fills the out_h/out_w/pad fields from the input size, window and attrs. False with a
// message in *error when the output would be negative.
inline bool ComputeConvGeometry(const ConvAttrs& a, ConvGeometry* g, std::string* error) {
  g->s_h = a.strides[1];
  g->s_w = a.strides[2];
  g->d_h = a.dilations[1];
  g->d_w = a.dilations[2];
  Window wh, ww;
  if (!ComputeWindow(g->in_h, g->k_h, g->d_h, g->s_h, a.padding, a.pads[2], a.pads[3], &wh,
                     error) ||
      !ComputeWindow(g->in_w, g->k_w, g->d_w, g->s_w, a.padding, a.pads[4], a.pads[5], &ww,
                     error)) {
    return false;
  }
  g->out_h = wh.out;
  g->out_w = ww.out;
  g->pad_top = wh.pad_before;
  g->pad_left = ww.pad_before;
  return true;
}

// Upper bound on the im2col scratch of one chunk.
constexpr int64_t kPatchBytes = 16 << 20;

// How many patch-matrix rows of `row_elems` elements of T fit one chunk (at least 1, at
// most `total`).
template <typename T>
int64_t ChunkRows(int64_t row_elems, int64_t total) {
  const int64_t bytes = std::max<int64_t>(row_elems, 1) * static_cast<int64_t>(sizeof(T));
  return std::clamp<int64_t>(kPatchBytes / bytes, 1, std::max<int64_t>(total, 1));
}

// Gathers rows [start, start + rows) of the patch matrix of `in` into `cols` ([rows, patch]),
// zeros where a window hangs over the padding; one output pixel per work item.
template <typename T>
void Im2Col(tgraph::plugin::Context& ctx, const T* in, const ConvGeometry& g, int64_t start,
            int64_t rows, T* cols) {
  const int64_t patch = g.patch(), depth = g.depth;
  ctx.ParallelFor(rows, static_cast<double>(patch) * 0.5, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const int64_t p = start + r;
      const int64_t n = p / (g.out_h * g.out_w);
      const int64_t oh = (p / g.out_w) % g.out_h;
      const int64_t ow = p % g.out_w;
      T* dst = cols + r * patch;
      for (int64_t kh = 0; kh < g.k_h; ++kh) {
        const int64_t ih = oh * g.s_h - g.pad_top + kh * g.d_h;
        if (ih < 0 || ih >= g.in_h) {
          std::fill(dst, dst + g.k_w * depth, T(0));
          dst += g.k_w * depth;
          continue;
        }
        const T* row = in + (n * g.in_h + ih) * g.in_w * depth;
        for (int64_t kw = 0; kw < g.k_w; ++kw, dst += depth) {
          const int64_t iw = ow * g.s_w - g.pad_left + kw * g.d_w;
          if (iw < 0 || iw >= g.in_w) {
            std::fill(dst, dst + depth, T(0));
          } else {
            std::memcpy(dst, row + iw * depth, static_cast<size_t>(depth) * sizeof(T));
          }
        }
      }
    }
  });
}

// Copies `width` columns starting at column `from` of each of `rows` rows of `src` (rows of
// `src_stride` elements) into `dst` at column `to` (rows of `dst_stride`): how the grouped
// convolutions (and their gradients) gather one group's channels into contiguous scratch and
// scatter its results back.
template <typename T>
void CopyColumns(tgraph::plugin::Context& ctx, const T* src, int64_t src_stride, int64_t from,
                 T* dst, int64_t dst_stride, int64_t to, int64_t rows, int64_t width) {
  ctx.ParallelFor(rows, static_cast<double>(width) * 0.25, [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r) {
      std::memcpy(dst + r * dst_stride + to, src + r * src_stride + from,
                  static_cast<size_t>(width) * sizeof(T));
    }
  });
}

// One group's geometry in a convolution of `groups` groups.
inline ConvGeometry GroupGeometry(const ConvGeometry& g, int64_t groups) {
  ConvGeometry gg = g;
  gg.depth = g.depth / groups;
  gg.out_depth = g.out_depth / groups;
  return gg;
}

// Conv2D (NHWC) of inputs 0 and 1 into output 0 (conv_ops.cc; also _FusedConv2D's first
// part). On failure the context holds the error. Instantiated for float and double.
template <typename T>
tgraph::plugin::TensorMut Conv2DToOutput(tgraph::plugin::Context& ctx, const ConvAttrs& attrs);

// DepthwiseConv2dNative (NHWC) of inputs 0 and 1 into output 0 (depthwise_conv_op.cc; also
// _FusedDepthwiseConv2dNative's first part). On failure the context holds the error and the
// result is invalid. Instantiated for float, double, Eigen::half and Eigen::bfloat16.
template <typename T>
tgraph::plugin::TensorMut DepthwiseConv2dToOutput(tgraph::plugin::Context& ctx,
                                                  const ConvAttrs& attrs);

}  // namespace tgraph_cpu::nn
