// The gradient of a small MLP's loss (built with TG_AddGradients; the weights are fed
// placeholders, no variables) on /device:GPU:0 against the same graph on the CPU: every
// gradient matches, every forward and backward op runs on the GPU, and the only
// host<->device copies are the feeds going in and the fetched gradients coming out.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "device_test_util.h"

namespace {

using devtest::Builder;
using devtest::kCpu;
using devtest::kGpu;
using devtest::Random;
using devtest::RunResult;

constexpr int64_t kBatch = 8, kIn = 12, kHidden = 24, kOut = 10;

struct Mlp {
  std::vector<TG_Output> params;  // W1, b1, W2, b2, W3, b3
  std::vector<TG_Output> grads;
  int num_feeds = 0;
};

// x -> MatMul W1 -> BiasAdd b1 -> Tanh -> MatMul W2 -> BiasAdd b2 -> Sigmoid -> MatMul W3
// -> BiasAdd b3 -> SparseSoftmaxCrossEntropyWithLogits(labels) -> Mean: three activations'
// gradients (TanhGrad, SigmoidGrad; Relu has its own tests), BiasAddGrad, MatMul with
// transposes and the loss gradient. The gradients are built with the graph's device stack
// set to the builder's device, so they are placed with the forward ops.
Mlp BuildMlpGradients(Builder& b) {
  Mlp m;
  b.DeclareFeedShapes();
  TG_Output x = b.Feed({kBatch, kIn}, Random(kBatch * kIn, -1, 1, 51));
  std::vector<int32_t> labels;
  for (int64_t i = 0; i < kBatch; ++i) labels.push_back(static_cast<int32_t>((i * 3) % kOut));
  TG_Output y = b.FeedInt({kBatch}, labels);
  const int64_t widths[] = {kIn, kHidden, kHidden, kOut};
  const char* activations[] = {"Tanh", "Sigmoid", nullptr};
  TG_Output h = x;
  for (int layer = 0; layer < 3; ++layer) {
    const int64_t in = widths[layer], out = widths[layer + 1];
    TG_Output w = b.Feed({in, out}, Random(static_cast<size_t>(in * out), -0.5f, 0.5f,
                                           static_cast<uint32_t>(60 + layer)));
    TG_Output bias = b.Feed({out}, Random(static_cast<size_t>(out), -0.1f, 0.1f,
                                          static_cast<uint32_t>(70 + layer)));
    m.params.push_back(w);
    m.params.push_back(bias);
    const std::string name = "layer" + std::to_string(layer + 1);
    h = b.Op("MatMul", {h, w}, {}, (name + "/MatMul").c_str());
    h = b.Op("BiasAdd", {h, bias}, {}, (name + "/BiasAdd").c_str());
    if (activations[layer] != nullptr) {
      h = b.Op(activations[layer], {h}, {}, (name + "/" + activations[layer]).c_str());
    }
  }
  TG_Output xent = b.Op("SparseSoftmaxCrossEntropyWithLogits", {h, y}, {}, "xent");
  TG_Output loss = b.Op("Mean", {xent, b.HostInts({1}, {0})}, {}, "loss");

  TG_Status* s = TG_NewStatus();
  TG_GraphPushDevice(b.graph(), b.device().c_str(), s);
  EXPECT_EQ(TG_GetCode(s), TG_OK) << TG_Message(s);
  m.grads.resize(m.params.size());
  TG_AddGradients(b.graph(), &loss, 1, m.params.data(), static_cast<int>(m.params.size()),
                  nullptr, s, m.grads.data());
  EXPECT_EQ(TG_GetCode(s), TG_OK) << TG_Message(s);
  TG_GraphPopDevice(b.graph(), s);
  TG_DeleteStatus(s);
  m.num_feeds = 8;
  return m;
}

class MlpGradTest : public devtest::DeviceTest {};

TEST_F(MlpGradTest, GradientsMatchCpuWithOnlyFeedAndFetchCopies) {
  Builder cpu(kCpu), gpu(kGpu);
  const Mlp cm = BuildMlpGradients(cpu), gm = BuildMlpGradients(gpu);
  const RunResult want = cpu.Run(cm.grads);
  const RunResult got = gpu.Run(gm.grads, /*runs=*/2);
  ASSERT_EQ(want.code, TG_OK) << want.message;
  ASSERT_EQ(got.code, TG_OK) << got.message << "\n" << got.StepsString();
  ASSERT_EQ(got.values.size(), want.values.size());
  for (size_t f = 0; f < want.values.size(); ++f) {
    SCOPED_TRACE("gradient " + std::to_string(f));
    EXPECT_EQ(got.values[f].dims, want.values[f].dims);
    ASSERT_EQ(got.values[f].values.size(), want.values[f].values.size());
    for (size_t i = 0; i < want.values[f].values.size(); ++i) {
      EXPECT_NEAR(got.values[f].values[i], want.values[f].values[i],
                  1e-5 + 1e-4 * std::abs(want.values[f].values[i]))
          << "element " << i;
    }
  }
  // Every compute step runs on the GPU but the host-side Consts (axes, shapes).
  int copies = 0;
  for (const devtest::Step& step : got.steps) {
    if (step.op == "_Copy") {
      ++copies;
      continue;
    }
    if (step.op == "Const" && step.device == kCpu) continue;
    EXPECT_EQ(step.device, kGpu) << step.name << " (" << step.op << ")\n" << got.StepsString();
  }
  EXPECT_EQ(copies, cm.num_feeds + static_cast<int>(gm.grads.size())) << got.StepsString();
  EXPECT_EQ(want.Copies(), 0) << want.StepsString();
}

}  // namespace
