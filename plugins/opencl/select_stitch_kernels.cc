// Select, SelectV2, DynamicStitch and ParallelDynamicStitch on the device, float and int32
// (program "misc", cl_sources.cc), and the two stitches of int32 on the host (a stitched
// shape: the gradient of a reduction builds one), as TensorFlow's GPU kernels. The masks of
// a ReLU-like gradient and the stitched rows of a partitioned embedding's gradient then stay
// on the device.
#include <string>
#include <vector>

#include "cl_common.h"
#include "cl_kernels.h"
#include "cpu/dynamic_stitch_kernel.h"
#include "device_common/select_args.h"

namespace tgraph_opencl {
namespace {

using tgraph::plugin::Construction;
using tgraph::plugin::Context;
using tgraph::plugin::KernelBuilder;
using tgraph::plugin::TensorMut;
using tgraph::plugin::TensorView;

// Matches the SelectShape struct of the OpenCL source.
constexpr int kMaxSelectRank = 6;
struct SelectShape {
  cl_int rank;
  cl_int n;
  cl_int dims[kMaxSelectRank];
  cl_int cs[kMaxSelectRank];
  cl_int ts[kMaxSelectRank];
  cl_int es[kMaxSelectRank];
};

// Select(condition, t, e) (kV2 false) and SelectV2 (true): bool condition, 4-byte t and e.
template <bool kV2>
class SelectKernel {
 public:
  explicit SelectKernel(Construction&) {}
  void Compute(Context& ctx) {
    std::vector<int64_t> out_dims;
    SelectShape s;
    if (!tgraph_device_common::PlanSelect(ctx, kV2, CheckIntSized, &out_dims, &s)) return;
    TensorMut out = ctx.AllocateOutput(0, out_dims);
    if (!ctx.ok() || s.n == 0) return;
    const cl_mem cm = BufferOf(ctx.input(0)), tm = BufferOf(ctx.input(1)),
                 em = BufferOf(ctx.input(2)), om = BufferOf(out);
    Launch(ctx, "misc", "tg_select32", {A(cm), A(tm), A(em), A(om), A(s)},
           {static_cast<size_t>(s.n)});
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
    TensorMut out = ctx.AllocateOutput(0, shape.out_dims);
    if (!ctx.ok() || out.byte_size() == 0) return;
    std::vector<int32_t> pairs;
    std::vector<int64_t> starts;
    bool every_row = false;
    tgraph_cpu::dynamic_stitch::LastWriters(ctx, shape, &pairs, &starts, &every_row);
    if (!every_row) {
      try {
        DeviceOf(ctx).queue().enqueueFillBuffer(MemOf(out), cl_uint{0}, 0, out.byte_size());
      } catch (const std::exception& e) {
        FailFromClError(ctx, e, "zeroing the output");
        return;
      }
    }
    if (pairs.empty()) return;
    cl::Buffer plan = Upload(ctx, pairs);
    if (!ctx.ok()) return;
    const cl_mem pm = plan(), om = BufferOf(out);
    const cl_int inner = static_cast<cl_int>(shape.inner);
    for (int m = 0; m < n; ++m) {
      const int64_t count = starts[static_cast<size_t>(m) + 1] - starts[static_cast<size_t>(m)];
      if (count == 0) continue;
      const cl_mem xm = BufferOf(ctx.input(n + m));
      const cl_int items = static_cast<cl_int>(count * shape.inner),
                   first = static_cast<cl_int>(starts[static_cast<size_t>(m)]);
      if (!Launch(ctx, "misc", "tg_stitch32", {A(xm), A(pm), A(om), A(items), A(inner), A(first)},
                  {static_cast<size_t>(items)})) {
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

}  // namespace tgraph_opencl
