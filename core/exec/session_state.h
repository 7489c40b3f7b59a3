// What a session keeps between runs: the storage of its variables. Each session has its own,
// so two sessions on one graph never share variable values.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/exec/kernel_runner.h"
#include "core/graph/operation.h"

namespace tgraph {

class SessionState {
 public:
  // The slot behind the variable op `op` makes (VariableV2 and its kin): keyed, as in
  // TensorFlow, by container and shared_name, or by the node's name when shared_name is
  // empty. Made uninitialized on first use; stable for the session's life.
  VariableSlot* VariableFor(const Operation& op);
  // The same slot, shared: what a resource variable's handle (VarHandleOp) holds, so that a
  // handle fetched out of a run never outlives its variable.
  std::shared_ptr<VariableSlot> SharedVariableFor(const Operation& op);
  // The slot of the variable with `key` (a node name or container/shared_name), or null.
  VariableSlot* FindVariable(const std::string& key) const;
  std::vector<std::string> VariableKeys() const;  // sorted

  static std::string VariableKey(const Operation& op);

 private:
  mutable std::mutex mu_;
  std::unordered_map<std::string, std::shared_ptr<VariableSlot>> variables_;
};

}  // namespace tgraph
