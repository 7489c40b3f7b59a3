// The array-helper kernels that gradient graphs build: BroadcastGradientArgs, ConcatOffset,
// ShapeN, InvertPermutation, UnsortedSegmentSum, DynamicStitch (and ParallelDynamicStitch),
// Cumsum / Cumprod, Unique and StridedSliceGrad, against hand-computed results (TensorFlow's
// documented examples where it has them), for every registered dtype, with empty tensors and
// the error paths.
#include <cmath>
#include <limits>
#include <type_traits>

#include "array_test_util.h"

namespace tgraph::testing {
namespace {

template <typename T>
constexpr DataType DT() {
  if constexpr (std::is_same_v<T, float>) return DT_FLOAT;
  if constexpr (std::is_same_v<T, double>) return DT_DOUBLE;
  if constexpr (std::is_same_v<T, int32_t>) return DT_INT32;
  if constexpr (std::is_same_v<T, int64_t>) return DT_INT64;
  return DT_INVALID;
}

template <typename T>
Tensor Make(std::vector<int64_t> dims, const std::vector<T>& v) {
  return MakeTensor<T>(DT<T>(), std::move(dims), v);
}

template <typename T>
std::vector<T> V(std::initializer_list<double> v) {
  std::vector<T> out;
  for (double x : v) out.push_back(static_cast<T>(x));
  return out;
}

template <typename T>
class ArrayHelperTypedTest : public ::testing::Test {};
using NumberTypes = ::testing::Types<float, double, int32_t, int64_t>;
TYPED_TEST_SUITE(ArrayHelperTypedTest, NumberTypes);

// ---- BroadcastGradientArgs ----------------------------------------------------------------

void ExpectBcastArgs(std::vector<int64_t> s0, std::vector<int64_t> s1, std::vector<int64_t> r0,
                     std::vector<int64_t> r1) {
  SCOPED_TRACE(::testing::Message() << "s0 size " << s0.size() << ", s1 size " << s1.size());
  for (DataType dt : {DT_INT32, DT_INT64}) {
    auto make = [&](const std::vector<int64_t>& v) {
      if (dt == DT_INT64) return Vec<int64_t>(DT_INT64, v);
      return Vec<int32_t>(DT_INT32, std::vector<int32_t>(v.begin(), v.end()));
    };
    OpRun r = RunOp("BroadcastGradientArgs", {make(s0), make(s1)});
    ASSERT_TRUE(r.status.ok()) << r.status.ToString();
    ASSERT_EQ(r.outputs.size(), 2u);
    EXPECT_EQ(r.outputs[0].dtype(), dt);
    EXPECT_EQ(r.outputs[0].dims(), std::vector<int64_t>{static_cast<int64_t>(r0.size())});
    EXPECT_EQ(r.outputs[1].dims(), std::vector<int64_t>{static_cast<int64_t>(r1.size())});
    if (dt == DT_INT64) {
      EXPECT_EQ(Values<int64_t>(r.outputs[0]), r0);
      EXPECT_EQ(Values<int64_t>(r.outputs[1]), r1);
    } else {
      EXPECT_EQ(Values<int32_t>(r.outputs[0]), std::vector<int32_t>(r0.begin(), r0.end()));
      EXPECT_EQ(Values<int32_t>(r.outputs[1]), std::vector<int32_t>(r1.begin(), r1.end()));
    }
  }
}

TEST(ArrayHelperKernelTest, BroadcastGradientArgs) {
  ExpectBcastArgs({2, 3, 5}, {5}, {}, {0, 1});
  ExpectBcastArgs({5}, {2, 3, 5}, {0, 1}, {});
  ExpectBcastArgs({2, 1, 5}, {3, 1}, {1}, {0, 2});
  ExpectBcastArgs({}, {3, 4}, {0, 1}, {});
  ExpectBcastArgs({2, 3}, {2, 3}, {}, {});  // identical shapes reduce nothing
  ExpectBcastArgs({1, 1}, {1, 1}, {}, {});
  ExpectBcastArgs({1, 1}, {1}, {0, 1}, {0, 1});  // 1 on both sides: listed for both (TF's BCast)
  ExpectBcastArgs({4, 1}, {1, 1}, {1}, {0, 1});
  ExpectBcastArgs({0, 1}, {1, 3}, {1}, {0});  // a size-0 dim broadcasts against 1
  ExpectBcastArgs({}, {}, {}, {});
}

TEST(ArrayHelperKernelTest, BroadcastGradientArgsRejectsBadShapes) {
  ExpectInvalid(RunOp("BroadcastGradientArgs", {I32Vec({2, 3}), I32Vec({4})}, {}, false).status,
                {"node", "Incompatible shapes: [2,3] vs. [4]"});
  ExpectInvalid(
      RunOp("BroadcastGradientArgs", {I32({1, 2}, {2, 3}), I32Vec({3})}, {}, false).status,
      {"node", "In[0] must be a vector"});
  ExpectInvalid(RunOp("BroadcastGradientArgs", {I32Vec({2}), I32Vec({-1})}, {}, false).status,
                {"node", "negative"});
}

// ---- ConcatOffset, ShapeN ------------------------------------------------------------------

TEST(ArrayHelperKernelTest, ConcatOffset) {
  for (int32_t dim : {1, -2}) {
    OpRun r = RunArgs("ConcatOffset", {In(I32Scalar(dim)), List({I32Vec({2, 3, 7}),
                                                                  I32Vec({2, 5, 7}),
                                                                  I32Vec({2, 0, 7})})});
    ASSERT_TRUE(r.status.ok()) << r.status.ToString();
    ASSERT_EQ(r.outputs.size(), 3u);
    EXPECT_EQ(Values<int32_t>(r.outputs[0]), (std::vector<int32_t>{0, 0, 0}));
    EXPECT_EQ(Values<int32_t>(r.outputs[1]), (std::vector<int32_t>{0, 3, 0}));
    EXPECT_EQ(Values<int32_t>(r.outputs[2]), (std::vector<int32_t>{0, 8, 0}));
  }
}

// TF's shape_type = int64: int64 shapes give int64 offsets.
TEST(ArrayHelperKernelTest, ConcatOffsetOfInt64Shapes) {
  auto i64 = [](std::vector<int64_t> v) { return Vec<int64_t>(DT_INT64, v); };
  OpRun r = RunArgs("ConcatOffset", {In(I32Scalar(0)), List({i64({4, 3}), i64({6, 3})})});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  ASSERT_EQ(r.outputs.size(), 2u);
  EXPECT_EQ(Values<int64_t>(r.outputs[0]), (std::vector<int64_t>{0, 0}));
  EXPECT_EQ(Values<int64_t>(r.outputs[1]), (std::vector<int64_t>{4, 0}));
}

TEST(ArrayHelperKernelTest, ConcatOffsetRejectsBadShapes) {
  auto run = [](int32_t dim, std::vector<Tensor> shapes) {
    return RunArgs("ConcatOffset", {In(I32Scalar(dim)), List(std::move(shapes))}, {}, false)
        .status;
  };
  ExpectInvalid(run(2, {I32Vec({2, 3}), I32Vec({2, 4})}), {"node", "Concat dim is out of range"});
  ExpectInvalid(run(0, {I32Vec({2, 3}), I32Vec({2, 4})}),
                {"node", "Input 1 has shape [2,4]", "input 0 with shape [2,3]"});
  ExpectInvalid(run(0, {I32Vec({2, 3}), I32Vec({2})}), {"node", "should contain 2 elements"});
  ExpectInvalid(
      RunArgs("ConcatOffset", {In(I32Vec({0})), List({I32Vec({2}), I32Vec({2})})}, {}, false)
          .status,
      {"concat_dim must be a scalar"});
}

TEST(ArrayHelperKernelTest, ShapeN) {
  Tensor a = Iota({2, 3}), b = F32({}, {1}), c = Tensor::Allocate(DT_INT64, {0, 4}).value();
  OpRun r = RunArgs("ShapeN", {List({a, b})});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  ASSERT_EQ(r.outputs.size(), 2u);
  EXPECT_EQ(Values<int32_t>(r.outputs[0]), (std::vector<int32_t>{2, 3}));
  EXPECT_EQ(r.outputs[1].dims(), std::vector<int64_t>{0});
  r = RunArgs("ShapeN", {List({c})}, {{"out_type", AttrOfType(DT_INT64)}});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.outputs[0].dtype(), DT_INT64);
  EXPECT_EQ(Values<int64_t>(r.outputs[0]), (std::vector<int64_t>{0, 4}));
}

// ---- InvertPermutation ---------------------------------------------------------------------

TEST(ArrayHelperKernelTest, InvertPermutation) {
  OpRun r = RunOp("InvertPermutation", {I32Vec({3, 4, 0, 2, 1})});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<int32_t>(r.outputs[0]), (std::vector<int32_t>{2, 4, 3, 0, 1}));
  r = RunOp("InvertPermutation", {I64({3}, {1, 2, 0})});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<int64_t>(r.outputs[0]), (std::vector<int64_t>{2, 0, 1}));
  r = RunOp("InvertPermutation", {I32Vec({})});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.outputs[0].NumElements(), 0);
}

