#include "npy_files.h"

#include <filesystem>
#include <iostream>
#include <system_error>

#include "tensor_io.h"
#include "tool_common.h"

namespace tgraph::tool {
namespace {

// DIR/<name>.npy, the name's '/' scopes becoming directories. Names that would leave DIR
// ("..", absolute) are refused.
std::filesystem::path NpyPath(const std::string& dir, const std::string& name) {
  const std::filesystem::path relative(name + ".npy");
  for (const auto& part : relative) {
    if (part == ".." || part == "." || relative.is_absolute()) {
      throw ToolError("tensor '" + name + "': its name is not usable as a file name");
    }
  }
  return std::filesystem::path(dir) / relative;
}

}  // namespace

void WriteNpyFile(const TG_Tensor* tensor, const std::string& dir, const std::string& name) {
  const std::filesystem::path path = NpyPath(dir, name);
  std::error_code error;
  std::filesystem::create_directories(path.parent_path(), error);
  if (error) throw ToolError(path.parent_path().string() + ": " + error.message());
  StatusPtr status = NewStatus();
  WriteNpy(path.string(), tensor, status.get());
  Check(status.get(), "tensor '" + name + "'");
  std::cout << "wrote " << path.string() << "\n";
}

}  // namespace tgraph::tool
