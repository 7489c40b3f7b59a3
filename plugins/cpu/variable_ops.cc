// TF1 reference variables: VariableV2, Assign, AssignAdd/Sub, ScatterUpdate/Add/Sub,
// IsVariableInitialized. The variable's storage is a slot the session owns; these kernels
// reach it through ref inputs (Context::MutableRefInput / ReallocateRefInput), hold its lock
// while they write when use_locking is set, and forward the ref to their output_ref.
// Updates check every shape and index before the first write, so a rejected update leaves
// the variable untouched.
#include <Eigen/Core>
#include <complex>
#include <cstring>
#include <string>
#include <vector>

#include "array_kernel_util.h"
#include "assign_kernel.h"
#include "cpu_kernels.h"
#include "wrapping_math.h"

namespace tgraph_cpu {
namespace {

using namespace array_util;
using tgraph::plugin::KernelBuilder;

// VariableV2: the variable's storage is a slot the session owns, and the executor binds that
// slot to this node's ref output itself. The kernel exists so placement finds VariableV2 on
// the CPU; it has nothing to compute and says so if it is ever called.
class VariableV2Op {
 public:
  explicit VariableV2Op(Construction&) {}
  void Compute(Context& ctx) {
    ctx.Fail(TG_INTERNAL,
             "VariableV2's ref output is its session's variable slot, bound by the executor; "
             "the kernel cannot produce it on its own");
  }
};

// Copies value into the variable's buffer (bytes, or strings for DT_STRING).
void CopyInto(Context& ctx, const TensorMut& dst, const TensorView& src) {
  if (src.dtype() == TG_STRING) {
    for (int64_t i = 0; i < src.num_elements(); ++i) dst.set_string(i, src.string_at(i));
    return;
  }
  auto* d = dst.mutable_data<unsigned char>();
  const auto* s = src.data<unsigned char>();
  if (d == s || src.byte_size() == 0) return;
  ParallelMemcpy(ctx, d, s, src.byte_size());
}

// Assign (assign_kernel.h, shared with the GPU plugins): adopts its value's buffer when
// nobody else holds it, else copies with CopyInto.
struct HostCopy {
  void operator()(Context& ctx, const TensorMut& dst, const TensorView& src) const {
    CopyInto(ctx, dst, src);
  }
};

// IsVariableInitialized: whether the variable holds a value. Its OpDef allows an
// uninitialized ref input, so the executor hands the slot over either way.
class IsVariableInitializedOp {
 public:
  explicit IsVariableInitializedOp(Construction&) {}
  void Compute(Context& ctx) {
    const bool initialized = ctx.IsRefInitialized(0);
    TensorMut out = ctx.AllocateOutput(0, {});
    if (!ctx.ok()) return;
    *out.mutable_data<bool>() = initialized;
  }
};

enum class Update { kAdd, kSub };

template <typename T, Update kOp>
class AssignUpdateOp {
 public:
  explicit AssignUpdateOp(Construction& c) { c.GetAttr("use_locking", &use_locking_); }
  void Compute(Context& ctx) {
    TensorView value = ctx.input(1);
    {
      Context::RefLock lock(ctx, 0, use_locking_);
      TensorMut var = ctx.MutableRefInput(0);
      if (!ctx.ok()) return;
      if (var.dims() != value.dims()) {
        ctx.Fail(TG_INVALID_ARGUMENT, "Cannot update variable with shape " +
                                          ShapeString(var.dims()) + " using a Tensor with shape " +
                                          ShapeString(value.dims()) + ", shapes must be equal.");
        return;
      }
      T* p = var.mutable_data<T>();
      const T* v = value.data<T>();
      ctx.ParallelFor(var.num_elements(), 0.5, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) {
          // Integers wrap on overflow, as TensorFlow's do (wrapping_math.h).
          if constexpr (kOp == Update::kAdd)
            p[i] = WrapAdd(p[i], v[i]);
          else
            p[i] = WrapSub(p[i], v[i]);
        }
      });
    }
    ctx.ForwardRefInputToRefOutput(0, 0);
  }

 private:
  bool use_locking_ = false;
};

// ScatterUpdate (by bytes, any plain dtype) and ScatterAdd/Sub (typed):
//   ref[indices[i], ...] (op)= updates[i, ...]  (or the scalar updates, for every element).
enum class Scatter { kUpdate, kAdd, kSub };

template <typename T, Scatter kOp>
class ScatterOp {
 public:
  explicit ScatterOp(Construction& c) { c.GetAttr("use_locking", &use_locking_); }
  void Compute(Context& ctx) {
    TensorView indices = ctx.input(1);
    TensorView updates = ctx.input(2);
    {
      Context::RefLock lock(ctx, 0, use_locking_);
      TensorMut params = ctx.MutableRefInput(0);
      if (!ctx.ok()) return;
      if (!Apply(ctx, params, indices, updates)) return;
    }
    ctx.ForwardRefInputToRefOutput(0, 0);
  }

