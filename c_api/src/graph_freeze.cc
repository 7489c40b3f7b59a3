// Freezing and cutting GraphDefs: convert_variables_to_constants, extract_sub_graph and
// remove_training_nodes over serialized GraphDefs (core/graph/graph_freeze.h, graph_cut.h).
#include <optional>
#include <set>

#include "c_api/src/c_api_internal.h"
#include "core/graph/graph_cut.h"
#include "core/graph/graph_freeze.h"
#include "core/graph/graphdef_io.h"

using namespace tgraph;
using namespace tgraph::capi;

namespace {

Status Names(const char* fn, const char* what, const char* const* names, int n,
             std::vector<std::string>* out) {
  if (n < 0) return InvalidArgument(fn, ": the number of ", what, " is ", n);
  if (n > 0 && names == nullptr) return NullArg(fn, what);
  for (int i = 0; i < n; ++i) {
    if (names[i] == nullptr) return InvalidArgument(fn, ": ", what, "[", i, "] is NULL");
    out->emplace_back(names[i]);
  }
  return Status::OK();
}

Status ReadGraphDef(const char* fn, const TG_Buffer* buffer, tf::GraphDef* def) {
  if (buffer == nullptr) return NullArg(fn, "graph_def");
  return ParseGraphDefBytes(buffer->data, buffer->length, def).Prepend(StrCat(fn, ": "));
}

Status WriteGraphDef(const char* fn, const tf::GraphDef& def, TG_Buffer* out) {
  std::string bytes;
  TG_RETURN_IF_ERROR(SerializeGraphDef(def, &bytes).Prepend(StrCat(fn, ": ")));
  return FillBuffer(out, bytes);
}

// Reads tensors of `g` by running `session` (the graph lock is not held: the run takes it).
StatusOr<std::vector<Tensor>> RunForValues(TG_Session* session, TG_Graph* g,
                                           const std::vector<std::string>& tensor_names) {
  std::vector<TG_Output> fetches;
  {
    GraphLock lock(g->graph.mutex());
    for (const std::string& name : tensor_names) {
      TG_ASSIGN_OR_RETURN(Output o, g->graph.FindOutput(name));
      fetches.push_back(ToC(o));
    }
  }
  std::vector<TG_Tensor*> values(fetches.size(), nullptr);
  TG_Status st;
  TG_SessionRun(session, nullptr, nullptr, nullptr, 0, fetches.data(), values.data(),
                static_cast<int>(fetches.size()), nullptr, 0, nullptr, &st);
  std::vector<Tensor> out;
  for (TG_Tensor* t : values) {
    if (t != nullptr) out.push_back(t->tensor);
    TG_DeleteTensor(t);
  }
  TG_RETURN_IF_ERROR(st.status);
  return out;
}

}  // namespace

extern "C" void TG_ConvertVariablesToConstants(
    TG_Session* session, TG_Graph* graph, const TG_Buffer* graph_def,
    const char* const* output_node_names, int num_outputs, const char* const* whitelist,
    int num_whitelist, const char* const* blacklist, int num_blacklist,
    TG_Buffer* output_graph_def, TG_Status* status) {
  const char* fn = "TG_ConvertVariablesToConstants";
  Guard(status, [&]() -> Status {
    if (session == nullptr) return NullArg(fn, "the session");
    if (graph == nullptr) return NullArg(fn, "the graph");
    if (output_graph_def == nullptr) return NullArg(fn, "output_graph_def");
    FreezeOptions options;
    TG_RETURN_IF_ERROR(
        Names(fn, "output_node_names", output_node_names, num_outputs, &options.output_node_names));
    if (num_whitelist != -1) {
      std::vector<std::string> list;
      TG_RETURN_IF_ERROR(Names(fn, "whitelist", whitelist, num_whitelist, &list));
      options.whitelist.emplace(list.begin(), list.end());
    }
    std::vector<std::string> black;
    TG_RETURN_IF_ERROR(Names(fn, "blacklist", blacklist, num_blacklist, &black));
    options.blacklist.insert(black.begin(), black.end());
    tf::GraphDef def;
    if (graph_def != nullptr) {
      TG_RETURN_IF_ERROR(ReadGraphDef(fn, graph_def, &def));
    } else {
      GraphLock lock(graph->graph.mutex());
      TG_RETURN_IF_ERROR(ExportGraphDef(graph->graph, &def));
    }
    TensorReader read = [&](const std::vector<std::string>& names) {
      return RunForValues(session, graph, names);
    };
    TG_ASSIGN_OR_RETURN(tf::GraphDef frozen, ConvertVariablesToConstants(def, options, read));
    return WriteGraphDef(fn, frozen, output_graph_def);
  });
}

extern "C" void TG_ExtractSubGraph(const TG_Buffer* graph_def, const char* const* dest_nodes,
                                   int num_dest, TG_Buffer* output_graph_def, TG_Status* status) {
  const char* fn = "TG_ExtractSubGraph";
  Guard(status, [&]() -> Status {
    if (output_graph_def == nullptr) return NullArg(fn, "output_graph_def");
    std::vector<std::string> dest;
    TG_RETURN_IF_ERROR(Names(fn, "dest_nodes", dest_nodes, num_dest, &dest));
    tf::GraphDef def;
    TG_RETURN_IF_ERROR(ReadGraphDef(fn, graph_def, &def));
    TG_ASSIGN_OR_RETURN(tf::GraphDef sub, ExtractSubGraph(def, dest));
    return WriteGraphDef(fn, sub, output_graph_def);
  });
}

extern "C" void TG_RemoveTrainingNodes(const TG_Buffer* graph_def,
                                       const char* const* protected_nodes, int num_protected,
                                       TG_Buffer* output_graph_def, TG_Status* status) {
  const char* fn = "TG_RemoveTrainingNodes";
  Guard(status, [&]() -> Status {
    if (output_graph_def == nullptr) return NullArg(fn, "output_graph_def");
    std::vector<std::string> keep;
    TG_RETURN_IF_ERROR(Names(fn, "protected_nodes", protected_nodes, num_protected, &keep));
    tf::GraphDef def;
    TG_RETURN_IF_ERROR(ReadGraphDef(fn, graph_def, &def));
    TG_ASSIGN_OR_RETURN(tf::GraphDef out, RemoveTrainingNodes(def, keep));
    return WriteGraphDef(fn, out, output_graph_def);
  });
}