TEST(ArrayHelperKernelTest, InvertPermutationRejectsNonPermutations) {
  ExpectInvalid(RunOp("InvertPermutation", {I32Vec({0, 3, 1})}, {}, false).status,
                {"node", "x[1] = 3", "not between 0 and 3"});
  ExpectInvalid(RunOp("InvertPermutation", {I64({3}, {0, -1, 1})}, {}, false).status,
                {"x[1] = -1"});
  ExpectInvalid(RunOp("InvertPermutation", {I32Vec({0, 1, 1})}, {}, false).status,
                {"node", "1 is duplicated"});
  ExpectInvalid(RunOp("InvertPermutation", {I32({2, 1}, {0, 1})}, {}, false).status,
                {"1D vector"});
}

// ---- UnsortedSegmentSum --------------------------------------------------------------------

TYPED_TEST(ArrayHelperTypedTest, UnsortedSegmentSum) {
  using T = TypeParam;
  Tensor data = Make<T>({4, 2}, V<T>({1, 2, 3, 4, 5, 6, 7, 8}));
  // Row 3 has a negative id: dropped.
  OpRun r = RunOp("UnsortedSegmentSum", {data, I32Vec({0, 2, 0, -1}), I32Scalar(3)});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.outputs[0].dims(), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(Values<T>(r.outputs[0]), V<T>({6, 8, 0, 0, 3, 4}));
  // Ids of rank 2 over data [2,2,2]; int64 ids and num_segments.
  Tensor cube = Make<T>({2, 2, 2}, V<T>({1, 2, 3, 4, 5, 6, 7, 8}));
  r = RunOp("UnsortedSegmentSum", {cube, I64({2, 2}, {1, 1, 0, 1}), I64({}, {2})});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.outputs[0].dims(), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(Values<T>(r.outputs[0]), V<T>({5, 6, 11, 14}));
  // Ids with the data's full shape: a scalar per element.
  r = RunOp("UnsortedSegmentSum", {Make<T>({3}, V<T>({1, 2, 3})), I32Vec({1, 1, 1}), I32Scalar(2)});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<T>(r.outputs[0]), V<T>({0, 6}));
  // Empty data: all-zero segments.
  r = RunOp("UnsortedSegmentSum",
            {Tensor::Allocate(DT<T>(), {0, 3}).value(), I32Vec({}), I32Scalar(2)});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.outputs[0].dims(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(Values<T>(r.outputs[0]), V<T>({0, 0, 0, 0, 0, 0}));
}

