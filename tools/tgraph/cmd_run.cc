// `tgraph run GRAPH --feed ... --fetch ...`: one run (or --repeat N, with timing statistics)
// of a graph file, printing the fetched tensors numpy-style and, with --trace, what each node
// did.
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "commands.h"
#include "graph_run.h"
#include "npy_files.h"
#include "tensor_io.h"
#include "timing.h"
#include "tool_common.h"

namespace tgraph::tool {
namespace {

struct RunOptions {
  RunSpec spec;
  int repeat = 1;
  bool trace = false;
  std::string npy_out;  // a directory for the fetched tensors as .npy files
};

// Each fetch to DIR as a .npy file named after it: "dense/kernel:0" -> DIR/dense/kernel_0.npy.
void WriteFetches(const std::string& dir, const std::vector<std::string>& names,
                  const std::vector<TensorPtr>& tensors) {
  for (size_t i = 0; i < tensors.size(); ++i) {
    std::string name = names[i];
    std::replace(name.begin(), name.end(), ':', '_');
    WriteNpyFile(tensors[i].get(), dir, name);
  }
}

// The step stats of the last run, in start order: node, op, device, start, duration, bytes.
void PrintTrace(const TG_RunMetadata* metadata) {
  int n = TG_RunMetadataNumNodes(metadata);
  std::vector<int> order(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) order[static_cast<size_t>(i)] = i;
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return TG_RunMetadataNodeStartNs(metadata, a) < TG_RunMetadataNodeStartNs(metadata, b);
  });
  std::printf("%-32s %-16s %-22s %12s %12s %12s\n", "node", "op", "device", "start", "duration",
              "bytes");
  for (int i : order) {
    std::printf(
        "%-32s %-16s %-22s %12s %12s %12lld\n", TG_RunMetadataNodeName(metadata, i),
        TG_RunMetadataNodeOpType(metadata, i), TG_RunMetadataNodeDevice(metadata, i),
        FormatDuration(static_cast<double>(TG_RunMetadataNodeStartNs(metadata, i))).c_str(),
        FormatDuration(static_cast<double>(TG_RunMetadataNodeDurationNs(metadata, i))).c_str(),
        static_cast<long long>(TG_RunMetadataNodeOutputBytes(metadata, i)));
  }
}

void PrintTimings(const TimingStats& stats) {
  std::cout << "runs: " << stats.runs << "; per run: min " << FormatDuration(stats.min_ns)
            << ", median " << FormatDuration(stats.median_ns) << ", mean "
            << FormatDuration(stats.mean_ns) << ", max " << FormatDuration(stats.max_ns) << "\n";
}

void RunRun(const RunOptions& options) {
  GraphRun run(options.spec);
  RunOptionsPtr run_options(TG_NewRunOptions());
  RunMetadataPtr metadata(TG_NewRunMetadata());
  if (options.trace) TG_SetRunOptionsTraceLevel(run_options.get(), 1);
  std::vector<TensorPtr> fetched;
  std::vector<double> durations_ns;
  for (int i = 0; i < options.repeat; ++i) {
    durations_ns.push_back(
        WallTimeNs([&] { fetched = run.Step(run_options.get(), metadata.get()); }));
  }
  for (size_t i = 0; i < fetched.size(); ++i) {
    std::cout << run.fetch_names()[i] << " = " << FormatTensor(fetched[i].get()) << "\n";
  }
  if (!options.npy_out.empty()) WriteFetches(options.npy_out, run.fetch_names(), fetched);
  if (options.trace) PrintTrace(metadata.get());
  if (options.repeat > 1) PrintTimings(ComputeTimingStats(durations_ns));
}

}  // namespace

Command AddRunCommand(CLI::App* app) {
  auto options = std::make_shared<RunOptions>();
  CLI::App* command = app->add_subcommand(
      "run",
      "Import a graph file (GraphDef or MetaGraphDef, binary or text; names kept as in the "
      "file), load the plugins of the search path, run it with the given feeds and print the "
      "fetched tensors numpy-style.");
  AddRunSpecOptions(command, &options->spec);
  command->add_option("--repeat", options->repeat, "Run N times and print timing statistics")
      ->check(CLI::PositiveNumber)
      ->type_name("N");
  command->add_flag("--trace", options->trace,
                    "Print the step stats of the (last) run: node, op, device, start, duration, "
                    "output bytes");
  command
      ->add_option("--npy-out", options->npy_out,
                   "Also write each fetched tensor to DIR as a .npy file named after it "
                   "(dense/kernel:0 -> DIR/dense/kernel_0.npy)")
      ->type_name("DIR");
  return {command, [options] { RunRun(*options); }};
}

}  // namespace tgraph::tool
