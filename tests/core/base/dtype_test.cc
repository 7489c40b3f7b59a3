#include "core/base/dtype.h"

#include <gtest/gtest.h>

namespace tgraph {
namespace {

TEST(DataTypeTest, NumberingMatchesTensorFlow) {
  EXPECT_EQ(DT_INVALID, 0);
  EXPECT_EQ(DT_FLOAT, 1);
  EXPECT_EQ(DT_STRING, 7);
  EXPECT_EQ(DT_INT64, 9);
  EXPECT_EQ(DT_BFLOAT16, 14);
  EXPECT_EQ(DT_HALF, 19);
  EXPECT_EQ(DT_RESOURCE, 20);
  EXPECT_EQ(DT_UINT64, 23);
  EXPECT_EQ(DT_FLOAT4_E2M1FN, 33);
  EXPECT_EQ(DT_FLOAT_REF, 101);
  EXPECT_EQ(DT_INT64_REF, 109);
}

TEST(DataTypeTest, Validity) {
  EXPECT_FALSE(IsValidDataType(0));
  EXPECT_FALSE(IsValidDataType(-1));
  for (int v = 1; v <= 33; ++v) EXPECT_TRUE(IsValidDataType(v)) << v;
  EXPECT_FALSE(IsValidDataType(34));
  EXPECT_FALSE(IsValidDataType(100));  // there is no _REF of DT_INVALID
  for (int v = 101; v <= 133; ++v) EXPECT_TRUE(IsValidDataType(v)) << v;
  EXPECT_FALSE(IsValidDataType(134));
  EXPECT_FALSE(IsValidDataType(1000));
}

TEST(DataTypeTest, RefTypes) {
  EXPECT_FALSE(IsRefType(DT_FLOAT));
  EXPECT_TRUE(IsRefType(DT_FLOAT_REF));
  EXPECT_EQ(MakeRefType(DT_FLOAT), DT_FLOAT_REF);
  EXPECT_EQ(MakeRefType(DT_FLOAT_REF), DT_FLOAT_REF);  // idempotent
  EXPECT_EQ(MakeRefType(DT_INVALID), DT_INVALID);
  EXPECT_EQ(BaseType(DT_INT32_REF), DT_INT32);
  EXPECT_EQ(BaseType(DT_INT32), DT_INT32);
  for (int v = 1; v <= kLastBaseDataType; ++v) {
    const auto t = static_cast<DataType>(v);
    EXPECT_EQ(static_cast<int>(MakeRefType(t)), v + 100);
    EXPECT_EQ(BaseType(MakeRefType(t)), t);
  }
}

TEST(DataTypeTest, NamesRoundTrip) {
  EXPECT_EQ(DataTypeName(DT_FLOAT), "float");
  EXPECT_EQ(DataTypeName(DT_INT32_REF), "int32_ref");
  EXPECT_EQ(DataTypeName(DT_BFLOAT16), "bfloat16");
  EXPECT_EQ(DataTypeName(DT_INVALID), "invalid");
  for (int v = 1; v <= kLastBaseDataType; ++v) {
    for (DataType t : {static_cast<DataType>(v), MakeRefType(static_cast<DataType>(v))}) {
      auto parsed = DataTypeFromName(DataTypeName(t));
      ASSERT_TRUE(parsed.has_value()) << DataTypeName(t);
      EXPECT_EQ(*parsed, t);
    }
  }
}

TEST(DataTypeTest, UnknownNamesAreRejected) {
  for (const char* bad : {"", "Float", "DT_FLOAT", "_ref", "float32", "invalid", "ref"}) {
    EXPECT_FALSE(DataTypeFromName(bad).has_value()) << bad;
  }
  EXPECT_EQ(DataTypeName(static_cast<DataType>(77)), "unknown_dtype");
}

TEST(DataTypeTest, SizesMatchFormatsTable) {
  EXPECT_EQ(DataTypeSize(DT_FLOAT), 4u);
  EXPECT_EQ(DataTypeSize(DT_INT32), 4u);
  EXPECT_EQ(DataTypeSize(DT_UINT32), 4u);
  EXPECT_EQ(DataTypeSize(DT_QINT32), 4u);
  EXPECT_EQ(DataTypeSize(DT_DOUBLE), 8u);
  EXPECT_EQ(DataTypeSize(DT_INT64), 8u);
  EXPECT_EQ(DataTypeSize(DT_UINT64), 8u);
  EXPECT_EQ(DataTypeSize(DT_COMPLEX64), 8u);
  EXPECT_EQ(DataTypeSize(DT_COMPLEX128), 16u);
  for (DataType t : {DT_HALF, DT_BFLOAT16, DT_INT16, DT_UINT16, DT_QINT16, DT_QUINT16}) {
    EXPECT_EQ(DataTypeSize(t), 2u) << DataTypeName(t);
  }
  for (DataType t : {DT_INT8, DT_UINT8, DT_QINT8, DT_QUINT8, DT_BOOL, DT_FLOAT8_E5M2}) {
    EXPECT_EQ(DataTypeSize(t), 1u) << DataTypeName(t);
  }
  EXPECT_EQ(DataTypeSize(DT_FLOAT_REF), 4u);  // refs have their base type's size
  for (DataType t : {DT_STRING, DT_RESOURCE, DT_VARIANT, DT_INVALID}) {
    EXPECT_EQ(DataTypeSize(t), 0u) << DataTypeName(t);
    EXPECT_FALSE(IsPlainDataType(t)) << DataTypeName(t);
  }
  EXPECT_TRUE(IsPlainDataType(DT_BOOL));
  EXPECT_EQ(DataTypeSize(static_cast<DataType>(50)), 0u);
}

TEST(DataTypeTest, PlainTypesAreThoseWithAFixedElementSize) {
  EXPECT_FALSE(IsPlainDataType(DT_INVALID));
  for (int v = 1; v <= kLastBaseDataType; ++v) {
    const auto dtype = static_cast<DataType>(v);
    EXPECT_EQ(IsPlainDataType(dtype), DataTypeSize(dtype) != 0) << DataTypeName(dtype);
    EXPECT_EQ(IsPlainDataType(MakeRefType(dtype)), DataTypeSize(dtype) != 0) << DataTypeName(dtype);
  }
  EXPECT_FALSE(IsPlainDataType(static_cast<DataType>(kLastBaseDataType + 1)));
}

}  // namespace
}  // namespace tgraph
