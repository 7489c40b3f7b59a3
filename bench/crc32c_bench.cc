// CRC-32C throughput (common/crc32c): the hardware path as Extend runs it (three CRC32 chains
// over adjacent lanes, joined by carry-less multiplies) against one CRC32 chain (what it ran
// before) and the portable Boost.CRC path, over buffers of the sizes the savers checksum: a
// small tensor, and a saver_io read block (8 MiB). Bytes per second in the counters.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "common/crc32c.h"

namespace {

std::vector<unsigned char> Data(size_t n) {
  std::vector<unsigned char> data(n);
  uint32_t x = 12345;
  for (auto& b : data) {
    x = x * 1664525u + 1013904223u;
    b = static_cast<unsigned char>(x >> 24);
  }
  return data;
}

template <uint32_t (*kExtend)(uint32_t, const void*, size_t)>
void BM_Crc32c(benchmark::State& state) {
  const auto data = Data(static_cast<size_t>(state.range(0)));
  uint32_t crc = 0;
  for (auto _ : state) {
    crc = kExtend(crc, data.data(), data.size());
    benchmark::DoNotOptimize(crc);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * state.range(0));
}

void Sizes(benchmark::internal::Benchmark* b) { b->Arg(4 << 10)->Arg(64 << 10)->Arg(8 << 20); }

BENCHMARK(BM_Crc32c<tgraph::crc32c::Extend>)->Name("Crc32c/Extend")->Apply(Sizes);
BENCHMARK(BM_Crc32c<tgraph::crc32c::ExtendOneChainForBenchmark>)
    ->Name("Crc32c/OneChain")
    ->Apply(Sizes);
BENCHMARK(BM_Crc32c<tgraph::crc32c::ExtendPortable>)->Name("Crc32c/Portable")->Apply(Sizes);

}  // namespace

BENCHMARK_MAIN();
