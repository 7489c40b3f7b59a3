// GraphDef import: validate everything, dry-run into a scratch graph, then add to the
// destination (see graphdef_io.h for the contract and the all-or-nothing approach).
#include <algorithm>
#include <cctype>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <queue>
#include <set>
#include <unordered_map>

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/depth_first_search.hpp>

#include "core/graph/attr_value_util.h"
#include "core/graph/function_library.h"
#include "core/graph/graph.h"
#include "core/graph/graphdef_io.h"
#include "core/ops/op_registry.h"
#include "core/ops/op_signature.h"

namespace tgraph {
namespace {

// Graph's node-name rule: [A-Za-z0-9.][A-Za-z0-9_.\-/>]*, no empty '/'-separated part and
// no trailing '/'.
bool IsValidNodeName(const std::string& name) {
  if (name.empty()) return false;
  auto first_ok = [](unsigned char c) { return std::isalnum(c) || c == '.'; };
  auto rest_ok = [](unsigned char c) {
    return std::isalnum(c) || c == '_' || c == '.' || c == '-' || c == '/' || c == '>';
  };
  if (!first_ok(static_cast<unsigned char>(name[0]))) return false;
  if (name.back() == '/' || name.find("//") != std::string::npos) return false;
  return std::all_of(name.begin() + 1, name.end(),
                     [&](char c) { return rest_ok(static_cast<unsigned char>(c)); });
}

std::string KeyString(const std::pair<std::string, int>& key) {
  if (key.second < 0) return "^" + key.first;
  return StrCat(key.first, ":", key.second);
}

// One entry of NodeDef.input, parsed.
struct InputRef {
  std::string node;
  int index = 0;  // -1 for a control input
  std::string text;
  // Resolved: the index of the producing node in the GraphDef, or the mapped tensor.
  int source = -1;
  std::optional<Output> mapped;
  // NextIteration -> Merge: the edge that closes a loop. Left out of the cycle check and the
  // order; the Merge is added with a stand-in input and connected once its source exists.
  bool back_edge = false;
};

bool IsMergeOp(const std::string& type) { return type == "Merge" || type == "RefMerge"; }
bool IsNextIterationOp(const std::string& type) {
  return type == "NextIteration" || type == "RefNextIteration";
}

struct SourceNode {
  const tf::NodeDef* def = nullptr;
  std::string final_name;
  const OpRegistration* registration = nullptr;
  AttrMap attrs;  // as given plus defaults, `_class` rewritten for the prefix
  std::vector<DataType> output_types;
  std::vector<InputRef> data_inputs;
  std::vector<InputRef> control_inputs;
  bool gets_control_dependencies = false;
};

// "node 'x'" or "node 'x' (imported as 'p/x')".
std::string Describe(const SourceNode& n) {
  if (n.final_name == n.def->name()) return StrCat("node '", n.def->name(), "'");
  return StrCat("node '", n.def->name(), "' (imported as '", n.final_name, "')");
}

// Parses "name", "name:k" or "^name".
Status ParseInput(const tf::NodeDef& node, int position, bool* seen_control, InputRef* out) {
  const std::string& s = node.input(position);
  out->text = s;
  if (s.empty()) {
    return InvalidArgument("Node '", node.name(), "': input ", position, " is an empty string");
  }
  if (s[0] == '^') {
    *seen_control = true;
    out->node = s.substr(1);
    out->index = -1;
    if (out->node.empty()) {
      return InvalidArgument("Node '", node.name(), "': control input ", position,
                             " ('^') names no node");
    }
    return Status::OK();
  }
  if (*seen_control) {
    return InvalidArgument("Node '", node.name(), "': data input '", s, "' (input ", position,
                           ") comes after a control input; control inputs must come last");
  }
  out->node = s;
  out->index = 0;
  size_t colon = s.rfind(':');
  if (colon != std::string::npos) {
    std::string digits = s.substr(colon + 1);
    if (colon == 0 || digits.empty() || digits.size() > 9 ||
        !std::all_of(digits.begin(), digits.end(),
                     [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) {
      return InvalidArgument("Node '", node.name(), "': input ", position, " ('", s,
                             "') is not a tensor name ('node' or 'node:index')");
    }
    out->node = s.substr(0, colon);
    out->index = std::stoi(digits);
  }
  return Status::OK();
}

Status CheckVersions(const tf::GraphDef& def) {
  if (!def.has_versions()) return Status::OK();
  const tf::VersionDef& v = def.versions();
  if (v.min_consumer() > kGraphDefProducer) {
    return InvalidArgument("GraphDef min consumer version ", v.min_consumer(),
                           " is above this program's version ", kGraphDefProducer,
                           "; it was written for a newer TensorFlow");
  }
  for (int bad : v.bad_consumers()) {
    if (bad == kGraphDefProducer) {
      return InvalidArgument("GraphDef disallows consumer version ", kGraphDefProducer);
    }
  }
  return Status::OK();
}

Status CheckOutputOfGraph(const Output& out, const Graph* g, const std::string& what) {
  if (out.op == nullptr) return InvalidArgument(what, " is a null tensor");
  if (out.op->graph() != g) {
    return InvalidArgument(what, " is '", out.op->name(),
                           "', which is not in the destination graph");
  }
  if (out.index < 0 || out.index >= out.op->num_outputs()) {
    return InvalidArgument(what, " refers to output ", out.index, " of '", out.op->name(),
                           "', which has ", out.op->num_outputs(), " output(s)");
  }
  return Status::OK();
}

// Finds one cycle with a depth-first search (Boost.Graph); returns it as producer-first node
// indices, or empty when the graph is acyclic.
std::vector<int> FindCycle(int num_nodes, const std::vector<std::pair<int, int>>& edges) {
  using BGraph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS>;
  using Vertex = boost::graph_traits<BGraph>::vertex_descriptor;
  using Edge = boost::graph_traits<BGraph>::edge_descriptor;
  BGraph bg(static_cast<size_t>(num_nodes));
  for (const auto& [from, to] : edges) {
    boost::add_edge(static_cast<Vertex>(from), static_cast<Vertex>(to), bg);
  }
  struct State {
    std::vector<int> parent;
    std::optional<std::pair<int, int>> back;
  } state;
  state.parent.assign(static_cast<size_t>(num_nodes), -1);
  struct Visitor : boost::default_dfs_visitor {
    State* state;
    explicit Visitor(State* s) : state(s) {}
    void tree_edge(Edge e, const BGraph& graph) const {
      state->parent[boost::target(e, graph)] = static_cast<int>(boost::source(e, graph));
    }
    void back_edge(Edge e, const BGraph& graph) const {
      if (!state->back) {
        state->back = {static_cast<int>(boost::source(e, graph)),
                       static_cast<int>(boost::target(e, graph))};
      }
    }
  };
  boost::depth_first_search(bg, boost::visitor(Visitor(&state)));
  if (!state.back) return {};
  // Back edge u -> v: v is an ancestor of u on the DFS tree, so v -> ... -> u -> v.
  const auto [u, v] = *state.back;
  std::vector<int> cycle;
  for (int x = u; x != v && x >= 0; x = state.parent[static_cast<size_t>(x)]) cycle.push_back(x);
  cycle.push_back(v);
  std::reverse(cycle.begin(), cycle.end());
  return cycle;
}

// Kahn's algorithm, always taking the lowest GraphDef index that is ready: the GraphDef's own
// order whenever that order is already topological (so export -> import -> export keeps the
// creation order).
std::vector<int> StableTopologicalOrder(int num_nodes,
                                        const std::vector<std::pair<int, int>>& edges) {
  std::vector<std::vector<int>> consumers(static_cast<size_t>(num_nodes));
  std::vector<int> pending(static_cast<size_t>(num_nodes), 0);
  for (const auto& [from, to] : edges) {
    consumers[static_cast<size_t>(from)].push_back(to);
    ++pending[static_cast<size_t>(to)];
  }
  std::priority_queue<int, std::vector<int>, std::greater<int>> ready;
  for (int i = 0; i < num_nodes; ++i) {
    if (pending[static_cast<size_t>(i)] == 0) ready.push(i);
  }
  std::vector<int> order;
  order.reserve(static_cast<size_t>(num_nodes));
  while (!ready.empty()) {
    int i = ready.top();
    ready.pop();
    order.push_back(i);
    for (int c : consumers[static_cast<size_t>(i)]) {
      if (--pending[static_cast<size_t>(c)] == 0) ready.push(c);
    }
  }
  return order;
}

// Ops a scratch graph needs: every op type of the GraphDef, Const for constant stand-ins,
// and two stand-in ops (a value and a ref of any dtype) for input_map targets.
struct ScratchRegistry {
  OpRegistry registry;
  std::string standin_op;
  std::string ref_standin_op;
};

Status BuildScratchRegistry(const std::vector<SourceNode>& nodes,
                            const std::vector<Output>& standin_targets, ScratchRegistry* out) {
  std::set<std::string> copied;
  auto copy = [&](const OpRegistration& reg) -> Status {
    if (!copied.insert(reg.op_def.name()).second) return Status::OK();
    Status s = out->registry.Register(reg);
    if (!s.ok())
      return Internal("ImportGraphDef: copying op '", reg.op_def.name(), "': ", s.message());
    return Status::OK();
  };
  for (const SourceNode& n : nodes) TG_RETURN_IF_ERROR(copy(*n.registration));
  for (const Output& t : standin_targets) {
    if (t.op->constant_value() != nullptr) TG_RETURN_IF_ERROR(copy(t.op->registration()));
  }
  auto fresh = [&](std::string base) {
    while (copied.count(base)) base += "_";
    copied.insert(base);
    return base;
  };
  out->standin_op = fresh("_ImportStandIn");
  out->ref_standin_op = fresh("_ImportRefStandIn");
  Status s = out->registry.Register(
      OpDefBuilder(out->standin_op).Output("output: dtype").Attr("dtype: type"));
  if (s.ok()) {
    s = out->registry.Register(
        OpDefBuilder(out->ref_standin_op).Output("ref: Ref(dtype)").Attr("dtype: type"));
  }
  if (!s.ok()) return Internal("ImportGraphDef: registering stand-in ops: ", s.message());
  return Status::OK();
}

// Adds the nodes, in `order`, to `target`. `resolve_mapped` turns an input_map target into a
// tensor of `target` (identity for the destination, a stand-in for the scratch graph);
// returning an op of null means "leave this control input out". With consume_attrs the
// nodes' attrs are moved into the specs (the last pass).
Status AddNodes(Graph* target, std::vector<SourceNode>& nodes, bool consume_attrs,
                const std::vector<int>& order,
                const std::function<Output(const Output&)>& resolve_mapped,
                const std::vector<Operation*>& control_dependencies,
                std::vector<Operation*>* created) {
  created->assign(nodes.size(), nullptr);
  std::vector<std::pair<int, int>> back_edges;  // (node, data input) connected at the end
  for (int i : order) {
    SourceNode& n = nodes[static_cast<size_t>(i)];
    NodeSpec spec;
    spec.type = n.def->op();
    spec.name = n.final_name;
    spec.exact_name = true;
    spec.apply_context = false;
    spec.infer_attrs_from_inputs = false;
    spec.device = n.def->device();
    spec.attrs = consume_attrs ? std::move(n.attrs) : n.attrs;
    for (const InputRef& in : n.data_inputs) {
      if (in.back_edge) {
        // Stand in with a forward input of the Merge (every input has its dtype).
        const InputRef* forward = nullptr;
        for (const InputRef& other : n.data_inputs) {
          if (!other.back_edge && forward == nullptr) forward = &other;
        }
        if (forward == nullptr) {
          return InvalidArgument(Describe(n), ": every input is a NextIteration (a loop's Merge ",
                                 "needs an input from its Enter)");
        }
        back_edges.emplace_back(i, static_cast<int>(spec.inputs.size()));
        spec.inputs.push_back(NodeSpec::InputGroup{
            {forward->mapped ? resolve_mapped(*forward->mapped)
                             : Output{(*created)[static_cast<size_t>(forward->source)], forward->index}},
            false});
        continue;
      }
      Output o = in.mapped ? resolve_mapped(*in.mapped)
                           : Output{(*created)[static_cast<size_t>(in.source)], in.index};
      spec.inputs.push_back(NodeSpec::InputGroup{{o}, false});
    }
    for (const InputRef& in : n.control_inputs) {
      Operation* c =
          in.mapped ? resolve_mapped(*in.mapped).op : (*created)[static_cast<size_t>(in.source)];
      if (c != nullptr) spec.control_inputs.push_back(c);
    }
    if (n.gets_control_dependencies) {
      for (Operation* c : control_dependencies) spec.control_inputs.push_back(c);
    }
    auto op = target->AddOperation(std::move(spec));
    if (!op.ok()) {
      const std::string& msg = op.status().message();
      if (msg.find("'" + n.final_name + "'") != std::string::npos ||
          msg.find("'" + n.def->name() + "'") != std::string::npos) {
        return op.status();
      }
      return op.status().Prepend(StrCat(Describe(n), " (op '", n.def->op(), "'): "));
    }
    (*created)[static_cast<size_t>(i)] = op.value();
  }
  for (const auto& [i, k] : back_edges) {
    const SourceNode& n = nodes[static_cast<size_t>(i)];
    const InputRef& in = n.data_inputs[static_cast<size_t>(k)];
    Status s = target->UpdateInput((*created)[static_cast<size_t>(i)], k,
                                   Output{(*created)[static_cast<size_t>(in.source)], in.index});
    if (!s.ok()) return s.Prepend(StrCat(Describe(n), " (op '", n.def->op(), "'): "));
  }
  return Status::OK();
}

}  // namespace

Status ImportGraphDef(const tf::GraphDef& def, const ImportOptions& opts, Graph* g,
                      ImportResults* results) {
  if (g == nullptr) return InvalidArgument("ImportGraphDef: the destination graph is null");
  std::lock_guard lock(g->mutex());
  if (g->finalized()) {
    return FailedPrecondition(
        "Graph is finalized and cannot be modified (tried to import a GraphDef)");
  }
  TG_RETURN_IF_ERROR(CheckVersions(def));
  TG_RETURN_IF_ERROR(g->functions().Check(def.library()));
  const OpRegistry& registry = g->registry();
  const int num_nodes = def.node_size();

  // ---- options that refer to the destination graph ----
  for (const auto& [key, target] : opts.input_map) {
    const std::string what = StrCat("input_map value for '", KeyString(key), "'");
    if (key.second < -1) {
      return InvalidArgument("input_map key '", key.first, ":", key.second,
                             "' has a negative index");
    }
    if (key.second == -1) {
      if (target.op == nullptr || target.op->graph() != g) {
        return InvalidArgument(what, " is not an operation of the destination graph");
      }
      continue;
    }
    TG_RETURN_IF_ERROR(CheckOutputOfGraph(target, g, what));
  }
  for (Operation* c : opts.control_dependencies) {
    if (c == nullptr || c->graph() != g) {
      return InvalidArgument(
          "ImportGraphDef: a control dependency is not an operation of the destination graph");
    }
  }

  // ---- the prefix ----
  std::string prefix;
  bool reserve_prefix = false;
  if (!opts.prefix.empty()) {
    if (opts.prefix.back() == '/') {
      prefix = opts.prefix.substr(0, opts.prefix.size() - 1);
    } else {
      prefix = g->UniqueName(opts.prefix, /*mark_used=*/false);
      reserve_prefix = true;
    }
    if (!IsValidNodeName(prefix)) {
      return InvalidArgument("ImportGraphDef: '", opts.prefix, "' is not a valid name prefix");
    }
  }

  // ---- nodes: names, ops, devices, attrs ----
  // TF1 Defun's calls (op type = a function's name, from this GraphDef's library or the
  // graph's) become StatefulPartitionedCall nodes; their rewritten NodeDefs live here.
  std::map<std::string, const tf::FunctionDef*> functions_here;
  for (const tf::FunctionDef& f : def.library().function()) {
    functions_here.emplace(f.signature().name(), &f);
  }
  std::deque<tf::NodeDef> call_defs;
  std::vector<SourceNode> nodes(static_cast<size_t>(num_nodes));
  std::unordered_map<std::string, int> index_of;
  index_of.reserve(static_cast<size_t>(num_nodes));
  for (int i = 0; i < num_nodes; ++i) {
    const tf::NodeDef& nd = def.node(i);
    SourceNode& n = nodes[static_cast<size_t>(i)];
    n.def = &nd;
    if (nd.name().empty()) {
      return InvalidArgument("Node ", i, " of the GraphDef (op '", nd.op(), "') has an empty name");
    }
    if (!IsValidNodeName(nd.name())) {
      return InvalidArgument("Node '", nd.name(),
                             "' has an invalid name (wanted [A-Za-z0-9.][A-Za-z0-9_.\\-/>]*)");
    }
    auto [it, inserted] = index_of.emplace(nd.name(), i);
    if (!inserted) {
      return InvalidArgument("Node '", nd.name(),
                             "' appears more than once in the GraphDef (nodes ", it->second,
                             " and ", i, ")");
    }
    n.final_name = prefix.empty() ? nd.name() : prefix + "/" + nd.name();
    if (nd.op().empty()) return InvalidArgument("Node '", nd.name(), "' has no op");
    {
      tf::FunctionDef known;
      auto here = functions_here.find(nd.op());
      const tf::FunctionDef* callee = here != functions_here.end() ? here->second : nullptr;
      if (callee == nullptr && g->functions().Find(nd.op(), &known)) callee = &known;
      if (callee != nullptr) {
        call_defs.push_back(nd);
        TG_RETURN_IF_ERROR(RewriteDirectCall(*callee, &call_defs.back()));
        n.def = &call_defs.back();
      }
    }
    TG_ASSIGN_OR_RETURN(n.registration, registry.Lookup(n.def->op(), nd.name()));
    if (auto device = CanonicalDeviceString(nd.device()); !device.ok()) {
      return device.status().Prepend(StrCat("Node '", nd.name(), "': "));
    }
    for (const auto& [attr_name, value] : n.def->attr()) n.attrs.emplace(attr_name, value);
    // Fills in defaults too (AddOperation would add the same ones).
    ResolvedSignature sig;
    TG_RETURN_IF_ERROR(ResolveSignature(n.registration->op_def, nd.name(), &n.attrs, &sig));
    n.output_types = std::move(sig.output_types);
  }

  // ---- colocation constraints ----
  for (SourceNode& n : nodes) {
    auto cls = n.attrs.find("_class");
    if (cls == n.attrs.end() || cls->second.value_case() != tf::AttrValue::kList) continue;
    auto* strings = cls->second.mutable_list()->mutable_s();
    for (std::string& s : *strings) {
      if (s.rfind("loc:@", 0) != 0) continue;
      const std::string other = s.substr(5);
      auto found = index_of.find(other);
      if (found != index_of.end()) {
        s = "loc:@" + nodes[static_cast<size_t>(found->second)].final_name;
      } else if (opts.validate_colocation_constraints) {
        return InvalidArgument("Node '", n.def->name(),
                               "' expects to be colocated with unknown node '", other, "'");
      }
    }
  }

  // ---- inputs and edges ----
  std::set<std::pair<std::string, int>> used_keys;
  std::vector<std::pair<int, int>> edges;  // producer -> consumer
  for (int i = 0; i < num_nodes; ++i) {
    SourceNode& n = nodes[static_cast<size_t>(i)];
    const tf::NodeDef& nd = *n.def;
    bool seen_control = false;
    bool internal_input = false;
    for (int k = 0; k < nd.input_size(); ++k) {
      InputRef in;
      TG_RETURN_IF_ERROR(ParseInput(nd, k, &seen_control, &in));
      const std::pair<std::string, int> key{in.node, in.index};
      if (auto m = opts.input_map.find(key); m != opts.input_map.end()) {
        in.mapped = m->second;
        used_keys.insert(key);
      } else {
        auto src = index_of.find(in.node);
        if (src == index_of.end()) {
          return InvalidArgument("Node '", nd.name(), "': input '", in.text, "' names node '",
                                 in.node, "', which is not in the GraphDef");
        }
        in.source = src->second;
        const auto& src_types = nodes[static_cast<size_t>(in.source)].output_types;
        if (in.index >= static_cast<int>(src_types.size())) {
          return InvalidArgument("Node '", nd.name(), "': input '", in.text, "' refers to output ",
                                 in.index, " of node '", in.node, "', which has ", src_types.size(),
                                 " output(s)");
        }
        internal_input = true;
        if (in.index >= 0 && IsMergeOp(nd.op()) &&
            IsNextIterationOp(nodes[static_cast<size_t>(in.source)].def->op())) {
          in.back_edge = true;
        } else {
          edges.emplace_back(in.source, i);
        }
      }
      (in.index < 0 ? n.control_inputs : n.data_inputs).push_back(std::move(in));
    }
    n.gets_control_dependencies = !internal_input;
  }

  if (std::vector<int> cycle = FindCycle(num_nodes, edges); !cycle.empty()) {
    std::string path;
    const size_t shown = std::min<size_t>(cycle.size(), 16);
    for (size_t k = 0; k < shown; ++k)
      path += "'" + nodes[static_cast<size_t>(cycle[k])].def->name() + "' -> ";
    if (shown < cycle.size()) path += "... -> ";
    path += "'" + nodes[static_cast<size_t>(cycle[0])].def->name() + "'";
    return InvalidArgument("GraphDef has a cycle: node '",
                           nodes[static_cast<size_t>(cycle[0])].def->name(),
                           "' depends on itself through ", path);
  }

  // ---- input_map dtypes and unused keys ----
  ImportResults res;
  for (const auto& [key, target] : opts.input_map) {
    auto src = index_of.find(key.first);
    const bool exists =
        src != index_of.end() &&
        (key.second == -1 ||
         key.second <
             static_cast<int>(nodes[static_cast<size_t>(src->second)].output_types.size()));
    if (exists && key.second >= 0) {
      DataType want =
          nodes[static_cast<size_t>(src->second)].output_types[static_cast<size_t>(key.second)];
      if (BaseType(want) != BaseType(target.dtype())) {
        return InvalidArgument("input_map maps '", KeyString(key), "' (", DataTypeName(want),
                               ") to '", target.Name(), "' (", DataTypeName(target.dtype()),
                               "): the dtypes differ");
      }
    }
    if (!used_keys.count(key) && !exists) res.missing_unused_input_map_keys.push_back(key);
  }

  // ---- what to return ----
  for (const auto& key : opts.return_tensors) {
    if (opts.input_map.count(key) && key.second >= 0) continue;
    auto src = index_of.find(key.first);
    if (src == index_of.end()) {
      return NotFound("Requested return tensor '", KeyString(key), "' is not in the GraphDef");
    }
    const int outputs =
        static_cast<int>(nodes[static_cast<size_t>(src->second)].output_types.size());
    if (key.second < 0 || key.second >= outputs) {
      return InvalidArgument("Requested return tensor '", KeyString(key), "': node '", key.first,
                             "' has ", outputs, " output(s)");
    }
  }
  for (const std::string& name : opts.return_operations) {
    if (!index_of.count(name))
      return NotFound("Requested return operation '", name, "' is not in the GraphDef");
  }

  // ---- names already taken in the destination ----
  for (const SourceNode& n : nodes) {
    if (!IsValidNodeName(n.final_name)) {
      return InvalidArgument("Node '", n.def->name(), "': '", n.final_name,
                             "' is not a valid node name");
    }
    if (g->FindOperation(n.final_name) != nullptr) {
      return AlreadyExists("Node '", n.def->name(), "': a node named '", n.final_name,
                           "' already exists in the graph");
    }
  }

  const std::vector<int> order = StableTopologicalOrder(num_nodes, edges);
  if (static_cast<int>(order.size()) != num_nodes)
    return Internal("ImportGraphDef: topological order incomplete");

  // ---- dry run in a scratch graph ----
  {
    std::vector<Output> standin_targets;
    std::set<Output> seen_targets;
    for (const SourceNode& n : nodes) {
      for (const InputRef& in : n.data_inputs) {
        if (in.mapped && seen_targets.insert(*in.mapped).second)
          standin_targets.push_back(*in.mapped);
      }
    }
    ScratchRegistry scratch_registry;
    TG_RETURN_IF_ERROR(BuildScratchRegistry(nodes, standin_targets, &scratch_registry));
    Graph scratch(&scratch_registry.registry);
    std::set<std::string> taken;
    for (const SourceNode& n : nodes) taken.insert(n.final_name);
    std::map<Output, Output> standins;  // destination tensor -> stand-in
    for (size_t k = 0; k < standin_targets.size(); ++k) {
      const Output& t = standin_targets[k];
      std::string name = StrCat("input_map_standin_", k);
      while (taken.count(name)) name += "_";
      NodeSpec spec;
      spec.name = name;
      spec.exact_name = true;
      spec.apply_context = false;
      spec.infer_attrs_from_inputs = false;
      if (t.op->constant_value() != nullptr) {
        spec.type = t.op->type();
        for (const auto& [attr, value] : t.op->attrs()) {
          if (!attr.starts_with("_")) spec.attrs[attr] = value;
        }
      } else {
        spec.type =
            IsRefType(t.dtype()) ? scratch_registry.ref_standin_op : scratch_registry.standin_op;
        spec.attrs["dtype"] = AttrOfType(BaseType(t.dtype()));
      }
      auto standin = scratch.AddOperation(std::move(spec));
      if (!standin.ok()) {
        return Internal("ImportGraphDef: making a stand-in for '", t.Name(),
                        "': ", standin.status().message());
      }
      Output s{standin.value(), t.op->constant_value() != nullptr ? t.index : 0};
      if (s.dtype() != t.dtype()) {
        return Internal("ImportGraphDef: the stand-in for '", t.Name(), "' has dtype ",
                        DataTypeName(s.dtype()));
      }
      // An unknown shape merged with the target's is exactly the target's.
      if (!(s.shape() == t.shape())) (void)scratch.SetOutputShape(s, t.shape());
      standins.emplace(t, s);
    }
    auto resolve = [&](const Output& t) -> Output {
      auto found = standins.find(t);
      // Not found: a remapped control input, which the dry run leaves out.
      return found == standins.end() ? Output{nullptr, 0} : found->second;
    };
    std::vector<Operation*> created;
    TG_RETURN_IF_ERROR(
        AddNodes(&scratch, nodes, /*consume_attrs=*/false, order, resolve, {}, &created));
  }

  // ---- the real thing ----
  // The library first: checked above, so this cannot fail halfway (and a call node's
  // kernel, made when a plan is, finds its functions).
  if (Status lib = g->functions().Add(def.library()); !lib.ok()) return lib;
  std::vector<Operation*> created;
  Status s = AddNodes(
      g, nodes, /*consume_attrs=*/true, order, [](const Output& t) { return t; },
      opts.control_dependencies, &created);
  if (!s.ok()) {
    return Internal(
        "ImportGraphDef: adding to the destination failed after a successful dry run; "
        "the graph is partially imported: ",
        s.message());
  }
  if (reserve_prefix) {
    std::string reserved = g->UniqueName(opts.prefix, /*mark_used=*/true);
    if (reserved != prefix)
      return Internal("ImportGraphDef: prefix reservation changed to '", reserved, "'");
  }

  for (const auto& key : opts.return_tensors) {
    if (auto m = opts.input_map.find(key); m != opts.input_map.end() && key.second >= 0) {
      res.return_tensors.push_back(m->second);
    } else {
      res.return_tensors.push_back(
          Output{created[static_cast<size_t>(index_of.at(key.first))], key.second});
    }
  }
  for (const std::string& name : opts.return_operations) {
    res.return_operations.push_back(created[static_cast<size_t>(index_of.at(name))]);
  }
  if (results != nullptr) *results = std::move(res);
  return Status::OK();
}

}  // namespace tgraph
