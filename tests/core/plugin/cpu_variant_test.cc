// CPU variants: the levels a CPU runs, the variant file names, and the loader's choice, with
// the CPU's features faked through SetCpuFeaturesForTesting. The loader must never load a
// variant the (faked) CPU lacks, by discovery or by an explicit path.
#include "core/plugin/cpu_variant.h"

#include <gtest/gtest.h>

#include <map>

#include "core/plugin/plugin_loader.h"
#include "tests/core/plugin/plugin_test_util.h"

namespace tgraph {
namespace {

using testing::ScopedEnv;
using testing::StatusIs;
using testing::TempDir;
using testing::VariantPluginPath;

bool Contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

CpuFeatures V3Cpu() {  // AVX2 and FMA, no AVX-512 (this project's AMD EPYC Milan machines)
  CpuFeatures f = CpuFeatures::All();
  f.avx512f = f.avx512bw = f.avx512cd = f.avx512dq = f.avx512vl = f.os_avx512 = false;
  return f;
}

// Fakes the CPU for one test and restores detection after it.
class FakeCpu {
 public:
  explicit FakeCpu(const CpuFeatures& f) { SetCpuFeaturesForTesting(f); }
  ~FakeCpu() { SetCpuFeaturesForTesting(std::nullopt); }
};

// A directory holding the test plugin under each variant name "libtg_variant.<level>.so".
struct VariantDir {
  TempDir dir;
  std::map<std::string, std::string> files;  // level -> path
  VariantDir() {
    for (const char* level : {"x86-64", "x86-64-v3", "x86-64-v4"}) {
      files[level] = dir.Copy(VariantPluginPath(), std::string("libtg_variant.") + level + ".so");
    }
  }
};

const PluginCandidate* FindCandidate(const std::string& file) {
  for (const PluginCandidate& c : LastDiscoveryReport()) {
    if (c.file == file) return &c;
  }
  return nullptr;
}

TEST(CpuVariantTest, LevelNamesRoundTrip) {
  for (CpuLevel level : {CpuLevel::kX86_64, CpuLevel::kX86_64_V2, CpuLevel::kX86_64_V3,
                         CpuLevel::kX86_64_V4}) {
    EXPECT_EQ(ParseCpuLevel(CpuLevelName(level)), level);
  }
  EXPECT_FALSE(ParseCpuLevel("native"));
  EXPECT_FALSE(ParseCpuLevel("x86-64-v5"));
}

TEST(CpuVariantTest, ParsesVariantFileNames) {
  auto v = ParseVariantFileName("libtgraph_cpu.x86-64-v3.so");
  ASSERT_TRUE(v);
  EXPECT_EQ(v->group_file_name, "libtgraph_cpu.so");
  EXPECT_EQ(v->level, CpuLevel::kX86_64_V3);
  v = ParseVariantFileName("libtgraph_cpu.x86-64.so");
  ASSERT_TRUE(v);
  EXPECT_EQ(v->level, CpuLevel::kX86_64);
  EXPECT_FALSE(ParseVariantFileName("libtgraph_cpu.so"));
  EXPECT_FALSE(ParseVariantFileName("libtgraph_opencl.so"));
  EXPECT_FALSE(ParseVariantFileName("libfoo.native.so"));
  EXPECT_FALSE(ParseVariantFileName("libfoo.x86-64-v3.so.1"));
  EXPECT_FALSE(ParseVariantFileName(".x86-64.so"));
}

TEST(CpuVariantTest, BestLevelFollowsTheFeatures) {
  EXPECT_EQ(BestSupportedLevel(CpuFeatures{}), CpuLevel::kX86_64);
  EXPECT_EQ(BestSupportedLevel(CpuFeatures::All()), CpuLevel::kX86_64_V4);
  EXPECT_EQ(BestSupportedLevel(V3Cpu()), CpuLevel::kX86_64_V3);

  CpuFeatures no_fma = V3Cpu();
  no_fma.fma = false;
  EXPECT_EQ(BestSupportedLevel(no_fma), CpuLevel::kX86_64_V2);
  const std::vector<std::string> missing = MissingFeatures(no_fma, CpuLevel::kX86_64_V3);
  ASSERT_EQ(missing.size(), 1u);
  EXPECT_EQ(missing[0], "fma");

  // AVX-512 units whose state the OS does not save can't be used.
  CpuFeatures no_os_state = CpuFeatures::All();
  no_os_state.os_avx512 = false;
  EXPECT_EQ(BestSupportedLevel(no_os_state), CpuLevel::kX86_64_V3);
  // A level needs everything below it: AVX-512 without SSE4.2 is not even v2.
  CpuFeatures odd = CpuFeatures::All();
  odd.sse4_2 = false;
  EXPECT_EQ(BestSupportedLevel(odd), CpuLevel::kX86_64);
}

TEST(CpuVariantTest, EnvironmentOnlyLowersTheLevel) {
  FakeCpu cpu(V3Cpu());
  {
    ScopedEnv env("TGRAPH_CPU_VARIANT", "x86-64");
    EXPECT_EQ(AllowedCpuLevel(), CpuLevel::kX86_64);
  }
  {
    ScopedEnv env("TGRAPH_CPU_VARIANT", "x86-64-v4");  // can't raise it above the CPU's
    EXPECT_EQ(AllowedCpuLevel(), CpuLevel::kX86_64_V3);
  }
  {
    ScopedEnv env("TGRAPH_CPU_VARIANT", "fastest");
    std::string note;
    EXPECT_EQ(AllowedCpuLevel(&note), CpuLevel::kX86_64_V3);
    EXPECT_TRUE(Contains(note, "'fastest'")) << note;
  }
}

TEST(CpuVariantTest, DiscoveryNeverPicksAVariantTheCpuLacks) {
  FakeCpu cpu(CpuFeatures{});  // a baseline x86-64 CPU
  VariantDir variants;
  std::vector<const LoadedPlugin*> loaded;
  ASSERT_TRUE(LoadPluginsFrom({variants.dir.path()}, &loaded).ok());
  ASSERT_EQ(loaded.size(), 1u);
  EXPECT_EQ(loaded[0]->cpu_variant, "x86-64");
  EXPECT_EQ(loaded[0]->file, std::filesystem::canonical(variants.files["x86-64"]).string());

  const PluginCandidate* v4 = FindCandidate(variants.files["x86-64-v4"]);
  ASSERT_NE(v4, nullptr);
  EXPECT_EQ(v4->outcome, PluginCandidate::Outcome::kVariantNotChosen);
  EXPECT_TRUE(Contains(v4->reason, "avx512f")) << v4->reason;
  const PluginCandidate* v3 = FindCandidate(variants.files["x86-64-v3"]);
  ASSERT_NE(v3, nullptr);
  EXPECT_EQ(v3->outcome, PluginCandidate::Outcome::kVariantNotChosen);
  EXPECT_TRUE(Contains(v3->reason, "avx2")) << v3->reason;
  const PluginCandidate* base = FindCandidate(variants.files["x86-64"]);
  ASSERT_NE(base, nullptr);
  EXPECT_EQ(base->outcome, PluginCandidate::Outcome::kLoaded);
  EXPECT_EQ(base->plugin, loaded[0]);
}

TEST(CpuVariantTest, ExplicitLoadOfAVariantTheCpuLacksIsRefused) {
  FakeCpu cpu(V3Cpu());
  VariantDir variants;
  auto s = LoadPlugin(variants.files["x86-64-v4"]);
  EXPECT_TRUE(StatusIs(s.status(), Code::kFailedPrecondition));
  EXPECT_TRUE(Contains(s.status().message(), variants.files["x86-64-v4"])) << s.status().message();
  EXPECT_TRUE(Contains(s.status().message(), "avx512bw")) << s.status().message();
  // The same file reached through a name without a level is refused as well.
  const std::string alias = variants.dir.path() + "/libalias.so";
  std::filesystem::create_symlink(variants.files["x86-64-v4"], alias);
  EXPECT_TRUE(StatusIs(LoadPlugin(alias).status(), Code::kFailedPrecondition));
  for (const LoadedPlugin* p : LoadedPlugins()) {
    EXPECT_NE(p->file, std::filesystem::canonical(variants.files["x86-64-v4"]).string());
  }
}

TEST(CpuVariantTest, GroupNameLoadsTheBestVariantAllowed) {
  FakeCpu cpu(CpuFeatures::All());
  VariantDir variants;
  const std::string group = variants.dir.path() + "/libtg_variant.so";
  {
    ScopedEnv env("TGRAPH_CPU_VARIANT", "x86-64-v3");
    auto p = LoadPlugin(group);
    ASSERT_TRUE(p.ok()) << p.status().ToString();
    EXPECT_EQ(p.value()->cpu_variant, "x86-64-v3");
  }
  // What the plugin logged while loading stays on its record, printed or not.
  auto p = LoadPlugin(group);  // now the v4 file: a different library
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ(p.value()->cpu_variant, "x86-64-v4");
  ASSERT_EQ(p.value()->messages.size(), 1u);
  EXPECT_EQ(p.value()->messages[0], "INFO: test_variant: initialised");

  auto missing = LoadPlugin(variants.dir.path() + "/libnothing.so");
  EXPECT_TRUE(StatusIs(missing.status(), Code::kNotFound));
}

TEST(CpuVariantTest, NoVariantRunsHereIsADiscoveryFailure) {
  FakeCpu cpu(CpuFeatures{});
  TempDir dir;
  const std::string v4 = dir.Copy(VariantPluginPath(), "libonly_v4.x86-64-v4.so");
  Status s = LoadPluginsFrom({dir.path()});
  EXPECT_TRUE(StatusIs(s, Code::kFailedPrecondition));
  EXPECT_TRUE(Contains(s.message(), "libonly_v4.so")) << s.message();
  EXPECT_TRUE(Contains(s.message(), "avx512f")) << s.message();
  EXPECT_TRUE(StatusIs(LoadPlugin(dir.path() + "/libonly_v4.so").status(),
                       Code::kFailedPrecondition));
}

}  // namespace
}  // namespace tgraph
