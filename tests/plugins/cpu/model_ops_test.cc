// CPU kernels of the ops frozen TF models use (issue 19): Erf, Round, Selu, LeakyRelu,
// SquaredDifference, SelectV2, All, Any, StopGradient, Split, SplitV, BroadcastTo,
// FusedBatchNorm{,V2,V3}, DepthwiseConv2dNative, Einsum and Conv3D (with its backprops), on
// every dtype each registers, against float64 references written here; and their argument checks (INVALID_ARGUMENT
// naming the node). tests/interop/test_model_ops.py compares them with TensorFlow itself.
#include <Eigen/Core>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "array_test_util.h"
#include "core/graph/attr_value_util.h"

namespace tgraph::testing {
namespace {

using half = Eigen::half;
using bfloat16 = Eigen::bfloat16;

// A tensor of `dtype` from doubles, and back.
Tensor Of(DataType dtype, Dims dims, const std::vector<double>& v) {
  Tensor t = Tensor::Allocate(dtype, std::move(dims)).value();
  EXPECT_EQ(static_cast<size_t>(t.NumElements()), v.size());
  for (size_t i = 0; i < v.size(); ++i) {
    switch (dtype) {
      case DT_FLOAT: t.flat<float>()[i] = static_cast<float>(v[i]); break;
      case DT_DOUBLE: t.flat<double>()[i] = v[i]; break;
      case DT_HALF: t.flat<half>()[i] = half(static_cast<float>(v[i])); break;
      case DT_BFLOAT16: t.flat<bfloat16>()[i] = bfloat16(static_cast<float>(v[i])); break;
      case DT_INT32: t.flat<int32_t>()[i] = static_cast<int32_t>(v[i]); break;
      case DT_INT64: t.flat<int64_t>()[i] = static_cast<int64_t>(v[i]); break;
      default: ADD_FAILURE() << "Of: unsupported dtype";
    }
  }
  return t;
}

std::vector<double> Doubles(const Tensor& t) {
  std::vector<double> out;
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    switch (t.dtype()) {
      case DT_FLOAT: out.push_back(t.flat<float>()[i]); break;
      case DT_DOUBLE: out.push_back(t.flat<double>()[i]); break;
      case DT_HALF: out.push_back(static_cast<float>(t.flat<half>()[i])); break;
      case DT_BFLOAT16: out.push_back(static_cast<float>(t.flat<bfloat16>()[i])); break;
      case DT_INT32: out.push_back(t.flat<int32_t>()[i]); break;
      case DT_INT64: out.push_back(static_cast<double>(t.flat<int64_t>()[i])); break;
      default: ADD_FAILURE() << "Doubles: unsupported dtype";
    }
  }
  return out;
}

double Tolerance(DataType t) {
  switch (t) {
    case DT_HALF: return 4e-3;
    case DT_BFLOAT16: return 3e-2;
    case DT_FLOAT: return 2e-5;
    default: return 1e-10;
  }
}

void ExpectClose(const Tensor& got, const std::vector<double>& want, const std::string& what) {
  const std::vector<double> g = Doubles(got);
  ASSERT_EQ(g.size(), want.size()) << what;
  const double tol = Tolerance(got.dtype());
  for (size_t i = 0; i < g.size(); ++i) {
    EXPECT_NEAR(g[i], want[i], tol * std::max(1.0, std::abs(want[i]))) << what << " at " << i;
  }
}

std::vector<double> Ramp(int64_t n, double lo, double hi) {
  std::vector<double> v;
  for (int64_t i = 0; i < n; ++i) v.push_back(lo + (hi - lo) * static_cast<double>(i) / static_cast<double>(n - 1));
  return v;
}

std::vector<double> Map(const std::vector<double>& x, const std::function<double(double)>& f) {
  std::vector<double> y;
  for (double v : x) y.push_back(f(v));
  return y;
}

const std::vector<DataType> kFloats = {DT_FLOAT, DT_DOUBLE, DT_HALF, DT_BFLOAT16};

// ---- element-wise ----

TEST(ModelOpsKernelTest, ErfErfcSeluLeakyReluOnEveryFloatType) {
  const double kAlpha = 1.6732632423543772848170429916717;
  const double kScale = 1.0507009873554804934193349852946;
  for (DataType dt : kFloats) {
    const std::string what = DataTypeName(dt);
    const Tensor x = Of(dt, {3, 4}, Ramp(12, -3, 2.5));
    const std::vector<double> xv = Doubles(x);  // as the dtype holds them
    OpRun r = RunOp("Erf", {x});
    ASSERT_TRUE(r.status.ok()) << r.status.ToString();
    ExpectClose(r.outputs[0], Map(xv, [](double v) { return std::erf(v); }), "Erf " + what);
    r = RunOp("Erfc", {x});
    ASSERT_TRUE(r.status.ok()) << r.status.ToString();
    ExpectClose(r.outputs[0], Map(xv, [](double v) { return std::erfc(v); }), "Erfc " + what);
    r = RunOp("Selu", {x});
    ASSERT_TRUE(r.status.ok()) << r.status.ToString();
    ExpectClose(r.outputs[0], Map(xv, [&](double v) {
                  return v > 0 ? kScale * v : kScale * kAlpha * std::expm1(v);
                }), "Selu " + what);
    r = RunOp("LeakyRelu", {x}, {{"alpha", AttrOfFloat(0.25f)}});
    ASSERT_TRUE(r.status.ok()) << r.status.ToString();
    ExpectClose(r.outputs[0], Map(xv, [](double v) { return v > 0 ? v : 0.25 * v; }),
                "LeakyRelu " + what);
    // The default alpha is TF's 0.2; an empty input is fine.
    r = RunOp("LeakyRelu", {Of(dt, {2}, {-1, 1})});
    ASSERT_TRUE(r.status.ok()) << r.status.ToString();
    // alpha is a float attr: 0.2f, widened for double as in TF.
    ExpectClose(r.outputs[0], {-static_cast<double>(0.2f), 1}, "LeakyRelu default alpha " + what);
    r = RunOp("Erf", {Of(dt, {0, 3}, {})});
    ASSERT_TRUE(r.status.ok()) << r.status.ToString();
    EXPECT_EQ(r.outputs[0].dims(), (Dims{0, 3}));
  }
}

TEST(ModelOpsKernelTest, RoundHalvesToEvenAndKeepsIntegers) {
  for (DataType dt : kFloats) {
    OpRun r = RunOp("Round", {Of(dt, {8}, {-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 0.25, -3.75})});
    ASSERT_TRUE(r.status.ok()) << r.status.ToString();
    EXPECT_EQ(Doubles(r.outputs[0]), (std::vector<double>{-2, -2, -0, 0, 2, 2, 0, -4}))
        << DataTypeName(dt);
  }
  for (DataType dt : {DT_INT32, DT_INT64}) {
    OpRun r = RunOp("Round", {Of(dt, {3}, {-7, 0, 12})});
    ASSERT_TRUE(r.status.ok()) << r.status.ToString();
    EXPECT_EQ(Doubles(r.outputs[0]), (std::vector<double>{-7, 0, 12})) << DataTypeName(dt);
  }
}

TEST(ModelOpsKernelTest, SquaredDifferenceBroadcasts) {
  for (DataType dt : {DT_FLOAT, DT_DOUBLE, DT_HALF, DT_BFLOAT16, DT_INT32, DT_INT64}) {
    OpRun r = RunOp("SquaredDifference", {Of(dt, {2, 3}, {1, 2, 3, 4, 5, 6}), Of(dt, {3}, {3, 1, 4})});
    ASSERT_TRUE(r.status.ok()) << r.status.ToString();
    EXPECT_EQ(r.outputs[0].dims(), (Dims{2, 3}));
    ExpectClose(r.outputs[0], {4, 1, 1, 1, 16, 4}, DataTypeName(dt));
  }
  ExpectInvalid(RunOp("SquaredDifference", {Of(DT_FLOAT, {2}, {1, 2}), Of(DT_FLOAT, {3}, {1, 2, 3})},
                      {}, /*known_shapes=*/false).status,
                {"node", "Incompatible shapes"});
}

// ---- SelectV2, All / Any, StopGradient ----

Tensor Bools(Dims dims, const std::vector<bool>& v) {
  Tensor t = Tensor::Allocate(DT_BOOL, std::move(dims)).value();
  for (size_t i = 0; i < v.size(); ++i) t.flat<bool>()[i] = v[i];
  return t;
}

std::vector<bool> BoolValues(const Tensor& t) {
  return std::vector<bool>(t.flat<bool>(), t.flat<bool>() + t.NumElements());
}

TEST(ModelOpsKernelTest, SelectV2BroadcastsConditionThenAndElse) {
  // condition [2, 1], t [1, 3], e scalar -> [2, 3].
  OpRun r = RunOp("SelectV2", {Bools({2, 1}, {true, false}), F32({1, 3}, {1, 2, 3}), F32({}, {-1})});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.outputs[0].dims(), (Dims{2, 3}));
  EXPECT_EQ(Values<float>(r.outputs[0]), (std::vector<float>{1, 2, 3, -1, -1, -1}));
  // Same shapes; a scalar condition; 8-byte elements.
  r = RunOp("SelectV2", {Bools({3}, {false, true, false}), I64({3}, {1, 2, 3}), I64({3}, {7, 8, 9})});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<int64_t>(r.outputs[0]), (std::vector<int64_t>{7, 2, 9}));
  r = RunOp("SelectV2", {Bools({}, {false}), I32({}, {1}), I32({}, {2})});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<int32_t>(r.outputs[0]), (std::vector<int32_t>{2}));
  ExpectInvalid(RunOp("SelectV2", {Bools({2}, {true, false}), F32({3}, {1, 2, 3}), F32({}, {0})},
                      {}, /*known_shapes=*/false).status,
                {"node", "broadcastable"});
}

