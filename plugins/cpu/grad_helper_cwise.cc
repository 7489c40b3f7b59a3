// Element-wise gradient kernels: the activation gradients (ReluGrad, Relu6Grad, EluGrad,
// SoftplusGrad, SoftsignGrad) and the gradients of unary ops from their output y (SigmoidGrad,
// TanhGrad, SqrtGrad, RsqrtGrad, ReciprocalGrad and its old name InvGrad), plus Reciprocal
// (and Inv). No broadcasting: TensorFlow's
// kernels take two inputs of one size. One flat Eigen expression each, on the intra-op pool;
// the activation gradients of float and double run a plain loop instead (F::Scalar), which
// the compiler vectorises into a compare and a blend: Eigen's select of a comparison
// converts each comparison's result to a float one lane at a time (ReluGrad was 8% of the CNN
// training step's CPU time, at ~1.5 ns per element).
#include <string>
#include <type_traits>
#include <vector>

#include "cwise_ops_common.h"
#include "grad_helper_kernels.h"

namespace tgraph_cpu {
namespace {

// out = F::Expr(a, b) over two inputs of one size. kSameShape: the inputs must have one
// shape (TensorFlow's activation gradients); otherwise one element count is enough and the
// output takes input 0's shape (TensorFlow's y/dy gradients). kForward: the input whose
// buffer the output may take over (the incoming gradient, usually dead after this op).
template <typename T, typename F>
class GradKernel {
 public:
  explicit GradKernel(Construction&) {}

  void Compute(Context& ctx) {
    const TensorView a = ctx.input(0), b = ctx.input(1);
    const std::vector<int64_t> ad = a.dims(), bd = b.dims();
    if (F::kSameShape ? ad != bd : a.num_elements() != b.num_elements()) {
      return ctx.Fail(TG_INVALID_ARGUMENT,
                      std::string(F::kFirst) + " and " + F::kSecond + " must have the same " +
                          (F::kSameShape ? "shape" : "number of elements") + ", but are " +
                          ShapeString(ad) + " and " + ShapeString(bd));
    }
    // Forwarding reuses a buffer as is, so only an input that already has the output's shape.
    const bool can_forward = (F::kForward == 0 ? ad : bd) == ad;
    TensorMut out = can_forward ? ctx.ForwardOrAllocateOutput(F::kForward, 0, ad)
                                : ctx.AllocateOutput(0, ad);
    if (!ctx.ok() || !out.valid()) return;
    const int64_t n = a.num_elements();
    if (n == 0) return;
    if constexpr (std::is_floating_point_v<T> && requires { F::template Scalar<T>(T(), T()); }) {
      // No __restrict: the output may be input kForward's buffer (element i reads only
      // element i of each input, so writing over it is safe).
      const T* pa = a.data<T>();
      const T* pb = b.data<T>();
      T* po = out.mutable_data<T>();
      auto scalar = [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) po[i] = F::template Scalar<T>(pa[i], pb[i]);
      };
      if (TooSmallForPool(n, CostNs(F::kCost))) return scalar(0, n);
      ctx.ParallelFor(n, CostNs(F::kCost), [&](int64_t begin, int64_t end) { scalar(begin, end); });
      return;
    }
    // Element i of the output reads element i of each input only, so writing over a
    // forwarded input is safe. Split like the other element-wise kernels (cost in ns,
    // blocks of the core's minimum size), not by Eigen's thread-pool device: it split a
    // 128x512 ReluGrad (6 us on one thread) in two, which took 30 us (median) on a busy
    // 2-core machine; the MLP step runs two.
    T* o = out.mutable_data<T>();
    const T* pa = a.data<T>();
    const T* pb = b.data<T>();
    auto eval = [&](int64_t begin, int64_t end) {
      Vec<T>(o + begin, end - begin) = F::template Expr<T>(ConstVec<T>(pa + begin, end - begin),
                                                           ConstVec<T>(pb + begin, end - begin));
    };
    if (TooSmallForPool(n, CostNs(F::kCost))) return eval(0, n);
    ctx.ParallelFor(n, CostNs(F::kCost), [&](int64_t begin, int64_t end) { eval(begin, end); });
  }
};

// ---- activation gradients: (gradients g, features f or outputs o) ---------------------

struct ActivationGrad {
  static constexpr bool kSameShape = true;
  static constexpr int kForward = 0;  // gradients
  static constexpr const char* kFirst = "gradients";
  static constexpr const char* kSecond = "features";
};

// g where f > 0, else 0 (NaN features give 0, as TensorFlow).
struct ReluGradF : ActivationGrad {
  static constexpr double kCost = 1;
  template <typename T, class G, class X>
  static auto Expr(const G& g, const X& f) {
    return (f > f.constant(T(0))).select(g, g.constant(T(0)));
  }
  template <typename T>
  static T Scalar(T g, T f) {
    return f > T(0) ? g : T(0);
  }
};
// g where 0 < f < 6, else 0.
struct Relu6GradF : ActivationGrad {
  static constexpr double kCost = 2;
  template <typename T, class G, class X>
  static auto Expr(const G& g, const X& f) {
    const auto zero = g.constant(T(0));
    return (f > f.constant(T(0))).select((f < f.constant(T(6))).select(g, zero), zero);
  }
  template <typename T>
  static T Scalar(T g, T f) {
    return f > T(0) && f < T(6) ? g : T(0);
  }
};
// Elu's output o = exp(x) - 1 for x < 0, so its derivative exp(x) is o + 1 there.
struct EluGradF : ActivationGrad {
  static constexpr const char* kSecond = "outputs";
  static constexpr double kCost = 2;
  template <typename T, class G, class X>
  static auto Expr(const G& g, const X& o) {
    return (o < o.constant(T(0))).select(g * (o + o.constant(T(1))), g);
  }
  template <typename T>
  static T Scalar(T g, T o) {
    return o < T(0) ? g * (o + T(1)) : g;
  }
};
// softplus'(f) = sigmoid(f) = 1 / (1 + exp(-f)); exp(-f) = inf for very negative f gives 0.
struct SoftplusGradF : ActivationGrad {
  static constexpr double kCost = 12;
  template <typename T, class G, class X>
  static auto Expr(const G& g, const X& f) {
    return g / ((-f).exp() + f.constant(T(1)));
  }
};

// softsign'(f) = 1 / (1 + |f|)^2.
struct SoftsignGradF : ActivationGrad {
  static constexpr double kCost = 4;
  template <typename T, class G, class X>
  static auto Expr(const G& g, const X& f) {
    return g / (f.abs() + f.constant(T(1))).square();
  }
};

// ---- unary-op gradients from the output: (y, dy) ---------------------------------------

struct OutputGrad {
  static constexpr bool kSameShape = false;
  static constexpr int kForward = 1;  // dy
  static constexpr const char* kFirst = "y";
  static constexpr const char* kSecond = "dy";
};

struct SigmoidGradF : OutputGrad {
  static constexpr double kCost = 3;
  template <typename T, class Y, class D>
  static auto Expr(const Y& y, const D& dy) {
    return dy * y * (y.constant(T(1)) - y);
  }
};
struct TanhGradF : OutputGrad {
  static constexpr double kCost = 3;
  template <typename T, class Y, class D>
  static auto Expr(const Y& y, const D& dy) {
    return dy * (y.constant(T(1)) - y * y);
  }
};
// d sqrt(x) = 0.5 / sqrt(x).
struct SqrtGradF : OutputGrad {
  static constexpr double kCost = 5;
  template <typename T, class Y, class D>
  static auto Expr(const Y& y, const D& dy) {
    return dy * y.constant(T(0.5f)) / y;
  }
};
// d x^-1/2 = -0.5 x^-3/2 = -0.5 y^3.
struct RsqrtGradF : OutputGrad {
  static constexpr double kCost = 4;
  template <typename T, class Y, class D>
  static auto Expr(const Y& y, const D& dy) {
    return y.cube() * dy * y.constant(T(-0.5f));
  }
};
// d 1/x = -1/x^2 = -y^2.
struct ReciprocalGradF : OutputGrad {
  static constexpr double kCost = 3;
  template <typename T, class Y, class D>
  static auto Expr(const Y& y, const D& dy) {
    return -dy * y * y;
  }
};

template <typename F>
struct Grad {
  template <typename T>
  using Kernel = GradKernel<T, F>;
};

template <typename F, typename... Ts>
void Reg(Init& init, const char* op) {
  RegisterTyped<Grad<F>::template Kernel, Ts...>(init, op, F::kCost);
}

struct ReciprocalF {
  static constexpr double kCost = 2;
  template <class A>
  static auto Expr(const A& a) { return a.inverse(); }
};

}  // namespace

