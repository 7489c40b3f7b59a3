// CPU kernels of the matrix-structure ops (MatrixBandPart, MatrixDiag*, MatrixDiagPart*,
// MatrixSetDiag*, Diag, DiagPart) and the segment reductions (Segment*, UnsortedSegment*,
// SparseSegment* and the SparseSegment*Grad helpers): values TensorFlow 2.x computes for the
// same inputs (each align mode, k ranges, batch dims, empty tensors, empty segments), every
// registered dtype, and the argument checks (INVALID_ARGUMENT naming the node, TensorFlow's
// messages). tests/python/test_differential_matrix_segment.py compares with TensorFlow itself.
#include <Eigen/Core>

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
  if constexpr (std::is_same_v<T, Eigen::half>) return DT_HALF;
  if constexpr (std::is_same_v<T, Eigen::bfloat16>) return DT_BFLOAT16;
  return DT_INVALID;
}

template <typename T>
std::vector<T> V(std::initializer_list<double> v) {
  std::vector<T> out;
  for (double x : v) out.push_back(static_cast<T>(x));
  return out;
}

template <typename T>
Tensor Make(std::vector<int64_t> dims, const std::vector<T>& v) {
  return MakeTensor<T>(DT<T>(), std::move(dims), v);
}

// 1, 2, ..., n as floats.
Tensor Seq(std::vector<int64_t> dims) {
  std::vector<float> v(static_cast<size_t>(Count(dims)));
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i + 1);
  return F32(std::move(dims), v);
}

Tensor F32Scalar(float v) { return MakeTensor<float>(DT_FLOAT, {}, {v}); }

AttrMap Align(const char* a) { return {{"align", AttrOfString(a)}}; }

void ExpectF32(const OpRun& r, const Dims& dims, const std::vector<float>& want) {
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.outputs[0].dims(), dims);
  EXPECT_EQ(Values<float>(r.outputs[0]), want);
}

// ---- MatrixBandPart ----

TEST(MatrixDiagKernelTest, MatrixBandPart) {
  struct Case {
    int64_t lo, hi;
    std::vector<float> want;
  };
  for (const Case& c : std::vector<Case>{{1, 0, {1, 0, 0, 0, 5, 6, 0, 0, 0, 10, 11, 0}},
                                         {-1, 1, {1, 2, 0, 0, 5, 6, 7, 0, 9, 10, 11, 12}},
                                         {0, -1, {1, 2, 3, 4, 0, 6, 7, 8, 0, 0, 11, 12}},
                                         {3, 4, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}}}) {
    SCOPED_TRACE(::testing::Message() << c.lo << ", " << c.hi);
    ExpectF32(RunOp("MatrixBandPart", {Seq({3, 4}), I64({}, {c.lo}), I64({}, {c.hi})}), {3, 4},
              c.want);
  }
  // Batch dims, int32 bounds, an int64 tensor.
  OpRun r = RunOp("MatrixBandPart", {Make<int64_t>({2, 2, 2}, V<int64_t>({1, 2, 3, 4, 5, 6, 7, 8})),
                                     I32Scalar(0), I32Scalar(0)});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<int64_t>(r.outputs[0]), V<int64_t>({1, 0, 0, 4, 5, 0, 0, 8}));
  ExpectF32(RunOp("MatrixBandPart", {F32({0, 3, 2}, {}), I32Scalar(1), I32Scalar(1)}), {0, 3, 2},
            {});
  ExpectInvalid(RunOp("MatrixBandPart", {Seq({3, 4}), I64({}, {4}), I64({}, {1})}).status,
                {"node", "num_lower must be negative or less or equal to number of rows (3) got: 4"});
  ExpectInvalid(RunOp("MatrixBandPart", {Seq({3, 4}), I64({}, {1}), I64({}, {5})}).status,
                {"node", "num_upper must be negative or less or equal to number of columns (4)"});
  ExpectInvalid(RunOp("MatrixBandPart", {Seq({4}), I64({}, {1}), I64({}, {1})}, {}, false).status,
                {"node", "at least 2-dim"});
}

// ---- MatrixDiagPart* ----

