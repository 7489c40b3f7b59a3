// ExtractImagePatches on the CPU, and tgraph's _ExtractImagePatchesGrad (its gradient). Each
// output pixel holds one window of the NHWC image (dilated by `rates`), flattened in (row,
// column, depth) order; window positions in the padding (SAME) are zero. A window row's depth
// run is contiguous in both tensors, so the forward pass copies bytes and serves every dtype
// with one routine (by element size); the gradient adds each patch element into the image
// position it was read from (float types, summed in the tensor's type as TF's does).
#include <Eigen/Core>

#include <algorithm>
#include <complex>
#include <cstring>
#include <string>
#include <vector>

#include "model_op_kernels.h"

namespace tgraph_cpu {
namespace {

using tgraph::plugin::Construction;
using tgraph::plugin::Context;
using tgraph::plugin::KernelBuilder;
using tgraph::plugin::TensorMut;
using tgraph::plugin::TensorView;

// One spatial dim of the windows: output size and the padding before it.
struct WindowDim {
  int64_t in = 0, k = 1, stride = 1, rate = 1, out = 0, pad_before = 0;

  // Fails with a message naming `name` when the window does not fit the attrs' rules.
  bool Compute(bool same, std::string* error, const char* name) {
    const int64_t effective = (k - 1) * rate + 1;
    if (same) {
      out = (in + stride - 1) / stride;
      const int64_t needed = (out - 1) * stride + effective - in;
      pad_before = std::max<int64_t>(needed, 0) / 2;
    } else {
      out = in >= effective ? (in - effective) / stride + 1 : 0;
      pad_before = 0;
    }
    if (out < 0) {
      *error = std::string("the ") + name + " window does not fit";
      return false;
    }
    return true;
  }
};

struct PatchGeometry {
  int64_t batch = 0, depth = 0;
  WindowDim rows, cols;

  int64_t PatchDepth() const { return rows.k * cols.k * depth; }
  // The image row (or column) a window position reads, or -1 in the padding.
  static int64_t Source(const WindowDim& d, int64_t o, int64_t k) {
    const int64_t at = o * d.stride - d.pad_before + k * d.rate;
    return at >= 0 && at < d.in ? at : -1;
  }
};

class PatchAttrs {
 public:
  bool Read(Construction& c) {
    std::string padding;
    if (!c.GetAttr("ksizes", &ksizes_) || !c.GetAttr("strides", &strides_) ||
        !c.GetAttr("rates", &rates_) || !c.GetAttr("padding", &padding)) {
      return false;
    }
    same_ = padding == "SAME";
    for (const auto* v : {&ksizes_, &strides_, &rates_}) {
      if (v->size() != 4 || (*v)[0] != 1 || (*v)[3] != 1 || (*v)[1] < 1 || (*v)[2] < 1) {
        c.Fail(TG_INVALID_ARGUMENT,
               "ksizes, strides and rates must be [1, rows, cols, 1] with rows and cols >= 1");
        return false;
      }
    }
    return true;
  }

  // The geometry over an image of `dims` ([N, H, W, D]); fails `ctx` on a bad image.
  bool Geometry(Context& ctx, const std::vector<int64_t>& dims, PatchGeometry* g) const {
    if (dims.size() != 4) {
      ctx.Fail(TG_INVALID_ARGUMENT, "images must be 4-D [batch, rows, cols, depth], got rank " +
                                        std::to_string(dims.size()));
      return false;
    }
    g->batch = dims[0];
    g->depth = dims[3];
    g->rows = {dims[1], ksizes_[1], strides_[1], rates_[1], 0, 0};
    g->cols = {dims[2], ksizes_[2], strides_[2], rates_[2], 0, 0};
    std::string error;
    if (!g->rows.Compute(same_, &error, "rows") || !g->cols.Compute(same_, &error, "cols")) {
      ctx.Fail(TG_INVALID_ARGUMENT, error);
      return false;
    }
    return true;
  }

 private:
  std::vector<int64_t> ksizes_, strides_, rates_;
  bool same_ = false;
};

// The forward pass for elements of `bytes` bytes.
template <size_t kBytes>
class ExtractImagePatchesOp {
 public:
  explicit ExtractImagePatchesOp(Construction& c) { attrs_.Read(c); }

  void Compute(Context& ctx) {
    const TensorView images = ctx.input(0);
    PatchGeometry g;
    if (!attrs_.Geometry(ctx, images.dims(), &g)) return;
    TensorMut out = ctx.AllocateOutput(0, {g.batch, g.rows.out, g.cols.out, g.PatchDepth()});
    if (!ctx.ok() || g.batch * g.rows.out * g.cols.out * g.PatchDepth() == 0) return;
    const auto* in = images.data<unsigned char>();
    auto* o = out.mutable_data<unsigned char>();
    const size_t run = static_cast<size_t>(g.depth) * kBytes;  // one window position's depth
    const int64_t pixels = g.batch * g.rows.out * g.cols.out;
    ctx.ParallelFor(pixels, 2.0 * static_cast<double>(g.PatchDepth()), [&](int64_t begin, int64_t end) {
      for (int64_t p = begin; p < end; ++p) {
        const int64_t b = p / (g.rows.out * g.cols.out);
        const int64_t r = (p / g.cols.out) % g.rows.out, c = p % g.cols.out;
        unsigned char* dst = o + static_cast<size_t>(p * g.PatchDepth()) * kBytes;
        for (int64_t kr = 0; kr < g.rows.k; ++kr) {
          const int64_t ir = PatchGeometry::Source(g.rows, r, kr);
          for (int64_t kc = 0; kc < g.cols.k; ++kc, dst += run) {
            const int64_t ic = PatchGeometry::Source(g.cols, c, kc);
            if (ir < 0 || ic < 0) {
              std::memset(dst, 0, run);
            } else {
              std::memcpy(dst, in + static_cast<size_t>(((b * g.rows.in + ir) * g.cols.in + ic) * g.depth) * kBytes,
                          run);
            }
          }
        }
      }
    });
  }

