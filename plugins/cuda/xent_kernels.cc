// SoftmaxCrossEntropyWithLogits and SparseSoftmaxCrossEntropyWithLogits, float32 (device
// code: reduce.cu): loss [batch] and backprop [batch, classes], one block per row.
//
// Sparse labels stay in device memory (they usually come from the device, and the op's
// TensorFlow signature has them as ordinary inputs). Each block checks its own label and
// flags a bad one; the host reads the flag back after the kernel (so this op waits for the
// stream) and, if a label was out of range, reads that label and fails the node with the
// CPU plugin's message. The outputs are left unwritten for bad rows; the run fails anyway.
#include <string>
#include <vector>

#include "cuda_common.h"
#include "cuda_kernels.h"
#include "cuda_launch.h"
#include "device_common/xent_args.h"

namespace tgraph_cuda {
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
    CudaDevice* dev = BindDevice(ctx);
    if (dev == nullptr) return;
    TensorMut loss = ctx.AllocateOutput(0, {batch});
    TensorMut backprop = ctx.AllocateOutput(1, {batch, classes});
    if (!ctx.ok() || batch == 0) return;
    if (classes == 0) {  // an empty sum: zero loss
      CudaOk(ctx, cudaMemsetAsync(DataOf<void>(loss), 0, loss.byte_size(), dev->stream()),
             "filling zeros");
      return;
    }
    // Element strides; 0 along a broadcast dim.
    const int f_row = fd[0] == 1 ? 0 : static_cast<int>(fd[1]), f_col = fd[1] == 1 ? 0 : 1;
    const int l_row = ld[0] == 1 ? 0 : static_cast<int>(ld[1]), l_col = ld[1] == 1 ? 0 : 1;
    CudaOk(ctx,
           LaunchSoftmaxXent(DataOf<const float>(features), DataOf<const float>(labels),
                             DataOf<float>(loss), DataOf<float>(backprop),
                             static_cast<int>(batch), static_cast<int>(classes), f_row, f_col,
                             l_row, l_col, dev->stream()),
           "launch");
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
    CudaDevice* dev = BindDevice(ctx);
    if (dev == nullptr) return;
    TensorMut loss = ctx.AllocateOutput(0, {batch});
    TensorMut backprop = ctx.AllocateOutput(1, {batch, classes});
    if (!ctx.ok() || batch == 0) return;
    TensorMut flag = ctx.AllocateTemp(TG_INT32, {1});
    if (!ctx.ok()) return;
    int* flag_p = DataOf<int>(flag);
    const L* labels_p = DataOf<const L>(labels);
    if (!CudaOk(ctx, cudaMemsetAsync(flag_p, 0x7f, sizeof(int), dev->stream()),
                "setting the label check flag") ||
        !CudaOk(ctx,
                LaunchSparseXent(DataOf<const float>(features), labels_p, DataOf<float>(loss),
                                 DataOf<float>(backprop), static_cast<int>(batch),
                                 static_cast<int>(classes), flag_p, dev->stream()),
                "launch")) {
      return;
    }
    int bad = kNoFlag;  // the first row with a bad label
    if (!ReadFlag(ctx, *dev, flag_p, &bad) || bad == kNoFlag) return;
    L label = 0;
    if (!CudaOk(ctx,
                cudaMemcpyAsync(&label, labels_p + bad, sizeof label, cudaMemcpyDeviceToHost,
                                dev->stream()),
                "reading the bad label") ||
        !CudaOk(ctx, cudaStreamSynchronize(dev->stream()), "reading the bad label")) {
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

}  // namespace tgraph_cuda
