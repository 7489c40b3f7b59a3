// Internal to core/ops: one Register function per op family (core/ops/<family>_ops.cc),
// called by RegisterStandardOps. Adding an op is one more OpDefBuilder in its family's list.
#pragma once

#include <vector>

#include "core/base/status.h"
#include "core/ops/op_registry.h"

namespace tgraph {

Status RegisterArrayOps(OpRegistry* registry);        // array_ops.cc
Status RegisterControlFlowOps(OpRegistry* registry);  // control_flow_ops.cc
Status RegisterMathOps(OpRegistry* registry);         // math_ops.cc
Status RegisterNnOps(OpRegistry* registry);           // nn_ops.cc
Status RegisterRandomOps(OpRegistry* registry);       // random_ops.cc
Status RegisterStatelessRandomOps(OpRegistry* registry);  // stateless_random_ops.cc
Status RegisterStateOps(OpRegistry* registry);        // state_ops.cc
Status RegisterResourceVariableOps(OpRegistry* registry);  // resource_variable_ops.cc
Status RegisterGradHelperOps(OpRegistry* registry);   // grad_helper_ops.cc
Status RegisterArrayHelperOps(OpRegistry* registry);  // array_helper_ops.cc
Status RegisterNnBackpropOps(OpRegistry* registry);   // nn_backprop_ops.cc
Status RegisterTrainingOps(OpRegistry* registry);     // training_ops.cc
Status RegisterIoOps(OpRegistry* registry);           // io_ops.cc
Status RegisterLoggingOps(OpRegistry* registry);      // logging_ops.cc
Status RegisterStringOps(OpRegistry* registry);       // string_ops.cc
Status RegisterArraySplitOps(OpRegistry* registry);   // array_split_ops.cc
Status RegisterBatchNormOps(OpRegistry* registry);    // batch_norm_ops.cc
Status RegisterEinsumOps(OpRegistry* registry);       // einsum_ops.cc
Status RegisterArrayLayoutOps(OpRegistry* registry);  // array_layout_ops.cc
Status RegisterArrayNdOps(OpRegistry* registry);      // array_nd_ops.cc
Status RegisterImageOps(OpRegistry* registry);        // image_ops.cc
Status RegisterImageCodecOps(OpRegistry* registry);   // image_codec_ops.cc
Status RegisterListOps(OpRegistry* registry);         // list_ops.cc
Status RegisterFusedOps(OpRegistry* registry);        // fused_ops.cc
Status RegisterFunctionalOps(OpRegistry* registry);   // functional_ops.cc
Status RegisterMatrixSegmentOps(OpRegistry* registry);  // matrix_segment_ops.cc
Status RegisterArrayMiscOps(OpRegistry* registry);   // array_misc_ops.cc
Status RegisterMathMoreOps(OpRegistry* registry);     // math_more_ops.cc
Status RegisterDetectionPool3DOps(OpRegistry* registry);  // detection_pool3d_ops.cc
Status RegisterSpectralOps(OpRegistry* registry);     // spectral_ops.cc

// Shape functions shared across families: the fused ops (fused_ops.cc) have the shapes of
// the ops they start with.
Status MatMulShape(InferenceContext& c);  // math_ops.cc
// [..., m, k] x [..., k, n] -> [broadcast(...), m, n] (BatchMatMulV2 and V3).
Status BatchMatMulV2Shape(InferenceContext& c);  // nn_ops.cc
Status Conv2DShape(InferenceContext& c);  // nn_ops.cc
Status DepthwiseConv2dShape(InferenceContext& c);  // nn_ops.cc
Status ReductionShape(InferenceContext& c);  // math_ops.cc (ReduceJoin's too)
Status MaxPoolShape(InferenceContext& c);  // nn_ops.cc
// [num_segments] + data.shape[rank(segment_ids):] (every UnsortedSegment* op).
Status UnsortedSegmentSumShape(InferenceContext& c);  // array_helper_ops.cc
// Output 0 is the 4-D shape held by int32/int64 input i (AvgPoolGrad's orig_input_shape).
Status Rank4FromShapeInput(InferenceContext& c, int i, const char* what);  // nn_backprop_ops.cc

// Registers each op in order; the first failure is returned (naming the op).
Status RegisterOps(OpRegistry* registry, const std::vector<OpDefBuilder>& ops);

}  // namespace tgraph