TEST(MatrixDiagKernelTest, MatrixDiagPartV3EachAlign) {
  struct Case {
    const char* align;
    std::vector<float> want;
  };
  for (const Case& c : std::vector<Case>{
           {"RIGHT_LEFT", {9, 3, 8, 2, 7, 12, 1, 6, 11, 5, 10, 9,
                           9, 15, 20, 14, 19, 24, 13, 18, 23, 17, 22, 9}},
           {"LEFT_RIGHT", {3, 8, 9, 2, 7, 12, 1, 6, 11, 9, 5, 10,
                           15, 20, 9, 14, 19, 24, 13, 18, 23, 9, 17, 22}},
           {"LEFT_LEFT", {3, 8, 9, 2, 7, 12, 1, 6, 11, 5, 10, 9,
                          15, 20, 9, 14, 19, 24, 13, 18, 23, 17, 22, 9}},
           {"RIGHT_RIGHT", {9, 3, 8, 2, 7, 12, 1, 6, 11, 9, 5, 10,
                            9, 15, 20, 14, 19, 24, 13, 18, 23, 9, 17, 22}}}) {
    SCOPED_TRACE(c.align);
    ExpectF32(RunOp("MatrixDiagPartV3", {Seq({2, 3, 4}), I32Vec({-1, 2}), F32Scalar(9)},
                    Align(c.align)),
              {2, 4, 3}, c.want);
  }
  // V2 packs LEFT_LEFT.
  ExpectF32(RunOp("MatrixDiagPartV2", {Seq({2, 3, 4}), I32Vec({-1, 2}), F32Scalar(9)}), {2, 4, 3},
            {3, 8, 9, 2, 7, 12, 1, 6, 11, 5, 10, 9, 15, 20, 9, 14, 19, 24, 13, 18, 23, 17, 22, 9});
  // One diagonal (a scalar k): no diagonal dimension.
  ExpectF32(RunOp("MatrixDiagPartV3", {Seq({3, 4}), I32Scalar(1), F32Scalar(0)}, Align("LEFT_LEFT")),
            {3}, {2, 7, 12});
  ExpectF32(RunOp("MatrixDiagPart", {Seq({2, 3, 2})}), {2, 2}, {1, 4, 7, 10});
  // An empty batch.
  ExpectF32(RunOp("MatrixDiagPartV3", {F32({0, 3, 4}, {}), I32Vec({0, 1}), F32Scalar(0)}),
            {0, 2, 3}, {});
}

TEST(MatrixDiagKernelTest, MatrixDiagPartRejectsBadK) {
  auto run = [](std::vector<int32_t> k) {
    return RunOp("MatrixDiagPartV3", {Seq({3, 4}), I32Vec(k), F32Scalar(0)}).status;
  };
  ExpectInvalid(run({-3, 1}), {"node", "lower_diag_index is out of bound: -3"});
  ExpectInvalid(run({0, 4}), {"node", "upper_diag_index is out of bound: 4"});
  ExpectInvalid(run({1, -1}), {"node", "lower_diag_index must not be larger than upper_diag_index"});
  ExpectInvalid(run({0, 1, 2}), {"node", "1 or 2 elements"});
}

// ---- MatrixDiag* ----

