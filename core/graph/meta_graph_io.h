// MetaGraphDef export and import (TensorFlow 1.x's export_meta_graph / import_meta_graph),
// wire-compatible with TensorFlow.
//
// Export writes MetaInfoDef (meta_graph_version, the stripped op list: the OpDefs of the op
// types the exported GraphDef uses, sorted by name, without documentation; tags;
// tensorflow_git_version = the producer string the caller gives, e.g. "tgraph 0.1.0";
// tensorflow_version stays empty: TF parses it as a PEP 440 version and, below 1.9, ignores
// VariableDef.trainable), the GraphDef (graphdef_io.h),
// the caller's SaverDef, and one CollectionDef per non-empty collection, chosen as TF's
// add_collection_def chooses (by the key, else by the first item):
//   * the variable keys (kVariableCollectionKeys): bytes_list of serialized VariableDef;
//   * operations, tensors, and variables under other keys: node_list of names ("op", "t:0",
//     "v:0");
//   * bytes / int64 / float items: bytes_list / int64_list / float_list.
// A collection whose items do not all fit its kind is INVALID_ARGUMENT naming it.
// With an export_scope, only nodes named "<scope>" or "<scope>/..." are written, with the
// scope stripped from names, inputs and `_class` values; an input from outside the scope is
// written "$unbound_inputs_<name>" (and listed in the "unbound_inputs" collection), which an
// importer must map with input_map, as in TF. Collection items, variables and the SaverDef
// outside the scope are left out. Serialization is deterministic (map entries sorted), so
// export -> import -> export gives the same bytes.
//
// Import adds the GraphDef (all or nothing, see graphdef_io.h) under the import scope, then
// rebuilds the collections: VariableDefs become the graph's Variable objects (one per variable
// op, shared by every collection naming it, seen by GlobalVariablesInitializer), node_list
// names become operations ("name") or tensors ("name:k"), values are kept as they are. Every
// name the collections and the SaverDef use is checked against the GraphDef before anything
// is added, so a failed import leaves the graph as it was. Attrs the producer's stripped op
// list defaults and this registry does not know (attrs newer TensorFlow versions added) are
// dropped when they hold that default, as TF's importer does with producer_op_list.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/base/status.h"
#include "core/graph/operation.h"
#include "tgraph/proto/meta_graph.pb.h"

namespace tgraph {

class Graph;

// Marks an input of an exported scoped graph that comes from outside the scope.
inline constexpr const char* kUnboundInputPrefix = "$unbound_inputs_";
// The collection that lists those inputs (not imported back, as in TF).
inline constexpr const char* kUnboundInputsCollection = "unbound_inputs";

// The keys whose items TF writes as serialized VariableDefs.
bool IsVariableCollectionKey(const std::string& key);

struct MetaGraphExportOptions {
  std::string export_scope;         // "" = the whole graph
  bool clear_devices = false;       // write every node's device as ""
  bool strip_default_attrs = false; // leave out attrs holding their OpDef default
  std::vector<std::string> tags;
  std::string meta_graph_version;
  std::string producer_version;     // MetaInfoDef.tensorflow_git_version
  bool has_saver_def = false;
  std::string saver_def;            // serialized SaverDef (when has_saver_def)
};

struct MetaGraphImportOptions {
  // "" = names unchanged; else made unique like a name scope ("scope", "scope_1", ...).
  std::string import_scope;
  bool clear_devices = false;
  // Tensors of the destination graph standing for inputs of the GraphDef (for example the
  // "$unbound_inputs_..." of a scoped export).
  std::map<std::pair<std::string, int>, Output> input_map;
};

struct MetaGraphImportResults {
  std::string scope;         // the prefix the names got ("" = none)
  bool has_saver_def = false;
  std::string saver_def;     // serialized SaverDef, its names under `scope`
};

// Deterministic serialization of any MetaGraphDef (maps sorted).
Status SerializeMetaGraphDef(const tf::MetaGraphDef& def, std::string* out);

Status ExportMetaGraph(const Graph& g, const MetaGraphExportOptions& opts, tf::MetaGraphDef* out);
Status ExportMetaGraphBytes(const Graph& g, const MetaGraphExportOptions& opts, std::string* out);

// `results` may be null.
Status ImportMetaGraph(const tf::MetaGraphDef& def, const MetaGraphImportOptions& opts, Graph* g,
                       MetaGraphImportResults* results);

// ---- files (meta_graph_file.cc) ----
// Binary first, then text format, as TF's reader does. `source` names the input in errors
// (a file name, or "MetaGraphDef buffer"): INVALID_ARGUMENT when it is neither.
Status ParseMetaGraphDef(const void* data, size_t len, const std::string& source,
                         tf::MetaGraphDef* out);
// NOT_FOUND / PERMISSION_DENIED / ... naming the file when it cannot be read.
Status ReadMetaGraphFile(const std::string& path, tf::MetaGraphDef* out);
// Writing a `.meta` file: WriteFileAtomically (core/base/file_io.h).

}  // namespace tgraph
