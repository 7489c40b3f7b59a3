// File names of a V2 checkpoint at a prefix (TensorFlow's tensor_bundle/naming.cc).
#pragma once

#include <cstdio>
#include <string>

namespace tgraph::saver_tf {

inline std::string IndexFileName(const std::string& prefix) { return prefix + ".index"; }

// "<prefix>.data-00000-of-00001"
inline std::string DataFileName(const std::string& prefix, int shard, int num_shards) {
  char suffix[40];
  std::snprintf(suffix, sizeof(suffix), ".data-%05d-of-%05d", shard, num_shards);
  return prefix + suffix;
}

}  // namespace tgraph::saver_tf
