// The kernel files for ops frozen TensorFlow models use beyond the first families (Erf,
// FusedBatchNorm, DepthwiseConv2dNative, Einsum, ...), one Register function each;
// RegisterModelOpKernels (model_op_kernels.cc) calls them all from TG_PluginInit. A header of
// their own, so adding one does not recompile the older Eigen kernels (cpu_kernels.h).
#pragma once

#include "tgraph/plugin.hpp"

namespace tgraph_cpu {

void RegisterModelOpKernels(tgraph::plugin::Init& init);

void RegisterMoreElementwiseKernels(tgraph::plugin::Init& init);  // cwise_more.cc
void RegisterBatchNormKernels(tgraph::plugin::Init& init);        // batch_norm_ops.cc
void RegisterDepthwiseConvKernels(tgraph::plugin::Init& init);    // depthwise_conv_op.cc
void RegisterDepthwiseConvBackpropKernels(tgraph::plugin::Init& init);  // depthwise_conv_backprop_op.cc
void RegisterEinsumKernels(tgraph::plugin::Init& init);           // einsum_op.cc

}  // namespace tgraph_cpu
