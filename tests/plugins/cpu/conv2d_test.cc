// Conv2D (NHWC) on the CPU plugin against a naive float64 convolution: VALID / SAME /
// EXPLICIT padding, strides, dilations, odd sizes, 1x1 and whole-image filters, empty batch,
// large inputs (several im2col chunks), grouped convolutions, float and double, and bad
// inputs.
#include "conv_reference.h"
#include "nn_test_util.h"

namespace tgraph::testing {
namespace {

void CheckOn(ThreadPool* pool, DataType dtype, const ConvCase& c, uint32_t seed) {
  const std::string what = c.Name(dtype);
  SCOPED_TRACE(what);
  const auto x = RandomValues(dtype, Count(c.input), seed);
  const auto f = RandomValues(dtype, Count(c.filter), seed + 7);
  auto r = RunOpOnPool(pool, "Conv2D",
                       {MakeTyped(dtype, c.input, x), MakeTyped(dtype, c.filter, f)}, c.Attrs());
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();

  const ConvShape s = ShapeOf(c);
  const Dims out_dims{c.input[0], s.oh, s.ow, c.filter[3]};
  ASSERT_EQ(r.outputs[0].dims(), out_dims);
  std::vector<double> want(Idx(Count(out_dims))), scale(want.size());
  ForEachProduct(c, s, [&](size_t xi, size_t fi, size_t yi) {
    want[yi] += x[xi] * f[fi];
    scale[yi] += std::abs(x[xi] * f[fi]);
  });
  for (size_t i = 0; i < want.size(); ++i) {
    scale[i] = Epsilon(dtype) * (scale[i] + std::abs(want[i])) + 1e-300;
  }
  ExpectClose(ToDoubles(r.outputs[0]), want, scale, what);
}

void Check(DataType dtype, const ConvCase& c, uint32_t seed) {
  for (ThreadPool* pool : Pools()) CheckOn(pool, dtype, c, seed);
}

TEST(Conv2DKernelTest, ValidAndSameWithStrides) {
  uint32_t seed = 1;
  for (DataType dtype : {DT_FLOAT, DT_DOUBLE}) {
    for (const char* padding : {"VALID", "SAME"}) {
      for (const Dims& strides : {Dims{1, 1, 1, 1}, Dims{1, 2, 2, 1}, Dims{1, 3, 2, 1}}) {
        ConvCase c{{2, 7, 9, 3}, {3, 3, 3, 4}, strides, padding};
        Check(dtype, c, seed++);
        ConvCase even{{1, 8, 6, 2}, {2, 4, 2, 5}, strides, padding};
        Check(dtype, even, seed++);
      }
    }
  }
}

TEST(Conv2DKernelTest, Dilations) {
  uint32_t seed = 100;
  for (DataType dtype : {DT_FLOAT, DT_DOUBLE}) {
    for (const char* padding : {"VALID", "SAME"}) {
      Check(dtype, {{2, 11, 10, 3}, {3, 3, 3, 2}, {1, 1, 1, 1}, padding, {1, 2, 2, 1}}, seed++);
      Check(dtype, {{1, 13, 12, 2}, {3, 2, 2, 3}, {1, 2, 1, 1}, padding, {1, 3, 2, 1}}, seed++);
      Check(dtype, {{1, 9, 9, 1}, {2, 2, 1, 1}, {1, 2, 3, 1}, padding, {1, 4, 1, 1}}, seed++);
    }
  }
}

TEST(Conv2DKernelTest, ExplicitPadding) {
  uint32_t seed = 200;
  for (DataType dtype : {DT_FLOAT, DT_DOUBLE}) {
    Check(dtype,
          {{1, 5, 6, 2},
           {3, 3, 2, 3},
           {1, 1, 1, 1},
           "EXPLICIT",
           {1, 1, 1, 1},
           {0, 0, 1, 2, 3, 0, 0, 0}},
          seed++);
    Check(dtype,
          {{2, 7, 7, 3},
           {3, 3, 3, 2},
           {1, 2, 2, 1},
           "EXPLICIT",
           {1, 2, 1, 1},
           {0, 0, 2, 2, 1, 1, 0, 0}},
          seed++);
  }
}

TEST(Conv2DKernelTest, SpecialShapes) {
  uint32_t seed = 300;
  for (DataType dtype : {DT_FLOAT, DT_DOUBLE}) {
    Check(dtype, {{2, 5, 7, 6}, {1, 1, 6, 4}}, seed++);                        // 1x1, direct
    Check(dtype, {{2, 5, 7, 6}, {1, 1, 6, 4}, {1, 2, 2, 1}, "SAME"}, seed++);  // 1x1 strided
    Check(dtype, {{3, 4, 5, 2}, {4, 5, 2, 3}}, seed++);                        // whole image
    Check(dtype, {{3, 4, 5, 2}, {4, 5, 2, 3}, {1, 1, 1, 1}, "SAME"}, seed++);  // whole, SAME
    Check(dtype, {{1, 1, 1, 1}, {1, 1, 1, 1}}, seed++);
    Check(dtype, {{1, 3, 3, 1}, {5, 5, 1, 1}, {1, 1, 1, 1}, "SAME"}, seed++);  // filter > input
    Check(dtype, {{0, 5, 5, 3}, {3, 3, 3, 2}, {1, 1, 1, 1}, "SAME"}, seed++);  // empty batch
    Check(dtype, {{2, 5, 5, 3}, {3, 3, 3, 0}, {1, 1, 1, 1}, "SAME"}, seed++);  // no filters
    Check(dtype, {{1, 2, 5, 3}, {3, 3, 3, 2}}, seed++);                        // 0 rows out
  }
}

TEST(Conv2DKernelTest, LargeSpansSeveralChunks) {
  // 64x64x32 input, 5x5 filter: 25*32 floats per patch row, 8192 rows -> more than one 16 MiB
  // chunk for double.
  Check(DT_FLOAT, {{2, 64, 64, 32}, {5, 5, 32, 16}, {1, 1, 1, 1}, "SAME"}, 400);
  Check(DT_DOUBLE, {{2, 64, 64, 32}, {5, 5, 32, 8}, {1, 1, 1, 1}, "SAME"}, 401);
  Check(DT_FLOAT, {{4, 33, 31, 17}, {3, 3, 17, 33}, {1, 2, 2, 1}, "VALID", {1, 1, 1, 1}}, 402);
}

TEST(Conv2DKernelTest, HandComputed) {
  // 1x3x3x1 input 1..9, 2x2 filter of ones, VALID: sums of 2x2 blocks.
  auto r = RunOp("Conv2D",
                 {MakeTensor<float>(DT_FLOAT, {1, 3, 3, 1}, {1, 2, 3, 4, 5, 6, 7, 8, 9}),
                  MakeTensor<float>(DT_FLOAT, {2, 2, 1, 1}, {1, 1, 1, 1})},
                 {{"strides", AttrOfIntList({1, 1, 1, 1})}, {"padding", AttrOfString("VALID")}});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<float>(r.outputs[0]), (std::vector<float>{12, 16, 24, 28}));
}

// Grouped convolutions (TensorFlow's: the input depth a multiple of the filter's), which
// the kernel computes group by group: several groups, strides, padding, dilations, 1x1
// filters (the patch-matrix path) and one filter per channel.
TEST(Conv2DKernelTest, Grouped) {
  uint32_t seed = 100;
  for (DataType dtype : {DT_FLOAT, DT_DOUBLE}) {
    Check(dtype, {{2, 7, 9, 6}, {3, 3, 2, 9}, {1, 1, 1, 1}, "SAME"}, seed++);
    Check(dtype, {{2, 7, 9, 6}, {3, 3, 3, 4}, {1, 2, 2, 1}, "VALID"}, seed++);
    Check(dtype, {{1, 8, 6, 4}, {2, 2, 1, 8}, {1, 1, 2, 1}, "SAME", {1, 2, 1, 1}}, seed++);
    Check(dtype, {{2, 5, 5, 8}, {1, 1, 2, 4}, {1, 1, 1, 1}, "VALID"}, seed++);
    Check(dtype, {{1, 6, 6, 4}, {3, 3, 1, 4}, {1, 1, 1, 1}, "SAME"}, seed++);
  }
  // Large enough for several im2col chunks per group.
  Check(DT_FLOAT, {{4, 64, 64, 16}, {3, 3, 8, 8}, {1, 1, 1, 1}, "SAME"}, seed++);
}

TEST(Conv2DKernelTest, BadInputs) {
  const Tensor x = MakeTyped(DT_FLOAT, {1, 5, 5, 3}, std::vector<double>(75, 1));
  const Tensor f = MakeTyped(DT_FLOAT, {3, 3, 3, 2}, std::vector<double>(54, 1));
  auto attrs = [](Dims strides, std::string padding) {
    return AttrMap{{"strides", AttrOfIntList(strides)}, {"padding", AttrOfString(padding)}};
  };
  // Attr errors (rejected when the node is built).
  ExpectStatus(RunOp("Conv2D", {x, f}, attrs({1, 0, 1, 1}, "SAME")).status, Code::kInvalidArgument,
               {"'node'", "strides"});
  ExpectStatus(RunOp("Conv2D", {x, f}, attrs({1, 1, 1}, "SAME")).status, Code::kInvalidArgument,
               {"'node'", "strides"});
  ExpectStatus(RunOp("Conv2D", {x, f}, attrs({2, 1, 1, 1}, "SAME"), false).status,
               Code::kInvalidArgument, {"node", "batch"});
  ExpectStatus(RunOp("Conv2D", {x, f}, attrs({1, 1, 1, 1}, "EXPLICIT"), false).status,
               Code::kInvalidArgument, {"node", "explicit_paddings"});
  AttrMap nchw = attrs({1, 1, 1, 1}, "SAME");
  nchw["data_format"] = AttrOfString("NCHW");
  const Tensor x_nchw = MakeTyped(DT_FLOAT, {1, 3, 5, 5}, std::vector<double>(75, 1));
  ExpectStatus(RunOp("Conv2D", {x_nchw, f}, nchw).status, Code::kUnimplemented, {"node", "NHWC"});
  // Shape errors the kernel catches when static shapes are unknown.
  const Tensor f_bad = MakeTyped(DT_FLOAT, {3, 3, 4, 2}, std::vector<double>(72, 1));
  ExpectStatus(RunOp("Conv2D", {x, f_bad}, attrs({1, 1, 1, 1}, "SAME"), false).status,
               Code::kInvalidArgument, {"node", "depth", "[1,5,5,3]", "[3,3,4,2]"});
  // Three groups of one channel cannot share two filters.
  const Tensor f_group = MakeTyped(DT_FLOAT, {3, 3, 1, 2}, std::vector<double>(18, 1));
  ExpectStatus(RunOp("Conv2D", {x, f_group}, attrs({1, 1, 1, 1}, "SAME"), false).status,
               Code::kInvalidArgument, {"node", "grouped", "3 groups"});
  const Tensor f3 = MakeTyped(DT_FLOAT, {3, 3, 3}, std::vector<double>(27, 1));
  ExpectStatus(RunOp("Conv2D", {x, f3}, attrs({1, 1, 1, 1}, "SAME"), false).status,
               Code::kInvalidArgument, {"node", "4-D"});
  const Tensor f_big = MakeTyped(DT_FLOAT, {7, 3, 3, 2}, std::vector<double>(126, 1));
  ExpectStatus(RunOp("Conv2D", {x, f_big}, attrs({1, 1, 1, 1}, "VALID"), false).status,
               Code::kInvalidArgument, {"node", "negative"});
  const Tensor f_zero = MakeTyped(DT_FLOAT, {0, 3, 3, 2}, {});
  ExpectStatus(RunOp("Conv2D", {x, f_zero}, attrs({1, 1, 1, 1}, "SAME"), false).status,
               Code::kInvalidArgument, {"node", "> 0"});
  const Tensor x_empty_depth = MakeTyped(DT_FLOAT, {1, 5, 5, 0}, {});
  const Tensor f_empty_depth = MakeTyped(DT_FLOAT, {3, 3, 0, 2}, {});
  ExpectStatus(RunOp("Conv2D", {x_empty_depth, f_empty_depth}, attrs({1, 1, 1, 1}, "SAME")).status,
               Code::kInvalidArgument, {"'node'", "depth"});
  ExpectStatus(
      RunOp("Conv2D", {x_empty_depth, f_empty_depth}, attrs({1, 1, 1, 1}, "SAME"), false).status,
      Code::kInvalidArgument, {"node", "input depth must be > 0"});
  // No int32 kernel on the CPU (the op allows it).
  ExpectStatus(
      RunOp("Conv2D",
            {MakeTyped(DT_INT32, {1, 1, 1, 1}, {1}), MakeTyped(DT_INT32, {1, 1, 1, 1}, {1})},
            attrs({1, 1, 1, 1}, "SAME"))
          .status,
      Code::kNotFound, {"Conv2D"});
}

}  // namespace
}  // namespace tgraph::testing
