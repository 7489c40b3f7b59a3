// Kernels of the miscellaneous array ops (core/ops/array_misc_ops.cc): ClipByValue,
// EnsureShape and CheckNumerics{,V2} (their input passed through, or the run fails with
// TensorFlow's message), Roll, Concat (v1), LinSpace, Bucketize, LowerBound / UpperBound,
// Cross, InTopKV2 and Empty.
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
#include "nn_common.h"

namespace tgraph_cpu {
namespace {

using namespace array_util;
using nn::DTypeOf;
using tgraph::plugin::KernelBuilder;

// ---- ClipByValue ----

template <typename T>
class ClipByValueOp {
 public:
  explicit ClipByValueOp(Construction&) {}
  void Compute(Context& ctx) {
    TensorView t = ctx.input(0), lo = ctx.input(1), hi = ctx.input(2);
    const std::vector<int64_t> dims = t.dims();
    auto fits = [&](const TensorView& b) { return b.rank() == 0 || b.dims() == dims; };
    if (!fits(lo) || !fits(hi)) {
      ctx.Fail(TG_INVALID_ARGUMENT,
               "clip_value_min and clip_value_max must be either of the same shape as input, or "
               "a scalar. input shape: " + ShapeString(dims) + "clip_value_min shape: " +
                   ShapeString(lo.dims()) + "clip_value_max shape: " + ShapeString(hi.dims()));
      return;
    }
    TensorMut out = ctx.ForwardOrAllocateOutput(0, 0, dims);
    const int64_t n = t.num_elements();
    if (!ctx.ok() || n == 0) return;
    const T* x = t.data<T>();
    const T* l = lo.data<T>();
    const T* h = hi.data<T>();
    const bool lo_scalar = lo.rank() == 0, hi_scalar = hi.rank() == 0;
    T* o = out.mutable_data<T>();
    ctx.ParallelFor(n, 2.0, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        const T upper = h[hi_scalar ? 0 : i], lower = l[lo_scalar ? 0 : i];
        const T v = x[i] < upper ? x[i] : upper;  // min(t, max), then max(., min): TF's order
        o[i] = v < lower ? lower : v;
      }
    });
  }
};

// ---- EnsureShape ----

class EnsureShapeOp {
 public:
  explicit EnsureShapeOp(Construction& c) { c.GetShapeAttr("shape", &want_, &known_rank_); }
  void Compute(Context& ctx) {
    TensorView in = ctx.input(0);
    const std::vector<int64_t> dims = in.dims();
    bool ok = !known_rank_ || dims.size() == want_.size();
    for (size_t i = 0; ok && known_rank_ && i < dims.size(); ++i) {
      ok = want_[i] < 0 || want_[i] == dims[i];
    }
    if (!ok) {
      ctx.Fail(TG_INVALID_ARGUMENT, "Shape of tensor input " + ShapeString(dims) +
                                        " is not compatible with expected shape " +
                                        (known_rank_ ? ShapeString(want_) : "<unknown>") + ".");
      return;
    }
    ctx.SetOutputAlias(0, in, dims);
  }

 private:
  std::vector<int64_t> want_;
  bool known_rank_ = false;
};

// ---- CheckNumerics / CheckNumericsV2 ----

template <typename T>
class CheckNumericsOp {
 public:
  explicit CheckNumericsOp(Construction& c) {
    c.GetAttr("message", &message_);
    v2_ = c.op_type() == "CheckNumericsV2";
  }
  void Compute(Context& ctx) {
    TensorView in = ctx.input(0);
    const T* x = in.data<T>();
    bool nan = false, pos_inf = false, neg_inf = false;
    for (int64_t i = 0; i < in.num_elements(); ++i) {
      double v;
      if constexpr (std::is_floating_point_v<T>) {
        v = static_cast<double>(x[i]);
      } else {
        v = static_cast<double>(static_cast<float>(x[i]));  // half, bfloat16
      }
      if (std::isnan(v)) nan = true;
      if (std::isinf(v)) (v > 0 ? pos_inf : neg_inf) = true;
    }
    if (nan || pos_inf || neg_inf) {
      std::vector<std::string> what;
      if (v2_) {
        if (neg_inf) what.push_back("-Inf");
        if (pos_inf) what.push_back("+Inf");
      } else if (pos_inf || neg_inf) {
        what.push_back("Inf");
      }
      if (nan) what.push_back("NaN");
      // "A values", "A and B values", "A, B, and C values", as TensorFlow words it.
      std::string list = what[0];
      if (what.size() == 2) list += " and " + what[1];
      if (what.size() == 3) list += ", " + what[1] + ", and " + what[2];
      ctx.Fail(TG_INVALID_ARGUMENT, message_ + " : Tensor had " + list + " values");
      return;
    }
    ctx.SetOutputAlias(0, in, in.dims());
  }

