// MaxPoolWithArgmax and MaxPoolGradWithArgmax on the CPU (tf.nn.max_pool_with_argmax: the
// unpooling of segmentation models such as SegNet), NHWC, SAME or VALID. Each output is its
// window's maximum, the first in the window's row-major order on ties (padding never counts),
// and its argmax the input's flat index ((b * H + y) * W + x) * C + c, without the b term
// unless include_batch_in_index. The gradient adds each incoming element at its argmax
// (within its own image when the index leaves out the batch).
#include <Eigen/Core>

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "array_kernel_util.h"
#include "model_op_kernels.h"

namespace tgraph_cpu {
namespace {

using tgraph::plugin::Construction;
using tgraph::plugin::Context;
using tgraph::plugin::KernelBuilder;
using tgraph::plugin::TensorMut;
using tgraph::plugin::TensorView;
using array_util::ShapeString;

struct ArgmaxPoolAttrs {
  int64_t k_h = 1, k_w = 1, s_h = 1, s_w = 1;
  bool same = false, with_batch = false;

  bool Read(Construction& c) {
    std::vector<int64_t> ksize, strides;
    std::string padding;
    if (!c.GetAttr("ksize", &ksize) || !c.GetAttr("strides", &strides) || !c.GetAttr("padding", &padding) ||
        !c.GetAttr("include_batch_in_index", &with_batch)) {
      return false;
    }
    if (ksize.size() != 4 || strides.size() != 4 || ksize[0] != 1 || ksize[3] != 1 || strides[0] != 1 ||
        strides[3] != 1 || ksize[1] < 1 || ksize[2] < 1 || strides[1] < 1 || strides[2] < 1) {
      c.Fail(TG_INVALID_ARGUMENT, "ksize and strides must be [1, rows, cols, 1] with rows and cols >= 1, got " +
                                      ShapeString(ksize) + " and " + ShapeString(strides));
      return false;
    }
    k_h = ksize[1];
    k_w = ksize[2];
    s_h = strides[1];
    s_w = strides[2];
    same = padding == "SAME";
    return true;
  }

  // Output size and padding before, of one spatial dim of size `in`.
  void Dim(int64_t in, int64_t k, int64_t s, int64_t* out, int64_t* pad) const {
    if (same) {
      *out = (in + s - 1) / s;
      *pad = std::max<int64_t>((*out - 1) * s + k - in, 0) / 2;
    } else {
      *out = in >= k ? (in - k) / s + 1 : 0;
      *pad = 0;
    }
  }
};

template <typename T, typename I>
class MaxPoolWithArgmaxOp {
 public:
  explicit MaxPoolWithArgmaxOp(Construction& c) { attrs_.Read(c); }

  void Compute(Context& ctx) {
    const TensorView input = ctx.input(0);
    if (input.rank() != 4) {
      ctx.Fail(TG_INVALID_ARGUMENT, "input must be 4-D, got shape " + ShapeString(input.dims()));
      return;
    }
    const int64_t batch = input.dim(0), h = input.dim(1), w = input.dim(2), depth = input.dim(3);
    int64_t oh = 0, ow = 0, pt = 0, pl = 0;
    attrs_.Dim(h, attrs_.k_h, attrs_.s_h, &oh, &pt);
    attrs_.Dim(w, attrs_.k_w, attrs_.s_w, &ow, &pl);
    TensorMut out = ctx.AllocateOutput(0, {batch, oh, ow, depth});
    TensorMut arg = ctx.AllocateOutput(1, {batch, oh, ow, depth});
    if (!ctx.ok() || batch * oh * ow * depth == 0) return;
    const T* in = input.data<T>();
    T* o = out.mutable_data<T>();
    I* a = arg.mutable_data<I>();
    ctx.ParallelFor(batch * oh * ow, static_cast<double>(attrs_.k_h * attrs_.k_w * depth),
                    [&](int64_t begin, int64_t end) {
                      for (int64_t p = begin; p < end; ++p) {
                        const int64_t b = p / (oh * ow), y = (p / ow) % oh, x = p % ow;
                        const int64_t y0 = y * attrs_.s_h - pt, x0 = x * attrs_.s_w - pl;
                        T* dst = o + p * depth;
                        I* idx = a + p * depth;
                        std::fill(dst, dst + depth, std::numeric_limits<T>::lowest());
                        std::fill(idx, idx + depth, I(-1));
                        for (int64_t yy = std::max<int64_t>(y0, 0); yy < std::min(y0 + attrs_.k_h, h); ++yy) {
                          for (int64_t xx = std::max<int64_t>(x0, 0); xx < std::min(x0 + attrs_.k_w, w); ++xx) {
                            const int64_t at = ((attrs_.with_batch ? b * h : 0) + yy) * w + xx;
                            const T* src = in + ((b * h + yy) * w + xx) * depth;
                            for (int64_t c = 0; c < depth; ++c) {
                              // The first maximum wins: a later equal value does not replace it.
                              if (idx[c] < 0 || src[c] > dst[c]) {
                                dst[c] = src[c];
                                idx[c] = static_cast<I>(at * depth + c);
                              }
                            }
                          }
                        }
                      }
                    });
  }

