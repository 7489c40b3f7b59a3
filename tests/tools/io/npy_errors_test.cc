// ReadNpy on bad input: every malformed, truncated or unsupported file is a status naming the
// file, never a crash or an allocation sized by the header's claims.
#include <gtest/gtest.h>

#include <string>

#include "tensor_io.h"
#include "tensor_test_util.h"

namespace tgraph::tool {
namespace {

using namespace std::string_literals;
using testing::NewStatus;
using testing::TensorPtr;

// numpy's file for np.arange(6, dtype=np.float32).reshape(2, 3).
const std::string kValidFile =
    "\x93NUMPY\x01\x00v\x00{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }"
    "                                                          \x0a\x00\x00\x00\x00\x00"
    "\x00\x80\x3f\x00\x00\x00@\x00\x00@@\x00\x00\x80@\x00\x00\xa0@"s;

// A version 1.0 file with header `dict` followed by `data`.
std::string FileWithHeader(const std::string& dict, const std::string& data = "") {
  const std::string text = dict + "\n";
  return "\x93NUMPY\x01\x00"s + static_cast<char>(text.size() & 0xff) +
         static_cast<char>(text.size() >> 8) + text + data;
}

std::string Dict(const std::string& descr, const std::string& shape,
                 const std::string& order = "False") {
  return "{'descr': '" + descr + "', 'fortran_order': " + order + ", 'shape': " + shape + ", }";
}

class NpyErrorTest : public testing::TempDirTest {
 protected:
  // Reading `path` fails with `code`, naming the file and mentioning `detail`.
  void ExpectFailure(const std::string& path, TG_Code code, const std::string& detail) {
    auto status = NewStatus();
    TensorPtr t(ReadNpy(path, status.get()));
    EXPECT_EQ(t, nullptr);
    EXPECT_EQ(TG_GetCode(status.get()), code) << TG_Message(status.get());
    const std::string message = TG_Message(status.get());
    EXPECT_NE(message.find(path), std::string::npos) << message;
    EXPECT_NE(message.find(detail), std::string::npos) << message;
  }

