// PadV2 (a constant fill), MirrorPad (REFLECT / SYMMETRIC), ReverseV2 and ReverseSequence:
// dtype-agnostic by element size (MirrorPadGrad, which adds, is typed); PadV2, MirrorPad and
// ReverseV2 compute each output row (the last dimension) from its source row, ReverseSequence
// each element; split over the intra-op pool.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "array_kernel_util.h"
#include "array_kernels.h"

namespace tgraph_cpu {
namespace {

using namespace array_util;

// The [rank, 2] paddings of input 1, checked: non-negative and, with `mirror_limit` >= 0, at
// most dim - mirror_limit. The output dims in *out.
bool ReadPaddings(Context& ctx, const std::vector<int64_t>& dims, int64_t mirror_limit,
                  std::vector<int64_t>* pads, std::vector<int64_t>* out) {
  TensorView p = ctx.input(1);
  const size_t r = dims.size();
  if (p.rank() != 2 || p.dim(0) != static_cast<int64_t>(r) || p.dim(1) != 2) {
    ctx.Fail(TG_INVALID_ARGUMENT, "paddings must be a matrix of shape [" + std::to_string(r) +
                                      ",2] for an input of rank " + std::to_string(r) +
                                      ", but has shape " + ShapeString(p.dims()));
    return false;
  }
  *pads = IndexValues(p);
  out->assign(r, 0);
  for (size_t i = 0; i < r; ++i) {
    const int64_t before = (*pads)[2 * i], after = (*pads)[2 * i + 1];
    const int64_t limit = mirror_limit >= 0 ? dims[i] - mirror_limit : (int64_t{1} << 60);
    if (before < 0 || after < 0 || before > limit || after > limit) {
      ctx.Fail(TG_INVALID_ARGUMENT,
               "paddings " + std::to_string(before) + ", " + std::to_string(after) +
                   " of dimension " + std::to_string(i) + " must be in [0, " +
                   std::to_string(limit) + "] (input " + ShapeString(dims) + ")");
      return false;
    }
    (*out)[i] = dims[i] + before + after;
  }
  return true;
}

// Where output coordinate `o` along a dimension of size `n` padded by `before` reads from:
// -1 for the constant (PadV2), else a mirrored input coordinate (offset 1 for REFLECT, 0
// for SYMMETRIC).
inline int64_t Source(int64_t o, int64_t n, int64_t before, int64_t mirror_offset) {
  int64_t i = o - before;
  if (i >= 0 && i < n) return i;
  if (mirror_offset < 0) return -1;
  if (i < 0) return -i - 1 + mirror_offset;
  return 2 * n - i - 1 - mirror_offset;
}

// Output rows of a padded (or reversed) tensor: for each output row, the source row (or -1:
// the constant) and, within a row, the source column of each output column.
template <typename E>
void PadRows(Context& ctx, const E* src, E* dst, const std::vector<int64_t>& dims,
             const std::vector<int64_t>& out_dims, const std::vector<int64_t>& pads,
             int64_t mirror_offset, E fill) {
  const size_t r = dims.size();
  const int64_t in_w = dims[r - 1], out_w = out_dims[r - 1];
  std::vector<int64_t> cols(static_cast<size_t>(out_w));
  for (int64_t j = 0; j < out_w; ++j) cols[static_cast<size_t>(j)] = Source(j, in_w, pads[2 * (r - 1)], mirror_offset);
  const std::vector<int64_t> in_strides = Strides(dims);
  const int64_t rows = NumElements(out_dims) / std::max<int64_t>(out_w, 1);
  ctx.ParallelFor(rows, CopyCost(out_w * static_cast<int64_t>(sizeof(E))), [&](int64_t b, int64_t e) {
    for (int64_t row = b; row < e; ++row) {
      int64_t rest = row, offset = 0;
      bool constant = false;
      for (size_t d = r - 1; d-- > 0;) {
        const int64_t c = rest % out_dims[d];
        rest /= out_dims[d];
        const int64_t s = Source(c, dims[d], pads[2 * d], mirror_offset);
        if (s < 0) constant = true;
        offset += s * in_strides[d];
      }
      E* o = dst + row * out_w;
      if (constant) {
        std::fill(o, o + out_w, fill);
        continue;
      }
      const E* in = src + offset;
      for (int64_t j = 0; j < out_w; ++j) {
        const int64_t s = cols[static_cast<size_t>(j)];
        o[j] = s < 0 ? fill : in[s];
      }
    }
  });
}

// PadV2 (mirror = false) and MirrorPad.
template <bool kMirror>
class PadOp {
 public:
  explicit PadOp(Construction& c) {
    if constexpr (kMirror) {
      std::string mode;
      if (c.GetAttr("mode", &mode)) mirror_offset_ = mode == "REFLECT" ? 1 : 0;
    }
  }
  void Compute(Context& ctx) {
    TensorView in = ctx.input(0);
    const std::vector<int64_t> dims = in.dims();
    std::vector<int64_t> pads, out_dims;
    if (!ReadPaddings(ctx, dims, kMirror ? mirror_offset_ : -1, &pads, &out_dims)) return;
    if (!kMirror && ctx.input(2).rank() != 0) {
      ctx.Fail(TG_INVALID_ARGUMENT, "constant_values must be a scalar, but has shape " +
                                        ShapeString(ctx.input(2).dims()));
      return;
    }
    int64_t total;
    if (!CheckedNumElements(ctx, out_dims, &total)) return;
    if (out_dims == dims) {
      ctx.SetOutputAlias(0, in, dims);
      return;
    }
    const size_t size = ElementSizeOrFail(ctx, in);
    if (size == 0) return;
    TensorMut out = ctx.AllocateOutput(0, out_dims);
    if (!ctx.ok() || total == 0) return;
    DispatchBySize(size, [&]<typename E>() {
      E fill{};
      if (!kMirror) std::memcpy(&fill, ctx.input(2).data<unsigned char>(), sizeof(E));
      // An empty input padded by a constant: the constant everywhere.
      if (in.num_elements() == 0) {
        std::fill(out.mutable_data<E>(), out.mutable_data<E>() + total, fill);
        return;
      }
      PadRows<E>(ctx, in.data<E>(), out.mutable_data<E>(), dims, out_dims, pads,
                 kMirror ? mirror_offset_ : -1, fill);
    });
  }

