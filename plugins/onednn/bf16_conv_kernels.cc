// Conv2D, Conv2DBackpropInput and Conv2DBackpropFilter in bfloat16 (NHWC) on oneDNN's
// convolution primitives, registered only where the CPU computes bf16 natively (AVX512_BF16
// or AMX: the same load-time probe as the bf16 MatMul); elsewhere no CPU kernel takes a
// bf16 convolution and placement says so, as in TensorFlow. (No bf16 _FusedConv2D: TF's op
// does not allow bf16, so a bf16 Conv2D + BiasAdd + Relu stays three bf16 ops.)
//
// Products accumulate in float inside oneDNN; each result is rounded to bfloat16 once. The
// filter gradient is accumulated in float in the primitive's own layout and rounded when
// it is reordered into TensorFlow's [KH, KW, IC, OC]. Attrs, geometry and every check and
// message are the CPU plugin's (conv_pool_common.h, nn_backprop_common.h), as for the fp32
// kernels of conv_kernels.cc. Work is split over the intra-op pool by ranges of batch
// elements (dnnl_context.h; one part below the small-problem bound), every part's primitive
// using the first part's weights layout, so one packed filter serves them all; the filter
// gradient's parts each write a partial float gradient, summed before the final reorder.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "conv2d_geometry.h"
#include "dnnl_context.h"
#include "nn_backprop_common.h"

namespace tgraph_onednn {

bool BFloat16MatMulRuns();  // matmul_kernels.cc: does this CPU compute bf16 natively?

namespace {

using dnnl::memory;
using tgraph::plugin::Construction;
using tgraph::plugin::Context;
using tgraph_cpu::nn::ConvAttrs;
using tgraph_cpu::nn::ConvGeometry;
using tgraph_cpu::nn::Padding;
using tgraph_cpu::nn::ShapeString;
using Tag = memory::format_tag;

constexpr auto kBf16 = memory::data_type::bf16;
constexpr auto kF32 = memory::data_type::f32;

// The padding after the last element of a spatial dim (TensorFlow's SAME gives the odd
// pixel to the end).
int64_t PadAfter(const ConvAttrs& a, int dim, int64_t in, int64_t k, int64_t dilation,
                 int64_t stride, int64_t out, int64_t pad_before) {
  if (a.padding == Padding::kValid) return 0;
  if (a.padding == Padding::kExplicit) return a.pads[static_cast<size_t>(2 * dim + 1)];
  const int64_t total = std::max<int64_t>((out - 1) * stride + (k - 1) * dilation + 1 - in, 0);
  return total - pad_before;
}

// One convolution as oneDNN sees it.
struct Shape {
  ConvGeometry g;
  int64_t pad_bottom = 0, pad_right = 0;

