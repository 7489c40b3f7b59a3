// Small builders shared by the core graph tests.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/graph/attr_value_util.h"
#include "core/graph/graph.h"

namespace tgraph::testing {

inline Operation* MustAdd(Graph& g, NodeSpec spec) {
  auto op = g.AddOperation(std::move(spec));
  EXPECT_TRUE(op.ok()) << op.status().ToString();
  return op.ok() ? op.value() : nullptr;
}

inline Tensor ScalarFloat(float v) {
  Tensor t = Tensor::Allocate(DT_FLOAT, {}).value();
  *t.flat<float>() = v;
  return t;
}

inline Tensor FloatMatrix(int64_t rows, int64_t cols, float fill = 1.0f) {
  Tensor t = Tensor::Allocate(DT_FLOAT, {rows, cols}).value();
  for (int64_t i = 0; i < rows * cols; ++i) t.flat<float>()[i] = fill;
  return t;
}

inline NodeSpec ConstSpec(const Tensor& value, const std::string& name = "") {
  NodeSpec spec;
  spec.type = "Const";
  spec.name = name;
  spec.attrs["value"] = AttrOfTensor(value);
  spec.attrs["dtype"] = AttrOfType(value.dtype());
  return spec;
}

inline Operation* Const(Graph& g, float v, const std::string& name = "") {
  return MustAdd(g, ConstSpec(ScalarFloat(v), name));
}

inline NodeSpec UnarySpec(const std::string& type, Output in, const std::string& name = "") {
  NodeSpec spec;
  spec.type = type;
  spec.name = name;
  spec.inputs = {{{in}, false}};
  return spec;
}

inline NodeSpec BinarySpec(const std::string& type, Output a, Output b, const std::string& name = "") {
  NodeSpec spec;
  spec.type = type;
  spec.name = name;
  spec.inputs = {{{a}, false}, {{b}, false}};
  return spec;
}

inline NodeSpec NoOpSpec(const std::string& name = "") {
  NodeSpec spec;
  spec.type = "NoOp";
  spec.name = name;
  return spec;
}

inline std::vector<std::string> Names(const std::vector<Operation*>& ops) {
  std::vector<std::string> names;
  for (Operation* op : ops) names.push_back(op->name());
  return names;
}

}  // namespace tgraph::testing
