// Complex numbers: Complex (real and imaginary parts, with broadcasting), Real, Imag, Angle,
// ComplexAbs, Conj, ConjugateTranspose (every plain dtype; conjugating complex ones), and
// AddN over complex64 / complex128, which the gradients of the complex ops need to add up
// the contributions of a tensor used twice. Plain loops: the work is one multiply-add or one
// libm call per element, so Eigen's expression machinery would only cost compile time.
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "array_kernel_util.h"
#include "cpu_kernels.h"

namespace tgraph_cpu {
namespace {

using array_util::ShapeString;
using tgraph::plugin::Construction;
using tgraph::plugin::Context;
using tgraph::plugin::KernelBuilder;
using tgraph::plugin::TensorView;

template <typename R>
constexpr TG_DataType RealType() {
  return sizeof(R) == 4 ? TG_FLOAT : TG_DOUBLE;
}
template <typename R>
constexpr TG_DataType ComplexType() {
  return sizeof(R) == 4 ? TG_COMPLEX64 : TG_COMPLEX128;
}

// Element-wise work costs about this much per element (ns) for ParallelFor's split.
constexpr double kCost = 4.0;

// ---- Complex: real + imag * 1j with NumPy broadcasting ----

template <typename R>
class ComplexOp {
 public:
  explicit ComplexOp(Construction&) {}

  void Compute(Context& ctx) {
    const TensorView re = ctx.input(0), im = ctx.input(1);
    const std::vector<int64_t> a = re.dims(), b = im.dims();
    const size_t rank = std::max(a.size(), b.size());
    // Strides of each input over the output's dims, 0 where an input is broadcast.
    std::vector<int64_t> out(rank), sa(rank, 0), sb(rank, 0);
    int64_t stride_a = 1, stride_b = 1;
    for (size_t k = 0; k < rank; ++k) {
      const size_t i = rank - 1 - k;
      const int64_t da = k < a.size() ? a[a.size() - 1 - k] : 1;
      const int64_t db = k < b.size() ? b[b.size() - 1 - k] : 1;
      if (da != db && da != 1 && db != 1) {
        return ctx.Fail(TG_INVALID_ARGUMENT,
                        "Incompatible shapes: " + ShapeString(a) + " vs. " + ShapeString(b));
      }
      out[i] = da == 1 ? db : da;
      sa[i] = da == 1 ? 0 : stride_a;
      sb[i] = db == 1 ? 0 : stride_b;
      stride_a *= da;
      stride_b *= db;
    }
    auto z = ctx.AllocateOutput(0, out);
    if (!ctx.ok()) return;
    const int64_t n = z.num_elements();
    if (n == 0) return;
    const R* x = re.template data<R>();
    const R* y = im.template data<R>();
    auto* o = z.template mutable_data<std::complex<R>>();
    ctx.ParallelFor(n, kCost, [&](int64_t begin, int64_t end) {
      for (int64_t e = begin; e < end; ++e) {
        int64_t ia = 0, ib = 0, rest = e;
        for (size_t k = rank; k-- > 0;) {
          const int64_t c = rest % out[k];
          rest /= out[k];
          ia += c * sa[k];
          ib += c * sb[k];
        }
        o[e] = std::complex<R>(x[ia], y[ib]);
      }
    });
  }
};

// ---- complex -> real, element-wise ----

struct RealF {
  template <typename R> static R Apply(std::complex<R> v) { return v.real(); }
};
struct ImagF {
  template <typename R> static R Apply(std::complex<R> v) { return v.imag(); }
};
struct AngleF {
  template <typename R> static R Apply(std::complex<R> v) { return std::atan2(v.imag(), v.real()); }
};
struct AbsF {
  template <typename R> static R Apply(std::complex<R> v) { return std::hypot(v.real(), v.imag()); }
};

template <typename F, typename R>
class ComplexToRealOp {
 public:
  explicit ComplexToRealOp(Construction&) {}

  void Compute(Context& ctx) {
    const TensorView in = ctx.input(0);
    auto out = ctx.AllocateOutput(0, in.dims());
    if (!ctx.ok()) return;
    const int64_t n = in.num_elements();
    if (n == 0) return;
    const auto* x = in.template data<std::complex<R>>();
    R* y = out.template mutable_data<R>();
    ctx.ParallelFor(n, kCost, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) y[i] = F::Apply(x[i]);
    });
  }
};

