// Slice and StridedSlice (TensorFlow semantics: masks, ellipsis, new and shrunk axes,
// negative indices and strides, clamping), against hand-computed results.
#include <limits>

#include "array_test_util.h"

namespace tgraph::testing {
namespace {

struct Masks {
  int64_t begin = 0, end = 0, ellipsis = 0, new_axis = 0, shrink = 0;
};

OpRun StridedSlice(const Tensor& x, std::vector<int32_t> b, std::vector<int32_t> e,
                   std::vector<int32_t> s, Masks m = {}, bool known = true,
                   ThreadPool* pool = nullptr) {
  AttrMap attrs{{"begin_mask", AttrOfInt(m.begin)},
                {"end_mask", AttrOfInt(m.end)},
                {"ellipsis_mask", AttrOfInt(m.ellipsis)},
                {"new_axis_mask", AttrOfInt(m.new_axis)},
                {"shrink_axis_mask", AttrOfInt(m.shrink)}};
  return RunArgs("StridedSlice", {In(x), In(I32Vec(b)), In(I32Vec(e)), In(I32Vec(s))}, attrs, known,
                 pool);
}

TEST(SliceKernelTest, Slice) {
  Tensor x = Iota({3, 4});
  OpRun r = RunOp("Slice", {x, I32Vec({1, 1}), I32Vec({2, -1})});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.outputs[0].dims(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(Values<float>(r.outputs[0]), (std::vector<float>{5, 6, 7, 9, 10, 11}));
  r = RunOp("Slice", {x, I64({2}, {0, 0}), I64({2}, {3, 4})});
  ASSERT_TRUE(r.status.ok());
  EXPECT_EQ(r.outputs[0].data(), x.data());  // the whole input: alias
  r = RunOp("Slice", {x, I32Vec({3, 0}), I32Vec({0, 4})});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.outputs[0].dims(), (std::vector<int64_t>{0, 4}));
  r = RunOp("Slice", {F32({}, {3}), I32({0}, {}), I32({0}, {})});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<float>(r.outputs[0]), std::vector<float>{3});
  // int64 elements, a column.
  r = RunOp("Slice", {Iota({3, 4}, DT_INT64), I32Vec({0, 2}), I32Vec({3, 1})});
  ASSERT_TRUE(r.status.ok());
  EXPECT_EQ(Values<int64_t>(r.outputs[0]), (std::vector<int64_t>{2, 6, 10}));
}

TEST(SliceKernelTest, SliceRejectsOutOfBounds) {
  Tensor x = Iota({3, 4});
  ExpectInvalid(RunOp("Slice", {x, I32Vec({2, 0}), I32Vec({2, 4})}, {}, false).status,
                {"node", "begin[0] = 2", "size[0] = 2"});
  ExpectInvalid(RunOp("Slice", {x, I32Vec({-1, 0}), I32Vec({1, 4})}, {}, false).status,
                {"begin[0] = -1"});
  ExpectInvalid(RunOp("Slice", {x, I32Vec({0, 0}), I32Vec({1, -2})}, {}, false).status,
                {"size[1] = -2"});
  ExpectInvalid(RunOp("Slice", {x, I32Vec({0}), I32Vec({1})}, {}, false).status, {"size 2"});
}

TEST(SliceKernelTest, StridedSliceMasks) {
  Tensor x = Iota({3, 4});
  // x[1:, ::2]
  OpRun r = StridedSlice(x, {1, 0}, {0, 0}, {1, 2}, {.begin = 2, .end = 3});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.outputs[0].dims(), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(Values<float>(r.outputs[0]), (std::vector<float>{4, 6, 8, 10}));
  // x[::-1, -1]
  r = StridedSlice(x, {0, -1}, {0, 0}, {-1, 1}, {.begin = 1, .end = 1, .shrink = 2});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.outputs[0].dims(), std::vector<int64_t>{3});
  EXPECT_EQ(Values<float>(r.outputs[0]), (std::vector<float>{11, 7, 3}));
  // x[..., 1:3]
  r = StridedSlice(x, {0, 1}, {0, 3}, {1, 1}, {.ellipsis = 1});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.outputs[0].dims(), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(Values<float>(r.outputs[0]), (std::vector<float>{1, 2, 5, 6, 9, 10}));
  // x[newaxis, 1]
  r = StridedSlice(x, {0, 1}, {0, 2}, {1, 1}, {.new_axis = 1, .shrink = 2});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.outputs[0].dims(), (std::vector<int64_t>{1, 4}));
  EXPECT_EQ(Values<float>(r.outputs[0]), (std::vector<float>{4, 5, 6, 7}));
  // x[1, 2]: a scalar.
  r = StridedSlice(x, {1, 2}, {2, 3}, {1, 1}, {.shrink = 3});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.outputs[0].rank(), 0);
  EXPECT_EQ(Values<float>(r.outputs[0]), std::vector<float>{6});
  // x[0, 3:0:-1]
  r = StridedSlice(x, {0, 3}, {1, 0}, {1, -1}, {.shrink = 1});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<float>(r.outputs[0]), (std::vector<float>{3, 2, 1}));
  // x[-100:100]: clamped to the whole input (an alias).
  r = StridedSlice(x, {-100}, {100}, {1});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.outputs[0].dims(), (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(r.outputs[0].data(), x.data());
  // x[2:1]: empty.
  r = StridedSlice(x, {2}, {1}, {1});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.outputs[0].dims(), (std::vector<int64_t>{0, 4}));
  // x[:, -2:]
  r = StridedSlice(x, {0, -2}, {0, 0}, {1, 1}, {.begin = 1, .end = 3});
  ASSERT_TRUE(r.status.ok());
  EXPECT_EQ(Values<float>(r.outputs[0]), (std::vector<float>{2, 3, 6, 7, 10, 11}));
  // y[1, ..., 2] on rank 3: y[1, j, 2] = 12 + 4j + 2.
  r = StridedSlice(Iota({2, 3, 4}), {1, 0, 2}, {2, 0, 3}, {1, 1, 1}, {.ellipsis = 2, .shrink = 5});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<float>(r.outputs[0]), (std::vector<float>{14, 18, 22}));
  // y[..., newaxis]: new axis after the ellipsis.
  r = StridedSlice(Iota({2, 3}), {0, 0}, {0, 0}, {1, 1}, {.ellipsis = 1, .new_axis = 2});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.outputs[0].dims(), (std::vector<int64_t>{2, 3, 1}));
  // Reverse everything: x[::-1, ::-1].
  r = StridedSlice(x, {0, 0}, {0, 0}, {-1, -1}, {.begin = 3, .end = 3});
  ASSERT_TRUE(r.status.ok());
  EXPECT_EQ(Values<float>(r.outputs[0]),
            (std::vector<float>{11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0}));
}