 private:
  int64_t mirror_offset_ = 0;
};

// MirrorPadGrad: the gradient of a padded tensor folded back, each padded position's value
// added to the input position it mirrors (Source()). One pass over the padded gradient.
template <typename T>
class MirrorPadGradOp {
 public:
  explicit MirrorPadGradOp(Construction& c) {
    std::string mode;
    if (c.GetAttr("mode", &mode)) mirror_offset_ = mode == "REFLECT" ? 1 : 0;
  }
  void Compute(Context& ctx) {
    TensorView in = ctx.input(0);
    const std::vector<int64_t> padded = in.dims();
    TensorView p = ctx.input(1);
    const size_t r = padded.size();
    if (p.rank() != 2 || p.dim(0) != static_cast<int64_t>(r) || p.dim(1) != 2) {
      ctx.Fail(TG_INVALID_ARGUMENT, "paddings must be a matrix of shape [" + std::to_string(r) +
                                        ",2], but has shape " + ShapeString(p.dims()));
      return;
    }
    const std::vector<int64_t> pads = IndexValues(p);
    std::vector<int64_t> dims(r);
    for (size_t d = 0; d < r; ++d) {
      dims[d] = padded[d] - pads[2 * d] - pads[2 * d + 1];
      const int64_t limit = dims[d] - mirror_offset_;
      if (pads[2 * d] < 0 || pads[2 * d + 1] < 0 || pads[2 * d] > limit || pads[2 * d + 1] > limit) {
        ctx.Fail(TG_INVALID_ARGUMENT, "paddings " + ShapeString(pads) + " do not fit a gradient of "
                                      "shape " + ShapeString(padded));
        return;
      }
    }
    TensorMut out = ctx.AllocateOutput(0, dims);
    if (!ctx.ok()) return;
    T* o = out.mutable_data<T>();
    std::fill(o, o + NumElements(dims), T(0));
    const int64_t n = in.num_elements();
    if (n == 0) return;
    const T* g = in.data<T>();
    const std::vector<int64_t> strides = Strides(dims);
    std::vector<int64_t> idx(r, 0);
    for (int64_t i = 0; i < n; ++i) {
      int64_t off = 0;
      for (size_t d = 0; d < r; ++d) off += Source(idx[d], dims[d], pads[2 * d], mirror_offset_) * strides[d];
      o[off] += g[i];
      for (size_t d = r; d-- > 0;) {
        if (++idx[d] < padded[d]) break;
        idx[d] = 0;
      }
    }
  }

