// Plugin ABI 6 through the C API: a plugin built against the frozen ABI 5 header still loads
// and runs; a plugin op that allows uninitialized input reads an uninitialized variable;
// the shape-function getters (attrs of every kind, partial input shapes, constant input
// values, "same shape as input"); the kernel-output validation mode. The kernels that
// decline nodes are in session_placement_test.cc (SessionDeclineTest).
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "c_api_test_util.h"
#include "session_test_util.h"
#include "tgraph/c_api.h"

namespace {

using tgtest::Contains;
using tgtest::Out;

std::string Good(const std::string& name) {
  return std::string(TGRAPH_TEST_PLUGIN_DIR) + "/good/lib" + name + ".so";
}

class PluginAbi6Test : public tgtest::SessionTest {
 protected:
  void SetUp() override {
    SessionTest::SetUp();
    for (const char* name : {"tg_test_good", "tg_test_abi_v5"}) {
      ASSERT_NE(TG_LoadPlugin(Good(name).c_str(), s_), nullptr) << msg();
    }
  }
  TG_Operation* Placeholder(const char* name, std::vector<int64_t> dims, bool known_rank = true) {
    TG_OperationDescription* d = TG_NewOperation(g_, "Placeholder", name);
    TG_SetAttrType(d, "dtype", TG_FLOAT);
    TG_SetAttrShape(d, "shape", dims.data(), known_rank ? static_cast<int>(dims.size()) : -1);
    TG_Operation* op = TG_FinishOperation(d, s_);
    EXPECT_TRUE(tgtest::IsOk(s_)) << msg();
    return op;
  }
  // The static shape of `o`: {-2} for an unknown rank.
  std::vector<int64_t> Shape(TG_Output o) {
    const int n = TG_GraphGetTensorNumDims(g_, o, s_);
    EXPECT_TRUE(tgtest::IsOk(s_)) << msg();
    if (n < 0) return {-2};
    std::vector<int64_t> dims(static_cast<size_t>(n));
    TG_GraphGetTensorShape(g_, o, dims.data(), n, s_);
    EXPECT_TRUE(tgtest::IsOk(s_)) << msg();
    return dims;
  }
  TG_Variable* UninitializedVar(const char* name) {
    return Var(name, tgtest::FloatScalar(3.0f));
  }
};

// Built against plugin.h as of ABI 5 (tests/plugin/abi_v5): loads, its shape function and
// kernel work, and its TG_OpDefinition (shorter than ABI 6's) reads as not allowing
// uninitialized input.
TEST_F(PluginAbi6Test, AnAbi5PluginLoadsAndRuns) {
  const TG_Plugin* p = TG_LoadPlugin(Good("tg_test_abi_v5").c_str(), s_);
  TG_ASSERT_OK(s_);
  EXPECT_EQ(TG_PluginAbiVersion(p), 5u);
  EXPECT_STREQ(TG_PluginName(p), "test_abi_v5");
  TG_Operation* x = Placeholder("x", {-1, 2});
  TG_Operation* sq = OpOf("TestV5Square", {Out(x)}, "square");
  TG_ASSERT_OK(s_);
  EXPECT_EQ(Shape(Out(sq)), (std::vector<int64_t>{-1, 2}));
  TG_Session* session = NewSession();
  tgtest::TensorPtr value = tgtest::FloatTensor({1, 2}, {3, -4});
  EXPECT_EQ(RunFloats(session, Out(sq), {{Out(x), value.get()}}), (std::vector<float>{9, 16}));
  TG_EXPECT_OK(s_);

  TG_Variable* v = UninitializedVar("v5_var");
  TG_Operation* init = OpOf("TestV5RefInit", {TG_VariableOutput(v)}, "v5_refinit");
  TG_ASSERT_OK(s_);
  Run(session, {}, {Out(init)});
  EXPECT_EQ(code(), TG_FAILED_PRECONDITION) << msg();
  EXPECT_TRUE(Contains(msg(), "uninitialized value v5_var")) << msg();
}

// TestRefInitialized registers allows_uninitialized_input: the core lets its kernel see the
// uninitialized variable (as IsVariableInitialized), before and after initialization.
TEST_F(PluginAbi6Test, APluginOpThatAllowsUninitializedInputReadsAnUninitializedVariable) {
  TG_Variable* v = UninitializedVar("var");
  TG_Operation* is_init = OpOf("TestRefInitialized", {TG_VariableOutput(v)}, "is_init");
  TG_ASSERT_OK(s_);
  TG_Operation* init = Init();
  TG_Session* session = NewSession();
  std::vector<tgtest::TensorPtr> out = Run(session, {}, {Out(is_init)});
  TG_ASSERT_OK(s_);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(*static_cast<const bool*>(TG_TensorData(out[0].get())), false);
  RunTargets(session, {init});
  TG_ASSERT_OK(s_);
  out = Run(session, {}, {Out(is_init)});
  TG_ASSERT_OK(s_);
  EXPECT_EQ(*static_cast<const bool*>(TG_TensorData(out[0].get())), true);
}

// TestShapeGetters' shape function reads every attr kind, its input's partial shape and
// dtype, and its constant input's value (tests/plugin/good_plugin.cc).
TEST_F(PluginAbi6Test, ShapeFunctionsReadAttrsOfEveryKindAndPartialShapes) {
  TG_Operation* x = Placeholder("x", {-1, 3});
  TG_Operation* dims = ConstTensor(tgtest::IntTensor({3}, {4, 0, 7}), "dims");
  auto build = [&](TG_Operation* input, TG_Operation* dims_input, const char* name,
                   const char* misuse = "") {
    TG_OperationDescription* d = TG_NewOperation(g_, "TestShapeGetters", name);
    TG_AddInput(d, Out(input));
    TG_AddInput(d, Out(dims_input));
    TG_SetAttrFloat(d, "f", 2.5f);
    TG_SetAttrType(d, "t", TG_INT64);
    TG_SetAttrString(d, "s", "hello", 5);
    const int64_t sh[] = {-1, 5};
    TG_SetAttrShape(d, "sh", sh, 2);
    const int64_t il[] = {1, 2, 3};
    TG_SetAttrIntList(d, "il", il, 3);
    const float fl[] = {0.5f, 1.0f};
    TG_SetAttrFloatList(d, "fl", fl, 2);
    const TG_DataType tl[] = {TG_DOUBLE, TG_INT32};
    TG_SetAttrTypeList(d, "tl", tl, 2);
    const void* sl[] = {"abcd", "e"};
    const size_t sl_len[] = {4, 1};
    TG_SetAttrStringList(d, "sl", sl, sl_len, 2);
    const int64_t shape0[] = {2};
    const int64_t shape1[] = {-1, 4};
    const int64_t* shl[] = {shape0, shape1};
    const int shl_rank[] = {1, 2};
    TG_SetAttrShapeList(d, "shl", shl, shl_rank, 2);
    TG_SetAttrString(d, "misuse", misuse, std::strlen(misuse));
    return TG_FinishOperation(d, s_);
  };
  TG_Operation* op = build(x, dims, "getters");
  TG_ASSERT_OK(s_);
  EXPECT_EQ(Shape(Out(op, 0)), (std::vector<int64_t>{-1, 3})) << "same shape as input 0";
  EXPECT_EQ(Shape(Out(op, 1)), (std::vector<int64_t>{-1, 5})) << "the shape attr";
  EXPECT_EQ(Shape(Out(op, 2)), (std::vector<int64_t>{4, 0, 7})) << "the constant input's value";
  // [f*10, t, len(s), sum(il), sum(fl)*10, tl[0], len(sl[0]), len(shl), x's dtype, has "nope"]
  EXPECT_EQ(Shape(Out(op, 3)),
            (std::vector<int64_t>{25, TG_INT64, 5, 6, 15, TG_DOUBLE, 4, 2, TG_FLOAT, 0}));
  EXPECT_EQ(Shape(Out(op, 4)), (std::vector<int64_t>{-1, 4})) << "shl[1]";

  // Unknown rank in, unknown rank out; a computed `dims` input has no known value.
  TG_Operation* unknown = Placeholder("unknown", {}, /*known_rank=*/false);
  TG_OperationDescription* neg = TG_NewOperation(g_, "Neg", "computed_dims");
  TG_AddInput(neg, Out(dims));
  TG_Operation* computed = TG_FinishOperation(neg, s_);
  TG_ASSERT_OK(s_);
  op = build(unknown, computed, "getters_unknown");
  TG_ASSERT_OK(s_);
  EXPECT_EQ(Shape(Out(op, 0)), (std::vector<int64_t>{-2}));
  EXPECT_EQ(Shape(Out(op, 2)), (std::vector<int64_t>{-2}));

  // A getter of the wrong kind fails the op, naming node, attr and kinds.
  EXPECT_EQ(build(x, dims, "misused", "kind"), nullptr);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT) << msg();
  EXPECT_TRUE(Contains(msg(), "misused")) << msg();
  EXPECT_TRUE(Contains(msg(), "attr 's' is of kind 'string', not 'float'")) << msg();
}