  Shape(const ConvAttrs& a, const ConvGeometry& geometry) : g(geometry) {
    pad_bottom = PadAfter(a, 1, g.in_h, g.k_h, g.d_h, g.s_h, g.out_h, g.pad_top);
    pad_right = PadAfter(a, 2, g.in_w, g.k_w, g.d_w, g.s_w, g.out_w, g.pad_left);
    // A dim with one output position has no use for its stride; one larger than the input
    // made oneDNN 2.6's bf16 filter gradient read past the input (a 1-pixel-wide image,
    // stride 3, a 2-wide SAME filter: garbage for the tap in the padding). Stride 1 with
    // the same window is the same convolution.
    Unstride(g.out_h, g.in_h, g.k_h, g.d_h, g.pad_top, &g.s_h, &pad_bottom);
    Unstride(g.out_w, g.in_w, g.k_w, g.d_w, g.pad_left, &g.s_w, &pad_right);
  }
  static void Unstride(int64_t out, int64_t in, int64_t k, int64_t d, int64_t before,
                       int64_t* stride, int64_t* after) {
    const int64_t needed = (k - 1) * d + 1 - in - before;  // padding after, at stride 1
    if (out == 1 && *stride > 1 && needed >= 0) {
      *stride = 1;
      *after = needed;
    }
  }
  memory::desc Input() const { return memory::desc({g.batch, g.depth, g.in_h, g.in_w}, kBf16, Tag::nhwc); }
  memory::desc Output() const {
    return memory::desc({g.batch, g.out_depth, g.out_h, g.out_w}, kBf16, Tag::nhwc);
  }
  memory::dims FilterDims() const { return {g.out_depth, g.depth, g.k_h, g.k_w}; }
  memory::desc FilterHwio() const { return memory::desc(FilterDims(), kBf16, Tag::hwio); }
  memory::dims Strides() const { return {g.s_h, g.s_w}; }
  memory::dims Dilations() const { return {g.d_h - 1, g.d_w - 1}; }  // oneDNN counts gaps
  memory::dims PadBefore() const { return {g.pad_top, g.pad_left}; }
  memory::dims PadAfterDims() const { return {pad_bottom, pad_right}; }
  std::vector<int64_t> Key() const {
    return {g.batch, g.in_h, g.in_w, g.depth, g.k_h, g.k_w, g.out_depth};
  }
  dnnl::convolution_forward::primitive_desc Forward(const memory::desc& weights,
                                                    dnnl::prop_kind kind) const {
    const dnnl::convolution_forward::desc desc(kind, dnnl::algorithm::convolution_direct,
                                               Input(), weights, Output(), Strides(),
                                               Dilations(), PadBefore(), PadAfterDims());
    return dnnl::convolution_forward::primitive_desc(desc, UserScratchpadAttr(), CpuEngine());
  }
};

// A convolution primitive and the reorder of the filter (or its gradient) between
// TensorFlow's layout and the primitive's.
struct Entry {
  dnnl::primitive primitive;
  memory::desc scratchpad, weights;
  dnnl::reorder reorder;
  memory::desc reorder_scratchpad, from, to;
};

void MakeReorder(Entry& e, const memory::desc& from, const memory::desc& to) {
  const dnnl::reorder::primitive_desc pd(CpuEngine(), from, CpuEngine(), to, UserScratchpadAttr());
  e.reorder = dnnl::reorder(pd);
  e.reorder_scratchpad = pd.scratchpad_desc();
  e.from = from;
  e.to = to;
}

// Runs the filter reorder from `src` into `dst`.
bool RunReorder(Context& ctx, const Entry& e, const void* src, void* dst) {
  PartBuffers scratch(ctx, 1, e.reorder_scratchpad.get_size());
  if (!scratch.ok()) return false;
  return RunParts(ctx, 1, "filter reorder", [&](int64_t) {
    RunHere(e.reorder, e.reorder_scratchpad, scratch.at(0),
            {{DNNL_ARG_FROM, Wrap(e.from, src)}, {DNNL_ARG_TO, Wrap(e.to, dst)}});
  });
}

// A call split into batch ranges: the entry of the parts of the full size and of the last,
// shorter one (the same when the split is even), the last made with the first's weights
// layout. The filter reorder is the first's.
struct SplitEntry {
  Split split;
  Entry main, last;
  size_t ScratchBytes() const {
    return std::max(main.scratchpad.get_size(), last.scratchpad.get_size());
  }
  const Entry& For(int64_t part) const { return part == split.parts - 1 ? last : main; }
};

// `s` with `batch` images (a part's shape).
Shape Part(const Shape& s, int64_t batch) {
  Shape p = s;
  p.g.batch = batch;
  return p;
}

// make(shape, weights desc) -> Entry. Split in `parts` when oneDNN takes the last part with
// the first's layout, else one part. Throws dnnl::error.
template <typename Make>
SplitEntry MakeSplit(const Shape& s, int64_t parts, const memory::desc& any, Make&& make) {
  OneThreadScope one_thread;
  SplitEntry e;
  if (parts > 1) {
    try {
      e.split = Split::Of(s.g.batch, parts);
      e.main = make(Part(s, e.split.size), any);
      e.last = e.split.last == e.split.size ? e.main : make(Part(s, e.split.last), e.main.weights);
      return e;
    } catch (const dnnl::error&) {
      // Below: one part.
    }
  }
  e.split = Split::Of(s.g.batch, 1);
  e.main = e.last = make(s, any);
  return e;
}

int64_t MultiplyAdds(const ConvGeometry& g) {
  return g.batch * g.out_h * g.out_w * g.k_h * g.k_w * g.depth * g.out_depth;
}

void* Temp(Context& ctx, size_t bytes, tgraph::plugin::TensorMut* holder) {
  *holder = ctx.AllocateTemp(TG_UINT8, {static_cast<int64_t>(std::max<size_t>(bytes, 1))});
  return ctx.ok() ? holder->mutable_data<uint8_t>() : nullptr;
}

void FillZero(void* p, int64_t elements) {
  std::memset(p, 0, static_cast<size_t>(elements) * 2);  // bf16 zero is all zero bits
}

class Conv2DBf16 {
 public:
  explicit Conv2DBf16(Construction& c) { tgraph_cpu::nn::GetConvAttrs(c, &attrs_); }

