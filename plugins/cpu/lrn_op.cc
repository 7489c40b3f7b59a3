// LRN and LRNGrad on the CPU (local response normalization over the depth of an NHWC image:
// AlexNet's and GoogLeNet's layer, in the classic frozen TensorFlow graphs), as TensorFlow
// defines them: with r = depth_radius and N_i = bias + alpha * sum of x_j^2 over the channels
// j in [i - r, i + r] of the same pixel,
//   LRN:     y_i = x_i * N_i^-beta
//   LRNGrad: dx_j = g_j * N_j^-beta - 2 * alpha * beta * x_j * sum over i in [j - r, j + r]
//            of g_i * x_i * N_i^(-beta - 1)
// (the window is symmetric, so the channels whose window holds j are those within r of it).
// One pixel's channels at a time, window sums by prefix sums in double; half and bfloat16
// are computed in float.
#include <Eigen/Core>

#include <algorithm>
#include <cmath>
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

struct LrnAttrs {
  int64_t radius = 5;
  float bias = 1, alpha = 1, beta = 0.5f;

  bool Read(Construction& c) {
    if (!c.GetAttr("depth_radius", &radius) || !c.GetAttr("bias", &bias) ||
        !c.GetAttr("alpha", &alpha) || !c.GetAttr("beta", &beta)) {
      return false;
    }
    if (radius < 0) {
      c.Fail(TG_INVALID_ARGUMENT, "depth_radius must be >= 0, got " + std::to_string(radius));
      return false;
    }
    return true;
  }

  // norm[i] = bias + alpha * sum of x[j]^2 over the window of channel i (`depth` channels).
  template <typename T>
  void Norms(const T* x, int64_t depth, std::vector<double>* prefix, std::vector<float>* norm) const {
    (*prefix)[0] = 0;
    for (int64_t j = 0; j < depth; ++j) {
      const double v = static_cast<float>(x[j]);
      (*prefix)[static_cast<size_t>(j + 1)] = (*prefix)[static_cast<size_t>(j)] + v * v;
    }
    for (int64_t i = 0; i < depth; ++i) {
      const int64_t lo = std::max<int64_t>(0, i - radius), hi = std::min(depth, i + radius + 1);
      const double sum = (*prefix)[static_cast<size_t>(hi)] - (*prefix)[static_cast<size_t>(lo)];
      (*norm)[static_cast<size_t>(i)] = static_cast<float>(bias + alpha * sum);
    }
  }
};

// Fails unless `t` is 4-D; its pixels (rows of `depth` channels) otherwise.
bool Pixels(Context& ctx, const TensorView& t, const char* what, int64_t* pixels, int64_t* depth) {
  if (t.rank() != 4) {
    ctx.Fail(TG_INVALID_ARGUMENT, std::string(what) + " must be 4-D, got shape " + ShapeString(t.dims()));
    return false;
  }
  *depth = t.dim(3);
  *pixels = t.dim(0) * t.dim(1) * t.dim(2);
  return true;
}

template <typename T>
class LrnOp {
 public:
  explicit LrnOp(Construction& c) { attrs_.Read(c); }

  void Compute(Context& ctx) {
    const TensorView in = ctx.input(0);
    int64_t pixels = 0, depth = 0;
    if (!Pixels(ctx, in, "input", &pixels, &depth)) return;
    TensorMut out = ctx.AllocateOutput(0, in.dims());
    if (!ctx.ok() || pixels * depth == 0) return;
    const T* x = in.data<T>();
    T* y = out.mutable_data<T>();
    const double cost = 20.0 * static_cast<double>(depth);
    ctx.ParallelFor(pixels, cost, [&](int64_t begin, int64_t end) {
      std::vector<double> prefix(static_cast<size_t>(depth + 1));
      std::vector<float> norm(static_cast<size_t>(depth));
      for (int64_t p = begin; p < end; ++p) {
        const T* xp = x + p * depth;
        T* yp = y + p * depth;
        attrs_.Norms(xp, depth, &prefix, &norm);
        for (int64_t i = 0; i < depth; ++i) {
          yp[i] = static_cast<T>(static_cast<float>(xp[i]) *
                                 std::pow(norm[static_cast<size_t>(i)], -attrs_.beta));
        }
      }
    });
  }

