// Fill, ZerosLike, OnesLike (dtype-agnostic fills by element size) and Range.
#include <cmath>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "array_kernel_util.h"
#include "array_kernels.h"

namespace tgraph_cpu {
namespace {

using namespace array_util;

// Fills `n` elements of `size` bytes at dst with the element at `pattern`.
void FillElements(Context& ctx, unsigned char* dst, int64_t n, size_t size, const void* pattern) {
  if (n == 0) return;
  DispatchBySize(size, [&]<typename E>() {
    E value;
    std::memcpy(&value, pattern, sizeof(E));
    E* out = reinterpret_cast<E*>(dst);
    ctx.ParallelFor(n, 0.3, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) out[i] = value;
    });
  });
}

class FillOp {
 public:
  explicit FillOp(Construction&) {}
  void Compute(Context& ctx) {
    std::vector<int64_t> dims;
    if (!ReadIndexVector(ctx, 0, "dims", &dims)) return;
    TensorView value = ctx.input(1);
    if (value.rank() != 0) {
      ctx.Fail(TG_INVALID_ARGUMENT,
               "value must be a scalar, but has shape " + ShapeString(value.dims()));
      return;
    }
    int64_t n;
    if (!CheckedNumElements(ctx, dims, &n)) return;
    const size_t size = ElementSizeOrFail(ctx, value);
    if (size == 0) return;
    TensorMut out = ctx.AllocateOutput(0, dims);
    if (!ctx.ok()) return;
    FillElements(ctx, out.mutable_data<unsigned char>(), n, size, value.data<unsigned char>());
  }
};

class ZerosLikeOp {
 public:
  explicit ZerosLikeOp(Construction&) {}
  void Compute(Context& ctx) {
    TensorView in = ctx.input(0);
    TensorMut out = ctx.ForwardOrAllocateOutput(0, 0, in.dims());
    if (!ctx.ok()) return;
    auto* p = out.mutable_data<unsigned char>();
    if (p != nullptr) {
      const unsigned char zero[16] = {};
      FillElements(ctx, p, in.num_elements(), DtypeSize(in.dtype()), zero);
    }
  }
};

class OnesLikeOp {
 public:
  explicit OnesLikeOp(Construction& c) {
    const TG_DataType t = c.output_type(0);
    size_ = DtypeSize(t);
    auto set = [this](const auto v) { std::memcpy(one_, &v, sizeof(v)); };
    switch (t) {
      case TG_FLOAT:
        set(1.0f);
        break;
      case TG_DOUBLE:
        set(1.0);
        break;
      case TG_HALF:
        set(uint16_t{0x3C00});
        break;
      case TG_BFLOAT16:
        set(uint16_t{0x3F80});
        break;
      case TG_COMPLEX64:
        set(1.0f);
        break;  // real part 1, imaginary part 0
      case TG_COMPLEX128:
        set(1.0);
        break;
      case TG_BOOL:
      case TG_INT8:
      case TG_UINT8:
        set(uint8_t{1});
        break;
      case TG_INT16:
      case TG_UINT16:
        set(uint16_t{1});
        break;
      case TG_INT32:
      case TG_UINT32:
        set(uint32_t{1});
        break;
      case TG_INT64:
      case TG_UINT64:
        set(uint64_t{1});
        break;
      default:
        c.Fail(TG_UNIMPLEMENTED, "OnesLike does not support dtype " + DtypeName(t));
    }
  }
  void Compute(Context& ctx) {
    TensorView in = ctx.input(0);
    TensorMut out = ctx.ForwardOrAllocateOutput(0, 0, in.dims());
    if (!ctx.ok()) return;
    auto* p = out.mutable_data<unsigned char>();
    if (p != nullptr) FillElements(ctx, p, in.num_elements(), size_, one_);
  }

 private:
  size_t size_ = 0;
  unsigned char one_[16] = {};
};

