// Conv2D (NHWC): im2col + one Eigen contraction per chunk of output pixels.
//
// The filter [KH, KW, C, OC] is already the row-major matrix [KH*KW*C, OC]. For each chunk
// of output pixels, the input patches are gathered into a [pixels, KH*KW*C] matrix (zeros
// where the window hangs over the padding), which is multiplied by the filter straight into
// the output. 1x1 convolutions with stride 1 and windows covering the whole image skip the
// gather: the input already is the patch matrix.
#include <algorithm>
#include <cstring>
#include <string>

#include "eigen_device.h"
#include "nn_common.h"

namespace tgraph_cpu::nn {
namespace {

using tgraph::plugin::Construction;
using tgraph::plugin::Context;

// Upper bound on the im2col scratch of one chunk.
constexpr int64_t kPatchBytes = 16 << 20;

template <typename T>
class Conv2DOp {
 public:
  explicit Conv2DOp(Construction& c) {
    std::string format;
    if (!c.GetAttr("data_format", &format)) return;
    if (format != "NHWC") {
      c.Fail(TG_UNIMPLEMENTED,
             "Conv2D on the CPU supports only data_format 'NHWC', got '" + format + "'");
      return;
    }
    if (!GetFourPositive(c, "strides", &strides_) ||
        !GetFourPositive(c, "dilations", &dilations_)) {
      return;
    }
    if (strides_[0] != 1 || strides_[3] != 1) {
      c.Fail(TG_INVALID_ARGUMENT,
             "strides in the batch and depth dimensions must be 1, got " + ShapeString(strides_));
      return;
    }
    if (dilations_[0] != 1 || dilations_[3] != 1) {
      c.Fail(TG_INVALID_ARGUMENT, "dilations in the batch and depth dimensions must be 1, got " +
                                      ShapeString(dilations_));
      return;
    }
    GetPaddingAttrs(c, /*allow_explicit=*/true, &padding_, &pads_);
  }

