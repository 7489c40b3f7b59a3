// How this plugin computes bfloat16 contractions on the running CPU, decided once when it
// loads. oneDNN's native bf16 kernels pay only where the CPU multiplies bf16 faster than
// fp32: with AMX (several times faster), or with AVX512_BF16 dot products of twice the
// fp32 FMA throughput. Elsewhere bf16 products are computed faster in fp32: both operands
// widened exactly, fp32 products accumulated as oneDNN's bf16 kernels do, the result rounded
// once. (The 2-core Xeon VM of bench/RESULTS.md, AVX512_BF16 without AMX: the probe reads
// 0.5x, and oneDNN 2.6.3's bf16 matmul ran at 0.54x its fp32 sgemm.)
#pragma once

#include <cstdint>
#include <string>

namespace tgraph_onednn {

enum class Bf16Mode {
  kWidened,  // bf16 MatMul computed in fp32 (sgemm); bf16 kernels below the fp32 ones
  kNative,   // oneDNN's bf16 kernels (AVX512_BF16 or AMX), at the fp32 kernels' priority
};

struct Bf16Choice {
  Bf16Mode mode = Bf16Mode::kWidened;
  // Whether oneDNN's bf16 kernels run here at all (AVX512_BF16 or AMX): then the native
  // convolutions are registered either way, below the fp32 ones unless kNative.
  bool native_available = false;
  std::string why;  // for the plugin's load message
};

// Decided on first call: TGRAPH_ONEDNN_BF16=native or =widened chooses (native only where
// oneDNN's bf16 kernels run); otherwise AMX means native, AVX512_BF16 alone means native
// only when a short register-only probe measures its bf16 dot products at >= 1.5x the FMA
// rate in multiply-adds, and anything else widened.
const Bf16Choice& Bf16ChoiceForThisCpu();

// The priority of the bf16 contraction kernels: the fp32 kernels' when bf16 is faster
// (kNative), else below them, so that automatic mixed precision (which converts an op only
// where its bf16 kernel ranks at least as high as the fp32 one) leaves the graph in fp32
// where bf16 would only cost, while explicit bf16 graphs still run on these kernels.
int32_t Bf16Priority();

}  // namespace tgraph_onednn