TEST(ModelOpsKernelTest, AllAnyReduceOverAxes) {
  // [[T, T, F], [T, T, T]]
  const Tensor b = Bools({2, 3}, {true, true, false, true, true, true});
  OpRun r = RunOp("All", {b, I32Vec({1})});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(BoolValues(r.outputs[0]), (std::vector<bool>{false, true}));
  r = RunOp("All", {b, I64({1}, {0})}, {{"keep_dims", AttrOfBool(true)}});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.outputs[0].dims(), (Dims{1, 3}));
  EXPECT_EQ(BoolValues(r.outputs[0]), (std::vector<bool>{true, true, false}));
  r = RunOp("Any", {Bools({2, 2}, {false, false, true, false}), I32Vec({-1})});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(BoolValues(r.outputs[0]), (std::vector<bool>{false, true}));
  r = RunOp("Any", {Bools({2, 2}, {false, false, true, false}), I64({2}, {0, 1})});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.outputs[0].rank(), 0);
  EXPECT_EQ(BoolValues(r.outputs[0]), (std::vector<bool>{true}));
  // Reducing nothing: All is true, Any false.
  r = RunOp("All", {Bools({0, 2}, {}), I32Vec({0})});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(BoolValues(r.outputs[0]), (std::vector<bool>{true, true}));
  ExpectInvalid(RunOp("Any", {b, I32Vec({2})}, {}, /*known_shapes=*/false).status,
                {"node", "2", "rank 2"});
}

