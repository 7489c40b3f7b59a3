// Plugins through the C API only: loading (explicit and discovery), listing, bad plugins
// with a clear status each, the refused unload, and graph building with a plugin's op.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "c_api_test_util.h"
#include "session_test_util.h"
#include "tgraph/c_api.h"

namespace {

using tgtest::CApiTest;

std::string Good(const std::string& name) {
  return std::string(TGRAPH_TEST_PLUGIN_DIR) + "/good/lib" + name + ".so";
}
std::string Bad(const std::string& name) {
  return std::string(TGRAPH_TEST_PLUGIN_DIR) + "/bad/lib" + name + ".so";
}
bool Contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

class PluginsTest : public CApiTest {
 protected:
  const TG_Plugin* LoadGood() {
    const TG_Plugin* p = TG_LoadPlugin(Good("tg_test_good").c_str(), s_);
    EXPECT_TRUE(tgtest::IsOk(s_));
    return p;
  }
  // Loads a bad plugin: NULL, `code`, and a message naming the file.
  void ExpectBad(const std::string& file, TG_Code want, const std::string& reason) {
    EXPECT_EQ(TG_LoadPlugin(file.c_str(), s_), nullptr) << file;
    EXPECT_EQ(code(), want) << msg();
    EXPECT_TRUE(Contains(msg(), file)) << msg();
    EXPECT_TRUE(Contains(msg(), reason)) << msg();
  }
};

TEST_F(PluginsTest, LoadAndList) {
  const TG_Plugin* p = LoadGood();
  ASSERT_NE(p, nullptr);
  EXPECT_STREQ(TG_PluginName(p), "test_good");
  EXPECT_STREQ(TG_PluginVersion(p), "1.2.3");
  EXPECT_EQ(TG_PluginAbiVersion(p), TG_CorePluginAbiVersion());
  EXPECT_TRUE(Contains(TG_PluginFile(p), "libtg_test_good.so"));
  ASSERT_EQ(TG_PluginNumOps(p), 16);
  EXPECT_STREQ(TG_PluginOpName(p, 0), "TestScaleAdd");
  EXPECT_EQ(TG_PluginOpName(p, 16), nullptr);
  EXPECT_EQ(TG_PluginOpName(p, -1), nullptr);
  ASSERT_EQ(TG_PluginNumKernels(p), 19);
  EXPECT_STREQ(TG_PluginKernelOpType(p, 5), "Identity");
  EXPECT_STREQ(TG_PluginKernelDeviceType(p, 5), "TESTDEV");
  EXPECT_EQ(TG_PluginKernelOpType(p, 19), nullptr);
  ASSERT_EQ(TG_PluginNumDevices(p), 1);
  EXPECT_STREQ(TG_PluginDeviceType(p, 0), "TESTDEV");
  ASSERT_EQ(TG_PluginNumSavers(p), 1);
  EXPECT_STREQ(TG_PluginSaverFormat(p, 0), "test_memory");
  ASSERT_EQ(TG_PluginNumGradients(p), 1);
  EXPECT_STREQ(TG_PluginGradientOpType(p, 0), "TestScaleAdd");

  // Loading again is a no-op returning the first load.
  EXPECT_EQ(TG_LoadPlugin(Good("tg_test_good").c_str(), s_), p);
  bool listed = false;
  for (int i = 0; i < TG_NumPlugins(); ++i) listed = listed || TG_GetPlugin(i) == p;
  EXPECT_TRUE(listed);
  EXPECT_EQ(TG_GetPlugin(TG_NumPlugins()), nullptr);
  EXPECT_EQ(TG_GetPlugin(-1), nullptr);
}

TEST_F(PluginsTest, NullArguments) {
  EXPECT_EQ(TG_LoadPlugin(nullptr, s_), nullptr);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  EXPECT_STREQ(TG_PluginName(nullptr), "");
  EXPECT_EQ(TG_PluginAbiVersion(nullptr), 0u);
  EXPECT_EQ(TG_PluginNumOps(nullptr), 0);
  EXPECT_EQ(TG_PluginOpName(nullptr, 0), nullptr);
  TG_UnloadPlugin(nullptr, s_);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
}

TEST_F(PluginsTest, UnloadIsRefused) {
  const TG_Plugin* p = LoadGood();
  TG_UnloadPlugin(p, s_);
  EXPECT_EQ(code(), TG_FAILED_PRECONDITION);
  EXPECT_TRUE(Contains(msg(), "stay loaded")) << msg();
  EXPECT_STREQ(TG_PluginName(p), "test_good");  // still valid
}

TEST_F(PluginsTest, EveryBadPluginGetsAClearStatus) {
  ExpectBad(Bad("does_not_exist"), TG_NOT_FOUND, "no such file");
  ExpectBad(Bad("tg_test_not_a_library"), TG_INVALID_ARGUMENT, "not a shared library");
  ExpectBad(Bad("tg_test_no_init"), TG_NOT_FOUND, "TG_PluginInit");
  ExpectBad(Bad("tg_test_abi_newer"), TG_FAILED_PRECONDITION, "newer than this core's ABI version");
  ExpectBad(Bad("tg_test_init_fails"), TG_UNAVAILABLE, "deliberate failure");
  ExpectBad(Bad("tg_test_unknown_op"), TG_NOT_FOUND, "kernel for unknown op 'NoSuchOpAnywhere'");
  ExpectBad(Bad("tg_test_duplicate_kernel"), TG_ALREADY_EXISTS, "duplicate kernel");
  ExpectBad(Bad("tg_test_duplicate_op"), TG_ALREADY_EXISTS, "duplicate op 'Identity'");
  ExpectBad(Bad("tg_test_no_abi_version"), TG_FAILED_PRECONDITION, "abi_version");
  // The process goes on, and nothing of theirs is listed.
  for (int i = 0; i < TG_NumPlugins(); ++i) {
    const std::string file = TG_PluginFile(TG_GetPlugin(i));
    EXPECT_FALSE(Contains(file, "/bad/")) << file;
  }
  EXPECT_NE(LoadGood(), nullptr);
}

TEST_F(PluginsTest, FirstReleaseAbiPlugin) {
  const TG_Plugin* p = TG_LoadPlugin(Good("tg_test_abi_v1").c_str(), s_);
  TG_ASSERT_OK(s_);
  EXPECT_EQ(TG_PluginAbiVersion(p), 1u);
  EXPECT_STREQ(TG_PluginOpName(p, 0), "TestV1Negate");
}

TEST_F(PluginsTest, DiscoveryThroughTgraphPluginPath) {
  const std::string dir = std::string(TGRAPH_TEST_PLUGIN_DIR) + "/good";
  ::setenv("TGRAPH_PLUGIN_PATH", dir.c_str(), 1);
  TG_Buffer* buf = TG_NewBuffer();
  TG_GetPluginSearchPath(buf, s_);
  TG_ASSERT_OK(s_);
  TG_Buffer path = TG_GetBuffer(buf);
  const std::string search(static_cast<const char*>(path.data), path.length);
  TG_DeleteBuffer(buf);
  EXPECT_TRUE(search.starts_with(dir + ":")) << search;

  TG_LoadPluginsFromSearchPath(s_);
  // Other entries (the install's directory, the build tree's plugins/) may hold plugins of
  // their own; whatever they do, the test plugins load.
  if (code() != TG_OK) {
    EXPECT_FALSE(Contains(msg(), dir)) << msg();
  }
  ::unsetenv("TGRAPH_PLUGIN_PATH");
  bool good = false, v1 = false;
  for (int i = 0; i < TG_NumPlugins(); ++i) {
    good = good || std::string(TG_PluginName(TG_GetPlugin(i))) == "test_good";
    v1 = v1 || std::string(TG_PluginName(TG_GetPlugin(i))) == "test_abi_v1";
  }
  EXPECT_TRUE(good);
  EXPECT_TRUE(v1);
  // A second discovery loads nothing new from there.
  ::setenv("TGRAPH_PLUGIN_PATH", dir.c_str(), 1);
  const int before = TG_NumPlugins();
  TG_LoadPluginsFromSearchPath(s_);
  ::unsetenv("TGRAPH_PLUGIN_PATH");
  EXPECT_EQ(TG_NumPlugins(), before);
}

TEST_F(PluginsTest, DiscoveryReportsBadFilesAndGoesOn) {
  const std::string dir = std::string(TGRAPH_TEST_PLUGIN_DIR) + "/bad";
  ::setenv("TGRAPH_PLUGIN_PATH", dir.c_str(), 1);
  TG_LoadPluginsFromSearchPath(s_);
  ::unsetenv("TGRAPH_PLUGIN_PATH");
  EXPECT_NE(code(), TG_OK);
  EXPECT_TRUE(Contains(msg(), "libtg_test_abi_newer.so")) << msg();
  EXPECT_TRUE(Contains(msg(), "libtg_test_not_a_library.so")) << msg();
}

// The plugin's op in a graph: its shape function runs while the graph is built.
TEST_F(PluginsTest, GraphWithAPluginOp) {
  ASSERT_NE(LoadGood(), nullptr);
  auto placeholder = [&](const char* name, std::vector<int64_t> dims) {
    TG_OperationDescription* d = TG_NewOperation(g_, "Placeholder", name);
    TG_SetAttrType(d, "dtype", TG_FLOAT);
    TG_SetAttrShape(d, "shape", dims.data(), static_cast<int>(dims.size()));
    return TG_FinishOperation(d, s_);
  };
  TG_Operation* x = placeholder("x", {2, -1});
  TG_Operation* y = placeholder("y", {-1, 5});
  ASSERT_NE(x, nullptr);
  ASSERT_NE(y, nullptr);
  TG_OperationDescription* d = TG_NewOperation(g_, "TestScaleAdd", "sum");
  TG_AddInput(d, tgtest::Out(x));
  TG_AddInput(d, tgtest::Out(y));
  TG_SetAttrFloat(d, "alpha", 3.0f);
  TG_Operation* sum = TG_FinishOperation(d, s_);
  TG_ASSERT_OK(s_);
  int64_t dims[2];
  TG_GraphGetTensorShape(g_, tgtest::Out(sum), dims, 2, s_);
  TG_ASSERT_OK(s_);
  EXPECT_EQ(dims[0], 2);
  EXPECT_EQ(dims[1], 5);

  TG_Operation* z = placeholder("z", {3});
  d = TG_NewOperation(g_, "TestScaleAdd", "mismatch");
  TG_AddInput(d, tgtest::Out(x));
  TG_AddInput(d, tgtest::Out(z));
  EXPECT_EQ(TG_FinishOperation(d, s_), nullptr);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  EXPECT_TRUE(Contains(msg(), "mismatch")) << msg();
  EXPECT_TRUE(Contains(msg(), "same rank")) << msg();
}

// A kernel that throws fails the run with INTERNAL naming the node, with the exception's
// text, or "unknown exception" when it is not a std::exception; one that calls input_info
// with an unset struct_size fails with INVALID_ARGUMENT saying so. The session goes on.
TEST_F(PluginsTest, MisbehavingKernelsFailTheirRunClearly) {
  ASSERT_NE(LoadGood(), nullptr);
  TG_OperationDescription* pd = TG_NewOperation(g_, "Placeholder", "x");
  TG_SetAttrType(pd, "dtype", TG_FLOAT);
  TG_Operation* x = TG_FinishOperation(pd, s_);
  TG_ASSERT_OK(s_);
  struct Case {
    const char* how;
    TG_Code code;
    const char* says;
  };
  const Case cases[] = {{"throw_std", TG_INTERNAL, "boom"},
                        {"throw_int", TG_INTERNAL, "unknown exception"},
                        {"info_size_zero", TG_INVALID_ARGUMENT, "struct_size is 0"}};
  TG_Session* sess = TG_NewSession(g_, nullptr, s_);
  TG_ASSERT_OK(s_);
  tgtest::TensorPtr value = tgtest::FloatTensor({}, {1.0f});
  for (int round = 0; round < 2; ++round) {
    for (const Case& c : cases) {
      SCOPED_TRACE(c.how);
      const std::string name = std::string("misbehave_") + c.how + std::to_string(round);
      TG_OperationDescription* d = TG_NewOperation(g_, "TestMisbehave", name.c_str());
      TG_AddInput(d, tgtest::Out(x));
      TG_SetAttrString(d, "how", c.how, std::strlen(c.how));
      TG_Operation* op = TG_FinishOperation(d, s_);
      TG_ASSERT_OK(s_);
      TG_Output feed = tgtest::Out(x);
      TG_Tensor* fed = value.get();
      TG_Output fetch = tgtest::Out(op);
      TG_Tensor* result = nullptr;
      TG_SessionRun(sess, nullptr, &feed, &fed, 1, &fetch, &result, 1, nullptr, 0, nullptr, s_);
      EXPECT_EQ(code(), c.code) << msg();
      EXPECT_EQ(result, nullptr);
      EXPECT_TRUE(Contains(msg(), name)) << msg();
      EXPECT_TRUE(Contains(msg(), c.says)) << msg();
    }
  }
  TG_CloseSession(sess, s_);
  TG_DeleteSession(sess, s_);
  TG_EXPECT_OK(s_);
}

// A kernel that outranks another plugin's for some dtypes is logged and kept on the new
// plugin's record, naming both kernels and the plugin that registered the old one.
TEST_F(PluginsTest, KernelOverridesAreOnRecord) {
  ASSERT_NE(TG_LoadPlugin(Good("tg_test_abi_v1").c_str(), s_), nullptr) << msg();
  const std::string file = std::string(TGRAPH_TEST_PLUGIN_DIR) + "/override/libtg_test_override.so";
  const TG_Plugin* p = TG_LoadPlugin(file.c_str(), s_);
  ASSERT_NE(p, nullptr) << msg();
  std::string record;
  for (int i = 0; i < TG_PluginNumMessages(p); ++i) record += std::string(TG_PluginMessage(p, i)) + "\n";
  EXPECT_TRUE(Contains(record, "INFO: kernel TestV1Negate on CPU [T in {float}] priority 5 overrides "
                               "TestV1Negate on CPU [T in {float, double}] of plugin 'test_abi_v1'"))
      << record;
  // The plugin's listing names each override on its own (tgraph plugins prints them).
  ASSERT_EQ(TG_PluginNumKernelOverrides(p), 1);
  EXPECT_TRUE(Contains(TG_PluginKernelOverride(p, 0),
                       "kernel TestV1Negate on CPU [T in {float}] priority 5 overrides"))
      << TG_PluginKernelOverride(p, 0);
  EXPECT_EQ(TG_PluginKernelOverride(p, 1), nullptr);
}

}  // namespace
