// ConcatV2, Pack, Unpack: block copies by bytes (dtype-agnostic). Each is "for every outer
// index (dims before the axis), copy one contiguous block per input/output"; outer rows are
// split over the intra-op pool, and a single outer row copies its blocks with a parallel
// memcpy.
#include <cstring>
#include <string>
#include <vector>

#include "array_kernel_util.h"
#include "array_kernels.h"

namespace tgraph_cpu {
namespace {

using namespace array_util;

// out row o = [in_0 block o | in_1 block o | ...]; block_bytes[i] per input i.
void GatherBlocks(Context& ctx, int64_t outer, const std::vector<const unsigned char*>& srcs,
                  const std::vector<size_t>& block_bytes, unsigned char* dst) {
  size_t row_bytes = 0;
  for (size_t b : block_bytes) row_bytes += b;
  if (row_bytes == 0 || outer == 0) return;
  if (outer == 1) {
    size_t off = 0;
    for (size_t i = 0; i < srcs.size(); ++i) {
      ParallelMemcpy(ctx, dst + off, srcs[i], block_bytes[i]);
      off += block_bytes[i];
    }
    return;
  }
  ctx.ParallelFor(
      outer, CopyCost(static_cast<int64_t>(row_bytes)), [&](int64_t begin, int64_t end) {
        for (int64_t o = begin; o < end; ++o) {
          unsigned char* d = dst + static_cast<size_t>(o) * row_bytes;
          for (size_t i = 0; i < srcs.size(); ++i) {
            if (block_bytes[i] == 0) continue;
            std::memcpy(d, srcs[i] + static_cast<size_t>(o) * block_bytes[i], block_bytes[i]);
            d += block_bytes[i];
          }
        }
      });
}

class ConcatV2Op {
 public:
  explicit ConcatV2Op(Construction&) {}
  void Compute(Context& ctx) {
    const int n = ctx.num_inputs() - 1;
    int64_t axis_value = 0;
    if (!ReadIndexScalar(ctx, n, "axis", &axis_value)) return;
    TensorView first = ctx.input(0);
    const std::vector<int64_t> dims0 = first.dims();
    const int64_t rank = static_cast<int64_t>(dims0.size());
    if (rank == 0) {
      ctx.Fail(TG_INVALID_ARGUMENT, "ConcatOp : Can't concatenate scalars (use tf.stack instead)");
      return;
    }
    int64_t axis;
    if (!CanonicalAxis(ctx, axis_value, rank, false, "ConcatOp : axis", &axis)) return;
    const size_t size = ElementSizeOrFail(ctx, first);
    if (size == 0) return;
    std::vector<int64_t> out_dims = dims0;
    out_dims[static_cast<size_t>(axis)] = 0;
    std::vector<const unsigned char*> srcs;
    std::vector<size_t> block_bytes;
    const int64_t inner = Product(dims0, static_cast<size_t>(axis) + 1, dims0.size());
    for (int i = 0; i < n; ++i) {
      TensorView t = ctx.input(i);
      const std::vector<int64_t> d = t.dims();
      bool match = d.size() == dims0.size();
      for (size_t k = 0; match && k < d.size(); ++k) {
        if (static_cast<int64_t>(k) != axis && d[k] != dims0[k]) match = false;
      }
      if (!match) {
        ctx.Fail(TG_INVALID_ARGUMENT,
                 "ConcatOp : Dimensions of inputs should match: shape[0] = " + ShapeString(dims0) +
                     " vs. shape[" + std::to_string(i) + "] = " + ShapeString(d));
        return;
      }
      const int64_t a = d[static_cast<size_t>(axis)];
      out_dims[static_cast<size_t>(axis)] += a;
      srcs.push_back(t.data<unsigned char>());
      block_bytes.push_back(static_cast<size_t>(a * inner) * size);
    }
    TensorMut out = ctx.AllocateOutput(0, out_dims);
    if (!ctx.ok()) return;
    const int64_t outer = Product(dims0, 0, static_cast<size_t>(axis));
    GatherBlocks(ctx, outer, srcs, block_bytes, out.mutable_data<unsigned char>());
  }
};

class PackOp {
 public:
  explicit PackOp(Construction& c) { c.GetAttr("axis", &axis_); }
  void Compute(Context& ctx) {
    const int n = ctx.num_inputs();
    TensorView first = ctx.input(0);
    const std::vector<int64_t> dims0 = first.dims();
    int64_t axis;
    if (!CanonicalAxis(ctx, axis_, static_cast<int64_t>(dims0.size()), true, "axis", &axis)) return;
    const size_t size = ElementSizeOrFail(ctx, first);
    if (size == 0) return;
    std::vector<const unsigned char*> srcs;
    std::vector<size_t> block_bytes;
    const int64_t inner = Product(dims0, static_cast<size_t>(axis), dims0.size());
    for (int i = 0; i < n; ++i) {
      TensorView t = ctx.input(i);
      if (t.dims() != dims0) {
        ctx.Fail(TG_INVALID_ARGUMENT,
                 "Shapes of all inputs must match: values[0].shape = " + ShapeString(dims0) +
                     " != values[" + std::to_string(i) + "].shape = " + ShapeString(t.dims()));
        return;
      }
      srcs.push_back(t.data<unsigned char>());
      block_bytes.push_back(static_cast<size_t>(inner) * size);
    }
    std::vector<int64_t> out_dims = dims0;
    out_dims.insert(out_dims.begin() + axis, n);
    TensorMut out = ctx.AllocateOutput(0, out_dims);
    if (!ctx.ok()) return;
    GatherBlocks(ctx, Product(dims0, 0, static_cast<size_t>(axis)), srcs, block_bytes,
                 out.mutable_data<unsigned char>());
  }

