// What every oneDNN kernel of the plugin shares: the CPU engine, how many threads a call
// gets, the per-kernel cache of primitives, and running a primitive inside a tgraph kernel
// (its scratchpad allocated through the core, errors turned into the node's status).
//
// Threads. Debian's libdnnl runs its parallel loops on OpenMP (libgomp). The calling thread
// is the executor's, and while a oneDNN call runs the session's intra-op pool has nothing of
// this node's to do; so a call gets as many OpenMP threads (the caller included) as the
// pool has, and one thread when the product is small (forking a team costs more than it
// saves). The count is set on the calling thread (omp_set_num_threads) before the
// primitive is created and before each execution, and is part of the cache key: oneDNN
// picks blockings for the thread count it sees at creation. Calls using more than one
// thread take a process-wide lock, so two nodes running side by side never put two teams of
// "every core" on the machine (each would already use all of the pool's cores).
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

// Threads for a call doing `multiply_adds` multiply-adds: 1 below a small-product threshold,
// else the intra-op pool's size (at least 1).
int ThreadsFor(const tgraph::plugin::Context& ctx, double multiply_adds);

// Sets the calling thread's OpenMP thread count (what oneDNN sees as its maximum) for the
// scope, and restores the previous value after.
class ThreadScope {
 public:
  explicit ThreadScope(int threads);
  ~ThreadScope();
  ThreadScope(const ThreadScope&) = delete;
  ThreadScope& operator=(const ThreadScope&) = delete;

 private:
  int previous_;
};

// Primitive attrs every kernel uses: a user-provided scratchpad (allocated per call through
// the core's allocator, so concurrent runs of one primitive never share one).
dnnl::primitive_attr UserScratchpadAttr();

// Runs `p` with `args` on `threads` threads, adding a scratchpad of `scratchpad` (a temp of
// the node). False with the node failed on error.
bool Execute(tgraph::plugin::Context& ctx, const dnnl::primitive& p,
             const dnnl::memory::desc& scratchpad, std::unordered_map<int, dnnl::memory> args,
             int threads);

// A memory object over a tensor's buffer (oneDNN takes a non-const handle; inputs are only
// read).
inline dnnl::memory Wrap(const dnnl::memory::desc& md, const void* data) {
  return dnnl::memory(md, CpuEngine(), const_cast<void*>(data));
}

// Fails the node with a oneDNN error, naming what was being done.
void FailWith(tgraph::plugin::Context& ctx, const std::string& what, const dnnl::error& e);

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

// The priority of every kernel of the plugin: above the Eigen kernels' 0.
constexpr int32_t kOneDnnPriority = 10;

}  // namespace tgraph_onednn