 private:
  std::string message_;
  bool v2_ = false;
};

// ---- Roll ----

class RollOp {
 public:
  explicit RollOp(Construction&) {}
  void Compute(Context& ctx) {
    TensorView in = ctx.input(0);
    const std::vector<int64_t> dims = in.dims();
    std::vector<int64_t> shift, axis;
    if (!ReadIndexVector(ctx, 1, "shift", &shift, true) ||
        !ReadIndexVector(ctx, 2, "axis", &axis, true)) {
      return;
    }
    if (shift.size() != axis.size()) {
      ctx.Fail(TG_INVALID_ARGUMENT, "shift and axis must have the same size");
      return;
    }
    const int64_t rank = static_cast<int64_t>(dims.size());
    std::vector<int64_t> total(dims.size(), 0);
    for (size_t i = 0; i < axis.size(); ++i) {
      const int64_t a = axis[i] < 0 ? axis[i] + rank : axis[i];
      if (a < 0 || a >= rank) {
        ctx.Fail(TG_INVALID_ARGUMENT, "axis " + std::to_string(axis[i]) + " is out of range");
        return;
      }
      total[static_cast<size_t>(a)] += shift[i];
    }
    const size_t size = ElementSizeOrFail(ctx, in);
    if (size == 0) return;
    TensorMut out = ctx.AllocateOutput(0, dims);
    const int64_t n = in.num_elements();
    if (!ctx.ok() || n == 0) return;
    for (size_t d = 0; d < dims.size(); ++d) {
      total[d] = ((total[d] % dims[d]) + dims[d]) % dims[d];
    }
    const std::vector<int64_t> strides = Strides(dims);
    DispatchBySize(size, [&]<typename E>() {
      const E* src = in.data<E>();
      E* dst = out.mutable_data<E>();
      ctx.ParallelFor(n, 4.0, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) {
          // Element i of the input lands at coordinate (c + shift) mod dim on every axis.
          int64_t rest = i, to = 0;
          for (size_t d = dims.size(); d-- > 0;) {
            const int64_t c = rest % dims[d];
            rest /= dims[d];
            const int64_t moved = c + total[d];
            to += (moved >= dims[d] ? moved - dims[d] : moved) * strides[d];
          }
          dst[to] = src[i];
        }
      });
    });
  }
};

// ---- Concat (v1) ----

class ConcatV1Op {
 public:
  explicit ConcatV1Op(Construction&) {}
  void Compute(Context& ctx) {
    int64_t axis = 0;
    if (!ReadIndexScalar(ctx, 0, "concat_dim", &axis)) return;
    const int n = ctx.num_inputs() - 1;
    TensorView first = ctx.input(1);
    const std::vector<int64_t> dims0 = first.dims();
    const int64_t rank = static_cast<int64_t>(dims0.size());
    if (rank == 0) {
      ctx.Fail(TG_INVALID_ARGUMENT, "Concat of scalars is not supported; use Pack");
      return;
    }
    if (!CanonicalAxis(ctx, axis, rank, false, "concat_dim", &axis)) return;
    std::vector<int64_t> out_dims = dims0;
    out_dims[static_cast<size_t>(axis)] = 0;
    for (int i = 0; i < n; ++i) {
      const std::vector<int64_t> d = ctx.input(1 + i).dims();
      bool same = static_cast<int64_t>(d.size()) == rank;
      for (size_t j = 0; same && j < d.size(); ++j) {
        same = static_cast<int64_t>(j) == axis || d[j] == dims0[j];
      }
      if (!same) {
        ctx.Fail(TG_INVALID_ARGUMENT, "ConcatOp : Dimension mismatch: values[0].shape = " +
                                          ShapeString(dims0) + " vs. values[" +
                                          std::to_string(i) + "].shape = " + ShapeString(d));
        return;
      }
      out_dims[static_cast<size_t>(axis)] += d[static_cast<size_t>(axis)];
    }
    const size_t size = ElementSizeOrFail(ctx, first);
    if (size == 0) return;
    TensorMut out = ctx.AllocateOutput(0, out_dims);
    if (!ctx.ok() || NumElements(out_dims) == 0) return;
    const int64_t outer = Product(dims0, 0, static_cast<size_t>(axis));
    const int64_t inner = Product(dims0, static_cast<size_t>(axis) + 1, dims0.size()) *
                          static_cast<int64_t>(size);
    const int64_t out_row = out_dims[static_cast<size_t>(axis)] * inner;
    auto* dst = out.mutable_data<unsigned char>();
    // Row r of the output is the inputs' rows r one after another.
    ctx.ParallelFor(outer, CopyCost(out_row), [&](int64_t b, int64_t e) {
      for (int64_t r = b; r < e; ++r) {
        int64_t at = r * out_row;
        for (int i = 0; i < n; ++i) {
          TensorView v = ctx.input(1 + i);
          const int64_t bytes = v.dim(static_cast<int>(axis)) * inner;
          if (bytes > 0) {
            std::memcpy(dst + at, v.data<unsigned char>() + r * bytes, static_cast<size_t>(bytes));
          }
          at += bytes;
        }
      }
    });
  }
};

