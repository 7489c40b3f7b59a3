// KernelRunner over the test plugins' kernels: kernel selection (device, type constraints,
// priority), input checks, attrs, outputs (allocate, forward, alias), ref inputs, temps,
// device state, the intra-op pool; and the device, saver and gradient registries.
#include "core/exec/kernel_runner.h"

#include <gtest/gtest.h>

#include "core/exec/thread_pool.h"
#include "core/graph/attr_value_util.h"
#include "core/graph/graph.h"
#include "core/plugin/abi_handles.h"
#include "core/plugin/kernel_context.h"
#include "core/plugin/registry.h"
#include "tests/core/plugin/plugin_test_util.h"

namespace tgraph {
namespace {

using testing::GoodPluginPath;
using testing::StatusIs;

bool Contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

template <typename T>
Tensor Make(DataType dtype, std::vector<int64_t> dims, std::vector<T> values) {
  Tensor t = Tensor::Allocate(dtype, std::move(dims)).value();
  EXPECT_EQ(static_cast<size_t>(t.NumElements()), values.size());
  for (size_t i = 0; i < values.size(); ++i) t.flat<T>()[i] = values[i];
  return t;
}

template <typename T>
std::vector<T> Values(const Tensor& t) {
  return std::vector<T>(t.flat<T>(), t.flat<T>() + t.NumElements());
}

class KernelRunnerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_NE(testing::LoadGoodPlugin(), nullptr);
    auto v1 = LoadPlugin(GoodPluginPath("tg_test_abi_v1"));
    ASSERT_TRUE(v1.ok()) << v1.status().ToString();
  }

  Operation* Add(NodeSpec spec) {
    auto op = g_.AddOperation(std::move(spec));
    EXPECT_TRUE(op.ok()) << op.status().ToString();
    return op.ok() ? op.value() : nullptr;
  }
  Operation* Placeholder(DataType dtype, PartialShape shape, const std::string& name = "") {
    NodeSpec s;
    s.type = "Placeholder";
    s.name = name;
    s.attrs["dtype"] = AttrOfType(dtype);
    s.attrs["shape"] = AttrOfShape(shape);
    return Add(std::move(s));
  }
  Operation* Const(const Tensor& t) {
    NodeSpec s;
    s.type = "Const";
    s.attrs["dtype"] = AttrOfType(t.dtype());
    s.attrs["value"] = AttrOfTensor(t);
    return Add(std::move(s));
  }
  Operation* Variable(DataType dtype, PartialShape shape) {
    NodeSpec s;
    s.type = "VariableV2";
    s.name = "var";
    s.attrs["dtype"] = AttrOfType(dtype);
    s.attrs["shape"] = AttrOfShape(shape);
    return Add(std::move(s));
  }
  Operation* Node(const std::string& type, std::vector<Operation*> inputs, AttrMap attrs = {},
                  const std::string& name = "node") {
    NodeSpec s;
    s.type = type;
    s.name = name;
    s.attrs = std::move(attrs);
    for (Operation* in : inputs) s.inputs.push_back({{in->output(0)}, false});
    return Add(std::move(s));
  }
  // Assign(var, value) with validate_shape false, shapes unknown.
  Operation* ReshapingAssign() {
    return Node("Assign",
                {Variable(DT_FLOAT, PartialShape::Unknown()),
                 Placeholder(DT_FLOAT, PartialShape::Unknown())},
                {{"validate_shape", AttrOfBool(false)}}, "assign");
  }
  std::unique_ptr<KernelRunner> Runner(const Operation* op, const std::string& device = "CPU",
                                       ThreadPool* pool = nullptr) {
    auto r = KernelRunner::Create(*op, device, pool);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? std::move(r).value() : nullptr;
  }

  Graph g_;
};

TEST_F(KernelRunnerTest, HighestPriorityMatchingKernelWins) {
  Operation* x = Placeholder(DT_FLOAT, PartialShape({3}));
  Operation* y = Placeholder(DT_FLOAT, PartialShape({3}));
  AttrMap attrs;
  attrs["alpha"] = AttrOfFloat(2.0f);
  Operation* n = Node("TestScaleAdd", {x, y}, attrs);
  ASSERT_NE(n, nullptr);
  EXPECT_EQ(n->output_shape(0), PartialShape({3}));  // the plugin's shape function ran
  auto r = Runner(n);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->kernel().priority, 10);  // the float-only kernel outranks the generic one
  EXPECT_EQ(r->kernel().plugin->name, "test_good");
  std::vector<Tensor> out;
  ASSERT_TRUE(r->Run({Make<float>(DT_FLOAT, {3}, {1, 2, 3}), Make<float>(DT_FLOAT, {3}, {10, 20, 30})}, &out).ok());
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(Values<float>(out[0]), (std::vector<float>{12, 24, 36}));
  // A runner runs again with new inputs.
  ASSERT_TRUE(r->Run({Make<float>(DT_FLOAT, {1}, {1}), Make<float>(DT_FLOAT, {1}, {1})}, &out).ok());
  EXPECT_EQ(Values<float>(out[0]), (std::vector<float>{3}));
}

