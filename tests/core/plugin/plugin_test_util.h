// Paths of the test plugins (tests/plugin) and helpers shared by the plugin tests.
#pragma once

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
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

// A fresh directory under the build's temp area, removed at the end of the test.
class TempDir {
 public:
  TempDir() {
    path_ = std::filesystem::temp_directory_path() /
            ("tgraph_plugin_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter_++));
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::string path() const { return path_.string(); }
  std::string Copy(const std::string& from, const std::string& name) const {
    auto to = path_ / name;
    std::filesystem::copy_file(from, to, std::filesystem::copy_options::overwrite_existing);
    return to.string();
  }

 private:
  static inline int counter_ = 0;
  std::filesystem::path path_;
};

// Sets an environment variable for the scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) {
      old_ = old;
      had_ = true;
    }
    ::setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (had_) {
      ::setenv(name_, old_.c_str(), 1);
    } else {
      ::unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::string old_;
  bool had_ = false;
};

inline std::string VariantPluginPath() {
  return std::string(TGRAPH_TEST_PLUGIN_DIR) + "/variant/libtg_test_variant.so";
}

}  // namespace tgraph::testing