template <typename R>
class ConjOp {
 public:
  explicit ConjOp(Construction&) {}

  void Compute(Context& ctx) {
    const TensorView in = ctx.input(0);
    auto out = ctx.ForwardOrAllocateOutput(0, 0, in.dims());
    if (!ctx.ok()) return;
    const int64_t n = in.num_elements();
    if (n == 0) return;
    const auto* x = in.template data<std::complex<R>>();
    auto* y = out.template mutable_data<std::complex<R>>();
    ctx.ParallelFor(n, 1.0, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) y[i] = std::conj(x[i]);
    });
  }
};

// ---- ConjugateTranspose: a transpose that conjugates complex elements ----

template <typename T>
T ConjIfComplex(T v) {
  if constexpr (std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>) {
    return std::conj(v);
  } else {
    return v;
  }
}

// A fixed-size element: the non-complex dtypes are moved by size only.
template <size_t N>
struct Bytes {
  unsigned char b[N];
};

template <typename T>
class ConjugateTransposeOp {
 public:
  explicit ConjugateTransposeOp(Construction&) {}

  void Compute(Context& ctx) {
    const TensorView x = ctx.input(0), perm_t = ctx.input(1);
    const std::vector<int64_t> dims = x.dims();
    const int rank = static_cast<int>(dims.size());
    if (perm_t.rank() != 1) {
      return ctx.Fail(TG_INVALID_ARGUMENT,
                      "perm must be a vector, got shape " + ShapeString(perm_t.dims()));
    }
    const std::vector<int64_t> perm = array_util::IndexValues(perm_t);
    if (static_cast<int>(perm.size()) != rank) {
      return ctx.Fail(TG_INVALID_ARGUMENT, "transpose expects a vector of size " +
                                               std::to_string(rank) +
                                               ". But input(1) is a vector of size " +
                                               std::to_string(perm.size()));
    }
    std::vector<bool> seen(static_cast<size_t>(rank), false);
    for (int i = 0; i < rank; ++i) {
      const int64_t p = perm[static_cast<size_t>(i)];
      if (p < 0 || p >= rank) {
        return ctx.Fail(TG_INVALID_ARGUMENT,
                        std::to_string(p) + " is out of range [0 .. " + std::to_string(rank) + ")");
      }
      if (seen[static_cast<size_t>(p)]) {
        return ctx.Fail(TG_INVALID_ARGUMENT, std::to_string(p) + " is duplicated in perm");
      }
      seen[static_cast<size_t>(p)] = true;
    }
    std::vector<int64_t> out_dims(static_cast<size_t>(rank));
    std::vector<int64_t> in_strides(static_cast<size_t>(rank), 1);
    for (int i = rank - 2; i >= 0; --i) {
      in_strides[static_cast<size_t>(i)] =
          in_strides[static_cast<size_t>(i) + 1] * dims[static_cast<size_t>(i) + 1];
    }
    // The input stride of each output dimension.
    std::vector<int64_t> src_strides(static_cast<size_t>(rank));
    for (int i = 0; i < rank; ++i) {
      const size_t p = static_cast<size_t>(perm[static_cast<size_t>(i)]);
      out_dims[static_cast<size_t>(i)] = dims[p];
      src_strides[static_cast<size_t>(i)] = in_strides[p];
    }
    auto y = ctx.AllocateOutput(0, out_dims);
    if (!ctx.ok()) return;
    const int64_t n = x.num_elements();
    if (n == 0) return;
    const T* in = x.template data<T>();
    T* out = y.template mutable_data<T>();
    ctx.ParallelFor(n, kCost, [&](int64_t begin, int64_t end) {
      for (int64_t e = begin; e < end; ++e) {
        int64_t src = 0, rest = e;
        for (int k = rank; k-- > 0;) {
          const int64_t d = out_dims[static_cast<size_t>(k)];
          src += (rest % d) * src_strides[static_cast<size_t>(k)];
          rest /= d;
        }
        out[e] = ConjIfComplex(in[src]);
      }
    });
  }
};

