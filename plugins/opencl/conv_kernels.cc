// Conv2D, Conv2DBackpropInput and Conv2DBackpropFilter, float32, NHWC or NCHW, padding SAME,
// VALID or EXPLICIT, any positive strides and dilations; MaxPool, AvgPool and their
// gradients, NHWC (program "conv", cl_sources_conv.cc). The host side (attr and shape checks,
// the output, the device's shape struct) is plugins/device_common/conv_plan.h's, shared with
// the CUDA plugin (the CPU plugin's rules and codes); each kernel here only launches.
#include <string>
#include <vector>

#include "cl_common.h"
#include "cl_kernels.h"
#include "device_common/conv_plan.h"

namespace tgraph_opencl {
namespace {

using tgraph::plugin::Construction;
using tgraph::plugin::Context;
using tgraph::plugin::TensorMut;
using tgraph_device_common::ConvAttrs;
using tgraph_device_common::ConvPlan;
using tgraph_device_common::PoolAttrs;

// Matches the ConvShape struct of the OpenCL source.
struct ConvShape {
  cl_int n, batch, h, w, c, oh, ow, oc, kh, kw, sh, sw, dh, dw, pad_top, pad_left, nchw;
};

// Allocates the planned output; false when there is nothing to launch (a failure, no
// elements, or an empty sum: zeros written).
bool Start(Context& ctx, const ConvPlan& p, TensorMut* out) {
  *out = ctx.AllocateOutput(0, p.out_dims);
  if (!ctx.ok() || p.n == 0) return false;
  if (p.zeros) {
    try {
      DeviceOf(ctx).queue().enqueueFillBuffer(MemOf(*out), 0.0f, 0, out->byte_size());
    } catch (const std::exception& e) {
      FailFromClError(ctx, e, "filling zeros");
    }
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
    TensorMut y;
    if (!tgraph_device_common::PlanConv2D(ctx, attrs_, DeviceType(), CheckIntSized, &p) ||
        !Start(ctx, p, &y)) {
      return;
    }
    const ConvShape s = ShapeOf(p);
    const cl_mem xm = BufferOf(ctx.input(0)), fm = BufferOf(ctx.input(1)), ym = BufferOf(y);
    Launch(ctx, "conv", "tg_conv2d", {A(xm), A(fm), A(ym), A(s)}, {static_cast<size_t>(p.n)});
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
    TensorMut dx;
    if (!tgraph_device_common::PlanConv2DBackpropInput(ctx, attrs_, DeviceType(), CheckIntSized,
                                                       &p) ||
        !Start(ctx, p, &dx)) {
      return;
    }
    const ConvShape s = ShapeOf(p);
    const cl_mem dym = BufferOf(ctx.input(2)), fm = BufferOf(ctx.input(1)), dxm = BufferOf(dx);
    Launch(ctx, "conv", "tg_conv2d_backprop_input", {A(dym), A(fm), A(dxm), A(s)},
           {static_cast<size_t>(p.n)});
  }

 private:
  ConvAttrs attrs_;
};

// Conv2DBackpropFilter(input, filter_sizes, out_backprop): a work-group per filter element.
class Conv2DBackpropFilterKernel {
 public:
  explicit Conv2DBackpropFilterKernel(Construction& c) {
    tgraph_device_common::ReadConvAttrs(c, DeviceType(), &attrs_);
  }

  void Compute(Context& ctx) {
    ConvPlan p;
    TensorMut df;
    if (!tgraph_device_common::PlanConv2DBackpropFilter(ctx, attrs_, DeviceType(),
                                                        CheckIntSized, &p) ||
        !Start(ctx, p, &df)) {
      return;
    }
    const ConvShape s = ShapeOf(p);
    const cl_mem xm = BufferOf(ctx.input(0)), dym = BufferOf(ctx.input(2)), dfm = BufferOf(df);
    const size_t rg = static_cast<size_t>(DeviceOf(ctx).reduce_group());
    Launch(ctx, "conv", "tg_conv2d_backprop_filter", {A(xm), A(dym), A(dfm), A(s)},
           {static_cast<size_t>(p.n) * rg}, {rg});
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
    TensorMut y;
    if (!tgraph_device_common::PlanPool(ctx, attrs_, DeviceType(), CheckIntSized, &p) ||
        !Start(ctx, p, &y)) {
      return;
    }
    const ConvShape s = ShapeOf(p);
    const cl_mem xm = BufferOf(ctx.input(0)), ym = BufferOf(y);
    Launch(ctx, "conv", kMax ? "tg_max_pool" : "tg_avg_pool", {A(xm), A(ym), A(s)},
           {static_cast<size_t>(p.n)});
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
    TensorMut dx;
    if (!tgraph_device_common::PlanMaxPoolGrad(ctx, attrs_, DeviceType(), CheckIntSized, &p) ||
        !Start(ctx, p, &dx)) {
      return;
    }
    const ConvShape s = ShapeOf(p);
    const cl_mem xm = BufferOf(ctx.input(0)), dym = BufferOf(ctx.input(2)), dxm = BufferOf(dx);
    Launch(ctx, "conv", "tg_max_pool_grad", {A(xm), A(dym), A(dxm), A(s)},
           {static_cast<size_t>(p.n)});
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
    TensorMut dx;
    if (!tgraph_device_common::PlanAvgPoolGrad(ctx, attrs_, DeviceType(), CheckIntSized, &p) ||
        !Start(ctx, p, &dx)) {
      return;
    }
    const ConvShape s = ShapeOf(p);
    const cl_mem dym = BufferOf(ctx.input(1)), dxm = BufferOf(dx);
    Launch(ctx, "conv", "tg_avg_pool_grad", {A(dym), A(dxm), A(s)}, {static_cast<size_t>(p.n)});
  }

 private:
  PoolAttrs attrs_;
};

}  // namespace

void RegisterConvKernels(tgraph::plugin::Init& init) {
  tgraph_device_common::RegisterConvPool<OpenclBackend, Conv2DKernel, Conv2DBackpropInputKernel,
                                         Conv2DBackpropFilterKernel, PoolKernel, MaxPoolGradKernel,
                                         AvgPoolGradKernel>(init, DeviceType());
}

}  // namespace tgraph_opencl
