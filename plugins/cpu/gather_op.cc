// Gather (embedding lookup) and GatherV2 (any axis, batch_dims). Slices are copied by bytes
// (any plain dtype; GatherV2 also strings, one by one). Every index is checked before
// anything is written: one out of range fails the node with INVALID_ARGUMENT naming the
// index, its position and the valid range.
#include <cstring>
#include <string>
#include <vector>

#include "array_kernel_util.h"
#include "array_kernels.h"

namespace tgraph_cpu {
namespace {

using namespace array_util;

struct GatherGeometry {
  int64_t batch, outer, n, limit, inner;
};

// Strings are objects, not bytes: copied one by one (report_uninitialized_variables gathers
// variable names), in one thread since each copy allocates.
template <typename Index>
void GatherStrings(Context& ctx, const TensorView& params, const Index* idx,
                   const std::vector<int64_t>& out_dims, const GatherGeometry& g) {
  TensorMut out = ctx.AllocateOutput(0, out_dims);
  if (!ctx.ok()) return;
  const int64_t units = g.batch * g.outer * g.n;
  for (int64_t u = 0; u < units; ++u) {
    const int64_t bo = u / g.n;
    const int64_t v = static_cast<int64_t>(idx[(bo / g.outer) * g.n + u % g.n]);
    for (int64_t j = 0; j < g.inner; ++j) {
      out.set_string(u * g.inner + j, params.string_at((bo * g.limit + v) * g.inner + j));
    }
  }
}

// params viewed as [batch, outer, gather_dim, inner], indices as [batch, n].
// out[b, o, k, :] = params[b, o, indices[b, k], :].
template <typename Index>
void GatherImpl(Context& ctx, const TensorView& params, const TensorView& indices, int64_t axis,
                int64_t batch_dims) {
  const std::vector<int64_t> p_dims = params.dims();
  const std::vector<int64_t> i_dims = indices.dims();
  const size_t ax = static_cast<size_t>(axis), bd = static_cast<size_t>(batch_dims);
  const int64_t batch = Product(p_dims, 0, bd);
  const int64_t outer = Product(p_dims, bd, ax);
  const int64_t limit = p_dims[ax];
  const int64_t inner = Product(p_dims, ax + 1, p_dims.size());
  const int64_t n = Product(i_dims, bd, i_dims.size());
  std::vector<int64_t> out_dims(p_dims.begin(), p_dims.begin() + axis);
  out_dims.insert(out_dims.end(), i_dims.begin() + batch_dims, i_dims.end());
  out_dims.insert(out_dims.end(), p_dims.begin() + axis + 1, p_dims.end());

  const Index* idx = indices.data<Index>();
  const int64_t num_indices = indices.num_elements();
  for (int64_t i = 0; i < num_indices; ++i) {
    const int64_t v = static_cast<int64_t>(idx[i]);
    if (v < 0 || v >= limit) {
      ctx.Fail(TG_INVALID_ARGUMENT, BadIndexMessage(i, i_dims, v, limit));
      return;
    }
  }
  if (params.dtype() == TG_STRING) {
    GatherStrings(ctx, params, idx, out_dims, {batch, outer, n, limit, inner});
    return;
  }
  const size_t size = ElementSizeOrFail(ctx, params);
  if (size == 0) return;
  TensorMut out = ctx.AllocateOutput(0, out_dims);
  if (!ctx.ok()) return;
  const size_t slice = static_cast<size_t>(inner) * size;
  const int64_t units = batch * outer * n;
  if (slice == 0 || units == 0) return;
  const auto* src = params.data<unsigned char>();
  auto* dst = out.mutable_data<unsigned char>();
  ctx.ParallelFor(units, CopyCost(static_cast<int64_t>(slice)), [&](int64_t b, int64_t e) {
    for (int64_t u = b; u < e; ++u) {
      const int64_t k = u % n;
      const int64_t bo = u / n;  // batch * outer + o
      const int64_t bb = bo / outer;
      const int64_t v = static_cast<int64_t>(idx[bb * n + k]);
      std::memcpy(dst + static_cast<size_t>(u) * slice,
                  src + static_cast<size_t>(bo * limit + v) * slice, slice);
    }
  });
}

void Gather(Context& ctx, const TensorView& params, const TensorView& indices, int64_t axis,
            int64_t batch_dims) {
  switch (indices.dtype()) {
    case TG_INT32:
      GatherImpl<int32_t>(ctx, params, indices, axis, batch_dims);
      break;
    case TG_INT64:
      GatherImpl<int64_t>(ctx, params, indices, axis, batch_dims);
      break;
    case TG_INT16:
      GatherImpl<int16_t>(ctx, params, indices, axis, batch_dims);
      break;
    default:
      ctx.Fail(TG_INVALID_ARGUMENT,
               "indices must be int16, int32 or int64, not " + DtypeName(indices.dtype()));
  }
}

class GatherOp {
 public:
  explicit GatherOp(Construction&) {}
  void Compute(Context& ctx) {
    TensorView params = ctx.input(0);
    if (params.rank() < 1) {
      ctx.Fail(TG_INVALID_ARGUMENT, "params must be at least 1 dimensional");
      return;
    }
    Gather(ctx, params, ctx.input(1), 0, 0);
  }
};

class GatherV2Op {
 public:
  explicit GatherV2Op(Construction& c) { c.GetAttr("batch_dims", &batch_dims_); }
  void Compute(Context& ctx) {
    TensorView params = ctx.input(0);
    TensorView indices = ctx.input(1);
    int64_t axis_value = 0;
    if (!ReadIndexScalar(ctx, 2, "axis", &axis_value)) return;
    const int64_t p_rank = params.rank(), i_rank = indices.rank();
    if (p_rank < 1) {
      ctx.Fail(TG_INVALID_ARGUMENT, "params must be at least 1 dimensional");
      return;
    }
    int64_t axis;
    if (!CanonicalAxis(ctx, axis_value, p_rank, false, "axis", &axis)) return;
    int64_t batch_dims = batch_dims_ < 0 ? batch_dims_ + i_rank : batch_dims_;
    if (batch_dims < 0 || batch_dims > i_rank) {
      ctx.Fail(TG_INVALID_ARGUMENT, "Expected batch_dims in the range [" + std::to_string(-i_rank) +
                                        ", " + std::to_string(i_rank) + "], but got " +
                                        std::to_string(batch_dims_));
      return;
    }
    if (batch_dims >= p_rank || axis < batch_dims) {
      ctx.Fail(TG_INVALID_ARGUMENT,
               "batch_dims (" + std::to_string(batch_dims) + ") must be less than rank(params) (" +
                   std::to_string(p_rank) + ") and at most axis (" + std::to_string(axis) + ")");
      return;
    }
    for (int64_t i = 0; i < batch_dims; ++i) {
      if (params.dim(static_cast<int>(i)) != indices.dim(static_cast<int>(i))) {
        ctx.Fail(TG_INVALID_ARGUMENT, "params.shape[" + std::to_string(i) +
                                          "]: " + std::to_string(params.dim(static_cast<int>(i))) +
                                          " should be equal to indices.shape[" + std::to_string(i) +
                                          "]: " + std::to_string(indices.dim(static_cast<int>(i))));
        return;
      }
    }
    Gather(ctx, params, indices, axis, batch_dims);
  }

