// Loading the oneDNN plugin or not swaps the implementation without rebuilding: one graph
// (Conv2D, Relu, MatMul, BatchMatMulV2 and both convolution gradients) runs in a session
// while only the CPU plugin is loaded (Eigen kernels), then the oneDNN plugin is loaded and a
// new session over the same graph runs it again on oneDNN's kernels; the results agree.
// TGRAPH_DISABLE_ONEDNN=1 makes the plugin load without registering anything.
//
// Its own executable: the process must start without the oneDNN plugin.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "core/exec/session.h"
#include "onednn_test_util.h"

namespace tgraph::onednn_test {
namespace {

const char* const kOps[] = {"Conv2D", "Conv2DBackpropInput", "Conv2DBackpropFilter", "MatMul",
                            "BatchMatMulV2"};

class GraphOfEveryKernel {
 public:
  GraphOfEveryKernel() {
    x_ = Placeholder("x", {4, 14, 14, 3});
    const Output filter = Const(RandomFloats({3, 3, 3, 16}, 2));
    const AttrMap conv = {{"T", AttrOfType(DT_FLOAT)},
                          {"strides", AttrOfIntList({1, 2, 2, 1})},
                          {"padding", AttrOfString("SAME")}};
    const Output y = Op("Conv2D", {x_, filter}, conv);  // [4, 7, 7, 16]
    const Output relu = Op("Relu", {y}, {{"T", AttrOfType(DT_FLOAT)}});
    const Output flat = Op("Reshape", {relu, Const(Int32s({4, 7 * 7 * 16}))},
                           {{"T", AttrOfType(DT_FLOAT)}, {"Tshape", AttrOfType(DT_INT32)}});
    const Output logits = Op("MatMul", {flat, Const(RandomFloats({7 * 7 * 16, 10}, 3))},
                             {{"T", AttrOfType(DT_FLOAT)}});
    const Output batched =
        Op("BatchMatMulV2", {Const(RandomFloats({5, 1, 6, 20}, 4)), Const(RandomFloats({3, 20, 9}, 5))},
           {{"T", AttrOfType(DT_FLOAT)}});
    const Output dy = Const(RandomFloats({4, 7, 7, 16}, 6));
    const Output dx = Op("Conv2DBackpropInput", {Const(Int32s({4, 14, 14, 3})), filter, dy}, conv);
    const Output dw = Op("Conv2DBackpropFilter", {x_, Const(Int32s({3, 3, 3, 16})), dy}, conv);
    fetches_ = {relu, logits, batched, dx, dw};
  }

  std::vector<Tensor> Run() {
    auto session = Session::Create(&g_, SessionOptions{});
    EXPECT_TRUE(session.ok()) << session.status().ToString();
    if (!session.ok()) return {};
    std::vector<Tensor> out;
    const Status s = session.value()->Run({{x_, RandomFloats({4, 14, 14, 3}, 1)}}, fetches_, {}, &out);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return out;
  }

 private:
  Output Op(const std::string& type, std::vector<Output> inputs, AttrMap attrs) {
    NodeSpec spec;
    spec.type = type;
    for (const Output& o : inputs) spec.inputs.push_back({{o}, false});
    spec.attrs = std::move(attrs);
    auto op = g_.AddOperation(std::move(spec));
    EXPECT_TRUE(op.ok()) << op.status().ToString();
    return op.value()->output(0);
  }
  Output Const(const Tensor& t) {
    return Op("Const", {}, {{"value", AttrOfTensor(t)}, {"dtype", AttrOfType(t.dtype())}});
  }
  Output Placeholder(const std::string& name, std::vector<int64_t> dims) {
    NodeSpec spec;
    spec.type = "Placeholder";
    spec.name = name;
    spec.attrs = {{"dtype", AttrOfType(DT_FLOAT)}, {"shape", AttrOfShape(PartialShape(dims))}};
    return g_.AddOperation(std::move(spec)).value()->output(0);
  }

