// Select, SelectV2, DynamicStitch and ParallelDynamicStitch on the device, float and int32
// (device code: select_stitch.cu), and the two stitches of int32 on the host (a stitched
// shape: the gradient of a reduction builds one), as TensorFlow's GPU kernels. The masks of
// a ReLU-like gradient and the stitched rows of a partitioned embedding's gradient then stay
// on the device.
#include <string>
#include <vector>

#include "cuda_common.h"
#include "cuda_kernels.h"
#include "cuda_launch.h"
#include "device_common/select_args.h"
#include "device_common/stitch_args.h"

namespace tgraph_cuda {
namespace {

using tgraph::plugin::Construction;
using tgraph::plugin::Context;
using tgraph::plugin::TensorMut;
using tgraph::plugin::TensorView;

// Select(condition, t, e) (kV2 false) and SelectV2 (true): bool condition, 4-byte t and e.
template <bool kV2>
class SelectKernel {
 public:
  explicit SelectKernel(Construction&) {}
  void Compute(Context& ctx) {
    std::vector<int64_t> out_dims;
    SelectShape s;
    if (!tgraph_device_common::PlanSelect(ctx, kV2, CheckIntSized, &out_dims, &s)) return;
    CudaDevice* dev = BindDevice(ctx);
    if (dev == nullptr) return;
    TensorMut out = ctx.AllocateOutput(0, out_dims);
    if (!ctx.ok() || s.n == 0) return;
    CudaOk(ctx,
           LaunchSelect32(DataOf<const uint8_t>(ctx.input(0)),
                          DataOf<const uint32_t>(ctx.input(1)),
                          DataOf<const uint32_t>(ctx.input(2)), DataOf<uint32_t>(out), s,
                          dev->stream()),
           "launch");
  }
};

// DynamicStitch(indices..., data...): indices (int32) in host memory, checked there as the
// CPU plugin checks them; each output row is copied from its last writer, one launch per
// data input that writes any, after zeroing the output when some row has no writer.
class DynamicStitchKernel {
 public:
  explicit DynamicStitchKernel(Construction&) {}
  void Compute(Context& ctx) {
    tgraph_device_common::StitchPlan plan;
    if (!tgraph_device_common::CheckStitchArgs(ctx, CheckIntSized, &plan.shape)) return;
    CudaDevice* dev = BindDevice(ctx);
    if (dev == nullptr) return;
    TensorMut out = ctx.AllocateOutput(0, plan.shape.out_dims);
    if (!ctx.ok() || out.byte_size() == 0) return;
    tgraph_device_common::PlanStitch(ctx, &plan);
    if (!plan.every_row &&
        !CudaOk(ctx, cudaMemsetAsync(DataOf<void>(out), 0, out.byte_size(), dev->stream()),
                "zeroing the output")) {
      return;
    }
    if (plan.pairs.empty()) return;
    const int32_t* pairs = Upload(ctx, *dev, plan.pairs);
    if (pairs == nullptr) return;
    const int n = ctx.num_inputs() / 2;
    for (int m = 0; m < n; ++m) {
      const int64_t first = plan.starts[static_cast<size_t>(m)];
      const int64_t count = plan.starts[static_cast<size_t>(m) + 1] - first;
      if (count == 0) continue;
      if (!CudaOk(ctx,
                  LaunchStitch32(DataOf<const uint32_t>(ctx.input(n + m)), pairs + 2 * first,
                                 DataOf<uint32_t>(out), static_cast<int>(count),
                                 static_cast<int>(plan.shape.inner), dev->stream()),
                  "launch")) {
        return;
      }
    }
  }
};

}  // namespace

void RegisterSelectStitchKernels(tgraph::plugin::Init& init) {
  tgraph_device_common::RegisterSelectStitch<CudaBackend, SelectKernel, DynamicStitchKernel>(
      init, DeviceType());
}

}  // namespace tgraph_cuda
