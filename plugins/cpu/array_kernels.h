// The array-op kernel files of the CPU plugin, one Register function each; array_kernels.cc
// calls them all from RegisterArrayKernels (cpu_kernels.h).
#pragma once

#include "tgraph/plugin.hpp"

namespace tgraph_cpu {

// The per-element cost (KernelBuilder::CostPerElementNs) of a kernel whose output is a view
// of its input (Identity, Reshape, ...): the call costs, not the elements. Without it the
// plan counts a view of a big variable (a weight's `read` Identity) as work worth another
// thread, and a step's start waits for a pool thread to wake up to run it.
inline constexpr double kViewCostPerElementNs = 1e-6;

void RegisterConstantKernels(tgraph::plugin::Init& init);     // constant_op.cc
void RegisterPlaceholderKernels(tgraph::plugin::Init& init);  // placeholder_op.cc
void RegisterIdentityKernels(tgraph::plugin::Init& init);     // identity_op.cc
void RegisterReshapeKernels(tgraph::plugin::Init& init);      // reshape_ops.cc
void RegisterTransposeKernels(tgraph::plugin::Init& init);    // transpose_op.cc
void RegisterConcatPackKernels(tgraph::plugin::Init& init);   // concat_pack_ops.cc
void RegisterSliceKernels(tgraph::plugin::Init& init);        // slice_ops.cc
void RegisterTilePadKernels(tgraph::plugin::Init& init);      // tile_pad_ops.cc
void RegisterFillKernels(tgraph::plugin::Init& init);         // fill_ops.cc
void RegisterShapeKernels(tgraph::plugin::Init& init);        // shape_ops.cc
void RegisterOneHotKernels(tgraph::plugin::Init& init);       // one_hot_op.cc
void RegisterGatherKernels(tgraph::plugin::Init& init);       // gather_op.cc
void RegisterWhereKernels(tgraph::plugin::Init& init);        // where_op.cc
void RegisterSplitBroadcastKernels(tgraph::plugin::Init& init);  // split_broadcast_ops.cc
void RegisterBoolReductionKernels(tgraph::plugin::Init& init);   // bool_reduction_ops.cc
void RegisterPadReverseKernels(tgraph::plugin::Init& init);      // pad_reverse_ops.cc
void RegisterGatherScatterNdKernels(tgraph::plugin::Init& init);  // gather_scatter_nd_ops.cc
void RegisterSpaceDepthKernels(tgraph::plugin::Init& init);      // space_depth_ops.cc
void RegisterImageResizeKernels(tgraph::plugin::Init& init);     // image_resize_ops.cc
void RegisterAssertPrintKernels(tgraph::plugin::Init& init);     // assert_print_ops.cc

}  // namespace tgraph_cpu
