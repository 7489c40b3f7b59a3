// The plugin's own error type: a TensorFlow code and a message, turned into the core's
// TG_Status only at the ABI boundary (saver.cc). The format code below stays free of the
// core's table, so every check reads as plain C++.
#pragma once

#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "tgraph/types.h"

namespace tgraph_safetensors {

class Status {
 public:
  Status() = default;  // OK
  Status(TG_Code code, std::string message) : code_(code), message_(std::move(message)) {}

  bool ok() const { return code_ == TG_OK; }
  TG_Code code() const { return code_; }
  const std::string& message() const { return message_; }

 private:
  TG_Code code_ = TG_OK;
  std::string message_;
};

inline Status DataLoss(std::string message) { return Status(TG_DATA_LOSS, std::move(message)); }
inline Status NotFound(std::string message) { return Status(TG_NOT_FOUND, std::move(message)); }
inline Status InvalidArgument(std::string message) {
  return Status(TG_INVALID_ARGUMENT, std::move(message));
}

namespace internal {
inline void Append(std::string* out, std::string_view piece) { out->append(piece); }
template <typename T>
  requires std::is_integral_v<T>
void Append(std::string* out, T number) {
  out->append(std::to_string(number));
}
}  // namespace internal

// Concatenates strings and integers into one message.
template <typename... Pieces>
std::string StrCat(const Pieces&... pieces) {
  std::string out;
  (internal::Append(&out, pieces), ...);
  return out;
}

#define TGRAPH_SAFETENSORS_RETURN_IF_ERROR(expr)         \
  do {                                                   \
    ::tgraph_safetensors::Status _status = (expr);       \
    if (!_status.ok()) return _status;                   \
  } while (false)

}  // namespace tgraph_safetensors
