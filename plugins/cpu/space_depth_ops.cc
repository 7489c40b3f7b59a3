// SpaceToDepth / DepthToSpace (NHWC) and SpaceToBatchND / BatchToSpaceND: pure
// rearrangements, dtype-agnostic by element size. Each output position copies one
// contiguous block (the channels, or every dimension after the spatial ones) from where
// TensorFlow's definition puts it; output positions are split over the intra-op pool.
#include <cstring>
#include <string>
#include <vector>

#include "array_kernel_util.h"
#include "array_kernels.h"

namespace tgraph_cpu {
namespace {

using namespace array_util;

template <bool kToDepth>
class SpaceDepthOp {
 public:
  explicit SpaceDepthOp(Construction& c) {
    c.GetAttr("block_size", &block_);
    std::string format;
    if (!c.GetAttr("data_format", &format)) return;
    if (format != "NHWC") {
      c.Fail(TG_UNIMPLEMENTED,
             c.op_type() + " on the CPU supports only data_format 'NHWC', got '" + format + "'");
    }
  }
  void Compute(Context& ctx) {
    TensorView in = ctx.input(0);
    const std::vector<int64_t> d = in.dims();
    const int64_t b = block_;
    if (d.size() != 4) {
      ctx.Fail(TG_INVALID_ARGUMENT, "input must be 4-D, got shape " + ShapeString(d));
      return;
    }
    std::vector<int64_t> out_dims = d;
    if (kToDepth) {
      if (d[1] % b != 0 || d[2] % b != 0) {
        ctx.Fail(TG_INVALID_ARGUMENT, "height and width of " + ShapeString(d) +
                                          " must be divisible by block_size " + std::to_string(b));
        return;
      }
      out_dims = {d[0], d[1] / b, d[2] / b, d[3] * b * b};
    } else {
      if (d[3] % (b * b) != 0) {
        ctx.Fail(TG_INVALID_ARGUMENT, "depth of " + ShapeString(d) +
                                          " must be divisible by block_size * block_size = " +
                                          std::to_string(b * b));
        return;
      }
      out_dims = {d[0], d[1] * b, d[2] * b, d[3] / (b * b)};
    }
    const size_t size = ElementSizeOrFail(ctx, in);
    if (size == 0) return;
    TensorMut out = ctx.AllocateOutput(0, out_dims);
    if (!ctx.ok() || in.num_elements() == 0) return;
    // The small side: the spatial dims of the depth-side tensor, and its channels per block.
    const std::vector<int64_t>& deep = kToDepth ? out_dims : d;
    const std::vector<int64_t>& wide = kToDepth ? d : out_dims;
    const int64_t c = wide[3];
    const size_t bytes = static_cast<size_t>(c) * size;
    const auto* src = in.data<unsigned char>();
    auto* dst = out.mutable_data<unsigned char>();
    const int64_t units = deep[0] * deep[1] * deep[2] * b * b;
    ctx.ParallelFor(units, CopyCost(static_cast<int64_t>(bytes)), [&](int64_t lo, int64_t hi) {
      for (int64_t u = lo; u < hi; ++u) {
        const int64_t bw = u % b, bh = (u / b) % b, p = u / (b * b);
        const int64_t w = p % deep[2], h = (p / deep[2]) % deep[1], n = p / (deep[2] * deep[1]);
        const int64_t deep_off = ((n * deep[1] + h) * deep[2] + w) * deep[3] + (bh * b + bw) * c;
        const int64_t wide_off = ((n * wide[1] + h * b + bh) * wide[2] + w * b + bw) * c;
        const int64_t from = kToDepth ? wide_off : deep_off, to = kToDepth ? deep_off : wide_off;
        std::memcpy(dst + static_cast<size_t>(to) * size, src + static_cast<size_t>(from) * size, bytes);
      }
    });
  }

