#include "conv_common.h"

namespace tgraph_onednn::conv {
namespace {

using tgraph_cpu::nn::Padding;

// The padding after the last element of a spatial dim (oneDNN's padding_r; TensorFlow's
// SAME gives the odd pixel to the end).
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

// A dim with one output position has no use for its stride; one larger than the input made
// oneDNN 2.6's bf16 filter gradient read past the input (a 1-pixel-wide image, stride 3, a
// 2-wide SAME filter: garbage for the tap in the padding). Stride 1 with the same window is
// the same convolution.
void Unstride(int64_t out, int64_t in, int64_t k, int64_t d, int64_t before, int64_t* stride,
              int64_t* after) {
  const int64_t needed = (k - 1) * d + 1 - in - before;  // padding after, at stride 1
  if (out == 1 && *stride > 1 && needed >= 0) {
    *stride = 1;
    *after = needed;
  }
}

// For an input of few channels (the first layer of an image model: 1 or 3), oneDNN 2.6 puts
// brgconv first, whose kernels are built for a reduction over many channels; its direct JIT
// convolution ("jit:avx512_core") computes the CNN's first layer (28x28x1, 5x5, 32 filters)
// in 0.054 ms per 8 images on one core against brgconv's 0.074. Moves `pd` to the first
// "jit:" implementation oneDNN has for the problem, if any (on the pd's own iterator).
void PreferDirectJitForFewChannels(const ConvShape& s, dnnl::convolution_forward::primitive_desc& pd) {
  if (s.depth > 4 || s.dtype != kF32) return;
  if (std::string(pd.impl_info_str()).rfind("brgconv", 0) != 0) return;
  dnnl::convolution_forward::primitive_desc candidate = pd;
  while (candidate.next_impl()) {
    if (std::string(candidate.impl_info_str()).rfind("jit:", 0) == 0) {
      pd = candidate;
      return;
    }
  }
}

}  // namespace

// How many parts to split a convolution into: PartsFor's one per thread, times
// kBatchPartsPerThread when the split is by batch elements (at most one image per part);
// bands of one image's rows stay one per thread.
int ConvParts(const Context& ctx, double multiply_adds, int64_t batch, int64_t max_parts) {
  const int parts = PartsFor(ctx, multiply_adds, max_parts);
  if (parts <= 1 || batch < 2) return parts;
  return static_cast<int>(std::min<int64_t>(batch, parts * kBatchPartsPerThread));
}

ConvShape ShapeOf(const ConvAttrs& a, const ConvGeometry& g, memory::data_type dtype) {
  ConvShape s;
  s.dtype = dtype;
  s.batch = g.batch;
  s.in_h = g.in_h;
  s.in_w = g.in_w;
  s.depth = g.depth;
  s.k_h = g.k_h;
  s.k_w = g.k_w;
  s.out_depth = g.out_depth;
  s.s_h = g.s_h;
  s.s_w = g.s_w;
  s.d_h = g.d_h;
  s.d_w = g.d_w;
  s.pad_top = g.pad_top;
  s.pad_left = g.pad_left;
  s.pad_bottom = PadAfter(a, 1, g.in_h, g.k_h, g.d_h, g.s_h, g.out_h, g.pad_top);
  s.pad_right = PadAfter(a, 2, g.in_w, g.k_w, g.d_w, g.s_w, g.out_w, g.pad_left);
  s.out_h = g.out_h;
  s.out_w = g.out_w;
  Unstride(s.out_h, s.in_h, s.k_h, s.d_h, s.pad_top, &s.s_h, &s.pad_bottom);
  Unstride(s.out_w, s.in_w, s.k_w, s.d_w, s.pad_left, &s.s_w, &s.pad_right);
  return s;
}

// Splits `s` into at most `parts` convolutions: by batch elements when there are several
// (`by_rows` false or batch > 1), else by bands of output rows (when `by_rows`; each band's
// input rows are those its windows reach). One part when the split is not possible.
std::vector<ConvPart> SplitConv(const ConvShape& s, int64_t parts, bool by_rows) {
  std::vector<ConvPart> out;
  if (parts > 1 && s.batch > 1) {
    const Split split = Split::Of(s.batch, parts);
    for (int64_t i = 0; i < split.parts; ++i) {
      ConvPart p;
      p.shape = s;
      p.shape.batch = split.length(i);
      p.input_offset = split.begin(i) * s.in_h * s.in_w * s.depth;
      p.output_offset = split.begin(i) * s.out_h * s.out_w * s.out_depth;
      out.push_back(p);
    }
    return out;
  }
  if (parts > 1 && by_rows && s.batch == 1 && s.out_h > 1) {
    const Split split = Split::Of(s.out_h, parts);
    for (int64_t i = 0; i < split.parts; ++i) {
      const int64_t oh0 = split.begin(i), rows = split.length(i);
      const int64_t lo = oh0 * s.s_h - s.pad_top;  // the band's first input row (maybe < 0)
      const int64_t hi = (oh0 + rows - 1) * s.s_h - s.pad_top + (s.k_h - 1) * s.d_h + 1;
      const int64_t first = std::max<int64_t>(lo, 0), end = std::min(hi, s.in_h);
      if (end - first < 1) return {ConvPart{s, 0, 0}};  // a band inside the padding only
      ConvPart p;
      p.shape = s;
      p.shape.in_h = end - first;
      p.shape.pad_top = first - lo;
      p.shape.pad_bottom = hi - end;
      p.shape.out_h = rows;
      p.input_offset = first * s.in_w * s.depth;
      p.output_offset = oh0 * s.out_w * s.out_depth;
      out.push_back(p);
    }
    return out;
  }
  return {ConvPart{s, 0, 0}};
}

FilterReorder MakeFilterReorder(const memory::desc& from, const memory::desc& to,
                                int64_t slices, size_t from_step) {
  FilterReorder r;
  r.from = from;
  r.to = to;
  r.slices = slices;
  r.from_step = from_step;
  r.needed = from != to || slices > 1;
  if (r.needed) {
    OneThreadScope one_thread;
    const dnnl::reorder::primitive_desc pd(CpuEngine(), from, CpuEngine(), to,
                                           UserScratchpadAttr());
    r.primitive = dnnl::reorder(pd);
    r.scratchpad = pd.scratchpad_desc();
  }
  return r;
}

// `src` in `r.to`'s layout for one call: `src` itself when no reorder is needed; else, with a
// `cache`, the kernel's kept pack while `version` names the bytes it was packed from (a
// frozen graph's constant filter, a variable's between writes: kept_pack.h), `hold` keeping
// it alive for the call; else `src` reordered, into memory the cache keeps from the second
// call that sees `version`, or into a new temp (`temp`). Null with the node failed on error.
const void* Reordered(Context& ctx, const FilterReorder& r, const void* src,
                      tgraph::plugin::TensorMut* temp, KeptPackCache* cache,
                      uint64_t version, std::shared_ptr<const KeptPack>* hold) {
  if (!r.needed) return src;
  bool keep = false;
  std::shared_ptr<const KeptPack> kept = cache != nullptr ? cache->Find(version, &keep) : nullptr;
  if (kept != nullptr && kept->layout == r.to) {
    *hold = std::move(kept);
    return (*hold)->bytes.get();
  }
  // (Out of memory for the kept pack: reordered per call instead.)
  std::shared_ptr<KeptPack> fresh = keep || kept != nullptr ? KeptPack::New(r.Bytes()) : nullptr;
  if (fresh == nullptr) {
    *temp = ctx.AllocateTemp(TG_UINT8, {static_cast<int64_t>(r.Bytes())});
  }
  PartBuffers scratch(ctx, 1, r.scratchpad.get_size());
  if (!ctx.ok() || !scratch.ok()) return nullptr;
  uint8_t* dst = fresh != nullptr ? fresh->bytes.get() : temp->mutable_data<uint8_t>();
  const bool ok = RunParts(ctx, 1, "filter reorder", [&](int64_t) {
    for (int64_t k = 0; k < r.slices; ++k) {
      RunHere(r.primitive, r.scratchpad, scratch.at(0),
              {{DNNL_ARG_FROM, Wrap(r.from, static_cast<const uint8_t*>(src) + k * r.from_step)},
               {DNNL_ARG_TO, Wrap(r.to, dst + k * r.to.get_size())}});
    }
  });
  if (!ok) return nullptr;
  if (fresh != nullptr) {
    fresh->version = version;
    fresh->layout = r.to;
    *hold = fresh;  // keeps the bytes alive for the call, whatever Store does
    cache->Store(std::move(fresh));
  }
  return dst;
}

// `epilogue` (fused only): a bias of out_depth values and the activation as a post-op.
dnnl::convolution_forward::primitive_desc ForwardDesc(const ConvShape& s,
                                                      const memory::desc& weights,
                                                      dnnl::prop_kind kind,
                                                      const FusedEpilogue* epilogue) {
  if (epilogue != nullptr) {
    const dnnl::convolution_forward::desc desc(
        kind, dnnl::algorithm::convolution_direct, s.Input(), weights,
        s.Bias(), s.Output(), s.Strides(), s.Dilations(),
        s.PadBefore(), s.PadAfter());
    dnnl::convolution_forward::primitive_desc pd(desc, EpilogueAttr(epilogue), CpuEngine());
    // While `desc`, which the iteration reads, lives. (Not for the gradients' hints.)
    if (kind == dnnl::prop_kind::forward_inference) PreferDirectJitForFewChannels(s, pd);
    return pd;
  }
  const dnnl::convolution_forward::desc desc(
      kind, dnnl::algorithm::convolution_direct, s.Input(), weights, s.Output(), s.Strides(),
      s.Dilations(), s.PadBefore(), s.PadAfter());
  dnnl::convolution_forward::primitive_desc pd(desc, UserScratchpadAttr(), CpuEngine());
  if (kind == dnnl::prop_kind::forward_inference) PreferDirectJitForFewChannels(s, pd);
  return pd;
}

Made ForwardInference(const ConvShape& p, const memory::desc& w, const FusedEpilogue* epilogue) {
  const auto pd = ForwardDesc(p, w, dnnl::prop_kind::forward_inference, epilogue);
  return Made{dnnl::convolution_forward(pd), pd.scratchpad_desc(), pd.weights_desc()};
}

SplitConvEntry<dnnl::primitive> ForwardEntry(const ConvShape& s, int64_t parts,
                                             const FusedEpilogue* epilogue) {
  auto make = [epilogue](const ConvShape& p, const memory::desc& w) {
    return ForwardInference(p, w, epilogue);
  };
  auto entry = MakeSplit<dnnl::primitive>(s, parts, /*by_rows=*/true, s.dtype, make);
  entry.filter = MakeFilterReorder(s.FilterHwio(), entry.weights);
  return entry;
}

}  // namespace tgraph_onednn::conv
