// TensorFlow's stateless random ops, bit-exact with TensorFlow's CPU kernels:
// StatelessRandomUniform/Normal, StatelessTruncatedNormal (half, bfloat16, float, double),
// StatelessRandomUniformInt (int32, int64), StatelessRandomUniformFullInt (int32, int64,
// uint32, uint64), their V2 forms (explicit key, counter and algorithm), and
// StatelessRandomGetKeyCounter / GetAlg / GetKeyCounterAlg, and StatelessShuffle (plain dtypes).
//
// The facts matched (checked against TensorFlow for many seeds, shapes and dtypes; see
// tests/interop/test_model_ops_stateless_random.py):
//  - Generator: Philox4x32-10 (random_kernels.h) with a 64-bit key and a 128-bit counter; a
//    block is Philox(counter + i, key).
//  - Seed pair (s0, s1), each widened to 64 bits with sign extension: one Philox block of the
//    counter (s0 lo, s0 hi, s1 lo, s1 hi) under the fixed key (0x3ec8f720, 0x02461e29) gives
//    m; the key is (m0, m1) and the counter (0, 0, m2, m3). The V2 ops take them directly:
//    key[0] = k0 | k1 << 32, counter = {c0 | c1 << 32, c2 | c3 << 32}.
//  - Outputs come in groups; group g of the output reads block g (so the numbers do not
//    depend on how groups are spread over threads): 4 per block for 32-bit and narrower
//    results, 2 for 64-bit ones (two 32-bit words each, the first word the low half for
//    integers; for doubles the first word supplies the top 20 mantissa bits).
//  - Uniform floats use the LOW mantissa-width bits of a word: float 23, half 10, bfloat16 7,
//    double 20 + 32; i.e. k / 2^bits (exact).
//  - Normal: Box-Muller over word pairs (float, half and bfloat16 compute in float, then
//    round): u1 = max(uniform(x0), 1e-7), theta = 2*pi*uniform(x1) computed in double and
//    rounded to float, r = sqrt(-2 log u1); outputs r*sin(theta), r*cos(theta). Doubles use
//    four words per pair.
//  - Truncated normal: group g (4 outputs; 2 for double) starts at block g*256 (g*128 for
//    double) and consumes words in order, Box-Muller pair by pair, keeping values with
//    |z| < 2 until the group is full.
//  - Uniform int: lo + (word % (hi - lo)) with the range computed unsigned and the sum
//    wrapping; full-range ints are the words themselves.
//  - Shuffle (rows along dimension 0): for i = 0 .. n-2, swap rows i and i + word % (n - i),
//    taking the stream's words in order.
#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "array_kernel_util.h"
#include "cpu_kernels.h"
#include "random_kernels.h"

namespace tgraph_cpu {
namespace {

using namespace array_util;
using random::Block;
using tgraph::plugin::KernelBuilder;

// A Philox stream: block i is Philox(counter + i, key), with 128-bit counter arithmetic.
struct Stream {
  Block counter{};
  std::array<uint32_t, 2> key{};

