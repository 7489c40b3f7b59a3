#include "dnnl_context.h"

#include <omp.h>

#include <algorithm>

namespace tgraph_onednn {
namespace {

// Below this many multiply-adds (a 64x64x64 product, a few microseconds on one core) a
// call stays in one part: handing a part to another thread costs more than it saves. The
// Eigen BatchMatMulV2 kernel uses the same bound to run small products one per thread.
constexpr double kSmallProduct = 64.0 * 64.0 * 64.0;

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

int PartsFor(const tgraph::plugin::Context& ctx, double multiply_adds, int64_t max_parts) {
  if (multiply_adds < kSmallProduct || max_parts <= 1) return 1;
  return static_cast<int>(std::clamp<int64_t>(ctx.num_threads(), 1, max_parts));
}

Split Split::Of(int64_t total, int64_t parts) {
  Split s;
  parts = std::clamp<int64_t>(parts, 1, std::max<int64_t>(total, 1));
  s.size = (total + parts - 1) / parts;
  s.parts = s.size == 0 ? 1 : (total + s.size - 1) / s.size;
  s.last = total - (s.parts - 1) * s.size;
  return s;
}

OneThreadScope::OneThreadScope() : previous_(omp_get_max_threads()) {
  if (previous_ != 1) omp_set_num_threads(1);
}

OneThreadScope::~OneThreadScope() {
  if (previous_ != 1) omp_set_num_threads(previous_);
}

dnnl::primitive_attr UserScratchpadAttr() {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return attr;
}

void RunHere(const dnnl::primitive& p, const dnnl::memory::desc& scratchpad, void* scratch,
             std::unordered_map<int, dnnl::memory> args) {
  if (scratchpad.get_size() > 0) args.emplace(DNNL_ARG_SCRATCHPAD, Wrap(scratchpad, scratch));
  // A stream per thread: creating one per call would cost an allocation each time.
  thread_local dnnl::stream stream(CpuEngine());
  OneThreadScope one_thread;
  p.execute(stream, args);
  stream.wait();
}

PartBuffers::PartBuffers(tgraph::plugin::Context& ctx, int64_t parts, size_t bytes) {
  if (bytes == 0) return;
  stride_ = (bytes + 63) / 64 * 64;  // each part's buffer on its own cache lines
  temp_ = ctx.AllocateTemp(TG_UINT8, {static_cast<int64_t>(stride_) * parts});
  ok_ = ctx.ok();
  if (ok_) base_ = temp_.mutable_data<uint8_t>();
}

void FailWith(tgraph::plugin::Context& ctx, const std::string& what, const dnnl::error& e) {
  std::string message = "oneDNN ";
  message.append(what).append(": ").append(e.what());
  ctx.Fail(TG_INTERNAL, message);
}

}  // namespace tgraph_onednn
