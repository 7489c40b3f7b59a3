// With TGRAPH_CHECK_KERNEL_COVERAGE set (the cpu.kernel_coverage ctest entry runs the whole
// suite in one process that way), the suite fails unless every kernel the CPU plugin
// registered ran in some conformance test: a kernel added without tests is caught here.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "core/ops/op_registry.h"
#include "kernel_coverage.h"
#include "kernel_test_util.h"

namespace tgraph::testing {
namespace {

// VariableV2's CPU kernel only tells placement that variables may live on the CPU: the
// executor binds the session's variable slot to its output and never calls it.
bool Exempt(const KernelRegistration& k) { return k.op_type == "VariableV2"; }

class CoverageCheck : public ::testing::Environment {
 public:
  void TearDown() override {
    if (std::getenv("TGRAPH_CHECK_KERNEL_COVERAGE") == nullptr) return;
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

}  // namespace
}  // namespace tgraph::testing
