// Bincount and DenseBincount on the CPU (Keras's CategoryEncoding layer, tf.math.bincount):
// bins[v] counts the values v in [0, size) (or sums their weights, when weights has the
// values' shape; an empty weights counts 1 each), per row for DenseBincount of a matrix;
// values >= size are left out, negative ones fail the node (TensorFlow's message); with
// binary_output a bin is 1 where its value occurs. Rows run in parallel; one vector runs on
// the calling thread (the counts would race).
#include <algorithm>
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

// kDense: DenseBincount (a vector or a matrix of values); else Bincount (any shape, flattened).
template <typename Idx, typename T, bool kDense>
class BincountOp {
 public:
  explicit BincountOp(Construction& c) {
    if (c.HasAttr("binary_output")) c.GetAttr("binary_output", &binary_);
  }

  void Compute(Context& ctx) {
    const TensorView values = ctx.input(0), size_t_ = ctx.input(1), weights = ctx.input(2);
    if (size_t_.rank() != 0) {
      ctx.Fail(TG_INVALID_ARGUMENT, "size must be a scalar, got shape " + ShapeString(size_t_.dims()));
      return;
    }
    const int64_t size = static_cast<int64_t>(size_t_.data<Idx>()[0]);
    if (size < 0) {
      ctx.Fail(TG_INVALID_ARGUMENT, "size (" + std::to_string(size) + ") must be non-negative");
      return;
    }
    const bool dense = kDense && values.rank() == 2;
    if (kDense && values.rank() != 1 && values.rank() != 2) {
      ctx.Fail(TG_INVALID_ARGUMENT, "input must be 1-D or 2-D, got shape " + ShapeString(values.dims()));
      return;
    }
    const bool weighted = weights.num_elements() > 0;
    if (weighted && weights.dims() != values.dims()) {
      ctx.Fail(TG_INVALID_ARGUMENT, "weights must be empty or have the input's shape " +
                                        ShapeString(values.dims()) + ", got " + ShapeString(weights.dims()));
      return;
    }
    const int64_t rows = dense ? values.dim(0) : 1;
    const int64_t per_row = dense ? values.dim(1) : values.num_elements();
    TensorMut out = dense ? ctx.AllocateOutput(0, {rows, size}) : ctx.AllocateOutput(0, {size});
    if (!ctx.ok()) return;
    T* o = out.mutable_data<T>();
    std::fill(o, o + rows * size, T(0));
    const Idx* v = values.data<Idx>();
    const T* w = weighted ? weights.data<T>() : nullptr;
    for (int64_t i = 0; i < values.num_elements(); ++i) {
      if (v[i] < 0) {
        ctx.Fail(TG_INVALID_ARGUMENT, "Input arr must be non-negative!");
        return;
      }
    }
    auto count_rows = [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        T* bins = o + r * size;
        for (int64_t i = r * per_row; i < (r + 1) * per_row; ++i) {
          const int64_t at = static_cast<int64_t>(v[i]);
          if (at >= size) continue;
          if (binary_) {
            bins[at] = T(1);
          } else {
            bins[at] += w != nullptr ? w[i] : T(1);
          }
        }
      }
    };
    if (rows > 1) {
      ctx.ParallelFor(rows, 2.0 * static_cast<double>(per_row), [&](int64_t b, int64_t e) { count_rows(b, e); });
    } else {
      count_rows(0, rows);
    }
  }

 private:
  bool binary_ = false;
};

template <typename T>
void RegisterFor(tgraph::plugin::Init& init, TG_DataType t) {
  init.Kernel<BincountOp<int32_t, T, false>>(KernelBuilder("Bincount", "CPU").TypeConstraint("T", t));
  init.Kernel<BincountOp<int32_t, T, true>>(
      KernelBuilder("DenseBincount", "CPU").TypeConstraint("T", t).TypeConstraint("Tidx", TG_INT32));
  init.Kernel<BincountOp<int64_t, T, true>>(
      KernelBuilder("DenseBincount", "CPU").TypeConstraint("T", t).TypeConstraint("Tidx", TG_INT64));
}

}  // namespace

void RegisterBincountKernels(tgraph::plugin::Init& init) {
  RegisterFor<int32_t>(init, TG_INT32);
  RegisterFor<int64_t>(init, TG_INT64);
  RegisterFor<float>(init, TG_FLOAT);
  RegisterFor<double>(init, TG_DOUBLE);
}

}  // namespace tgraph_cpu
