// What the oneDNN plugin's convolution kernels share (conv_kernels.cc: Conv2D, _FusedConv2D
// and their gradients; depthwise_kernels.cc: DepthwiseConv2dNative and its fused form): the
// dtypes they are instantiated for, one convolution's shape as oneDNN sees it, the split of
// a convolution into parts run over the intra-op pool (by batch elements, or one image's
// bands of output rows) through a process-wide gate of one place per core, the filter's
// reorder from TensorFlow's layout into the primitive's (kept across runs while the filter's
// bytes stay the same: kept_pack.h), and the forward primitive's descriptor.
#pragma once

#include <sched.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "conv_pool_common.h"
#include "dnnl_context.h"
#include "fused_epilogue_dnnl.h"
#include "kept_pack.h"

namespace tgraph_onednn::conv {

using dnnl::memory;
using tgraph::plugin::Context;
using tgraph_cpu::nn::ConvAttrs;
using tgraph_cpu::nn::ConvGeometry;
using Tag = memory::format_tag;

constexpr auto kF32 = memory::data_type::f32;

// The two dtypes the kernels are instantiated for: how a tensor's elements are stored, what
// oneDNN and tgraph call the dtype, and how the errors name it.
struct Float {
  using Storage = float;
  static constexpr memory::data_type kDnnl = memory::data_type::f32;
  static constexpr TG_DataType kTg = TG_FLOAT;
  static constexpr const char* kWhat = "convolution";
};
struct BFloat16 {
  using Storage = uint16_t;  // the bit pattern
  static constexpr memory::data_type kDnnl = memory::data_type::bf16;
  static constexpr TG_DataType kTg = TG_BFLOAT16;
  static constexpr const char* kWhat = "bfloat16 convolution";
};

// "<dtype's convolution><suffix>", for errors.
template <typename D>
std::string What(const char* suffix) {
  return std::string(D::kWhat) + suffix;
}

// Batch parts per thread (RunClaimedParts): enough for the threads to even out a delay of one
// of them, few enough that each part stays a convolution of several images.
constexpr int64_t kBatchPartsPerThread = 4;

// How many parts to split a convolution into: PartsFor's one per thread, times
// kBatchPartsPerThread when the split is by batch elements (at most one image per part);
// bands of one image's rows stay one per thread.
int ConvParts(const Context& ctx, double multiply_adds, int64_t batch, int64_t max_parts);

// Convolution parts running at once in the process: at most one per core. A training step
// runs independent convolutions side by side on its inter-op threads (the second layer's
// input and filter gradients), each splitting over the intra-op pool with its calling
// thread taking parts too: without the gate, four threads run parts on two cores, each part
// preempted in turn and evicting the other's working set from the core's L2 (in the CNN
// step those two took 1.16x and 1.5x the forward convolution's time per part, against
// 1.0x and 1.1x alone). A thread waiting here sleeps; the parts of one call and of
// concurrent calls then share the cores a part at a time.
class CoreGate {
 public:
  static CoreGate& Get() {
    static CoreGate gate;
    return gate;
  }
  void Enter() {
    std::unique_lock<std::mutex> lock(mu_);
    free_cv_.wait(lock, [&] { return free_ > 0; });
    --free_;
  }
  void Leave() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      ++free_;
    }
    free_cv_.notify_one();
  }

 private:
  CoreGate() {  // the cores this process may run on
    cpu_set_t set;
    CPU_ZERO(&set);
    int cores = sched_getaffinity(0, sizeof(set), &set) == 0 ? CPU_COUNT(&set) : 0;
    if (cores <= 0) cores = static_cast<int>(std::thread::hardware_concurrency());
    free_ = std::max(cores, 1);
  }
  std::mutex mu_;
  std::condition_variable free_cv_;
  int free_ = 1;
};

// Runs part(i) holding a place in the CoreGate.
template <typename Part>
void RunGated(Part& part, int64_t i) {
  CoreGate& gate = CoreGate::Get();
  gate.Enter();
  struct Leave {
    CoreGate& gate;
    ~Leave() { gate.Leave(); }
  } leave{gate};
  part(i);
}

// RunParts for parts that outnumber the threads: one block per thread of the pool (so no
// more threads run than the pool has, the caller included), each claiming the next part
// not yet taken until none is left. Every part runs through the CoreGate.
template <typename Part>
bool RunClaimedParts(Context& ctx, int64_t parts, const char* what, Part&& part) {
  const int64_t threads = std::min<int64_t>(std::max(ctx.num_threads(), 1), parts);
  if (threads <= 1 || parts <= threads) {
    return RunParts(ctx, parts, what, [&](int64_t i) { RunGated(part, i); });
  }
  std::atomic<int64_t> next{0};
  return RunParts(ctx, threads, what, [&](int64_t) {
    for (int64_t i = next.fetch_add(1); i < parts; i = next.fetch_add(1)) RunGated(part, i);
  });
}

