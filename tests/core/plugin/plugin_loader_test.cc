// The loader: good plugins load once and list what they registered; every bad plugin gets a
// status naming the file and the reason, registers nothing, and the process goes on.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "core/ops/op_registry.h"
#include "core/plugin/plugin_loader.h"
#include "core/plugin/registry.h"
#include "tests/core/plugin/plugin_test_util.h"
#include "tgraph/plugin.h"

namespace tgraph {
namespace {

using testing::BadPluginPath;
using testing::GoodPluginPath;
using testing::LoadGoodPlugin;
using testing::ScopedEnv;
using testing::StatusIs;
using testing::TempDir;

bool HasOp(const std::string& name) { return OpRegistry::Global()->Find(name) != nullptr; }

bool Contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

TEST(PluginLoaderTest, GoodPluginLoadsAndListsWhatItRegistered) {
  const LoadedPlugin* p = LoadGoodPlugin();
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->name, "test_good");
  EXPECT_EQ(p->version, "1.2.3");
  EXPECT_EQ(p->abi_version, TG_PLUGIN_ABI_VERSION);
  EXPECT_EQ(p->abi_version, CorePluginAbiVersion());
  EXPECT_EQ(p->file, std::filesystem::canonical(GoodPluginPath("tg_test_good")).string());
  EXPECT_EQ(p->ops, (std::vector<std::string>{"TestScaleAdd", "TestFillShape", "TestAttrs",
                                               "TestPoolInfo", "TestView", "TestScratch",
                                               "TestForwardThenAlias", "TestMisbehave",
                                               "TestRefInitialized", "TestShapeGetters",
                                               "TestWrongShape", "TestInputVersion",
                                               "TestVersionDuringWrite", "TestStaticShapes",
                                               "TestFreshFill", "TestBufferAddress"}));
  ASSERT_EQ(p->kernels.size(), 19u);
  EXPECT_EQ(p->kernels[0], std::make_pair(std::string("TestScaleAdd"), std::string("CPU")));
  EXPECT_EQ(p->kernels[5], std::make_pair(std::string("Identity"), std::string("TESTDEV")));
  EXPECT_EQ(p->devices, std::vector<std::string>{"TESTDEV"});
  EXPECT_EQ(p->savers, std::vector<std::string>{"test_memory"});
  EXPECT_EQ(p->gradients, std::vector<std::string>{"TestScaleAdd"});
  // ABI 6: the op definition's allows_uninitialized_input reaches the OpDef.
  ASSERT_NE(OpRegistry::Global()->Find("TestRefInitialized"), nullptr);
  EXPECT_TRUE(OpRegistry::Global()->Find("TestRefInitialized")->op_def.allows_uninitialized_input());
  EXPECT_FALSE(OpRegistry::Global()->Find("TestMisbehave")->op_def.allows_uninitialized_input());

  EXPECT_TRUE(HasOp("TestScaleAdd"));
  const OpRegistration* reg = OpRegistry::Global()->Find("TestScaleAdd");
  EXPECT_EQ(reg->op_def.summary(), "z = alpha * x + y");
  EXPECT_TRUE(static_cast<bool>(reg->shape_fn));
  EXPECT_NE(DeviceRegistry::Global()->Find("TESTDEV"), nullptr);
  EXPECT_NE(SaverRegistry::Global()->Find("test_memory"), nullptr);
  ASSERT_NE(GradientRegistry::Global()->Find("TestScaleAdd"), nullptr);
  EXPECT_EQ(GradientRegistry::Global()->Find("TestScaleAdd")->plugin, p);
  EXPECT_EQ(KernelRegistry::Global()->KernelsFor("TestScaleAdd").size(), 2u);
  EXPECT_EQ(KernelRegistry::Global()->DeviceTypesFor("Identity").back(), "TESTDEV");