  Graph g_;
  Output x_;
  std::vector<Output> fetches_;
};

// The plugin whose kernel a session would pick for `op` (fp32, on the CPU).
std::string ChosenPlugin(const char* op) {
  const KernelRegistration* k =
      KernelRegistry::Global()->FindOrNull(op, {{"T", AttrOfType(DT_FLOAT)}}, "CPU");
  return k == nullptr || k->plugin == nullptr ? "" : k->plugin->name;
}

TEST(OneDnnPluginTest, SameResultsWithAndWithoutThePlugin) {
  if (std::getenv("TGRAPH_DISABLE_ONEDNN") != nullptr) GTEST_SKIP() << "the plugin is disabled";
  ASSERT_TRUE(LoadPlugin(TGRAPH_CPU_PLUGIN_PATH).ok());
  GraphOfEveryKernel graph;
  for (const char* op : kOps) ASSERT_EQ(ChosenPlugin(op), "cpu") << op;
  const std::vector<Tensor> eigen = graph.Run();

  auto onednn = LoadPlugin(TGRAPH_ONEDNN_PLUGIN_PATH);
  ASSERT_TRUE(onednn.ok()) << onednn.status().ToString();
  // One CPU kernel per op (and a second MatMul, bfloat16, on CPUs with AVX512_BF16 or AMX).
  for (const char* op : kOps) {
    EXPECT_NE(std::find(onednn.value()->kernels.begin(), onednn.value()->kernels.end(),
                        std::pair<std::string, std::string>(op, "CPU")),
              onednn.value()->kernels.end())
        << op;
  }
  for (const char* op : kOps) ASSERT_EQ(ChosenPlugin(op), "onednn") << op;
  const std::vector<Tensor> with_onednn = graph.Run();

  ASSERT_EQ(eigen.size(), 5u);
  ASSERT_EQ(with_onednn.size(), eigen.size());
  const char* names[] = {"relu", "logits", "batched", "dx", "dw"};
  for (size_t i = 0; i < eigen.size(); ++i) {
    ASSERT_EQ(with_onednn[i].dims(), eigen[i].dims()) << names[i];
    // Relative to the tensor's largest value: an element near zero can be the difference of
    // large partial sums (the logits add 784 products), whose rounding depends on the order
    // of summation (and Eigen's order on how its threads split the sum).
    double scale = 1;
    for (int64_t e = 0; e < eigen[i].NumElements(); ++e) {
      scale = std::max(scale, static_cast<double>(std::abs(eigen[i].flat<float>()[e])));
    }
    for (int64_t e = 0; e < eigen[i].NumElements(); ++e) {
      ASSERT_NEAR(with_onednn[i].flat<float>()[e], eigen[i].flat<float>()[e], 1e-4 * scale)
          << names[i] << " element " << e;
    }
  }
}

// Run by ctest with TGRAPH_DISABLE_ONEDNN=1 (onednn.plugin_disabled_by_environment).
TEST(OneDnnPluginTest, DisabledByEnvironment) {
  if (std::getenv("TGRAPH_DISABLE_ONEDNN") == nullptr) {
    GTEST_SKIP() << "run with TGRAPH_DISABLE_ONEDNN=1";
  }
  ASSERT_TRUE(LoadPlugin(TGRAPH_CPU_PLUGIN_PATH).ok());
  auto onednn = LoadPlugin(TGRAPH_ONEDNN_PLUGIN_PATH);
  ASSERT_TRUE(onednn.ok()) << onednn.status().ToString();
  EXPECT_TRUE(onednn.value()->kernels.empty());
  for (const char* op : kOps) EXPECT_EQ(ChosenPlugin(op), "cpu") << op;
  GraphOfEveryKernel graph;
  EXPECT_EQ(graph.Run().size(), 5u);
}

}  // namespace
}  // namespace tgraph::onednn_test