TEST(SliceKernelTest, StridedSliceLargeOnPool) {
  Tensor x = Iota({1000, 300});
  // x[::2, 1::3]
  OpRun r = StridedSlice(x, {0, 1}, {0, 0}, {2, 3}, {.begin = 1, .end = 3}, true, TestPool());
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  ASSERT_EQ(r.outputs[0].dims(), (std::vector<int64_t>{500, 100}));
  const float* y = r.outputs[0].flat<float>();
  for (int i = 0; i < 500; i += 37)
    for (int j = 0; j < 100; j += 11)
      ASSERT_EQ(y[i * 100 + j], static_cast<float>(2 * i * 300 + 1 + 3 * j));
}

TEST(SliceKernelTest, StridedSliceRejectsBadSpecs) {
  Tensor x = Iota({3, 4});
  ExpectInvalid(StridedSlice(x, {5}, {6}, {1}, {.shrink = 1}, false).status,
                {"slice index 5 of dimension 0 out of bounds"});
  ExpectInvalid(StridedSlice(x, {0}, {1}, {0}, {}, false).status, {"strides[0] must be non-zero"});
  ExpectInvalid(StridedSlice(x, {0, 0, 0}, {1, 1, 1}, {1, 1, 1}, {}, false).status,
                {"Index out of range"});
  ExpectInvalid(StridedSlice(x, {0, 0}, {1, 1}, {1, 1}, {.ellipsis = 3}, false).status,
                {"ellipses"});
  ExpectInvalid(StridedSlice(x, {0}, {1, 1}, {1}, {}, false).status, {"equal size"});
  ExpectInvalid(StridedSlice(x, {1}, {2}, {-1}, {.shrink = 1}, false).status, {"only stride 1"});
}

// An ellipsis_mask of INT64_MIN is bit 63 alone: one ellipsis, past the spec's entries, so
// none; with bit 0 too, two. (The kernel computed mask - 1 in int64, an overflow UBSan
// reported on the op_run fuzz corpus.)
TEST(SliceKernelTest, StridedSliceEllipsisMaskOfTheTopBitAlone) {
  Tensor x = Iota({3, 4});
  const int64_t top = std::numeric_limits<int64_t>::min();
  OpRun r = StridedSlice(x, {1}, {2}, {1}, {.ellipsis = top}, false);
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.outputs[0].dims(), (std::vector<int64_t>{1, 4}));
  EXPECT_EQ(Values<float>(r.outputs[0]), (std::vector<float>{4, 5, 6, 7}));
  ExpectInvalid(StridedSlice(x, {0}, {1}, {1}, {.ellipsis = top | 1}, false).status,
                {"ellipses"});
}

}  // namespace
}  // namespace tgraph::testing