// CreateWithKernel runs a given kernel instead of the highest-priority one (how the oneDNN
// plugin's tests compare it with the Eigen kernel it outranks), and refuses a kernel that
// does not match the node.
TEST_F(KernelRunnerTest, CreateWithKernelRunsAnOutrankedKernel) {
  Operation* x = Placeholder(DT_FLOAT, PartialShape({2}));
  Operation* n = Node("TestScaleAdd", {x, x}, {{"alpha", AttrOfFloat(3.0f)}});
  ASSERT_NE(n, nullptr);
  const KernelRegistration* outranked = nullptr;
  const KernelRegistration* float_only = nullptr;
  for (const KernelRegistration* k : KernelRegistry::Global()->KernelsFor("TestScaleAdd")) {
    if (k->device_type != "CPU" || k->plugin == nullptr || k->plugin->name != "test_good") continue;
    (k->priority == 0 ? outranked : float_only) = k;
  }
  ASSERT_NE(outranked, nullptr);
  ASSERT_NE(float_only, nullptr);
  auto r = KernelRunner::CreateWithKernel(*n, *outranked);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(&r.value()->kernel(), outranked);
  std::vector<Tensor> out;
  const Tensor t = Make<float>(DT_FLOAT, {2}, {1, -2});
  ASSERT_TRUE(r.value()->Run({t, t}, &out).ok());
  EXPECT_EQ(Values<float>(out[0]), (std::vector<float>{4, -8}));

  Operation* d = Placeholder(DT_DOUBLE, PartialShape({2}));
  Operation* doubles = Node("TestScaleAdd", {d, d}, {}, "doubles");
  const Status constraints = KernelRunner::CreateWithKernel(*doubles, *float_only).status();
  EXPECT_TRUE(StatusIs(constraints, Code::kInvalidArgument));
  EXPECT_TRUE(Contains(constraints.message(), "does not match the node")) << constraints.ToString();
  Operation* other = Node("Identity", {x}, {{"T", AttrOfType(DT_FLOAT)}}, "other");
  ASSERT_NE(other, nullptr);
  const Status op_type = KernelRunner::CreateWithKernel(*other, *outranked).status();
  EXPECT_TRUE(StatusIs(op_type, Code::kInvalidArgument));
  EXPECT_TRUE(Contains(op_type.message(), "does not match the node")) << op_type.ToString();
}

TEST_F(KernelRunnerTest, TypeConstraintsPickTheKernel) {
  Operation* x = Placeholder(DT_DOUBLE, PartialShape({2}));
  Operation* n = Node("TestScaleAdd", {x, x});
  auto r = Runner(n);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->kernel().priority, 0);
  std::vector<Tensor> out;
  Tensor t = Make<double>(DT_DOUBLE, {2}, {0.5, -1.5});
  ASSERT_TRUE(r->Run({t, t}, &out).ok());
  EXPECT_EQ(Values<double>(out[0]), (std::vector<double>{1.0, -3.0}));
}

TEST_F(KernelRunnerTest, ShapeFunctionErrorsNameTheNode) {
  Operation* x = Placeholder(DT_FLOAT, PartialShape({3}));
  Operation* y = Placeholder(DT_FLOAT, PartialShape({4}));
  NodeSpec s;
  s.type = "TestScaleAdd";
  s.name = "bad_add";
  s.inputs = {{{x->output(0)}, false}, {{y->output(0)}, false}};
  auto op = g_.AddOperation(std::move(s));
  ASSERT_TRUE(StatusIs(op.status(), Code::kInvalidArgument));
  EXPECT_TRUE(Contains(op.status().message(), "bad_add")) << op.status().message();
  EXPECT_TRUE(Contains(op.status().message(), "differ in dimension 0")) << op.status().message();
}

TEST_F(KernelRunnerTest, KernelErrorsNameTheNode) {
  Operation* x = Placeholder(DT_FLOAT, PartialShape::Unknown());
  Operation* n = Node("TestScaleAdd", {x, x}, {}, "my_add");
  auto r = Runner(n);
  ASSERT_NE(r, nullptr);
  std::vector<Tensor> out;
  Status s = r->Run({Make<float>(DT_FLOAT, {2}, {1, 2}), Make<float>(DT_FLOAT, {3}, {1, 2, 3})}, &out);
  ASSERT_TRUE(StatusIs(s, Code::kInvalidArgument));
  EXPECT_TRUE(s.message().starts_with("my_add: ")) << s.message();
}

