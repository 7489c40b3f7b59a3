// TGRAPH_OPENCL_DEVICE_TYPE renames the OpenCL plugin's device type (ctest runs this binary
// with it set to OPENCL_GPU): the devices are /device:OPENCL_GPU:N, there is no
// /device:GPU:0, and ops placed on /device:OPENCL_GPU:0 run there through the same kernels.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "device_test_util.h"

namespace {

using devtest::Builder;

TEST(OpenClDeviceType, EnvironmentVariableNamesTheDeviceType) {
  const char* env = std::getenv("TGRAPH_OPENCL_DEVICE_TYPE");
  ASSERT_NE(env, nullptr) << "run through ctest (ENVIRONMENT TGRAPH_OPENCL_DEVICE_TYPE=OPENCL_GPU)";
  ASSERT_STREQ(env, "OPENCL_GPU");
  ASSERT_EQ(devtest::LoadPlugins().error, "");

  Builder b("/device:OPENCL_GPU:0");
  TG_Output y = b.Op("Relu", {b.Feed({3}, {-1.0f, 0.5f, 2.0f})}, {}, "relu");
  TG_Status* s = TG_NewStatus();
  TG_Session* session = TG_NewSession(b.graph(), nullptr, s);
  ASSERT_NE(session, nullptr) << TG_Message(s);
  bool found = false;
  for (int i = 0; i < TG_SessionNumDevices(session); ++i) {
    const std::string name = TG_SessionDeviceName(session, i);
    EXPECT_NE(name, "/device:GPU:0");
    if (name == "/device:OPENCL_GPU:0") {
      found = true;
      EXPECT_STREQ(TG_SessionDeviceType(session, i), "OPENCL_GPU");
    }
  }
  EXPECT_TRUE(found) << "no /device:OPENCL_GPU:0 (is PoCL installed?)";
  const devtest::RunResult r = b.RunIn(session, {y});
  ASSERT_EQ(r.code, TG_OK) << r.message;
  EXPECT_EQ(r.DeviceOf("relu"), "/device:OPENCL_GPU:0") << r.StepsString();
  EXPECT_EQ(r.values[0].values, (std::vector<double>{0.0, 0.5, 2.0}));
  TG_DeleteSession(session, s);
  TG_DeleteStatus(s);
}

}  // namespace
