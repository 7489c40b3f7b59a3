// Cast between bool, the integer types, half, bfloat16, float and double.
//
// Conversions: to bool is `x != 0` (NaN is true); from bool is 0 or 1; integer to integer
// wraps (two's complement); floating to integer truncates toward zero and saturates at the
// target's range, NaN becoming 0 (defined behaviour where C++ has none); between floating
// types rounds to nearest even, or truncates for float -> bfloat16 with Truncate=true.
// Casting to the same dtype returns the input itself.
#include <cmath>
#include <cstring>
#include <limits>

#include "cpu_kernels.h"
#include "cwise_ops_common.h"

namespace tgraph_cpu {
namespace {

// float / double for computing; half and bfloat16 go through float.
template <typename T>
using Wide = std::conditional_t<std::is_same_v<T, double>, double, float>;

template <typename D, typename S>
D CastValue(S s) {
  if constexpr (std::is_same_v<D, bool>) {
    if constexpr (kIsFloatLike<S>) {
      return static_cast<Wide<S>>(s) != 0;
    } else {
      return s != 0;
    }
  } else if constexpr (std::is_same_v<S, bool>) {
    return static_cast<D>(s ? 1 : 0);
  } else if constexpr (std::is_integral_v<D> && kIsFloatLike<S>) {
    const double v = static_cast<double>(static_cast<Wide<S>>(s));
    if (std::isnan(v)) return 0;
    constexpr int kDigits = std::numeric_limits<D>::digits;  // value bits, sign excluded
    const double hi = std::ldexp(1.0, kDigits);              // first value past max()
    const double lo = std::is_signed_v<D> ? -hi : 0.0;       // min()
    if (v >= hi) return std::numeric_limits<D>::max();
    if (v <= lo) return std::numeric_limits<D>::min();
    return static_cast<D>(v);
  } else if constexpr (std::is_integral_v<D>) {
    return static_cast<D>(s);  // integer -> integer: modular
  } else if constexpr (std::is_same_v<D, float> || std::is_same_v<D, double>) {
    if constexpr (std::is_same_v<S, half> || std::is_same_v<S, bfloat16>) {
      return static_cast<D>(static_cast<float>(s));
    } else {
      return static_cast<D>(s);
    }
  } else {  // D is half or bfloat16
    if constexpr (std::is_same_v<S, double> || std::is_same_v<S, float>) {
      return D(static_cast<float>(s));
    } else if constexpr (std::is_integral_v<S>) {
      return D(static_cast<float>(s));
    } else {  // half <-> bfloat16 (or the same type)
      return D(static_cast<float>(s));
    }
  }
}

// float -> bfloat16 by dropping the low 16 bits (NaN stays a quiet NaN).
inline bfloat16 TruncateToBfloat16(float f) {
  uint16_t bits;
  if (std::isnan(f)) {
    bits = std::signbit(f) ? 0xFFC0 : 0x7FC0;
  } else {
    uint32_t word;
    std::memcpy(&word, &f, sizeof(word));
    bits = static_cast<uint16_t>(word >> 16);
  }
  return bfloat16(Eigen::bfloat16_impl::raw_uint16_to_bfloat16(bits));
}

using CastFn = void (*)(const void* in, void* out, int64_t begin, int64_t end);

template <typename D, typename S>
void CastRange(const void* in, void* out, int64_t begin, int64_t end) {
  const S* src = static_cast<const S*>(in);
  D* dst = static_cast<D*>(out);
  for (int64_t i = begin; i < end; ++i) dst[i] = CastValue<D>(src[i]);
}

template <typename S>
void TruncateRange(const void* in, void* out, int64_t begin, int64_t end) {
  const S* src = static_cast<const S*>(in);
  bfloat16* dst = static_cast<bfloat16*>(out);
  for (int64_t i = begin; i < end; ++i) dst[i] = TruncateToBfloat16(static_cast<float>(src[i]));
}

class CastKernel {
 public:
  explicit CastKernel(Construction& c) {
    TG_DataType src = TG_INVALID_DTYPE, dst = TG_INVALID_DTYPE;
    bool truncate = false;
    if (!c.GetAttr("SrcT", &src) || !c.GetAttr("DstT", &dst)) return;
    if (c.HasAttr("Truncate") && !c.GetAttr("Truncate", &truncate)) return;
    same_ = src == dst;
    bool dst_known = false;
    const bool src_known = DispatchDType(src, [&](auto s) {
      using S = typename decltype(s)::type;
      dst_known = DispatchDType(dst, [&](auto d) {
        using D = typename decltype(d)::type;
        fn_ = &CastRange<D, S>;
        if constexpr (std::is_same_v<D, bfloat16> &&
                      (std::is_same_v<S, float> || std::is_same_v<S, double>)) {
          if (truncate) fn_ = &TruncateRange<S>;
        }
      });
    });
    if (!src_known || !dst_known) {
      c.Fail(TG_INVALID_ARGUMENT, std::string("Cast from ") + DTypeName(src) + " to " +
                                      DTypeName(dst) + " is not supported on CPU");
    }
  }

  void Compute(Context& ctx) {
    const TensorView in = ctx.input(0);
    const std::vector<int64_t> dims = in.dims();
    if (same_) {
      ctx.SetOutputAlias(0, in, dims);
      return;
    }
    TensorMut out = ctx.AllocateOutput(0, dims);
    if (!ctx.ok() || !out.valid()) return;
    const int64_t n = in.num_elements();
    if (n == 0) return;
    const void* src = Api()->tensor_data(in.raw());
    void* dst = Api()->tensor_data(out.raw_mut());
    ctx.ParallelFor(n, 1, [&](int64_t begin, int64_t end) { fn_(src, dst, begin, end); });
  }

 private:
  static const TG_CoreApi* Api() { return tgraph::plugin::Api(); }
  CastFn fn_ = nullptr;
  bool same_ = false;
};

}  // namespace

void RegisterCastKernel(Init& init) {
  // No type constraints: an unsupported pair fails when the kernel is made, naming both
  // dtypes, rather than as "no kernel".
  init.Kernel<CastKernel>(KernelBuilder("Cast", "CPU").CostPerElementNs(1));
}

}  // namespace tgraph_cpu
