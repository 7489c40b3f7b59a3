// bfloat16 kernels of BiasAdd, BiasAddGrad, Softmax, LogSoftmax, MaxPool, MaxPoolGrad,
// ReluGrad and float<->bf16 Cast (bf16_kernels.cc), the ops automatic mixed precision runs
// between contractions. Registered by cpu_plugin.cc.
#pragma once

#include "tgraph/plugin.hpp"

namespace tgraph_cpu {

void RegisterBf16Kernels(tgraph::plugin::Init& init);

}  // namespace tgraph_cpu