 private:
  int64_t mirror_offset_ = 0;
};

class ReverseV2Op {
 public:
  explicit ReverseV2Op(Construction&) {}
  void Compute(Context& ctx) {
    TensorView in = ctx.input(0);
    const std::vector<int64_t> dims = in.dims();
    std::vector<int64_t> axes;
    if (!ReadIndexVector(ctx, 1, "axis", &axes)) return;
    const size_t r = dims.size();
    std::vector<bool> flip(r, false);
    for (int64_t a : axes) {
      int64_t axis;
      if (!CanonicalAxis(ctx, a, static_cast<int64_t>(r), false, "axis", &axis)) return;
      if (flip[static_cast<size_t>(axis)]) {
        ctx.Fail(TG_INVALID_ARGUMENT, "axis " + std::to_string(a) + " is given more than once");
        return;
      }
      flip[static_cast<size_t>(axis)] = true;
    }
    if (std::find(flip.begin(), flip.end(), true) == flip.end()) {
      ctx.SetOutputAlias(0, in, dims);
      return;
    }
    const size_t size = ElementSizeOrFail(ctx, in);
    if (size == 0) return;
    TensorMut out = ctx.AllocateOutput(0, dims);
    const int64_t total = in.num_elements();
    if (!ctx.ok() || total == 0) return;
    const std::vector<int64_t> strides = Strides(dims);
    const int64_t w = dims[r - 1];
    const bool flip_last = flip[r - 1];
    DispatchBySize(size, [&]<typename E>() {
      const E* src = in.data<E>();
      E* dst = out.mutable_data<E>();
      ctx.ParallelFor(total / w, CopyCost(w * static_cast<int64_t>(size)), [&](int64_t b, int64_t e) {
        for (int64_t row = b; row < e; ++row) {
          int64_t rest = row, offset = 0;
          for (size_t d = r - 1; d-- > 0;) {
            const int64_t c = rest % dims[d];
            rest /= dims[d];
            offset += (flip[d] ? dims[d] - 1 - c : c) * strides[d];
          }
          const E* s = src + offset;
          E* o = dst + row * w;
          if (flip_last) {
            std::reverse_copy(s, s + w, o);
          } else {
            std::copy(s, s + w, o);
          }
        }
      });
    });
  }
};

// ReverseSequence: output element (.., s along seq_dim, .., b along batch_dim, ..) reads
// input element s' = seq_lengths[b] - 1 - s when s < seq_lengths[b], else s itself.
class ReverseSequenceOp {
 public:
  explicit ReverseSequenceOp(Construction& c) {
    c.GetAttr("seq_dim", &seq_dim_);
    c.GetAttr("batch_dim", &batch_dim_);
  }
  void Compute(Context& ctx) {
    TensorView in = ctx.input(0);
    const std::vector<int64_t> dims = in.dims();
    const int64_t r = static_cast<int64_t>(dims.size());
    if (seq_dim_ == batch_dim_ || seq_dim_ < 0 || seq_dim_ >= r || batch_dim_ < 0 ||
        batch_dim_ >= r) {
      ctx.Fail(TG_INVALID_ARGUMENT, "seq_dim " + std::to_string(seq_dim_) + " and batch_dim " +
                                        std::to_string(batch_dim_) +
                                        " must be distinct dimensions of an input of rank " +
                                        std::to_string(r));
      return;
    }
    std::vector<int64_t> lengths;
    if (!ReadIndexVector(ctx, 1, "seq_lengths", &lengths)) return;
    const int64_t batch = dims[static_cast<size_t>(batch_dim_)];
    const int64_t seq = dims[static_cast<size_t>(seq_dim_)];
    if (static_cast<int64_t>(lengths.size()) != batch) {
      ctx.Fail(TG_INVALID_ARGUMENT, "seq_lengths has " + std::to_string(lengths.size()) +
                                        " entries but the batch dimension has " +
                                        std::to_string(batch));
      return;
    }
    for (size_t b = 0; b < lengths.size(); ++b) {
      if (lengths[b] < 0 || lengths[b] > seq) {
        ctx.Fail(TG_INVALID_ARGUMENT, "seq_lengths[" + std::to_string(b) + "] = " +
                                          std::to_string(lengths[b]) + " is not in [0, " +
                                          std::to_string(seq) + "]");
        return;
      }
    }
    const size_t size = ElementSizeOrFail(ctx, in);
    if (size == 0) return;
    TensorMut out = ctx.AllocateOutput(0, dims);
    const int64_t total = in.num_elements();
    if (!ctx.ok() || total == 0) return;
    const std::vector<int64_t> strides = Strides(dims);
    const size_t sd = static_cast<size_t>(seq_dim_), bd = static_cast<size_t>(batch_dim_);
    DispatchBySize(size, [&]<typename E>() {
      const E* src = in.data<E>();
      E* dst = out.mutable_data<E>();
      ctx.ParallelFor(total, CopyCost(static_cast<int64_t>(size)) * 4, [&](int64_t b, int64_t e) {
        std::vector<int64_t> coord(dims.size());
        for (int64_t i = b; i < e; ++i) {
          int64_t rest = i;
          for (size_t d = dims.size(); d-- > 0;) {
            coord[d] = rest % dims[d];
            rest /= dims[d];
          }
          const int64_t length = lengths[static_cast<size_t>(coord[bd])];
          if (coord[sd] < length) coord[sd] = length - 1 - coord[sd];
          int64_t offset = 0;
          for (size_t d = 0; d < dims.size(); ++d) offset += coord[d] * strides[d];
          dst[i] = src[offset];
        }
      });
    });
  }

