// The plugin's own status: a TensorFlow code and a message. The bundle code below the plugin
// entry points uses it so that it can be built and unit-tested without the core (which
// owns TG_Status); saver_tf_plugin.cc turns it into a TG_Status at the boundary.
#pragma once

#include <string>
#include <type_traits>
#include <utility>

#include "tgraph/types.h"

namespace tgraph::saver_tf {

struct BundleStatus {
  TG_Code code = TG_OK;
  std::string message;

  bool ok() const { return code == TG_OK; }
  static BundleStatus OK() { return {}; }
};

inline BundleStatus Error(TG_Code code, std::string message) {
  return BundleStatus{code, std::move(message)};
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

}  // namespace tgraph::saver_tf

#define SAVER_TF_RETURN_IF_ERROR(expr)                      \
  do {                                                      \
    ::tgraph::saver_tf::BundleStatus _saver_tf_s = (expr);  \
    if (!_saver_tf_s.ok()) return _saver_tf_s;              \
  } while (0)
