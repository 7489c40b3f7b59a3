#include "core/graph/proto_convert.h"

#include <gtest/gtest.h>

#include <complex>
#include <cstring>

namespace tgraph {
namespace {

tf::TensorProto MakeProto(tf::DataType dtype, std::vector<int64_t> dims) {
  tf::TensorProto p;
  p.set_dtype(dtype);
  for (int64_t d : dims) p.mutable_tensor_shape()->add_dim()->set_size(d);
  return p;
}

template <typename T>
std::vector<T> Values(const Tensor& t) {
  return std::vector<T>(t.flat<T>(), t.flat<T>() + t.NumElements());
}

void ExpectInvalid(const tf::TensorProto& p, const std::string& fragment) {
  auto t = TensorFromProto(p);
  ASSERT_FALSE(t.ok()) << "accepted " << p.ShortDebugString();
  EXPECT_EQ(t.status().code(), Code::kInvalidArgument) << t.status().ToString();
  EXPECT_NE(t.status().message().find(fragment), std::string::npos) << t.status().message();
  EXPECT_FALSE(ValidateTensorProto(p).ok());
}

TEST(ShapeProtoTest, RoundTrip) {
  for (const PartialShape& s : {PartialShape(), PartialShape::Scalar(), PartialShape{2, -1, 0}}) {
    tf::TensorShapeProto proto;
    ShapeToProto(s, &proto);
    auto back = ShapeFromProto(proto);
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(back.value(), s) << s.ToString();
  }
  tf::TensorShapeProto unknown;
  ShapeToProto(PartialShape(), &unknown);
  EXPECT_TRUE(unknown.unknown_rank());
}

TEST(ShapeProtoTest, RejectsBadProtos) {
  tf::TensorShapeProto p;
  p.add_dim()->set_size(-2);
  EXPECT_EQ(ShapeFromProto(p).status().code(), Code::kInvalidArgument);
  tf::TensorShapeProto q;
  q.set_unknown_rank(true);
  q.add_dim()->set_size(1);
  auto s = ShapeFromProto(q);
  EXPECT_EQ(s.status().code(), Code::kInvalidArgument);
  EXPECT_NE(s.status().message().find("unknown_rank"), std::string::npos);
}

TEST(TensorProtoTest, RoundTripThroughTensorContent) {
  auto t = Tensor::Allocate(DT_FLOAT, {2, 2});
  for (int i = 0; i < 4; ++i) t->flat<float>()[i] = 1.5f * static_cast<float>(i);
  tf::TensorProto p;
  TensorToProto(t.value(), &p);
  EXPECT_EQ(p.dtype(), tf::DT_FLOAT);
  EXPECT_EQ(p.tensor_content().size(), 16u);
  EXPECT_EQ(p.float_val_size(), 0);
  auto back = TensorFromProto(p);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_TRUE(back->Equals(t.value()));
}

TEST(TensorProtoTest, RoundTripStrings) {
  auto t = Tensor::Allocate(DT_STRING, {3});
  t->strings() = {"a", std::string("b\0c", 3), ""};
  tf::TensorProto p;
  TensorToProto(t.value(), &p);
  EXPECT_EQ(p.string_val_size(), 3);
  EXPECT_TRUE(p.tensor_content().empty());
  auto back = TensorFromProto(p);
  ASSERT_TRUE(back.ok());
  EXPECT_TRUE(back->Equals(t.value()));
}

TEST(TensorProtoTest, TypedFieldsForEveryPlainDtype) {
  {
    auto p = MakeProto(tf::DT_FLOAT, {2});
    p.add_float_val(1.5f);
    p.add_float_val(-2);
    EXPECT_EQ(Values<float>(TensorFromProto(p).value()), (std::vector<float>{1.5f, -2}));
  }
  {
    auto p = MakeProto(tf::DT_DOUBLE, {1});
    p.add_double_val(0.25);
    EXPECT_EQ(Values<double>(TensorFromProto(p).value()), std::vector<double>{0.25});
  }
  {
    auto p = MakeProto(tf::DT_INT32, {2});
    p.add_int_val(-5);
    p.add_int_val(7);
    EXPECT_EQ(Values<int32_t>(TensorFromProto(p).value()), (std::vector<int32_t>{-5, 7}));
  }
  {
    auto p = MakeProto(tf::DT_INT8, {2});
    p.add_int_val(-128);
    p.add_int_val(127);
    EXPECT_EQ(Values<int8_t>(TensorFromProto(p).value()), (std::vector<int8_t>{-128, 127}));
  }
  {
    auto p = MakeProto(tf::DT_UINT8, {1});
    p.add_int_val(255);
    EXPECT_EQ(Values<uint8_t>(TensorFromProto(p).value()), std::vector<uint8_t>{255});
  }
  {
    auto p = MakeProto(tf::DT_INT16, {1});
    p.add_int_val(-300);
    EXPECT_EQ(Values<int16_t>(TensorFromProto(p).value()), std::vector<int16_t>{-300});
  }
  {
    auto p = MakeProto(tf::DT_UINT16, {1});
    p.add_int_val(65535);
    EXPECT_EQ(Values<uint16_t>(TensorFromProto(p).value()), std::vector<uint16_t>{65535});
  }
  {
    auto p = MakeProto(tf::DT_INT64, {1});
    p.add_int64_val(int64_t{1} << 40);
    EXPECT_EQ(Values<int64_t>(TensorFromProto(p).value()), std::vector<int64_t>{int64_t{1} << 40});
  }
  {
    auto p = MakeProto(tf::DT_UINT32, {1});
    p.add_uint32_val(4000000000u);
    EXPECT_EQ(Values<uint32_t>(TensorFromProto(p).value()), std::vector<uint32_t>{4000000000u});
  }
  {
    auto p = MakeProto(tf::DT_UINT64, {1});
    p.add_uint64_val(~uint64_t{0});
    EXPECT_EQ(Values<uint64_t>(TensorFromProto(p).value()), std::vector<uint64_t>{~uint64_t{0}});
  }
  {
    auto p = MakeProto(tf::DT_BOOL, {2});
    p.add_bool_val(false);
    p.add_bool_val(true);
    EXPECT_EQ(Values<bool>(TensorFromProto(p).value()), (std::vector<bool>{false, true}));
  }
  {
    // half and bfloat16: the 16-bit pattern in half_val. 0x3C00 is 1.0 in IEEE half.
    auto p = MakeProto(tf::DT_HALF, {2});
    p.add_half_val(0x3C00);
    p.add_half_val(0xBC00);
    EXPECT_EQ(Values<uint16_t>(TensorFromProto(p).value()), (std::vector<uint16_t>{0x3C00, 0xBC00}));
    auto q = MakeProto(tf::DT_BFLOAT16, {1});
    q.add_half_val(0x3F80);
    EXPECT_EQ(Values<uint16_t>(TensorFromProto(q).value()), std::vector<uint16_t>{0x3F80});
  }
  {
    auto p = MakeProto(tf::DT_COMPLEX64, {2});
    for (float v : {1.f, 2.f, 3.f, 4.f}) p.add_scomplex_val(v);
    auto t = TensorFromProto(p).value();
    const auto* c = reinterpret_cast<const std::complex<float>*>(t.data());
    EXPECT_EQ(c[0], std::complex<float>(1, 2));
    EXPECT_EQ(c[1], std::complex<float>(3, 4));
  }
  {
    auto p = MakeProto(tf::DT_COMPLEX128, {3});
    p.add_dcomplex_val(5);
    p.add_dcomplex_val(-1);
    auto t = TensorFromProto(p).value();
    const auto* c = reinterpret_cast<const std::complex<double>*>(t.data());
    for (int i = 0; i < 3; ++i) EXPECT_EQ(c[i], std::complex<double>(5, -1));  // padded
  }
  {
    auto p = MakeProto(tf::DT_FLOAT8_E4M3FN, {2});
    p.set_float8_val(std::string("\x38\x40", 2));
    EXPECT_EQ(Values<uint8_t>(TensorFromProto(p).value()), (std::vector<uint8_t>{0x38, 0x40}));
  }
  {
    auto p = MakeProto(tf::DT_QINT8, {1});
    p.add_int_val(-3);
    EXPECT_EQ(Values<int8_t>(TensorFromProto(p).value()), std::vector<int8_t>{-3});
  }
}

TEST(TensorProtoTest, ShortTypedFieldIsPaddedWithLastValue) {
  auto p = MakeProto(tf::DT_INT32, {2, 3});
  p.add_int_val(1);
  p.add_int_val(4);
  EXPECT_EQ(Values<int32_t>(TensorFromProto(p).value()),
            (std::vector<int32_t>{1, 4, 4, 4, 4, 4}));

  auto s = MakeProto(tf::DT_STRING, {3});
  s.add_string_val("x");
  auto t = TensorFromProto(s);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->strings(), (std::vector<std::string>{"x", "x", "x"}));
}

TEST(TensorProtoTest, NoValuesMeansZeros) {
  auto p = MakeProto(tf::DT_FLOAT, {3});
  EXPECT_EQ(Values<float>(TensorFromProto(p).value()), (std::vector<float>{0, 0, 0}));
  auto s = MakeProto(tf::DT_STRING, {2});
  EXPECT_EQ(TensorFromProto(s)->strings(), (std::vector<std::string>{"", ""}));
  auto scalar = MakeProto(tf::DT_INT64, {});
  auto t = TensorFromProto(scalar);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->NumElements(), 1);
  EXPECT_EQ(t->flat<int64_t>()[0], 0);
}