TEST(ArrayHelperKernelTest, UnsortedSegmentSumLargeOnPool) {
  const int64_t rows = 1000, cols = 300;
  Tensor data = Tensor::Allocate(DT_FLOAT, {rows, cols}).value();
  std::vector<int32_t> ids(rows);
  for (int64_t i = 0; i < rows * cols; ++i) data.flat<float>()[i] = 1.0f;
  for (int64_t i = 0; i < rows; ++i) ids[static_cast<size_t>(i)] = static_cast<int32_t>(i % 7);
  OpRun r = RunArgs("UnsortedSegmentSum", {In(data), In(I32Vec(ids)), In(I32Scalar(7))}, {}, true,
                    TestPool());
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  const float* y = r.outputs[0].flat<float>();
  for (int s = 0; s < 7; ++s) {
    const float expect = static_cast<float>((rows - s + 6) / 7);
    EXPECT_EQ(y[s * cols], expect);
    EXPECT_EQ(y[s * cols + cols - 1], expect);
  }
}

TEST(ArrayHelperKernelTest, UnsortedSegmentSumRejectsBadInput) {
  Tensor data = F32({3, 2}, {1, 2, 3, 4, 5, 6});
  ExpectInvalid(
      RunOp("UnsortedSegmentSum", {data, I32Vec({0, 5, 1}), I32Scalar(3)}, {}, false).status,
      {"node", "segment_ids[1] = 5", "[0, 3)"});
  ExpectInvalid(RunOp("UnsortedSegmentSum", {data, I32Vec({0, 1}), I32Scalar(3)}, {}, false).status,
                {"node", "data.shape = [3,2] does not start with segment_ids.shape = [2]"});
  ExpectInvalid(
      RunOp("UnsortedSegmentSum", {data, I32Vec({0, 1, 2}), I32Vec({3})}, {}, false).status,
      {"num_segments should be a scalar"});
  ExpectInvalid(
      RunOp("UnsortedSegmentSum", {data, I32Vec({0, 1, 2}), I32Scalar(-1)}, {}, false).status,
      {"non-negative"});
}

