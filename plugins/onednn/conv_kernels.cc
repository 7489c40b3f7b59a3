// Conv2D, _FusedConv2D, Conv2DBackpropInput and Conv2DBackpropFilter (NHWC) on oneDNN's
// direct convolution primitives, in float and, where oneDNN's bfloat16 kernels run
// (AVX512_BF16 or AMX; ranked below the float ones where bf16 is the slower, bf16_mode.h), in
// bfloat16: one code
// templated on the dtype (Float, BFloat16 below). _FusedConv2D is Conv2D with the bias as the
// primitive's bias input and the activation as a post-op (fused_epilogue_dnnl.h). Elsewhere
// no CPU kernel takes a bf16 convolution and placement says so, as in TensorFlow.
//
// Activations stay in TensorFlow's NHWC layout (oneDNN's "nhwc", read and written in place).
// The filter is TensorFlow's [KH, KW, IC, OC] ("hwio"); the primitive chooses the weights
// layout it runs fastest with, and a cached reorder converts the filter (or, for the filter
// gradient, the result) between the two. The forward convolution keeps its reordered filter
// across runs while the filter's bytes stay the same (a frozen graph's constant, a variable
// between its writes: kept_pack.h): in a frozen ResNet50 at batch 1 the filters (100 MB)
// outweigh the activations, and reordering them on every run cost more than the
// convolutions of the last stage. The gradients reorder on each run: in training the filter
// changes every step. Attrs, geometry (SAME / VALID / EXPLICIT padding, strides, dilations) and
// every check and message are the CPU plugin's (conv_pool_common.h, nn_backprop_common.h).
// bfloat16 products accumulate in float inside oneDNN and each result is rounded once; the
// filter gradient is accumulated in float (in both dtypes) and rounded when it is reordered
// into TensorFlow's layout.
//
// Work is split over the intra-op pool (dnnl_context.h) into convolutions of their own:
// ranges of batch elements, or for a single image (forward and filter gradient) bands of
// output rows, each reading the input rows its windows reach with the padding that falls
// inside the band. The filter gradient sums the parts' partial gradients. A batch is cut
// into a few parts per thread, which the threads claim one at a time (RunClaimedParts): when
// one thread is held up (on a busy machine another process has its core for a time slice),
// the others take over the parts it has not started instead of the step waiting for it.
// Parts of every call pass through a process-wide gate of one place per core (CoreGate), so
// concurrent convolutions of a step share the cores a part at a time instead of
// oversubscribing them. At stride 1, the input gradient of a convolution over many channels
// runs as a forward convolution of out_backprop with the flipped filter (FlippedForwardWins).
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "bf16_bits.h"
#include "bf16_mode.h"
#include "conv2d_geometry.h"
#include "conv_common.h"
#include "grouped_conv_decline.h"
#include "nn_backprop_common.h"

namespace tgraph_onednn {
namespace {

using namespace conv;  // NOLINT: the kernels' shared pieces (conv_common.h)
using tgraph::plugin::Construction;
using tgraph_cpu::nn::ShapeString;

// A single image's convolution is split by output channels when its filter has at least
// this many times the elements of its output (ChannelChunk).
constexpr double kChannelSplitFilterRatio = 4.0;

// ---- Conv2D ----

// Does every output position's window have a tap inside the input, in both spatial dims?
// oneDNN 2.6.3's brgconv crashes running a sum post-op over output rows whose windows lie
// wholly in the padding (reproduced alone: input 9x3, window 2x2, 5 rows of padding below),
// so a fused residual addend is summed by the post-op only where this holds (every
// convolution of a ResNet).
bool WindowsReachTheInput(const ConvShape& s) {
  auto reaches = [](int64_t out, int64_t in, int64_t k, int64_t stride, int64_t dilation,
                    int64_t pad_before) {
    for (int64_t o = 0; o < out; ++o) {
      const int64_t start = o * stride - pad_before;
      bool inside = false;
      for (int64_t j = 0; j < k && !inside; ++j) {
        const int64_t at = start + j * dilation;
        inside = at >= 0 && at < in;
      }
      if (!inside) return false;
    }
    return true;
  };
  return reaches(s.out_h, s.in_h, s.k_h, s.s_h, s.d_h, s.pad_top) &&
         reaches(s.out_w, s.in_w, s.k_w, s.s_w, s.d_w, s.pad_left);
}

// Output channels per part when a forward convolution is split by them (0: it is not): one
// image whose filter is much larger than its output (the last stages of an image model at
// batch 1: ResNet50's 7x7 layers read 9 MB of filter for 100 KB of output), so that each
// thread reads its own share of the filter, where bands of rows would each read all of it.
// Parts of a multiple of 16 channels (oneDNN's blocks).
int64_t ChannelChunk(const ConvShape& s, int parts) {
  if (parts < 2 || s.batch != 1) return 0;
  const double filter = static_cast<double>(s.k_h * s.k_w * s.depth) * static_cast<double>(s.out_depth);
  const double output = static_cast<double>(s.out_h * s.out_w) * static_cast<double>(s.out_depth);
  if (filter < kChannelSplitFilterRatio * output || s.out_depth % (16 * parts) != 0) return 0;
  return s.out_depth / parts;
}

// kFused: _FusedConv2D (input 2 the bias).
template <typename D, bool kFused>
class Conv2DOp {
 public:
  using T = typename D::Storage;

