#include "core/plugin/cpu_variant.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include <array>
#include <cstdint>
#include <cstdlib>
#include <mutex>

#include "core/base/status.h"

namespace tgraph {
namespace {

constexpr std::array<const char*, 4> kLevelNames = {"x86-64", "x86-64-v2", "x86-64-v3",
                                                    "x86-64-v4"};

struct Requirement {
  CpuLevel level;
  bool CpuFeatures::*feature;
  const char* name;
};

// What each level adds to the one below it (the psABI's table; the os_* entries are the
// register state the OS must save for AVX and AVX-512 code to run at all).
constexpr Requirement kRequirements[] = {
    {CpuLevel::kX86_64_V2, &CpuFeatures::cx16, "cx16"},
    {CpuLevel::kX86_64_V2, &CpuFeatures::lahf, "lahf_lm"},
    {CpuLevel::kX86_64_V2, &CpuFeatures::popcnt, "popcnt"},
    {CpuLevel::kX86_64_V2, &CpuFeatures::sse3, "sse3"},
    {CpuLevel::kX86_64_V2, &CpuFeatures::ssse3, "ssse3"},
    {CpuLevel::kX86_64_V2, &CpuFeatures::sse4_1, "sse4.1"},
    {CpuLevel::kX86_64_V2, &CpuFeatures::sse4_2, "sse4.2"},
    {CpuLevel::kX86_64_V3, &CpuFeatures::avx, "avx"},
    {CpuLevel::kX86_64_V3, &CpuFeatures::avx2, "avx2"},
    {CpuLevel::kX86_64_V3, &CpuFeatures::bmi1, "bmi1"},
    {CpuLevel::kX86_64_V3, &CpuFeatures::bmi2, "bmi2"},
    {CpuLevel::kX86_64_V3, &CpuFeatures::f16c, "f16c"},
    {CpuLevel::kX86_64_V3, &CpuFeatures::fma, "fma"},
    {CpuLevel::kX86_64_V3, &CpuFeatures::lzcnt, "lzcnt"},
    {CpuLevel::kX86_64_V3, &CpuFeatures::movbe, "movbe"},
    {CpuLevel::kX86_64_V3, &CpuFeatures::os_avx, "OS support for AVX state"},
    {CpuLevel::kX86_64_V4, &CpuFeatures::avx512f, "avx512f"},
    {CpuLevel::kX86_64_V4, &CpuFeatures::avx512bw, "avx512bw"},
    {CpuLevel::kX86_64_V4, &CpuFeatures::avx512cd, "avx512cd"},
    {CpuLevel::kX86_64_V4, &CpuFeatures::avx512dq, "avx512dq"},
    {CpuLevel::kX86_64_V4, &CpuFeatures::avx512vl, "avx512vl"},
    {CpuLevel::kX86_64_V4, &CpuFeatures::os_avx512, "OS support for AVX-512 state"},
};

bool Bit(uint32_t reg, int bit) { return ((reg >> bit) & 1u) != 0; }

CpuFeatures DetectCpuFeatures() {
  CpuFeatures f;
#if defined(__x86_64__) || defined(__i386__)
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__get_cpuid(1, &a, &b, &c, &d) != 0) {
    f.sse3 = Bit(c, 0);
    f.ssse3 = Bit(c, 9);
    f.fma = Bit(c, 12);
    f.cx16 = Bit(c, 13);
    f.sse4_1 = Bit(c, 19);
    f.sse4_2 = Bit(c, 20);
    f.movbe = Bit(c, 22);
    f.popcnt = Bit(c, 23);
    f.avx = Bit(c, 28);
    f.f16c = Bit(c, 29);
    if (Bit(c, 27)) {  // OSXSAVE: xgetbv tells which register state the OS saves
      uint32_t xcr0_lo = 0, xcr0_hi = 0;
      __asm__ volatile("xgetbv" : "=a"(xcr0_lo), "=d"(xcr0_hi) : "c"(0));
      f.os_avx = (xcr0_lo & 0x6u) == 0x6u;          // XMM and YMM
      f.os_avx512 = (xcr0_lo & 0xE6u) == 0xE6u;     // and opmask, ZMM_Hi256, Hi16_ZMM
    }
  }
  if (__get_cpuid_count(7, 0, &a, &b, &c, &d) != 0) {
    f.bmi1 = Bit(b, 3);
    f.avx2 = Bit(b, 5);
    f.bmi2 = Bit(b, 8);
    f.avx512f = Bit(b, 16);
    f.avx512dq = Bit(b, 17);
    f.avx512cd = Bit(b, 28);
    f.avx512bw = Bit(b, 30);
    f.avx512vl = Bit(b, 31);
  }
  if (__get_cpuid(0x80000001u, &a, &b, &c, &d) != 0) {
    f.lahf = Bit(c, 0);
    f.lzcnt = Bit(c, 5);
  }
#endif
  return f;
}

struct FeatureState {
  std::mutex mu;
  std::optional<CpuFeatures> fake;
};

FeatureState& State() {
  static FeatureState* const state = new FeatureState();  // outlives every caller
  return *state;
}

}  // namespace

