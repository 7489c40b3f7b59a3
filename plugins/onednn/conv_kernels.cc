// Conv2D, Conv2DBackpropInput and Conv2DBackpropFilter (fp32, NHWC) on oneDNN's direct
// convolution primitives.
//
// Activations stay in TensorFlow's NHWC layout (oneDNN's "nhwc", read and written in place).
// The filter is TensorFlow's [KH, KW, IC, OC] ("hwio"); the primitive chooses the weights
// layout it runs fastest with, and a cached reorder converts the filter (or, for the filter
// gradient, the result) between the two on each run: a filter is small next to the
// convolution. Attrs, geometry (SAME / VALID / EXPLICIT padding, strides, dilations) and
// every check and message are the CPU plugin's (conv_pool_common.h, nn_backprop_common.h).
#include <algorithm>
#include <string>
#include <vector>

#include "dnnl_context.h"
#include "nn_backprop_common.h"

namespace tgraph_onednn {
namespace {

using dnnl::memory;
using tgraph::plugin::Construction;
using tgraph::plugin::Context;
using tgraph_cpu::nn::ConvAttrs;
using tgraph_cpu::nn::ConvGeometry;
using tgraph_cpu::nn::Padding;
using tgraph_cpu::nn::ShapeString;
using Tag = memory::format_tag;

constexpr auto kF32 = memory::data_type::f32;

// What oneDNN needs beyond ConvGeometry: the padding after the last element of each
// spatial dim (oneDNN's padding_r; TensorFlow gives SAME's odd pixel to the end).
struct ConvShape {
  ConvGeometry g;
  int64_t pad_bottom = 0, pad_right = 0;

  memory::desc Activations(int64_t h, int64_t w, int64_t c) const {
    return memory::desc({g.batch, c, h, w}, kF32, Tag::nhwc);
  }
  memory::desc Input() const { return Activations(g.in_h, g.in_w, g.depth); }
  memory::desc Output() const { return Activations(g.out_h, g.out_w, g.out_depth); }
  memory::desc FilterHwio() const {
    return memory::desc({g.out_depth, g.depth, g.k_h, g.k_w}, kF32, Tag::hwio);
  }
  memory::desc FilterAny() const {
    return memory::desc({g.out_depth, g.depth, g.k_h, g.k_w}, kF32, Tag::any);
  }
  memory::dims Strides() const { return {g.s_h, g.s_w}; }
  memory::dims Dilations() const { return {g.d_h - 1, g.d_w - 1}; }  // oneDNN counts gaps
  memory::dims PadBefore() const { return {g.pad_top, g.pad_left}; }
  memory::dims PadAfter() const { return {pad_bottom, pad_right}; }
  double MultiplyAdds() const {
    return static_cast<double>(g.pixels()) * static_cast<double>(g.patch()) *
           static_cast<double>(g.out_depth);
  }
  std::vector<int64_t> Key(int threads) const {
    return {threads, g.batch, g.in_h, g.in_w, g.depth, g.k_h, g.k_w, g.out_depth};
  }
};

int64_t PadAfter(const ConvAttrs& a, int dim, int64_t in, int64_t k, int64_t dilation,
                 int64_t stride, int64_t out, int64_t pad_before) {
  switch (a.padding) {
    case Padding::kValid:
      return 0;
    case Padding::kExplicit:
      return a.pads[static_cast<size_t>(2 * dim + 1)];
    case Padding::kSame:
      break;
  }
  const int64_t total = std::max<int64_t>((out - 1) * stride + (k - 1) * dilation + 1 - in, 0);
  return total - pad_before;
}

ConvShape WithPadAfter(const ConvAttrs& a, const ConvGeometry& g) {
  ConvShape s;
  s.g = g;
  s.pad_bottom = PadAfter(a, 1, g.in_h, g.k_h, g.d_h, g.s_h, g.out_h, g.pad_top);
  s.pad_right = PadAfter(a, 2, g.in_w, g.k_w, g.d_w, g.s_w, g.out_w, g.pad_left);
  return s;
}

dnnl::convolution_forward::primitive_desc ForwardDesc(const ConvShape& s,
                                                      dnnl::prop_kind kind) {
  const dnnl::convolution_forward::desc desc(
      kind, dnnl::algorithm::convolution_direct, s.Input(), s.FilterAny(), s.Output(),
      s.Strides(), s.Dilations(), s.PadBefore(), s.PadAfter());
  return dnnl::convolution_forward::primitive_desc(desc, UserScratchpadAttr(), CpuEngine());
}

// A reorder between TensorFlow's filter layout and the primitive's, when they differ.
struct FilterReorder {
  bool needed = false;
  dnnl::reorder primitive;
  memory::desc from, to, scratchpad;
};

FilterReorder MakeFilterReorder(const memory::desc& from, const memory::desc& to) {
  FilterReorder r;
  r.from = from;
  r.to = to;
  r.needed = from != to;
  if (r.needed) {
    const dnnl::reorder::primitive_desc pd(CpuEngine(), from, CpuEngine(), to,
                                           UserScratchpadAttr());
    r.primitive = dnnl::reorder(pd);
    r.scratchpad = pd.scratchpad_desc();
  }
  return r;
}

// Runs `r` from `src` into a new temp (returned), or returns `src` when no reorder is needed.
// Null with the node failed on error.
void* Reordered(Context& ctx, const FilterReorder& r, const void* src,
                tgraph::plugin::TensorMut* temp, int threads) {
  if (!r.needed) return const_cast<void*>(src);
  *temp = ctx.AllocateTemp(TG_UINT8, {static_cast<int64_t>(r.to.get_size())});
  if (!ctx.ok()) return nullptr;
  void* dst = temp->mutable_data<uint8_t>();
  if (!Execute(ctx, r.primitive, r.scratchpad,
               {{DNNL_ARG_FROM, Wrap(r.from, src)}, {DNNL_ARG_TO, Wrap(r.to, dst)}}, threads)) {
    return nullptr;
  }
  return dst;
}

template <typename T>
void FillZero(T* p, int64_t n) {
  std::fill(p, p + n, T(0));
}

// ---- Conv2D ----

struct ConvForwardEntry {
  dnnl::convolution_forward primitive;
  memory::desc scratchpad;
  FilterReorder filter;
};

class Conv2DOp {
 public:
  explicit Conv2DOp(Construction& c) { tgraph_cpu::nn::GetConvAttrs(c, &attrs_); }

