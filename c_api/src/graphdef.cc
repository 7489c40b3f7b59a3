// GraphDef export (binary, text) and import with options and results.
#include "c_api/src/c_api_internal.h"
#include "core/graph/graphdef_io.h"

using namespace tgraph;
using namespace tgraph::capi;

struct TG_ImportGraphDefOptions {
  // TF_NewImportGraphDefOptions imports without a prefix (only Python's import_graph_def
  // defaults to "import"), so a C program ported from TensorFlow finds its operations.
  TG_ImportGraphDefOptions() { options.prefix.clear(); }
  ImportOptions options;
  bool text_format = false;
};

struct TG_ImportGraphDefResults {
  std::vector<TG_Output> return_outputs;
  std::vector<TG_Operation*> return_operations;
  std::vector<std::string> missing_names;
  std::vector<const char*> missing_name_ptrs;
  std::vector<int> missing_indexes;
};

// ---- export ----

extern "C" void TG_GraphToGraphDef(TG_Graph* g, TG_Buffer* output_graph_def, TG_Status* status) {
  Guard(status, [&]() -> Status {
    if (g == nullptr) return NullArg("TG_GraphToGraphDef", "the graph");
    if (output_graph_def == nullptr) return NullArg("TG_GraphToGraphDef", "output_graph_def");
    std::string bytes;
    {
      GraphLock lock(g->graph.mutex());
      TG_RETURN_IF_ERROR(ExportGraphDefBytes(g->graph, &bytes));
    }
    return FillBuffer(output_graph_def, bytes);
  });
}

extern "C" void TG_GraphToGraphDefText(TG_Graph* g, TG_Buffer* output_text, TG_Status* status) {
  Guard(status, [&]() -> Status {
    if (g == nullptr) return NullArg("TG_GraphToGraphDefText", "the graph");
    if (output_text == nullptr) return NullArg("TG_GraphToGraphDefText", "output_text");
    std::string text;
    {
      GraphLock lock(g->graph.mutex());
      TG_RETURN_IF_ERROR(ExportGraphDefText(g->graph, &text));
    }
    return FillBuffer(output_text, text);
  });
}

// ---- import options ----

extern "C" TG_ImportGraphDefOptions* TG_NewImportGraphDefOptions(void) {
  return NoThrow<TG_ImportGraphDefOptions*>(nullptr, [] { return new TG_ImportGraphDefOptions(); });
}

extern "C" void TG_DeleteImportGraphDefOptions(TG_ImportGraphDefOptions* opts) { delete opts; }

extern "C" void TG_ImportGraphDefOptionsSetPrefix(TG_ImportGraphDefOptions* opts,
                                                  const char* prefix) {
  if (opts == nullptr) return;
  NoThrow(0, [&] {
    opts->options.prefix = Str(prefix);
    return 0;
  });
}

extern "C" void TG_ImportGraphDefOptionsAddInputMapping(TG_ImportGraphDefOptions* opts,
                                                        const char* src_name, int src_index,
                                                        TG_Output dst) {
  if (opts == nullptr || src_name == nullptr) return;
  NoThrow(0, [&] {
    opts->options.input_map[{src_name, src_index}] = ToOutput(dst);
    return 0;
  });
}

extern "C" void TG_ImportGraphDefOptionsAddControlDependency(TG_ImportGraphDefOptions* opts,
                                                             TG_Operation* oper) {
  if (opts == nullptr) return;
  NoThrow(0, [&] {
    // A NULL entry is kept so that the import reports it.
    opts->options.control_dependencies.push_back(ToOp(oper));
    return 0;
  });
}

extern "C" void TG_ImportGraphDefOptionsAddReturnOutput(TG_ImportGraphDefOptions* opts,
                                                        const char* oper_name, int index) {
  if (opts == nullptr) return;
  NoThrow(0, [&] {
    opts->options.return_tensors.emplace_back(Str(oper_name), index);
    return 0;
  });
}

extern "C" int TG_ImportGraphDefOptionsNumReturnOutputs(const TG_ImportGraphDefOptions* opts) {
  return opts == nullptr ? 0 : static_cast<int>(opts->options.return_tensors.size());
}

extern "C" void TG_ImportGraphDefOptionsAddReturnOperation(TG_ImportGraphDefOptions* opts,
                                                           const char* oper_name) {
  if (opts == nullptr) return;
  NoThrow(0, [&] {
    opts->options.return_operations.push_back(Str(oper_name));
    return 0;
  });
}

extern "C" int TG_ImportGraphDefOptionsNumReturnOperations(const TG_ImportGraphDefOptions* opts) {
  return opts == nullptr ? 0 : static_cast<int>(opts->options.return_operations.size());
}

extern "C" void TG_ImportGraphDefOptionsSetTextFormat(TG_ImportGraphDefOptions* opts,
                                                      int text_format) {
  if (opts != nullptr) opts->text_format = text_format != 0;
}

extern "C" void TG_ImportGraphDefOptionsSetValidateColocationConstraints(
    TG_ImportGraphDefOptions* opts, int enable) {
  if (opts != nullptr) opts->options.validate_colocation_constraints = enable != 0;
}

// ---- import ----

