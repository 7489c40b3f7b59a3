// Checkpoint files through the C API: the tensorflow_v2 saver plugin, found on the plugin
// search path (the build tree's plugins/), writes and reads every dtype, lists without
// reading, and fails on damaged files with the stated codes and messages.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "c_api_test_util.h"

namespace {

using tgtest::IsOk;

struct Named {
  std::string name;
  TG_Tensor* tensor;
};

class CheckpointFiles : public ::testing::Test {
 protected:
  CheckpointFiles() : s_(TG_NewStatus()) {
    dir_ = std::filesystem::path(::testing::TempDir()) /
           (std::string("ckpt_") +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    prefix_ = (dir_ / "model.ckpt").string();
  }
  ~CheckpointFiles() override {
    for (Named& t : tensors_) TG_DeleteTensor(t.tensor);
    TG_DeleteStatus(s_);
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }

  // A tensor whose bytes are i * 37 + seed, kept until the end of the test.
  TG_Tensor* Filled(const std::string& name, TG_DataType dtype, std::vector<int64_t> dims,
                    size_t element_size, int seed) {
    size_t n = 1;
    for (int64_t d : dims) n *= static_cast<size_t>(d);
    TG_Tensor* t = TG_AllocateTensor(dtype, dims.data(), static_cast<int>(dims.size()),
                                     n * element_size);
    auto* p = static_cast<unsigned char*>(TG_TensorData(t));
    for (size_t i = 0; i < n * element_size; ++i) p[i] = static_cast<unsigned char>(i * 37 + seed);
    if (dtype == TG_BOOL) {
      for (size_t i = 0; i < n; ++i) p[i] &= 1;
    }
    tensors_.push_back({name, t});
    return t;
  }
  TG_Tensor* Strings(const std::string& name, std::vector<int64_t> dims,
                     const std::vector<std::string>& values) {
    std::vector<const char*> ptrs;
    std::vector<size_t> lens;
    for (const std::string& v : values) {
      ptrs.push_back(v.data());
      lens.push_back(v.size());
    }
    TG_Tensor* t = TG_NewStringTensor(dims.data(), static_cast<int>(dims.size()), ptrs.data(),
                                      lens.data(), s_);
    EXPECT_TRUE(IsOk(s_));
    tensors_.push_back({name, t});
    return t;
  }
  void WriteAll() {
    std::vector<const char*> names;
    std::vector<TG_Tensor*> tensors;
    for (const Named& t : tensors_) {
      names.push_back(t.name.c_str());
      tensors.push_back(t.tensor);
    }
    TG_CheckpointWrite(prefix_.c_str(), names.data(), tensors.data(),
                       static_cast<int>(names.size()), s_);
  }
  std::string DataFile() const { return prefix_ + ".data-00000-of-00001"; }
  std::string IndexFile() const { return prefix_ + ".index"; }
  void ExpectError(TG_Code code, std::vector<std::string> mentions) {
    EXPECT_EQ(TG_GetCode(s_), code) << TG_Message(s_);
    const std::string message = TG_Message(s_);
    for (const std::string& m : mentions) {
      EXPECT_NE(message.find(m), std::string::npos) << "'" << m << "' not in: " << message;
    }
  }

  TG_Status* s_;
  std::filesystem::path dir_;
  std::string prefix_;
  std::vector<Named> tensors_;
};

std::string Bytes(const TG_Tensor* t) {
  return std::string(static_cast<const char*>(TG_TensorData(t)), TG_TensorByteSize(t));
}

std::vector<std::string> StringsOf(const TG_Tensor* t) {
  std::vector<std::string> out;
  TG_Status* status = TG_NewStatus();
  for (int64_t i = 0; i < TG_TensorElementCount(t); ++i) {
    const char* data = nullptr;
    size_t len = 0;
    TG_TensorGetString(t, i, &data, &len, status);
    EXPECT_TRUE(IsOk(status));
    out.emplace_back(data, len);
  }
  TG_DeleteStatus(status);
  return out;
}

TEST_F(CheckpointFiles, WritesAndReadsEveryDtype) {
  const std::vector<std::pair<TG_DataType, size_t>> dtypes = {
      {TG_FLOAT, 4},  {TG_DOUBLE, 8},     {TG_INT32, 4},    {TG_UINT8, 1},  {TG_INT16, 2},
      {TG_INT8, 1},   {TG_COMPLEX64, 8},  {TG_INT64, 8},    {TG_BOOL, 1},   {TG_QINT8, 1},
      {TG_QUINT8, 1}, {TG_QINT32, 4},     {TG_BFLOAT16, 2}, {TG_QINT16, 2}, {TG_QUINT16, 2},
      {TG_UINT16, 2}, {TG_COMPLEX128, 16}, {TG_HALF, 2},    {TG_UINT32, 4}, {TG_UINT64, 8}};
  for (const auto& [dtype, size] : dtypes) {
    Filled(std::string("v/").append(TG_DataTypeName(dtype)), dtype, {3, 2}, size, dtype);
  }
  Filled("scalar", TG_FLOAT, {}, 4, 1);
  Filled("empty", TG_INT32, {4, 0}, 4, 1);
  Filled("large", TG_FLOAT, {1024, 1024, 3}, 4, 5);  // 12 MiB
  Strings("strings", {2, 2}, {"", "ab", std::string(1000, 'q'), std::string("\0\xff", 2)});
  Strings("string_scalar", {}, {"hello"});
  WriteAll();
  ASSERT_TRUE(IsOk(s_));
  EXPECT_TRUE(TG_CheckpointExists(prefix_.c_str()));

  TG_CheckpointReader* reader = TG_NewCheckpointReader(prefix_.c_str(), s_);
  ASSERT_TRUE(IsOk(s_));
  EXPECT_STREQ(TG_CheckpointReaderFormat(reader), "tensorflow_v2");
  ASSERT_EQ(TG_CheckpointReaderNumTensors(reader), static_cast<int>(tensors_.size()));
  for (int i = 1; i < TG_CheckpointReaderNumTensors(reader); ++i) {  // in name order
    EXPECT_LT(std::string(TG_CheckpointReaderTensorName(reader, i - 1)),
              std::string(TG_CheckpointReaderTensorName(reader, i)));
  }
  for (const Named& expected : tensors_) {
    SCOPED_TRACE(expected.name);
    const int index = TG_CheckpointReaderFind(reader, expected.name.c_str());
    ASSERT_GE(index, 0);
    EXPECT_EQ(TG_CheckpointReaderTensorType(reader, index), TG_TensorType(expected.tensor));
    const int rank = TG_CheckpointReaderTensorNumDims(reader, index);
    ASSERT_EQ(rank, TG_NumDims(expected.tensor));
    std::vector<int64_t> dims(static_cast<size_t>(rank));
    TG_CheckpointReaderTensorDims(reader, index, dims.data(), rank, s_);
    ASSERT_TRUE(IsOk(s_));
    for (int d = 0; d < rank; ++d) {
      EXPECT_EQ(dims[static_cast<size_t>(d)], TG_Dim(expected.tensor, d));
    }

    TG_Tensor* read = TG_CheckpointReaderRead(reader, expected.name.c_str(), s_);
    ASSERT_TRUE(IsOk(s_));
    ASSERT_EQ(TG_TensorType(read), TG_TensorType(expected.tensor));
    ASSERT_EQ(TG_NumDims(read), rank);
    if (TG_TensorType(read) == TG_STRING) {
      EXPECT_EQ(StringsOf(read), StringsOf(expected.tensor));
    } else {
      EXPECT_TRUE(Bytes(read) == Bytes(expected.tensor));
    }
    TG_DeleteTensor(read);
  }
  EXPECT_EQ(TG_CheckpointReaderFind(reader, "nope"), -1);
  EXPECT_EQ(TG_CheckpointReaderTensorName(reader, -1), nullptr);
  EXPECT_EQ(TG_CheckpointReaderTensorType(reader, 1000), TG_INVALID_DTYPE);
  TG_DeleteCheckpointReader(reader);
}

TEST_F(CheckpointFiles, DamagedCheckpointsFailWithCodeAndMessage) {
  Filled("a", TG_FLOAT, {4}, 4, 1);
  Filled("b", TG_INT64, {2}, 8, 2);
  WriteAll();
  ASSERT_TRUE(IsOk(s_));

  TG_CheckpointReader* reader = TG_NewCheckpointReader(prefix_.c_str(), s_);
  ASSERT_TRUE(IsOk(s_));
  EXPECT_EQ(TG_CheckpointReaderRead(reader, "missing", s_), nullptr);
  ExpectError(TG_NOT_FOUND, {"'missing'"});

  // A flipped byte in "b" (bytes 16..31 of the data file).
  std::string data;
  {
    std::ifstream in(DataFile(), std::ios::binary);
    data.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  std::string flipped = data;
  flipped[20] = static_cast<char>(flipped[20] ^ 0x10);
  std::ofstream(DataFile(), std::ios::binary | std::ios::trunc) << flipped;
  TG_Tensor* a = TG_CheckpointReaderRead(reader, "a", s_);
  EXPECT_TRUE(IsOk(s_));
  TG_DeleteTensor(a);
  EXPECT_EQ(TG_CheckpointReaderRead(reader, "b", s_), nullptr);
  ExpectError(TG_DATA_LOSS, {"model.ckpt.data-00000-of-00001", "'b'"});

  std::filesystem::remove(DataFile());
  EXPECT_EQ(TG_CheckpointReaderRead(reader, "a", s_), nullptr);
  ExpectError(TG_NOT_FOUND, {"model.ckpt.data-00000-of-00001"});
  TG_DeleteCheckpointReader(reader);

  std::filesystem::resize_file(IndexFile(), 30);
  EXPECT_EQ(TG_NewCheckpointReader(prefix_.c_str(), s_), nullptr);
  ExpectError(TG_DATA_LOSS, {"model.ckpt.index"});

  std::filesystem::remove(IndexFile());
  EXPECT_FALSE(TG_CheckpointExists(prefix_.c_str()));
  EXPECT_EQ(TG_NewCheckpointReader(prefix_.c_str(), s_), nullptr);
  ExpectError(TG_NOT_FOUND, {"model.ckpt.index"});
}

TEST_F(CheckpointFiles, RemoveAndMerge) {
  const std::string part0 = (dir_ / "p0" / "part").string();
  const std::string part1 = (dir_ / "p1" / "part").string();
  const std::string merged = (dir_ / "merged").string();
  TG_Tensor* x = Filled("x", TG_INT32, {2}, 4, 3);
  TG_Tensor* y = Filled("y", TG_DOUBLE, {}, 8, 4);
  const char* x_name = "x";
  const char* y_name = "y";
  TG_CheckpointWrite(part0.c_str(), &x_name, &x, 1, s_);
  ASSERT_TRUE(IsOk(s_));
  TG_CheckpointWrite(part1.c_str(), &y_name, &y, 1, s_);
  ASSERT_TRUE(IsOk(s_));
  const char* parts[] = {part0.c_str(), part1.c_str()};
  TG_CheckpointMerge(parts, 2, merged.c_str(), 1, s_);
  ASSERT_TRUE(IsOk(s_));
  EXPECT_FALSE(std::filesystem::exists(dir_ / "p0"));
  EXPECT_TRUE(std::filesystem::exists(merged + ".data-00001-of-00002"));
  TG_CheckpointReader* reader = TG_NewCheckpointReader(merged.c_str(), s_);
  ASSERT_TRUE(IsOk(s_));
  TG_Tensor* read = TG_CheckpointReaderRead(reader, "y", s_);
  ASSERT_TRUE(IsOk(s_));
  EXPECT_EQ(Bytes(read), Bytes(y));
  TG_DeleteTensor(read);
  TG_DeleteCheckpointReader(reader);

  TG_CheckpointRemove(merged.c_str(), s_);
  ASSERT_TRUE(IsOk(s_));
  EXPECT_FALSE(TG_CheckpointExists(merged.c_str()));
  EXPECT_TRUE(std::filesystem::is_empty(dir_));
}

TEST_F(CheckpointFiles, BadArguments) {
  TG_CheckpointWrite(nullptr, nullptr, nullptr, 0, s_);
  ExpectError(TG_INVALID_ARGUMENT, {"prefix"});
  TG_Tensor* x = Filled("x", TG_INT32, {2}, 4, 3);
  const char* names[] = {"x", "x"};
  TG_Tensor* both[] = {x, x};
  TG_CheckpointWrite(prefix_.c_str(), names, both, 2, s_);
  ExpectError(TG_INVALID_ARGUMENT, {"'x'"});
  EXPECT_FALSE(TG_CheckpointExists(prefix_.c_str()));
  EXPECT_EQ(TG_NewCheckpointReader(nullptr, s_), nullptr);
  ExpectError(TG_INVALID_ARGUMENT, {"prefix"});
  EXPECT_EQ(TG_CheckpointReaderRead(nullptr, "x", s_), nullptr);
  ExpectError(TG_INVALID_ARGUMENT, {"reader"});
  EXPECT_FALSE(TG_CheckpointExists(nullptr));
}

// The plugin carries its own (lite) copy of the bundle protos; libtgraph's full copy and its
// descriptor pool keep working with the plugin loaded (two registrations of one .proto file
// would have aborted the process when the plugin was loaded).
TEST_F(CheckpointFiles, PluginProtosCoexistWithTheCoresDescriptors) {
  EXPECT_FALSE(TG_CheckpointExists(prefix_.c_str()));  // loads the saver plugin
  TG_Graph* g = TG_NewGraph();
  TG_OperationDescription* d = TG_NewOperation(g, "Placeholder", "x");
  TG_SetAttrType(d, "dtype", TG_FLOAT);
  TG_FinishOperation(d, s_);
  ASSERT_TRUE(IsOk(s_));
  TG_Buffer* text = TG_NewBuffer();
  TG_GraphToGraphDefText(g, text, s_);  // text format: walks the core's descriptors
  ASSERT_TRUE(IsOk(s_));
  EXPECT_NE(std::string(static_cast<const char*>(text->data), text->length).find("Placeholder"),
            std::string::npos);
  TG_DeleteBuffer(text);
  TG_DeleteGraph(g);
}

}  // namespace
