// Select, SelectV2, DynamicStitch and ParallelDynamicStitch on the device, float and int32
// (program "misc", cl_sources.cc), and the two stitches of int32 on the host (a stitched
// shape: the gradient of a reduction builds one), as TensorFlow's GPU kernels. The masks of
// a ReLU-like gradient and the stitched rows of a partitioned embedding's gradient then stay
// on the device.
#include <string>
#include <vector>

#include "cl_common.h"
#include "cl_kernels.h"
#include "device_common/select_args.h"
#include "device_common/stitch_args.h"

namespace tgraph_opencl {
namespace {

using tgraph::plugin::Construction;
using tgraph::plugin::Context;
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
    tgraph_device_common::StitchPlan plan;
    if (!tgraph_device_common::CheckStitchArgs(ctx, CheckIntSized, &plan.shape)) return;
    TensorMut out = ctx.AllocateOutput(0, plan.shape.out_dims);
    if (!ctx.ok() || out.byte_size() == 0) return;
    tgraph_device_common::PlanStitch(ctx, &plan);
    if (!plan.every_row) {
      try {
        DeviceOf(ctx).queue().enqueueFillBuffer(MemOf(out), cl_uint{0}, 0, out.byte_size());
      } catch (const std::exception& e) {
        FailFromClError(ctx, e, "zeroing the output");
        return;
      }
    }
    if (plan.pairs.empty()) return;
    cl::Buffer pairs = Upload(ctx, plan.pairs);
    if (!ctx.ok()) return;
    const cl_mem pm = pairs(), om = BufferOf(out);
    const cl_int inner = static_cast<cl_int>(plan.shape.inner);
    const int n = ctx.num_inputs() / 2;
    for (int m = 0; m < n; ++m) {
      const int64_t first = plan.starts[static_cast<size_t>(m)];
      const int64_t count = plan.starts[static_cast<size_t>(m) + 1] - first;
      if (count == 0) continue;
      const cl_mem xm = BufferOf(ctx.input(n + m));
      const cl_int items = static_cast<cl_int>(count * plan.shape.inner),
                   start = static_cast<cl_int>(first);
      if (!Launch(ctx, "misc", "tg_stitch32", {A(xm), A(pm), A(om), A(items), A(inner), A(start)},
                  {static_cast<size_t>(items)})) {
        return;
      }
    }
  }
};

}  // namespace

void RegisterSelectStitchKernels(tgraph::plugin::Init& init) {
  tgraph_device_common::RegisterSelectStitch<OpenclBackend, SelectKernel, DynamicStitchKernel>(
      init, DeviceType());
}

}  // namespace tgraph_opencl
