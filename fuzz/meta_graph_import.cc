// Fuzz target: MetaGraphDef bytes (binary, then text format, as TF's reader) ->
// ImportMetaGraph into a fresh graph (GraphDef, collections, VariableDefs, SaverDef), then
// export. Import must succeed or return a status; nothing may crash, throw or leak.
#include <cstddef>
#include <cstdint>
#include <string>

#include <google/protobuf/stubs/logging.h>

#include "core/graph/graph.h"
#include "core/graph/meta_graph_io.h"
#include "tgraph/proto/meta_graph.pb.h"

extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  google::protobuf::SetLogHandler(nullptr);  // malformed input makes protobuf log each time
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  tgraph::tf::MetaGraphDef def;
  if (!tgraph::ParseMetaGraphDef(data, size, "fuzz input", &def).ok()) return 0;
  tgraph::Graph graph;
  tgraph::MetaGraphImportOptions opts;
  if (!tgraph::ImportMetaGraph(def, opts, &graph, nullptr).ok()) return 0;
  std::string bytes;
  (void)tgraph::ExportMetaGraphBytes(graph, tgraph::MetaGraphExportOptions(), &bytes);
  return 0;
}
