// MatMul: one Eigen Tensor contraction on the intra-op pool, straight over the input and
// output buffers (the transposes are folded into the contraction's index pair, nothing is
// copied). half and bfloat16 are widened to float for the product and narrowed back.
//
// This file is also the one place Eigen's contraction is instantiated (Contract /
// ContractSingleThread in nn_common.h): BatchMatMulV2 and Conv2D call it from here, so the
// slow-to-compile template is built once per dtype. RegisterNnKernels lives here too.
#include <algorithm>
#include <cstring>
#include <type_traits>

#include "cpu_kernels.h"
#include "eigen_device.h"
#include "nn_common.h"

namespace tgraph_cpu {
namespace nn {
namespace {

template <typename T, typename Device>
void ContractOn(const Device& device, const T* a, int64_t a_rows, int64_t a_cols, bool trans_a,
                const T* b, int64_t b_rows, int64_t b_cols, bool trans_b, T* out) {
  if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
    // Integer products wrap on overflow, as TensorFlow's do; signed overflow is undefined in
    // C++ (wrapping_math.h), so the product is taken over the same bits as unsigned.
    using U = std::make_unsigned_t<T>;
    ContractOn(device, reinterpret_cast<const U*>(a), a_rows, a_cols, trans_a,
               reinterpret_cast<const U*>(b), b_rows, b_cols, trans_b, reinterpret_cast<U*>(out));
  } else {
    using Index = Eigen::Index;
    using ConstMatrix = Eigen::TensorMap<Eigen::Tensor<const T, 2, Eigen::RowMajor, Index>>;
    using Matrix = Eigen::TensorMap<Eigen::Tensor<T, 2, Eigen::RowMajor, Index>>;
    const ConstMatrix ma(a, a_rows, a_cols);
    const ConstMatrix mb(b, b_rows, b_cols);
    Matrix mo(out, trans_a ? a_cols : a_rows, trans_b ? b_rows : b_cols);
    const Eigen::array<Eigen::IndexPair<Eigen::Index>, 1> dims = {
        Eigen::IndexPair<Eigen::Index>(trans_a ? 0 : 1, trans_b ? 1 : 0)};
    mo.device(device) = ma.contract(mb, dims);
  }
}

}  // namespace

template <typename T>
void Contract(const Eigen::ThreadPoolDevice& device, const T* a, int64_t a_rows, int64_t a_cols,
              bool trans_a, const T* b, int64_t b_rows, int64_t b_cols, bool trans_b, T* out) {
  ContractOn(device, a, a_rows, a_cols, trans_a, b, b_rows, b_cols, trans_b, out);
}

// A one-thread ThreadPoolDevice (tasks run inline) makes Eigen take its sequential path with
// the same instantiation as Contract: no second copy of the contraction code.
template <typename T>
void ContractSingleThread(const T* a, int64_t a_rows, int64_t a_cols, bool trans_a, const T* b,
                          int64_t b_rows, int64_t b_cols, bool trans_b, T* out) {
  EigenThreadPoolAdaptor inline_pool(nullptr);
  const Eigen::ThreadPoolDevice device(&inline_pool, 1);
  ContractOn(device, a, a_rows, a_cols, trans_a, b, b_rows, b_cols, trans_b, out);
}

template void Contract<float>(const Eigen::ThreadPoolDevice&, const float*, int64_t, int64_t, bool,
                              const float*, int64_t, int64_t, bool, float*);
template void Contract<double>(const Eigen::ThreadPoolDevice&, const double*, int64_t, int64_t,
                               bool, const double*, int64_t, int64_t, bool, double*);
template void Contract<int32_t>(const Eigen::ThreadPoolDevice&, const int32_t*, int64_t, int64_t,
                                bool, const int32_t*, int64_t, int64_t, bool, int32_t*);
template void ContractSingleThread<float>(const float*, int64_t, int64_t, bool, const float*,
                                          int64_t, int64_t, bool, float*);
template void ContractSingleThread<double>(const double*, int64_t, int64_t, bool, const double*,
                                           int64_t, int64_t, bool, double*);

using tgraph::plugin::Construction;
using tgraph::plugin::Context;
using tgraph::plugin::TensorMut;

// The product of inputs 0 and 1 into output 0 (MatMul's kernel, and _FusedMatMul's before
// its epilogue). On failure the context holds the error and the result is invalid.
template <typename T>
TensorMut MatMulToOutput(Context& ctx, bool trans_a, bool trans_b) {
  const auto a = ctx.input(0);
  const auto b = ctx.input(1);
  if (a.rank() != 2 || b.rank() != 2) {
    ctx.Fail(TG_INVALID_ARGUMENT, "MatMul needs 2-D inputs, got shapes " + ShapeString(a.dims()) +
                                      " and " + ShapeString(b.dims()));
    return TensorMut();
  }
  const int64_t a_rows = a.dim(0), a_cols = a.dim(1), b_rows = b.dim(0), b_cols = b.dim(1);
  const int64_t m = trans_a ? a_cols : a_rows;
  const int64_t k = trans_a ? a_rows : a_cols;
  const int64_t k_b = trans_b ? b_cols : b_rows;
  const int64_t n = trans_b ? b_rows : b_cols;
  if (k != k_b) {
    ctx.Fail(TG_INVALID_ARGUMENT, "Matrix size-incompatible: In[0]: " + ShapeString(a.dims()) +
                                      ", In[1]: " + ShapeString(b.dims()) +
                                      " (transpose_a=" + (trans_a ? "true" : "false") +
                                      ", transpose_b=" + (trans_b ? "true" : "false") + ")");
    return TensorMut();
  }
  auto out = ctx.AllocateOutput(0, {m, n});
  if (!ctx.ok() || m == 0 || n == 0) return out;
  T* o = out.template mutable_data<T>();
  if (k == 0) {
    std::fill(o, o + m * n, T(0));
    return out;
  }
  const T* pa = a.template data<T>();
  const T* pb = b.template data<T>();
  if constexpr (kIsReducedFloat<T>) {
    // Widen to float, multiply there (exact products, float accumulation), narrow back.
    auto fa = ctx.AllocateTemp(TG_FLOAT, {a_rows, a_cols});
    auto fb = ctx.AllocateTemp(TG_FLOAT, {b_rows, b_cols});
    auto fo = ctx.AllocateTemp(TG_FLOAT, {m, n});
    if (!ctx.ok()) return out;
    ConvertParallel(ctx, pa, fa.template mutable_data<float>(), a_rows * a_cols);
    ConvertParallel(ctx, pb, fb.template mutable_data<float>(), b_rows * b_cols);
    EigenCpu eigen(ctx);
    Contract<float>(eigen.device(), fa.template mutable_data<float>(), a_rows, a_cols, trans_a,
                    fb.template mutable_data<float>(), b_rows, b_cols, trans_b,
                    fo.template mutable_data<float>());
    ConvertParallel(ctx, fo.template mutable_data<float>(), o, m * n);
  } else {
    EigenCpu eigen(ctx);
    Contract<T>(eigen.device(), pa, a_rows, a_cols, trans_a, pb, b_rows, b_cols, trans_b, o);
  }
  return out;
}

template TensorMut MatMulToOutput<float>(Context&, bool, bool);
template TensorMut MatMulToOutput<double>(Context&, bool, bool);
template TensorMut MatMulToOutput<Eigen::half>(Context&, bool, bool);
template TensorMut MatMulToOutput<Eigen::bfloat16>(Context&, bool, bool);
template TensorMut MatMulToOutput<int32_t>(Context&, bool, bool);

namespace {

template <typename T>
class MatMulOp {
 public:
  explicit MatMulOp(Construction& c) {
    if (!c.GetAttr("transpose_a", &trans_a_)) return;
    c.GetAttr("transpose_b", &trans_b_);
  }

