// MaxPool3D and AvgPool3D (NDHWC) and their gradients' ops, MaxPool3DGrad and AvgPool3DGrad
// (and MaxPool3DGradGrad, the gradient of MaxPool3DGrad),
// with TensorFlow's CPU semantics: windows over depth, height and width; padding never
// contributes (max ignores it, the average divides by the number of input elements the
// window covers); MaxPool3DGrad gives a window's gradient to EVERY input element equal to
// the window's maximum (ties included), as TF's CPU kernel does. Direct loops, sums in
// float for bfloat16. Another data_format is declined, as by the 2-D pooling kernels (TF's
// CPU kernels take NDHWC only too).
#include <algorithm>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "model_op_kernels.h"
#include "nn_common.h"

namespace tgraph_cpu {
namespace {

using nn::DTypeOf;
using nn::ShapeString;
using tgraph::plugin::Construction;
using tgraph::plugin::Context;

template <typename T>
using Acc = std::conditional_t<std::is_same_v<T, double>, double, float>;

struct Pool3DAttrs {
  std::vector<int64_t> ksize, strides;
  bool same = false;
};

bool GetPool3DAttrs(Construction& c, Pool3DAttrs* a) {
  std::string format, padding;
  if (!c.GetAttr("data_format", &format) || !c.GetAttr("padding", &padding) ||
      !c.GetAttr("ksize", &a->ksize) || !c.GetAttr("strides", &a->strides)) {
    return false;
  }
  if (format != "NDHWC") {
    // Declined, not failed: a device kernel that takes the format runs the node instead.
    c.Decline(c.op_type() + " on the CPU supports only data_format 'NDHWC', got '" + format + "'");
    return false;
  }
  if (padding != "SAME" && padding != "VALID") {
    c.Fail(TG_INVALID_ARGUMENT, "unsupported padding '" + padding + "'");
    return false;
  }
  a->same = padding == "SAME";
  if (a->ksize.size() != 5 || a->strides.size() != 5) {
    c.Fail(TG_INVALID_ARGUMENT, "ksize and strides must have 5 values, got " +
                                    ShapeString(a->ksize) + " and " + ShapeString(a->strides));
    return false;
  }
  for (int i = 0; i < 5; ++i) {
    if (a->ksize[static_cast<size_t>(i)] <= 0 || a->strides[static_cast<size_t>(i)] <= 0) {
      c.Fail(TG_INVALID_ARGUMENT, "ksize and strides must be positive, got " +
                                      ShapeString(a->ksize) + " and " + ShapeString(a->strides));
      return false;
    }
  }
  if (a->ksize[0] != 1 || a->strides[0] != 1 || a->ksize[4] != 1 || a->strides[4] != 1) {
    c.Fail(TG_UNIMPLEMENTED, "pooling over the batch or depth (channel) dimension is not "
                             "supported (ksize " + ShapeString(a->ksize) + ", strides " +
                                 ShapeString(a->strides) + ")");
    return false;
  }
  return true;
}

// One pooling's sizes: input [n, in[0..2], c], output [n, out[0..2], c].
struct Geometry {
  int64_t n = 0, c = 0;
  int64_t in[3] = {}, out[3] = {}, k[3] = {}, s[3] = {}, pad[3] = {};
  int64_t in_pixels() const { return n * in[0] * in[1] * in[2]; }
  int64_t out_pixels() const { return n * out[0] * out[1] * out[2]; }
  // The input range [*b, *e) the window of output index o covers along dim i.
  void Range(int i, int64_t o, int64_t* b, int64_t* e) const {
    const int64_t start = o * s[i] - pad[i];
    *b = std::max<int64_t>(start, 0);
    *e = std::min<int64_t>(start + k[i], in[i]);
  }
};

// SAME padding as TF computes it: the forward ops (TF's Eigen volume patches) take half of
// (out - 1) * stride + window - in even when that is negative (a stride larger than the
// window), which shifts the windows right; the gradient ops (TF's own loops) clamp it at 0.
// So, as in TF, the gradient of such a pooling reads other windows than the forward op did.
bool MakeGeometry(Context& ctx, const Pool3DAttrs& a, const std::vector<int64_t>& input,
                  bool forward, Geometry* g) {
  if (input.size() != 5) {
    ctx.Fail(TG_INVALID_ARGUMENT, "input must be 5-D, got shape " + ShapeString(input));
    return false;
  }
  g->n = input[0];
  g->c = input[4];
  for (size_t i = 0; i < 3; ++i) {
    g->in[i] = input[i + 1];
    g->k[i] = a.ksize[i + 1];
    g->s[i] = a.strides[i + 1];
    if (a.same) {
      g->out[i] = (g->in[i] + g->s[i] - 1) / g->s[i];
      const int64_t excess = (g->out[i] - 1) * g->s[i] + g->k[i] - g->in[i];
      g->pad[i] = (forward ? excess : std::max<int64_t>(excess, 0)) / 2;
    } else {
      if (g->in[i] < g->k[i]) {
        ctx.Fail(TG_INVALID_ARGUMENT, "the window is larger than the input with VALID padding "
                                      "(the output size would be negative): input " +
                                          ShapeString(input) + ", ksize " + ShapeString(a.ksize));
        return false;
      }
      g->out[i] = (g->in[i] - g->k[i]) / g->s[i] + 1;
      g->pad[i] = 0;
    }
  }
  return true;
}

// Splits a flat output index of `g` into n and the three spatial indices.
inline int64_t SplitOut(const Geometry& g, int64_t p, int64_t o[3]) {
  for (int i = 2; i >= 0; --i) {
    o[i] = p % g.out[i];
    p /= g.out[i];
  }
  return p;
}

enum class Kind { kMax, kAvg };

template <typename T, Kind kKind>
class Pool3DOp {
 public:
  explicit Pool3DOp(Construction& c) { GetPool3DAttrs(c, &attrs_); }