  void ExpectBytesFail(const std::string& bytes, TG_Code code, const std::string& detail) {
    SCOPED_TRACE(detail);
    ExpectFailure(WriteFile("bad.npy", bytes), code, detail);
  }
};

TEST_F(NpyErrorTest, ValidFileReads) {
  // The base of the mutations below is itself valid.
  auto status = NewStatus();
  TensorPtr t(ReadNpy(WriteFile("good.npy", kValidFile), status.get()));
  ASSERT_NE(t, nullptr) << TG_Message(status.get());
  EXPECT_EQ(TG_TensorElementCount(t.get()), 6);
}

TEST_F(NpyErrorTest, MissingFileIsNotFound) {
  ExpectFailure(PathOf("absent.npy"), TG_NOT_FOUND, "no such file");
}

TEST_F(NpyErrorTest, DirectoryIsInvalid) {
  ExpectFailure(PathOf(""), TG_INVALID_ARGUMENT, "directory");
}

TEST_F(NpyErrorTest, EveryTruncationIsDataLoss) {
  for (size_t size = 0; size < kValidFile.size(); ++size) {
    SCOPED_TRACE("first " + std::to_string(size) + " bytes");
    ExpectBytesFail(kValidFile.substr(0, size), TG_DATA_LOSS, "");
  }
}

TEST_F(NpyErrorTest, BadMagicIsInvalid) {
  std::string bytes = kValidFile;
  bytes[5] = 'X';
  ExpectBytesFail(bytes, TG_INVALID_ARGUMENT, "not a .npy file");
  ExpectBytesFail("a,b\n1,2\n", TG_INVALID_ARGUMENT, "not a .npy file");
  ExpectBytesFail("PK", TG_INVALID_ARGUMENT, "not a .npy file");  // e.g. an .npz given
}

TEST_F(NpyErrorTest, UnknownVersionIsUnimplemented) {
  std::string bytes = kValidFile;
  bytes[6] = '\x04';
  ExpectBytesFail(bytes, TG_UNIMPLEMENTED, "version 4.0");
}

TEST_F(NpyErrorTest, HeaderLengthBeyondTheFileIsDataLoss) {
  std::string bytes = kValidFile;
  bytes[8] = '\xff';
  bytes[9] = '\xff';
  ExpectBytesFail(bytes, TG_DATA_LOSS, "header length 65535");
  // Version 2.0's four length bytes, all set.
  ExpectBytesFail("\x93NUMPY\x02\x00\xff\xff\xff\xff{}"s, TG_DATA_LOSS, "header length");
}

TEST_F(NpyErrorTest, MalformedHeadersAreInvalid) {
  const std::string data(24, '\0');
  for (const std::string& dict : {
           "not a dict"s,
           "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), "s,
           "{'descr': '<f4', 'fortran_order': False}"s,
           "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), 'extra': 1}"s,
           "{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (2, 3)}"s,
           "{'descr': '<f4', 'fortran_order': Maybe, 'shape': (2, 3)}"s,
           "{'descr': <f4, 'fortran_order': False, 'shape': (2, 3)}"s,
           "{'descr': '<f4, 'fortran_order': False, 'shape': (2, 3)}"s,
           Dict("<f4", "(2, 3"),
           Dict("<f4", "(2, x)"),
           Dict("<f4", "(6)"),
           Dict("<f4", "[2, 3]"),
           Dict("<f4", "(2, 3)") + " trailing",
           Dict("f4", "(2, 3)"),
           Dict("<", "(2, 3)"),
           Dict("<f", "(2, 3)"),
       }) {
    SCOPED_TRACE(dict);
    ExpectBytesFail(FileWithHeader(dict, data), TG_INVALID_ARGUMENT, "");
  }
}

TEST_F(NpyErrorTest, BadShapesAreInvalid) {
  ExpectBytesFail(FileWithHeader(Dict("<f4", "(-1,)")), TG_INVALID_ARGUMENT, "negative");
  ExpectBytesFail(FileWithHeader(Dict("<f4", "(99999999999999999999,)")), TG_INVALID_ARGUMENT,
                  "overflows int64");
  // Dims that fit int64 but whose product does not.
  ExpectBytesFail(FileWithHeader(Dict("<f4", "(4611686018427387904, 4)")), TG_INVALID_ARGUMENT,
                  "too many elements");
  // An element count that fits but whose byte size does not.
  ExpectBytesFail(FileWithHeader(Dict("<f8", "(4611686018427387904,)")), TG_INVALID_ARGUMENT,
                  "overflows");
  std::string deep = "(";
  for (int i = 0; i < 65; ++i) deep += "1, ";
  ExpectBytesFail(FileWithHeader(Dict("<f4", deep + ")"), "xxxx"), TG_INVALID_ARGUMENT,
                  "more than 64 dimensions");
}

TEST_F(NpyErrorTest, DataSizeMustMatchTheShape) {
  // A huge claimed shape with little data: rejected before allocating anything.
  ExpectBytesFail(FileWithHeader(Dict("<f4", "(2305843009213693951,)"), "abcd"), TG_DATA_LOSS,
                  "truncated");
  ExpectBytesFail(FileWithHeader(Dict("<f4", "(2, 3)"), std::string(23, '\0')), TG_DATA_LOSS,
                  "needs 24 bytes of data, the file has 23");
  ExpectBytesFail(FileWithHeader(Dict("<f4", "(2, 3)"), std::string(25, '\0')), TG_INVALID_ARGUMENT,
                  "trailing bytes");
  // Zero-width strings would make any element count fit in no data.
  ExpectBytesFail(FileWithHeader(Dict("|S0", "(1000000000000,)")), TG_INVALID_ARGUMENT,
                  "zero-width");
}

TEST_F(NpyErrorTest, UnsupportedTypesAreUnimplemented) {
  ExpectBytesFail(FileWithHeader(Dict("|O", "(2,)"), std::string(16, '\0')), TG_UNIMPLEMENTED,
                  "object arrays");
  ExpectBytesFail(FileWithHeader("{'descr': [('a', '<i4')], 'fortran_order': False, "
                                 "'shape': (1,), }",
                                 std::string(4, '\0')),
                  TG_UNIMPLEMENTED, "structured");
  ExpectBytesFail(FileWithHeader(Dict("<f16", "(1,)"), std::string(16, '\0')), TG_UNIMPLEMENTED,
                  "no tgraph type");
  ExpectBytesFail(FileWithHeader(Dict("<M8[ns]", "(1,)"), std::string(8, '\0')), TG_UNIMPLEMENTED,
                  "<M8[ns]");
}

TEST_F(NpyErrorTest, InvalidCodePointIsInvalid) {
  ExpectBytesFail(FileWithHeader(Dict("<U1", "(1,)"), "\x00\xd8\x00\x00"s), TG_INVALID_ARGUMENT,
                  "code point");
}

}  // namespace
}  // namespace tgraph::tool
