// MatMul, _FusedMatMul (fp32 and bf16) and BatchMatMulV2 (fp32) on oneDNN's matmul
// primitive; an fp32 MatMul of 1024 rows or more (A not transposed) on oneDNN's sgemm
// instead (kSgemmPartRows); a bf16 one on CPUs that multiply bf16 no faster than fp32 on
// sgemm over widened operands (bf16_mode.h).
//
// The transposes never copy anything: a transposed operand is described to oneDNN by its
// strides (a [K, M] buffer read as the [M, K] matrix with strides {1, M}). Work is split over
// the intra-op pool as dnnl_context.h explains: MatMul by rows of the product, BatchMatMulV2
// by ranges of batch elements. BatchMatMulV2's broadcasting of the batch dimensions is
// oneDNN's own when one operand has a single matrix (a batch dimension of 1); other
// broadcasts (and any case oneDNN's batched matmul declines) run as one 2-D product per
// output matrix, so every shape the Eigen kernel accepts works here too. Checks and messages
// are the Eigen kernels'. _FusedMatMul is MatMul with the bias as the primitive's bias input
// and the activation as a post-op (fused_epilogue_dnnl.h): the product is written once.
#include <algorithm>
#include <string>
#include <type_traits>
#include <vector>

#include "bf16_bits.h"
#include "bf16_mode.h"
#include "dnnl_context.h"
#include "fused_epilogue_dnnl.h"
#include "kept_pack.h"
#include "batch_matmul_shape.h"
#include "nn_common.h"

