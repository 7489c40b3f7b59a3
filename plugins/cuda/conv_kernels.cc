// Conv2D, Conv2DBackpropInput and Conv2DBackpropFilter, float32, NHWC or NCHW, padding SAME,
// VALID or EXPLICIT, any positive strides and dilations; MaxPool, AvgPool and their
// gradients, NHWC (device code: conv.cu). The attr and shape checks are
// plugins/device_common/conv_args.h's and pool_args.h's, shared with the OpenCL plugin (the
// CPU plugin's rules and codes).
#include <string>
#include <vector>

#include "cuda_common.h"
#include "cuda_kernels.h"
#include "cuda_launch.h"
#include "device_common/conv_args.h"
#include "device_common/pool_args.h"

namespace tgraph_cuda {
namespace {

using tgraph::plugin::Construction;
using tgraph::plugin::Context;
using tgraph::plugin::KernelBuilder;
using tgraph::plugin::TensorMut;
using tgraph::plugin::TensorView;
using tgraph_device_common::ConvAttrs;
using tgraph_device_common::ConvGeometry;

// Zeros into `t` (an output no term reaches: an empty sum).
void FillZeros(Context& ctx, CudaDevice& dev, TensorMut& t) {
  CudaOk(ctx, cudaMemsetAsync(DataOf<void>(t), 0, t.byte_size(), dev.stream()), "filling zeros");
}

bool IntSized(Context& ctx, const ConvGeometry& g) {
  return CheckIntSized(ctx, g.InputSize(), "the input") &&
         CheckIntSized(ctx, g.FilterSize(), "the filter") &&
         CheckIntSized(ctx, g.OutputSize(), "the output") &&
         tgraph_device_common::ConvGeometryFitsInt(ctx, g, DeviceType());
}

class Conv2DKernel {
 public:
  explicit Conv2DKernel(Construction& c) { tgraph_device_common::ReadConvAttrs(c, DeviceType(), &attrs_); }

  void Compute(Context& ctx) {
    TensorView x = ctx.input(0), f = ctx.input(1);
    ConvGeometry g;
    if (!tgraph_device_common::ConvGeometryOf(ctx, attrs_, DeviceType(), x.dims(), f.dims(),
                                              &g) ||
        !IntSized(ctx, g)) {
      return;
    }
    const int64_t n = g.OutputSize();
    CudaDevice* dev = BindDevice(ctx);
    if (dev == nullptr) return;
    TensorMut y = ctx.AllocateOutput(0, g.OutputDims());
    if (!ctx.ok() || n == 0) return;
    if (x.num_elements() == 0 || f.num_elements() == 0) return FillZeros(ctx, *dev, y);
    const auto s = tgraph_device_common::ConvShapeOf<ConvShape>(g, n);
    CudaOk(ctx,
           LaunchConv2D(DataOf<const float>(x), DataOf<const float>(f), DataOf<float>(y), s,
                        dev->stream()),
           "launch");
  }

 private:
  ConvAttrs attrs_;
};

// Conv2DBackpropInput(input_sizes, filter, out_backprop): input_sizes in host memory, 4
// values (or height and width: batch from out_backprop, depth from the filter).
class Conv2DBackpropInputKernel {
 public:
  explicit Conv2DBackpropInputKernel(Construction& c) {
    tgraph_device_common::ReadConvAttrs(c, DeviceType(), &attrs_);
  }