// ---- LinSpace ----

template <typename T>
class LinSpaceOp {
 public:
  explicit LinSpaceOp(Construction&) {}
  void Compute(Context& ctx) {
    for (int i = 0; i < 3; ++i) {
      if (ctx.input(i).rank() != 0) {
        ctx.Fail(TG_INVALID_ARGUMENT, std::string(i == 0 ? "start" : i == 1 ? "stop" : "num") +
                                          " must be a scalar, but received tensor of shape: " +
                                          ShapeString(ctx.input(i).dims()));
        return;
      }
    }
    const T start = ctx.input(0).data<T>()[0], stop = ctx.input(1).data<T>()[0];
    const int64_t num = IndexValues(ctx.input(2))[0];
    if (num <= 0) {
      ctx.Fail(TG_INVALID_ARGUMENT, "Requires num > 0: " + std::to_string(num));
      return;
    }
    TensorMut out = ctx.AllocateOutput(0, {num});
    if (!ctx.ok()) return;
    T* o = out.mutable_data<T>();
    if (num == 1) {
      o[0] = start;
      return;
    }
    const T step = (stop - start) / static_cast<T>(num - 1);
    for (int64_t i = 0; i < num; ++i) o[i] = start + step * static_cast<T>(i);
  }
};

// ---- Bucketize ----

template <typename T>
class BucketizeOp {
 public:
  explicit BucketizeOp(Construction& c) {
    if (!c.GetAttr("boundaries", &boundaries_)) return;
    if (!std::is_sorted(boundaries_.begin(), boundaries_.end())) {
      c.Fail(TG_INVALID_ARGUMENT, "Expected sorted boundaries");
    }
  }
  void Compute(Context& ctx) {
    TensorView in = ctx.input(0);
    TensorMut out = ctx.AllocateOutput(0, in.dims());
    if (!ctx.ok()) return;
    const T* x = in.data<T>();
    int32_t* o = out.mutable_data<int32_t>();
    for (int64_t i = 0; i < in.num_elements(); ++i) {
      // The number of boundaries <= x: the first one greater than x.
      o[i] = static_cast<int32_t>(
          std::upper_bound(boundaries_.begin(), boundaries_.end(), static_cast<double>(x[i]),
                           [](double v, float b) { return v < static_cast<double>(b); }) -
          boundaries_.begin());
    }
  }

 private:
  std::vector<float> boundaries_;
};

// ---- LowerBound / UpperBound ----