  explicit Conv2DOp(Construction& c) {
    if (!tgraph_cpu::nn::GetConvAttrs(c, &attrs_)) return;
    if (tgraph_cpu::nn::DeclineGroupedConv(c, c.input_shape(0), c.input_shape(1))) return;
    if constexpr (kFused) {
      if (tgraph_cpu::nn::CheckFusedConvAttrs(c)) epilogue_.Read(c, /*addend_supported=*/true);
    }
  }

  void Compute(Context& ctx) {
    // The filter's version before its bytes are read: a write that starts later renumbers
    // them (kept_pack.h).
    const uint64_t filter_version = ctx.input_version(1);
    const auto input = ctx.input(0);
    const auto filter = ctx.input(1);
    ConvGeometry g;
    int64_t groups = 1;
    if (!tgraph_cpu::nn::Conv2DForwardGeometry(ctx, attrs_, input, filter, &g, &groups)) return;
    const std::vector<int64_t> dims = {g.batch, g.out_h, g.out_w, g.out_depth};
    ConvShape s = ShapeOf(attrs_, g, D::kDnnl);
    // Grouped convolutions whose depths the construction could not see (a function body's
    // unknown shapes) reach here: oneDNN computes groups natively.
    s.groups = groups;
    const int parts = ConvParts(ctx, s.MultiplyAdds(), s.batch, std::max(s.batch, s.out_h));
    const bool add = kFused && epilogue_.add;
    // Not with a residual addend: there the sum post-op into the output (no pass of ours)
    // saved more (ResNet50's 7x7 blocks: 0.57 against 0.70 ms). Not grouped: a slice of
    // output channels would cut across the groups' filters.
    const int64_t chunk = add || groups > 1 ? 0 : ChannelChunk(s, parts);
    // A residual addend is summed into the destination by the primitive (a sum post-op): the
    // output starts as the addend, in its own buffer when nothing else holds it, else a copy.
    // Where oneDNN cannot be trusted with the sum (WindowsReachTheInput), the primitive
    // writes the biased product and a pass of ours adds the addend and activates.
    const bool sum_post_op = add && chunk == 0 && WindowsReachTheInput(s);
    auto out = sum_post_op ? ctx.ForwardOrAllocateOutput(3, 0, dims) : ctx.AllocateOutput(0, dims);
    if (!ctx.ok()) return;
    // The fused op's bias (and addend) are checked after the convolution's inputs, also for
    // an empty output (as the Eigen kernel does).
    if (kFused && !FusedEpilogue::CheckBias(ctx, D::kTg, g.out_depth)) return;
    if (add && !tgraph_cpu::nn::CheckAddend(ctx, D::kTg, dims)) return;
    if (g.pixels() == 0 || g.out_depth == 0) return;
    const T* addend = add ? ctx.input(3).data<T>() : nullptr;
    const int64_t elements = g.batch * g.out_h * g.out_w * g.out_depth;
    if (sum_post_op && out.mutable_data<T>() != addend) {
      std::copy(addend, addend + elements, out.mutable_data<T>());
    }
    const FusedEpilogue* epilogue = !kFused ? nullptr : add && !sum_post_op ? &bias_only_ : &epilogue_;
    std::shared_ptr<const SplitConvEntry<dnnl::primitive>> e;
    try {
      e = cache_.Get(s.Key(parts), [&] {
        if (chunk > 0) {
          auto make = [epilogue](const ConvShape& p, const memory::desc& w) {
            return ForwardInference(p, w, epilogue);
          };
          ConvShape part = s;
          part.out_depth = chunk;
          auto entry = MakeSplitOf<dnnl::primitive>(std::vector<ConvPart>(static_cast<size_t>(parts), {part, 0, 0}),
                                                    D::kDnnl, make);
          // Slice k of TensorFlow's [KH, KW, IC, OC] filter: its channels k * chunk on.
          const memory::desc slice(part.FilterDims(), D::kDnnl,
                                   memory::dims{1, s.out_depth, s.k_w * s.depth * s.out_depth,
                                                s.depth * s.out_depth});
          entry.filter = MakeFilterReorder(slice, entry.weights, parts, static_cast<size_t>(chunk) * sizeof(T));
          entry.channel_chunk = chunk;
          return entry;
        }
        return ForwardEntry(s, parts, epilogue);
      });
    } catch (const dnnl::error& err) {
      FailWith(ctx, What<D>(" creation"), err);
      return;
    }
    tgraph::plugin::TensorMut packed;
    std::shared_ptr<const KeptPack> kept;
    const void* weights =
        Reordered(ctx, e->filter, filter.data<T>(), &packed, &kept_filter_, filter_version, &kept);
    if (weights == nullptr) return;
    const T* x = input.data<T>();
    T* y = out.mutable_data<T>();
    const T* bias = kFused ? ctx.input(2).data<T>() : nullptr;
    if (e->channel_chunk > 0) {
      RunByChannels(ctx, *e, x, static_cast<const uint8_t*>(weights), bias, y, s);
      return;
    }
    if (!RunForwardParts(ctx, *e, s, x, weights, bias, y, D::kWhat)) return;
    if (add && !sum_post_op) AddAndActivate(ctx, addend, y, elements);
  }

