// Shared pieces of the CPU plugin's element-wise and reduction kernels: the dtype <-> C++
// type map, NumPy broadcasting in a collapsed form, 1-D Eigen segment evaluation, and the
// unary / binary kernel templates with their per-dtype registration helpers.
//
// Evaluation strategy (keeps Eigen's instantiations few):
//  - Broadcasting is reduced to "collapsed" dims: size-1 dims dropped and neighbours with the
//    same broadcast pattern merged. Same shapes and scalar-vs-tensor collapse to rank <= 1.
//  - Every binary op is evaluated on contiguous 1-D segments with one of three Eigen
//    expressions: (vector, vector), (scalar, vector), (vector, scalar). Rank <= 1 is one
//    segment split across ctx.ParallelFor; higher ranks are rows of the innermost collapsed
//    dim, walked with strides (any rank), rows split across ctx.ParallelFor.
//  - Unary ops evaluate one flat Eigen expression on the ThreadPoolDevice (eigen_device.h).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "eigen_device.h"
#include "tgraph/plugin.hpp"

namespace tgraph_cpu {

using tgraph::plugin::Construction;
using tgraph::plugin::Context;
using tgraph::plugin::Init;
using tgraph::plugin::KernelBuilder;
using tgraph::plugin::TensorInfo;
using tgraph::plugin::TensorMut;
using tgraph::plugin::TensorView;

using Eigen::bfloat16;
using Eigen::half;

static_assert(sizeof(half) == 2 && sizeof(bfloat16) == 2, "2-byte half/bfloat16 expected");

// ---- dtypes ----------------------------------------------------------------------------

template <typename T>
struct DTypeOf;
#define TGRAPH_CPU_DTYPE(T, DT)                        \
  template <>                                          \
  struct DTypeOf<T> {                                  \
    static constexpr TG_DataType value = DT;           \
  };
TGRAPH_CPU_DTYPE(float, TG_FLOAT)
TGRAPH_CPU_DTYPE(double, TG_DOUBLE)
TGRAPH_CPU_DTYPE(int32_t, TG_INT32)
TGRAPH_CPU_DTYPE(int64_t, TG_INT64)
TGRAPH_CPU_DTYPE(uint8_t, TG_UINT8)
TGRAPH_CPU_DTYPE(int8_t, TG_INT8)
TGRAPH_CPU_DTYPE(int16_t, TG_INT16)
TGRAPH_CPU_DTYPE(uint16_t, TG_UINT16)
TGRAPH_CPU_DTYPE(uint32_t, TG_UINT32)
TGRAPH_CPU_DTYPE(uint64_t, TG_UINT64)
TGRAPH_CPU_DTYPE(bool, TG_BOOL)
TGRAPH_CPU_DTYPE(half, TG_HALF)
TGRAPH_CPU_DTYPE(bfloat16, TG_BFLOAT16)
#undef TGRAPH_CPU_DTYPE

template <typename T>
inline constexpr bool kIsFloatLike = std::is_floating_point_v<T> || std::is_same_v<T, half> ||
                                     std::is_same_v<T, bfloat16>;

template <typename T>
struct TypeTag {
  using type = T;
};

// Calls f(TypeTag<T>{}) for the C++ type of `dtype`; false when the dtype has none here.
template <typename F>
bool DispatchDType(TG_DataType dtype, F&& f) {
  switch (dtype) {
    case TG_FLOAT: f(TypeTag<float>{}); return true;
    case TG_DOUBLE: f(TypeTag<double>{}); return true;
    case TG_INT32: f(TypeTag<int32_t>{}); return true;
    case TG_INT64: f(TypeTag<int64_t>{}); return true;
    case TG_UINT8: f(TypeTag<uint8_t>{}); return true;
    case TG_INT8: f(TypeTag<int8_t>{}); return true;
    case TG_INT16: f(TypeTag<int16_t>{}); return true;
    case TG_UINT16: f(TypeTag<uint16_t>{}); return true;
    case TG_UINT32: f(TypeTag<uint32_t>{}); return true;
    case TG_UINT64: f(TypeTag<uint64_t>{}); return true;
    case TG_BOOL: f(TypeTag<bool>{}); return true;
    case TG_HALF: f(TypeTag<half>{}); return true;
    case TG_BFLOAT16: f(TypeTag<bfloat16>{}); return true;
    default: return false;
  }
}

// "float", "int32", ... for messages.
inline const char* DTypeName(TG_DataType dtype) {
  switch (dtype) {
    case TG_FLOAT: return "float";
    case TG_DOUBLE: return "double";
    case TG_INT32: return "int32";
    case TG_INT64: return "int64";
    case TG_UINT8: return "uint8";
    case TG_INT8: return "int8";
    case TG_INT16: return "int16";
    case TG_UINT16: return "uint16";
    case TG_UINT32: return "uint32";
    case TG_UINT64: return "uint64";
    case TG_BOOL: return "bool";
    case TG_HALF: return "half";
    case TG_BFLOAT16: return "bfloat16";
    case TG_STRING: return "string";
    case TG_COMPLEX64: return "complex64";
    case TG_COMPLEX128: return "complex128";
    default: return "unsupported dtype";
  }
}

// "[2,3]", "[]" for a scalar.
inline std::string ShapeString(const std::vector<int64_t>& dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i > 0) s += ",";
    s += std::to_string(dims[i]);
  }
  return s + "]";
}

