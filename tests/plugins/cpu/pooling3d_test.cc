// MaxPool3D, AvgPool3D, MaxPool3DGrad, MaxPool3DGradGrad and AvgPool3DGrad (NDHWC) on the CPU plugin against
// float64 reference loops: VALID and SAME, strides smaller and larger than the window,
// ties (MaxPool3DGrad gives every tied maximum the gradient, as TF's CPU kernel), empty
// tensors, float and bfloat16, bad inputs.
#include <limits>

#include "nn_test_util.h"

namespace tgraph::testing {
namespace {

struct Case3 {
  Dims input, ksize, strides;
  std::string padding;
  AttrMap Attrs() const {
    return {{"ksize", AttrOfIntList(ksize)},
            {"strides", AttrOfIntList(strides)},
            {"padding", AttrOfString(padding)}};
  }
};

// Output size and padding before, per spatial dim, as TF computes them: SAME padding of the
// forward ops may be negative (a stride larger than the window shifts the windows), the
// gradient ops' is clamped at 0.
void Windows(const Case3& c, int64_t out[3], int64_t pad[3], bool forward = true) {
  for (int i = 0; i < 3; ++i) {
    const int64_t in = c.input[i + 1], k = c.ksize[i + 1], s = c.strides[i + 1];
    if (c.padding == "VALID") {
      out[i] = (in - k + s) / s;
      pad[i] = 0;
    } else {
      out[i] = (in + s - 1) / s;
      const int64_t excess = (out[i] - 1) * s + k - in;
      pad[i] = (forward ? excess : std::max<int64_t>(excess, 0)) / 2;
    }
  }
}

// Calls fn(output flat index, input flat index) for every input element of every window.
template <typename F>
void ForEachWindow(const Case3& c, bool forward, F&& fn) {
  int64_t out[3], pad[3];
  Windows(c, out, pad, forward);
  const int64_t n = c.input[0], ch = c.input[4];
  for (int64_t b = 0; b < n; ++b)
    for (int64_t od = 0; od < out[0]; ++od)
      for (int64_t oh = 0; oh < out[1]; ++oh)
        for (int64_t ow = 0; ow < out[2]; ++ow)
          for (int64_t d = 0; d < c.ksize[1]; ++d)
            for (int64_t h = 0; h < c.ksize[2]; ++h)
              for (int64_t w = 0; w < c.ksize[3]; ++w) {
                const int64_t id = od * c.strides[1] - pad[0] + d;
                const int64_t ih = oh * c.strides[2] - pad[1] + h;
                const int64_t iw = ow * c.strides[3] - pad[2] + w;
                if (id < 0 || id >= c.input[1] || ih < 0 || ih >= c.input[2] || iw < 0 ||
                    iw >= c.input[3]) {
                  continue;
                }
                for (int64_t k = 0; k < ch; ++k) {
                  const int64_t o = (((b * out[0] + od) * out[1] + oh) * out[2] + ow) * ch + k;
                  const int64_t i =
                      (((b * c.input[1] + id) * c.input[2] + ih) * c.input[3] + iw) * ch + k;
                  fn(o, i);
                }
              }
}

Dims OutDims(const Case3& c) {
  int64_t out[3], pad[3];
  Windows(c, out, pad);
  return {c.input[0], out[0], out[1], out[2], c.input[4]};
}

void CheckCase(DataType dtype, const Case3& c, uint32_t seed, bool ties = false) {
  SCOPED_TRACE(DataTypeName(dtype) + std::string(" ") + c.padding + " seed " + std::to_string(seed));
  const Dims od = OutDims(c);
  const int64_t n_in = Count(c.input), n_out = Count(od);
  std::vector<double> x = RandomValues(dtype, n_in, seed, -4, 4);
  if (ties) {
    for (double& v : x) v = std::round(v / 4);  // few distinct values: many tied maxima
  }
  const auto gy = RandomValues(dtype, n_out, seed + 1000, -2, 2);
  std::vector<double> mx(static_cast<size_t>(n_out), -std::numeric_limits<double>::infinity());
  std::vector<double> sum(static_cast<size_t>(n_out), 0), cnt(static_cast<size_t>(n_out), 0);
  ForEachWindow(c, true, [&](int64_t o, int64_t i) {
    mx[static_cast<size_t>(o)] = std::max(mx[static_cast<size_t>(o)], x[static_cast<size_t>(i)]);
    sum[static_cast<size_t>(o)] += x[static_cast<size_t>(i)];
    cnt[static_cast<size_t>(o)] += 1;
  });
  std::vector<double> avg(sum.size());
  for (size_t i = 0; i < avg.size(); ++i) avg[i] = sum[i] / cnt[i];
  std::vector<double> dmax(static_cast<size_t>(n_in), 0), davg(static_cast<size_t>(n_in), 0);
  std::vector<double> gcnt(static_cast<size_t>(n_out), 0);
  ForEachWindow(c, false, [&](int64_t o, int64_t) { gcnt[static_cast<size_t>(o)] += 1; });
  ForEachWindow(c, false, [&](int64_t o, int64_t i) {
    if (x[static_cast<size_t>(i)] == mx[static_cast<size_t>(o)]) {
      dmax[static_cast<size_t>(i)] += gy[static_cast<size_t>(o)];
    }
    davg[static_cast<size_t>(i)] += gy[static_cast<size_t>(o)] / gcnt[static_cast<size_t>(o)];
  });
  // MaxPool3DGradGrad: grad at each window's first element equal to the forward maximum.
  const auto gx = RandomValues(dtype, n_in, seed + 2000, -2, 2);
  std::vector<double> gg(static_cast<size_t>(n_out), 0);
  std::vector<bool> taken(static_cast<size_t>(n_out), false);
  ForEachWindow(c, false, [&](int64_t o, int64_t i) {
    if (!taken[static_cast<size_t>(o)] && x[static_cast<size_t>(i)] == mx[static_cast<size_t>(o)]) {
      gg[static_cast<size_t>(o)] = gx[static_cast<size_t>(i)];
      taken[static_cast<size_t>(o)] = true;
    }
  });
  const double tol = dtype == DT_BFLOAT16 ? 0.1 : 1e-5;
  for (ThreadPool* pool : Pools()) {
    const Tensor xt = MakeTyped(dtype, c.input, x);
    auto m = RunOpOnPool(pool, "MaxPool3D", {xt}, c.Attrs());
    ASSERT_TRUE(m.status.ok()) << m.status.ToString();
    ASSERT_EQ(m.outputs[0].dims(), od);
    ExpectClose(ToDoubles(m.outputs[0]), mx, {}, "MaxPool3D");  // exact
    auto a = RunOpOnPool(pool, "AvgPool3D", {xt}, c.Attrs());
    ASSERT_TRUE(a.status.ok()) << a.status.ToString();
    ASSERT_EQ(a.outputs[0].dims(), od);
    ExpectCloseUniform(ToDoubles(a.outputs[0]), avg, tol, "AvgPool3D");
    auto mg = RunOpOnPool(pool, "MaxPool3DGrad",
                          {xt, m.outputs[0], MakeTyped(dtype, od, gy)}, c.Attrs());
    ASSERT_TRUE(mg.status.ok()) << mg.status.ToString();
    ASSERT_EQ(mg.outputs[0].dims(), c.input);
    ExpectCloseUniform(ToDoubles(mg.outputs[0]), dmax, tol * 4, "MaxPool3DGrad");
    auto mgg = RunOpOnPool(pool, "MaxPool3DGradGrad",
                           {xt, m.outputs[0], MakeTyped(dtype, c.input, gx)}, c.Attrs());
    ASSERT_TRUE(mgg.status.ok()) << mgg.status.ToString();
    ASSERT_EQ(mgg.outputs[0].dims(), od);
    ExpectClose(ToDoubles(mgg.outputs[0]), gg, {}, "MaxPool3DGradGrad");  // exact
    auto ag = RunOpOnPool(pool, "AvgPool3DGrad", {Sizes(c.input), MakeTyped(dtype, od, gy)},
                          c.Attrs());
    ASSERT_TRUE(ag.status.ok()) << ag.status.ToString();
    ASSERT_EQ(ag.outputs[0].dims(), c.input);
    ExpectCloseUniform(ToDoubles(ag.outputs[0]), davg, tol * 2, "AvgPool3DGrad");
  }
}

TEST(Pooling3DKernelTest, AgainstReference) {
  uint32_t seed = 1;
  for (DataType dtype : {DT_FLOAT, DT_BFLOAT16}) {
    for (const char* padding : {"VALID", "SAME"}) {
      CheckCase(dtype, {{2, 4, 5, 6, 3}, {1, 2, 2, 2, 1}, {1, 2, 2, 2, 1}, padding}, seed++);
      CheckCase(dtype, {{1, 5, 5, 7, 2}, {1, 3, 2, 3, 1}, {1, 1, 2, 2, 1}, padding}, seed++);
      CheckCase(dtype, {{2, 3, 6, 5, 1}, {1, 1, 3, 1, 1}, {1, 2, 1, 3, 1}, padding}, seed++);
      CheckCase(dtype, {{1, 7, 4, 4, 2}, {1, 2, 1, 1, 1}, {1, 3, 4, 1, 1}, padding}, seed++);  // s > k
      CheckCase(dtype, {{1, 3, 3, 3, 4}, {1, 3, 3, 3, 1}, {1, 1, 1, 1, 1}, padding}, seed++);
      CheckCase(dtype, {{2, 4, 4, 4, 2}, {1, 2, 3, 2, 1}, {1, 1, 1, 1, 1}, padding}, seed++, true);
    }
  }
}

TEST(Pooling3DKernelTest, HandComputedAndTies) {
  // 1x2x2x2x1 of 1..8 with a 2x2x2 window: max 8, mean 4.5; SAME with stride 2 keeps one
  // window.
  std::vector<double> v = {1, 2, 3, 4, 5, 6, 7, 8};
  const Tensor x = MakeTyped(DT_FLOAT, {1, 2, 2, 2, 1}, v);
  const Case3 c{{1, 2, 2, 2, 1}, {1, 2, 2, 2, 1}, {1, 2, 2, 2, 1}, "SAME"};
  auto m = RunOp("MaxPool3D", {x}, c.Attrs());
  ASSERT_TRUE(m.status.ok()) << m.status.ToString();
  EXPECT_EQ(ToDoubles(m.outputs[0]), (std::vector<double>{8}));
  auto a = RunOp("AvgPool3D", {x}, c.Attrs());
  ASSERT_TRUE(a.status.ok()) << a.status.ToString();
  EXPECT_EQ(ToDoubles(a.outputs[0]), (std::vector<double>{4.5}));
  // Every element equal: every one gets the whole gradient (TF's CPU MaxPool3DGrad).
  const Tensor ones = MakeTyped(DT_FLOAT, {1, 2, 2, 2, 1}, std::vector<double>(8, 1));
  auto g = RunOp("MaxPool3DGrad", {ones, MakeTyped(DT_FLOAT, {1, 1, 1, 1, 1}, {1}),
                                   MakeTyped(DT_FLOAT, {1, 1, 1, 1, 1}, {3})},
                 c.Attrs());
  ASSERT_TRUE(g.status.ok()) << g.status.ToString();
  EXPECT_EQ(ToDoubles(g.outputs[0]), std::vector<double>(8, 3));
  // A window of 2 over 3 with SAME padding at stride 2: the second window has 1 element.
  const Case3 c2{{1, 1, 1, 3, 1}, {1, 1, 1, 2, 1}, {1, 1, 1, 2, 1}, "SAME"};
  auto ag = RunOp("AvgPool3DGrad", {Sizes(c2.input), MakeTyped(DT_FLOAT, {1, 1, 1, 2, 1}, {2, 6})},
                  c2.Attrs());
  ASSERT_TRUE(ag.status.ok()) << ag.status.ToString();
  EXPECT_EQ(ToDoubles(ag.outputs[0]), (std::vector<double>{1, 1, 6}));
}

TEST(Pooling3DKernelTest, SamePaddingWithAStrideLargerThanTheWindow) {
  // Width 5, window 2, stride 5, SAME: TF's forward op pads by (0 + 2 - 5) / 2 = -1, so its
  // one window is [1, 2]; the gradient ops clamp the padding at 0 and read [0, 1], where
  // nothing equals the forward maximum: no gradient at all (TF's numbers).
  const Case3 c{{1, 1, 1, 5, 1}, {1, 1, 1, 2, 1}, {1, 1, 1, 5, 1}, "SAME"};
  const Tensor x = MakeTyped(DT_FLOAT, c.input, {0, 1, 2, 3, 4});
  auto m = RunOp("MaxPool3D", {x}, c.Attrs());
  ASSERT_TRUE(m.status.ok()) << m.status.ToString();
  EXPECT_EQ(ToDoubles(m.outputs[0]), (std::vector<double>{2}));
  auto a = RunOp("AvgPool3D", {x}, c.Attrs());
  ASSERT_TRUE(a.status.ok()) << a.status.ToString();
  EXPECT_EQ(ToDoubles(a.outputs[0]), (std::vector<double>{1.5}));
  auto g = RunOp("MaxPool3DGrad", {x, m.outputs[0], MakeTyped(DT_FLOAT, {1, 1, 1, 1, 1}, {1})},
                 c.Attrs());
  ASSERT_TRUE(g.status.ok()) << g.status.ToString();
  EXPECT_EQ(ToDoubles(g.outputs[0]), (std::vector<double>{0, 0, 0, 0, 0}));
  auto ag = RunOp("AvgPool3DGrad", {Sizes(c.input), MakeTyped(DT_FLOAT, {1, 1, 1, 1, 1}, {4})},
                  c.Attrs());
  ASSERT_TRUE(ag.status.ok()) << ag.status.ToString();
  EXPECT_EQ(ToDoubles(ag.outputs[0]), (std::vector<double>{2, 2, 0, 0, 0}));
}

TEST(Pooling3DKernelTest, EmptyTensors) {
  for (const Dims& in : {Dims{0, 2, 2, 2, 3}, Dims{2, 2, 2, 2, 0}}) {
    const Case3 c{in, {1, 2, 2, 2, 1}, {1, 1, 1, 1, 1}, "VALID"};
    const Tensor x = MakeTyped(DT_FLOAT, in, {});
    for (const char* op : {"MaxPool3D", "AvgPool3D"}) {
      auto r = RunOp(op, {x}, c.Attrs());
      ASSERT_TRUE(r.status.ok()) << r.status.ToString();
      EXPECT_EQ(r.outputs[0].dims(), OutDims(c));
    }
    const Tensor gy = MakeTyped(DT_FLOAT, OutDims(c), {});
    auto ag = RunOp("AvgPool3DGrad", {Sizes(in), gy}, c.Attrs());
    ASSERT_TRUE(ag.status.ok()) << ag.status.ToString();
    EXPECT_EQ(ag.outputs[0].dims(), in);
    auto mg = RunOp("MaxPool3DGrad", {x, gy, gy}, c.Attrs());
    ASSERT_TRUE(mg.status.ok()) << mg.status.ToString();
    EXPECT_EQ(mg.outputs[0].dims(), in);
    // TF's MaxPool3DGradGrad refuses empty tensors.
    ExpectStatus(RunOp("MaxPool3DGradGrad", {x, gy, x}, c.Attrs()).status, Code::kInvalidArgument,
                 {"node", "empty"});
  }
}

TEST(Pooling3DKernelTest, BadInputs) {
  const Tensor x = MakeTyped(DT_FLOAT, {1, 3, 3, 3, 2}, std::vector<double>(54, 1));
  auto attrs = [](Dims k, Dims s, std::string padding) {
    return AttrMap{{"ksize", AttrOfIntList(k)},
                   {"strides", AttrOfIntList(s)},
                   {"padding", AttrOfString(padding)}};
  };
  for (const char* op : {"MaxPool3D", "AvgPool3D"}) {
    SCOPED_TRACE(op);
    // Pooling over the batch or channels.
    ExpectStatus(RunOp(op, {x}, attrs({2, 1, 1, 1, 1}, {1, 1, 1, 1, 1}, "VALID"), false).status,
                 Code::kUnimplemented, {"node", "batch"});
    ExpectStatus(RunOp(op, {x}, attrs({1, 1, 1, 1, 2}, {1, 1, 1, 1, 1}, "VALID"), false).status,
                 Code::kUnimplemented, {"node", "channel"});
    // A 4-D input and a window larger than the input, found by the kernel (unknown shapes)
    // and by shape inference.
    const Tensor x4 = MakeTyped(DT_FLOAT, {3, 3, 3, 2}, std::vector<double>(54, 1));
    ExpectStatus(RunOp(op, {x4}, attrs({1, 1, 1, 1, 1}, {1, 1, 1, 1, 1}, "VALID"), false).status,
                 Code::kInvalidArgument, {"node", "5-D", "[3,3,3,2]"});
    ExpectStatus(RunOp(op, {x}, attrs({1, 4, 1, 1, 1}, {1, 1, 1, 1, 1}, "VALID"), false).status,
                 Code::kInvalidArgument, {"node", "negative"});
    ExpectStatus(RunOp(op, {x}, attrs({1, 4, 1, 1, 1}, {1, 1, 1, 1, 1}, "VALID")).status,
                 Code::kInvalidArgument, {"node", "negative"});
    ExpectStatus(RunOp(op, {x}, attrs({1, 0, 1, 1, 1}, {1, 1, 1, 1, 1}, "VALID"), false).status,
                 Code::kInvalidArgument, {"node", "positive"});
    AttrMap ncdhw = attrs({1, 1, 2, 2, 2}, {1, 1, 1, 1, 1}, "VALID");
    ncdhw["data_format"] = AttrOfString("NCDHW");
    ExpectStatus(RunOp(op, {x}, ncdhw).status, Code::kUnimplemented, {"node", "NDHWC"});
  }
  // A gradient whose shape is not the pooling's output.
  const AttrMap a = attrs({1, 2, 2, 2, 1}, {1, 1, 1, 1, 1}, "VALID");
  const Tensor wrong = MakeTyped(DT_FLOAT, {1, 3, 2, 2, 2}, std::vector<double>(24, 1));
  ExpectStatus(RunOp("AvgPool3DGrad", {Sizes({1, 3, 3, 3, 2}), wrong}, a, false).status,
               Code::kInvalidArgument, {"node", "grad", "[1,3,2,2,2]", "[1,2,2,2,2]"});
  ExpectStatus(RunOp("MaxPool3DGrad", {x, wrong, wrong}, a, false).status,
               Code::kInvalidArgument, {"node", "grad"});
  ExpectStatus(RunOp("AvgPool3DGrad", {Sizes({1, 3, 3, 3}), wrong}, a, false).status,
               Code::kInvalidArgument, {"node", "orig_input_shape"});
  // double is declared by the op (for other devices) but TF's CPU kernels, and these, take
  // float and bfloat16 only.
  ExpectStatus(RunOp("AvgPool3D", {MakeTyped(DT_DOUBLE, {1, 2, 2, 2, 1}, std::vector<double>(8, 1))},
                     attrs({1, 1, 1, 1, 1}, {1, 1, 1, 1, 1}, "VALID"))
                   .status,
               Code::kNotFound, {"AvgPool3D"});
}

}  // namespace
}  // namespace tgraph::testing
