// The oneDNN plugin's bfloat16 Conv2D, Conv2DBackpropInput and Conv2DBackpropFilter
// (plugins/onednn/bf16_conv_kernels.cc; registered only on CPUs with AVX512_BF16 or AMX)
// against the Eigen float kernels on the same bf16-representable values, within bfloat16
// rounding: random geometries (odd sizes, strides, dilations, SAME / VALID / EXPLICIT),
// batch 1, empty tensors, inline and split over two threads; the kernels exist exactly where
// the bf16 MatMul does.
#include <cmath>
#include <cstring>
#include <random>

#include "conv_test_util.h"

namespace tgraph::onednn_test {
namespace {

Tensor Bf16(const Tensor& f) {
  Tensor t = Tensor::Allocate(DT_BFLOAT16, f.dims()).value();
  for (int64_t i = 0; i < f.NumElements(); ++i) {
    uint32_t bits = 0;
    std::memcpy(&bits, f.flat<float>() + i, 4);
    reinterpret_cast<uint16_t*>(t.data())[i] = static_cast<uint16_t>(bits >> 16);  // exact below
  }
  return t;
}
Tensor Widened(const Tensor& b) {
  if (b.dtype() != DT_BFLOAT16) return b;
  Tensor t = Tensor::Allocate(DT_FLOAT, b.dims()).value();
  for (int64_t i = 0; i < b.NumElements(); ++i) t.flat<float>()[i] = static_cast<float>(ValueAt(b, i));
  return t;
}

// Runs `op_type` (T = dtype) with the kernel `plugin` registered for it, inline.
Outcome RunOne(const std::string& plugin, const std::string& op_type, DataType dtype,
               const std::vector<Tensor>& inputs, AttrMap attrs, ThreadPool* pool) {
  Graph graph;
  NodeSpec spec;
  spec.type = op_type;
  spec.name = "node";
  spec.attrs = std::move(attrs);
  spec.attrs["T"] = AttrOfType(dtype);
  for (size_t i = 0; i < inputs.size(); ++i) {
    NodeSpec p;
    p.name = Str("input", i);
    p.type = "Placeholder";
    p.attrs["dtype"] = AttrOfType(inputs[i].dtype());
    p.attrs["shape"] = AttrOfShape(inputs[i].shape());
    auto op = graph.AddOperation(std::move(p));
    EXPECT_TRUE(op.ok()) << op.status().ToString();
    spec.inputs.push_back({{op.value()->output(0)}, false});
  }
  auto node = graph.AddOperation(std::move(spec));
  EXPECT_TRUE(node.ok()) << node.status().ToString();
  if (!node.ok()) return Outcome{node.status(), {}};
  const KernelRegistration* kernel = KernelOf(plugin, op_type, node.value()->attrs());
  EXPECT_NE(kernel, nullptr) << plugin << " " << op_type;
  if (kernel == nullptr) return Outcome{Status(Code::kNotFound, "no kernel"), {}};
  return TwoKernelNode::RunWith(*node.value(), *kernel, inputs, pool, 2);
}

// The op on bf16 inputs (oneDNN) and on the same values in float (Eigen); `reduction`: the
// length of each output element's sum (the tolerance grows with it, as in ExpectSame).
void Check(const std::string& op, const std::vector<Tensor>& bf16_inputs, const AttrMap& attrs,
           int64_t reduction, const std::string& what) {
  // Inline, and on two threads (batch ranges in parts, the filter gradient's partial sums).
  for (ThreadPool* pool : {static_cast<ThreadPool*>(nullptr), TwoThreadPool()}) {
    SCOPED_TRACE(Str("bfloat16 ", op, " ", what, pool ? " (pool)" : " (inline)"));
    std::vector<Tensor> f;
    for (const Tensor& t : bf16_inputs) f.push_back(Widened(t));
    const Outcome got = RunOne("onednn", op, DT_BFLOAT16, bf16_inputs, attrs, pool);
    const Outcome want = RunOne("cpu", op, DT_FLOAT, f, attrs, pool);
    ASSERT_TRUE(got.status.ok()) << got.status.ToString();
    ASSERT_TRUE(want.status.ok()) << want.status.ToString();
    ASSERT_EQ(got.outputs[0].dtype(), DT_BFLOAT16);
    ASSERT_EQ(got.outputs[0].dims(), want.outputs[0].dims());
    const double tol = static_cast<double>(std::max<int64_t>(reduction, 1)) / 128 + 1e-6;
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

// All three ops for geometry c.
void CheckAll(const Conv& c, uint32_t seed) {
  const int64_t oh = c.OutH(), ow = c.OutW();
  const Tensor x = Bf16(RandomFloats({c.batch, c.h, c.w, c.c}, seed));
  const Tensor w = Bf16(RandomFloats({c.kh, c.kw, c.c, c.oc}, seed + 1));
  const Tensor dy = Bf16(RandomFloats({c.batch, oh, ow, c.oc}, seed + 2));
  const std::string what = c.Describe();
  Check("Conv2D", {x, w}, c.Attrs(), c.kh * c.kw * c.c, what);
  Check("Conv2DBackpropInput", {Int32s({c.batch, c.h, c.w, c.c}), w, dy}, c.Attrs(),
        c.kh * c.kw * c.oc, what);
  Check("Conv2DBackpropFilter", {x, Int32s({c.kh, c.kw, c.c, c.oc}), dy}, c.Attrs(),
        c.batch * oh * ow, what);
}

bool HasBf16Conv() {
  LoadPlugins();
  return KernelOf("onednn", "Conv2D", {{"T", AttrOfType(DT_BFLOAT16)}}) != nullptr;
}

TEST(OneDnnBf16ConvTest, KernelsExistWhereBf16MatMulDoes) {
  LoadPlugins();
  const AttrMap bf16 = {{"T", AttrOfType(DT_BFLOAT16)}};
  const bool native = KernelOf("onednn", "MatMul", bf16) != nullptr;
  for (const char* op : {"Conv2D", "Conv2DBackpropInput", "Conv2DBackpropFilter"}) {
    EXPECT_EQ(KernelOf("onednn", op, bf16) != nullptr, native) << op;
  }
}

TEST(OneDnnBf16ConvTest, RandomGeometries) {
  if (!HasBf16Conv()) GTEST_SKIP() << "this CPU has neither AVX512_BF16 nor AMX";
  std::mt19937 gen(4242);
  int checked = 0;
  for (int i = 0; checked < 24 && i < 200; ++i) {
    const Conv c = RandomConv(gen, i);
    if (!c.HasOutput() || c.OutH() == 0 || c.OutW() == 0) continue;
    CheckAll(c, 1000 + 3 * static_cast<uint32_t>(i));
    ++checked;
  }
  EXPECT_EQ(checked, 24);
}

TEST(OneDnnBf16ConvTest, BatchOneLargerAndEmpty) {
  if (!HasBf16Conv()) GTEST_SKIP() << "this CPU has neither AVX512_BF16 nor AMX";
  CheckAll(Geometry(1, 28, 28, 1, 5, 5, 32), 1);   // the CNN's first layer, one image
  CheckAll(Geometry(3, 14, 14, 32, 3, 3, 17), 2);  // odd output channels
  CheckAll(Geometry(0, 5, 5, 3, 3, 3, 4), 3);      // no images
  CheckAll(Geometry(2, 5, 5, 3, 3, 3, 0), 4);      // no filters
  // One output column, the stride (3) wider than the 1-pixel image, a filter tap in the
  // padding: oneDNN's bf16 filter gradient read past the input here (its result for that
  // tap depended on the memory after it) until the kernel dropped the useless stride.
  Conv narrow = Geometry(3, 7, 1, 2, 2, 2, 8);
  narrow.sw = 3;
  CheckAll(narrow, 5);
}

}  // namespace
}  // namespace tgraph::onednn_test