template <typename T>
class RangeOp {
 public:
  explicit RangeOp(Construction&) {}
  void Compute(Context& ctx) {
    T v[3];
    static const char* const kNames[3] = {"start", "limit", "delta"};
    for (int i = 0; i < 3; ++i) {
      TensorView t = ctx.input(i);
      if (t.rank() != 0) {
        ctx.Fail(TG_INVALID_ARGUMENT,
                 std::string(kNames[i]) + " must be a scalar, not shape " + ShapeString(t.dims()));
        return;
      }
      v[i] = t.data<T>()[0];
    }
    const T start = v[0], limit = v[1], delta = v[2];
    if constexpr (std::is_floating_point_v<T>) {
      if (!std::isfinite(start) || !std::isfinite(limit) || !std::isfinite(delta)) {
        ctx.Fail(TG_INVALID_ARGUMENT, "start, limit and delta must be finite");
        return;
      }
    }
    if (delta == T(0)) {
      ctx.Fail(TG_INVALID_ARGUMENT, "Requires delta != 0: " + std::to_string(delta));
      return;
    }
    if (delta > T(0) && start > limit) {
      ctx.Fail(TG_INVALID_ARGUMENT, "Requires start <= limit when delta > 0: " +
                                        std::to_string(start) + "/" + std::to_string(limit));
      return;
    }
    if (delta < T(0) && start < limit) {
      ctx.Fail(TG_INVALID_ARGUMENT, "Requires start >= limit when delta < 0: " +
                                        std::to_string(start) + "/" + std::to_string(limit));
      return;
    }
    int64_t size;
    if constexpr (std::is_integral_v<T>) {
      // Magnitudes in uint64 arithmetic: no overflow for any int64 start/limit/delta.
      const uint64_t span = limit > start
                                ? static_cast<uint64_t>(limit) - static_cast<uint64_t>(start)
                                : static_cast<uint64_t>(start) - static_cast<uint64_t>(limit);
      const uint64_t step =
          delta > 0 ? static_cast<uint64_t>(delta) : uint64_t{0} - static_cast<uint64_t>(delta);
      size = static_cast<int64_t>(span / step + (span % step != 0 ? 1 : 0));
    } else {
      const double n = std::ceil(std::abs(
          (static_cast<double>(limit) - static_cast<double>(start)) / static_cast<double>(delta)));
      if (!(n < 4.0e18)) {
        ctx.Fail(TG_INVALID_ARGUMENT,
                 "Requires the range size to fit in int64, got " + std::to_string(n));
        return;
      }
      size = static_cast<int64_t>(n);
    }
    TensorMut out = ctx.AllocateOutput(0, {size});
    if (!ctx.ok() || size == 0) return;
    T* p = out.mutable_data<T>();
    ctx.ParallelFor(size, 0.5, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        if constexpr (std::is_integral_v<T>) {
          // Modular uint64 arithmetic: i * delta may overflow T although the sum does not.
          p[i] = static_cast<T>(static_cast<uint64_t>(static_cast<int64_t>(start)) +
                                static_cast<uint64_t>(i) *
                                    static_cast<uint64_t>(static_cast<int64_t>(delta)));
        } else {
          p[i] = static_cast<T>(start + static_cast<T>(i) * delta);
        }
      }
    });
  }
};

}  // namespace

void RegisterFillKernels(tgraph::plugin::Init& init) {
  using tgraph::plugin::KernelBuilder;
  init.Kernel<FillOp>(KernelBuilder("Fill", "CPU")
                          .TypeConstraint("T", TG_ARRAY_MOVER_TYPES)
                          .TypeConstraint("index_type", TG_ARRAY_INDEX_TYPES)
                          .HostMemory("dims"));
  init.Kernel<ZerosLikeOp>(
      KernelBuilder("ZerosLike", "CPU").TypeConstraint("T", TG_ARRAY_MOVER_TYPES));
  init.Kernel<OnesLikeOp>(
      KernelBuilder("OnesLike", "CPU").TypeConstraint("T", TG_ARRAY_MOVER_TYPES));
  init.Kernel<RangeOp<float>>(KernelBuilder("Range", "CPU").TypeConstraint("Tidx", TG_FLOAT));
  init.Kernel<RangeOp<double>>(KernelBuilder("Range", "CPU").TypeConstraint("Tidx", TG_DOUBLE));
  init.Kernel<RangeOp<int32_t>>(KernelBuilder("Range", "CPU")
                                    .TypeConstraint("Tidx", TG_INT32)
                                    .HostMemory("start")
                                    .HostMemory("limit")
                                    .HostMemory("delta")
                                    .HostMemory("output"));
  init.Kernel<RangeOp<int64_t>>(KernelBuilder("Range", "CPU")
                                    .TypeConstraint("Tidx", TG_INT64)
                                    .HostMemory("start")
                                    .HostMemory("limit")
                                    .HostMemory("delta")
                                    .HostMemory("output"));
}

}  // namespace tgraph_cpu