void RegisterCwiseGradKernels(Init& init) {
  // Relu and Relu6 have integer kernels too (cwise_unary.cc), so their gradients do.
  // bfloat16: bf16_kernels.cc (on the raw bits, for mixed precision's backward pass).
  Reg<ReluGradF, float, double, int32_t, int64_t, half>(init, "ReluGrad");
  Reg<Relu6GradF, float, double, int32_t, int64_t, half, bfloat16>(init, "Relu6Grad");
  Reg<EluGradF, float, double, half, bfloat16>(init, "EluGrad");
  Reg<SoftplusGradF, float, double, half, bfloat16>(init, "SoftplusGrad");
  Reg<SigmoidGradF, float, double, half, bfloat16>(init, "SigmoidGrad");
  Reg<TanhGradF, float, double, half, bfloat16>(init, "TanhGrad");
  Reg<SqrtGradF, float, double, half, bfloat16>(init, "SqrtGrad");
  Reg<RsqrtGradF, float, double, half, bfloat16>(init, "RsqrtGrad");
  Reg<ReciprocalGradF, float, double, half, bfloat16>(init, "ReciprocalGrad");
  Reg<ReciprocalGradF, float, double, half, bfloat16>(init, "InvGrad");  // TF's old name
  Reg<SoftsignGradF, float, double, half, bfloat16>(init, "SoftsignGrad");
  // Floating point only, as TensorFlow's CPU kernels (integer 1 / 0 would trap).
  RegisterTyped<Unary<ReciprocalF>::Kernel, float, double, half, bfloat16>(init, "Reciprocal",
                                                                          ReciprocalF::kCost);
  RegisterTyped<Unary<ReciprocalF>::Kernel, float, double, half, bfloat16>(init, "Inv",
                                                                          ReciprocalF::kCost);
}

}  // namespace tgraph_cpu