  void Compute(Context& ctx) {
    const auto input = ctx.input(0);
    const auto filter = ctx.input(1);
    if (input.rank() != 4 || filter.rank() != 4) {
      ctx.Fail(TG_INVALID_ARGUMENT, "Conv2D needs a 4-D input and a 4-D filter, got shapes " +
                                        ShapeString(input.dims()) + " and " +
                                        ShapeString(filter.dims()));
      return;
    }
    ConvGeometry g;
    g.batch = input.dim(0);
    g.in_h = input.dim(1);
    g.in_w = input.dim(2);
    g.depth = input.dim(3);
    g.k_h = filter.dim(0);
    g.k_w = filter.dim(1);
    g.out_depth = filter.dim(3);
    const int64_t k_depth = filter.dim(2);
    if (k_depth == 0) {
      ctx.Fail(TG_INVALID_ARGUMENT, "the filter's input depth must be > 0, got filter shape " +
                                        ShapeString(filter.dims()));
      return;
    }
    if (k_depth != g.depth) {
      if (k_depth > 0 && g.depth % k_depth == 0) {
        ctx.Fail(TG_UNIMPLEMENTED, "grouped convolution (input depth " +
                                       std::to_string(g.depth) + ", filter input depth " +
                                       std::to_string(k_depth) + ") is not supported on the CPU");
      } else {
        ctx.Fail(TG_INVALID_ARGUMENT, "input depth must equal the filter's input depth: input " +
                                          ShapeString(input.dims()) + ", filter " +
                                          ShapeString(filter.dims()));
      }
      return;
    }
    if (g.k_h <= 0 || g.k_w <= 0) {
      ctx.Fail(TG_INVALID_ARGUMENT, "filter height and width must be > 0, got filter shape " +
                                        ShapeString(filter.dims()));
      return;
    }
    std::string error;
    if (!tgraph_cpu::nn::ComputeConvGeometry(attrs_, &g, &error)) {
      ctx.Fail(TG_INVALID_ARGUMENT, error + ": input " + ShapeString(input.dims()) + ", filter " +
                                        ShapeString(filter.dims()));
      return;
    }
    auto out = ctx.AllocateOutput(0, {g.batch, g.out_h, g.out_w, g.out_depth});
    if (!ctx.ok() || g.pixels() == 0 || g.out_depth == 0) return;
    const ConvShape s = WithPadAfter(attrs_, g);
    const int threads = ThreadsFor(ctx, s.MultiplyAdds());
    std::shared_ptr<const ConvForwardEntry> e;
    try {
      e = cache_.Get(s.Key(threads), [&] {
        ThreadScope scope(threads);
        const auto pd = ForwardDesc(s, dnnl::prop_kind::forward_inference);
        return ConvForwardEntry{dnnl::convolution_forward(pd), pd.scratchpad_desc(),
                                MakeFilterReorder(s.FilterHwio(), pd.weights_desc())};
      });
    } catch (const dnnl::error& err) {
      FailWith(ctx, "convolution creation", err);
      return;
    }
    tgraph::plugin::TensorMut packed;
    void* weights = Reordered(ctx, e->filter, filter.data<float>(), &packed, threads);
    if (weights == nullptr) return;
    Execute(ctx, e->primitive, e->scratchpad,
            {{DNNL_ARG_SRC, Wrap(s.Input(), input.data<float>())},
             {DNNL_ARG_WEIGHTS, Wrap(e->filter.to, weights)},
             {DNNL_ARG_DST, Wrap(s.Output(), out.mutable_data<float>())}},
            threads);
  }

