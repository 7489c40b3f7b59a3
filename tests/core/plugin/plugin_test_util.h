// Paths of the test plugins (tests/plugin) and helpers shared by the plugin tests.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "core/plugin/plugin_loader.h"

namespace tgraph::testing {

inline std::string GoodPluginPath(const std::string& name) {
  return std::string(TGRAPH_TEST_PLUGIN_DIR) + "/good/lib" + name + ".so";
}
inline std::string BadPluginPath(const std::string& name) {
  return std::string(TGRAPH_TEST_PLUGIN_DIR) + "/bad/lib" + name + ".so";
}

// Loads tests/plugin/good_plugin.cc (a no-op after the first time in a process).
inline const LoadedPlugin* LoadGoodPlugin() {
  auto p = LoadPlugin(GoodPluginPath("tg_test_good"));
  EXPECT_TRUE(p.ok()) << p.status().ToString();
  return p.ok() ? p.value() : nullptr;
}

inline ::testing::AssertionResult StatusIs(const Status& s, Code code) {
  if (s.code() == code) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "expected " << CodeName(code) << ", got " << s.ToString();
}

}  // namespace tgraph::testing
