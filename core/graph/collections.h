// Named collections of graph objects (TF's add_to_collection / get_collection). Any string
// key; items are operations, tensors, variables or plain values.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/base/status.h"
#include "core/graph/operation.h"

namespace tgraph {

struct Variable;

// The standard keys (TensorFlow's GraphKeys values).
namespace collection_keys {
inline constexpr const char* kGlobalVariables = "variables";
inline constexpr const char* kTrainableVariables = "trainable_variables";
inline constexpr const char* kLocalVariables = "local_variables";
inline constexpr const char* kModelVariables = "model_variables";
inline constexpr const char* kUpdateOps = "update_ops";
inline constexpr const char* kSummaries = "summaries";
inline constexpr const char* kTrainOp = "train_op";
inline constexpr const char* kLosses = "losses";
inline constexpr const char* kRegularizationLosses = "regularization_losses";
inline constexpr const char* kGlobalStep = "global_step";
}  // namespace collection_keys

struct CollectionItem {
  enum class Kind { kOperation, kTensor, kVariable, kBytes, kInt64, kFloat };
  Kind kind = Kind::kBytes;
  Operation* op = nullptr;       // kOperation
  Output tensor;                 // kTensor
  Variable* variable = nullptr;  // kVariable
  std::string bytes;             // kBytes
  int64_t int64_value = 0;       // kInt64
  float float_value = 0;         // kFloat

  static CollectionItem OfOperation(Operation* op);
  static CollectionItem OfTensor(Output tensor);
  static CollectionItem OfVariable(Variable* variable);
  static CollectionItem OfBytes(std::string bytes);
  static CollectionItem OfInt64(int64_t v);
  static CollectionItem OfFloat(float v);

  // The name a scope filter matches: "op", "op:0", "var:0"; empty for plain values.
  std::string Name() const;
};

class Collections {
 public:
  void Add(const std::string& key, CollectionItem item);
  // Adds unless an equal item (same object or value) is already there.
  void AddUnique(const std::string& key, CollectionItem item);
  // Items in insertion order. With a non-empty scope, only named items whose name matches
  // the regular expression `scope` at its start (TF's re.match); plain values are left out.
  StatusOr<std::vector<CollectionItem>> Get(const std::string& key,
                                            const std::string& scope = "") const;
  const std::vector<CollectionItem>* Find(const std::string& key) const;
  std::vector<std::string> Keys() const;  // sorted
  void Clear(const std::string& key);

 private:
  std::map<std::string, std::vector<CollectionItem>> items_;
};

}  // namespace tgraph
