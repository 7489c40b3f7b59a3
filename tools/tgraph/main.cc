// `tgraph`: inspect plugins, ops and graph files, and run or benchmark graphs, through the
// public C API. Exit codes: 0 success, 1 failure (the reason on stderr), 2 usage error.
#include <iostream>
#include <string>
#include <vector>

#include "commands.h"
#include "tgraph/c_api.h"
#include "tool_common.h"

int main(int argc, char** argv) {
  using namespace tgraph::tool;
  CLI::App app("tgraph: inspect plugins, ops and graph files; run and benchmark graphs.", "tgraph");
  app.set_version_flag("--version", std::string("tgraph ") + TG_Version());
  app.require_subcommand(1);
  std::vector<Command> commands = {AddPluginsCommand(&app), AddOpsCommand(&app),
                                   AddInfoCommand(&app),    AddRunCommand(&app),
                                   AddDotCommand(&app),     AddBenchCommand(&app)};
  try {
    app.parse(argc, argv);
    for (const Command& command : commands) {
      if (command.app->parsed()) command.run();
    }
  } catch (const CLI::Error& e) {
    // --help and --version arrive here too, with exit code 0.
    return app.exit(e) == 0 ? 0 : kExitUsage;
  } catch (const ToolError& e) {
    std::cerr << "tgraph: " << e.what() << "\n";
    return kExitFailure;
  } catch (const std::exception& e) {
    std::cerr << "tgraph: internal error: " << e.what() << "\n";
    return kExitFailure;
  }
  return 0;
}