namespace tgraph_onednn {
namespace {

using dnnl::memory;
using tgraph::plugin::Construction;
using tgraph::plugin::Context;
using tgraph_cpu::nn::BatchMatMulShape;
using tgraph_cpu::nn::GetBatchMatMulShape;
using tgraph_cpu::nn::ShapeString;

// One matmul primitive and the descriptors to wrap buffers with.
struct MatMulPrim {
  dnnl::matmul primitive;
  memory::desc src, weights, bias, dst, scratchpad;  // bias: empty unless fused
  bool reference = false;  // oneDNN's reference implementation (no optimised kernel took it)
};

// `batch` matrices (0: a plain 2-D matrix) of rows x cols with the given element strides,
// consecutive matrices `matrix_stride` apart.
memory::desc Matrices(int64_t batch, int64_t rows, int64_t cols, int64_t row_stride,
                      int64_t col_stride, int64_t matrix_stride,
                      memory::data_type type = memory::data_type::f32) {
  if (batch == 0) return memory::desc({rows, cols}, type, {row_stride, col_stride});
  return memory::desc({batch, rows, cols}, type, {matrix_stride, row_stride, col_stride});
}

// An operand stored as contiguous [stored_rows, stored_cols] matrices, read transposed when
// `transpose`, `rows` of its logical rows taken (its first logical dim).
memory::desc Operand(int64_t batch, int64_t rows, int64_t stored_rows, int64_t stored_cols,
                     bool transpose, memory::data_type type = memory::data_type::f32) {
  const int64_t cols = transpose ? stored_rows : stored_cols;
  return transpose ? Matrices(batch, rows, cols, 1, stored_cols, stored_rows * stored_cols, type)
                   : Matrices(batch, rows, cols, stored_cols, 1, stored_rows * stored_cols, type);
}

// bfloat16 as stored in a tensor: the upper half of a float's bits (oneDNN's bf16).
using BFloat16 = tgraph_cpu::BF16;

template <typename T>
constexpr memory::data_type kDnnlType = memory::data_type::f32;
template <>
constexpr memory::data_type kDnnlType<BFloat16> = memory::data_type::bf16;
template <typename T>
constexpr TG_DataType kTgType = TG_FLOAT;
template <>
constexpr TG_DataType kTgType<BFloat16> = TG_BFLOAT16;

inline float ToFloat(float x) { return x; }
inline float ToFloat(BFloat16 x) { return tgraph_cpu::F(x); }
template <typename T>
T FromFloat(float x) {
  if constexpr (std::is_same_v<T, float>) {
    return x;
  } else {
    return tgraph_cpu::ToBf16(x);
  }
}

// A product, with a bias and the epilogue's activation when `epilogue` is given (`bias`:
// a [1, N] row added to each row of the product).
MatMulPrim MakeMatMul(const memory::desc& src, const memory::desc& weights,
                      const memory::desc& dst, const FusedEpilogue* epilogue = nullptr,
                      const memory::desc& bias = memory::desc()) {
  OneThreadScope one_thread;
  const dnnl::matmul::desc desc = epilogue == nullptr
                                      ? dnnl::matmul::desc(src, weights, dst)
                                      : dnnl::matmul::desc(src, weights, bias, dst);
  const dnnl::matmul::primitive_desc pd(desc, EpilogueAttr(epilogue), CpuEngine());
  // The weights as the primitive reads them: the layout it chose where `weights` left the
  // choice to it (format any), else `weights` itself.
  return MatMulPrim{dnnl::matmul(pd), src, pd.weights_desc(), bias, dst, pd.scratchpad_desc(),
                    std::string(pd.impl_info_str()).rfind("ref", 0) == 0};
}

void RunMatMul(const MatMulPrim& p, const void* a, const void* b, void* out, void* scratch,
               const void* bias = nullptr) {
  std::unordered_map<int, memory> args = {{DNNL_ARG_SRC, Wrap(p.src, a)},
                                          {DNNL_ARG_WEIGHTS, Wrap(p.weights, b)},
                                          {DNNL_ARG_DST, Wrap(p.dst, out)}};
  if (bias != nullptr) args.emplace(DNNL_ARG_BIAS, Wrap(p.bias, bias));
  RunHere(p.primitive, p.scratchpad, scratch, std::move(args));
}

// A part of a product has at least this many rows (or columns, split when the product has
// few rows), so that each part keeps oneDNN's register blocking busy.
constexpr int64_t kMinPartRows = 16;
constexpr int64_t kMinPartColumns = 64;
// MatMul splits only from this many multiply-adds (4M: ~30 us on one core), above the
// plugin's shared 64^3 bound: word2vec's 128x128x64 products (1M multiply-adds, ~15-20 us
// on one core) took longer in two parts than in one (a wake-up and a join per call; on a
// busy 2-core machine 27 us against 19 us, median), and cost the step ~40% more CPU time;
// the LSTM's 32x128x512 loop-body products (2M, at the earlier 128^3 bound split in two)
// cost its step ~30% more CPU time split (2.5 against 1.7 ms per step, 20 iterations).
constexpr double kMinSplitProduct = 256.0 * 128.0 * 128.0;
// ... or when B has this many bytes: a product of few rows over large weights (a classifier
// at batch 1: ResNet50's 1 x 2048 x 1000, 8 MB of B) is bound by reading B from memory,
// which one core does at a fraction of the machine's bandwidth; split by columns, each
// thread reads its share.
constexpr double kMinSplitWeightBytes = 4.0 * 1024 * 1024;

// The primitives of a call split in parts: one for the parts of the full size and one for
// the last, shorter part (the same when the split is even).
struct SplitMatMul {
  Split split;
  MatMulPrim main, last;
  // Packed B (MatMul only): B is reordered once per call into `main.weights`, oneDNN's own
  // blocked layout, which every part then reads; otherwise each part reads B as stored and
  // packs the blocks it uses itself, so a split by rows packs all of B once per part.
  bool packed = false;
  dnnl::reorder pack;
  memory::desc pack_src, pack_scratchpad;  // B as stored; the reorder's scratchpad
  size_t ScratchBytes() const {
    return std::max(main.scratchpad.get_size(), last.scratchpad.get_size());
  }
  const MatMulPrim& For(int64_t part) const { return part == split.parts - 1 ? last : main; }
};

// fp32 MatMuls (not fused, A not transposed) of at least twice this many rows run on
// oneDNN's sgemm (gemm:jit, which packs the blocks it uses itself) in row parts of at least
// this many rows, instead of the matmul primitive (brgemm) over B packed once or kept packed:
// MatMul 1024 on 2 threads of an idle Xeon with AVX-512, interleaved against the packed
// brgemm in 8 parts of 128 rows (212 pairs): 2.5% less time (quartiles -1% to +6%) with 2
// parts of 512 rows, none with 4 of 256; one thread's sgemm on 512 rows ran 10-20% faster
// than brgemm on 128 rows of packed B (125 against 103 GFLOP/s on that machine).
constexpr int64_t kSgemmPartRows = 512;

// Packing B pays from this many rows of the product: the reorder reads and writes B once
// (about as much memory traffic as what each part's own packing costs), and the parts'
// kernels then run on blocked B; with few rows the reorder, run before the parts on one
// thread, costs more than it saves (128x784x512 on 2 threads: slower).
constexpr int64_t kMinPackedRows = 256;
// Rows per part when B is packed: parts are claimed by the pool's threads as they come
// free, so a part smaller than a thread's share evens out a thread that was held up (on a
// loaded machine, a core taken by another process) instead of waiting for it.
constexpr int64_t kPackedPartRows = 128;

// T: float, or BFloat16 (products accumulated in float by oneDNN, the result rounded to
// bfloat16 once, as the Eigen kernel does). kFused: _FusedMatMul (input 2 the bias).
template <typename T, bool kFused = false>
class MatMulOp {
 public:
  explicit MatMulOp(Construction& c) {
    if (!c.GetAttr("transpose_a", &trans_a_) || !c.GetAttr("transpose_b", &trans_b_)) return;
    if constexpr (kFused) epilogue_.Read(c);
  }

