#include "core/graph/device_spec.h"

#include <gtest/gtest.h>

namespace tgraph {
namespace {

std::string Canon(const std::string& s) {
  auto c = CanonicalDeviceString(s);
  EXPECT_TRUE(c.ok()) << s << ": " << c.status().ToString();
  return c.ok() ? c.value() : "";
}

TEST(DeviceSpecTest, CanonicalisesLegacyAndFullForms) {
  EXPECT_EQ(Canon("/cpu:0"), "/device:CPU:0");
  EXPECT_EQ(Canon("/gpu:1"), "/device:GPU:1");
  EXPECT_EQ(Canon("/GPU:0"), "/device:GPU:0");
  EXPECT_EQ(Canon("/device:gpu:2"), "/device:GPU:2");
  EXPECT_EQ(Canon("/device:GPU:*"), "/device:GPU:*");
  EXPECT_EQ(Canon("/job:worker/replica:0/task:1/device:GPU:3"),
            "/job:worker/replica:0/task:1/device:GPU:3");
  EXPECT_EQ(Canon("/job:ps"), "/job:ps");
  EXPECT_EQ(Canon(""), "");
  EXPECT_EQ(Canon("/device:TPU_SYSTEM:0"), "/device:TPU_SYSTEM:0");
}

TEST(DeviceSpecTest, RejectsMalformedStrings) {
  for (const char* bad : {"/gpu:x", "/device:GPU", "/replica:-1", "/foo:1", "/job:", "/device::0",
                          "/task:1x"}) {
    auto c = CanonicalDeviceString(bad);
    EXPECT_FALSE(c.ok()) << bad;
    EXPECT_EQ(c.status().code(), Code::kInvalidArgument) << bad;
    EXPECT_NE(c.status().message().find(bad), std::string::npos) << c.status().message();
  }
}

TEST(DeviceSpecTest, InnerFieldsWinInAMerge) {
  DeviceSpec outer = DeviceSpec::Parse("/job:worker/device:CPU:0").value();
  DeviceSpec inner = DeviceSpec::Parse("/device:GPU:1").value();
  EXPECT_EQ(outer.MergedWith(inner).ToString(), "/job:worker/device:GPU:1");
  EXPECT_EQ(inner.MergedWith(outer).ToString(), "/job:worker/device:CPU:0");
  DeviceSpec task = DeviceSpec::Parse("/task:2").value();
  EXPECT_EQ(outer.MergedWith(task).ToString(), "/job:worker/task:2/device:CPU:0");
}

}  // namespace
}  // namespace tgraph