TEST_F(KernelRunnerTest, NoKernelForTheDeviceIsNotFound) {
  Operation* x = Placeholder(DT_FLOAT, PartialShape({3}));
  Operation* n = Node("TestScaleAdd", {x, x}, {}, "gpu_add");
  auto r = KernelRunner::Create(*n, "GPU");
  ASSERT_TRUE(StatusIs(r.status(), Code::kNotFound));
  const std::string& m = r.status().message();
  EXPECT_TRUE(Contains(m, "'TestScaleAdd'")) << m;
  EXPECT_TRUE(Contains(m, "gpu_add")) << m;
  EXPECT_TRUE(Contains(m, "'GPU'")) << m;
  EXPECT_TRUE(Contains(m, "T=float")) << m;
  EXPECT_TRUE(Contains(m, "TestScaleAdd on CPU [T in {float, double}]")) << m;
}

TEST_F(KernelRunnerTest, InputsAreCheckedBeforeCompute) {
  Operation* x = Placeholder(DT_FLOAT, PartialShape({1}));
  Operation* n = Node("TestScaleAdd", {x, x}, {}, "checked");
  auto r = Runner(n);
  ASSERT_NE(r, nullptr);
  std::vector<Tensor> out;
  Status s = r->Run({Make<float>(DT_FLOAT, {1}, {1})}, &out);
  ASSERT_TRUE(StatusIs(s, Code::kInvalidArgument));
  EXPECT_TRUE(Contains(s.message(), "takes 2 inputs")) << s.message();
  s = r->Run({Make<float>(DT_FLOAT, {1}, {1}), Make<int32_t>(DT_INT32, {1}, {1})}, &out);
  ASSERT_TRUE(StatusIs(s, Code::kInvalidArgument));
  EXPECT_TRUE(Contains(s.message(), "input 1 ('y') must be float, but a int32 tensor")) << s.message();
  EXPECT_TRUE(Contains(s.message(), "checked")) << s.message();
  EXPECT_TRUE(StatusIs(r->Run(std::vector<Tensor>{}, nullptr), Code::kInvalidArgument));
}