  void Compute(Context& ctx) {
    const auto input = ctx.input(0);
    Geometry g;
    if (!MakeGeometry(ctx, attrs_, input.dims(), /*forward=*/true, &g)) return;
    auto out = ctx.AllocateOutput(0, {g.n, g.out[0], g.out[1], g.out[2], g.c});
    if (!ctx.ok() || g.out_pixels() == 0 || g.c == 0) return;
    const T* x = input.template data<T>();
    T* y = out.template mutable_data<T>();
    ctx.ParallelFor(g.out_pixels(), static_cast<double>(g.k[0] * g.k[1] * g.k[2] * g.c),
                    [&](int64_t begin, int64_t end) {
      std::vector<Acc<T>> acc(static_cast<size_t>(g.c));
      for (int64_t p = begin; p < end; ++p) {
        int64_t o[3];
        const int64_t n = SplitOut(g, p, o);
        int64_t b[3], e[3];
        for (int i = 0; i < 3; ++i) g.Range(i, o[i], &b[i], &e[i]);
        std::fill(acc.begin(), acc.end(),
                  kKind == Kind::kMax ? std::numeric_limits<Acc<T>>::lowest() : Acc<T>(0));
        for (int64_t d = b[0]; d < e[0]; ++d) {
          for (int64_t h = b[1]; h < e[1]; ++h) {
            for (int64_t w = b[2]; w < e[2]; ++w) {
              const T* src = x + (((n * g.in[0] + d) * g.in[1] + h) * g.in[2] + w) * g.c;
              for (int64_t c = 0; c < g.c; ++c) {
                const Acc<T> v = static_cast<Acc<T>>(src[c]);
                Acc<T>& a = acc[static_cast<size_t>(c)];
                if constexpr (kKind == Kind::kMax) {
                  a = v > a ? v : a;
                } else {
                  a += v;
                }
              }
            }
          }
        }
        T* dst = y + p * g.c;
        if constexpr (kKind == Kind::kAvg) {
          const Acc<T> count =
              static_cast<Acc<T>>(std::max<int64_t>((e[0] - b[0]) * (e[1] - b[1]) * (e[2] - b[2]), 1));
          for (int64_t c = 0; c < g.c; ++c) dst[c] = static_cast<T>(acc[static_cast<size_t>(c)] / count);
        } else {
          for (int64_t c = 0; c < g.c; ++c) dst[c] = static_cast<T>(acc[static_cast<size_t>(c)]);
        }
      }
    });
  }

