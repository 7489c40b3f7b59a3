// Attributes of an operation, kept as TensorFlow AttrValue protos so GraphDef import/export
// is lossless. Ordered by name so every export is byte-for-byte deterministic.
#pragma once

#include <map>
#include <string>

#include "tgraph/proto/attr_value.pb.h"

namespace tgraph {

using AttrMap = std::map<std::string, tf::AttrValue>;

}  // namespace tgraph
