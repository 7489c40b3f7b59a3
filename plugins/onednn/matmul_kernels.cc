// MatMul and BatchMatMulV2 (fp32) on oneDNN's matmul primitive.
//
// The transposes never copy anything: a transposed operand is described to oneDNN by its
// strides (a [K, M] buffer read as the [M, K] matrix with strides {1, M}). BatchMatMulV2's
// NumPy broadcasting of the batch dimensions is oneDNN's own (a batch dimension of 1 on
// either side); a case its matmul declines (more dimensions than oneDNN has, a broadcast it
// does not take) runs as one 2-D product per output matrix instead, so every shape the Eigen
// kernel accepts works here too. Checks and messages are the Eigen kernels'.
#include <algorithm>
#include <string>
#include <vector>

#include "dnnl_context.h"
#include "nn_common.h"

namespace tgraph_onednn {
namespace {

using dnnl::memory;
using tgraph::plugin::Construction;
using tgraph::plugin::Context;
using tgraph_cpu::nn::ShapeString;

// One matmul primitive and the descriptors to wrap buffers with.
struct MatMulEntry {
  dnnl::matmul primitive;
  memory::desc src, weights, dst, scratchpad;
};

// The [.., rows, cols] operand stored contiguously as `stored` dims, read as [.., r, c]
// logical dims (transposed when `transpose`), with batch dims `batch` (1 where broadcast).
memory::desc OperandDesc(const std::vector<int64_t>& batch, int64_t stored_rows,
                         int64_t stored_cols, bool transpose) {
  const size_t rank = batch.size() + 2;
  memory::dims dims(rank), strides(rank);
  int64_t stride = stored_rows * stored_cols;
  for (size_t d = batch.size(); d-- > 0;) {
    dims[d] = batch[d];
    strides[d] = stride;
    stride *= batch[d];
  }
  dims[rank - 2] = transpose ? stored_cols : stored_rows;
  dims[rank - 1] = transpose ? stored_rows : stored_cols;
  strides[rank - 2] = transpose ? 1 : stored_cols;
  strides[rank - 1] = transpose ? stored_cols : 1;
  return memory::desc(dims, memory::data_type::f32, strides);
}

MatMulEntry MakeMatMul(const memory::desc& src, const memory::desc& weights,
                       const memory::desc& dst) {
  const dnnl::matmul::desc desc(src, weights, dst);
  const dnnl::matmul::primitive_desc pd(desc, UserScratchpadAttr(), CpuEngine());
  return MatMulEntry{dnnl::matmul(pd), src, weights, dst, pd.scratchpad_desc()};
}

bool RunMatMul(Context& ctx, const MatMulEntry& e, const float* a, const float* b, float* out,
               int threads) {
  return Execute(ctx, e.primitive, e.scratchpad,
                 {{DNNL_ARG_SRC, Wrap(e.src, a)},
                  {DNNL_ARG_WEIGHTS, Wrap(e.weights, b)},
                  {DNNL_ARG_DST, Wrap(e.dst, out)}},
                 threads);
}

class MatMulOp {
 public:
  explicit MatMulOp(Construction& c) {
    if (!c.GetAttr("transpose_a", &trans_a_)) return;
    c.GetAttr("transpose_b", &trans_b_);
  }

