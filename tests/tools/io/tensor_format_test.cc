// FormatTensor against numpy: every expected string is numpy 1.24's repr() of the same array
// (produced once with numpy and embedded).
#include <gtest/gtest.h>

#include <complex>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "tensor_io.h"
#include "tensor_test_util.h"

namespace tgraph::tool {
namespace {

using testing::MakeStringTensor;
using testing::MakeTensor;
using testing::NewStatus;
using testing::TensorPtr;

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

std::string FormatLiteral(const std::string& text, TG_DataType dtype) {
  auto status = NewStatus();
  TensorPtr t(ParseTensorLiteral(text, dtype, status.get()));
  EXPECT_NE(t, nullptr) << TG_Message(status.get());
  return FormatTensor(t.get());
}

TEST(TensorFormatTest, Floats) {
  EXPECT_EQ(FormatTensor(MakeTensor<float>(TG_FLOAT, {2, 2}, {1, 2, 3, 4}).get()),
            "array([[1., 2.],\n"
            "       [3., 4.]], dtype=float32)");
  EXPECT_EQ(FormatTensor(MakeTensor<float>(TG_FLOAT, {}, {3}).get()), "array(3., dtype=float32)");
  // Aligned on the point; float64 prints no dtype.
  EXPECT_EQ(FormatTensor(MakeTensor<double>(TG_DOUBLE, {4}, {1.5, 2.25, -0.125, 100}).get()),
            "array([  1.5  ,   2.25 ,  -0.125, 100.   ])");
  EXPECT_EQ(FormatTensor(MakeTensor<double>(TG_DOUBLE, {2}, {1.0 / 3, 2.0 / 3}).get()),
            "array([0.33333333, 0.66666667])");
  // A small value (or a ratio over 1000) switches to scientific, with equal digits.
  EXPECT_EQ(FormatTensor(MakeTensor<double>(TG_DOUBLE, {3}, {1e-5, 1, 12345.678}).get()),
            "array([1.0000000e-05, 1.0000000e+00, 1.2345678e+04])");
  EXPECT_EQ(FormatTensor(MakeTensor<float>(TG_FLOAT, {4}, {kNaN, kInf, -kInf, 1.5f}).get()),
            "array([ nan,  inf, -inf,  1.5], dtype=float32)");
  EXPECT_EQ(FormatLiteral("[0.1, 0.2, 65504]", TG_HALF),
            "array([1.00e-01, 2.00e-01, 6.55e+04], dtype=float16)");
}

TEST(TensorFormatTest, Integers) {
  EXPECT_EQ(FormatTensor(MakeTensor<int32_t>(TG_INT32, {2, 2}, {1, -20, 300, 4}).get()),
            "array([[  1, -20],\n"
            "       [300,   4]], dtype=int32)");
  EXPECT_EQ(FormatTensor(MakeTensor<int64_t>(TG_INT64, {3}, {1, 2, 3}).get()), "array([1, 2, 3])");
  EXPECT_EQ(FormatTensor(MakeTensor<uint8_t>(TG_UINT8, {3}, {0, 255, 7}).get()),
            "array([  0, 255,   7], dtype=uint8)");
  EXPECT_EQ(FormatTensor(MakeTensor<int16_t>(TG_INT16, {2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7}).get()),
            "array([[[0, 1],\n"
            "        [2, 3]],\n"
            "\n"
            "       [[4, 5],\n"
            "        [6, 7]]], dtype=int16)");
}

TEST(TensorFormatTest, BoolsComplexAndBytes) {
  EXPECT_EQ(FormatTensor(MakeTensor<uint8_t>(TG_BOOL, {2, 2}, {1, 0, 0, 1}).get()),
            "array([[ True, False],\n"
            "       [False,  True]])");
  EXPECT_EQ(FormatTensor(MakeTensor<uint8_t>(TG_BOOL, {}, {1}).get()), "array(True)");
  EXPECT_EQ(
      FormatTensor(
          MakeTensor<std::complex<float>>(TG_COMPLEX64, {2}, {{1, 2}, {-3.5f, -0.25f}}).get()),
      "array([ 1. +2.j  , -3.5-0.25j], dtype=complex64)");
  EXPECT_EQ(
      FormatTensor(MakeTensor<std::complex<double>>(TG_COMPLEX128, {2}, {{0, 1}, {2, 0}}).get()),
      "array([0.+1.j, 2.+0.j])");
  EXPECT_EQ(FormatTensor(MakeStringTensor({3}, {"a", "it's", "\n\x01\xff"}).get()),
            R"(array([b'a', b"it's", b'\n\x01\xff'], dtype='|S4'))");
}

TEST(TensorFormatTest, EmptyArraysShowDtypeAndShape) {
  EXPECT_EQ(FormatTensor(MakeTensor<double>(TG_DOUBLE, {0}, {}).get()), "array([], dtype=float64)");
  EXPECT_EQ(FormatTensor(MakeTensor<int32_t>(TG_INT32, {2, 0}, {}).get()),
            "array([], shape=(2, 0), dtype=int32)");
}

TEST(TensorFormatTest, LongRowsWrapAtNumpysWidth) {
  std::vector<int8_t> values;
  for (int v = -40; v < 40; ++v) values.push_back(static_cast<int8_t>(v));
  EXPECT_EQ(FormatTensor(MakeTensor<int8_t>(TG_INT8, {80}, values).get()),
            "array([-40, -39, -38, -37, -36, -35, -34, -33, -32, -31, -30, -29, -28,\n"
            "       -27, -26, -25, -24, -23, -22, -21, -20, -19, -18, -17, -16, -15,\n"
            "       -14, -13, -12, -11, -10,  -9,  -8,  -7,  -6,  -5,  -4,  -3,  -2,\n"
            "        -1,   0,   1,   2,   3,   4,   5,   6,   7,   8,   9,  10,  11,\n"
            "        12,  13,  14,  15,  16,  17,  18,  19,  20,  21,  22,  23,  24,\n"
            "        25,  26,  27,  28,  29,  30,  31,  32,  33,  34,  35,  36,  37,\n"
            "        38,  39], dtype=int8)");
}

TEST(TensorFormatTest, RowsFillTheWidthExactly) {
  // Lines that end exactly at the limit, from both sides: 22 one-digit values fit, the 23rd
  // would pass it; 17 two-digit values reach it exactly. The dtype then needs a line of its own.
  std::vector<uint8_t> digits;
  for (int i = 0; i < 50; ++i) digits.push_back(static_cast<uint8_t>(i % 10));
  EXPECT_EQ(FormatTensor(MakeTensor<uint8_t>(TG_UINT8, {50}, digits).get()),
            "array([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1,\n"
            "       2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3,\n"
            "       4, 5, 6, 7, 8, 9], dtype=uint8)");
  std::vector<int16_t> two_digits;
  for (int16_t v = 10; v < 44; ++v) two_digits.push_back(v);
  EXPECT_EQ(FormatTensor(MakeTensor<int16_t>(TG_INT16, {34}, two_digits).get()),
            "array([10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26,\n"
            "       27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43],\n"
            "      dtype=int16)");
}

TEST(TensorFormatTest, LargeArraysAreSummarized) {
  std::vector<int64_t> ints;
  for (int64_t v = 0; v < 2000; ++v) ints.push_back(v);
  EXPECT_EQ(FormatTensor(MakeTensor<int64_t>(TG_INT64, {2, 1000}, ints).get()),
            "array([[   0,    1,    2, ...,  997,  998,  999],\n"
            "       [1000, 1001, 1002, ..., 1997, 1998, 1999]])");
  // The widths come from the shown elements only.
  std::vector<float> quarters;
  for (int v = 0; v < 1001; ++v) quarters.push_back(static_cast<float>(v) / 4);
  EXPECT_EQ(FormatTensor(MakeTensor<float>(TG_FLOAT, {1001}, quarters).get()),
            "array([  0.  ,   0.25,   0.5 , ..., 249.5 , 249.75, 250.  ], dtype=float32)");
  // 1000 elements are not summarized.
  const std::string full = FormatTensor(
      MakeTensor<float>(TG_FLOAT, {1000}, {quarters.begin(), quarters.begin() + 1000}).get());
  EXPECT_EQ(full.find("..."), std::string::npos);
}

TEST(TensorFormatTest, NullAndUnprintableTensors) {
  EXPECT_EQ(FormatTensor(nullptr), "<null tensor>");
  const int64_t dims[] = {2};
  TensorPtr q(TG_AllocateTensor(TG_QINT8, dims, 1, 2));
  ASSERT_NE(q, nullptr);
  EXPECT_EQ(FormatTensor(q.get()), "<tensor of dtype qint8, shape (2,)>");
}

}  // namespace
}  // namespace tgraph::tool
