#include "core/exec/list_kernels.h"

#include "core/exec/list_kernel_util.h"
#include "core/exec/resource_variables.h"

namespace tgraph {

const std::vector<CoreKernel>& ListKernels() {
  static const std::vector<CoreKernel> kernels = [] {
    std::vector<CoreKernel> all = list_kernels::TensorArrayKernels();
    for (const CoreKernel& k : list_kernels::TensorListKernels()) all.push_back(k);
    for (const CoreKernel& k : ResourceVariableKernels()) all.push_back(k);
    return all;
  }();
  return kernels;
}

}  // namespace tgraph
