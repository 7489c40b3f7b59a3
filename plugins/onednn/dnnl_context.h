// What every oneDNN kernel of the plugin shares: the CPU engine, how a call is split over
// the session's intra-op pool, the per-kernel cache of primitives, and running primitives
// inside a tgraph kernel (scratchpads allocated through the core, errors turned into the
// node's status).
//
// Threads. Debian's libdnnl runs its own parallel loops on OpenMP (libgomp). An OpenMP team
// next to the session's intra-op pool oversubscribes the cores: its threads spin-wait after
// each call (GOMP_SPINCOUNT, milliseconds by default), stealing the cores from the Eigen
// kernels that run next, and on a busy machine a team whose member is descheduled stalls
// every barrier (measured on 2 loaded cores: MatMul 256 took 14-26 ms, Eigen 1.1-1.4 ms). So
// oneDNN never gets more than one thread: every primitive runs with OpenMP's thread count
// set to 1 on the calling thread (oneDNN then calls its loop bodies directly and no team
// ever starts), and the kernels split the work themselves over the intra-op pool: a product
// into rows, one part per thread (PartsFor, run with RunParts); a convolution into ranges of
// batch elements, a few parts per thread that the threads claim one at a time (so one that
// another process holds up does not hold up the step; conv_kernels.cc), or a single image
// into bands of rows, one per thread. A session's threads are then the only threads, and
// small products (under 64^3 multiply-adds) stay in one part.
#pragma once

#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "oneapi/dnnl/dnnl.hpp"
#include "tgraph/plugin.hpp"

namespace tgraph_onednn {

// The process's CPU engine (created on first use; engines are thread-safe).
const dnnl::engine& CpuEngine();

// The instruction set oneDNN dispatches to on this CPU ("avx512_core_amx", ...): it is
// detected at run time, never fixed by the build.
std::string IsaName();

// How many parts to split a call of `multiply_adds` multiply-adds into: 1 below the
// small-product bound, else the intra-op pool's thread count, at most `max_parts` (>= 1).
int PartsFor(const tgraph::plugin::Context& ctx, double multiply_adds, int64_t max_parts);

// [0, total) in `parts` ranges of `size` (the last one `last` long, possibly shorter).
struct Split {
  int64_t parts = 1, size = 0, last = 0;
  static Split Of(int64_t total, int64_t parts);
  int64_t begin(int64_t i) const { return i * size; }
  int64_t length(int64_t i) const { return i == parts - 1 ? last : size; }
};

// Sets the calling thread's OpenMP thread count to 1 for the scope (what oneDNN sees as
// its maximum when creating and running primitives), restoring the previous value after.
class OneThreadScope {
 public:
  OneThreadScope();
  ~OneThreadScope();
  OneThreadScope(const OneThreadScope&) = delete;
  OneThreadScope& operator=(const OneThreadScope&) = delete;

 private:
  int previous_;
};

// Primitive attrs every kernel uses: a user-provided scratchpad (allocated per call through
// the core's allocator, so concurrent runs of one primitive never share one).
dnnl::primitive_attr UserScratchpadAttr();

// Runs `p` with `args` on the calling thread, on one OpenMP thread. `scratch` (may be null
// when the primitive needs none) is its scratchpad, of at least scratchpad.get_size() bytes.
// Throws dnnl::error.
void RunHere(const dnnl::primitive& p, const dnnl::memory::desc& scratchpad, void* scratch,
             std::unordered_map<int, dnnl::memory> args);

// A temp of `bytes` bytes per part (data() + part * stride), for scratchpads and partial
// results. Invalid (and the node failed) when out of memory.
class PartBuffers {
 public:
  PartBuffers(tgraph::plugin::Context& ctx, int64_t parts, size_t bytes);
  bool ok() const { return ok_; }
  void* at(int64_t part) const {
    return base_ == nullptr ? nullptr : base_ + static_cast<size_t>(part) * stride_;
  }

 private:
  tgraph::plugin::TensorMut temp_;
  uint8_t* base_ = nullptr;
  size_t stride_ = 0;
  bool ok_ = true;
};

// Runs part(i) for i in [0, parts) on the intra-op pool (the calling thread takes parts
// too); one part runs inline. A oneDNN error in any part fails the node, naming `what`.
// False when the node failed.
template <typename Part>
bool RunParts(tgraph::plugin::Context& ctx, int64_t parts, const char* what, Part&& part);

// A memory object over a tensor's buffer (oneDNN takes a non-const handle; inputs are only
// read).
inline dnnl::memory Wrap(const dnnl::memory::desc& md, const void* data) {
  return dnnl::memory(md, CpuEngine(), const_cast<void*>(data));
}

// Fails the node with a oneDNN error, naming what was being done.
void FailWith(tgraph::plugin::Context& ctx, const std::string& what, const dnnl::error& e);

template <typename Part>
bool RunParts(tgraph::plugin::Context& ctx, int64_t parts, const char* what, Part&& part) {
  if (parts <= 1) {
    try {
      part(int64_t{0});
    } catch (const dnnl::error& e) {
      FailWith(ctx, what, e);
    }
    return ctx.ok();
  }
  // A part is far more work than handing it to a thread: one block per part.
  std::mutex failure_mu;
  std::string failure;
  ctx.ParallelFor(parts, 1e9, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      try {
        part(i);
      } catch (const dnnl::error& e) {
        std::lock_guard<std::mutex> lock(failure_mu);
        if (failure.empty()) failure = std::string(what) + ": " + e.what();
      }
    }
  });
  if (!failure.empty()) ctx.Fail(TG_INTERNAL, "oneDNN " + failure);
  return ctx.ok();
}

// Primitives of one kernel, by key (shapes and thread count; the attrs are the kernel's
// own). Few shapes per node are usual, so a small list with the most recent first; the
// oldest entry goes when it is full. Thread-safe: one kernel may run in several steps at
// once.
template <typename Entry>
class PrimitiveCache {
 public:
  using Key = std::vector<int64_t>;
  static constexpr size_t kCapacity = 8;

  // The entry for `key`, made by `make()` (which may throw) on a miss.
  template <typename Make>
  std::shared_ptr<const Entry> Get(const Key& key, Make&& make) {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto it = entries_.begin(); it != entries_.end(); ++it) {
      if (it->first == key) {
        if (it != entries_.begin()) entries_.splice(entries_.begin(), entries_, it);
        return entries_.front().second;
      }
    }
    auto entry = std::make_shared<const Entry>(make());
    entries_.emplace_front(key, entry);
    if (entries_.size() > kCapacity) entries_.pop_back();
    return entry;
  }

  size_t size() const {
    std::lock_guard<std::mutex> lock(mu_);
    return entries_.size();
  }

 private:
  mutable std::mutex mu_;
  std::list<std::pair<Key, std::shared_ptr<const Entry>>> entries_;
};

// Registration, one per file.
void RegisterMatMulKernels(tgraph::plugin::Init& init);  // matmul_kernels.cc
void RegisterConvKernels(tgraph::plugin::Init& init);    // conv_kernels.cc
void RegisterDepthwiseKernels(tgraph::plugin::Init& init);  // depthwise_kernels.cc

// The priority of every kernel of the plugin: above the Eigen kernels' 0.
constexpr int32_t kOneDnnPriority = 10;

}  // namespace tgraph_onednn
