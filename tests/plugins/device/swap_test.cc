// Swapping backends at run time (issue 7): one process, one graph, no rebuild. The graph of
// an MLP's training step is built once through the C API with every op annotated
// /device:GPU:0 (TG_GraphPushDevice), variables and optimizer updates included. Session 1
// runs it with soft placement while only the CPU plugin is loaded, so everything lands on
// CPU:0; then the device plugin under test (OpenCL or CUDA: this source is built once per
// backend) is loaded with TG_LoadPlugin and session 2 runs the same graph, the same initial
// values and batches, on /device:GPU:0. Losses and trained weights must agree, and a
// training step on the GPU must run every op there, with host<->device copies only for the
// fed batch going in and the fetched loss coming out.
//
// Its own executable: the process must start without the device plugin. Without a device
// the CPU half runs and the test then skips, saying why (fails with TGRAPH_DEVICE_REQUIRED).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "device_test_util.h"

namespace {

using devtest::Random;
using devtest::Step;
using devtest::Value;

constexpr int64_t kBatch = 16, kIn = 20, kHidden = 32, kOut = 10;
constexpr int kSteps = 5;

struct Model {
  TG_Graph* g = nullptr;
  TG_Output x, labels, loss;
  TG_Operation* init = nullptr;
  TG_Operation* train = nullptr;
  std::vector<TG_Variable*> vars;
};

TG_Tensor* FloatTensor(const std::vector<int64_t>& dims, const std::vector<float>& v) {
  TG_Tensor* t = TG_AllocateTensor(TG_FLOAT, dims.data(), static_cast<int>(dims.size()),
                                   v.size() * sizeof(float));
  std::memcpy(TG_TensorData(t), v.data(), v.size() * sizeof(float));
  return t;
}

TG_Output Op(TG_Graph* g, const char* type, const char* name, std::vector<TG_Output> inputs,
             TG_Status* s) {
  TG_OperationDescription* d = TG_NewOperation(g, type, name);
  for (const TG_Output& in : inputs) TG_AddInput(d, in);
  TG_Operation* op = TG_FinishOperation(d, s);
  EXPECT_EQ(TG_GetCode(s), TG_OK) << type << ": " << TG_Message(s);
  return TG_Output{op, 0};
}

TG_Output Placeholder(TG_Graph* g, const char* name, TG_DataType dt, std::vector<int64_t> dims,
                      TG_Status* s) {
  TG_OperationDescription* d = TG_NewOperation(g, "Placeholder", name);
  TG_SetAttrType(d, "dtype", dt);
  TG_SetAttrShape(d, "shape", dims.data(), static_cast<int>(dims.size()));
  TG_Operation* op = TG_FinishOperation(d, s);
  EXPECT_EQ(TG_GetCode(s), TG_OK) << TG_Message(s);
  return TG_Output{op, 0};
}

// x -> Dense(kHidden) -> Relu -> Dense(kOut) -> sparse softmax cross-entropy -> Mean, trained
// by `kind` (TG_OptimizerMinimize); every op built under /device:GPU:0.
Model BuildModel(TG_OptimizerKind kind, TG_Status* s) {
  Model m;
  m.g = TG_NewGraph();
  TG_GraphPushDevice(m.g, "/device:GPU:0", s);
  m.x = Placeholder(m.g, "x", TG_FLOAT, {kBatch, kIn}, s);
  m.labels = Placeholder(m.g, "labels", TG_INT32, {kBatch}, s);
  const int64_t widths[] = {kIn, kHidden, kOut};
  TG_Output h = m.x;
  for (int layer = 0; layer < 2; ++layer) {
    const int64_t in = widths[layer], out = widths[layer + 1];
    const std::string n = std::to_string(layer + 1);
    TG_VariableOptions opts;
    TG_InitVariableOptions(&opts);
    // Deterministic initial values (Consts), so both sessions start equal.
    const float scale = 1.0f / std::sqrt(static_cast<float>(in));
    TG_Tensor* w0 = FloatTensor({in, out}, Random(static_cast<size_t>(in * out), -scale, scale,
                                                  static_cast<uint32_t>(80 + layer)));
    TG_Tensor* b0 = FloatTensor({out}, Random(static_cast<size_t>(out), -0.1f, 0.1f,
                                              static_cast<uint32_t>(90 + layer)));
    const std::string wn = "W" + n, bn = "b" + n;
    opts.name = wn.c_str();
    TG_Variable* w = TG_GraphNewVariableFromTensor(m.g, w0, &opts, s);
    EXPECT_EQ(TG_GetCode(s), TG_OK) << TG_Message(s);
    opts.name = bn.c_str();
    TG_Variable* b = TG_GraphNewVariableFromTensor(m.g, b0, &opts, s);
    EXPECT_EQ(TG_GetCode(s), TG_OK) << TG_Message(s);
    TG_DeleteTensor(w0);
    TG_DeleteTensor(b0);
    m.vars.push_back(w);
    m.vars.push_back(b);
    h = Op(m.g, "MatMul", ("layer" + n + "/MatMul").c_str(), {h, TG_VariableReadValue(w)}, s);
    h = Op(m.g, "BiasAdd", ("layer" + n + "/BiasAdd").c_str(), {h, TG_VariableReadValue(b)}, s);
    if (layer == 0) h = Op(m.g, "Relu", "layer1/Relu", {h}, s);
  }
  TG_OperationDescription* xd =
      TG_NewOperation(m.g, "SparseSoftmaxCrossEntropyWithLogits", "xent");
  TG_AddInput(xd, h);
  TG_AddInput(xd, m.labels);
  TG_Output xent{TG_FinishOperation(xd, s), 0};
  const int32_t axis = 0;
  const int64_t one = 1;
  TG_Tensor* axes = TG_AllocateTensor(TG_INT32, &one, 1, sizeof axis);
  std::memcpy(TG_TensorData(axes), &axis, sizeof axis);
  TG_OperationDescription* ad = TG_NewOperation(m.g, "Const", "loss/axes");
  TG_SetAttrTensor(ad, "value", axes, s);
  TG_SetAttrType(ad, "dtype", TG_INT32);
  TG_Output axes_op{TG_FinishOperation(ad, s), 0};
  TG_DeleteTensor(axes);
  m.loss = Op(m.g, "Mean", "loss", {xent, axes_op}, s);

  TG_OptimizerOptions o;
  TG_InitOptimizerOptions(&o, kind);
  o.learning_rate = kind == TG_OPTIMIZER_ADAM ? 0.01 : 0.2;
  TG_Optimizer* opt = TG_NewOptimizer(&o, s);
  EXPECT_EQ(TG_GetCode(s), TG_OK) << TG_Message(s);
  m.train = TG_OptimizerMinimize(opt, m.g, m.loss, nullptr, 0, nullptr, s);
  EXPECT_EQ(TG_GetCode(s), TG_OK) << TG_Message(s);
  TG_DeleteOptimizer(opt);
  m.init = TG_GraphGlobalVariablesInitializer(m.g, s);
  EXPECT_EQ(TG_GetCode(s), TG_OK) << TG_Message(s);
  TG_GraphPopDevice(m.g, s);
  return m;
}

struct Trained {
  std::vector<double> losses;
  std::vector<Value> weights;
  std::vector<Step> step_stats;  // of the last training step
  std::vector<std::string> devices;
};

// A new session (soft placement) on the model's graph: init, kSteps training steps fetching
// the loss, then the trained weights.
Trained Train(const Model& m) {
  Trained t;
  TG_Status* s = TG_NewStatus();
  TG_SessionOptions* so = TG_NewSessionOptions();
  TG_SetSessionAllowSoftPlacement(so, 1);
  TG_Session* session = TG_NewSession(m.g, so, s);
  TG_DeleteSessionOptions(so);
  EXPECT_NE(session, nullptr) << TG_Message(s);
  if (session == nullptr) {
    TG_DeleteStatus(s);
    return t;
  }
  for (int i = 0; i < TG_SessionNumDevices(session); ++i) {
    t.devices.push_back(TG_SessionDeviceName(session, i));
  }
  TG_SessionRun(session, nullptr, nullptr, nullptr, 0, nullptr, nullptr, 0, &m.init, 1, nullptr,
                s);
  EXPECT_EQ(TG_GetCode(s), TG_OK) << TG_Message(s);
  for (int step = 0; step < kSteps && TG_GetCode(s) == TG_OK; ++step) {
    std::vector<int32_t> labels;
    for (int64_t i = 0; i < kBatch; ++i) labels.push_back(static_cast<int32_t>((i * 7 + step) % kOut));
    TG_Tensor* feeds[2] = {
        FloatTensor({kBatch, kIn}, Random(kBatch * kIn, -1, 1, static_cast<uint32_t>(100 + step))),
        TG_AllocateTensor(TG_INT32, &kBatch, 1, kBatch * sizeof(int32_t))};
    std::memcpy(TG_TensorData(feeds[1]), labels.data(), labels.size() * sizeof(int32_t));
    const TG_Output inputs[2] = {m.x, m.labels};
    TG_Tensor* loss = nullptr;
    TG_RunOptions* ro = TG_NewRunOptions();
    TG_SetRunOptionsTraceLevel(ro, 1);
    TG_RunMetadata* md = TG_NewRunMetadata();
    TG_SessionRun(session, ro, inputs, feeds, 2, &m.loss, &loss, 1, &m.train, 1, md, s);
    EXPECT_EQ(TG_GetCode(s), TG_OK) << TG_Message(s);
    if (loss != nullptr) t.losses.push_back(devtest::ValueOf(loss).values.at(0));
    t.step_stats.clear();
    for (int i = 0; i < TG_RunMetadataNumNodes(md); ++i) {
      t.step_stats.push_back({TG_RunMetadataNodeName(md, i), TG_RunMetadataNodeOpType(md, i),
                              TG_RunMetadataNodeDevice(md, i)});
    }
    TG_DeleteRunMetadata(md);
    TG_DeleteRunOptions(ro);
    TG_DeleteTensor(loss);
    TG_DeleteTensor(feeds[0]);
    TG_DeleteTensor(feeds[1]);
  }
  std::vector<TG_Output> reads;
  for (TG_Variable* v : m.vars) reads.push_back(TG_VariableReadValue(v));
  std::vector<TG_Tensor*> outs(reads.size(), nullptr);
  TG_SessionRun(session, nullptr, nullptr, nullptr, 0, reads.data(), outs.data(),
                static_cast<int>(reads.size()), nullptr, 0, nullptr, s);
  EXPECT_EQ(TG_GetCode(s), TG_OK) << TG_Message(s);
  for (TG_Tensor* o : outs) {
    t.weights.push_back(devtest::ValueOf(o));
    TG_DeleteTensor(o);
  }
  TG_DeleteSession(session, s);
  TG_DeleteStatus(s);
  return t;
}

std::string StatsString(const std::vector<Step>& steps) {
  std::string out;
  for (const Step& s : steps) out += "  " + s.name + " (" + s.op + ") on " + s.device + "\n";
  return out;
}

class SwapTest : public ::testing::TestWithParam<TG_OptimizerKind> {};

// Each optimizer gets a process of its own (ctest runs the binary once per filter): the
// device plugin, once loaded, stays loaded.
TEST_P(SwapTest, SameGraphTrainsOnCpuThenOnDeviceAfterLoadingIt) {
  TG_Status* s = TG_NewStatus();
  TG_LoadPlugin(TGRAPH_CPU_PLUGIN_PATH, s);
  ASSERT_EQ(TG_GetCode(s), TG_OK) << TG_Message(s);
  Model m = BuildModel(GetParam(), s);
  ASSERT_EQ(TG_GetCode(s), TG_OK) << TG_Message(s);

  const Trained cpu = Train(m);
  ASSERT_EQ(cpu.losses.size(), static_cast<size_t>(kSteps));
  for (const std::string& d : cpu.devices) EXPECT_EQ(d.find("GPU"), std::string::npos) << d;
  for (const Step& step : cpu.step_stats) {
    EXPECT_EQ(step.device, "/device:CPU:0") << step.name << "\n" << StatsString(cpu.step_stats);
  }

  const TG_Plugin* plugin = TG_LoadPlugin(TGRAPH_DEVICE_PLUGIN_PATH, s);
  ASSERT_NE(plugin, nullptr) << TG_Message(s);
  ASSERT_EQ(TG_GetCode(s), TG_OK) << TG_Message(s);
  const std::string log = devtest::PluginLog(plugin);
  std::fputs(log.c_str(), stderr);  // the plugin's log lines stay in the test's output
  if (!devtest::SessionHasDevice("/device:GPU:0")) {
    TG_DeleteGraph(m.g);
    TG_DeleteStatus(s);
#ifdef TGRAPH_DEVICE_REQUIRED
    GTEST_FAIL() << "no " << TGRAPH_DEVICE_NAME << " device (" << TGRAPH_DEVICE_REQUIRED
                 << "): " << log;
#else
    GTEST_SKIP() << "no " << TGRAPH_DEVICE_NAME << " device (the CPU half ran): " << log;
#endif
  }
  const Trained gpu = Train(m);
  ASSERT_EQ(gpu.losses.size(), static_cast<size_t>(kSteps));
  bool has_gpu = false;
  for (const std::string& d : gpu.devices) has_gpu = has_gpu || d == "/device:GPU:0";
  ASSERT_TRUE(has_gpu);

  for (int i = 0; i < kSteps; ++i) {
    EXPECT_NEAR(gpu.losses[static_cast<size_t>(i)], cpu.losses[static_cast<size_t>(i)],
                1e-4 * std::abs(cpu.losses[static_cast<size_t>(i)]) + 1e-5)
        << "step " << i;
  }
  EXPECT_LT(cpu.losses.back(), cpu.losses.front()) << "the model did not train";
  ASSERT_EQ(gpu.weights.size(), cpu.weights.size());
  for (size_t v = 0; v < cpu.weights.size(); ++v) {
    ASSERT_EQ(gpu.weights[v].dims, cpu.weights[v].dims) << "variable " << v;
    for (size_t i = 0; i < cpu.weights[v].values.size(); ++i) {
      const double a = cpu.weights[v].values[i], b = gpu.weights[v].values[i];
      EXPECT_NEAR(b, a, 1e-4 * std::abs(a) + 1e-5) << "variable " << v << " element " << i;
    }
  }

  // The training step: every op on the GPU but the feeds, which the session hands in on the
  // host (the placeholders have no GPU kernel and soft placement keeps them on the CPU);
  // copies only for the two feeds going in and the loss coming out.
  int copies = 0, ops = 0;
  for (const Step& step : gpu.step_stats) {
    if (step.op == "_Copy") {
      ++copies;
      continue;
    }
    if (step.op == "Placeholder") continue;
    ++ops;
    EXPECT_EQ(step.device, "/device:GPU:0") << step.name << " (" << step.op << ")\n"
                                            << StatsString(gpu.step_stats);
  }
  EXPECT_GT(ops, 20) << StatsString(gpu.step_stats);
  EXPECT_EQ(copies, 3) << StatsString(gpu.step_stats);
  TG_DeleteGraph(m.g);
  TG_DeleteStatus(s);
}

INSTANTIATE_TEST_SUITE_P(Optimizers, SwapTest,
                         ::testing::Values(TG_OPTIMIZER_GRADIENT_DESCENT, TG_OPTIMIZER_ADAM),
                         [](const ::testing::TestParamInfo<TG_OptimizerKind>& info) {
                           return std::string(info.param == TG_OPTIMIZER_ADAM ? "Adam"
                                                                              : "GradientDescent");
                         });

}  // namespace