// ---- DynamicStitch -------------------------------------------------------------------------

// ParallelDynamicStitch runs the same kernel: later inputs win there too.
TYPED_TEST(ArrayHelperTypedTest, DynamicStitch) {
  using T = TypeParam;
  for (const char* op : {"DynamicStitch", "ParallelDynamicStitch"}) {
    SCOPED_TRACE(op);
    // TensorFlow's documented example.
    Tensor i0 = I32({}, {6}), i1 = I32Vec({4, 1}), i2 = I32({2, 2}, {5, 2, 0, 3});
    Tensor d0 = Make<T>({2}, V<T>({61, 62}));
    Tensor d1 = Make<T>({2, 2}, V<T>({41, 42, 11, 12}));
    Tensor d2 = Make<T>({2, 2, 2}, V<T>({51, 52, 21, 22, 1, 2, 31, 32}));
    OpRun r = RunArgs(op, {List({i0, i1, i2}), List({d0, d1, d2})});
    ASSERT_TRUE(r.status.ok()) << r.status.ToString();
    EXPECT_EQ(r.outputs[0].dims(), (std::vector<int64_t>{7, 2}));
    EXPECT_EQ(Values<T>(r.outputs[0]),
              V<T>({1, 2, 11, 12, 21, 22, 31, 32, 41, 42, 51, 52, 61, 62}));
    // A later input wins; an index nobody names is zero.
    r = RunArgs(op, {List({I32Vec({0, 3}), I32Vec({3})}),
                     List({Make<T>({2}, V<T>({7, 8})), Make<T>({1}, V<T>({9}))})});
    ASSERT_TRUE(r.status.ok()) << r.status.ToString();
    EXPECT_EQ(Values<T>(r.outputs[0]), V<T>({7, 0, 0, 9}));
    // Nothing to stitch.
    r = RunArgs(op, {List({I32Vec({})}), List({Tensor::Allocate(DT<T>(), {0, 3}).value()})});
    ASSERT_TRUE(r.status.ok()) << r.status.ToString();
    EXPECT_EQ(r.outputs[0].dims(), (std::vector<int64_t>{0, 3}));
  }
}