 private:
  ArgmaxPoolAttrs attrs_;
};

template <typename T, typename I>
class MaxPoolGradWithArgmaxOp {
 public:
  explicit MaxPoolGradWithArgmaxOp(Construction& c) { attrs_.Read(c); }

  void Compute(Context& ctx) {
    const TensorView input = ctx.input(0), grad = ctx.input(1), argmax = ctx.input(2);
    if (input.rank() != 4 || grad.dims() != argmax.dims() || grad.rank() != 4 || grad.dim(0) != input.dim(0) ||
        grad.dim(3) != input.dim(3)) {
      ctx.Fail(TG_INVALID_ARGUMENT, "input must be 4-D, and grad and argmax of one shape with its batch and "
                                    "depth: got input " + ShapeString(input.dims()) + ", grad " +
                                    ShapeString(grad.dims()) + ", argmax " + ShapeString(argmax.dims()));
      return;
    }
    TensorMut out = ctx.AllocateOutput(0, input.dims());
    if (!ctx.ok()) return;
    T* o = out.mutable_data<T>();
    const int64_t batch = input.dim(0);
    const int64_t image = batch > 0 ? input.num_elements() / batch : 0;
    std::fill(o, o + input.num_elements(), T(0));
    if (grad.num_elements() == 0) return;
    const T* g = grad.data<T>();
    const I* a = argmax.data<I>();
    const int64_t per_image = grad.num_elements() / batch;
    bool bad = false;
    // Images never share an output element (the argmax lies in the image it was taken from),
    // so they run in parallel.
    ctx.ParallelFor(batch, 2.0 * static_cast<double>(per_image), [&](int64_t begin, int64_t end) {
      for (int64_t b = begin; b < end; ++b) {
        const int64_t base = attrs_.with_batch ? 0 : b * image;
        for (int64_t i = b * per_image; i < (b + 1) * per_image; ++i) {
          const int64_t at = base + static_cast<int64_t>(a[i]);
          if (at < b * image || at >= (b + 1) * image) {
            bad = true;
            continue;
          }
          o[at] += g[i];
        }
      }
    });
    if (bad) ctx.Fail(TG_INVALID_ARGUMENT, "an argmax lies outside the input image it belongs to");
  }

 private:
  ArgmaxPoolAttrs attrs_;
};

template <typename T>
void RegisterFor(tgraph::plugin::Init& init, TG_DataType t) {
  init.Kernel<MaxPoolWithArgmaxOp<T, int64_t>>(
      KernelBuilder("MaxPoolWithArgmax", "CPU").TypeConstraint("T", t).TypeConstraint("Targmax", TG_INT64));
  init.Kernel<MaxPoolWithArgmaxOp<T, int32_t>>(
      KernelBuilder("MaxPoolWithArgmax", "CPU").TypeConstraint("T", t).TypeConstraint("Targmax", TG_INT32));
  init.Kernel<MaxPoolGradWithArgmaxOp<T, int64_t>>(
      KernelBuilder("MaxPoolGradWithArgmax", "CPU").TypeConstraint("T", t).TypeConstraint("Targmax", TG_INT64));
  init.Kernel<MaxPoolGradWithArgmaxOp<T, int32_t>>(
      KernelBuilder("MaxPoolGradWithArgmax", "CPU").TypeConstraint("T", t).TypeConstraint("Targmax", TG_INT32));
}

}  // namespace

void RegisterPoolArgmaxKernels(tgraph::plugin::Init& init) {
  RegisterFor<float>(init, TG_FLOAT);
  RegisterFor<double>(init, TG_DOUBLE);
  RegisterFor<Eigen::half>(init, TG_HALF);
  RegisterFor<Eigen::bfloat16>(init, TG_BFLOAT16);
}

}  // namespace tgraph_cpu