TEST(MatrixDiagKernelTest, MatrixDiagV3) {
  Tensor d = Seq({2, 2, 3});
  ExpectF32(RunOp("MatrixDiagV3", {d, I32Vec({-1, 0}), I32Scalar(-1), I32Scalar(-1), F32Scalar(0)},
                  Align("RIGHT_LEFT")),
            {2, 3, 3}, {1, 0, 0, 4, 2, 0, 0, 5, 3, 7, 0, 0, 10, 8, 0, 0, 11, 9});
  ExpectF32(RunOp("MatrixDiagV3", {d, I32Vec({-1, 0}), I32Scalar(-1), I32Scalar(-1), F32Scalar(0)},
                  Align("LEFT_RIGHT")),
            {2, 3, 3}, {1, 0, 0, 5, 2, 0, 0, 6, 3, 7, 0, 0, 11, 8, 0, 0, 12, 9});
  // num_rows given, num_cols inferred; padding 7; a right-aligned superdiagonal.
  ExpectF32(RunOp("MatrixDiagV3", {Seq({2, 3}), I32Vec({0, 1}), I32Scalar(3), I32Scalar(-1),
                                   F32Scalar(7)}),
            {3, 3}, {4, 2, 7, 7, 5, 3, 7, 7, 6});
  // V1: square matrices; V2 with a single k.
  ExpectF32(RunOp("MatrixDiag", {Seq({2, 2})}), {2, 2, 2}, {1, 0, 0, 2, 3, 0, 0, 4});
  ExpectF32(RunOp("MatrixDiagV2", {Seq({2}), I32Scalar(1), I32Scalar(-1), I32Scalar(-1),
                                   F32Scalar(0)}),
            {3, 3}, {0, 1, 0, 0, 0, 2, 0, 0, 0});
  ExpectF32(RunOp("MatrixDiag", {F32({0, 2}, {})}), {0, 2, 2}, {});
  ExpectInvalid(RunOp("MatrixDiagV3", {Seq({2, 3}), I32Vec({0, 2}), I32Scalar(-1), I32Scalar(-1),
                                       F32Scalar(0)}).status,
                {"node", "The number of diagonals provided in the input does not match"});
  ExpectInvalid(RunOp("MatrixDiagV3", {Seq({2, 3}), I32Vec({0, 1}), I32Scalar(5), I32Scalar(7),
                                       F32Scalar(0)}).status,
                {"node", "The number of rows or columns is not consistent"});
}

// ---- MatrixSetDiag* ----

TEST(MatrixDiagKernelTest, MatrixSetDiagV3EachAlign) {
  struct Case {
    const char* align;
    std::vector<float> want;
  };
  for (const Case& c : std::vector<Case>{{"RIGHT_LEFT", {4, 1, 0, 0, 7, 5, 2, 0, 0, 8, 6, 3}},
                                         {"LEFT_RIGHT", {4, 1, 0, 0, 8, 5, 2, 0, 0, 9, 6, 3}},
                                         {"LEFT_LEFT", {4, 1, 0, 0, 7, 5, 2, 0, 0, 8, 6, 3}},
                                         {"RIGHT_RIGHT", {4, 1, 0, 0, 8, 5, 2, 0, 0, 9, 6, 3}}}) {
    SCOPED_TRACE(c.align);
    ExpectF32(RunOp("MatrixSetDiagV3", {F32({3, 4}, std::vector<float>(12, 0.f)), Seq({3, 3}),
                                        I32Vec({-1, 1})},
                    Align(c.align)),
              {3, 4}, c.want);
  }
  ExpectF32(RunOp("MatrixSetDiagV2", {F32({3, 4}, std::vector<float>(12, 0.f)), Seq({3, 3}),
                                      I32Vec({-1, 1})}),
            {3, 4}, {4, 1, 0, 0, 7, 5, 2, 0, 0, 8, 6, 3});
  ExpectF32(RunOp("MatrixSetDiag", {Seq({2, 2, 3}), F32({2, 2}, {-1, -2, -3, -4})}), {2, 2, 3},
            {-1, 2, 3, 4, -2, 6, -3, 8, 9, 10, -4, 12});
  ExpectInvalid(RunOp("MatrixSetDiagV3", {Seq({3, 4}), Seq({2, 3}), I32Vec({0, 2})}).status,
                {"node", "The number of diagonals provided in `diag` is not consistent"});
  ExpectInvalid(RunOp("MatrixSetDiagV3", {Seq({3, 4}), Seq({2, 2}), I32Vec({0, 1})}).status,
                {"node", "Either first dimensions of diagonal don't match"});
}

// ---- Diag / DiagPart ----

TEST(MatrixDiagKernelTest, DiagAndDiagPart) {
  ExpectF32(RunOp("Diag", {Seq({2, 2})}), {2, 2, 2, 2},
            {1, 0, 0, 0, 0, 2, 0, 0, 0, 0, 3, 0, 0, 0, 0, 4});
  ExpectF32(RunOp("DiagPart", {Seq({2, 3, 2, 3})}), {2, 3}, {1, 8, 15, 22, 29, 36});
  OpRun r = RunOp("Diag", {Make<int32_t>({2}, V<int32_t>({5, 6}))});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<int32_t>(r.outputs[0]), V<int32_t>({5, 0, 0, 6}));
  ExpectF32(RunOp("Diag", {F32({0}, {})}), {0, 0}, {});
  ExpectInvalid(RunOp("DiagPart", {Seq({3, 4})}, {}, false).status,
                {"node", "Invalid shape [3,4]: dimensions 0 and 1 do not match."});
  ExpectInvalid(RunOp("DiagPart", {Seq({3})}, {}, false).status, {"node", "even and positive"});
}

