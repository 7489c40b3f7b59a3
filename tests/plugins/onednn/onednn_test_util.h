// Runs one node twice, on the oneDNN plugin's kernel and on the CPU plugin's Eigen kernel that
// it outranks (KernelRunner::CreateWithKernel picks each by plugin), from the same inputs,
// and compares: both fail alike (code and message) or both succeed with the same shapes and
// values within fp32 tolerance. Each node runs inline and on a two-thread intra-op pool.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "core/exec/kernel_runner.h"
#include "core/exec/thread_pool.h"
#include "core/graph/attr_value_util.h"
#include "core/graph/graph.h"
#include "core/plugin/plugin_loader.h"
#include "core/plugin/registry.h"

namespace tgraph::onednn_test {

// Loads the CPU plugin, then the oneDNN plugin (once per process).
inline void LoadPlugins() {
  static const Status cpu = LoadPlugin(TGRAPH_CPU_PLUGIN_PATH).status();
  ASSERT_TRUE(cpu.ok()) << cpu.ToString();
  static const Status onednn = LoadPlugin(TGRAPH_ONEDNN_PLUGIN_PATH).status();
  ASSERT_TRUE(onednn.ok()) << onednn.ToString();
}

// The CPU kernel for `op_type` with `attrs` that plugin `plugin` ("cpu", "onednn")
// registered, or null.
inline const KernelRegistration* KernelOf(const std::string& plugin, const std::string& op_type,
                                          const AttrMap& attrs) {
  for (const KernelRegistration* k : KernelRegistry::Global()->KernelsFor(op_type)) {
    if (k->device_type == "CPU" && k->plugin != nullptr && k->plugin->name == plugin &&
        k->Matches(attrs)) {
      return k;
    }
  }
  return nullptr;
}

inline ThreadPool* TwoThreadPool() {
  static ThreadPool pool(2);
  return &pool;
}

// Uniform values in [-1, 1).
inline Tensor RandomFloats(std::vector<int64_t> dims, uint32_t seed) {
  Tensor t = Tensor::Allocate(DT_FLOAT, std::move(dims)).value();
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (int64_t i = 0; i < t.NumElements(); ++i) t.flat<float>()[i] = dist(gen);
  return t;
}

inline Tensor Int32s(const std::vector<int64_t>& values) {
  Tensor t = Tensor::Allocate(DT_INT32, {static_cast<int64_t>(values.size())}).value();
  for (size_t i = 0; i < values.size(); ++i) t.flat<int32_t>()[i] = static_cast<int32_t>(values[i]);
  return t;
}

// Concatenates anything streamable (GCC 12 -O3 warns falsely on "literal" + std::string&&).
template <typename... Parts>
std::string Str(const Parts&... parts) {
  std::ostringstream out;
  (out << ... << parts);
  return out.str();
}

inline std::string DimsString(const std::vector<int64_t>& dims) {
  std::ostringstream out;
  out << "[";
  for (size_t i = 0; i < dims.size(); ++i) out << (i ? "," : "") << dims[i];
  out << "]";
  return out.str();
}

// MatMul "mm" (T = dtype, transpose_a/_b = ta/tb) of two Placeholders "a" and "b" of unknown
// shape, added to `graph`: one kernel then sees shapes that change from run to run.
inline const Operation* AddMatMulOfUnknownShapes(Graph& graph, DataType dtype, bool ta,
                                                 bool tb) {
  std::vector<Output> in;
  for (const char* name : {"a", "b"}) {
    NodeSpec p;
    p.type = "Placeholder";
    p.name = name;
    p.attrs["dtype"] = AttrOfType(dtype);
    p.attrs["shape"] = AttrOfShape(PartialShape::Unknown());
    in.push_back(graph.AddOperation(std::move(p)).value()->output(0));
  }
  NodeSpec mm;
  mm.type = "MatMul";
  mm.name = "mm";
  mm.attrs = {{"T", AttrOfType(dtype)}, {"transpose_a", AttrOfBool(ta)}, {"transpose_b", AttrOfBool(tb)}};
  mm.inputs = {{{in[0]}, false}, {{in[1]}, false}};
  return graph.AddOperation(std::move(mm)).value();
}

// One input of the node: a Placeholder fed `value`, or a Const of it (shape inputs).
// `list` > 0: this input starts a list argument of `list` inputs (this and the next ones);
// < 0: an empty list argument (no input at all).
struct Arg {
  Tensor value;
  bool as_const = false;
  int list = 0;
};
inline Arg In(Tensor t) { return Arg{std::move(t), false}; }
inline Arg ConstIn(Tensor t) { return Arg{std::move(t), true}; }
inline Arg ListIn(Tensor t, int size = 1) { return Arg{std::move(t), false, size}; }
inline Arg EmptyList() { return Arg{Tensor(), false, -1}; }

struct Outcome {
  Status status;
  std::vector<Tensor> outputs;
};

// Element e of a float or bfloat16 tensor.
inline double ValueAt(const Tensor& t, int64_t e) {
  if (t.dtype() == DT_FLOAT) return t.flat<float>()[e];
  const uint32_t bits = static_cast<uint32_t>(reinterpret_cast<const uint16_t*>(t.data())[e]) << 16;
  float f = 0;
  std::memcpy(&f, &bits, 4);
  return f;
}

// Adds a node of `op_type` with `attrs` to `graph`, its inputs made from `args` (Placeholders
// or Consts, in order; their values appended to `values`). Null (and a test failure) when
// the graph refuses it.
inline Operation* AddNode(Graph& graph, const std::string& op_type, const std::vector<Arg>& args,
                          AttrMap attrs, bool known_shapes, std::vector<Tensor>* values) {
  NodeSpec spec;
  spec.type = op_type;
  spec.name = "node";
  spec.attrs = std::move(attrs);
  int k = 0;
  int list_left = 0;  // inputs still to join the current list argument
  for (const Arg& a : args) {
    if (a.list < 0) {
      spec.inputs.push_back({{}, true});
      continue;
    }
    NodeSpec producer;
    producer.name = "input" + std::to_string(k++);
    producer.type = a.as_const ? "Const" : "Placeholder";
    producer.attrs["dtype"] = AttrOfType(a.value.dtype());
    if (a.as_const) {
      producer.attrs["value"] = AttrOfTensor(a.value);
    } else {
      producer.attrs["shape"] = AttrOfShape(known_shapes ? a.value.shape() : PartialShape::Unknown());
    }
    auto op = graph.AddOperation(std::move(producer));
    EXPECT_TRUE(op.ok()) << op.status().ToString();
    if (!op.ok()) return nullptr;
    if (list_left > 0) {
      spec.inputs.back().tensors.push_back(op.value()->output(0));
      --list_left;
    } else {
      spec.inputs.push_back({{op.value()->output(0)}, a.list > 0});
      list_left = a.list > 0 ? a.list - 1 : 0;
    }
    values->push_back(a.value);
  }
  auto node = graph.AddOperation(std::move(spec));
  EXPECT_TRUE(node.ok()) << node.status().ToString();
  return node.ok() ? node.value() : nullptr;
}

class TwoKernelNode {
 public:
  // `known_shapes` false gives the Placeholders unknown shapes, so that bad shapes reach the
  // kernels instead of being refused by the shape function.
  TwoKernelNode(const std::string& op_type, std::vector<Arg> args, AttrMap attrs,
                bool known_shapes = true, DataType dtype = DT_FLOAT) {
    Build(op_type, std::move(args), std::move(attrs), known_shapes, dtype);
  }