TEST(ArrayHelperKernelTest, DynamicStitchRejectsBadInput) {
  auto run = [](std::vector<Tensor> idx, std::vector<Tensor> data) {
    return RunArgs("DynamicStitch", {List(std::move(idx)), List(std::move(data))}, {}, false)
        .status;
  };
  ExpectInvalid(run({I32Vec({0, -1})}, {F32({2}, {1, 2})}),
                {"node", "indices[0] holds -1", "non-negative"});
  ExpectInvalid(run({I32Vec({0, 1})}, {F32({3}, {1, 2, 3})}),
                {"node", "data[0].shape = [3] does not start with indices[0].shape = [2]"});
  ExpectInvalid(run({I32Vec({0}), I32Vec({1})}, {F32({1, 2}, {1, 2}), F32({1, 3}, {1, 2, 3})}),
                {"node", "Need data[0].shape[1:] = [2]", "data[1].shape[1:] = [3]"});
}

// ---- Cumsum, Cumprod -----------------------------------------------------------------------

struct ScanCase {
  const char* op;
  int axis;
  bool exclusive, reverse;
  std::initializer_list<double> expect;
};

TYPED_TEST(ArrayHelperTypedTest, CumsumCumprod) {
  using T = TypeParam;
  Tensor x = Make<T>({2, 3}, V<T>({1, 2, 3, 4, 5, 6}));
  const ScanCase cases[] = {
      {"Cumsum", 1, false, false, {1, 3, 6, 4, 9, 15}},
      {"Cumsum", -1, true, false, {0, 1, 3, 0, 4, 9}},
      {"Cumsum", 1, false, true, {6, 5, 3, 15, 11, 6}},
      {"Cumsum", 1, true, true, {5, 3, 0, 11, 6, 0}},
      {"Cumsum", 0, false, false, {1, 2, 3, 5, 7, 9}},
      {"Cumsum", -2, true, true, {4, 5, 6, 0, 0, 0}},
      {"Cumprod", 1, false, false, {1, 2, 6, 4, 20, 120}},
      {"Cumprod", 1, true, false, {1, 1, 2, 1, 4, 20}},
      {"Cumprod", 1, false, true, {6, 6, 3, 120, 30, 6}},
      {"Cumprod", 1, true, true, {6, 3, 1, 30, 6, 1}},
      {"Cumprod", 0, false, false, {1, 2, 3, 4, 10, 18}},
  };
  for (const ScanCase& c : cases) {
    SCOPED_TRACE(::testing::Message() << c.op << " axis " << c.axis << " exclusive "
                                      << c.exclusive << " reverse " << c.reverse);
    AttrMap attrs{{"exclusive", AttrOfBool(c.exclusive)}, {"reverse", AttrOfBool(c.reverse)}};
    OpRun r = RunOp(c.op, {x, I32Scalar(c.axis)}, attrs);
    ASSERT_TRUE(r.status.ok()) << r.status.ToString();
    EXPECT_EQ(r.outputs[0].dims(), (std::vector<int64_t>{2, 3}));
    EXPECT_EQ(Values<T>(r.outputs[0]), V<T>(c.expect));
  }
  // int64 axis, a vector, and an empty tensor.
  OpRun r = RunOp("Cumsum", {Make<T>({3}, V<T>({1, 2, 3})), I64({}, {0})});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<T>(r.outputs[0]), V<T>({1, 3, 6}));
  r = RunOp("Cumprod", {Tensor::Allocate(DT<T>(), {2, 0}).value(), I32Scalar(1)});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.outputs[0].dims(), (std::vector<int64_t>{2, 0}));
}