 private:
  // y = activation(y + addend), element for element, in float.
  void AddAndActivate(Context& ctx, const T* addend, T* y, int64_t elements) const {
    ctx.ParallelFor(elements, 4.0, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        if constexpr (std::is_same_v<T, float>) {
          y[i] = Activate(epilogue_, y[i] + addend[i]);
        } else {
          const float sum = tgraph_cpu::F({y[i]}) + tgraph_cpu::F({addend[i]});
          y[i] = tgraph_cpu::ToBf16(Activate(epilogue_, sum)).bits;
        }
      }
    });
  }

  // The convolution split by output channels (one image, no residual addend): each part's
  // primitive writes its channels of every pixel, biased and activated, into a buffer of its
  // own (oneDNN's fast kernels take only a dense destination), from its slice of the
  // reordered filter and of the bias; then one pass places them in the output.
  void RunByChannels(Context& ctx, const SplitConvEntry<dnnl::primitive>& e, const T* x,
                     const uint8_t* weights, const T* bias, T* y, const ConvShape& s) const {
    const int64_t n = static_cast<int64_t>(e.parts.size()), chunk = e.channel_chunk;
    const int64_t pixels = s.out_h * s.out_w;
    PartBuffers outputs(ctx, n, static_cast<size_t>(pixels * chunk) * sizeof(T));
    PartBuffers scratch(ctx, n, e.ScratchBytes());
    if (!outputs.ok() || !scratch.ok()) return;
    const size_t slice = e.filter.to.get_size();
    const bool ran = RunClaimedParts(ctx, n, D::kWhat, [&](int64_t i) {
      const ConvShape& ps = e.parts[static_cast<size_t>(i)].where.shape;
      std::unordered_map<int, memory> args = {
          {DNNL_ARG_SRC, Wrap(ps.Input(), x)},
          {DNNL_ARG_WEIGHTS, Wrap(e.filter.to, weights + static_cast<size_t>(i) * slice)},
          {DNNL_ARG_DST, Wrap(ps.Output(), outputs.at(i))}};
      if (bias != nullptr) args.emplace(DNNL_ARG_BIAS, Wrap(ps.Bias(), bias + i * chunk));
      const auto& p = e.parts[static_cast<size_t>(i)];
      RunHere(p.primitive, p.scratchpad, scratch.at(i), std::move(args));
    });
    if (!ran) return;
    ctx.ParallelFor(pixels, static_cast<double>(s.out_depth), [&](int64_t begin, int64_t end) {
      for (int64_t px = begin; px < end; ++px) {
        for (int64_t k = 0; k < n; ++k) {
          const T* from = static_cast<const T*>(outputs.at(k)) + px * chunk;
          std::copy(from, from + chunk, y + px * s.out_depth + k * chunk);
        }
      }
    });
  }