TEST(ModelOpsKernelTest, StopGradientPassesItsInputThrough) {
  OpRun r = RunOp("StopGradient", {F32({2}, {1.5f, -2})});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<float>(r.outputs[0]), (std::vector<float>{1.5f, -2}));
}

// ---- Split, SplitV, BroadcastTo ----

TEST(ModelOpsKernelTest, SplitIntoEqualPieces) {
  AttrMap attrs = {{"num_split", AttrOfInt(3)}};
  OpRun r = RunOp("Split", {I32Scalar(1), Iota({2, 6})}, attrs);
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  ASSERT_EQ(r.outputs.size(), 3u);
  EXPECT_EQ(r.outputs[1].dims(), (Dims{2, 2}));
  EXPECT_EQ(Values<float>(r.outputs[0]), (std::vector<float>{0, 1, 6, 7}));
  EXPECT_EQ(Values<float>(r.outputs[2]), (std::vector<float>{4, 5, 10, 11}));
  r = RunOp("Split", {I32Scalar(-2), Iota({3, 2}, DT_INT64)}, attrs);
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<int64_t>(r.outputs[2]), (std::vector<int64_t>{4, 5}));
  r = RunOp("Split", {I32Scalar(0), Iota({2})}, {{"num_split", AttrOfInt(1)}});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<float>(r.outputs[0]), (std::vector<float>{0, 1}));
  ExpectInvalid(RunOp("Split", {I32Scalar(1), Iota({2, 5})}, attrs, false).status,
                {"node", "evenly divide"});
  ExpectInvalid(RunOp("Split", {I32Scalar(2), Iota({2, 6})}, attrs, false).status,
                {"node", "split_dim 2"});
}

TEST(ModelOpsKernelTest, SplitVWithAnInferredSize) {
  AttrMap attrs = {{"num_split", AttrOfInt(3)}};
  OpRun r = RunOp("SplitV", {Iota({2, 5}), I32Vec({1, -1, 2}), I32Scalar(-1)}, attrs);
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.outputs[1].dims(), (Dims{2, 2}));
  EXPECT_EQ(Values<float>(r.outputs[1]), (std::vector<float>{1, 2, 6, 7}));
  EXPECT_EQ(Values<float>(r.outputs[2]), (std::vector<float>{3, 4, 8, 9}));
  r = RunOp("SplitV", {Iota({4}), I64({3}, {0, 4, 0}), I32Scalar(0)}, attrs);
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.outputs[0].dims(), (Dims{0}));
  EXPECT_EQ(Values<float>(r.outputs[1]), (std::vector<float>{0, 1, 2, 3}));
  ExpectInvalid(RunOp("SplitV", {Iota({4}), I32Vec({1, 1, 1}), I32Scalar(0)}, attrs, false).status,
                {"node", "size_splits"});
  ExpectInvalid(RunOp("SplitV", {Iota({4}), I32Vec({-1, -1, 1}), I32Scalar(0)}, attrs, false).status,
                {"node", "size_splits"});
}

TEST(ModelOpsKernelTest, BroadcastTo) {
  OpRun r = RunOp("BroadcastTo", {F32({3, 1}, {1, 2, 3}), I32Vec({2, 3, 2})});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.outputs[0].dims(), (Dims{2, 3, 2}));
  EXPECT_EQ(Values<float>(r.outputs[0]), (std::vector<float>{1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3}));
  r = RunOp("BroadcastTo", {I64({2}, {5, 6}), I64({2}, {2, 2})});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<int64_t>(r.outputs[0]), (std::vector<int64_t>{5, 6, 5, 6}));
  r = RunOp("BroadcastTo", {F32({2}, {1, 2}), I32Vec({2})});  // already that shape
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<float>(r.outputs[0]), (std::vector<float>{1, 2}));
  ExpectInvalid(RunOp("BroadcastTo", {F32({2}, {1, 2}), I32Vec({3})}, {}, false).status,
                {"node", "Unable to broadcast"});
  ExpectInvalid(RunOp("BroadcastTo", {F32({2}, {1, 2}), I32Vec({-1, 2})}, {}, false).status,
                {"node", "non-negative"});
}

// ---- FusedBatchNorm ----

struct BatchNormCase {
  Dims x_dims;
  std::string format;
  bool training;
  float factor;
};

