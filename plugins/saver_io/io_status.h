// The savers' shared I/O status: a TensorFlow code and a message naming the file. Plain C++
// (no core, no TG_Status), so the I/O code is unit-tested on its own; each saver plugin turns
// it into its own status type and, at its boundary, into a TG_Status.
#pragma once

#include <string>
#include <type_traits>
#include <utility>

#include "tgraph/types.h"

namespace tgraph::saver_io {

struct IoStatus {
  TG_Code code = TG_OK;
  std::string message;

  bool ok() const { return code == TG_OK; }
  static IoStatus OK() { return {}; }
};

inline IoStatus Error(TG_Code code, std::string message) {
  return IoStatus{code, std::move(message)};
}

// Concatenates the pieces (strings, string_views, const char*, or numbers through
// std::to_string) into one message.
template <typename... Pieces>
std::string Str(const Pieces&... pieces) {
  std::string out;
  auto append = [&out](const auto& piece) {
    if constexpr (std::is_arithmetic_v<std::decay_t<decltype(piece)>>) {
      out += std::to_string(piece);
    } else {
      out += piece;
    }
  };
  (append(pieces), ...);
  return out;
}

}  // namespace tgraph::saver_io

#define SAVER_IO_RETURN_IF_ERROR(expr)                    \
  do {                                                    \
    ::tgraph::saver_io::IoStatus _saver_io_s = (expr);    \
    if (!_saver_io_s.ok()) return _saver_io_s;            \
  } while (0)
