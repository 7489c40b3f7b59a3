// GatherNd, ScatterNd, TensorScatterUpdate, SparseToDense and TopKV2. Slices move by element
// size (GatherNd, TensorScatterUpdate, SparseToDense); ScatterNd adds (duplicates sum) and
// TopKV2 compares, so those two are typed. Every index is checked: one outside its
// dimension is INVALID_ARGUMENT naming it, never a read or write out of bounds.
#include <Eigen/Core>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "array_kernel_util.h"
#include "array_kernels.h"

namespace tgraph_cpu {
namespace {

using namespace array_util;

// The index vectors of `indices` ([..., K]) as flat element offsets of slices into a tensor
// of `dims` (each slice dims[K:]); fails naming the first bad one.
bool SliceOffsets(Context& ctx, const TensorView& indices, const std::vector<int64_t>& dims,
                  const char* target, std::vector<int64_t>* offsets, int64_t* slice) {
  const std::vector<int64_t> idims = indices.dims();
  if (idims.empty()) {
    ctx.Fail(TG_INVALID_ARGUMENT, "indices must be at least a vector, but is a scalar");
    return false;
  }
  const int64_t k = idims.back();
  if (k > static_cast<int64_t>(dims.size())) {
    ctx.Fail(TG_INVALID_ARGUMENT, "indices.shape[-1] (" + std::to_string(k) +
                                      ") must be <= the rank of " + target + " " +
                                      ShapeString(dims));
    return false;
  }
  *slice = Product(dims, static_cast<size_t>(k), dims.size());
  const std::vector<int64_t> v = IndexValues(indices);
  const int64_t n = Product(idims, 0, idims.size() - 1);  // index vectors
  const std::vector<int64_t> strides = Strides(dims);
  offsets->assign(static_cast<size_t>(n), 0);
  for (int64_t i = 0; i < n; ++i) {
    int64_t off = 0;
    for (int64_t j = 0; j < k; ++j) {
      const int64_t x = v[static_cast<size_t>(i * k + j)];
      if (x < 0 || x >= dims[static_cast<size_t>(j)]) {
        std::string vec;
        for (int64_t q = 0; q < k; ++q) {
          vec.append(q ? "," : "").append(std::to_string(v[static_cast<size_t>(i * k + q)]));
        }
        ctx.Fail(TG_INVALID_ARGUMENT, "index [" + vec + "] (index vector " + std::to_string(i) +
                                          " of indices " + ShapeString(idims) +
                                          ") does not index into " + target + " " +
                                          ShapeString(dims));
        return false;
      }
      off += x * strides[static_cast<size_t>(j)];
    }
    (*offsets)[static_cast<size_t>(i)] = off;
  }
  return true;
}

class GatherNdOp {
 public:
  explicit GatherNdOp(Construction&) {}
  void Compute(Context& ctx) {
    TensorView params = ctx.input(0), indices = ctx.input(1);
    const std::vector<int64_t> pdims = params.dims(), idims = indices.dims();
    std::vector<int64_t> offsets;
    int64_t slice = 0;
    if (!SliceOffsets(ctx, indices, pdims, "params", &offsets, &slice)) return;
    std::vector<int64_t> out_dims(idims.begin(), idims.end() - 1);
    out_dims.insert(out_dims.end(), pdims.begin() + idims.back(), pdims.end());
    const size_t size = ElementSizeOrFail(ctx, params);
    if (size == 0) return;
    TensorMut out = ctx.AllocateOutput(0, out_dims);
    if (!ctx.ok() || offsets.empty() || slice == 0) return;
    const auto* src = params.data<unsigned char>();
    auto* dst = out.mutable_data<unsigned char>();
    const size_t bytes = static_cast<size_t>(slice) * size;
    ctx.ParallelFor(static_cast<int64_t>(offsets.size()), CopyCost(static_cast<int64_t>(bytes)),
                    [&](int64_t b, int64_t e) {
                      for (int64_t i = b; i < e; ++i) {
                        std::memcpy(dst + static_cast<size_t>(i) * bytes,
                                    src + static_cast<size_t>(offsets[static_cast<size_t>(i)]) * size,
                                    bytes);
                      }
                    });
  }
};

// Checks that updates has shape indices[:-1] + dims[K:].
bool CheckUpdates(Context& ctx, const TensorView& indices, const TensorView& updates,
                  const std::vector<int64_t>& dims) {
  const std::vector<int64_t> idims = indices.dims();
  if (idims.empty()) return true;  // SliceOffsets reports it
  const size_t k = static_cast<size_t>(std::max<int64_t>(idims.back(), 0));
  if (k > dims.size()) return true;  // SliceOffsets reports it
  std::vector<int64_t> want(idims.begin(), idims.end() - 1);
  want.insert(want.end(), dims.begin() + static_cast<std::ptrdiff_t>(k), dims.end());
  if (updates.dims() != want) {
    ctx.Fail(TG_INVALID_ARGUMENT, "updates must have shape " + ShapeString(want) + " (indices " +
                                      ShapeString(idims) + ", output " + ShapeString(dims) +
                                      "), but has shape " + ShapeString(updates.dims()));
    return false;
  }
  return true;
}

// ScatterNd: zeros of `shape` plus updates at indices (duplicates add up).
template <typename T>
class ScatterNdOp {
 public:
  explicit ScatterNdOp(Construction&) {}
  void Compute(Context& ctx) {
    TensorView indices = ctx.input(0), updates = ctx.input(1);
    std::vector<int64_t> dims;
    if (!ReadIndexVector(ctx, 2, "shape", &dims)) return;
    for (int64_t d : dims) {
      if (d < 0) {
        ctx.Fail(TG_INVALID_ARGUMENT, "shape must be non-negative, got " + ShapeString(dims));
        return;
      }
    }
    if (!CheckUpdates(ctx, indices, updates, dims)) return;
    std::vector<int64_t> offsets;
    int64_t slice = 0;
    if (!SliceOffsets(ctx, indices, dims, "the output", &offsets, &slice)) return;
    int64_t total;
    if (!CheckedNumElements(ctx, dims, &total)) return;
    TensorMut out = ctx.AllocateOutput(0, dims);
    if (!ctx.ok()) return;
    T* o = out.mutable_data<T>();
    std::fill(o, o + total, T(0));
    const T* u = updates.data<T>();
    for (size_t i = 0; i < offsets.size(); ++i) {
      T* dst = o + offsets[i];
      const T* src = u + static_cast<int64_t>(i) * slice;
      for (int64_t j = 0; j < slice; ++j) dst[j] = static_cast<T>(dst[j] + src[j]);
    }
  }
};

// TensorScatterUpdate: a copy of tensor with the slices at indices replaced (in order, so a
// repeated index keeps the last update).
class TensorScatterUpdateOp {
 public:
  explicit TensorScatterUpdateOp(Construction&) {}
  void Compute(Context& ctx) {
    TensorView tensor = ctx.input(0), indices = ctx.input(1), updates = ctx.input(2);
    const std::vector<int64_t> dims = tensor.dims();
    if (!CheckUpdates(ctx, indices, updates, dims)) return;
    std::vector<int64_t> offsets;
    int64_t slice = 0;
    if (!SliceOffsets(ctx, indices, dims, "tensor", &offsets, &slice)) return;
    const size_t size = ElementSizeOrFail(ctx, tensor);
    if (size == 0) return;
    TensorMut out = ctx.ForwardOrAllocateOutput(0, 0, dims);
    if (!ctx.ok() || !out.valid()) return;
    auto* dst = out.mutable_data<unsigned char>();
    if (static_cast<const void*>(dst) != static_cast<const void*>(tensor.data<unsigned char>())) {
      ParallelMemcpy(ctx, dst, tensor.data<unsigned char>(),
                     static_cast<size_t>(tensor.num_elements()) * size);
    }
    // Empty slices copy nothing (and an empty tensor has no buffer: memcpy of a null pointer,
    // even for 0 bytes, is undefined; found by op_run under UBSan).
    if (slice == 0) return;
    const auto* u = updates.data<unsigned char>();
    const size_t bytes = static_cast<size_t>(slice) * size;
    for (size_t i = 0; i < offsets.size(); ++i) {
      std::memcpy(dst + static_cast<size_t>(offsets[i]) * size, u + i * bytes, bytes);
    }
  }
};

// SparseToDense(sparse_indices, output_shape, sparse_values, default_value).
class SparseToDenseOp {
 public:
  explicit SparseToDenseOp(Construction& c) { c.GetAttr("validate_indices", &validate_); }
  void Compute(Context& ctx) {
    TensorView indices = ctx.input(0), values = ctx.input(2), def = ctx.input(3);
    std::vector<int64_t> dims;
    if (!ReadIndexVector(ctx, 1, "output_shape", &dims, /*allow_scalar=*/true)) return;
    if (indices.rank() > 2) {
      ctx.Fail(TG_INVALID_ARGUMENT, "sparse_indices must be a scalar, vector or matrix, but has "
                                    "shape " + ShapeString(indices.dims()));
      return;
    }
    const int64_t n = indices.rank() == 0 ? 1 : indices.dim(0);
    const int64_t k = indices.rank() == 2 ? indices.dim(1) : 1;
    if (k != static_cast<int64_t>(dims.size())) {
      ctx.Fail(TG_INVALID_ARGUMENT, "sparse_indices index vectors have " + std::to_string(k) +
                                        " entries but output_shape " + ShapeString(dims) +
                                        " has rank " + std::to_string(dims.size()));
      return;
    }
    if (!(values.rank() == 0 || (values.rank() == 1 && values.dim(0) == n))) {
      ctx.Fail(TG_INVALID_ARGUMENT, "sparse_values must be a scalar or a vector of " +
                                        std::to_string(n) + " values, but has shape " +
                                        ShapeString(values.dims()));
      return;
    }
    if (def.rank() != 0) {
      ctx.Fail(TG_INVALID_ARGUMENT, "default_value must be a scalar, but has shape " +
                                        ShapeString(def.dims()));
      return;
    }
    for (int64_t d : dims) {
      if (d < 0) {
        ctx.Fail(TG_INVALID_ARGUMENT, "output_shape must be non-negative, got " + ShapeString(dims));
        return;
      }
    }
    const std::vector<int64_t> v = IndexValues(indices);
    const std::vector<int64_t> strides = Strides(dims);
    std::vector<int64_t> offsets(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      int64_t off = 0;
      for (int64_t j = 0; j < k; ++j) {
        const int64_t x = v[static_cast<size_t>(i * k + j)];
        if (x < 0 || x >= dims[static_cast<size_t>(j)]) {
          ctx.Fail(TG_INVALID_ARGUMENT, "sparse_indices[" + std::to_string(i) +
                                            "] is out of bounds of output_shape " +
                                            ShapeString(dims));
          return;
        }
        off += x * strides[static_cast<size_t>(j)];
      }
      if (validate_ && i > 0 && off <= offsets[static_cast<size_t>(i - 1)]) {
        ctx.Fail(TG_INVALID_ARGUMENT,
                 "sparse_indices[" + std::to_string(i) + "] is " +
                     (off == offsets[static_cast<size_t>(i - 1)] ? "repeated" : "out of order") +
                     " (validate_indices requires them sorted and unique)");
        return;
      }
      offsets[static_cast<size_t>(i)] = off;
    }
    const size_t size = ElementSizeOrFail(ctx, values);
    if (size == 0) return;
    int64_t total;
    if (!CheckedNumElements(ctx, dims, &total)) return;
    TensorMut out = ctx.AllocateOutput(0, dims);
    if (!ctx.ok()) return;
    DispatchBySize(size, [&]<typename E>() {
      E* o = out.mutable_data<E>();
      std::fill(o, o + total, *def.data<E>());
      const E* val = values.data<E>();
      for (int64_t i = 0; i < n; ++i) o[offsets[static_cast<size_t>(i)]] = val[values.rank() == 0 ? 0 : i];
    });
  }

