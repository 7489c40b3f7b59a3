// The gradients of convolution and pooling on the CPU plugin: Conv2DBackpropInput and
// Conv2DBackpropFilter against naive float64 loops (VALID / SAME / EXPLICIT, strides,
// dilations, 1x1 and whole-image filters, several im2col chunks) and against the Conv2D kernel
// itself (<conv(x, f), dy> = <x, dx> = <f, dw>); MaxPoolGrad and AvgPoolGrad against naive
// loops and hand-computed cases (ties go to the first maximum, SAME averages over the
// covered elements only); _FusedMaxPoolGrad against MaxPoolGrad -> ReluGrad -> BiasAddGrad;
// float and double, inline and on a pool; and bad inputs.
#include "conv_reference.h"
#include "nn_test_util.h"

namespace tgraph::testing {
namespace {

// ---- convolution ----

void CheckConvOn(ThreadPool* pool, DataType dtype, const ConvCase& c, uint32_t seed) {
  const std::string what = c.Name(dtype);
  SCOPED_TRACE(what);
  const ConvShape s = ShapeOf(c);
  const Dims dy_dims{c.input[0], s.oh, s.ow, c.filter[3]};
  const auto x = RandomValues(dtype, Count(c.input), seed);
  const auto f = RandomValues(dtype, Count(c.filter), seed + 7);
  const auto dy = RandomValues(dtype, Count(dy_dims), seed + 13);
  std::vector<double> dx(x.size()), dx_scale(x.size()), dw(f.size()), dw_scale(f.size());
  ForEachProduct(c, s, [&](size_t xi, size_t fi, size_t yi) {
    dx[xi] += f[fi] * dy[yi];
    dx_scale[xi] += std::abs(f[fi] * dy[yi]);
    dw[fi] += x[xi] * dy[yi];
    dw_scale[fi] += std::abs(x[xi] * dy[yi]);
  });
  for (size_t i = 0; i < dx.size(); ++i) dx_scale[i] = 4 * Epsilon(dtype) * dx_scale[i] + 1e-300;
  for (size_t i = 0; i < dw.size(); ++i) dw_scale[i] = 4 * Epsilon(dtype) * dw_scale[i] + 1e-300;

  auto in = RunArgs(
      "Conv2DBackpropInput",
      {Const(Sizes(c.input)), In(MakeTyped(dtype, c.filter, f)), In(MakeTyped(dtype, dy_dims, dy))},
      c.Attrs(), true, pool);
  ASSERT_TRUE(in.status.ok()) << in.status.ToString();
  ASSERT_EQ(in.outputs[0].dims(), c.input);
  ExpectClose(ToDoubles(in.outputs[0]), dx, dx_scale, what + " dx");

  auto filt = RunArgs(
      "Conv2DBackpropFilter",
      {In(MakeTyped(dtype, c.input, x)), Const(Sizes(c.filter)), In(MakeTyped(dtype, dy_dims, dy))},
      c.Attrs(), true, pool);
  ASSERT_TRUE(filt.status.ok()) << filt.status.ToString();
  ASSERT_EQ(filt.outputs[0].dims(), c.filter);
  ExpectClose(ToDoubles(filt.outputs[0]), dw, dw_scale, what + " dw");
}

void CheckConv(DataType dtype, const ConvCase& c, uint32_t seed) {
  for (ThreadPool* pool : Pools()) CheckConvOn(pool, dtype, c, seed);
}

TEST(Conv2DBackpropTest, ValidAndSameWithStrides) {
  uint32_t seed = 1;
  for (DataType dtype : {DT_FLOAT, DT_DOUBLE}) {
    for (const char* padding : {"VALID", "SAME"}) {
      for (const Dims& strides : {Dims{1, 1, 1, 1}, Dims{1, 2, 2, 1}, Dims{1, 3, 2, 1}}) {
        CheckConv(dtype, {{2, 7, 9, 3}, {3, 3, 3, 4}, strides, padding}, seed++);
        CheckConv(dtype, {{1, 8, 6, 2}, {2, 4, 2, 5}, strides, padding}, seed++);
      }
    }
  }
}

// Grouped convolutions' gradients (computed group by group), against the grouped reference.
TEST(Conv2DBackpropTest, Grouped) {
  uint32_t seed = 200;
  for (DataType dtype : {DT_FLOAT, DT_DOUBLE}) {
    CheckConv(dtype, {{2, 7, 9, 6}, {3, 3, 2, 9}, {1, 1, 1, 1}, "SAME"}, seed++);
    CheckConv(dtype, {{2, 7, 9, 6}, {3, 3, 3, 4}, {1, 2, 2, 1}, "VALID"}, seed++);
    CheckConv(dtype, {{1, 8, 6, 4}, {2, 2, 1, 8}, {1, 1, 2, 1}, "SAME", {1, 2, 1, 1}}, seed++);
    CheckConv(dtype, {{2, 5, 5, 8}, {1, 1, 2, 4}, {1, 1, 1, 1}, "VALID"}, seed++);
  }
}

TEST(Conv2DBackpropTest, Dilations) {
  uint32_t seed = 100;
  for (DataType dtype : {DT_FLOAT, DT_DOUBLE}) {
    for (const char* padding : {"VALID", "SAME"}) {
      CheckConv(dtype, {{2, 11, 10, 3}, {3, 3, 3, 2}, {1, 1, 1, 1}, padding, {1, 2, 2, 1}}, seed++);
      CheckConv(dtype, {{1, 13, 12, 2}, {3, 2, 2, 3}, {1, 2, 1, 1}, padding, {1, 3, 2, 1}}, seed++);
      CheckConv(dtype, {{1, 9, 9, 1}, {2, 2, 1, 1}, {1, 2, 3, 1}, padding, {1, 4, 1, 1}}, seed++);
    }
  }
}

TEST(Conv2DBackpropTest, ExplicitPadding) {
  uint32_t seed = 200;
  for (DataType dtype : {DT_FLOAT, DT_DOUBLE}) {
    CheckConv(dtype,
              {{1, 5, 6, 2},
               {3, 3, 2, 3},
               {1, 1, 1, 1},
               "EXPLICIT",
               {1, 1, 1, 1},
               {0, 0, 1, 2, 3, 0, 0, 0}},
              seed++);
    CheckConv(dtype,
              {{2, 7, 7, 3},
               {3, 3, 3, 2},
               {1, 2, 2, 1},
               "EXPLICIT",
               {1, 2, 1, 1},
               {0, 0, 2, 2, 1, 1, 0, 0}},
              seed++);
  }
}

TEST(Conv2DBackpropTest, SpecialShapes) {
  uint32_t seed = 300;
  for (DataType dtype : {DT_FLOAT, DT_DOUBLE}) {
    CheckConv(dtype, {{2, 5, 7, 6}, {1, 1, 6, 4}}, seed++);                        // 1x1, direct
    CheckConv(dtype, {{2, 5, 7, 6}, {1, 1, 6, 4}, {1, 2, 2, 1}, "SAME"}, seed++);  // 1x1 strided
    CheckConv(dtype, {{3, 4, 5, 2}, {4, 5, 2, 3}}, seed++);                        // whole image
    CheckConv(dtype, {{3, 4, 5, 2}, {4, 5, 2, 3}, {1, 1, 1, 1}, "SAME"}, seed++);  // whole, SAME
    CheckConv(dtype, {{1, 1, 1, 1}, {1, 1, 1, 1}}, seed++);
    CheckConv(dtype, {{1, 3, 3, 1}, {5, 5, 1, 1}, {1, 1, 1, 1}, "SAME"}, seed++);  // filter > in
    CheckConv(dtype, {{1, 6, 6, 2}, {2, 2, 2, 3}, {1, 3, 3, 1}}, seed++);  // stride > window
    CheckConv(dtype, {{0, 5, 5, 3}, {3, 3, 3, 2}, {1, 1, 1, 1}, "SAME"}, seed++);  // no batch
    CheckConv(dtype, {{2, 5, 5, 3}, {3, 3, 3, 0}, {1, 1, 1, 1}, "SAME"}, seed++);  // no filters
    CheckConv(dtype, {{1, 2, 5, 3}, {3, 3, 3, 2}}, seed++);                        // 0 rows out
    CheckConv(dtype, {{2, 4, 4, 0}, {3, 3, 0, 2}, {1, 1, 1, 1}, "SAME"}, seed++);  // no channels
  }
}

TEST(Conv2DBackpropTest, LargeSpansSeveralChunks) {
  // 25 * 32 values per patch row: several 16 MiB im2col chunks (filter) and col2im chunks of
  // output rows (input), for double; float spans more than one too.
  CheckConv(DT_FLOAT, {{4, 64, 64, 32}, {5, 5, 32, 4}, {1, 1, 1, 1}, "SAME"}, 400);
  CheckConv(DT_DOUBLE, {{2, 64, 64, 32}, {5, 5, 32, 3}, {1, 2, 2, 1}, "SAME"}, 401);
  CheckConv(DT_FLOAT, {{3, 33, 31, 17}, {3, 3, 17, 9}, {1, 2, 2, 1}, "VALID", {1, 2, 1, 1}}, 402);
}

// <Conv2D(x, f), dy> = <x, dx> = <f, dw>: the backprops are the adjoints of the forward
// kernel, whatever its conventions.
TEST(Conv2DBackpropTest, AdjointOfConv2DKernel) {
  const std::vector<ConvCase> cases = {
      {{2, 9, 8, 3}, {3, 3, 3, 4}, {1, 2, 2, 1}, "SAME"},
      {{1, 10, 11, 2}, {2, 3, 2, 3}, {1, 1, 2, 1}, "VALID", {1, 2, 2, 1}},
      {{2, 6, 7, 2},
       {3, 2, 2, 2},
       {1, 2, 1, 1},
       "EXPLICIT",
       {1, 1, 1, 1},
       {0, 0, 1, 0, 2, 1, 0, 0}},
  };
  uint32_t seed = 500;
  for (const ConvCase& c : cases) {
    SCOPED_TRACE(c.Name(DT_DOUBLE));
    const auto x = RandomValues(DT_DOUBLE, Count(c.input), seed++);
    const auto f = RandomValues(DT_DOUBLE, Count(c.filter), seed++);
    auto fwd = RunOp(
        "Conv2D", {MakeTyped(DT_DOUBLE, c.input, x), MakeTyped(DT_DOUBLE, c.filter, f)}, c.Attrs());
    ASSERT_TRUE(fwd.status.ok()) << fwd.status.ToString();
    const Dims dy_dims = fwd.outputs[0].dims();
    const auto y = ToDoubles(fwd.outputs[0]);
    const auto dy = RandomValues(DT_DOUBLE, Count(dy_dims), seed++);
    auto dx = RunArgs("Conv2DBackpropInput",
                      {Const(Sizes(c.input)), In(MakeTyped(DT_DOUBLE, c.filter, f)),
                       In(MakeTyped(DT_DOUBLE, dy_dims, dy))},
                      c.Attrs());
    auto dw = RunArgs("Conv2DBackpropFilter",
                      {In(MakeTyped(DT_DOUBLE, c.input, x)), Const(Sizes(c.filter)),
                       In(MakeTyped(DT_DOUBLE, dy_dims, dy))},
                      c.Attrs());
    ASSERT_TRUE(dx.status.ok()) << dx.status.ToString();
    ASSERT_TRUE(dw.status.ok()) << dw.status.ToString();
    auto dot = [](const std::vector<double>& a, const std::vector<double>& b) {
      double s = 0;
      for (size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
      return s;
    };
    const double want = dot(y, dy);
    EXPECT_NEAR(dot(x, ToDoubles(dx.outputs[0])), want, 1e-9);
    EXPECT_NEAR(dot(f, ToDoubles(dw.outputs[0])), want, 1e-9);
  }
}

TEST(Conv2DBackpropTest, HandComputed) {
  // 1x3x3x1 input 1..9, 2x2 filter, VALID, dy all ones.
  const AttrMap attrs{{"strides", AttrOfIntList({1, 1, 1, 1})}, {"padding", AttrOfString("VALID")}};
  const Tensor dy = MakeTensor<float>(DT_FLOAT, {1, 2, 2, 1}, {1, 1, 1, 1});
  auto dx = RunArgs("Conv2DBackpropInput",
                    {Const(Sizes({1, 3, 3, 1})),
                     In(MakeTensor<float>(DT_FLOAT, {2, 2, 1, 1}, {1, 2, 3, 4})), In(dy)},
                    attrs);
  ASSERT_TRUE(dx.status.ok()) << dx.status.ToString();
  EXPECT_EQ(Values<float>(dx.outputs[0]), (std::vector<float>{1, 3, 2, 4, 10, 6, 3, 7, 4}));
  auto dw = RunArgs("Conv2DBackpropFilter",
                    {In(MakeTensor<float>(DT_FLOAT, {1, 3, 3, 1}, {1, 2, 3, 4, 5, 6, 7, 8, 9})),
                     Const(Sizes({2, 2, 1, 1})), In(dy)},
                    attrs);
  ASSERT_TRUE(dw.status.ok()) << dw.status.ToString();
  EXPECT_EQ(Values<float>(dw.outputs[0]), (std::vector<float>{12, 16, 24, 28}));
}

TEST(Conv2DBackpropTest, InputSizesOfHeightAndWidth) {
  // TF accepts input_sizes = [height, width]: batch from out_backprop, depth from the filter.
  const ConvCase c{{2, 6, 5, 3}, {3, 3, 3, 2}, {1, 2, 2, 1}, "SAME"};
  const ConvShape s = ShapeOf(c);
  const Dims dy_dims{2, s.oh, s.ow, 2};
  const Tensor f = MakeTyped(DT_FLOAT, c.filter, RandomValues(DT_FLOAT, Count(c.filter), 1));
  const Tensor dy = MakeTyped(DT_FLOAT, dy_dims, RandomValues(DT_FLOAT, Count(dy_dims), 2));
  auto full = RunArgs("Conv2DBackpropInput", {Const(Sizes(c.input)), In(f), In(dy)}, c.Attrs());
  auto hw = RunArgs("Conv2DBackpropInput", {Const(Sizes({6, 5})), In(f), In(dy)}, c.Attrs());
  ASSERT_TRUE(full.status.ok()) << full.status.ToString();
  ASSERT_TRUE(hw.status.ok()) << hw.status.ToString();
  EXPECT_EQ(hw.outputs[0].dims(), c.input);
  EXPECT_EQ(Values<float>(hw.outputs[0]), Values<float>(full.outputs[0]));
}

TEST(Conv2DBackpropTest, BadInputs) {
  const AttrMap same{{"strides", AttrOfIntList({1, 1, 1, 1})}, {"padding", AttrOfString("SAME")}};
  const Tensor x = MakeTyped(DT_FLOAT, {1, 5, 5, 3}, std::vector<double>(75, 1));
  const Tensor f = MakeTyped(DT_FLOAT, {3, 3, 3, 2}, std::vector<double>(54, 1));
  const Tensor dy = MakeTyped(DT_FLOAT, {1, 5, 5, 2}, std::vector<double>(50, 1));
  auto input_grad = [&](const Tensor& sizes, const Tensor& filter, const Tensor& grad,
                        const AttrMap& attrs = {}) {
    AttrMap a = attrs.empty() ? same : attrs;
    // Sizes from a placeholder with unknown shapes: the kernel, not the shape function, checks.
    return RunArgs("Conv2DBackpropInput", {In(sizes), In(filter), In(grad)}, a, false).status;
  };
  auto filter_grad = [&](const Tensor& input, const Tensor& sizes, const Tensor& grad) {
    return RunArgs("Conv2DBackpropFilter", {In(input), In(sizes), In(grad)}, same, false).status;
  };
  // Shape vectors of the wrong length, negative or not matching out_backprop.
  ExpectStatus(input_grad(Sizes({1, 5, 5}), f, dy), Code::kInvalidArgument,
               {"node", "input_sizes", "4 or 2"});
  ExpectStatus(input_grad(Sizes({1, -5, 5, 3}), f, dy), Code::kInvalidArgument,
               {"node", "input_sizes", "non-negative"});
  ExpectStatus(input_grad(Sizes({1, 6, 5, 3}), f, dy), Code::kInvalidArgument,
               {"node", "out_backprop", "[1,6,5,2]", "[1,5,5,2]"});
  ExpectStatus(input_grad(Sizes({2, 5, 5, 3}), f, dy), Code::kInvalidArgument,
               {"node", "out_backprop"});
  ExpectStatus(filter_grad(x, Sizes({3, 3, 3}), dy), Code::kInvalidArgument,
               {"node", "filter_sizes", "4"});
  ExpectStatus(filter_grad(x, Sizes({3, 3, 3, 4}), dy), Code::kInvalidArgument,
               {"node", "out_backprop", "[1,5,5,4]"});
  ExpectStatus(filter_grad(x, Sizes({3, 3, 3, -2}), dy), Code::kInvalidArgument,
               {"node", "non-negative"});
  // Depths that do not match; grouped convolution.
  ExpectStatus(input_grad(Sizes({1, 5, 5, 4}), f, dy), Code::kInvalidArgument, {"node", "depth"});
  ExpectStatus(filter_grad(x, Sizes({3, 3, 2, 2}), dy), Code::kInvalidArgument, {"node", "depth"});
  ExpectStatus(filter_grad(MakeTyped(DT_FLOAT, {1, 5, 5, 6}, std::vector<double>(150, 1)),
                           Sizes({3, 3, 2, 2}), dy),
               Code::kInvalidArgument, {"node", "grouped", "multiple of its groups"});
  // Ranks.
  ExpectStatus(filter_grad(MakeTyped(DT_FLOAT, {5, 5, 3}, std::vector<double>(75, 1)),
                           Sizes({3, 3, 3, 2}), dy),
               Code::kInvalidArgument, {"node", "4-D"});
  ExpectStatus(
      input_grad(Sizes({5, 5}), f, MakeTyped(DT_FLOAT, {5, 5, 2}, std::vector<double>(50, 1))),
      Code::kInvalidArgument, {"node", "4-D"});
  ExpectStatus(input_grad(MakeTensor<int32_t>(DT_INT32, {2, 2}, {1, 5, 5, 3}), f, dy),
               Code::kInvalidArgument, {"node", "input_sizes"});
  // Window larger than the input.
  AttrMap valid{{"strides", AttrOfIntList({1, 1, 1, 1})}, {"padding", AttrOfString("VALID")}};
  ExpectStatus(input_grad(Sizes({1, 1, 1, 3}), f,
                          MakeTyped(DT_FLOAT, {1, 1, 1, 2}, std::vector<double>(2, 1)), valid),
               Code::kInvalidArgument, {"node", "negative"});
  // Attrs, rejected when the kernel is made.
  AttrMap nchw = same;
  nchw["data_format"] = AttrOfString("NCHW");
  ExpectStatus(input_grad(Sizes({1, 3, 5, 5}), f,
                          MakeTyped(DT_FLOAT, {1, 2, 5, 5}, std::vector<double>(50, 1)), nchw),
               Code::kUnimplemented, {"node", "NHWC"});
  AttrMap bad_strides{{"strides", AttrOfIntList({2, 1, 1, 1})}, {"padding", AttrOfString("SAME")}};
  ExpectStatus(input_grad(Sizes({1, 5, 5, 3}), f, dy, bad_strides), Code::kInvalidArgument,
               {"node", "batch"});
  AttrMap bad_dilations = same;
  bad_dilations["dilations"] = AttrOfIntList({1, 0, 1, 1});
  ExpectStatus(input_grad(Sizes({1, 5, 5, 3}), f, dy, bad_dilations), Code::kInvalidArgument,
               {"node", "dilations"});
  AttrMap explicit_missing{{"strides", AttrOfIntList({1, 1, 1, 1})},
                           {"padding", AttrOfString("EXPLICIT")}};
  ExpectStatus(input_grad(Sizes({1, 5, 5, 3}), f, dy, explicit_missing), Code::kInvalidArgument,
               {"node", "explicit_paddings"});
  // No kernel for integer types.
  ExpectStatus(
      RunArgs("Conv2DBackpropInput",
              {Const(Sizes({1, 2, 2, 1})), In(MakeTensor<int32_t>(DT_INT32, {1, 1, 1, 1}, {1})),
               In(MakeTensor<int32_t>(DT_INT32, {1, 2, 2, 1}, {1, 2, 3, 4}))},
              same)
          .status,
      Code::kNotFound, {"Conv2DBackpropInput"});
}

// ---- pooling ----

// The pooled shape and, per output pixel, its window's input positions (row-major) — as
// offsets into one NHWC image at channel 0.
struct PoolGeometry {
  Dims out;
  std::vector<std::vector<int64_t>> windows;  // [oh * ow][positions]
};
PoolGeometry Geometry(const PoolCase& c) {
  const Dims ep = c.explicit_paddings.empty() ? Dims(8, 0) : c.explicit_paddings;
  int64_t oh, ow, pt, pl;
  Window(c.input[1], c.ksize[1], 1, c.strides[1], c.padding, ep[2], ep[3], &oh, &pt);
  Window(c.input[2], c.ksize[2], 1, c.strides[2], c.padding, ep[4], ep[5], &ow, &pl);
  PoolGeometry g;
  g.out = {c.input[0], oh, ow, c.input[3]};
  for (int64_t i = 0; i < oh; ++i)
    for (int64_t j = 0; j < ow; ++j) {
      std::vector<int64_t> win;
      for (int64_t p = 0; p < c.ksize[1]; ++p)
        for (int64_t q = 0; q < c.ksize[2]; ++q) {
          const int64_t y = i * c.strides[1] - pt + p, x = j * c.strides[2] - pl + q;
          if (y >= 0 && y < c.input[1] && x >= 0 && x < c.input[2]) {
            win.push_back((y * c.input[2] + x) * c.input[3]);
          }
        }
      g.windows.push_back(win);
    }
  return g;
}

// The naive gradients: max routes to the first maximum, avg spreads over the window.
std::vector<double> ReferencePoolGrad(const std::string& op, const PoolCase& c,
                                      const PoolGeometry& g, const std::vector<double>& x,
                                      const std::vector<double>& dy) {
  const int64_t n = c.input[0], depth = c.input[3];
  const int64_t image = c.input[1] * c.input[2] * depth;
  const int64_t pixels = g.out[1] * g.out[2];
  std::vector<double> dx(x.size());
  for (int64_t b = 0; b < n; ++b)
    for (int64_t p = 0; p < pixels; ++p) {
      const auto& win = g.windows[Idx(p)];
      for (int64_t d = 0; d < depth; ++d) {
        const double grad = dy[Idx((b * pixels + p) * depth + d)];
        if (op == "MaxPoolGrad") {
          int64_t best = win[0];
          for (int64_t at : win) {
            if (x[Idx(b * image + at + d)] > x[Idx(b * image + best + d)]) best = at;
          }
          dx[Idx(b * image + best + d)] += grad;
        } else {
          for (int64_t at : win)
            dx[Idx(b * image + at + d)] += grad / static_cast<double>(win.size());
        }
      }
    }
  return dx;
}

OpRun RunPoolGrad(ThreadPool* pool, const std::string& op, DataType dtype, const PoolCase& c,
                  const std::vector<double>& x, const Dims& out_dims,
                  const std::vector<double>& dy) {
  const Tensor grad = MakeTyped(dtype, out_dims, dy);
  if (op == "AvgPoolGrad") {
    return RunArgs(op, {Const(Sizes(c.input)), In(grad)}, c.Attrs(), true, pool);
  }
  auto fwd = RunOp("MaxPool", {MakeTyped(dtype, c.input, x)}, c.Attrs());
  if (!fwd.status.ok()) return OpRun{fwd.status, {}};
  return RunArgs(op, {In(MakeTyped(dtype, c.input, x)), In(fwd.outputs[0]), In(grad)}, c.Attrs(),
                 true, pool);
}

void CheckPool(const std::string& op, DataType dtype, const PoolCase& c, uint32_t seed) {
  const std::string what = op + " " + DataTypeName(dtype) + " input " +
                           PartialShape(c.input).ToString() + " ksize " +
                           PartialShape(c.ksize).ToString() + " strides " +
                           PartialShape(c.strides).ToString() + " " + c.padding;
  SCOPED_TRACE(what);
  const PoolGeometry g = Geometry(c);
  const auto x = RandomValues(dtype, Count(c.input), seed);
  const auto dy = RandomValues(dtype, Count(g.out), seed + 3);
  const auto want = ReferencePoolGrad(op, c, g, x, dy);
  for (ThreadPool* pool : Pools()) {
    auto r = RunPoolGrad(pool, op, dtype, c, x, g.out, dy);
    ASSERT_TRUE(r.status.ok()) << r.status.ToString();
    ASSERT_EQ(r.outputs[0].dims(), c.input);
    std::vector<double> tol(want.size());
    for (size_t i = 0; i < tol.size(); ++i) tol[i] = 8 * Epsilon(dtype) * (std::abs(want[i]) + 1);
    ExpectClose(ToDoubles(r.outputs[0]), want, tol, what);
  }
}

TEST(PoolGradTest, ValidAndSame) {
  uint32_t seed = 1;
  for (const char* op : {"MaxPoolGrad", "AvgPoolGrad"}) {
    for (DataType dtype : {DT_FLOAT, DT_DOUBLE}) {
      for (const char* padding : {"VALID", "SAME"}) {
        CheckPool(op, dtype, {{2, 7, 9, 3}, {1, 3, 3, 1}, {1, 2, 2, 1}, padding}, seed++);
        CheckPool(op, dtype, {{1, 8, 8, 20}, {1, 2, 2, 1}, {1, 2, 2, 1}, padding}, seed++);
        CheckPool(op, dtype, {{3, 6, 5, 2}, {1, 2, 3, 1}, {1, 1, 1, 1}, padding}, seed++);
        CheckPool(op, dtype, {{2, 9, 7, 4}, {1, 2, 2, 1}, {1, 3, 3, 1}, padding}, seed++);
        CheckPool(op, dtype, {{20, 4, 4, 3}, {1, 3, 2, 1}, {1, 1, 2, 1}, padding}, seed++);
        CheckPool(op, dtype, {{1, 3, 3, 1}, {1, 5, 5, 1}, {1, 1, 1, 1}, "SAME"}, seed++);
        // Disjoint windows over odd sizes: SAME tiles the image (the last window padded),
        // VALID leaves the last row and column to no window; and split channel blocks.
        CheckPool(op, dtype, {{2, 7, 9, 3}, {1, 2, 2, 1}, {1, 2, 2, 1}, padding}, seed++);
        CheckPool(op, dtype, {{1, 7, 7, 24}, {1, 2, 2, 1}, {1, 2, 2, 1}, padding}, seed++);
        CheckPool(op, dtype, {{2, 9, 8, 5}, {1, 3, 2, 1}, {1, 3, 2, 1}, padding}, seed++);
      }
    }
  }
}

TEST(PoolGradTest, MaxPoolGradExplicitPadding) {
  CheckPool("MaxPoolGrad", DT_FLOAT,
            {{1, 5, 6, 2}, {1, 3, 3, 1}, {1, 1, 2, 1}, "EXPLICIT", {0, 0, 1, 2, 2, 0, 0, 0}}, 50);
  CheckPool("MaxPoolGrad", DT_DOUBLE,
            {{2, 4, 4, 3}, {1, 2, 3, 1}, {1, 2, 1, 1}, "EXPLICIT", {0, 0, 1, 1, 0, 2, 0, 0}}, 51);
}

TEST(PoolGradTest, EmptyTensors) {
  for (const char* op : {"MaxPoolGrad", "AvgPoolGrad"}) {
    for (DataType dtype : {DT_FLOAT, DT_DOUBLE}) {
      CheckPool(op, dtype, {{0, 4, 4, 3}, {1, 2, 2, 1}, {1, 2, 2, 1}, "SAME"}, 60);
      CheckPool(op, dtype, {{2, 4, 4, 0}, {1, 2, 2, 1}, {1, 2, 2, 1}, "VALID"}, 61);
      CheckPool(op, dtype, {{2, 0, 4, 3}, {1, 2, 2, 1}, {1, 1, 1, 1}, "SAME"}, 62);
      CheckPool(op, dtype, {{1, 3, 4, 2}, {1, 4, 2, 1}, {1, 2, 2, 1}, "VALID"}, 63);  // 0 rows
    }
  }
}

TEST(PoolGradTest, MaxPoolGradTiesGoToTheFirstMaximum) {
  // Every element equal: each 2x2 window (stride 1) sends its gradient to its top-left one.
  const AttrMap attrs{{"ksize", AttrOfIntList({1, 2, 2, 1})},
                      {"strides", AttrOfIntList({1, 1, 1, 1})},
                      {"padding", AttrOfString("VALID")}};
  for (ThreadPool* pool : Pools()) {
    auto r = RunArgs("MaxPoolGrad",
                     {In(MakeTensor<float>(DT_FLOAT, {1, 3, 3, 1}, std::vector<float>(9, 7))),
                      In(MakeTensor<float>(DT_FLOAT, {1, 2, 2, 1}, {7, 7, 7, 7})),
                      In(MakeTensor<float>(DT_FLOAT, {1, 2, 2, 1}, {1, 2, 3, 4}))},
                     attrs, true, pool);
    ASSERT_TRUE(r.status.ok()) << r.status.ToString();
    EXPECT_EQ(Values<float>(r.outputs[0]), (std::vector<float>{1, 2, 0, 3, 4, 0, 0, 0, 0}));
  }
  // A later equal value does not take over: the maximum 5 at (0,1) and (1,0) of one window.
  auto r = RunOp("MaxPoolGrad",
                 {MakeTensor<double>(DT_DOUBLE, {1, 2, 2, 1}, {1, 5, 5, 2}),
                  MakeTensor<double>(DT_DOUBLE, {1, 1, 1, 1}, {5}),
                  MakeTensor<double>(DT_DOUBLE, {1, 1, 1, 1}, {3})},
                 {{"ksize", AttrOfIntList({1, 2, 2, 1})},
                  {"strides", AttrOfIntList({1, 2, 2, 1})},
                  {"padding", AttrOfString("VALID")}});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<double>(r.outputs[0]), (std::vector<double>{0, 3, 0, 0}));
  // NaN: a later NaN never wins; a NaN that comes first keeps the gradient (TF's rule).
  const double nan = std::nan("");
  auto with_nan = RunOp("MaxPoolGrad",
                        {MakeTensor<double>(DT_DOUBLE, {1, 2, 4, 1}, {1, nan, nan, 2, 5, 3, 0, 4}),
                         MakeTensor<double>(DT_DOUBLE, {1, 1, 2, 1}, {5, nan}),
                         MakeTensor<double>(DT_DOUBLE, {1, 1, 2, 1}, {3, 7})},
                        {{"ksize", AttrOfIntList({1, 2, 2, 1})},
                         {"strides", AttrOfIntList({1, 2, 2, 1})},
                         {"padding", AttrOfString("VALID")}});
  ASSERT_TRUE(with_nan.status.ok()) << with_nan.status.ToString();
  EXPECT_EQ(Values<double>(with_nan.outputs[0]), (std::vector<double>{0, 0, 7, 0, 3, 0, 0, 0}));
}

// Windows that never overlap run a vectorised path (nn_backprop_pool.cc: DisjointWindow) with
// as many lanes as the CPU variant has (4 to 16): channel counts around each width, so that
// full vectors and the last channels after them both run, and the CNN's layers.
TEST(PoolGradTest, DisjointWindowsOverEveryLaneCount) {
  uint32_t seed = 300;
  for (DataType dtype : {DT_FLOAT, DT_DOUBLE}) {
    for (int64_t depth : {1, 4, 5, 7, 8, 9, 15, 16, 17, 31, 33}) {
      CheckPool("MaxPoolGrad", dtype, {{2, 5, 6, depth}, {1, 2, 2, 1}, {1, 2, 2, 1}, "SAME"}, seed++);
      CheckPool("MaxPoolGrad", dtype, {{1, 7, 7, depth}, {1, 3, 2, 1}, {1, 3, 3, 1}, "VALID"}, seed++);
    }
    CheckPool("MaxPoolGrad", dtype, {{3, 28, 28, 32}, {1, 2, 2, 1}, {1, 2, 2, 1}, "SAME"}, seed++);
    CheckPool("MaxPoolGrad", dtype, {{3, 14, 14, 64}, {1, 2, 2, 1}, {1, 2, 2, 1}, "SAME"}, seed++);
  }
}

// Ties and NaN in every lane of the vectorised path: a 2x2 window per image over 35
// channels, channel c holding one of five patterns. The gradient goes to the first maximum;
// a later equal value or a later NaN never takes over; a NaN that comes first keeps it.
TEST(PoolGradTest, MaxPoolGradTiesAndNanInEveryLane) {
  const double nan = std::nan("");
  const int64_t depth = 35;
  // The 4 pixels of the window per pattern, and which one receives the gradient.
  const std::vector<std::pair<std::vector<double>, int>> patterns = {
      {{7, 7, 7, 7}, 0}, {{nan, 9, 1, 2}, 0}, {{1, nan, 3, 2}, 2},
      {{1, 2, 3, 4}, 3}, {{4, 9, 9, nan}, 1}};
  std::vector<double> x(4 * depth), dy(depth), want(4 * depth, 0.0);
  for (int64_t c = 0; c < depth; ++c) {
    const auto& [values, winner] = patterns[static_cast<size_t>(c % 5)];
    for (int64_t i = 0; i < 4; ++i) x[Idx(i * depth + c)] = values[Idx(i)];
    dy[Idx(c)] = static_cast<double>(c + 1);
    want[Idx(winner * depth + c)] = dy[Idx(c)];
  }
  const AttrMap attrs{{"ksize", AttrOfIntList({1, 2, 2, 1})},
                      {"strides", AttrOfIntList({1, 2, 2, 1})},
                      {"padding", AttrOfString("VALID")}};
  for (DataType dtype : {DT_FLOAT, DT_DOUBLE}) {
    SCOPED_TRACE(DataTypeName(dtype));
    const Tensor x_t = MakeTyped(dtype, {1, 2, 2, depth}, x);
    auto pooled = RunOp("MaxPool", {x_t}, attrs);
    ASSERT_TRUE(pooled.status.ok()) << pooled.status.ToString();
    for (ThreadPool* pool : Pools()) {
      auto r = RunArgs("MaxPoolGrad", {In(x_t), In(pooled.outputs[0]), In(MakeTyped(dtype, {1, 1, 1, depth}, dy))},
                       attrs, true, pool);
      ASSERT_TRUE(r.status.ok()) << r.status.ToString();
      EXPECT_EQ(ToDoubles(r.outputs[0]), want);
    }
  }
}

TEST(PoolGradTest, HandComputed) {
  // 3x3 input 1..9, 2x2 windows at stride 2, SAME: windows {1,2,4,5} {3,6} {7,8} {9}.
  const Tensor x = MakeTensor<float>(DT_FLOAT, {1, 3, 3, 1}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  const Tensor dy = MakeTensor<float>(DT_FLOAT, {1, 2, 2, 1}, {4, 2, 2, 1});
  const AttrMap attrs{{"ksize", AttrOfIntList({1, 2, 2, 1})},
                      {"strides", AttrOfIntList({1, 2, 2, 1})},
                      {"padding", AttrOfString("SAME")}};
  auto mx =
      RunOp("MaxPoolGrad", {x, MakeTensor<float>(DT_FLOAT, {1, 2, 2, 1}, {5, 6, 8, 9}), dy}, attrs);
  ASSERT_TRUE(mx.status.ok()) << mx.status.ToString();
  EXPECT_EQ(Values<float>(mx.outputs[0]), (std::vector<float>{0, 0, 0, 0, 4, 2, 0, 2, 1}));
  // The average divides by the covered elements (4, 2, 2, 1), not by the window size.
  auto avg = RunArgs("AvgPoolGrad", {Const(Sizes({1, 3, 3, 1})), In(dy)}, attrs);
  ASSERT_TRUE(avg.status.ok()) << avg.status.ToString();
  EXPECT_EQ(Values<float>(avg.outputs[0]), (std::vector<float>{1, 1, 1, 1, 1, 1, 1, 1, 1}));
}

// ---- _FusedMaxPoolGrad ----

// _FusedMaxPoolGrad against the ops it replaces: output 0 equal to ReluGrad(MaxPoolGrad(x,
// MaxPool(x), dy), features) (element for element: both route and mask the same values),
// output 1 to BiasAddGrad of that (sums in another order: within rounding). `separate`:
// features are a tensor of their own (num_features 1); else x itself (num_features 0), which
// is then a Relu output (zeros included: all-zero windows route nothing past the mask).
void CheckFusedPoolGrad(DataType dtype, const PoolCase& c, bool separate, uint32_t seed) {
  const std::string what = std::string(DataTypeName(dtype)) + " input " +
                           PartialShape(c.input).ToString() + " ksize " +
                           PartialShape(c.ksize).ToString() + " strides " +
                           PartialShape(c.strides).ToString() + " " + c.padding +
                           (separate ? " separate features" : " features = orig_input");
  SCOPED_TRACE(what);
  const PoolGeometry g = Geometry(c);
  auto x = RandomValues(dtype, Count(c.input), seed);
  if (!separate) {
    for (double& v : x) v = std::max(v, 0.0);
  }
  const auto features = RandomValues(dtype, Count(c.input), seed + 5);
  const auto dy = RandomValues(dtype, Count(g.out), seed + 3);
  const Tensor x_t = MakeTyped(dtype, c.input, x);
  const Tensor f_t = separate ? MakeTyped(dtype, c.input, features) : x_t;
  auto pooled = RunOp("MaxPool", {x_t}, c.Attrs());
  ASSERT_TRUE(pooled.status.ok()) << pooled.status.ToString();
  const Tensor dy_t = MakeTyped(dtype, g.out, dy);
  auto routed = RunOp("MaxPoolGrad", {x_t, pooled.outputs[0], dy_t}, c.Attrs());
  ASSERT_TRUE(routed.status.ok()) << routed.status.ToString();
  auto masked = RunOp("ReluGrad", {routed.outputs[0], f_t});
  ASSERT_TRUE(masked.status.ok()) << masked.status.ToString();
  auto bias = RunOp("BiasAddGrad", {masked.outputs[0]});
  ASSERT_TRUE(bias.status.ok()) << bias.status.ToString();
  AttrMap attrs = c.Attrs();
  attrs["num_features"].set_i(separate ? 1 : 0);
  std::vector<Tensor> extra;
  if (separate) extra.push_back(f_t);
  for (ThreadPool* pool : Pools()) {
    auto r = RunArgs("_FusedMaxPoolGrad",
                     {In(x_t), In(pooled.outputs[0]), In(dy_t), List(extra)}, attrs, true, pool);
    ASSERT_TRUE(r.status.ok()) << r.status.ToString();
    ASSERT_EQ(r.outputs.size(), 2u);
    ASSERT_EQ(r.outputs[0].dims(), c.input);
    EXPECT_EQ(ToDoubles(r.outputs[0]), ToDoubles(masked.outputs[0]));
    ASSERT_EQ(r.outputs[1].dims(), Dims{c.input[3]});
    const auto want = ToDoubles(bias.outputs[0]);
    std::vector<double> tol(want.size());
    for (size_t i = 0; i < tol.size(); ++i) {
      tol[i] = 8 * Epsilon(dtype) * static_cast<double>(Count(c.input)) + 1e-300;
    }
    ExpectClose(ToDoubles(r.outputs[1]), want, tol, what + " bias");
  }
}

TEST(FusedMaxPoolGradTest, MatchesMaxPoolGradReluGradBiasAddGrad) {
  uint32_t seed = 100;
  // bfloat16 against the bf16 kernels of the three ops (bf16_kernels.cc): the routed values
  // are copies and overlapping windows' sums are rounded once in both, so output 0 is equal
  // there too.
  for (DataType dtype : {DT_FLOAT, DT_DOUBLE, DT_BFLOAT16}) {
    for (bool separate : {false, true}) {
      for (const char* padding : {"VALID", "SAME"}) {
        // Tiled (the CNN's 2x2 stride 2 SAME over even and odd sizes), disjoint with
        // uncovered pixels (VALID over odd sizes), overlapping windows, channel blocks
        // (batch 1 with many channels), one channel, batch 1.
        CheckFusedPoolGrad(dtype, {{3, 8, 8, 5}, {1, 2, 2, 1}, {1, 2, 2, 1}, padding}, separate, seed++);
        CheckFusedPoolGrad(dtype, {{2, 7, 9, 3}, {1, 2, 2, 1}, {1, 2, 2, 1}, padding}, separate, seed++);
        CheckFusedPoolGrad(dtype, {{2, 7, 9, 3}, {1, 3, 3, 1}, {1, 2, 2, 1}, padding}, separate, seed++);
        CheckFusedPoolGrad(dtype, {{1, 7, 7, 37}, {1, 2, 2, 1}, {1, 2, 2, 1}, padding}, separate, seed++);
        CheckFusedPoolGrad(dtype, {{1, 5, 6, 1}, {1, 3, 2, 1}, {1, 1, 1, 1}, padding}, separate, seed++);
        CheckFusedPoolGrad(dtype, {{4, 9, 8, 18}, {1, 3, 2, 1}, {1, 3, 2, 1}, padding}, separate, seed++);
      }
      CheckFusedPoolGrad(dtype, {{1, 5, 6, 2}, {1, 3, 3, 1}, {1, 1, 2, 1}, "EXPLICIT", {0, 0, 1, 2, 2, 0, 0, 0}},
                         separate, seed++);
      // The vectorised path over lane counts (PoolGradTest.DisjointWindowsOverEveryLaneCount)
      // and the CNN's first layer.
      for (int64_t depth : {7, 16, 17, 33}) {
        CheckFusedPoolGrad(dtype, {{2, 6, 5, depth}, {1, 2, 2, 1}, {1, 2, 2, 1}, "SAME"}, separate, seed++);
      }
      CheckFusedPoolGrad(dtype, {{2, 28, 28, 32}, {1, 2, 2, 1}, {1, 2, 2, 1}, "SAME"}, separate, seed++);
    }
  }
}

TEST(FusedMaxPoolGradTest, EmptyTensorsAndBadInputs) {
  for (bool separate : {false, true}) {
    CheckFusedPoolGrad(DT_FLOAT, {{0, 4, 4, 3}, {1, 2, 2, 1}, {1, 2, 2, 1}, "SAME"}, separate, 200);
    CheckFusedPoolGrad(DT_FLOAT, {{2, 4, 4, 0}, {1, 2, 2, 1}, {1, 2, 2, 1}, "VALID"}, separate, 201);
    CheckFusedPoolGrad(DT_FLOAT, {{2, 0, 4, 3}, {1, 2, 2, 1}, {1, 1, 1, 1}, "SAME"}, separate, 202);
  }
  // Empty batch: the bias gradient is zeros of the channel count.
  AttrMap attrs{{"ksize", AttrOfIntList({1, 2, 2, 1})},
                {"strides", AttrOfIntList({1, 2, 2, 1})},
                {"padding", AttrOfString("VALID")},
                {"num_features", AttrOfInt(0)}};
  const Tensor empty_x = MakeTyped(DT_FLOAT, {0, 4, 4, 3}, {});
  const Tensor empty_y = MakeTyped(DT_FLOAT, {0, 2, 2, 3}, {});
  auto r = RunArgs("_FusedMaxPoolGrad", {In(empty_x), In(empty_y), In(empty_y), List({})}, attrs);
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<float>(r.outputs[1]), (std::vector<float>{0, 0, 0}));
  // Features of another shape; more than one features input.
  const Tensor x = MakeTyped(DT_FLOAT, {1, 4, 4, 2}, std::vector<double>(32, 1));
  const Tensor y = MakeTyped(DT_FLOAT, {1, 2, 2, 2}, std::vector<double>(8, 1));
  attrs["num_features"] = AttrOfInt(1);
  ExpectStatus(RunArgs("_FusedMaxPoolGrad", {In(x), In(y), In(y), List({y})}, attrs, false).status,
               Code::kInvalidArgument, {"node", "features", "[1,4,4,2]", "[1,2,2,2]"});
  attrs["num_features"] = AttrOfInt(2);
  ExpectStatus(RunArgs("_FusedMaxPoolGrad", {In(x), In(y), In(y), List({x, x})}, attrs, false).status,
               Code::kInvalidArgument, {"node", "num_features"});
}

TEST(PoolGradTest, BadInputs) {
  auto attrs = [](Dims k, Dims s, std::string padding) {
    return AttrMap{{"ksize", AttrOfIntList(k)},
                   {"strides", AttrOfIntList(s)},
                   {"padding", AttrOfString(padding)}};
  };
  const AttrMap ok = attrs({1, 2, 2, 1}, {1, 2, 2, 1}, "VALID");
  const Tensor x = MakeTyped(DT_FLOAT, {1, 4, 4, 2}, std::vector<double>(32, 1));
  const Tensor y = MakeTyped(DT_FLOAT, {1, 2, 2, 2}, std::vector<double>(8, 1));
  const Tensor y_bad = MakeTyped(DT_FLOAT, {1, 2, 3, 2}, std::vector<double>(12, 1));
  auto max_grad = [&](const Tensor& in, const Tensor& out, const Tensor& grad, const AttrMap& a) {
    return RunArgs("MaxPoolGrad", {In(in), In(out), In(grad)}, a, false).status;
  };
  auto avg_grad = [&](const Tensor& sizes, const Tensor& grad, const AttrMap& a) {
    return RunArgs("AvgPoolGrad", {In(sizes), In(grad)}, a, false).status;
  };
  // Shapes that do not fit the pooling.
  ExpectStatus(max_grad(x, y, y_bad, ok), Code::kInvalidArgument,
               {"node", "grad", "[1,2,2,2]", "[1,2,3,2]"});
  ExpectStatus(max_grad(x, y_bad, y, ok), Code::kInvalidArgument, {"node", "orig_output"});
  ExpectStatus(max_grad(MakeTyped(DT_FLOAT, {4, 4, 2}, std::vector<double>(32, 1)), y, y, ok),
               Code::kInvalidArgument, {"node", "4-D", "[4,4,2]"});
  ExpectStatus(max_grad(x, y, y, attrs({1, 6, 2, 1}, {1, 1, 1, 1}, "VALID")),
               Code::kInvalidArgument, {"node", "negative"});
  ExpectStatus(avg_grad(Sizes({1, 4, 4, 2}), y_bad, ok), Code::kInvalidArgument,
               {"node", "grad", "[1,2,2,2]"});
  ExpectStatus(avg_grad(Sizes({1, 4, 4}), y, ok), Code::kInvalidArgument,
               {"node", "orig_input_shape", "4"});
  ExpectStatus(avg_grad(Sizes({1, 4, -4, 2}), y, ok), Code::kInvalidArgument,
               {"node", "non-negative"});
  ExpectStatus(avg_grad(Sizes({1, 5, 4, 2}), y, ok), Code::kOk, {});  // 5 rows pool to 2 too
  // Attrs, rejected when the kernel is made.
  for (const char* op : {"MaxPoolGrad", "AvgPoolGrad"}) {
    SCOPED_TRACE(op);
    auto run = [&](const AttrMap& a) {
      return std::string(op) == "MaxPoolGrad" ? max_grad(x, y, y, a)
                                              : avg_grad(Sizes({1, 4, 4, 2}), y, a);
    };
    ExpectStatus(run(attrs({1, 0, 2, 1}, {1, 1, 1, 1}, "VALID")), Code::kInvalidArgument,
                 {"node", "ksize"});
    ExpectStatus(run(attrs({2, 2, 2, 1}, {1, 1, 1, 1}, "VALID")), Code::kInvalidArgument,
                 {"node", "batch"});
    ExpectStatus(run(attrs({1, 2, 2, 2}, {1, 1, 1, 2}, "VALID")), Code::kUnimplemented,
                 {"node", "depth"});
    AttrMap nchw = ok;
    nchw["data_format"] = AttrOfString("NCHW");
    ExpectStatus(run(nchw), Code::kUnimplemented, {"node", "NHWC"});
  }
  AttrMap big_pad = attrs({1, 2, 2, 1}, {1, 1, 1, 1}, "EXPLICIT");
  big_pad["explicit_paddings"] = AttrOfIntList({0, 0, 2, 0, 0, 0, 0, 0});
  ExpectStatus(max_grad(x, y, y, big_pad), Code::kInvalidArgument,
               {"node", "smaller than the window"});
}

}  // namespace
}  // namespace tgraph::testing
