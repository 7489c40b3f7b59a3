// Small file-system helpers the core's writers share: statuses from errno values, and
// writing a file atomically (what a reader sees is the old file or the whole new one).
#pragma once

#include <string>

#include "core/base/status.h"

namespace tgraph {

// "<what>: <strerror>" with TensorFlow's code for the error: NOT_FOUND (ENOENT),
// PERMISSION_DENIED (EACCES, EPERM), RESOURCE_EXHAUSTED (ENOSPC, EDQUOT), else UNKNOWN.
Status ErrnoStatus(int err, const std::string& what);

// Writes `bytes` to `path` through a new temporary file beside it, fsyncs it, renames it
// over `path` and fsyncs the directory. On failure `path` is as it was and the temporary
// file is gone. Errors name `path`.
Status WriteFileAtomically(const std::string& path, const std::string& bytes);

}  // namespace tgraph
