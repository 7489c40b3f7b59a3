// unique_ptr owners for the C handles the tensor I/O holds (files, tensors, statuses), so
// every early error return releases them.
#ifndef TGRAPH_TOOLS_IO_OWNED_HANDLES_H_
#define TGRAPH_TOOLS_IO_OWNED_HANDLES_H_

#include <cstdio>
#include <memory>
#include <string>

#include "io_error.h"
#include "tgraph/c_api.h"

namespace tgraph::tool {

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};
using FilePtr = std::unique_ptr<std::FILE, FileCloser>;

struct TensorDeleter {
  void operator()(TG_Tensor* t) const { TG_DeleteTensor(t); }
};
using TensorPtr = std::unique_ptr<TG_Tensor, TensorDeleter>;

struct StatusDeleter {
  void operator()(TG_Status* s) const { TG_DeleteStatus(s); }
};
using StatusPtr = std::unique_ptr<TG_Status, StatusDeleter>;

// fopen with the failure's errno turned into a code (TG_NOT_FOUND, TG_PERMISSION_DENIED, ...).
IoError OpenFile(const std::string& path, const char* mode, FilePtr* file);

// A tensor made by a C API call that reports into a status: the status as an IoError.
IoError ErrorOf(const TG_Status* status);

}  // namespace tgraph::tool

#endif  // TGRAPH_TOOLS_IO_OWNED_HANDLES_H_