 private:
  int64_t seq_dim_ = 0;
  int64_t batch_dim_ = 0;
};

}  // namespace

void RegisterPadReverseKernels(tgraph::plugin::Init& init) {
  using tgraph::plugin::KernelBuilder;
  init.Kernel<PadOp<false>>(KernelBuilder("PadV2", "CPU")
                                .TypeConstraint("T", TG_ARRAY_MOVER_TYPES)
                                .TypeConstraint("Tpaddings", TG_ARRAY_INDEX_TYPES)
                                .HostMemory("paddings")
                                .HostMemory("constant_values"));
  init.Kernel<PadOp<true>>(KernelBuilder("MirrorPad", "CPU")
                               .TypeConstraint("T", TG_ARRAY_MOVER_TYPES)
                               .TypeConstraint("Tpaddings", TG_ARRAY_INDEX_TYPES)
                               .HostMemory("paddings"));
  init.Kernel<MirrorPadGradOp<float>>(KernelBuilder("MirrorPadGrad", "CPU")
                                          .TypeConstraint("T", TG_FLOAT)
                                          .TypeConstraint("Tpaddings", TG_ARRAY_INDEX_TYPES)
                                          .HostMemory("paddings"));
  init.Kernel<MirrorPadGradOp<double>>(KernelBuilder("MirrorPadGrad", "CPU")
                                           .TypeConstraint("T", TG_DOUBLE)
                                           .TypeConstraint("Tpaddings", TG_ARRAY_INDEX_TYPES)
                                           .HostMemory("paddings"));
  init.Kernel<ReverseSequenceOp>(KernelBuilder("ReverseSequence", "CPU")
                                     .TypeConstraint("T", TG_ARRAY_MOVER_TYPES)
                                     .TypeConstraint("Tlen", TG_ARRAY_INDEX_TYPES)
                                     .HostMemory("seq_lengths"));
  init.Kernel<ReverseV2Op>(KernelBuilder("ReverseV2", "CPU")
                               .TypeConstraint("T", TG_ARRAY_MOVER_TYPES)
                               .TypeConstraint("Tidx", TG_ARRAY_INDEX_TYPES)
                               .HostMemory("axis"));
}

}  // namespace tgraph_cpu
