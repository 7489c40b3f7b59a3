// OneHot: output[..., d, ...] = (indices[...] == d) ? on_value : off_value, the new dimension
// of size depth at `axis` (-1: last). Indices outside [0, depth) give an all-off row (as in
// TF). Values are copied by element size (any plain dtype).
#include <cstring>
#include <string>
#include <vector>

#include "array_kernel_util.h"
#include "array_kernels.h"

namespace tgraph_cpu {
namespace {

using namespace array_util;

class OneHotOp {
 public:
  explicit OneHotOp(Construction& c) { c.GetAttr("axis", &axis_); }
  void Compute(Context& ctx) {
    TensorView indices = ctx.input(0);
    int64_t depth = 0;
    if (!ReadIndexScalar(ctx, 1, "depth", &depth)) return;
    TensorView on = ctx.input(2), off = ctx.input(3);
    if (on.rank() != 0 || off.rank() != 0) {
      ctx.Fail(TG_INVALID_ARGUMENT, "on_value and off_value must be scalars, but have shapes " +
                                        ShapeString(on.dims()) + " and " + ShapeString(off.dims()));
      return;
    }
    if (depth < 0) {
      ctx.Fail(TG_INVALID_ARGUMENT, "depth must be non-negative, got: " + std::to_string(depth));
      return;
    }
    const std::vector<int64_t> in_dims = indices.dims();
    const int64_t rank = static_cast<int64_t>(in_dims.size());
    if (axis_ < -1 || axis_ > rank) {
      ctx.Fail(TG_INVALID_ARGUMENT, "Expected axis to be -1 or between [0, " +
                                        std::to_string(rank) +
                                        "].  But received: " + std::to_string(axis_));
      return;
    }
    const size_t axis = static_cast<size_t>(axis_ == -1 ? rank : axis_);
    std::vector<int64_t> out_dims = in_dims;
    out_dims.insert(out_dims.begin() + static_cast<std::ptrdiff_t>(axis), depth);
    int64_t total;
    if (!CheckedNumElements(ctx, out_dims, &total)) return;
    const size_t size = ElementSizeOrFail(ctx, on);
    if (size == 0) return;
    TensorMut out = ctx.AllocateOutput(0, out_dims);
    if (!ctx.ok() || total == 0) return;
    const std::vector<int64_t> idx = IndexValues(indices);
    const int64_t prefix = Product(in_dims, 0, axis);
    const int64_t suffix = Product(in_dims, axis, in_dims.size());
    DispatchBySize(size, [&]<typename E>() {
      E on_v, off_v;
      std::memcpy(&on_v, on.data<unsigned char>(), sizeof(E));
      std::memcpy(&off_v, off.data<unsigned char>(), sizeof(E));
      E* o = out.mutable_data<E>();
      // One unit = one (prefix, d) row of `suffix` outputs.
      ctx.ParallelFor(prefix * depth, CopyCost(suffix * static_cast<int64_t>(sizeof(E))),
                      [&](int64_t b, int64_t e) {
                        for (int64_t row = b; row < e; ++row) {
                          const int64_t p = row / depth, d = row % depth;
                          const int64_t* in_row = idx.data() + p * suffix;
                          E* out_row = o + row * suffix;
                          for (int64_t s = 0; s < suffix; ++s)
                            out_row[s] = in_row[s] == d ? on_v : off_v;
                        }
                      });
    });
  }

 private:
  int64_t axis_ = -1;
};

}  // namespace

void RegisterOneHotKernels(tgraph::plugin::Init& init) {
  init.Kernel<OneHotOp>(tgraph::plugin::KernelBuilder("OneHot", "CPU")
                            .TypeConstraint("T", TG_ARRAY_MOVER_TYPES)
                            .TypeConstraint("TI", {TG_UINT8, TG_INT8, TG_INT32, TG_INT64})
                            .HostMemory("depth"));
}

}  // namespace tgraph_cpu