// The reference of batch_norm_ops.cc's header, in double.
void CheckBatchNorm(const std::string& op, DataType dt, const BatchNormCase& c) {
  const bool channels_first = c.format == "NCHW";
  const int64_t channels = channels_first ? c.x_dims[1] : c.x_dims.back();
  int64_t n = 1;
  for (int64_t d : c.x_dims) n *= d;
  const std::vector<double> xv = Doubles(Of(dt, c.x_dims, Ramp(n, -2, 3)));
  std::vector<double> xs = xv;  // shuffled a little, so channels differ
  for (size_t i = 0; i < xs.size(); ++i) xs[i] = xv[(i * 7) % xv.size()];
  const Tensor x = Of(dt, c.x_dims, xs);
  std::vector<double> scale, offset, mean, var;
  for (int64_t i = 0; i < channels; ++i) {
    scale.push_back(0.5 + 0.25 * static_cast<double>(i));
    offset.push_back(-0.1 * static_cast<double>(i));
    mean.push_back(0.2 * static_cast<double>(i) - 0.3);
    var.push_back(0.5 + 0.5 * static_cast<double>(i));
  }
  const bool stats = !c.training || c.factor != 1.0f;
  auto vec = [&](const std::vector<double>& v) { return Of(DT_FLOAT, {channels}, v); };
  AttrMap attrs = {{"epsilon", AttrOfFloat(0.01f)},
                   {"data_format", AttrOfString(c.format)},
                   {"is_training", AttrOfBool(c.training)},
                   {"exponential_avg_factor", AttrOfFloat(c.factor)}};
  OpRun r = RunOp(op, {x, vec(scale), vec(offset), stats ? vec(mean) : Of(DT_FLOAT, {0}, {}),
                       stats ? vec(var) : Of(DT_FLOAT, {0}, {})},
                  attrs);
  const std::string what = op + " " + DataTypeName(dt) + " " + c.format +
                           (c.training ? " training" : " inference");
  ASSERT_TRUE(r.status.ok()) << what << ": " << r.status.ToString();
  // Per-channel statistics of x as the kernel saw it.
  const int64_t inner = channels_first ? n / (c.x_dims[0] * channels) : 1;
  auto channel_of = [&](int64_t i) { return (i / inner) % channels; };
  std::vector<double> bm(static_cast<size_t>(channels), 0), bv(static_cast<size_t>(channels), 0);
  const double count = static_cast<double>(n / channels);
  for (int64_t i = 0; i < n; ++i) bm[static_cast<size_t>(channel_of(i))] += xs[static_cast<size_t>(i)] / count;
  for (int64_t i = 0; i < n; ++i) {
    const double d = xs[static_cast<size_t>(i)] - bm[static_cast<size_t>(channel_of(i))];
    bv[static_cast<size_t>(channel_of(i))] += d * d / count;
  }
  const std::vector<double>& m = c.training ? bm : mean;
  const std::vector<double>& v = c.training ? bv : var;
  std::vector<double> y;
  for (int64_t i = 0; i < n; ++i) {
    const size_t ch = static_cast<size_t>(channel_of(i));
    y.push_back((xs[static_cast<size_t>(i)] - m[ch]) * scale[ch] / std::sqrt(v[ch] + 0.01) + offset[ch]);
  }
  ExpectClose(r.outputs[0], y, what + " y");
  std::vector<double> out_mean = m, out_var = v;
  if (c.training) {
    for (size_t ch = 0; ch < out_var.size(); ++ch) {
      out_var[ch] = bv[ch] * count / (count - 1);
      if (c.factor != 1.0f) {
        out_mean[ch] = (1 - c.factor) * mean[ch] + c.factor * bm[ch];
        out_var[ch] = (1 - c.factor) * var[ch] + c.factor * out_var[ch];
      }
    }
  }
  ExpectClose(r.outputs[1], out_mean, what + " batch_mean");
  ExpectClose(r.outputs[2], out_var, what + " batch_variance");
  ExpectClose(r.outputs[3], m, what + " reserve_space_1");
  ExpectClose(r.outputs[4], v, what + " reserve_space_2");
  if (op == "FusedBatchNormV3") {
    EXPECT_EQ(r.outputs[5].dims(), (Dims{0})) << what;
  }
}

TEST(ModelOpsKernelTest, FusedBatchNormEveryVersionAndType) {
  const std::vector<BatchNormCase> cases = {
      {{2, 3, 2, 4}, "NHWC", false, 1.0f},
      {{2, 3, 2, 4}, "NCHW", false, 1.0f},
      {{2, 3, 2, 4}, "NHWC", true, 1.0f},
      {{2, 3, 2, 4}, "NCHW", true, 0.25f},
  };
  for (const BatchNormCase& c : cases) {
    CheckBatchNorm("FusedBatchNorm", DT_FLOAT, c);
    for (const char* op : {"FusedBatchNormV2", "FusedBatchNormV3"}) {
      for (DataType dt : {DT_FLOAT, DT_HALF, DT_BFLOAT16}) CheckBatchNorm(op, dt, c);
    }
  }
}

TEST(ModelOpsKernelTest, FusedBatchNormV3FiveDimensional) {
  CheckBatchNorm("FusedBatchNormV3", DT_FLOAT, {{2, 2, 3, 2, 3}, "NDHWC", false, 1.0f});
  CheckBatchNorm("FusedBatchNormV3", DT_FLOAT, {{2, 2, 3, 2, 3}, "NDHWC", true, 1.0f});
}

TEST(ModelOpsKernelTest, FusedBatchNormRejectsMismatchedChannels) {
  const Tensor x = Of(DT_FLOAT, {1, 2, 2, 3}, Ramp(12, 0, 1));
  const Tensor three = Of(DT_FLOAT, {3}, {1, 1, 1}), two = Of(DT_FLOAT, {2}, {1, 1});
  ExpectInvalid(RunOp("FusedBatchNormV3", {x, three, two, three, three},
                      {{"is_training", AttrOfBool(false)}}, /*known_shapes=*/false)
                    .status,
                {"node", "offset", "3"});
  ExpectInvalid(RunOp("FusedBatchNorm", {Of(DT_FLOAT, {2, 3}, Ramp(6, 0, 1)), three, three, three,
                                         three},
                      {}, false)
                    .status,
                {"node", "4-dimensional"});
}

// ---- DepthwiseConv2dNative ----

