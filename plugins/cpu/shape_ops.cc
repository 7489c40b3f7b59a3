// Shape, Size, Rank: metadata only (any dtype); outputs live in host memory.
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "array_kernel_util.h"
#include "array_kernels.h"

namespace tgraph_cpu {
namespace {

using namespace array_util;

// Writes `values` to output 0 as int32 or int64 (out_type); int32 must hold every value.
void WriteInts(Context& ctx, const std::vector<int64_t>& values, const std::vector<int64_t>& dims,
               const char* what) {
  const TG_DataType t = ctx.output_type(0);
  if (t == TG_INT32) {
    for (int64_t v : values) {
      if (v > std::numeric_limits<int32_t>::max()) {
        ctx.Fail(TG_INVALID_ARGUMENT, std::string(what) + " " + std::to_string(v) +
                                          " does not fit out_type int32; use int64");
        return;
      }
    }
  }
  TensorMut out = ctx.AllocateOutput(0, dims);
  if (!ctx.ok()) return;
  for (size_t i = 0; i < values.size(); ++i) {
    if (t == TG_INT32)
      out.mutable_data<int32_t>()[i] = static_cast<int32_t>(values[i]);
    else
      out.mutable_data<int64_t>()[i] = values[i];
  }
}

class ShapeOp {
 public:
  explicit ShapeOp(Construction&) {}
  void Compute(Context& ctx) {
    const std::vector<int64_t> dims = ctx.input(0).dims();
    WriteInts(ctx, dims, {static_cast<int64_t>(dims.size())}, "dimension");
  }
};

class SizeOp {
 public:
  explicit SizeOp(Construction&) {}
  void Compute(Context& ctx) { WriteInts(ctx, {ctx.input(0).num_elements()}, {}, "size"); }
};

class RankOp {
 public:
  explicit RankOp(Construction&) {}
  void Compute(Context& ctx) { WriteInts(ctx, {ctx.input(0).rank()}, {}, "rank"); }
};

}  // namespace

void RegisterShapeKernels(tgraph::plugin::Init& init) {
  using tgraph::plugin::KernelBuilder;
  init.Kernel<ShapeOp>(KernelBuilder("Shape", "CPU")
                           .TypeConstraint("out_type", TG_ARRAY_INDEX_TYPES)
                           .HostMemory("output"));
  init.Kernel<SizeOp>(KernelBuilder("Size", "CPU")
                          .TypeConstraint("out_type", TG_ARRAY_INDEX_TYPES)
                          .HostMemory("output"));
  init.Kernel<RankOp>(KernelBuilder("Rank", "CPU").HostMemory("output"));
}

}  // namespace tgraph_cpu
