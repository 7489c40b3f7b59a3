// Registration entry points of the CPU plugin, one per op family (one .cc file each).
#pragma once

#include "tgraph/plugin.hpp"

namespace tgraph_cpu {

void RegisterCpuDevice(tgraph::plugin::Init& init);
void RegisterElementwiseKernels(tgraph::plugin::Init& init);  // cwise_*.cc, cast, select, AddN
void RegisterReductionKernels(tgraph::plugin::Init& init);    // reduction_ops.cc, argmax
void RegisterNnKernels(tgraph::plugin::Init& init);           // matmul, conv, pool, softmax, xent
void RegisterArrayKernels(tgraph::plugin::Init& init);        // reshape ... gather, one_hot
void RegisterStateKernels(tgraph::plugin::Init& init);        // variables, assign, scatter
void RegisterRandomKernels(tgraph::plugin::Init& init);       // random ops, candidate sampler
void RegisterGradHelperKernels(tgraph::plugin::Init& init);   // grad_helper_kernels.cc
void RegisterArrayHelperKernels(tgraph::plugin::Init& init);  // array_helper_kernels.cc
void RegisterNnBackpropKernels(tgraph::plugin::Init& init);   // nn_backprop_kernels.cc
void RegisterTrainingKernels(tgraph::plugin::Init& init);     // training_kernels.cc
void RegisterCheckpointKernels(tgraph::plugin::Init& init);   // checkpoint_ops.cc
void RegisterMatrixDiagKernels(tgraph::plugin::Init& init);   // matrix_diag_ops.cc
void RegisterSegmentReductionKernels(tgraph::plugin::Init& init);  // segment_reduction_ops.cc
void RegisterArrayMiscKernels(tgraph::plugin::Init& init);    // array_misc_ops.cc
void RegisterComplexKernels(tgraph::plugin::Init& init);      // complex_ops.cc
void RegisterFftKernels(tgraph::plugin::Init& init);          // fft_ops.cc

}  // namespace tgraph_cpu