 private:
  Pool3DAttrs attrs_;
};

bool CheckGrad(Context& ctx, const Geometry& g, const std::vector<int64_t>& dims) {
  const std::vector<int64_t> want = {g.n, g.out[0], g.out[1], g.out[2], g.c};
  if (dims != want) {
    ctx.Fail(TG_INVALID_ARGUMENT, "grad has shape " + ShapeString(dims) +
                                      " but the pooling's output is " + ShapeString(want));
    return false;
  }
  return true;
}

// The gradients scatter each output window into the input; windows of one image overlap,
// so one work item per image (batch entry) keeps every write in one thread.
template <typename T>
class MaxPool3DGradOp {
 public:
  explicit MaxPool3DGradOp(Construction& c) { GetPool3DAttrs(c, &attrs_); }

  void Compute(Context& ctx) {
    const auto input = ctx.input(0), output = ctx.input(1), grad = ctx.input(2);
    Geometry g;
    if (!MakeGeometry(ctx, attrs_, input.dims(), /*forward=*/false, &g) ||
        !CheckGrad(ctx, g, grad.dims())) {
      return;
    }
    if (output.dims() != grad.dims()) {
      ctx.Fail(TG_INVALID_ARGUMENT, "orig_output has shape " + ShapeString(output.dims()) +
                                        " but grad has shape " + ShapeString(grad.dims()));
      return;
    }
    auto out = ctx.AllocateOutput(0, input.dims());
    if (!ctx.ok() || g.in_pixels() == 0 || g.c == 0) return;
    const T* x = input.template data<T>();
    const T* y = output.template data<T>();
    const T* gy = grad.template data<T>();
    T* dx = out.template mutable_data<T>();
    const int64_t image_in = g.in[0] * g.in[1] * g.in[2] * g.c;
    const int64_t image_out = g.out[0] * g.out[1] * g.out[2];
    ctx.ParallelFor(g.n, static_cast<double>(image_out * g.k[0] * g.k[1] * g.k[2] * g.c),
                    [&](int64_t begin, int64_t end) {
      std::vector<Acc<T>> acc(static_cast<size_t>(image_in));
      for (int64_t n = begin; n < end; ++n) {
        std::fill(acc.begin(), acc.end(), Acc<T>(0));
        const T* xn = x + n * image_in;
        for (int64_t q = 0; q < image_out; ++q) {
          int64_t o[3];
          SplitOut(g, q, o);
          int64_t b[3], e[3];
          for (int i = 0; i < 3; ++i) g.Range(i, o[i], &b[i], &e[i]);
          const T* ymax = y + (n * image_out + q) * g.c;
          const T* gq = gy + (n * image_out + q) * g.c;
          for (int64_t d = b[0]; d < e[0]; ++d) {
            for (int64_t h = b[1]; h < e[1]; ++h) {
              for (int64_t w = b[2]; w < e[2]; ++w) {
                const int64_t at = ((d * g.in[1] + h) * g.in[2] + w) * g.c;
                for (int64_t c = 0; c < g.c; ++c) {
                  if (static_cast<Acc<T>>(xn[at + c]) == static_cast<Acc<T>>(ymax[c])) {
                    acc[static_cast<size_t>(at + c)] += static_cast<Acc<T>>(gq[c]);
                  }
                }
              }
            }
          }
        }
        T* dst = dx + n * image_in;
        for (int64_t i = 0; i < image_in; ++i) dst[i] = static_cast<T>(acc[static_cast<size_t>(i)]);
      }
    });
  }