 private:
  ConvAttrs attrs_;
  PrimitiveCache<ConvForwardEntry> cache_;
};

// ---- Conv2DBackpropInput ----

struct ConvBackwardDataEntry {
  dnnl::convolution_backward_data primitive;
  memory::desc scratchpad;
  FilterReorder filter;
};

class Conv2DBackpropInputOp {
 public:
  explicit Conv2DBackpropInputOp(Construction& c) { tgraph_cpu::nn::GetConvAttrs(c, &attrs_); }

  void Compute(Context& ctx) {
    std::vector<int64_t> sizes;
    if (!tgraph_cpu::nn::ReadShapeInput(ctx, 0, "input_sizes", {4, 2}, &sizes)) return;
    const auto filter = ctx.input(1);
    const auto dy = ctx.input(2);
    if (sizes.size() == 2) {
      // Height and width only (TF accepts this): batch from dy, depth from the filter.
      if (dy.rank() != 4 || filter.rank() != 4) {
        ctx.Fail(TG_INVALID_ARGUMENT, "filter and out_backprop must be 4-D, got shapes " +
                                          ShapeString(filter.dims()) + " and " +
                                          ShapeString(dy.dims()));
        return;
      }
      sizes = {dy.dim(0), sizes[0], sizes[1], filter.dim(2)};
    }
    ConvGeometry g;
    if (!tgraph_cpu::nn::ConvBackpropGeometry(ctx, attrs_, sizes, filter.dims(), dy.dims(), &g)) {
      return;
    }
    auto out = ctx.AllocateOutput(0, sizes);
    if (!ctx.ok() || g.input_size() == 0) return;
    float* dx = out.mutable_data<float>();
    if (g.pixels() == 0 || g.out_depth == 0) {
      FillZero(dx, g.input_size());  // no window touches the input, or no filters
      return;
    }
    const ConvShape s = WithPadAfter(attrs_, g);
    const int threads = ThreadsFor(ctx, s.MultiplyAdds());
    std::shared_ptr<const ConvBackwardDataEntry> e;
    try {
      e = cache_.Get(s.Key(threads), [&] {
        ThreadScope scope(threads);
        const auto hint = ForwardDesc(s, dnnl::prop_kind::forward_training);
        const dnnl::convolution_backward_data::desc desc(
            dnnl::algorithm::convolution_direct, s.Input(), s.FilterAny(), s.Output(),
            s.Strides(), s.Dilations(), s.PadBefore(), s.PadAfter());
        const dnnl::convolution_backward_data::primitive_desc pd(desc, UserScratchpadAttr(),
                                                                 CpuEngine(), hint);
        return ConvBackwardDataEntry{dnnl::convolution_backward_data(pd), pd.scratchpad_desc(),
                                     MakeFilterReorder(s.FilterHwio(), pd.weights_desc())};
      });
    } catch (const dnnl::error& err) {
      FailWith(ctx, "convolution backward-data creation", err);
      return;
    }
    tgraph::plugin::TensorMut packed;
    void* weights = Reordered(ctx, e->filter, filter.data<float>(), &packed, threads);
    if (weights == nullptr) return;
    Execute(ctx, e->primitive, e->scratchpad,
            {{DNNL_ARG_DIFF_DST, Wrap(s.Output(), dy.data<float>())},
             {DNNL_ARG_WEIGHTS, Wrap(e->filter.to, weights)},
             {DNNL_ARG_DIFF_SRC, Wrap(s.Input(), dx)}},
            threads);
  }

