// Conv3D (NDHWC) and its two gradients, Conv3DBackpropInputV2 and Conv3DBackpropFilterV2:
//   out[n, od, oh, ow, o] = sum over the window and c of in[n, id, ih, iw, c] * f[kd, kh, kw, c, o]
// with id = od * stride - pad_before + kd * dilation (likewise h, w). Direct loops, one work
// item per output position (forward), per input position (the input's gradient, gathering
// the windows that read it, so no two items write one element) or per filter row (the
// filter's gradient); sums in float for half / bfloat16. Frozen models use Conv3D rarely and
// small, so no im2col here.
#include <algorithm>
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

struct Conv3DAttrs {
  std::vector<int64_t> strides, dilations;
  bool same = false;
};

bool GetConv3DAttrs(Construction& c, Conv3DAttrs* a) {
  std::string format, padding;
  if (!c.GetAttr("data_format", &format) || !c.GetAttr("padding", &padding) ||
      !c.GetAttr("strides", &a->strides) || !c.GetAttr("dilations", &a->dilations)) {
    return false;
  }
  if (format != "NDHWC") {
    c.Fail(TG_UNIMPLEMENTED, c.op_type() + " on the CPU supports only data_format 'NDHWC', got '" + format + "'");
    return false;
  }
  if (padding != "SAME" && padding != "VALID") {
    c.Fail(TG_INVALID_ARGUMENT, "unsupported padding '" + padding + "'");
    return false;
  }
  a->same = padding == "SAME";
  if (a->strides.size() != 5 || a->dilations.size() != 5) {
    c.Fail(TG_INVALID_ARGUMENT, "strides and dilations must have 5 values, got " + ShapeString(a->strides) +
                                    " and " + ShapeString(a->dilations));
    return false;
  }
  for (int i = 0; i < 5; ++i) {
    if (a->strides[i] <= 0 || a->dilations[i] <= 0) {
      c.Fail(TG_INVALID_ARGUMENT, "strides and dilations must be > 0, got " + ShapeString(a->strides) +
                                      " and " + ShapeString(a->dilations));
      return false;
    }
  }
  if (a->strides[0] != 1 || a->strides[4] != 1 || a->dilations[0] != 1 || a->dilations[4] != 1) {
    c.Fail(TG_INVALID_ARGUMENT, "strides and dilations in the batch and depth dimensions must be 1, got " +
                                    ShapeString(a->strides) + " and " + ShapeString(a->dilations));
    return false;
  }
  return true;
}

// One convolution's sizes: input [n, in[0..2], c], filter [k[0..2], c, oc], output
// [n, out[0..2], oc].
struct Geometry {
  int64_t n = 0, c = 0, oc = 0;
  int64_t in[3] = {}, k[3] = {}, out[3] = {}, s[3] = {}, d[3] = {}, pad[3] = {};
  int64_t in_pixels() const { return n * in[0] * in[1] * in[2]; }
  int64_t out_pixels() const { return n * out[0] * out[1] * out[2]; }
  int64_t window() const { return k[0] * k[1] * k[2]; }
};

// Fails the context (naming both shapes) unless they make a convolution.
bool MakeGeometry(Context& ctx, const Conv3DAttrs& a, const std::vector<int64_t>& input,
                  const std::vector<int64_t>& filter, Geometry* g) {
  const std::string shapes = ": input " + ShapeString(input) + ", filter " + ShapeString(filter);
  if (input.size() != 5 || filter.size() != 5) {
    ctx.Fail(TG_INVALID_ARGUMENT, "Conv3D needs a 5-D input and a 5-D filter" + shapes);
    return false;
  }
  g->n = input[0];
  g->c = input[4];
  g->oc = filter[4];
  if (filter[3] != g->c) {
    ctx.Fail(TG_INVALID_ARGUMENT, "input depth must equal the filter's input depth" + shapes);
    return false;
  }
  for (int i = 0; i < 3; ++i) {
    g->in[i] = input[static_cast<size_t>(i) + 1];
    g->k[i] = filter[static_cast<size_t>(i)];
    g->s[i] = a.strides[static_cast<size_t>(i) + 1];
    g->d[i] = a.dilations[static_cast<size_t>(i) + 1];
    if (g->k[i] <= 0) {
      ctx.Fail(TG_INVALID_ARGUMENT, "filter sizes must be > 0" + shapes);
      return false;
    }
    const int64_t effective = (g->k[i] - 1) * g->d[i] + 1;
    if (a.same) {
      g->out[i] = (g->in[i] + g->s[i] - 1) / g->s[i];
      g->pad[i] = std::max<int64_t>((g->out[i] - 1) * g->s[i] + effective - g->in[i], 0) / 2;
    } else {
      if (g->in[i] < effective) {
        ctx.Fail(TG_INVALID_ARGUMENT, "the filter (dilated) is larger than the input with VALID padding" + shapes);
        return false;
      }
      g->out[i] = (g->in[i] - effective + g->s[i]) / g->s[i];
      g->pad[i] = 0;
    }
  }
  return true;
}