  void Compute(Context& ctx) {
    const auto input = ctx.input(0);
    const auto filter = ctx.input(1);
    ConvGeometry g;
    if (!tgraph_cpu::nn::Conv2DForwardGeometry(ctx, attrs_, input, filter, &g)) return;
    auto out = ctx.AllocateOutput(0, {g.batch, g.out_h, g.out_w, g.out_depth});
    if (!ctx.ok() || g.pixels() == 0 || g.out_depth == 0) return;
    const Shape s(attrs_, g);
    const int parts = PartsFor(ctx, static_cast<double>(MultiplyAdds(g)), g.batch);
    std::shared_ptr<const SplitEntry> e;
    try {
      std::vector<int64_t> key = s.Key();
      key.push_back(parts);
      e = cache_.Get(key, [&] {
        auto make = [](const Shape& p, const memory::desc& w) {
          const auto pd = p.Forward(w, dnnl::prop_kind::forward_inference);
          return Entry{dnnl::convolution_forward(pd), pd.scratchpad_desc(), pd.weights_desc(),
                       {}, {}, {}, {}};
        };
        SplitEntry entry =
            MakeSplit(s, parts, memory::desc(s.FilterDims(), kBf16, Tag::any), make);
        MakeReorder(entry.main, s.FilterHwio(), entry.main.weights);
        return entry;
      });
    } catch (const dnnl::error& err) {
      return FailWith(ctx, "bfloat16 convolution creation", err);
    }
    tgraph::plugin::TensorMut packed_holder;
    void* packed = Temp(ctx, e->main.weights.get_size(), &packed_holder);
    if (packed == nullptr || !RunReorder(ctx, e->main, filter.data<uint16_t>(), packed)) return;
    PartBuffers scratch(ctx, e->split.parts, e->ScratchBytes());
    if (!scratch.ok()) return;
    const uint16_t* x = input.data<uint16_t>();
    uint16_t* y = out.mutable_data<uint16_t>();
    RunParts(ctx, e->split.parts, "bfloat16 convolution", [&](int64_t i) {
      const Shape p = Part(s, e->split.length(i));
      const int64_t n0 = e->split.begin(i);
      RunHere(e->For(i).primitive, e->For(i).scratchpad, scratch.at(i),
              {{DNNL_ARG_SRC, Wrap(p.Input(), x + n0 * g.in_h * g.in_w * g.depth)},
               {DNNL_ARG_WEIGHTS, Wrap(e->main.weights, packed)},
               {DNNL_ARG_DST, Wrap(p.Output(), y + n0 * g.out_h * g.out_w * g.out_depth)}});
    });
  }

 private:
  ConvAttrs attrs_;
  PrimitiveCache<SplitEntry> cache_;
};

class Conv2DBackpropInputBf16 {
 public:
  explicit Conv2DBackpropInputBf16(Construction& c) { tgraph_cpu::nn::GetConvAttrs(c, &attrs_); }

