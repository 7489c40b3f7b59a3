// Shared by the safetensors saver tests: the plugin loaded through the core's loader, the
// saver found in the SaverRegistry, tensors with known bytes, and raw file helpers.
#pragma once

#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "core/base/tensor.h"
#include "core/plugin/plugin_loader.h"
#include "core/plugin/registry.h"

namespace tgraph::testing {

inline const SaverRegistration* SafetensorsSaver() {
  auto loaded = LoadPlugin(TGRAPH_SAFETENSORS_PLUGIN_PATH);
  EXPECT_TRUE(loaded.ok()) << loaded.status().ToString();
  return SaverRegistry::Global()->Find("safetensors");
}

// A tensor whose bytes are a pattern of `seed` (any bit pattern is a valid value of a plain
// dtype, so this covers every dtype alike).
inline Tensor PatternTensor(DataType dtype, std::vector<int64_t> dims, int seed) {
  auto t = Tensor::Allocate(dtype, std::move(dims));
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  auto* bytes = static_cast<unsigned char*>(t.value().data());
  for (size_t i = 0; i < t.value().ByteSize(); ++i) {
    bytes[i] = static_cast<unsigned char>((i * 131 + static_cast<size_t>(seed) * 7 + 3) % 251);
  }
  if (dtype == DT_BOOL) {
    for (size_t i = 0; i < t.value().ByteSize(); ++i) bytes[i] &= 1;
  }
  return t.value();
}

inline bool SameBytes(const Tensor& a, const Tensor& b) {
  return a.dtype() == b.dtype() && a.dims() == b.dims() && a.ByteSize() == b.ByteSize() &&
         (a.ByteSize() == 0 || std::memcmp(a.data(), b.data(), a.ByteSize()) == 0);
}

inline std::string ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

inline void WriteBytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// An 8-byte little-endian length followed by `header` and `data`: a file as a hostile or
// foreign writer could make it.
inline std::string SafetensorsBytes(const std::string& header, const std::string& data = "",
                                    uint64_t length = UINT64_MAX) {
  if (length == UINT64_MAX) length = header.size();
  std::string out;
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((length >> (8 * i)) & 0xff));
  return out + header + data;
}

// A fresh directory, removed at the end of the test.
class ScratchDir {
 public:
  ScratchDir() {
    path_ = std::filesystem::temp_directory_path() /
            ("tgraph_safetensors_test_" + std::to_string(::getpid()) + "_" +
             std::to_string(counter_++));
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::string File(const std::string& name) const { return (path_ / name).string(); }
  // The names of the files in the directory (to see that no temporary file is left).
  std::vector<std::string> Names() const {
    std::vector<std::string> names;
    for (const auto& e : std::filesystem::directory_iterator(path_)) {
      names.push_back(e.path().filename().string());
    }
    std::sort(names.begin(), names.end());
    return names;
  }

 private:
  static inline int counter_ = 0;
  std::filesystem::path path_;
};

}  // namespace tgraph::testing