 private:
  bool validate_ = true;
};

// TopKV2: the k largest of each row (ties to the lower index), sorted descending.
template <typename T>
class TopKOp {
 public:
  // TopK (v1) has k as an attr, TopKV2 as an input.
  explicit TopKOp(Construction& c) : k_is_attr_(c.HasAttr("k")) {
    if (k_is_attr_) c.GetAttr("k", &attr_k_);
  }
  void Compute(Context& ctx) {
    TensorView in = ctx.input(0);
    int64_t k = attr_k_;
    if (!k_is_attr_ && !ReadIndexScalar(ctx, 1, "k", &k)) return;
    const std::vector<int64_t> dims = in.dims();
    if (dims.empty()) {
      ctx.Fail(TG_INVALID_ARGUMENT, "input must have rank >= 1, but is a scalar");
      return;
    }
    const int64_t n = dims.back();
    if (k < 0 || k > n) {
      ctx.Fail(TG_INVALID_ARGUMENT, "k (" + std::to_string(k) + ") must be in [0, " +
                                        std::to_string(n) + "], the size of the last dimension of " +
                                        ShapeString(dims));
      return;
    }
    std::vector<int64_t> out_dims = dims;
    out_dims.back() = k;
    TensorMut values = ctx.AllocateOutput(0, out_dims);
    TensorMut indices = ctx.AllocateOutput(1, out_dims);
    if (!ctx.ok()) return;
    const int64_t rows = n == 0 ? 0 : in.num_elements() / n;
    if (k == 0 || rows == 0) return;
    const T* x = in.data<T>();
    T* v = values.mutable_data<T>();
    const bool wide = ctx.output_type(1) == TG_INT64;
    ctx.ParallelFor(rows, static_cast<double>(n) * 4, [&](int64_t b, int64_t e) {
      std::vector<int64_t> order(static_cast<size_t>(n));
      for (int64_t row = b; row < e; ++row) {
        const T* r = x + row * n;
        std::iota(order.begin(), order.end(), 0);
        std::partial_sort(order.begin(), order.begin() + k, order.end(), [&](int64_t i, int64_t j) {
          return r[i] > r[j] || (!(r[j] > r[i]) && i < j);
        });
        for (int64_t q = 0; q < k; ++q) {
          const int64_t src = order[static_cast<size_t>(q)];
          v[row * k + q] = r[src];
          if (wide) {
            indices.mutable_data<int64_t>()[row * k + q] = src;
          } else {
            indices.mutable_data<int32_t>()[row * k + q] = static_cast<int32_t>(src);
          }
        }
      }
    });
  }

