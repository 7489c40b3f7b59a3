// Conv2D, float32, NHWC, padding SAME or VALID, any positive strides, dilations 1 (program
// "conv", cl_sources_conv.cc). Other layouts, EXPLICIT padding and dilations are refused
// with UNIMPLEMENTED when the kernel is created, so soft placement can put such a node on
// the CPU instead.
#include <algorithm>
#include <string>
#include <vector>

#include "cl_common.h"
#include "cl_kernels.h"

namespace tgraph_opencl {
namespace {

using tgraph::plugin::Construction;
using tgraph::plugin::Context;
using tgraph::plugin::KernelBuilder;
using tgraph::plugin::TensorMut;
using tgraph::plugin::TensorView;

// Matches the ConvShape struct of the OpenCL source.
struct ConvShape {
  cl_int n_out, h, w, c, oh, ow, oc, kh, kw, sh, sw, pad_top, pad_left;
};

class Conv2DKernel {
 public:
  explicit Conv2DKernel(Construction& c) {
    std::string format = "NHWC", padding;
    if (c.HasAttr("data_format")) c.GetAttr("data_format", &format);
    c.GetAttr("padding", &padding);
    std::vector<int64_t> dilations = {1, 1, 1, 1};
    if (c.HasAttr("dilations")) c.GetAttr("dilations", &dilations);
    c.GetAttr("strides", &strides_);
    if (!c.ok()) return;
    if (format != "NHWC") {
      c.Fail(TG_UNIMPLEMENTED, "Conv2D on " + DeviceType() + " supports data_format NHWC only, got " +
                                   format);
    } else if (padding != "SAME" && padding != "VALID") {
      c.Fail(TG_UNIMPLEMENTED, "Conv2D on " + DeviceType() +
                                   " supports padding SAME and VALID only, got " + padding);
    } else if (dilations != std::vector<int64_t>{1, 1, 1, 1}) {
      c.Fail(TG_UNIMPLEMENTED, "Conv2D on " + DeviceType() + " supports dilations 1 only, got " +
                                   ShapeString(dilations));
    } else if (strides_.size() != 4 || strides_[0] != 1 || strides_[3] != 1 || strides_[1] < 1 ||
               strides_[2] < 1) {
      c.Fail(TG_INVALID_ARGUMENT,
             "strides must be 4 positive values, 1 in the batch and depth dimensions, got " +
                 ShapeString(strides_));
    }
    same_ = padding == "SAME";
  }

  void Compute(Context& ctx) {
    TensorView x = ctx.input(0), f = ctx.input(1);
    if (x.rank() != 4 || f.rank() != 4) {
      ctx.Fail(TG_INVALID_ARGUMENT, "input and filter must be 4-D, got input " +
                                        ShapeString(x.dims()) + ", filter " +
                                        ShapeString(f.dims()));
      return;
    }
    if (f.dim(2) <= 0) {
      ctx.Fail(TG_INVALID_ARGUMENT, "the filter's input depth must be > 0, got filter shape " +
                                        ShapeString(f.dims()));
      return;
    }
    // The same checks, codes and order as the CPU plugin (device conformance compares them).
    if (x.dim(3) != f.dim(2) && x.dim(3) % f.dim(2) == 0) {
      ctx.Fail(TG_UNIMPLEMENTED, "grouped convolution (input depth " + std::to_string(x.dim(3)) +
                                     ", filter input depth " + std::to_string(f.dim(2)) +
                                     ") is not supported on " + DeviceType());
      return;
    }
    if (x.dim(3) != f.dim(2)) {
      ctx.Fail(TG_INVALID_ARGUMENT, "input depth " + std::to_string(x.dim(3)) +
                                        " does not match the filter's in_depth " +
                                        std::to_string(f.dim(2)) + " (input " +
                                        ShapeString(x.dims()) + ", filter " +
                                        ShapeString(f.dims()) + ")");
      return;
    }
    if (f.dim(0) <= 0 || f.dim(1) <= 0) {
      ctx.Fail(TG_INVALID_ARGUMENT, "filter height and width must be > 0, got filter shape " +
                                        ShapeString(f.dims()));
      return;
    }
    int64_t oh = 0, ow = 0, pad_top = 0, pad_left = 0;
    if (!Window(ctx, x.dim(1), f.dim(0), strides_[1], &oh, &pad_top) ||
        !Window(ctx, x.dim(2), f.dim(1), strides_[2], &ow, &pad_left)) {
      return;
    }
    const std::vector<int64_t> out_dims = {x.dim(0), oh, ow, f.dim(3)};
    const int64_t n = out_dims[0] * oh * ow * out_dims[3];
    if (!CheckIntSized(ctx, x.num_elements(), "input") ||
        !CheckIntSized(ctx, f.num_elements(), "filter") || !CheckIntSized(ctx, n, "the output")) {
      return;
    }
    TensorMut y = ctx.AllocateOutput(0, out_dims);
    if (!ctx.ok() || n == 0) return;
    if (x.num_elements() == 0 || f.num_elements() == 0) {  // empty sums: zeros
      try {
        DeviceOf(ctx).queue().enqueueFillBuffer(MemOf(y), 0.0f, 0, y.byte_size());
      } catch (const std::exception& e) {
        FailFromClError(ctx, e, "filling zeros");
      }
      return;
    }
    auto i32 = [](int64_t v) { return static_cast<cl_int>(v); };
    const ConvShape s{i32(n),         i32(x.dim(1)),  i32(x.dim(2)),  i32(x.dim(3)), i32(oh),
                      i32(ow),        i32(f.dim(3)),  i32(f.dim(0)),  i32(f.dim(1)), i32(strides_[1]),
                      i32(strides_[2]), i32(pad_top), i32(pad_left)};
    const cl_mem xm = BufferOf(x), fm = BufferOf(f), ym = BufferOf(y);
    Launch(ctx, "conv", "tg_conv2d", {A(xm), A(fm), A(ym), A(s)}, {static_cast<size_t>(n)});
  }

 private:
  // The output size and leading padding along one spatial dim (TensorFlow's rules).
  bool Window(Context& ctx, int64_t in, int64_t k, int64_t stride, int64_t* out,
              int64_t* pad_before) const {
    if (same_) {
      *out = (in + stride - 1) / stride;
      const int64_t total = std::max<int64_t>((*out - 1) * stride + k - in, 0);
      *pad_before = total / 2;
      return true;
    }
    const int64_t numerator = in - k + stride;
    if (numerator / stride < 0) {
      ctx.Fail(TG_INVALID_ARGUMENT,
               "computed output size would be negative (input size " + std::to_string(in) +
                   ", effective window size " + std::to_string(k) + ", stride " +
                   std::to_string(stride) + ")");
      return false;
    }
    *out = numerator / stride;
    *pad_before = 0;
    return true;
  }

  std::vector<int64_t> strides_;
  bool same_ = false;
};

}  // namespace

void RegisterConvKernels(tgraph::plugin::Init& init) {
  init.Kernel<Conv2DKernel>(KernelBuilder("Conv2D", DeviceType()).TypeConstraint("T", TG_FLOAT));
}

}  // namespace tgraph_opencl
