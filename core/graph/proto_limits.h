// Limits on protobuf input from untrusted sources (GraphDefs, MetaGraphs, op definitions).
#pragma once

#include <google/protobuf/text_format.h>

namespace tgraph {

// How deeply messages may nest in text-format input. Binary parsing has protobuf's own
// limit (100); protobuf 3.21's text parser has none by default, so a GraphDef whose
// AttrValue nests (func -> attr -> func -> ...) a few hundred thousand levels deep would
// overflow the stack instead of failing to parse.
inline constexpr int kMaxProtoNesting = 100;

inline void LimitNesting(google::protobuf::TextFormat::Parser* parser) {
  parser->SetRecursionLimit(kMaxProtoNesting);
}

}  // namespace tgraph