TEST_F(KernelRunnerTest, ShapeFunctionSeesConstantInputValues) {
  Operation* shape = Const(Make<int32_t>(DT_INT32, {2}, {2, 3}));
  AttrMap attrs;
  attrs["value"] = AttrOfInt(7);
  Operation* n = Node("TestFillShape", {shape}, attrs);
  ASSERT_NE(n, nullptr);
  EXPECT_EQ(n->output_shape(0), PartialShape({2, 3}));
  auto r = Runner(n);
  ASSERT_NE(r, nullptr);
  EXPECT_TRUE(r->kernel().IsHostMemoryArg("shape"));
  std::vector<Tensor> out;
  ASSERT_TRUE(r->Run({*shape->constant_value()}, &out).ok());
  EXPECT_EQ(out[0].dims(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(Values<int64_t>(out[0]), std::vector<int64_t>(6, 7));

  Operation* fed = Placeholder(DT_INT32, PartialShape({3}));
  Operation* n2 = Node("TestFillShape", {fed}, {}, "from_placeholder");
  EXPECT_EQ(n2->output_shape(0), PartialShape({-1, -1, -1}));
  auto r2 = Runner(n2);
  Status s = r2->Run({Make<int32_t>(DT_INT32, {3}, {1, -2, 1})}, &out);
  ASSERT_TRUE(StatusIs(s, Code::kInvalidArgument));
  EXPECT_TRUE(Contains(s.message(), "negative dimension -2")) << s.message();
}

AttrMap AllAttrs(const std::string& s) {
  AttrMap a;
  a["i"] = AttrOfInt(-5);
  a["f"] = AttrOfFloat(0.5f);
  a["b"] = AttrOfBool(true);
  a["t"] = AttrOfType(DT_INT64);
  a["s"] = AttrOfString(s);
  a["il"] = AttrOfIntList({1, 2, 3});
  a["fl"] = AttrOfFloatList({});
  a["tl"] = AttrOfTypeList({DT_FLOAT, DT_BOOL});
  a["sh"] = AttrOfShape(PartialShape({4, -1}));
  a["te"] = AttrOfTensor(Make<float>(DT_FLOAT, {2}, {1.5f, 2.5f}));
  return a;
}

TEST_F(KernelRunnerTest, EveryAttrKindReachesCreate) {
  Operation* n = Node("TestAttrs", {}, AllAttrs("hello"), "attrs");
  auto r = Runner(n);
  ASSERT_NE(r, nullptr);
  std::vector<Tensor> out;
  ASSERT_TRUE(r->Run(std::vector<Tensor>{}, &out).ok());
  ASSERT_EQ(out[0].dtype(), DT_STRING);
  EXPECT_EQ(out[0].strings()[0],
            "i=-5 f=0.5 b=1 t=9 s=hello il=1,2,3, fl= tl=1,10, sh=4,-1, te=1:2:1.5 in=0 out=1 "
            "op=TestAttrs has_i=1 has_zz=0");
}

TEST_F(KernelRunnerTest, AttrErrorsNameNodeAndAttr) {
  Operation* missing = Node("TestAttrs", {}, AllAttrs("ask_missing"), "asks_missing");
  auto r = KernelRunner::Create(*missing);
  ASSERT_TRUE(StatusIs(r.status(), Code::kInvalidArgument));
  EXPECT_TRUE(Contains(r.status().message(), "asks_missing")) << r.status().message();
  EXPECT_TRUE(Contains(r.status().message(), "'no_such_attr'")) << r.status().message();

  Operation* wrong = Node("TestAttrs", {}, AllAttrs("ask_wrong_kind"), "asks_wrong");
  r = KernelRunner::Create(*wrong);
  ASSERT_TRUE(StatusIs(r.status(), Code::kInvalidArgument));
  EXPECT_TRUE(Contains(r.status().message(), "asks_wrong")) << r.status().message();
  EXPECT_TRUE(Contains(r.status().message(), "attr 'f' is of kind 'float', not 'int'"))
      << r.status().message();
}

std::vector<int64_t> PoolInfo(KernelRunner& r, int64_t n, double cost) {
  std::vector<Tensor> out;
  Status s = r.Run({Make<int64_t>(DT_INT64, {}, {n}), Make<double>(DT_DOUBLE, {}, {cost})}, &out);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return s.ok() ? Values<int64_t>(out[0]) : std::vector<int64_t>{};
}

TEST_F(KernelRunnerTest, IntraOpPool) {
  Operation* n = Node("TestPoolInfo", {Placeholder(DT_INT64, PartialShape::Scalar()),
                                      Placeholder(DT_DOUBLE, PartialShape::Scalar())});
  // No pool: everything inline, one block.
  auto inline_runner = Runner(n);
  EXPECT_EQ(PoolInfo(*inline_runner, 1000, 1e6), (std::vector<int64_t>{1, 1000, 1, 0, -1}));
  // A pool: expensive work is split, every unit runs exactly once.
  ThreadPool pool(4);
  auto pooled = Runner(n, "CPU", &pool);
  std::vector<int64_t> info = PoolInfo(*pooled, 1000, 1e6);
  ASSERT_EQ(info.size(), 5u);
  EXPECT_EQ(info[0], 4);
  EXPECT_EQ(info[1], 1000);
  EXPECT_GT(info[2], 1);
  EXPECT_EQ(info[4], -1);  // the caller is not a pool thread
  // Cheap work stays on the caller.
  info = PoolInfo(*pooled, 10, 1.0);
  EXPECT_EQ(info[1], 10);
  EXPECT_EQ(info[2], 1);
  EXPECT_EQ(PoolInfo(*pooled, 0, 1.0)[1], 0);  // empty range
}

TEST_F(KernelRunnerTest, OutputAliasSharesTheInputBuffer) {
  Operation* x = Placeholder(DT_FLOAT, PartialShape({2, 3}));
  Operation* id = Node("Identity", {x});
  auto r = Runner(id, "TESTDEV");
  ASSERT_NE(r, nullptr);
  Tensor in = Make<float>(DT_FLOAT, {2, 3}, {1, 2, 3, 4, 5, 6});
  std::vector<Tensor> out;
  ASSERT_TRUE(r->Run({in}, &out).ok());
  EXPECT_EQ(out[0].data(), in.data());
  EXPECT_EQ(out[0].dims(), in.dims());

  AttrMap attrs;
  attrs["shape"] = AttrOfShape(PartialShape({3, 2}));
  Operation* view = Node("TestView", {x}, attrs, "view");
  auto rv = Runner(view, "TESTDEV");
  ASSERT_TRUE(rv->Run({in}, &out).ok());
  EXPECT_EQ(out[0].data(), in.data());
  EXPECT_EQ(out[0].dims(), (std::vector<int64_t>{3, 2}));

  attrs["shape"] = AttrOfShape(PartialShape({4}));
  Operation* bad = Node("TestView", {x}, attrs, "bad_view");
  auto rb = Runner(bad, "TESTDEV");
  Status s = rb->Run({in}, &out);
  ASSERT_TRUE(StatusIs(s, Code::kInvalidArgument));
  EXPECT_TRUE(Contains(s.message(), "bad_view")) << s.message();
  EXPECT_TRUE(Contains(s.message(), "has 4 elements but the tensor has 6")) << s.message();

  // Strings alias too (same shape shares, another shape copies).
  Operation* sx = Placeholder(DT_STRING, PartialShape({2}));
  attrs["shape"] = AttrOfShape(PartialShape({2, 1}));
  Operation* sview = Node("TestView", {sx}, attrs, "string_view");
  auto rs = Runner(sview, "TESTDEV");
  Tensor strings = Tensor::Allocate(DT_STRING, {2}).value();
  strings.strings() = {"a", "bc"};
  ASSERT_TRUE(rs->Run({strings}, &out).ok());
  EXPECT_EQ(out[0].dims(), (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(out[0].strings(), (std::vector<std::string>{"a", "bc"}));
}

TEST_F(KernelRunnerTest, InputBufferIsForwardedOnlyWhenNobodyElseHoldsIt) {
  Operation* x = Placeholder(DT_FLOAT, PartialShape({4}));
  Operation* n = Node("TestScaleAdd", {x, x});
  auto r = Runner(n);
  ASSERT_NE(r, nullptr);
  // Through Run the caller keeps its tensors: no forwarding, inputs untouched.
  Tensor a = Make<float>(DT_FLOAT, {4}, {1, 1, 1, 1});
  std::vector<Tensor> out;
  ASSERT_TRUE(r->Run({a, a}, &out).ok());
  EXPECT_NE(out[0].data(), a.data());
  EXPECT_EQ(Values<float>(a), (std::vector<float>{1, 1, 1, 1}));

  // Handed over (as the executor does at a last use): x's buffer becomes the output.
  Tensor x_value = Make<float>(DT_FLOAT, {4}, {1, 2, 3, 4});
  const void* x_data = x_value.data();
  std::vector<KernelInput> inputs(2);
  inputs[0].value = std::move(x_value);
  inputs[1].value = Make<float>(DT_FLOAT, {4}, {10, 10, 10, 10});
  const KernelRegistration& kernel = r->kernel();
  auto state = CreateKernelState(kernel, *n);
  ASSERT_TRUE(state.ok()) << state.status().ToString();
  Status s = CallKernel(kernel, state.value(), *n, std::move(inputs), nullptr, nullptr, &out);
  if (kernel.destroy != nullptr) kernel.destroy(state.value());
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(out[0].data(), x_data);
  EXPECT_EQ(Values<float>(out[0]), (std::vector<float>{11, 12, 13, 14}));
}

// A forwarded input is only a view of the output's buffer for the rest of compute; an
// alias of it must share the owner (it outlives the view), not the view.
TEST_F(KernelRunnerTest, AliasOfAForwardedInputSharesItsNewOwner) {
  Operation* x = Placeholder(DT_FLOAT, PartialShape({3}));
  Operation* n = Node("TestForwardThenAlias", {x});
  auto r = Runner(n, "TESTDEV");
  ASSERT_NE(r, nullptr);
  Tensor x_value = Make<float>(DT_FLOAT, {3}, {1, 2, 3});
  const void* x_data = x_value.data();
  std::vector<KernelInput> inputs(1);
  inputs[0].value = std::move(x_value);
  const KernelRegistration& kernel = r->kernel();
  auto state = CreateKernelState(kernel, *n);
  ASSERT_TRUE(state.ok()) << state.status().ToString();
  std::vector<Tensor> out;
  Status s = CallKernel(kernel, state.value(), *n, std::move(inputs), nullptr, nullptr, &out);
  if (kernel.destroy != nullptr) kernel.destroy(state.value());
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].data(), x_data);  // forwarded
  EXPECT_EQ(out[1].data(), x_data);  // aliased: the same bytes...
  EXPECT_FALSE(out[1].IsBorrowedView());  // ...owned, so they outlive y
  out.erase(out.begin());
  EXPECT_EQ(Values<float>(out[0]), (std::vector<float>{2, 3, 4}));
}

// set_output_alias of an input with its own shape hands the input's reference to the
// output: the output owns the bytes (no view), and no second reference is made.
TEST_F(KernelRunnerTest, AliasOfAnInputTakesItsReference) {
  Operation* x = Placeholder(DT_FLOAT, PartialShape({3}));
  Operation* n = Node("Identity", {x});
  auto r = Runner(n, "TESTDEV");
  ASSERT_NE(r, nullptr);
  const KernelRegistration& kernel = r->kernel();
  auto state = CreateKernelState(kernel, *n);
  ASSERT_TRUE(state.ok()) << state.status().ToString();
  for (bool caller_keeps_x : {false, true}) {
    SCOPED_TRACE(caller_keeps_x ? "caller keeps x" : "x handed over");
    Tensor x_value = Make<float>(DT_FLOAT, {3}, {1, 2, 3});
    const void* x_data = x_value.data();
    std::vector<KernelInput> inputs(1);
    inputs[0].value = caller_keeps_x ? x_value : std::move(x_value);
    std::vector<Tensor> out;
    Status s = CallKernel(kernel, state.value(), *n, std::move(inputs), nullptr, nullptr, &out);
    ASSERT_TRUE(s.ok()) << s.ToString();
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].data(), x_data);
    EXPECT_FALSE(out[0].IsBorrowedView());
    EXPECT_EQ(out[0].buffer().use_count(), caller_keeps_x ? 2 : 1);
    EXPECT_EQ(Values<float>(out[0]), (std::vector<float>{1, 2, 3}));
  }
  if (kernel.destroy != nullptr) kernel.destroy(state.value());
}

