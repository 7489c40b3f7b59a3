// Runs the out-of-tree example plugin's BiasGelu kernel (sdk/examples/custom_op, built with
// another compiler against the installed SDK) through KernelRunner, the executor's building
// block, and checks it against a float64 reference. Sessions do not exist yet, so this is
// how "a graph using the op" executes: the graph is built with the op, and the node's
// kernel runs on real inputs.
//
// usage: custom_op_runner <libtgraph_bias_gelu.so>
#include <cmath>
#include <cstdio>
#include <vector>

#include "core/exec/kernel_runner.h"
#include "core/exec/thread_pool.h"
#include "core/graph/attr_value_util.h"
#include "core/graph/graph.h"
#include "core/plugin/plugin_loader.h"

using namespace tgraph;

namespace {

int failures = 0;
#define CHECK(cond, ...)                                          \
  do {                                                            \
    if (!(cond)) {                                                \
      std::fprintf(stderr, "FAILED line %d: ", __LINE__);         \
      std::fprintf(stderr, __VA_ARGS__);                          \
      std::fprintf(stderr, "\n");                                 \
      ++failures;                                                 \
    }                                                             \
  } while (0)

double Gelu(double v, bool approximate) {
  if (approximate) return 0.5 * v * (1 + std::tanh(0.7978845608028654 * (v + 0.044715 * v * v * v)));
  return 0.5 * v * (1 + std::erf(v / std::sqrt(2.0)));
}

Operation* Node(Graph& g, NodeSpec spec) {
  auto op = g.AddOperation(std::move(spec));
  if (!op.ok()) {
    std::fprintf(stderr, "%s\n", op.status().ToString().c_str());
    return nullptr;
  }
  return op.value();
}

template <typename T>
void RunCase(DataType dtype, bool approximate, int64_t rows, int64_t channels, ThreadPool* pool) {
  Graph g;
  NodeSpec x_spec;
  x_spec.type = "Placeholder";
  x_spec.name = "x";
  x_spec.attrs["dtype"] = AttrOfType(dtype);
  x_spec.attrs["shape"] = AttrOfShape(PartialShape({rows, channels}));
  NodeSpec b_spec = x_spec;
  b_spec.name = "bias";
  b_spec.attrs["shape"] = AttrOfShape(PartialShape({channels}));
  Operation* x = Node(g, x_spec);
  Operation* b = Node(g, b_spec);
  if (x == nullptr || b == nullptr) {
    ++failures;
    return;
  }
  NodeSpec spec;
  spec.type = "BiasGelu";
  spec.name = "gelu";
  spec.inputs = {{{x->output(0)}, false}, {{b->output(0)}, false}};
  spec.attrs["approximate"] = AttrOfBool(approximate);
  Operation* node = Node(g, spec);
  if (node == nullptr) {
    ++failures;
    return;
  }
  CHECK(node->output_shape(0) == PartialShape({rows, channels}), "static shape %s",
        node->output_shape(0).ToString().c_str());

  Tensor xt = Tensor::Allocate(dtype, {rows, channels}).value();
  Tensor bt = Tensor::Allocate(dtype, {channels}).value();
  for (int64_t i = 0; i < xt.NumElements(); ++i) xt.flat<T>()[i] = static_cast<T>(0.01 * (i % 700) - 3.5);
  for (int64_t c = 0; c < channels; ++c) bt.flat<T>()[c] = static_cast<T>(0.1 * c - 0.2);

  auto runner = KernelRunner::Create(*node, "CPU", pool);
  if (!runner.ok()) {
    std::fprintf(stderr, "%s\n", runner.status().ToString().c_str());
    ++failures;
    return;
  }
  std::vector<Tensor> out;
  Status s = runner.value()->Run({xt, bt}, &out);
  CHECK(s.ok(), "run: %s", s.ToString().c_str());
  if (!s.ok()) return;
  CHECK(out.size() == 1 && out[0].dims() == xt.dims() && out[0].dtype() == dtype, "output");
  const double tol = dtype == DT_FLOAT ? 1e-5 : 1e-12;
  double worst = 0;
  for (int64_t i = 0; i < xt.NumElements(); ++i) {
    const double want = Gelu(static_cast<double>(xt.flat<T>()[i]) + bt.flat<T>()[i % channels], approximate);
    worst = std::max(worst, std::abs(static_cast<double>(out[0].flat<T>()[i]) - want));
  }
  CHECK(worst <= tol, "max error %g", worst);
  // The inputs are the caller's: the kernel must not have written into them.
  if (xt.NumElements() > 1) CHECK(xt.flat<T>()[1] == static_cast<T>(0.01 * 1 - 3.5), "input modified");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <plugin>\n", argv[0]);
    return 2;
  }
  auto plugin = LoadPlugin(argv[1]);
  if (!plugin.ok()) {
    std::fprintf(stderr, "%s\n", plugin.status().ToString().c_str());
    return 1;
  }
  ThreadPool pool(4);
  RunCase<float>(DT_FLOAT, false, 3, 5, nullptr);
  RunCase<double>(DT_DOUBLE, true, 7, 4, nullptr);
  RunCase<float>(DT_FLOAT, true, 1000, 96, &pool);  // large enough to split over the pool
  RunCase<double>(DT_DOUBLE, false, 0, 8, &pool);   // empty
  if (failures > 0) {
    std::fprintf(stderr, "%d check(s) failed\n", failures);
    return 1;
  }
  std::printf("custom_op_runner: BiasGelu from %s: all checks passed\n", argv[1]);
  return 0;
}
