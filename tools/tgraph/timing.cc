// Statistics over per-run wall times (see timing.h).
#include "timing.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

namespace tgraph::tool {
namespace {

// The value below which `fraction` of the sorted values lie (nearest rank).
double Percentile(const std::vector<double>& sorted, double fraction) {
  size_t rank = static_cast<size_t>(std::ceil(fraction * static_cast<double>(sorted.size())));
  return sorted[std::clamp<size_t>(rank, 1, sorted.size()) - 1];
}

}  // namespace

TimingStats ComputeTimingStats(std::vector<double> durations_ns) {
  TimingStats stats;
  if (durations_ns.empty()) return stats;
  std::sort(durations_ns.begin(), durations_ns.end());
  size_t n = durations_ns.size();
  stats.runs = n;
  stats.min_ns = durations_ns.front();
  stats.max_ns = durations_ns.back();
  stats.median_ns =
      n % 2 ? durations_ns[n / 2] : (durations_ns[n / 2 - 1] + durations_ns[n / 2]) / 2;
  stats.p90_ns = Percentile(durations_ns, 0.9);
  stats.total_ns = std::accumulate(durations_ns.begin(), durations_ns.end(), 0.0);
  stats.mean_ns = stats.total_ns / static_cast<double>(n);
  return stats;
}

std::string FormatDuration(double ns) {
  const char* unit = "ns";
  double value = ns;
  if (ns >= 1e9) {
    value = ns / 1e9, unit = "s";
  } else if (ns >= 1e6) {
    value = ns / 1e6, unit = "ms";
  } else if (ns >= 1e3) {
    value = ns / 1e3, unit = "us";
  }
  char text[32];
  std::snprintf(text, sizeof text, "%.3g %s", value, unit);
  return text;
}

}  // namespace tgraph::tool