TEST_F(KernelRunnerTest, RefInputs) {
  Operation* var = Variable(DT_FLOAT, PartialShape({3}));
  Operation* value = Placeholder(DT_FLOAT, PartialShape({3}));
  NodeSpec s;
  s.type = "AssignAdd";
  s.name = "update";
  s.inputs = {{{var->output(0)}, false}, {{value->output(0)}, false}};
  s.attrs["use_locking"] = AttrOfBool(true);
  Operation* add = Add(std::move(s));
  ASSERT_NE(add, nullptr);
  auto r = Runner(add, "TESTDEV");
  ASSERT_NE(r, nullptr);

  VariableSlot slot;
  slot.name = "var";
  std::vector<Tensor> out;
  Tensor delta = Make<float>(DT_FLOAT, {3}, {1, 2, 3});
  // Uninitialized: refused before compute, naming the variable.
  Status st = r->Run({KernelInput{Tensor(), &slot}, KernelInput{delta, nullptr}}, &out);
  ASSERT_TRUE(StatusIs(st, Code::kFailedPrecondition));
  EXPECT_TRUE(Contains(st.message(), "uninitialized value var")) << st.message();
  // No slot for a ref input.
  st = r->Run({KernelInput{delta, nullptr}, KernelInput{delta, nullptr}}, &out);
  ASSERT_TRUE(StatusIs(st, Code::kInvalidArgument));
  EXPECT_TRUE(Contains(st.message(), "needs a variable slot")) << st.message();

  slot.value = Make<float>(DT_FLOAT, {3}, {10, 10, 10});
  slot.initialized = true;
  const void* storage = slot.value.data();
  ASSERT_TRUE(r->Run({KernelInput{Tensor(), &slot}, KernelInput{delta, nullptr}}, &out).ok());
  EXPECT_EQ(Values<float>(slot.value), (std::vector<float>{11, 12, 13}));
  EXPECT_EQ(slot.value.data(), storage);  // updated in place
  EXPECT_EQ(Values<float>(out[0]), (std::vector<float>{11, 12, 13}));  // the ref output's value
  // The lock was released (use_locking): the slot can be locked again.
  EXPECT_TRUE(slot.mu.try_lock());
  slot.mu.unlock();

  // A slot given for a value input is read (a ref feeding a non-ref input).
  Operation* id = Node("Identity", {var}, {}, "read");
  auto read = Runner(id, "TESTDEV");
  ASSERT_TRUE(read->Run({KernelInput{Tensor(), &slot}}, &out).ok());
  EXPECT_EQ(Values<float>(out[0]), (std::vector<float>{11, 12, 13}));
  VariableSlot empty;
  empty.name = "never_set";
  st = read->Run({KernelInput{Tensor(), &empty}}, &out);
  ASSERT_TRUE(StatusIs(st, Code::kFailedPrecondition));
  EXPECT_TRUE(Contains(st.message(), "never_set")) << st.message();
}

