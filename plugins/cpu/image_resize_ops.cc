// ResizeBilinear and ResizeNearestNeighbor (NHWC), with TensorFlow's coordinate rules:
// scale = in / out, or (in - 1) / (out - 1) with align_corners; half_pixel_centers samples
// at pixel centres ((o + 0.5) * scale - 0.5 for bilinear, (o + 0.5) * scale for nearest).
// Bilinear reads any real type and writes float; nearest copies elements by size. Output
// rows split over the intra-op pool. Their gradients (ResizeBilinearGrad,
// ResizeNearestNeighborGrad) use the same weights and source pixels. RegisterImageResizeKernels
// also registers the bicubic and area kernels (image_resize_util.h names their files).
#include <Eigen/Core>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "array_kernel_util.h"
#include "array_kernels.h"
#include "image_resize_util.h"

namespace tgraph_cpu {
namespace {

using namespace array_util;
using namespace image_resize;

// The two source rows (or columns) of output coordinate o and the weight of the second.
struct Interp {
  int64_t lo, hi;
  float lerp;
};

std::vector<Interp> Weights(int64_t out, int64_t in, float scale, bool half_pixel) {
  std::vector<Interp> w(static_cast<size_t>(out));
  for (int64_t o = 0; o < out; ++o) {
    const float x = half_pixel ? (static_cast<float>(o) + 0.5f) * scale - 0.5f
                               : static_cast<float>(o) * scale;
    const float xf = std::floor(x);
    w[static_cast<size_t>(o)] = {std::max<int64_t>(static_cast<int64_t>(xf), 0),
                                 std::min<int64_t>(static_cast<int64_t>(std::ceil(x)), in - 1),
                                 x - xf};
  }
  return w;
}

template <typename T>
class ResizeBilinearOp {
 public:
  explicit ResizeBilinearOp(Construction& c) { GetResizeAttrs(c, &attrs_); }
  void Compute(Context& ctx) {
    std::vector<int64_t> in;
    int64_t oh = 0, ow = 0;
    TensorMut out;
    if (!Prepare(ctx, &in, &oh, &ow, &out)) return;
    const int64_t n = in[0], h = in[1], w = in[2], c = in[3];
    const std::vector<Interp> ys = Weights(oh, h, Scale(h, oh, attrs_.align_corners), attrs_.half_pixel);
    const std::vector<Interp> xs = Weights(ow, w, Scale(w, ow, attrs_.align_corners), attrs_.half_pixel);
    const T* src = ctx.input(0).data<T>();
    float* dst = out.mutable_data<float>();
    ctx.ParallelFor(n * oh, static_cast<double>(ow * c) * 8, [&](int64_t b, int64_t e) {
      for (int64_t row = b; row < e; ++row) {
        const int64_t batch = row / oh, y = row % oh;
        const Interp& iy = ys[static_cast<size_t>(y)];
        const T* top = src + (batch * h + iy.lo) * w * c;
        const T* bottom = src + (batch * h + iy.hi) * w * c;
        float* o = dst + row * ow * c;
        for (int64_t x = 0; x < ow; ++x) {
          const Interp& ix = xs[static_cast<size_t>(x)];
          for (int64_t ch = 0; ch < c; ++ch) {
            const float tl = static_cast<float>(top[ix.lo * c + ch]);
            const float tr = static_cast<float>(top[ix.hi * c + ch]);
            const float bl = static_cast<float>(bottom[ix.lo * c + ch]);
            const float br = static_cast<float>(bottom[ix.hi * c + ch]);
            const float t = tl + (tr - tl) * ix.lerp;
            const float bo = bl + (br - bl) * ix.lerp;
            o[x * c + ch] = t + (bo - t) * iy.lerp;
          }
        }
      }
    });
  }

 private:
  ResizeAttrs attrs_;
};

// The source index of each output coordinate for nearest-neighbour sampling.
std::vector<int64_t> Nearest(int64_t out, int64_t in, float scale, const ResizeAttrs& a) {
  std::vector<int64_t> v(static_cast<size_t>(out));
  for (int64_t o = 0; o < out; ++o) {
    const float x = a.half_pixel ? (static_cast<float>(o) + 0.5f) * scale : static_cast<float>(o) * scale;
    int64_t i = std::min<int64_t>(
        a.align_corners ? static_cast<int64_t>(std::round(x)) : static_cast<int64_t>(std::floor(x)),
        in - 1);
    if (a.half_pixel) i = std::max<int64_t>(i, 0);
    v[static_cast<size_t>(o)] = i;
  }
  return v;
}

class ResizeNearestNeighborOp {
 public:
  explicit ResizeNearestNeighborOp(Construction& c) { GetResizeAttrs(c, &attrs_); }
  void Compute(Context& ctx) {
    std::vector<int64_t> in;
    int64_t oh = 0, ow = 0;
    TensorMut out;
    if (!Prepare(ctx, &in, &oh, &ow, &out)) return;
    const size_t size = ElementSizeOrFail(ctx, ctx.input(0));
    if (size == 0) return;
    const int64_t n = in[0], h = in[1], w = in[2], c = in[3];
    const std::vector<int64_t> ys = Nearest(oh, h, Scale(h, oh, attrs_.align_corners), attrs_);
    const std::vector<int64_t> xs = Nearest(ow, w, Scale(w, ow, attrs_.align_corners), attrs_);
    const auto* src = ctx.input(0).data<unsigned char>();
    auto* dst = out.mutable_data<unsigned char>();
    const size_t pixel = static_cast<size_t>(c) * size;
    ctx.ParallelFor(n * oh, CopyCost(static_cast<int64_t>(pixel) * ow), [&](int64_t b, int64_t e) {
      for (int64_t row = b; row < e; ++row) {
        const int64_t batch = row / oh, y = row % oh;
        const unsigned char* line = src + static_cast<size_t>((batch * h + ys[static_cast<size_t>(y)]) * w) * pixel;
        unsigned char* o = dst + static_cast<size_t>(row * ow) * pixel;
        for (int64_t x = 0; x < ow; ++x) {
          std::memcpy(o + static_cast<size_t>(x) * pixel, line + static_cast<size_t>(xs[static_cast<size_t>(x)]) * pixel, pixel);
        }
      }
    });
  }

