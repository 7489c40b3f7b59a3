// The outcome of an internal step of the tensor I/O: a TG_Code and a message that callers
// prefix with the file or literal involved before it reaches the user's TG_Status.
#ifndef TGRAPH_TOOLS_IO_IO_ERROR_H_
#define TGRAPH_TOOLS_IO_IO_ERROR_H_

#include <string>
#include <utility>

#include "tgraph/c_api.h"

namespace tgraph::tool {

struct IoError {
  TG_Code code = TG_OK;
  std::string message;

  bool ok() const { return code == TG_OK; }
};

inline IoError Ok() { return {}; }
inline IoError Fail(TG_Code code, std::string message) { return {code, std::move(message)}; }

// Reports `error` into `status` (which may be NULL) as "<context>: <message>".
inline void Report(const IoError& error, const std::string& context, TG_Status* status) {
  TG_SetStatus(status, error.code, (context + ": " + error.message).c_str());
}

}  // namespace tgraph::tool

#endif  // TGRAPH_TOOLS_IO_IO_ERROR_H_