  void Compute(Context& ctx) {
    const auto a = ctx.input(0);
    const auto b = ctx.input(1);
    if (a.rank() != 2 || b.rank() != 2) {
      ctx.Fail(TG_INVALID_ARGUMENT, "MatMul needs 2-D inputs, got shapes " + ShapeString(a.dims()) +
                                        " and " + ShapeString(b.dims()));
      return;
    }
    const int64_t a_rows = a.dim(0), a_cols = a.dim(1), b_rows = b.dim(0), b_cols = b.dim(1);
    const int64_t m = trans_a_ ? a_cols : a_rows;
    const int64_t k = trans_a_ ? a_rows : a_cols;
    const int64_t k_b = trans_b_ ? b_cols : b_rows;
    const int64_t n = trans_b_ ? b_rows : b_cols;
    if (k != k_b) {
      ctx.Fail(TG_INVALID_ARGUMENT, "Matrix size-incompatible: In[0]: " + ShapeString(a.dims()) +
                                        ", In[1]: " + ShapeString(b.dims()) +
                                        " (transpose_a=" + (trans_a_ ? "true" : "false") +
                                        ", transpose_b=" + (trans_b_ ? "true" : "false") + ")");
      return;
    }
    auto out = ctx.AllocateOutput(0, {m, n});
    if (!ctx.ok() || m == 0 || n == 0) return;
    float* o = out.mutable_data<float>();
    if (k == 0) {
      std::fill(o, o + m * n, 0.0f);
      return;
    }
    const int threads = ThreadsFor(ctx, static_cast<double>(m) * static_cast<double>(n) *
                                            static_cast<double>(k));
    std::shared_ptr<const MatMulEntry> entry;
    try {
      entry = cache_.Get({m, k, n, threads}, [&] {
        ThreadScope scope(threads);
        return MakeMatMul(OperandDesc({}, a_rows, a_cols, trans_a_),
                          OperandDesc({}, b_rows, b_cols, trans_b_), OperandDesc({}, m, n, false));
      });
    } catch (const dnnl::error& e) {
      FailWith(ctx, "matmul creation", e);
      return;
    }
    RunMatMul(ctx, *entry, a.data<float>(), b.data<float>(), o, threads);
  }

