// Conv2D, Conv2DBackpropInput and Conv2DBackpropFilter, float32, NHWC or NCHW, padding SAME,
// VALID or EXPLICIT, any positive strides and dilations; MaxPool, AvgPool and their
// gradients, NHWC (device code: conv.cu). The host side (attr and shape checks, the output,
// the device's shape struct) is plugins/device_common/conv_plan.h's, shared with the OpenCL
// plugin (the CPU plugin's rules and codes); each kernel here only launches.
#include <string>
#include <vector>

#include "cuda_common.h"
#include "cuda_kernels.h"
#include "cuda_launch.h"
#include "device_common/conv_plan.h"

namespace tgraph_cuda {
namespace {

using tgraph::plugin::Construction;
using tgraph::plugin::Context;
using tgraph::plugin::TensorMut;
using tgraph_device_common::ConvAttrs;
using tgraph_device_common::ConvPlan;
using tgraph_device_common::PoolAttrs;

// Binds the device and allocates the planned output; false when there is nothing to launch
// (a failure, no elements, or an empty sum: zeros written).
bool Start(Context& ctx, const ConvPlan& p, CudaDevice** dev, TensorMut* out) {
  *dev = BindDevice(ctx);
  if (*dev == nullptr) return false;
  *out = ctx.AllocateOutput(0, p.out_dims);
  if (!ctx.ok() || p.n == 0) return false;
  if (p.zeros) {
    CudaOk(ctx, cudaMemsetAsync(DataOf<void>(*out), 0, out->byte_size(), (*dev)->stream()),
           "filling zeros");
    return false;
  }
  return true;
}

ConvShape ShapeOf(const ConvPlan& p) {
  return tgraph_device_common::ConvShapeOf<ConvShape>(p.g, p.n);
}

class Conv2DKernel {
 public:
  explicit Conv2DKernel(Construction& c) { tgraph_device_common::ReadConvAttrs(c, DeviceType(), &attrs_); }

  void Compute(Context& ctx) {
    ConvPlan p;
    CudaDevice* dev = nullptr;
    TensorMut y;
    if (!tgraph_device_common::PlanConv2D(ctx, attrs_, DeviceType(), CheckIntSized, &p) ||
        !Start(ctx, p, &dev, &y)) {
      return;
    }
    CudaOk(ctx,
           LaunchConv2D(DataOf<const float>(ctx.input(0)), DataOf<const float>(ctx.input(1)),
                        DataOf<float>(y), ShapeOf(p), dev->stream()),
           "launch");
  }

 private:
  ConvAttrs attrs_;
};

// Conv2DBackpropInput(input_sizes, filter, out_backprop).
class Conv2DBackpropInputKernel {
 public:
  explicit Conv2DBackpropInputKernel(Construction& c) {
    tgraph_device_common::ReadConvAttrs(c, DeviceType(), &attrs_);
  }

  void Compute(Context& ctx) {
    ConvPlan p;
    CudaDevice* dev = nullptr;
    TensorMut dx;
    if (!tgraph_device_common::PlanConv2DBackpropInput(ctx, attrs_, DeviceType(), CheckIntSized,
                                                       &p) ||
        !Start(ctx, p, &dev, &dx)) {
      return;
    }
    CudaOk(ctx,
           LaunchConv2DBackpropInput(DataOf<const float>(ctx.input(2)),
                                     DataOf<const float>(ctx.input(1)), DataOf<float>(dx),
                                     ShapeOf(p), dev->stream()),
           "launch");
  }

 private:
  ConvAttrs attrs_;
};

// Conv2DBackpropFilter(input, filter_sizes, out_backprop).
class Conv2DBackpropFilterKernel {
 public:
  explicit Conv2DBackpropFilterKernel(Construction& c) {
    tgraph_device_common::ReadConvAttrs(c, DeviceType(), &attrs_);
  }