 private:
  LrnAttrs attrs_;
};

template <typename T>
class LrnGradOp {
 public:
  explicit LrnGradOp(Construction& c) { attrs_.Read(c); }

  void Compute(Context& ctx) {
    const TensorView g = ctx.input(0), x = ctx.input(1), y = ctx.input(2);
    int64_t pixels = 0, depth = 0;
    if (!Pixels(ctx, g, "input_grads", &pixels, &depth)) return;
    if (x.dims() != g.dims() || y.dims() != g.dims()) {
      ctx.Fail(TG_INVALID_ARGUMENT, "input_grads, input_image and output_image must have one shape, got " +
                                        ShapeString(g.dims()) + ", " + ShapeString(x.dims()) + " and " + ShapeString(y.dims()));
      return;
    }
    TensorMut out = ctx.AllocateOutput(0, g.dims());
    if (!ctx.ok() || pixels * depth == 0) return;
    const T* gd = g.data<T>();
    const T* xd = x.data<T>();
    T* dx = out.mutable_data<T>();
    const double cost = 40.0 * static_cast<double>(depth);
    const float beta = attrs_.beta;
    ctx.ParallelFor(pixels, cost, [&](int64_t begin, int64_t end) {
      std::vector<double> prefix(static_cast<size_t>(depth + 1)), t_prefix(static_cast<size_t>(depth + 1));
      std::vector<float> norm(static_cast<size_t>(depth));
      for (int64_t p = begin; p < end; ++p) {
        const T* gp = gd + p * depth;
        const T* xp = xd + p * depth;
        T* op = dx + p * depth;
        attrs_.Norms(xp, depth, &prefix, &norm);
        // t_i = g_i * x_i * N_i^(-beta - 1), summed over windows by prefix sums.
        t_prefix[0] = 0;
        for (int64_t i = 0; i < depth; ++i) {
          const double n = norm[static_cast<size_t>(i)];
          const double t = static_cast<double>(static_cast<float>(gp[i])) * static_cast<float>(xp[i]) *
                           std::pow(n, -static_cast<double>(beta) - 1.0);
          t_prefix[static_cast<size_t>(i + 1)] = t_prefix[static_cast<size_t>(i)] + t;
        }
        for (int64_t j = 0; j < depth; ++j) {
          const int64_t lo = std::max<int64_t>(0, j - attrs_.radius), hi = std::min(depth, j + attrs_.radius + 1);
          const double window = t_prefix[static_cast<size_t>(hi)] - t_prefix[static_cast<size_t>(lo)];
          const double n = norm[static_cast<size_t>(j)];
          const double v = static_cast<double>(static_cast<float>(gp[j])) * std::pow(n, -static_cast<double>(beta)) -
                           2.0 * attrs_.alpha * beta * static_cast<double>(static_cast<float>(xp[j])) * window;
          op[j] = static_cast<T>(static_cast<float>(v));
        }
      }
    });
  }

 private:
  LrnAttrs attrs_;
};

template <template <typename> class K>
void RegisterLrnFamily(tgraph::plugin::Init& init, const char* op) {
  init.Kernel<K<float>>(KernelBuilder(op, "CPU").TypeConstraint("T", TG_FLOAT));
  init.Kernel<K<Eigen::half>>(KernelBuilder(op, "CPU").TypeConstraint("T", TG_HALF));
  init.Kernel<K<Eigen::bfloat16>>(KernelBuilder(op, "CPU").TypeConstraint("T", TG_BFLOAT16));
}

}  // namespace

void RegisterLrnKernels(tgraph::plugin::Init& init) {
  RegisterLrnFamily<LrnOp>(init, "LRN");
  RegisterLrnFamily<LrnGradOp>(init, "LRNGrad");
}

}  // namespace tgraph_cpu