 private:
  PatchAttrs attrs_;
};

// The gradient: image positions summed from the patches that read them. Parallel over the
// batch (images do not share positions).
template <typename T>
class ExtractImagePatchesGradOp {
 public:
  explicit ExtractImagePatchesGradOp(Construction& c) { attrs_.Read(c); }

  void Compute(Context& ctx) {
    const TensorView grad = ctx.input(0);
    const TensorView sizes = ctx.input(1);
    if (sizes.rank() != 1 || sizes.dim(0) != 4) {
      ctx.Fail(TG_INVALID_ARGUMENT, "input_sizes must be a vector of 4 values");
      return;
    }
    const int32_t* s = sizes.data<int32_t>();
    const std::vector<int64_t> dims = {s[0], s[1], s[2], s[3]};
    for (int64_t d : dims) {
      if (d < 0) {
        ctx.Fail(TG_INVALID_ARGUMENT, "input_sizes must not be negative");
        return;
      }
    }
    PatchGeometry g;
    if (!attrs_.Geometry(ctx, dims, &g)) return;
    const std::vector<int64_t> want = {g.batch, g.rows.out, g.cols.out, g.PatchDepth()};
    if (grad.dims() != want) {
      ctx.Fail(TG_INVALID_ARGUMENT, "grad must have the patches' shape for input_sizes");
      return;
    }
    TensorMut out = ctx.AllocateOutput(0, dims);
    if (!ctx.ok()) return;
    T* o = out.mutable_data<T>();
    std::fill(o, o + out.num_elements(), T(0));
    if (grad.num_elements() == 0) return;
    const T* gd = grad.data<T>();
    ctx.ParallelFor(g.batch, 2.0 * static_cast<double>(grad.num_elements() / std::max<int64_t>(g.batch, 1)),
                    [&](int64_t begin, int64_t end) {
                      for (int64_t b = begin; b < end; ++b) {
                        for (int64_t r = 0; r < g.rows.out; ++r) {
                          for (int64_t c = 0; c < g.cols.out; ++c) {
                            const T* src = gd + ((b * g.rows.out + r) * g.cols.out + c) * g.PatchDepth();
                            for (int64_t kr = 0; kr < g.rows.k; ++kr) {
                              const int64_t ir = PatchGeometry::Source(g.rows, r, kr);
                              for (int64_t kc = 0; kc < g.cols.k; ++kc, src += g.depth) {
                                const int64_t ic = PatchGeometry::Source(g.cols, c, kc);
                                if (ir < 0 || ic < 0) continue;
                                T* dst = o + ((b * g.rows.in + ir) * g.cols.in + ic) * g.depth;
                                for (int64_t d = 0; d < g.depth; ++d) dst[d] += src[d];
                              }
                            }
                          }
                        }
                      }
                    });
  }

 private:
  PatchAttrs attrs_;
};

}  // namespace

void RegisterExtractImagePatchesKernels(tgraph::plugin::Init& init) {
  auto reg = [&](TG_DataType t, size_t bytes) {
    KernelBuilder b("ExtractImagePatches", "CPU");
    b.TypeConstraint("T", t);
    switch (bytes) {
      case 1: return init.Kernel<ExtractImagePatchesOp<1>>(b);
      case 2: return init.Kernel<ExtractImagePatchesOp<2>>(b);
      case 4: return init.Kernel<ExtractImagePatchesOp<4>>(b);
      case 8: return init.Kernel<ExtractImagePatchesOp<8>>(b);
      default: return init.Kernel<ExtractImagePatchesOp<16>>(b);
    }
  };
  for (TG_DataType t : {TG_BOOL, TG_INT8, TG_UINT8}) reg(t, 1);
  for (TG_DataType t : {TG_BFLOAT16, TG_HALF, TG_INT16, TG_UINT16}) reg(t, 2);
  for (TG_DataType t : {TG_FLOAT, TG_INT32, TG_UINT32}) reg(t, 4);
  for (TG_DataType t : {TG_DOUBLE, TG_INT64, TG_UINT64, TG_COMPLEX64}) reg(t, 8);
  reg(TG_COMPLEX128, 16);
  const char* grad = "_ExtractImagePatchesGrad";
  init.Kernel<ExtractImagePatchesGradOp<float>>(KernelBuilder(grad, "CPU").TypeConstraint("T", TG_FLOAT));
  init.Kernel<ExtractImagePatchesGradOp<double>>(KernelBuilder(grad, "CPU").TypeConstraint("T", TG_DOUBLE));
  init.Kernel<ExtractImagePatchesGradOp<Eigen::half>>(KernelBuilder(grad, "CPU").TypeConstraint("T", TG_HALF));
  init.Kernel<ExtractImagePatchesGradOp<Eigen::bfloat16>>(
      KernelBuilder(grad, "CPU").TypeConstraint("T", TG_BFLOAT16));
}

}  // namespace tgraph_cpu
