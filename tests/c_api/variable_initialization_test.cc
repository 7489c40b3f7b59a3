// initialized_value, is_variable_initialized, report_uninitialized_variables,
// variables_initializer / local_variables_initializer, get_variable's default initializer and
// variable_scope(initializer=, dtype=, reuse=) through the C API, run on the CPU plugin.
#include <cmath>
#include <string>
#include <vector>

#include "session_test_util.h"

namespace {

using tgtest::Contains;
using tgtest::FloatTensor;
using tgtest::Floats;
using tgtest::Name;
using tgtest::Out;
using tgtest::SessionTest;
using tgtest::TensorPtr;

class VariableInitializationTest : public SessionTest {
 protected:
  std::vector<std::string> Strings(const TG_Tensor* t) {
    std::vector<std::string> out;
    if (t == nullptr || TG_TensorType(t) != TG_STRING) return out;
    for (int64_t i = 0; i < TG_TensorElementCount(t); ++i) {
      const char* data = nullptr;
      size_t len = 0;
      TG_TensorGetString(t, i, &data, &len, s_);
      out.emplace_back(data, len);
    }
    return out;
  }
  std::vector<std::string> RunStrings(TG_Session* sess, TG_Output fetch) {
    std::vector<TensorPtr> out = Run(sess, {}, {fetch});
    EXPECT_TRUE(tgtest::IsOk(s_)) << msg();
    return out.empty() ? std::vector<std::string>{} : Strings(out[0].get());
  }
  bool RunBool(TG_Session* sess, TG_Output fetch) {
    std::vector<TensorPtr> out = Run(sess, {}, {fetch});
    EXPECT_TRUE(tgtest::IsOk(s_)) << msg();
    return !out.empty() && out[0] != nullptr &&
           *static_cast<const bool*>(TG_TensorData(out[0].get()));
  }
  std::vector<std::string> ControlInputNames(TG_Operation* op) {
    std::vector<TG_Operation*> ctrl(static_cast<size_t>(TG_OperationNumControlInputs(op)));
    TG_OperationGetControlInputs(op, ctrl.data(), static_cast<int>(ctrl.size()));
    std::vector<std::string> names;
    for (TG_Operation* c : ctrl) names.emplace_back(TG_OperationName(c));
    return names;
  }
};

// The seeds: w1 = Variable(random_normal([2, 3], seed=1)); w2 = Variable(w1.initialized_value()
// * 2). One run of global_variables_initializer gives w2 == 2 * w1, whatever the order.
TEST_F(VariableInitializationTest, InitialValueFromAnotherVariable) {
  TG_Initializer normal;
  TG_InitInitializer(&normal, TG_INIT_RANDOM_NORMAL);
  normal.has_seed = 1;
  normal.seed = 1;
  TG_VariableOptions opts;
  TG_InitVariableOptions(&opts);
  opts.name = "w1";
  const int64_t dims[] = {2, 3};
  TG_Variable* w1 = TG_GraphNewVariableWithInit(g_, &normal, TG_FLOAT, dims, 2, &opts, s_);
  TG_ASSERT_OK(s_);
  TG_Output initialized = TG_VariableInitializedValue(g_, w1, s_);
  TG_ASSERT_OK(s_);
  EXPECT_EQ(Name(initialized.oper), "Identity");
  EXPECT_EQ(ControlInputNames(initialized.oper), std::vector<std::string>{"w1/Assign"});
  EXPECT_EQ(TG_OperationOutputType(initialized), TG_FLOAT);  // a value, not a ref
  TG_Operation* doubled = Binary("Mul", initialized.oper, ScalarConst(2.0f), "mul");
  TG_ASSERT_OK(s_);
  opts.name = "w2";
  TG_Variable* w2 = TG_GraphNewVariable(g_, Out(doubled), &opts, s_);
  TG_ASSERT_OK(s_);
  TG_Operation* init = Init();
  TG_Session* sess = NewSession();
  RunTargets(sess, {init});
  TG_ASSERT_OK(s_);
  std::vector<float> a = RunFloats(sess, Read(w1));
  std::vector<float> b = RunFloats(sess, Read(w2));
  ASSERT_EQ(a.size(), 6u);
  ASSERT_EQ(b.size(), 6u);
  for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(b[i], 2 * a[i]) << i;
  // Only w2's initializer, on a fresh session: it initializes w1 on the way.
  TG_Session* fresh = NewSession();
  RunTargets(fresh, {TG_VariableInitializer(w2)});
  TG_ASSERT_OK(s_);
  std::vector<float> a2 = RunFloats(fresh, Read(w1));
  TG_ASSERT_OK(s_);
  EXPECT_EQ(a2, a);  // the graph seed is unset but the op seed fixes the draw
  EXPECT_EQ(RunFloats(fresh, Read(w2)), b);
}

TEST_F(VariableInitializationTest, InitializedValueIgnoresOuterControlDependencies) {
  TG_Variable* v = ScalarVar("v", 3.0f);
  TG_Operation* gate = NoOp("gate");
  TG_GraphPushControlDependencies(g_, &gate, 1, s_);
  TG_ASSERT_OK(s_);
  TG_Output value = TG_VariableInitializedValue(g_, v, s_);
  TG_ASSERT_OK(s_);
  TG_GraphPopControlDependencies(g_, s_);
  TG_ASSERT_OK(s_);
  EXPECT_EQ(ControlInputNames(value.oper), std::vector<std::string>{"v/Assign"});
  TG_Session* sess = NewSession();
  EXPECT_EQ(RunFloats(sess, value), std::vector<float>{3.0f});
  TG_EXPECT_OK(s_);
  EXPECT_EQ(TG_VariableInitializedValue(g_, nullptr, s_).oper, nullptr);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
}

TEST_F(VariableInitializationTest, IsVariableInitializedAcceptsAnUninitializedVariable) {
  TG_Variable* v = ScalarVar("v", 1.0f);
  TG_Output flag = TG_IsVariableInitialized(g_, v, nullptr, s_);
  TG_ASSERT_OK(s_);
  EXPECT_EQ(Name(flag.oper), "IsVariableInitialized");
  EXPECT_EQ(TG_OperationOutputType(flag), TG_BOOL);
  TG_Session* sess = NewSession();
  EXPECT_FALSE(RunBool(sess, flag));
  RunTargets(sess, {TG_VariableInitializer(v)});
  TG_ASSERT_OK(s_);
  EXPECT_TRUE(RunBool(sess, flag));
  EXPECT_EQ(Name(TG_IsVariableInitialized(g_, v, "named", s_).oper), "named");
}

TEST_F(VariableInitializationTest, ReportUninitializedVariablesListsThemInOrder) {
  TG_Variable* a = ScalarVar("a", 1.0f);
  TG_Variable* b = ScalarVar("b", 2.0f);
  TG_GraphPushVariableScope(g_, "scope", TG_REUSE_FALSE, s_);
  TG_ASSERT_OK(s_);
  const int64_t one[] = {1};
  TG_Variable* c = TG_GraphGetVariable(g_, "c", TG_FLOAT, one, 1, nullptr, nullptr, s_);
  TG_ASSERT_OK(s_);
  TG_GraphPopVariableScope(g_, s_);
  TG_Output all = TG_ReportUninitializedVariables(g_, nullptr, -1, nullptr, s_);
  TG_ASSERT_OK(s_);
  EXPECT_EQ(Name(all.oper), "report_uninitialized_variables/boolean_mask/GatherV2");
  EXPECT_EQ(TG_OperationOutputType(all), TG_STRING);
  TG_Variable* some[] = {c, a};
  TG_Output two = TG_ReportUninitializedVariables(g_, some, 2, "check", s_);
  TG_ASSERT_OK(s_);
  EXPECT_NE(TG_GraphOperationByName(g_, "check/stack"), nullptr);
  TG_Output none = TG_ReportUninitializedVariables(g_, nullptr, 0, nullptr, s_);
  TG_ASSERT_OK(s_);
  EXPECT_EQ(Name(none.oper), "report_uninitialized_variables_1/Const");

  TG_Session* sess = NewSession();
  EXPECT_EQ(RunStrings(sess, all), (std::vector<std::string>{"a", "b", "scope/c"}));
  EXPECT_EQ(RunStrings(sess, two), (std::vector<std::string>{"scope/c", "a"}));
  EXPECT_EQ(RunStrings(sess, none), std::vector<std::string>{});
  TG_Variable* just_b[] = {b};
  TG_Operation* init_b = TG_GraphVariablesInitializer(g_, just_b, 1, nullptr, s_);
  TG_ASSERT_OK(s_);
  EXPECT_EQ(Name(init_b), "init");
  RunTargets(sess, {init_b});
  TG_ASSERT_OK(s_);
  EXPECT_EQ(RunStrings(sess, all), (std::vector<std::string>{"a", "scope/c"}));
  RunTargets(sess, {Init()});
  TG_ASSERT_OK(s_);
  EXPECT_EQ(RunStrings(sess, all), std::vector<std::string>{});
}

TEST_F(VariableInitializationTest, LocalVariablesHaveTheirOwnInitializer) {
  TG_VariableOptions opts;
  TG_InitVariableOptions(&opts);
  opts.name = "local";
  const char* local_key[] = {TG_LOCAL_VARIABLES};
  opts.base_collections = local_key;
  opts.num_base_collections = 1;
  opts.trainable = 0;
  TensorPtr five = tgtest::FloatScalar(5.0f);
  TG_Variable* local = TG_GraphNewVariableFromTensor(g_, five.get(), &opts, s_);
  TG_ASSERT_OK(s_);
  TG_Variable* global = ScalarVar("global", 1.0f);
  TG_Operation* local_init = TG_GraphLocalVariablesInitializer(g_, s_);
  TG_ASSERT_OK(s_);
  EXPECT_EQ(ControlInputNames(local_init), std::vector<std::string>{"local/Assign"});
  TG_Operation* global_init = Init();
  EXPECT_EQ(ControlInputNames(global_init), std::vector<std::string>{"global/Assign"});
  TG_Output report = TG_ReportUninitializedVariables(g_, nullptr, -1, nullptr, s_);
  TG_ASSERT_OK(s_);
  TG_Session* sess = NewSession();
  EXPECT_EQ(RunStrings(sess, report), (std::vector<std::string>{"global", "local"}));
  RunTargets(sess, {local_init});
  TG_ASSERT_OK(s_);
  EXPECT_EQ(RunStrings(sess, report), std::vector<std::string>{"global"});
  EXPECT_EQ(ScalarValue(sess, local), 5.0f);
  (void)global;
}

// tf.get_variable('a', []) is glorot_uniform: U[-sqrt(3), sqrt(3)) for a scalar; [4, 6] has
// limit sqrt(6 / 10); integer and bool variables start at zero; strings need an initializer.
TEST_F(VariableInitializationTest, GetVariableDefaultsToGlorotUniform) {
  TG_GraphSetRandomSeed(g_, 7, s_);
  const int64_t dims[] = {4, 6};
  TG_Variable* w = TG_GraphGetVariable(g_, "w", TG_INVALID_DTYPE, dims, 2, nullptr, nullptr, s_);
  TG_ASSERT_OK(s_);
  EXPECT_EQ(TG_VariableDataType(w), TG_FLOAT);
  EXPECT_NE(TG_GraphOperationByName(g_, "w/Initializer/random_uniform/RandomUniform"), nullptr);
  TG_Variable* n = TG_GraphGetVariable(g_, "n", TG_INT32, dims, 2, nullptr, nullptr, s_);
  TG_ASSERT_OK(s_);
  TG_Variable* flag = TG_GraphGetVariable(g_, "flag", TG_BOOL, nullptr, 0, nullptr, nullptr, s_);
  TG_ASSERT_OK(s_);
  EXPECT_EQ(TG_GraphGetVariable(g_, "text", TG_STRING, nullptr, 0, nullptr, nullptr, s_),
            nullptr);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  EXPECT_TRUE(Contains(msg(), "text")) << msg();
  EXPECT_TRUE(Contains(msg(), "initializer")) << msg();

  TG_Session* sess = NewSession();
  RunTargets(sess, {Init()});
  TG_ASSERT_OK(s_);
  std::vector<float> values = RunFloats(sess, Read(w));
  ASSERT_EQ(values.size(), 24u);
  const float limit = std::sqrt(6.0f / 10.0f);
  float spread = 0;
  for (float v : values) {
    EXPECT_GE(v, -limit);
    EXPECT_LT(v, limit);
    spread = std::max(spread, std::fabs(v));
  }
  EXPECT_GT(spread, 0.1f);  // not zeros
  std::vector<TensorPtr> ints = Run(sess, {}, {Read(n), Read(flag)});
  TG_ASSERT_OK(s_);
  const auto* p = static_cast<const int32_t*>(TG_TensorData(ints[0].get()));
  for (int i = 0; i < 24; ++i) EXPECT_EQ(p[i], 0);
  EXPECT_FALSE(*static_cast<const bool*>(TG_TensorData(ints[1].get())));
}

TEST_F(VariableInitializationTest, VariableScopeInitializerAndDtype) {
  TG_Initializer ones;
  TG_InitInitializer(&ones, TG_INIT_CONSTANT);
  ones.value = 0.5;
  TG_VariableScopeOptions scope;
  TG_InitVariableScopeOptions(&scope);
  scope.initializer = &ones;
  scope.dtype = TG_DOUBLE;
  TG_GraphPushVariableScopeWithOptions(g_, "outer", &scope, s_);
  TG_ASSERT_OK(s_);
  const int64_t two[] = {2};
  TG_Variable* a = TG_GraphGetVariable(g_, "a", TG_INVALID_DTYPE, two, 1, nullptr, nullptr, s_);
  TG_ASSERT_OK(s_);
  EXPECT_EQ(TG_VariableDataType(a), TG_DOUBLE);
  // A nested scope inherits both; an explicit dtype wins.
  TG_VariableScopeOptions inner;
  TG_InitVariableScopeOptions(&inner);
  TG_GraphPushVariableScopeWithOptions(g_, "inner", &inner, s_);
  TG_ASSERT_OK(s_);
  TG_Variable* b = TG_GraphGetVariable(g_, "b", TG_FLOAT, two, 1, nullptr, nullptr, s_);
  TG_ASSERT_OK(s_);
  EXPECT_EQ(std::string(TG_VariableName(b)), "outer/inner/b");
  TG_GraphPopVariableScope(g_, s_);
  TG_GraphPopVariableScope(g_, s_);
  TG_ASSERT_OK(s_);
  // Outside, the defaults are back: float and glorot.
  TG_Variable* c = TG_GraphGetVariable(g_, "c", TG_INVALID_DTYPE, two, 1, nullptr, nullptr, s_);
  TG_ASSERT_OK(s_);
  EXPECT_EQ(TG_VariableDataType(c), TG_FLOAT);
  EXPECT_NE(TG_GraphOperationByName(g_, "c/Initializer/random_uniform"), nullptr);

  TG_Session* sess = NewSession();
  RunTargets(sess, {Init()});
  TG_ASSERT_OK(s_);
  std::vector<TensorPtr> out = Run(sess, {}, {Read(a)});
  TG_ASSERT_OK(s_);
  const auto* pa = static_cast<const double*>(TG_TensorData(out[0].get()));
  EXPECT_EQ(pa[0], 0.5);
  EXPECT_EQ(pa[1], 0.5);
  EXPECT_EQ(RunFloats(sess, Read(b)), (std::vector<float>{0.5f, 0.5f}));
}

// The seeds' AUTO_REUSE example: the second get_variable('weights') is the first variable;
// trainable=False of the first one sticks, so trainable_variables() is empty.
TEST_F(VariableInitializationTest, AutoReuseThroughScopeOptions) {
  TG_VariableScopeOptions scope;
  TG_InitVariableScopeOptions(&scope);
  scope.reuse = TG_REUSE_AUTO;
  TG_GraphPushVariableScopeWithOptions(g_, "test", &scope, s_);
  TG_ASSERT_OK(s_);
  TG_VariableOptions untrainable;
  TG_InitVariableOptions(&untrainable);
  untrainable.trainable = 0;
  const int64_t one[] = {1};
  TG_Variable* a = TG_GraphGetVariable(g_, "weights", TG_INVALID_DTYPE, one, 1, nullptr,
                                       &untrainable, s_);
  TG_ASSERT_OK(s_);
  TG_Variable* b =
      TG_GraphGetVariable(g_, "weights", TG_INVALID_DTYPE, one, 1, nullptr, nullptr, s_);
  TG_ASSERT_OK(s_);
  EXPECT_EQ(a, b);
  TG_GraphPopVariableScope(g_, s_);
  TG_Collection* trainable = TG_GraphGetCollection(g_, TG_TRAINABLE_VARIABLES, nullptr, s_);
  TG_ASSERT_OK(s_);
  EXPECT_EQ(TG_CollectionSize(trainable), 0);
  TG_DeleteCollection(trainable);
}

TEST_F(VariableInitializationTest, ScopeOptionsAreChecked) {
  TG_VariableScopeOptions scope;
  TG_InitVariableScopeOptions(&scope);
  scope.struct_size = 3;
  TG_GraphPushVariableScopeWithOptions(g_, "s", &scope, s_);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  EXPECT_TRUE(Contains(msg(), "struct_size")) << msg();
  TG_InitVariableScopeOptions(&scope);
  scope.dtype = static_cast<TG_DataType>(77);
  TG_GraphPushVariableScopeWithOptions(g_, "s", &scope, s_);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  EXPECT_STREQ(TG_GraphCurrentVariableScope(g_), "");  // nothing pushed
}

}  // namespace