  void Compute(Context& ctx) {
    ConvPlan p;
    CudaDevice* dev = nullptr;
    TensorMut df;
    if (!tgraph_device_common::PlanConv2DBackpropFilter(ctx, attrs_, DeviceType(),
                                                        CheckIntSized, &p) ||
        !Start(ctx, p, &dev, &df)) {
      return;
    }
    CudaOk(ctx,
           LaunchConv2DBackpropFilter(DataOf<const float>(ctx.input(0)),
                                      DataOf<const float>(ctx.input(2)), DataOf<float>(df),
                                      ShapeOf(p), dev->stream()),
           "launch");
  }

 private:
  ConvAttrs attrs_;
};

// MaxPool / AvgPool (NHWC).
template <bool kMax>
class PoolKernel {
 public:
  explicit PoolKernel(Construction& c) {
    tgraph_device_common::ReadPoolAttrs(c, DeviceType(), /*allow_explicit=*/kMax, &attrs_);
  }

  void Compute(Context& ctx) {
    ConvPlan p;
    CudaDevice* dev = nullptr;
    TensorMut y;
    if (!tgraph_device_common::PlanPool(ctx, attrs_, DeviceType(), CheckIntSized, &p) ||
        !Start(ctx, p, &dev, &y)) {
      return;
    }
    CudaOk(ctx,
           LaunchPool(kMax, DataOf<const float>(ctx.input(0)), DataOf<float>(y), ShapeOf(p),
                      dev->stream()),
           "launch");
  }

 private:
  PoolAttrs attrs_;
};

// MaxPoolGrad(orig_input, orig_output, grad): the gradient goes to each window's first
// maximum of orig_input.
class MaxPoolGradKernel {
 public:
  explicit MaxPoolGradKernel(Construction& c) {
    tgraph_device_common::ReadPoolAttrs(c, DeviceType(), /*allow_explicit=*/true, &attrs_);
  }

  void Compute(Context& ctx) {
    ConvPlan p;
    CudaDevice* dev = nullptr;
    TensorMut dx;
    if (!tgraph_device_common::PlanMaxPoolGrad(ctx, attrs_, DeviceType(), CheckIntSized, &p) ||
        !Start(ctx, p, &dev, &dx)) {
      return;
    }
    CudaOk(ctx,
           LaunchPoolGrad(true, DataOf<const float>(ctx.input(0)),
                          DataOf<const float>(ctx.input(2)), DataOf<float>(dx), ShapeOf(p),
                          dev->stream()),
           "launch");
  }

 private:
  PoolAttrs attrs_;
};

// AvgPoolGrad(orig_input_shape, grad).
class AvgPoolGradKernel {
 public:
  explicit AvgPoolGradKernel(Construction& c) {
    tgraph_device_common::ReadPoolAttrs(c, DeviceType(), /*allow_explicit=*/false, &attrs_);
  }

  void Compute(Context& ctx) {
    ConvPlan p;
    CudaDevice* dev = nullptr;
    TensorMut dx;
    if (!tgraph_device_common::PlanAvgPoolGrad(ctx, attrs_, DeviceType(), CheckIntSized, &p) ||
        !Start(ctx, p, &dev, &dx)) {
      return;
    }
    CudaOk(ctx,
           LaunchPoolGrad(false, nullptr, DataOf<const float>(ctx.input(1)), DataOf<float>(dx),
                          ShapeOf(p), dev->stream()),
           "launch");
  }

 private:
  PoolAttrs attrs_;
};

}  // namespace

void RegisterConvKernels(tgraph::plugin::Init& init) {
  tgraph_device_common::RegisterConvPool<CudaBackend, Conv2DKernel, Conv2DBackpropInputKernel,
                                         Conv2DBackpropFilterKernel, PoolKernel, MaxPoolGradKernel,
                                         AvgPoolGradKernel>(init, DeviceType());
}

}  // namespace tgraph_cuda
