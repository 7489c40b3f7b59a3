// bfloat16 kernels of BiasAdd, BiasAddGrad, Softmax and LogSoftmax (bf16_kernels.cc), the
// ops automatic mixed precision runs between contractions. Registered by cpu_plugin.cc.
#pragma once

#include "tgraph/plugin.hpp"

namespace tgraph_cpu {

void RegisterBf16Kernels(tgraph::plugin::Init& init);

}  // namespace tgraph_cpu
