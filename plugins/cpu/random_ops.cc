// RandomUniform, RandomStandardNormal, TruncatedNormal (half, bfloat16, float, double),
// RandomUniformInt (int32, int64) and RandomShuffle (any plain dtype). Seeding and the
// generator are described in random_kernels.h: the same (seed, seed2) give the same numbers
// in a fresh kernel; both 0 is nondeterministic.
//
// Work is split into groups of G outputs; group g of a call takes block (base + g) of the
// kernel's Philox stream, so results are the same however the groups are spread over
// threads. TruncatedNormal redraws values outside [-2, 2] from side streams of the group's
// block.
#include <Eigen/Core>
#include <algorithm>
#include <cstring>
#include <memory>
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
using random::Source;
using tgraph::plugin::KernelBuilder;

// Reads the seeds and creates the stream.
std::unique_ptr<Source> MakeSource(Construction& c) {
  int64_t seed = 0, seed2 = 0;
  c.GetAttr("seed", &seed);
  c.GetAttr("seed2", &seed2);
  return std::make_unique<Source>(seed, seed2);
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

enum class Dist { kUniform, kNormal, kTruncatedNormal };

// Fills `out` with G values from one group's block(s).
template <typename T, Dist kDist>
struct Group {
  static constexpr bool kDouble = std::is_same_v<T, double>;
  static constexpr int kSize = kDist == Dist::kTruncatedNormal ? 2 : (kDouble ? 2 : 4);

  static void Fill(const Source& src, uint64_t position, T* out) {
    if constexpr (kDist == Dist::kUniform) {
      const Block b = src.At(position);
      if constexpr (kDouble) {
        out[0] = random::Uniform01(b[0], b[1]);
        out[1] = random::Uniform01(b[2], b[3]);
      } else {
        for (int i = 0; i < 4; ++i) out[i] = UniformNarrow(b[static_cast<size_t>(i)]);
      }
    } else if constexpr (kDist == Dist::kNormal) {
      const Block b = src.At(position);
      if constexpr (kDouble) {
        random::BoxMuller(random::Uniform01(b[0], b[1]), random::Uniform01(b[2], b[3]), &out[0],
                          &out[1]);
      } else {
        float z[4];
        random::BoxMuller(random::Uniform01(b[0]), random::Uniform01(b[1]), &z[0], &z[1]);
        random::BoxMuller(random::Uniform01(b[2]), random::Uniform01(b[3]), &z[2], &z[3]);
        for (int i = 0; i < 4; ++i) out[i] = static_cast<T>(z[i]);
      }
    } else {
      int filled = 0;
      for (uint32_t attempt = 0; filled < 2; ++attempt) {
        const Block b = src.At(position, attempt);
        using F = std::conditional_t<kDouble, double, float>;
        F z[2];
        if constexpr (kDouble) {
          random::BoxMuller(random::Uniform01(b[0], b[1]), random::Uniform01(b[2], b[3]), &z[0],
                            &z[1]);
        } else {
          random::BoxMuller(random::Uniform01(b[0]), random::Uniform01(b[1]), &z[0], &z[1]);
        }
        for (int i = 0; i < 2 && filled < 2; ++i) {
          if (std::abs(z[i]) < F(2)) out[filled++] = static_cast<T>(z[i]);
        }
      }
    }
  }

  // A uniform in [0, 1) that stays below 1 after rounding to T: half and bfloat16 take as
  // many random bits as their mantissa holds (k / 2^bits is exact).
  static T UniformNarrow(uint32_t x) {
    if constexpr (std::is_same_v<T, Eigen::half>) {
      return static_cast<T>(static_cast<float>(x >> 22) * (1.0f / 1024.0f));
    } else if constexpr (std::is_same_v<T, Eigen::bfloat16>) {
      return static_cast<T>(static_cast<float>(x >> 25) * (1.0f / 128.0f));
    } else {
      return random::Uniform01(x);
    }
  }
};

template <typename T, Dist kDist>
class RandomOp {
 public:
  explicit RandomOp(Construction& c) : source_(MakeSource(c)) {}
  void Compute(Context& ctx) {
    std::vector<int64_t> dims;
    int64_t n = 0;
    if (!ReadShape(ctx, &dims, &n)) return;
    TensorMut out = ctx.AllocateOutput(0, dims);
    if (!ctx.ok() || n == 0) return;
    using G = Group<T, kDist>;
    const int64_t groups = (n + G::kSize - 1) / G::kSize;
    const uint64_t base = source_->Reserve(static_cast<uint64_t>(groups));
    T* p = out.mutable_data<T>();
    const double cost = kDist == Dist::kUniform ? 10.0 : 80.0;
    ctx.ParallelFor(groups, cost, [&](int64_t b, int64_t e) {
      T tmp[G::kSize];
      for (int64_t g = b; g < e; ++g) {
        G::Fill(*source_, base + static_cast<uint64_t>(g), tmp);
        const int64_t first = g * G::kSize;
        const int64_t count = std::min<int64_t>(G::kSize, n - first);
        for (int64_t i = 0; i < count; ++i) p[first + i] = tmp[i];
      }
    });
  }

 private:
  std::unique_ptr<Source> source_;
};

template <typename T>
class RandomUniformIntOp {
 public:
  explicit RandomUniformIntOp(Construction& c) : source_(MakeSource(c)) {}
  void Compute(Context& ctx) {
    std::vector<int64_t> dims;
    int64_t n = 0;
    if (!ReadShape(ctx, &dims, &n)) return;
    TensorView minval = ctx.input(1), maxval = ctx.input(2);
    if (minval.rank() != 0 || maxval.rank() != 0) {
      ctx.Fail(TG_INVALID_ARGUMENT, "minval and maxval must be scalars, got shapes " +
                                        ShapeString(minval.dims()) + " and " +
                                        ShapeString(maxval.dims()));
      return;
    }
    TensorMut out = ctx.AllocateOutput(0, dims);
    if (!ctx.ok() || n == 0) return;
    const T lo = minval.data<T>()[0], hi = maxval.data<T>()[0];
    if (!(lo < hi)) {
      ctx.Fail(TG_INVALID_ARGUMENT,
               "Need minval < maxval: " + std::to_string(lo) + " >= " + std::to_string(hi));
      return;
    }
    const uint64_t range = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo);
    constexpr int kSize = sizeof(T) == 4 ? 4 : 2;
    const int64_t groups = (n + kSize - 1) / kSize;
    const uint64_t base = source_->Reserve(static_cast<uint64_t>(groups));
    T* p = out.mutable_data<T>();
    ctx.ParallelFor(groups, 10.0, [&](int64_t b, int64_t e) {
      for (int64_t g = b; g < e; ++g) {
        const Block blk = source_->At(base + static_cast<uint64_t>(g));
        uint64_t bits[4];
        if constexpr (kSize == 4) {
          for (int i = 0; i < 4; ++i) bits[i] = blk[static_cast<size_t>(i)];
        } else {
          bits[0] = (uint64_t{blk[0]} << 32) | blk[1];
          bits[1] = (uint64_t{blk[2]} << 32) | blk[3];
        }
        const int64_t first = g * kSize;
        const int64_t count = std::min<int64_t>(kSize, n - first);
        for (int64_t i = 0; i < count; ++i) {
          p[first + i] = static_cast<T>(static_cast<uint64_t>(lo) + bits[i] % range);
        }
      }
    });
  }

 private:
  std::unique_ptr<Source> source_;
};

