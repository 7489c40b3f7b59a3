// Automatic mixed precision (core/rewrite/auto_mixed_precision.cc) with the oneDNN plugin's
// native bf16 kernels: an MLP's training step (forward, softmax cross-entropy, gradients)
// run with the rewrite off and on gives float results of the same shapes that agree within
// bfloat16 rounding; with it on the contractions (forward _FusedMatMul and every gradient
// MatMul) and the BiasAdd / Relu gradients between them run in bf16 behind Casts, while the
// loss, the softmax and everything fetched stay float. Skipped where the plugin's bf16
// kernels rank below its fp32 ones (bf16 no faster than fp32 on this CPU, or
// TGRAPH_ONEDNN_BF16=widened: plugins/onednn/bf16_mode.h): there the rewrite leaves the graph
// in float (AmpWhereBf16IsSlowerTest). tests/CMakeLists.txt runs these tests once more with
// each TGRAPH_ONEDNN_BF16, so both sides run on a CPU with AVX512_BF16. Also a CNN's step, whose bf16 Conv2D + BiasAdd + Relu
// and MaxPoolGrad -> ReluGrad -> BiasAddGrad fuse: the same results with the fusions off.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "core/autodiff/add_gradients.h"
#include "core/exec/prune.h"
#include "core/exec/session.h"
#include "core/rewrite/rewriter.h"
#include "onednn_test_util.h"

namespace tgraph::onednn_test {
namespace {

// Whether mixed precision converts the contractions here: the plugin's bf16 MatMul ranks as
// high as its fp32 one.
bool Bf16RanksWithFloat() {
  LoadPlugins();
  const KernelRegistration* bf16 = KernelOf("onednn", "MatMul", {{"T", AttrOfType(DT_BFLOAT16)}});
  const KernelRegistration* fp32 = KernelOf("onednn", "MatMul", {{"T", AttrOfType(DT_FLOAT)}});
  return bf16 != nullptr && fp32 != nullptr && bf16->priority >= fp32->priority;
}

constexpr const char* kBf16Slower =
    "the oneDNN plugin's bf16 kernels rank below its fp32 ones here (bf16 no faster on this "
    "CPU, or TGRAPH_ONEDNN_BF16=widened)";

class AmpTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!Bf16RanksWithFloat()) GTEST_SKIP() << kBf16Slower;
    Build();
  }

  Output Op(const std::string& type, std::vector<Output> inputs, AttrMap attrs = {},
            int index = 0) {
    NodeSpec spec;
    spec.type = type;
    for (const Output& o : inputs) spec.inputs.push_back({{o}, false});
    spec.attrs = std::move(attrs);
    auto op = g_.AddOperation(std::move(spec));
    EXPECT_TRUE(op.ok()) << op.status().ToString();
    return op.ok() ? (*op)->output(index) : Output{};
  }
  Output Const(const Tensor& t) {
    return Op("Const", {}, {{"value", AttrOfTensor(t)}, {"dtype", AttrOfType(t.dtype())}});
  }
  Output Placeholder(std::vector<int64_t> dims, const std::string& name) {
    NodeSpec spec;
    spec.type = "Placeholder";
    spec.name = name;
    spec.attrs = {{"dtype", AttrOfType(DT_FLOAT)}, {"shape", AttrOfShape(PartialShape(dims))}};
    return g_.AddOperation(std::move(spec)).value()->output(0);
  }

  // x [kBatch, 37] -> 29 (Relu) -> 5 logits; the mean softmax cross-entropy against y, its
  // gradients with respect to both weights and biases, and a plain SGD step's new values.
  // Odd sizes on purpose.
  void Build() {
    const AttrMap f = {{"T", AttrOfType(DT_FLOAT)}};
    x_ = Placeholder({kBatch, 37}, "x");
    y_ = Placeholder({kBatch, 5}, "y");
    params_ = {Const(RandomFloats({37, 29}, 1)), Const(RandomFloats({29}, 2)),
               Const(RandomFloats({29, 5}, 3)), Const(RandomFloats({5}, 4))};
    hidden_ = Op("Relu", {Op("BiasAdd", {Op("MatMul", {x_, params_[0]}, f), params_[1]}, f)}, f);
    const Output logits = Op("BiasAdd", {Op("MatMul", {hidden_, params_[2]}, f), params_[3]}, f);
    const Output xent = Op("SoftmaxCrossEntropyWithLogits", {logits, y_}, f);
    loss_ = Op("Mean", {xent, Const(Int32s({0}))},
               {{"T", AttrOfType(DT_FLOAT)}, {"Tidx", AttrOfType(DT_INT32)}});
    auto grads = AddGradients(g_, {loss_}, params_, {});
    ASSERT_TRUE(grads.ok()) << grads.status().ToString();
    // One SGD step's new values (param - grad): the gradients themselves are not fetched,
    // so their ops may convert (a fetched op never changes).
    fetches_ = {loss_};
    for (size_t i = 0; i < params_.size(); ++i) {
      fetches_.push_back(Op("Sub", {params_[i], (*grads)[i].values}, f));
    }
  }

  std::vector<std::pair<Output, Tensor>> Feeds() const {
    Tensor labels = Tensor::Allocate(DT_FLOAT, {kBatch, 5}).value();
    for (int64_t i = 0; i < kBatch * 5; ++i) labels.flat<float>()[i] = (i % 5 == i / 5 % 5) ? 1.f : 0.f;
    return {{x_, RandomFloats({kBatch, 37}, 9)}, {y_, labels}};
  }

  // Runs the fetches with automatic mixed precision on or off (the other rewrites on); the
  // op types that ran.
  std::multiset<std::string> Run(bool amp, std::vector<Tensor>* out) {
    SessionOptions options;
    options.rewrites.auto_mixed_precision = amp;
    auto session = Session::Create(&g_, options);
    EXPECT_TRUE(session.ok()) << session.status().ToString();
    RunOptions run_options;
    run_options.trace_level = 1;
    RunMetadata metadata;
    const Status s = (*session)->Run(run_options, Feeds(), fetches_, {}, out, &metadata);
    EXPECT_TRUE(s.ok()) << s.ToString();
    std::multiset<std::string> types;
    for (const NodeStepStats& st : metadata.step_stats) types.insert(st.op_type);
    return types;
  }

  // The plan's rewritten fragment with the default rewrites and mixed precision.
  std::unique_ptr<RewrittenFragment> Rewrite(const std::vector<Output>& fetches) {
    auto pruned = PruneAndOrder(g_, PruneRequest{{x_, y_}, fetches, {}});
    EXPECT_TRUE(pruned.ok()) << pruned.status().ToString();
    ordered_ = pruned->ordered;
    RewriteRequest request{&g_, &ordered_, {x_, y_}, fetches, {}, "CPU", {}};
    request.options.auto_mixed_precision = true;
    auto result = RewriteFragment(request);
    EXPECT_TRUE(result.ok()) << result.status().ToString();
    return result.ok() ? std::move(result).value() : nullptr;
  }

  static DataType TypeOf(const Operation& op) {
    const tf::AttrValue* t = op.FindAttr("T");
    return t == nullptr ? DT_INVALID : static_cast<DataType>(t->type());
  }

  static constexpr int64_t kBatch = 7;
  Graph g_;
  Output x_, y_, hidden_, loss_;
  std::vector<Output> params_, fetches_;
  std::vector<Operation*> ordered_;
};

