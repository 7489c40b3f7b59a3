// What the GPU backends' Select and DynamicStitch kernels share besides PlanSelect
// (select_args.h): DynamicStitch's host-side checks and plan, and the registrations of the
// four ops. Each backend supplies only its device kernels (a launch per plan) and its
// device type, as PlanTile and PlanPad (array_args.h) take the plugin's element-count check.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cpu/dynamic_stitch_kernel.h"
#include "device_common/int_sized.h"
#include "tgraph/plugin.hpp"

namespace tgraph_device_common {

// DynamicStitch(indices..., data...) on a device, planned on the host: `shape` the output's,
// `pairs` and `starts` from tgraph_cpu::dynamic_stitch::LastWriters (each output row's last
// writer, grouped by data input), `every_row` true when no row is left to zero.
struct StitchPlan {
  tgraph_cpu::dynamic_stitch::StitchShape shape;
  std::vector<int32_t> pairs;
  std::vector<int64_t> starts;
  bool every_row = false;
};

// The CPU kernel's checks (indices in host memory), then the device's element-count limit
// (`check_int_sized`, the plugin's) on the output and on each data input. False after
// failing the node.
template <class CheckIntSized>
bool CheckStitchArgs(tgraph::plugin::Context& ctx, CheckIntSized check_int_sized,
                     tgraph_cpu::dynamic_stitch::StitchShape* shape) {
  if (!tgraph_cpu::dynamic_stitch::CheckStitch(ctx, shape) ||
      !check_int_sized(ctx, shape->rows * shape->inner, "the output")) {
    return false;
  }
  const int n = ctx.num_inputs() / 2;
  for (int m = 0; m < n; ++m) {
    if (!check_int_sized(ctx, ctx.input(n + m).num_elements(), "data")) return false;
  }
  return true;
}

// Fills plan->pairs, starts and every_row for plan->shape (checked by CheckStitchArgs).
inline void PlanStitch(tgraph::plugin::Context& ctx, StitchPlan* plan) {
  tgraph_cpu::dynamic_stitch::LastWriters(ctx, plan->shape, &plan->pairs, &plan->starts,
                                          &plan->every_row);
}

// Registers Select (SelectKernel<false>) and SelectV2 (<true>) of float and int32, and
// DynamicStitch and ParallelDynamicStitch: float on the device (StitchKernel, indices in host
// memory), int32 as the CPU plugin's kernel with everything in host memory (a stitched shape,
// as TensorFlow's GPU int32 kernel). Each through IntSizedKernel<Backend, ...> (int_sized.h).
template <class Backend, template <bool> class SelectKernel, class StitchKernel>
void RegisterSelectStitch(tgraph::plugin::Init& init, const std::string& device_type) {
  using tgraph::plugin::KernelBuilder;
  const std::initializer_list<TG_DataType> types = {TG_FLOAT, TG_INT32};
  init.Kernel<IntSizedKernel<Backend, SelectKernel<false>>>(
      KernelBuilder("Select", device_type).TypeConstraint("T", types));
  init.Kernel<IntSizedKernel<Backend, SelectKernel<true>>>(
      KernelBuilder("SelectV2", device_type).TypeConstraint("T", types));
  // ParallelDynamicStitch: the same kernels (later inputs win, as on the CPU).
  for (const char* op : {"DynamicStitch", "ParallelDynamicStitch"}) {
    init.Kernel<IntSizedKernel<Backend, StitchKernel>>(
        KernelBuilder(op, device_type).TypeConstraint("T", TG_FLOAT).HostMemory("indices"));
    init.Kernel<IntSizedKernel<Backend, tgraph_cpu::dynamic_stitch::DynamicStitchOp<int32_t>>>(
        KernelBuilder(op, device_type)
            .TypeConstraint("T", TG_INT32)
            .HostMemory("indices")
            .HostMemory("data")
            .HostMemory("merged"));
  }
}

}  // namespace tgraph_device_common
