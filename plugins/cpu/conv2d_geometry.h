// Conv2D's and DepthwiseConv2dNative's input checks and output geometry, shared by the Eigen
// kernels (and the fused ops') and the oneDNN plugin's, so that both accept the same nodes
// with the same messages.
#pragma once

#include <string>

#include "conv_pool_common.h"

namespace tgraph_cpu::nn {

// The window's checks and the output geometry, once `g`'s sizes are filled: fails `ctx`
// (INVALID_ARGUMENT, naming both shapes) and returns false on an empty window or a negative
// output.
inline bool WindowGeometry(tgraph::plugin::Context& ctx, const ConvAttrs& attrs,
                           const tgraph::plugin::TensorView& input,
                           const tgraph::plugin::TensorView& filter, ConvGeometry* g) {
  if (g->k_h <= 0 || g->k_w <= 0) {
    ctx.Fail(TG_INVALID_ARGUMENT, "filter height and width must be > 0, got filter shape " +
                                      ShapeString(filter.dims()));
    return false;
  }
  std::string error;
  if (!ComputeConvGeometry(attrs, g, &error)) {
    ctx.Fail(TG_INVALID_ARGUMENT, error + ": input " + ShapeString(input.dims()) + ", filter " +
                                      ShapeString(filter.dims()));
    return false;
  }
  return true;
}

// Fills `g` from a 4-D NHWC input, a 4-D HWIO filter and the attrs; on bad inputs fails
// `ctx` (INVALID_ARGUMENT) and returns false. A grouped convolution (TensorFlow's: the input
// depth a multiple k of the filter's input depth, k groups of input channels, each feeding
// out_depth / k filters) sets *groups to k when `groups` is given, and fails with
// UNIMPLEMENTED otherwise (a caller that computes only plain convolutions). g->depth is the
// whole input depth either way.
inline bool Conv2DForwardGeometry(tgraph::plugin::Context& ctx, const ConvAttrs& attrs,
                                  const tgraph::plugin::TensorView& input,
                                  const tgraph::plugin::TensorView& filter, ConvGeometry* g,
                                  int64_t* groups = nullptr) {
  if (groups != nullptr) *groups = 1;
  if (input.rank() != 4 || filter.rank() != 4) {
    ctx.Fail(TG_INVALID_ARGUMENT, "Conv2D needs a 4-D input and a 4-D filter, got shapes " +
                                      ShapeString(input.dims()) + " and " +
                                      ShapeString(filter.dims()));
    return false;
  }
  g->batch = input.dim(0);
  g->in_h = input.dim(1);
  g->in_w = input.dim(2);
  g->depth = input.dim(3);
  g->k_h = filter.dim(0);
  g->k_w = filter.dim(1);
  g->out_depth = filter.dim(3);
  const int64_t k_depth = filter.dim(2);
  if (k_depth == 0) {
    ctx.Fail(TG_INVALID_ARGUMENT, "the filter's input depth must be > 0, got filter shape " +
                                      ShapeString(filter.dims()));
    return false;
  }
  if (k_depth != g->depth) {
    // (An empty input depth is no group: it fails as a mismatch below.)
    if (k_depth > 0 && g->depth > 0 && g->depth % k_depth == 0 && groups != nullptr) {
      const int64_t k = g->depth / k_depth;
      if (g->out_depth % k != 0) {
        ctx.Fail(TG_INVALID_ARGUMENT,
                 std::string("a grouped convolution's output depth must be a multiple of its ") +
                     std::to_string(k) + " groups: input " + ShapeString(input.dims()) +
                     ", filter " + ShapeString(filter.dims()));
        return false;
      }
      *groups = k;
    } else if (k_depth > 0 && g->depth > 0 && g->depth % k_depth == 0) {
      ctx.Fail(TG_UNIMPLEMENTED, "grouped convolution (input depth " +
                                     std::to_string(g->depth) + ", filter input depth " +
                                     std::to_string(k_depth) + ") is not supported on the CPU");
      return false;
    } else {
      ctx.Fail(TG_INVALID_ARGUMENT, "input depth must equal the filter's input depth: input " +
                                        ShapeString(input.dims()) + ", filter " +
                                        ShapeString(filter.dims()));
      return false;
    }
  }
  return WindowGeometry(ctx, attrs, input, filter, g);
}

// DepthwiseConv2dNative's (and _FusedDepthwiseConv2dNative's): a 4-D NHWC input and a 4-D
// filter [KH, KW, C, M], C the input's depth; g->out_depth is C * M, *multiplier M. On bad
// inputs fails `ctx` (INVALID_ARGUMENT) and returns false.
inline bool DepthwiseForwardGeometry(tgraph::plugin::Context& ctx, const ConvAttrs& attrs,
                                     const tgraph::plugin::TensorView& input,
                                     const tgraph::plugin::TensorView& filter, ConvGeometry* g,
                                     int64_t* multiplier) {
  if (input.rank() != 4 || filter.rank() != 4) {
    ctx.Fail(TG_INVALID_ARGUMENT,
             "DepthwiseConv2dNative needs a 4-D input and a 4-D filter, got shapes " +
                 ShapeString(input.dims()) + " and " + ShapeString(filter.dims()));
    return false;
  }
  g->batch = input.dim(0);
  g->in_h = input.dim(1);
  g->in_w = input.dim(2);
  g->depth = input.dim(3);
  g->k_h = filter.dim(0);
  g->k_w = filter.dim(1);
  *multiplier = filter.dim(3);
  g->out_depth = g->depth * *multiplier;
  if (filter.dim(2) != g->depth) {
    ctx.Fail(TG_INVALID_ARGUMENT, "input depth must equal the filter's input depth: input " +
                                      ShapeString(input.dims()) + ", filter " +
                                      ShapeString(filter.dims()));
    return false;
  }
  return WindowGeometry(ctx, attrs, input, filter, g);
}

}  // namespace tgraph_cpu::nn
