// DynamicStitch and ParallelDynamicStitch (rows placed at their indices, later inputs win;
// rows no index names are zero: dynamic_stitch_kernel.h, shared with the GPU plugins).
// UnsortedSegmentSum, which gradients of Gather and reductions build, is one of the segment
// reductions (segment_reduction_ops.cc).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "array_helper_kernels.h"
#include "array_kernel_util.h"
#include "dynamic_stitch_kernel.h"
#include "nn_common.h"

namespace tgraph_cpu {
namespace {

using namespace array_util;
using nn::DTypeOf;

template <typename T>
void RegisterFor(tgraph::plugin::Init& init) {
  using tgraph::plugin::KernelBuilder;
  for (const char* op : {"DynamicStitch", "ParallelDynamicStitch"}) {
    init.Kernel<dynamic_stitch::DynamicStitchOp<T>>(
        KernelBuilder(op, "CPU").TypeConstraint("T", DTypeOf<T>::value));
  }
}

}  // namespace

void RegisterArrayHelperSegmentKernels(tgraph::plugin::Init& init) {
  RegisterFor<float>(init);
  RegisterFor<double>(init);
  RegisterFor<int32_t>(init);
  RegisterFor<int64_t>(init);
}

}  // namespace tgraph_cpu