  Block At(uint64_t i) const {
    Block c = counter;
    uint64_t lo = (uint64_t{c[1]} << 32 | c[0]) + i;
    const bool carry = lo < i;
    c[0] = static_cast<uint32_t>(lo);
    c[1] = static_cast<uint32_t>(lo >> 32);
    if (carry) {
      uint64_t hi = (uint64_t{c[3]} << 32 | c[2]) + 1;
      c[2] = static_cast<uint32_t>(hi);
      c[3] = static_cast<uint32_t>(hi >> 32);
    }
    return random::Philox(c, key);
  }
};

// The key and counter a seed pair scrambles into (see the file comment).
Stream FromSeeds(uint64_t s0, uint64_t s1) {
  const Block mix = random::Philox({static_cast<uint32_t>(s0), static_cast<uint32_t>(s0 >> 32),
                                    static_cast<uint32_t>(s1), static_cast<uint32_t>(s1 >> 32)},
                                   {0x3ec8f720u, 0x02461e29u});
  Stream s;
  s.key = {mix[0], mix[1]};
  s.counter = {0, 0, mix[2], mix[3]};
  return s;
}

// Reads the int32/int64 `seed` input (input `i`, shape [2]); false after failing the node.
bool ReadSeeds(Context& ctx, int i, Stream* out) {
  TensorView seed = ctx.input(i);
  if (seed.rank() != 1 || seed.dim(0) != 2) {
    ctx.Fail(TG_INVALID_ARGUMENT,
             "seed must have shape [2], not " + ShapeString(seed.dims()));
    return false;
  }
  uint64_t s[2];
  if (seed.dtype() == TG_INT32) {
    for (int k = 0; k < 2; ++k) s[k] = static_cast<uint64_t>(int64_t{seed.data<int32_t>()[k]});
  } else if (seed.dtype() == TG_INT64) {
    for (int k = 0; k < 2; ++k) s[k] = static_cast<uint64_t>(seed.data<int64_t>()[k]);
  } else {
    ctx.Fail(TG_INVALID_ARGUMENT, "seed must be int32 or int64");
    return false;
  }
  *out = FromSeeds(s[0], s[1]);
  return true;
}

// Reads the V2 ops' key (input 1, shape [1]), counter (input 2, a vector of at least 2) and
// alg (input 3, a scalar: 1 = Philox, 3 = auto-select, which is Philox on CPU).
bool ReadKeyCounterAlg(Context& ctx, Stream* out) {
  TensorView key = ctx.input(1), counter = ctx.input(2), alg = ctx.input(3);
  if (alg.rank() != 0) {
    ctx.Fail(TG_INVALID_ARGUMENT, "alg must be a scalar, not " + ShapeString(alg.dims()));
    return false;
  }
  const int32_t a = alg.data<int32_t>()[0];
  if (a != 1 && a != 3) {
    ctx.Fail(TG_INVALID_ARGUMENT,
             "Unsupported algorithm id: " + std::to_string(a) + " (CPU has Philox: 1, or 3)");
    return false;
  }
  if (key.rank() != 1 || key.dim(0) != 1) {
    ctx.Fail(TG_INVALID_ARGUMENT, "key must have shape [1], not " + ShapeString(key.dims()));
    return false;
  }
  if (counter.rank() != 1 || counter.dim(0) < 2) {
    ctx.Fail(TG_INVALID_ARGUMENT, "counter must be a vector with length at least 2; got shape " +
                                      ShapeString(counter.dims()));
    return false;
  }
  const uint64_t k = key.data<uint64_t>()[0];
  const uint64_t* c = counter.data<uint64_t>();
  out->key = {static_cast<uint32_t>(k), static_cast<uint32_t>(k >> 32)};
  out->counter = {static_cast<uint32_t>(c[0]), static_cast<uint32_t>(c[0] >> 32),
                  static_cast<uint32_t>(c[1]), static_cast<uint32_t>(c[1] >> 32)};
  return true;
}

// The output shape from the 1-D `shape` input (input 0); false after failing the node.
bool ReadShape(Context& ctx, std::vector<int64_t>* dims, int64_t* n) {
  if (!ReadIndexVector(ctx, 0, "shape", dims)) return false;
  for (size_t i = 0; i < dims->size(); ++i) {
    if ((*dims)[i] < 0) {
      ctx.Fail(TG_INVALID_ARGUMENT, "shape[" + std::to_string(i) + "] = " +
                                        std::to_string((*dims)[i]) + " must be non-negative");
      return false;
    }
  }
  return CheckedNumElements(ctx, *dims, n);
}

// Exact uniforms in [0, 1) from the low mantissa-width bits.
inline float UniformFloat(uint32_t x) {
  return static_cast<float>(x & 0x7fffffu) * (1.0f / 8388608.0f);
}
inline double UniformDouble(uint32_t hi, uint32_t lo) {
  const uint64_t bits = (uint64_t{hi & 0xfffffu} << 32) | lo;
  return static_cast<double>(bits) * (1.0 / 4503599627370496.0);
}

inline void BoxMullerFloat(uint32_t x0, uint32_t x1, float* z0, float* z1) {
  float u1 = UniformFloat(x0);
  if (u1 < 1.0e-7f) u1 = 1.0e-7f;
  // The angle is formed in double and rounded once, as TensorFlow's kernel does.
  const auto theta = static_cast<float>(2.0 * M_PI * static_cast<double>(UniformFloat(x1)));
  const float r = std::sqrt(-2.0f * std::log(u1));
  *z0 = std::sin(theta) * r;
  *z1 = std::cos(theta) * r;
}

inline void BoxMullerDouble(uint32_t x0, uint32_t x1, uint32_t x2, uint32_t x3, double* z0,
                            double* z1) {
  double u1 = UniformDouble(x0, x1);
  if (u1 < 1.0e-7) u1 = 1.0e-7;
  const double theta = 2.0 * M_PI * UniformDouble(x2, x3);
  const double r = std::sqrt(-2.0 * std::log(u1));
  *z0 = std::sin(theta) * r;
  *z1 = std::cos(theta) * r;
}

template <typename T>
constexpr int GroupSize() {
  return sizeof(T) == 8 ? 2 : 4;
}

// Each distribution fills one group of GroupSize<T>() outputs: Fill(stream, g, out).
template <typename T>
struct UniformDist {
  void Fill(const Stream& s, uint64_t g, T* out) const {
    const Block b = s.At(g);
    if constexpr (std::is_same_v<T, double>) {
      out[0] = UniformDouble(b[0], b[1]);
      out[1] = UniformDouble(b[2], b[3]);
    } else {
      for (size_t i = 0; i < 4; ++i) {
        if constexpr (std::is_same_v<T, Eigen::half>) {
          out[i] = static_cast<T>(static_cast<float>(b[i] & 0x3ffu) * (1.0f / 1024.0f));
        } else if constexpr (std::is_same_v<T, Eigen::bfloat16>) {
          out[i] = static_cast<T>(static_cast<float>(b[i] & 0x7fu) * (1.0f / 128.0f));
        } else {
          out[i] = UniformFloat(b[i]);
        }
      }
    }
  }
};

template <typename T>
struct NormalDist {
  void Fill(const Stream& s, uint64_t g, T* out) const {
    const Block b = s.At(g);
    if constexpr (std::is_same_v<T, double>) {
      BoxMullerDouble(b[0], b[1], b[2], b[3], &out[0], &out[1]);
    } else {
      float z[4];
      BoxMullerFloat(b[0], b[1], &z[0], &z[1]);
      BoxMullerFloat(b[2], b[3], &z[2], &z[3]);
      for (int i = 0; i < 4; ++i) out[i] = static_cast<T>(z[i]);
    }
  }
};

template <typename T>
struct TruncatedNormalDist {
  void Fill(const Stream& s, uint64_t g, T* out) const {
    constexpr int kGroup = GroupSize<T>();
    // Each group owns 256 words (64 blocks per output-word) of the stream.
    uint64_t block = g * static_cast<uint64_t>(kGroup * 256 / 4);
    Block words = s.At(block);
    size_t used = 0;
    auto next = [&]() {
      if (used == 4) {
        words = s.At(++block);
        used = 0;
      }
      return words[used++];
    };
    int filled = 0;
    while (true) {
      if constexpr (std::is_same_v<T, double>) {
        const uint32_t x0 = next(), x1 = next(), x2 = next(), x3 = next();
        double z[2];
        BoxMullerDouble(x0, x1, x2, x3, &z[0], &z[1]);
        for (double v : z) {
          if (std::abs(v) < 2.0) {
            out[filled++] = v;
            if (filled == kGroup) return;
          }
        }
      } else {
        const uint32_t x0 = next(), x1 = next();
        float z[2];
        BoxMullerFloat(x0, x1, &z[0], &z[1]);
        for (float v : z) {
          if (std::abs(v) < 2.0f) {
            out[filled++] = static_cast<T>(v);
            if (filled == kGroup) return;
          }
        }
      }
    }
  }
};

template <typename T>
using UnsignedOf = std::conditional_t<sizeof(T) == 8, uint64_t, uint32_t>;

// Full-range 32- or 64-bit words (a 64-bit one: first word low).
template <typename T>
inline void Words(const Block& b, UnsignedOf<T>* w) {
  if constexpr (sizeof(T) == 8) {
    w[0] = uint64_t{b[0]} | (uint64_t{b[1]} << 32);
    w[1] = uint64_t{b[2]} | (uint64_t{b[3]} << 32);
  } else {
    for (size_t i = 0; i < 4; ++i) w[i] = b[i];
  }
}

template <typename T>
struct UniformIntDist {
  UnsignedOf<T> lo = 0, range = 1;
  void Fill(const Stream& s, uint64_t g, T* out) const {
    UnsignedOf<T> w[4];
    Words<T>(s.At(g), w);
    for (int i = 0; i < GroupSize<T>(); ++i) out[i] = static_cast<T>(lo + w[i] % range);
  }
};

template <typename T>
struct FullIntDist {
  void Fill(const Stream& s, uint64_t g, T* out) const {
    UnsignedOf<T> w[4];
    Words<T>(s.At(g), w);
    for (int i = 0; i < GroupSize<T>(); ++i) out[i] = static_cast<T>(w[i]);
  }
};

// Fills `n` outputs group by group over the intra-op pool.
template <typename T, typename Dist>
void FillOutput(Context& ctx, const Stream& s, const Dist& dist, int64_t n, T* p,
                double cost_per_group) {
  constexpr int kGroup = GroupSize<T>();
  const int64_t groups = (n + kGroup - 1) / kGroup;
  ctx.ParallelFor(groups, cost_per_group, [&](int64_t b, int64_t e) {
    T tmp[kGroup];
    for (int64_t g = b; g < e; ++g) {
      dist.Fill(s, static_cast<uint64_t>(g), tmp);
      const int64_t first = g * kGroup;
      const int64_t count = std::min<int64_t>(kGroup, n - first);
      std::copy(tmp, tmp + count, p + first);
    }
  });
}

enum class Dist { kUniform, kNormal, kTruncatedNormal, kFullInt, kUniformInt };

// One kernel class for every op: kV2 picks the key/counter/alg inputs over the seed pair.
template <typename T, Dist kDist, bool kV2>
class StatelessRandomOp {
 public:
  explicit StatelessRandomOp(Construction&) {}
  void Compute(Context& ctx) {
    std::vector<int64_t> dims;
    int64_t n = 0;
    if (!ReadShape(ctx, &dims, &n)) return;
    Stream s;
    if (!(kV2 ? ReadKeyCounterAlg(ctx, &s) : ReadSeeds(ctx, 1, &s))) return;
    UniformIntDist<T> int_dist;
    if constexpr (kDist == Dist::kUniformInt) {
      const int first = kV2 ? 4 : 2;
      TensorView minval = ctx.input(first), maxval = ctx.input(first + 1);
      for (const TensorView* t : {&minval, &maxval}) {
        if (t->rank() != 0) {
          ctx.Fail(TG_INVALID_ARGUMENT, std::string(t == &minval ? "minval" : "maxval") +
                                            " must be 0-D, got shape " + ShapeString(t->dims()));
          return;
        }
      }
      const T lo = minval.data<T>()[0], hi = maxval.data<T>()[0];
      if (n > 0 && !(lo < hi)) {
        ctx.Fail(TG_INVALID_ARGUMENT,
                 "Need minval < maxval, got " + std::to_string(lo) + " >= " + std::to_string(hi));
        return;
      }
      int_dist.lo = static_cast<UnsignedOf<T>>(lo);
      int_dist.range = static_cast<UnsignedOf<T>>(static_cast<UnsignedOf<T>>(hi) - int_dist.lo);
    }
    TensorMut out = ctx.AllocateOutput(0, dims);
    if (!ctx.ok() || n == 0) return;
    T* p = out.mutable_data<T>();
    if constexpr (kDist == Dist::kUniform) {
      FillOutput(ctx, s, UniformDist<T>{}, n, p, 20.0);
    } else if constexpr (kDist == Dist::kNormal) {
      FillOutput(ctx, s, NormalDist<T>{}, n, p, 120.0);
    } else if constexpr (kDist == Dist::kTruncatedNormal) {
      FillOutput(ctx, s, TruncatedNormalDist<T>{}, n, p, 180.0);
    } else if constexpr (kDist == Dist::kFullInt) {
      FillOutput(ctx, s, FullIntDist<T>{}, n, p, 15.0);
    } else {
      FillOutput(ctx, s, int_dist, n, p, 20.0);
    }
  }
};

// StatelessShuffle: rows along dimension 0 permuted by the stream (see the file comment).
class StatelessShuffleOp {
 public:
  explicit StatelessShuffleOp(Construction&) {}
  void Compute(Context& ctx) {
    Stream s;
    if (!ReadKeyCounterAlg(ctx, &s)) return;
    TensorView in = ctx.input(0);
    if (in.rank() == 0 || in.dim(0) <= 1 || in.num_elements() <= 1) {
      ctx.SetOutputAlias(0, in, in.dims());
      return;
    }
    const size_t size = ElementSizeOrFail(ctx, in);
    if (size == 0) return;
    const int64_t rows = in.dim(0);
    if (rows > int64_t{0xffffffff}) {
      // TensorFlow draws 64-bit numbers for such sizes; that layout is not reproduced.
      ctx.Fail(TG_UNIMPLEMENTED, "StatelessShuffle of more than 2^32 - 1 rows");
      return;
    }
    std::vector<int64_t> perm(static_cast<size_t>(rows));
    for (int64_t i = 0; i < rows; ++i) perm[static_cast<size_t>(i)] = i;
    Block words{};
    for (int64_t i = 0; i + 1 < rows; ++i) {
      const auto k = static_cast<uint64_t>(i);
      if (k % 4 == 0) words = s.At(k / 4);
      const uint32_t bound = static_cast<uint32_t>(rows - i);
      const int64_t j = i + static_cast<int64_t>(words[k % 4] % bound);
      std::swap(perm[static_cast<size_t>(i)], perm[static_cast<size_t>(j)]);
    }
    TensorMut out = ctx.AllocateOutput(0, in.dims());
    if (!ctx.ok()) return;
    const size_t row_bytes = static_cast<size_t>(in.num_elements() / rows) * size;
    const auto* src = in.data<unsigned char>();
    auto* dst = out.mutable_data<unsigned char>();
    ctx.ParallelFor(rows, CopyCost(static_cast<int64_t>(row_bytes)), [&](int64_t b, int64_t e) {
      for (int64_t r = b; r < e; ++r) {
        std::memcpy(dst + static_cast<size_t>(r) * row_bytes,
                    src + static_cast<size_t>(perm[static_cast<size_t>(r)]) * row_bytes, row_bytes);
      }
    });
  }
};

// StatelessRandomGetKeyCounter(Alg): the seed pair's key [1] and counter [2] (and alg).
class GetKeyCounterOp {
 public:
  explicit GetKeyCounterOp(Construction&) {}
  void Compute(Context& ctx) {
    Stream s;
    if (!ReadSeeds(ctx, 0, &s)) return;
    TensorMut key = ctx.AllocateOutput(0, {1});
    TensorMut counter = ctx.AllocateOutput(1, {2});
    if (!ctx.ok()) return;
    key.mutable_data<uint64_t>()[0] = uint64_t{s.key[0]} | (uint64_t{s.key[1]} << 32);
    counter.mutable_data<uint64_t>()[0] = uint64_t{s.counter[0]} | (uint64_t{s.counter[1]} << 32);
    counter.mutable_data<uint64_t>()[1] = uint64_t{s.counter[2]} | (uint64_t{s.counter[3]} << 32);
    if (ctx.num_outputs() > 2) {
      TensorMut alg = ctx.AllocateOutput(2, std::vector<int64_t>{});
      if (ctx.ok()) alg.mutable_data<int32_t>()[0] = 1;
    }
  }
};

class GetAlgOp {
 public:
  explicit GetAlgOp(Construction&) {}
  void Compute(Context& ctx) {
    TensorMut alg = ctx.AllocateOutput(0, std::vector<int64_t>{});
    if (ctx.ok()) alg.mutable_data<int32_t>()[0] = 1;  // Philox, the CPU's algorithm
  }
};

KernelBuilder V1(const char* op, TG_DataType dtype) {
  return std::move(KernelBuilder(op, "CPU")
                       .TypeConstraint("dtype", dtype)
                       .TypeConstraint("T", TG_ARRAY_INDEX_TYPES)
                       .TypeConstraint("Tseed", TG_ARRAY_INDEX_TYPES)
                       .HostMemory("shape")
                       .HostMemory("seed"));
}

KernelBuilder V2(const char* op, TG_DataType dtype) {
  return std::move(KernelBuilder(op, "CPU")
                       .TypeConstraint("dtype", dtype)
                       .TypeConstraint("Tshape", TG_ARRAY_INDEX_TYPES)
                       .HostMemory("shape")
                       .HostMemory("key")
                       .HostMemory("counter")
                       .HostMemory("alg"));
}

template <typename T>
void RegisterFloat(tgraph::plugin::Init& init, TG_DataType dtype) {
  init.Kernel<StatelessRandomOp<T, Dist::kUniform, false>>(V1("StatelessRandomUniform", dtype));
  init.Kernel<StatelessRandomOp<T, Dist::kNormal, false>>(V1("StatelessRandomNormal", dtype));
  init.Kernel<StatelessRandomOp<T, Dist::kTruncatedNormal, false>>(
      V1("StatelessTruncatedNormal", dtype));
  init.Kernel<StatelessRandomOp<T, Dist::kUniform, true>>(V2("StatelessRandomUniformV2", dtype));
  init.Kernel<StatelessRandomOp<T, Dist::kNormal, true>>(V2("StatelessRandomNormalV2", dtype));
  init.Kernel<StatelessRandomOp<T, Dist::kTruncatedNormal, true>>(
      V2("StatelessTruncatedNormalV2", dtype));
}

template <typename T>
void RegisterFullInt(tgraph::plugin::Init& init, TG_DataType dtype) {
  init.Kernel<StatelessRandomOp<T, Dist::kFullInt, false>>(
      V1("StatelessRandomUniformFullInt", dtype));
  init.Kernel<StatelessRandomOp<T, Dist::kFullInt, true>>(
      V2("StatelessRandomUniformFullIntV2", dtype));
}

// TensorFlow's CPU kernels for the bounded ints are int32 and int64 only (the V2 op's
// uint32/uint64 have no CPU kernel there either).
template <typename T>
void RegisterUniformInt(tgraph::plugin::Init& init, TG_DataType dtype) {
  init.Kernel<StatelessRandomOp<T, Dist::kUniformInt, false>>(
      V1("StatelessRandomUniformInt", dtype).HostMemory("minval").HostMemory("maxval"));
  init.Kernel<StatelessRandomOp<T, Dist::kUniformInt, true>>(
      V2("StatelessRandomUniformIntV2", dtype).HostMemory("minval").HostMemory("maxval"));
}

}  // namespace

void RegisterStatelessRandomKernels(tgraph::plugin::Init& init) {
  RegisterFloat<float>(init, TG_FLOAT);
  RegisterFloat<double>(init, TG_DOUBLE);
  RegisterFloat<Eigen::half>(init, TG_HALF);
  RegisterFloat<Eigen::bfloat16>(init, TG_BFLOAT16);
  RegisterFullInt<int32_t>(init, TG_INT32);
  RegisterFullInt<int64_t>(init, TG_INT64);
  RegisterFullInt<uint32_t>(init, TG_UINT32);
  RegisterFullInt<uint64_t>(init, TG_UINT64);
  RegisterUniformInt<int32_t>(init, TG_INT32);
  RegisterUniformInt<int64_t>(init, TG_INT64);
  for (const char* op : {"StatelessRandomGetKeyCounter", "StatelessRandomGetKeyCounterAlg"}) {
    init.Kernel<GetKeyCounterOp>(KernelBuilder(op, "CPU")
                                     .TypeConstraint("Tseed", TG_ARRAY_INDEX_TYPES)
                                     .HostMemory("seed"));
  }
  init.Kernel<GetAlgOp>(KernelBuilder("StatelessRandomGetAlg", "CPU"));
  init.Kernel<StatelessShuffleOp>(KernelBuilder("StatelessShuffle", "CPU")
                                      .TypeConstraint("T", TG_ARRAY_MOVER_TYPES)
                                      .HostMemory("key")
                                      .HostMemory("counter")
                                      .HostMemory("alg"));
}

}  // namespace tgraph_cpu