// Shuffles rows (dimension 0) with Fisher-Yates; one block per two swaps.
class RandomShuffleOp {
 public:
  explicit RandomShuffleOp(Construction& c) : source_(MakeSource(c)) {}
  void Compute(Context& ctx) {
    TensorView in = ctx.input(0);
    if (in.rank() == 0 || in.dim(0) <= 1 || in.num_elements() <= 1) {
      ctx.SetOutputAlias(0, in, in.dims());
      return;
    }
    const size_t size = ElementSizeOrFail(ctx, in);
    if (size == 0) return;
    const int64_t rows = in.dim(0);
    std::vector<int64_t> perm(static_cast<size_t>(rows));
    for (int64_t i = 0; i < rows; ++i) perm[static_cast<size_t>(i)] = i;
    const uint64_t swaps = static_cast<uint64_t>(rows - 1);
    const uint64_t base = source_->Reserve((swaps + 1) / 2);
    for (uint64_t k = 0; k < swaps; ++k) {
      const Block b = source_->At(base + k / 2);
      const uint64_t bits =
          k % 2 == 0 ? (uint64_t{b[0]} << 32) | b[1] : (uint64_t{b[2]} << 32) | b[3];
      const uint64_t i = static_cast<uint64_t>(rows) - 1 - k;  // rows-1 down to 1
      const uint64_t j = bits % (i + 1);
      std::swap(perm[i], perm[j]);
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

 private:
  std::unique_ptr<Source> source_;
};

template <typename T>
void RegisterFloatRandom(tgraph::plugin::Init& init, TG_DataType dtype) {
  auto builder = [dtype](const char* op) {
    return KernelBuilder(op, "CPU")
        .TypeConstraint("dtype", dtype)
        .TypeConstraint("T", TG_ARRAY_INDEX_TYPES)
        .HostMemory("shape");
  };
  init.Kernel<RandomOp<T, Dist::kUniform>>(builder("RandomUniform"));
  init.Kernel<RandomOp<T, Dist::kNormal>>(builder("RandomStandardNormal"));
  init.Kernel<RandomOp<T, Dist::kTruncatedNormal>>(builder("TruncatedNormal"));
}

}  // namespace

void RegisterRandomKernels(tgraph::plugin::Init& init) {
  RegisterFloatRandom<float>(init, TG_FLOAT);
  RegisterFloatRandom<double>(init, TG_DOUBLE);
  RegisterFloatRandom<Eigen::half>(init, TG_HALF);
  RegisterFloatRandom<Eigen::bfloat16>(init, TG_BFLOAT16);
  init.Kernel<RandomUniformIntOp<int32_t>>(KernelBuilder("RandomUniformInt", "CPU")
                                               .TypeConstraint("Tout", TG_INT32)
                                               .TypeConstraint("T", TG_ARRAY_INDEX_TYPES)
                                               .HostMemory("shape"));
  init.Kernel<RandomUniformIntOp<int64_t>>(KernelBuilder("RandomUniformInt", "CPU")
                                               .TypeConstraint("Tout", TG_INT64)
                                               .TypeConstraint("T", TG_ARRAY_INDEX_TYPES)
                                               .HostMemory("shape"));
  init.Kernel<RandomShuffleOp>(
      KernelBuilder("RandomShuffle", "CPU").TypeConstraint("T", TG_ARRAY_MOVER_TYPES));
  if (init.ok()) RegisterCandidateSamplerKernels(init);
  if (init.ok()) RegisterStatelessRandomKernels(init);
}

}  // namespace tgraph_cpu