  void Build(const std::string& op_type, std::vector<Arg> args, AttrMap attrs,
             bool known_shapes, DataType dtype) {
    LoadPlugins();
    dtype_ = dtype;
    attrs["T"] = AttrOfType(dtype);
    node_ = AddNode(graph_, op_type, args, std::move(attrs), known_shapes, &inputs_);
    ASSERT_NE(node_, nullptr);
    eigen_ = KernelOf("cpu", op_type, node_->attrs());
    onednn_ = KernelOf("onednn", op_type, node_->attrs());
    ASSERT_NE(eigen_, nullptr) << "no Eigen kernel for " << op_type;
    ASSERT_NE(onednn_, nullptr) << "no oneDNN kernel for " << op_type;
    // The oneDNN kernel is the one sessions pick.
    ASSERT_EQ(KernelRegistry::Global()->FindOrNull(op_type, node_->attrs(), "CPU"), onednn_);
    ready_ = true;
  }

  static std::string DeclineReason(const std::string& message) {
    const size_t at = message.find(" declined node '");
    return at == std::string::npos ? message : message.substr(at);
  }

  static Outcome RunWith(const Operation& node, const KernelRegistration& kernel,
                         const std::vector<Tensor>& inputs, ThreadPool* pool, int runs) {
    Outcome o;
    auto runner = KernelRunner::CreateWithKernel(node, kernel, pool);
    if (!runner.ok()) {
      o.status = runner.status();
      return o;
    }
    // Later runs reuse the kernel's cached primitive; they must give the same result.
    for (int i = 0; i < runs && o.status.ok(); ++i) {
      o.outputs.clear();
      o.status = runner.value()->Run(inputs, &o.outputs);
    }
    return o;
  }