TEST_F(KernelRunnerTest, AssignInitializesAndReshapesAVariable) {
  Operation* assign = ReshapingAssign();
  auto r = Runner(assign, "TESTDEV");
  ASSERT_NE(r, nullptr);
  VariableSlot slot;
  slot.name = "var";
  std::vector<Tensor> out;
  // Assign allows an uninitialized input: it initializes the variable.
  ASSERT_TRUE(r->Run({KernelInput{Tensor(), &slot}, KernelInput{Make<float>(DT_FLOAT, {2}, {4, 5}), nullptr}}, &out).ok());
  EXPECT_TRUE(slot.initialized);
  EXPECT_EQ(Values<float>(slot.value), (std::vector<float>{4, 5}));
  // Another shape: reallocated.
  ASSERT_TRUE(r->Run({KernelInput{Tensor(), &slot}, KernelInput{Make<float>(DT_FLOAT, {3}, {1, 2, 3}), nullptr}}, &out).ok());
  EXPECT_EQ(slot.value.dims(), (std::vector<int64_t>{3}));
  EXPECT_EQ(Values<float>(out[0]), (std::vector<float>{1, 2, 3}));
}

// TESTDEV's Assign adopts a value only the call holds (plugin ABI 8
// forward_input_to_ref_input, as the CPU's): the variable's buffer is then the value's, for
// an uninitialized variable, one of the same shape and one reshaped; a value the caller
// keeps (Run) is copied into the variable's own buffer.
TEST_F(KernelRunnerTest, AssignOnTestdevAdoptsAValueOnlyItHolds) {
  Operation* assign = ReshapingAssign();
  auto r = Runner(assign, "TESTDEV");
  ASSERT_NE(r, nullptr);
  const KernelRegistration& kernel = r->kernel();
  auto state = CreateKernelState(kernel, *assign);
  ASSERT_TRUE(state.ok()) << state.status().ToString();
  VariableSlot slot;
  slot.name = "var";
  std::vector<Tensor> out;
  // Handed over, as the executor hands a value at its last use.
  auto assign_handing_over = [&](Tensor t) {
    std::vector<KernelInput> inputs(2);
    inputs[0].ref = &slot;
    inputs[1].value = std::move(t);
    return CallKernel(kernel, state.value(), *assign, std::move(inputs), nullptr, nullptr, &out);
  };
  for (const std::vector<int64_t>& dims : {std::vector<int64_t>{2}, {2}, {3}}) {
    Tensor t = Make<float>(DT_FLOAT, dims, std::vector<float>(static_cast<size_t>(dims[0]), 7));
    const void* data = t.data();
    ASSERT_TRUE(assign_handing_over(std::move(t)).ok());
    EXPECT_TRUE(slot.initialized);
    EXPECT_EQ(slot.value.data(), data) << "[" << dims[0] << "]: adopted";
    EXPECT_EQ(Values<float>(slot.value), std::vector<float>(static_cast<size_t>(dims[0]), 7));
  }
  // The caller keeps its tensor: copied into the variable's buffer of that shape.
  const void* own = slot.value.data();
  Tensor kept = Make<float>(DT_FLOAT, {3}, {1, 2, 3});
  ASSERT_TRUE(CallKernel(kernel, state.value(), *assign,
                         {KernelInput{Tensor(), &slot}, KernelInput{kept, nullptr}}, nullptr,
                         nullptr, &out)
                  .ok());
  EXPECT_EQ(slot.value.data(), own);
  EXPECT_NE(slot.value.data(), kept.data());
  EXPECT_EQ(Values<float>(slot.value), (std::vector<float>{1, 2, 3}));
  if (kernel.destroy != nullptr) kernel.destroy(state.value());
}

