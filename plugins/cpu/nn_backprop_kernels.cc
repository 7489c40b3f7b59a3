// Registration entry point for the gradient kernels of convolution and pooling (one file per
// op: nn_backprop_conv_input.cc, nn_backprop_conv_filter.cc, nn_backprop_pool.cc).
#include "cpu_kernels.h"
#include "nn_backprop_common.h"

namespace tgraph_cpu {

void RegisterNnBackpropKernels(tgraph::plugin::Init& init) {
  nn::RegisterConv2DBackpropInput(init);
  nn::RegisterConv2DBackpropFilter(init);
  nn::RegisterPoolingGrad(init);
  nn::RegisterPoolingWithIndex(init);
}

}  // namespace tgraph_cpu