  bool listed = false;
  for (const LoadedPlugin* q : LoadedPlugins()) listed = listed || q == p;
  EXPECT_TRUE(listed);
}

TEST(PluginLoaderTest, LoadingTheSameFileTwiceReturnsTheFirstLoad) {
  const LoadedPlugin* first = LoadGoodPlugin();
  // Another spelling of the same file.
  const std::string other = std::string(TGRAPH_TEST_PLUGIN_DIR) + "/good/../good/libtg_test_good.so";
  auto second = LoadPlugin(other);
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_EQ(second.value(), first);
  size_t count = 0;
  for (const LoadedPlugin* q : LoadedPlugins()) count += q->name == "test_good" ? 1 : 0;
  EXPECT_EQ(count, 1u);
}

TEST(PluginLoaderTest, ACopyOfALoadedPluginIsRefusedAsDuplicate) {
  LoadGoodPlugin();
  TempDir dir;
  const std::string copy = dir.Copy(GoodPluginPath("tg_test_good"), "libtg_test_good_copy.so");
  auto s = LoadPlugin(copy);
  ASSERT_TRUE(StatusIs(s.status(), Code::kAlreadyExists));
  EXPECT_TRUE(Contains(s.status().message(), copy)) << s.status().message();
  EXPECT_TRUE(Contains(s.status().message(), "duplicate op 'TestScaleAdd'")) << s.status().message();
  EXPECT_TRUE(Contains(s.status().message(), "test_good")) << s.status().message();
}

TEST(PluginLoaderTest, NoSuchFile) {
  const std::string path = std::string(TGRAPH_TEST_PLUGIN_DIR) + "/bad/libdoes_not_exist.so";
  auto s = LoadPlugin(path);
  ASSERT_TRUE(StatusIs(s.status(), Code::kNotFound));
  EXPECT_TRUE(Contains(s.status().message(), path));
  EXPECT_TRUE(Contains(s.status().message(), "no such file"));
}

TEST(PluginLoaderTest, EmptyPathAndDirectory) {
  EXPECT_TRUE(StatusIs(LoadPlugin("").status(), Code::kInvalidArgument));
  auto s = LoadPlugin(TGRAPH_TEST_PLUGIN_DIR);
  ASSERT_TRUE(StatusIs(s.status(), Code::kInvalidArgument));
  EXPECT_TRUE(Contains(s.status().message(), "directory"));
}

TEST(PluginLoaderTest, TextFileNamedSoIsNotASharedLibrary) {
  const std::string path = BadPluginPath("tg_test_not_a_library");
  auto s = LoadPlugin(path);
  ASSERT_TRUE(StatusIs(s.status(), Code::kInvalidArgument));
  EXPECT_TRUE(Contains(s.status().message(), path));
  EXPECT_TRUE(Contains(s.status().message(), "not a shared library"));
}

TEST(PluginLoaderTest, TruncatedElfIsNotASharedLibrary) {
  TempDir dir;
  const std::string path = dir.path() + "/libtruncated.so";
  {
    std::ifstream in(GoodPluginPath("tg_test_good"), std::ios::binary);
    std::string head(200, '\0');
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    std::ofstream(path, std::ios::binary) << head;
  }
  auto s = LoadPlugin(path);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), Code::kInvalidArgument);
  EXPECT_TRUE(Contains(s.status().message(), path)) << s.status().message();
}

TEST(PluginLoaderTest, AnExecutableIsNotASharedLibrary) {
  // /proc/self/exe is this test program: ELF, but (unless built PIE) not a shared object,
  // and without TG_PluginInit either way.
  auto s = LoadPlugin("/proc/self/exe");
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(s.status().code() == Code::kInvalidArgument || s.status().code() == Code::kNotFound)
      << s.status().ToString();
}

TEST(PluginLoaderTest, LibraryWithoutInitSymbol) {
  const std::string path = BadPluginPath("tg_test_no_init");
  auto s = LoadPlugin(path);
  ASSERT_TRUE(StatusIs(s.status(), Code::kNotFound));
  EXPECT_TRUE(Contains(s.status().message(), path));
  EXPECT_TRUE(Contains(s.status().message(), "TG_PluginInit"));
}

