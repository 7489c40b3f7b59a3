// The registry of op definitions: each op's OpDef (inputs, outputs, attrs with defaults and
// allowed values, stateful flag) and its shape function. Filled with the standard op set at
// start-up; plugins add custom ops later through the plugin ABI.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/base/status.h"
#include "core/ops/shape_inference.h"
#include "tgraph/proto/op_def.pb.h"

namespace tgraph {

struct OpRegistration {
  tf::OpDef op_def;
  ShapeFn shape_fn;  // empty: outputs get unknown shapes
  // Attrs TensorFlow added after 1.x. GraphDef export leaves them out while they hold their
  // default, so TF 1.x (which rejects attrs it does not know) reads what we write.
  std::vector<std::string> attrs_newer_than_tf1;
};

// Builds an OpDef from TensorFlow-style spec strings:
//   OpDefBuilder("MatMul")
//       .Input("a: T").Input("b: T").Output("product: T")
//       .Attr("transpose_a: bool = false")
//       .Attr("T: {half, bfloat16, float, double, int32, int64}")
//       .SetShapeFn(MatMulShape)
// Input/output specs: "name: T" (type attr), "name: float" (fixed), "name: N * T" (number
// attr), "name: Tlist" (list(type) attr), "name: Ref(T)". Attr specs: "name: type",
// "name: {float, int32} = DT_FLOAT", "name: int >= 1", "name: list(int) = [1, 1]",
// "name: string = 'SAME'", "name: {'SAME', 'VALID'}", "name: shape", "name: tensor",
// "name: bool = true", "name: float = 0.5", "name: list(type) >= 0", "name: func".
class OpDefBuilder {
 public:
  explicit OpDefBuilder(std::string op_name);
  OpDefBuilder& Input(std::string spec);
  OpDefBuilder& Output(std::string spec);
  OpDefBuilder& Attr(std::string spec);
  OpDefBuilder& SetIsStateful();
  OpDefBuilder& SetIsCommutative();
  OpDefBuilder& SetIsAggregate();
  OpDefBuilder& SetAllowsUninitializedInput();
  OpDefBuilder& Doc(std::string summary);
  OpDefBuilder& SetShapeFn(ShapeFn fn);
  // Marks an attr as added after TF 1.x (see OpRegistration::attrs_newer_than_tf1).
  OpDefBuilder& NewerThanTf1(std::string attr_name);
  // Parses every spec; INVALID_ARGUMENT naming the op and the bad spec.
  Status Finalize(OpRegistration* out) const;

 private:
  std::string op_name_;
  std::vector<std::string> inputs_, outputs_, attrs_;
  bool stateful_ = false, commutative_ = false, aggregate_ = false, allows_uninit_ = false;
  std::string summary_;
  ShapeFn shape_fn_;
  std::vector<std::string> newer_than_tf1_;
};

class OpRegistry {
 public:
  OpRegistry() = default;
  // The process-wide registry, with the standard op set registered on first use.
  static OpRegistry* Global();

  // ALREADY_EXISTS if the name is taken; INVALID_ARGUMENT for an inconsistent OpDef
  // (input referring to a missing attr, bad default, ...).
  Status Register(OpRegistration registration);
  Status Register(const OpDefBuilder& builder);
  // All or nothing (a plugin's ops): every OpDef is validated and no name may be taken or
  // appear twice; on any failure nothing is added.
  Status RegisterAll(std::vector<OpRegistration> registrations);
  // nullptr if unknown.
  const OpRegistration* Find(const std::string& op_type) const;
  // NOT_FOUND "Op type not registered 'X'" naming the node when given.
  StatusOr<const OpRegistration*> Lookup(const std::string& op_type,
                                         const std::string& node_name = "") const;
  std::vector<std::string> ListOps() const;  // sorted

 private:
  mutable std::mutex mutex_;
  // Registrations never move once added (Operation keeps pointers to them).
  std::map<std::string, std::unique_ptr<OpRegistration>> ops_;
};

// Adds the core's op definitions (core/ops/*_ops.cc) to `registry`.
Status RegisterStandardOps(OpRegistry* registry);

}  // namespace tgraph
