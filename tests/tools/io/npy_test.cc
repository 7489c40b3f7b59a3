// ReadNpy / WriteNpy on valid files: round trips of every dtype, files byte-identical to
// numpy's np.save (the expected bytes were produced once by numpy 1.24 and are embedded, so
// the tests need no numpy), big-endian, Fortran-order, version 2/3 and 'U' input.
#include <gtest/gtest.h>

#include <complex>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "npy_header.h"
#include "tensor_io.h"
#include "tensor_test_util.h"

namespace tgraph::tool {
namespace {

using namespace std::string_literals;
using testing::Bytes;
using testing::MakeStringTensor;
using testing::MakeTensor;
using testing::NewStatus;
using testing::Shape;
using testing::Strings;
using testing::TensorPtr;

class NpyTest : public testing::TempDirTest {
 protected:
  // Writes `t`, checks the file is `expected` byte for byte (unless empty), reads it back.
  TensorPtr WriteAndRead(const TG_Tensor* t, const std::string& expected = "") {
    const std::string path = PathOf("t.npy");
    auto status = NewStatus();
    EXPECT_TRUE(WriteNpy(path, t, status.get())) << TG_Message(status.get());
    if (!expected.empty()) {
      EXPECT_EQ(ReadFile(path), expected);
    }
    TensorPtr back(ReadNpy(path, status.get()));
    EXPECT_EQ(TG_GetCode(status.get()), TG_OK) << TG_Message(status.get());
    return back;
  }

  // Reads a file holding `bytes`.
  TensorPtr ReadBytes(const std::string& bytes) {
    auto status = NewStatus();
    TensorPtr t(ReadNpy(WriteFile("in.npy", bytes), status.get()));
    EXPECT_EQ(TG_GetCode(status.get()), TG_OK) << TG_Message(status.get());
    return t;
  }