// out[n, oh, ow, c * M + m], SAME / VALID, strides and dilations, in double.
std::vector<double> DepthwiseReference(const std::vector<double>& x, Dims xd, const std::vector<double>& f,
                                       Dims fd, int64_t stride, int64_t dilation, bool same,
                                       Dims* out_dims) {
  const int64_t n = xd[0], h = xd[1], w = xd[2], c = xd[3], kh = fd[0], kw = fd[1], m = fd[3];
  const int64_t eh = (kh - 1) * dilation + 1, ew = (kw - 1) * dilation + 1;
  const int64_t oh = same ? (h + stride - 1) / stride : (h - eh + stride) / stride;
  const int64_t ow = same ? (w + stride - 1) / stride : (w - ew + stride) / stride;
  const int64_t pt = same ? std::max<int64_t>((oh - 1) * stride + eh - h, 0) / 2 : 0;
  const int64_t pl = same ? std::max<int64_t>((ow - 1) * stride + ew - w, 0) / 2 : 0;
  *out_dims = {n, oh, ow, c * m};
  std::vector<double> out;
  for (int64_t b = 0; b < n; ++b)
    for (int64_t i = 0; i < oh; ++i)
      for (int64_t j = 0; j < ow; ++j)
        for (int64_t ch = 0; ch < c; ++ch)
          for (int64_t q = 0; q < m; ++q) {
            double s = 0;
            for (int64_t a = 0; a < kh; ++a)
              for (int64_t e = 0; e < kw; ++e) {
                const int64_t y = i * stride - pt + a * dilation, z = j * stride - pl + e * dilation;
                if (y < 0 || y >= h || z < 0 || z >= w) continue;
                s += x[static_cast<size_t>(((b * h + y) * w + z) * c + ch)] *
                     f[static_cast<size_t>(((a * kw + e) * c + ch) * m + q)];
              }
            out.push_back(s);
          }
  return out;
}

TEST(ModelOpsKernelTest, DepthwiseConv2dNativeEveryType) {
  struct Case {
    Dims x, f;
    int64_t stride, dilation;
    bool same;
  };
  const std::vector<Case> cases = {{{2, 5, 4, 3}, {3, 3, 3, 1}, 1, 1, true},
                                   {{1, 6, 7, 2}, {3, 2, 2, 2}, 2, 1, true},
                                   {{1, 7, 7, 2}, {2, 2, 2, 3}, 1, 2, false}};
  for (DataType dt : kFloats) {
    for (const Case& c : cases) {
      const Tensor x = Of(dt, c.x, Ramp(Count(c.x), -1, 1));
      const Tensor f = Of(dt, c.f, Ramp(Count(c.f), 0.5, -0.7));
      AttrMap attrs = {{"strides", AttrOfIntList({1, c.stride, c.stride, 1})},
                       {"dilations", AttrOfIntList({1, c.dilation, c.dilation, 1})},
                       {"padding", AttrOfString(c.same ? "SAME" : "VALID")}};
      OpRun r = RunOpEx("DepthwiseConv2dNative", {x, f}, attrs, TestPool());
      ASSERT_TRUE(r.status.ok()) << r.status.ToString();
      Dims out_dims;
      const std::vector<double> want =
          DepthwiseReference(Doubles(x), c.x, Doubles(f), c.f, c.stride, c.dilation, c.same, &out_dims);
      EXPECT_EQ(r.outputs[0].dims(), out_dims);
      ExpectClose(r.outputs[0], want, std::string("DepthwiseConv2dNative ") + DataTypeName(dt));
    }
  }
}

TEST(ModelOpsKernelTest, DepthwiseConv2dNativeChecksItsArguments) {
  AttrMap attrs = {{"strides", AttrOfIntList({1, 1, 1, 1})}, {"padding", AttrOfString("SAME")}};
  const Tensor x = Of(DT_FLOAT, {1, 3, 3, 2}, Ramp(18, 0, 1));
  ExpectInvalid(RunOp("DepthwiseConv2dNative", {x, Of(DT_FLOAT, {2, 2, 3, 1}, Ramp(12, 0, 1))},
                      attrs, false).status,
                {"node", "depth"});
  AttrMap nchw = attrs;
  nchw["data_format"] = AttrOfString("NCHW");
  ExpectInvalid(RunOp("DepthwiseConv2dNative", {x, Of(DT_FLOAT, {2, 2, 2, 1}, Ramp(8, 0, 1))},
                      nchw, false).status,
                {"node", "NHWC"}, Code::kUnimplemented);
}

