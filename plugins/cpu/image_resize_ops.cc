// ResizeBilinear and ResizeNearestNeighbor (NHWC), with TensorFlow's coordinate rules:
// scale = in / out, or (in - 1) / (out - 1) with align_corners; half_pixel_centers samples
// at pixel centres ((o + 0.5) * scale - 0.5 for bilinear, (o + 0.5) * scale for nearest).
// Bilinear reads any real type and writes float; nearest copies elements by size. Output
// rows split over the intra-op pool.
#include <Eigen/Core>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "array_kernel_util.h"
#include "array_kernels.h"

namespace tgraph_cpu {
namespace {

using namespace array_util;

struct ResizeAttrs {
  bool align_corners = false;
  bool half_pixel = false;
};

bool GetResizeAttrs(Construction& c, ResizeAttrs* a) {
  if (!c.GetAttr("align_corners", &a->align_corners) ||
      !c.GetAttr("half_pixel_centers", &a->half_pixel)) {
    return false;
  }
  if (a->align_corners && a->half_pixel) {
    c.Fail(TG_INVALID_ARGUMENT, "If half_pixel_centers is True, align_corners must be False.");
    return false;
  }
  return true;
}

// Reads images [N, H, W, C] and size [h, w]; allocates the output. False when failed.
bool Prepare(Context& ctx, std::vector<int64_t>* in, int64_t* out_h, int64_t* out_w,
             TensorMut* out) {
  TensorView images = ctx.input(0);
  *in = images.dims();
  if (in->size() != 4) {
    ctx.Fail(TG_INVALID_ARGUMENT, "images must be 4-D [batch, height, width, channels], got " +
                                      ShapeString(*in));
    return false;
  }
  TensorView size = ctx.input(1);
  if (size.rank() != 1 || size.dim(0) != 2) {
    ctx.Fail(TG_INVALID_ARGUMENT, "size must be a vector of 2 values, got shape " +
                                      ShapeString(size.dims()));
    return false;
  }
  const int32_t* s = size.data<int32_t>();
  if (s[0] <= 0 || s[1] <= 0) {
    ctx.Fail(TG_INVALID_ARGUMENT, "size must be positive, got [" + std::to_string(s[0]) + "," +
                                      std::to_string(s[1]) + "]");
    return false;
  }
  if ((*in)[1] <= 0 || (*in)[2] <= 0) {
    ctx.Fail(TG_INVALID_ARGUMENT, "images must have positive height and width, got " +
                                      ShapeString(*in));
    return false;
  }
  *out_h = s[0];
  *out_w = s[1];
  *out = ctx.AllocateOutput(0, {(*in)[0], *out_h, *out_w, (*in)[3]});
  return ctx.ok();
}

float Scale(int64_t in, int64_t out, bool align_corners) {
  return align_corners && out > 1 ? static_cast<float>(in - 1) / static_cast<float>(out - 1)
                                  : static_cast<float>(in) / static_cast<float>(out);
}

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
  init.Kernel<ResizeNearestNeighborOp>(KernelBuilder("ResizeNearestNeighbor", "CPU")
                                           .TypeConstraint("T", TG_ARRAY_MOVER_TYPES)
                                           .HostMemory("size"));
}

}  // namespace tgraph_cpu
