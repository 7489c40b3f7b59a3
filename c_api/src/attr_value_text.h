// One-line text for AttrValue protos, as `tgraph ops` and `tgraph info` show them: the same
// spelling OpDefBuilder specs use ("float", "[?,3]", "'SAME'", "[1, 2]"), so an attr's
// default or allowed values read like the op's definition.
#pragma once

#include <string>

#include "tgraph/proto/attr_value.pb.h"
#include "tgraph/proto/tensor_shape.pb.h"

namespace tgraph::capi {

// "[2,?]" with '?' for an unknown dim; "<unknown>" for an unknown rank.
std::string ShapeProtoText(const tf::TensorShapeProto& shape);
// The value's text; "" when no value is set.
std::string AttrValueText(const tf::AttrValue& value);

}  // namespace tgraph::capi
