// plugins/cpu/strings/string_convert_kernels.cc: StringToHashBucketFast gives TensorFlow's
// bucket ids (values printed by TensorFlow 2.21 for every FarmHash length class),
// StringToNumber parses as TensorFlow does and names a bad string, AsString's formats and
// its attr checks.
#include "array_test_util.h"
#include "core/graph/attr_value_util.h"

#include <cstring>
#include <tuple>

namespace tgraph::testing {
namespace {

Tensor Strings(Dims dims, std::vector<std::string> values) {
  Tensor t = Tensor::Allocate(DT_STRING, std::move(dims)).value();
  t.strings() = std::move(values);
  return t;
}

class StringConvertKernelTest : public ::testing::Test {
 protected:
  void SetUp() override { LoadCpuPlugin(); }
};

TEST_F(StringConvertKernelTest, HashBucketsAreTensorFlows) {
  // Lengths 0, 1 (0-16 class), 5, 16, 70 (the 64-byte block loop).
  const Tensor in = Strings({5}, {"", "a", "hello", "feature_value_17", std::string(70, 'x')});
  OpRun r = RunArgs("StringToHashBucketFast", {In(in)}, {{"num_buckets", AttrOfInt(1000)}});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.outputs[0].dtype(), DT_INT64);
  EXPECT_EQ(Values<int64_t>(r.outputs[0]), (std::vector<int64_t>{263, 939, 296, 837, 745}));
  OpRun wide = RunArgs("StringToHashBucketFast", {In(in)},
                       {{"num_buckets", AttrOfInt(int64_t{1} << 62)}});
  ASSERT_TRUE(wide.status.ok()) << wide.status.ToString();
  EXPECT_EQ(Values<int64_t>(wide.outputs[0]),
            (std::vector<int64_t>{1936946117179621455, 3694432073954588131, 3786372426573024488,
                                  2966356780136144125, 845564307397267841}));
}

TEST_F(StringConvertKernelTest, StringToNumberParsesLikeTensorFlow) {
  const Tensor floats = Strings({6}, {" 1.5 ", "1e40", "-inf", "0x10", "+3", "1."});
  OpRun f = RunArgs("StringToNumber", {In(floats)}, {{"out_type", AttrOfType(DT_FLOAT)}});
  ASSERT_TRUE(f.status.ok()) << f.status.ToString();
  const std::vector<float> inf = {std::numeric_limits<float>::infinity()};
  EXPECT_EQ(Values<float>(f.outputs[0]), (std::vector<float>{1.5f, inf[0], -inf[0], 16, 3, 1}));
  OpRun i = RunArgs("StringToNumber", {In(Strings({3}, {" 12 ", "+3", "-7"}))},
                    {{"out_type", AttrOfType(DT_INT32)}});
  ASSERT_TRUE(i.status.ok()) << i.status.ToString();
  EXPECT_EQ(Values<int32_t>(i.outputs[0]), (std::vector<int32_t>{12, 3, -7}));
  OpRun l = RunArgs("StringToNumber", {In(Strings({1}, {"-9000000000"}))},
                    {{"out_type", AttrOfType(DT_INT64)}});
  ASSERT_TRUE(l.status.ok()) << l.status.ToString();
  EXPECT_EQ(Values<int64_t>(l.outputs[0]), (std::vector<int64_t>{-9000000000}));
  OpRun d = RunArgs("StringToNumber", {In(Strings({1}, {"0.1"}))},
                    {{"out_type", AttrOfType(DT_DOUBLE)}});
  ASSERT_TRUE(d.status.ok()) << d.status.ToString();
  EXPECT_EQ(Values<double>(d.outputs[0]), (std::vector<double>{0.1}));
  OpRun u = RunArgs("StringToNumber", {In(Strings({2}, {"4000000000", "18446744073709551615"}))},
                    {{"out_type", AttrOfType(DT_UINT32)}});
  ExpectInvalid(u.status, {"18446744073709551615"});
  OpRun u64 = RunArgs("StringToNumber", {In(Strings({1}, {"18446744073709551615"}))},
                      {{"out_type", AttrOfType(DT_UINT64)}});
  ASSERT_TRUE(u64.status.ok()) << u64.status.ToString();
  EXPECT_EQ(Values<uint64_t>(u64.outputs[0]), (std::vector<uint64_t>{18446744073709551615u}));
}

TEST_F(StringConvertKernelTest, StringToNumberNamesTheStringItCannotParse) {
  for (const auto& [text, type] : std::vector<std::pair<std::string, DataType>>{
           {"3000000000", DT_INT32}, {"1.5", DT_INT32}, {"abc", DT_FLOAT}, {"", DT_DOUBLE},
           {"-1", DT_UINT32}, {"12 34", DT_INT64}}) {
    OpRun r = RunArgs("StringToNumber", {In(Strings({2}, {"1", text}))},
                      {{"out_type", AttrOfType(type)}});
    ExpectInvalid(r.status, {"could not correctly convert string: " + text});
  }
}

TEST_F(StringConvertKernelTest, AsStringFormatsWithTheAttrs) {
  const Tensor pi = MakeTensor<float>(DT_FLOAT, {2}, {3.14159f, -2});
  auto run = [&](const Tensor& in, AttrMap attrs) {
    OpRun r = RunArgs("AsString", {In(in)}, std::move(attrs));
    EXPECT_TRUE(r.status.ok()) << r.status.ToString();
    return r.status.ok() ? r.outputs[0].strings() : std::vector<std::string>{};
  };
  EXPECT_EQ(run(pi, {}), (std::vector<std::string>{"3.141590", "-2.000000"}));
  EXPECT_EQ(run(pi, {{"precision", AttrOfInt(2)}, {"width", AttrOfInt(8)},
                     {"fill", AttrOfString("0")}}),
            (std::vector<std::string>{"00003.14", "-0002.00"}));
  EXPECT_EQ(run(pi, {{"shortest", AttrOfBool(true)}}), (std::vector<std::string>{"3.14159", "-2"}));
  EXPECT_EQ(run(pi, {{"scientific", AttrOfBool(true)}, {"precision", AttrOfInt(3)}}),
            (std::vector<std::string>{"3.142e+00", "-2.000e+00"}));
  EXPECT_EQ(run(MakeTensor<double>(DT_DOUBLE, {1}, {0.5}), {}), (std::vector<std::string>{"0.500000"}));
  EXPECT_EQ(run(MakeTensor<int32_t>(DT_INT32, {2}, {7, -3}), {{"width", AttrOfInt(5)}}),
            (std::vector<std::string>{"    7", "   -3"}));
  EXPECT_EQ(run(MakeTensor<int64_t>(DT_INT64, {1}, {-9000000000}),
                {{"width", AttrOfInt(12)}, {"fill", AttrOfString("-")}}),
            (std::vector<std::string>{"-9000000000 "}));
  EXPECT_EQ(run(MakeTensor<uint8_t>(DT_UINT8, {1}, {200}), {}), (std::vector<std::string>{"200"}));
  EXPECT_EQ(run(MakeTensor<int8_t>(DT_INT8, {1}, {-5}), {}), (std::vector<std::string>{"-5"}));
  EXPECT_EQ(run(MakeTensor<int16_t>(DT_INT16, {1}, {-300}), {}), (std::vector<std::string>{"-300"}));
  EXPECT_EQ(run(MakeTensor<uint16_t>(DT_UINT16, {1}, {60000}), {}), (std::vector<std::string>{"60000"}));
  EXPECT_EQ(run(MakeTensor<uint32_t>(DT_UINT32, {1}, {4000000000u}), {}),
            (std::vector<std::string>{"4000000000"}));
  EXPECT_EQ(run(MakeTensor<uint64_t>(DT_UINT64, {1}, {18446744073709551615u}), {}),
            (std::vector<std::string>{"18446744073709551615"}));
  Tensor flags = Tensor::Allocate(DT_BOOL, {2}).value();
  flags.flat<bool>()[0] = true;
  flags.flat<bool>()[1] = false;
  EXPECT_EQ(run(flags, {{"width", AttrOfInt(6)}}), (std::vector<std::string>{"true", "false"}));
  EXPECT_EQ(run(Strings({1}, {"abc"}), {{"width", AttrOfInt(5)}, {"precision", AttrOfInt(2)}}),
            (std::vector<std::string>{"   ab"}));
}

TEST_F(StringConvertKernelTest, AsStringFormatsHalvesAndComplexNumbersAsFloats) {
  auto run = [&](const Tensor& in, AttrMap attrs) {
    OpRun r = RunArgs("AsString", {In(in)}, std::move(attrs));
    EXPECT_TRUE(r.status.ok()) << r.status.ToString();
    return r.status.ok() ? r.outputs[0].strings() : std::vector<std::string>{};
  };
  // 1.5 and -3 as IEEE half (0x3e00, 0xc200) and bfloat16 (0x3fc0, 0xc040) bits.
  EXPECT_EQ(run(MakeTensor<uint16_t>(DT_HALF, {2}, {0x3e00, 0xc200}), {}),
            (std::vector<std::string>{"1.500000", "-3.000000"}));
  EXPECT_EQ(run(MakeTensor<uint16_t>(DT_BFLOAT16, {2}, {0x3fc0, 0xc040}),
                {{"shortest", AttrOfBool(true)}}),
            (std::vector<std::string>{"1.5", "-3"}));
  Tensor c64 = Tensor::Allocate(DT_COMPLEX64, {1}).value();
  const float parts[2] = {1.5f, 2};
  std::memcpy(c64.data(), parts, sizeof parts);
  EXPECT_EQ(run(c64, {}), (std::vector<std::string>{"(1.500000,2.000000)"}));
  Tensor c128 = Tensor::Allocate(DT_COMPLEX128, {1}).value();
  const double wide[2] = {1.5, 2};
  std::memcpy(c128.data(), wide, sizeof wide);
  EXPECT_EQ(run(c128, {{"precision", AttrOfInt(2)}, {"width", AttrOfInt(7)}}),
            (std::vector<std::string>{"(   1.50,   2.00)"}));
}

TEST_F(StringConvertKernelTest, AsStringRefusesAttrsThatDoNotFit) {
  const Tensor f = MakeTensor<float>(DT_FLOAT, {1}, {1});
  const Tensor i = MakeTensor<int32_t>(DT_INT32, {1}, {1});
  ExpectInvalid(RunArgs("AsString", {In(f)}, {{"scientific", AttrOfBool(true)},
                                              {"shortest", AttrOfBool(true)}}).status,
                {"Cannot select both scientific and shortest notation"});
  ExpectInvalid(RunArgs("AsString", {In(f)}, {{"fill", AttrOfString("x")}}).status,
                {"Fill argument not supported: \"x\""});
  ExpectInvalid(RunArgs("AsString", {In(f)}, {{"fill", AttrOfString("00")}}).status,
                {"Fill string must be one or fewer characters"});
  ExpectInvalid(RunArgs("AsString", {In(i)}, {{"precision", AttrOfInt(2)}}).status,
                {"precision not supported for datatype int32"});
  ExpectInvalid(RunArgs("AsString", {In(i)}, {{"shortest", AttrOfBool(true)}}).status,
                {"scientific and shortest format not supported for datatype int32"});
}

// width and precision are int64 attrs: one that would make a gigabyte of text fails before
// anything of that size is allocated (found by the op_run fuzz target, an OOM kill under ASan).
TEST_F(StringConvertKernelTest, AsStringRefusesOutputsPastItsBudget) {
  const Tensor f = MakeTensor<float>(DT_FLOAT, {2}, {1, 2});
  const Tensor i = MakeTensor<int32_t>(DT_INT32, {2}, {1, 2});
  for (const auto& [in, attr, value] : std::vector<std::tuple<Tensor, std::string, int64_t>>{
           {i, "width", int64_t{1} << 40},   // past snprintf's INT_MAX
           {i, "width", (int64_t{1} << 30) + 1},  // one string past the budget
           {i, "width", (int64_t{1} << 29) + 1},  // two strings past it together
           {f, "precision", int64_t{1} << 31},
           // within the budget as a string, but glibc's printf would malloc 4 bytes a digit
           {f, "precision", (int64_t{1} << 28) + 1}}) {
    OpRun r = RunArgs("AsString", {In(in)}, {{attr, AttrOfInt(value)}});
    EXPECT_EQ(r.status.code(), Code::kResourceExhausted) << attr << "=" << value << ": "
                                                         << r.status.ToString();
    EXPECT_NE(r.status.message().find("width or precision too large"), std::string::npos)
        << r.status.ToString();
  }
  OpRun wide = RunArgs("AsString", {In(i)}, {{"width", AttrOfInt(1000)}});
  ASSERT_TRUE(wide.status.ok()) << wide.status.ToString();
  EXPECT_EQ(wide.outputs[0].strings()[1].size(), 1000u);
}

}  // namespace
}  // namespace tgraph::testing
