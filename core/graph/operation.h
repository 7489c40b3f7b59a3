// An operation (node) of a Graph and the handles of its tensors. Operations are created by
// Graph::AddOperation and owned by their Graph; pointers stay valid for the graph's life.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/base/dtype.h"
#include "core/base/shape.h"
#include "core/base/tensor.h"
#include "core/graph/attr_map.h"

namespace tgraph {

class Graph;
class Operation;
struct OpRegistration;

// A tensor handle: output `index` of `op`, printed "op:index".
struct Output {
  Operation* op = nullptr;
  int index = 0;
  bool operator==(const Output& o) const { return op == o.op && index == o.index; }
  bool operator<(const Output& o) const;
  std::string Name() const;
  DataType dtype() const;
  const PartialShape& shape() const;
};

// A consumer slot: input `index` of `op`.
struct Input {
  Operation* op = nullptr;
  int index = 0;
  bool operator==(const Input& o) const { return op == o.op && index == o.index; }
};

// Which flat inputs (or outputs) belong to one argument of the OpDef.
struct ArgRange {
  int start = 0;
  int count = 0;
};

class Operation {
 public:
  Graph* graph() const { return graph_; }
  // Position in creation order; also the index in Graph::operations().
  int id() const { return id_; }
  const std::string& name() const { return name_; }
  const std::string& type() const { return type_; }
  // Canonical device string ("/device:GPU:0", "/job:w/device:CPU:0") or "" if unspecified.
  const std::string& device() const { return device_; }
  const OpRegistration& registration() const { return *registration_; }
  bool is_stateful() const;

  int num_inputs() const { return static_cast<int>(inputs_.size()); }
  Output input(int i) const { return inputs_[static_cast<size_t>(i)]; }
  const std::vector<Output>& inputs() const { return inputs_; }
  // The dtype the op expects at input i (a _REF type for ref inputs).
  DataType input_type(int i) const { return input_types_[static_cast<size_t>(i)]; }
  const std::vector<Operation*>& control_inputs() const { return control_inputs_; }
  const std::vector<Operation*>& control_outputs() const { return control_outputs_; }

  int num_outputs() const { return static_cast<int>(outputs_.size()); }
  Output output(int i) { return Output{this, i}; }
  DataType output_type(int i) const { return outputs_[static_cast<size_t>(i)].dtype; }
  const PartialShape& output_shape(int i) const { return outputs_[static_cast<size_t>(i)].shape; }
  const std::vector<Input>& consumers(int i) const {
    return outputs_[static_cast<size_t>(i)].consumers;
  }

  // Argument name → flat range, per the OpDef (lists have count > 1).
  const std::vector<ArgRange>& input_args() const { return input_args_; }
  const std::vector<ArgRange>& output_args() const { return output_args_; }
  // Flat range of the named input/output argument; count == -1 if there is no such argument.
  ArgRange InputArgRange(const std::string& arg_name) const;
  ArgRange OutputArgRange(const std::string& arg_name) const;

  // Every attr, defaults filled in.
  const AttrMap& attrs() const { return attrs_; }
  const tf::AttrValue* FindAttr(const std::string& name) const;

  // The "loc:@name" groups this op is colocated with: its `_class` attr, or its own name.
  std::vector<std::string> ColocationGroups() const;

  // A Const's value, parsed once when the op was created; nullptr for other ops.
  const Tensor* constant_value() const { return constant_value_.get(); }

 private:
  friend class Graph;
  struct OutputSlot {
    DataType dtype = DT_INVALID;
    PartialShape shape;
    std::vector<Input> consumers;
  };

  Graph* graph_ = nullptr;
  int id_ = -1;
  std::string name_;
  std::string type_;
  std::string device_;
  const OpRegistration* registration_ = nullptr;
  AttrMap attrs_;
  std::vector<Output> inputs_;
  std::vector<DataType> input_types_;
  std::vector<ArgRange> input_args_;
  std::vector<ArgRange> output_args_;
  std::vector<Operation*> control_inputs_;
  std::vector<Operation*> control_outputs_;
  std::vector<OutputSlot> outputs_;
  std::shared_ptr<const Tensor> constant_value_;
};

}  // namespace tgraph
