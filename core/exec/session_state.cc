#include "core/exec/session_state.h"

#include <algorithm>

namespace tgraph {

std::string SessionState::VariableKey(const Operation& op) {
  std::string container, shared_name;
  if (const tf::AttrValue* c = op.FindAttr("container")) container = c->s();
  if (const tf::AttrValue* s = op.FindAttr("shared_name")) shared_name = s->s();
  if (shared_name.empty()) shared_name = op.name();
  return container.empty() ? shared_name : container + "/" + shared_name;
}

VariableSlot* SessionState::VariableFor(const Operation& op) { return SharedVariableFor(op).get(); }

std::shared_ptr<VariableSlot> SessionState::SharedVariableFor(const Operation& op) {
  const std::string key = VariableKey(op);
  std::lock_guard<std::mutex> lock(mu_);
  auto& slot = variables_[key];
  if (slot == nullptr) {
    slot = std::make_shared<VariableSlot>();
    slot->name = op.name();
  }
  return slot;
}

VariableSlot* SessionState::FindVariable(const std::string& key) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = variables_.find(key);
  return it == variables_.end() ? nullptr : it->second.get();
}

std::vector<std::string> SessionState::VariableKeys() const {
  std::vector<std::string> keys;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [key, slot] : variables_) keys.push_back(key);
  }
  std::sort(keys.begin(), keys.end());
  return keys;
}

}  // namespace tgraph
