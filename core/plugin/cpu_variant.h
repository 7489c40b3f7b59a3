// CPU variants of a plugin: the same plugin built for several x86-64 ISA levels, shipped as
// files named "<stem>.<level>.so" (e.g. libtgraph_cpu.x86-64-v3.so), of which discovery loads
// the best one the running CPU supports. The levels are the x86-64 psABI's microarchitecture
// levels; what each needs is read from the CPU (cpuid, and xgetbv for the register state the
// OS saves), never assumed from the machine that built the plugin.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace tgraph {

// The psABI levels in increasing order; each includes the ones below it.
enum class CpuLevel { kX86_64 = 0, kX86_64_V2 = 1, kX86_64_V3 = 2, kX86_64_V4 = 3 };

// "x86-64", "x86-64-v2", "x86-64-v3", "x86-64-v4".
const char* CpuLevelName(CpuLevel level);
std::optional<CpuLevel> ParseCpuLevel(const std::string& name);

// The features the levels need, as the CPU and OS report them.
struct CpuFeatures {
  bool cx16 = false, lahf = false, popcnt = false, sse3 = false, ssse3 = false;
  bool sse4_1 = false, sse4_2 = false;                         // v2
  bool avx = false, avx2 = false, bmi1 = false, bmi2 = false;  // v3 (with the OS's AVX state)
  bool f16c = false, fma = false, lzcnt = false, movbe = false, os_avx = false;
  bool avx512f = false, avx512bw = false, avx512cd = false;  // v4 (with the OS's AVX-512
  bool avx512dq = false, avx512vl = false, os_avx512 = false;  // state)

  // Every feature of every level: what a test fakes as "the newest CPU".
  static CpuFeatures All();
};

// This process's CPU, detected once; or what SetCpuFeaturesForTesting set.
CpuFeatures CurrentCpuFeatures();
// Test hook: fakes the CPU's features (nullopt restores detection).
void SetCpuFeaturesForTesting(std::optional<CpuFeatures> features);

// The features of `level` that `cpu` lacks, by their usual names ("avx512bw", ...); empty
// when the CPU runs code built for that level.
std::vector<std::string> MissingFeatures(const CpuFeatures& cpu, CpuLevel level);
// The highest level `cpu` supports.
CpuLevel BestSupportedLevel(const CpuFeatures& cpu);

// The highest level this process may use: the CPU's best, lowered to TGRAPH_CPU_VARIANT's
// level when that names a lower one (it can't raise it). An unknown TGRAPH_CPU_VARIANT value
// is ignored, and `note` (may be null) gets a sentence saying so.
CpuLevel AllowedCpuLevel(std::string* note = nullptr);

// A plugin file name split into its variant group and level: "libtgraph_cpu.x86-64-v3.so"
// -> {"libtgraph_cpu.so", kX86_64_V3}. nullopt when the name carries no known level.
struct VariantName {
  std::string group_file_name;
  CpuLevel level;
};
std::optional<VariantName> ParseVariantFileName(const std::string& file_name);

}  // namespace tgraph