// One convolution as oneDNN sees it: a whole node's, or one part's.
struct ConvShape {
  int64_t batch = 0, in_h = 0, in_w = 0, depth = 0, k_h = 0, k_w = 0, out_depth = 0;
  int64_t s_h = 1, s_w = 1, d_h = 1, d_w = 1;
  int64_t pad_top = 0, pad_bottom = 0, pad_left = 0, pad_right = 0, out_h = 0, out_w = 0;
  memory::data_type dtype = kF32;  // of the input, output and filter
  // > 1: a grouped convolution, each of `groups` runs of depth / groups input channels
  // feeding out_depth / groups output channels (a depthwise one: a group per input channel).
  int64_t groups = 1;

  memory::desc Input() const { return memory::desc({batch, depth, in_h, in_w}, dtype, Tag::nhwc); }
  memory::desc Output() const {
    return memory::desc({batch, out_depth, out_h, out_w}, dtype, Tag::nhwc);
  }
  memory::dims FilterDims() const {
    if (groups == 1) return {out_depth, depth, k_h, k_w};
    return {groups, out_depth / groups, depth / groups, k_h, k_w};
  }
  // TensorFlow's filter: [KH, KW, IC / groups, OC] (hwio; a depthwise one's [KH, KW, C, M] is
  // that with IC / groups = 1 and OC = C * M), output channel g * (OC / groups) + o.
  memory::desc FilterHwio() const {
    if (groups == 1) return memory::desc(FilterDims(), dtype, Tag::hwio);
    const int64_t group_in = depth / groups;
    return memory::desc(FilterDims(), dtype,
                        memory::dims{out_depth / groups, 1, out_depth,
                                     k_w * group_in * out_depth, group_in * out_depth});
  }
  memory::desc Bias() const { return memory::desc({out_depth}, dtype, Tag::a); }
  memory::dims Strides() const { return {s_h, s_w}; }
  memory::dims Dilations() const { return {d_h - 1, d_w - 1}; }  // oneDNN counts the gaps
  memory::dims PadBefore() const { return {pad_top, pad_left}; }
  memory::dims PadAfter() const { return {pad_bottom, pad_right}; }
  double MultiplyAdds() const {
    return static_cast<double>(batch * out_h * out_w) *
           static_cast<double>(k_h * k_w * (depth / groups)) * static_cast<double>(out_depth);
  }
  std::vector<int64_t> Key(int64_t parts) const {
    return {parts, batch, in_h, in_w, depth, k_h, k_w, out_depth, groups};
  }
  bool operator==(const ConvShape&) const = default;
};

// The shape of the convolution with geometry `g` and attrs `a` (padding after from SAME,
// a stride no output position uses dropped); groups 1.
ConvShape ShapeOf(const ConvAttrs& a, const ConvGeometry& g, memory::data_type dtype);

// One part of a split convolution: its shape and where its input, output (and for the
// filter gradient, its out_backprop) start, in elements.
struct ConvPart {
  ConvShape shape;
  int64_t input_offset = 0, output_offset = 0;
};

// Splits `s` into at most `parts` convolutions: by batch elements when there are several
// (`by_rows` false or batch > 1), else by bands of output rows (when `by_rows`; each band's
// input rows are those its windows reach). One part when the split is not possible.
std::vector<ConvPart> SplitConv(const ConvShape& s, int64_t parts, bool by_rows);

// A reorder between TensorFlow's filter layout and a primitive's, when they differ; with
// `slices` > 1, of that many slices of the filter (a convolution split by output channels:
// slice k starts `from_step` bytes after slice k - 1 and goes to k * to.get_size() bytes).
struct FilterReorder {
  bool needed = false;
  dnnl::reorder primitive;
  memory::desc from, to, scratchpad;
  int64_t slices = 1;
  size_t from_step = 0;
  size_t Bytes() const { return static_cast<size_t>(slices) * to.get_size(); }
};

FilterReorder MakeFilterReorder(const memory::desc& from, const memory::desc& to,
                                int64_t slices = 1, size_t from_step = 0);

// `src` in `r.to`'s layout for one call: `src` itself when no reorder is needed; else, with a
// `cache`, the kernel's kept pack while `version` names the bytes it was packed from (a
// frozen graph's constant filter, a variable's between writes: kept_pack.h), `hold` keeping
// it alive for the call; else `src` reordered, into memory the cache keeps from the second
// call that sees `version`, or into a new temp (`temp`). Null with the node failed on error.
const void* Reordered(Context& ctx, const FilterReorder& r, const void* src,
                      tgraph::plugin::TensorMut* temp, KeptPackCache* cache = nullptr,
                      uint64_t version = 0, std::shared_ptr<const KeptPack>* hold = nullptr);

// The primitives of a split convolution, one per part (parts of equal shape share one).
// All use the first part's weights layout, so one reordered filter (or one layout of
// partial filter gradients) serves every part.
template <typename Primitive>
struct SplitConvEntry {
  struct Part {
    ConvPart where;
    Primitive primitive;
    memory::desc scratchpad;
  };
  std::vector<Part> parts;
  memory::desc weights;  // the layout every part's primitive reads (or writes) the filter in
  FilterReorder filter;
  // > 0: a forward convolution split by output channels (ChannelChunk): part k computes
  // channels [k * chunk, (k + 1) * chunk) into a buffer of its own, from slice k of the
  // reordered filter.
  int64_t channel_chunk = 0;
  size_t ScratchBytes() const {
    size_t bytes = 0;
    for (const Part& p : parts) bytes = std::max(bytes, p.scratchpad.get_size());
    return bytes;
  }
};

