// Segment reductions: the sorted Segment{Sum,Mean,Prod,Max,Min}, UnsortedSegment{Sum,Max,
// Min,Prod}, SparseSegment{Sum,Mean,SqrtN}{,WithNumSegments} and the gradients' helpers
// SparseSegment{Sum,Mean,SqrtN}Grad. Data is seen as [rows, inner]; every op combines whole
// rows into output rows with one Reducer (what an empty segment holds and how two values
// combine), so the four families share the loops and differ in how rows are chosen.
// Empty segments hold what TensorFlow's CPU kernels give: 0 for the sorted ops (1 for
// SegmentProd), the reducer's identity for the unsorted ones (lowest for Max, highest for
// Min), 0 for the sparse ones.
#include <Eigen/Core>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "array_kernel_util.h"
#include "cpu_kernels.h"
#include "nn_common.h"

namespace tgraph_cpu {
namespace {

using namespace array_util;
using nn::DTypeOf;
using tgraph::plugin::KernelBuilder;

struct SumR {
  template <typename T> static T Identity() { return T(0); }
  template <typename T> static void Combine(T& acc, T v) { acc += v; }
};
struct ProdR {
  template <typename T> static T Identity() { return T(1); }
  template <typename T> static void Combine(T& acc, T v) { acc *= v; }
};
struct MaxR {
  template <typename T> static T Identity() { return std::numeric_limits<T>::lowest(); }
  template <typename T> static void Combine(T& acc, T v) { acc = v > acc ? v : acc; }
};
struct MinR {
  template <typename T> static T Identity() { return std::numeric_limits<T>::max(); }
  template <typename T> static void Combine(T& acc, T v) { acc = v < acc ? v : acc; }
};

// What the sorted and sparse ops divide a segment's sum by.
enum class Scale { kNone, kMean, kSqrtN };

template <typename T>
void ScaleRow(T* row, int64_t inner, int64_t count, Scale scale) {
  if (scale == Scale::kNone || count == 0) return;
  if (scale == Scale::kMean) {
    const T c = static_cast<T>(count);
    for (int64_t j = 0; j < inner; ++j) row[j] /= c;
  } else {
    const T c = static_cast<T>(std::sqrt(static_cast<double>(count)));
    for (int64_t j = 0; j < inner; ++j) row[j] /= c;
  }
}

// The segment id vector of a sorted op: rank 1 with one id per data row.
bool ReadSortedIds(Context& ctx, int i, int64_t rows, const char* size_message,
                   std::vector<int64_t>* ids) {
  TensorView t = ctx.input(i);
  if (t.rank() != 1) {
    ctx.Fail(TG_INVALID_ARGUMENT, "segment_ids should be a vector, got shape " +
                                      ShapeString(t.dims()));
    return false;
  }
  if (t.dim(0) != rows) {
    ctx.Fail(TG_INVALID_ARGUMENT, size_message);
    return false;
  }
  *ids = IndexValues(t);
  return true;
}

// Sorted ids in [0, limit): TensorFlow's two messages, in its order (a decrease after id i is
// reported before id i's range: "not increasing", then "out of range"). with_num: the limit
// was given.
bool CheckSorted(Context& ctx, const std::vector<int64_t>& ids, int64_t limit, bool with_num) {
  for (size_t i = 0; i < ids.size(); ++i) {
    if (i + 1 < ids.size() && ids[i + 1] < ids[i]) {
      ctx.Fail(TG_INVALID_ARGUMENT, "segment ids are not increasing");
      return false;
    }
    if (ids[i] < 0 || ids[i] >= limit) {
      ctx.Fail(TG_INVALID_ARGUMENT,
               with_num && ids[i] >= limit
                   ? std::string("segment ids must be < num_segments")
                   : "Segment id " + std::to_string(ids[i]) + " out of range [0, " +
                         std::to_string(limit) +
                         "), possibly because 'segment_ids' input is not sorted.");
      return false;
    }
  }
  return true;
}

// Reduces data row rows[i] into output row ids[i] (ids sorted): each worker owns whole
// segments. `empty` fills the rows no id names.
template <typename T, typename R>
void ReduceSorted(Context& ctx, const T* data, const std::vector<int64_t>& rows,
                  const std::vector<int64_t>& ids, int64_t inner, T* out, int64_t out_rows,
                  T empty, Scale scale) {
  std::fill(out, out + out_rows * inner, empty);
  // Segment starts, so segments can be split across workers.
  std::vector<size_t> starts;
  for (size_t i = 0; i < ids.size(); ++i) {
    if (i == 0 || ids[i] != ids[i - 1]) starts.push_back(i);
  }
  starts.push_back(ids.size());
  const int64_t segs = static_cast<int64_t>(starts.size()) - 1;
  const double cost = static_cast<double>(inner) * (1.0 + static_cast<double>(ids.size()) /
                                                              std::max<int64_t>(segs, 1));
  ctx.ParallelFor(segs, cost, [&](int64_t b, int64_t e) {
    for (int64_t s = b; s < e; ++s) {
      const size_t first = starts[static_cast<size_t>(s)], last = starts[static_cast<size_t>(s) + 1];
      T* o = out + ids[first] * inner;
      std::copy(data + rows[first] * inner, data + (rows[first] + 1) * inner, o);
      for (size_t i = first + 1; i < last; ++i) {
        const T* src = data + rows[i] * inner;
        for (int64_t j = 0; j < inner; ++j) R::Combine(o[j], src[j]);
      }
      ScaleRow(o, inner, static_cast<int64_t>(last - first), scale);
    }
  });
}

// ---- Segment*(data, segment_ids) ----

template <typename T, typename R, Scale kScale>
class SegmentOp {
 public:
  explicit SegmentOp(Construction&) {}
  void Compute(Context& ctx) {
    TensorView data = ctx.input(0);
    const std::vector<int64_t> dims = data.dims();
    if (dims.empty()) {
      ctx.Fail(TG_INVALID_ARGUMENT, "data must be at least rank 1");
      return;
    }
    std::vector<int64_t> ids;
    if (!ReadSortedIds(ctx, 1, dims[0],
                       "segment_ids should be the same size as dimension 0 of input.", &ids)) {
      return;
    }
    const int64_t out_rows = ids.empty() ? 0 : ids.back() + 1;
    if (!CheckSorted(ctx, ids, out_rows, false)) return;
    std::vector<int64_t> out_dims = dims;
    out_dims[0] = out_rows;
    TensorMut out = ctx.AllocateOutput(0, out_dims);
    if (!ctx.ok()) return;
    const int64_t inner = Product(dims, 1, dims.size());
    std::vector<int64_t> rows(ids.size());
    for (size_t i = 0; i < rows.size(); ++i) rows[i] = static_cast<int64_t>(i);
    // An empty sorted segment is 0, except SegmentProd's 1.
    const T empty = std::is_same_v<R, ProdR> ? T(1) : T(0);
    ReduceSorted<T, R>(ctx, data.data<T>(), rows, ids, inner, out.mutable_data<T>(), out_rows,
                       empty, kScale);
  }
};

// ---- UnsortedSegment*(data, segment_ids, num_segments) ----

// data starts with the dims of segment_ids; negative ids are dropped, ids >= num_segments fail.
template <typename T, typename R>
class UnsortedSegmentOp {
 public:
  explicit UnsortedSegmentOp(Construction&) {}
  void Compute(Context& ctx) {
    TensorView data = ctx.input(0);
    TensorView ids = ctx.input(1);
    TensorView num_t = ctx.input(2);
    if (num_t.rank() != 0) {
      ctx.Fail(TG_INVALID_ARGUMENT,
               "num_segments should be a scalar, not shape " + ShapeString(num_t.dims()));
      return;
    }
    const int64_t num = IndexValues(num_t)[0];
    if (num < 0) {
      ctx.Fail(TG_INVALID_ARGUMENT,
               "num_segments must be non-negative, got " + std::to_string(num));
      return;
    }
    const std::vector<int64_t> dims = data.dims();
    const std::vector<int64_t> id_dims = ids.dims();
    if (dims.size() < id_dims.size() ||
        !std::equal(id_dims.begin(), id_dims.end(), dims.begin())) {
      ctx.Fail(TG_INVALID_ARGUMENT, "data.shape = " + ShapeString(dims) +
                                        " does not start with segment_ids.shape = " +
                                        ShapeString(id_dims));
      return;
    }
    std::vector<int64_t> out_dims{num};
    out_dims.insert(out_dims.end(), dims.begin() + static_cast<ptrdiff_t>(id_dims.size()),
                    dims.end());
    int64_t out_n = 0;
    if (!CheckedNumElements(ctx, out_dims, &out_n)) return;
    const std::vector<int64_t> seg = IndexValues(ids);
    const int64_t rows = static_cast<int64_t>(seg.size());
    for (int64_t r = 0; r < rows; ++r) {
      if (seg[static_cast<size_t>(r)] >= num) {
        ctx.Fail(TG_INVALID_ARGUMENT,
                 BadIndexMessage(r, id_dims, seg[static_cast<size_t>(r)], num, "segment_ids"));
        return;
      }
    }
    TensorMut out = ctx.AllocateOutput(0, out_dims);
    if (!ctx.ok()) return;
    T* o = out.mutable_data<T>();
    std::fill(o, o + out_n, R::template Identity<T>());
    const int64_t inner = Product(out_dims, 1, out_dims.size());
    if (rows == 0 || inner == 0) return;
    const T* in = data.data<T>();
    // Columns are independent: each worker combines every row into its own column range, so
    // no two workers touch one output element.
    ctx.ParallelFor(inner, static_cast<double>(rows), [&](int64_t b, int64_t e) {
      for (int64_t r = 0; r < rows; ++r) {
        const int64_t s = seg[static_cast<size_t>(r)];
        if (s < 0) continue;
        const T* src = in + r * inner;
        T* dst = o + s * inner;
        for (int64_t c = b; c < e; ++c) R::Combine(dst[c], src[c]);
      }
    });
  }
};

// ---- SparseSegment*(data, indices, segment_ids[, num_segments]) ----

template <typename T, Scale kScale>
class SparseSegmentOp {
 public:
  explicit SparseSegmentOp(Construction& c) : with_num_(c.num_inputs() == 4) {}
  void Compute(Context& ctx) {
    TensorView data = ctx.input(0);
    const std::vector<int64_t> dims = data.dims();
    if (dims.empty()) {
      ctx.Fail(TG_INVALID_ARGUMENT, "data must be at least rank 1");
      return;
    }
    std::vector<int64_t> indices, ids;
    if (!ReadIndexVector(ctx, 1, "indices", &indices)) return;
    if (!ReadSortedIds(ctx, 2, static_cast<int64_t>(indices.size()),
                       "segment_ids and indices should have same size.", &ids)) {
      return;
    }
    int64_t out_rows = ids.empty() ? 0 : ids.back() + 1;
    if (with_num_) {
      if (!ReadIndexScalar(ctx, 3, "num_segments", &out_rows)) return;
      if (out_rows < 0) {
        ctx.Fail(TG_INVALID_ARGUMENT,
                 "num_segments must be non-negative, got " + std::to_string(out_rows));
        return;
      }
    }
    if (!CheckSorted(ctx, ids, out_rows, with_num_)) return;
    for (size_t i = 0; i < indices.size(); ++i) {
      if (indices[i] < 0 || indices[i] >= dims[0]) {
        ctx.Fail(TG_INVALID_ARGUMENT, "Bad: indices[" + std::to_string(i) + "] == " +
                                          std::to_string(indices[i]) + " out of range [0, " +
                                          std::to_string(dims[0]) + ")");
        return;
      }
    }
    std::vector<int64_t> out_dims = dims;
    out_dims[0] = out_rows;
    TensorMut out = ctx.AllocateOutput(0, out_dims);
    if (!ctx.ok()) return;
    ReduceSorted<T, SumR>(ctx, data.data<T>(), indices, ids, Product(dims, 1, dims.size()),
                          out.mutable_data<T>(), out_rows, T(0), kScale);
  }

