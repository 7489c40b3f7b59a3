// Reshape, Squeeze, ExpandDims: the output shares the input's buffer under a new shape (no
// copy), for every dtype. The shape/dim inputs live in host memory.
#include <limits>
#include <string>
#include <vector>

#include "array_kernel_util.h"
#include "array_kernels.h"

namespace tgraph_cpu {
namespace {

using namespace array_util;

class ReshapeOp {
 public:
  explicit ReshapeOp(Construction&) {}
  void Compute(Context& ctx) {
    TensorView in = ctx.input(0);
    std::vector<int64_t> dims;
    // A scalar shape is TF's legacy spelling of a one-element shape.
    if (!ReadIndexVector(ctx, 1, "shape", &dims, /*allow_scalar=*/true)) return;
    int unknown = -1;
    int64_t product = 1;
    for (size_t i = 0; i < dims.size(); ++i) {
      const int64_t d = dims[i];
      if (d == -1) {
        if (unknown >= 0) {
          ctx.Fail(TG_INVALID_ARGUMENT, "only one input size may be -1, not both " +
                                            std::to_string(unknown) + " and " + std::to_string(i));
          return;
        }
        unknown = static_cast<int>(i);
      } else if (d < 0) {
        ctx.Fail(TG_INVALID_ARGUMENT,
                 "size " + std::to_string(i) + " must be non-negative, not " + std::to_string(d));
        return;
      } else {
        if (d != 0 && product > std::numeric_limits<int64_t>::max() / d) {
          ctx.Fail(TG_INVALID_ARGUMENT, "shape " + ShapeString(dims) + " has too many elements");
          return;
        }
        product *= d;
      }
    }
    const int64_t n = in.num_elements();
    if (unknown >= 0) {
      if (product == 0 || n % product != 0) {
        ctx.Fail(TG_INVALID_ARGUMENT,
                 product == 0
                     ? "Reshape cannot infer the missing input size for an empty tensor unless "
                       "all specified input sizes are non-zero"
                     : "Input to reshape is a tensor with " + std::to_string(n) +
                           " values, but the requested shape requires a multiple of " +
                           std::to_string(product));
        return;
      }
      dims[static_cast<size_t>(unknown)] = n / product;
    } else if (product != n) {
      ctx.Fail(TG_INVALID_ARGUMENT, "Input to reshape is a tensor with " + std::to_string(n) +
                                        " values, but the requested shape has " +
                                        std::to_string(product) + " (shape " +
                                        ShapeString(in.dims()) + " to " + ShapeString(dims) + ")");
      return;
    }
    ctx.SetOutputAlias(0, in, dims);
  }
};

class SqueezeOp {
 public:
  explicit SqueezeOp(Construction& c) { c.GetAttr("squeeze_dims", &axes_); }
  void Compute(Context& ctx) {
    TensorView in = ctx.input(0);
    const std::vector<int64_t> dims = in.dims();
    const int64_t rank = static_cast<int64_t>(dims.size());
    std::vector<bool> squeeze(dims.size(), false);
    for (int64_t a : axes_) {
      int64_t axis;
      if (!CanonicalAxis(ctx, a, rank, false, "squeeze dimension", &axis)) return;
      if (dims[static_cast<size_t>(axis)] != 1) {
        ctx.Fail(TG_INVALID_ARGUMENT, "Can not squeeze dim[" + std::to_string(axis) +
                                          "], expected a dimension of 1, got " +
                                          std::to_string(dims[static_cast<size_t>(axis)]));
        return;
      }
      squeeze[static_cast<size_t>(axis)] = true;
    }
    std::vector<int64_t> out;
    for (size_t i = 0; i < dims.size(); ++i) {
      const bool drop = axes_.empty() ? dims[i] == 1 : squeeze[i];
      if (!drop) out.push_back(dims[i]);
    }
    ctx.SetOutputAlias(0, in, out);
  }

 private:
  std::vector<int64_t> axes_;
};

class ExpandDimsOp {
 public:
  explicit ExpandDimsOp(Construction&) {}
  void Compute(Context& ctx) {
    TensorView in = ctx.input(0);
    int64_t dim = 0;
    if (!ReadIndexScalar(ctx, 1, "dim", &dim, /*allow_vector1=*/true)) return;
    std::vector<int64_t> dims = in.dims();
    int64_t axis;
    if (!CanonicalAxis(ctx, dim, static_cast<int64_t>(dims.size()), true, "dim", &axis)) return;
    dims.insert(dims.begin() + axis, 1);
    ctx.SetOutputAlias(0, in, dims);
  }
};

}  // namespace

void RegisterReshapeKernels(tgraph::plugin::Init& init) {
  using tgraph::plugin::KernelBuilder;
  init.Kernel<ReshapeOp>(KernelBuilder("Reshape", "CPU")
                             .TypeConstraint("Tshape", TG_ARRAY_INDEX_TYPES)
                             .HostMemory("shape")
                             .CostPerElementNs(kViewCostPerElementNs));
  init.Kernel<SqueezeOp>(KernelBuilder("Squeeze", "CPU").CostPerElementNs(kViewCostPerElementNs));
  init.Kernel<ExpandDimsOp>(KernelBuilder("ExpandDims", "CPU")
                                .TypeConstraint("Tdim", TG_ARRAY_INDEX_TYPES)
                                .HostMemory("dim")
                                .CostPerElementNs(kViewCostPerElementNs));
}

}  // namespace tgraph_cpu
