// The CUDA plugin on a machine without a usable GPU (ctest runs this binary with
// CUDA_VISIBLE_DEVICES=-1, which hides every GPU, so it checks the same path on a machine
// that has one; on a machine without a driver the runtime fails the same way): it loads,
// says "no device" and why, registers nothing (no device type, no kernel), and the process
// goes on; a graph asking for /device:GPU:0 gets a clear placement error, CPU work still runs.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "device_test_util.h"

namespace {

using devtest::Builder;

TEST(CudaNoDevice, LoadsRegistersNothingAndSaysSo) {
  TG_Status* s = TG_NewStatus();
  TG_LoadPlugin(TGRAPH_CPU_PLUGIN_PATH, s);
  ASSERT_EQ(TG_GetCode(s), TG_OK) << TG_Message(s);
  const TG_Plugin* plugin = nullptr;
  const std::string log =
      devtest::CapturingStderr([&] { plugin = TG_LoadPlugin(TGRAPH_DEVICE_PLUGIN_PATH, s); });
  ASSERT_EQ(TG_GetCode(s), TG_OK) << TG_Message(s);
  ASSERT_NE(plugin, nullptr);
  // One line, with the runtime's reason in parentheses.
  EXPECT_NE(log.find("cuda plugin: no device ("), std::string::npos) << log;
  EXPECT_EQ(log.find('\n'), log.size() - 1) << log;
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
  EXPECT_NE(r.message.find("GPU"), std::string::npos) << r.message;
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