  void Compute(Context& ctx) {
    std::vector<int64_t> sizes;
    if (!tgraph_device_common::ReadConvSizes(ctx, 0, "input_sizes", {4, 2}, &sizes)) return;
    TensorView f = ctx.input(1), dy = ctx.input(2);
    if (sizes.size() == 2) {
      if (dy.rank() != 4 || f.rank() != 4) {
        ctx.Fail(TG_INVALID_ARGUMENT, "filter and out_backprop must be 4-D, got shapes " +
                                          ShapeString(f.dims()) + " and " +
                                          ShapeString(dy.dims()));
        return;
      }
      sizes = attrs_.nchw ? std::vector<int64_t>{dy.dim(0), f.dim(2), sizes[0], sizes[1]}
                          : std::vector<int64_t>{dy.dim(0), sizes[0], sizes[1], f.dim(2)};
    }
    ConvGeometry g;
    if (!tgraph_device_common::ConvBackpropGeometryOf(ctx, attrs_, DeviceType(), sizes,
                                                      f.dims(), dy.dims(), &g) ||
        !IntSized(ctx, g)) {
      return;
    }
    const int64_t n = g.InputSize();
    CudaDevice* dev = BindDevice(ctx);
    if (dev == nullptr) return;
    TensorMut dx = ctx.AllocateOutput(0, sizes);
    if (!ctx.ok() || n == 0) return;
    if (dy.num_elements() == 0 || f.num_elements() == 0) return FillZeros(ctx, *dev, dx);
    const auto s = tgraph_device_common::ConvShapeOf<ConvShape>(g, n);
    CudaOk(ctx,
           LaunchConv2DBackpropInput(DataOf<const float>(dy), DataOf<const float>(f),
                                     DataOf<float>(dx), s, dev->stream()),
           "launch");
  }

 private:
  ConvAttrs attrs_;
};

// Conv2DBackpropFilter(input, filter_sizes, out_backprop): filter_sizes in host memory.
class Conv2DBackpropFilterKernel {
 public:
  explicit Conv2DBackpropFilterKernel(Construction& c) {
    tgraph_device_common::ReadConvAttrs(c, DeviceType(), &attrs_);
  }

  void Compute(Context& ctx) {
    std::vector<int64_t> sizes;
    if (!tgraph_device_common::ReadConvSizes(ctx, 1, "filter_sizes", {4}, &sizes)) return;
    TensorView x = ctx.input(0), dy = ctx.input(2);
    ConvGeometry g;
    if (!tgraph_device_common::ConvBackpropGeometryOf(ctx, attrs_, DeviceType(), x.dims(),
                                                      sizes, dy.dims(), &g) ||
        !IntSized(ctx, g)) {
      return;
    }
    const int64_t n = g.FilterSize();
    CudaDevice* dev = BindDevice(ctx);
    if (dev == nullptr) return;
    TensorMut df = ctx.AllocateOutput(0, sizes);
    if (!ctx.ok() || n == 0) return;
    if (x.num_elements() == 0 || dy.num_elements() == 0) return FillZeros(ctx, *dev, df);
    const auto s = tgraph_device_common::ConvShapeOf<ConvShape>(g, n);
    CudaOk(ctx,
           LaunchConv2DBackpropFilter(DataOf<const float>(x), DataOf<const float>(dy),
                                      DataOf<float>(df), s, dev->stream()),
           "launch");
  }

 private:
  ConvAttrs attrs_;
};

// A pooling's counts and window positions fit the kernels' ints (its "filter" is no tensor).
bool PoolIntSized(Context& ctx, const ConvGeometry& g) {
  return CheckIntSized(ctx, g.InputSize(), "the input") &&
         CheckIntSized(ctx, g.OutputSize(), "the output") &&
         tgraph_device_common::ConvGeometryFitsInt(ctx, g, DeviceType());
}

// MaxPool / AvgPool (NHWC).
template <bool kMax>
class PoolKernel {
 public:
  explicit PoolKernel(Construction& c) {
    tgraph_device_common::ReadPoolAttrs(c, DeviceType(), /*allow_explicit=*/kMax, &attrs_);
  }

  void Compute(Context& ctx) {
    TensorView x = ctx.input(0);
    ConvGeometry g;
    if (!tgraph_device_common::PoolGeometryOf(ctx, attrs_, x.dims(), "input", &g) ||
        !PoolIntSized(ctx, g)) {
      return;
    }
    const int64_t n = g.OutputSize();
    CudaDevice* dev = BindDevice(ctx);
    if (dev == nullptr) return;
    TensorMut y = ctx.AllocateOutput(0, g.OutputDims());
    if (!ctx.ok() || n == 0) return;
    const auto s = tgraph_device_common::ConvShapeOf<ConvShape>(g, n);
    CudaOk(ctx, LaunchPool(kMax, DataOf<const float>(x), DataOf<float>(y), s, dev->stream()),
           "launch");
  }

