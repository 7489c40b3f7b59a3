// CPU kernel of Cast: every supported (SrcT, DstT) pair on values every dtype holds exactly,
// then the lossy edges (truncation, saturation, NaN, wrap-around, rounding, Truncate).
#include <Eigen/Core>

#include <cmath>
#include <cstring>
#include <limits>

#include "core/exec/thread_pool.h"
#include "kernel_test_util.h"

namespace tgraph::testing {

namespace {

using half = Eigen::half;
using bfloat16 = Eigen::bfloat16;

const std::vector<DataType>& Supported() {
  static const std::vector<DataType> types = {DT_BOOL,   DT_UINT8,  DT_INT8,   DT_INT16,  DT_UINT16,
                                              DT_INT32,  DT_INT64,  DT_UINT32, DT_UINT64, DT_HALF,
                                              DT_BFLOAT16, DT_FLOAT, DT_DOUBLE};
  return types;
}

// Element i of `t` as a double, whatever its dtype.
double At(const Tensor& t, int64_t i) {
  switch (t.dtype()) {
    case DT_BOOL: return t.flat<bool>()[i] ? 1 : 0;
    case DT_UINT8: return t.flat<uint8_t>()[i];
    case DT_INT8: return t.flat<int8_t>()[i];
    case DT_INT16: return t.flat<int16_t>()[i];
    case DT_UINT16: return t.flat<uint16_t>()[i];
    case DT_INT32: return t.flat<int32_t>()[i];
    case DT_INT64: return static_cast<double>(t.flat<int64_t>()[i]);
    case DT_UINT32: return t.flat<uint32_t>()[i];
    case DT_UINT64: return static_cast<double>(t.flat<uint64_t>()[i]);
    case DT_HALF: return static_cast<float>(t.flat<half>()[i]);
    case DT_BFLOAT16: return static_cast<float>(t.flat<bfloat16>()[i]);
    case DT_FLOAT: return t.flat<float>()[i];
    case DT_DOUBLE: return t.flat<double>()[i];
    default: ADD_FAILURE() << "dtype " << t.dtype(); return 0;
  }
}
void Set(Tensor& t, int64_t i, double v) {
  switch (t.dtype()) {
    case DT_BOOL: t.flat<bool>()[i] = v != 0; break;
    case DT_UINT8: t.flat<uint8_t>()[i] = static_cast<uint8_t>(v); break;
    case DT_INT8: t.flat<int8_t>()[i] = static_cast<int8_t>(v); break;
    case DT_INT16: t.flat<int16_t>()[i] = static_cast<int16_t>(v); break;
    case DT_UINT16: t.flat<uint16_t>()[i] = static_cast<uint16_t>(v); break;
    case DT_INT32: t.flat<int32_t>()[i] = static_cast<int32_t>(v); break;
    case DT_INT64: t.flat<int64_t>()[i] = static_cast<int64_t>(v); break;
    case DT_UINT32: t.flat<uint32_t>()[i] = static_cast<uint32_t>(v); break;
    case DT_UINT64: t.flat<uint64_t>()[i] = static_cast<uint64_t>(v); break;
    case DT_HALF: t.flat<half>()[i] = half(static_cast<float>(v)); break;
    case DT_BFLOAT16: t.flat<bfloat16>()[i] = bfloat16(static_cast<float>(v)); break;
    case DT_FLOAT: t.flat<float>()[i] = static_cast<float>(v); break;
    case DT_DOUBLE: t.flat<double>()[i] = v; break;
    default: ADD_FAILURE() << "dtype " << t.dtype();
  }
}
Tensor Make(DataType dtype, Dims dims, const std::vector<double>& v) {
  Tensor t = Tensor::Allocate(dtype, std::move(dims)).value();
  for (size_t i = 0; i < v.size(); ++i) Set(t, static_cast<int64_t>(i), v[i]);
  return t;
}
std::vector<double> Get(const Tensor& t) {
  std::vector<double> out;
  for (int64_t i = 0; i < t.NumElements(); ++i) out.push_back(At(t, i));
  return out;
}

OpRun Cast(const Tensor& x, DataType dst, bool truncate = false) {
  AttrMap attrs{{"DstT", AttrOfType(dst)}};
  if (truncate) attrs["Truncate"] = AttrOfBool(true);
  return RunOp("Cast", {x}, attrs);
}

TEST(CastTest, EveryPairOnExactValues) {
  for (DataType src : Supported()) {
    for (DataType dst : Supported()) {
      const bool to_bool = dst == DT_BOOL, from_bool = src == DT_BOOL;
      const std::vector<double> values =
          from_bool ? std::vector<double>{0, 1, 1, 0, 1, 0} : std::vector<double>{0, 1, 2, 7, 100, 3};
      const std::string what = DataTypeName(src) + " -> " + DataTypeName(dst);
      auto r = Cast(Make(src, {2, 3}, values), dst);
      ASSERT_TRUE(r.status.ok()) << what << ": " << r.status.ToString();
      EXPECT_EQ(r.outputs[0].dtype(), dst) << what;
      EXPECT_EQ(r.outputs[0].dims(), (Dims{2, 3})) << what;
      std::vector<double> want = values;
      if (to_bool) {
        for (double& w : want) w = w != 0;
      }
      EXPECT_EQ(Get(r.outputs[0]), want) << what;
      // Rank 0 and empty.
      auto scalar = Cast(Make(src, {}, {1}), dst);
      ASSERT_TRUE(scalar.status.ok()) << what;
      EXPECT_EQ(Get(scalar.outputs[0]), std::vector<double>{1}) << what;
      auto empty = Cast(Make(src, {0, 5}, {}), dst);
      ASSERT_TRUE(empty.status.ok()) << what;
      EXPECT_EQ(empty.outputs[0].dims(), (Dims{0, 5})) << what;
    }
  }
}

TEST(CastTest, FloatToInteger) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  // Truncation toward zero.
  auto r = Cast(Make(DT_FLOAT, {6}, {1.9, -1.9, 0.5, -0.5, 2.5, -2.5}), DT_INT32);
  ASSERT_TRUE(r.status.ok());
  EXPECT_EQ(Get(r.outputs[0]), (std::vector<double>{1, -1, 0, 0, 2, -2}));
  // Saturation, NaN -> 0.
  r = Cast(Make(DT_DOUBLE, {5}, {1e20, -1e20, nan, inf, -inf}), DT_INT32);
  ASSERT_TRUE(r.status.ok());
  EXPECT_EQ(Get(r.outputs[0]), (std::vector<double>{2147483647.0, -2147483648.0, 0, 2147483647.0,
                                                     -2147483648.0}));
  r = Cast(Make(DT_DOUBLE, {3}, {1e30, -1e30, 9223372036854775807.0}), DT_INT64);
  ASSERT_TRUE(r.status.ok());
  EXPECT_EQ(r.outputs[0].flat<int64_t>()[0], std::numeric_limits<int64_t>::max());
  EXPECT_EQ(r.outputs[0].flat<int64_t>()[1], std::numeric_limits<int64_t>::min());
  EXPECT_EQ(r.outputs[0].flat<int64_t>()[2], std::numeric_limits<int64_t>::max());
  r = Cast(Make(DT_FLOAT, {4}, {-3, 300, 255.9, nan}), DT_UINT8);
  ASSERT_TRUE(r.status.ok());
  EXPECT_EQ(Get(r.outputs[0]), (std::vector<double>{0, 255, 255, 0}));
  r = Cast(Make(DT_HALF, {3}, {-2.5, 65504, nan}), DT_INT16);
  ASSERT_TRUE(r.status.ok());
  EXPECT_EQ(Get(r.outputs[0]), (std::vector<double>{-2, 32767, 0}));
}

TEST(CastTest, IntegerWrapAndBool) {
  auto r = Cast(Make(DT_INT32, {4}, {300, -1, 256, -129}), DT_UINT8);
  ASSERT_TRUE(r.status.ok());
  EXPECT_EQ(Get(r.outputs[0]), (std::vector<double>{44, 255, 0, 127}));
  r = Cast(Make(DT_INT64, {2}, {-1, 4294967296.0 + 5}), DT_UINT32);
  ASSERT_TRUE(r.status.ok());
  EXPECT_EQ(Get(r.outputs[0]), (std::vector<double>{4294967295.0, 5}));
  const double nan = std::numeric_limits<double>::quiet_NaN();
  r = Cast(Make(DT_FLOAT, {4}, {0, -0.0, 0.1, nan}), DT_BOOL);
  ASSERT_TRUE(r.status.ok());
  EXPECT_EQ(Get(r.outputs[0]), (std::vector<double>{0, 0, 1, 1}));
  r = Cast(Make(DT_INT8, {3}, {0, -5, 1}), DT_BOOL);
  ASSERT_TRUE(r.status.ok());
  EXPECT_EQ(Get(r.outputs[0]), (std::vector<double>{0, 1, 1}));
}

uint16_t Bits(const Tensor& t, int64_t i) {
  uint16_t b;
  std::memcpy(&b, static_cast<const char*>(t.data()) + 2 * i, 2);
  return b;
}

TEST(CastTest, HalfAndBfloat16Layouts) {
  // IEEE binary16 and the top half of binary32, round to nearest even.
  auto h = Cast(Make(DT_FLOAT, {5}, {1.0, -2.0, 65504.0, 1.0 + 1.0 / 2048, 1e6}), DT_HALF);
  ASSERT_TRUE(h.status.ok());
  EXPECT_EQ(Bits(h.outputs[0], 0), 0x3C00);
  EXPECT_EQ(Bits(h.outputs[0], 1), 0xC000);
  EXPECT_EQ(Bits(h.outputs[0], 2), 0x7BFF);
  EXPECT_EQ(Bits(h.outputs[0], 3), 0x3C00);  // a tie rounds to even
  EXPECT_EQ(Bits(h.outputs[0], 4), 0x7C00);  // overflow to +inf
  const float just_below_next = 1.0f + 1.0f / 128 - 1.0f / 1024;  // rounds up in bfloat16
  auto b = Cast(Make(DT_FLOAT, {3}, {1.0, -2.0, just_below_next}), DT_BFLOAT16);
  ASSERT_TRUE(b.status.ok());
  EXPECT_EQ(Bits(b.outputs[0], 0), 0x3F80);
  EXPECT_EQ(Bits(b.outputs[0], 1), 0xC000);
  EXPECT_EQ(Bits(b.outputs[0], 2), 0x3F81);
  // Truncate=true drops the low bits instead.
  auto t = Cast(Make(DT_FLOAT, {2}, {just_below_next, std::numeric_limits<double>::quiet_NaN()}),
                DT_BFLOAT16, /*truncate=*/true);
  ASSERT_TRUE(t.status.ok()) << t.status.ToString();
  EXPECT_EQ(Bits(t.outputs[0], 0), 0x3F80);
  EXPECT_TRUE(std::isnan(At(t.outputs[0], 1)));
  // half <-> bfloat16 <-> double round trips of representable values.
  auto hb = Cast(Make(DT_HALF, {3}, {0.5, -1024, 3.0}), DT_BFLOAT16);
  ASSERT_TRUE(hb.status.ok());
  EXPECT_EQ(Get(hb.outputs[0]), (std::vector<double>{0.5, -1024, 3.0}));
}

TEST(CastTest, SameTypeIsTheInput) {
  const Tensor x = Make(DT_FLOAT, {3}, {1, 2, 3});
  auto r = Cast(x, DT_FLOAT);
  ASSERT_TRUE(r.status.ok());
  EXPECT_EQ(Get(r.outputs[0]), (std::vector<double>{1, 2, 3}));
  EXPECT_EQ(r.outputs[0].data(), x.data());  // no copy
}

TEST(CastTest, UnsupportedTypes) {
  Tensor s = Tensor::Allocate(DT_STRING, {2}).value();
  auto r = Cast(s, DT_FLOAT);
  EXPECT_EQ(r.status.code(), Code::kInvalidArgument) << r.status.ToString();
  EXPECT_NE(r.status.message().find("string"), std::string::npos) << r.status.message();
  EXPECT_NE(r.status.message().find("node"), std::string::npos) << r.status.message();
  r = Cast(Make(DT_FLOAT, {1}, {1}), DT_COMPLEX64);
  EXPECT_EQ(r.status.code(), Code::kInvalidArgument) << r.status.ToString();
  EXPECT_NE(r.status.message().find("complex64"), std::string::npos) << r.status.message();
}

TEST(CastTest, LargeOnPool) {
  const int64_t n = 1 << 20;
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = static_cast<double>(i % 4001 - 2000) * 0.75;
  auto r = RunOpEx("Cast", {Make(DT_DOUBLE, {n}, v)}, {{"DstT", AttrOfType(DT_INT32)}}, TestPool());
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  const int32_t* out = r.outputs[0].flat<int32_t>();
  size_t bad = 0;
  for (int64_t i = 0; i < n; ++i) bad += out[i] != static_cast<int32_t>(std::trunc(v[static_cast<size_t>(i)]));
  EXPECT_EQ(bad, 0u);
}

}  // namespace
}  // namespace tgraph::testing