TEST_F(AmpTest, TrainingStepAgreesWithFloatWithinBf16Rounding) {
  std::vector<Tensor> fp32, amp;
  const std::multiset<std::string> off_types = Run(false, &fp32);
  const std::multiset<std::string> on_types = Run(true, &amp);
  EXPECT_EQ(off_types.count("Cast"), 0u);
  EXPECT_GT(on_types.count("Cast"), 0u);
  // Inputs and products rounded to 8 significant bits along two layers and back: a few
  // bf16 ulps (2^-8) of the largest value.
  ExpectNearScaled(amp, fp32, 3e-2);
}

TEST_F(AmpTest, ContractionsAndTheirGradientsRunInBf16) {
  auto f = Rewrite(fetches_);
  ASSERT_NE(f, nullptr);
  std::map<std::string, int> bf16, fp32;
  std::string listing;  // shown on failure
  for (const Operation* op : f->ordered) {
    if (TypeOf(*op) == DT_BFLOAT16) ++bf16[op->type()];
    if (TypeOf(*op) == DT_FLOAT) ++fp32[op->type()];
    listing += Str(op->name(), " (", op->type(), ", ", DataTypeName(TypeOf(*op)), ")\n");
  }
  SCOPED_TRACE(listing);
  // Forward: two products, converted with their BiasAdd (and Relu), then fused into bf16
  // _FusedMatMuls; backward: both products' gradients with respect to the weights, and the
  // hidden layer's with respect to its input.
  EXPECT_EQ(bf16["_FusedMatMul"], 2);
  EXPECT_EQ(bf16["BiasAdd"] + bf16["Relu"] + fp32["BiasAdd"] + fp32["Relu"], 0);
  EXPECT_EQ(bf16["MatMul"], 3);
  EXPECT_EQ(fp32["MatMul"] + fp32["_FusedMatMul"], 0);
  // Between them: the Relu gradient and the hidden bias gradient follow their bf16 inputs.
  EXPECT_EQ(bf16["ReluGrad"], 1);
  EXPECT_EQ(bf16["BiasAddGrad"], 1);
  // The loss side stays float.
  EXPECT_EQ(fp32["SoftmaxCrossEntropyWithLogits"], 1);
  EXPECT_EQ(bf16["SoftmaxCrossEntropyWithLogits"], 0);
  // 2 MatMuls, 2 BiasAdds, 1 Relu forward; 3 MatMuls, ReluGrad, BiasAddGrad backward.
  EXPECT_EQ(f->counts.auto_mixed_precision, 5 + 5);
  EXPECT_EQ(f->counts.remapping, 2);
  // Every fetched tensor is still made by an op of the user's graph, in float.
  for (const Output& o : fetches_) {
    EXPECT_EQ(std::count(f->ordered.begin(), f->ordered.end(), o.op), 1) << o.op->name();
    EXPECT_EQ(o.dtype(), DT_FLOAT);
  }
}