TEST(ArrayHelperKernelTest, CumsumLargeOnPool) {
  // [3, 1000, 700]: scans along each axis, the inner one wider than a lane block.
  Tensor x = Tensor::Allocate(DT_INT64, {3, 1000, 700}).value();
  for (int64_t i = 0; i < x.NumElements(); ++i) x.flat<int64_t>()[i] = 1;
  for (int axis = 0; axis < 3; ++axis) {
    OpRun r = RunArgs("Cumsum", {In(x), In(I32Scalar(axis))}, {{"reverse", AttrOfBool(true)}},
                      true, TestPool());
    ASSERT_TRUE(r.status.ok()) << r.status.ToString();
    const int64_t* y = r.outputs[0].flat<int64_t>();
    const int64_t len = x.dims()[static_cast<size_t>(axis)];
    // The first element along the axis holds the whole (reversed) sum, the last one 1.
    EXPECT_EQ(y[0], len);
    EXPECT_EQ(y[x.NumElements() - 1], 1);
    EXPECT_EQ(y[1 * 700 * 1000 + 5 * 700 + 650],
              axis == 0 ? 2 : axis == 1 ? 1000 - 5 : 700 - 650);
  }
}

TEST(ArrayHelperKernelTest, ScanRejectsBadAxis) {
  Tensor x = F32({2, 2}, {1, 2, 3, 4});
  ExpectInvalid(RunOp("Cumsum", {x, I32Scalar(2)}, {}, false).status,
                {"node", "Expected scan axis in the range [-2, 2), but got 2"});
  ExpectInvalid(RunOp("Cumprod", {x, I32Scalar(-3)}, {}, false).status, {"but got -3"});
  ExpectInvalid(RunOp("Cumsum", {x, I32Vec({0})}, {}, false).status, {"axis must be a scalar"});
  ExpectInvalid(RunOp("Cumsum", {F32({}, {1}), I32Scalar(0)}, {}, false).status,
                {"range [0, 0)"});
}

// ---- Unique --------------------------------------------------------------------------------

TYPED_TEST(ArrayHelperTypedTest, Unique) {
  using T = TypeParam;
  OpRun r = RunOp("Unique", {Make<T>({9}, V<T>({1, 1, 2, 4, 4, 4, 7, 8, 8}))});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<T>(r.outputs[0]), V<T>({1, 2, 4, 7, 8}));
  EXPECT_EQ(r.outputs[1].dtype(), DT_INT32);
  EXPECT_EQ(Values<int32_t>(r.outputs[1]), (std::vector<int32_t>{0, 0, 1, 2, 2, 2, 3, 4, 4}));
  // Order of first occurrence, not sorted; int64 idx.
  r = RunOp("Unique", {Make<T>({5}, V<T>({3, 1, 3, 2, 1}))}, {{"out_idx", AttrOfType(DT_INT64)}});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<T>(r.outputs[0]), V<T>({3, 1, 2}));
  EXPECT_EQ(Values<int64_t>(r.outputs[1]), (std::vector<int64_t>{0, 1, 0, 2, 1}));
  r = RunOp("Unique", {Make<T>({0}, {})});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.outputs[0].dims(), std::vector<int64_t>{0});
  EXPECT_EQ(r.outputs[1].dims(), std::vector<int64_t>{0});
}

TEST(ArrayHelperKernelTest, UniqueFloatEquality) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  OpRun r = RunOp("Unique", {F32({5}, {0.0f, -0.0f, nan, nan, 1.0f})});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  const std::vector<float> y = Values<float>(r.outputs[0]);
  ASSERT_EQ(y.size(), 4u);  // 0 == -0; no NaN equals another
  EXPECT_EQ(y[0], 0.0f);
  EXPECT_TRUE(std::isnan(y[1]) && std::isnan(y[2]));
  EXPECT_EQ(Values<int32_t>(r.outputs[1]), (std::vector<int32_t>{0, 0, 1, 2, 3}));
}

TEST(ArrayHelperKernelTest, UniqueRejectsNonVectors) {
  ExpectInvalid(RunOp("Unique", {F32({2, 1}, {1, 2})}, {}, false).status,
                {"node", "unique expects a 1D vector"});
}

// ---- StridedSliceGrad ----------------------------------------------------------------------

struct Masks {
  int64_t begin = 0, end = 0, ellipsis = 0, new_axis = 0, shrink = 0;
};

