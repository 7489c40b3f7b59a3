// The CUDA plugin on a machine without a usable GPU (ctest runs this binary with
// CUDA_VISIBLE_DEVICES=-1, which hides every GPU, so it checks the same path on a machine
// that has one; on a machine without a driver the runtime fails the same way): it loads,
// says "no device" and why — quietly, at INFO level, kept on the plugin's record for
// `tgraph plugins` instead of a warning on every run —, registers nothing (no device type, no
// kernel), and the process goes on; a graph asking for /device:GPU:0 gets a clear placement
// error, CPU work still runs.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "device_test_util.h"

namespace {

TEST(CudaNoDevice, LoadsRegistersNothingAndSaysSo) {
  TG_Status* s = TG_NewStatus();
  TG_LoadPlugin(TGRAPH_CPU_PLUGIN_PATH, s);
  ASSERT_EQ(TG_GetCode(s), TG_OK) << TG_Message(s);
  const TG_Plugin* plugin = nullptr;
  const std::string log =
      devtest::CapturingStderr([&] { plugin = TG_LoadPlugin(TGRAPH_DEVICE_PLUGIN_PATH, s); });
  ASSERT_EQ(TG_GetCode(s), TG_OK) << TG_Message(s);
  ASSERT_NE(plugin, nullptr);
  devtest::ExpectQuietNoDeviceLine(plugin, log, "cuda");
  EXPECT_EQ(TG_PluginNumKernels(plugin), 0);

  TG_DeleteStatus(s);
  devtest::ExpectNoGpuAndCpuStillWorks();
}

}  // namespace