  void Compute(Context& ctx) {
    // B's version before its bytes are read: a write that starts later renumbers them.
    const uint64_t b_version = ctx.input_version(1);
    const auto a = ctx.input(0);
    const auto b = ctx.input(1);
    if (a.rank() != 2 || b.rank() != 2) {
      ctx.Fail(TG_INVALID_ARGUMENT, "MatMul needs 2-D inputs, got shapes " + ShapeString(a.dims()) +
                                        " and " + ShapeString(b.dims()));
      return;
    }
    const int64_t a_rows = a.dim(0), a_cols = a.dim(1), b_rows = b.dim(0), b_cols = b.dim(1);
    const int64_t m = trans_a_ ? a_cols : a_rows;
    const int64_t k = trans_a_ ? a_rows : a_cols;
    const int64_t k_b = trans_b_ ? b_cols : b_rows;
    const int64_t n = trans_b_ ? b_rows : b_cols;
    if (k != k_b) {
      ctx.Fail(TG_INVALID_ARGUMENT, "Matrix size-incompatible: In[0]: " + ShapeString(a.dims()) +
                                        ", In[1]: " + ShapeString(b.dims()) +
                                        " (transpose_a=" + (trans_a_ ? "true" : "false") +
                                        ", transpose_b=" + (trans_b_ ? "true" : "false") + ")");
      return;
    }
    auto out = ctx.AllocateOutput(0, {m, n});
    if (!ctx.ok()) return;
    // The fused op's bias is checked after the product's inputs, also for an empty product
    // (as the Eigen kernel does).
    if (kFused && !FusedEpilogue::CheckBias(ctx, kTgType<T>, n)) return;
    if (m == 0 || n == 0) return;
    T* o = out.mutable_data<T>();
    const T* bias = kFused ? ctx.input(2).data<T>() : nullptr;
    if (k == 0) {
      if constexpr (kFused) {
        for (int64_t j = 0; j < n; ++j) o[j] = FromFloat<T>(Activate(epilogue_, ToFloat(bias[j])));
        for (int64_t i = 1; i < m; ++i) std::copy(o, o + n, o + i * n);
      } else {
        std::fill(o, o + m * n, T{});
      }
      return;
    }
    if constexpr (std::is_same_v<T, BFloat16>) {
      if (Bf16ChoiceForThisCpu().mode == Bf16Mode::kWidened) {
        ComputeWidened(ctx, b_version, a.data<T>(), a_rows * a_cols, b.data<T>(), b_rows, b_cols,
                       bias, o, m, k, n, a_cols);
        return;
      }
    }
    // bf16 with A transposed: oneDNN 2.6's AMX matmul takes A row-major only (a transposed
    // one, a weight gradient's x^T, falls back to gemm:jit, 5-10x slower), so A is
    // transposed into a temp first and read as a plain [M, K] matrix.
    const T* pa = a.data<T>();
    tgraph::plugin::TensorMut a_copy;
    if (kTransposeBf16A && trans_a_) {
      a_copy = ctx.AllocateTemp(TG_BFLOAT16, {m, k});
      if (!ctx.ok()) return;
      TransposeInto(pa, a_rows, a_cols, a_copy.mutable_data<T>());
      pa = a_copy.mutable_data<T>();
    }
    const bool ta = trans_a_ && !kTransposeBf16A;
    const int64_t ar = ta || !trans_a_ ? a_rows : m, ac = ta || !trans_a_ ? a_cols : k;
    const double work = static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
    // Parts are row ranges of A and of the product (B read whole by each), or, for a
    // product of few rows, column ranges of B and of the product (A read whole by each).
    const double b_bytes = static_cast<double>(k) * static_cast<double>(n) * sizeof(T);
    int parts = work < kMinSplitProduct && b_bytes < kMinSplitWeightBytes
                    ? 1
                    : PartsFor(ctx, work, std::max(m, n / kMinPartColumns));
    bool by_columns = m < parts * kMinPartRows && n > m;
    if constexpr (std::is_same_v<T, float> && !kFused) {
      if (!trans_a_ && m >= 2 * kSgemmPartRows) {
        auto nothing = [](int64_t, int64_t) {};
        RunSgemm(ctx, parts, pa, b.data<T>(), o, m, k, n, a_cols, b_cols, nothing, nothing);
        return;
      }
    }
    // B kept packed across calls (KeptPackCache, kept_pack.h): then the reorder costs nothing per call,
    // for bfloat16 and for fewer rows too, and row parts all read the one pack.
    bool keep = false;
    std::shared_ptr<const KeptPack> kept = packed_b_.Find(b_version, &keep);
    // fp32 with few rows (under kMinPackedRows: B is not packed once per call) and more
    // columns: row parts would each copy all of B into oneDNN's blocked layout, column parts
    // copy their own columns only; and two parts per thread, claimed as threads come free,
    // let a thread that was held up be made up for by the other. Not bf16: oneDNN runs its
    // column blocks of B on gemm:jit instead of AMX (the MLP's layer 1: 0.26 against 0.21 ms).
    if (std::is_same_v<T, float> && parts > 1 && !by_columns && m < kMinPackedRows && n > m &&
        n >= 2 * parts * kMinPartColumns && kept == nullptr && !keep) {
      by_columns = true;
      parts *= 2;
    }
    // Many rows: B packed once, and more parts than threads (kPackedPartRows). fp32 only:
    // bfloat16 products run on AMX about 5x faster, so the reorder, on one thread before
    // the parts, is a 5x larger share of them; no gain was measured there (1024^3 on the
    // loaded VM: within the noise of the unchanged code, 0.9-1.0x).
    const bool pack = parts > 1 && !by_columns &&
                      ((std::is_same_v<T, float> && m >= kMinPackedRows) || kept != nullptr || keep);
    std::shared_ptr<const SplitMatMul> e;
    try {
      e = cache_.Get({m, k, n, parts, by_columns, pack}, [&] {
        SplitMatMul sm;
        sm.split = Split::Of(by_columns ? n : m, parts);
        const memory::desc b_stored = Operand(0, k, b_rows, b_cols, trans_b_, kType);
        if (pack) {
          // B's layout is the one oneDNN picks (format any) for the whole product (for a
          // part of few rows it keeps B as stored); every part then reads that one. Where
          // it keeps B as stored anyway, or declines, the plain parts below run instead.
          try {
            const FusedEpilogue* epilogue = kFused ? &epilogue_ : nullptr;
            const memory::desc bias = Matrices(0, 1, n, n, 1, 0, kType);
            auto make = [&](int64_t len, const memory::desc& weights) {
              return MakeMatMul(Operand(0, len, ar, ac, ta, kType), weights,
                                Matrices(0, len, n, n, 1, 0, kType), epilogue, bias);
            };
            const memory::desc blocked =
                make(m, memory::desc({k, n}, kType, memory::format_tag::any)).weights;
            if (blocked != b_stored) {
              sm.split = Split::Of(m, std::max<int64_t>(parts, m / kPackedPartRows));
              sm.main = make(sm.split.size, blocked);
              sm.last = sm.split.last == sm.split.size ? sm.main : make(sm.split.last, blocked);
              // A row range of a transposed A is a strided block that oneDNN's optimised
              // kernels decline with blocked B (its reference one would take it, ~100x
              // slower): such products keep B as stored.
              if (sm.main.reference || sm.last.reference) throw dnnl::error(dnnl_unimplemented, "");
              OneThreadScope one_thread;
              const dnnl::reorder::primitive_desc pack_pd(CpuEngine(), b_stored, CpuEngine(),
                                                          sm.main.weights, UserScratchpadAttr());
              sm.pack = dnnl::reorder(pack_pd);
              sm.pack_src = b_stored;
              sm.pack_scratchpad = pack_pd.scratchpad_desc();
              sm.packed = true;
              return sm;
            }
          } catch (const dnnl::error&) {
            // Unpacked parts below (a weight gradient's transposed A): two per thread,
            // claimed as threads come free, so that a thread held up by another process is
            // made up for (each part reads all of B, here the small [batch, N] gradient).
            sm.split = Split::Of(m, 2 * parts);
          }
        }
        auto make = [&](int64_t len) {
          const FusedEpilogue* epilogue = kFused ? &epilogue_ : nullptr;
          if (!by_columns) {
            return MakeMatMul(Operand(0, len, ar, ac, ta, kType),
                              Operand(0, k, b_rows, b_cols, trans_b_, kType),
                              Matrices(0, len, n, n, 1, 0, kType), epilogue,
                              Matrices(0, 1, n, n, 1, 0, kType));
          }
          // B's columns [c0, c0 + len): of a [K, N] buffer, or rows of a stored [N, K] one.
          return MakeMatMul(Operand(0, m, ar, ac, ta, kType),
                            trans_b_ ? Matrices(0, k, len, 1, b_cols, 0, kType)
                                     : Matrices(0, k, len, b_cols, 1, 0, kType),
                            Matrices(0, m, len, n, 1, 0, kType), epilogue,
                            Matrices(0, 1, len, len, 1, 0, kType));
        };
        sm.main = make(sm.split.size);
        sm.last = sm.split.last == sm.split.size ? sm.main : make(sm.split.last);
        return sm;
      });
    } catch (const dnnl::error& err) {
      FailWith(ctx, "matmul creation", err);
      return;
    }
    PartBuffers scratch(ctx, e->split.parts, e->ScratchBytes());
    if (!scratch.ok()) return;
    const T* pb = b.data<T>();
    if (e->packed) {
      if (kept != nullptr && kept->layout == e->main.weights) {
        pb = reinterpret_cast<const T*>(kept->bytes.get());  // B unchanged since it was packed
      } else {
        // Packed B into memory the kernel keeps (`keep`, or a pack for another product's
        // layout), else into a temp; either way the reorder's scratchpad in a temp.
        const size_t b_bytes = (e->main.weights.get_size() + 63) / 64 * 64;
        // (Out of memory for the kept pack: packed per call instead.)
        std::shared_ptr<KeptPack> fresh =
            keep || kept != nullptr ? KeptPack::New(b_bytes) : nullptr;
        PartBuffers packed_b(ctx, 1, (fresh != nullptr ? 0 : b_bytes) + e->pack_scratchpad.get_size());
        if (!packed_b.ok()) return;
        uint8_t* to = fresh != nullptr ? fresh->bytes.get() : static_cast<uint8_t*>(packed_b.at(0));
        void* pack_scratch = static_cast<uint8_t*>(packed_b.at(0)) + (fresh != nullptr ? 0 : b_bytes);
        try {
          RunHere(e->pack, e->pack_scratchpad, pack_scratch,
                  {{DNNL_ARG_FROM, Wrap(e->pack_src, pb)}, {DNNL_ARG_TO, Wrap(e->main.weights, to)}});
        } catch (const dnnl::error& err) {
          FailWith(ctx, "matmul weights reorder", err);
          return;
        }
        pb = reinterpret_cast<const T*>(to);
        if (fresh != nullptr) {
          fresh->version = b_version;
          fresh->layout = e->main.weights;
          kept = fresh;  // keeps the bytes alive for the parts below, whatever Store does
          packed_b_.Store(std::move(fresh));
        }
      }
      RunParts(ctx, e->split.parts, "matmul", [&](int64_t i) {
        const int64_t start = e->split.begin(i);
        RunMatMul(e->For(i), pa + (ta ? start : start * ac), pb, o + start * n, scratch.at(i),
                  bias);
      });
      return;
    }
    RunParts(ctx, e->split.parts, "matmul", [&](int64_t i) {
      const int64_t start = e->split.begin(i);
      if (by_columns) {
        RunMatMul(e->For(i), pa, pb + (trans_b_ ? start * b_cols : start), o + start, scratch.at(i),
                  kFused ? bias + start : nullptr);
        return;
      }
      // Row `start` of op(A): row `start` of A, or column `start` of the stored [K, M] matrix.
      RunMatMul(e->For(i), pa + (ta ? start : start * ac), pb, o + start * n,
                scratch.at(i), bias);
    });
  }

