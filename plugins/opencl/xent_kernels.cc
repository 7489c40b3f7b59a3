// SoftmaxCrossEntropyWithLogits and SparseSoftmaxCrossEntropyWithLogits, float32 (program
// "xent", cl_sources.cc): loss [batch] and backprop [batch, classes], one work-group per row.
//
// Sparse labels stay in device memory (they usually come from the device, and the op's
// TensorFlow signature has them as ordinary inputs). Each work-group checks its own label;
// the host reads one int back after the kernel (a blocking read, so this op waits for the
// queue) and, if a label was out of range, reads that label and fails the node with the
// CPU plugin's message. The outputs are left unwritten for bad rows; the run fails anyway.
#include <climits>
#include <string>
#include <vector>

#include "cl_common.h"
#include "cl_kernels.h"
#include "device_common/xent_args.h"

namespace tgraph_opencl {
namespace {

using tgraph::plugin::Construction;
using tgraph::plugin::Context;
using tgraph::plugin::KernelBuilder;
using tgraph::plugin::TensorMut;
using tgraph::plugin::TensorView;
using tgraph_device_common::CheckSparseXent;
using tgraph_device_common::FailBadLabel;
using tgraph_device_common::PlanSoftmaxXent;
using tgraph_device_common::XentPlan;

bool FillZeros(Context& ctx, const TensorMut& t) {
  if (t.byte_size() == 0) return true;
  try {
    DeviceOf(ctx).queue().enqueueFillBuffer(
        static_cast<const ClBuffer*>(tgraph::plugin::Api()->tensor_data(t.raw()))->mem, 0.0f, 0,
        t.byte_size());
    return true;
  } catch (const std::exception& e) {
    FailFromClError(ctx, e, "filling zeros");
    return false;
  }
}

// Features and labels broadcast to [batch, classes] (each 2-D, or lower rank and
// right-aligned, as the CPU plugin accepts).
class SoftmaxXentKernel {
 public:
  explicit SoftmaxXentKernel(Construction&) {}
  void Compute(Context& ctx) {
    TensorView features = ctx.input(0), labels = ctx.input(1);
    XentPlan plan;
    if (!PlanSoftmaxXent(ctx, features, labels, &plan)) return;
    const std::vector<int64_t>& fd = plan.fd;
    const std::vector<int64_t>& ld = plan.ld;
    const int64_t batch = plan.batch, classes = plan.classes;
    if (!CheckIntSized(ctx, batch * classes, "the backprop")) return;
    TensorMut loss = ctx.AllocateOutput(0, {batch});
    TensorMut backprop = ctx.AllocateOutput(1, {batch, classes});
    if (!ctx.ok() || batch == 0) return;
    if (classes == 0) {  // an empty sum: zero loss
      FillZeros(ctx, loss);
      return;
    }
    // Element strides; 0 along a broadcast dim.
    const cl_int f_row = fd[0] == 1 ? 0 : static_cast<cl_int>(fd[1]), f_col = fd[1] == 1 ? 0 : 1;
    const cl_int l_row = ld[0] == 1 ? 0 : static_cast<cl_int>(ld[1]), l_col = ld[1] == 1 ? 0 : 1;
    const cl_mem fm = BufferOf(features), lm = BufferOf(labels), lossm = BufferOf(loss),
                 bm = BufferOf(backprop);
    const cl_int C = static_cast<cl_int>(classes);
    const size_t rg = static_cast<size_t>(DeviceOf(ctx).reduce_group());
    Launch(ctx, "xent", "tg_softmax_xent",
           {A(fm), A(lm), A(lossm), A(bm), A(C), A(f_row), A(f_col), A(l_row), A(l_col)},
           {static_cast<size_t>(batch) * rg}, {rg});
  }
};

template <typename L>
class SparseSoftmaxXentKernel {
 public:
  explicit SparseSoftmaxXentKernel(Construction&) {}
  void Compute(Context& ctx) {
    TensorView features = ctx.input(0), labels = ctx.input(1);
    if (!CheckSparseXent(ctx, features, labels)) return;
    const int64_t batch = features.dim(0), classes = features.dim(1);
    if (!CheckIntSized(ctx, features.num_elements(), "features")) return;
    TensorMut loss = ctx.AllocateOutput(0, {batch});
    TensorMut backprop = ctx.AllocateOutput(1, {batch, classes});
    if (!ctx.ok() || batch == 0) return;
    ClDevice& dev = DeviceOf(ctx);
    const cl_mem fm = BufferOf(features), lm = BufferOf(labels), lossm = BufferOf(loss),
                 bm = BufferOf(backprop);
    const cl_int C = static_cast<cl_int>(classes);
    const size_t rg = static_cast<size_t>(dev.reduce_group());
    cl_int bad = INT_MAX;  // the first row with a bad label, INT_MAX if none
    cl::Buffer bad_mem;
    try {
      bad_mem = cl::Buffer(dev.context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof bad,
                           &bad);
    } catch (const std::exception& e) {
      FailFromClError(ctx, e, "allocating the label check flag");
      return;
    }
    const cl_mem flag = bad_mem();
    if (!Launch(ctx, "xent", sizeof(L) == 4 ? "tg_sparse_xent_i32" : "tg_sparse_xent_i64",
                {A(fm), A(lm), A(lossm), A(bm), A(C), A(flag)},
                {static_cast<size_t>(batch) * rg}, {rg})) {
      return;
    }
    L label = 0;
    try {
      dev.queue().enqueueReadBuffer(bad_mem, CL_TRUE, 0, sizeof bad, &bad);
      if (bad == INT_MAX) return;
      const auto* lb =
          static_cast<const ClBuffer*>(tgraph::plugin::Api()->tensor_data(labels.raw()));
      dev.queue().enqueueReadBuffer(lb->mem, CL_TRUE, static_cast<size_t>(bad) * sizeof(L),
                                    sizeof(L), &label);
    } catch (const std::exception& e) {
      FailFromClError(ctx, e, "reading the label check back");
      return;
    }
    FailBadLabel(ctx, bad, label, classes);
  }
};

}  // namespace

void RegisterXentKernels(tgraph::plugin::Init& init) {
  auto f = [](const char* op) {
    return KernelBuilder(op, DeviceType()).TypeConstraint("T", TG_FLOAT);
  };
  AddDeviceKernel<SoftmaxXentKernel>(init, f("SoftmaxCrossEntropyWithLogits"));
  AddDeviceKernel<SparseSoftmaxXentKernel<int32_t>>(init, 
      f("SparseSoftmaxCrossEntropyWithLogits").TypeConstraint("Tlabels", TG_INT32));
  AddDeviceKernel<SparseSoftmaxXentKernel<int64_t>>(init, 
      f("SparseSoftmaxCrossEntropyWithLogits").TypeConstraint("Tlabels", TG_INT64));
}

}  // namespace tgraph_opencl