  void Compute(Context& ctx) { MatMulToOutput<T>(ctx, trans_a_, trans_b_); }

 private:
  bool trans_a_ = false;
  bool trans_b_ = false;
};

template <typename T>
void RegisterMatMulFor(tgraph::plugin::Init& init) {
  init.Kernel<MatMulOp<T>>(
      tgraph::plugin::KernelBuilder("MatMul", "CPU").TypeConstraint("T", DTypeOf<T>::value));
}

}  // namespace

void RegisterMatMul(tgraph::plugin::Init& init) {
  RegisterMatMulFor<float>(init);
  RegisterMatMulFor<double>(init);
  RegisterMatMulFor<Eigen::half>(init);
  RegisterMatMulFor<Eigen::bfloat16>(init);
  RegisterMatMulFor<int32_t>(init);
}

}  // namespace nn

void RegisterNnKernels(tgraph::plugin::Init& init) {
  for (auto* family :
       {&nn::RegisterMatMul, &nn::RegisterBatchMatMul, &nn::RegisterBiasAdd, &nn::RegisterConv2D,
        &nn::RegisterPooling, &nn::RegisterSoftmax, &nn::RegisterXent, &nn::RegisterL2Loss,
        &nn::RegisterFusedContractions, &nn::RegisterChannelAffine}) {
    if (!init.ok()) return;
    family(init);
  }
}

}  // namespace tgraph_cpu
