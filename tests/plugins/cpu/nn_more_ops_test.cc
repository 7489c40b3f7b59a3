// CPU kernels of the neural-network ops TensorFlow's own graphs hold: FusedBatchNormGrad
// (every version and dtype), LRN and LRNGrad, ExtractImagePatches (every dtype) and tgraph's
// _ExtractImagePatchesGrad, MaxPoolWithArgmax and its gradient, Bincount and DenseBincount,
// LeakyReluGrad and SeluGrad; against float64 references written
// here (LRNGrad against LRN's derivative by central differences), and their argument checks.
// tests/interop/test_model_ops_nn.py compares them with TensorFlow itself.
#include <Eigen/Core>

#include <cmath>
#include <complex>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "array_test_util.h"
#include "core/graph/attr_value_util.h"
#include "typed_tensors.h"

namespace tgraph::testing {
namespace {

Tensor Typed(DataType dt, Dims dims, const std::vector<double>& v) {
  switch (dt) {
    case DT_FLOAT: return Make<float>(std::move(dims), v);
    case DT_DOUBLE: return Make<double>(std::move(dims), v);
    case DT_HALF: return Make<half>(std::move(dims), v);
    default: return Make<bfloat16>(std::move(dims), v);
  }
}

std::vector<double> Values(const Tensor& t) {
  switch (t.dtype()) {
    case DT_FLOAT: return Get<float>(t);
    case DT_DOUBLE: return Get<double>(t);
    case DT_HALF: return Get<half>(t);
    default: return Get<bfloat16>(t);
  }
}

double Tol(DataType t) { return t == DT_HALF ? 4e-3 : t == DT_BFLOAT16 ? 3e-2 : t == DT_FLOAT ? 2e-5 : 1e-10; }

void ExpectNear(const Tensor& got, const std::vector<double>& want, double scale, const std::string& what) {
  const std::vector<double> g = Values(got);
  ASSERT_EQ(g.size(), want.size()) << what;
  for (size_t i = 0; i < g.size(); ++i) {
    EXPECT_NEAR(g[i], want[i], Tol(got.dtype()) * std::max({1.0, std::abs(want[i]), scale})) << what << " at " << i;
  }
}

std::vector<double> Wave(int64_t n, double a, double b) {
  std::vector<double> v;
  for (int64_t i = 0; i < n; ++i) v.push_back(a * std::sin(0.7 * static_cast<double>(i) + b) + 0.1 * b);
  return v;
}

// ---- FusedBatchNormGrad ----

// The reference of batch_norm_grad_ops.cc's header, in double; NHWC or NCHW [2, 3, 2, 4].
void CheckBatchNormGrad(const std::string& op, DataType dt, const std::string& format, bool training) {
  const Dims dims = {2, 3, 2, 4};
  const bool nchw = format == "NCHW";
  const int64_t channels = nchw ? 3 : 4, n = 48, inner = nchw ? 8 : 1;
  const std::vector<double> x = Values(Typed(dt, dims, Wave(n, 2, 0.5)));
  const std::vector<double> dy = Values(Typed(dt, dims, Wave(n, 1, 2)));
  std::vector<double> scale, mean, var;
  for (int64_t c = 0; c < channels; ++c) {
    scale.push_back(0.5 + 0.25 * static_cast<double>(c));
    mean.push_back(0.2 * static_cast<double>(c) - 0.1);
    var.push_back(0.5 + 0.3 * static_cast<double>(c));
  }
  const DataType stats = DT_FLOAT;
  auto vec = [&](const std::vector<double>& v) { return Typed(stats, {channels}, v); };
  std::vector<Tensor> inputs = {Typed(dt, dims, dy), Typed(dt, dims, x), vec(scale), vec(mean), vec(var)};
  if (op == "FusedBatchNormGradV3") inputs.push_back(Typed(stats, {0}, {}));
  OpRun r = RunOp(op, inputs,
                  {{"epsilon", AttrOfFloat(0.01f)}, {"data_format", AttrOfString(format)},
                   {"is_training", AttrOfBool(training)}});
  const std::string what = op + " " + DataTypeName(dt) + " " + format + (training ? " training" : " inference");
  ASSERT_TRUE(r.status.ok()) << what << ": " << r.status.ToString();
  auto ch = [&](int64_t i) { return static_cast<size_t>((i / inner) % channels); };
  std::vector<double> sum_dy(static_cast<size_t>(channels)), sum_dy_xc(static_cast<size_t>(channels));
  for (int64_t i = 0; i < n; ++i) {
    sum_dy[ch(i)] += dy[static_cast<size_t>(i)];
    sum_dy_xc[ch(i)] += dy[static_cast<size_t>(i)] * (x[static_cast<size_t>(i)] - mean[ch(i)]);
  }
  const double count = static_cast<double>(n / channels);
  std::vector<double> dx, dscale, doffset;
  for (int64_t i = 0; i < n; ++i) {
    const size_t c = ch(i);
    const double inv = 1 / std::sqrt(var[c] + 0.01), xc = x[static_cast<size_t>(i)] - mean[c];
    double g = dy[static_cast<size_t>(i)];
    if (training) g -= sum_dy[c] / count + xc * inv * inv * sum_dy_xc[c] / count;
    dx.push_back(scale[c] * inv * g);
  }
  for (int64_t c = 0; c < channels; ++c) {
    dscale.push_back(sum_dy_xc[static_cast<size_t>(c)] / std::sqrt(var[static_cast<size_t>(c)] + 0.01));
    doffset.push_back(sum_dy[static_cast<size_t>(c)]);
  }
  ExpectNear(r.outputs[0], dx, 1, what + " x_backprop");
  // The sums of a low-precision x: relative to the sums' scale.
  ExpectNear(r.outputs[1], dscale, 8, what + " scale_backprop");
  ExpectNear(r.outputs[2], doffset, 8, what + " offset_backprop");
  EXPECT_EQ(r.outputs[3].dims(), Dims{}) << what;
  EXPECT_EQ(r.outputs[4].dims(), Dims{}) << what;
}

TEST(NnMoreOpsTest, FusedBatchNormGradEveryVersionAndType) {
  for (const std::string format : {"NHWC", "NCHW"}) {
    for (bool training : {true, false}) {
      CheckBatchNormGrad("FusedBatchNormGrad", DT_FLOAT, format, training);
      for (const char* op : {"FusedBatchNormGradV2", "FusedBatchNormGradV3"}) {
        for (DataType dt : {DT_FLOAT, DT_HALF, DT_BFLOAT16}) CheckBatchNormGrad(op, dt, format, training);
      }
    }
  }
}

TEST(NnMoreOpsTest, FusedBatchNormGradBadShapesFail) {
  const Tensor x = Typed(DT_FLOAT, {1, 2, 2, 3}, Wave(12, 1, 0));
  const Tensor v3 = Typed(DT_FLOAT, {3}, {1, 1, 1});
  ExpectInvalid(RunOp("FusedBatchNormGradV3", {x, x, Typed(DT_FLOAT, {2}, {1, 1}), v3, v3, Typed(DT_FLOAT, {0}, {})},
                      {}, /*known_shapes=*/false)
                    .status,
                {"scale must be a vector of 3"});
  ExpectInvalid(RunOp("FusedBatchNormGradV2", {Typed(DT_FLOAT, {1, 2, 2, 2}, Wave(8, 1, 0)), x, v3, v3, v3}, {},
                      /*known_shapes=*/false)
                    .status,
                {"y_backprop and x"});
}

// ---- LRN ----

std::vector<double> LrnReference(const std::vector<double>& x, int64_t depth, int64_t r, double bias,
                                 double alpha, double beta) {
  std::vector<double> y(x.size());
  for (size_t p = 0; p < x.size(); p += static_cast<size_t>(depth)) {
    for (int64_t i = 0; i < depth; ++i) {
      double sum = 0;
      for (int64_t j = std::max<int64_t>(0, i - r); j <= std::min(depth - 1, i + r); ++j) {
        sum += x[p + static_cast<size_t>(j)] * x[p + static_cast<size_t>(j)];
      }
      y[p + static_cast<size_t>(i)] = x[p + static_cast<size_t>(i)] * std::pow(bias + alpha * sum, -beta);
    }
  }
  return y;
}

TEST(NnMoreOpsTest, LrnAndItsGradientOnEveryType) {
  const Dims dims = {2, 2, 1, 7};
  const int64_t n = 28, depth = 7;
  const AttrMap attrs = {{"depth_radius", AttrOfInt(2)}, {"bias", AttrOfFloat(1.5f)},
                         {"alpha", AttrOfFloat(0.3f)}, {"beta", AttrOfFloat(0.75f)}};
  for (DataType dt : {DT_FLOAT, DT_HALF, DT_BFLOAT16}) {
    const std::vector<double> x = Values(Typed(dt, dims, Wave(n, 1.5, 0.3)));
    const std::vector<double> g = Values(Typed(dt, dims, Wave(n, 1, 1.1)));
    OpRun y = RunOp("LRN", {Typed(dt, dims, x)}, attrs);
    ASSERT_TRUE(y.status.ok()) << y.status.ToString();
    ExpectNear(y.outputs[0], LrnReference(x, depth, 2, 1.5, 0.3, 0.75), 1, std::string("LRN ") + DataTypeName(dt));
    // dx_j = sum_i g_i dy_i/dx_j, by central differences of the reference.
    std::vector<double> dx(static_cast<size_t>(n), 0.0);
    for (int64_t j = 0; j < n; ++j) {
      std::vector<double> up = x, down = x;
      up[static_cast<size_t>(j)] += 1e-6;
      down[static_cast<size_t>(j)] -= 1e-6;
      const std::vector<double> yu = LrnReference(up, depth, 2, 1.5, 0.3, 0.75);
      const std::vector<double> yd = LrnReference(down, depth, 2, 1.5, 0.3, 0.75);
      for (int64_t i = 0; i < n; ++i) {
        dx[static_cast<size_t>(j)] += g[static_cast<size_t>(i)] * (yu[static_cast<size_t>(i)] - yd[static_cast<size_t>(i)]) / 2e-6;
      }
    }
    OpRun grad = RunOp("LRNGrad", {Typed(dt, dims, g), Typed(dt, dims, x), y.outputs[0]}, attrs);
    ASSERT_TRUE(grad.status.ok()) << grad.status.ToString();
    ExpectNear(grad.outputs[0], dx, 1, std::string("LRNGrad ") + DataTypeName(dt));
  }
  ExpectInvalid(RunOp("LRN", {Typed(DT_FLOAT, {2, 3}, Wave(6, 1, 0))}, {}, /*known_shapes=*/false).status,
                {"input must be 4-D"});
  ExpectInvalid(RunOp("LRN", {Typed(DT_FLOAT, {1, 1, 1, 2}, {1, 2})}, {{"depth_radius", AttrOfInt(-1)}}).status,
                {"depth_radius"});
  ExpectInvalid(RunOp("LRNGrad", {Typed(DT_FLOAT, {1, 1, 1, 2}, {1, 2}), Typed(DT_FLOAT, {1, 1, 1, 3}, {1, 2, 3}),
                                  Typed(DT_FLOAT, {1, 1, 1, 2}, {1, 2})},
                      {}, /*known_shapes=*/false)
                    .status,
                {"one shape"});
}

// ---- ExtractImagePatches ----

struct PatchCase {
  Dims image;
  int64_t kr, kc, sr, sc, rr, rc;
  std::string padding;
};

// The patches of an image of distinct values 1..n (0 where a window reads the padding), and
// their sizes, in double.
std::vector<double> PatchesReference(const PatchCase& c, Dims* out_dims) {
  const int64_t n = c.image[0], h = c.image[1], w = c.image[2], d = c.image[3];
  auto dim = [&](int64_t in, int64_t k, int64_t s, int64_t rate, int64_t* out, int64_t* pad) {
    const int64_t eff = (k - 1) * rate + 1;
    if (c.padding == "SAME") {
      *out = (in + s - 1) / s;
      *pad = std::max<int64_t>((*out - 1) * s + eff - in, 0) / 2;
    } else {
      *out = in >= eff ? (in - eff) / s + 1 : 0;
      *pad = 0;
    }
  };
  int64_t oh = 0, ow = 0, ph = 0, pw = 0;
  dim(h, c.kr, c.sr, c.rr, &oh, &ph);
  dim(w, c.kc, c.sc, c.rc, &ow, &pw);
  *out_dims = {n, oh, ow, c.kr * c.kc * d};
  std::vector<double> out;
  for (int64_t b = 0; b < n; ++b)
    for (int64_t r = 0; r < oh; ++r)
      for (int64_t q = 0; q < ow; ++q)
        for (int64_t i = 0; i < c.kr; ++i)
          for (int64_t j = 0; j < c.kc; ++j)
            for (int64_t e = 0; e < d; ++e) {
              const int64_t y = r * c.sr - ph + i * c.rr, x = q * c.sc - pw + j * c.rc;
              out.push_back(y < 0 || y >= h || x < 0 || x >= w ? 0.0 : static_cast<double>(((b * h + y) * w + x) * d + e + 1));
            }
  return out;
}

AttrMap PatchAttrs(const PatchCase& c) {
  return {{"ksizes", AttrOfIntList({1, c.kr, c.kc, 1})},
          {"strides", AttrOfIntList({1, c.sr, c.sc, 1})},
          {"rates", AttrOfIntList({1, c.rr, c.rc, 1})},
          {"padding", AttrOfString(c.padding)}};
}

// Element i of a tensor of any of ExtractImagePatches' dtypes set to the small integer v.
void SetSmall(Tensor* t, int64_t i, int64_t v) {
  switch (t->dtype()) {
    case DT_BOOL: t->flat<bool>()[i] = v != 0; break;
    case DT_INT8: t->flat<int8_t>()[i] = static_cast<int8_t>(v); break;
    case DT_UINT8: t->flat<uint8_t>()[i] = static_cast<uint8_t>(v); break;
    case DT_INT16: t->flat<int16_t>()[i] = static_cast<int16_t>(v); break;
    case DT_UINT16: t->flat<uint16_t>()[i] = static_cast<uint16_t>(v); break;
    case DT_HALF: t->flat<half>()[i] = half(static_cast<float>(v)); break;
    case DT_BFLOAT16: t->flat<bfloat16>()[i] = bfloat16(static_cast<float>(v)); break;
    case DT_INT32: t->flat<int32_t>()[i] = static_cast<int32_t>(v); break;
    case DT_UINT32: t->flat<uint32_t>()[i] = static_cast<uint32_t>(v); break;
    case DT_FLOAT: t->flat<float>()[i] = static_cast<float>(v); break;
    case DT_INT64: t->flat<int64_t>()[i] = v; break;
    case DT_UINT64: t->flat<uint64_t>()[i] = static_cast<uint64_t>(v); break;
    case DT_DOUBLE: t->flat<double>()[i] = static_cast<double>(v); break;
    // (Zero stays +0 in both parts: the padding's bytes are all zero.)
    case DT_COMPLEX64: t->flat<std::complex<float>>()[i] = {static_cast<float>(v), 2.0f * static_cast<float>(v)}; break;
    case DT_COMPLEX128: t->flat<std::complex<double>>()[i] = {static_cast<double>(v), 0.5 * static_cast<double>(v)}; break;
    default: ADD_FAILURE() << "SetSmall: " << DataTypeName(t->dtype());
  }
}

TEST(NnMoreOpsTest, ExtractImagePatchesOnEveryTypeAndGeometry) {
  const std::vector<PatchCase> cases = {
      {{2, 5, 6, 3}, 3, 2, 2, 1, 1, 1, "VALID"}, {{1, 5, 6, 2}, 3, 3, 2, 2, 1, 1, "SAME"},
      {{1, 7, 7, 1}, 2, 3, 1, 2, 2, 3, "SAME"},  {{2, 4, 4, 2}, 2, 2, 3, 3, 2, 1, "VALID"},
      {{1, 2, 2, 1}, 3, 3, 1, 1, 1, 1, "VALID"},  // no window fits: an empty output
  };
  for (const PatchCase& c : cases) {
    Dims out_dims;
    const std::vector<double> want = PatchesReference(c, &out_dims);
    for (DataType dt : {DT_BOOL, DT_INT8, DT_UINT8, DT_INT16, DT_UINT16, DT_HALF, DT_BFLOAT16, DT_INT32,
                        DT_UINT32, DT_FLOAT, DT_INT64, DT_UINT64, DT_DOUBLE, DT_COMPLEX64, DT_COMPLEX128}) {
      // Small distinct values (every dtype holds 1..n exactly for the cases' n < 128; bool
      // holds their parity, and the expected tensor is built the same way).
      Tensor image = Tensor::Allocate(dt, c.image).value();
      for (int64_t i = 0; i < image.NumElements(); ++i) SetSmall(&image, i, (i % 100) + 1);
      Tensor expected = Tensor::Allocate(dt, out_dims).value();
      for (size_t i = 0; i < want.size(); ++i) {
        SetSmall(&expected, static_cast<int64_t>(i), want[i] == 0 ? 0 : ((static_cast<int64_t>(want[i]) - 1) % 100) + 1);
      }
      OpRun r = RunOp("ExtractImagePatches", {image}, PatchAttrs(c));
      const std::string what = std::string(DataTypeName(dt)) + " " + c.padding;
      ASSERT_TRUE(r.status.ok()) << what << ": " << r.status.ToString();
      ASSERT_EQ(r.outputs[0].dims(), out_dims) << what;
      EXPECT_EQ(std::memcmp(r.outputs[0].data(), expected.data(), expected.ByteSize()), 0) << what;
    }
  }
  ExpectInvalid(RunOp("ExtractImagePatches", {Typed(DT_FLOAT, {2, 3}, Wave(6, 1, 0))},
                      PatchAttrs({{}, 1, 1, 1, 1, 1, 1, "VALID"}), /*known_shapes=*/false)
                    .status,
                {"images must be 4-D"});
}

// The gradient sums each patch element into the pixel it was read from: with a gradient of
// ones, each pixel gets the number of windows that read it.
TEST(NnMoreOpsTest, ExtractImagePatchesGradCountsTheWindowsOfEachPixel) {
  const PatchCase c = {{1, 4, 5, 2}, 3, 2, 1, 2, 1, 1, "SAME"};
  Dims out_dims;
  const std::vector<double> patches = PatchesReference(c, &out_dims);
  std::vector<double> counts(40, 0.0);
  for (double v : patches) {
    if (v != 0) counts[static_cast<size_t>(v) - 1] += 1;
  }
  for (DataType dt : {DT_FLOAT, DT_DOUBLE, DT_HALF, DT_BFLOAT16}) {
    OpRun r = RunOp("_ExtractImagePatchesGrad",
                    {Typed(dt, out_dims, std::vector<double>(patches.size(), 1.0)), I32Vec({1, 4, 5, 2})}, PatchAttrs(c));
    ASSERT_TRUE(r.status.ok()) << r.status.ToString();
    ExpectNear(r.outputs[0], counts, 1, std::string("_ExtractImagePatchesGrad ") + DataTypeName(dt));
  }
  ExpectInvalid(RunOp("_ExtractImagePatchesGrad", {Typed(DT_FLOAT, {1, 1, 1, 1}, {1}), I32Vec({1, 4, 5, 2})},
                      PatchAttrs(c), /*known_shapes=*/false)
                    .status,
                {"grad must have the patches' shape"});
}

// ---- MaxPoolWithArgmax ----

// Values and flat argmax indices of a max pool over an image of distinct values, in double,
// with the first maximum in row-major window order winning ties.
TEST(NnMoreOpsTest, MaxPoolWithArgmaxAndItsGradientOnEveryType) {
  const Dims dims = {2, 5, 4, 3};
  std::vector<double> x(120);
  for (size_t i = 0; i < x.size(); ++i) x[i] = std::round(10 * std::sin(1.3 * static_cast<double>(i)));  // ties
  for (bool with_batch : {false, true}) {
    for (const std::string padding : {"SAME", "VALID"}) {
      const AttrMap attrs = {{"ksize", AttrOfIntList({1, 3, 2, 1})}, {"strides", AttrOfIntList({1, 2, 2, 1})},
                             {"padding", AttrOfString(padding)}, {"include_batch_in_index", AttrOfBool(with_batch)}};
      const int64_t oh = padding == "SAME" ? 3 : 2, ow = 2, pt = padding == "SAME" ? 1 : 0;
      std::vector<double> want_v, want_i;
      for (int64_t b = 0; b < 2; ++b)
        for (int64_t y = 0; y < oh; ++y)
          for (int64_t q = 0; q < ow; ++q)
            for (int64_t c = 0; c < 3; ++c) {
              double best = 0;
              int64_t at = -1;
              for (int64_t i = 0; i < 3; ++i)
                for (int64_t j = 0; j < 2; ++j) {
                  const int64_t yy = y * 2 - pt + i, xx = q * 2 + j;
                  if (yy < 0 || yy >= 5 || xx >= 4) continue;
                  const double v = x[static_cast<size_t>(((b * 5 + yy) * 4 + xx) * 3 + c)];
                  if (at < 0 || v > best) {
                    best = v;
                    at = (((with_batch ? b * 5 : 0) + yy) * 4 + xx) * 3 + c;
                  }
                }
              want_v.push_back(best);
              want_i.push_back(static_cast<double>(at));
            }
      for (DataType dt : {DT_FLOAT, DT_DOUBLE, DT_HALF, DT_BFLOAT16}) {
        for (DataType index : {DT_INT64, DT_INT32}) {
          AttrMap a = attrs;
          a["Targmax"] = AttrOfType(index);
          OpRun r = RunOp("MaxPoolWithArgmax", {Typed(dt, dims, x)}, a);
          const std::string what = std::string(DataTypeName(dt)) + " " + padding + (with_batch ? " with batch" : "");
          ASSERT_TRUE(r.status.ok()) << what << ": " << r.status.ToString();
          ExpectNear(r.outputs[0], want_v, 1, what);
          const std::vector<double> got_i =
              index == DT_INT64 ? Get<int64_t>(r.outputs[1]) : Get<int32_t>(r.outputs[1]);
          EXPECT_EQ(got_i, want_i) << what;
          // The gradient: each pooled gradient added where its maximum was.
          std::vector<double> g(want_v.size());
          for (size_t i = 0; i < g.size(); ++i) g[i] = 0.5 + static_cast<double>(i % 7);
          std::vector<double> dx(x.size(), 0.0);
          for (size_t i = 0; i < g.size(); ++i) {
            const int64_t b = static_cast<int64_t>(i) / (oh * ow * 3);
            dx[static_cast<size_t>(static_cast<int64_t>(want_i[i]) + (with_batch ? 0 : b * 60))] += g[i];
          }
          OpRun grad = RunOp("MaxPoolGradWithArgmax", {Typed(dt, dims, x), Typed(dt, r.outputs[0].dims(), g), r.outputs[1]}, a);
          ASSERT_TRUE(grad.status.ok()) << what << ": " << grad.status.ToString();
          ExpectNear(grad.outputs[0], dx, 8, what + " gradient");
        }
      }
    }
  }
  // An argmax outside its image fails instead of writing out of bounds.
  OpRun bad = RunOp("MaxPoolGradWithArgmax", {Typed(DT_FLOAT, {1, 2, 2, 1}, {1, 2, 3, 4}), Typed(DT_FLOAT, {1, 1, 1, 1}, {1}),
                                              MakeTensor<int64_t>(DT_INT64, {1, 1, 1, 1}, {9})},
                    {{"ksize", AttrOfIntList({1, 2, 2, 1})}, {"strides", AttrOfIntList({1, 2, 2, 1})},
                     {"padding", AttrOfString("VALID")}});
  ExpectInvalid(bad.status, {"argmax lies outside"});
}

// ---- Bincount ----

TEST(NnMoreOpsTest, BincountAndDenseBincountOnEveryType) {
  for (DataType t : {DT_INT32, DT_INT64, DT_FLOAT, DT_DOUBLE}) {
    auto typed = [&](Dims dims, const std::vector<double>& v) {
      switch (t) {
        case DT_INT32: return Make<int32_t>(std::move(dims), v);
        case DT_INT64: return Make<int64_t>(std::move(dims), v);
        case DT_FLOAT: return Make<float>(std::move(dims), v);
        default: return Make<double>(std::move(dims), v);
      }
    };
    auto values = [&](const Tensor& out) {
      switch (t) {
        case DT_INT32: return Get<int32_t>(out);
        case DT_INT64: return Get<int64_t>(out);
        case DT_FLOAT: return Get<float>(out);
        default: return Get<double>(out);
      }
    };
    const std::string what = DataTypeName(t);
    // Bincount: any shape, flattened; values >= size left out; weights summed.
    OpRun r = RunOp("Bincount", {I32({2, 3}, {1, 2, 2, 7, 0, 2}), I32Scalar(4), typed({2, 3}, {1, 2, 3, 4, 5, 6})});
    ASSERT_TRUE(r.status.ok()) << what << ": " << r.status.ToString();
    EXPECT_EQ(values(r.outputs[0]), (std::vector<double>{5, 1, 11, 0})) << what;
    r = RunOp("Bincount", {I32({3}, {1, 1, 3}), I32Scalar(5), typed({0}, {})});
    ASSERT_TRUE(r.status.ok()) << r.status.ToString();
    EXPECT_EQ(values(r.outputs[0]), (std::vector<double>{0, 2, 0, 1, 0})) << what;
    for (DataType idx : {DT_INT32, DT_INT64}) {
      auto ints = [&](Dims dims, const std::vector<int64_t>& v) {
        if (idx == DT_INT64) return I64(std::move(dims), v);
        return I32(std::move(dims), std::vector<int32_t>(v.begin(), v.end()));
      };
      // DenseBincount of a matrix: per row; binary_output marks presence.
      r = RunOp("DenseBincount", {ints({2, 4}, {1, 2, 2, 7, 0, 0, 3, 1}), ints({}, {4}), typed({0}, {})});
      ASSERT_TRUE(r.status.ok()) << r.status.ToString();
      EXPECT_EQ(r.outputs[0].dims(), (Dims{2, 4}));
      EXPECT_EQ(values(r.outputs[0]), (std::vector<double>{0, 1, 2, 0, 2, 1, 0, 1})) << what;
      r = RunOp("DenseBincount", {ints({4}, {3, 3, 0, 9}), ints({}, {4}), typed({4}, {1, 2, 4, 8})},
                {{"binary_output", AttrOfBool(true)}});
      ASSERT_TRUE(r.status.ok()) << r.status.ToString();
      EXPECT_EQ(values(r.outputs[0]), (std::vector<double>{1, 0, 0, 1})) << what;
      ExpectInvalid(RunOp("DenseBincount", {ints({2}, {1, -1}), ints({}, {4}), typed({0}, {})}).status,
                    {"non-negative"});
    }
  }
  ExpectInvalid(RunOp("Bincount", {I32({2}, {1, 2}), I32Scalar(-1), F32({0}, {})}, {}, /*known_shapes=*/false).status,
                {"size (-1)"});
  ExpectInvalid(RunOp("Bincount", {I32({2}, {1, 2}), I32Scalar(3), F32({3}, {1, 2, 3})}, {}, /*known_shapes=*/false).status,
                {"weights must be empty or have the input's shape"});
}

// ---- activation gradients ----

TEST(NnMoreOpsTest, LeakyReluGradAndSeluGradOnEveryFloatType) {
  const std::vector<double> g = {1.5, -2, 0.5, 3, -1, 2};
  const std::vector<double> f = {-3, -0.5, 0, 0.25, 2, -1e-3};
  const double scale = 1.0507009873554804934193349852946, alpha = 1.6732632423543772848170429916717;
  for (DataType dt : {DT_FLOAT, DT_DOUBLE, DT_HALF, DT_BFLOAT16}) {
    const std::vector<double> gv = Values(Typed(dt, {6}, g)), fv = Values(Typed(dt, {6}, f));
    OpRun leaky = RunOp("LeakyReluGrad", {Typed(dt, {2, 3}, g), Typed(dt, {2, 3}, f)}, {{"alpha", AttrOfFloat(0.3f)}});
    ASSERT_TRUE(leaky.status.ok()) << leaky.status.ToString();
    std::vector<double> want;
    for (size_t i = 0; i < 6; ++i) want.push_back(fv[i] > 0 ? gv[i] : static_cast<double>(0.3f) * gv[i]);
    ExpectNear(leaky.outputs[0], want, 1, std::string("LeakyReluGrad ") + DataTypeName(dt));
    OpRun selu = RunOp("SeluGrad", {Typed(dt, {2, 3}, g), Typed(dt, {2, 3}, f)});
    ASSERT_TRUE(selu.status.ok()) << selu.status.ToString();
    want.clear();
    for (size_t i = 0; i < 6; ++i) want.push_back(fv[i] < 0 ? gv[i] * (fv[i] + scale * alpha) : gv[i] * scale);
    ExpectNear(selu.outputs[0], want, 1, std::string("SeluGrad ") + DataTypeName(dt));
  }
  ExpectInvalid(RunOp("SeluGrad", {Typed(DT_FLOAT, {2}, {1, 2}), Typed(DT_FLOAT, {3}, {1, 2, 3})}, {},
                      /*known_shapes=*/false)
                    .status,
                {"must have the same shape"});
}

}  // namespace
}  // namespace tgraph::testing