  void ExpectSameTensor(const TG_Tensor* a, const TG_Tensor* b) {
    ASSERT_NE(a, nullptr);
    ASSERT_NE(b, nullptr);
    EXPECT_EQ(TG_TensorType(a), TG_TensorType(b));
    EXPECT_EQ(Shape(a), Shape(b));
    if (TG_TensorType(a) == TG_STRING) {
      EXPECT_EQ(Strings(a), Strings(b));
    } else {
      EXPECT_EQ(Bytes(a), Bytes(b));
    }
  }
};

TEST_F(NpyTest, RoundTripsEveryNumericDtypeAndShape) {
  const std::vector<std::vector<int64_t>> shapes = {{}, {3}, {0}, {2, 0}, {1, 3}};
  for (const std::vector<int64_t>& shape : shapes) {
    int64_t count = 1;
    for (int64_t d : shape) count *= d;
    SCOPED_TRACE("rank " + std::to_string(shape.size()) + ", " + std::to_string(count) +
                 " elements");
    // Raw bit patterns cover every dtype: the round trip must keep the bytes.
    std::vector<uint8_t> raw;
    for (TG_DataType dtype :
         {TG_HALF, TG_FLOAT, TG_DOUBLE, TG_INT8, TG_INT16, TG_INT32, TG_INT64, TG_UINT8, TG_UINT16,
          TG_UINT32, TG_UINT64, TG_BOOL, TG_COMPLEX64, TG_COMPLEX128}) {
      SCOPED_TRACE(TG_DataTypeName(dtype));
      raw.clear();
      const size_t bytes = static_cast<size_t>(count) * TG_DataTypeSize(dtype);
      for (size_t i = 0; i < bytes; ++i) {
        raw.push_back(dtype == TG_BOOL ? i % 2 : static_cast<uint8_t>(37 * i + 11));
      }
      TensorPtr t(TG_AllocateTensor(dtype, shape.data(), static_cast<int>(shape.size()), bytes));
      ASSERT_NE(t, nullptr);
      if (bytes > 0) std::memcpy(TG_TensorData(t.get()), raw.data(), bytes);
      ExpectSameTensor(t.get(), WriteAndRead(t.get()).get());
    }
    std::vector<std::string> strings;
    for (int64_t i = 0; i < count; ++i) strings.push_back(std::string(i, 'x') + "\0y"s);
    TensorPtr s = MakeStringTensor(shape, strings);
    ExpectSameTensor(s.get(), WriteAndRead(s.get()).get());
  }
}

TEST_F(NpyTest, WritesWhatNumpyWrites) {
  TensorPtr f32 = MakeTensor<float>(TG_FLOAT, {2, 3}, {0, 1, 2, 3, 4, 5});
  ExpectSameTensor(
      f32.get(),
      WriteAndRead(
          f32.get(),
          "\x93NUMPY\x01\x00v\x00{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }"
          "                                                          \x0a\x00\x00\x00\x00\x00"
          "\x00\x80\x3f\x00\x00\x00@\x00\x00@@\x00\x00\x80@\x00\x00\xa0@"s)
          .get());
  TensorPtr i64 = MakeTensor<int64_t>(TG_INT64, {}, {-7});
  ExpectSameTensor(
      i64.get(),
      WriteAndRead(
          i64.get(),
          "\x93NUMPY\x01\x00v\x00{'descr': '<i8', 'fortran_order': False, 'shape': (), }    "
          "                                                          \x0a\xf9\xff\xff\xff\xff"
          "\xff\xff\xff"s)
          .get());
  TensorPtr b = MakeTensor<uint8_t>(TG_BOOL, {3}, {1, 0, 1});
  ExpectSameTensor(
      b.get(),
      WriteAndRead(
          b.get(),
          "\x93NUMPY\x01\x00v\x00{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }  "
          "                                                          \x0a\x01\x00\x01"s)
          .get());
  TensorPtr s = MakeStringTensor({3}, {"ab", "c", ""});
  ExpectSameTensor(
      s.get(),
      WriteAndRead(
          s.get(),
          "\x93NUMPY\x01\x00v\x00{'descr': '|S2', 'fortran_order': False, 'shape': (3,), }  "
          "                                                          \x0a"
          "abc\x00\x00\x00"s)
          .get());
  TensorPtr empty = MakeTensor<int8_t>(TG_INT8, {2, 0}, {});
  ExpectSameTensor(
      empty.get(),
      WriteAndRead(
          empty.get(),
          "\x93NUMPY\x01\x00v\x00{'descr': '|i1', 'fortran_order': False, 'shape': (2, 0), }"
          "                                                          \x0a"s)
          .get());
  TensorPtr c64 = MakeTensor<std::complex<float>>(TG_COMPLEX64, {2}, {{1, 2}, {-0.0f, -0.5f}});
  ExpectSameTensor(
      c64.get(),
      WriteAndRead(
          c64.get(),
          "\x93NUMPY\x01\x00v\x00{'descr': '<c8', 'fortran_order': False, 'shape': (2,), }  "
          "                                                          \x0a\x00\x00\x80\x3f\x00"
          "\x00\x00@\x00\x00\x00\x80\x00\x00\x00\xbf"s)
          .get());
  // float16 0.5, -2, 65504 (the largest finite half).
  TensorPtr f16 = MakeTensor<uint16_t>(TG_HALF, {3}, {0x3800, 0xc000, 0x7bff});
  ExpectSameTensor(
      f16.get(),
      WriteAndRead(
          f16.get(),
          "\x93NUMPY\x01\x00v\x00{'descr': '<f2', 'fortran_order': False, 'shape': (3,), }  "
          "                                                          \x0a\x00"
          "8\x00\xc0\xff{"s)
          .get());
  TensorPtr u16 = MakeTensor<uint16_t>(TG_UINT16, {0}, {});
  ExpectSameTensor(
      u16.get(),
      WriteAndRead(
          u16.get(),
          "\x93NUMPY\x01\x00v\x00{'descr': '<u2', 'fortran_order': False, 'shape': (0,), }  "
          "                                                          \x0a"s)
          .get());
}

TEST_F(NpyTest, ReadsBigEndianAsNative) {
  TensorPtr f32 = ReadBytes(
      "\x93NUMPY\x01\x00v\x00{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }  "
      "                                                          \x0a\x3f\xc0\x00\x00\xc0"
      "\x00\x00\x00"s);
  ExpectSameTensor(f32.get(), MakeTensor<float>(TG_FLOAT, {2}, {1.5f, -2.0f}).get());
  TensorPtr i16 = ReadBytes(
      "\x93NUMPY\x01\x00v\x00{'descr': '>i2', 'fortran_order': False, 'shape': (2, 2), }"
      "                                                          \x0a\x00\x01\xff\xfe\x00"
      "\x03\x00\x04"s);
  ExpectSameTensor(i16.get(), MakeTensor<int16_t>(TG_INT16, {2, 2}, {1, -2, 3, 4}).get());
  // Each half of a complex number is swapped on its own.
  TensorPtr c128 = ReadBytes(
      "\x93NUMPY\x01\x00v\x00{'descr': '>c16', 'fortran_order': False, 'shape': (1,), } "
      "                                                          \x0a\x3f\xf0\x00\x00\x00"
      "\x00\x00\x00@\x00\x00\x00\x00\x00\x00\x00"s);
  ExpectSameTensor(c128.get(),
                   MakeTensor<std::complex<double>>(TG_COMPLEX128, {1}, {{1, 2}}).get());
}

TEST_F(NpyTest, ReadsUnicodeStringsAsUtf8) {
  TensorPtr little = ReadBytes(
      "\x93NUMPY\x01\x00v\x00{'descr': '<U3', 'fortran_order': False, 'shape': (2,), }  "
      "                                                          \x0a"
      "a\x00\x00\x00"
      "b\x00\x00\x00\x00\x00\x00\x00\xe9\x00\x00\x00-N\x00\x00!\x00\x00\x00"s);
  ASSERT_NE(little, nullptr);
  EXPECT_EQ(Strings(little.get()), (std::vector<std::string>{"ab", "\xc3\xa9\xe4\xb8\xad!"}));
  TensorPtr big = ReadBytes(
      "\x93NUMPY\x01\x00v\x00{'descr': '>U2', 'fortran_order': False, 'shape': (2,), }  "
      "                                                          \x0a\x00\x00\x00x\x00\x00"
      "\x00y\x00\x00\x00z\x00\x00\x00\x00"s);
  ASSERT_NE(big, nullptr);
  EXPECT_EQ(Strings(big.get()), (std::vector<std::string>{"xy", "z"}));
}

TEST_F(NpyTest, TransposesFortranOrder) {
  TensorPtr ints = ReadBytes(
      "\x93NUMPY\x01\x00v\x00{'descr': '<i4', 'fortran_order': True, 'shape': (2, 3), } "
      "                                                          \x0a\x00\x00\x00\x00\x03"
      "\x00\x00\x00\x01\x00\x00\x00\x04\x00\x00\x00\x02\x00\x00\x00\x05\x00\x00\x00"s);
  ExpectSameTensor(ints.get(), MakeTensor<int32_t>(TG_INT32, {2, 3}, {0, 1, 2, 3, 4, 5}).get());
  TensorPtr strings = ReadBytes(
      "\x93NUMPY\x01\x00v\x00{'descr': '|S1', 'fortran_order': True, 'shape': (2, 3), } "
      "                                                          \x0a"
      "adbecf"s);
  ExpectSameTensor(strings.get(), MakeStringTensor({2, 3}, {"a", "b", "c", "d", "e", "f"}).get());
}

TEST_F(NpyTest, ReadsFormatVersions2And3AndOldAlignment) {
  TensorPtr v2 = ReadBytes(
      "\x93NUMPY\x02\x00t\x00\x00\x00{'descr': '<u4', 'fortran_order': False, 'shape': ("
      "2,), }                                                          \x0a\x01\x00\x00\x00"
      "\x02\x00\x00\x00"s);
  ExpectSameTensor(v2.get(), MakeTensor<uint32_t>(TG_UINT32, {2}, {1, 2}).get());
  TensorPtr v3 = ReadBytes(
      "\x93NUMPY\x03\x00t\x00\x00\x00{'descr': '<f8', 'fortran_order': False, 'shape': ("
      "1,), }                                                          \x0a\x00\x00\x00\x00"
      "\x00\x00\x0a@"s);
  ExpectSameTensor(v3.get(), MakeTensor<double>(TG_DOUBLE, {1}, {3.25}).get());
  // Old numpy padded to 16 bytes, and keys may come in any order with other spacing.
  const std::string dict = "{'shape':(2,),'fortran_order':False,'descr':'<i2'}\n";
  TensorPtr old = ReadBytes("\x93NUMPY\x01\x00"s + static_cast<char>(dict.size()) + '\0' + dict +
                            "\x05\x00\x06\x00"s);
  ExpectSameTensor(old.get(), MakeTensor<int16_t>(TG_INT16, {2}, {5, 6}).get());
}

TEST_F(NpyTest, NormalizesNonzeroBoolBytes) {
  TensorPtr b = ReadBytes(
      "\x93NUMPY\x01\x00v\x00{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }  "
      "                                                          \x0a\x01\x00\x07"s);
  ExpectSameTensor(b.get(), MakeTensor<uint8_t>(TG_BOOL, {3}, {1, 0, 1}).get());
}

TEST_F(NpyTest, WritesDeepShapes) {
  std::vector<int64_t> dims(64, 1);
  TensorPtr t = MakeTensor<float>(TG_FLOAT, dims, {2.5f});
  const std::string path = PathOf("deep.npy");
  auto status = NewStatus();
  ASSERT_TRUE(WriteNpy(path, t.get(), status.get())) << TG_Message(status.get());
  const std::string file = ReadFile(path);
  EXPECT_EQ(file.substr(0, 8), "\x93NUMPY\x01\x00"s);
  EXPECT_EQ((file.size() - sizeof(float)) % 64, 0u);  // the data starts at a multiple of 64
  ExpectSameTensor(t.get(), TensorPtr(ReadNpy(path, status.get())).get());
}

TEST(NpyHeaderTest, SwitchesToVersion2WhenTheHeaderOutgrowsVersion1) {
  // numpy's rule: 1.0 stores the header length in 2 bytes; a longer header needs 2.0.
  const NpyHeader header{"<f4", false, std::vector<int64_t>(30000, 1)};
  const std::string preamble = EncodeNpyPreamble(header);
  ASSERT_GT(preamble.size(), 65535u);
  EXPECT_EQ(preamble.substr(0, 8), "\x93NUMPY\x02\x00"s);
  uint32_t length = 0;
  for (int i = 3; i >= 0; --i) length = (length << 8) | static_cast<uint8_t>(preamble[8 + i]);
  EXPECT_EQ(length + 12, preamble.size());
  EXPECT_EQ(preamble.size() % 64, 0u);
  EXPECT_EQ(preamble.back(), '\n');
}

TEST_F(NpyTest, RejectsTypesNumpyLacks) {
  TensorPtr bf16 = MakeTensor<uint16_t>(TG_BFLOAT16, {1}, {0x3f80});
  auto status = NewStatus();
  EXPECT_FALSE(WriteNpy(PathOf("bf16.npy"), bf16.get(), status.get()));
  EXPECT_EQ(TG_GetCode(status.get()), TG_UNIMPLEMENTED);
  EXPECT_NE(std::string(TG_Message(status.get())).find("bfloat16"), std::string::npos)
      << TG_Message(status.get());
  EXPECT_NE(std::string(TG_Message(status.get())).find("bf16.npy"), std::string::npos);
  EXPECT_FALSE(WriteNpy(PathOf("null.npy"), nullptr, status.get()));
  EXPECT_EQ(TG_GetCode(status.get()), TG_INVALID_ARGUMENT);
}

TEST_F(NpyTest, ReportsUnwritablePaths) {
  TensorPtr t = MakeTensor<float>(TG_FLOAT, {1}, {1});
  auto status = NewStatus();
  EXPECT_FALSE(WriteNpy(PathOf("no/such/dir.npy"), t.get(), status.get()));
  EXPECT_EQ(TG_GetCode(status.get()), TG_NOT_FOUND);
  EXPECT_NE(std::string(TG_Message(status.get())).find("no/such/dir.npy"), std::string::npos);
  if (std::filesystem::exists("/dev/full")) {
    // A full disk: the error is reported and the device is left alone.
    EXPECT_FALSE(WriteNpy("/dev/full", t.get(), status.get()));
    EXPECT_EQ(TG_GetCode(status.get()), TG_UNKNOWN) << TG_Message(status.get());
    EXPECT_TRUE(std::filesystem::exists("/dev/full"));
  }
}

}  // namespace
}  // namespace tgraph::tool