const char* CpuLevelName(CpuLevel level) { return kLevelNames[static_cast<size_t>(level)]; }

std::optional<CpuLevel> ParseCpuLevel(const std::string& name) {
  for (size_t i = 0; i < kLevelNames.size(); ++i) {
    if (name == kLevelNames[i]) return static_cast<CpuLevel>(i);
  }
  return std::nullopt;
}

CpuFeatures CpuFeatures::All() {
  CpuFeatures f;
  for (const Requirement& r : kRequirements) f.*(r.feature) = true;
  return f;
}

CpuFeatures CurrentCpuFeatures() {
  static const CpuFeatures detected = DetectCpuFeatures();
  FeatureState& s = State();
  std::lock_guard<std::mutex> lock(s.mu);
  return s.fake.value_or(detected);
}

void SetCpuFeaturesForTesting(std::optional<CpuFeatures> features) {
  FeatureState& s = State();
  std::lock_guard<std::mutex> lock(s.mu);
  s.fake = features;
}

std::vector<std::string> MissingFeatures(const CpuFeatures& cpu, CpuLevel level) {
  std::vector<std::string> missing;
  for (const Requirement& r : kRequirements) {
    if (r.level <= level && !(cpu.*(r.feature))) missing.emplace_back(r.name);
  }
  return missing;
}

CpuLevel BestSupportedLevel(const CpuFeatures& cpu) {
  CpuLevel best = CpuLevel::kX86_64;
  for (size_t i = 1; i < kLevelNames.size(); ++i) {
    const auto level = static_cast<CpuLevel>(i);
    if (!MissingFeatures(cpu, level).empty()) break;
    best = level;
  }
  return best;
}

CpuLevel AllowedCpuLevel(std::string* note) {
  const CpuLevel best = BestSupportedLevel(CurrentCpuFeatures());
  const char* cap = std::getenv("TGRAPH_CPU_VARIANT");
  if (cap == nullptr || cap[0] == '\0') return best;
  const std::optional<CpuLevel> capped = ParseCpuLevel(cap);
  if (!capped) {
    if (note != nullptr) {
      *note = StrCat("TGRAPH_CPU_VARIANT='", cap, "' is not a CPU level (x86-64, x86-64-v2, ",
                     "x86-64-v3 or x86-64-v4) and was ignored");
    }
    return best;
  }
  return *capped < best ? *capped : best;
}

std::optional<VariantName> ParseVariantFileName(const std::string& file_name) {
  static constexpr std::string_view kSuffix = ".so";
  if (file_name.size() <= kSuffix.size() ||
      file_name.compare(file_name.size() - kSuffix.size(), kSuffix.size(), kSuffix) != 0) {
    return std::nullopt;
  }
  const std::string stem = file_name.substr(0, file_name.size() - kSuffix.size());
  // The level is what follows the first '.' of the stem ("x86-64-v3" itself has no dot).
  const size_t dot = stem.find('.');
  if (dot == std::string::npos || dot == 0) return std::nullopt;
  const std::optional<CpuLevel> level = ParseCpuLevel(stem.substr(dot + 1));
  if (!level) return std::nullopt;
  return VariantName{StrCat(stem.substr(0, dot), kSuffix), *level};
}

}  // namespace tgraph