TEST(PluginLoaderTest, NewerAbiIsRefusedNamingBothVersions) {
  const std::string path = BadPluginPath("tg_test_abi_newer");
  auto s = LoadPlugin(path);
  ASSERT_TRUE(StatusIs(s.status(), Code::kFailedPrecondition));
  const std::string& m = s.status().message();
  EXPECT_TRUE(Contains(m, path)) << m;
  EXPECT_TRUE(Contains(m, "ABI version " + std::to_string(TG_PLUGIN_ABI_VERSION + 1))) << m;
  EXPECT_TRUE(Contains(m, "core's ABI version " + std::to_string(TG_PLUGIN_ABI_VERSION))) << m;
  EXPECT_FALSE(HasOp("TestAbiNewerOp"));
}

TEST(PluginLoaderTest, FailedInitRegistersNothing) {
  const std::string path = BadPluginPath("tg_test_init_fails");
  auto s = LoadPlugin(path);
  ASSERT_TRUE(StatusIs(s.status(), Code::kUnavailable));
  const std::string& m = s.status().message();
  EXPECT_TRUE(Contains(m, path)) << m;
  EXPECT_TRUE(Contains(m, "TG_PluginInit failed")) << m;
  EXPECT_TRUE(Contains(m, "deliberate failure")) << m;
  EXPECT_FALSE(HasOp("TestInitFailsOp"));
  // Trying again gives the same answer (nothing was left half-registered).
  EXPECT_TRUE(StatusIs(LoadPlugin(path).status(), Code::kUnavailable));
  for (const LoadedPlugin* p : LoadedPlugins()) EXPECT_NE(p->name, "test_init_fails");
}

TEST(PluginLoaderTest, KernelForUnknownOpFailsEvenIfInitIgnoresIt) {
  const std::string path = BadPluginPath("tg_test_unknown_op");
  auto s = LoadPlugin(path);
  ASSERT_TRUE(StatusIs(s.status(), Code::kNotFound));
  const std::string& m = s.status().message();
  EXPECT_TRUE(Contains(m, path)) << m;
  EXPECT_TRUE(Contains(m, "kernel for unknown op 'NoSuchOpAnywhere'")) << m;
  EXPECT_FALSE(HasOp("TestUnknownOpPluginsOwnOp"));  // its valid op went too
}

TEST(PluginLoaderTest, DuplicateKernel) {
  const std::string path = BadPluginPath("tg_test_duplicate_kernel");
  auto s = LoadPlugin(path);
  ASSERT_TRUE(StatusIs(s.status(), Code::kAlreadyExists));
  const std::string& m = s.status().message();
  EXPECT_TRUE(Contains(m, path)) << m;
  EXPECT_TRUE(Contains(m, "duplicate kernel TestDupKernelOp on CPU [T in {float}]")) << m;
  EXPECT_FALSE(HasOp("TestDupKernelOp"));
}

TEST(PluginLoaderTest, DuplicateOp) {
  const std::string path = BadPluginPath("tg_test_duplicate_op");
  auto s = LoadPlugin(path);
  ASSERT_TRUE(StatusIs(s.status(), Code::kAlreadyExists));
  const std::string& m = s.status().message();
  EXPECT_TRUE(Contains(m, path)) << m;
  EXPECT_TRUE(Contains(m, "duplicate op 'Identity': already registered by the core")) << m;
}

TEST(PluginLoaderTest, PluginMustDeclareItsAbiVersion) {
  auto s = LoadPlugin(BadPluginPath("tg_test_no_abi_version"));
  ASSERT_TRUE(StatusIs(s.status(), Code::kFailedPrecondition));
  EXPECT_TRUE(Contains(s.status().message(), "abi_version")) << s.status().message();
}

TEST(PluginLoaderTest, PluginBuiltAgainstTheFirstReleasedHeaderLoads) {
  auto s = LoadPlugin(GoodPluginPath("tg_test_abi_v1"));
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s.value()->name, "test_abi_v1");
  EXPECT_EQ(s.value()->abi_version, 1u);
  EXPECT_TRUE(HasOp("TestV1Negate"));
}

