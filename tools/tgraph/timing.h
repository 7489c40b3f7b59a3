// Statistics over per-run wall times, for `tgraph run --repeat` and `tgraph bench`.
#pragma once

#include <chrono>
#include <string>
#include <vector>

namespace tgraph::tool {

struct TimingStats {
  double min_ns = 0, median_ns = 0, mean_ns = 0, p90_ns = 0, max_ns = 0, total_ns = 0;
  size_t runs = 0;
};

// The wall time `fn()` takes, in nanoseconds.
template <typename Fn>
double WallTimeNs(Fn&& fn) {
  auto start = std::chrono::steady_clock::now();
  fn();
  return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count();
}

// Of `durations_ns` (at least one).
TimingStats ComputeTimingStats(std::vector<double> durations_ns);

// "12.3 us", "4.56 ms", "1.20 s": three significant digits in a readable unit.
std::string FormatDuration(double ns);

}  // namespace tgraph::tool