// ---- sorted segments ----

template <typename T>
class SegmentTypedTest : public ::testing::Test {};
using NumberTypes =
    ::testing::Types<float, double, int32_t, int64_t, Eigen::half, Eigen::bfloat16>;
TYPED_TEST_SUITE(SegmentTypedTest, NumberTypes);

// Half and bfloat16 keep 11 and 8 significant bits.
template <typename T>
double Tol() {
  return sizeof(T) == 2 ? 3e-2 : 1e-6;
}

template <typename T>
double D(T v) {
  return static_cast<double>(static_cast<float>(v));
}

TYPED_TEST(SegmentTypedTest, SortedSegments) {
  using T = TypeParam;
  // Rows [1,2] [3,4] [5,6] [8,7] into segments 0, 0, 2, 2: segment 1 is empty.
  Tensor data = Make<T>({4, 2}, V<T>({1, 2, 3, 4, 5, 6, 8, 7}));
  struct Case {
    const char* op;
    std::vector<T> want;
  };
  for (const Case& c : std::vector<Case>{{"SegmentSum", V<T>({4, 6, 0, 0, 13, 13})},
                                         {"SegmentMean", V<T>({2, 3, 0, 0, 6.5, 6.5})},
                                         {"SegmentProd", V<T>({3, 8, 1, 1, 40, 42})},
                                         {"SegmentMax", V<T>({3, 4, 0, 0, 8, 7})},
                                         {"SegmentMin", V<T>({1, 2, 0, 0, 5, 6})}}) {
    SCOPED_TRACE(c.op);
    for (Tensor ids : {I32Vec({0, 0, 2, 2}), I64({4}, {0, 0, 2, 2})}) {
      OpRun r = RunOp(c.op, {data, ids});
      ASSERT_TRUE(r.status.ok()) << r.status.ToString();
      EXPECT_EQ(r.outputs[0].dims(), (Dims{3, 2}));
      EXPECT_EQ(Values<T>(r.outputs[0]), c.want);
    }
    // Empty data: no segments.
    OpRun r = RunOp(c.op, {Tensor::Allocate(DT<T>(), {0, 3}).value(), I32Vec({})});
    ASSERT_TRUE(r.status.ok()) << r.status.ToString();
    EXPECT_EQ(r.outputs[0].dims(), (Dims{0, 3}));
  }
}

TEST(SegmentKernelTest, SortedSegmentsRejectBadIds) {
  Tensor data = F32({3}, {1, 2, 3});
  ExpectInvalid(RunOp("SegmentSum", {data, I32Vec({0, 2, 1})}).status,
                {"node", "segment ids are not increasing"});
  ExpectInvalid(RunOp("SegmentMax", {data, I32Vec({-1, 0, 1})}).status,
                {"node", "Segment id -1 out of range [0, 2), possibly because 'segment_ids' input "
                         "is not sorted."});
  ExpectInvalid(RunOp("SegmentMean", {data, I32Vec({0, 1})}, {}, false).status,
                {"node", "segment_ids should be the same size as dimension 0 of input."});
}

TEST(SegmentKernelTest, SortedSegmentsOnPool) {
  const int64_t rows = 1000, cols = 50;
  Tensor data = Tensor::Allocate(DT_FLOAT, {rows, cols}).value();
  std::vector<int32_t> ids(rows);
  for (int64_t i = 0; i < rows * cols; ++i) data.flat<float>()[i] = static_cast<float>(i / cols);
  for (int64_t i = 0; i < rows; ++i) ids[static_cast<size_t>(i)] = static_cast<int32_t>(i / 10);
  OpRun r = RunArgs("SegmentMax", {In(data), In(I32Vec(ids))}, {}, true, TestPool());
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  ASSERT_EQ(r.outputs[0].dims(), (Dims{100, cols}));
  for (int s = 0; s < 100; ++s) EXPECT_EQ(r.outputs[0].flat<float>()[s * cols + 7], 10.f * s + 9);
}

