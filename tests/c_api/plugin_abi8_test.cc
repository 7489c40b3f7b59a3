// Plugin ABI 8 through the C API:
//  - construction_input_shape / construction_output_shape: a kernel's create reads the static
//    shapes the graph's inference gave its inputs and outputs (TestStaticShapes in
//    tests/plugin/good_plugin.cc reports them), and may decline a node by shape;
//  - forward_input_to_ref_input: the CPU Assign kernel makes its value's buffer the
//    variable's when nobody else holds it (pointer identity: TestFreshFill reports the
//    address of the buffer it made, TestBufferAddress the variable's), and copies when the
//    value is fetched or read by a later consumer; the variable's input_version moves.
//  - a plugin built against the frozen ABI 7 header keeps loading and running.
// The device backends' declines of tensors of 2^31 elements or more are in
// tests/plugins/device/huge_shapes_test.cc.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "c_api_test_util.h"
#include "session_test_util.h"
#include "tgraph/c_api.h"

namespace {

using tgtest::FloatTensor;
using tgtest::Out;

std::string Good(const std::string& name) {
  return std::string(TGRAPH_TEST_PLUGIN_DIR) + "/good/lib" + name + ".so";
}

class PluginAbi8Test : public tgtest::SessionTest {
 protected:
  void SetUp() override {
    SessionTest::SetUp();
    for (const std::string& path : {Good("tg_test_good"), Good("tg_test_abi_v7")}) {
      ASSERT_NE(TG_LoadPlugin(path.c_str(), s_), nullptr) << path << ": " << msg();
    }
  }

  std::vector<int64_t> Int64s(const TG_Tensor* t) {
    if (t == nullptr || TG_TensorType(t) != TG_INT64) return {};
    const auto* p = static_cast<const int64_t*>(TG_TensorData(t));
    return std::vector<int64_t>(p, p + TG_TensorElementCount(t));
  }
  int64_t Int64(TG_Session* session, TG_Output fetch) {
    std::vector<tgtest::TensorPtr> out = Run(session, {}, {fetch});
    EXPECT_TRUE(tgtest::IsOk(s_)) << msg();
    std::vector<int64_t> v = out.empty() ? std::vector<int64_t>{} : Int64s(out[0].get());
    return v.size() == 1 ? v[0] : -1;
  }