 private:
  Pool3DAttrs attrs_;
};

template <typename T>
class AvgPool3DGradOp {
 public:
  explicit AvgPool3DGradOp(Construction& c) { GetPool3DAttrs(c, &attrs_); }

  void Compute(Context& ctx) {
    const auto sizes_t = ctx.input(0), grad = ctx.input(1);
    if (sizes_t.dtype() != TG_INT32 || sizes_t.rank() != 1 || sizes_t.dim(0) != 5) {
      ctx.Fail(TG_INVALID_ARGUMENT, "orig_input_shape must be an int32 vector of 5 values, got shape " +
                                        ShapeString(sizes_t.dims()));
      return;
    }
    std::vector<int64_t> sizes;
    for (int64_t i = 0; i < 5; ++i) {
      sizes.push_back(sizes_t.data<int32_t>()[i]);
      if (sizes.back() < 0) {
        ctx.Fail(TG_INVALID_ARGUMENT, "orig_input_shape must be non-negative, got " +
                                          ShapeString(std::vector<int64_t>(sizes_t.data<int32_t>(),
                                                                           sizes_t.data<int32_t>() + 5)));
        return;
      }
    }
    Geometry g;
    if (!MakeGeometry(ctx, attrs_, sizes, /*forward=*/false, &g) || !CheckGrad(ctx, g, grad.dims())) {
      return;
    }
    auto out = ctx.AllocateOutput(0, sizes);
    if (!ctx.ok() || g.in_pixels() == 0 || g.c == 0) return;
    const T* gy = grad.template data<T>();
    T* dx = out.template mutable_data<T>();
    const int64_t image_in = g.in[0] * g.in[1] * g.in[2] * g.c;
    const int64_t image_out = g.out[0] * g.out[1] * g.out[2];
    ctx.ParallelFor(g.n, static_cast<double>(image_out * g.k[0] * g.k[1] * g.k[2] * g.c),
                    [&](int64_t begin, int64_t end) {
      std::vector<Acc<T>> acc(static_cast<size_t>(image_in));
      for (int64_t n = begin; n < end; ++n) {
        std::fill(acc.begin(), acc.end(), Acc<T>(0));
        for (int64_t q = 0; q < image_out; ++q) {
          int64_t o[3];
          SplitOut(g, q, o);
          int64_t b[3], e[3];
          for (int i = 0; i < 3; ++i) g.Range(i, o[i], &b[i], &e[i]);
          const Acc<T> count =
              static_cast<Acc<T>>(std::max<int64_t>((e[0] - b[0]) * (e[1] - b[1]) * (e[2] - b[2]), 1));
          const T* gq = gy + (n * image_out + q) * g.c;
          for (int64_t d = b[0]; d < e[0]; ++d) {
            for (int64_t h = b[1]; h < e[1]; ++h) {
              for (int64_t w = b[2]; w < e[2]; ++w) {
                const int64_t at = ((d * g.in[1] + h) * g.in[2] + w) * g.c;
                for (int64_t c = 0; c < g.c; ++c) {
                  acc[static_cast<size_t>(at + c)] += static_cast<Acc<T>>(gq[c]) / count;
                }
              }
            }
          }
        }
        T* dst = dx + n * image_in;
        for (int64_t i = 0; i < image_in; ++i) dst[i] = static_cast<T>(acc[static_cast<size_t>(i)]);
      }
    });
  }

 private:
  Pool3DAttrs attrs_;
};

// MaxPool3DGradGrad: per output window and channel, grad at the window's first input
// element (depth, then height, then width order) equal to orig_output; 0 where none is.
// TF's CPU kernel refuses empty tensors, and so does this one.
template <typename T>
class MaxPool3DGradGradOp {
 public:
  explicit MaxPool3DGradGradOp(Construction& c) { GetPool3DAttrs(c, &attrs_); }