template <typename T>
using Acc = std::conditional_t<std::is_same_v<T, double>, double, float>;

// A shape input (int32 or int64 vector of 5 values, each >= 0).
bool ReadSizes(Context& ctx, int index, const char* what, std::vector<int64_t>* out) {
  const auto t = ctx.input(index);
  if (t.rank() != 1 || t.dim(0) != 5 || (t.dtype() != TG_INT32 && t.dtype() != TG_INT64)) {
    ctx.Fail(TG_INVALID_ARGUMENT, std::string(what) + " must be an int32 or int64 vector of 5 values, got shape " +
                                      ShapeString(t.dims()));
    return false;
  }
  out->clear();
  for (int64_t i = 0; i < 5; ++i) {
    out->push_back(t.dtype() == TG_INT32 ? t.data<int32_t>()[i] : t.data<int64_t>()[i]);
    if (out->back() < 0) {
      ctx.Fail(TG_INVALID_ARGUMENT, std::string(what) + " must be non-negative, got " + ShapeString(*out));
      return false;
    }
  }
  return true;
}

bool CheckOutBackprop(Context& ctx, const Geometry& g, const std::vector<int64_t>& dims) {
  const std::vector<int64_t> want = {g.n, g.out[0], g.out[1], g.out[2], g.oc};
  if (dims != want) {
    ctx.Fail(TG_INVALID_ARGUMENT, "out_backprop has shape " + ShapeString(dims) + " but the convolution's output is " +
                                      ShapeString(want));
    return false;
  }
  return true;
}

template <typename T>
class Conv3DOp {
 public:
  explicit Conv3DOp(Construction& c) { GetConv3DAttrs(c, &attrs_); }

  void Compute(Context& ctx) {
    const auto input = ctx.input(0), filter = ctx.input(1);
    Geometry g;
    if (!MakeGeometry(ctx, attrs_, input.dims(), filter.dims(), &g)) return;
    auto out = ctx.AllocateOutput(0, {g.n, g.out[0], g.out[1], g.out[2], g.oc});
    if (!ctx.ok() || g.out_pixels() == 0 || g.oc == 0) return;
    const T* x = input.template data<T>();
    const T* f = filter.template data<T>();
    T* y = out.template mutable_data<T>();
    ctx.ParallelFor(g.out_pixels(), 2.0 * static_cast<double>(g.window() * g.c * g.oc),
                    [&](int64_t begin, int64_t end) {
      std::vector<Acc<T>> acc(static_cast<size_t>(g.oc));
      for (int64_t p = begin; p < end; ++p) {
        int64_t o[3], rest = p;
        for (int i = 2; i >= 0; --i) {
          o[i] = rest % g.out[i];
          rest /= g.out[i];
        }
        const int64_t n = rest;
        std::fill(acc.begin(), acc.end(), Acc<T>(0));
        for (int64_t kd = 0; kd < g.k[0]; ++kd) {
          const int64_t id = o[0] * g.s[0] - g.pad[0] + kd * g.d[0];
          if (id < 0 || id >= g.in[0]) continue;
          for (int64_t kh = 0; kh < g.k[1]; ++kh) {
            const int64_t ih = o[1] * g.s[1] - g.pad[1] + kh * g.d[1];
            if (ih < 0 || ih >= g.in[1]) continue;
            for (int64_t kw = 0; kw < g.k[2]; ++kw) {
              const int64_t iw = o[2] * g.s[2] - g.pad[2] + kw * g.d[2];
              if (iw < 0 || iw >= g.in[2]) continue;
              const T* xi = x + (((n * g.in[0] + id) * g.in[1] + ih) * g.in[2] + iw) * g.c;
              const T* fw = f + ((kd * g.k[1] + kh) * g.k[2] + kw) * g.c * g.oc;
              for (int64_t c = 0; c < g.c; ++c) {
                const Acc<T> xv = static_cast<Acc<T>>(xi[c]);
                const T* fc = fw + c * g.oc;
                for (int64_t oc = 0; oc < g.oc; ++oc) acc[static_cast<size_t>(oc)] += xv * static_cast<Acc<T>>(fc[oc]);
              }
            }
          }
        }
        T* dst = y + p * g.oc;
        for (int64_t oc = 0; oc < g.oc; ++oc) dst[oc] = static_cast<T>(acc[static_cast<size_t>(oc)]);
      }
    });
  }