 private:
  bool trans_a_ = false;
  bool trans_b_ = false;
  PrimitiveCache<MatMulEntry> cache_;
};

// BatchMatMulV2's primitive: oneDNN's batched matmul, or (`per_matrix`) one 2-D product
// run once per output matrix, when oneDNN declines the batched form.
struct BatchEntry {
  bool per_matrix = false;
  int threads = 1;  // per call: the per-matrix products are sized by one matrix's work
  MatMulEntry matmul;
};

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
    if (xd.size() < 2 || yd.size() < 2) {
      ctx.Fail(TG_INVALID_ARGUMENT, "BatchMatMulV2 needs inputs of rank >= 2, got shapes " +
                                        ShapeString(xd) + " and " + ShapeString(yd));
      return;
    }
    const size_t rx = xd.size(), ry = yd.size();
    const int64_t x_rows = xd[rx - 2], x_cols = xd[rx - 1];
    const int64_t y_rows = yd[ry - 2], y_cols = yd[ry - 1];
    const int64_t m = adj_x_ ? x_cols : x_rows;
    const int64_t k = adj_x_ ? x_rows : x_cols;
    const int64_t k_y = adj_y_ ? y_cols : y_rows;
    const int64_t n = adj_y_ ? y_rows : y_cols;
    if (k != k_y) {
      ctx.Fail(TG_INVALID_ARGUMENT, "Matrix size-incompatible: In[0]: " + ShapeString(xd) +
                                        ", In[1]: " + ShapeString(yd) +
                                        " (adj_x=" + (adj_x_ ? "true" : "false") +
                                        ", adj_y=" + (adj_y_ ? "true" : "false") + ")");
      return;
    }
    // Broadcast the batch dims, aligned from the right.
    const size_t bx = rx - 2, by = ry - 2, rank = std::max(bx, by);
    std::vector<int64_t> out_batch(rank), x_batch(rank, 1), y_batch(rank, 1);
    for (size_t i = 0; i < bx; ++i) x_batch[rank - bx + i] = xd[i];
    for (size_t i = 0; i < by; ++i) y_batch[rank - by + i] = yd[i];
    for (size_t i = 0; i < rank; ++i) {
      const int64_t p = x_batch[i], q = y_batch[i];
      if (p != q && p != 1 && q != 1) {
        ctx.Fail(TG_INVALID_ARGUMENT, "batch dimensions of " + ShapeString(xd) + " and " +
                                          ShapeString(yd) + " do not broadcast");
        return;
      }
      out_batch[i] = p == 1 ? q : p;
    }
    int64_t batches = 1;
    for (int64_t d : out_batch) batches *= d;
    std::vector<int64_t> out_dims = out_batch;
    out_dims.push_back(m);
    out_dims.push_back(n);
    auto out = ctx.AllocateOutput(0, out_dims);
    if (!ctx.ok() || batches == 0 || m == 0 || n == 0) return;
    float* o = out.mutable_data<float>();
    if (k == 0) {
      std::fill(o, o + batches * m * n, 0.0f);
      return;
    }
    const int threads =
        ThreadsFor(ctx, static_cast<double>(batches) * static_cast<double>(m) *
                            static_cast<double>(n) * static_cast<double>(k));
    // The key: the thread count, then both operands' dims (they fix the output's).
    std::vector<int64_t> key = {threads, static_cast<int64_t>(rx)};
    key.insert(key.end(), xd.begin(), xd.end());
    key.insert(key.end(), yd.begin(), yd.end());
    std::shared_ptr<const BatchEntry> entry;
    try {
      entry = cache_.Get(key, [&] {
        BatchEntry e;
        if (rank + 2 <= DNNL_MAX_NDIMS) {
          try {
            ThreadScope scope(threads);
            e.threads = threads;
            e.matmul = MakeMatMul(OperandDesc(x_batch, x_rows, x_cols, adj_x_),
                                  OperandDesc(y_batch, y_rows, y_cols, adj_y_),
                                  OperandDesc(out_batch, m, n, false));
            return e;
          } catch (const dnnl::error&) {
            // Declined: one 2-D product per output matrix below.
          }
        }
        e.per_matrix = true;
        e.threads = ThreadsFor(ctx, static_cast<double>(m) * static_cast<double>(n) *
                                        static_cast<double>(k));
        ThreadScope scope(e.threads);
        e.matmul = MakeMatMul(OperandDesc({}, x_rows, x_cols, adj_x_),
                              OperandDesc({}, y_rows, y_cols, adj_y_), OperandDesc({}, m, n, false));
        return e;
      });
    } catch (const dnnl::error& e) {
      FailWith(ctx, "matmul creation", e);
      return;
    }
    const float* px = x.data<float>();
    const float* py = y.data<float>();
    if (!entry->per_matrix) {
      RunMatMul(ctx, entry->matmul, px, py, o, entry->threads);
      return;
    }
    // Walk the output's batch index, tracking each operand's matrix (0 where broadcast).
    std::vector<int64_t> idx(rank, 0);
    const int64_t x_size = x_rows * x_cols, y_size = y_rows * y_cols, o_size = m * n;
    for (int64_t b = 0; b < batches; ++b) {
      int64_t xi = 0, yi = 0;
      for (size_t d = 0; d < rank; ++d) {
        xi = xi * x_batch[d] + (x_batch[d] == 1 ? 0 : idx[d]);
        yi = yi * y_batch[d] + (y_batch[d] == 1 ? 0 : idx[d]);
      }
      if (!RunMatMul(ctx, entry->matmul, px + xi * x_size, py + yi * y_size, o + b * o_size,
                     entry->threads)) {
        return;
      }
      for (size_t d = rank; d-- > 0;) {
        if (++idx[d] < out_batch[d]) break;
        idx[d] = 0;
      }
    }
  }

 private:
  bool adj_x_ = false;
  bool adj_y_ = false;
  PrimitiveCache<BatchEntry> cache_;
};

}  // namespace

void RegisterMatMulKernels(tgraph::plugin::Init& init) {
  init.Kernel<MatMulOp>(tgraph::plugin::KernelBuilder("MatMul", "CPU")
                            .TypeConstraint("T", TG_FLOAT)
                            .Priority(kOneDnnPriority));
  init.Kernel<BatchMatMulOp>(tgraph::plugin::KernelBuilder("BatchMatMulV2", "CPU")
                                 .TypeConstraint("T", TG_FLOAT)
                                 .Priority(kOneDnnPriority));
}

}  // namespace tgraph_onednn
