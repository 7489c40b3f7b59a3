// Helpers of the tool I/O tests: owning handles, tensors from values, files in a temporary
// directory.
#ifndef TGRAPH_TESTS_TOOLS_IO_TENSOR_TEST_UTIL_H_
#define TGRAPH_TESTS_TOOLS_IO_TENSOR_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "owned_handles.h"
#include "tgraph/c_api.h"

namespace tgraph::tool::testing {

// The library's own owning handles (owned_handles.h).
using tgraph::tool::StatusPtr;
using tgraph::tool::TensorPtr;

inline StatusPtr NewStatus() { return StatusPtr(TG_NewStatus()); }

// A tensor of `dtype` holding `values` (row-major) in its buffer.
template <typename T>
TensorPtr MakeTensor(TG_DataType dtype, const std::vector<int64_t>& dims,
                     const std::vector<T>& values) {
  const size_t bytes = values.size() * sizeof(T);
  TensorPtr t(TG_AllocateTensor(dtype, dims.data(), static_cast<int>(dims.size()), bytes));
  if (t != nullptr && bytes > 0) std::memcpy(TG_TensorData(t.get()), values.data(), bytes);
  return t;
}

inline TensorPtr MakeStringTensor(const std::vector<int64_t>& dims,
                                  const std::vector<std::string>& values) {
  std::vector<const char*> pointers;
  std::vector<size_t> lengths;
  for (const std::string& s : values) {
    pointers.push_back(s.data());
    lengths.push_back(s.size());
  }
  StatusPtr status = NewStatus();
  TensorPtr t(TG_NewStringTensor(dims.data(), static_cast<int>(dims.size()), pointers.data(),
                                 lengths.data(), status.get()));
  EXPECT_EQ(TG_GetCode(status.get()), TG_OK) << TG_Message(status.get());
  return t;
}

inline std::vector<int64_t> Shape(const TG_Tensor* t) {
  std::vector<int64_t> dims;
  for (int i = 0; i < TG_NumDims(t); ++i) dims.push_back(TG_Dim(t, i));
  return dims;
}

inline std::string Bytes(const TG_Tensor* t) {
  const char* data = static_cast<const char*>(TG_TensorData(t));
  return data == nullptr ? std::string() : std::string(data, TG_TensorByteSize(t));
}

inline std::vector<std::string> Strings(const TG_Tensor* t) {
  std::vector<std::string> out;
  StatusPtr status = NewStatus();
  for (int64_t i = 0; i < TG_TensorElementCount(t); ++i) {
    const char* data = nullptr;
    size_t len = 0;
    TG_TensorGetString(t, i, &data, &len, status.get());
    EXPECT_EQ(TG_GetCode(status.get()), TG_OK) << TG_Message(status.get());
    out.emplace_back(data, len);
  }
  return out;
}

// A fresh directory per test, removed with its files afterwards.
class TempDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = std::filesystem::path(::testing::TempDir()) /
           (std::string("tool_io_") + info->test_suite_name() + "_" + info->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string PathOf(const std::string& name) const { return (dir_ / name).string(); }

  std::string WriteFile(const std::string& name, const std::string& bytes) const {
    const std::string path = PathOf(name);
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
  }

  static std::string ReadFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }

 private:
  std::filesystem::path dir_;
};

}  // namespace tgraph::tool::testing

#endif  // TGRAPH_TESTS_TOOLS_IO_TENSOR_TEST_UTIL_H_