 private:
  Conv3DAttrs attrs_;
};

// The output index along one dim that reads input index `i` through window tap `k`, or -1.
inline int64_t OutputOf(const Geometry& g, int dim, int64_t i, int64_t k) {
  const int64_t num = i + g.pad[dim] - k * g.d[dim];
  if (num < 0 || num % g.s[dim] != 0) return -1;
  const int64_t o = num / g.s[dim];
  return o < g.out[dim] ? o : -1;
}

template <typename T>
class Conv3DBackpropInputOp {
 public:
  explicit Conv3DBackpropInputOp(Construction& c) { GetConv3DAttrs(c, &attrs_); }

  void Compute(Context& ctx) {
    std::vector<int64_t> sizes;
    if (!ReadSizes(ctx, 0, "input_sizes", &sizes)) return;
    const auto filter = ctx.input(1), dy = ctx.input(2);
    Geometry g;
    if (!MakeGeometry(ctx, attrs_, sizes, filter.dims(), &g) || !CheckOutBackprop(ctx, g, dy.dims())) return;
    auto out = ctx.AllocateOutput(0, sizes);
    if (!ctx.ok() || g.in_pixels() == 0 || g.c == 0) return;
    const T* f = filter.template data<T>();
    const T* gy = dy.template data<T>();
    T* dx = out.template mutable_data<T>();
    ctx.ParallelFor(g.in_pixels(), 2.0 * static_cast<double>(g.window() * g.c * g.oc),
                    [&](int64_t begin, int64_t end) {
      std::vector<Acc<T>> acc(static_cast<size_t>(g.c));
      for (int64_t p = begin; p < end; ++p) {
        int64_t i[3], rest = p;
        for (int k = 2; k >= 0; --k) {
          i[k] = rest % g.in[k];
          rest /= g.in[k];
        }
        const int64_t n = rest;
        std::fill(acc.begin(), acc.end(), Acc<T>(0));
        for (int64_t kd = 0; kd < g.k[0]; ++kd) {
          const int64_t od = OutputOf(g, 0, i[0], kd);
          if (od < 0) continue;
          for (int64_t kh = 0; kh < g.k[1]; ++kh) {
            const int64_t oh = OutputOf(g, 1, i[1], kh);
            if (oh < 0) continue;
            for (int64_t kw = 0; kw < g.k[2]; ++kw) {
              const int64_t ow = OutputOf(g, 2, i[2], kw);
              if (ow < 0) continue;
              const T* go = gy + (((n * g.out[0] + od) * g.out[1] + oh) * g.out[2] + ow) * g.oc;
              const T* fw = f + ((kd * g.k[1] + kh) * g.k[2] + kw) * g.c * g.oc;
              for (int64_t c = 0; c < g.c; ++c) {
                const T* fc = fw + c * g.oc;
                Acc<T> sum = 0;
                for (int64_t oc = 0; oc < g.oc; ++oc) sum += static_cast<Acc<T>>(go[oc]) * static_cast<Acc<T>>(fc[oc]);
                acc[static_cast<size_t>(c)] += sum;
              }
            }
          }
        }
        T* dst = dx + p * g.c;
        for (int64_t c = 0; c < g.c; ++c) dst[c] = static_cast<T>(acc[static_cast<size_t>(c)]);
      }
    });
  }