 private:
  bool with_num_;
};

// ---- SparseSegment*Grad(grad, indices, segment_ids, output_dim0) ----

// output[indices[i]] += grad[segment_ids[i]] * weight(segment_ids[i]): the sparse
// reductions' gradient (weight 1, 1 / count, 1 / sqrt(count)).
template <typename T, Scale kScale>
class SparseSegmentGradOp {
 public:
  explicit SparseSegmentGradOp(Construction&) {}
  void Compute(Context& ctx) {
    TensorView grad = ctx.input(0);
    const std::vector<int64_t> dims = grad.dims();
    if (dims.empty()) {
      ctx.Fail(TG_INVALID_ARGUMENT, "grad must be at least rank 1");
      return;
    }
    std::vector<int64_t> indices, ids;
    int64_t out_rows = 0;
    if (!ReadIndexVector(ctx, 1, "indices", &indices) ||
        !ReadIndexVector(ctx, 2, "segment_ids", &ids) ||
        !ReadIndexScalar(ctx, 3, "output_dim0", &out_rows)) {
      return;
    }
    if (indices.size() != ids.size()) {
      ctx.Fail(TG_INVALID_ARGUMENT, "segment_ids and indices should have same size.");
      return;
    }
    if (out_rows < 0) {
      ctx.Fail(TG_INVALID_ARGUMENT, "output_dim0 must be non-negative, got " +
                                        std::to_string(out_rows));
      return;
    }
    const int64_t segs = dims[0];
    std::vector<int64_t> count(static_cast<size_t>(segs), 0);
    for (size_t i = 0; i < ids.size(); ++i) {
      if (ids[i] < 0 || ids[i] >= segs) {
        ctx.Fail(TG_INVALID_ARGUMENT, "Segment id " + std::to_string(ids[i]) +
                                          " out of range [0, " + std::to_string(segs) + ")");
        return;
      }
      if (indices[i] < 0 || indices[i] >= out_rows) {
        ctx.Fail(TG_INVALID_ARGUMENT, "Index " + std::to_string(indices[i]) +
                                          " out of range [0, " + std::to_string(out_rows) + ")");
        return;
      }
      ++count[static_cast<size_t>(ids[i])];
    }
    std::vector<int64_t> out_dims = dims;
    out_dims[0] = out_rows;
    TensorMut out = ctx.AllocateOutput(0, out_dims);
    if (!ctx.ok()) return;
    const int64_t inner = Product(dims, 1, dims.size());
    T* o = out.mutable_data<T>();
    std::fill(o, o + out_rows * inner, T(0));
    const T* g = grad.data<T>();
    for (size_t i = 0; i < ids.size(); ++i) {
      const double c = static_cast<double>(count[static_cast<size_t>(ids[i])]);
      const T w = kScale == Scale::kNone ? T(1)
                  : kScale == Scale::kMean ? T(1.0 / c)
                                           : T(1.0 / std::sqrt(c));
      const T* src = g + ids[i] * inner;
      T* dst = o + indices[i] * inner;
      for (int64_t j = 0; j < inner; ++j) dst[j] += src[j] * w;
    }
  }
};

template <typename T>
KernelBuilder Typed(const char* op) {
  return KernelBuilder(op, "CPU").TypeConstraint("T", DTypeOf<T>::value);
}

template <typename T>
void RegisterSortedAndUnsorted(tgraph::plugin::Init& init) {
  auto sorted = [](const char* op) { return Typed<T>(op).TypeConstraint("Tindices", TG_ARRAY_INDEX_TYPES); };
  init.Kernel<SegmentOp<T, SumR, Scale::kNone>>(sorted("SegmentSum"));
  init.Kernel<SegmentOp<T, SumR, Scale::kMean>>(sorted("SegmentMean"));
  init.Kernel<SegmentOp<T, ProdR, Scale::kNone>>(sorted("SegmentProd"));
  init.Kernel<SegmentOp<T, MaxR, Scale::kNone>>(sorted("SegmentMax"));
  init.Kernel<SegmentOp<T, MinR, Scale::kNone>>(sorted("SegmentMin"));
  auto unsorted = [](const char* op) {
    return Typed<T>(op)
        .TypeConstraint("Tindices", TG_ARRAY_INDEX_TYPES)
        .TypeConstraint("Tnumsegments", TG_ARRAY_INDEX_TYPES)
        .HostMemory("num_segments");
  };
  init.Kernel<UnsortedSegmentOp<T, SumR>>(unsorted("UnsortedSegmentSum"));
  init.Kernel<UnsortedSegmentOp<T, MaxR>>(unsorted("UnsortedSegmentMax"));
  init.Kernel<UnsortedSegmentOp<T, MinR>>(unsorted("UnsortedSegmentMin"));
  init.Kernel<UnsortedSegmentOp<T, ProdR>>(unsorted("UnsortedSegmentProd"));
}

template <typename T, Scale kScale>
void RegisterSparse(tgraph::plugin::Init& init, const char* op) {
  auto b = [](const std::string& name) {
    return Typed<T>(name.c_str())
        .TypeConstraint("Tidx", TG_ARRAY_INDEX_TYPES)
        .TypeConstraint("Tsegmentids", TG_ARRAY_INDEX_TYPES);
  };
  init.Kernel<SparseSegmentOp<T, kScale>>(b(op));
  init.Kernel<SparseSegmentOp<T, kScale>>(
      b(std::string(op) + "WithNumSegments")
          .TypeConstraint("Tnumsegments", TG_ARRAY_INDEX_TYPES)
          .HostMemory("num_segments"));
}

template <typename T>
void RegisterSparseGrads(tgraph::plugin::Init& init) {
  auto b = [](const char* name) {
    return Typed<T>(name)
        .TypeConstraint("Tidx", TG_ARRAY_INDEX_TYPES)
        .TypeConstraint("Tsegmentids", TG_ARRAY_INDEX_TYPES)
        .HostMemory("output_dim0");
  };
  init.Kernel<SparseSegmentGradOp<T, Scale::kNone>>(b("SparseSegmentSumGrad"));
  init.Kernel<SparseSegmentGradOp<T, Scale::kMean>>(b("SparseSegmentMeanGrad"));
  init.Kernel<SparseSegmentGradOp<T, Scale::kSqrtN>>(b("SparseSegmentSqrtNGrad"));
}

}  // namespace

void RegisterSegmentReductionKernels(tgraph::plugin::Init& init) {
  // half and bfloat16 combine in their own precision, as TensorFlow's reducers do.
  RegisterSortedAndUnsorted<float>(init);
  RegisterSortedAndUnsorted<double>(init);
  RegisterSortedAndUnsorted<int32_t>(init);
  RegisterSortedAndUnsorted<int64_t>(init);
  RegisterSortedAndUnsorted<Eigen::half>(init);
  RegisterSortedAndUnsorted<Eigen::bfloat16>(init);
  RegisterSparse<float, Scale::kNone>(init, "SparseSegmentSum");
  RegisterSparse<double, Scale::kNone>(init, "SparseSegmentSum");
  RegisterSparse<int32_t, Scale::kNone>(init, "SparseSegmentSum");
  RegisterSparse<int64_t, Scale::kNone>(init, "SparseSegmentSum");
  RegisterSparse<Eigen::half, Scale::kNone>(init, "SparseSegmentSum");
  RegisterSparse<Eigen::bfloat16, Scale::kNone>(init, "SparseSegmentSum");
  RegisterSparse<float, Scale::kMean>(init, "SparseSegmentMean");
  RegisterSparse<double, Scale::kMean>(init, "SparseSegmentMean");
  RegisterSparse<Eigen::half, Scale::kMean>(init, "SparseSegmentMean");
  RegisterSparse<Eigen::bfloat16, Scale::kMean>(init, "SparseSegmentMean");
  RegisterSparse<float, Scale::kSqrtN>(init, "SparseSegmentSqrtN");
  RegisterSparse<double, Scale::kSqrtN>(init, "SparseSegmentSqrtN");
  RegisterSparse<Eigen::half, Scale::kSqrtN>(init, "SparseSegmentSqrtN");
  RegisterSparse<Eigen::bfloat16, Scale::kSqrtN>(init, "SparseSegmentSqrtN");
  RegisterSparseGrads<float>(init);
  RegisterSparseGrads<double>(init);
  RegisterSparseGrads<Eigen::half>(init);
  RegisterSparseGrads<Eigen::bfloat16>(init);
}

}  // namespace tgraph_cpu