 private:
  static constexpr memory::data_type kType = kDnnlType<T>;
  static constexpr bool kTransposeBf16A = std::is_same_v<T, BFloat16>;

  // dst[M, K] = the stored [K, M] matrix src transposed, in 32x32 tiles.
  static void TransposeInto(const T* src, int64_t rows, int64_t cols, T* dst) {
    constexpr int64_t kTile = 32;
    for (int64_t r0 = 0; r0 < rows; r0 += kTile) {
      for (int64_t c0 = 0; c0 < cols; c0 += kTile) {
        const int64_t r1 = std::min(r0 + kTile, rows), c1 = std::min(c0 + kTile, cols);
        for (int64_t c = c0; c < c1; ++c) {
          for (int64_t r = r0; r < r1; ++r) dst[c * rows + r] = src[r * cols + c];
        }
      }
    }
  }

  // out[M, N] = op(A) op(B) (A and B as stored, row strides `lda` and `ldb`, read transposed
  // when trans_a_ / trans_b_) on oneDNN's sgemm, in row parts of at least kSgemmPartRows
  // rows: one per thread (`threads`: 1 for a small product), two when each still has that
  // many. `prepare(first_row, rows)` runs on each part's rows of op(A) before (the part reads
  // those), `finish(first_row, rows)` on its rows of the product after.
  template <typename Prepare, typename Finish>
  bool RunSgemm(Context& ctx, int64_t threads, const float* a, const float* b, float* out,
                int64_t m, int64_t k, int64_t n, int64_t lda, int64_t ldb, Prepare&& prepare,
                Finish&& finish) {
    const int64_t per_thread =
        threads <= 1 ? 1 : std::clamp<int64_t>(m / (threads * kSgemmPartRows), 1, 2);
    const Split split = Split::Of(m, threads * per_thread);
    const char trans_a = trans_a_ ? 'T' : 'N', trans_b = trans_b_ ? 'T' : 'N';
    return RunParts(ctx, split.parts, "sgemm", [&](int64_t i) {
      const int64_t r0 = split.begin(i);
      prepare(r0, split.length(i));
      {
        OneThreadScope one_thread;  // sgemm's parallel loop on this thread only
        // Row r0 of op(A): row r0 of A, or column r0 of the stored [K, M] matrix.
        const dnnl_status_t status =
            dnnl_sgemm(trans_a, trans_b, split.length(i), n, k, 1.0f, trans_a_ ? a + r0 : a + r0 * lda,
                       lda, b, ldb, 0.0f, out + r0 * n, n);
        if (status != dnnl_success) throw dnnl::error(status, "sgemm");
      }
      finish(r0, split.length(i));
    });
  }

