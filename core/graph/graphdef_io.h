// GraphDef import and export, binary and text, wire-compatible with TensorFlow 1.x.
//
// Export writes the nodes in creation order, the function library, every attr (defaults
// included, as TF writes them), inputs as "name" / "name:k" / "^ctrl", canonical device
// strings, and `versions { producer: kGraphDefProducer }`. Binary output is deterministic
// (map entries sorted by key), so export -> import -> export gives identical bytes.
//
// Import (ImportGraphDef) is all or nothing. It proceeds in three steps:
//   1. Structural validation of the whole GraphDef, with nothing added anywhere: node names
//      (empty, invalid, duplicate), op types (NOT_FOUND), attrs (missing, wrong kind, not
//      allowed), devices, input strings (unknown node, output index out of range, data input
//      after a control input), cycles (Boost.Graph depth-first search, the message lists the
//      nodes of one cycle), input_map targets and dtypes, return tensors / operations,
//      control_dependencies, colocation (`_class`) constraints, and names already taken in
//      the destination graph.
//   2. A dry run: the nodes are added, in a topological order that keeps the GraphDef's own
//      order wherever it is already topological, to a scratch Graph whose registry holds the
//      same op registrations (OpDef + shape function) as the destination's. Every input_map
//      target is stood in for by a node with the same dtype, the same static shape and, for a
//      Const, the same constant value, so Graph::AddOperation runs exactly the checks
//      (attrs, edge dtypes, input counts, Const values, shape functions) it will run on the
//      destination.
//   3. Only if the dry run succeeded are the same NodeSpecs added to the destination graph
//      (under its mutex, so nothing else interleaves). A failure there would be a bug and is
//      reported as INTERNAL.
// After any failed import the destination graph holds exactly the operations it held before.
//
// Names: with a non-empty prefix, a node "x" becomes "<prefix>/x". The prefix is made unique
// like a name scope (Graph::UniqueName: it is placed under the graph's current name scope and
// becomes "import_1", "import_2", ... when "import" is already in use); a prefix ending in
// '/' is taken as is (without the '/'), like re-entering a name scope. With prefix "" the
// names are kept unchanged. A final name that is still taken is ALREADY_EXISTS.
//
// TF semantics kept: input_map keys may name nodes absent from the GraphDef; a key
// ("name", -1) remaps the control input "^name" to the mapped tensor's operation;
// missing_unused_input_map_keys lists the keys no input used whose (node, output) does not
// exist in the GraphDef (an unused key naming an existing output is not "missing");
// a return tensor that is a key of input_map returns the mapped tensor; control_dependencies
// are added to every imported node none of whose data or control inputs comes from another
// imported node (nodes with no inputs, or whose inputs are all remapped). `_class`
// "loc:@x" values naming a node of the GraphDef are rewritten to "loc:@<prefix>/x"; one naming
// no node of the GraphDef is an error with validate_colocation_constraints, else kept as is.
// The GraphDef's function library goes into the graph's (Graph::functions(); a function
// already there must have the same definition, checked before anything is added) and
// export writes it back (functions sorted by name). A node whose op type is a function's
// name (TF1 Defun's direct calls) is imported as the StatefulPartitionedCall doing the same
// (function_library.h, RewriteDirectCall), and exported as one. A GraphDef
// whose versions.min_consumer exceeds kGraphDefProducer, or whose bad_consumers lists it,
// is rejected.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/base/status.h"
#include "core/graph/operation.h"
#include "tgraph/proto/graph.pb.h"

namespace tgraph {

class Graph;

// The GraphDef version tgraph writes (TF_GRAPH_DEF_VERSION of a modern TensorFlow) and the
// one it claims as a consumer. min_consumer is written as 0.
inline constexpr int kGraphDefProducer = 1394;

struct ImportOptions {
  std::string prefix = "import";  // "" = none; names become prefix + "/" + name
  std::map<std::pair<std::string, int>, Output> input_map;
  std::vector<std::pair<std::string, int>> return_tensors;
  std::vector<std::string> return_operations;
  std::vector<Operation*> control_dependencies;
  bool validate_colocation_constraints = true;
};

struct ImportResults {
  std::vector<Output> return_tensors;
  std::vector<Operation*> return_operations;
  std::vector<std::pair<std::string, int>> missing_unused_input_map_keys;
};

// All three are deterministic; the bytes are serialized with sorted map keys and the text
// printer sorts them too.
Status ExportGraphDef(const Graph& g, tf::GraphDef* out);
Status ExportGraphDefBytes(const Graph& g, std::string* out);
Status ExportGraphDefText(const Graph& g, std::string* out);

// Deterministic binary form of any GraphDef (sorted map keys), as ExportGraphDefBytes writes.
Status SerializeGraphDef(const tf::GraphDef& def, std::string* out);
// INVALID_ARGUMENT "Invalid GraphDef: ..." on truncated or malformed input.
Status ParseGraphDefBytes(const void* data, size_t len, tf::GraphDef* out);
Status ParseGraphDefText(std::string_view text, tf::GraphDef* out);

// All or nothing (see above). `results` may be null.
Status ImportGraphDef(const tf::GraphDef& def, const ImportOptions& opts, Graph* g,
                      ImportResults* results);

}  // namespace tgraph