// The backprops against the forward reference: dx[i] = <dy, conv(e_i, f)>, and likewise for
// each filter entry, by brute force over unit tensors.
TEST(ModelOpsKernelTest, DepthwiseConv2dNativeBackpropsAreTheForwardsTranspose) {
  struct Case {
    Dims x, f;
    int64_t stride, dilation;
    bool same;
  };
  for (DataType dt : {DT_FLOAT, DT_DOUBLE}) {
    for (const Case& c : std::vector<Case>{{{2, 4, 5, 2}, {3, 2, 2, 2}, 1, 1, true},
                                           {{1, 6, 5, 3}, {2, 2, 3, 1}, 2, 1, true},
                                           {{1, 6, 6, 2}, {2, 2, 2, 2}, 1, 2, false}}) {
      const std::vector<double> x = Ramp(Count(c.x), -1, 1), f = Ramp(Count(c.f), 0.7, -0.4);
      Dims out_dims;
      DepthwiseReference(x, c.x, f, c.f, c.stride, c.dilation, c.same, &out_dims);
      const std::vector<double> dy = Ramp(Count(out_dims), 0.3, -1.1);
      auto dot = [&](const std::vector<double>& y) {
        double s = 0;
        for (size_t i = 0; i < y.size(); ++i) s += y[i] * dy[i];
        return s;
      };
      std::vector<double> want_dx, want_df;
      for (size_t i = 0; i < x.size(); ++i) {
        std::vector<double> e(x.size(), 0.0);
        e[i] = 1;
        want_dx.push_back(dot(DepthwiseReference(e, c.x, f, c.f, c.stride, c.dilation, c.same, &out_dims)));
      }
      for (size_t i = 0; i < f.size(); ++i) {
        std::vector<double> e(f.size(), 0.0);
        e[i] = 1;
        want_df.push_back(dot(DepthwiseReference(x, c.x, e, c.f, c.stride, c.dilation, c.same, &out_dims)));
      }
      AttrMap attrs = {{"strides", AttrOfIntList({1, c.stride, c.stride, 1})},
                       {"dilations", AttrOfIntList({1, c.dilation, c.dilation, 1})},
                       {"padding", AttrOfString(c.same ? "SAME" : "VALID")}};
      auto sizes = [](const Dims& d) {
        return I32({4}, {static_cast<int32_t>(d[0]), static_cast<int32_t>(d[1]),
                         static_cast<int32_t>(d[2]), static_cast<int32_t>(d[3])});
      };
      const std::string what = std::string(DataTypeName(dt));
      OpRun r = RunOpEx("DepthwiseConv2dNativeBackpropInput",
                        {sizes(c.x), Of(dt, c.f, f), Of(dt, out_dims, dy)}, attrs, TestPool());
      ASSERT_TRUE(r.status.ok()) << r.status.ToString();
      EXPECT_EQ(r.outputs[0].dims(), c.x);
      ExpectClose(r.outputs[0], want_dx, "BackpropInput " + what);
      r = RunOpEx("DepthwiseConv2dNativeBackpropFilter",
                  {Of(dt, c.x, x), sizes(c.f), Of(dt, out_dims, dy)}, attrs, TestPool());
      ASSERT_TRUE(r.status.ok()) << r.status.ToString();
      EXPECT_EQ(r.outputs[0].dims(), c.f);
      ExpectClose(r.outputs[0], want_df, "BackpropFilter " + what);
    }
  }
  // out_backprop of the wrong shape.
  AttrMap attrs = {{"strides", AttrOfIntList({1, 1, 1, 1})}, {"padding", AttrOfString("SAME")}};
  ExpectInvalid(RunOp("DepthwiseConv2dNativeBackpropInput",
                      {I32({4}, {1, 3, 3, 2}), Of(DT_FLOAT, {2, 2, 2, 1}, Ramp(8, 0, 1)),
                       Of(DT_FLOAT, {1, 3, 3, 1}, Ramp(9, 0, 1))},
                      attrs, false).status,
                {"node", "out_backprop must have shape [1,3,3,2]"});
}

// ---- Einsum ----

// A brute-force einsum over letters (no ellipsis): every assignment of the labels.
std::vector<double> EinsumReference(const std::string& equation, const std::vector<std::vector<double>>& in,
                                    const std::vector<Dims>& shapes, Dims* out_dims) {
  const size_t arrow = equation.find("->");
  const std::string lhs = equation.substr(0, arrow), out = equation.substr(arrow + 2);
  std::vector<std::string> terms;
  size_t start = 0;
  while (true) {
    const size_t comma = lhs.find(',', start);
    terms.push_back(lhs.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  std::string labels;
  std::vector<int64_t> size(128, 0);
  for (size_t t = 0; t < terms.size(); ++t)
    for (size_t k = 0; k < terms[t].size(); ++k) {
      const char ch = terms[t][k];
      if (labels.find(ch) == std::string::npos) labels += ch;
      size[static_cast<size_t>(ch)] = shapes[t][k];
    }
  out_dims->clear();
  for (char ch : out) out_dims->push_back(size[static_cast<size_t>(ch)]);
  int64_t total = 1;
  for (int64_t d : *out_dims) total *= d;
  std::vector<double> result(static_cast<size_t>(total), 0.0);
  std::vector<int64_t> value(128, 0);
  std::function<void(size_t)> loop = [&](size_t li) {
    if (li == labels.size()) {
      double prod = 1;
      for (size_t t = 0; t < terms.size(); ++t) {
        int64_t flat = 0;
        for (size_t k = 0; k < terms[t].size(); ++k) flat = flat * shapes[t][k] + value[static_cast<size_t>(terms[t][k])];
        prod *= in[t][static_cast<size_t>(flat)];
      }
      int64_t o = 0;
      for (char ch : out) o = o * size[static_cast<size_t>(ch)] + value[static_cast<size_t>(ch)];
      result[static_cast<size_t>(o)] += prod;
      return;
    }
    for (int64_t v = 0; v < size[static_cast<size_t>(labels[li])]; ++v) {
      value[static_cast<size_t>(labels[li])] = v;
      loop(li + 1);
    }
  };
  loop(0);
  return result;
}

TEST(ModelOpsKernelTest, EinsumMatchesBruteForce) {
  const std::vector<std::pair<std::string, std::vector<Dims>>> cases = {
      {"bqhd,bkhd->bhqk", {{2, 3, 2, 4}, {2, 5, 2, 4}}},
      {"bhqk,bkhd->bqhd", {{2, 2, 3, 5}, {2, 5, 2, 4}}},
      {"abc,cde->abde", {{2, 3, 4}, {4, 2, 3}}},
      {"ij,jk->ik", {{3, 4}, {4, 2}}},
      {"ij,j->i", {{3, 4}, {4}}},
      {"ij->ji", {{3, 4}}},
      {"bij->bj", {{2, 3, 4}}},
      {"ij,ij->", {{2, 3}, {2, 3}}},
      {"ab,cd->abcd", {{2, 3}, {2, 2}}},
      {"abc,ad->bd", {{2, 3, 4}, {2, 5}}},
  };
  for (DataType dt : kFloats) {  // half and bfloat16 are widened to float
    for (const auto& [equation, shapes] : cases) {
      std::vector<Tensor> inputs;
      std::vector<std::vector<double>> values;
      for (size_t k = 0; k < shapes.size(); ++k) {
        inputs.push_back(Of(dt, shapes[k], Ramp(Count(shapes[k]), -1.0 + 0.1 * static_cast<double>(k), 1.5)));
        values.push_back(Doubles(inputs.back()));
      }
      Dims out_dims;
      const std::vector<double> want = EinsumReference(equation, values, shapes, &out_dims);
      OpRun r = RunOpEx("Einsum", inputs, {{"equation", AttrOfString(equation)}}, TestPool(),
                        /*one_list=*/true);
      ASSERT_TRUE(r.status.ok()) << equation << ": " << r.status.ToString();
      EXPECT_EQ(r.outputs[0].dims(), out_dims) << equation;
      ExpectClose(r.outputs[0], want, equation + " " + DataTypeName(dt));
    }
  }
}

TEST(ModelOpsKernelTest, EinsumDiagonalEllipsisAndImplicitOutput) {
  // "ii->i": the diagonal.
  OpRun r = RunOpEx("Einsum", {F32({3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9})},
                    {{"equation", AttrOfString("ii->i")}}, nullptr, true);
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<float>(r.outputs[0]), (std::vector<float>{1, 5, 9}));
  // Implicit output: "ij,jk" is "ij,jk->ik".
  r = RunOpEx("Einsum", {F32({1, 2}, {1, 2}), F32({2, 2}, {1, 0, 0, 1})},
              {{"equation", AttrOfString("ij,jk")}}, nullptr, true);
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<float>(r.outputs[0]), (std::vector<float>{1, 2}));
  // A broadcast ellipsis: [2, 1, 1, 2] x [3, 2, 1] -> [2, 3, 1, 1].
  r = RunOpEx("Einsum", {F32({2, 1, 1, 2}, {1, 2, 3, 4}), F32({3, 2, 1}, {1, 1, 2, 2, 3, 3})},
              {{"equation", AttrOfString("...ij,...jk->...ik")}}, nullptr, true);
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.outputs[0].dims(), (Dims{2, 3, 1, 1}));
  EXPECT_EQ(Values<float>(r.outputs[0]), (std::vector<float>{3, 6, 9, 7, 14, 21}));
  // A contraction over an empty label gives zeros.
  r = RunOpEx("Einsum", {F32({2, 0}, {}), F32({0, 2}, {})}, {{"equation", AttrOfString("ij,jk->ik")}},
              nullptr, true);
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<float>(r.outputs[0]), (std::vector<float>{0, 0, 0, 0}));
}

