// Where (coordinates of true elements) and GatherV2 of strings: the kernels boolean_mask runs
// in report_uninitialized_variables.
#include "array_test_util.h"

namespace tgraph::testing {
namespace {

Tensor Bools(std::vector<int64_t> dims, const std::vector<bool>& v) {
  Tensor t = Tensor::Allocate(DT_BOOL, std::move(dims)).value();
  for (size_t i = 0; i < v.size(); ++i) t.flat<bool>()[i] = v[i];
  return t;
}

TEST(WhereKernelTest, CoordinatesOfTrueElementsInRowMajorOrder) {
  OpRun r = RunOp("Where", {Bools({4}, {false, true, true, false})});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.outputs[0].dtype(), DT_INT64);
  EXPECT_EQ(r.outputs[0].dims(), (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(Values<int64_t>(r.outputs[0]), (std::vector<int64_t>{1, 2}));
  r = RunOp("Where", {Bools({2, 3}, {true, false, false, false, true, true})});
  ASSERT_TRUE(r.status.ok());
  EXPECT_EQ(r.outputs[0].dims(), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(Values<int64_t>(r.outputs[0]), (std::vector<int64_t>{0, 0, 1, 1, 1, 2}));
  r = RunOp("Where", {Bools({3}, {false, false, false})});
  ASSERT_TRUE(r.status.ok());
  EXPECT_EQ(r.outputs[0].dims(), (std::vector<int64_t>{0, 1}));
  r = RunOp("Where", {Bools({}, {true})});  // a scalar: one row of no coordinates
  ASSERT_TRUE(r.status.ok());
  EXPECT_EQ(r.outputs[0].dims(), (std::vector<int64_t>{1, 0}));
}

TEST(WhereKernelTest, GatherV2OfStrings) {
  Tensor names = Tensor::Allocate(DT_STRING, {2, 2}).value();
  names.strings() = {"a", "bb", "ccc", ""};
  OpRun r = RunOp("GatherV2", {names, I64({3}, {1, 0, 1}), I32Scalar(0)});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.outputs[0].dims(), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(r.outputs[0].strings(),
            (std::vector<std::string>{"ccc", "", "a", "bb", "ccc", ""}));
  r = RunOp("GatherV2", {names, I32Vec({1}), I32Scalar(1)});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.outputs[0].strings(), (std::vector<std::string>{"bb", ""}));
  r = RunOp("GatherV2", {names, I32Vec({2}), I32Scalar(0)});
  ExpectInvalid(r.status, {"2"});
}

}  // namespace
}  // namespace tgraph::testing
