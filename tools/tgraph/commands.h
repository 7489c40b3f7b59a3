// The subcommands of `tgraph`. Each Add*Command registers its options on a new subcommand
// of `app` and returns what runs it once the command line has been parsed.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

namespace tgraph::tool {

struct Command {
  CLI::App* app = nullptr;
  // Throws ToolError on failure (exit 1) or CLI::Error for a usage error found late (exit 2).
  std::function<void()> run;
};

Command AddPluginsCommand(CLI::App* app);
Command AddOpsCommand(CLI::App* app);
Command AddInfoCommand(CLI::App* app);
Command AddRunCommand(CLI::App* app);
Command AddDotCommand(CLI::App* app);
Command AddBenchCommand(CLI::App* app);

}  // namespace tgraph::tool
