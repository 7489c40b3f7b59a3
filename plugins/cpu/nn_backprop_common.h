// Shared by the gradient kernels of Conv2D, MaxPool and AvgPool (nn_backprop_*.cc): their
// registration entry points and the shape checks both convolution backprops make.
#pragma once

#include <string>
#include <vector>

#include "conv_pool_common.h"

namespace tgraph_cpu::nn {

// Registration, one per file; RegisterNnBackpropKernels (nn_backprop_kernels.cc) calls them.
void RegisterConv2DBackpropInput(tgraph::plugin::Init& init);   // nn_backprop_conv_input.cc
void RegisterConv2DBackpropFilter(tgraph::plugin::Init& init);  // nn_backprop_conv_filter.cc
void RegisterPoolingGrad(tgraph::plugin::Init& init);           // nn_backprop_pool.cc
void RegisterPoolingWithIndex(tgraph::plugin::Init& init);      // nn_pool_index.cc

// The geometry of the convolution whose gradient is asked for, from the input and filter
// shapes (one of them given as a shape vector), checked against out_backprop's shape.
// Fails the context (INVALID_ARGUMENT, UNIMPLEMENTED for grouped convolution) otherwise.
inline bool ConvBackpropGeometry(tgraph::plugin::Context& ctx, const ConvAttrs& attrs,
                                 const std::vector<int64_t>& input,
                                 const std::vector<int64_t>& filter,
                                 const std::vector<int64_t>& out_backprop, ConvGeometry* g,
                                 int64_t* groups = nullptr) {
  if (groups != nullptr) *groups = 1;
  const std::string shapes = "input " + ShapeString(input) + ", filter " + ShapeString(filter) +
                             ", out_backprop " + ShapeString(out_backprop);
  if (input.size() != 4 || filter.size() != 4 || out_backprop.size() != 4) {
    ctx.Fail(TG_INVALID_ARGUMENT, "input, filter and out_backprop must all be 4-D: " + shapes);
    return false;
  }
  g->batch = input[0];
  g->in_h = input[1];
  g->in_w = input[2];
  g->depth = input[3];
  g->k_h = filter[0];
  g->k_w = filter[1];
  g->out_depth = filter[3];
  if (filter[2] != g->depth) {
    // A grouped convolution (conv2d_geometry.h): accepted where the caller computes it.
    const bool grouped = filter[2] > 0 && g->depth > 0 && g->depth % filter[2] == 0;
    if (grouped && groups != nullptr && g->out_depth % (g->depth / filter[2]) == 0) {
      *groups = g->depth / filter[2];
    } else if (grouped && groups == nullptr) {
      ctx.Fail(TG_UNIMPLEMENTED, "grouped convolution is not supported on the CPU: " + shapes);
      return false;
    } else {
      ctx.Fail(TG_INVALID_ARGUMENT,
               grouped ? "a grouped convolution's output depth must be a multiple of its groups: " + shapes
                       : "input depth must equal the filter's input depth: " + shapes);
      return false;
    }
  }
  if (g->k_h <= 0 || g->k_w <= 0) {
    ctx.Fail(TG_INVALID_ARGUMENT, "filter height and width must be > 0: " + shapes);
    return false;
  }
  std::string error;
  if (!ComputeConvGeometry(attrs, g, &error)) {
    ctx.Fail(TG_INVALID_ARGUMENT, error + ": " + shapes);
    return false;
  }
  const std::vector<int64_t> expected = {g->batch, g->out_h, g->out_w, g->out_depth};
  if (out_backprop != expected) {
    ctx.Fail(TG_INVALID_ARGUMENT, "out_backprop must have the convolution's output shape " +
                                      ShapeString(expected) + ": " + shapes);
    return false;
  }
  return true;
}

}  // namespace tgraph_cpu::nn
