// Device comparison mode (device_conformance.h): a test that says whether the mode is on and
// which device it compares on (skipped, with the reason, when there is none), and at exit
// the device kernels no run compared. Under TGRAPH_CHECK_KERNEL_COVERAGE that list must be
// empty, as for the CPU kernels (kernel_coverage_test.cc).
#include <gtest/gtest.h>

#include <cstdlib>
#include <iostream>
#include <string>

#include "core/ops/op_registry.h"
#include "kernel_coverage.h"
#include "kernel_test_util.h"

namespace tgraph::testing {
namespace {

// A VariableV2 kernel only tells placement that variables may live on the device: the
// executor binds the session's slot to its output and never calls it.
bool Exempt(const KernelRegistration& k) { return k.op_type == "VariableV2"; }

class DeviceCoverageCheck : public ::testing::Environment {
 public:
  void TearDown() override {
    const ConformanceDevice& d = GetConformanceDevice(TGRAPH_CPU_PLUGIN_PATH);
    if (!d.active()) return;
    std::string missing;
    int total = 0, compared = 0;
    for (const std::string& op : OpRegistry::Global()->ListOps()) {
      for (const KernelRegistration* k : KernelRegistry::Global()->KernelsFor(op)) {
        if (k->device_type != d.type || k->plugin != d.plugin || Exempt(*k)) continue;
        ++total;
        if (KernelCoverage::Device().Ran(k)) {
          ++compared;
        } else {
          missing += "\n  " + k->DebugString();
        }
      }
    }
    std::cerr << "device conformance: " << KernelCoverage::Device().runs()
              << " node runs in " << ComparedTests::Get().size()
              << " tests compared on /device:" << d.type << ":0; " << compared << " of " << total
              << " " << d.type << " kernels of " << d.plugin->name << " compared\n";
    const auto unsupported = UnsupportedCases::Get().counts();
    if (!unsupported.empty()) {
      std::cerr << "device conformance: cases the " << d.type
                << " kernels refused as UNIMPLEMENTED, or ran where the CPU's refused (\"device"
                   " only\"; not compared; runs):\n";
      for (const auto& [what, n] : unsupported) std::cerr << "  " << n << " x " << what << "\n";
    }
    if (std::getenv("TGRAPH_CHECK_KERNEL_COVERAGE") != nullptr) {
      EXPECT_TRUE(missing.empty()) << d.type << " kernels no conformance run compared:" << missing;
    } else if (!missing.empty()) {
      std::cerr << "device conformance: " << d.type << " kernels never compared:" << missing
                << "\n";
    }
  }
};

const auto* const kCheck = ::testing::AddGlobalTestEnvironment(new DeviceCoverageCheck);

// Skipping in a global set-up skips every test of the run, with the reason printed once.
class SkipWithoutDevice : public ::testing::Environment {
 public:
  void SetUp() override {
    const ConformanceDevice& d = GetConformanceDevice(TGRAPH_CPU_PLUGIN_PATH);
    if (d.skips_suite()) {
      GTEST_SKIP() << "device conformance: " << d.no_device
                   << "; the CPU suite alone runs as cpu.kernel_coverage";
    }
  }
};

const auto* const kSkip = ::testing::AddGlobalTestEnvironment(new SkipWithoutDevice);

TEST(DeviceConformance, DeviceIsCompared) {
  LoadCpuPlugin();
  const ConformanceDevice& d = GetConformanceDevice(TGRAPH_CPU_PLUGIN_PATH);
  if (d.plugin_path.empty()) {
    GTEST_SKIP() << "TGRAPH_CONFORMANCE_PLUGIN is not set: the suite checks the CPU plugin only";
  }
  ASSERT_TRUE(d.load_status.ok()) << d.plugin_path << ": " << d.load_status.ToString();
  if (!d.no_device.empty()) GTEST_SKIP() << d.no_device;
  EXPECT_TRUE(d.active());
  EXPECT_FALSE(KernelRegistry::Global()->KernelsFor("MatMul").empty());
  std::cout << "comparing with /device:" << d.type << ":0 (" << d.description << ") of "
            << d.plugin->name << "\n";
}

// Const for the dtypes device plugins give kernels (float in device memory, int32 in host
// memory on the GPU plugins); the rest of the suite runs Const for other dtypes only.
TEST(DeviceConformance, ConstFloatAndInt32) {
  const Tensor f = MakeTensor<float>(DT_FLOAT, {2, 3}, {1.5f, -2, 0, 3.25f, 1e-3f, -7});
  OpRun r = RunOp("Const", {}, {{"dtype", AttrOfType(DT_FLOAT)}, {"value", AttrOfTensor(f)}});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.outputs[0].dims(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(Values<float>(r.outputs[0]), Values<float>(f));

  const Tensor i = MakeTensor<int32_t>(DT_INT32, {4}, {7, -1, 0, 2147483647});
  r = RunOp("Const", {}, {{"dtype", AttrOfType(DT_INT32)}, {"value", AttrOfTensor(i)}});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<int32_t>(r.outputs[0]), Values<int32_t>(i));

  const Tensor empty = MakeTensor<float>(DT_FLOAT, {0, 2}, {});
  r = RunOp("Const", {}, {{"dtype", AttrOfType(DT_FLOAT)}, {"value", AttrOfTensor(empty)}});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.outputs[0].dims(), (std::vector<int64_t>{0, 2}));
}

// Shape of integer tensors and StridedSlice of int32: the shape arithmetic of a sparse
// optimizer step, which the GPU plugins run on the host over host-memory arguments
// (plugins/device_common/host_kernels.h); the rest of the suite slices and measures floats.
TEST(DeviceConformance, ShapeOfIntegersAndStridedSliceOfInt32) {
  const Tensor i = MakeTensor<int32_t>(DT_INT32, {2, 3}, {1, 2, 3, 4, 5, 6});
  const Tensor l = MakeTensor<int64_t>(DT_INT64, {4}, {-1, 2, -3, 4});
  for (const DataType out : {DT_INT32, DT_INT64}) {
    OpRun r = RunOp("Shape", {i}, {{"out_type", AttrOfType(out)}});
    ASSERT_TRUE(r.status.ok()) << r.status.ToString();
    EXPECT_EQ(r.outputs[0].dims(), (std::vector<int64_t>{2}));
    r = RunOp("Shape", {l}, {{"out_type", AttrOfType(out)}});
    ASSERT_TRUE(r.status.ok()) << r.status.ToString();
    EXPECT_EQ(r.outputs[0].dims(), (std::vector<int64_t>{1}));
  }
  auto vec = [](std::vector<int32_t> v) {
    const int64_t n = static_cast<int64_t>(v.size());
    return MakeTensor<int32_t>(DT_INT32, {n}, v);
  };
  // x[1]: a row, shrunk.
  OpRun r = RunOp("StridedSlice", {i, vec({1}), vec({2}), vec({1})},
                  {{"shrink_axis_mask", AttrOfInt(1)}});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<int32_t>(r.outputs[0]), (std::vector<int32_t>{4, 5, 6}));
  // x[:, ::-2]
  r = RunOp("StridedSlice", {i, vec({0, 0}), vec({0, 0}), vec({1, -2})},
            {{"begin_mask", AttrOfInt(3)}, {"end_mask", AttrOfInt(3)}});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<int32_t>(r.outputs[0]), (std::vector<int32_t>{3, 1, 6, 4}));
}

}  // namespace
}  // namespace tgraph::testing