AttrMap MaskAttrs(const Masks& m) {
  return {{"begin_mask", AttrOfInt(m.begin)},
          {"end_mask", AttrOfInt(m.end)},
          {"ellipsis_mask", AttrOfInt(m.ellipsis)},
          {"new_axis_mask", AttrOfInt(m.new_axis)},
          {"shrink_axis_mask", AttrOfInt(m.shrink)}};
}

OpRun SliceGrad(std::vector<int32_t> shape, std::vector<int32_t> b, std::vector<int32_t> e,
                std::vector<int32_t> s, const Tensor& dy, Masks m = {}, bool known = true,
                ThreadPool* pool = nullptr) {
  return RunArgs("StridedSliceGrad",
                 {In(I32Vec(shape)), In(I32Vec(b)), In(I32Vec(e)), In(I32Vec(s)), In(dy)},
                 MaskAttrs(m), known, pool);
}

TEST(ArrayHelperKernelTest, StridedSliceGradValues) {
  // x[1:, ::2] of a [3,4] tensor.
  OpRun r = SliceGrad({3, 4}, {1, 0}, {0, 0}, {1, 2}, F32({2, 2}, {1, 2, 3, 4}),
                      {.begin = 2, .end = 3});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.outputs[0].dims(), (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(Values<float>(r.outputs[0]),
            (std::vector<float>{0, 0, 0, 0, 1, 0, 2, 0, 3, 0, 4, 0}));
  // x[::-1, -1]: a negative stride and a shrunk axis.
  r = SliceGrad({3, 4}, {0, -1}, {0, 0}, {-1, 1}, F32({3}, {7, 8, 9}),
                {.begin = 1, .end = 1, .shrink = 2});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<float>(r.outputs[0]),
            (std::vector<float>{0, 0, 0, 9, 0, 0, 0, 8, 0, 0, 0, 7}));
  // x[1, 2]: a scalar dy; int64 Index.
  r = RunArgs("StridedSliceGrad",
              {In(I64({2}, {3, 4})), In(I64({2}, {1, 2})), In(I64({2}, {2, 3})),
               In(I64({2}, {1, 1})), In(F32({}, {5}))},
              MaskAttrs({.shrink = 3}));
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<float>(r.outputs[0])[6], 5.0f);
  EXPECT_EQ(Values<float>(r.outputs[0])[7], 0.0f);
  // An empty slice and an empty shape.
  r = SliceGrad({3, 4}, {2, 0}, {2, 4}, {1, 1}, Tensor::Allocate(DT_FLOAT, {0, 4}).value());
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<float>(r.outputs[0]), std::vector<float>(12, 0.0f));
  r = SliceGrad({0, 4}, {0}, {0}, {1}, Tensor::Allocate(DT_FLOAT, {0, 4}).value());
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.outputs[0].dims(), (std::vector<int64_t>{0, 4}));
}

