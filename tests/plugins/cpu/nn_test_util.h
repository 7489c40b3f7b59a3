// Helpers for the neural-network kernel tests: tensors of any registered dtype from doubles
// (half and bfloat16 by their bit patterns, rounded to nearest even), values back as doubles,
// deterministic random data and tolerance checks against float64 references.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "kernel_test_util.h"

namespace tgraph::testing {

// RunOp with an intra-op pool (nullptr: inline, as RunOp), so the kernels' parallel paths
// (Eigen on the pool, ParallelFor) run too.
inline OpRun RunOpOnPool(ThreadPool* pool, const std::string& op_type,
                         const std::vector<Tensor>& inputs, AttrMap attrs = {},
                         bool known_shapes = true) {
  return RunOpEx(op_type, inputs, std::move(attrs), pool, /*one_list=*/false, known_shapes);
}

// Both ways of running: inline and on TestPool().
inline std::vector<ThreadPool*> Pools() { return {nullptr, TestPool()}; }

inline uint16_t FloatToHalfBits(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const uint32_t abs = x & 0x7fffffffu;
  if (abs >= 0x7f800000u)
    return static_cast<uint16_t>(sign | (abs > 0x7f800000u ? 0x7e00u : 0x7c00u));
  if (abs >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // rounds to inf
  if (abs < 0x38800000u) {                                               // subnormal half (or zero)
    float a;
    std::memcpy(&a, &abs, 4);
    const float scaled = a * 16777216.0f;  // / 2^-24
    return static_cast<uint16_t>(sign | static_cast<uint32_t>(std::nearbyint(scaled)));
  }
  const uint32_t mant_odd = (abs >> 13) & 1u;
  const uint32_t rounded = abs + 0xfffu + mant_odd;
  return static_cast<uint16_t>(sign | ((rounded - 0x38000000u) >> 13));
}

inline float HalfBitsToFloat(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1fu;
  const uint32_t mant = h & 0x3ffu;
  float out;
  if (exp == 0) {
    out = std::ldexp(static_cast<float>(mant), -24);
    return sign ? -out : out;
  }
  uint32_t bits = exp == 31 ? (sign | 0x7f800000u | (mant << 13))
                            : (sign | ((exp + 112u) << 23) | (mant << 13));
  std::memcpy(&out, &bits, 4);
  return out;
}

inline uint16_t FloatToBfloat16Bits(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x40u);
  x += 0x7fffu + ((x >> 16) & 1u);
  return static_cast<uint16_t>(x >> 16);
}

inline float Bfloat16BitsToFloat(uint16_t b) {
  const uint32_t bits = static_cast<uint32_t>(b) << 16;
  float out;
  std::memcpy(&out, &bits, 4);
  return out;
}

// The value `v` becomes once stored as `dtype`.
inline double RoundTo(DataType dtype, double v) {
  switch (dtype) {
    case DT_FLOAT:
      return static_cast<float>(v);
    case DT_HALF:
      return HalfBitsToFloat(FloatToHalfBits(static_cast<float>(v)));
    case DT_BFLOAT16:
      return Bfloat16BitsToFloat(FloatToBfloat16Bits(static_cast<float>(v)));
    case DT_INT32:
      return static_cast<int32_t>(v);
    case DT_INT64:
      return static_cast<double>(static_cast<int64_t>(v));
    default:
      return v;
  }
}

inline Tensor MakeTyped(DataType dtype, std::vector<int64_t> dims, const std::vector<double>& v) {
  Tensor t = Tensor::Allocate(dtype, std::move(dims)).value();
  EXPECT_EQ(static_cast<size_t>(t.NumElements()), v.size());
  const size_t n = std::min(v.size(), static_cast<size_t>(t.NumElements()));
  for (size_t i = 0; i < n; ++i) {
    switch (dtype) {
      case DT_FLOAT:
        t.flat<float>()[i] = static_cast<float>(v[i]);
        break;
      case DT_DOUBLE:
        t.flat<double>()[i] = v[i];
        break;
      case DT_HALF:
        t.flat<uint16_t>()[i] = FloatToHalfBits(static_cast<float>(v[i]));
        break;
      case DT_BFLOAT16:
        t.flat<uint16_t>()[i] = FloatToBfloat16Bits(static_cast<float>(v[i]));
        break;
      case DT_INT32:
        t.flat<int32_t>()[i] = static_cast<int32_t>(v[i]);
        break;
      case DT_INT64:
        t.flat<int64_t>()[i] = static_cast<int64_t>(v[i]);
        break;
      default:
        ADD_FAILURE() << "MakeTyped: unsupported dtype " << DataTypeName(dtype);
    }
  }
  return t;
}

inline std::vector<double> ToDoubles(const Tensor& t) {
  std::vector<double> out(static_cast<size_t>(t.NumElements()));
  for (size_t i = 0; i < out.size(); ++i) {
    switch (t.dtype()) {
      case DT_FLOAT:
        out[i] = t.flat<float>()[i];
        break;
      case DT_DOUBLE:
        out[i] = t.flat<double>()[i];
        break;
      case DT_HALF:
        out[i] = HalfBitsToFloat(t.flat<uint16_t>()[i]);
        break;
      case DT_BFLOAT16:
        out[i] = Bfloat16BitsToFloat(t.flat<uint16_t>()[i]);
        break;
      case DT_INT32:
        out[i] = t.flat<int32_t>()[i];
        break;
      case DT_INT64:
        out[i] = static_cast<double>(t.flat<int64_t>()[i]);
        break;
      default:
        ADD_FAILURE() << "ToDoubles: unsupported dtype " << DataTypeName(t.dtype());
    }
  }
  return out;
}

// n values uniform in [lo, hi), already rounded to `dtype` (integers for integer dtypes).
inline std::vector<double> RandomValues(DataType dtype, int64_t n, uint32_t seed, double lo = -1,
                                        double hi = 1) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  std::vector<double> v(static_cast<size_t>(n));
  for (double& x : v) {
    x = dist(gen);
    if (dtype == DT_INT32 || dtype == DT_INT64) x = std::floor(x);
    x = RoundTo(dtype, x);
  }
  return v;
}

