// The CPU plugin's ResourceApply* and ResourceSparseApply* kernels (TF 2's tf.compat.v1
// optimizers on resource variables), each registration run in a session: the executors bind
// the op's handle inputs to the variables' slots (core/exec/resource_variables.h), which the
// one-op harness of the other kernel tests cannot, so these run through Session::Run and
// record themselves for the coverage check. Every op is built from its OpDef alone: its
// resource inputs are variables of small positive values, its scalars a rate of 0.5 (1e-6
// for epsilon), the gradient fixed; the updated variables must be finite, must have moved,
// and must agree between float and double, and between int32 and int64 indices. (Their
// values against TensorFlow: tests/interop/test_resource_variables.py.)
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "core/exec/session.h"
#include "core/graph/attr_value_util.h"
#include "core/ops/op_registry.h"
#include "core/plugin/registry.h"
#include "kernel_coverage.h"
#include "kernel_test_util.h"

namespace tgraph::testing {
namespace {

// One op's update of its resource inputs, read back as doubles (the variables in input
// order), for value type `t` and index type `index`; the kernel placement picked.
struct Update {
  std::vector<std::vector<double>> variables;
  const KernelRegistration* kernel = nullptr;
};

Tensor Filled(DataType t, std::vector<int64_t> dims, double base, double step) {
  Tensor v = Tensor::Allocate(t, std::move(dims)).value();
  for (int64_t i = 0; i < v.NumElements(); ++i) {
    const double x = base + step * static_cast<double>(i);
    if (t == DT_FLOAT) {
      v.flat<float>()[i] = static_cast<float>(x);
    } else {
      v.flat<double>()[i] = x;
    }
  }
  return v;
}

std::vector<double> Doubles(const Tensor& t) {
  std::vector<double> out;
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    out.push_back(t.dtype() == DT_FLOAT ? static_cast<double>(t.flat<float>()[i]) : t.flat<double>()[i]);
  }
  return out;
}

Update RunUpdate(const std::string& op_type, DataType t, DataType index) {
  Update u;
  Graph g;
  const OpRegistration* reg = OpRegistry::Global()->Find(op_type);
  EXPECT_NE(reg, nullptr) << op_type;
  if (reg == nullptr) return u;
  const bool sparse = op_type.rfind("ResourceSparseApply", 0) == 0;
  // Dense: variables [4]; sparse: [3, 2], rows 0 and 2 updated.
  const std::vector<int64_t> var_dims = sparse ? std::vector<int64_t>{3, 2} : std::vector<int64_t>{4};
  auto add = [&](NodeSpec spec) {
    auto op = g.AddOperation(std::move(spec));
    EXPECT_TRUE(op.ok()) << op_type << ": " << op.status().ToString();
    return op.ok() ? op.value() : nullptr;
  };
  auto constant = [&](const Tensor& v) {
    NodeSpec c;
    c.type = "Const";
    c.attrs = {{"value", AttrOfTensor(v)}, {"dtype", AttrOfType(v.dtype())}};
    return add(std::move(c))->output(0);
  };
  std::vector<Output> handles, inputs;
  std::vector<Operation*> inits;
  const auto& args = reg->op_def.input_arg();
  for (int i = 0; i < args.size(); ++i) {
    const std::string& name = args[i].name();
    if (args[i].type() == tf::DT_RESOURCE) {
      NodeSpec h;
      h.type = "VarHandleOp";
      h.name = name;
      h.attrs = {{"dtype", AttrOfType(t)}, {"shape", AttrOfShape(PartialShape(var_dims))}};
      Output handle = add(std::move(h))->output(0);
      NodeSpec assign;
      assign.type = "AssignVariableOp";
      // (Centered RMSProp's mean gradient mg kept small: its update divides by sqrt(ms - mg^2).)
      const double base = name == "mg" ? 0.05 : 0.5 + 0.25 * i;
      assign.inputs = {{{handle}, false}, {{constant(Filled(t, var_dims, base, name == "mg" ? 0.01 : 0.125))}, false}};
      assign.attrs = {{"dtype", AttrOfType(t)}};
      inits.push_back(add(std::move(assign)));
      handles.push_back(handle);
      inputs.push_back(handle);
    } else if (name == "grad" || name == "delta") {  // (GradientDescent calls it delta)
      inputs.push_back(constant(Filled(t, sparse ? std::vector<int64_t>{2, 2} : var_dims, -0.75, 0.5)));
    } else if (name == "indices") {
      Tensor idx = Tensor::Allocate(index, {2}).value();
      if (index == DT_INT32) {
        idx.flat<int32_t>()[0] = 0;
        idx.flat<int32_t>()[1] = 2;
      } else {
        idx.flat<int64_t>()[0] = 0;
        idx.flat<int64_t>()[1] = 2;
      }
      inputs.push_back(constant(idx));
    } else {
      inputs.push_back(constant(Filled(t, {}, name == "epsilon" ? 1e-6 : 0.5, 0)));
    }
  }
  NodeSpec apply;
  apply.type = op_type;
  apply.name = "apply";
  for (const Output& in : inputs) apply.inputs.push_back({{in}, false});
  Operation* update = add(std::move(apply));
  if (update == nullptr) return u;
  std::vector<Output> reads;
  for (const Output& h : handles) {
    NodeSpec read;
    read.type = "ReadVariableOp";
    read.inputs = {{{h}, false}};
    read.control_inputs = {update};
    read.attrs = {{"dtype", AttrOfType(t)}};
    reads.push_back(add(std::move(read))->output(0));
  }
  u.kernel = KernelRegistry::Global()->FindOrNull(op_type, update->attrs(), "CPU");
  auto session = Session::Create(&g, SessionOptions{});
  EXPECT_TRUE(session.ok()) << session.status().ToString();
  if (!session.ok()) return u;
  std::vector<Tensor> out;
  Status s = (*session)->Run({}, {}, inits, &out);
  EXPECT_TRUE(s.ok()) << op_type << " init: " << s.ToString();
  s = (*session)->Run({}, reads, {}, &out);
  EXPECT_TRUE(s.ok()) << op_type << ": " << s.ToString();
  if (!s.ok()) return u;
  for (const Tensor& v : out) u.variables.push_back(Doubles(v));
  return u;
}

TEST(ResourceApplyKernelTest, EveryRegistrationUpdatesItsVariables) {
  LoadCpuPlugin();
  int ops = 0;
  for (const std::string& op : OpRegistry::Global()->ListOps()) {
    const bool sparse = op.rfind("ResourceSparseApply", 0) == 0;
    if (!sparse && op.rfind("ResourceApply", 0) != 0) continue;
    bool has_cpu = false;
    for (const KernelRegistration* k : KernelRegistry::Global()->KernelsFor(op)) has_cpu |= k->device_type == "CPU";
    if (!has_cpu) continue;
    ++ops;
    SCOPED_TRACE(op);
    std::vector<Update> runs;
    for (DataType t : {DT_FLOAT, DT_DOUBLE}) {
      for (DataType index : sparse ? std::vector<DataType>{DT_INT32, DT_INT64} : std::vector<DataType>{DT_INT32}) {
        Update u = RunUpdate(op, t, index);
        ASSERT_NE(u.kernel, nullptr) << DataTypeName(t) << " " << DataTypeName(index);
        ASSERT_FALSE(u.variables.empty());
        KernelCoverage::Get().Record(*u.kernel);
        runs.push_back(std::move(u));
      }
    }
    // The variable moved, every value is finite, and the dtypes and index types agree.
    const std::vector<double>& var = runs[0].variables[0];
    EXPECT_NE(var, Doubles(Filled(DT_DOUBLE, sparse ? std::vector<int64_t>{3, 2} : std::vector<int64_t>{4}, 0.5, 0.125)));
    if (sparse) {  // row 1 (not in the indices) stays
      EXPECT_DOUBLE_EQ(var[2], 0.75);
      EXPECT_DOUBLE_EQ(var[3], 0.875);
    }
    for (const Update& u : runs) {
      ASSERT_EQ(u.variables.size(), runs[0].variables.size());
      for (size_t v = 0; v < u.variables.size(); ++v) {
        ASSERT_EQ(u.variables[v].size(), runs[0].variables[v].size());
        for (size_t i = 0; i < u.variables[v].size(); ++i) {
          EXPECT_TRUE(std::isfinite(u.variables[v][i])) << "variable " << v << " element " << i;
          EXPECT_NEAR(u.variables[v][i], runs[0].variables[v][i], 1e-5 * std::max(1.0, std::abs(runs[0].variables[v][i])))
              << "variable " << v << " element " << i;
        }
      }
    }
  }
  EXPECT_GE(ops, 10);
}

}  // namespace
}  // namespace tgraph::testing
