// _FusedMatMul, _FusedConv2D and _FusedDepthwiseConv2dNative on the CPU plugin against the
// unfused kernels they stand for (MatMul / Conv2D / DepthwiseConv2dNative, then BiasAdd, then
// the activation), which they must match exactly: they
// run the same code. Also each activation against its formula, transposes, empty outputs,
// and the errors (an unsupported fused_ops list, a bias of the wrong size).
#include <algorithm>
#include <cmath>
#include <tuple>

#include "nn_test_util.h"

namespace tgraph::testing {
namespace {

using Dims = std::vector<int64_t>;

// op(MatMul or Conv2D) -> BiasAdd -> activation, one kernel at a time.
std::vector<double> Unfused(ThreadPool* pool, const std::string& contraction, const Tensor& a,
                            const Tensor& b, const Tensor& bias, AttrMap attrs,
                            const std::string& activation, float alpha) {
  auto product = RunOpOnPool(pool, contraction, {a, b}, std::move(attrs));
  EXPECT_TRUE(product.status.ok()) << product.status.ToString();
  if (!product.status.ok()) return {};
  auto biased = RunOpOnPool(pool, "BiasAdd", {product.outputs[0], bias});
  EXPECT_TRUE(biased.status.ok()) << biased.status.ToString();
  if (!biased.status.ok()) return {};
  if (activation.empty()) return ToDoubles(biased.outputs[0]);
  if (activation == "Relu" || activation == "Relu6" || activation == "Elu") {
    auto act = RunOpOnPool(pool, activation, {biased.outputs[0]});
    EXPECT_TRUE(act.status.ok()) << act.status.ToString();
    return act.status.ok() ? ToDoubles(act.outputs[0]) : std::vector<double>{};
  }
  if (activation == "_MklSwish") {  // y * Sigmoid(y), as the graph writes it
    auto sigmoid = RunOpOnPool(pool, "Sigmoid", {biased.outputs[0]});
    EXPECT_TRUE(sigmoid.status.ok()) << sigmoid.status.ToString();
    if (!sigmoid.status.ok()) return {};
    auto swish = RunOpOnPool(pool, "Mul", {biased.outputs[0], sigmoid.outputs[0]});
    EXPECT_TRUE(swish.status.ok()) << swish.status.ToString();
    return swish.status.ok() ? ToDoubles(swish.outputs[0]) : std::vector<double>{};
  }
  if (activation == "GeluExact") {  // 0.5 * y * Erfc(Neg(y) * 1/sqrt(2)), as tf.nn.gelu writes it
    const DataType t = biased.outputs[0].dtype();
    auto neg = RunOpOnPool(pool, "Neg", {biased.outputs[0]});
    auto scaled = RunOpOnPool(pool, "Mul", {neg.outputs[0], MakeTyped(t, {}, {0.70710677f})});
    auto erfc = RunOpOnPool(pool, "Erfc", {scaled.outputs[0]});
    auto half = RunOpOnPool(pool, "Mul", {MakeTyped(t, {}, {0.5f}), biased.outputs[0]});
    auto gelu = RunOpOnPool(pool, "Mul", {half.outputs[0], erfc.outputs[0]});
    EXPECT_TRUE(gelu.status.ok()) << gelu.status.ToString();
    return gelu.status.ok() ? ToDoubles(gelu.outputs[0]) : std::vector<double>{};
  }
  std::vector<double> v = ToDoubles(biased.outputs[0]);  // LeakyRelu, by its formula
  for (double& x : v) x = x > 0 ? x : static_cast<double>(static_cast<float>(x) * alpha);
  return v;
}

OpRun Fused(ThreadPool* pool, const std::string& op, const Tensor& a, const Tensor& b,
            const Tensor& bias, AttrMap attrs, const std::vector<std::string>& fused_ops,
            bool host_args = false, bool known_shapes = true) {
  attrs["fused_ops"] = AttrOfStringList(fused_ops);
  attrs["num_args"] = AttrOfInt(1);
  std::vector<ArgIn> args = {In(a), In(b), List({bias})};
  if (host_args) args.push_back(List({}));
  return RunArgs(op, std::move(args), std::move(attrs), known_shapes, pool);
}

TEST(FusedMatMul, MatchesMatMulBiasAddActivation) {
  LoadCpuPlugin();
  const std::vector<std::string> activations = {"", "Relu", "Relu6", "Elu", "LeakyRelu", "_MklSwish",
                                                "GeluExact"};
  for (ThreadPool* pool : Pools()) {
    for (const auto& [m, k, n] : std::vector<std::tuple<int64_t, int64_t, int64_t>>{
             {1, 1, 1}, {3, 5, 7}, {64, 33, 17}, {128, 200, 96}}) {
      for (bool ta : {false, true}) {
        for (bool tb : {false, true}) {
          for (const std::string& act : activations) {
            SCOPED_TRACE(StrCat(m, "x", k, "x", n, " ta=", ta, " tb=", tb, " ", act));
            const Tensor a = MakeTyped(DT_FLOAT, ta ? Dims{k, m} : Dims{m, k},
                                       RandomValues(DT_FLOAT, m * k, 1, -3, 3));
            const Tensor b = MakeTyped(DT_FLOAT, tb ? Dims{n, k} : Dims{k, n},
                                       RandomValues(DT_FLOAT, k * n, 2));
            const Tensor bias = MakeTyped(DT_FLOAT, {n}, RandomValues(DT_FLOAT, n, 3));
            AttrMap attrs{{"transpose_a", AttrOfBool(ta)}, {"transpose_b", AttrOfBool(tb)}};
            const std::vector<double> want = Unfused(pool, "MatMul", a, b, bias, attrs, act, 0.2f);
            std::vector<std::string> ops = {"BiasAdd"};
            if (!act.empty()) ops.push_back(act);
            auto got = Fused(pool, "_FusedMatMul", a, b, bias, attrs, ops);
            ASSERT_TRUE(got.status.ok()) << got.status.ToString();
            ASSERT_EQ(got.outputs[0].dims(), (Dims{m, n}));
            // Exact: the same code runs. Elu's expm1 is std::expm1 here and Eigen's
            // vectorized one in the Elu kernel, a few ulp apart; swish's exp likewise.
            std::vector<double> tol;
            if (act == "Elu" || act == "_MklSwish" || act == "GeluExact") {
              for (double w : want) tol.push_back(1e-6 * std::max(1.0, std::abs(w)));
            }
            ExpectClose(ToDoubles(got.outputs[0]), want, tol, "fused");
          }
        }
      }
    }
  }
}

TEST(FusedMatMul, LeakyReluAlphaAndEmptyOutputs) {
  LoadCpuPlugin();
  const Tensor a = MakeTyped(DT_FLOAT, {2, 2}, {1, -2, 3, -4});
  const Tensor b = MakeTyped(DT_FLOAT, {2, 2}, {1, 0, 0, 1});
  const Tensor bias = MakeTyped(DT_FLOAT, {2}, {0, 0});
  auto got = Fused(nullptr, "_FusedMatMul", a, b, bias, {{"leakyrelu_alpha", AttrOfFloat(0.5f)}},
                   {"BiasAdd", "LeakyRelu"});
  ASSERT_TRUE(got.status.ok()) << got.status.ToString();
  EXPECT_EQ(ToDoubles(got.outputs[0]), (std::vector<double>{1, -1, 3, -2}));

  auto empty = Fused(nullptr, "_FusedMatMul", MakeTyped(DT_FLOAT, {0, 3}, {}),
                     MakeTyped(DT_FLOAT, {3, 2}, {1, 2, 3, 4, 5, 6}), MakeTyped(DT_FLOAT, {2}, {1, 1}),
                     {}, {"BiasAdd", "Relu"});
  ASSERT_TRUE(empty.status.ok()) << empty.status.ToString();
  EXPECT_EQ(empty.outputs[0].dims(), (Dims{0, 2}));
}

TEST(FusedMatMul, Errors) {
  LoadCpuPlugin();
  const Tensor a = MakeTyped(DT_FLOAT, {2, 3}, RandomValues(DT_FLOAT, 6, 1));
  const Tensor b = MakeTyped(DT_FLOAT, {3, 4}, RandomValues(DT_FLOAT, 12, 2));
  auto wrong_bias = Fused(nullptr, "_FusedMatMul", a, b, MakeTyped(DT_FLOAT, {3}, {1, 2, 3}), {},
                          {"BiasAdd"});
  ExpectStatus(wrong_bias.status, Code::kInvalidArgument, {"bias", "4"});
  auto unsupported = Fused(nullptr, "_FusedMatMul", a, b, MakeTyped(DT_FLOAT, {4}, {1, 2, 3, 4}), {},
                           {"BiasAdd", "Tanh"});
  ExpectStatus(unsupported.status, Code::kUnimplemented, {"BiasAdd, Tanh"});
  // Unknown static shapes, so that the kernel, not the shape function, finds it.
  auto mismatched = Fused(nullptr, "_FusedMatMul", a, a, MakeTyped(DT_FLOAT, {3}, {1, 2, 3}), {},
                          {"BiasAdd"}, false, /*known_shapes=*/false);
  ExpectStatus(mismatched.status, Code::kInvalidArgument, {"Matrix size-incompatible"});
}

TEST(FusedConv2D, MatchesConv2DBiasAddRelu) {
  LoadCpuPlugin();
  struct Case {
    Dims input, filter, strides;
    std::string padding;
  };
  const std::vector<Case> cases = {{{1, 5, 5, 1}, {3, 3, 1, 2}, {1, 1, 1, 1}, "VALID"},
                                   {{2, 7, 6, 3}, {3, 2, 3, 4}, {1, 2, 2, 1}, "SAME"},
                                   {{2, 4, 4, 8}, {1, 1, 8, 5}, {1, 1, 1, 1}, "VALID"},
                                   {{0, 4, 4, 2}, {2, 2, 2, 3}, {1, 1, 1, 1}, "SAME"}};
  for (DataType dtype : {DT_FLOAT, DT_DOUBLE}) {
    for (ThreadPool* pool : Pools()) {
      for (const Case& c : cases) {
        for (bool relu : {false, true}) {
          SCOPED_TRACE(StrCat(DataTypeName(dtype), " ", PartialShape(c.input).ToString(), " ",
                              PartialShape(c.filter).ToString(), " ", c.padding, relu ? " relu" : ""));
          int64_t in_n = 1, f_n = 1;
          for (int64_t d : c.input) in_n *= d;
          for (int64_t d : c.filter) f_n *= d;
          const Tensor x = MakeTyped(dtype, c.input, RandomValues(dtype, in_n, 4));
          const Tensor f = MakeTyped(dtype, c.filter, RandomValues(dtype, f_n, 5));
          const Tensor bias = MakeTyped(dtype, {c.filter[3]}, RandomValues(dtype, c.filter[3], 6));
          AttrMap attrs{{"strides", AttrOfIntList(c.strides)}, {"padding", AttrOfString(c.padding)}};
          const std::vector<double> want = Unfused(pool, "Conv2D", x, f, bias, attrs, relu ? "Relu" : "", 0);
          std::vector<std::string> ops = {"BiasAdd"};
          if (relu) ops.push_back("Relu");
          auto got = Fused(pool, "_FusedConv2D", x, f, bias, attrs, ops, /*host_args=*/true);
          ASSERT_TRUE(got.status.ok()) << got.status.ToString();
          ExpectClose(ToDoubles(got.outputs[0]), want, {}, "fused");
        }
      }
    }
  }
}

TEST(FusedConv2D, RejectsWhatItDoesNotImplement) {
  LoadCpuPlugin();
  const Tensor x = MakeTyped(DT_FLOAT, {1, 3, 3, 1}, RandomValues(DT_FLOAT, 9, 1));
  const Tensor f = MakeTyped(DT_FLOAT, {2, 2, 1, 1}, RandomValues(DT_FLOAT, 4, 2));
  const Tensor bias = MakeTyped(DT_FLOAT, {1}, {0.5});
  AttrMap attrs{{"strides", AttrOfIntList({1, 1, 1, 1})}, {"padding", AttrOfString("VALID")}};
  auto batch_norm = Fused(nullptr, "_FusedConv2D", x, f, bias, attrs, {"FusedBatchNorm"}, true);
  ExpectStatus(batch_norm.status, Code::kUnimplemented, {"FusedBatchNorm"});
  attrs["data_format"] = AttrOfString("NCHW");
  auto nchw = Fused(nullptr, "_FusedConv2D", x, f, bias, attrs, {"BiasAdd"}, true);
  ExpectStatus(nchw.status, Code::kUnimplemented, {"NHWC"});
}

TEST(FusedDepthwiseConv2dNative, MatchesDepthwiseBiasAddActivation) {
  LoadCpuPlugin();
  struct Case {
    Dims input, filter, strides, dilations;
    std::string padding;
    Dims explicit_paddings;
  };
  const std::vector<Case> cases = {
      {{1, 6, 6, 4}, {3, 3, 4, 1}, {1, 1, 1, 1}, {1, 1, 1, 1}, "SAME", {}},
      {{2, 7, 6, 3}, {3, 2, 3, 2}, {1, 2, 2, 1}, {1, 1, 1, 1}, "VALID", {}},
      {{1, 9, 8, 5}, {3, 3, 5, 1}, {1, 1, 1, 1}, {1, 2, 2, 1}, "SAME", {}},
      {{1, 5, 7, 6}, {3, 3, 6, 1}, {1, 2, 1, 1}, {1, 1, 1, 1}, "EXPLICIT", {0, 0, 1, 2, 0, 1, 0, 0}},
      {{0, 4, 4, 2}, {2, 2, 2, 1}, {1, 1, 1, 1}, {1, 1, 1, 1}, "SAME", {}}};
  for (DataType dtype : {DT_FLOAT, DT_DOUBLE}) {
    for (ThreadPool* pool : Pools()) {
      for (const Case& c : cases) {
        for (const std::string act : {"", "Relu", "Relu6", "_MklSwish", "GeluExact"}) {
          SCOPED_TRACE(StrCat(DataTypeName(dtype), " ", PartialShape(c.input).ToString(), " ",
                              PartialShape(c.filter).ToString(), " ", c.padding, " ", act));
          int64_t in_n = 1, f_n = 1;
          for (int64_t d : c.input) in_n *= d;
          for (int64_t d : c.filter) f_n *= d;
          const int64_t channels = c.filter[2] * c.filter[3];
          const Tensor x = MakeTyped(dtype, c.input, RandomValues(dtype, in_n, 4, -3, 3));
          const Tensor f = MakeTyped(dtype, c.filter, RandomValues(dtype, f_n, 5));
          const Tensor bias = MakeTyped(dtype, {channels}, RandomValues(dtype, channels, 6));
          AttrMap attrs{{"strides", AttrOfIntList(c.strides)},
                        {"dilations", AttrOfIntList(c.dilations)},
                        {"padding", AttrOfString(c.padding)}};
          if (!c.explicit_paddings.empty()) attrs["explicit_paddings"] = AttrOfIntList(c.explicit_paddings);
          const std::vector<double> want = Unfused(pool, "DepthwiseConv2dNative", x, f, bias, attrs, act, 0);
          std::vector<std::string> ops = {"BiasAdd"};
          if (!act.empty()) ops.push_back(act);
          auto got = Fused(pool, "_FusedDepthwiseConv2dNative", x, f, bias, attrs, ops);
          ASSERT_TRUE(got.status.ok()) << got.status.ToString();
          // swish: std::exp against the Sigmoid kernel's; GELU: 1/sqrt(2) rounded to float
          // in the graph's constant (and float's in a double product)
          std::vector<double> tol;
          if (act == "_MklSwish" || act == "GeluExact") {
            for (double w : want) tol.push_back((dtype == DT_FLOAT || act == "GeluExact" ? 1e-6 : 1e-14) * std::max(1.0, std::abs(w)));
          }
          ExpectClose(ToDoubles(got.outputs[0]), want, tol, "fused");
        }
      }
    }
  }
}

TEST(FusedDepthwiseConv2dNative, Errors) {
  LoadCpuPlugin();
  const Tensor x = MakeTyped(DT_FLOAT, {1, 3, 3, 2}, RandomValues(DT_FLOAT, 18, 1));
  const Tensor f = MakeTyped(DT_FLOAT, {2, 2, 2, 1}, RandomValues(DT_FLOAT, 8, 2));
  AttrMap attrs{{"strides", AttrOfIntList({1, 1, 1, 1})}, {"padding", AttrOfString("VALID")}};
  auto wrong_bias = Fused(nullptr, "_FusedDepthwiseConv2dNative", x, f,
                          MakeTyped(DT_FLOAT, {3}, {1, 2, 3}), attrs, {"BiasAdd"});
  ExpectStatus(wrong_bias.status, Code::kInvalidArgument, {"bias", "2"});
  auto residual = Fused(nullptr, "_FusedDepthwiseConv2dNative", x, f,
                        MakeTyped(DT_FLOAT, {2}, {1, 2}), attrs, {"BiasAdd", "Add"});
  ExpectStatus(residual.status, Code::kUnimplemented, {"BiasAdd, Add"});
  // Unknown static shapes, so that the kernel, not the shape function, finds it.
  auto mismatched = Fused(nullptr, "_FusedDepthwiseConv2dNative", x,
                          MakeTyped(DT_FLOAT, {2, 2, 3, 1}, RandomValues(DT_FLOAT, 12, 2)),
                          MakeTyped(DT_FLOAT, {3}, {1, 2, 3}), attrs, {"BiasAdd"}, false,
                          /*known_shapes=*/false);
  ExpectStatus(mismatched.status, Code::kInvalidArgument, {"input depth", "filter"});
}

}  // namespace
}  // namespace tgraph::testing