 private:
  int64_t axis_ = 0;
};

class UnpackOp {
 public:
  explicit UnpackOp(Construction& c) {
    c.GetAttr("axis", &axis_);
    c.GetAttr("num", &num_);
  }
  void Compute(Context& ctx) {
    TensorView in = ctx.input(0);
    const std::vector<int64_t> dims = in.dims();
    if (dims.empty()) {
      ctx.Fail(TG_INVALID_ARGUMENT, "input must be at least rank 1 to unpack, but is a scalar");
      return;
    }
    int64_t axis;
    if (!CanonicalAxis(ctx, axis_, static_cast<int64_t>(dims.size()), false, "axis", &axis)) return;
    const int64_t num = dims[static_cast<size_t>(axis)];
    if (num != num_ || num != ctx.num_outputs()) {
      ctx.Fail(TG_INVALID_ARGUMENT, "input shape " + ShapeString(dims) + " has " +
                                        std::to_string(num) + " entries along axis " +
                                        std::to_string(axis) +
                                        " but num = " + std::to_string(num_));
      return;
    }
    const size_t size = ElementSizeOrFail(ctx, in);
    if (size == 0) return;
    std::vector<int64_t> out_dims = dims;
    out_dims.erase(out_dims.begin() + axis);
    const int64_t outer = Product(dims, 0, static_cast<size_t>(axis));
    const size_t block =
        static_cast<size_t>(Product(dims, static_cast<size_t>(axis) + 1, dims.size())) * size;
    const auto* src = in.data<unsigned char>();
    std::vector<unsigned char*> dsts;
    for (int64_t i = 0; i < num; ++i) {
      TensorMut out = ctx.AllocateOutput(static_cast<int>(i), out_dims);
      if (!ctx.ok()) return;
      dsts.push_back(out.mutable_data<unsigned char>());
    }
    if (block == 0 || outer == 0) return;
    // Row o of the input holds block o of output 0, 1, ..., num-1.
    ctx.ParallelFor(outer * num, CopyCost(static_cast<int64_t>(block)), [&](int64_t b, int64_t e) {
      for (int64_t k = b; k < e; ++k) {
        const int64_t o = k / num, i = k % num;
        std::memcpy(dsts[static_cast<size_t>(i)] + static_cast<size_t>(o) * block,
                    src + static_cast<size_t>(k) * block, block);
      }
    });
  }

 private:
  int64_t axis_ = 0;
  int64_t num_ = 0;
};

}  // namespace

void RegisterConcatPackKernels(tgraph::plugin::Init& init) {
  using tgraph::plugin::KernelBuilder;
  init.Kernel<ConcatV2Op>(KernelBuilder("ConcatV2", "CPU")
                              .TypeConstraint("T", TG_ARRAY_MOVER_TYPES)
                              .TypeConstraint("Tidx", TG_ARRAY_INDEX_TYPES)
                              .HostMemory("axis"));
  init.Kernel<PackOp>(KernelBuilder("Pack", "CPU").TypeConstraint("T", TG_ARRAY_MOVER_TYPES));
  init.Kernel<UnpackOp>(KernelBuilder("Unpack", "CPU").TypeConstraint("T", TG_ARRAY_MOVER_TYPES));
}

}  // namespace tgraph_cpu
