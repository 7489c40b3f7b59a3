#include "dnnl_context.h"

#include <omp.h>

#include <algorithm>

namespace tgraph_onednn {
namespace {

// Below this many multiply-adds (a 64x64x64 product, a few microseconds on one core) a
// call runs on one thread: waking an OpenMP team costs more than it saves. The Eigen
// BatchMatMulV2 kernel uses the same bound to run small products one per thread.
constexpr double kSmallProduct = 64.0 * 64.0 * 64.0;

// Multi-threaded calls run one at a time (dnnl_context.h says why).
std::mutex& ParallelCallMutex() {
  static std::mutex mu;
  return mu;
}

}  // namespace

const dnnl::engine& CpuEngine() {
  static const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

std::string IsaName() {
  switch (dnnl::get_effective_cpu_isa()) {
    case dnnl::cpu_isa::sse41: return "sse41";
    case dnnl::cpu_isa::avx: return "avx";
    case dnnl::cpu_isa::avx2: return "avx2";
    case dnnl::cpu_isa::avx2_vnni: return "avx2_vnni";
    case dnnl::cpu_isa::avx512_core: return "avx512_core";
    case dnnl::cpu_isa::avx512_core_vnni: return "avx512_core_vnni";
    case dnnl::cpu_isa::avx512_core_bf16: return "avx512_core_bf16";
    case dnnl::cpu_isa::avx512_core_amx: return "avx512_core_amx";
    default: return "other";
  }
}

int ThreadsFor(const tgraph::plugin::Context& ctx, double multiply_adds) {
  if (multiply_adds < kSmallProduct) return 1;
  return std::max(1, ctx.num_threads());
}

ThreadScope::ThreadScope(int threads) : previous_(omp_get_max_threads()) {
  if (threads != previous_) omp_set_num_threads(threads);
}

ThreadScope::~ThreadScope() {
  if (omp_get_max_threads() != previous_) omp_set_num_threads(previous_);
}

dnnl::primitive_attr UserScratchpadAttr() {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return attr;
}

bool Execute(tgraph::plugin::Context& ctx, const dnnl::primitive& p,
             const dnnl::memory::desc& scratchpad, std::unordered_map<int, dnnl::memory> args,
             int threads) {
  tgraph::plugin::TensorMut scratch;
  const size_t scratch_bytes = scratchpad.get_size();
  if (scratch_bytes > 0) {
    scratch = ctx.AllocateTemp(TG_UINT8, {static_cast<int64_t>(scratch_bytes)});
    if (!ctx.ok()) return false;
    args.emplace(DNNL_ARG_SCRATCHPAD, Wrap(scratchpad, scratch.mutable_data<uint8_t>()));
  }
  // A stream per thread: creating one per call would cost an allocation each time.
  thread_local dnnl::stream stream(CpuEngine());
  ThreadScope scope(threads);
  std::unique_lock<std::mutex> lock(ParallelCallMutex(), std::defer_lock);
  if (threads > 1) lock.lock();
  try {
    p.execute(stream, args);
    stream.wait();
  } catch (const dnnl::error& e) {
    FailWith(ctx, "execution", e);
    return false;
  }
  return true;
}

void FailWith(tgraph::plugin::Context& ctx, const std::string& what, const dnnl::error& e) {
  std::string message = "oneDNN ";
  message.append(what).append(": ").append(e.what());
  ctx.Fail(TG_INTERNAL, message);
}

}  // namespace tgraph_onednn
