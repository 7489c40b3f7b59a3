#include "core/graph/collections.h"

#include <regex>

#include "core/graph/variables.h"

namespace tgraph {

CollectionItem CollectionItem::OfOperation(Operation* op) {
  CollectionItem item;
  item.kind = Kind::kOperation;
  item.op = op;
  return item;
}
CollectionItem CollectionItem::OfTensor(Output tensor) {
  CollectionItem item;
  item.kind = Kind::kTensor;
  item.tensor = tensor;
  return item;
}
CollectionItem CollectionItem::OfVariable(Variable* variable) {
  CollectionItem item;
  item.kind = Kind::kVariable;
  item.variable = variable;
  return item;
}
CollectionItem CollectionItem::OfBytes(std::string bytes) {
  CollectionItem item;
  item.kind = Kind::kBytes;
  item.bytes = std::move(bytes);
  return item;
}
CollectionItem CollectionItem::OfInt64(int64_t v) {
  CollectionItem item;
  item.kind = Kind::kInt64;
  item.int64_value = v;
  return item;
}
CollectionItem CollectionItem::OfFloat(float v) {
  CollectionItem item;
  item.kind = Kind::kFloat;
  item.float_value = v;
  return item;
}

std::string CollectionItem::Name() const {
  switch (kind) {
    case Kind::kOperation: return op->name();
    case Kind::kTensor: return tensor.Name();
    case Kind::kVariable: return variable->TensorName();
    default: return "";
  }
}

namespace {

bool SameItem(const CollectionItem& a, const CollectionItem& b) {
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case CollectionItem::Kind::kOperation: return a.op == b.op;
    case CollectionItem::Kind::kTensor: return a.tensor == b.tensor;
    case CollectionItem::Kind::kVariable: return a.variable == b.variable;
    case CollectionItem::Kind::kBytes: return a.bytes == b.bytes;
    case CollectionItem::Kind::kInt64: return a.int64_value == b.int64_value;
    case CollectionItem::Kind::kFloat: return a.float_value == b.float_value;
  }
  return false;
}

}  // namespace

void Collections::Add(const std::string& key, CollectionItem item) {
  items_[key].push_back(std::move(item));
}

void Collections::AddUnique(const std::string& key, CollectionItem item) {
  auto& list = items_[key];
  for (const auto& existing : list)
    if (SameItem(existing, item)) return;
  list.push_back(std::move(item));
}

StatusOr<std::vector<CollectionItem>> Collections::Get(const std::string& key,
                                                       const std::string& scope) const {
  auto it = items_.find(key);
  if (it == items_.end()) return std::vector<CollectionItem>{};
  if (scope.empty()) return it->second;
  std::regex pattern;
  try {
    pattern = std::regex(scope);
  } catch (const std::regex_error& e) {
    return InvalidArgument("collection scope filter '", scope, "' is not a valid regular expression: ",
                           e.what());
  }
  std::vector<CollectionItem> out;
  for (const auto& item : it->second) {
    std::string name = item.Name();
    if (name.empty()) continue;
    if (std::regex_search(name, pattern, std::regex_constants::match_continuous)) out.push_back(item);
  }
  return out;
}

const std::vector<CollectionItem>* Collections::Find(const std::string& key) const {
  auto it = items_.find(key);
  return it == items_.end() ? nullptr : &it->second;
}

std::vector<std::string> Collections::Keys() const {
  std::vector<std::string> keys;
  for (const auto& [key, list] : items_) keys.push_back(key);
  return keys;
}

void Collections::Clear(const std::string& key) { items_.erase(key); }

}  // namespace tgraph
