// Device strings as TensorFlow spells them: "/job:J/replica:R/task:T/device:TYPE:ID", any
// part optional; legacy "/cpu:0" and "/gpu:0" are accepted and canonicalised.
#pragma once

#include <optional>
#include <string>

#include "core/base/status.h"

namespace tgraph {

struct DeviceSpec {
  std::optional<std::string> job;
  std::optional<int> replica;
  std::optional<int> task;
  std::optional<std::string> type;  // "CPU", "GPU", or a plugin's type name
  std::optional<int> id;            // nullopt with a type means ":*"

  static StatusOr<DeviceSpec> Parse(const std::string& device);
  // Fields set in `inner` win; the rest come from this spec.
  DeviceSpec MergedWith(const DeviceSpec& inner) const;
  std::string ToString() const;
  bool empty() const { return !job && !replica && !task && !type; }
};

// Parse + ToString; INVALID_ARGUMENT naming the string when it is malformed.
StatusOr<std::string> CanonicalDeviceString(const std::string& device);

}  // namespace tgraph