 private:
  ConvAttrs attrs_;
  PrimitiveCache<ConvBackwardDataEntry> cache_;
};

// ---- Conv2DBackpropFilter ----

struct ConvBackwardWeightsEntry {
  dnnl::convolution_backward_weights primitive;
  memory::desc scratchpad;
  FilterReorder filter;  // from the primitive's layout to TensorFlow's
};

class Conv2DBackpropFilterOp {
 public:
  explicit Conv2DBackpropFilterOp(Construction& c) { tgraph_cpu::nn::GetConvAttrs(c, &attrs_); }

  void Compute(Context& ctx) {
    const auto input = ctx.input(0);
    std::vector<int64_t> sizes;
    if (!tgraph_cpu::nn::ReadShapeInput(ctx, 1, "filter_sizes", {4}, &sizes)) return;
    const auto dy = ctx.input(2);
    ConvGeometry g;
    if (!tgraph_cpu::nn::ConvBackpropGeometry(ctx, attrs_, input.dims(), sizes, dy.dims(), &g)) {
      return;
    }
    auto out = ctx.AllocateOutput(0, sizes);
    if (!ctx.ok() || g.patch() == 0 || g.out_depth == 0) return;
    float* dw = out.mutable_data<float>();
    if (g.pixels() == 0) {  // nothing was convolved: the filter had no effect
      FillZero(dw, g.patch() * g.out_depth);
      return;
    }
    const ConvShape s = WithPadAfter(attrs_, g);
    const int threads = ThreadsFor(ctx, s.MultiplyAdds());
    std::shared_ptr<const ConvBackwardWeightsEntry> e;
    try {
      e = cache_.Get(s.Key(threads), [&] {
        ThreadScope scope(threads);
        const auto hint = ForwardDesc(s, dnnl::prop_kind::forward_training);
        const dnnl::convolution_backward_weights::desc desc(
            dnnl::algorithm::convolution_direct, s.Input(), s.FilterAny(), s.Output(),
            s.Strides(), s.Dilations(), s.PadBefore(), s.PadAfter());
        const dnnl::convolution_backward_weights::primitive_desc pd(desc, UserScratchpadAttr(),
                                                                    CpuEngine(), hint);
        return ConvBackwardWeightsEntry{dnnl::convolution_backward_weights(pd),
                                        pd.scratchpad_desc(),
                                        MakeFilterReorder(pd.diff_weights_desc(), s.FilterHwio())};
      });
    } catch (const dnnl::error& err) {
      FailWith(ctx, "convolution backward-weights creation", err);
      return;
    }
    // The primitive writes its own layout into a temp when that is not TensorFlow's.
    tgraph::plugin::TensorMut blocked;
    void* result = dw;
    if (e->filter.needed) {
      blocked = ctx.AllocateTemp(TG_UINT8, {static_cast<int64_t>(e->filter.from.get_size())});
      if (!ctx.ok()) return;
      result = blocked.mutable_data<uint8_t>();
    }
    if (!Execute(ctx, e->primitive, e->scratchpad,
                 {{DNNL_ARG_SRC, Wrap(s.Input(), input.data<float>())},
                  {DNNL_ARG_DIFF_DST, Wrap(s.Output(), dy.data<float>())},
                  {DNNL_ARG_DIFF_WEIGHTS, Wrap(e->filter.from, result)}},
                 threads)) {
      return;
    }
    if (e->filter.needed) {
      Execute(ctx, e->filter.primitive, e->filter.scratchpad,
              {{DNNL_ARG_FROM, Wrap(e->filter.from, result)},
               {DNNL_ARG_TO, Wrap(e->filter.to, dw)}},
              threads);
    }
  }

 private:
  ConvAttrs attrs_;
  PrimitiveCache<ConvBackwardWeightsEntry> cache_;
};

}  // namespace

void RegisterConvKernels(tgraph::plugin::Init& init) {
  using tgraph::plugin::KernelBuilder;
  init.Kernel<Conv2DOp>(
      KernelBuilder("Conv2D", "CPU").TypeConstraint("T", TG_FLOAT).Priority(kOneDnnPriority));
  init.Kernel<Conv2DBackpropInputOp>(KernelBuilder("Conv2DBackpropInput", "CPU")
                                         .TypeConstraint("T", TG_FLOAT)
                                         .HostMemory("input_sizes")
                                         .Priority(kOneDnnPriority));
  init.Kernel<Conv2DBackpropFilterOp>(KernelBuilder("Conv2DBackpropFilter", "CPU")
                                          .TypeConstraint("T", TG_FLOAT)
                                          .HostMemory("filter_sizes")
                                          .Priority(kOneDnnPriority));
}

}  // namespace tgraph_onednn