 private:
  tgraph_device_common::PoolAttrs attrs_;
};

// MaxPoolGrad(orig_input, orig_output, grad): the gradient goes to each window's first
// maximum of orig_input (orig_output is only checked for its shape, as on the CPU).
class MaxPoolGradKernel {
 public:
  explicit MaxPoolGradKernel(Construction& c) {
    tgraph_device_common::ReadPoolAttrs(c, DeviceType(), /*allow_explicit=*/true, &attrs_);
  }

  void Compute(Context& ctx) {
    TensorView x = ctx.input(0), y = ctx.input(1), dy = ctx.input(2);
    ConvGeometry g;
    if (!tgraph_device_common::PoolGeometryOf(ctx, attrs_, x.dims(), "orig_input", &g) ||
        !tgraph_device_common::CheckPooledShape(ctx, "orig_output", y.dims(), g) ||
        !tgraph_device_common::CheckPooledShape(ctx, "grad", dy.dims(), g) ||
        !PoolIntSized(ctx, g)) {
      return;
    }
    const int64_t n = g.InputSize();
    CudaDevice* dev = BindDevice(ctx);
    if (dev == nullptr) return;
    TensorMut dx = ctx.AllocateOutput(0, g.InputDims());
    if (!ctx.ok() || n == 0) return;
    if (g.OutputSize() == 0) return FillZeros(ctx, *dev, dx);
    const auto s = tgraph_device_common::ConvShapeOf<ConvShape>(g, n);
    CudaOk(ctx,
           LaunchPoolGrad(true, DataOf<const float>(x), DataOf<const float>(dy),
                          DataOf<float>(dx), s, dev->stream()),
           "launch");
  }

 private:
  tgraph_device_common::PoolAttrs attrs_;
};

// AvgPoolGrad(orig_input_shape, grad): orig_input_shape in host memory.
class AvgPoolGradKernel {
 public:
  explicit AvgPoolGradKernel(Construction& c) {
    tgraph_device_common::ReadPoolAttrs(c, DeviceType(), /*allow_explicit=*/false, &attrs_);
  }

  void Compute(Context& ctx) {
    std::vector<int64_t> sizes;
    if (!tgraph_device_common::ReadConvSizes(ctx, 0, "orig_input_shape", {4}, &sizes)) return;
    TensorView dy = ctx.input(1);
    ConvGeometry g;
    if (!tgraph_device_common::PoolGeometryOf(ctx, attrs_, sizes, "orig_input_shape", &g) ||
        !tgraph_device_common::CheckPooledShape(ctx, "grad", dy.dims(), g) ||
        !PoolIntSized(ctx, g)) {
      return;
    }
    const int64_t n = g.InputSize();
    CudaDevice* dev = BindDevice(ctx);
    if (dev == nullptr) return;
    TensorMut dx = ctx.AllocateOutput(0, sizes);
    if (!ctx.ok() || n == 0) return;
    if (g.OutputSize() == 0) return FillZeros(ctx, *dev, dx);
    const auto s = tgraph_device_common::ConvShapeOf<ConvShape>(g, n);
    CudaOk(ctx,
           LaunchPoolGrad(false, nullptr, DataOf<const float>(dy), DataOf<float>(dx), s,
                          dev->stream()),
           "launch");
  }

 private:
  tgraph_device_common::PoolAttrs attrs_;
};

}  // namespace

void RegisterConvKernels(tgraph::plugin::Init& init) {
  auto f = [](const char* op) {
    return KernelBuilder(op, DeviceType()).TypeConstraint("T", TG_FLOAT);
  };
  AddDeviceKernel<Conv2DKernel>(init, f("Conv2D"));
  AddDeviceKernel<Conv2DBackpropInputKernel>(init, f("Conv2DBackpropInput").HostMemory("input_sizes"));
  AddDeviceKernel<Conv2DBackpropFilterKernel>(init, f("Conv2DBackpropFilter").HostMemory("filter_sizes"));
  AddDeviceKernel<PoolKernel<true>>(init, f("MaxPool"));
  AddDeviceKernel<PoolKernel<false>>(init, f("AvgPool"));
  AddDeviceKernel<MaxPoolGradKernel>(init, f("MaxPoolGrad"));
  AddDeviceKernel<AvgPoolGradKernel>(init, f("AvgPoolGrad").HostMemory("orig_input_shape"));
}

}  // namespace tgraph_cuda
