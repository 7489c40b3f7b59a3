// `tgraph bench GRAPH --feed ... --fetch ...`: per-run latency and throughput of a graph
// file, after warm-up runs (the first runs plan the graph and create the devices' state).
#include <iostream>
#include <memory>
#include <vector>

#include "commands.h"
#include "graph_run.h"
#include "timing.h"
#include "tool_common.h"

namespace tgraph::tool {
namespace {

struct BenchOptions {
  RunSpec spec;
  int warmup = 10;
  int runs = 100;
};

void RunBench(const BenchOptions& options) {
  GraphRun run(options.spec);
  for (int i = 0; i < options.warmup; ++i) run.Step(nullptr, nullptr);
  std::vector<double> durations_ns;
  durations_ns.reserve(static_cast<size_t>(options.runs));
  for (int i = 0; i < options.runs; ++i) {
    durations_ns.push_back(WallTimeNs([&] { run.Step(nullptr, nullptr); }));
  }
  TimingStats stats = ComputeTimingStats(durations_ns);
  std::cout << options.spec.graph_file << ": " << stats.runs << " runs after " << options.warmup
            << " warm-up runs\n"
            << "  latency per run: median " << FormatDuration(stats.median_ns) << ", p90 "
            << FormatDuration(stats.p90_ns) << ", min " << FormatDuration(stats.min_ns) << ", mean "
            << FormatDuration(stats.mean_ns) << ", max " << FormatDuration(stats.max_ns) << "\n"
            << "  throughput: " << static_cast<double>(stats.runs) / (stats.total_ns / 1e9)
            << " runs/s\n";
}

}  // namespace

Command AddBenchCommand(CLI::App* app) {
  auto options = std::make_shared<BenchOptions>();
  CLI::App* command = app->add_subcommand(
      "bench",
      "Measure a graph file's per-run latency (median, p90) and throughput (runs/s) for the "
      "given feeds and fetches, after warm-up runs.");
  AddRunSpecOptions(command, &options->spec);
  command->add_option("--warmup", options->warmup, "Runs before measuring")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber)
      ->type_name("N");
  command->add_option("--runs", options->runs, "Measured runs")
      ->capture_default_str()
      ->check(CLI::PositiveNumber)
      ->type_name("N");
  return {command, [options] { RunBench(*options); }};
}

}  // namespace tgraph::tool