  void Compute(Context& ctx) {
    const auto input = ctx.input(0), output = ctx.input(1), grad = ctx.input(2);
    Geometry g;
    if (!MakeGeometry(ctx, attrs_, input.dims(), /*forward=*/false, &g)) return;
    const std::vector<int64_t> out_dims = {g.n, g.out[0], g.out[1], g.out[2], g.c};
    if (output.dims() != out_dims) {
      ctx.Fail(TG_INVALID_ARGUMENT, "orig_output has shape " + ShapeString(output.dims()) +
                                        " but the pooling's output is " + ShapeString(out_dims));
      return;
    }
    if (grad.dims() != input.dims()) {
      ctx.Fail(TG_INVALID_ARGUMENT, "grad has shape " + ShapeString(grad.dims()) +
                                        " but orig_input has shape " + ShapeString(input.dims()));
      return;
    }
    if (g.in_pixels() * g.c == 0 || g.out_pixels() * g.c == 0) {
      ctx.Fail(TG_INVALID_ARGUMENT, "MaxPool3DGradGrad received an empty tensor: orig_input " +
                                        ShapeString(input.dims()));
      return;
    }
    auto out = ctx.AllocateOutput(0, out_dims);
    if (!ctx.ok()) return;
    const T* x = input.template data<T>();
    const T* y = output.template data<T>();
    const T* gx = grad.template data<T>();
    T* dy = out.template mutable_data<T>();
    ctx.ParallelFor(g.out_pixels(), static_cast<double>(g.k[0] * g.k[1] * g.k[2] * g.c),
                    [&](int64_t begin, int64_t end) {
      for (int64_t p = begin; p < end; ++p) {
        int64_t o[3];
        const int64_t n = SplitOut(g, p, o);
        int64_t b[3], e[3];
        for (int i = 0; i < 3; ++i) g.Range(i, o[i], &b[i], &e[i]);
        for (int64_t c = 0; c < g.c; ++c) {
          const Acc<T> want = static_cast<Acc<T>>(y[p * g.c + c]);
          T found = T(0);
          bool done = false;
          for (int64_t d = b[0]; d < e[0] && !done; ++d) {
            for (int64_t h = b[1]; h < e[1] && !done; ++h) {
              for (int64_t w = b[2]; w < e[2] && !done; ++w) {
                const int64_t at = (((n * g.in[0] + d) * g.in[1] + h) * g.in[2] + w) * g.c + c;
                if (static_cast<Acc<T>>(x[at]) == want) {
                  found = gx[at];
                  done = true;
                }
              }
            }
          }
          dy[p * g.c + c] = found;
        }
      }
    });
  }

 private:
  Pool3DAttrs attrs_;
};

template <typename T>
void RegisterFor(tgraph::plugin::Init& init) {
  using tgraph::plugin::KernelBuilder;
  init.Kernel<Pool3DOp<T, Kind::kMax>>(
      KernelBuilder("MaxPool3D", "CPU").TypeConstraint("T", DTypeOf<T>::value));
  init.Kernel<Pool3DOp<T, Kind::kAvg>>(
      KernelBuilder("AvgPool3D", "CPU").TypeConstraint("T", DTypeOf<T>::value));
  init.Kernel<MaxPool3DGradOp<T>>(KernelBuilder("MaxPool3DGrad", "CPU")
                                      .TypeConstraint("T", DTypeOf<T>::value)
                                      .TypeConstraint("TInput", DTypeOf<T>::value));
  init.Kernel<MaxPool3DGradGradOp<T>>(
      KernelBuilder("MaxPool3DGradGrad", "CPU").TypeConstraint("T", DTypeOf<T>::value));
  init.Kernel<AvgPool3DGradOp<T>>(KernelBuilder("AvgPool3DGrad", "CPU")
                                      .TypeConstraint("T", DTypeOf<T>::value)
                                      .HostMemory("orig_input_shape"));
}

}  // namespace

// The types TF's CPU kernels take: float and bfloat16 (half and double are declared by the
// ops for other devices).
void RegisterPool3DKernels(tgraph::plugin::Init& init) {
  RegisterFor<float>(init);
  RegisterFor<Eigen::bfloat16>(init);
}

}  // namespace tgraph_cpu
