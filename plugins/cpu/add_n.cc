// AddN (and AccumulateNV2): the element-wise sum of N >= 1 tensors of one shape (no
// broadcasting, as in TF).
#include <type_traits>

#include "cpu_kernels.h"
#include "cwise_ops_common.h"
#include "wrapping_math.h"

namespace tgraph_cpu {
namespace {

template <typename T>
class AddNKernel {
 public:
  explicit AddNKernel(Construction&) {}
  void Compute(Context& ctx) {
    const int n_inputs = ctx.num_inputs();
    if (n_inputs < 1) return ctx.Fail(TG_INVALID_ARGUMENT, "AddN needs at least one input");
    const TensorView first = ctx.input(0);
    const std::vector<int64_t> dims = first.dims();
    std::vector<const T*> in(static_cast<size_t>(n_inputs));
    for (int i = 0; i < n_inputs; ++i) {
      const TensorView t = ctx.input(i);
      if (t.dims() != dims) {
        return ctx.Fail(TG_INVALID_ARGUMENT,
                        "inputs to AddN must all have the same shape, but input 0 has shape " +
                            ShapeString(dims) + " and input " + std::to_string(i) +
                            " has shape " + ShapeString(t.dims()));
      }
      in[static_cast<size_t>(i)] = t.data<T>();
    }
    if (n_inputs == 1) {
      ctx.SetOutputAlias(0, first, dims);
      return;
    }
    TensorMut out = ctx.ForwardOrAllocateOutput(0, 0, dims);
    if (!ctx.ok() || !out.valid()) return;
    const int64_t n = first.num_elements();
    if (n == 0) return;
    T* o = out.mutable_data<T>();
    // Per chunk: out = in0 + in1, then out += in_k. In place over input 0 is fine: each
    // element reads only its own index.
    ctx.ParallelFor(n, CostNs(static_cast<double>(n_inputs)), [&](int64_t begin, int64_t end) {
      if constexpr (std::is_integral_v<T>) {
        // Integers wrap on overflow, as TensorFlow's do (wrapping_math.h).
        for (int64_t i = begin; i < end; ++i) {
          T sum = in[0][i];
          for (size_t k = 1; k < in.size(); ++k) sum = WrapAdd(sum, in[k][i]);
          o[i] = sum;
        }
      } else {
        const Eigen::Index len = end - begin;
        Vec<T> dst(o + begin, len);
        dst = ConstVec<T>(in[0] + begin, len) + ConstVec<T>(in[1] + begin, len);
        for (size_t k = 2; k < in.size(); ++k) dst = dst + ConstVec<T>(in[k] + begin, len);
      }
    });
  }
};

}  // namespace

void RegisterAddNKernel(Init& init) {
  RegisterTyped<AddNKernel, float, double, int32_t, int64_t, half, bfloat16>(init, "AddN", 1);
  // tf.math.accumulate_n's op: AddN with a `shape` attr (TensorFlow rewrites it into
  // in-place additions; the sum is the same).
  RegisterTyped<AddNKernel, float, double, int32_t, int64_t, half, bfloat16>(init,
                                                                             "AccumulateNV2", 1);
}

}  // namespace tgraph_cpu
