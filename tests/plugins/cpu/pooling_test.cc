// MaxPool and AvgPool (NHWC) on the CPU plugin against float64 reference loops: VALID,
// SAME and (MaxPool) EXPLICIT padding, strides larger and smaller than the window, odd
// sizes, empty tensors, float and double, bad inputs.
#include <limits>

#include "nn_test_util.h"

namespace tgraph::testing {
namespace {


void CheckOn(ThreadPool* pool, const std::string& op, DataType dtype, const PoolCase& c,
             uint32_t seed) {
  const std::string what = op + " " + c.Name(dtype);
  SCOPED_TRACE(what);
  int64_t count = 1;
  for (int64_t d : c.input) count *= d;
  const auto x = RandomValues(dtype, count, seed, -5, 5);
  auto r = RunOpOnPool(pool, op, {MakeTyped(dtype, c.input, x)}, c.Attrs());
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();

  const int64_t n = c.input[0], h = c.input[1], w = c.input[2], ch = c.input[3];
  const Dims ep = c.explicit_paddings.empty() ? Dims(8, 0) : c.explicit_paddings;
  auto window = [&](int64_t in, int64_t k, int64_t s, int64_t pb, int64_t pa, int64_t* out,
                    int64_t* before) {
    if (c.padding == "VALID") {
      *out = (in - k + s) / s;
      *before = 0;
    } else if (c.padding == "SAME") {
      *out = (in + s - 1) / s;
      *before = std::max<int64_t>((*out - 1) * s + k - in, 0) / 2;
    } else {
      *out = (in + pb + pa - k + s) / s;
      *before = pb;
    }
  };
  int64_t oh, ow, pt, pl;
  window(h, c.ksize[1], c.strides[1], ep[2], ep[3], &oh, &pt);
  window(w, c.ksize[2], c.strides[2], ep[4], ep[5], &ow, &pl);
  ASSERT_EQ(r.outputs[0].dims(), (Dims{n, oh, ow, ch}));
  std::vector<double> want(static_cast<size_t>(n * oh * ow * ch));
  for (int64_t b = 0; b < n; ++b)
    for (int64_t i = 0; i < oh; ++i)
      for (int64_t j = 0; j < ow; ++j)
        for (int64_t d = 0; d < ch; ++d) {
          double mx = -std::numeric_limits<double>::infinity(), sum = 0;
          int64_t cnt = 0;
          for (int64_t p = 0; p < c.ksize[1]; ++p)
            for (int64_t q = 0; q < c.ksize[2]; ++q) {
              const int64_t y = i * c.strides[1] - pt + p, xx = j * c.strides[2] - pl + q;
              if (y < 0 || y >= h || xx < 0 || xx >= w) continue;
              const double v = x[static_cast<size_t>(((b * h + y) * w + xx) * ch + d)];
              mx = std::max(mx, v);
              sum += v;
              ++cnt;
            }
          want[static_cast<size_t>(((b * oh + i) * ow + j) * ch + d)] =
              op == "MaxPool" ? mx : sum / static_cast<double>(cnt);
        }
  if (op == "MaxPool") {
    ExpectClose(ToDoubles(r.outputs[0]), want, {}, what);  // exact
  } else {
    ExpectCloseUniform(ToDoubles(r.outputs[0]), want, Epsilon(dtype) * 50, what);
  }
}

void Check(const std::string& op, DataType dtype, const PoolCase& c, uint32_t seed) {
  for (ThreadPool* pool : Pools()) CheckOn(pool, op, dtype, c, seed);
}

TEST(PoolingKernelTest, ValidAndSame) {
  uint32_t seed = 1;
  for (const char* op : {"MaxPool", "AvgPool"}) {
    for (DataType dtype : {DT_FLOAT, DT_DOUBLE}) {
      for (const char* padding : {"VALID", "SAME"}) {
        Check(op, dtype, {{2, 7, 9, 3}, {1, 2, 2, 1}, {1, 2, 2, 1}, padding}, seed++);
        Check(op, dtype, {{2, 7, 9, 3}, {1, 3, 3, 1}, {1, 2, 2, 1}, padding}, seed++);
        Check(op, dtype, {{1, 8, 8, 5}, {1, 3, 2, 1}, {1, 1, 3, 1}, padding}, seed++);
        Check(op, dtype, {{3, 5, 6, 1}, {1, 1, 1, 1}, {1, 3, 4, 1}, padding}, seed++);  // s > k
        Check(op, dtype, {{1, 4, 4, 2}, {1, 4, 4, 1}, {1, 1, 1, 1}, padding}, seed++);  // global
        Check(op, dtype, {{2, 32, 32, 64}, {1, 3, 3, 1}, {1, 2, 2, 1}, padding}, seed++);
      }
    }
  }
}

TEST(PoolingKernelTest, MaxPoolExplicitPadding) {
  Check("MaxPool", DT_FLOAT,
        {{1, 5, 6, 2}, {1, 3, 3, 1}, {1, 1, 2, 1}, "EXPLICIT", {0, 0, 1, 2, 2, 0, 0, 0}}, 50);
  Check("MaxPool", DT_DOUBLE,
        {{2, 4, 4, 3}, {1, 2, 3, 1}, {1, 2, 1, 1}, "EXPLICIT", {0, 0, 1, 1, 0, 2, 0, 0}}, 51);
}

TEST(PoolingKernelTest, EmptyTensors) {
  for (const char* op : {"MaxPool", "AvgPool"}) {
    for (DataType dtype : {DT_FLOAT, DT_DOUBLE}) {
      Check(op, dtype, {{0, 4, 4, 3}, {1, 2, 2, 1}, {1, 2, 2, 1}, "SAME"}, 60);
      Check(op, dtype, {{2, 4, 4, 0}, {1, 2, 2, 1}, {1, 2, 2, 1}, "VALID"}, 61);
      Check(op, dtype, {{2, 0, 4, 3}, {1, 2, 2, 1}, {1, 1, 1, 1}, "SAME"}, 62);
      Check(op, dtype, {{1, 3, 4, 2}, {1, 4, 2, 1}, {1, 2, 2, 1}, "VALID"}, 63);  // 0 rows out
    }
  }
}

TEST(PoolingKernelTest, HandComputed) {
  const Tensor x = MakeTensor<float>(DT_FLOAT, {1, 3, 3, 1}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  AttrMap attrs{{"ksize", AttrOfIntList({1, 2, 2, 1})},
                {"strides", AttrOfIntList({1, 2, 2, 1})},
                {"padding", AttrOfString("SAME")}};
  auto mx = RunOp("MaxPool", {x}, attrs);
  ASSERT_TRUE(mx.status.ok()) << mx.status.ToString();
  EXPECT_EQ(Values<float>(mx.outputs[0]), (std::vector<float>{5, 6, 8, 9}));
  auto avg = RunOp("AvgPool", {x}, attrs);
  ASSERT_TRUE(avg.status.ok()) << avg.status.ToString();
  // Padding is excluded from the average.
  EXPECT_EQ(Values<float>(avg.outputs[0]), (std::vector<float>{3, 4.5, 7.5, 9}));
}

TEST(PoolingKernelTest, BadInputs) {
  const Tensor x = MakeTyped(DT_FLOAT, {1, 4, 4, 2}, std::vector<double>(32, 1));
  auto attrs = [](Dims k, Dims s, std::string padding) {
    return AttrMap{{"ksize", AttrOfIntList(k)},
                   {"strides", AttrOfIntList(s)},
                   {"padding", AttrOfString(padding)}};
  };
  for (const char* op : {"MaxPool", "AvgPool"}) {
    SCOPED_TRACE(op);
    ExpectStatus(RunOp(op, {x}, attrs({1, 0, 2, 1}, {1, 1, 1, 1}, "VALID")).status,
                 Code::kInvalidArgument, {"'node'", "ksize"});
    ExpectStatus(RunOp(op, {x}, attrs({1, 2, 2, 1}, {1, 0, 1, 1}, "VALID"), false).status,
                 Code::kInvalidArgument, {"node", "strides"});
    ExpectStatus(RunOp(op, {x}, attrs({2, 2, 2, 1}, {1, 1, 1, 1}, "VALID"), false).status,
                 Code::kInvalidArgument, {"node", "batch"});
    ExpectStatus(RunOp(op, {x}, attrs({1, 2, 2, 2}, {1, 1, 1, 2}, "VALID")).status,
                 Code::kUnimplemented, {"node", "depth"});
    AttrMap nchw = attrs({1, 1, 2, 2}, {1, 1, 2, 2}, "VALID");
    nchw["data_format"] = AttrOfString("NCHW");
    ExpectStatus(RunOp(op, {x}, nchw).status, Code::kUnimplemented, {"node", "NHWC"});
    // Shape errors the kernel catches when static shapes are unknown.
    const Tensor x3 = MakeTyped(DT_FLOAT, {4, 4, 2}, std::vector<double>(32, 1));
    ExpectStatus(RunOp(op, {x3}, attrs({1, 2, 2, 1}, {1, 1, 1, 1}, "VALID"), false).status,
                 Code::kInvalidArgument, {"node", "4-D", "[4,4,2]"});
    ExpectStatus(RunOp(op, {x}, attrs({1, 6, 2, 1}, {1, 1, 1, 1}, "VALID"), false).status,
                 Code::kInvalidArgument, {"node", "negative"});
  }
  AttrMap big_pad = attrs({1, 2, 2, 1}, {1, 1, 1, 1}, "EXPLICIT");
  big_pad["explicit_paddings"] = AttrOfIntList({0, 0, 2, 0, 0, 0, 0, 0});
  ExpectStatus(RunOp("MaxPool", {x}, big_pad).status, Code::kInvalidArgument,
               {"node", "smaller than the window"});
  ExpectStatus(RunOp("MaxPool", {MakeTyped(DT_INT32, {1, 2, 2, 1}, {1, 2, 3, 4})},
                     attrs({1, 2, 2, 1}, {1, 1, 1, 1}, "VALID"))
                   .status,
               Code::kNotFound, {"MaxPool"});
}

}  // namespace
}  // namespace tgraph::testing