TEST_F(AmpTest, FetchedContractionsStayFloat) {
  // Fetching the first layer's product and its Relu keeps that layer as it is (float, not
  // fused); the second layer, whose output only the loss reads, still converts.
  const Output product = hidden_.op->inputs()[0].op->inputs()[0];  // MatMul(x, W1)
  auto f = Rewrite({product, hidden_, loss_});
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(std::count(f->ordered.begin(), f->ordered.end(), product.op), 1);
  EXPECT_EQ(std::count(f->ordered.begin(), f->ordered.end(), hidden_.op), 1);
  EXPECT_EQ(TypeOf(*product.op), DT_FLOAT);
  int bf16_products = 0;
  for (const Operation* op : f->ordered) {
    bf16_products += op->type() == "_FusedMatMul" && TypeOf(*op) == DT_BFLOAT16;
  }
  EXPECT_EQ(bf16_products, 1);
  EXPECT_EQ(f->counts.auto_mixed_precision, 2);  // the second layer's MatMul and BiasAdd
  // Only the fetched layer's work: nothing to convert.
  EXPECT_EQ(Rewrite({product, hidden_}), nullptr);
}

// Where bf16 is the slower (its kernels rank below fp32's), mixed precision converts nothing
// and the step runs in float: no Cast, the results those of the rewrite off.
class AmpWhereBf16IsSlowerTest : public AmpTest {
 protected:
  void SetUp() override {
    if (Bf16RanksWithFloat()) GTEST_SKIP() << "bf16 ranks with fp32 here: AmpTest covers it";
    Build();
  }
};

TEST_F(AmpWhereBf16IsSlowerTest, LeavesTheGraphInFloat) {
  auto f = Rewrite(fetches_);
  ASSERT_NE(f, nullptr);  // the fusions still apply
  EXPECT_EQ(f->counts.auto_mixed_precision, 0);
  for (const Operation* op : f->ordered) EXPECT_NE(TypeOf(*op), DT_BFLOAT16) << op->name();
  std::vector<Tensor> fp32, amp;
  Run(false, &fp32);
  EXPECT_EQ(Run(true, &amp).count("Cast"), 0u);
  ASSERT_EQ(amp.size(), fp32.size());
  for (size_t i = 0; i < amp.size(); ++i) {
    for (int64_t e = 0; e < amp[i].NumElements(); ++e) {
      ASSERT_EQ(amp[i].flat<float>()[e], fp32[i].flat<float>()[e]) << "fetch " << i;
    }
  }
}