 private:
  int64_t batch_dims_ = 0;
};

}  // namespace

void RegisterGatherKernels(tgraph::plugin::Init& init) {
  using tgraph::plugin::KernelBuilder;
  // A gather's work is its output (rows copied), not its params: without the hint the
  // planner counted the whole [vocab, dim] table of an embedding lookup and handed a
  // copy of a few rows to another thread.
  constexpr double kCostPerOutputElementNs = 0.5;
  init.Kernel<GatherOp>(KernelBuilder("Gather", "CPU")
                            .TypeConstraint("Tparams", TG_ARRAY_MOVER_TYPES)
                            .TypeConstraint("Tindices", TG_ARRAY_INDEX_TYPES)
                            .CostPerElementNs(kCostPerOutputElementNs));
  init.Kernel<GatherV2Op>(KernelBuilder("GatherV2", "CPU")
                              .CostPerElementNs(kCostPerOutputElementNs)
                              .TypeConstraint("Tparams", TG_ARRAY_MOVER_TYPES)
                              .TypeConstraint("Tindices", {TG_INT16, TG_INT32, TG_INT64})
                              .TypeConstraint("Taxis", TG_ARRAY_INDEX_TYPES)
                              .HostMemory("axis"));
  // Strings (e.g. the names boolean_mask picks in report_uninitialized_variables).
  init.Kernel<GatherV2Op>(KernelBuilder("GatherV2", "CPU")
                              .TypeConstraint("Tparams", TG_STRING)
                              .TypeConstraint("Tindices", TG_ARRAY_INDEX_TYPES)
                              .TypeConstraint("Taxis", TG_ARRAY_INDEX_TYPES)
                              .HostMemory("axis"));
}

}  // namespace tgraph_cpu
