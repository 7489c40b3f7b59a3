// A small MLP forward pass on /device:GPU:0 against the same graph on the CPU, with the step
// stats checked: every op on the GPU, and the only host<->device copies the fed input going
// in and the fetched result coming out. Also a MatMul timing against the CPU plugin.
// (The OpenCL plugin's program cache has its own test: tests/plugins/opencl.)
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "device_test_util.h"

namespace {

using devtest::Builder;
using devtest::kCpu;
using devtest::kGpu;
using devtest::Random;
using devtest::RunResult;

constexpr int64_t kBatch = 8, kIn = 16, kHidden = 32, kOut = 10;

// x -> MatMul W1 -> BiasAdd b1 -> Relu -> MatMul W2 -> BiasAdd b2 -> Softmax, with the
// weights as Consts on the builder's device.
std::vector<TG_Output> BuildMlp(Builder& b) {
  TG_Output x = b.Feed({kBatch, kIn}, Random(kBatch * kIn, -1, 1, 21));
  TG_Output w1 = b.DeviceConst({kIn, kHidden}, Random(kIn * kHidden, -0.5f, 0.5f, 22));
  TG_Output b1 = b.DeviceConst({kHidden}, Random(kHidden, -0.1f, 0.1f, 23));
  TG_Output w2 = b.DeviceConst({kHidden, kOut}, Random(kHidden * kOut, -0.5f, 0.5f, 24));
  TG_Output b2 = b.DeviceConst({kOut}, Random(kOut, -0.1f, 0.1f, 25));
  TG_Output h = b.Op("MatMul", {x, w1}, {}, "layer1/MatMul");
  h = b.Op("BiasAdd", {h, b1}, {}, "layer1/BiasAdd");
  h = b.Op("Relu", {h}, {}, "layer1/Relu");
  TG_Output logits = b.Op("MatMul", {h, w2}, {}, "layer2/MatMul");
  logits = b.Op("BiasAdd", {logits, b2}, {}, "layer2/BiasAdd");
  return {b.Op("Softmax", {logits}, {}, "probs")};
}

class MlpTest : public devtest::DeviceTest {};

TEST_F(MlpTest, ForwardPassRunsOnGpuWithOnlyInputAndOutputCopies) {
  Builder cpu(kCpu), gpu(kGpu);
  const RunResult want = cpu.Run(BuildMlp(cpu));
  // Two runs in one session: the second reuses the plan, the kernels and the uploaded weights.
  const RunResult got = gpu.Run(BuildMlp(gpu), /*runs=*/2);
  ASSERT_EQ(want.code, TG_OK) << want.message;
  ASSERT_EQ(got.code, TG_OK) << got.message;
  for (const char* node : {"layer1/MatMul", "layer1/BiasAdd", "layer1/Relu", "layer2/MatMul",
                           "layer2/BiasAdd", "probs", "const0", "const3"}) {
    EXPECT_EQ(got.DeviceOf(node), kGpu) << node << "\n" << got.StepsString();
  }
  EXPECT_EQ(got.CopiesOf("feed0:0"), 1) << got.StepsString();
  EXPECT_EQ(got.CopiesOf("probs:0"), 1) << got.StepsString();
  EXPECT_EQ(got.Copies(), 2) << got.StepsString();
  EXPECT_EQ(want.Copies(), 0) << want.StepsString();
  ASSERT_EQ(got.values.size(), 1u);
  ASSERT_EQ(got.values[0].dims, (std::vector<int64_t>{kBatch, kOut}));
  ASSERT_EQ(want.values[0].values.size(), got.values[0].values.size());
  for (size_t i = 0; i < got.values[0].values.size(); ++i) {
    EXPECT_NEAR(got.values[0].values[i], want.values[0].values[i], 1e-5) << "element " << i;
  }
}

// MatMul n x n on GPU:0 and on the CPU plugin: mean time per run after a warm-up, printed.
// Each run feeds both matrices and fetches the product, so the copies over the host link are
// part of the figure (on PoCL both use the same cores: a correctness-and-overhead figure, not
// a speed claim).
TEST_F(MlpTest, MatMulTimingAgainstCpu) {
  for (int64_t n : {256, 1024}) {
    double ms[2] = {0, 0};
    std::vector<double> first[2];
    for (int dev = 0; dev < 2; ++dev) {
      Builder b(dev == 0 ? kCpu : kGpu);
      std::vector<TG_Output> fetch = {
          b.Op("MatMul", {b.Feed({n, n}, Random(static_cast<size_t>(n * n), -1, 1, 31)),
                          b.Feed({n, n}, Random(static_cast<size_t>(n * n), -1, 1, 32))},
               {}, "mm")};
      TG_Status* s = TG_NewStatus();
      TG_Session* session = TG_NewSession(b.graph(), nullptr, s);
      ASSERT_NE(session, nullptr) << TG_Message(s);
      RunResult r = b.RunIn(session, fetch);  // warm-up: plan, program builds or cuBLAS handle
      ASSERT_EQ(r.code, TG_OK) << r.message;
      EXPECT_EQ(r.DeviceOf("mm"), dev == 0 ? kCpu : kGpu);
      first[dev] = r.values[0].values;
      const int runs = n <= 256 ? 20 : 3;
      const auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < runs; ++i) ASSERT_EQ(b.RunIn(session, fetch).code, TG_OK);
      ms[dev] = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                    .count() /
                runs;
      TG_DeleteSession(session, s);
      TG_DeleteStatus(s);
    }
    const double flops = 2.0 * static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n);
    std::printf("[ timing ] MatMul %lldx%lld: CPU plugin %.2f ms (%.1f GFLOP/s), %s %.2f ms "
                "(%.1f GFLOP/s), per run incl. copies\n",
                static_cast<long long>(n), static_cast<long long>(n), ms[0], flops / ms[0] / 1e6,
                TGRAPH_DEVICE_NAME, ms[1], flops / ms[1] / 1e6);
    ASSERT_EQ(first[0].size(), first[1].size());
    for (size_t i = 0; i < first[0].size(); i += 97) {
      EXPECT_NEAR(first[1][i], first[0][i], 1e-3 * (1 + std::abs(first[0][i])));
    }
  }
}

}  // namespace
