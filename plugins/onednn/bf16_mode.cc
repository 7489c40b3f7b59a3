#include "bf16_mode.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "dnnl_context.h"

namespace tgraph_onednn {
namespace {

// The ISA values are nested bit sets: each includes the bits of those it extends.
bool IsaHas(dnnl::cpu_isa wanted) {
  const auto isa = static_cast<unsigned>(dnnl::get_effective_cpu_isa());
  const auto bits = static_cast<unsigned>(wanted);
  return (isa & bits) == bits;
}

#if defined(__x86_64__) || defined(__i386__)
// Independent accumulators per probe loop (unrolled, each in a register: 24 and the operand
// fit AVX-512's 32), so that the loops measure throughput and not latency.
constexpr int kChains = 24;
constexpr int kProbeIterations = 4000;
constexpr int kProbeRounds = 5;

template <typename Step>
double SecondsOf(Step&& step) {
  const auto start = std::chrono::steady_clock::now();
  step();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The accumulators' sum goes to a volatile, so that the loops are not optimised away.
volatile float probe_sink = 0;

__attribute__((target("avx512f"))) void Sink(const __m512 (&acc)[kChains]) {
  __m512 sum = acc[0];
  for (int j = 1; j < kChains; ++j) sum = _mm512_add_ps(sum, acc[j]);
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, sum);
  float total = 0;
  for (float lane : lanes) total += lane;
  probe_sink = total;
}

__attribute__((target("avx512f,avx512bf16"))) void Bf16DotLoop(float seed) {
  __m512 acc[kChains];
  for (__m512& a : acc) a = _mm512_set1_ps(seed);
  const __m512bh x = _mm512_cvtne2ps_pbh(_mm512_set1_ps(seed), _mm512_set1_ps(seed));
  for (int i = 0; i < kProbeIterations; ++i) {
#pragma GCC unroll 24  // kChains: the accumulators in registers
    for (__m512& a : acc) a = _mm512_dpbf16_ps(a, x, x);
  }
  Sink(acc);
}

__attribute__((target("avx512f,fma"))) void FmaLoop(float seed) {
  __m512 acc[kChains];
  for (__m512& a : acc) a = _mm512_set1_ps(seed);
  const __m512 x = _mm512_set1_ps(seed);
  for (int i = 0; i < kProbeIterations; ++i) {
#pragma GCC unroll 24
    for (__m512& a : acc) a = _mm512_fmadd_ps(x, x, a);
  }
  Sink(acc);
}

// Multiply-adds per second of VDPBF16PS over those of VFMADD231PS (32 against 16 per
// 512-bit instruction), the least time of several alternated rounds each (a round a few
// tens of microseconds), so that a core taken away for a moment does not decide it.
double Bf16DotSpeedup() {
  const float seed = 1e-3f + probe_sink;
  double bf16 = 1e9, fma = 1e9;
  for (int round = 0; round < kProbeRounds; ++round) {
    bf16 = std::min(bf16, SecondsOf([&] { Bf16DotLoop(seed); }));
    fma = std::min(fma, SecondsOf([&] { FmaLoop(seed); }));
  }
  return 2.0 * fma / bf16;
}
#else
// No AVX512_BF16 elsewhere (oneDNN reports it on x86 only): never called.
double Bf16DotSpeedup() { return 0; }
#endif

Bf16Choice Decide() {
  Bf16Choice c;
  c.native_available = IsaHas(dnnl::cpu_isa::avx512_core_bf16);
  const char* forced = std::getenv("TGRAPH_ONEDNN_BF16");
  if (forced != nullptr && std::strcmp(forced, "widened") == 0) {
    c.why = "widened (TGRAPH_ONEDNN_BF16)";
    return c;
  }
  if (forced != nullptr && std::strcmp(forced, "native") == 0) {
    c.mode = c.native_available ? Bf16Mode::kNative : Bf16Mode::kWidened;
    c.why = c.native_available ? "native (TGRAPH_ONEDNN_BF16)"
                               : "widened (TGRAPH_ONEDNN_BF16=native, but no AVX512_BF16 or AMX)";
    return c;
  }
  // Any other value is not understood: the CPU decides, and the message says so.
  const std::string ignored = forced != nullptr && forced[0] != '\0'
                                  ? std::string("; TGRAPH_ONEDNN_BF16=") + forced + " ignored"
                                  : "";
  if (!c.native_available) {
    c.why = "widened (no AVX512_BF16 or AMX" + ignored + ")";
    return c;
  }
  if (IsaHas(dnnl::cpu_isa::avx512_core_amx)) {
    c.mode = Bf16Mode::kNative;
    c.why = "native (AMX" + ignored + ")";
    return c;
  }
  const double speedup = Bf16DotSpeedup();
  char measured[96];
  std::snprintf(measured, sizeof measured, "AVX512_BF16 dot products at %.2fx the FMA rate",
                speedup);
  c.mode = speedup >= 1.5 ? Bf16Mode::kNative : Bf16Mode::kWidened;
  c.why = std::string(c.mode == Bf16Mode::kNative ? "native (" : "widened (") + measured + ignored + ")";
  return c;
}

}  // namespace

const Bf16Choice& Bf16ChoiceForThisCpu() {
  static const Bf16Choice choice = Decide();
  return choice;
}

int32_t Bf16Priority() {
  return Bf16ChoiceForThisCpu().mode == Bf16Mode::kNative ? kOneDnnPriority : kOneDnnPriority - 1;
}

}  // namespace tgraph_onednn