template <typename T, bool kUpper>
class SearchSortedOp {
 public:
  explicit SearchSortedOp(Construction&) {}
  void Compute(Context& ctx) {
    TensorView sorted = ctx.input(0), values = ctx.input(1);
    if (sorted.rank() < 1 || values.rank() < 1 || sorted.dim(0) != values.dim(0)) {
      ctx.Fail(TG_INVALID_ARGUMENT, "Leading dim_size of both tensors must match.");
      return;
    }
    TensorMut out = ctx.AllocateOutput(0, values.dims());
    if (!ctx.ok() || values.num_elements() == 0) return;
    const int64_t rows = sorted.dim(0);
    const int64_t n = rows == 0 ? 0 : sorted.num_elements() / rows;
    const int64_t m = values.num_elements() / rows;
    const T* s = sorted.data<T>();
    const T* v = values.data<T>();
    const bool wide = ctx.output_type(0) == TG_INT64;
    for (int64_t r = 0; r < rows; ++r) {
      const T* row = s + r * n;
      for (int64_t j = 0; j < m; ++j) {
        const T x = v[r * m + j];
        const int64_t at = (kUpper ? std::upper_bound(row, row + n, x)
                                   : std::lower_bound(row, row + n, x)) - row;
        if (wide) {
          out.mutable_data<int64_t>()[r * m + j] = at;
        } else {
          out.mutable_data<int32_t>()[r * m + j] = static_cast<int32_t>(at);
        }
      }
    }
  }
};

// ---- Cross ----

template <typename T>
class CrossOp {
 public:
  explicit CrossOp(Construction&) {}
  void Compute(Context& ctx) {
    TensorView a = ctx.input(0), b = ctx.input(1);
    if (a.dims() != b.dims()) {
      ctx.Fail(TG_INVALID_ARGUMENT, "both inputs must be same size: " + ShapeString(a.dims()) +
                                        " vs. " + ShapeString(b.dims()));
      return;
    }
    if (a.rank() < 1 || a.dim(a.rank() - 1) != 3) {
      ctx.Fail(TG_INVALID_ARGUMENT, "Trailing dimension must be of size 3");
      return;
    }
    TensorMut out = ctx.AllocateOutput(0, a.dims());
    if (!ctx.ok()) return;
    const T* x = a.data<T>();
    const T* y = b.data<T>();
    T* o = out.mutable_data<T>();
    for (int64_t i = 0; i < a.num_elements(); i += 3) {
      o[i] = x[i + 1] * y[i + 2] - x[i + 2] * y[i + 1];
      o[i + 1] = x[i + 2] * y[i] - x[i] * y[i + 2];
      o[i + 2] = x[i] * y[i + 1] - x[i + 1] * y[i];
    }
  }
};

// ---- InTopKV2 ----

class InTopKOp {
 public:
  explicit InTopKOp(Construction&) {}
  void Compute(Context& ctx) {
    TensorView pred = ctx.input(0), targets_t = ctx.input(1);
    if (pred.rank() != 2) {
      ctx.Fail(TG_INVALID_ARGUMENT, "predictions must be 2-dimensional");
      return;
    }
    if (targets_t.rank() != 1) {
      ctx.Fail(TG_INVALID_ARGUMENT, "targets must be 1-dimensional");
      return;
    }
    if (pred.dim(0) != targets_t.dim(0)) {
      ctx.Fail(TG_INVALID_ARGUMENT,
               "First dimension of predictions " + std::to_string(pred.dim(0)) +
                   " must match length of targets " + std::to_string(targets_t.dim(0)));
      return;
    }
    int64_t k = 0;
    if (!ReadIndexScalar(ctx, 2, "k", &k)) return;
    const std::vector<int64_t> targets = IndexValues(targets_t);
    const int64_t batch = pred.dim(0), classes = pred.dim(1);
    TensorMut out = ctx.AllocateOutput(0, {batch});
    if (!ctx.ok()) return;
    const float* p = pred.data<float>();
    bool* o = out.mutable_data<bool>();
    for (int64_t b = 0; b < batch; ++b) {
      const int64_t t = targets[static_cast<size_t>(b)];
      const float* row = p + b * classes;
      // An out-of-range target or a non-finite prediction is never in the top k.
      if (t < 0 || t >= classes || !std::isfinite(row[t])) {
        o[b] = false;
        continue;
      }
      int64_t more = 0;
      for (int64_t c = 0; c < classes; ++c) more += row[c] > row[t];
      o[b] = more < k;
    }
  }
};

// ---- Empty ----

