// Which registered kernels the conformance suite ran. Every harness records the kernel it
// created; kernel_coverage_test.cc checks, in a full run of the suite, that every kernel the
// CPU plugin registered was run at least once. In device comparison mode
// (device_conformance.h) a second record, Device(), holds the device kernels whose results
// were compared with the CPU's, and how many runs were compared;
// device_conformance_test.cc checks those the same way.
#pragma once

#include <mutex>
#include <set>

#include "core/plugin/registry.h"

namespace tgraph::testing {

class KernelCoverage {
 public:
  static KernelCoverage& Get() {
    static KernelCoverage* const coverage = new KernelCoverage();  // outlives every test
    return *coverage;
  }
  static KernelCoverage& Device() {
    static KernelCoverage* const coverage = new KernelCoverage();
    return *coverage;
  }
  void Record(const KernelRegistration& kernel) {
    std::lock_guard<std::mutex> lock(mu_);
    ran_.insert(&kernel);
    ++runs_;
  }
  // Records made (one per node run compared, for Device()).
  long runs() const {
    std::lock_guard<std::mutex> lock(mu_);
    return runs_;
  }
  bool Ran(const KernelRegistration* kernel) const {
    std::lock_guard<std::mutex> lock(mu_);
    return ran_.count(kernel) != 0;
  }

 private:
  mutable std::mutex mu_;
  std::set<const KernelRegistration*> ran_;
  long runs_ = 0;
};

}  // namespace tgraph::testing
