// The CUDA plugin's device type (tgraph::plugin::ChooseDeviceType): TGRAPH_CUDA_DEVICE_TYPE
// names it; without it the plugin takes "GPU" unless a backend loaded earlier has, and then
// registers as "CUDA_GPU". Each test runs in its own process (ctest filters): plugins stay
// loaded. Without a CUDA device the CUDA half of each test skips, saying why.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "device_test_util.h"

namespace {

using devtest::Builder;

// Loads `path`, failing the test on error; returns what it logged, printed or not.
std::string Load(const char* path) {
  TG_Status* s = TG_NewStatus();
  const std::string log = devtest::PluginLog(TG_LoadPlugin(path, s));
  EXPECT_EQ(TG_GetCode(s), TG_OK) << path << ": " << TG_Message(s);
  TG_DeleteStatus(s);
  return log;
}

// The type of the session device named `name`, or "" when there is none.
std::string DeviceTypeOf(const std::string& name) {
  TG_Graph* g = TG_NewGraph();
  TG_Status* s = TG_NewStatus();
  TG_Session* session = TG_NewSession(g, nullptr, s);
  std::string type;
  for (int i = 0; session != nullptr && i < TG_SessionNumDevices(session); ++i) {
    if (TG_SessionDeviceName(session, i) == name) type = TG_SessionDeviceType(session, i);
  }
  if (session != nullptr) TG_DeleteSession(session, s);
  TG_DeleteStatus(s);
  TG_DeleteGraph(g);
  return type;
}

// Relu and MatMul (cuBLAS) on `device`: they run there and give the CPU's answer.
void ExpectRunsOn(const std::string& device) {
  Builder b(device);
  TG_Output y = b.Op("Relu", {b.Feed({3}, {-1.0f, 0.5f, 2.0f})}, {}, "relu");
  TG_Output p = b.Op("MatMul", {b.Feed({1, 2}, {1.0f, 2.0f}), b.Feed({2, 1}, {3.0f, 4.0f})}, {},
                     "matmul");
  const devtest::RunResult r = b.Run({y, p});
  ASSERT_EQ(r.code, TG_OK) << r.message;
  EXPECT_EQ(r.DeviceOf("relu"), device) << r.StepsString();
  EXPECT_EQ(r.DeviceOf("matmul"), device) << r.StepsString();
  EXPECT_EQ(r.values[0].values, (std::vector<double>{0.0, 0.5, 2.0}));
  EXPECT_EQ(r.values[1].values, (std::vector<double>{11.0}));
}

TEST(CudaDeviceType, FromEnvironment) {
  const char* env = std::getenv("TGRAPH_CUDA_DEVICE_TYPE");
  ASSERT_NE(env, nullptr) << "run through ctest (ENVIRONMENT TGRAPH_CUDA_DEVICE_TYPE=CUDA_GPU)";
  ASSERT_STREQ(env, "CUDA_GPU");
  Load(TGRAPH_CPU_PLUGIN_PATH);
  const std::string log = Load(TGRAPH_DEVICE_PLUGIN_PATH);
  if (DeviceTypeOf("/device:CUDA_GPU:0").empty()) {
    GTEST_SKIP() << "no CUDA device: " << log;
  }
  EXPECT_EQ(DeviceTypeOf("/device:CUDA_GPU:0"), "CUDA_GPU");
  EXPECT_EQ(DeviceTypeOf("/device:GPU:0"), "");
  ExpectRunsOn("/device:CUDA_GPU:0");
}

#ifdef TGRAPH_OPENCL_PLUGIN_PATH
// OpenCL loaded first takes "GPU" (PoCL in CI); CUDA then registers as CUDA_GPU, and both
// work side by side. Without a CUDA device: the CUDA plugin's load leaves OpenCL's GPU as is.
// Without an OpenCL device the CUDA plugin takes "GPU" itself.
TEST(CudaDeviceType, AfterOpenClTookGpu) {
  Load(TGRAPH_CPU_PLUGIN_PATH);
  Load(TGRAPH_OPENCL_PLUGIN_PATH);
  const bool opencl_gpu = DeviceTypeOf("/device:GPU:0") == "GPU";
  const std::string log = Load(TGRAPH_DEVICE_PLUGIN_PATH);
  if (opencl_gpu) ExpectRunsOn("/device:GPU:0");  // still OpenCL's
  // Without an OpenCL device (no ICD, as on a CUDA-only machine) "GPU" was free for CUDA.
  const std::string cuda_device = opencl_gpu ? "/device:CUDA_GPU:0" : "/device:GPU:0";
  const std::string cuda_type = opencl_gpu ? "CUDA_GPU" : "GPU";
  if (DeviceTypeOf(cuda_device).empty()) {
    GTEST_SKIP() << "no CUDA device: " << log;
  }
  EXPECT_EQ(DeviceTypeOf(cuda_device), cuda_type);
  if (opencl_gpu) {
    EXPECT_EQ(DeviceTypeOf("/device:GPU:0"), "GPU");
  }
  ExpectRunsOn(cuda_device);
}
#endif

}  // namespace