  // A bfloat16 product computed in fp32 (Bf16Mode::kWidened): B widened exactly into a temp,
  // then sgemm in row parts, each widening its rows of A first and rounding its rows of the
  // product (with the bias and activation when fused) to bfloat16 once after, in cache.
  // Widened B is kept across calls while B's version stays, as packed B is (KeptPackCache, kept_pack.h):
  // a frozen graph's bf16 weights are widened once.
  void ComputeWidened(Context& ctx, uint64_t b_version, const T* a, int64_t a_size, const T* b,
                      int64_t b_rows, int64_t b_cols, const T* bias, T* out, int64_t m, int64_t k,
                      int64_t n, int64_t lda) {
    const int64_t b_size = b_rows * b_cols;
    const memory::desc b_layout = Matrices(0, b_rows, b_cols, b_cols, 1, 0);
    bool keep = false;
    std::shared_ptr<const KeptPack> kept = packed_b_.Find(b_version, &keep);
    const float* b32 = kept != nullptr && kept->layout == b_layout
                           ? reinterpret_cast<const float*>(kept->bytes.get())
                           : nullptr;
    // (Out of memory for the kept copy: widened per call instead.)
    std::shared_ptr<KeptPack> fresh =
        b32 == nullptr && (keep || kept != nullptr)
            ? KeptPack::New(static_cast<size_t>(b_size) * sizeof(float))
            : nullptr;
    // B is widened into the kept buffer, into the temp after A, or not at all (kept).
    const bool b_in_temp = b32 == nullptr && fresh == nullptr;
    auto widened = ctx.AllocateTemp(TG_FLOAT, {a_size + (b_in_temp ? b_size : 0)});
    auto product = ctx.AllocateTemp(TG_FLOAT, {m, n});
    if (!ctx.ok()) return;
    float* a32 = widened.mutable_data<float>();
    float* b_to = b32 != nullptr ? nullptr
                  : fresh != nullptr ? reinterpret_cast<float*>(fresh->bytes.get())
                                     : a32 + a_size;
    float* p = product.mutable_data<float>();
    const double work = static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
    const int threads =
        work < kMinSplitProduct ? 1 : PartsFor(ctx, work, std::max<int64_t>(m / kMinPartRows, 1));
    // B first (unless kept), in element ranges; A's rows in the part that reads them.
    if (b_to != nullptr) {
      const Split widen = Split::Of(b_size, threads);
      const bool widened_ok = RunParts(ctx, widen.parts, "bf16 widening", [&](int64_t i) {
        const int64_t begin = widen.begin(i), end = begin + widen.length(i);
        for (int64_t e = begin; e < end; ++e) b_to[e] = ToFloat(b[e]);
      });
      if (!widened_ok) return;
    }
    if (b32 == nullptr) b32 = b_to;
    if (fresh != nullptr) {
      fresh->version = b_version;
      fresh->layout = b_layout;
      kept = fresh;  // keeps the bytes alive for the product below, whatever Store does
      packed_b_.Store(std::move(fresh));
    }
    // Rows [r0, r0 + rows) of op(A): those rows of A, or those columns of the stored [K, M].
    auto widen_a = [&](int64_t r0, int64_t rows) {
      if (!trans_a_) {
        for (int64_t e = r0 * lda; e < (r0 + rows) * lda; ++e) a32[e] = ToFloat(a[e]);
        return;
      }
      for (int64_t kk = 0; kk < k; ++kk) {
        for (int64_t e = kk * lda + r0; e < kk * lda + r0 + rows; ++e) a32[e] = ToFloat(a[e]);
      }
    };
    RunSgemm(ctx, threads, a32, b32, p, m, k, n, lda, b_cols, widen_a, [&](int64_t r0, int64_t rows) {
      for (int64_t r = r0; r < r0 + rows; ++r) {
        const float* from = p + r * n;
        T* to = out + r * n;
        if constexpr (kFused) {
          for (int64_t j = 0; j < n; ++j) to[j] = FromFloat<T>(Activate(epilogue_, from[j] + ToFloat(bias[j])));
        } else {
          for (int64_t j = 0; j < n; ++j) to[j] = FromFloat<T>(from[j]);
        }
      }
    });
  }