  void Compute(Context& ctx) {
    std::vector<int64_t> sizes;
    if (!tgraph_cpu::nn::ReadShapeInput(ctx, 0, "input_sizes", {4, 2}, &sizes)) return;
    const auto filter = ctx.input(1);
    const auto dy = ctx.input(2);
    if (sizes.size() == 2) {
      if (dy.rank() != 4 || filter.rank() != 4) {
        return ctx.Fail(TG_INVALID_ARGUMENT, "filter and out_backprop must be 4-D, got shapes " +
                                                 ShapeString(filter.dims()) + " and " +
                                                 ShapeString(dy.dims()));
      }
      sizes = {dy.dim(0), sizes[0], sizes[1], filter.dim(2)};
    }
    ConvGeometry g;
    if (!tgraph_cpu::nn::ConvBackpropGeometry(ctx, attrs_, sizes, filter.dims(), dy.dims(), &g)) {
      return;
    }
    auto out = ctx.AllocateOutput(0, sizes);
    if (!ctx.ok() || g.input_size() == 0) return;
    void* dx = out.mutable_data<uint16_t>();
    if (g.pixels() == 0 || g.out_depth == 0) return FillZero(dx, g.input_size());
    const Shape s(attrs_, g);
    const int parts = PartsFor(ctx, static_cast<double>(MultiplyAdds(g)), g.batch);
    std::shared_ptr<const SplitEntry> e;
    try {
      std::vector<int64_t> key = s.Key();
      key.push_back(parts);
      e = cache_.Get(key, [&] {
        auto make = [](const Shape& p, const memory::desc& w) {
          const auto hint = p.Forward(w, dnnl::prop_kind::forward_training);
          const dnnl::convolution_backward_data::desc desc(
              dnnl::algorithm::convolution_direct, p.Input(), w, p.Output(), p.Strides(),
              p.Dilations(), p.PadBefore(), p.PadAfterDims());
          const dnnl::convolution_backward_data::primitive_desc pd(desc, UserScratchpadAttr(),
                                                                   CpuEngine(), hint);
          return Entry{dnnl::convolution_backward_data(pd), pd.scratchpad_desc(),
                       pd.weights_desc(), {}, {}, {}, {}};
        };
        SplitEntry entry =
            MakeSplit(s, parts, memory::desc(s.FilterDims(), kBf16, Tag::any), make);
        MakeReorder(entry.main, s.FilterHwio(), entry.main.weights);
        return entry;
      });
    } catch (const dnnl::error& err) {
      return FailWith(ctx, "bfloat16 convolution backward-data creation", err);
    }
    tgraph::plugin::TensorMut packed_holder;
    void* packed = Temp(ctx, e->main.weights.get_size(), &packed_holder);
    if (packed == nullptr || !RunReorder(ctx, e->main, filter.data<uint16_t>(), packed)) return;
    PartBuffers scratch(ctx, e->split.parts, e->ScratchBytes());
    if (!scratch.ok()) return;
    const uint16_t* grad = dy.data<uint16_t>();
    uint16_t* dxs = static_cast<uint16_t*>(dx);
    RunParts(ctx, e->split.parts, "bfloat16 convolution backward-data", [&](int64_t i) {
      const Shape p = Part(s, e->split.length(i));
      const int64_t n0 = e->split.begin(i);
      RunHere(e->For(i).primitive, e->For(i).scratchpad, scratch.at(i),
              {{DNNL_ARG_DIFF_DST, Wrap(p.Output(), grad + n0 * g.out_h * g.out_w * g.out_depth)},
               {DNNL_ARG_WEIGHTS, Wrap(e->main.weights, packed)},
               {DNNL_ARG_DIFF_SRC, Wrap(p.Input(), dxs + n0 * g.in_h * g.in_w * g.depth)}});
    });
  }