// With TGRAPH_VALIDATE_KERNEL_OUTPUTS=1 a kernel whose output contradicts the fully known
// inferred shape fails the run naming the op, the node and the plugin; without it the run
// takes the kernel's word (as before).
TEST_F(PluginAbi6Test, ValidationModeCatchesAKernelContradictingItsShapeFunction) {
  // Fed, not a Const: constant folding would run the kernel at plan time instead.
  TG_Operation* x = Placeholder("x", {2});
  tgtest::TensorPtr value = tgtest::FloatTensor({2}, {1, 2});
  const tgtest::Feeds feeds = {{Out(x), value.get()}};
  TG_OperationDescription* d = TG_NewOperation(g_, "TestWrongShape", "liar");
  TG_AddInput(d, Out(x));
  TG_SetAttrString(d, "wrong", "shape", 5);
  TG_Operation* liar = TG_FinishOperation(d, s_);
  TG_ASSERT_OK(s_);
  TG_Operation* honest = OpOf("TestWrongShape", {Out(x)}, "honest");
  TG_ASSERT_OK(s_);
  const char* before = std::getenv("TGRAPH_VALIDATE_KERNEL_OUTPUTS");
  const std::string saved = before == nullptr ? "" : before;

  ::setenv("TGRAPH_VALIDATE_KERNEL_OUTPUTS", "1", 1);
  TG_Session* checked = NewSession();
  EXPECT_EQ(RunFloats(checked, Out(honest), feeds), (std::vector<float>{1, 2}));
  TG_EXPECT_OK(s_);
  RunFloats(checked, Out(liar), feeds);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT) << msg();
  EXPECT_TRUE(Contains(msg(), "TestWrongShape node 'liar'")) << msg();
  EXPECT_TRUE(Contains(msg(), "of plugin 'test_good'")) << msg();
  EXPECT_TRUE(Contains(msg(), "shape [3]")) << msg();
  EXPECT_TRUE(Contains(msg(), "inferred [2]")) << msg();

  ::setenv("TGRAPH_VALIDATE_KERNEL_OUTPUTS", "0", 1);
  TG_Session* unchecked = NewSession();
  EXPECT_EQ(RunFloats(unchecked, Out(liar), feeds), (std::vector<float>{1, 2, 0}));
  TG_EXPECT_OK(s_);

  if (before == nullptr) {
    ::unsetenv("TGRAPH_VALIDATE_KERNEL_OUTPUTS");
  } else {
    ::setenv("TGRAPH_VALIDATE_KERNEL_OUTPUTS", saved.c_str(), 1);
  }
}

}  // namespace