// Builds the entry: make(shape, weights_desc) returns {primitive, scratchpad, weights desc
// it chose}; the first part's call gets format "any" (of dtype `weights_dtype`). Throws
// dnnl::error.
template <typename Primitive, typename Make>
SplitConvEntry<Primitive> MakeSplitOf(const std::vector<ConvPart>& parts,
                                      memory::data_type weights_dtype, Make&& make) {
  OneThreadScope one_thread;
  SplitConvEntry<Primitive> e;
  memory::desc weights(parts[0].shape.FilterDims(), weights_dtype, Tag::any);
  for (const ConvPart& part : parts) {
    const typename SplitConvEntry<Primitive>::Part* same = nullptr;
    for (const auto& done : e.parts) {
      if (done.where.shape == part.shape) same = &done;
    }
    if (same != nullptr) {
      e.parts.push_back({part, same->primitive, same->scratchpad});
      continue;
    }
    auto [primitive, scratchpad, chosen] = make(part.shape, weights);
    weights = chosen;
    e.parts.push_back({part, primitive, scratchpad});
  }
  e.weights = weights;
  return e;
}

// The entry for `s` split in `parts` (SplitConv); if oneDNN declines a part (a band whose
// padding no implementation takes with the first part's weights layout), the whole
// convolution as one part.
template <typename Primitive, typename Make>
SplitConvEntry<Primitive> MakeSplit(const ConvShape& s, int64_t parts, bool by_rows,
                                    memory::data_type weights_dtype, Make&& make) {
  if (parts > 1) {
    try {
      return MakeSplitOf<Primitive>(SplitConv(s, parts, by_rows), weights_dtype, make);
    } catch (const dnnl::error&) {
      // Below: unsplit.
    }
  }
  return MakeSplitOf<Primitive>(SplitConv(s, 1, by_rows), weights_dtype, make);
}

// Zero in either dtype (a bfloat16 zero is all zero bits).
template <typename T>
void FillZero(T* p, int64_t n) {
  std::fill(p, p + n, T(0));
}

struct Made {
  dnnl::primitive primitive;
  memory::desc scratchpad, weights;
};

// `epilogue` (fused only): a bias of out_depth values and the activation as a post-op.
dnnl::convolution_forward::primitive_desc ForwardDesc(const ConvShape& s,
                                                      const memory::desc& weights,
                                                      dnnl::prop_kind kind,
                                                      const FusedEpilogue* epilogue = nullptr);

// The inference primitive of one forward convolution part `p` over weights `w` (format
// "any" for the first part of a split), with `epilogue` (null: none) as its post-ops: the
// `make` of MakeSplitOf for forward convolutions. Throws dnnl::error.
Made ForwardInference(const ConvShape& p, const memory::desc& w,
                      const FusedEpilogue* epilogue = nullptr);

// The forward convolution of `s` in `parts` (SplitConv by batch elements, or by bands of one
// image's rows), each part's primitive with `epilogue` (null: none) as its post-ops, and the
// reorder of TensorFlow's filter into the layout they read. Throws dnnl::error.
SplitConvEntry<dnnl::primitive> ForwardEntry(const ConvShape& s, int64_t parts,
                                             const FusedEpilogue* epilogue);

// Runs the parts of `e` (a forward entry of `s`) over the intra-op pool: `x` the input,
// `weights` the filter in e.filter.to's layout, `bias` (null: none) and the output `y`.
// False with the node failed on error.
template <typename T>
bool RunForwardParts(Context& ctx, const SplitConvEntry<dnnl::primitive>& e, const ConvShape& s,
                     const T* x, const void* weights, const T* bias, T* y, const char* what) {
  PartBuffers scratch(ctx, static_cast<int64_t>(e.parts.size()), e.ScratchBytes());
  if (!scratch.ok()) return false;
  return RunClaimedParts(ctx, static_cast<int64_t>(e.parts.size()), what, [&](int64_t i) {
    const auto& p = e.parts[static_cast<size_t>(i)];
    std::unordered_map<int, memory> args = {
        {DNNL_ARG_SRC, Wrap(p.where.shape.Input(), x + p.where.input_offset)},
        {DNNL_ARG_WEIGHTS, Wrap(e.filter.to, weights)},
        {DNNL_ARG_DST, Wrap(p.where.shape.Output(), y + p.where.output_offset)}};
    if (bias != nullptr) args.emplace(DNNL_ARG_BIAS, Wrap(s.Bias(), bias));
    RunHere(p.primitive, p.scratchpad, scratch.at(i), std::move(args));
  });
}

}  // namespace tgraph_onednn::conv
