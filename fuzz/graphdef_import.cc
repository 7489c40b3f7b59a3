// Fuzz target: GraphDef bytes (binary, then text format) -> ImportGraphDef into a fresh graph
// over the standard op registry, then export of what was imported. Import must succeed or
// return a status (INVALID_ARGUMENT, NOT_FOUND, ...); nothing may crash, throw, leak or
// allocate what a declared shape or value claims (issue 21, items 3 and 4).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <google/protobuf/stubs/logging.h>

#include "core/graph/graph.h"
#include "core/graph/graphdef_io.h"
#include "tgraph/proto/graph.pb.h"

extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  google::protobuf::SetLogHandler(nullptr);  // malformed input makes protobuf log each time
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  tgraph::tf::GraphDef def;
  if (!tgraph::ParseGraphDefBytes(data, size, &def).ok() &&
      !tgraph::ParseGraphDefText(std::string_view(reinterpret_cast<const char*>(data), size), &def)
           .ok()) {
    return 0;
  }
  tgraph::Graph graph;
  tgraph::ImportOptions opts;
  opts.prefix = "";
  if (!tgraph::ImportGraphDef(def, opts, &graph, nullptr).ok()) return 0;
  // What imported must export again (the round trip the C API offers).
  std::string bytes;
  (void)tgraph::ExportGraphDefBytes(graph, &bytes);
  return 0;
}