 private:
  ResizeAttrs attrs_;
};

// ResizeBilinearGrad's weights (image_resize_util.h's ResizeGradOp): the 2 taps of Interp,
// lo by 1 - lerp and hi by lerp.
struct LinearTaps {
  using Coord = Interp;
  static constexpr int kTaps = 2;
  static constexpr double kCost = 8;
  static std::vector<Interp> Weights(int64_t out, int64_t in, float scale, bool half_pixel) {
    return tgraph_cpu::Weights(out, in, scale, half_pixel);
  }
  static int Count(const Interp&) { return kTaps; }
  static int64_t Index(const Interp& i, int k) { return k == 0 ? i.lo : i.hi; }
  static float Weight(const Interp& i, int k) { return k == 0 ? 1 - i.lerp : i.lerp; }
};

// ResizeNearestNeighborGrad(grads [N, h, w, C], size [H, W]): each output pixel's gradient
// added to the input pixel it copied.
template <typename T>
class ResizeNearestNeighborGradOp {
 public:
  explicit ResizeNearestNeighborGradOp(Construction& c) { GetResizeAttrs(c, &attrs_); }
  void Compute(Context& ctx) {
    TensorView grads = ctx.input(0), size = ctx.input(1);
    const std::vector<int64_t> gd = grads.dims();
    if (gd.size() != 4 || size.rank() != 1 || size.dim(0) != 2 || size.data<int32_t>()[0] <= 0 ||
        size.data<int32_t>()[1] <= 0) {
      ctx.Fail(TG_INVALID_ARGUMENT, "grads must be 4-D and size 2 positive values, got " +
                                        ShapeString(gd) + " and size of shape " +
                                        ShapeString(size.dims()));
      return;
    }
    const int64_t n = gd[0], oh = gd[1], ow = gd[2], c = gd[3];
    const int64_t h = size.data<int32_t>()[0], w = size.data<int32_t>()[1];
    TensorMut out = ctx.AllocateOutput(0, {n, h, w, c});
    if (!ctx.ok()) return;
    const std::vector<int64_t> ys = Nearest(oh, h, Scale(h, oh, attrs_.align_corners), attrs_);
    const std::vector<int64_t> xs = Nearest(ow, w, Scale(w, ow, attrs_.align_corners), attrs_);
    const T* g = grads.data<T>();
    T* o = out.mutable_data<T>();
    std::fill(o, o + n * h * w * c, T(0));
    ctx.ParallelFor(n, static_cast<double>(oh * ow * c), [&](int64_t b, int64_t e) {
      for (int64_t batch = b; batch < e; ++batch) {
        for (int64_t y = 0; y < oh; ++y) {
          for (int64_t x = 0; x < ow; ++x) {
            const T* gp = g + ((batch * oh + y) * ow + x) * c;
            T* dst = o + ((batch * h + ys[static_cast<size_t>(y)]) * w + xs[static_cast<size_t>(x)]) * c;
            for (int64_t ch = 0; ch < c; ++ch) dst[ch] += gp[ch];
          }
        }
      }
    });
  }

 private:
  ResizeAttrs attrs_;
};

}  // namespace

void RegisterImageResizeKernels(tgraph::plugin::Init& init) {
  using tgraph::plugin::KernelBuilder;
  init.Kernel<ResizeBilinearOp<float>>(
      KernelBuilder("ResizeBilinear", "CPU").TypeConstraint("T", TG_FLOAT).HostMemory("size"));
  init.Kernel<ResizeBilinearOp<double>>(
      KernelBuilder("ResizeBilinear", "CPU").TypeConstraint("T", TG_DOUBLE).HostMemory("size"));
  init.Kernel<ResizeBilinearOp<uint8_t>>(
      KernelBuilder("ResizeBilinear", "CPU").TypeConstraint("T", TG_UINT8).HostMemory("size"));
  init.Kernel<ResizeBilinearOp<int32_t>>(
      KernelBuilder("ResizeBilinear", "CPU").TypeConstraint("T", TG_INT32).HostMemory("size"));
  init.Kernel<ResizeGradOp<LinearTaps, float>>(
      KernelBuilder("ResizeBilinearGrad", "CPU").TypeConstraint("T", TG_FLOAT));
  init.Kernel<ResizeGradOp<LinearTaps, double>>(
      KernelBuilder("ResizeBilinearGrad", "CPU").TypeConstraint("T", TG_DOUBLE));
  init.Kernel<ResizeNearestNeighborGradOp<float>>(
      KernelBuilder("ResizeNearestNeighborGrad", "CPU").TypeConstraint("T", TG_FLOAT).HostMemory("size"));
  init.Kernel<ResizeNearestNeighborGradOp<double>>(
      KernelBuilder("ResizeNearestNeighborGrad", "CPU").TypeConstraint("T", TG_DOUBLE).HostMemory("size"));
  init.Kernel<ResizeNearestNeighborOp>(KernelBuilder("ResizeNearestNeighbor", "CPU")
                                           .TypeConstraint("T", TG_ARRAY_MOVER_TYPES)
                                           .HostMemory("size"));
  RegisterImageResizeBicubicKernels(init);
  RegisterImageResizeAreaKernels(init);
}

}  // namespace tgraph_cpu