 private:
  Conv3DAttrs attrs_;
};

template <typename T>
class Conv3DBackpropFilterOp {
 public:
  explicit Conv3DBackpropFilterOp(Construction& c) { GetConv3DAttrs(c, &attrs_); }

  void Compute(Context& ctx) {
    std::vector<int64_t> sizes;
    const auto input = ctx.input(0), dy = ctx.input(2);
    if (!ReadSizes(ctx, 1, "filter_sizes", &sizes)) return;
    Geometry g;
    if (!MakeGeometry(ctx, attrs_, input.dims(), sizes, &g) || !CheckOutBackprop(ctx, g, dy.dims())) return;
    auto out = ctx.AllocateOutput(0, sizes);
    if (!ctx.ok() || g.window() * g.c * g.oc == 0) return;
    const T* x = input.template data<T>();
    const T* gy = dy.template data<T>();
    T* df = out.template mutable_data<T>();
    // One work item per (kd, kh, kw, c): its row of oc sums over every output position.
    ctx.ParallelFor(g.window() * g.c, 2.0 * static_cast<double>(g.out_pixels() * g.oc),
                    [&](int64_t begin, int64_t end) {
      std::vector<Acc<T>> acc(static_cast<size_t>(g.oc));
      for (int64_t r = begin; r < end; ++r) {
        const int64_t c = r % g.c, tap = r / g.c;
        const int64_t kw = tap % g.k[2], kh = (tap / g.k[2]) % g.k[1], kd = tap / (g.k[2] * g.k[1]);
        std::fill(acc.begin(), acc.end(), Acc<T>(0));
        for (int64_t n = 0; n < g.n; ++n) {
          for (int64_t od = 0; od < g.out[0]; ++od) {
            const int64_t id = od * g.s[0] - g.pad[0] + kd * g.d[0];
            if (id < 0 || id >= g.in[0]) continue;
            for (int64_t oh = 0; oh < g.out[1]; ++oh) {
              const int64_t ih = oh * g.s[1] - g.pad[1] + kh * g.d[1];
              if (ih < 0 || ih >= g.in[1]) continue;
              for (int64_t ow = 0; ow < g.out[2]; ++ow) {
                const int64_t iw = ow * g.s[2] - g.pad[2] + kw * g.d[2];
                if (iw < 0 || iw >= g.in[2]) continue;
                const Acc<T> xv =
                    static_cast<Acc<T>>(x[(((n * g.in[0] + id) * g.in[1] + ih) * g.in[2] + iw) * g.c + c]);
                const T* go = gy + (((n * g.out[0] + od) * g.out[1] + oh) * g.out[2] + ow) * g.oc;
                for (int64_t oc = 0; oc < g.oc; ++oc) acc[static_cast<size_t>(oc)] += xv * static_cast<Acc<T>>(go[oc]);
              }
            }
          }
        }
        T* dst = df + r * g.oc;
        for (int64_t oc = 0; oc < g.oc; ++oc) dst[oc] = static_cast<T>(acc[static_cast<size_t>(oc)]);
      }
    });
  }

 private:
  Conv3DAttrs attrs_;
};

template <typename T>
void RegisterFor(tgraph::plugin::Init& init) {
  using tgraph::plugin::KernelBuilder;
  init.Kernel<Conv3DOp<T>>(KernelBuilder("Conv3D", "CPU").TypeConstraint("T", DTypeOf<T>::value));
  init.Kernel<Conv3DBackpropInputOp<T>>(
      KernelBuilder("Conv3DBackpropInputV2", "CPU").TypeConstraint("T", DTypeOf<T>::value));
  init.Kernel<Conv3DBackpropFilterOp<T>>(
      KernelBuilder("Conv3DBackpropFilterV2", "CPU").TypeConstraint("T", DTypeOf<T>::value));
}

}  // namespace

void RegisterConv3DKernels(tgraph::plugin::Init& init) {
  RegisterFor<float>(init);
  RegisterFor<double>(init);
  RegisterFor<Eigen::half>(init);
  RegisterFor<Eigen::bfloat16>(init);
}

}  // namespace tgraph_cpu
