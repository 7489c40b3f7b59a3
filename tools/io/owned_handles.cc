#include "owned_handles.h"

#include <cerrno>
#include <cstring>

namespace tgraph::tool {

IoError OpenFile(const std::string& path, const char* mode, FilePtr* file) {
  file->reset(std::fopen(path.c_str(), mode));
  if (*file != nullptr) return Ok();
  const int err = errno;
  const TG_Code code = err == ENOENT                   ? TG_NOT_FOUND
                       : err == EACCES || err == EROFS ? TG_PERMISSION_DENIED
                                                       : TG_UNKNOWN;
  return Fail(code, std::string("cannot open: ") + std::strerror(err));
}

IoError ErrorOf(const TG_Status* status) {
  if (TG_GetCode(status) == TG_OK) return Ok();
  return Fail(TG_GetCode(status), TG_Message(status));
}

}  // namespace tgraph::tool