TEST(PluginLoaderTest, UnloadIsRefused) {
  const LoadedPlugin* p = LoadGoodPlugin();
  Status s = UnloadPlugin(p);
  ASSERT_TRUE(StatusIs(s, Code::kFailedPrecondition));
  EXPECT_TRUE(Contains(s.message(), p->file));
  EXPECT_TRUE(StatusIs(UnloadPlugin(nullptr), Code::kInvalidArgument));
  EXPECT_TRUE(HasOp("TestScaleAdd"));  // still there
}

TEST(PluginLoaderTest, SearchPathOrder) {
  ScopedEnv env("TGRAPH_PLUGIN_PATH", "/first/dir::/second/libx.so:/first/dir");
  std::vector<std::string> path = PluginSearchPath();
  ASSERT_GE(path.size(), 3u);
  EXPECT_EQ(path[0], "/first/dir");
  EXPECT_EQ(path[1], "/second/libx.so");  // empty entries skipped, repeats dropped
  EXPECT_TRUE(Contains(path[2], "tgraph/plugins")) << path[2];  // the install's plugin dir
}

TEST(PluginLoaderTest, PluginFilesInADirectoryAreSortedSoFiles) {
  TempDir dir;
  dir.Copy(GoodPluginPath("tg_test_good"), "libb.so");
  dir.Copy(GoodPluginPath("tg_test_good"), "liba.so");
  std::ofstream(dir.path() + "/notes.txt") << "not a plugin";
  std::filesystem::create_directory(dir.path() + "/sub.so");
  auto files = PluginFilesIn(dir.path());
  ASSERT_EQ(files.size(), 2u);
  EXPECT_TRUE(files[0].ends_with("/liba.so"));
  EXPECT_TRUE(files[1].ends_with("/libb.so"));
  EXPECT_TRUE(PluginFilesIn(dir.path() + "/missing").empty());
  EXPECT_EQ(PluginFilesIn(dir.path() + "/notes.txt").size(), 1u);  // a file entry is itself
}

TEST(PluginLoaderTest, DiscoveryLoadsGoodPluginsAndSkipsLoadedOnes) {
  // Both good plugins through one directory entry; loading again finds nothing new.
  std::vector<const LoadedPlugin*> loaded;
  Status s = LoadPluginsFrom({std::string(TGRAPH_TEST_PLUGIN_DIR) + "/good"}, &loaded);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_TRUE(HasOp("TestScaleAdd"));
  EXPECT_TRUE(HasOp("TestV1Negate"));
  loaded.clear();
  s = LoadPluginsFrom({std::string(TGRAPH_TEST_PLUGIN_DIR) + "/good"}, &loaded);
  EXPECT_TRUE(s.ok()) << s.ToString();
  EXPECT_TRUE(loaded.empty());
}

TEST(PluginLoaderTest, DiscoverySkipsAFileShadowedByAnEarlierOneOfTheSameName) {
  LoadGoodPlugin();
  TempDir dir;
  dir.Copy(GoodPluginPath("tg_test_good"), "libtg_test_good.so");  // same name, other dir
  std::vector<const LoadedPlugin*> loaded;
  Status s = LoadPluginsFrom({dir.path()}, &loaded);
  EXPECT_TRUE(s.ok()) << s.ToString();  // skipped, not a duplicate error
  EXPECT_TRUE(loaded.empty());
}