  void Compute(Context& ctx) {
    const auto input = ctx.input(0);
    const auto filter = ctx.input(1);
    if (input.rank() != 4 || filter.rank() != 4) {
      ctx.Fail(TG_INVALID_ARGUMENT, "Conv2D needs a 4-D input and a 4-D filter, got shapes " +
                                        ShapeString(input.dims()) + " and " +
                                        ShapeString(filter.dims()));
      return;
    }
    const int64_t batch = input.dim(0), in_h = input.dim(1), in_w = input.dim(2);
    const int64_t depth = input.dim(3);
    const int64_t k_h = filter.dim(0), k_w = filter.dim(1), k_depth = filter.dim(2);
    const int64_t out_depth = filter.dim(3);
    if (k_depth == 0) {
      ctx.Fail(TG_INVALID_ARGUMENT, "the filter's input depth must be > 0, got filter shape " +
                                        ShapeString(filter.dims()));
      return;
    }
    if (k_depth != depth) {
      if (k_depth > 0 && depth % k_depth == 0) {
        ctx.Fail(TG_UNIMPLEMENTED, "grouped convolution (input depth " + std::to_string(depth) +
                                       ", filter input depth " + std::to_string(k_depth) +
                                       ") is not supported on the CPU");
      } else {
        ctx.Fail(TG_INVALID_ARGUMENT, "input depth must equal the filter's input depth: input " +
                                          ShapeString(input.dims()) + ", filter " +
                                          ShapeString(filter.dims()));
      }
      return;
    }
    if (k_h <= 0 || k_w <= 0) {
      ctx.Fail(TG_INVALID_ARGUMENT, "filter height and width must be > 0, got filter shape " +
                                        ShapeString(filter.dims()));
      return;
    }
    const int64_t s_h = strides_[1], s_w = strides_[2];
    const int64_t d_h = dilations_[1], d_w = dilations_[2];
    Window wh, ww;
    std::string error;
    if (!ComputeWindow(in_h, k_h, d_h, s_h, padding_, pads_[2], pads_[3], &wh, &error) ||
        !ComputeWindow(in_w, k_w, d_w, s_w, padding_, pads_[4], pads_[5], &ww, &error)) {
      ctx.Fail(TG_INVALID_ARGUMENT, error + ": input " + ShapeString(input.dims()) + ", filter " +
                                        ShapeString(filter.dims()));
      return;
    }
    const int64_t out_h = wh.out, out_w = ww.out;
    auto out = ctx.AllocateOutput(0, {batch, out_h, out_w, out_depth});
    if (!ctx.ok()) return;
    const int64_t pixels = batch * out_h * out_w;
    if (pixels == 0 || out_depth == 0) return;
    T* o = out.template mutable_data<T>();
    const int64_t patch = k_h * k_w * depth;  // one row of the patch matrix
    if (patch == 0) {
      std::fill(o, o + pixels * out_depth, T(0));
      return;
    }
    const T* in = input.template data<T>();
    const T* f = filter.template data<T>();
    EigenCpu eigen(ctx);

    // The input already is the patch matrix: 1x1 windows at stride 1 with no padding, or one
    // window covering each whole image.
    const bool one_by_one = k_h == 1 && k_w == 1 && s_h == 1 && s_w == 1 && wh.pad_before == 0 &&
                            ww.pad_before == 0 && out_h == in_h && out_w == in_w;
    const bool whole_image = k_h == in_h && k_w == in_w && out_h == 1 && out_w == 1 &&
                             wh.pad_before == 0 && ww.pad_before == 0 && (d_h == 1 || k_h == 1) &&
                             (d_w == 1 || k_w == 1);
    if (one_by_one || whole_image) {
      Contract<T>(eigen.device(), in, pixels, patch, false, f, patch, out_depth, false, o);
      return;
    }

    const int64_t chunk =
        std::clamp<int64_t>(kPatchBytes / (patch * static_cast<int64_t>(sizeof(T))), 1, pixels);
    auto scratch = ctx.AllocateTemp(DTypeOf<T>::value, {chunk, patch});
    if (!ctx.ok()) return;
    T* cols = scratch.template mutable_data<T>();
    const int64_t pad_top = wh.pad_before, pad_left = ww.pad_before;
    for (int64_t start = 0; start < pixels; start += chunk) {
      const int64_t rows = std::min(chunk, pixels - start);
      ctx.ParallelFor(rows, static_cast<double>(patch) * 0.5, [&](int64_t begin, int64_t end) {
        for (int64_t r = begin; r < end; ++r) {
          const int64_t p = start + r;
          const int64_t n = p / (out_h * out_w);
          const int64_t oh = (p / out_w) % out_h;
          const int64_t ow = p % out_w;
          T* dst = cols + r * patch;
          for (int64_t kh = 0; kh < k_h; ++kh) {
            const int64_t ih = oh * s_h - pad_top + kh * d_h;
            if (ih < 0 || ih >= in_h) {
              std::fill(dst, dst + k_w * depth, T(0));
              dst += k_w * depth;
              continue;
            }
            const T* row = in + (n * in_h + ih) * in_w * depth;
            for (int64_t kw = 0; kw < k_w; ++kw, dst += depth) {
              const int64_t iw = ow * s_w - pad_left + kw * d_w;
              if (iw < 0 || iw >= in_w) {
                std::fill(dst, dst + depth, T(0));
              } else {
                std::memcpy(dst, row + iw * depth, static_cast<size_t>(depth) * sizeof(T));
              }
            }
          }
        }
      });
      if (!ctx.ok()) return;
      Contract<T>(eigen.device(), cols, rows, patch, false, f, patch, out_depth, false,
                  o + start * out_depth);
    }
  }

 private:
  std::vector<int64_t> strides_, dilations_, pads_;
  Padding padding_ = Padding::kValid;
};

template <typename T>
void RegisterFor(tgraph::plugin::Init& init) {
  init.Kernel<Conv2DOp<T>>(
      tgraph::plugin::KernelBuilder("Conv2D", "CPU").TypeConstraint("T", DTypeOf<T>::value));
}

}  // namespace

void RegisterConv2D(tgraph::plugin::Init& init) {
  RegisterFor<float>(init);
  RegisterFor<double>(init);
}

}  // namespace tgraph_cpu::nn
