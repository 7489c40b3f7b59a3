// Cumsum and Cumprod along one axis, with TensorFlow's `exclusive` (each output leaves its own
// element out, so it starts at the identity) and `reverse` (scan from the end). The input is
// viewed as [outer, len, inner]; lanes (an outer index and a block of inner columns) are
// independent and run on the intra-op pool, each walking the axis once with a running value
// per column (contiguous reads for any axis).
#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "array_helper_kernels.h"
#include "array_kernel_util.h"
#include "nn_common.h"
#include "wrapping_math.h"

namespace tgraph_cpu {
namespace {

using namespace array_util;
using nn::DTypeOf;

// Integer scans wrap on overflow, as TensorFlow's do (wrapping_math.h).

struct SumOp {
  template <typename T>
  static T Identity() { return T(0); }
  template <typename T>
  static T Apply(T a, T b) { return WrapAdd(a, b); }
};
struct ProdOp {
  template <typename T>
  static T Identity() { return T(1); }
  template <typename T>
  static T Apply(T a, T b) { return WrapMul(a, b); }
};

template <typename T, typename Op>
class ScanOp {
 public:
  explicit ScanOp(Construction& c) {
    c.GetAttr("exclusive", &exclusive_);
    c.GetAttr("reverse", &reverse_);
  }

  void Compute(Context& ctx) {
    TensorView x = ctx.input(0);
    TensorView axis_t = ctx.input(1);
    if (axis_t.rank() != 0) {
      ctx.Fail(TG_INVALID_ARGUMENT,
               "ScanOp: axis must be a scalar, not " + ShapeString(axis_t.dims()));
      return;
    }
    const std::vector<int64_t> dims = x.dims();
    const auto rank = static_cast<int64_t>(dims.size());
    const int64_t a = IndexValues(axis_t)[0];
    if (a < -rank || a >= rank) {
      ctx.Fail(TG_INVALID_ARGUMENT, "ScanOp: Expected scan axis in the range [" +
                                        std::to_string(-rank) + ", " + std::to_string(rank) +
                                        "), but got " + std::to_string(a));
      return;
    }
    const auto axis = static_cast<size_t>(a < 0 ? a + rank : a);
    TensorMut out = ctx.AllocateOutput(0, dims);
    if (!ctx.ok() || x.num_elements() == 0) return;
    const int64_t outer = Product(dims, 0, axis);
    const int64_t len = dims[axis];
    const int64_t inner = Product(dims, axis + 1, dims.size());
    constexpr int64_t kBlock = 256;  // inner columns per lane: one running value each
    const int64_t blocks = (inner + kBlock - 1) / kBlock;
    const T* in = x.data<T>();
    T* o = out.mutable_data<T>();
    const bool exclusive = exclusive_, reverse = reverse_;
    ctx.ParallelFor(outer * blocks, static_cast<double>(len * std::min(inner, kBlock)),
                    [&](int64_t b, int64_t e) {
      T acc[kBlock];
      for (int64_t lane = b; lane < e; ++lane) {
        const int64_t oi = lane / blocks;
        const int64_t c0 = (lane % blocks) * kBlock;
        const int64_t width = std::min(kBlock, inner - c0);
        std::fill(acc, acc + width, Op::template Identity<T>());
        for (int64_t step = 0; step < len; ++step) {
          const int64_t k = reverse ? len - 1 - step : step;
          const int64_t base = (oi * len + k) * inner + c0;
          for (int64_t c = 0; c < width; ++c) {
            const T v = in[base + c];
            if (exclusive) {
              o[base + c] = acc[c];
              acc[c] = Op::Apply(acc[c], v);
            } else {
              acc[c] = Op::Apply(acc[c], v);
              o[base + c] = acc[c];
            }
          }
        }
      }
    });
  }

 private:
  bool exclusive_ = false, reverse_ = false;
};

template <typename T>
void RegisterFor(tgraph::plugin::Init& init) {
  using tgraph::plugin::KernelBuilder;
  init.Kernel<ScanOp<T, SumOp>>(KernelBuilder("Cumsum", "CPU")
                                    .TypeConstraint("T", DTypeOf<T>::value)
                                    .TypeConstraint("Tidx", TG_ARRAY_INDEX_TYPES)
                                    .HostMemory("axis"));
  init.Kernel<ScanOp<T, ProdOp>>(KernelBuilder("Cumprod", "CPU")
                                     .TypeConstraint("T", DTypeOf<T>::value)
                                     .TypeConstraint("Tidx", TG_ARRAY_INDEX_TYPES)
                                     .HostMemory("axis"));
}

}  // namespace

void RegisterArrayHelperScanKernels(tgraph::plugin::Init& init) {
  RegisterFor<float>(init);
  RegisterFor<double>(init);
  RegisterFor<int32_t>(init);
  RegisterFor<int64_t>(init);
}

}  // namespace tgraph_cpu