// ---- AddN over complex values ----

template <typename R>
class ComplexAddNOp {
 public:
  explicit ComplexAddNOp(Construction&) {}

  void Compute(Context& ctx) {
    const int n_inputs = ctx.num_inputs();
    const TensorView first = ctx.input(0);
    const std::vector<int64_t> dims = first.dims();
    for (int i = 1; i < n_inputs; ++i) {
      if (ctx.input(i).dims() != dims) {
        return ctx.Fail(TG_INVALID_ARGUMENT,
                        "inputs to AddN must all have the same shape, but input 0 has shape " +
                            ShapeString(dims) + " and input " + std::to_string(i) +
                            " has shape " + ShapeString(ctx.input(i).dims()));
      }
    }
    auto out = ctx.AllocateOutput(0, dims);
    if (!ctx.ok()) return;
    const int64_t n = first.num_elements();
    if (n == 0) return;
    std::vector<const std::complex<R>*> in;
    for (int i = 0; i < n_inputs; ++i) in.push_back(ctx.input(i).template data<std::complex<R>>());
    auto* y = out.template mutable_data<std::complex<R>>();
    ctx.ParallelFor(n, kCost * n_inputs, [&](int64_t begin, int64_t end) {
      for (int64_t e = begin; e < end; ++e) {
        std::complex<R> s = in[0][e];
        for (size_t i = 1; i < in.size(); ++i) s += in[i][e];
        y[e] = s;
      }
    });
  }
};

template <typename R>
void RegisterFor(tgraph::plugin::Init& init) {
  constexpr TG_DataType real = RealType<R>(), cplx = ComplexType<R>();
  init.Kernel<ComplexOp<R>>(
      KernelBuilder("Complex", "CPU").TypeConstraint("T", real).TypeConstraint("Tout", cplx));
  init.Kernel<ComplexToRealOp<RealF, R>>(
      KernelBuilder("Real", "CPU").TypeConstraint("T", cplx).TypeConstraint("Tout", real));
  init.Kernel<ComplexToRealOp<ImagF, R>>(
      KernelBuilder("Imag", "CPU").TypeConstraint("T", cplx).TypeConstraint("Tout", real));
  init.Kernel<ComplexToRealOp<AngleF, R>>(
      KernelBuilder("Angle", "CPU").TypeConstraint("T", cplx).TypeConstraint("Tout", real));
  init.Kernel<ComplexToRealOp<AbsF, R>>(
      KernelBuilder("ComplexAbs", "CPU").TypeConstraint("T", cplx).TypeConstraint("Tout", real));
  init.Kernel<ConjOp<R>>(KernelBuilder("Conj", "CPU").TypeConstraint("T", cplx));
  init.Kernel<ComplexAddNOp<R>>(KernelBuilder("AddN", "CPU").TypeConstraint("T", cplx));
  init.Kernel<ConjugateTransposeOp<std::complex<R>>>(KernelBuilder("ConjugateTranspose", "CPU")
                                                         .TypeConstraint("T", cplx)
                                                         .HostMemory("perm"));
}

template <typename T>
void RegisterTransposeBySize(tgraph::plugin::Init& init, std::initializer_list<TG_DataType> types) {
  init.Kernel<ConjugateTransposeOp<T>>(
      KernelBuilder("ConjugateTranspose", "CPU").TypeConstraint("T", types).HostMemory("perm"));
}

}  // namespace

void RegisterComplexKernels(tgraph::plugin::Init& init) {
  RegisterFor<float>(init);
  RegisterFor<double>(init);
  // Real dtypes: ConjugateTranspose is Transpose (TensorFlow registers it for every type).
  RegisterTransposeBySize<Bytes<1>>(init, {TG_BOOL, TG_INT8, TG_UINT8});
  RegisterTransposeBySize<Bytes<2>>(init, {TG_INT16, TG_UINT16, TG_HALF, TG_BFLOAT16});
  RegisterTransposeBySize<Bytes<4>>(init, {TG_FLOAT, TG_INT32, TG_UINT32});
  RegisterTransposeBySize<Bytes<8>>(init, {TG_DOUBLE, TG_INT64, TG_UINT64});
}

}  // namespace tgraph_cpu
