// Select, SelectV2, DynamicStitch and ParallelDynamicStitch on the device, float and int32
// (device code: select_stitch.cu), and the two stitches of int32 on the host (a stitched
// shape: the gradient of a reduction builds one), as TensorFlow's GPU kernels. The masks of
// a ReLU-like gradient and the stitched rows of a partitioned embedding's gradient then stay
// on the device.
#include <string>
#include <vector>

#include "cpu/dynamic_stitch_kernel.h"
#include "cuda_common.h"
#include "cuda_kernels.h"
#include "cuda_launch.h"
#include "device_common/select_args.h"

namespace tgraph_cuda {
namespace {

using tgraph::plugin::Construction;
using tgraph::plugin::Context;
using tgraph::plugin::KernelBuilder;
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
    tgraph_cpu::dynamic_stitch::StitchShape shape;
    if (!tgraph_cpu::dynamic_stitch::CheckStitch(ctx, &shape) ||
        !CheckIntSized(ctx, shape.rows * shape.inner, "the output")) {
      return;
    }
    const int n = ctx.num_inputs() / 2;
    for (int m = 0; m < n; ++m) {
      if (!CheckIntSized(ctx, ctx.input(n + m).num_elements(), "data")) return;
    }
    CudaDevice* dev = BindDevice(ctx);
    if (dev == nullptr) return;
    TensorMut out = ctx.AllocateOutput(0, shape.out_dims);
    if (!ctx.ok() || out.byte_size() == 0) return;
    std::vector<int32_t> pairs;
    std::vector<int64_t> starts;
    bool every_row = false;
    tgraph_cpu::dynamic_stitch::LastWriters(ctx, shape, &pairs, &starts, &every_row);
    if (!every_row &&
        !CudaOk(ctx, cudaMemsetAsync(DataOf<void>(out), 0, out.byte_size(), dev->stream()),
                "zeroing the output")) {
      return;
    }
    if (pairs.empty()) return;
    const int32_t* plan = Upload(ctx, *dev, pairs);
    if (plan == nullptr) return;
    for (int m = 0; m < n; ++m) {
      const int64_t first = starts[static_cast<size_t>(m)];
      const int64_t count = starts[static_cast<size_t>(m) + 1] - first;
      if (count == 0) continue;
      if (!CudaOk(ctx,
                  LaunchStitch32(DataOf<const uint32_t>(ctx.input(n + m)), plan + 2 * first,
                                 DataOf<uint32_t>(out), static_cast<int>(count),
                                 static_cast<int>(shape.inner), dev->stream()),
                  "launch")) {
        return;
      }
    }
  }
};

}  // namespace

void RegisterSelectStitchKernels(tgraph::plugin::Init& init) {
  const std::initializer_list<TG_DataType> types = {TG_FLOAT, TG_INT32};
  AddDeviceKernel<SelectKernel<false>>(init, 
      KernelBuilder("Select", DeviceType()).TypeConstraint("T", types));
  AddDeviceKernel<SelectKernel<true>>(init, 
      KernelBuilder("SelectV2", DeviceType()).TypeConstraint("T", types));
  // ParallelDynamicStitch: the same kernels (later inputs win, as on the CPU).
  for (const char* op : {"DynamicStitch", "ParallelDynamicStitch"}) {
    AddDeviceKernel<DynamicStitchKernel>(init, 
        KernelBuilder(op, DeviceType()).TypeConstraint("T", TG_FLOAT).HostMemory("indices"));
    AddDeviceKernel<tgraph_cpu::dynamic_stitch::DynamicStitchOp<int32_t>>(init, 
        KernelBuilder(op, DeviceType())
            .TypeConstraint("T", TG_INT32)
            .HostMemory("indices")
            .HostMemory("data")
            .HostMemory("merged"));
  }
}

}  // namespace tgraph_cuda
