// The OpenCL plugin on a machine without a usable OpenCL platform (ctest runs this binary
// with OCL_ICD_VENDORS naming an empty directory, and again with TGRAPH_OPENCL_PLATFORM
// matching nothing): it loads, says "no device" in one log line, registers nothing (no
// device type, no kernels), and the process goes on; a graph asking for /device:GPU:0 gets a
// clear placement error, CPU work still runs.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "device_test_util.h"

namespace {

using devtest::Builder;

TEST(OpenClNoDevice, LoadsRegistersNoDeviceAndSaysSo) {
  TG_Status* s = TG_NewStatus();
  TG_LoadPlugin(TGRAPH_CPU_PLUGIN_PATH, s);
  ASSERT_EQ(TG_GetCode(s), TG_OK) << TG_Message(s);
  const TG_Plugin* plugin = nullptr;
  const std::string log =
      devtest::CapturingStderr([&] { plugin = TG_LoadPlugin(TGRAPH_DEVICE_PLUGIN_PATH, s); });
  ASSERT_EQ(TG_GetCode(s), TG_OK) << TG_Message(s);
  ASSERT_NE(plugin, nullptr);
  EXPECT_NE(log.find("opencl plugin: no device ("), std::string::npos) << log;
  EXPECT_EQ(TG_PluginNumKernels(plugin), 0);

  // No GPU among the session's devices; a GPU request fails placement, naming the op.
  Builder gpu(devtest::kGpu);
  TG_Output y = gpu.Op("Relu", {gpu.Feed({2}, {-1.0f, 1.0f})}, {}, "relu_on_gpu");
  TG_Session* session = TG_NewSession(gpu.graph(), nullptr, s);
  ASSERT_NE(session, nullptr) << TG_Message(s);
  for (int i = 0; i < TG_SessionNumDevices(session); ++i) {
    EXPECT_STREQ(TG_SessionDeviceType(session, i), "CPU") << TG_SessionDeviceName(session, i);
  }
  const devtest::RunResult r = gpu.RunIn(session, {y});
  EXPECT_EQ(r.code, TG_INVALID_ARGUMENT) << r.message;
  EXPECT_NE(r.message.find("relu_on_gpu"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("/device:GPU:0"), std::string::npos) << r.message;
  TG_DeleteSession(session, s);

  // The CPU goes on working.
  Builder cpu(devtest::kCpu);
  TG_Output z = cpu.Op("Relu", {cpu.Feed({2}, {-1.0f, 1.0f})});
  const devtest::RunResult ok = cpu.Run({z});
  ASSERT_EQ(ok.code, TG_OK) << ok.message;
  EXPECT_EQ(ok.values[0].values, (std::vector<double>{0.0, 1.0}));
  TG_DeleteStatus(s);
}

}  // namespace