  bool trans_a_ = false;
  bool trans_b_ = false;
  FusedEpilogue epilogue_;  // kFused only
  PrimitiveCache<SplitMatMul> cache_;
  KeptPackCache packed_b_;
};

// BatchMatMulV2's primitives: oneDNN's batched matmul over ranges of batch elements, or
// (`per_matrix`) one 2-D product run once per output matrix (in `main`).
struct BatchEntry {
  bool per_matrix = false;
  SplitMatMul matmul;
};

class BatchMatMulOp {
 public:
  explicit BatchMatMulOp(Construction& c) {
    if (!c.GetAttr("adj_x", &adj_x_)) return;
    c.GetAttr("adj_y", &adj_y_);
  }

  void Compute(Context& ctx) {
    const auto x = ctx.input(0);
    const auto y = ctx.input(1);
    const std::vector<int64_t> xd = x.dims(), yd = y.dims();
    BatchMatMulShape shape;
    if (!GetBatchMatMulShape(ctx, xd, yd, adj_x_, adj_y_, &shape)) return;
    const int64_t m = shape.m, k = shape.k, n = shape.n, batches = shape.batches;
    const int64_t x_rows = shape.x_rows, x_cols = shape.x_cols;
    const int64_t y_rows = shape.y_rows, y_cols = shape.y_cols;
    const std::vector<int64_t>& x_batch = shape.x_batch;
    const std::vector<int64_t>& y_batch = shape.y_batch;
    const std::vector<int64_t>& out_batch = shape.out_batch;
    const size_t rx = xd.size(), rank = out_batch.size();
    std::vector<int64_t> out_dims = out_batch;
    out_dims.push_back(m);
    out_dims.push_back(n);
    auto out = ctx.AllocateOutput(0, out_dims);
    if (!ctx.ok() || batches == 0 || m == 0 || n == 0) return;
    float* o = out.mutable_data<float>();
    if (k == 0) {
      std::fill(o, o + batches * m * n, 0.0f);
      return;
    }
    const double work = static_cast<double>(batches) * static_cast<double>(m) *
                        static_cast<double>(n) * static_cast<double>(k);
    const int parts = PartsFor(ctx, work, batches);
    // Each operand holds a matrix per output matrix (`full`) or a single one (`single`);
    // anything else broadcasts some batch dims only and runs per matrix.
    const bool x_full = x_batch == out_batch, y_full = y_batch == out_batch;
    const bool x_single = std::all_of(x_batch.begin(), x_batch.end(), [](int64_t d) { return d == 1; });
    const bool y_single = std::all_of(y_batch.begin(), y_batch.end(), [](int64_t d) { return d == 1; });
    // The key: the part count, then both operands' dims (they fix the output's).
    std::vector<int64_t> key = {parts, static_cast<int64_t>(rx)};
    key.insert(key.end(), xd.begin(), xd.end());
    key.insert(key.end(), yd.begin(), yd.end());
    std::shared_ptr<const BatchEntry> entry;
    try {
      entry = cache_.Get(key, [&] {
        BatchEntry e;
        e.matmul.split = Split::Of(batches, parts);
        if ((x_full || x_single) && (y_full || y_single)) {
          auto make = [&](int64_t nb) {
            return MakeMatMul(Operand(x_full ? nb : 1, m, x_rows, x_cols, adj_x_),
                              Operand(y_full ? nb : 1, k, y_rows, y_cols, adj_y_),
                              Matrices(nb, m, n, n, 1, m * n));
          };
          try {
            e.matmul.main = make(e.matmul.split.size);
            e.matmul.last = e.matmul.split.last == e.matmul.split.size
                                ? e.matmul.main
                                : make(e.matmul.split.last);
            return e;
          } catch (const dnnl::error&) {
            // Declined: one 2-D product per output matrix below.
          }
        }
        e.per_matrix = true;
        e.matmul.main = MakeMatMul(Operand(0, m, x_rows, x_cols, adj_x_),
                                   Operand(0, k, y_rows, y_cols, adj_y_), Matrices(0, m, n, n, 1, 0));
        e.matmul.last = e.matmul.main;
        return e;
      });
    } catch (const dnnl::error& e) {
      FailWith(ctx, "matmul creation", e);
      return;
    }
    const SplitMatMul& sm = entry->matmul;
    PartBuffers scratch(ctx, sm.split.parts, sm.ScratchBytes());
    if (!scratch.ok()) return;
    const float* px = x.data<float>();
    const float* py = y.data<float>();
    const int64_t x_size = x_rows * x_cols, y_size = y_rows * y_cols, o_size = m * n;
    if (!entry->per_matrix) {
      RunParts(ctx, sm.split.parts, "batched matmul", [&](int64_t i) {
        const int64_t b0 = sm.split.begin(i);
        RunMatMul(sm.For(i), px + (x_full ? b0 * x_size : 0), py + (y_full ? b0 * y_size : 0),
                  o + b0 * o_size, scratch.at(i));
      });
      return;
    }
    // Each output matrix's x and y (in matrices), walking the broadcast batch index.
    std::vector<int64_t> x_index(static_cast<size_t>(batches)), y_index(x_index.size());
    {
      std::vector<int64_t> idx(rank, 0);
      for (int64_t b = 0; b < batches; ++b) {
        int64_t xi = 0, yi = 0;
        for (size_t d = 0; d < rank; ++d) {
          xi = xi * x_batch[d] + (x_batch[d] == 1 ? 0 : idx[d]);
          yi = yi * y_batch[d] + (y_batch[d] == 1 ? 0 : idx[d]);
        }
        x_index[static_cast<size_t>(b)] = xi;
        y_index[static_cast<size_t>(b)] = yi;
        for (size_t d = rank; d-- > 0;) {
          if (++idx[d] < out_batch[d]) break;
          idx[d] = 0;
        }
      }
    }
    RunParts(ctx, sm.split.parts, "matmul", [&](int64_t i) {
      for (int64_t b = sm.split.begin(i); b < sm.split.begin(i) + sm.split.length(i); ++b) {
        const size_t bi = static_cast<size_t>(b);
        RunMatMul(sm.main, px + x_index[bi] * x_size, py + y_index[bi] * y_size, o + b * o_size,
                  scratch.at(i));
      }
    });
  }