 private:
  int64_t block_ = 2;
};

// SpaceToBatchND (kToBatch) and BatchToSpaceND over input [N, spatial (M)..., rest...].
template <bool kToBatch>
class SpaceBatchOp {
 public:
  explicit SpaceBatchOp(Construction&) {}
  void Compute(Context& ctx) {
    TensorView in = ctx.input(0);
    const std::vector<int64_t> d = in.dims();
    std::vector<int64_t> block;
    if (!ReadIndexVector(ctx, 1, "block_shape", &block)) return;
    const size_t m = block.size();
    TensorView p = ctx.input(2);
    const char* what = kToBatch ? "paddings" : "crops";
    if (p.rank() != 2 || p.dim(0) != static_cast<int64_t>(m) || p.dim(1) != 2 || d.size() < m + 1) {
      ctx.Fail(TG_INVALID_ARGUMENT, std::string(what) + " " + ShapeString(p.dims()) +
                                        ", block_shape [" + std::to_string(m) + "] and input " +
                                        ShapeString(d) +
                                        " do not fit: need [M, 2], [M] and rank >= M + 1");
      return;
    }
    const std::vector<int64_t> pads = IndexValues(p);
    int64_t prod = 1;
    std::vector<int64_t> out_dims = d;
    for (size_t i = 0; i < m; ++i) {
      const int64_t b = block[i], p0 = pads[2 * i], p1 = pads[2 * i + 1];
      if (b < 1 || p0 < 0 || p1 < 0) {
        ctx.Fail(TG_INVALID_ARGUMENT, "block_shape must be positive and " + std::string(what) +
                                          " non-negative, got " + ShapeString(block) + " and " +
                                          ShapeString(pads));
        return;
      }
      prod *= b;
      if (kToBatch) {
        if ((d[i + 1] + p0 + p1) % b != 0) {
          ctx.Fail(TG_INVALID_ARGUMENT, "padded spatial dimension " + std::to_string(i) + " (" +
                                            std::to_string(d[i + 1] + p0 + p1) +
                                            ") is not divisible by block_shape " + std::to_string(b));
          return;
        }
        out_dims[i + 1] = (d[i + 1] + p0 + p1) / b;
      } else {
        if (d[i + 1] * b < p0 + p1) {
          ctx.Fail(TG_INVALID_ARGUMENT, "crops " + ShapeString(pads) + " exceed spatial dimension " +
                                            std::to_string(i) + " times its block");
          return;
        }
        out_dims[i + 1] = d[i + 1] * b - p0 - p1;
      }
    }
    if (kToBatch) {
      out_dims[0] = d[0] * prod;
    } else {
      if (d[0] % prod != 0) {
        ctx.Fail(TG_INVALID_ARGUMENT, "batch " + std::to_string(d[0]) +
                                          " is not divisible by the block_shape product " +
                                          std::to_string(prod));
        return;
      }
      out_dims[0] = d[0] / prod;
    }
    const size_t size = ElementSizeOrFail(ctx, in);
    if (size == 0) return;
    int64_t total;
    if (!CheckedNumElements(ctx, out_dims, &total)) return;
    TensorMut out = ctx.AllocateOutput(0, out_dims);
    if (!ctx.ok() || total == 0) return;
    const int64_t rest = Product(d, m + 1, d.size());
    const size_t bytes = static_cast<size_t>(rest) * size;
    const int64_t units = total / std::max<int64_t>(rest, 1);
    const std::vector<int64_t> in_strides = Strides(d);
    const int64_t batch = kToBatch ? d[0] : out_dims[0];  // the space side's batch
    const auto* src = in.data<unsigned char>();
    auto* dst = out.mutable_data<unsigned char>();
    ctx.ParallelFor(units, CopyCost(static_cast<int64_t>(bytes)), [&](int64_t lo, int64_t hi) {
      std::vector<int64_t> pos(m);
      for (int64_t u = lo; u < hi; ++u) {
        // Output coordinates (batch, spatial...) of unit u.
        int64_t r = u;
        for (size_t i = m; i-- > 0;) {
          pos[i] = r % out_dims[i + 1];
          r /= out_dims[i + 1];
        }
        const int64_t ob = r;
        int64_t in_off = 0;
        bool zero = false;
        if (kToBatch) {
          // ob = offset * N + n; input spatial = pos * block + offset - pad_before.
          int64_t offset = ob / batch;
          in_off = (ob % batch) * in_strides[0];
          for (size_t i = m; i-- > 0;) {
            const int64_t o = offset % block[i];
            offset /= block[i];
            const int64_t x = pos[i] * block[i] + o - pads[2 * i];
            if (x < 0 || x >= d[i + 1]) zero = true;
            in_off += x * in_strides[i + 1];
          }
        } else {
          // Padded coordinate q = pos + crop_before = y * block + offset.
          int64_t offset = 0;
          for (size_t i = 0; i < m; ++i) {
            const int64_t q = pos[i] + pads[2 * i];
            offset = offset * block[i] + q % block[i];
            in_off += (q / block[i]) * in_strides[i + 1];
          }
          in_off += (offset * batch + ob) * in_strides[0];
        }
        unsigned char* o = dst + static_cast<size_t>(u) * bytes;
        if (zero) {
          std::memset(o, 0, bytes);
        } else {
          std::memcpy(o, src + static_cast<size_t>(in_off) * size, bytes);
        }
      }
    });
  }
};

}  // namespace

void RegisterSpaceDepthKernels(tgraph::plugin::Init& init) {
  using tgraph::plugin::KernelBuilder;
  init.Kernel<SpaceDepthOp<true>>(
      KernelBuilder("SpaceToDepth", "CPU").TypeConstraint("T", TG_ARRAY_MOVER_TYPES));
  init.Kernel<SpaceDepthOp<false>>(
      KernelBuilder("DepthToSpace", "CPU").TypeConstraint("T", TG_ARRAY_MOVER_TYPES));
  init.Kernel<SpaceBatchOp<true>>(KernelBuilder("SpaceToBatchND", "CPU")
                                      .TypeConstraint("T", TG_ARRAY_MOVER_TYPES)
                                      .TypeConstraint("Tblock_shape", TG_ARRAY_INDEX_TYPES)
                                      .TypeConstraint("Tpaddings", TG_ARRAY_INDEX_TYPES)
                                      .HostMemory("block_shape")
                                      .HostMemory("paddings"));
  init.Kernel<SpaceBatchOp<false>>(KernelBuilder("BatchToSpaceND", "CPU")
                                       .TypeConstraint("T", TG_ARRAY_MOVER_TYPES)
                                       .TypeConstraint("Tblock_shape", TG_ARRAY_INDEX_TYPES)
                                       .TypeConstraint("Tcrops", TG_ARRAY_INDEX_TYPES)
                                       .HostMemory("block_shape")
                                       .HostMemory("crops"));
}

}  // namespace tgraph_cpu