  // TestStaticShapes of x (limit < 0: never declines).
  TG_Operation* StaticShapes(TG_Output x, int64_t limit = -1) {
    TG_OperationDescription* d = TG_NewOperation(g_, "TestStaticShapes", nullptr);
    TG_AddInput(d, x);
    TG_SetAttrInt(d, "limit", limit);
    TG_Operation* op = TG_FinishOperation(d, s_);
    EXPECT_TRUE(tgtest::IsOk(s_)) << msg();
    return op;
  }
  // A fresh [shape] float tensor of `value` (output 0) and its address (output 1).
  TG_Operation* FreshFill(const std::vector<int64_t>& shape, float value, const char* name) {
    TG_OperationDescription* d = TG_NewOperation(g_, "TestFreshFill", name);
    TG_SetAttrIntList(d, "shape", shape.data(), static_cast<int>(shape.size()));
    TG_SetAttrFloat(d, "value", value);
    TG_Operation* op = TG_FinishOperation(d, s_);
    EXPECT_TRUE(tgtest::IsOk(s_)) << msg();
    return op;
  }
  TG_Operation* AddressOf(TG_Variable* v, const char* name) {
    TG_Operation* op = OpOf("TestBufferAddress", {TG_VariableOutput(v)}, name);
    EXPECT_TRUE(tgtest::IsOk(s_)) << msg();
    return op;
  }
  // Assign(v, value), validate_shape as given.
  TG_Operation* Assign(TG_Variable* v, TG_Output value, const char* name, bool validate_shape = true) {
    return Update("Assign", v, value, name, "validate_shape", validate_shape);
  }
};

// ---- static shapes at kernel creation ----

TEST_F(PluginAbi8Test, KernelCreateReadsStaticShapes) {
  TG_Operation* x = Placeholder(TG_FLOAT, {2, -1, 3}, "x");
  TG_Operation* seen = StaticShapes(Out(x));
  TG_Operation* u = Placeholder(TG_FLOAT, {}, "u", /*unknown_rank=*/true);
  TG_Operation* seen_u = StaticShapes(Out(u));
  TG_Session* session = NewSession();
  tgtest::TensorPtr xv = FloatTensor({2, 4, 3}, std::vector<float>(24, 1.0f));
  tgtest::TensorPtr uv = FloatTensor({5}, std::vector<float>(5, 1.0f));
  std::vector<tgtest::TensorPtr> out =
      Run(session, {{Out(x), xv.get()}, {Out(u), uv.get()}}, {Out(seen), Out(seen_u)});
  TG_ASSERT_OK(s_);
  // Input 0 [2,?,3] (what the graph knows, not the fed [2,4,3]), output 0 [?], input 1 out
  // of range: unknown rank.
  EXPECT_EQ(Int64s(out[0].get()), (std::vector<int64_t>{3, 2, -1, 3, 1, -1, -1}));
  EXPECT_EQ(Int64s(out[1].get()), (std::vector<int64_t>{-1, 1, -1, -1}));
}

TEST_F(PluginAbi8Test, AKernelDeclinesANodeByItsStaticShape) {
  TG_Operation* known = Placeholder(TG_FLOAT, {4, 5}, "known");
  TG_Operation* declined = StaticShapes(Out(known), /*limit=*/10);
  TG_Operation* taken = StaticShapes(Out(known), /*limit=*/20);
  TG_Operation* partial = Placeholder(TG_FLOAT, {-1, 5}, "partial");
  TG_Operation* unknown_size = StaticShapes(Out(partial), /*limit=*/10);
  tgtest::TensorPtr v = FloatTensor({4, 5}, std::vector<float>(20, 1.0f));
  TG_Session* session = NewSession();
  // The only kernel for the op declines [4,5] past 10 elements: the node has no kernel, and
  // the error gives the kernel's reason.
  Run(session, {{Out(known), v.get()}}, {Out(declined)});
  EXPECT_NE(code(), TG_OK);
  EXPECT_TRUE(tgtest::Contains(msg(), "input 0 has 20 elements, more than 10")) << msg();
  EXPECT_TRUE(tgtest::Contains(msg(), TG_OperationName(declined))) << msg();
  // 20 elements are within a limit of 20; a size known only at run time is not declined
  // (the kernel was made before any run fed 20 elements).
  std::vector<tgtest::TensorPtr> out = Run(session, {{Out(known), v.get()}}, {Out(taken)});
  TG_ASSERT_OK(s_);
  out = Run(session, {{Out(partial), v.get()}}, {Out(unknown_size)});
  TG_ASSERT_OK(s_);
  EXPECT_EQ(Int64s(out[0].get()), (std::vector<int64_t>{2, -1, 5, 1, -1, -1}));
}

// ---- Assign adopting its value's buffer ----

TEST_F(PluginAbi8Test, AssignAdoptsAValueNobodyElseHolds) {
  TG_Variable* v = Var("v", FloatTensor({2, 3}, {1, 2, 3, 4, 5, 6}));
  TG_Operation* fill = FreshFill({2, 3}, 7.0f, "fill");
  TG_Operation* assign = Assign(v, Out(fill), "assign");
  TG_Operation* address = AddressOf(v, "address");
  TG_Operation* version = OpOf("TestInputVersion", {Read(v)}, "version");
  TG_ASSERT_OK(s_);
  TG_Session* session = NewSession();
  RunTargets(session, {Init()});
  TG_ASSERT_OK(s_);
  const int64_t before = Int64(session, Out(address));
  const int64_t version_before = Int64(session, Out(version));
  // The run makes the buffer, reports where, and Assign takes it: the variable's buffer is
  // that one, nothing copied.
  const int64_t made = Int64s(Run(session, {}, {Out(fill, 1)}, {assign})[0].get())[0];
  TG_ASSERT_OK(s_);
  EXPECT_EQ(Int64(session, Out(address)), made);
  EXPECT_NE(made, before);
  EXPECT_EQ(RunFloats(session, Read(v)), std::vector<float>(6, 7.0f));
  // The adopted bytes have a number of their own (plugin ABI 7's input_version).
  const int64_t version_after = Int64(session, Out(version));
  EXPECT_NE(version_after, 0);
  EXPECT_NE(version_after, version_before);
  // Updates write the adopted buffer in place as any variable's.
  RunTargets(session, {Update("AssignAdd", v, Out(FloatConst({2, 3}, 1.0f)), "increment")});
  TG_ASSERT_OK(s_);
  EXPECT_EQ(RunFloats(session, Read(v)), std::vector<float>(6, 8.0f));
  EXPECT_EQ(Int64(session, Out(address)), made);
}

TEST_F(PluginAbi8Test, AnUninitializedVariableAdoptsItsFirstValue) {
  TG_Variable* v = Var("v", FloatTensor({2, 3}, {1, 2, 3, 4, 5, 6}));
  TG_Operation* fill = FreshFill({2, 3}, 3.0f, "fill");
  TG_Operation* assign = Assign(v, Out(fill), "assign");
  TG_Operation* address = AddressOf(v, "address");
  TG_ASSERT_OK(s_);
  TG_Session* session = NewSession();  // the initializer never runs
  const int64_t made = Int64s(Run(session, {}, {Out(fill, 1)}, {assign})[0].get())[0];
  TG_ASSERT_OK(s_);
  EXPECT_EQ(Int64(session, Out(address)), made);
  EXPECT_EQ(RunFloats(session, Read(v)), std::vector<float>(6, 3.0f));
}

TEST_F(PluginAbi8Test, AFetchedValueIsCopiedNotAdopted) {
  TG_Variable* v = Var("v", FloatTensor({2, 3}, {1, 2, 3, 4, 5, 6}));
  TG_Operation* fill = FreshFill({2, 3}, 7.0f, "fill");
  TG_Operation* assign = Assign(v, Out(fill), "assign");
  TG_Operation* address = AddressOf(v, "address");
  TG_ASSERT_OK(s_);
  TG_Session* session = NewSession();
  RunTargets(session, {Init()});
  const int64_t before = Int64(session, Out(address));
  std::vector<tgtest::TensorPtr> out = Run(session, {}, {Out(fill, 0), Out(fill, 1)}, {assign});
  TG_ASSERT_OK(s_);
  EXPECT_NE(Int64(session, Out(address)), Int64s(out[1].get())[0]);
  EXPECT_EQ(Int64(session, Out(address)), before) << "the same shape is written in place";
  EXPECT_EQ(tgtest::Floats(out[0].get()), std::vector<float>(6, 7.0f));
  EXPECT_EQ(RunFloats(session, Read(v)), std::vector<float>(6, 7.0f));
}

TEST_F(PluginAbi8Test, AValueALaterConsumerReadsIsCopiedNotAdopted) {
  TG_Variable* v = Var("v", FloatTensor({2, 3}, {1, 2, 3, 4, 5, 6}));
  TG_Operation* fill = FreshFill({2, 3}, 7.0f, "fill");
  TG_Operation* assign = Assign(v, Out(fill), "assign");
  // Neg reads the value after Assign ran (a control dependency): Assign is not its last reader.
  TG_OperationDescription* d = TG_NewOperation(g_, "Neg", "neg");
  TG_AddInput(d, Out(fill));
  TG_AddControlInput(d, assign);
  TG_Operation* neg = TG_FinishOperation(d, s_);
  TG_Operation* address = AddressOf(v, "address");
  TG_ASSERT_OK(s_);
  TG_Session* session = NewSession();
  RunTargets(session, {Init()});
  std::vector<tgtest::TensorPtr> out = Run(session, {}, {Out(neg), Out(fill, 1)});
  TG_ASSERT_OK(s_);
  EXPECT_NE(Int64(session, Out(address)), Int64s(out[1].get())[0]);
  EXPECT_EQ(tgtest::Floats(out[0].get()), std::vector<float>(6, -7.0f));
  EXPECT_EQ(RunFloats(session, Read(v)), std::vector<float>(6, 7.0f));
}

TEST_F(PluginAbi8Test, AdoptingKeepsAssignsShapeRules) {
  TG_Variable* v = Var("v", FloatTensor({2, 3}, {1, 2, 3, 4, 5, 6}));
  TG_Operation* fill4 = FreshFill({4}, 2.0f, "fill4");
  // (A value of unknown static shape: the shape function would refuse [4] for [2,3].)
  TG_Operation* any = Placeholder(TG_FLOAT, {}, "any", /*unknown_rank=*/true);
  TG_Operation* checked = Assign(v, Out(any), "checked", /*validate_shape=*/true);
  TG_Operation* reshaping = Assign(v, Out(fill4), "reshaping", /*validate_shape=*/false);
  TG_Operation* address = AddressOf(v, "address");
  TG_ASSERT_OK(s_);
  TG_Session* session = NewSession();
  RunTargets(session, {Init()});
  // validate_shape: a [4] value for a [2,3] variable fails, and the variable keeps its value.
  tgtest::TensorPtr four = FloatTensor({4}, {9, 9, 9, 9});
  Run(session, {{Out(any), four.get()}}, {}, {checked});
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  EXPECT_TRUE(tgtest::Contains(msg(), "Assign requires shapes of both tensors to match")) << msg();
  EXPECT_EQ(RunFloats(session, Read(v)), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  // Without it, the variable takes the value's buffer and shape.
  const int64_t made = Int64s(Run(session, {}, {Out(fill4, 1)}, {reshaping})[0].get())[0];
  TG_ASSERT_OK(s_);
  EXPECT_EQ(Int64(session, Out(address)), made);
  std::vector<tgtest::TensorPtr> value = Run(session, {}, {Read(v)});
  TG_ASSERT_OK(s_);
  EXPECT_EQ(tgtest::Dims(value[0].get()), (std::vector<int64_t>{4}));
  EXPECT_EQ(tgtest::Floats(value[0].get()), std::vector<float>(4, 2.0f));
}

// ---- older plugins ----

TEST_F(PluginAbi8Test, AnAbi7PluginLoadsAndRuns) {
  const TG_Plugin* p = TG_LoadPlugin(Good("tg_test_abi_v7").c_str(), s_);
  TG_ASSERT_OK(s_);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(TG_PluginAbiVersion(p), 7u);
  EXPECT_STREQ(TG_PluginName(p), "test_abi_v7");
  EXPECT_GT(TG_CorePluginAbiVersion(), 7u);
  TG_Variable* v = ScalarVar("v", 1.0f);
  TG_Operation* version = OpOf("TestV7Version", {Read(v)}, "v7_version");
  TG_ASSERT_OK(s_);
  TG_Session* session = NewSession();
  RunTargets(session, {Init()});
  const int64_t first = Int64(session, Out(version));
  EXPECT_NE(first, 0) << "a variable's bytes have a number, read through an ABI 7 plugin";
  RunTargets(session, {Increment(v, "increment")});
  TG_ASSERT_OK(s_);
  const int64_t second = Int64(session, Out(version));
  EXPECT_NE(second, 0);
  EXPECT_NE(second, first);
}

}  // namespace