  ConvAttrs attrs_;
  FusedEpilogue bias_only_;  // the primitive's epilogue when the addend is added by a pass
  FusedEpilogue epilogue_;  // kFused only
  PrimitiveCache<SplitConvEntry<dnnl::primitive>> cache_;
  KeptPackCache kept_filter_;
};

// ---- Conv2DBackpropInput ----

// At stride 1 the input gradient is itself a forward convolution: of out_backprop, with the
// filter turned 180 degrees in space and its two channel dims swapped, padded by what the
// forward windows reach past the other side. oneDNN 2.6 has its brgconv kernels (at about a
// core's FMA peak for long channel reductions) for the forward convolution only; its input
// gradient runs the older direct JIT: for the CNN's second layer (14x14, 5x5, 64 -> 32
// channels, 8 images, one thread, hot) 0.65 ms as a forward convolution against 0.75-0.77 ms.
// The flipped shape of `s` (stride 1), or false when its padding would be negative (explicit
// padding past the window's reach).
bool FlippedShape(const ConvShape s, ConvShape* f) {  // `s` a copy: `f` may be its source
  if (s.s_h != 1 || s.s_w != 1) return false;
  const int64_t reach_h = (s.k_h - 1) * s.d_h, reach_w = (s.k_w - 1) * s.d_w;
  *f = s;
  f->in_h = s.out_h;
  f->in_w = s.out_w;
  f->depth = s.out_depth;
  f->out_h = s.in_h;
  f->out_w = s.in_w;
  f->out_depth = s.depth;
  f->pad_top = reach_h - s.pad_top;
  f->pad_bottom = reach_h - s.pad_bottom;
  f->pad_left = reach_w - s.pad_left;
  f->pad_right = reach_w - s.pad_right;
  return f->pad_top >= 0 && f->pad_bottom >= 0 && f->pad_left >= 0 && f->pad_right >= 0;
}

// The flipped forward convolution's parts: SplitConv's parts of `s` by batch elements, each
// reading its out_backprop and writing its input gradient.
std::vector<ConvPart> FlippedParts(const ConvShape& s, int64_t parts) {
  std::vector<ConvPart> out = SplitConv(s, parts, /*by_rows=*/false);
  for (ConvPart& p : out) {
    FlippedShape(p.shape, &p.shape);
    std::swap(p.input_offset, p.output_offset);
  }
  return out;
}

// Whether the input gradient of `s` runs as the flipped forward convolution: where oneDNN
// gives that a brgconv kernel and the input gradient none, and over at least 16 channels each
// way (brgconv's kernels are built for long channel reductions; few channels go to the direct
// JIT, as in Conv2D's first layer). Throws dnnl::error.
bool FlippedForwardWins(const ConvShape& s, int64_t parts) {
  ConvShape f;
  if (!FlippedShape(s, &f) || s.depth < 16 || s.out_depth < 16) return false;
  const ConvShape part = SplitConv(s, parts, /*by_rows=*/false)[0].shape;
  FlippedShape(part, &f);
  OneThreadScope one_thread;
  const auto forward = ForwardDesc(f, memory::desc(f.FilterDims(), f.dtype, Tag::any),
                                   dnnl::prop_kind::forward_inference);
  const memory::desc any(part.FilterDims(), part.dtype, Tag::any);
  const auto hint = ForwardDesc(part, any, dnnl::prop_kind::forward_training);
  const dnnl::convolution_backward_data::desc desc(
      dnnl::algorithm::convolution_direct, part.Input(), any, part.Output(), part.Strides(),
      part.Dilations(), part.PadBefore(), part.PadAfter());
  const dnnl::convolution_backward_data::primitive_desc backward(desc, UserScratchpadAttr(),
                                                                 CpuEngine(), hint);
  auto brg = [](const char* impl) { return std::string(impl).rfind("brg", 0) == 0; };
  return brg(forward.impl_info_str()) && !brg(backward.impl_info_str());
}