inline int64_t NumElements(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

// ---- registration ----------------------------------------------------------------------

// The parts of RegisterElementwiseKernels (cwise_binary.cc) and RegisterReductionKernels
// (reduction_ops.cc), one per file.
void RegisterBinaryKernels(Init& init);    // cwise_binary.cc
void RegisterUnaryKernels(Init& init);     // cwise_unary.cc
void RegisterCompareKernels(Init& init);   // cwise_compare.cc (comparisons, logical, Select)
void RegisterCastKernel(Init& init);       // cast_op.cc
void RegisterAddNKernel(Init& init);       // add_n.cc
void RegisterArgMinMaxKernels(Init& init); // argminmax.cc

// Registers K<T> for each T, constrained on `attr` (usually "T").
template <template <typename> class K, typename... Ts>
void RegisterTyped(Init& init, const char* op, double cost_ns = 0, const char* attr = "T") {
  (init.Kernel<K<Ts>>(KernelBuilder(op, "CPU")
                          .TypeConstraint(attr, DTypeOf<Ts>::value)
                          .CostPerElementNs(cost_ns)),
   ...);
}

// ---- axes ------------------------------------------------------------------------------

// Reads an int32/int64 scalar or vector of axes (reduction_indices, dimension) and maps each
// into [0, rank). Fails the node naming the bad value; false then.
inline bool ReadAxes(Context& ctx, const TensorView& t, int rank, const char* what,
                     std::vector<int>* axes) {
  if (t.rank() > 1) {
    ctx.Fail(TG_INVALID_ARGUMENT, std::string(what) + " must be a scalar or a vector, but has shape " +
                                      ShapeString(t.dims()));
    return false;
  }
  const int64_t n = t.num_elements();
  axes->clear();
  for (int64_t i = 0; i < n; ++i) {
    int64_t v;
    if (t.dtype() == TG_INT32) {
      v = t.data<int32_t>()[i];
    } else if (t.dtype() == TG_INT64) {
      v = t.data<int64_t>()[i];
    } else {
      ctx.Fail(TG_INVALID_ARGUMENT, std::string(what) + " must be int32 or int64, not " +
                                        DTypeName(t.dtype()));
      return false;
    }
    if (v < -rank || v >= rank) {
      ctx.Fail(TG_INVALID_ARGUMENT, "Invalid " + std::string(what) + " value " + std::to_string(v) +
                                        " for input with " + std::to_string(rank) +
                                        " dimension(s): must be in [" + std::to_string(-rank) +
                                        ", " + std::to_string(rank) + ")");
      return false;
    }
    axes->push_back(static_cast<int>(v < 0 ? v + rank : v));
  }
  return true;
}

// Threads in the context's intra-op pool (1 without one).
inline int PoolThreads(Context& ctx) {
  if (ctx.pool() == nullptr) return 1;
  const int n = ctx.num_threads();
  return n > 0 ? n : 1;
}

// ---- Eigen 1-D maps --------------------------------------------------------------------

template <typename T>
using Vec = Eigen::TensorMap<Eigen::Tensor<T, 1, Eigen::RowMajor, Eigen::Index>, Eigen::Unaligned>;
template <typename T>
using ConstVec =
    Eigen::TensorMap<Eigen::Tensor<const T, 1, Eigen::RowMajor, Eigen::Index>, Eigen::Unaligned>;

// ---- broadcasting ----------------------------------------------------------------------

// NumPy broadcasting of two shapes, with the collapsed form the kernels iterate over.
struct Broadcast {
  bool valid = true;
  std::vector<int64_t> out_dims;  // the result's shape
  // Collapsed: dims of the result that are > 1, neighbours with the same broadcast pattern
  // merged. Strides are in elements of each input, 0 along dims it broadcasts. Empty when
  // the result has one element (or none).
  std::vector<int64_t> dims, a_strides, b_strides;

  Broadcast(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
    const size_t rank = std::max(a.size(), b.size());
    out_dims.assign(rank, 1);
    std::vector<char> a_bcast, b_bcast;
    for (size_t i = 0; i < rank; ++i) {
      const int64_t da = i + a.size() >= rank ? a[i + a.size() - rank] : 1;
      const int64_t db = i + b.size() >= rank ? b[i + b.size() - rank] : 1;
      int64_t d;
      if (da == db) {
        d = da;
      } else if (da == 1) {
        d = db;
      } else if (db == 1) {
        d = da;
      } else {
        valid = false;
        return;
      }
      out_dims[i] = d;
      if (d == 1) continue;
      const char ab = da == 1, bb = db == 1;
      if (!dims.empty() && a_bcast.back() == ab && b_bcast.back() == bb) {
        dims.back() *= d;
      } else {
        dims.push_back(d);
        a_bcast.push_back(ab);
        b_bcast.push_back(bb);
      }
    }
    a_strides.assign(dims.size(), 0);
    b_strides.assign(dims.size(), 0);
    int64_t sa = 1, sb = 1;
    for (size_t i = dims.size(); i-- > 0;) {
      if (!a_bcast[i]) {
        a_strides[i] = sa;
        sa *= dims[i];
      }
      if (!b_bcast[i]) {
        b_strides[i] = sb;
        sb *= dims[i];
      }
    }
  }

  std::string Error(const std::vector<int64_t>& a, const std::vector<int64_t>& b) const {
    return "Incompatible shapes: " + ShapeString(a) + " vs. " + ShapeString(b);
  }
};

// One element (scalar graphs): F's expression on plain values, where F says it is the same
// operator (kScalarExpr), costs less than setting up an Eigen evaluation. False (nothing
// done) otherwise.
template <typename F, typename T, typename Out>
inline bool EvalOneElement(Out* out, const T* a, const T* b, int64_t n) {
  if constexpr (requires { F::kScalarExpr; }) {
    if (n == 1) {
      *out = static_cast<Out>(F::Expr(*a, *b));
      return true;
    }
  }
  return false;
}

// out[0, n) = F(a, b) on one contiguous segment; a scalar operand repeats its one value.
template <typename F, typename T, typename Out>
void EvalSegment(Out* out, const T* a, bool a_scalar, const T* b, bool b_scalar, Eigen::Index n) {
  if (EvalOneElement<F>(out, a, b, n)) return;
  Vec<Out> o(out, n);
  if (a_scalar) {
    ConstVec<T> bm(b, n);
    o = F::Expr(bm.constant(*a), bm);
  } else if (b_scalar) {
    ConstVec<T> am(a, n);
    o = F::Expr(am, am.constant(*b));
  } else {
    o = F::Expr(ConstVec<T>(a, n), ConstVec<T>(b, n));
  }
}

// The element-wise functors' kCost is relative: an add of floats is 1. What the pool's
// split needs is nanoseconds, and one cost unit is far less than the 1 ns the constants
// were first written as: a vectorized float add or multiply measured ~0.1 ns per element in
// cache and ~0.4 ns over fresh megabyte buffers (2-core EPYC VM, issue 20). Counting 1 ns
// split a 128x512 add (about 7 us of work) into three blocks, so a step of small ops paid a
// wake-up and a join per op, and waited for a helper the scheduler had not run yet.
inline constexpr double kNsPerCostUnit = 0.25;
inline constexpr double CostNs(double cost) { return cost * kNsPerCostUnit; }

// Is n elements at cost_ns each too little work to hand to the intra-op pool? (Its call and
// closure then cost more than they save; small graphs run many such kernels per step.)
inline bool TooSmallForPool(int64_t n, double cost_ns) {
  return static_cast<double>(n) * cost_ns < 10000;
}

// RunFlat's work split across the pool (out of line: the small case inlines without it).
template <typename F, typename T, typename Out>
[[gnu::noinline]] void RunFlatOnPool(Context& ctx, int64_t n, const T* a, bool a_scalar,
                                     const T* b, bool b_scalar, Out* out) {
  ctx.ParallelFor(n, CostNs(F::kCost), [&](int64_t begin, int64_t end) {
    EvalSegment<F>(out + begin, a_scalar ? a : a + begin, a_scalar, b_scalar ? b : b + begin,
                   b_scalar, end - begin);
  });
}

// out[0, n) = F(a, b) over one flat segment, split across the pool when large enough.
template <typename F, typename T, typename Out>
void RunFlat(Context& ctx, int64_t n, const T* a, bool a_scalar, const T* b, bool b_scalar,
             Out* out) {
  if (n == 0) return;
  if (EvalOneElement<F>(out, a, b, n)) return;  // here too: no call into EvalSegment
  if (TooSmallForPool(n, CostNs(F::kCost))) {
    EvalSegment<F>(out, a, a_scalar, b, b_scalar, n);
    return;
  }
  RunFlatOnPool<F>(ctx, n, a, a_scalar, b, b_scalar, out);
}

// Rows shorter than this go to RunShortRows when one operand is a vector along them.
inline constexpr int64_t kShortRow = 32;

// out = F(a, b) over `rows` rows of `inner` elements, one operand (`a` when `a_is_vector`,
// else `b`) a vector of `inner` values repeated for every row, the other and `out` dense: a
// per-channel operation over few channels (an RGB image normalized per channel, [N, H, W, 3]
// by [3]). Evaluated a row at a time, each row is too short to vectorize; here blocks of
// whole rows run against the vector repeated to the block's length. The same F on the same
// pairs of elements: the same values.
template <typename F, typename T, typename Out>
void RunShortRows(Context& ctx, int64_t rows, int64_t inner, const T* a, const T* b,
                  bool a_is_vector, Out* out) {
  const int64_t block_rows = std::max<int64_t>(1, 512 / inner);
  const int64_t blocks = (rows + block_rows - 1) / block_rows;
  const T* vector = a_is_vector ? a : b;
  const T* dense = a_is_vector ? b : a;
  ctx.ParallelFor(blocks, CostNs(F::kCost) * static_cast<double>(block_rows * inner),
                  [&](int64_t begin, int64_t end) {
    // (Not std::vector: for bool, it has no data().)
    const std::unique_ptr<T[]> repeated(new T[static_cast<size_t>(block_rows * inner)]);
    for (int64_t r = 0; r < block_rows; ++r) std::copy(vector, vector + inner, repeated.get() + r * inner);
    for (int64_t block = begin; block < end; ++block) {
      const int64_t first = block * block_rows * inner;
      const int64_t n = std::min(block_rows, rows - block * block_rows) * inner;
      if (a_is_vector) {
        EvalSegment<F>(out + first, repeated.get(), false, dense + first, false, n);
      } else {
        EvalSegment<F>(out + first, dense + first, false, repeated.get(), false, n);
      }
    }
  });
}

// Evaluates out = F(a, b) for a valid Broadcast `bc`; `out` holds NumElements(out_dims).
template <typename F, typename T, typename Out>
void RunBinary(Context& ctx, const Broadcast& bc, const T* a, const T* b, Out* out) {
  const int64_t n = NumElements(bc.out_dims);
  if (n == 0) return;
  const size_t r = bc.dims.size();
  if (r <= 1) {
    const bool a_scalar = r == 1 && bc.a_strides[0] == 0;
    const bool b_scalar = r == 1 && bc.b_strides[0] == 0;
    RunFlat<F>(ctx, n, a, a_scalar, b, b_scalar, out);
    return;
  }
  const int64_t inner = bc.dims[r - 1];
  const bool a_scalar = bc.a_strides[r - 1] == 0;
  const bool b_scalar = bc.b_strides[r - 1] == 0;
  const int64_t rows = n / inner;
  if (r == 2 && inner < kShortRow) {
    // One operand broadcasts along the rows and the other's rows are `inner` apart: then
    // both are dense along the inner dim (neighbouring collapsed dims differ in pattern).
    const bool a_vector = bc.a_strides[0] == 0 && bc.b_strides[0] == inner;
    const bool b_vector = bc.b_strides[0] == 0 && bc.a_strides[0] == inner;
    if (a_vector || b_vector) {
      RunShortRows<F>(ctx, rows, inner, a, b, a_vector, out);
      return;
    }
  }
  ctx.ParallelFor(rows, CostNs(F::kCost) * static_cast<double>(inner), [&](int64_t begin, int64_t end) {
    // Index of row `begin` over the outer collapsed dims, and the inputs' offsets there.
    std::vector<int64_t> idx(r - 1, 0);
    int64_t a_off = 0, b_off = 0;
    int64_t rem = begin;
    for (size_t i = r - 1; i-- > 0;) {
      idx[i] = rem % bc.dims[i];
      rem /= bc.dims[i];
      a_off += idx[i] * bc.a_strides[i];
      b_off += idx[i] * bc.b_strides[i];
    }
    for (int64_t row = begin; row < end; ++row) {
      EvalSegment<F>(out + row * inner, a + a_off, a_scalar, b + b_off, b_scalar, inner);
      for (size_t i = r - 1; i-- > 0;) {  // odometer step
        a_off += bc.a_strides[i];
        b_off += bc.b_strides[i];
        if (++idx[i] < bc.dims[i]) break;
        a_off -= bc.a_strides[i] * bc.dims[i];
        b_off -= bc.b_strides[i] * bc.dims[i];
        idx[i] = 0;
      }
    }
  });
}

// ---- kernel templates ------------------------------------------------------------------

// A binary op with broadcasting: F provides
//   static constexpr double kCost;                        // ns per element
//   template <class A, class B> static auto Expr(A, B);   // Eigen expression
//   optionally: static bool Check(Context&, const TensorInfo& y)  (e.g. Pow on integers)
// Inputs are read with input_info (one call each through the table): on scalars the calls
// cost more than the arithmetic.
template <typename T, typename F, typename Out = T>
class BinaryKernel {
 public:
  explicit BinaryKernel(Construction&) {}
  void Compute(Context& ctx) {
    const TensorInfo a = ctx.input_info(0), b = ctx.input_info(1);
    if (a.rank() == 0 || b.rank() == 0 || a.SameShape(b)) {
      return ComputeFlat(ctx, a, b);
    }
    const std::vector<int64_t> ad = a.dims_vector(), bd = b.dims_vector();
    const Broadcast bc(ad, bd);
    if (!bc.valid) return ctx.Fail(TG_INVALID_ARGUMENT, bc.Error(ad, bd));
    if constexpr (requires { F::Check(ctx, b); }) {
      if (!F::Check(ctx, b)) return;
    }
    TensorMut out;
    if constexpr (std::is_same_v<T, Out>) {
      // Element i of the output reads element i of an input with the output's shape only,
      // so that input's buffer can be overwritten in place.
      if (ad == bc.out_dims) {
        out = ctx.ForwardOrAllocateOutput(0, 0, bc.out_dims);
      } else if (bd == bc.out_dims) {
        out = ctx.ForwardOrAllocateOutput(1, 0, bc.out_dims);
      } else {
        out = ctx.AllocateOutput(0, bc.out_dims);
      }
    } else {
      out = ctx.AllocateOutput(0, bc.out_dims);
    }
    if (!ctx.ok() || !out.valid()) return;
    RunBinary<F>(ctx, bc, a.data<T>(), b.data<T>(), out.mutable_data<Out>());
  }

 private:
  // Same shapes, or a rank-0 operand: the result has the other operand's shape and is one
  // flat segment, so the broadcast analysis (and its vectors) is skipped. Small graphs of
  // scalars run this on every step.
  void ComputeFlat(Context& ctx, const TensorInfo& a, const TensorInfo& b) {
    if constexpr (requires { F::Check(ctx, b); }) {
      if (!F::Check(ctx, b)) return;
    }
    // The output has the shape of a (b when a is the rank-0 one); that input's buffer may
    // be overwritten in place.
    const bool out_is_b = a.rank() == 0 && b.rank() != 0;
    const TensorInfo& shaped = out_is_b ? b : a;
    TensorMut out;
    if constexpr (std::is_same_v<T, Out>) {
      out = ctx.ForwardOrAllocateOutput(out_is_b ? 1 : 0, 0, shaped.dims(), shaped.rank());
    } else {
      out = ctx.AllocateOutput(0, shaped.dims(), shaped.rank());
    }
    // Both ways of producing the output fail the node when they give no tensor.
    if (!out.valid()) return;
    const bool a_scalar = a.rank() == 0 && b.rank() != 0;
    const bool b_scalar = b.rank() == 0 && a.rank() != 0;
    RunFlat<F>(ctx, shaped.num_elements(), a.data<T>(), a_scalar, b.data<T>(), b_scalar,
               out.mutable_data<Out>());
  }
};

// A unary op: F provides kCost and `template <class A> static auto Expr(const A&)`.
template <typename T, typename F, typename Out = T>
class UnaryKernel {
 public:
  explicit UnaryKernel(Construction&) {}
  void Compute(Context& ctx) {
    const TensorInfo in = ctx.input_info(0);
    TensorMut out = std::is_same_v<T, Out>
                        ? ctx.ForwardOrAllocateOutput(0, 0, in.dims(), in.rank())
                        : ctx.AllocateOutput(0, in.dims(), in.rank());
    // Both ways of producing the output fail the node when they give no tensor.
    if (!out.valid()) return;
    const int64_t n = in.num_elements();
    if (n == 0) return;
    Vec<Out> o(out.mutable_data<Out>(), n);
    const ConstVec<T> x(in.data<T>(), n);
    if (TooSmallForPool(n, F::kCost)) {  // evaluated here, without the pool's device
      o = F::Expr(x);
      return;
    }
    EigenCpu eigen(ctx);
    o.device(eigen.device()) = F::Expr(x);
  }
};

// Binds F so the kernel templates fit RegisterTyped's K<T>.
template <typename F>
struct Binary {
  template <typename T>
  using Kernel = BinaryKernel<T, F>;
  template <typename T>
  using BoolKernel = BinaryKernel<T, F, bool>;
};
template <typename F>
struct Unary {
  template <typename T>
  using Kernel = UnaryKernel<T, F>;
};

}  // namespace tgraph_cpu
