// A graph's function library: the FunctionDefs (and gradient pairings) of GraphDef.library,
// kept with the graph so that export writes them back, and their instantiations — each
// FunctionDef with its attrs substituted (type placeholders "T") turned into a Graph of its
// own that the call kernels (core/exec/function_kernels.cc) run as a sub-plan.
//
// A body graph has one Placeholder per input arg (named after it, dtype resolved, shape
// unknown: a call's inputs may be any shape the caller gives; a list arg — `number_attr` or
// `type_list_attr` — has one per element, "<arg>_<i>", and its name as an input means them
// all, as "node:out_arg" means a whole output arg), its body nodes with the
// FunctionDef's "node:output_arg:index" inputs turned into flat "node:k" ones, and knows which
// of its tensors are the function's results. It shares the library of the graph it came from
// (a body may call other functions, or itself).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/base/dtype.h"
#include "core/base/status.h"
#include "core/graph/attr_map.h"
#include "core/graph/operation.h"
#include "tgraph/proto/function.pb.h"

namespace tgraph {

class Graph;
class OpRegistry;

// One instantiation of a function: its body as a graph, ready to plan.
struct FunctionBody {
  std::string name;  // the FunctionDef's name
  std::unique_ptr<Graph> graph;
  std::vector<Output> args;  // per input arg: its Placeholder
  std::vector<DataType> arg_types;
  std::vector<Output> rets;  // per output arg, in signature order
  std::vector<DataType> ret_types;
  // What runs besides what the results need: control_ret nodes and stateful nodes (TF runs
  // a function body's side effects whether or not its outputs are used).
  std::vector<Operation*> targets;
  ~FunctionBody();
};

class FunctionLibrary {
 public:
  explicit FunctionLibrary(const OpRegistry* registry) : registry_(registry) {}
  ~FunctionLibrary();
  FunctionLibrary(const FunctionLibrary&) = delete;
  FunctionLibrary& operator=(const FunctionLibrary&) = delete;

  // INVALID_ARGUMENT when `lib` has a function without a name, a name twice, or a name this
  // library holds with another definition (the same definition again is fine, as when a
  // GraphDef is imported twice); the same for gradient pairings. Adds nothing then.
  Status Check(const tf::FunctionDefLibrary& lib) const;
  // Check, then adds every function and gradient not already here.
  Status Add(const tf::FunctionDefLibrary& lib);

  bool empty() const;
  int size() const;
  bool Contains(const std::string& name) const;
  // Copies the definition of `name` into *out; false when there is none.
  bool Find(const std::string& name, tf::FunctionDef* out) const;
  // Everything, functions sorted by name (deterministic export).
  void ToProto(tf::FunctionDefLibrary* out) const;

  // The body of `name` with `attrs` (a call's NameAttrList attrs) substituted, built once per
  // (name, attrs) and kept for the library's life. INVALID_ARGUMENT naming the function for
  // an unknown name, an attr placeholder without a value, an input naming no node or arg,
  // or a body that does not import. Args and results are flat: a list arg's elements are
  // args of their own, in order.
  StatusOr<const FunctionBody*> Instantiate(const std::string& name, const AttrMap& attrs);

  // A body derived from the library's functions (a function's symbolic gradient,
  // core/autodiff/function_grad.h), built by `build` the first time `key` is asked for and
  // kept for the library's life like an instantiation. `build` runs without the library's
  // locks (it may instantiate other functions); when two threads build the same key at once,
  // the first to finish is kept.
  StatusOr<const FunctionBody*> Derived(
      const std::string& key, const std::function<StatusOr<std::unique_ptr<FunctionBody>>()>& build);
  // The instantiation cache's key of (name, attrs): what Derived keys are made from.
  static std::string InstanceKey(const std::string& name, const AttrMap& attrs);

 private:
  const OpRegistry* registry_;
  mutable std::mutex mu_;
  std::map<std::string, tf::FunctionDef> functions_;
  std::map<std::string, std::string> gradients_;  // function -> its gradient function
  std::vector<tf::RegisteredGradient> registered_gradients_;
  std::mutex instantiate_mu_;  // one instantiation at a time (they may nest: a body's import)
  std::map<std::string, std::unique_ptr<FunctionBody>> instances_;  // key: name + attrs
  std::map<std::string, std::unique_ptr<FunctionBody>> derived_;  // guarded by mu_
};

// TF1's Defun calls: a node whose op type is a function's name. Rewrites `node` (a call of
// `fdef`) into the StatefulPartitionedCall that does the same: Tin / Tout from the
// signature (type attrs read from the node's attrs), f = the function with the node's own
// attrs. The outputs keep their order, so "node:k" still names result k. INVALID_ARGUMENT
// naming the node for a type or length attr it lacks (list args expand into Tin / Tout).
Status RewriteDirectCall(const tf::FunctionDef& fdef, tf::NodeDef* node);

// Builds `name`'s body (no caching): what Instantiate does. `library` is the body graph's.
StatusOr<std::unique_ptr<FunctionBody>> InstantiateFunction(const tf::FunctionDef& fdef,
                                                            const AttrMap& attrs,
                                                            const OpRegistry& registry,
                                                            FunctionLibrary* library);

}  // namespace tgraph
