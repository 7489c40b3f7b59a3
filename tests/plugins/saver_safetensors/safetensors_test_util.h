// Shared by the safetensors saver tests: the plugin loaded through the core's loader, the
// saver found in the SaverRegistry, tensors with known bytes; scratch directories and whole-file
// reads and writes come from the saver_io tests' scratch_files.h.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "core/base/tensor.h"
#include "core/plugin/plugin_loader.h"
#include "core/plugin/registry.h"
#include "../saver_io/scratch_files.h"

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

// An 8-byte little-endian length followed by `header` and `data`: a file as a hostile or
// foreign writer could make it.
inline std::string SafetensorsBytes(const std::string& header, const std::string& data = "",
                                    uint64_t length = UINT64_MAX) {
  if (length == UINT64_MAX) length = header.size();
  std::string out;
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((length >> (8 * i)) & 0xff));
  return out + header + data;
}

using saver_testing::ReadFile;
using saver_testing::ScratchDir;
using saver_testing::WriteFile;

}  // namespace tgraph::testing