TEST(ModelOpsKernelTest, EinsumChecksItsEquation) {
  const Tensor a = F32({2, 3}, {1, 2, 3, 4, 5, 6});
  ExpectInvalid(RunOpEx("Einsum", {a, a}, {{"equation", AttrOfString("ij,jk->ik")}}, nullptr, true,
                        /*known_shapes=*/false)
                    .status,
                {"node", "label 'j'"});
  ExpectInvalid(RunOpEx("Einsum", {a}, {{"equation", AttrOfString("ijk->i")}}, nullptr, true, false)
                    .status,
                {"node", "rank 2"});
  // An equation that cannot parse fails when the node is made.
  ExpectInvalid(RunOpEx("Einsum", {a}, {{"equation", AttrOfString("i$->i")}}, nullptr, true, false)
                    .status,
                {"node", "invalid character"});
}

// ---- Conv3D and its backprops ----

// Conv3D (NDHWC) in double with its two gradients for out_backprop dy: y = conv(x, f),
// dx = dy's backprop to x, df = to f.
struct Conv3DReference {
  Dims y_dims;
  std::vector<double> y, dx, df;
};

Conv3DReference Conv3DRef(const std::vector<double>& x, Dims xd, const std::vector<double>& f, Dims fd,
                          Dims strides, Dims dilations, bool same, const std::vector<double>* dy) {
  Conv3DReference r;
  int64_t in[3], k[3], out[3], pad[3];
  for (int i = 0; i < 3; ++i) {
    in[i] = xd[static_cast<size_t>(i) + 1];
    k[i] = fd[static_cast<size_t>(i)];
    const int64_t s = strides[static_cast<size_t>(i)], eff = (k[i] - 1) * dilations[static_cast<size_t>(i)] + 1;
    out[i] = same ? (in[i] + s - 1) / s : (in[i] - eff + s) / s;
    pad[i] = same ? std::max<int64_t>((out[i] - 1) * s + eff - in[i], 0) / 2 : 0;
  }
  const int64_t n = xd[0], c = xd[4], oc = fd[4];
  r.y_dims = {n, out[0], out[1], out[2], oc};
  r.y.assign(static_cast<size_t>(n * out[0] * out[1] * out[2] * oc), 0.0);
  r.dx.assign(x.size(), 0.0);
  r.df.assign(f.size(), 0.0);
  for (int64_t b = 0; b < n; ++b)
    for (int64_t o0 = 0; o0 < out[0]; ++o0)
      for (int64_t o1 = 0; o1 < out[1]; ++o1)
        for (int64_t o2 = 0; o2 < out[2]; ++o2)
          for (int64_t k0 = 0; k0 < k[0]; ++k0)
            for (int64_t k1 = 0; k1 < k[1]; ++k1)
              for (int64_t k2 = 0; k2 < k[2]; ++k2) {
                const int64_t i0 = o0 * strides[0] - pad[0] + k0 * dilations[0];
                const int64_t i1 = o1 * strides[1] - pad[1] + k1 * dilations[1];
                const int64_t i2 = o2 * strides[2] - pad[2] + k2 * dilations[2];
                if (i0 < 0 || i0 >= in[0] || i1 < 0 || i1 >= in[1] || i2 < 0 || i2 >= in[2]) continue;
                for (int64_t ci = 0; ci < c; ++ci)
                  for (int64_t co = 0; co < oc; ++co) {
                    const size_t xi = static_cast<size_t>((((b * in[0] + i0) * in[1] + i1) * in[2] + i2) * c + ci);
                    const size_t fi = static_cast<size_t>((((k0 * k[1] + k1) * k[2] + k2) * c + ci) * oc + co);
                    const size_t yi = static_cast<size_t>((((b * out[0] + o0) * out[1] + o1) * out[2] + o2) * oc + co);
                    r.y[yi] += x[xi] * f[fi];
                    if (dy != nullptr) {
                      r.dx[xi] += (*dy)[yi] * f[fi];
                      r.df[fi] += x[xi] * (*dy)[yi];
                    }
                  }
              }
  return r;
}

