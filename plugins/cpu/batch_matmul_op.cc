// BatchMatMulV2: a matrix product per batch element, with NumPy broadcasting of the leading
// (batch) dimensions and adjoint flags (a plain transpose for the real types registered here).
// Large products each use the whole pool; many small ones run side by side, one per thread.
// half and bfloat16 are widened to float for the products and narrowed back.
#include <algorithm>
#include <vector>

#include "eigen_device.h"
#include "batch_matmul_shape.h"
#include "nn_common.h"

namespace tgraph_cpu::nn {
namespace {

using tgraph::plugin::Construction;
using tgraph::plugin::Context;

// Below this many multiply-adds per product, running products side by side beats
// splitting each one across the pool.
constexpr int64_t kSmallProduct = 64 * 64 * 64;

template <typename T>
class BatchMatMulOp {
 public:
  explicit BatchMatMulOp(Construction& c) {
    if (!c.GetAttr("adj_x", &adj_x_)) return;
    c.GetAttr("adj_y", &adj_y_);
  }

  void Compute(Context& ctx) {
    const auto x = ctx.input(0);
    const auto y = ctx.input(1);
    const std::vector<int64_t> xd = x.dims(), yd = y.dims();
    BatchMatMulShape shape;
    if (!GetBatchMatMulShape(ctx, xd, yd, adj_x_, adj_y_, &shape)) return;
    const int64_t m = shape.m, k = shape.k, n = shape.n, batches = shape.batches;
    const int64_t x_rows = shape.x_rows, x_cols = shape.x_cols;
    const int64_t y_rows = shape.y_rows, y_cols = shape.y_cols;
    const std::vector<int64_t>& x_batch = shape.x_batch;
    const std::vector<int64_t>& y_batch = shape.y_batch;
    const size_t rank = shape.out_batch.size();
    std::vector<int64_t> out_dims = shape.out_batch;
    out_dims.push_back(m);
    out_dims.push_back(n);
    auto out = ctx.AllocateOutput(0, out_dims);
    if (!ctx.ok() || batches == 0 || m == 0 || n == 0) return;
    T* o = out.template mutable_data<T>();
    if (k == 0) {
      std::fill(o, o + batches * m * n, T(0));
      return;
    }

    // Offsets (in matrices) of each output batch element's x and y.
    std::vector<int64_t> x_index(static_cast<size_t>(batches)), y_index(x_index.size());
    {
      std::vector<int64_t> idx(rank, 0);
      for (int64_t b = 0; b < batches; ++b) {
        int64_t xi = 0, yi = 0;
        for (size_t d = 0; d < rank; ++d) {
          xi = xi * x_batch[d] + (x_batch[d] == 1 ? 0 : idx[d]);
          yi = yi * y_batch[d] + (y_batch[d] == 1 ? 0 : idx[d]);
        }
        x_index[static_cast<size_t>(b)] = xi;
        y_index[static_cast<size_t>(b)] = yi;
        for (size_t d = rank; d-- > 0;) {
          if (++idx[d] < out_dims[d]) break;
          idx[d] = 0;
        }
      }
    }

    if constexpr (kIsReducedFloat<T>) {
      auto fx = ctx.AllocateTemp(TG_FLOAT, {x.num_elements()});
      auto fy = ctx.AllocateTemp(TG_FLOAT, {y.num_elements()});
      auto fo = ctx.AllocateTemp(TG_FLOAT, {batches * m * n});
      if (!ctx.ok()) return;
      ConvertParallel(ctx, x.template data<T>(), fx.template mutable_data<float>(),
                      x.num_elements());
      ConvertParallel(ctx, y.template data<T>(), fy.template mutable_data<float>(),
                      y.num_elements());
      Run<float>(ctx, fx.template mutable_data<float>(), x_rows, x_cols,
                 fy.template mutable_data<float>(), y_rows, y_cols, x_index, y_index, m, n, k,
                 fo.template mutable_data<float>());
      ConvertParallel(ctx, fo.template mutable_data<float>(), o, batches * m * n);
    } else {
      Run<T>(ctx, x.template data<T>(), x_rows, x_cols, y.template data<T>(), y_rows, y_cols,
             x_index, y_index, m, n, k, o);
    }
  }

 private:
  template <typename U>
  void Run(Context& ctx, const U* px, int64_t x_rows, int64_t x_cols, const U* py, int64_t y_rows,
           int64_t y_cols, const std::vector<int64_t>& x_index, const std::vector<int64_t>& y_index,
           int64_t m, int64_t n, int64_t k, U* po) const {
    const int64_t batches = static_cast<int64_t>(x_index.size());
    const int64_t x_size = x_rows * x_cols, y_size = y_rows * y_cols, o_size = m * n;
    EigenCpu eigen(ctx);
    const int64_t work = m * n * k;
    if (batches == 1 || work >= kSmallProduct || !eigen.parallel()) {
      for (int64_t b = 0; b < batches; ++b) {
        const size_t i = static_cast<size_t>(b);
        Contract<U>(eigen.device(), px + x_index[i] * x_size, x_rows, x_cols, adj_x_,
                    py + y_index[i] * y_size, y_rows, y_cols, adj_y_, po + b * o_size);
      }
      return;
    }
    ctx.ParallelFor(batches, static_cast<double>(work), [&](int64_t begin, int64_t end) {
      for (int64_t b = begin; b < end; ++b) {
        const size_t i = static_cast<size_t>(b);
        ContractSingleThread<U>(px + x_index[i] * x_size, x_rows, x_cols, adj_x_,
                                py + y_index[i] * y_size, y_rows, y_cols, adj_y_, po + b * o_size);
      }
    });
  }

  bool adj_x_ = false;
  bool adj_y_ = false;
};

template <typename T>
void RegisterFor(tgraph::plugin::Init& init) {
  init.Kernel<BatchMatMulOp<T>>(
      tgraph::plugin::KernelBuilder("BatchMatMulV2", "CPU").TypeConstraint("T", DTypeOf<T>::value));
  // BatchMatMul (v1) is V2 without broadcasting (its shape function requires equal batch
  // dimensions); V3 is V2 with the operand and result types apart, run here when they agree.
  init.Kernel<BatchMatMulOp<T>>(
      tgraph::plugin::KernelBuilder("BatchMatMul", "CPU").TypeConstraint("T", DTypeOf<T>::value));
  init.Kernel<BatchMatMulOp<T>>(tgraph::plugin::KernelBuilder("BatchMatMulV3", "CPU")
                                    .TypeConstraint("Ta", DTypeOf<T>::value)
                                    .TypeConstraint("Tb", DTypeOf<T>::value)
                                    .TypeConstraint("Tout", DTypeOf<T>::value));
}

}  // namespace

void RegisterBatchMatMul(tgraph::plugin::Init& init) {
  RegisterFor<float>(init);
  RegisterFor<double>(init);
  RegisterFor<Eigen::half>(init);
  RegisterFor<Eigen::bfloat16>(init);
}

}  // namespace tgraph_cpu::nn
