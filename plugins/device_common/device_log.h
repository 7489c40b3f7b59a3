// The line a GPU backend logs (at INFO) after discovery: "<plugin> plugin: N device(s):
// /device:GPU:0 = <description>; ...". One copy for every backend.
#pragma once

#include <string>
#include <vector>

namespace tgraph::device_common {

// `device_type` is the type the backend registered ("GPU", "OPENCL_GPU", ...).
inline std::string DevicesLine(const std::string& plugin, const std::string& device_type,
                               const std::vector<std::string>& descriptions) {
  // Appended piecewise: GCC 12 at -O3 warns falsely (-Wrestrict) on `" " + string&&`.
  std::string line = plugin;
  line += " plugin: ";
  line += std::to_string(descriptions.size());
  line += " device(s):";
  for (size_t i = 0; i < descriptions.size(); ++i) {
    line += " /device:";
    line += device_type;
    line += ':';
    line += std::to_string(i);
    line += " = ";
    line += descriptions[i];
    line += ';';
  }
  return line;
}

}  // namespace tgraph::device_common