TEST_F(KernelRunnerTest, TempsDeviceStateAndStream) {
  Operation* x = Placeholder(DT_FLOAT, PartialShape({4}));
  Operation* n = Node("TestScratch", {x});
  auto r = Runner(n, "TESTDEV");
  ASSERT_NE(r, nullptr);
  std::vector<Tensor> out;
  ASSERT_TRUE(r->Run({Make<float>(DT_FLOAT, {4}, {1, 2, 3, 4})}, &out).ok());
  EXPECT_EQ(Values<float>(out[0]), (std::vector<float>{10, 1000, 0}));
}

TEST_F(KernelRunnerTest, PluginBuiltAgainstFirstReleasedHeaderRuns) {
  Operation* x = Placeholder(DT_DOUBLE, PartialShape({3}));
  Operation* n = Node("TestV1Negate", {x});
  EXPECT_EQ(n->output_shape(0), PartialShape({3}));
  auto r = Runner(n);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->kernel().plugin->name, "test_abi_v1");
  EXPECT_EQ(r->kernel().cost_ns_per_element, 1.0);
  std::vector<Tensor> out;
  ASSERT_TRUE(r->Run({Make<double>(DT_DOUBLE, {3}, {1, -2, 0.5})}, &out).ok());
  EXPECT_EQ(Values<double>(out[0]), (std::vector<double>{-1, 2, -0.5}));

  Operation* xf = Placeholder(DT_FLOAT, PartialShape::Unknown());
  Operation* nf = Node("TestV1Negate", {xf}, {}, "negate_float");
  EXPECT_FALSE(nf->output_shape(0).known_rank());
  ThreadPool pool(3);
  auto rf = Runner(nf, "CPU", &pool);
  Tensor big = Tensor::Allocate(DT_FLOAT, {100000}).value();
  for (int64_t i = 0; i < big.NumElements(); ++i) big.flat<float>()[i] = static_cast<float>(i);
  ASSERT_TRUE(rf->Run({big}, &out).ok());
  EXPECT_EQ(out[0].flat<float>()[99999], -99999.0f);
}

TEST_F(KernelRunnerTest, DeviceRegistry) {
  const DeviceRegistration* dev = DeviceRegistry::Global()->Find("TESTDEV");
  ASSERT_NE(dev, nullptr);
  EXPECT_EQ(dev->DeviceCount(), 2);
  EXPECT_EQ(dev->Description(0), "test device zero");
  EXPECT_TRUE(dev->host_accessible());
  auto one = DeviceRegistry::Global()->GetInstance("TESTDEV", 1);
  ASSERT_TRUE(one.ok()) << one.status().ToString();
  EXPECT_EQ(one.value()->ordinal, 1);
  EXPECT_EQ(*static_cast<int*>(one.value()->stream()), 1001);
  auto again = DeviceRegistry::Global()->GetInstance("TESTDEV", 1);
  EXPECT_EQ(again.value(), one.value());
  auto none = DeviceRegistry::Global()->GetInstance("TESTDEV", 2);
  ASSERT_TRUE(StatusIs(none.status(), Code::kInvalidArgument));
  EXPECT_TRUE(Contains(none.status().message(), "/device:TESTDEV:2")) << none.status().message();
  EXPECT_TRUE(StatusIs(DeviceRegistry::Global()->GetInstance("NOPE", 0).status(), Code::kNotFound));
  // Allocation through the device's allocator.
  TG_Status st;
  void* p = dev->def.allocate(one.value()->state, 100, 64, &st);
  ASSERT_NE(p, nullptr);
  dev->def.deallocate(one.value()->state, p);
}

