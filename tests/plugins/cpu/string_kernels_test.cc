// The CPU plugin's string kernels (plugins/cpu/strings): StringJoin with scalars broadcast
// and a separator, the regex full matches (static pattern and pattern input, bad patterns),
// ShardedFilename / ShardedFilespec names, and the string instances of Select and Pack that
// tf.train.Saver's sharded save uses.
#include "array_test_util.h"
#include "core/graph/attr_value_util.h"

namespace tgraph::testing {
namespace {


Tensor Strings(Dims dims, std::vector<std::string> values) {
  Tensor t = Tensor::Allocate(DT_STRING, std::move(dims)).value();
  t.strings() = std::move(values);
  return t;
}
Tensor Str(const std::string& value) { return Strings({}, {value}); }
Tensor Bools(Dims dims, const std::vector<bool>& values) {
  Tensor t = Tensor::Allocate(DT_BOOL, std::move(dims)).value();
  for (size_t i = 0; i < values.size(); ++i) t.flat<bool>()[i] = values[i];
  return t;
}
std::vector<bool> BoolValues(const Tensor& t) {
  return std::vector<bool>(t.flat<bool>(), t.flat<bool>() + t.NumElements());
}

class StringKernelTest : public ::testing::Test {
 protected:
  void SetUp() override { LoadCpuPlugin(); }
};

TEST_F(StringKernelTest, StringJoinBroadcastsScalarsWithTheSeparator) {
  OpRun r = RunArgs("StringJoin", {List({Str("<"), Strings({2}, {"a", "bc"}), Str(">")})},
                    {{"separator", AttrOfString("-")}});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.outputs[0].dims(), (Dims{2}));
  EXPECT_EQ(r.outputs[0].strings(), (std::vector<std::string>{"<-a->", "<-bc->"}));
  OpRun scalars = RunArgs("StringJoin", {List({Str("model"), Str("_temp/part")})});
  ASSERT_TRUE(scalars.status.ok()) << scalars.status.ToString();
  EXPECT_EQ(scalars.outputs[0].strings()[0], "model_temp/part");
}

TEST_F(StringKernelTest, StringJoinRefusesTwoShapes) {
  OpRun r = RunArgs("StringJoin", {List({Strings({2}, {"a", "b"}), Strings({3}, {"a", "b", "c"})})},
                    {}, /*known_shapes=*/false);
  ExpectInvalid(r.status, {"input 1", "[3]", "[2]"});
}

TEST_F(StringKernelTest, RegexFullMatchesTheWholeString) {
  const Tensor input = Strings({3}, {"s3://bucket/x", "/tmp/s3://", "s3:/"});
  OpRun r = RunArgs("StaticRegexFullMatch", {In(input)}, {{"pattern", AttrOfString("^s3://.*")}});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(BoolValues(r.outputs[0]), (std::vector<bool>{true, false, false}));
  OpRun dynamic = RunArgs("RegexFullMatch", {In(input), In(Str("[a-z0-9]+:/.*"))});
  ASSERT_TRUE(dynamic.status.ok()) << dynamic.status.ToString();
  EXPECT_EQ(BoolValues(dynamic.outputs[0]), (std::vector<bool>{true, false, true}));
}

TEST_F(StringKernelTest, ABadPatternIsAnErrorNamingIt) {
  OpRun r = RunArgs("RegexFullMatch", {In(Str("x")), In(Str("(unclosed"))});
  ExpectInvalid(r.status, {"(unclosed"});
  OpRun s = RunArgs("StaticRegexFullMatch", {In(Str("x"))}, {{"pattern", AttrOfString("[z-a]")}});
  ExpectInvalid(s.status, {"[z-a]"});
}

TEST_F(StringKernelTest, ShardedNamesAreFiveDigitsWide) {
  OpRun r = RunArgs("ShardedFilename", {In(Str("ckpt_temp/part")), In(I32Scalar(3)),
                                        In(I32Scalar(12))});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.outputs[0].strings()[0], "ckpt_temp/part-00003-of-00012");
  OpRun spec = RunArgs("ShardedFilespec", {In(Str("f")), In(I32Scalar(2))});
  ASSERT_TRUE(spec.status.ok()) << spec.status.ToString();
  EXPECT_EQ(spec.outputs[0].strings()[0], "f-?????" "-of-00002");  // "??-": a trigraph
}

TEST_F(StringKernelTest, AShardOutOfRangeIsAnError) {
  OpRun r = RunArgs("ShardedFilename", {In(Str("p")), In(I32Scalar(2)), In(I32Scalar(2))});
  ExpectInvalid(r.status, {"shard 2 of 2", "'p'"});
  OpRun spec = RunArgs("ShardedFilespec", {In(Str("p")), In(I32Scalar(0))});
  ExpectInvalid(spec.status, {"num_shards", "'p'"});
}

TEST_F(StringKernelTest, SelectPicksStringsByScalarVectorOrElementwiseCondition) {
  const Tensor t = Strings({2, 2}, {"a", "b", "c", "d"});
  const Tensor e = Strings({2, 2}, {"w", "x", "y", "z"});
  OpRun scalar = RunArgs("Select", {In(Bools({}, {false})), In(t), In(e)});
  ASSERT_TRUE(scalar.status.ok()) << scalar.status.ToString();
  EXPECT_EQ(scalar.outputs[0].strings(), e.strings());
  OpRun rows = RunArgs("Select", {In(Bools({2}, {true, false})), In(t), In(e)});
  ASSERT_TRUE(rows.status.ok()) << rows.status.ToString();
  EXPECT_EQ(rows.outputs[0].strings(), (std::vector<std::string>{"a", "b", "y", "z"}));
  OpRun each = RunArgs("Select", {In(Bools({2, 2}, {true, false, false, true})), In(t), In(e)});
  ASSERT_TRUE(each.status.ok()) << each.status.ToString();
  EXPECT_EQ(each.outputs[0].strings(), (std::vector<std::string>{"a", "x", "y", "d"}));
}

TEST_F(StringKernelTest, PackStacksStringsAlongTheAxis) {
  const Tensor a = Strings({2}, {"a0", "a1"});
  const Tensor b = Strings({2}, {"b0", "b1"});
  OpRun first = RunArgs("Pack", {List({a, b})}, {{"axis", AttrOfInt(0)}});
  ASSERT_TRUE(first.status.ok()) << first.status.ToString();
  EXPECT_EQ(first.outputs[0].dims(), (Dims{2, 2}));
  EXPECT_EQ(first.outputs[0].strings(), (std::vector<std::string>{"a0", "a1", "b0", "b1"}));
  OpRun last = RunArgs("Pack", {List({a, b})}, {{"axis", AttrOfInt(-1)}});
  ASSERT_TRUE(last.status.ok()) << last.status.ToString();
  EXPECT_EQ(last.outputs[0].strings(), (std::vector<std::string>{"a0", "b0", "a1", "b1"}));
}

}  // namespace
}  // namespace tgraph::testing
