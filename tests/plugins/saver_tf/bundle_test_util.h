// Helpers of the saver_tf unit tests: a scratch directory per test, whole-file reads and
// writes, and one-call save and read of raw tensors through BundleWriter / BundleReader.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "bundle_reader.h"
#include "bundle_writer.h"

namespace tgraph::saver_tf::testing {

// A fresh directory under the test temp dir, removed at the end of the test.
class ScratchDir {
 public:
  ScratchDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ = std::filesystem::path(::testing::TempDir()) /
            (std::string("saver_tf_") + info->test_suite_name() + "_" + info->name());
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  std::string operator/(const std::string& name) const { return (path_ / name).string(); }
  // The names of the files in the directory, sorted.
  std::vector<std::string> Files() const {
    std::vector<std::string> names;
    for (const auto& e : std::filesystem::directory_iterator(path_)) {
      names.push_back(e.path().filename().string());
    }
    std::sort(names.begin(), names.end());
    return names;
  }

 private:
  std::filesystem::path path_;
};

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

inline void WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

struct RawTensor {
  std::string name;
  TG_DataType dtype;
  std::vector<int64_t> dims;
  std::string bytes;
};

inline BundleStatus SaveRaw(const std::string& prefix, const std::vector<RawTensor>& tensors) {
  BundleWriter writer(prefix);
  SAVER_TF_RETURN_IF_ERROR(writer.Begin());
  for (const RawTensor& t : tensors) {
    SAVER_TF_RETURN_IF_ERROR(writer.AddRaw(t.name, t.dtype, t.dims, t.bytes.data(),
                                           t.bytes.size()));
  }
  return writer.Finish();
}

// Reads tensor `name` as raw bytes of the size its index entry states.
inline BundleStatus ReadRawTensor(const std::string& prefix, const std::string& name,
                                  std::string* bytes) {
  std::unique_ptr<BundleReader> reader;
  SAVER_TF_RETURN_IF_ERROR(BundleReader::Open(prefix, &reader));
  const tf::BundleEntryProto* entry = nullptr;
  SAVER_TF_RETURN_IF_ERROR(reader->Lookup(name, &entry));
  bytes->assign(static_cast<size_t>(entry->size()), '\0');
  return reader->ReadRaw(name, *entry, bytes->data(), bytes->size());
}

template <typename T>
std::string BytesOf(const std::vector<T>& values) {
  return std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(T));
}

}  // namespace tgraph::saver_tf::testing
