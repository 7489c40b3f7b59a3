// What a shape function sees while an op is being created: input dtypes and static shapes,
// attrs, and constant input values where the producer is a Const.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/base/shape.h"
#include "core/base/status.h"
#include "core/base/tensor.h"
#include "core/graph/attr_map.h"

namespace tgraph {

class InferenceContext {
 public:
  InferenceContext(const std::string& node_name, const std::string& op_type,
                   const AttrMap& attrs, std::vector<DataType> input_types,
                   std::vector<PartialShape> input_shapes,
                   std::vector<const Tensor*> input_values, int num_outputs);

  const std::string& node_name() const { return node_name_; }
  const std::string& op_type() const { return op_type_; }
  const AttrMap& attrs() const { return attrs_; }

  int num_inputs() const { return static_cast<int>(input_shapes_.size()); }
  DataType input_type(int i) const { return input_types_[static_cast<size_t>(i)]; }
  const PartialShape& input_shape(int i) const { return input_shapes_[static_cast<size_t>(i)]; }
  // The input's value when known at construction (a Const producer), else nullptr.
  const Tensor* input_value(int i) const { return input_values_[static_cast<size_t>(i)]; }

  int num_outputs() const { return static_cast<int>(output_shapes_.size()); }
  void set_output(int i, PartialShape shape) {
    output_shapes_[static_cast<size_t>(i)] = std::move(shape);
  }
  const std::vector<PartialShape>& output_shapes() const { return output_shapes_; }

  // Typed attr access; INVALID_ARGUMENT naming the node and attr when absent or mistyped.
  Status GetAttr(const std::string& name, int64_t* value) const;
  Status GetAttr(const std::string& name, bool* value) const;
  Status GetAttr(const std::string& name, float* value) const;
  Status GetAttr(const std::string& name, DataType* value) const;
  Status GetAttr(const std::string& name, std::string* value) const;
  Status GetAttr(const std::string& name, PartialShape* value) const;
  Status GetAttr(const std::string& name, std::vector<int64_t>* value) const;
  Status GetAttr(const std::string& name, std::vector<DataType>* value) const;
  Status GetAttr(const std::string& name, std::vector<std::string>* value) const;

  // Input `input` must have rank `rank` (unknown rank becomes that many unknown dims);
  // otherwise an Error naming the input and its shape.
  Status WithRank(int input, int rank, PartialShape* out) const;

  // An INVALID_ARGUMENT that names the op: "MatMul 'm': <message>".
  template <typename... Args>
  Status Error(const Args&... args) const {
    return InvalidArgument(op_type_, " '", node_name_, "': ", args...);
  }

 private:
  std::string node_name_;
  std::string op_type_;
  const AttrMap& attrs_;
  std::vector<DataType> input_types_;
  std::vector<PartialShape> input_shapes_;
  std::vector<const Tensor*> input_values_;
  std::vector<PartialShape> output_shapes_;
};

using ShapeFn = std::function<Status(InferenceContext& context)>;

// Shape functions shared by many ops.
namespace shape_fns {
// Every output gets unknown shape (the default when an op has no shape function).
Status UnknownShape(InferenceContext& c);
// Output 0 has input 0's shape.
Status UnchangedShape(InferenceContext& c);
// Each output has the shape of the input of its index (IdentityN; a loop's or a gradient
// call's outputs).
Status UnchangedShapes(InferenceContext& c);
// Output 0 is a scalar.
Status ScalarShape(InferenceContext& c);
// NumPy broadcasting of inputs 0 and 1; incompatible static dims are an error.
Status BroadcastBinaryOpShape(InferenceContext& c);
// Broadcasts two shapes; INVALID_ARGUMENT when incompatible.
Status BroadcastShapes(const PartialShape& a, const PartialShape& b, PartialShape* out);
// Every input must be compatible; output 0 is their merge (AddN and friends).
Status MergeAllInputsShape(InferenceContext& c);
// Output 0 is the op's `shape` attr (Placeholder, VariableV2, ...).
Status ShapeFromAttr(InferenceContext& c);
// The values of input `i` when it is a known int32/int64 constant (any rank, flattened);
// nullopt otherwise.
std::optional<std::vector<int64_t>> ConstInts(const InferenceContext& c, int i);
}  // namespace shape_fns

}  // namespace tgraph