// The filter turned 180 degrees in space: flipped[kh][kw] = filter[KH-1-kh][KW-1-kw], each a
// block of IC x OC elements. Read as the flipped convolution's filter (FlippedFilterDesc).
template <typename T>
void FlipFilter(const ConvShape& s, const T* filter, T* flipped) {
  const int64_t block = s.depth * s.out_depth;
  for (int64_t kh = 0; kh < s.k_h; ++kh) {
    for (int64_t kw = 0; kw < s.k_w; ++kw) {
      const T* from = filter + ((s.k_h - 1 - kh) * s.k_w + (s.k_w - 1 - kw)) * block;
      std::copy(from, from + block, flipped + (kh * s.k_w + kw) * block);
    }
  }
}

// FlipFilter's result as the flipped convolution's weights (dims {IC, OC, KH, KW} of `s`:
// its output channels are `s`'s input channels): hwio with the channel dims' strides swapped.
memory::desc FlippedFilterDesc(const ConvShape& s) {
  return memory::desc({s.depth, s.out_depth, s.k_h, s.k_w}, s.dtype,
                      memory::dims{s.out_depth, 1, s.k_w * s.depth * s.out_depth,
                                   s.depth * s.out_depth});
}

template <typename D>
class Conv2DBackpropInputOp {
 public:
  using T = typename D::Storage;

  explicit Conv2DBackpropInputOp(Construction& c) {
    if (!tgraph_cpu::nn::GetConvAttrs(c, &attrs_)) return;
    tgraph_cpu::nn::DeclineGroupedConv(c, c.output_shape(0), c.input_shape(1));
  }

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
    T* dx = out.mutable_data<T>();
    if (g.pixels() == 0 || g.out_depth == 0) {
      FillZero(dx, g.input_size());  // no window touches the input, or no filters
      return;
    }
    const ConvShape s = ShapeOf(attrs_, g, D::kDnnl);
    // Bands of one image's input rows would overlap in what they receive: batch only.
    const int parts = ConvParts(ctx, s.MultiplyAdds(), s.batch, s.batch);
    std::shared_ptr<const Entry> e;
    try {
      e = cache_.Get(s.Key(parts), [&] {
        Entry entry;
        try {
          if (FlippedForwardWins(s, parts)) {
            entry.split = MakeSplitOf<dnnl::primitive>(
                FlippedParts(s, parts), D::kDnnl,
                [](const ConvShape& p, const memory::desc& w) { return ForwardInference(p, w); });
            entry.split.filter = MakeFilterReorder(FlippedFilterDesc(s), entry.split.weights);
            entry.flipped = true;
            return entry;
          }
        } catch (const dnnl::error&) {
          // Below: oneDNN's input gradient.
        }
        auto make = [](const ConvShape& p, const memory::desc& w) {
          const auto hint = ForwardDesc(p, w, dnnl::prop_kind::forward_training);
          const dnnl::convolution_backward_data::desc desc(
              dnnl::algorithm::convolution_direct, p.Input(), w, p.Output(), p.Strides(),
              p.Dilations(), p.PadBefore(), p.PadAfter());
          const dnnl::convolution_backward_data::primitive_desc pd(desc, UserScratchpadAttr(),
                                                                   CpuEngine(), hint);
          return Made{dnnl::convolution_backward_data(pd), pd.scratchpad_desc(),
                      pd.weights_desc()};
        };
        entry.split = MakeSplit<dnnl::primitive>(s, parts, /*by_rows=*/false, D::kDnnl, make);
        entry.split.filter = MakeFilterReorder(s.FilterHwio(), entry.split.weights);
        return entry;
      });
    } catch (const dnnl::error& err) {
      FailWith(ctx, What<D>(" backward-data creation"), err);
      return;
    }
    const auto& split = e->split;
    const T* w = filter.data<T>();
    tgraph::plugin::TensorMut flipped;
    if (e->flipped) {
      flipped = ctx.AllocateTemp(D::kTg, filter.dims());
      if (!ctx.ok()) return;
      FlipFilter(s, w, flipped.mutable_data<T>());
      w = flipped.mutable_data<T>();
    }
    tgraph::plugin::TensorMut packed;
    const void* weights = Reordered(ctx, split.filter, w, &packed);
    if (weights == nullptr) return;
    PartBuffers scratch(ctx, static_cast<int64_t>(split.parts.size()), split.ScratchBytes());
    if (!scratch.ok()) return;
    const T* grad = dy.data<T>();
    const std::string what = What<D>(" backward-data");
    RunClaimedParts(ctx, static_cast<int64_t>(split.parts.size()), what.c_str(), [&](int64_t i) {
      const auto& p = split.parts[static_cast<size_t>(i)];
      const ConvShape& ps = p.where.shape;
      if (e->flipped) {
        // A forward convolution from out_backprop (its input) to the gradient (its output).
        RunHere(p.primitive, p.scratchpad, scratch.at(i),
                {{DNNL_ARG_SRC, Wrap(ps.Input(), grad + p.where.input_offset)},
                 {DNNL_ARG_WEIGHTS, Wrap(split.filter.to, weights)},
                 {DNNL_ARG_DST, Wrap(ps.Output(), dx + p.where.output_offset)}});
        return;
      }
      RunHere(p.primitive, p.scratchpad, scratch.at(i),
              {{DNNL_ARG_DIFF_DST, Wrap(ps.Output(), grad + p.where.output_offset)},
               {DNNL_ARG_WEIGHTS, Wrap(split.filter.to, weights)},
               {DNNL_ARG_DIFF_SRC, Wrap(ps.Input(), dx + p.where.input_offset)}});
    });
  }

 private:
  struct Entry {
    SplitConvEntry<dnnl::primitive> split;
    bool flipped = false;  // the flipped forward convolution (FlippedForwardWins)
  };
  ConvAttrs attrs_;
  PrimitiveCache<Entry> cache_;
};