TEST_F(KernelRunnerTest, SaverRegistryRoundTrip) {
  const SaverRegistration* saver = SaverRegistry::Global()->Find("test_memory");
  ASSERT_NE(saver, nullptr);
  ASSERT_TRUE(saver->Save("/ckpt/a", {"w", "b"},
                          {Make<float>(DT_FLOAT, {2}, {1, 2}), Make<float>(DT_FLOAT, {}, {3})})
                  .ok());
  std::vector<Tensor> restored;
  ASSERT_TRUE(saver->Restore("/ckpt/a", {"b", "w"}, &restored).ok());
  ASSERT_EQ(restored.size(), 2u);
  EXPECT_EQ(Values<float>(restored[0]), (std::vector<float>{3}));
  EXPECT_EQ(Values<float>(restored[1]), (std::vector<float>{1, 2}));
  // A failed restore frees what the plugin allocated before failing (no leak under ASan).
  Status s = saver->Restore("/ckpt/a", {"w", "missing"}, &restored);
  ASSERT_TRUE(StatusIs(s, Code::kNotFound));
  EXPECT_TRUE(Contains(s.message(), "saver 'test_memory'")) << s.message();
  s = saver->Save("/ckpt/b", {"i"}, {Make<int32_t>(DT_INT32, {1}, {1})});
  EXPECT_TRUE(StatusIs(s, Code::kUnimplemented));
  EXPECT_TRUE(StatusIs(saver->Save("/ckpt/c", {"a"}, {}), Code::kInvalidArgument));
}

TEST_F(KernelRunnerTest, GradientRegistry) {
  const GradientRegistration* grad = GradientRegistry::Global()->Find("TestScaleAdd");
  ASSERT_NE(grad, nullptr);
  TG_Status st;
  grad->fn(nullptr, grad->user_data, &st);
  EXPECT_TRUE(StatusIs(st.status, Code::kUnimplemented));
  EXPECT_EQ(GradientRegistry::Global()->Find("TestFillShape"), nullptr);
}

// Plugin ABI 6: a kernel declining the node passes it to the next match in priority order;
// when every match declines, UNIMPLEMENTED names each kernel and its reason
// (TestDecline of tests/plugin/test_device_plugin.cc: +1 at priority 10, +2 at 0).
TEST(KernelRunnerDeclineTest, ADeclinedNodeGoesToTheNextKernel) {
  auto device_plugin = LoadPlugin(GoodPluginPath("tg_test_device"));
  ASSERT_TRUE(device_plugin.ok()) << device_plugin.status().ToString();
  Graph g;
  NodeSpec px;
  px.type = "Placeholder";
  px.name = "x";
  px.attrs["dtype"] = AttrOfType(DT_FLOAT);
  px.attrs["shape"] = AttrOfShape(PartialShape({2}));
  Operation* x = g.AddOperation(std::move(px)).value();
  auto node = [&](const std::string& name, const std::string& mode) {
    NodeSpec s;
    s.type = "TestDecline";
    s.name = name;
    s.inputs = {{{x->output(0)}, false}};
    s.attrs["mode"] = AttrOfString(mode);
    return g.AddOperation(std::move(s)).value();
  };
  struct Case {
    const char* mode;
    float add;
  };
  for (const Case& c : {Case{"plain", 1}, Case{"no_fast", 2}}) {
    SCOPED_TRACE(c.mode);
    auto r = KernelRunner::Create(*node(std::string("n_") + c.mode, c.mode), "CPU");
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    std::vector<Tensor> out;
    ASSERT_TRUE(r.value()->Run({Make<float>(DT_FLOAT, {2}, {1, 2})}, &out).ok());
    EXPECT_EQ(Values<float>(out[0]), (std::vector<float>{1 + c.add, 2 + c.add}));
  }
  auto r = KernelRunner::Create(*node("n_nowhere", "nowhere"), "CPU");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kUnimplemented);
  const std::string m = r.status().message();
  EXPECT_NE(m.find("n_nowhere"), std::string::npos) << m;
  EXPECT_NE(m.find("priority 10 of plugin 'test_device' declined"), std::string::npos) << m;
  EXPECT_NE(m.find("+2 kernel"), std::string::npos) << m;
}

}  // namespace
}  // namespace tgraph