TEST(TensorProtoTest, BoolContentIsNormalised) {
  auto p = MakeProto(tf::DT_BOOL, {2});
  p.set_tensor_content(std::string("\x00\x07", 2));
  auto t = TensorFromProto(p);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(static_cast<const uint8_t*>(t->data())[1], 1);
}

TEST(TensorProtoTest, RejectsWrongContentSize) {
  auto p = MakeProto(tf::DT_FLOAT, {2, 2});
  p.set_tensor_content(std::string(15, '\0'));
  ExpectInvalid(p, "15 bytes");
}

TEST(TensorProtoTest, RejectsBadDtypes) {
  ExpectInvalid(MakeProto(tf::DT_INVALID, {}), "invalid dtype");
  ExpectInvalid(MakeProto(tf::DT_FLOAT_REF, {}), "invalid dtype");
  ExpectInvalid(MakeProto(static_cast<tf::DataType>(77), {}), "invalid dtype");
  ExpectInvalid(MakeProto(tf::DT_RESOURCE, {}), "resource");
  ExpectInvalid(MakeProto(tf::DT_VARIANT, {}), "variant");
}

TEST(TensorProtoTest, RejectsBadShapes) {
  ExpectInvalid(MakeProto(tf::DT_FLOAT, {2, -1}), "fully defined");
  ExpectInvalid(MakeProto(tf::DT_FLOAT, {-5}), "bad shape");
  auto unknown = MakeProto(tf::DT_FLOAT, {});
  unknown.mutable_tensor_shape()->set_unknown_rank(true);
  ExpectInvalid(unknown, "fully defined");
  const int64_t big = int64_t{1} << 40;
  ExpectInvalid(MakeProto(tf::DT_FLOAT, {big, big}), "too many elements");
}