// ---- unsorted segments ----

TYPED_TEST(SegmentTypedTest, UnsortedSegments) {
  using T = TypeParam;
  Tensor data = Make<T>({4, 2}, V<T>({1, 2, 3, 4, 5, 6, 8, 7}));
  const T lo = std::numeric_limits<T>::lowest(), hi = std::numeric_limits<T>::max();
  struct Case {
    const char* op;
    std::vector<T> want;
  };
  // Ids 2, 0, -1 (dropped), 2 into 4 segments: 1 and 3 are empty.
  for (const Case& c : std::vector<Case>{
           {"UnsortedSegmentMax", {T(3), T(4), lo, lo, T(8), T(7), lo, lo}},
           {"UnsortedSegmentMin", {T(3), T(4), hi, hi, T(1), T(2), hi, hi}},
           {"UnsortedSegmentProd", V<T>({3, 4, 1, 1, 8, 14, 1, 1})},
           {"UnsortedSegmentSum", V<T>({3, 4, 0, 0, 9, 9, 0, 0})}}) {
    SCOPED_TRACE(c.op);
    OpRun r = RunOp(c.op, {data, I32Vec({2, 0, -1, 2}), I64({}, {4})});
    ASSERT_TRUE(r.status.ok()) << r.status.ToString();
    EXPECT_EQ(r.outputs[0].dims(), (Dims{4, 2}));
    EXPECT_EQ(Values<T>(r.outputs[0]), c.want);
  }
}

TEST(SegmentKernelTest, UnsortedSegmentsRejectBadIds) {
  Tensor data = F32({3}, {1, 2, 3});
  for (const char* op : {"UnsortedSegmentMax", "UnsortedSegmentMin", "UnsortedSegmentProd"}) {
    ExpectInvalid(RunOp(op, {data, I32Vec({0, 5, 2}), I32Scalar(4)}, {}, false).status,
                  {"node", "segment_ids[1] = 5", "[0, 4)"});
    ExpectInvalid(RunOp(op, {data, I32Vec({0, 1}), I32Scalar(4)}, {}, false).status,
                  {"node", "does not start with segment_ids.shape"});
  }
}

// ---- sparse segments ----

template <typename T>
void CheckSparseSum() {
  Tensor data = Make<T>({3, 2}, V<T>({1, 2, 3, 4, 5, 6}));
  OpRun r = RunOp("SparseSegmentSum", {data, I32Vec({0, 2, 1}), I32Vec({0, 0, 2})});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.outputs[0].dims(), (Dims{3, 2}));
  EXPECT_EQ(Values<T>(r.outputs[0]), V<T>({6, 8, 0, 0, 3, 4}));
  r = RunOp("SparseSegmentSumWithNumSegments",
            {data, I64({3}, {0, 2, 1}), I64({3}, {0, 0, 2}), I32Scalar(5)});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<T>(r.outputs[0]), V<T>({6, 8, 0, 0, 3, 4, 0, 0, 0, 0}));
}

TEST(SegmentKernelTest, SparseSegmentSum) {
  CheckSparseSum<float>();
  CheckSparseSum<double>();
  CheckSparseSum<int32_t>();
  CheckSparseSum<int64_t>();
  CheckSparseSum<Eigen::half>();
  CheckSparseSum<Eigen::bfloat16>();
}

template <typename T>
void CheckSparseMeanSqrtN() {
  Tensor data = Make<T>({3, 2}, V<T>({1, 2, 3, 4, 5, 6}));
  // Rows 0 and 2 into segment 0, row 1 into segment 3 (1 and 2 empty).
  OpRun r = RunOp("SparseSegmentMean", {data, I32Vec({0, 2, 1}), I32Vec({0, 0, 3})});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<T>(r.outputs[0]), V<T>({3, 4, 0, 0, 0, 0, 3, 4}));
  r = RunOp("SparseSegmentSqrtNWithNumSegments",
            {data, I32Vec({0, 2, 1}), I32Vec({0, 0, 3}), I64({}, {6})});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  const std::vector<T> got = Values<T>(r.outputs[0]);
  ASSERT_EQ(got.size(), 12u);
  EXPECT_NEAR(D(got[0]), 6 / std::sqrt(2.0), Tol<T>());
  EXPECT_NEAR(D(got[1]), 8 / std::sqrt(2.0), Tol<T>());
  EXPECT_EQ(got[6], T(3));
  EXPECT_EQ(got[11], T(0));
  r = RunOp("SparseSegmentMeanWithNumSegments",
            {data, I32Vec({1}), I32Vec({1}), I32Scalar(2)});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<T>(r.outputs[0]), V<T>({0, 0, 3, 4}));
  r = RunOp("SparseSegmentSqrtN", {data, I32Vec({2}), I32Vec({0})});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<T>(r.outputs[0]), V<T>({5, 6}));
}