namespace {

Status Import(const char* fn, TG_Graph* g, const TG_Buffer* graph_def,
              const TG_ImportGraphDefOptions* opts, ImportResults* results) {
  if (g == nullptr) return NullArg(fn, "the graph");
  if (graph_def == nullptr) return NullArg(fn, "graph_def");
  if (graph_def->data == nullptr && graph_def->length > 0) return NullArg(fn, "graph_def->data");
  static const TG_ImportGraphDefOptions kDefaults;
  const TG_ImportGraphDefOptions& o = opts == nullptr ? kDefaults : *opts;

  for (const auto& [key, dst] : o.options.input_map) {
    if (dst.op == nullptr) {
      return InvalidArgument(fn, ": the input mapping of '", key.first, ":", key.second,
                             "' has a NULL destination operation");
    }
    if (dst.op->graph() != &g->graph) {
      return InvalidArgument(fn, ": the input mapping of '", key.first, ":", key.second,
                             "' targets '", dst.op->name(), "', which is not in this graph");
    }
  }
  for (size_t i = 0; i < o.options.control_dependencies.size(); ++i) {
    const Operation* op = o.options.control_dependencies[i];
    if (op == nullptr) return InvalidArgument(fn, ": control dependency ", i, " is NULL");
    if (op->graph() != &g->graph) {
      return InvalidArgument(fn, ": control dependency '", op->name(), "' is not in this graph");
    }
  }

  tf::GraphDef def;
  if (o.text_format) {
    std::string_view text(static_cast<const char*>(graph_def->data), graph_def->length);
    TG_RETURN_IF_ERROR(ParseGraphDefText(text, &def));
  } else {
    TG_RETURN_IF_ERROR(ParseGraphDefBytes(graph_def->data, graph_def->length, &def));
  }
  GraphLock lock(g->graph.mutex());
  TG_RETURN_IF_ERROR(CheckNotInDeviceFunction(fn, g));
  return ImportGraphDef(def, o.options, &g->graph, results);
}

}  // namespace

extern "C" void TG_GraphImportGraphDef(TG_Graph* g, const TG_Buffer* graph_def,
                                       const TG_ImportGraphDefOptions* opts, TG_Status* status) {
  Guard(status, [&]() -> Status {
    return Import("TG_GraphImportGraphDef", g, graph_def, opts, nullptr);
  });
}

extern "C" TG_ImportGraphDefResults* TG_GraphImportGraphDefWithResults(
    TG_Graph* g, const TG_Buffer* graph_def, const TG_ImportGraphDefOptions* opts,
    TG_Status* status) {
  return GuardValue<TG_ImportGraphDefResults*>(
      status, nullptr, [&](TG_ImportGraphDefResults** out) -> Status {
        ImportResults results;
        auto r = std::make_unique<TG_ImportGraphDefResults>();
        // The import is all or nothing; copying the handles afterwards can only fail when
        // out of memory.
        TG_RETURN_IF_ERROR(
            Import("TG_GraphImportGraphDefWithResults", g, graph_def, opts, &results));
        for (const Output& o : results.return_tensors) r->return_outputs.push_back(ToC(o));
        for (Operation* op : results.return_operations) r->return_operations.push_back(ToC(op));
        for (const auto& [name, index] : results.missing_unused_input_map_keys) {
          r->missing_names.push_back(name);
          r->missing_indexes.push_back(index);
        }
        for (const std::string& s : r->missing_names) r->missing_name_ptrs.push_back(s.c_str());
        *out = r.release();
        return Status::OK();
      });
}

extern "C" void TG_ImportGraphDefResultsReturnOutputs(TG_ImportGraphDefResults* results,
                                                      int* num_outputs, TG_Output** outputs) {
  if (num_outputs != nullptr) *num_outputs = 0;
  if (outputs != nullptr) *outputs = nullptr;
  if (results == nullptr) return;
  if (num_outputs != nullptr) *num_outputs = static_cast<int>(results->return_outputs.size());
  if (outputs != nullptr) *outputs = results->return_outputs.data();
}

extern "C" void TG_ImportGraphDefResultsReturnOperations(TG_ImportGraphDefResults* results,
                                                         int* num_opers, TG_Operation*** opers) {
  if (num_opers != nullptr) *num_opers = 0;
  if (opers != nullptr) *opers = nullptr;
  if (results == nullptr) return;
  if (num_opers != nullptr) *num_opers = static_cast<int>(results->return_operations.size());
  if (opers != nullptr) *opers = results->return_operations.data();
}

extern "C" void TG_ImportGraphDefResultsMissingUnusedInputMappings(
    TG_ImportGraphDefResults* results, int* num_missing_unused_input_mappings,
    const char*** src_names, int** src_indexes) {
  if (num_missing_unused_input_mappings != nullptr) *num_missing_unused_input_mappings = 0;
  if (src_names != nullptr) *src_names = nullptr;
  if (src_indexes != nullptr) *src_indexes = nullptr;
  if (results == nullptr) return;
  if (num_missing_unused_input_mappings != nullptr) {
    *num_missing_unused_input_mappings = static_cast<int>(results->missing_names.size());
  }
  if (src_names != nullptr) *src_names = results->missing_name_ptrs.data();
  if (src_indexes != nullptr) *src_indexes = results->missing_indexes.data();
}

extern "C" void TG_DeleteImportGraphDefResults(TG_ImportGraphDefResults* results) {
  delete results;
}
