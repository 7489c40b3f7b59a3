// Unique's CPU registrations (the kernel: unique_kernel.h, shared with the GPU plugins).
#include <cstdint>

#include "array_helper_kernels.h"
#include "nn_common.h"
#include "unique_kernel.h"

namespace tgraph_cpu {
namespace {

using nn::DTypeOf;

template <typename T>
void RegisterFor(tgraph::plugin::Init& init) {
  init.Kernel<UniqueOp<T>>(tgraph::plugin::KernelBuilder("Unique", "CPU")
                               .TypeConstraint("T", DTypeOf<T>::value)
                               .TypeConstraint("out_idx", TG_ARRAY_INDEX_TYPES));
}

}  // namespace

void RegisterArrayHelperUniqueKernels(tgraph::plugin::Init& init) {
  RegisterFor<float>(init);
  RegisterFor<double>(init);
  RegisterFor<int32_t>(init);
  RegisterFor<int64_t>(init);
}

}  // namespace tgraph_cpu