TEST(ModelOpsKernelTest, Conv3DAndItsBackpropsEveryType) {
  struct Case {
    Dims x, f, strides, dilations;
    bool same;
  };
  const std::vector<Case> cases = {{{2, 4, 3, 4, 2}, {2, 2, 3, 2, 3}, {1, 1, 2}, {1, 1, 1}, true},
                                   {{1, 5, 4, 3, 1}, {3, 2, 2, 1, 2}, {2, 1, 1}, {1, 1, 1}, false},
                                   {{1, 5, 5, 4, 2}, {2, 2, 2, 2, 2}, {1, 1, 1}, {2, 1, 2}, true}};
  for (DataType dt : kFloats) {
    for (const Case& c : cases) {
      const Tensor x = Of(dt, c.x, Ramp(Count(c.x), -1, 1));
      const Tensor f = Of(dt, c.f, Ramp(Count(c.f), 0.5, -0.7));
      AttrMap attrs = {{"strides", AttrOfIntList({1, c.strides[0], c.strides[1], c.strides[2], 1})},
                       {"dilations", AttrOfIntList({1, c.dilations[0], c.dilations[1], c.dilations[2], 1})},
                       {"padding", AttrOfString(c.same ? "SAME" : "VALID")}};
      const std::string what = std::string("Conv3D ") + DataTypeName(dt);
      Conv3DReference fwd = Conv3DRef(Doubles(x), c.x, Doubles(f), c.f, c.strides, c.dilations, c.same, nullptr);
      const Tensor dy = Of(dt, fwd.y_dims, Ramp(Count(fwd.y_dims), 0.3, -1.1));
      const std::vector<double> dyv = Doubles(dy);
      Conv3DReference want = Conv3DRef(Doubles(x), c.x, Doubles(f), c.f, c.strides, c.dilations, c.same, &dyv);
      OpRun r = RunOpEx("Conv3D", {x, f}, attrs, TestPool());
      ASSERT_TRUE(r.status.ok()) << r.status.ToString();
      EXPECT_EQ(r.outputs[0].dims(), want.y_dims);
      ExpectClose(r.outputs[0], want.y, what);
      const Tensor x_sizes = Of(DT_INT32, {5}, std::vector<double>(c.x.begin(), c.x.end()));
      const Tensor f_sizes = Of(DT_INT32, {5}, std::vector<double>(c.f.begin(), c.f.end()));
      r = RunOpEx("Conv3DBackpropInputV2", {x_sizes, f, dy}, attrs, TestPool());
      ASSERT_TRUE(r.status.ok()) << r.status.ToString();
      EXPECT_EQ(r.outputs[0].dims(), c.x);
      ExpectClose(r.outputs[0], want.dx, what + " backprop input");
      r = RunOpEx("Conv3DBackpropFilterV2", {x, f_sizes, dy}, attrs, TestPool());
      ASSERT_TRUE(r.status.ok()) << r.status.ToString();
      EXPECT_EQ(r.outputs[0].dims(), c.f);
      ExpectClose(r.outputs[0], want.df, what + " backprop filter");
    }
  }
}

TEST(ModelOpsKernelTest, Conv3DChecksItsArguments) {
  AttrMap attrs = {{"strides", AttrOfIntList({1, 1, 1, 1, 1})}, {"padding", AttrOfString("VALID")}};
  const Tensor x = Of(DT_FLOAT, {1, 2, 2, 2, 2}, Ramp(16, 0, 1));
  ExpectInvalid(RunOp("Conv3D", {x, Of(DT_FLOAT, {1, 1, 1, 3, 1}, Ramp(3, 0, 1))}, attrs, false).status,
                {"node", "depth"});
  ExpectInvalid(RunOp("Conv3D", {x, Of(DT_FLOAT, {3, 1, 1, 2, 1}, Ramp(6, 0, 1))}, attrs, false).status,
                {"node", "larger than the input"});
  ExpectInvalid(RunOp("Conv3DBackpropInputV2",
                      {Of(DT_INT32, {5}, {1, 2, 2, 2, -2}), Of(DT_FLOAT, {1, 1, 1, 2, 1}, {1, 1}),
                       Of(DT_FLOAT, {1, 2, 2, 2, 1}, Ramp(8, 0, 1))},
                      attrs, false).status,
                {"node", "non-negative"});
  AttrMap ncdhw = attrs;
  ncdhw["data_format"] = AttrOfString("NCDHW");
  ExpectInvalid(RunOp("Conv3D", {x, Of(DT_FLOAT, {1, 1, 1, 2, 1}, {1, 1})}, ncdhw, false).status,
                {"node", "NDHWC"}, Code::kUnimplemented);
}

}  // namespace
}  // namespace tgraph::testing
