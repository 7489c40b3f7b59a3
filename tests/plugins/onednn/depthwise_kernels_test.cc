// The oneDNN DepthwiseConv2dNative and _FusedDepthwiseConv2dNative kernels against the Eigen
// ones: random geometries (odd sizes, batch 1, strides, dilations, SAME / VALID / asymmetric
// EXPLICIT padding) with every epilogue, MobileNetV2's layers (one image in bands of rows,
// strided), empty tensors, bad biases and attrs failing alike, bfloat16 against float, and a
// channel multiplier other than 1: declined where the filter's shape shows it (the Eigen
// kernel takes the node), computed alike where only the run shows it.
#include <random>

#include "conv_test_util.h"
#include "onednn_test_util.h"

namespace tgraph::onednn_test {
namespace {

const std::vector<std::vector<std::string>>& Epilogues() {
  static const std::vector<std::vector<std::string>> all = {
      {"BiasAdd"},        {"BiasAdd", "Relu"},      {"BiasAdd", "Relu6"},
      {"BiasAdd", "Elu"}, {"BiasAdd", "LeakyRelu"}, {"BiasAdd", "_MklSwish"}};
  return all;
}

// A bias in [-8, 8): past Relu6's bound.
Tensor Bias(int64_t n, uint32_t seed) {
  Tensor t = RandomFloats({n}, seed);
  for (int64_t i = 0; i < n; ++i) t.flat<float>()[i] *= 8.0f;
  return t;
}

// The depthwise convolution of geometry c (its oc unused) with channel multiplier m;
// `fused_ops` empty: DepthwiseConv2dNative, else _FusedDepthwiseConv2dNative.
void CheckDepthwise(const Conv& c, const std::vector<std::string>& fused_ops, uint32_t seed,
                    int64_t m = 1, bool known_shapes = true) {
  const bool fused = !fused_ops.empty();
  std::vector<Arg> args = {In(RandomFloats({c.batch, c.h, c.w, c.c}, seed)),
                           In(RandomFloats({c.kh, c.kw, c.c, m}, seed + 1))};
  AttrMap attrs = c.Attrs();
  if (fused) {
    args.push_back(ListIn(Bias(c.c * m, seed + 2)));
    attrs["num_args"] = AttrOfInt(1);
    attrs["fused_ops"] = AttrOfStringList(fused_ops);
    attrs["leakyrelu_alpha"] = AttrOfFloat(0.3f);
  }
  std::string what = fused ? "_FusedDepthwiseConv2dNative" : "DepthwiseConv2dNative";
  for (const std::string& op : fused_ops) what += " " + op;
  TwoKernelNode node(fused ? "_FusedDepthwiseConv2dNative" : "DepthwiseConv2dNative", std::move(args),
                     std::move(attrs), known_shapes && c.HasOutput());
  node.ExpectSame(c.kh * c.kw + 8, Str(what, " multiplier ", m, " ", c.Describe()));
}

TEST(OneDnnDepthwiseTest, RandomGeometriesEveryEpilogue) {
  std::mt19937 gen(37);
  for (int i = 0; i < 40; ++i) {
    const Conv c = RandomConv(gen, i);
    const uint32_t seed = 100 + 10 * static_cast<uint32_t>(i);
    CheckDepthwise(c, {}, seed);
    CheckDepthwise(c, Epilogues()[static_cast<size_t>(i) % Epilogues().size()], seed + 5);
  }
}

TEST(OneDnnDepthwiseTest, MobileNetLayers) {
  const std::vector<std::string> relu6 = {"BiasAdd", "Relu6"};
  CheckDepthwise(Geometry(1, 112, 112, 32, 3, 3, 0), relu6, 1);  // one image in row bands
  Conv strided = Geometry(1, 113, 113, 24, 3, 3, 0);  // after a Pad, folded: EXPLICIT
  strided.sh = strided.sw = 2;
  strided.padding = "EXPLICIT";
  strided.pads = {0, 0, 0, 1, 0, 1, 0, 0};
  CheckDepthwise(strided, relu6, 11);
  CheckDepthwise(Geometry(3, 14, 14, 96, 3, 3, 0), relu6, 21);  // batches claimed by threads
  CheckDepthwise(Geometry(1, 7, 7, 960, 3, 3, 0), relu6, 31);
  CheckDepthwise(Geometry(2, 10, 10, 17, 5, 5, 0), {}, 41);  // channels not a multiple of 16
}

TEST(OneDnnDepthwiseTest, EmptyTensors) {
  for (const std::vector<std::string>& ops : {std::vector<std::string>{}, Epilogues()[1]}) {
    CheckDepthwise(Geometry(0, 5, 5, 3, 3, 3, 0), ops, 51);
    CheckDepthwise(Geometry(2, 5, 5, 0, 3, 3, 0), ops, 61);
    Conv no_rows = Geometry(2, 0, 5, 3, 1, 3, 0);
    no_rows.padding = "VALID";
    CheckDepthwise(no_rows, ops, 71);
  }
}

// Another channel multiplier: the oneDNN kernel declines the node when the filter's static
// shape shows it (so placement picks the Eigen kernel); shown only at run time, it computes
// it too (on oneDNN's grouped kernel), alike.
TEST(OneDnnDepthwiseTest, ChannelMultiplierOtherThanOne) {
  LoadPlugins();
  Graph graph;
  std::vector<Tensor> inputs;
  const Operation* node = AddNode(graph, "DepthwiseConv2dNative",
                                  {In(RandomFloats({1, 6, 6, 4}, 1)), In(RandomFloats({3, 3, 4, 2}, 2))},
                                  {{"T", AttrOfType(DT_FLOAT)}, {"strides", AttrOfIntList({1, 1, 1, 1})},
                                   {"padding", AttrOfString("SAME")}},
                                  /*known_shapes=*/true, &inputs);
  ASSERT_NE(node, nullptr);
  const KernelRegistration* onednn = KernelOf("onednn", "DepthwiseConv2dNative", node->attrs());
  ASSERT_NE(onednn, nullptr);
  auto runner = KernelRunner::CreateWithKernel(*node, *onednn, nullptr);
  ASSERT_FALSE(runner.ok());
  EXPECT_NE(runner.status().message().find("channel multiplier 2"), std::string::npos)
      << runner.status().ToString();
  Conv c = Geometry(2, 9, 8, 5, 3, 3, 0);
  CheckDepthwise(c, {}, 81, /*m=*/2, /*known_shapes=*/false);
  CheckDepthwise(c, {"BiasAdd", "Relu6"}, 91, /*m=*/3, /*known_shapes=*/false);
}

TEST(OneDnnDepthwiseTest, BadAttrsAndBiasesFailAlike) {
  const Conv c;  // [1, 5, 5, 3], 3x3, SAME
  auto check = [&](const std::string& what, std::vector<Arg> args, AttrMap attrs) {
    const std::string type = args.size() > 2 ? "_FusedDepthwiseConv2dNative" : "DepthwiseConv2dNative";
    TwoKernelNode node(type, std::move(args), std::move(attrs), /*known_shapes=*/false);
    node.ExpectSame(9, what);
  };
  auto fused = [&](std::vector<std::string> ops, int64_t num_args = 1) {
    AttrMap attrs = c.Attrs();
    attrs["num_args"] = AttrOfInt(num_args);
    attrs["fused_ops"] = AttrOfStringList(std::move(ops));
    return attrs;
  };
  const Tensor x = RandomFloats({1, 5, 5, 3}, 1), f = RandomFloats({3, 3, 3, 1}, 2);
  check("a bias of 4", {In(x), In(f), ListIn(Bias(4, 3))}, fused({"BiasAdd"}));
  check("a 2-D bias", {In(x), In(f), ListIn(RandomFloats({1, 3}, 3))}, fused({"BiasAdd"}));
  check("Tanh", {In(x), In(f), ListIn(Bias(3, 3))}, fused({"BiasAdd", "Tanh"}));
  check("a residual Add", {In(x), In(f), ListIn(Bias(3, 3))}, fused({"BiasAdd", "Add"}));
  check("depths that differ", {In(x), In(RandomFloats({3, 3, 2, 1}, 4))}, c.Attrs());
  check("a 3-D filter", {In(x), In(RandomFloats({3, 3, 3}, 4))}, c.Attrs());
  check("an empty window", {In(x), In(RandomFloats({0, 3, 3, 1}, 4))}, c.Attrs());
  AttrMap nchw = c.Attrs();
  nchw["data_format"] = AttrOfString("NCHW");
  check("NCHW", {In(x), In(f)}, nchw);
}

// The fused kernel ranks with the plain one (the plan-time fusion replaces a kernel only by
// one that ranks as high), above the Eigen kernels, in float and, where registered, bf16.
TEST(OneDnnDepthwiseTest, FusedKernelRanksWithThePlainOne) {
  LoadPlugins();
  for (DataType dtype : {DT_FLOAT, DT_BFLOAT16}) {
    const AttrMap attrs = {{"T", AttrOfType(dtype)}};
    const KernelRegistration* f = KernelOf("onednn", "_FusedDepthwiseConv2dNative", attrs);
    const KernelRegistration* p = KernelOf("onednn", "DepthwiseConv2dNative", attrs);
    ASSERT_EQ(f != nullptr, p != nullptr) << DataTypeName(dtype);
    if (dtype == DT_FLOAT) {
      ASSERT_NE(f, nullptr);
    }
    if (f == nullptr) continue;
    EXPECT_EQ(f->priority, p->priority) << DataTypeName(dtype);
    if (dtype == DT_FLOAT) {
      EXPECT_GT(f->priority, KernelOf("cpu", "_FusedDepthwiseConv2dNative", attrs)->priority);
      EXPECT_GT(p->priority, KernelOf("cpu", "DepthwiseConv2dNative", attrs)->priority);
    }
  }
}

// bfloat16 where oneDNN runs it: against the Eigen float kernels on the same values.
TEST(OneDnnDepthwiseTest, BFloat16WhereTheCpuHasIt) {
  LoadPlugins();
  if (KernelOf("onednn", "_FusedDepthwiseConv2dNative", {{"T", AttrOfType(DT_BFLOAT16)}}) == nullptr) {
    GTEST_SKIP() << "this CPU has neither AVX512_BF16 nor AMX: no oneDNN bfloat16 depthwise convolution";
  }
  auto check = [](const Conv& c, const std::vector<std::string>& ops, uint32_t seed) {
    AttrMap attrs = c.Attrs();
    attrs["num_args"] = AttrOfInt(1);
    attrs["fused_ops"] = AttrOfStringList(ops);
    ExpectBf16MatchesFloat("_FusedDepthwiseConv2dNative",
                           {In(ToBFloat16(RandomFloats({c.batch, c.h, c.w, c.c}, seed))),
                            In(ToBFloat16(RandomFloats({c.kh, c.kw, c.c, 1}, seed + 1))),
                            ListIn(ToBFloat16(Bias(c.c, seed + 2)))},
                           attrs, c.kh * c.kw + 8, Str(ops.back(), " ", c.Describe()));
  };
  std::mt19937 gen(41);
  for (int i = 0, checked = 0; checked < 12 && i < 200; ++i) {
    const Conv c = RandomConv(gen, i);
    if (!c.HasOutput()) continue;
    check(c, Epilogues()[static_cast<size_t>(i) % Epilogues().size()], 300 + 3 * static_cast<uint32_t>(i));
    ++checked;
  }
  check(Geometry(1, 56, 56, 144, 3, 3, 0), {"BiasAdd", "Relu6"}, 901);
}

}  // namespace
}  // namespace tgraph::onednn_test
