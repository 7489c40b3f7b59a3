// The OpenCL plugin builds its programs once per device per process, not per session or run:
// once a graph has run, new graphs and sessions using the same kernels log no "built program"
// line. (Part of opencl_tests, with the shared device tests of tests/plugins/device.)
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "device_test_util.h"

namespace {

using devtest::Builder;
using devtest::Random;
using devtest::RunResult;

// Info logs (program builds) go to stderr only when asked for; set before any plugin loads
// (static initialization, before main).
const bool kVerbose = [] { return setenv("TGRAPH_LOG_PLUGIN_INFO", "1", 1) == 0; }();

// x -> MatMul w -> BiasAdd b -> Relu -> Softmax on the device: kernels from several programs.
std::vector<TG_Output> BuildGraph(Builder& b) {
  TG_Output x = b.Feed({4, 8}, Random(32, -1, 1, 41));
  TG_Output w = b.DeviceConst({8, 6}, Random(48, -0.5f, 0.5f, 42));
  TG_Output bias = b.DeviceConst({6}, Random(6, -0.1f, 0.1f, 43));
  TG_Output h = b.Op("MatMul", {x, w}, {}, "matmul");
  h = b.Op("BiasAdd", {h, bias}, {}, "bias_add");
  h = b.Op("Relu", {h}, {}, "relu");
  return {b.Op("Softmax", {h}, {}, "probs")};
}

class ProgramCacheTest : public devtest::DeviceTest {};

TEST_F(ProgramCacheTest, ProgramsAreBuiltOncePerDevicePerProcess) {
  ASSERT_TRUE(kVerbose);
  {  // Whatever this process has not built yet gets built here.
    Builder gpu(devtest::kGpu);
    const RunResult r = gpu.Run(BuildGraph(gpu));
    ASSERT_EQ(r.code, TG_OK) << r.message;
  }
  const std::string log = devtest::CapturingStderr([] {
    for (int i = 0; i < 2; ++i) {  // new graphs, new sessions, same programs
      Builder gpu(devtest::kGpu);
      const RunResult r = gpu.Run(BuildGraph(gpu), 2);
      EXPECT_EQ(r.code, TG_OK) << r.message;
    }
  });
  EXPECT_EQ(log.find("built program"), std::string::npos) << log;
}

}  // namespace
