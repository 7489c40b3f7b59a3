// The host side of the GPU plugins' Conv2D and its two gradients: the attrs (data_format
// NHWC or NCHW, strides, dilations, padding SAME / VALID / EXPLICIT with explicit_paddings)
// and the geometry of one convolution, with the CPU plugin's rules, checks, order and status
// codes (plugins/cpu/conv_pool_common.h, conv2d_geometry.h: device conformance compares the
// codes). The CPU plugin takes NHWC only; the devices take NCHW too, where every list attr
// is in data_format order. The device kernels compute no grouped convolution: a node whose
// static shapes show one is declined at creation (DeclineGroupedConv) and runs on the CPU.
#pragma once

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "cpu/grouped_conv_decline.h"
#include "device_common/host_shapes.h"
#include "tgraph/plugin.hpp"

namespace tgraph_device_common {

enum class ConvPadding { kSame, kValid, kExplicit };

struct ConvAttrs {
  bool nchw = false;
  int64_t s_h = 1, s_w = 1, d_h = 1, d_w = 1;
  ConvPadding padding = ConvPadding::kValid;
  int64_t pad_top = 0, pad_bottom = 0, pad_left = 0, pad_right = 0;  // EXPLICIT only
};

// A list(int) attr of exactly four values > 0 (strides, dilations).
inline bool GetFourPositive(tgraph::plugin::Construction& c, const char* name,
                            std::vector<int64_t>* v) {
  if (!c.GetAttr(name, v)) return false;
  if (v->size() != 4) {
    c.Fail(TG_INVALID_ARGUMENT,
           std::string(name) + " must contain 4 values, but has " + std::to_string(v->size()));
    return false;
  }
  for (int64_t x : *v) {
    if (x <= 0) {
      c.Fail(TG_INVALID_ARGUMENT,
             std::string(name) + " must be > 0 in every dimension, got " + ShapeString(*v));
      return false;
    }
  }
  return true;
}

// Reads Conv2D's (or a backprop's) attrs into `a`; fails the construction on bad values.
inline bool ReadConvAttrValues(tgraph::plugin::Construction& c, const std::string& device_type,
                               ConvAttrs* a) {
  std::string format = "NHWC";
  if (c.HasAttr("data_format") && !c.GetAttr("data_format", &format)) return false;
  if (format != "NHWC" && format != "NCHW") {
    // Declined (plugin ABI 6): another kernel that takes the format may run the node.
    c.Decline(c.op_type() + " on " + device_type +
              " supports data_format NHWC and NCHW only, got '" + format + "'");
    return false;
  }
  a->nchw = format == "NCHW";
  const size_t h = a->nchw ? 2 : 1, w = h + 1, depth = a->nchw ? 1 : 3;
  std::vector<int64_t> strides, dilations = {1, 1, 1, 1};
  if (!GetFourPositive(c, "strides", &strides)) return false;
  if (c.HasAttr("dilations") && !GetFourPositive(c, "dilations", &dilations)) return false;
  if (strides[0] != 1 || strides[depth] != 1) {
    c.Fail(TG_INVALID_ARGUMENT,
           "strides in the batch and depth dimensions must be 1, got " + ShapeString(strides));
    return false;
  }
  if (dilations[0] != 1 || dilations[depth] != 1) {
    c.Fail(TG_INVALID_ARGUMENT, "dilations in the batch and depth dimensions must be 1, got " +
                                    ShapeString(dilations));
    return false;
  }
  a->s_h = strides[h];
  a->s_w = strides[w];
  a->d_h = dilations[h];
  a->d_w = dilations[w];
  std::string padding;
  if (!c.GetAttr("padding", &padding)) return false;
  if (padding == "SAME") {
    a->padding = ConvPadding::kSame;
  } else if (padding == "VALID") {
    a->padding = ConvPadding::kValid;
  } else if (padding == "EXPLICIT") {
    a->padding = ConvPadding::kExplicit;
  } else {
    c.Fail(TG_INVALID_ARGUMENT, "unsupported padding '" + padding + "'");
    return false;
  }
  std::vector<int64_t> given;
  if (c.HasAttr("explicit_paddings") && !c.GetAttr("explicit_paddings", &given)) return false;
  if (a->padding != ConvPadding::kExplicit) {
    if (!given.empty()) {
      c.Fail(TG_INVALID_ARGUMENT, "explicit_paddings must be empty unless padding is 'EXPLICIT'");
      return false;
    }
    return true;
  }
  if (given.size() != 8) {
    c.Fail(TG_INVALID_ARGUMENT,
           "explicit_paddings must contain 8 values, but has " + std::to_string(given.size()));
    return false;
  }
  for (int64_t p : given) {
    if (p < 0) {
      c.Fail(TG_INVALID_ARGUMENT, "explicit_paddings must be non-negative");
      return false;
    }
  }
  if (given[0] != 0 || given[1] != 0 || given[2 * depth] != 0 || given[2 * depth + 1] != 0) {
    c.Fail(TG_INVALID_ARGUMENT, "explicit_paddings in the batch and depth dimensions must be zero");
    return false;
  }
  a->pad_top = given[2 * h];
  a->pad_bottom = given[2 * h + 1];
  a->pad_left = given[2 * w];
  a->pad_right = given[2 * w + 1];
  return true;
}

// Declines (and returns true) a Conv2D, Conv2DBackpropInput or Conv2DBackpropFilter node
// whose static shapes (plugin ABI 8) show a grouped convolution, which the device kernels do
// not compute: placement runs it on the CPU, whose kernel does. The data is Conv2D's and
// Conv2DBackpropFilter's input 0 and Conv2DBackpropInput's output 0; the filter is Conv2D's
// and Conv2DBackpropInput's input 1 and Conv2DBackpropFilter's output 0. Depths known only at
// run time reach the kernel, and ConvGeometryOf / ConvBackpropGeometryOf refuse a grouped
// convolution there (UNIMPLEMENTED, naming the node).
inline bool DeclineGroupedConv(tgraph::plugin::Construction& c, const ConvAttrs& a) {
  const std::string op = c.op_type();
  const bool data_is_output = op == "Conv2DBackpropInput";
  const bool filter_is_output = op == "Conv2DBackpropFilter";
  return tgraph_cpu::nn::DeclineGroupedConv(
      c, data_is_output ? c.output_shape(0) : c.input_shape(0),
      filter_is_output ? c.output_shape(0) : c.input_shape(1), a.nchw ? 1 : 3);
}

// Reads Conv2D's (or a backprop's) attrs: false after failing the construction on bad values
// or declining the node (a data_format other than NHWC and NCHW, a grouped convolution).
inline bool ReadConvAttrs(tgraph::plugin::Construction& c, const std::string& device_type,
                          ConvAttrs* a) {
  return ReadConvAttrValues(c, device_type, a) && !DeclineGroupedConv(c, *a);
}

// One spatial dim: the output size and the padding before the first element (TensorFlow's
// rules). False with *error when the output would be negative.
inline bool ConvWindow(int64_t in, int64_t k, int64_t dilation, int64_t stride,
                       ConvPadding padding, int64_t explicit_before, int64_t explicit_after,
                       int64_t* out, int64_t* pad_before, std::string* error) {
  const int64_t effective = (k - 1) * dilation + 1;
  int64_t numerator = 0;
  switch (padding) {
    case ConvPadding::kValid:
      numerator = in - effective + stride;
      *pad_before = 0;
      break;
    case ConvPadding::kExplicit:
      numerator = in + explicit_before + explicit_after - effective + stride;
      *pad_before = explicit_before;
      break;
    case ConvPadding::kSame: {
      *out = (in + stride - 1) / stride;
      const int64_t total = std::max<int64_t>((*out - 1) * stride + effective - in, 0);
      *pad_before = total / 2;
      return true;
    }
  }
  if (numerator / stride < 0) {
    *error = "computed output size would be negative (input size " + std::to_string(in) +
             ", effective window size " + std::to_string(effective) + ", stride " +
             std::to_string(stride) + ")";
    return false;
  }
  *out = numerator / stride;
  return true;
}

// One 2-D convolution: input [batch, in_h, in_w, depth] (NCHW: [batch, depth, in_h, in_w]),
// filter [k_h, k_w, depth, out_depth] (HWIO in both layouts, as TensorFlow), output
// [batch, out_h, out_w, out_depth] (NCHW: [batch, out_depth, out_h, out_w]).
struct ConvGeometry {
  bool nchw = false;
  int64_t batch = 0, in_h = 0, in_w = 0, depth = 0;
  int64_t k_h = 0, k_w = 0, out_depth = 0;
  int64_t s_h = 1, s_w = 1, d_h = 1, d_w = 1;
  int64_t pad_top = 0, pad_left = 0;
  int64_t out_h = 0, out_w = 0;