  // Both kernels, inline and on the pool; `reduction` is the length of the sums each output
  // element is (the tolerance grows with it).
  void ExpectSame(int64_t reduction, const std::string& what) {
    ASSERT_TRUE(ready_) << what << ": the node was not built";
    for (ThreadPool* pool : {static_cast<ThreadPool*>(nullptr), TwoThreadPool()}) {
      SCOPED_TRACE(Str(what, pool ? " (pool)" : " (inline)"));
      const Outcome want = RunWith(*node_, *eigen_, inputs_, pool, 1);
      const Outcome got = RunWith(*node_, *onednn_, inputs_, pool, 2);
      ASSERT_EQ(got.status.code(), want.status.code()) << "oneDNN: " << got.status.ToString()
                                                       << "\nEigen: " << want.status.ToString();
      // A node both kernels decline (plugin ABI 6) is named with each kernel and plugin;
      // the reasons must agree.
      EXPECT_EQ(DeclineReason(got.status.message()), DeclineReason(want.status.message()));
      if (!want.status.ok()) continue;
      ASSERT_EQ(got.outputs.size(), want.outputs.size());
      for (size_t i = 0; i < want.outputs.size(); ++i) {
        const Tensor& w = want.outputs[i];
        const Tensor& g = got.outputs[i];
        ASSERT_EQ(g.dtype(), dtype_);
        ASSERT_EQ(g.dims(), w.dims());
        // Inputs are in [-1, 1]: each sum has at most `reduction` terms of magnitude <= 1,
        // and two fp32 summation orders differ by a few ulps of that bound; a bfloat16 result
        // is rounded once more, by up to one step (2^-8 relative) of that bound.
        const double per_term = dtype_ == DT_BFLOAT16 ? 1.0 / 128 : 1e-6;
        const double tol = per_term * static_cast<double>(std::max<int64_t>(reduction, 1)) + 1e-6;
        int64_t bad = 0;
        for (int64_t e = 0; e < w.NumElements(); ++e) {
          const double gv = ValueAt(g, e), wv = ValueAt(w, e);
          if (!(std::abs(gv - wv) <= tol) && bad++ < 5) {
            ADD_FAILURE() << "element " << e << ": oneDNN " << gv << ", Eigen " << wv
                          << " (tolerance " << tol << ")";
          }
        }
        EXPECT_EQ(bad, 0) << "elements differing";
      }
    }
  }