 private:
  ConvAttrs attrs_;
  PrimitiveCache<SplitEntry> cache_;
};

class Conv2DBackpropFilterBf16 {
 public:
  explicit Conv2DBackpropFilterBf16(Construction& c) { tgraph_cpu::nn::GetConvAttrs(c, &attrs_); }

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
    void* dw = out.mutable_data<uint16_t>();
    if (g.pixels() == 0) return FillZero(dw, g.patch() * g.out_depth);
    const Shape s(attrs_, g);
    const int parts = PartsFor(ctx, static_cast<double>(MultiplyAdds(g)), g.batch);
    std::shared_ptr<const SplitEntry> e;
    try {
      std::vector<int64_t> key = s.Key();
      key.push_back(parts);
      e = cache_.Get(key, [&] {
        auto make = [](const Shape& p, const memory::desc& w) {
          const auto hint = p.Forward(memory::desc(p.FilterDims(), kBf16, Tag::any),
                                      dnnl::prop_kind::forward_training);
          const dnnl::convolution_backward_weights::desc desc(
              dnnl::algorithm::convolution_direct, p.Input(), w, p.Output(), p.Strides(),
              p.Dilations(), p.PadBefore(), p.PadAfterDims());
          const dnnl::convolution_backward_weights::primitive_desc pd(desc, UserScratchpadAttr(),
                                                                      CpuEngine(), hint);
          return Entry{dnnl::convolution_backward_weights(pd), pd.scratchpad_desc(),
                       pd.diff_weights_desc(), {}, {}, {}, {}};
        };
        // Each part's gradient in float (summed over its windows), in the primitive's layout.
        SplitEntry entry = MakeSplit(s, parts, memory::desc(s.FilterDims(), kF32, Tag::any), make);
        MakeReorder(entry.main, entry.main.weights, s.FilterHwio());  // and rounded to bf16
        return entry;
      });
    } catch (const dnnl::error& err) {
      return FailWith(ctx, "bfloat16 convolution backward-weights creation", err);
    }
    const int64_t n_parts = e->split.parts;
    const size_t grad_bytes = e->main.weights.get_size();
    PartBuffers partial(ctx, n_parts, grad_bytes);
    PartBuffers scratch(ctx, n_parts, e->ScratchBytes());
    if (!partial.ok() || !scratch.ok()) return;
    const uint16_t* x = input.data<uint16_t>();
    const uint16_t* grad = dy.data<uint16_t>();
    if (!RunParts(ctx, n_parts, "bfloat16 convolution backward-weights", [&](int64_t i) {
          // Zeroed first: for taps no window reaches (all in the padding), some
          // implementations leave their gradient unwritten.
          std::memset(partial.at(i), 0, grad_bytes);
          const Shape p = Part(s, e->split.length(i));
          const int64_t n0 = e->split.begin(i);
          RunHere(e->For(i).primitive, e->For(i).scratchpad, scratch.at(i),
                  {{DNNL_ARG_SRC, Wrap(p.Input(), x + n0 * g.in_h * g.in_w * g.depth)},
                   {DNNL_ARG_DIFF_DST, Wrap(p.Output(), grad + n0 * g.out_h * g.out_w * g.out_depth)},
                   {DNNL_ARG_DIFF_WEIGHTS, Wrap(e->main.weights, partial.at(i))}});
        })) {
      return;
    }
    // The parts' partial gradients summed into the first (one layout; any padding of the
    // layout holds zeros in every part).
    float* sum = static_cast<float*>(partial.at(0));
    const int64_t count = static_cast<int64_t>(grad_bytes / sizeof(float));
    for (int64_t part = 1; part < n_parts; ++part) {
      const float* add = static_cast<const float*>(partial.at(part));
      for (int64_t j = 0; j < count; ++j) sum[j] += add[j];
    }
    RunReorder(ctx, e->main, sum, dw);
  }

 private:
  ConvAttrs attrs_;
  PrimitiveCache<SplitEntry> cache_;
};

}  // namespace

void RegisterBf16ConvKernels(tgraph::plugin::Init& init) {
  if (!BFloat16MatMulRuns()) return;  // no native bf16: no kernel (placement says so)
  using tgraph::plugin::KernelBuilder;
  init.Kernel<Conv2DBf16>(
      KernelBuilder("Conv2D", "CPU").TypeConstraint("T", TG_BFLOAT16).Priority(kOneDnnPriority));
  init.Kernel<Conv2DBackpropInputBf16>(KernelBuilder("Conv2DBackpropInput", "CPU")
                                           .TypeConstraint("T", TG_BFLOAT16)
                                           .HostMemory("input_sizes")
                                           .Priority(kOneDnnPriority));
  init.Kernel<Conv2DBackpropFilterBf16>(KernelBuilder("Conv2DBackpropFilter", "CPU")
                                            .TypeConstraint("T", TG_BFLOAT16)
                                            .HostMemory("filter_sizes")
                                            .Priority(kOneDnnPriority));
}

}  // namespace tgraph_onednn
