// ParseTensorLiteral: values, shapes from nesting, strings, and the errors a mistyped
// command-line value must produce.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "tensor_io.h"
#include "tensor_test_util.h"

namespace tgraph::tool {
namespace {

using testing::NewStatus;
using testing::Shape;
using testing::Strings;
using testing::TensorPtr;

TensorPtr Parse(const std::string& text, TG_DataType dtype) {
  auto status = NewStatus();
  TensorPtr t(ParseTensorLiteral(text, dtype, status.get()));
  EXPECT_EQ(TG_GetCode(status.get()), TG_OK) << text << ": " << TG_Message(status.get());
  EXPECT_NE(t, nullptr) << text;
  if (t != nullptr) {
    EXPECT_EQ(TG_TensorType(t.get()), dtype);
  }
  return t;
}

template <typename T>
std::vector<T> Values(const TG_Tensor* t) {
  std::vector<T> out(static_cast<size_t>(TG_TensorElementCount(t)));
  if (!out.empty()) std::memcpy(out.data(), TG_TensorData(t), out.size() * sizeof(T));
  return out;
}

// Parsing fails with `code` and a message that mentions `detail` and quotes the literal.
void ExpectError(const std::string& text, TG_DataType dtype, TG_Code code,
                 const std::string& detail) {
  SCOPED_TRACE(text);
  auto status = NewStatus();
  TensorPtr t(ParseTensorLiteral(text, dtype, status.get()));
  EXPECT_EQ(t, nullptr);
  EXPECT_EQ(TG_GetCode(status.get()), code) << TG_Message(status.get());
  const std::string message = TG_Message(status.get());
  EXPECT_NE(message.find(detail), std::string::npos) << message;
  EXPECT_NE(message.find("literal '" + text.substr(0, 20)), std::string::npos) << message;
}

TEST(TensorLiteralTest, ScalarsHaveRankZero) {
  TensorPtr i = Parse("3", TG_INT32);
  EXPECT_EQ(Shape(i.get()), std::vector<int64_t>{});
  EXPECT_EQ(Values<int32_t>(i.get()), std::vector<int32_t>{3});
  TensorPtr f = Parse(" -1.5 ", TG_FLOAT);
  EXPECT_EQ(Values<float>(f.get()), std::vector<float>{-1.5f});
  EXPECT_EQ(Values<double>(Parse("+2e-3", TG_DOUBLE).get()), std::vector<double>{2e-3});
}

TEST(TensorLiteralTest, NestingGivesTheShape) {
  TensorPtr v = Parse("[1, 2, 3]", TG_INT64);
  EXPECT_EQ(Shape(v.get()), std::vector<int64_t>{3});
  EXPECT_EQ(Values<int64_t>(v.get()), (std::vector<int64_t>{1, 2, 3}));
  TensorPtr m = Parse("[[1,2],\n [3,4]]", TG_UINT16);
  EXPECT_EQ(Shape(m.get()), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(Values<uint16_t>(m.get()), (std::vector<uint16_t>{1, 2, 3, 4}));
  EXPECT_EQ(Shape(Parse("[[[1], [2]]]", TG_INT8).get()), (std::vector<int64_t>{1, 2, 1}));
  EXPECT_EQ(Shape(Parse("[]", TG_FLOAT).get()), std::vector<int64_t>{0});
  EXPECT_EQ(Shape(Parse("[[], []]", TG_FLOAT).get()), (std::vector<int64_t>{2, 0}));
}

TEST(TensorLiteralTest, IntegerRanges) {
  EXPECT_EQ(Values<uint8_t>(Parse("[0, 255]", TG_UINT8).get()), (std::vector<uint8_t>{0, 255}));
  EXPECT_EQ(Values<int8_t>(Parse("[-128, 127]", TG_INT8).get()), (std::vector<int8_t>{-128, 127}));
  EXPECT_EQ(Values<uint64_t>(Parse("18446744073709551615", TG_UINT64).get()),
            std::vector<uint64_t>{std::numeric_limits<uint64_t>::max()});
  EXPECT_EQ(Values<int64_t>(Parse("-9223372036854775808", TG_INT64).get()),
            std::vector<int64_t>{std::numeric_limits<int64_t>::min()});
  ExpectError("300", TG_UINT8, TG_INVALID_ARGUMENT, "'300' at offset 0 is out of range (0..255)");
  ExpectError("[1, -1]", TG_UINT8, TG_INVALID_ARGUMENT, "'-1' at offset 4 is out of range");
  ExpectError("128", TG_INT8, TG_INVALID_ARGUMENT, "out of range (-128..127)");
  ExpectError("-129", TG_INT8, TG_INVALID_ARGUMENT, "out of range");
  ExpectError("70000", TG_INT16, TG_INVALID_ARGUMENT, "out of range");
  ExpectError("4294967296", TG_UINT32, TG_INVALID_ARGUMENT, "out of range");
  ExpectError("9223372036854775808", TG_INT64, TG_INVALID_ARGUMENT, "out of range");
  ExpectError("18446744073709551616", TG_UINT64, TG_INVALID_ARGUMENT, "out of range");
  ExpectError("1.5", TG_INT32, TG_INVALID_ARGUMENT, "not an integer");
  ExpectError("abc", TG_INT32, TG_INVALID_ARGUMENT, "not an integer");
  ExpectError("0x10", TG_INT32, TG_INVALID_ARGUMENT, "not an integer");
}

TEST(TensorLiteralTest, FloatsAndTheirRanges) {
  std::vector<float> f = Values<float>(Parse("[0.1, 1e38, -inf, nan]", TG_FLOAT).get());
  ASSERT_EQ(f.size(), 4u);
  EXPECT_EQ(f[0], 0.1f);
  EXPECT_EQ(f[1], 1e38f);
  EXPECT_TRUE(std::isinf(f[2]) && f[2] < 0);
  EXPECT_TRUE(std::isnan(f[3]));
  EXPECT_EQ(Values<float>(Parse("1e-45", TG_FLOAT).get()), std::vector<float>{1e-45f});
  // float16 1.5 and 65504 (the largest finite), bfloat16 1.0.
  EXPECT_EQ(Values<uint16_t>(Parse("[1.5, 65504]", TG_HALF).get()),
            (std::vector<uint16_t>{0x3e00, 0x7bff}));
  EXPECT_EQ(Values<uint16_t>(Parse("1", TG_BFLOAT16).get()), std::vector<uint16_t>{0x3f80});
  ExpectError("1e39", TG_FLOAT, TG_INVALID_ARGUMENT, "out of the range of float");
  ExpectError("70000", TG_HALF, TG_INVALID_ARGUMENT, "out of the range of half");
  ExpectError("1e400", TG_DOUBLE, TG_INVALID_ARGUMENT, "out of the range of double");
  ExpectError("1.5.2", TG_DOUBLE, TG_INVALID_ARGUMENT, "not a number");
  ExpectError("[1, \"2\"]", TG_FLOAT, TG_INVALID_ARGUMENT, "quoted string at offset 4");
}

TEST(TensorLiteralTest, ComplexNumbers) {
  using C = std::complex<float>;
  EXPECT_EQ(Values<C>(Parse("[1, 2j, 1+2j, -1.5e1-2J]", TG_COMPLEX64).get()),
            (std::vector<C>{{1, 0}, {0, 2}, {1, 2}, {-15, -2}}));
  EXPECT_EQ(Values<std::complex<double>>(Parse("1e-3+1e+3j", TG_COMPLEX128).get()),
            (std::vector<std::complex<double>>{{1e-3, 1e3}}));
  ExpectError("1+j", TG_COMPLEX64, TG_INVALID_ARGUMENT, "not a number");
  ExpectError("1+2i", TG_COMPLEX64, TG_INVALID_ARGUMENT, "not a number");
}

TEST(TensorLiteralTest, Bools) {
  EXPECT_EQ(Values<uint8_t>(Parse("[true, false, True, 0, 1]", TG_BOOL).get()),
            (std::vector<uint8_t>{1, 0, 1, 0, 1}));
  ExpectError("yes", TG_BOOL, TG_INVALID_ARGUMENT, "not true or false");
  ExpectError("2", TG_BOOL, TG_INVALID_ARGUMENT, "not true or false");
}

TEST(TensorLiteralTest, Strings) {
  TensorPtr bare = Parse("abc def", TG_STRING);
  EXPECT_EQ(Shape(bare.get()), std::vector<int64_t>{});
  EXPECT_EQ(Strings(bare.get()), std::vector<std::string>{"abc def"});
  EXPECT_EQ(Strings(Parse("", TG_STRING).get()), std::vector<std::string>{""});
  EXPECT_EQ(Strings(Parse(R"("quoted, with \"escapes\"\n")", TG_STRING).get()),
            std::vector<std::string>{"quoted, with \"escapes\"\n"});
  TensorPtr list = Parse(R"([["a", "b"], ["\u00e9\ud83d\ude00", "\x00\xff"]])", TG_STRING);
  EXPECT_EQ(Shape(list.get()), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(Strings(list.get()), (std::vector<std::string>{"a", "b", "\xc3\xa9\xf0\x9f\x98\x80",
                                                           std::string("\0\xff", 2)}));
  ExpectError("[a, b]", TG_STRING, TG_INVALID_ARGUMENT, "'a' at offset 1 is not a quoted string");
  ExpectError(R"("unterminated)", TG_STRING, TG_INVALID_ARGUMENT, "unterminated string");
  ExpectError(R"("\q")", TG_STRING, TG_INVALID_ARGUMENT, "unknown escape \\q");
  ExpectError(R"("\ud83d")", TG_STRING, TG_INVALID_ARGUMENT, "unpaired surrogate");
  ExpectError(R"("\u12")", TG_STRING, TG_INVALID_ARGUMENT, "escape");
}

TEST(TensorLiteralTest, RaggedNestingIsAnError) {
  ExpectError("[[1, 2], [3]]", TG_INT32, TG_INVALID_ARGUMENT, "ragged nesting (lists of 2 and 1");
  ExpectError("[1, [2]]", TG_INT32, TG_INVALID_ARGUMENT, "ragged nesting");
  ExpectError("[[1], 2]", TG_INT32, TG_INVALID_ARGUMENT, "ragged nesting");
  ExpectError("[[], 1]", TG_INT32, TG_INVALID_ARGUMENT, "ragged nesting");
  ExpectError("[[], [[]]]", TG_INT32, TG_INVALID_ARGUMENT, "ragged nesting");
  ExpectError(R"([["a"], "b"])", TG_STRING, TG_INVALID_ARGUMENT, "ragged nesting");
}

TEST(TensorLiteralTest, SyntaxErrors) {
  ExpectError("", TG_INT32, TG_INVALID_ARGUMENT, "empty literal");
  ExpectError("[1, 2", TG_INT32, TG_INVALID_ARGUMENT, "expected ',' or ']' at offset 5");
  ExpectError("[1,, 2]", TG_INT32, TG_INVALID_ARGUMENT, "expected a value at offset 3");
  ExpectError("[1, 2,]", TG_INT32, TG_INVALID_ARGUMENT, "expected a value");
  ExpectError("1 2", TG_INT32, TG_INVALID_ARGUMENT, "unexpected text after the value");
  ExpectError("[1] x", TG_INT32, TG_INVALID_ARGUMENT, "unexpected text");
  ExpectError("]", TG_INT32, TG_INVALID_ARGUMENT, "expected a value");
  // Deep nesting is refused rather than recursed into.
  ExpectError(std::string(100000, '['), TG_INT32, TG_INVALID_ARGUMENT, "nested deeper than 64");
}

TEST(TensorLiteralTest, UnsupportedDtypes) {
  ExpectError("1", TG_QINT8, TG_UNIMPLEMENTED, "literals of type qint8");
  ExpectError("1", TG_RESOURCE, TG_UNIMPLEMENTED, "not supported");
}

TEST(TensorLiteralTest, LongLiteralsAreShortenedInMessages) {
  auto status = NewStatus();
  const std::string text = "[" + std::string(500, '1') + "x]";
  TensorPtr t(ParseTensorLiteral(text, TG_INT32, status.get()));
  EXPECT_EQ(t, nullptr);
  EXPECT_LT(std::string(TG_Message(status.get())).find("...'"), std::string::npos);
}

}  // namespace
}  // namespace tgraph::tool