 private:
  bool Apply(Context& ctx, const TensorMut& params, const TensorView& indices,
             const TensorView& updates) {
    const std::vector<int64_t> p_dims = params.dims();
    if (p_dims.empty()) {
      ctx.Fail(TG_INVALID_ARGUMENT,
               "params must be at least 1-D, got shape " + ShapeString(p_dims));
      return false;
    }
    const std::vector<int64_t> i_dims = indices.dims();
    std::vector<int64_t> want = i_dims;
    want.insert(want.end(), p_dims.begin() + 1, p_dims.end());
    const bool scalar = updates.rank() == 0;
    if (!scalar && updates.dims() != want) {
      ctx.Fail(TG_INVALID_ARGUMENT,
               "Must have updates.shape = indices.shape + params.shape[1:] or updates.shape = [], "
               "got updates.shape " +
                   ShapeString(updates.dims()) + ", indices.shape " + ShapeString(i_dims) +
                   ", params.shape " + ShapeString(p_dims));
      return false;
    }
    const std::vector<int64_t> idx = IndexValues(indices);
    const int64_t limit = p_dims[0];
    for (size_t i = 0; i < idx.size(); ++i) {
      if (idx[i] < 0 || idx[i] >= limit) {
        ctx.Fail(TG_INVALID_ARGUMENT,
                 BadIndexMessage(static_cast<int64_t>(i), i_dims, idx[i], limit));
        return false;
      }
    }
    const int64_t slice = Product(p_dims, 1, p_dims.size());
    if (slice == 0 || idx.empty()) return true;
    T* p = params.mutable_data<T>();
    const T* u = updates.data<T>();
    // Sequential over indices (duplicates apply in order: the last ScatterUpdate wins, adds
    // accumulate), so the result does not depend on threading.
    for (size_t i = 0; i < idx.size(); ++i) {
      T* row = p + idx[i] * slice;
      if (scalar) {
        for (int64_t j = 0; j < slice; ++j) ApplyOne(row[j], u[0]);
      } else {
        const T* src = u + static_cast<int64_t>(i) * slice;
        if constexpr (kOp == Scatter::kUpdate) {
          std::memcpy(static_cast<void*>(row), src, static_cast<size_t>(slice) * sizeof(T));
        } else {
          for (int64_t j = 0; j < slice; ++j) ApplyOne(row[j], src[j]);
        }
      }
    }
    return true;
  }
  static void ApplyOne(T& dst, const T& v) {
    if constexpr (kOp == Scatter::kUpdate)
      dst = v;
    else if constexpr (kOp == Scatter::kAdd)
      dst = WrapAdd(dst, v);
    else
      dst = WrapSub(dst, v);
  }

  bool use_locking_ = false;
};

template <typename T>
void RegisterUpdates(tgraph::plugin::Init& init, TG_DataType t) {
  init.Kernel<AssignUpdateOp<T, Update::kAdd>>(
      KernelBuilder("AssignAdd", "CPU").TypeConstraint("T", t));
  init.Kernel<AssignUpdateOp<T, Update::kSub>>(
      KernelBuilder("AssignSub", "CPU").TypeConstraint("T", t));
  init.Kernel<ScatterOp<T, Scatter::kAdd>>(
      KernelBuilder("ScatterAdd", "CPU").TypeConstraint("T", t));
  init.Kernel<ScatterOp<T, Scatter::kSub>>(
      KernelBuilder("ScatterSub", "CPU").TypeConstraint("T", t));
}

template <typename E>
void RegisterScatterUpdate(tgraph::plugin::Init& init, std::initializer_list<TG_DataType> types) {
  init.Kernel<ScatterOp<E, Scatter::kUpdate>>(
      KernelBuilder("ScatterUpdate", "CPU")
          .TypeConstraint("T", types)
          .TypeConstraint("Tindices", TG_ARRAY_INDEX_TYPES));
}

}  // namespace

void RegisterStateKernels(tgraph::plugin::Init& init) {
  init.Kernel<VariableV2Op>(KernelBuilder("VariableV2", "CPU"));
  init.Kernel<AssignKernel<HostCopy>>(KernelBuilder("Assign", "CPU"));
  init.Kernel<IsVariableInitializedOp>(KernelBuilder("IsVariableInitialized", "CPU"));
  RegisterUpdates<float>(init, TG_FLOAT);
  RegisterUpdates<double>(init, TG_DOUBLE);
  RegisterUpdates<int32_t>(init, TG_INT32);
  RegisterUpdates<int64_t>(init, TG_INT64);
  RegisterUpdates<Eigen::half>(init, TG_HALF);
  RegisterUpdates<Eigen::bfloat16>(init, TG_BFLOAT16);
  RegisterUpdates<std::complex<float>>(init, TG_COMPLEX64);
  RegisterUpdates<std::complex<double>>(init, TG_COMPLEX128);
  // ScatterUpdate only moves elements: one kernel per element size covers every plain dtype.
  RegisterScatterUpdate<uint8_t>(init, {TG_BOOL, TG_INT8, TG_UINT8});
  RegisterScatterUpdate<uint16_t>(init, {TG_HALF, TG_BFLOAT16, TG_INT16, TG_UINT16});
  RegisterScatterUpdate<uint32_t>(init, {TG_FLOAT, TG_INT32, TG_UINT32});
  RegisterScatterUpdate<uint64_t>(init, {TG_DOUBLE, TG_INT64, TG_UINT64, TG_COMPLEX64});
  RegisterScatterUpdate<Bytes<16>>(init, {TG_COMPLEX128});
}

}  // namespace tgraph_cpu
