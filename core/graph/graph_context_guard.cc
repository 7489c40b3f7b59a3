#include "core/graph/graph_context_guard.h"

namespace tgraph {

StatusOr<std::string> GraphContextGuard::NameScope(const std::string& name) {
  StatusOr<std::string> scope = graph_.PushNameScope(name);
  if (scope.ok()) pops_.push_back(&Graph::PopNameScope);
  return scope;
}

Status GraphContextGuard::ControlDependencies(std::vector<Operation*> ops) {
  TG_RETURN_IF_ERROR(graph_.PushControlDependencies(std::move(ops)));
  pops_.push_back(&Graph::PopControlDependencies);
  return Status::OK();
}

Status GraphContextGuard::ClearControlDependencies() {
  TG_RETURN_IF_ERROR(graph_.PushClearControlDependencies());
  pops_.push_back(&Graph::PopControlDependencies);
  return Status::OK();
}

Status GraphContextGuard::ColocateWith(Operation* op) {
  TG_RETURN_IF_ERROR(graph_.PushColocateWith(op));
  pops_.push_back(&Graph::PopColocateWith);
  return Status::OK();
}

void GraphContextGuard::PopAll() {
  for (auto it = pops_.rbegin(); it != pops_.rend(); ++it) (void)(graph_.*(*it))();
  pops_.clear();
}

}  // namespace tgraph