 private:
  bool adj_x_ = false;
  bool adj_y_ = false;
  PrimitiveCache<BatchEntry> cache_;
};

}  // namespace

void RegisterMatMulKernels(tgraph::plugin::Init& init) {
  init.Kernel<MatMulOp<float>>(tgraph::plugin::KernelBuilder("MatMul", "CPU")
                                   .TypeConstraint("T", TG_FLOAT)
                                   .Priority(kOneDnnPriority));
  // _FusedMatMul at MatMul's priority: the plan-time fusion (core/rewrite/fusion.cc) fuses
  // only when the fused kernel ranks at least as high as the product's own.
  init.Kernel<MatMulOp<float, true>>(tgraph::plugin::KernelBuilder("_FusedMatMul", "CPU")
                                         .TypeConstraint("T", TG_FLOAT)
                                         .Priority(kOneDnnPriority));
  // bfloat16 on every CPU: oneDNN's own kernels where they are faster than fp32, else
  // computed in fp32 (bf16_mode.h), at Bf16Priority() either way.
  init.Kernel<MatMulOp<BFloat16>>(tgraph::plugin::KernelBuilder("MatMul", "CPU")
                                      .TypeConstraint("T", TG_BFLOAT16)
                                      .Priority(Bf16Priority()));
  init.Kernel<MatMulOp<BFloat16, true>>(tgraph::plugin::KernelBuilder("_FusedMatMul", "CPU")
                                            .TypeConstraint("T", TG_BFLOAT16)
                                            .Priority(Bf16Priority()));
  init.Kernel<BatchMatMulOp>(tgraph::plugin::KernelBuilder("BatchMatMulV2", "CPU")
                                 .TypeConstraint("T", TG_FLOAT)
                                 .Priority(kOneDnnPriority));
}

}  // namespace tgraph_onednn
