// The host side of the GPU plugins' MaxPool / AvgPool and their gradients: the attrs (NHWC,
// windows over height and width only, padding SAME / VALID, and EXPLICIT for the MaxPool
// ops) and the window geometry, with the CPU plugin's rules, checks, order and status codes
// (plugins/cpu/conv_pool_common.h, nn_backprop_pool.cc: device conformance compares them).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "device_common/conv_args.h"
#include "device_common/host_shapes.h"
#include "tgraph/plugin.hpp"

namespace tgraph_device_common {

struct PoolAttrs {
  int64_t k_h = 1, k_w = 1, s_h = 1, s_w = 1;
  ConvPadding padding = ConvPadding::kValid;
  int64_t pad_top = 0, pad_bottom = 0, pad_left = 0, pad_right = 0;  // EXPLICIT only
};

// `allow_explicit`: the op has explicit_paddings (the MaxPool ops do, the AvgPool ops not).
inline bool ReadPoolAttrs(tgraph::plugin::Construction& c, const std::string& device_type,
                          bool allow_explicit, PoolAttrs* a) {
  std::string format = "NHWC";
  if (c.HasAttr("data_format") && !c.GetAttr("data_format", &format)) return false;
  // Formats and windows the device kernels do not take are declined (plugin ABI 6): a
  // kernel of another plugin or device that takes them runs the node instead.
  if (format != "NHWC") {
    c.Decline(c.op_type() + " on " + device_type + " supports only data_format 'NHWC', got '" +
              format + "'");
    return false;
  }
  std::vector<int64_t> ksize, strides;
  if (!GetFourPositive(c, "ksize", &ksize) || !GetFourPositive(c, "strides", &strides)) {
    return false;
  }
  if (ksize[0] != 1 || strides[0] != 1) {
    c.Fail(TG_INVALID_ARGUMENT, "pooling over the batch dimension is not supported (ksize " +
                                    ShapeString(ksize) + ", strides " + ShapeString(strides) + ")");
    return false;
  }
  if (ksize[3] != 1 || strides[3] != 1) {
    c.Decline("pooling over the depth dimension is not supported on " + device_type +
              " (ksize " + ShapeString(ksize) + ", strides " + ShapeString(strides) + ")");
    return false;
  }
  a->k_h = ksize[1];
  a->k_w = ksize[2];
  a->s_h = strides[1];
  a->s_w = strides[2];
  std::string padding;
  if (!c.GetAttr("padding", &padding)) return false;
  if (padding == "SAME") {
    a->padding = ConvPadding::kSame;
  } else if (padding == "VALID") {
    a->padding = ConvPadding::kValid;
  } else if (padding == "EXPLICIT" && allow_explicit) {
    a->padding = ConvPadding::kExplicit;
  } else {
    c.Fail(TG_INVALID_ARGUMENT, "unsupported padding '" + padding + "'");
    return false;
  }
  if (!allow_explicit) return true;
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
  if (given[0] != 0 || given[1] != 0 || given[6] != 0 || given[7] != 0) {
    c.Fail(TG_INVALID_ARGUMENT, "explicit_paddings in the batch and depth dimensions must be zero");
    return false;
  }
  // Every window must cover at least one input element.
  if (given[2] >= a->k_h || given[3] >= a->k_h || given[4] >= a->k_w || given[5] >= a->k_w) {
    c.Fail(TG_INVALID_ARGUMENT, "explicit paddings must be smaller than the window (ksize " +
                                    ShapeString(ksize) + ", explicit_paddings " +
                                    ShapeString(given) + ")");
    return false;
  }
  a->pad_top = given[2];
  a->pad_bottom = given[3];
  a->pad_left = given[4];
  a->pad_right = given[5];
  return true;
}

// The pooling of an NHWC input: its dims and the windows (kernels read them as a
// ConvShape: kh, kw the window, oc = c the depth, dilations 1).
inline bool PoolGeometryOf(tgraph::plugin::Context& ctx, const PoolAttrs& a,
                           const std::vector<int64_t>& input, const char* what,
                           ConvGeometry* g) {
  if (input.size() != 4) {
    ctx.Fail(TG_INVALID_ARGUMENT,
             std::string(what) + " must be 4-D, got shape " + ShapeString(input));
    return false;
  }
  g->nchw = false;
  g->batch = input[0];
  g->in_h = input[1];
  g->in_w = input[2];
  g->depth = g->out_depth = input[3];
  g->k_h = a.k_h;
  g->k_w = a.k_w;
  g->s_h = a.s_h;
  g->s_w = a.s_w;
  std::string error;
  if (!ConvWindow(g->in_h, g->k_h, 1, a.s_h, a.padding, a.pad_top, a.pad_bottom, &g->out_h,
                  &g->pad_top, &error) ||
      !ConvWindow(g->in_w, g->k_w, 1, a.s_w, a.padding, a.pad_left, a.pad_right, &g->out_w,
                  &g->pad_left, &error)) {
    ctx.Fail(TG_INVALID_ARGUMENT, error + ": input " + ShapeString(input) + ", ksize [1," +
                                      std::to_string(a.k_h) + "," + std::to_string(a.k_w) +
                                      ",1]");
    return false;
  }
  return true;
}

// A pooling gradient's orig_output / grad must have the pooled shape.
inline bool CheckPooledShape(tgraph::plugin::Context& ctx, const char* what,
                             const std::vector<int64_t>& got, const ConvGeometry& g) {
  if (got == g.OutputDims()) return true;
  ctx.Fail(TG_INVALID_ARGUMENT, std::string(what) + " must have the pooled shape " +
                                    ShapeString(g.OutputDims()) + " of input " +
                                    ShapeString(g.InputDims()) + ", got " + ShapeString(got));
  return false;
}

}  // namespace tgraph_device_common
