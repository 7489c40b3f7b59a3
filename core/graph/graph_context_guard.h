// Pushes onto a graph's building context (name scopes, control dependencies, colocation)
// and pops what it pushed, last first, when it goes out of scope, so a builder's early
// returns leave the graph's context as they found it. The caller holds the graph's lock.
#pragma once

#include <string>
#include <vector>

#include "core/base/status.h"
#include "core/graph/graph.h"

namespace tgraph {

class GraphContextGuard {
 public:
  explicit GraphContextGuard(Graph& graph) : graph_(graph) {}
  ~GraphContextGuard() { PopAll(); }
  GraphContextGuard(const GraphContextGuard&) = delete;
  GraphContextGuard& operator=(const GraphContextGuard&) = delete;

  // Opens a name scope ("" resets to the root); returns its full name ("outer/dropout_1").
  StatusOr<std::string> NameScope(const std::string& name);
  Status ControlDependencies(std::vector<Operation*> ops);
  Status ClearControlDependencies();
  Status ColocateWith(Operation* op);
  // Pops everything pushed so far (before the guard's end, when later nodes must not
  // inherit the context).
  void PopAll();

 private:
  Graph& graph_;
  std::vector<Status (Graph::*)()> pops_;
};

}  // namespace tgraph