TEST(TensorProtoTest, RejectsMismatchedFields) {
  auto wrong_field = MakeProto(tf::DT_FLOAT, {1});
  wrong_field.add_int_val(3);
  ExpectInvalid(wrong_field, "int_val");

  auto both = MakeProto(tf::DT_FLOAT, {1});
  both.add_float_val(1);
  both.set_tensor_content(std::string(4, '\0'));
  ExpectInvalid(both, "both");

  auto too_many = MakeProto(tf::DT_INT32, {2});
  for (int i = 0; i < 3; ++i) too_many.add_int_val(i);
  ExpectInvalid(too_many, "3 values");

  auto odd_complex = MakeProto(tf::DT_COMPLEX64, {1});
  odd_complex.add_scomplex_val(1);
  ExpectInvalid(odd_complex, "pairs");

  auto string_content = MakeProto(tf::DT_STRING, {1});
  string_content.set_tensor_content("abcd");
  ExpectInvalid(string_content, "tensor_content");

  auto too_many_strings = MakeProto(tf::DT_STRING, {1});
  too_many_strings.add_string_val("a");
  too_many_strings.add_string_val("b");
  ExpectInvalid(too_many_strings, "string_val");
}

TEST(TensorProtoTest, HugeShapeWithoutDataIsAnErrorNotAnAllocation) {
  // A few bytes of proto must not make us allocate terabytes.
  const int64_t huge = int64_t{1} << 38;
  auto zeros = MakeProto(tf::DT_FLOAT, {huge});
  ExpectInvalid(zeros, "limited to");
  auto padded = MakeProto(tf::DT_DOUBLE, {huge, 4});
  padded.add_double_val(1.0);
  ExpectInvalid(padded, "limited to");
  auto strings = MakeProto(tf::DT_STRING, {huge});
  strings.add_string_val(std::string(100, 'x'));
  ExpectInvalid(strings, "limit");
  auto no_strings = MakeProto(tf::DT_STRING, {huge});
  ExpectInvalid(no_strings, "limit");
}

TEST(TensorProtoTest, ZeroElementTensors) {
  auto p = MakeProto(tf::DT_FLOAT, {0, 5});
  auto t = TensorFromProto(p);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->NumElements(), 0);
  auto with_value = MakeProto(tf::DT_FLOAT, {0});
  with_value.add_float_val(1);
  ExpectInvalid(with_value, "values");
}

TEST(TensorProtoTest, ValidateAgreesWithDecode) {
  auto ok = MakeProto(tf::DT_INT32, {4});
  ok.add_int_val(1);
  EXPECT_TRUE(ValidateTensorProto(ok).ok());
}

}  // namespace
}  // namespace tgraph
