// With TGRAPH_CHECK_KERNEL_COVERAGE set (the cpu.kernel_coverage ctest entry runs the whole
// suite in one process that way), the suite fails unless every kernel the CPU plugin
// registered ran in some conformance test: a kernel added without tests is caught here.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>

#include "core/ops/op_registry.h"
#include "core/plugin/cpu_variant.h"
#include "core/plugin/plugin_loader.h"
#include "core/plugin/registry.h"
#include "kernel_coverage.h"
#include "kernel_test_util.h"

namespace tgraph::testing {
namespace {

// VariableV2's CPU kernel only tells placement that variables may live on the CPU: the
// executor binds the session's variable slot to its output and never calls it.
bool Exempt(const KernelRegistration& k) {
  return k.op_type == "VariableV2" || k.plugin == nullptr;  // the core's own are tested elsewhere
}

class CoverageCheck : public ::testing::Environment {
 public:
  void TearDown() override {
    if (std::getenv("TGRAPH_CHECK_KERNEL_COVERAGE") == nullptr) return;
    if (GetConformanceDevice(TGRAPH_CPU_PLUGIN_PATH).skips_suite()) return;  // nothing ran
    std::string missing;
    int total = 0;
    for (const std::string& op : OpRegistry::Global()->ListOps()) {
      for (const KernelRegistration* k : KernelRegistry::Global()->KernelsFor(op)) {
        if (k->device_type != "CPU" || Exempt(*k)) continue;
        ++total;
        if (!KernelCoverage::Get().Ran(k)) missing += "\n  " + k->DebugString();
      }
    }
    EXPECT_GT(total, 100);
    EXPECT_TRUE(missing.empty()) << "CPU kernels no conformance test ran:" << missing;
  }
};

const auto* const kCheck = ::testing::AddGlobalTestEnvironment(new CoverageCheck);

TEST(KernelCoverage, PluginIsLoaded) {
  LoadCpuPlugin();
  EXPECT_FALSE(KernelRegistry::Global()->KernelsFor("MatMul").empty());
}

// The suite ran the CPU variant it was meant to: the best one built that this CPU runs, or
// the one TGRAPH_EXPECT_CPU_VARIANT names (the baseline run of cpu.kernel_coverage.x86-64).
TEST(KernelCoverage, RunsTheExpectedCpuVariant) {
  LoadCpuPlugin();
  const KernelRegistration* matmul = KernelRegistry::Global()->KernelsFor("MatMul").front();
  ASSERT_NE(matmul->plugin, nullptr);
  const std::string variant = matmul->plugin->cpu_variant;
  if (variant.empty()) {
    GTEST_SKIP() << "the CPU plugin was built without variants (TGRAPH_CPU_ARCH)";
  }
  const std::optional<CpuLevel> level = ParseCpuLevel(variant);
  ASSERT_TRUE(level) << variant;
  EXPECT_TRUE(MissingFeatures(CurrentCpuFeatures(), *level).empty()) << variant;
  if (const char* expected = std::getenv("TGRAPH_EXPECT_CPU_VARIANT")) {
    EXPECT_EQ(variant, expected);
    return;
  }
  const CpuLevel allowed = AllowedCpuLevel();
  const std::filesystem::path best =
      std::filesystem::path(matmul->plugin->file).parent_path() /
      (std::string("libtgraph_cpu.") + CpuLevelName(allowed) + ".so");
  if (std::filesystem::exists(best)) {
    EXPECT_EQ(variant, CpuLevelName(allowed));
  } else {
    EXPECT_LT(*level, allowed) << "the level this CPU allows was not built, a lower one must run";
  }
}

}  // namespace
}  // namespace tgraph::testing