// A small CNN's training step in mixed precision: Conv2D -> BiasAdd -> Relu -> MaxPool, a
// dense layer, softmax cross-entropy. With the remapping on, the bf16 Conv2D + BiasAdd + Relu
// become one bf16 _FusedConv2D and MaxPoolGrad -> ReluGrad (-> BiasAddGrad) one bf16
// _FusedMaxPoolGrad; the step's results agree with those with the remapping off within a
// bfloat16 rounding.
class AmpCnnTest : public AmpTest {
 protected:
  void SetUp() override {
    if (!Bf16RanksWithFloat()) GTEST_SKIP() << kBf16Slower;
    const AttrMap f = {{"T", AttrOfType(DT_FLOAT)}};
    AttrMap conv = f;
    conv["strides"] = AttrOfIntList({1, 1, 1, 1});
    conv["padding"] = AttrOfString("SAME");
    AttrMap pool = f;
    pool["ksize"] = AttrOfIntList({1, 2, 2, 1});
    pool["strides"] = AttrOfIntList({1, 2, 2, 1});
    pool["padding"] = AttrOfString("SAME");
    x_ = Placeholder({kBatch, 9, 9, 2}, "x");
    y_ = Placeholder({kBatch, 5}, "y");
    // A zero conv bias: the unfused bf16 chain rounds the product and then the biased sum,
    // the fused one the biased product once; with the bias 0 both give the same activations
    // (so the same window maxima), and the comparison below can be tight. (The fused
    // kernel's bias: fused_kernels_test.cc.)
    Tensor zeros = Tensor::Allocate(DT_FLOAT, {16}).value();
    std::fill(zeros.flat<float>(), zeros.flat<float>() + 16, 0.f);
    params_ = {Const(RandomFloats({3, 3, 2, 16}, 11)), Const(zeros),
               Const(RandomFloats({5 * 5 * 16, 5}, 13))};
    const Output relu = Op("Relu", {Op("BiasAdd", {Op("Conv2D", {x_, params_[0]}, conv), params_[1]}, f)}, f);
    const Output pooled = Op("MaxPool", {relu}, pool);
    const Output flat = Op("Reshape", {pooled, Const(Int32s({kBatch, 5 * 5 * 16}))},
                           {{"T", AttrOfType(DT_FLOAT)}, {"Tshape", AttrOfType(DT_INT32)}});
    const Output logits = Op("MatMul", {flat, params_[2]}, f);
    loss_ = Op("Mean", {Op("SoftmaxCrossEntropyWithLogits", {logits, y_}, f), Const(Int32s({0}))},
               {{"T", AttrOfType(DT_FLOAT)}, {"Tidx", AttrOfType(DT_INT32)}});
    auto grads = AddGradients(g_, {loss_}, params_, {});
    ASSERT_TRUE(grads.ok()) << grads.status().ToString();
    fetches_ = {loss_};
    for (size_t i = 0; i < params_.size(); ++i) {
      fetches_.push_back(Op("Sub", {params_[i], (*grads)[i].values}, f));
    }
  }

  // The step with mixed precision on and the remapping on or off: the bf16 op types that ran.
  std::multiset<std::string> RunStep(bool remapping, std::vector<Tensor>* out) {
    SessionOptions options;
    options.rewrites.auto_mixed_precision = true;
    options.rewrites.remapping = remapping;
    auto session = Session::Create(&g_, options);
    EXPECT_TRUE(session.ok()) << session.status().ToString();
    RunOptions run_options;
    run_options.trace_level = 1;
    RunMetadata metadata;
    Tensor labels = Tensor::Allocate(DT_FLOAT, {kBatch, 5}).value();
    for (int64_t i = 0; i < kBatch * 5; ++i) labels.flat<float>()[i] = (i % 5 == i / 5 % 5) ? 1.f : 0.f;
    const Status s = (*session)->Run(run_options, {{x_, RandomFloats({kBatch, 9, 9, 2}, 19)}, {y_, labels}},
                                     fetches_, {}, out, &metadata);
    EXPECT_TRUE(s.ok()) << s.ToString();
    std::multiset<std::string> types;
    for (const NodeStepStats& st : metadata.step_stats) types.insert(st.op_type);
    return types;
  }
};

TEST_F(AmpCnnTest, Bf16FusionsOnAndOffAgree) {
  std::vector<Tensor> fused, unfused;
  const std::multiset<std::string> on = RunStep(true, &fused);
  const std::multiset<std::string> off = RunStep(false, &unfused);
  EXPECT_EQ(on.count("_FusedConv2D"), 1u);
  EXPECT_EQ(on.count("_FusedMaxPoolGrad"), 1u);
  EXPECT_EQ(on.count("Conv2D") + on.count("MaxPoolGrad") + on.count("ReluGrad"), 0u);
  EXPECT_EQ(off.count("_FusedConv2D") + off.count("_FusedMaxPoolGrad"), 0u);
  EXPECT_EQ(off.count("MaxPoolGrad"), 1u);
  // The same bf16 values routed and masked alike; float sums in another order, each
  // rounded to bf16 once: a bf16 step (2^-8) of the largest value.
  ExpectNearScaled(fused, unfused, 4e-3);
}

TEST_F(AmpTest, OffByDefaultAndNotSwitchedOnByAll) {
  RewriteOptions o;
  EXPECT_FALSE(o.auto_mixed_precision);
  ASSERT_TRUE(o.Set("all", true).ok());
  EXPECT_FALSE(o.auto_mixed_precision);
  ASSERT_TRUE(o.Set("auto_mixed_precision", true).ok());
  EXPECT_TRUE(o.auto_mixed_precision);
  ASSERT_TRUE(o.Set("all", false).ok());
  EXPECT_FALSE(o.auto_mixed_precision);
}

}  // namespace
}  // namespace tgraph::onednn_test
