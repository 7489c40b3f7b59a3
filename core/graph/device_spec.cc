#include "core/graph/device_spec.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <vector>

namespace tgraph {
namespace {

std::vector<std::string> Split(const std::string& s, char sep) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    size_t pos = s.find(sep, start);
    parts.push_back(s.substr(start, pos == std::string::npos ? std::string::npos : pos - start));
    if (pos == std::string::npos) break;
    start = pos + 1;
  }
  return parts;
}

bool ParseIndex(const std::string& s, int* out) {
  if (s.empty()) return false;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && ptr == s.data() + s.size() && *out >= 0;
}

std::string Upper(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::toupper(c); });
  return s;
}

bool ValidTypeName(const std::string& s) {
  if (s.empty()) return false;
  return std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isalnum(c) || c == '_'; });
}

}  // namespace

StatusOr<DeviceSpec> DeviceSpec::Parse(const std::string& device) {
  DeviceSpec spec;
  auto bad = [&](const std::string& why) {
    return InvalidArgument("malformed device specification '", device, "': ", why);
  };
  for (const std::string& part : Split(device, '/')) {
    if (part.empty()) continue;
    std::vector<std::string> fields = Split(part, ':');
    const std::string& key = fields[0];
    if (fields.size() == 2 && key == "job") {
      if (fields[1].empty()) return bad("empty job name");
      spec.job = fields[1];
    } else if (fields.size() == 2 && (key == "replica" || key == "task")) {
      int v;
      if (!ParseIndex(fields[1], &v)) return bad("'" + part + "' needs a non-negative index");
      (key == "replica" ? spec.replica : spec.task) = v;
    } else if (fields.size() == 3 && key == "device") {
      if (!ValidTypeName(fields[1])) return bad("bad device type in '" + part + "'");
      spec.type = Upper(fields[1]) == "CPU" || Upper(fields[1]) == "GPU" ? Upper(fields[1]) : fields[1];
      if (fields[2] == "*") {
        spec.id.reset();
      } else {
        int v;
        if (!ParseIndex(fields[2], &v)) return bad("bad device index in '" + part + "'");
        spec.id = v;
      }
    } else if ((fields.size() == 1 || fields.size() == 2) &&
               (Upper(key) == "CPU" || Upper(key) == "GPU")) {
      // Legacy "/cpu:0", "/gpu:1", "/GPU:*".
      spec.type = Upper(key);
      spec.id.reset();
      if (fields.size() == 2 && fields[1] != "*") {
        int v;
        if (!ParseIndex(fields[1], &v)) return bad("bad device index in '" + part + "'");
        spec.id = v;
      }
    } else {
      return bad("unknown component '" + part + "'");
    }
  }
  return spec;
}

DeviceSpec DeviceSpec::MergedWith(const DeviceSpec& inner) const {
  DeviceSpec merged = *this;
  if (inner.job) merged.job = inner.job;
  if (inner.replica) merged.replica = inner.replica;
  if (inner.task) merged.task = inner.task;
  if (inner.type) {
    merged.type = inner.type;
    merged.id = inner.id;
  }
  return merged;
}

std::string DeviceSpec::ToString() const {
  std::string s;
  if (job) s += "/job:" + *job;
  if (replica) s += "/replica:" + std::to_string(*replica);
  if (task) s += "/task:" + std::to_string(*task);
  if (type) s += "/device:" + *type + ":" + (id ? std::to_string(*id) : std::string("*"));
  return s;
}

StatusOr<std::string> CanonicalDeviceString(const std::string& device) {
  TG_ASSIGN_OR_RETURN(DeviceSpec spec, DeviceSpec::Parse(device));
  return spec.ToString();
}

}  // namespace tgraph