// ---- Conv2DBackpropFilter ----

template <typename D>
class Conv2DBackpropFilterOp {
 public:
  using T = typename D::Storage;

  explicit Conv2DBackpropFilterOp(Construction& c) {
    if (!tgraph_cpu::nn::GetConvAttrs(c, &attrs_)) return;
    tgraph_cpu::nn::DeclineGroupedConv(c, c.input_shape(0), c.output_shape(0));
  }

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
    T* dw = out.mutable_data<T>();
    if (g.pixels() == 0) {  // nothing was convolved: the filter had no effect
      FillZero(dw, g.patch() * g.out_depth);
      return;
    }
    const ConvShape s = ShapeOf(attrs_, g, D::kDnnl);
    const int parts = ConvParts(ctx, s.MultiplyAdds(), s.batch, std::max(s.batch, s.out_h));
    std::shared_ptr<const SplitConvEntry<dnnl::primitive>> e;
    try {
      e = cache_.Get(s.Key(parts), [&] {
        auto make = [](const ConvShape& p, const memory::desc& w) {
          const auto hint = ForwardDesc(p, memory::desc(p.FilterDims(), p.dtype, Tag::any),
                                        dnnl::prop_kind::forward_training);
          const dnnl::convolution_backward_weights::desc desc(
              dnnl::algorithm::convolution_direct, p.Input(), w, p.Output(), p.Strides(),
              p.Dilations(), p.PadBefore(), p.PadAfter());
          const dnnl::convolution_backward_weights::primitive_desc pd(
              desc, UserScratchpadAttr(), CpuEngine(), hint);
          return Made{dnnl::convolution_backward_weights(pd), pd.scratchpad_desc(),
                      pd.diff_weights_desc()};
        };
        // Each part's gradient in float (summed over its windows), in the primitive's layout.
        auto entry = MakeSplit<dnnl::primitive>(s, parts, /*by_rows=*/true, kF32, make);
        // From the parts' layout to TensorFlow's (and for bfloat16 rounded).
        entry.filter = MakeFilterReorder(entry.weights, s.FilterHwio());
        return entry;
      });
    } catch (const dnnl::error& err) {
      FailWith(ctx, What<D>(" backward-weights creation"), err);
      return;
    }
    // Each part writes its own partial gradient (in the primitive's layout); the first one
    // goes straight into the output when that layout is TensorFlow's.
    const int64_t n_parts = static_cast<int64_t>(e->parts.size());
    const size_t grad_bytes = e->filter.from.get_size();
    const bool direct = !e->filter.needed;
    PartBuffers partial(ctx, direct ? n_parts - 1 : n_parts, grad_bytes);
    PartBuffers scratch(ctx, n_parts, e->ScratchBytes());
    if (!partial.ok() || !scratch.ok()) return;
    auto gradient_of = [&](int64_t i) -> float* {
      if (direct) return i == 0 ? reinterpret_cast<float*>(dw) : static_cast<float*>(partial.at(i - 1));
      return static_cast<float*>(partial.at(i));
    };
    const T* x = input.data<T>();
    const T* grad = dy.data<T>();
    const std::string what = What<D>(" backward-weights");
    if (!RunClaimedParts(ctx, n_parts, what.c_str(), [&](int64_t i) {
          const auto& p = e->parts[static_cast<size_t>(i)];
          if constexpr (D::kDnnl == memory::data_type::bf16) {
            // For taps no window reaches (all in the padding), oneDNN 2.6's bf16
            // implementations leave their gradient unwritten: zeroed first.
            std::memset(gradient_of(i), 0, grad_bytes);
          }
          RunHere(p.primitive, p.scratchpad, scratch.at(i),
                  {{DNNL_ARG_SRC, Wrap(p.where.shape.Input(), x + p.where.input_offset)},
                   {DNNL_ARG_DIFF_DST, Wrap(p.where.shape.Output(), grad + p.where.output_offset)},
                   {DNNL_ARG_DIFF_WEIGHTS, Wrap(e->filter.from, gradient_of(i))}});
        })) {
      return;
    }
    // Sum the partial gradients into the first (the layout is the same: any padding the
    // layout has holds zeros in every part and stays zero).
    float* sum = gradient_of(0);
    const int64_t count = static_cast<int64_t>(grad_bytes / sizeof(float));
    if (n_parts > 1) {
      ctx.ParallelFor(count, 0.5 * static_cast<double>(n_parts), [&](int64_t b, int64_t end) {
        for (int64_t part = 1; part < n_parts; ++part) {
          const float* add = gradient_of(part);
          for (int64_t j = b; j < end; ++j) sum[j] += add[j];
        }
      });
    }
    if (e->filter.needed) {
      PartBuffers reorder_scratch(ctx, 1, e->filter.scratchpad.get_size());
      if (!reorder_scratch.ok()) return;
      RunParts(ctx, 1, "filter reorder", [&](int64_t) {
        RunHere(e->filter.primitive, e->filter.scratchpad, reorder_scratch.at(0),
                {{DNNL_ARG_FROM, Wrap(e->filter.from, sum)}, {DNNL_ARG_TO, Wrap(e->filter.to, dw)}});
      });
    }
  }

 private:
  ConvAttrs attrs_;
  PrimitiveCache<SplitConvEntry<dnnl::primitive>> cache_;
};

