// plugins/cpu/strings/string_edit_kernels.cc: StringLength in bytes and UTF-8 characters,
// StringStrip, Substr's rules for each unit (negative pos and len, per-element and broadcast pos / len,
// out-of-range errors naming the string), and ReduceJoin over axes in TensorFlow's order with
// keep_dims and its axis errors. Expected values are TensorFlow 2.21's.
#include "array_test_util.h"
#include "core/graph/attr_value_util.h"

namespace tgraph::testing {
namespace {

Tensor Strings(Dims dims, std::vector<std::string> values) {
  Tensor t = Tensor::Allocate(DT_STRING, std::move(dims)).value();
  t.strings() = std::move(values);
  return t;
}
using Texts = std::vector<std::string>;

class StringEditKernelTest : public ::testing::Test {
 protected:
  void SetUp() override { LoadCpuPlugin(); }
};

const char kHello[] = "h\xc3\xa9llo";  // "héllo": 6 bytes, 5 characters

TEST_F(StringEditKernelTest, StringLengthCountsBytesOrCharacters) {
  const Tensor in = Strings({3}, {"hello", kHello, ""});
  OpRun bytes = RunArgs("StringLength", {In(in)});
  ASSERT_TRUE(bytes.status.ok()) << bytes.status.ToString();
  EXPECT_EQ(Values<int32_t>(bytes.outputs[0]), (std::vector<int32_t>{5, 6, 0}));
  OpRun chars = RunArgs("StringLength", {In(in)}, {{"unit", AttrOfString("UTF8_CHAR")}});
  ASSERT_TRUE(chars.status.ok()) << chars.status.ToString();
  EXPECT_EQ(Values<int32_t>(chars.outputs[0]), (std::vector<int32_t>{5, 5, 0}));
}

TEST_F(StringEditKernelTest, StringStripRemovesAsciiWhitespaceAtBothEnds) {
  OpRun r = RunArgs("StringStrip", {In(Strings({3}, {" \t a b\n\v\f\r", "", "   "}))});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.outputs[0].strings(), (Texts{"a b", "", ""}));
}

OpRun Substr(const Tensor& in, const Tensor& pos, const Tensor& len, const char* unit = "BYTE") {
  return RunArgs("Substr", {In(in), In(pos), In(len)}, {{"unit", AttrOfString(unit)}});
}

TEST_F(StringEditKernelTest, SubstrInBytes) {
  const Tensor in = Strings({2}, {"hello", kHello});
  OpRun rest = Substr(in, I32Scalar(1), I32Scalar(-1));  // a negative len: the rest
  ASSERT_TRUE(rest.status.ok()) << rest.status.ToString();
  EXPECT_EQ(rest.outputs[0].strings(), (Texts{"ello", "\xc3\xa9llo"}));
  OpRun tail = Substr(in, I32Scalar(-2), I32Scalar(5));
  ASSERT_TRUE(tail.status.ok()) << tail.status.ToString();
  EXPECT_EQ(tail.outputs[0].strings(), (Texts{"lo", "lo"}));
  OpRun each = Substr(in, I64({2}, {1, 2}), I64({2}, {1, 1}));
  ASSERT_TRUE(each.status.ok()) << each.status.ToString();
  EXPECT_EQ(each.outputs[0].strings(), (Texts{"e", "\xa9"}));
}

TEST_F(StringEditKernelTest, SubstrInCharacters) {
  const Tensor in = Strings({2}, {"hello", kHello});
  OpRun first = Substr(in, I32Scalar(-5), I32Scalar(2), "UTF8_CHAR");
  ASSERT_TRUE(first.status.ok()) << first.status.ToString();
  EXPECT_EQ(first.outputs[0].strings(), (Texts{"he", "h\xc3\xa9"}));
  OpRun none = Substr(in, I32Scalar(1), I32Scalar(-1), "UTF8_CHAR");  // negative len: nothing
  ASSERT_TRUE(none.status.ok()) << none.status.ToString();
  EXPECT_EQ(none.outputs[0].strings(), (Texts{"", ""}));
  OpRun end = Substr(in, I32Scalar(5), I32Scalar(2), "UTF8_CHAR");
  ASSERT_TRUE(end.status.ok()) << end.status.ToString();
  EXPECT_EQ(end.outputs[0].strings(), (Texts{"", ""}));
}

TEST_F(StringEditKernelTest, SubstrOutsideTheStringNamesIt) {
  const Tensor in = Strings({2}, {"hello", ""});
  ExpectInvalid(Substr(in, I32Scalar(6), I32Scalar(1)).status,
                {"pos 6 out of range for string b'hello' at index 0"});
  ExpectInvalid(Substr(in, I32Scalar(-1), I32Scalar(1)).status,
                {"pos -1 out of range for string b'' at index 1"});
  ExpectInvalid(Substr(in, I32Scalar(-6), I32Scalar(1), "UTF8_CHAR").status,
                {"pos -6 out of range", "at index 0"});
  ExpectInvalid(RunArgs("Substr", {In(in), In(I32Vec({1, 2})), In(I32Scalar(1))}, {}, false).status,
                {"same shape"});
  ExpectInvalid(RunArgs("Substr", {In(in), In(I32Vec({1, 2, 3})), In(I32Vec({1, 2, 3}))}, {},
                        false).status,
                {"Incompatible shapes: [2] vs. [3]"});
}

TEST_F(StringEditKernelTest, SubstrBroadcastsPosAndLenAgainstTheInput) {
  OpRun rows = Substr(Strings({2, 2}, {"hello", "world", "abc", "xyz"}), I32({2, 1}, {0, 1}),
                      I32({2, 1}, {1, 2}));
  ASSERT_TRUE(rows.status.ok()) << rows.status.ToString();
  EXPECT_EQ(rows.outputs[0].dims(), (Dims{2, 2}));
  EXPECT_EQ(rows.outputs[0].strings(), (Texts{"h", "w", "bc", "yz"}));
  OpRun one = Substr(Strings({}, {"hello"}), I32Vec({0, 1, 2}), I32Vec({1, 2, 3}));
  ASSERT_TRUE(one.status.ok()) << one.status.ToString();
  EXPECT_EQ(one.outputs[0].strings(), (Texts{"h", "el", "llo"}));
}

OpRun ReduceJoin(const Tensor& in, std::vector<int32_t> axes, bool keep_dims = false) {
  return RunArgs("ReduceJoin", {In(in), In(I32Vec(axes))},
                 {{"keep_dims", AttrOfBool(keep_dims)}, {"separator", AttrOfString("-")}});
}

TEST_F(StringEditKernelTest, ReduceJoinJoinsAxesInRowMajorOrder) {
  const Tensor in = Strings({2, 3}, {"a", "b", "c", "d", "e", "f"});
  OpRun rows = ReduceJoin(in, {-1}, /*keep_dims=*/true);
  ASSERT_TRUE(rows.status.ok()) << rows.status.ToString();
  EXPECT_EQ(rows.outputs[0].dims(), (Dims{2, 1}));
  EXPECT_EQ(rows.outputs[0].strings(), (Texts{"a-b-c", "d-e-f"}));
  OpRun columns = ReduceJoin(in, {0});
  ASSERT_TRUE(columns.status.ok()) << columns.status.ToString();
  EXPECT_EQ(columns.outputs[0].dims(), (Dims{3}));
  EXPECT_EQ(columns.outputs[0].strings(), (Texts{"a-d", "b-e", "c-f"}));
  OpRun all = ReduceJoin(in, {1, 0});  // the first axis listed varies fastest
  ASSERT_TRUE(all.status.ok()) << all.status.ToString();
  EXPECT_EQ(all.outputs[0].dims(), (Dims{}));
  EXPECT_EQ(all.outputs[0].strings(), (Texts{"a-b-c-d-e-f"}));
  OpRun columns_first = ReduceJoin(in, {0, 1});
  ASSERT_TRUE(columns_first.status.ok()) << columns_first.status.ToString();
  EXPECT_EQ(columns_first.outputs[0].strings(), (Texts{"a-d-b-e-c-f"}));
  OpRun none = ReduceJoin(in, {});  // no axes: nothing joined
  ASSERT_TRUE(none.status.ok()) << none.status.ToString();
  EXPECT_EQ(none.outputs[0].strings(), in.strings());
  OpRun empty = ReduceJoin(Strings({2, 0}, {}), {1});
  ASSERT_TRUE(empty.status.ok()) << empty.status.ToString();
  EXPECT_EQ(empty.outputs[0].strings(), (Texts{"", ""}));
}

TEST_F(StringEditKernelTest, ReduceJoinRefusesBadAxes) {
  const Tensor in = Strings({2, 3}, {"a", "b", "c", "d", "e", "f"});
  ExpectInvalid(ReduceJoin(in, {0, 0}).status, {"Duplicate reduction dimension 0"});
  ExpectInvalid(ReduceJoin(in, {1, -1}).status, {"Duplicate reduction dimension -1"});  // as given
  ExpectInvalid(RunArgs("ReduceJoin", {In(in), In(I32Vec({2}))}, {}, false).status,
                {"Invalid reduction dimension 2 for input with 2 dimension(s)"},
                Code::kOutOfRange);
}

}  // namespace
}  // namespace tgraph::testing