 private:
  bool k_is_attr_ = false;
  int64_t attr_k_ = 0;
};

}  // namespace

void RegisterGatherScatterNdKernels(tgraph::plugin::Init& init) {
  using tgraph::plugin::KernelBuilder;
  init.Kernel<GatherNdOp>(KernelBuilder("GatherNd", "CPU")
                              .TypeConstraint("Tparams", TG_ARRAY_MOVER_TYPES)
                              .TypeConstraint("Tindices", TG_ARRAY_INDEX_TYPES));
  init.Kernel<TensorScatterUpdateOp>(KernelBuilder("TensorScatterUpdate", "CPU")
                                         .TypeConstraint("T", TG_ARRAY_MOVER_TYPES)
                                         .TypeConstraint("Tindices", TG_ARRAY_INDEX_TYPES));
  init.Kernel<SparseToDenseOp>(KernelBuilder("SparseToDense", "CPU")
                                   .TypeConstraint("T", TG_ARRAY_MOVER_TYPES)
                                   .TypeConstraint("Tindices", TG_ARRAY_INDEX_TYPES)
                                   .HostMemory("output_shape"));
  init.Kernel<ScatterNdOp<float>>(KernelBuilder("ScatterNd", "CPU")
                                      .TypeConstraint("T", TG_FLOAT)
                                      .TypeConstraint("Tindices", TG_ARRAY_INDEX_TYPES)
                                      .HostMemory("shape"));
  init.Kernel<ScatterNdOp<double>>(KernelBuilder("ScatterNd", "CPU")
                                       .TypeConstraint("T", TG_DOUBLE)
                                       .TypeConstraint("Tindices", TG_ARRAY_INDEX_TYPES)
                                       .HostMemory("shape"));
  init.Kernel<ScatterNdOp<int32_t>>(KernelBuilder("ScatterNd", "CPU")
                                        .TypeConstraint("T", TG_INT32)
                                        .TypeConstraint("Tindices", TG_ARRAY_INDEX_TYPES)
                                        .HostMemory("shape"));
  init.Kernel<ScatterNdOp<int64_t>>(KernelBuilder("ScatterNd", "CPU")
                                        .TypeConstraint("T", TG_INT64)
                                        .TypeConstraint("Tindices", TG_ARRAY_INDEX_TYPES)
                                        .HostMemory("shape"));
  init.Kernel<TopKOp<float>>(KernelBuilder("TopKV2", "CPU")
                                 .TypeConstraint("T", TG_FLOAT)
                                 .TypeConstraint("index_type", TG_ARRAY_INDEX_TYPES)
                                 .TypeConstraint("Tk", TG_ARRAY_INDEX_TYPES)
                                 .HostMemory("k"));
  init.Kernel<TopKOp<double>>(KernelBuilder("TopKV2", "CPU")
                                  .TypeConstraint("T", TG_DOUBLE)
                                  .TypeConstraint("index_type", TG_ARRAY_INDEX_TYPES)
                                  .TypeConstraint("Tk", TG_ARRAY_INDEX_TYPES)
                                  .HostMemory("k"));
  init.Kernel<TopKOp<int32_t>>(KernelBuilder("TopKV2", "CPU")
                                   .TypeConstraint("T", TG_INT32)
                                   .TypeConstraint("index_type", TG_ARRAY_INDEX_TYPES)
                                   .TypeConstraint("Tk", TG_ARRAY_INDEX_TYPES)
                                   .HostMemory("k"));
  init.Kernel<TopKOp<int64_t>>(KernelBuilder("TopKV2", "CPU")
                                   .TypeConstraint("T", TG_INT64)
                                   .TypeConstraint("index_type", TG_ARRAY_INDEX_TYPES)
                                   .TypeConstraint("Tk", TG_ARRAY_INDEX_TYPES)
                                   .HostMemory("k"));
  init.Kernel<TopKOp<float>>(KernelBuilder("TopK", "CPU").TypeConstraint("T", TG_FLOAT));
  init.Kernel<TopKOp<double>>(KernelBuilder("TopK", "CPU").TypeConstraint("T", TG_DOUBLE));
  init.Kernel<TopKOp<int32_t>>(KernelBuilder("TopK", "CPU").TypeConstraint("T", TG_INT32));
  init.Kernel<TopKOp<int64_t>>(KernelBuilder("TopK", "CPU").TypeConstraint("T", TG_INT64));
}

}  // namespace tgraph_cpu