 private:
  Graph graph_;
  Operation* node_ = nullptr;
  const KernelRegistration* eigen_ = nullptr;
  const KernelRegistration* onednn_ = nullptr;
  std::vector<Tensor> inputs_;
  DataType dtype_ = DT_FLOAT;
  bool ready_ = false;
};

// ---- bfloat16 (no Eigen twin): the oneDNN kernel on bf16 values against the Eigen float
// kernel on the same values ----

// The float values of `f` as bfloat16, truncated (exact for values that are bf16 already).
inline Tensor ToBFloat16(const Tensor& f) {
  Tensor t = Tensor::Allocate(DT_BFLOAT16, f.dims()).value();
  for (int64_t i = 0; i < f.NumElements(); ++i) {
    uint32_t bits = 0;
    std::memcpy(&bits, f.flat<float>() + i, 4);
    reinterpret_cast<uint16_t*>(t.data())[i] = static_cast<uint16_t>(bits >> 16);
  }
  return t;
}

// RandomFloats' values as a float or bfloat16 (truncated) tensor.
inline Tensor RandomOf(DataType dtype, std::vector<int64_t> dims, uint32_t seed) {
  Tensor f = RandomFloats(std::move(dims), seed);
  return dtype == DT_FLOAT ? f : ToBFloat16(f);
}

// A bfloat16 tensor widened to float; other dtypes (shape inputs) as they are.
inline Tensor ToFloat(const Tensor& b) {
  if (b.dtype() != DT_BFLOAT16) return b;
  Tensor t = Tensor::Allocate(DT_FLOAT, b.dims()).value();
  for (int64_t i = 0; i < b.NumElements(); ++i) t.flat<float>()[i] = static_cast<float>(ValueAt(b, i));
  return t;
}

// Runs a node of `op_type` (T = dtype) with the kernel `plugin` registers for it, on `pool`
// (null: inline), twice (the second from the kernel's cached primitives).
inline Outcome RunOne(const std::string& plugin, const std::string& op_type, DataType dtype,
                      const std::vector<Arg>& args, AttrMap attrs, ThreadPool* pool) {
  LoadPlugins();
  Graph graph;
  attrs["T"] = AttrOfType(dtype);
  std::vector<Tensor> values;
  Operation* node = AddNode(graph, op_type, args, std::move(attrs), true, &values);
  if (node == nullptr) return Outcome{Status(Code::kInvalidArgument, "no node"), {}};
  const KernelRegistration* kernel = KernelOf(plugin, op_type, node->attrs());
  EXPECT_NE(kernel, nullptr) << plugin << " " << op_type;
  if (kernel == nullptr) return Outcome{Status(Code::kNotFound, "no kernel"), {}};
  return TwoKernelNode::RunWith(*node, *kernel, values, pool, 2);
}

// `op_type` on `bf16_args` with the oneDNN bfloat16 kernel against the Eigen float kernel on
// the same values, inline and on two threads: within one bfloat16 rounding (2^-8 relative)
// of the largest each output's sum could be, `bound` (the number of its terms when the
// inputs are in [-1, 1]).
inline void ExpectBf16MatchesFloat(const std::string& op_type, const std::vector<Arg>& bf16_args,
                                   const AttrMap& attrs, int64_t bound, const std::string& what) {
  std::vector<Arg> float_args = bf16_args;
  for (Arg& a : float_args) a.value = a.list < 0 ? a.value : ToFloat(a.value);
  AttrMap float_attrs = attrs;  // a fused op's TArgs (its bias) too
  if (auto it = float_attrs.find("TArgs"); it != float_attrs.end()) {
    it->second = AttrOfTypeList(std::vector<DataType>(
        static_cast<size_t>(it->second.list().type_size()), DT_FLOAT));
  }
  for (ThreadPool* pool : {static_cast<ThreadPool*>(nullptr), TwoThreadPool()}) {
    SCOPED_TRACE(Str("bfloat16 ", op_type, " ", what, pool ? " (pool)" : " (inline)"));
    const Outcome got = RunOne("onednn", op_type, DT_BFLOAT16, bf16_args, attrs, pool);
    const Outcome want = RunOne("cpu", op_type, DT_FLOAT, float_args, float_attrs, pool);
    ASSERT_TRUE(got.status.ok()) << got.status.ToString();
    ASSERT_TRUE(want.status.ok()) << want.status.ToString();
    ASSERT_EQ(got.outputs[0].dtype(), DT_BFLOAT16);
    ASSERT_EQ(got.outputs[0].dims(), want.outputs[0].dims());
    const double tol = static_cast<double>(std::max<int64_t>(bound, 1)) / 128 + 1e-6;
    int64_t bad = 0;
    for (int64_t i = 0; i < want.outputs[0].NumElements(); ++i) {
      const double g = ValueAt(got.outputs[0], i), w = ValueAt(want.outputs[0], i);
      if (!(std::abs(g - w) <= tol) && bad++ < 5) {
        ADD_FAILURE() << "element " << i << ": oneDNN bfloat16 " << g << ", Eigen float " << w;
      }
    }
    EXPECT_EQ(bad, 0);
  }
}

// `got` against `want`, tensor by tensor (results of one computation made two ways, e.g. in
// bfloat16 and in float): float, the same shapes, and each element within `relative` times
// the largest magnitude of want's tensor (+ 1e-6).
inline void ExpectNearScaled(const std::vector<Tensor>& got, const std::vector<Tensor>& want,
                             double relative) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    ASSERT_EQ(got[i].dtype(), DT_FLOAT) << "fetch " << i;
    ASSERT_EQ(got[i].dims(), want[i].dims()) << "fetch " << i;
    double scale = 0;
    for (int64_t e = 0; e < want[i].NumElements(); ++e) {
      scale = std::max(scale, std::abs(static_cast<double>(want[i].flat<float>()[e])));
    }
    for (int64_t e = 0; e < want[i].NumElements(); ++e) {
      EXPECT_NEAR(got[i].flat<float>()[e], want[i].flat<float>()[e], relative * scale + 1e-6)
          << "fetch " << i << " element " << e;
    }
  }
}

}  // namespace tgraph::onednn_test