TEST(SegmentKernelTest, SparseSegmentMeanAndSqrtN) {
  CheckSparseMeanSqrtN<float>();
  CheckSparseMeanSqrtN<double>();
  CheckSparseMeanSqrtN<Eigen::half>();
  CheckSparseMeanSqrtN<Eigen::bfloat16>();
}

TEST(SegmentKernelTest, SparseSegmentsRejectBadInput) {
  Tensor data = F32({3, 2}, {1, 2, 3, 4, 5, 6});
  ExpectInvalid(RunOp("SparseSegmentSum", {data, I32Vec({0, 2, 5}), I32Vec({0, 0, 1})}).status,
                {"node", "Bad: indices[2] == 5 out of range [0, 3)"});
  ExpectInvalid(RunOp("SparseSegmentMean", {data, I32Vec({0, 2, 1}), I32Vec({0, 2, 1})}).status,
                {"node", "segment ids are not increasing"});
  ExpectInvalid(RunOp("SparseSegmentSqrtN", {data, I32Vec({0, 2}), I32Vec({0, 0, 1})}, {}, false)
                    .status,
                {"node", "segment_ids and indices should have same size."});
  ExpectInvalid(RunOp("SparseSegmentSumWithNumSegments",
                      {data, I32Vec({0, 2, 1}), I32Vec({0, 0, 1}), I32Scalar(1)}).status,
                {"node", "segment ids must be < num_segments"});
  ExpectInvalid(RunOp("SparseSegmentSum", {data, I32Vec({0, 2, 1}), I32Vec({-1, 0, 1})}).status,
                {"node", "Segment id -1 out of range [0, 2)"});
}

template <typename T>
void CheckSparseGrads() {
  // grad rows for 2 segments; indices 0, 2, 2 in segments 0, 0, 1 of a 4-row input.
  Tensor grad = Make<T>({2, 2}, V<T>({4, 8, 1, 2}));
  auto run = [&](const char* op) {
    return RunOp(op, {grad, I32Vec({0, 2, 2}), I64({3}, {0, 0, 1}), I32Scalar(4)});
  };
  OpRun r = run("SparseSegmentSumGrad");
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.outputs[0].dims(), (Dims{4, 2}));
  EXPECT_EQ(Values<T>(r.outputs[0]), V<T>({4, 8, 0, 0, 5, 10, 0, 0}));
  r = run("SparseSegmentMeanGrad");
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<T>(r.outputs[0]), V<T>({2, 4, 0, 0, 3, 6, 0, 0}));
  r = run("SparseSegmentSqrtNGrad");
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  const std::vector<T> got = Values<T>(r.outputs[0]);
  EXPECT_NEAR(D(got[0]), 4 / std::sqrt(2.0), Tol<T>());
  EXPECT_NEAR(D(got[4]), 4 / std::sqrt(2.0) + 1, Tol<T>());
  ExpectInvalid(RunOp("SparseSegmentSumGrad",
                      {grad, I32Vec({0, 7}), I32Vec({0, 1}), I32Scalar(4)}).status,
                {"node", "Index 7 out of range [0, 4)"});
  ExpectInvalid(RunOp("SparseSegmentMeanGrad",
                      {grad, I32Vec({0, 1}), I32Vec({0, 2}), I32Scalar(4)}).status,
                {"node", "Segment id 2 out of range [0, 2)"});
}

TEST(SegmentKernelTest, SparseSegmentGrads) {
  CheckSparseGrads<float>();
  CheckSparseGrads<double>();
  CheckSparseGrads<Eigen::half>();
  CheckSparseGrads<Eigen::bfloat16>();
}

}  // namespace
}  // namespace tgraph::testing