  std::vector<int64_t> InputDims() const {
    return nchw ? std::vector<int64_t>{batch, depth, in_h, in_w}
                : std::vector<int64_t>{batch, in_h, in_w, depth};
  }
  std::vector<int64_t> FilterDims() const { return {k_h, k_w, depth, out_depth}; }
  std::vector<int64_t> OutputDims() const {
    return nchw ? std::vector<int64_t>{batch, out_depth, out_h, out_w}
                : std::vector<int64_t>{batch, out_h, out_w, out_depth};
  }
  int64_t InputSize() const { return batch * in_h * in_w * depth; }
  int64_t FilterSize() const { return k_h * k_w * depth * out_depth; }
  int64_t OutputSize() const { return batch * out_h * out_w * out_depth; }
};

// Fills `g` from the input's and the filter's dims (4-D each) and the attrs: the checks of
// the CPU plugin's Conv2DForwardGeometry, in its order. Fails `ctx` and returns false.
inline bool ConvGeometryOf(tgraph::plugin::Context& ctx, const ConvAttrs& a,
                           const std::string& device_type, const std::vector<int64_t>& input,
                           const std::vector<int64_t>& filter, ConvGeometry* g) {
  if (input.size() != 4 || filter.size() != 4) {
    ctx.Fail(TG_INVALID_ARGUMENT, "Conv2D needs a 4-D input and a 4-D filter, got shapes " +
                                      ShapeString(input) + " and " + ShapeString(filter));
    return false;
  }
  g->nchw = a.nchw;
  g->batch = input[0];
  g->in_h = input[a.nchw ? 2 : 1];
  g->in_w = input[a.nchw ? 3 : 2];
  g->depth = input[a.nchw ? 1 : 3];
  g->k_h = filter[0];
  g->k_w = filter[1];
  g->out_depth = filter[3];
  const int64_t k_depth = filter[2];
  if (k_depth == 0) {
    ctx.Fail(TG_INVALID_ARGUMENT, "the filter's input depth must be > 0, got filter shape " +
                                      ShapeString(filter));
    return false;
  }
  if (k_depth != g->depth) {
    if (k_depth > 0 && g->depth % k_depth == 0) {
      ctx.Fail(TG_UNIMPLEMENTED, "grouped convolution (input depth " +
                                     std::to_string(g->depth) + ", filter input depth " +
                                     std::to_string(k_depth) + ") is not supported on " +
                                     device_type);
    } else {
      ctx.Fail(TG_INVALID_ARGUMENT, "input depth " + std::to_string(g->depth) +
                                        " does not match the filter's in_depth " +
                                        std::to_string(k_depth) + " (input " +
                                        ShapeString(input) + ", filter " + ShapeString(filter) +
                                        ")");
    }
    return false;
  }
  if (g->k_h <= 0 || g->k_w <= 0) {
    ctx.Fail(TG_INVALID_ARGUMENT, "filter height and width must be > 0, got filter shape " +
                                      ShapeString(filter));
    return false;
  }
  g->s_h = a.s_h;
  g->s_w = a.s_w;
  g->d_h = a.d_h;
  g->d_w = a.d_w;
  std::string error;
  if (!ConvWindow(g->in_h, g->k_h, a.d_h, a.s_h, a.padding, a.pad_top, a.pad_bottom, &g->out_h,
                  &g->pad_top, &error) ||
      !ConvWindow(g->in_w, g->k_w, a.d_w, a.s_w, a.padding, a.pad_left, a.pad_right, &g->out_w,
                  &g->pad_left, &error)) {
    ctx.Fail(TG_INVALID_ARGUMENT,
             error + ": input " + ShapeString(input) + ", filter " + ShapeString(filter));
    return false;
  }
  return true;
}

// The value of a host-memory int32 shape input (input_sizes, filter_sizes): `allowed`
// lengths (input_sizes may give only height and width), each value >= 0.
inline bool ReadConvSizes(tgraph::plugin::Context& ctx, int index, const char* what,
                          std::initializer_list<int64_t> allowed, std::vector<int64_t>* out) {
  const tgraph::plugin::TensorView t = ctx.input(index);
  const bool length_ok =
      t.rank() == 1 && std::find(allowed.begin(), allowed.end(), t.dim(0)) != allowed.end();
  if (t.dtype() != TG_INT32 || !length_ok) {
    std::string lengths;
    for (int64_t n : allowed) {
      if (!lengths.empty()) lengths += " or ";
      lengths += std::to_string(n);
    }
    ctx.Fail(TG_INVALID_ARGUMENT, std::string(what) + " must be an int32 vector of " + lengths +
                                      " values, got shape " + ShapeString(t.dims()));
    return false;
  }
  out->clear();
  for (int64_t i = 0; i < t.num_elements(); ++i) out->push_back(IndexAt(t, i));
  for (int64_t d : *out) {
    if (d < 0) {
      ctx.Fail(TG_INVALID_ARGUMENT,
               std::string(what) + " must be non-negative, got " + ShapeString(*out));
      return false;
    }
  }
  return true;
}

// The geometry of the convolution whose gradient is asked for, from the input's and the
// filter's dims (one of them given as a shape input) and out_backprop's: the CPU plugin's
// ConvBackpropGeometry checks, in its order. Fails `ctx` and returns false.
inline bool ConvBackpropGeometryOf(tgraph::plugin::Context& ctx, const ConvAttrs& a,
                                   const std::string& device_type,
                                   const std::vector<int64_t>& input,
                                   const std::vector<int64_t>& filter,
                                   const std::vector<int64_t>& out_backprop, ConvGeometry* g) {
  const std::string shapes = "input " + ShapeString(input) + ", filter " + ShapeString(filter) +
                             ", out_backprop " + ShapeString(out_backprop);
  if (input.size() != 4 || filter.size() != 4 || out_backprop.size() != 4) {
    ctx.Fail(TG_INVALID_ARGUMENT, "input, filter and out_backprop must all be 4-D: " + shapes);
    return false;
  }
  g->nchw = a.nchw;
  g->batch = input[0];
  g->in_h = input[a.nchw ? 2 : 1];
  g->in_w = input[a.nchw ? 3 : 2];
  g->depth = input[a.nchw ? 1 : 3];
  g->k_h = filter[0];
  g->k_w = filter[1];
  g->out_depth = filter[3];
  if (filter[2] != g->depth) {
    if (filter[2] > 0 && g->depth % filter[2] == 0) {
      ctx.Fail(TG_UNIMPLEMENTED,
               "grouped convolution is not supported on " + device_type + ": " + shapes);
    } else {
      ctx.Fail(TG_INVALID_ARGUMENT, "input depth must equal the filter's input depth: " + shapes);
    }
    return false;
  }
  if (g->k_h <= 0 || g->k_w <= 0) {
    ctx.Fail(TG_INVALID_ARGUMENT, "filter height and width must be > 0: " + shapes);
    return false;
  }
  g->s_h = a.s_h;
  g->s_w = a.s_w;
  g->d_h = a.d_h;
  g->d_w = a.d_w;
  std::string error;
  if (!ConvWindow(g->in_h, g->k_h, a.d_h, a.s_h, a.padding, a.pad_top, a.pad_bottom, &g->out_h,
                  &g->pad_top, &error) ||
      !ConvWindow(g->in_w, g->k_w, a.d_w, a.s_w, a.padding, a.pad_left, a.pad_right, &g->out_w,
                  &g->pad_left, &error)) {
    ctx.Fail(TG_INVALID_ARGUMENT, error + ": " + shapes);
    return false;
  }
  if (out_backprop != g->OutputDims()) {
    ctx.Fail(TG_INVALID_ARGUMENT, "out_backprop must have the convolution's output shape " +
                                      ShapeString(g->OutputDims()) + ": " + shapes);
    return false;
  }
  return true;
}

// Whether the kernels' int index arithmetic holds for `g` (window positions such as
// oy * s_h - pad_top + ky * d_h, and their sums with the input size): false, after failing
// the node with UNIMPLEMENTED, for attrs that push them past 2^31 - 1 (huge strides,
// dilations or paddings). Element counts are checked apart (CheckIntSized).
inline bool ConvGeometryFitsInt(tgraph::plugin::Context& ctx, const ConvGeometry& g,
                                const std::string& device_type) {
  constexpr int64_t kMax = 0x7fffffff;
  auto fits = [](int64_t in, int64_t out, int64_t k, int64_t s, int64_t d, int64_t pad) {
    if (in > kMax || out > kMax || k > kMax || s > kMax || d > kMax || pad > kMax) return false;
    return out * s + (k - 1) * d + in + pad <= kMax;  // each term < 2^62: no int64 overflow
  };
  if (fits(g.in_h, g.out_h, g.k_h, g.s_h, g.d_h, g.pad_top) &&
      fits(g.in_w, g.out_w, g.k_w, g.s_w, g.d_w, g.pad_left)) {
    return true;
  }
  ctx.Fail(TG_UNIMPLEMENTED, "the window positions of input " + ShapeString(g.InputDims()) +
                                 " (window " + std::to_string(g.k_h) + "x" +
                                 std::to_string(g.k_w) + ", strides " + std::to_string(g.s_h) +
                                 "," + std::to_string(g.s_w) + ", dilations " +
                                 std::to_string(g.d_h) + "," + std::to_string(g.d_w) +
                                 ") pass 2^31 - 1, more than the " + device_type +
                                 " kernels take");
  return false;
}

// The device kernels' view of a geometry: ints (the plugins refuse tensors of 2^31 elements
// or more first), as the OpenCL source's ConvShape struct and cuda_launch.h's ConvShape.
template <class Shape>
Shape ConvShapeOf(const ConvGeometry& g, int64_t n) {
  auto i32 = [](int64_t v) { return static_cast<decltype(Shape{}.n)>(v); };
  Shape s{};
  s.n = i32(n);
  s.batch = i32(g.batch);
  s.h = i32(g.in_h);
  s.w = i32(g.in_w);
  s.c = i32(g.depth);
  s.oh = i32(g.out_h);
  s.ow = i32(g.out_w);
  s.oc = i32(g.out_depth);
  s.kh = i32(g.k_h);
  s.kw = i32(g.k_w);
  s.sh = i32(g.s_h);
  s.sw = i32(g.s_w);
  s.dh = i32(g.d_h);
  s.dw = i32(g.d_w);
  s.pad_top = i32(g.pad_top);
  s.pad_left = i32(g.pad_left);
  s.nchw = g.nchw ? 1 : 0;
  return s;
}

}  // namespace tgraph_device_common
