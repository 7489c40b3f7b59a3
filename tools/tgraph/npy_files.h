// Tensors written as .npy files named after them, shared by `tgraph info PREFIX --npy` and
// `tgraph run --npy-out`.
#pragma once

#include <string>

#include "tgraph/c_api.h"

namespace tgraph::tool {

// Writes `tensor` to DIR/<name>.npy, the name's '/' scopes becoming directories, and says so
// on standard output. A name that would leave DIR ("..", absolute) is a ToolError.
void WriteNpyFile(const TG_Tensor* tensor, const std::string& dir, const std::string& name);

}  // namespace tgraph::tool
