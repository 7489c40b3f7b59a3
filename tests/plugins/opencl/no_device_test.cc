// The OpenCL plugin on a machine without a usable OpenCL platform (ctest runs this binary
// with OCL_ICD_VENDORS naming an empty directory, and again with TGRAPH_OPENCL_PLATFORM
// matching nothing): it loads, says "no device" in one quiet log line (INFO, on the plugin's
// record for `tgraph plugins`, not printed on every run), registers nothing (no
// device type, no kernels), and the process goes on; a graph asking for /device:GPU:0 gets a
// clear placement error, CPU work still runs.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "device_test_util.h"

namespace {

TEST(OpenClNoDevice, LoadsRegistersNoDeviceAndSaysSo) {
  TG_Status* s = TG_NewStatus();
  TG_LoadPlugin(TGRAPH_CPU_PLUGIN_PATH, s);
  ASSERT_EQ(TG_GetCode(s), TG_OK) << TG_Message(s);
  const TG_Plugin* plugin = nullptr;
  const std::string log =
      devtest::CapturingStderr([&] { plugin = TG_LoadPlugin(TGRAPH_DEVICE_PLUGIN_PATH, s); });
  ASSERT_EQ(TG_GetCode(s), TG_OK) << TG_Message(s);
  ASSERT_NE(plugin, nullptr);
  devtest::ExpectQuietNoDeviceLine(plugin, log, "opencl");
  EXPECT_EQ(TG_PluginNumKernels(plugin), 0);

  TG_DeleteStatus(s);
  devtest::ExpectNoGpuAndCpuStillWorks();
}

}  // namespace
