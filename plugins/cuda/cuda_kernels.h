// Registration of the CUDA plugin's device and kernels, one function per file.
#pragma once

#include "tgraph/plugin.hpp"

namespace tgraph_cuda {

// Registers the device type; false (having registered nothing) when there is no device.
bool RegisterDevice(tgraph::plugin::Init& init);        // cuda_device.cc
void RegisterCwiseKernels(tgraph::plugin::Init& init);  // cwise_kernels.cc
void RegisterCompareKernels(tgraph::plugin::Init& init); // compare_kernels.cc
void RegisterNnKernels(tgraph::plugin::Init& init);     // nn_kernels.cc
void RegisterArrayKernels(tgraph::plugin::Init& init);  // array_kernels.cc
void RegisterXentKernels(tgraph::plugin::Init& init);   // xent_kernels.cc
void RegisterStateKernels(tgraph::plugin::Init& init);  // state_kernels.cc
void RegisterConvKernels(tgraph::plugin::Init& init);   // conv_kernels.cc
void RegisterSparseKernels(tgraph::plugin::Init& init);  // sparse_kernels.cc
void RegisterOptimizerMathKernels(tgraph::plugin::Init& init);  // optimizer_math_kernels.cc
void RegisterSelectStitchKernels(tgraph::plugin::Init& init);   // select_stitch_kernels.cc

}  // namespace tgraph_cuda