// Each spec: StridedSlice of x = 1, 2, 3, ... then StridedSliceGrad of that output must put
// every value back at its own position (x's value there) and zeros elsewhere.
TEST(ArrayHelperKernelTest, StridedSliceGradInvertsTheForwardSlice) {
  struct Spec {
    std::vector<int64_t> shape;
    std::vector<int32_t> b, e, s;
    Masks m;
  };
  const Spec specs[] = {
      {{4, 5, 6}, {1, -1, 0}, {3, 0, 6}, {1, -2, 3}, {}},
      {{4, 5, 6}, {0, 1}, {0, 4}, {1, 1}, {.begin = 1, .end = 1}},
      {{4, 5, 6}, {0, 2}, {0, 6}, {1, 2}, {.ellipsis = 1}},           // x[..., 2::2]
      {{4, 5, 6}, {1, 0, 0}, {2, 0, 0}, {1, 1, 1}, {.ellipsis = 2, .new_axis = 4, .shrink = 1}},
      {{4, 5, 6}, {-10, 3}, {10, -10}, {1, -1}, {}},                   // clamped ends
      {{7}, {5}, {0}, {-2}, {.end = 1}},                               // x[5::-2]
      {{2, 3, 4, 5}, {1, 0, 3}, {2, 0, 0}, {1, 1, -1}, {.end = 2, .shrink = 1}},
  };
  for (const Spec& sp : specs) {
    SCOPED_TRACE(::testing::Message() << "shape rank " << sp.shape.size() << ", begin size "
                                      << sp.b.size());
    Tensor x = Iota(sp.shape);
    for (int64_t i = 0; i < x.NumElements(); ++i) x.flat<float>()[i] += 1;
    OpRun fwd = RunArgs("StridedSlice", {In(x), In(I32Vec(sp.b)), In(I32Vec(sp.e)), In(I32Vec(sp.s))},
                        MaskAttrs(sp.m));
    ASSERT_TRUE(fwd.status.ok()) << fwd.status.ToString();
    std::vector<int32_t> shape(sp.shape.begin(), sp.shape.end());
    OpRun r = SliceGrad(shape, sp.b, sp.e, sp.s, fwd.outputs[0], sp.m, true, TestPool());
    ASSERT_TRUE(r.status.ok()) << r.status.ToString();
    ASSERT_EQ(r.outputs[0].dims(), sp.shape);
    int64_t nonzero = 0;
    for (int64_t i = 0; i < x.NumElements(); ++i) {
      const float v = r.outputs[0].flat<float>()[i];
      if (v != 0) {
        ++nonzero;
        EXPECT_EQ(v, static_cast<float>(i + 1)) << "at " << i;
      }
    }
    EXPECT_EQ(nonzero, fwd.outputs[0].NumElements());
  }
}

TEST(ArrayHelperKernelTest, StridedSliceGradDtypes) {
  // x[:, 1] of [2,3] for double, int32, int64 and bool.
  auto check = [](const Tensor& dy, auto zero, auto a, auto b) {
    using E = decltype(zero);
    OpRun r = SliceGrad({2, 3}, {0, 1}, {0, 2}, {1, 1}, dy, {.begin = 1, .end = 1, .shrink = 2});
    ASSERT_TRUE(r.status.ok()) << r.status.ToString();
    EXPECT_EQ(r.outputs[0].dtype(), dy.dtype());
    EXPECT_EQ(Values<E>(r.outputs[0]), (std::vector<E>{zero, a, zero, zero, b, zero}));
  };
  check(MakeTensor<double>(DT_DOUBLE, {2}, {1.5, 2.5}), 0.0, 1.5, 2.5);
  check(I32({2}, {3, 4}), int32_t{0}, int32_t{3}, int32_t{4});
  check(I64({2}, {5, 6}), int64_t{0}, int64_t{5}, int64_t{6});
  check(MakeTensor<bool>(DT_BOOL, {2}, {true, true}), false, true, true);
}

TEST(ArrayHelperKernelTest, StridedSliceGradRejectsBadInput) {
  ExpectInvalid(
      SliceGrad({3, 4}, {1, 0}, {0, 0}, {1, 2}, F32({2, 3}, {1, 2, 3, 4, 5, 6}),
                {.begin = 2, .end = 3}, false)
          .status,
      {"node", "shape of dy was [2,3] instead of [2,2]"});
  ExpectInvalid(SliceGrad({3, 4}, {5}, {6}, {1}, F32({4}, {1, 2, 3, 4}), {.shrink = 1}, false)
                    .status,
                {"node", "slice index 5 of dimension 0 out of bounds"});
  ExpectInvalid(SliceGrad({3, 4}, {0}, {1}, {0}, F32({0, 4}, {}), {}, false).status,
                {"strides[0] must be non-zero"});
  ExpectInvalid(SliceGrad({3, -4}, {0}, {1}, {1}, F32({1, 4}, {1, 2, 3, 4}), {}, false).status,
                {"non-negative"});
  ExpectInvalid(SliceGrad({3, 4}, {0, 0}, {1}, {1}, F32({1, 4}, {1, 2, 3, 4}), {}, false).status,
                {"equal size"});
}

}  // namespace
}  // namespace tgraph::testing