// Relative precision of a dtype (used for tolerances).
inline double Epsilon(DataType dtype) {
  switch (dtype) {
    case DT_DOUBLE:
      return 1e-12;
    case DT_FLOAT:
      return 2e-6;
    case DT_HALF:
      return 1e-3;
    case DT_BFLOAT16:
      return 8e-3;
    default:
      return 0;
  }
}

// |got - want| <= tol[i] elementwise (tol empty: exact), with the first few mismatches shown.
inline void ExpectClose(const std::vector<double>& got, const std::vector<double>& want,
                        const std::vector<double>& tol, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  int shown = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const double t = tol.empty() ? 0.0 : tol[i];
    const bool ok = (std::isnan(want[i]) && std::isnan(got[i])) || std::abs(got[i] - want[i]) <= t;
    if (!ok && shown++ < 5) {
      ADD_FAILURE() << what << ": element " << i << " is " << got[i] << ", expected " << want[i]
                    << " (tolerance " << t << ")";
    }
  }
}

inline void ExpectCloseUniform(const std::vector<double>& got, const std::vector<double>& want,
                               double tol, const std::string& what) {
  ExpectClose(got, want, std::vector<double>(want.size(), tol), what);
}

inline void ExpectStatus(const Status& s, Code code, std::initializer_list<std::string> fragments) {
  EXPECT_EQ(s.code(), code) << s.ToString();
  for (const auto& f : fragments) {
    EXPECT_NE(s.message().find(f), std::string::npos) << "'" << f << "' not in: " << s.message();
  }
}

// A shape's dims as the int32 vector ops such as AvgPoolGrad and the Conv2D gradients take.
inline Tensor Sizes(const Dims& d) {
  std::vector<int32_t> v(d.begin(), d.end());
  return MakeTensor<int32_t>(DT_INT32, {static_cast<int64_t>(v.size())}, v);
}

// A 2-D pooling window over an NHWC input, as the pooling ops' attrs give it.
struct PoolCase {
  Dims input;
  Dims ksize;
  Dims strides;
  std::string padding;
  Dims explicit_paddings = {};

  AttrMap Attrs() const {
    AttrMap a{{"ksize", AttrOfIntList(ksize)},
              {"strides", AttrOfIntList(strides)},
              {"padding", AttrOfString(padding)}};
    if (!explicit_paddings.empty()) a["explicit_paddings"] = AttrOfIntList(explicit_paddings);
    return a;
  }
  std::string Name(DataType dtype) const {
    return std::string(DataTypeName(dtype)) + " input " + PartialShape(input).ToString() +
           " ksize " + PartialShape(ksize).ToString() + " strides " +
           PartialShape(strides).ToString() + " " + padding;
  }
};

}  // namespace tgraph::testing
