// The oneDNN _FusedMatMul and _FusedConv2D kernels (bias and activation inside the product's
// primitive) against the Eigen fused kernels: every fused_ops list TensorFlow's op defs name
// and the CPU implements, odd sizes, batch 1, empty tensors, transposes, strides, dilations
// and paddings, bfloat16 against float, and unsupported attrs or bad biases failing alike.
// Also: the fused kernels rank with the plain products', which the plan-time fusion needs.
#include <cstring>
#include <random>

#include "conv_test_util.h"
#include "onednn_test_util.h"

namespace tgraph::onednn_test {
namespace {

// The fused_ops lists both kernels run, with LeakyRelu's slope (0 when unused).
struct Epilogue {
  std::vector<std::string> ops;
  float alpha = 0.2f;
};
const std::vector<Epilogue>& Epilogues() {
  static const std::vector<Epilogue> all = {{{"BiasAdd"}},
                                            {{"BiasAdd", "Relu"}},
                                            {{"BiasAdd", "Relu6"}},
                                            {{"BiasAdd", "Elu"}},
                                            {{"BiasAdd", "LeakyRelu"}, 0.3f},
                                            {{"BiasAdd", "LeakyRelu"}, 1.7f},
                                            {{"BiasAdd", "_MklSwish"}},
                                            {{"BiasAdd", "GeluExact"}}};
  return all;
}
std::string Describe(const Epilogue& e) {
  std::string s;
  for (const std::string& op : e.ops) s += (s.empty() ? "" : "+") + op;
  return Str(s, e.ops.back() == "LeakyRelu" ? Str(" alpha=", e.alpha) : "");
}

// A bias in [-8, 8): beyond Relu6's bound and deep into Elu's saturation.
Tensor Bias(int64_t n, uint32_t seed) {
  Tensor t = RandomFloats({n}, seed);
  for (int64_t i = 0; i < n; ++i) t.flat<float>()[i] *= 8.0f;
  return t;
}

AttrMap MatMulAttrs(bool ta, bool tb, const Epilogue& e, int64_t num_args = 1) {
  return {{"transpose_a", AttrOfBool(ta)},
          {"transpose_b", AttrOfBool(tb)},
          {"num_args", AttrOfInt(num_args)},
          {"fused_ops", AttrOfStringList(e.ops)},
          {"leakyrelu_alpha", AttrOfFloat(e.alpha)}};
}

void CheckFusedMatMul(int64_t m, int64_t k, int64_t n, bool ta, bool tb, const Epilogue& e,
                      uint32_t seed) {
  const std::vector<int64_t> a = ta ? std::vector<int64_t>{k, m} : std::vector<int64_t>{m, k};
  const std::vector<int64_t> b = tb ? std::vector<int64_t>{n, k} : std::vector<int64_t>{k, n};
  TwoKernelNode node("_FusedMatMul",
                     {In(RandomFloats(a, seed)), In(RandomFloats(b, seed + 1)), ListIn(Bias(n, seed + 2))},
                     MatMulAttrs(ta, tb, e));
  node.ExpectSame(k + 8, Str("_FusedMatMul ", Describe(e), " m=", m, " k=", k, " n=", n,
                             " ta=", ta, " tb=", tb));
}

TEST(OneDnnFusedMatMulTest, EveryEpilogueEveryTranspose) {
  uint32_t seed = 1;
  for (const Epilogue& e : Epilogues()) {
    for (int t = 0; t < 4; ++t) {
      const bool ta = t & 1, tb = t & 2;
      CheckFusedMatMul(1, 1, 1, ta, tb, e, seed += 3);
      CheckFusedMatMul(3, 5, 7, ta, tb, e, seed += 3);
      CheckFusedMatMul(1, 64, 31, ta, tb, e, seed += 3);   // batch 1
      CheckFusedMatMul(67, 129, 45, ta, tb, e, seed += 3);  // split by rows
      CheckFusedMatMul(3, 300, 701, ta, tb, e, seed += 3);  // few rows: split by columns
      CheckFusedMatMul(100, 200, 450, ta, tb, e, seed += 3);  // 2 column parts per thread
      CheckFusedMatMul(301, 129, 130, ta, tb, e, seed += 3);  // many rows: B packed
      CheckFusedMatMul(1, 1100, 1000, ta, tb, e, seed += 3);  // 4.4 MB of B: by columns
    }
  }
}

TEST(OneDnnFusedMatMulTest, RandomShapes) {
  std::mt19937 gen(17);
  std::uniform_int_distribution<int64_t> dim(1, 200);
  for (int i = 0; i < 12; ++i) {
    const Epilogue& e = Epilogues()[static_cast<size_t>(i) % Epilogues().size()];
    CheckFusedMatMul(dim(gen), dim(gen), dim(gen), i & 1, i & 2, e, 300 + 3 * static_cast<uint32_t>(i));
  }
  // The MLP's layers, batch 128.
  CheckFusedMatMul(128, 784, 512, false, false, Epilogues()[1], 400);
  CheckFusedMatMul(128, 512, 10, false, false, Epilogues()[0], 403);
}

TEST(OneDnnFusedMatMulTest, EmptyOperands) {
  for (const Epilogue& e : Epilogues()) {
    for (int t = 0; t < 4; ++t) {
      CheckFusedMatMul(0, 3, 4, t & 1, t & 2, e, 50);
      CheckFusedMatMul(3, 4, 0, t & 1, t & 2, e, 53);
      CheckFusedMatMul(3, 0, 4, t & 1, t & 2, e, 56);  // k = 0: the activated bias
      CheckFusedMatMul(0, 0, 0, t & 1, t & 2, e, 59);
    }
  }
}

TEST(OneDnnFusedMatMulTest, BadAttrsAndBiasesFailAlike) {
  const Epilogue relu{{"BiasAdd", "Relu"}};
  // Unsupported lists: refused at kernel creation by both, with the same message.
  for (const std::vector<std::string>& ops : std::vector<std::vector<std::string>>{
           {"BiasAdd", "Tanh"}, {"Relu"}, {"BiasAdd", "Relu", "Relu"}, {"FusedBatchNorm"}}) {
    TwoKernelNode node("_FusedMatMul",
                       {In(RandomFloats({2, 3}, 1)), In(RandomFloats({3, 4}, 2)), ListIn(Bias(4, 3))},
                       MatMulAttrs(false, false, Epilogue{ops}));
    node.ExpectSame(3, Str("_FusedMatMul ", Describe(Epilogue{ops})));
  }
  // No bias argument.
  TwoKernelNode no_args("_FusedMatMul",
                        {In(RandomFloats({2, 3}, 1)), In(RandomFloats({3, 4}, 2)), EmptyList()},
                        MatMulAttrs(false, false, relu, 0));
  no_args.ExpectSame(3, "_FusedMatMul num_args=0");
  // A bias of the wrong length or rank (also for an empty product), and mismatched operands,
  // past the shape function.
  for (const auto& [a, bias] : std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>>{
           {{2, 3}, {3}}, {{2, 3}, {1, 4}}, {{0, 3}, {5}}, {{2, 5}, {4}}}) {
    TwoKernelNode node("_FusedMatMul",
                       {In(RandomFloats(a, 4)), In(RandomFloats({3, 4}, 5)), ListIn(RandomFloats(bias, 6))},
                       MatMulAttrs(false, false, relu), /*known_shapes=*/false);
    node.ExpectSame(3, Str("_FusedMatMul a ", DimsString(a), " bias ", DimsString(bias)));
  }
}

// The fused kernels are registered at the plain products' priority: the plan-time fusion
// replaces MatMul/Conv2D only by a kernel that ranks as high.
TEST(OneDnnFusedTest, FusedKernelsRankWithThePlainOnes) {
  LoadPlugins();
  const AttrMap f32 = {{"T", AttrOfType(DT_FLOAT)}};
  for (const auto& [fused, plain] : std::vector<std::pair<std::string, std::string>>{
           {"_FusedMatMul", "MatMul"}, {"_FusedConv2D", "Conv2D"}}) {
    const KernelRegistration* f = KernelOf("onednn", fused, f32);
    const KernelRegistration* p = KernelOf("onednn", plain, f32);
    ASSERT_NE(f, nullptr) << fused;
    ASSERT_NE(p, nullptr) << plain;
    EXPECT_EQ(f->priority, p->priority) << fused;
    EXPECT_GT(f->priority, KernelOf("cpu", fused, f32)->priority) << fused;
  }
  // bfloat16: a fused kernel exactly where the plain one is, at its priority.
  const AttrMap bf16 = {{"T", AttrOfType(DT_BFLOAT16)}};
  for (const auto& [fused, plain] : std::vector<std::pair<std::string, std::string>>{
           {"_FusedMatMul", "MatMul"}, {"_FusedConv2D", "Conv2D"}}) {
    const KernelRegistration* f = KernelOf("onednn", fused, bf16);
    const KernelRegistration* p = KernelOf("onednn", plain, bf16);
    ASSERT_EQ(f != nullptr, p != nullptr) << fused;
    if (f != nullptr) {
      EXPECT_EQ(f->priority, p->priority) << fused;
    }
  }
}

// ---- bfloat16 _FusedMatMul (no Eigen twin): against the Eigen float kernel on the same
// values, within bfloat16 tolerance ----

TEST(OneDnnFusedMatMulTest, BFloat16) {
  LoadPlugins();
  uint32_t seed = 700;
  for (const Epilogue& e : Epilogues()) {
    for (const auto& [m, k, n] : std::vector<std::tuple<int64_t, int64_t, int64_t>>{
             {3, 5, 7}, {67, 129, 45}, {1, 512, 300}, {300, 129, 200}, {4, 0, 3}, {0, 4, 3}}) {
      for (int t = 0; t < 4; ++t) {
        const bool ta = t & 1, tb = t & 2;
        const std::vector<int64_t> a = ta ? std::vector<int64_t>{k, m} : std::vector<int64_t>{m, k};
        const std::vector<int64_t> b = tb ? std::vector<int64_t>{n, k} : std::vector<int64_t>{k, n};
        // The bias (in [-8, 8)) adds up to 8 to each sum's bound.
        ExpectBf16MatchesFloat("_FusedMatMul",
                               {In(ToBFloat16(RandomFloats(a, seed))),
                                In(ToBFloat16(RandomFloats(b, seed + 1))),
                                ListIn(ToBFloat16(Bias(n, seed + 2)))},
                               MatMulAttrs(ta, tb, e), k + 8,
                               Str(Describe(e), " m=", m, " k=", k, " n=", n, " ta=", ta, " tb=", tb));
        seed += 3;
      }
    }
  }
}

// ---- _FusedConv2D ----

// The _FusedConv2D attrs of geometry c with epilogue e.
AttrMap FusedConvAttrs(const Conv& c, const Epilogue& e, DataType dtype = DT_FLOAT) {
  AttrMap attrs = c.Attrs();
  attrs["TArgs"] = AttrOfTypeList({dtype});
  attrs["num_args"] = AttrOfInt(1);
  attrs["fused_ops"] = AttrOfStringList(e.ops);
  attrs["leakyrelu_alpha"] = AttrOfFloat(e.alpha);
  return attrs;
}

void CheckFusedConv(const Conv& c, const Epilogue& e, uint32_t seed) {
  TwoKernelNode node("_FusedConv2D",
                     {In(RandomFloats({c.batch, c.h, c.w, c.c}, seed)),
                      In(RandomFloats({c.kh, c.kw, c.c, c.oc}, seed + 1)), ListIn(Bias(c.oc, seed + 2)), EmptyList()},
                     FusedConvAttrs(c, e), c.HasOutput());
  node.ExpectSame(c.kh * c.kw * c.c + 8, Str("_FusedConv2D ", Describe(e), " ", c.Describe()));
}

TEST(OneDnnFusedConvTest, RandomGeometriesEveryEpilogue) {
  std::mt19937 gen(23);
  for (int i = 0; i < 36; ++i) {
    const Conv c = RandomConv(gen, i);
    CheckFusedConv(c, Epilogues()[static_cast<size_t>(i) % Epilogues().size()],
                   2000 + 10 * static_cast<uint32_t>(i));
  }
}

TEST(OneDnnFusedConvTest, SplitAndSpecialWindows) {
  uint32_t seed = 3000;
  for (const Epilogue& e : Epilogues()) {
    CheckFusedConv(Geometry(64, 28, 28, 1, 5, 5, 32), e, seed += 3);  // the CNN's first layer
    CheckFusedConv(Geometry(3, 12, 12, 16, 3, 3, 32), e, seed += 3);  // batches split 2 + 1
    CheckFusedConv(Geometry(1, 29, 23, 16, 3, 3, 32), e, seed += 3);  // one image in row bands
    CheckFusedConv(Geometry(1, 7, 7, 64, 3, 3, 64), e, seed += 3);    // by output channels
    Conv one_by_one = Geometry(2, 6, 7, 5, 1, 1, 9);
    one_by_one.padding = "VALID";
    CheckFusedConv(one_by_one, e, seed += 3);
    Conv strided = Geometry(2, 17, 19, 8, 5, 5, 24);
    strided.sh = 2;
    strided.sw = 3;
    strided.dh = 2;
    strided.padding = "VALID";
    CheckFusedConv(strided, e, seed += 3);
    Conv padded = Geometry(1, 21, 21, 12, 3, 3, 20);
    padded.padding = "EXPLICIT";
    padded.pads = {0, 0, 4, 1, 2, 3, 0, 0};
    padded.sh = 3;
    CheckFusedConv(padded, e, seed += 3);
  }
}

// An addend of `dims` in [-4, 4).
Tensor Addend(std::vector<int64_t> dims, uint32_t seed) {
  Tensor t = RandomFloats(std::move(dims), seed);
  for (int64_t i = 0; i < t.NumElements(); ++i) t.flat<float>()[i] *= 4.0f;
  return t;
}

// A residual connection, fused_ops ["BiasAdd", "Add"(, A)]: args hold the bias and an
// addend of the output's shape, added after the bias and before the activation (the oneDNN
// kernel sums it into the destination as a post-op).
void CheckResidualConv(const Conv& c, const Epilogue& e, uint32_t seed) {
  Epilogue with_add = e;
  with_add.ops.insert(with_add.ops.begin() + 1, "Add");
  AttrMap attrs = FusedConvAttrs(c, with_add);
  attrs["num_args"] = AttrOfInt(2);
  attrs["TArgs"] = AttrOfTypeList({DT_FLOAT, DT_FLOAT});
  const int64_t oh = std::max<int64_t>(c.OutH(), 0), ow = std::max<int64_t>(c.OutW(), 0);
  TwoKernelNode node("_FusedConv2D",
                     {In(RandomFloats({c.batch, c.h, c.w, c.c}, seed)),
                      In(RandomFloats({c.kh, c.kw, c.c, c.oc}, seed + 1)), ListIn(Bias(c.oc, seed + 2), 2),
                      In(Addend({c.batch, oh, ow, c.oc}, seed + 3)),
                      EmptyList()},
                     attrs, c.HasOutput());
  node.ExpectSame(c.kh * c.kw * c.c + 16, Str("_FusedConv2D ", Describe(with_add), " ", c.Describe()));
}

TEST(OneDnnFusedConvTest, ResidualAddEveryActivation) {
  uint32_t seed = 7000;
  for (const Epilogue& e : Epilogues()) {
    CheckResidualConv(Geometry(1, 29, 23, 16, 3, 3, 32), e, seed += 5);  // one image in row bands
    CheckResidualConv(Geometry(3, 12, 12, 16, 3, 3, 32), e, seed += 5);  // batches split 2 + 1
    Conv projection = Geometry(2, 14, 14, 24, 1, 1, 48);                 // ResNet's strided 1x1
    projection.sh = projection.sw = 2;
    projection.padding = "VALID";
    CheckResidualConv(projection, e, seed += 5);
  }
  std::mt19937 gen(31);
  for (int i = 0; i < 12; ++i) {
    CheckResidualConv(RandomConv(gen, i), Epilogues()[static_cast<size_t>(i) % Epilogues().size()],
                      8000 + 10 * static_cast<uint32_t>(i));
  }
  CheckResidualConv(Geometry(0, 5, 5, 3, 3, 3, 4), Epilogues()[1], 8500);  // no images
}

// An addend of another shape or dtype fails both kernels alike, naming both shapes.
TEST(OneDnnFusedConvTest, ResidualAddendOfAnotherShapeFails) {
  const Conv c;  // [1, 5, 5, 3] * [3, 3, 3, 4], SAME: output [1, 5, 5, 4]
  AttrMap attrs = FusedConvAttrs(c, Epilogue{{"BiasAdd", "Add", "Relu"}});
  attrs["num_args"] = AttrOfInt(2);
  attrs["TArgs"] = AttrOfTypeList({DT_FLOAT, DT_FLOAT});
  for (const std::vector<int64_t>& dims : std::vector<std::vector<int64_t>>{{1, 5, 5, 3}, {5, 5, 4}, {4}}) {
    TwoKernelNode node("_FusedConv2D",
                       {In(RandomFloats({1, 5, 5, 3}, 1)), In(RandomFloats({3, 3, 3, 4}, 2)), ListIn(Bias(4, 3), 2),
                        In(Addend(dims, 4)), EmptyList()},
                       attrs, /*known_shapes=*/false);
    node.ExpectSame(27, Str("addend ", DimsString(dims)));
  }
}

TEST(OneDnnFusedConvTest, EmptyTensors) {
  for (const Epilogue& e : {Epilogues()[0], Epilogues()[1]}) {
    CheckFusedConv(Geometry(0, 5, 5, 3, 3, 3, 4), e, 71);
    CheckFusedConv(Geometry(2, 5, 5, 3, 3, 3, 0), e, 81);
    Conv no_rows = Geometry(2, 0, 5, 3, 1, 3, 4);
    no_rows.padding = "VALID";
    CheckFusedConv(no_rows, e, 91);
  }
}

// bfloat16 (mixed precision's Conv2D + BiasAdd + Relu, fused at plan time): against the
// Eigen float kernel on the same values.
TEST(OneDnnFusedConvTest, BFloat16WhereTheCpuHasIt) {
  LoadPlugins();
  if (KernelOf("onednn", "_FusedConv2D", {{"T", AttrOfType(DT_BFLOAT16)}}) == nullptr) {
    GTEST_SKIP() << "this CPU has neither AVX512_BF16 nor AMX: no oneDNN bfloat16 _FusedConv2D";
  }
  auto check = [](const Conv& c, const Epilogue& e, uint32_t seed) {
    ExpectBf16MatchesFloat("_FusedConv2D",
                           {In(ToBFloat16(RandomFloats({c.batch, c.h, c.w, c.c}, seed))),
                            In(ToBFloat16(RandomFloats({c.kh, c.kw, c.c, c.oc}, seed + 1))),
                            ListIn(ToBFloat16(Bias(c.oc, seed + 2))), EmptyList()},
                           FusedConvAttrs(c, e, DT_BFLOAT16), c.kh * c.kw * c.c + 8,
                           Str(Describe(e), " ", c.Describe()));
  };
  std::mt19937 gen(29);
  for (int i = 0, checked = 0; checked < 18 && i < 200; ++i) {
    const Conv c = RandomConv(gen, i);
    if (!c.HasOutput()) continue;
    check(c, Epilogues()[static_cast<size_t>(i) % Epilogues().size()], 5000 + 3 * static_cast<uint32_t>(i));
    ++checked;
  }
  const Epilogue relu{{"BiasAdd", "Relu"}};
  check(Geometry(64, 28, 28, 1, 5, 5, 32), relu, 6001);   // the CNN's layers
  check(Geometry(64, 14, 14, 32, 5, 5, 64), relu, 6004);
  check(Geometry(1, 29, 23, 16, 3, 3, 32), relu, 6007);   // one image in row bands
  check(Geometry(0, 5, 5, 3, 3, 3, 4), relu, 6010);       // no images
}

TEST(OneDnnFusedConvTest, BadAttrsAndBiasesFailAlike) {
  const Conv c;
  const Epilogue relu{{"BiasAdd", "Relu"}};
  const std::vector<Arg> args = {In(RandomFloats({1, 5, 5, 3}, 1)), In(RandomFloats({3, 3, 3, 4}, 2)),
                                 ListIn(Bias(4, 3)), EmptyList()};
  auto check = [&](const std::string& what, AttrMap attrs, std::vector<Arg> inputs) {
    TwoKernelNode node("_FusedConv2D", std::move(inputs), std::move(attrs), /*known_shapes=*/false);
    node.ExpectSame(27, Str("_FusedConv2D ", what));
  };
  for (const std::vector<std::string>& ops : std::vector<std::vector<std::string>>{
           {"BiasAdd", "Tanh"}, {"FusedBatchNorm"}, {"BiasAdd", "Add"}, {}}) {
    check(Describe(Epilogue{ops.empty() ? std::vector<std::string>{"(none)"} : ops}),
          FusedConvAttrs(c, Epilogue{ops}), args);
  }
  AttrMap nchw = FusedConvAttrs(c, relu);
  nchw["data_format"] = AttrOfString("NCHW");
  check("NCHW", nchw, args);
  AttrMap oihw = FusedConvAttrs(c, relu);
  oihw["filter_format"] = AttrOfString("OIHW");
  check("filter_format OIHW", oihw, args);
  AttrMap two_args = FusedConvAttrs(c, relu);
  two_args["num_args"] = AttrOfInt(2);
  two_args["TArgs"] = AttrOfTypeList({DT_FLOAT, DT_FLOAT});
  check("num_args=2", two_args, {args[0], args[1], ListIn(Bias(4, 3), 2), In(Bias(4, 4)), args[3]});
  // A bias of the wrong length, rank or dtype.
  check("bias [5]", FusedConvAttrs(c, relu), {args[0], args[1], ListIn(Bias(5, 5)), args[3]});
  check("bias [1,4]", FusedConvAttrs(c, relu), {args[0], args[1], ListIn(RandomFloats({1, 4}, 6)), args[3]});
  AttrMap doubles = FusedConvAttrs(c, relu);
  doubles["TArgs"] = AttrOfTypeList({DT_DOUBLE});
  Tensor double_bias = Tensor::Allocate(DT_DOUBLE, {4}).value();
  for (int i = 0; i < 4; ++i) double_bias.flat<double>()[i] = i;
  check("bias of doubles", doubles, {args[0], args[1], ListIn(double_bias), args[3]});
  // A bad filter, past the shape function.
  check("depth mismatch", FusedConvAttrs(c, relu), {args[0], In(RandomFloats({3, 3, 4, 4}, 7)), args[2], args[3]});
}

}  // namespace
}  // namespace tgraph::onednn_test