class EmptyOp {
 public:
  explicit EmptyOp(Construction&) {}
  void Compute(Context& ctx) {
    std::vector<int64_t> dims;
    if (!ReadIndexVector(ctx, 0, "shape", &dims)) return;
    int64_t n = 0;
    if (!CheckedNumElements(ctx, dims, &n)) return;
    TensorMut out = ctx.AllocateOutput(0, dims);
    if (!ctx.ok() || n == 0) return;
    // Zeros whether or not `init` asks: an uninitialized tensor's contents are unspecified.
    std::memset(out.mutable_data<unsigned char>(), 0, static_cast<size_t>(n) * DtypeSize(ctx.output_type(0)));
  }
};

template <typename T>
void RegisterTyped(tgraph::plugin::Init& init) {
  init.Kernel<ClipByValueOp<T>>(
      KernelBuilder("ClipByValue", "CPU").TypeConstraint("T", DTypeOf<T>::value));
  init.Kernel<BucketizeOp<T>>(
      KernelBuilder("Bucketize", "CPU").TypeConstraint("T", DTypeOf<T>::value));
  init.Kernel<SearchSortedOp<T, false>>(KernelBuilder("LowerBound", "CPU")
                                            .TypeConstraint("T", DTypeOf<T>::value)
                                            .TypeConstraint("out_type", TG_ARRAY_INDEX_TYPES));
  init.Kernel<SearchSortedOp<T, true>>(KernelBuilder("UpperBound", "CPU")
                                           .TypeConstraint("T", DTypeOf<T>::value)
                                           .TypeConstraint("out_type", TG_ARRAY_INDEX_TYPES));
  init.Kernel<CrossOp<T>>(KernelBuilder("Cross", "CPU").TypeConstraint("T", DTypeOf<T>::value));
}

}  // namespace

void RegisterArrayMiscKernels(tgraph::plugin::Init& init) {
  RegisterTyped<float>(init);
  RegisterTyped<double>(init);
  RegisterTyped<int32_t>(init);
  RegisterTyped<int64_t>(init);
  init.Kernel<EnsureShapeOp>(
      KernelBuilder("EnsureShape", "CPU").TypeConstraint("T", TG_ARRAY_MOVER_TYPES));
  for (const char* op : {"CheckNumerics", "CheckNumericsV2"}) {
    init.Kernel<CheckNumericsOp<float>>(KernelBuilder(op, "CPU").TypeConstraint("T", TG_FLOAT));
    init.Kernel<CheckNumericsOp<double>>(KernelBuilder(op, "CPU").TypeConstraint("T", TG_DOUBLE));
    init.Kernel<CheckNumericsOp<Eigen::half>>(KernelBuilder(op, "CPU").TypeConstraint("T", TG_HALF));
    init.Kernel<CheckNumericsOp<Eigen::bfloat16>>(
        KernelBuilder(op, "CPU").TypeConstraint("T", TG_BFLOAT16));
  }
  init.Kernel<RollOp>(KernelBuilder("Roll", "CPU")
                          .TypeConstraint("T", TG_ARRAY_MOVER_TYPES)
                          .TypeConstraint("Tshift", TG_ARRAY_INDEX_TYPES)
                          .TypeConstraint("Taxis", TG_ARRAY_INDEX_TYPES)
                          .HostMemory("shift")
                          .HostMemory("axis"));
  init.Kernel<ConcatV1Op>(KernelBuilder("Concat", "CPU")
                              .TypeConstraint("T", TG_ARRAY_MOVER_TYPES)
                              .HostMemory("concat_dim"));
  init.Kernel<LinSpaceOp<float>>(KernelBuilder("LinSpace", "CPU")
                                     .TypeConstraint("T", TG_FLOAT)
                                     .TypeConstraint("Tidx", TG_ARRAY_INDEX_TYPES)
                                     .HostMemory("num"));
  init.Kernel<LinSpaceOp<double>>(KernelBuilder("LinSpace", "CPU")
                                      .TypeConstraint("T", TG_DOUBLE)
                                      .TypeConstraint("Tidx", TG_ARRAY_INDEX_TYPES)
                                      .HostMemory("num"));
  init.Kernel<InTopKOp>(KernelBuilder("InTopKV2", "CPU").TypeConstraint("T", TG_ARRAY_INDEX_TYPES));
  init.Kernel<EmptyOp>(KernelBuilder("Empty", "CPU")
                           .TypeConstraint("dtype", TG_ARRAY_MOVER_TYPES)
                           .HostMemory("shape"));
}

}  // namespace tgraph_cpu
