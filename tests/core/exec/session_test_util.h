// The fixture of the core Session tests: a graph, ops built from specs, variables, and
// sessions on the CPU plugin.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "core/exec/session.h"
#include "core/graph/attr_value_util.h"
#include "core/graph/variables.h"
#include "core/plugin/plugin_loader.h"

namespace tgraph {

inline void LoadCpu() {
  static Status status = LoadPlugin(TGRAPH_CPU_PLUGIN_PATH).status();
  ASSERT_TRUE(status.ok()) << status.ToString();
}

inline Tensor Scalar(float v) {
  Tensor t = Tensor::Allocate(DT_FLOAT, {}).value();
  *t.flat<float>() = v;
  return t;
}

inline Tensor Matrix(int64_t rows, int64_t cols, float fill) {
  Tensor t = Tensor::Allocate(DT_FLOAT, {rows, cols}).value();
  for (int64_t i = 0; i < rows * cols; ++i) t.flat<float>()[i] = fill;
  return t;
}

class SessionTest : public ::testing::Test {
 protected:
  void SetUp() override { LoadCpu(); }

  // AddN of four independent 128x128 MatMuls of a constant: branches worth other threads
  // (the parallel plan's test case). Every element of the sum is 4 * 128 * 0.25.
  Output SumOfFourMatMuls() {
    Output a = Const(Matrix(128, 128, 0.5f));
    std::vector<Output> branches;
    for (int i = 0; i < 4; ++i) branches.push_back(Op("MatMul", {a, a})->output(0));
    NodeSpec add;
    add.type = "AddN";
    add.inputs.push_back({branches, true});
    return g_.AddOperation(std::move(add)).value()->output(0);
  }

  Operation* Op(const std::string& type, std::vector<Output> inputs, AttrMap attrs = {},
                const std::string& name = "") {
    NodeSpec spec;
    spec.type = type;
    spec.name = name;
    for (const Output& o : inputs) spec.inputs.push_back({{o}, false});
    spec.attrs = std::move(attrs);
    auto op = g_.AddOperation(std::move(spec));
    EXPECT_TRUE(op.ok()) << op.status().ToString();
    return op.ok() ? op.value() : nullptr;
  }
  Output Const(const Tensor& t, const std::string& name = "") {
    return Op("Const", {}, {{"value", AttrOfTensor(t)}, {"dtype", AttrOfType(t.dtype())}}, name)->output(0);
  }
  Output Placeholder(PartialShape shape, const std::string& name = "") {
    return Op("Placeholder", {}, {{"dtype", AttrOfType(DT_FLOAT)}, {"shape", AttrOfShape(shape)}}, name)
        ->output(0);
  }
  Variable* Var(float init, const std::string& name) {
    VariableOptions options;
    options.name = name;
    auto v = g_.variables().CreateVariableFromTensor(Scalar(init), options);
    EXPECT_TRUE(v.ok()) << v.status().ToString();
    return v.value();
  }
  std::unique_ptr<Session> NewSession(SessionOptions options = {}) {
    auto s = Session::Create(&g_, std::move(options));
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    return std::move(s).value();
  }
  static float Value(const Tensor& t) { return *t.flat<float>(); }

  Graph g_;
};

}  // namespace tgraph
