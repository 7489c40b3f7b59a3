// Runs single ops on the CPU plugin's kernels through KernelRunner (the executor's building
// block), for the kernel conformance tests.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kernel_coverage.h"
#include "core/exec/kernel_runner.h"
#include "core/graph/attr_value_util.h"
#include "core/graph/graph.h"
#include "core/plugin/plugin_loader.h"

namespace tgraph::testing {

// Loads the CPU plugin built next to the tests (once per process).
inline void LoadCpuPlugin() {
  static Status status = LoadPlugin(TGRAPH_CPU_PLUGIN_PATH).status();
  ASSERT_TRUE(status.ok()) << status.ToString();
}

template <typename T>
Tensor MakeTensor(DataType dtype, std::vector<int64_t> dims, const std::vector<T>& values) {
  Tensor t = Tensor::Allocate(dtype, std::move(dims)).value();
  EXPECT_EQ(static_cast<size_t>(t.NumElements()), values.size());
  for (size_t i = 0; i < values.size() && i < static_cast<size_t>(t.NumElements()); ++i) {
    t.flat<T>()[i] = values[i];
  }
  return t;
}

template <typename T>
std::vector<T> Values(const Tensor& t) {
  return std::vector<T>(t.flat<T>(), t.flat<T>() + t.NumElements());
}

// Builds a graph with one Placeholder per input (dtype and static shape from the tensor, or
// unknown shape when `known_shapes` is false) feeding a node of `op_type` with `attrs`, then
// runs the node's CPU kernel on `inputs`. Inputs given as ref slots feed a VariableV2 instead.
struct OpRun {
  Status status;
  std::vector<Tensor> outputs;
};

inline OpRun RunOp(const std::string& op_type, const std::vector<Tensor>& inputs, AttrMap attrs = {},
                   bool known_shapes = true, std::vector<VariableSlot*> refs = {}) {
  LoadCpuPlugin();
  OpRun result;
  Graph g;
  NodeSpec spec;
  spec.type = op_type;
  spec.name = "node";
  spec.attrs = std::move(attrs);
  std::vector<KernelInput> run_inputs;
  for (size_t i = 0; i < inputs.size(); ++i) {
    NodeSpec ph;
    bool is_ref = i < refs.size() && refs[i] != nullptr;
    ph.type = is_ref ? "VariableV2" : "Placeholder";
    ph.name = "input" + std::to_string(i);
    ph.attrs["dtype"] = AttrOfType(inputs[i].dtype());
    ph.attrs["shape"] = AttrOfShape(known_shapes || is_ref ? inputs[i].shape() : PartialShape::Unknown());
    auto op = g.AddOperation(std::move(ph));
    if (!op.ok()) {
      result.status = op.status();
      return result;
    }
    spec.inputs.push_back({{op.value()->output(0)}, false});
    KernelInput in;
    in.value = inputs[i];
    if (is_ref) in.ref = refs[i];
    run_inputs.push_back(in);
  }
  auto node = g.AddOperation(std::move(spec));
  if (!node.ok()) {
    result.status = node.status();
    return result;
  }
  auto runner = KernelRunner::Create(*node.value(), "CPU");
  if (!runner.ok()) {
    result.status = runner.status();
    return result;
  }
  KernelCoverage::Get().Record(runner.value()->kernel());
  result.status = runner.value()->Run(run_inputs, &result.outputs);
  return result;
}

}  // namespace tgraph::testing