TEST(PluginLoaderTest, DiscoveryReportsEveryBadFileAndGoesOn) {
  ScopedEnv env("TGRAPH_PLUGIN_PATH", std::string(TGRAPH_TEST_PLUGIN_DIR) + "/bad:" +
                                          GoodPluginPath("tg_test_good"));
  // Only TGRAPH_PLUGIN_PATH's two entries: the search path's later ones hold the build
  // tree's real plugins, and plugins stay loaded for the rest of the process (oneDNN's, with
  // its native bf16 kernels, would change what the other tests of this binary see, e.g.
  // RewriteTest.MixedPrecisionNeedsNativeBf16Kernels).
  std::vector<std::string> entries = PluginSearchPath();
  ASSERT_GE(entries.size(), 2u);
  entries.resize(2);
  ASSERT_EQ(entries[0], std::string(TGRAPH_TEST_PLUGIN_DIR) + "/bad");
  std::vector<const LoadedPlugin*> loaded;
  Status s = LoadPluginsFrom(entries, &loaded);
  ASSERT_FALSE(s.ok());
  const std::string& m = s.message();
  for (const char* bad : {"tg_test_abi_newer", "tg_test_duplicate_kernel", "tg_test_duplicate_op",
                          "tg_test_init_fails", "tg_test_no_abi_version", "tg_test_no_init",
                          "tg_test_not_a_library", "tg_test_unknown_op"}) {
    EXPECT_TRUE(Contains(m, std::string("lib") + bad + ".so")) << bad << " missing from: " << m;
  }
  EXPECT_TRUE(Contains(m, "plugins failed to load")) << m;
  // The good plugin (listed after the bad directory) is loaded all the same.
  EXPECT_TRUE(HasOp("TestScaleAdd"));
  // The report has every file with what became of it.
  const std::string bad_dir = std::string(TGRAPH_TEST_PLUGIN_DIR) + "/bad/";
  int failed = 0;
  bool good_listed = false;
  for (const PluginCandidate& c : LastDiscoveryReport()) {
    if (c.file.rfind(bad_dir, 0) == 0) {
      ++failed;
      EXPECT_EQ(c.outcome, PluginCandidate::Outcome::kFailed) << c.file;
      EXPECT_TRUE(Contains(c.reason, c.file)) << c.reason;
      EXPECT_EQ(c.plugin, nullptr);
    } else if (c.file == GoodPluginPath("tg_test_good")) {
      good_listed = true;
      EXPECT_EQ(c.outcome, PluginCandidate::Outcome::kLoaded);
      EXPECT_NE(c.plugin, nullptr);
    }
  }
  EXPECT_EQ(failed, 8);
  EXPECT_TRUE(good_listed);
}

// A status names the path as the caller gave it, even through a symlink (a checkout reached
// through one), and adds the file it resolved to.
TEST(PluginLoaderTest, StatusesNameThePathAsGiven) {
  TempDir dir;
  const std::string link = dir.path() + "/linked";
  std::filesystem::create_directory_symlink(std::string(TGRAPH_TEST_PLUGIN_DIR) + "/bad", link);
  const std::string path = link + "/libtg_test_init_fails.so";
  auto s = LoadPlugin(path);
  ASSERT_TRUE(StatusIs(s.status(), Code::kUnavailable));
  const std::string& m = s.status().message();
  EXPECT_TRUE(Contains(m, "'" + path + "'")) << m;
  EXPECT_TRUE(Contains(m, std::filesystem::canonical(path).string())) << m;
  const std::string missing = link + "/libmissing.so";
  EXPECT_TRUE(Contains(LoadPlugin(missing).status().message(), "'" + missing + "'"));
}

TEST(PluginLoaderTest, DiscoveryReportsAShadowedFile) {
  LoadGoodPlugin();
  TempDir dir;
  const std::string copy = dir.Copy(GoodPluginPath("tg_test_good"), "libtg_test_good.so");
  ASSERT_TRUE(LoadPluginsFrom({dir.path()}).ok());
  const std::vector<PluginCandidate>& report = LastDiscoveryReport();
  ASSERT_EQ(report.size(), 1u);
  EXPECT_EQ(report[0].file, copy);
  EXPECT_EQ(report[0].outcome, PluginCandidate::Outcome::kShadowed);
  EXPECT_TRUE(Contains(report[0].reason, "libtg_test_good.so")) << report[0].reason;
}

}  // namespace
}  // namespace tgraph