template <typename D>
void RegisterFor(tgraph::plugin::Init& init, int32_t priority) {
  using tgraph::plugin::KernelBuilder;
  init.Kernel<Conv2DOp<D, false>>(
      KernelBuilder("Conv2D", "CPU").TypeConstraint("T", D::kTg).Priority(priority));
  // At Conv2D's priority, so that the plan-time fusion (core/rewrite/fusion.cc) fuses.
  init.Kernel<Conv2DOp<D, true>>(
      KernelBuilder("_FusedConv2D", "CPU").TypeConstraint("T", D::kTg).Priority(priority));
  init.Kernel<Conv2DBackpropInputOp<D>>(KernelBuilder("Conv2DBackpropInput", "CPU")
                                            .TypeConstraint("T", D::kTg)
                                            .HostMemory("input_sizes")
                                            .Priority(priority));
  init.Kernel<Conv2DBackpropFilterOp<D>>(KernelBuilder("Conv2DBackpropFilter", "CPU")
                                             .TypeConstraint("T", D::kTg)
                                             .HostMemory("filter_sizes")
                                             .Priority(priority));
}

}  // namespace

void RegisterConvKernels(tgraph::plugin::Init& init) {
  RegisterFor<Float>(init, kOneDnnPriority);
  // bfloat16 only where oneDNN's bf16 kernels run (no kernel elsewhere: placement says so),
  // below the fp32 ones where they are slower (bf16_mode.h).
  if (Bf16ChoiceForThisCpu().native_available) RegisterFor<BFloat16>(init, Bf16Priority());
}

}  // namespace tgraph_onednn
