// Variables: the subgraph, collections, the initializer, variable scopes with reuse,
// get_variable and its independence from name scopes.
#include <cstring>
#include <string>

#include "c_api_test_util.h"

namespace {

using tgtest::CApiTest;
using tgtest::Name;
using tgtest::Out;

class VariablesTest : public CApiTest {
 protected:
  TG_Tensor* IntScalar(int32_t v) {
    TG_Tensor* t = TG_AllocateTensor(TG_INT32, nullptr, 0, 4);
    *static_cast<int32_t*>(TG_TensorData(t)) = v;
    return t;
  }
  TG_Tensor* FloatScalar(float v) {
    TG_Tensor* t = TG_AllocateTensor(TG_FLOAT, nullptr, 0, 4);
    *static_cast<float*>(TG_TensorData(t)) = v;
    return t;
  }
  TG_Variable* NewVar(TG_Tensor* value, const char* name, bool trainable = true) {
    TG_VariableOptions opts;
    TG_InitVariableOptions(&opts);
    opts.name = name;
    opts.trainable = trainable ? 1 : 0;
    TG_Variable* v = TG_GraphNewVariableFromTensor(g_, value, &opts, s_);
    TG_DeleteTensor(value);
    EXPECT_TRUE(tgtest::IsOk(s_)) << (name ? name : "");
    return v;
  }
  TG_Variable* GetVar(const char* name, std::vector<int64_t> dims, TG_Tensor* init = nullptr,
                      const TG_VariableOptions* opts = nullptr, TG_DataType dt = TG_FLOAT) {
    TG_Variable* v = TG_GraphGetVariable(g_, name, dt, dims.data(),
                                         static_cast<int>(dims.size()), init, opts, s_);
    TG_DeleteTensor(init);
    return v;
  }
  std::vector<std::string> CollectionNames(const char* key) {
    TG_Collection* c = TG_GraphGetCollection(g_, key, nullptr, s_);
    std::vector<std::string> names;
    for (int i = 0; i < TG_CollectionSize(c); ++i) {
      names.push_back(TG_VariableName(TG_CollectionItemVariable(c, i)));
    }
    TG_DeleteCollection(c);
    return names;
  }
  void PushVarScope(const char* name, TG_Reuse reuse) {
    TG_GraphPushVariableScope(g_, name, reuse, s_);
    ASSERT_TRUE(tgtest::IsOk(s_)) << name;
  }
  void PopVarScope() {
    TG_GraphPopVariableScope(g_, s_);
    ASSERT_TRUE(tgtest::IsOk(s_));
  }
};

// Seed: Variable(2) -> Variable/initial_value (Const), Variable (VariableV2), Variable/Assign,
// Variable/read, and global_variables_initializer() -> init.
TEST_F(VariablesTest, VariableIsASubgraph) {
  TG_Variable* v = NewVar(IntScalar(2), nullptr);
  EXPECT_EQ(OpNames(), (std::vector<std::string>{"Variable/initial_value", "Variable",
                                                 "Variable/Assign", "Variable/read"}));
  EXPECT_STREQ(TG_VariableName(v), "Variable");
  TG_Output ref = TG_VariableOutput(v);
  EXPECT_STREQ(TG_OperationOpType(ref.oper), "VariableV2");
  EXPECT_EQ(TG_OperationOutputType(ref), TG_INT32_REF);
  TG_Output read = TG_VariableReadValue(v);
  EXPECT_EQ(Name(read.oper), "Variable/read");
  EXPECT_STREQ(TG_OperationOpType(read.oper), "Identity");
  EXPECT_EQ(TG_OperationOutputType(read), TG_INT32);
  TG_Operation* assign = TG_VariableInitializer(v);
  EXPECT_EQ(Name(assign), "Variable/Assign");
  EXPECT_STREQ(TG_OperationOpType(assign), "Assign");
  EXPECT_EQ(TG_OperationInput(TG_Input{assign, 0}).oper, ref.oper);
  TG_Output iv = TG_VariableInitialValue(v);
  EXPECT_EQ(Name(iv.oper), "Variable/initial_value");
  EXPECT_STREQ(TG_OperationOpType(iv.oper), "Const");
  EXPECT_EQ(TG_OperationInput(TG_Input{assign, 1}).oper, iv.oper);
  EXPECT_EQ(TG_VariableDataType(v), TG_INT32);
  EXPECT_EQ(TG_VariableTrainable(v), 1);
  EXPECT_EQ(Shape(read.oper), (std::vector<int64_t>{}));
  EXPECT_EQ(TG_GraphVariableByName(g_, "Variable"), v);
  EXPECT_EQ(TG_GraphVariableByName(g_, "nope"), nullptr);

  TG_Operation* init = TG_GraphGlobalVariablesInitializer(g_, s_);
  TG_ASSERT_OK(s_);
  EXPECT_EQ(Name(init), "init");
  EXPECT_STREQ(TG_OperationOpType(init), "NoOp");
  EXPECT_EQ(ControlInputNames(init), (std::vector<std::string>{"Variable/Assign"}));
  EXPECT_EQ(TG_OperationNumInputs(init), 0);
}

// Seed: var = Variable(1); var1 = Variable(2); var2 = Variable(3, name='foo');
// var3 = Variable(4, name='foo') -> Variable, Variable_1, foo, foo_1.
TEST_F(VariablesTest, VariableNamesAreMadeUnique) {
  EXPECT_STREQ(TG_VariableName(NewVar(IntScalar(1), nullptr)), "Variable");
  EXPECT_STREQ(TG_VariableName(NewVar(IntScalar(2), nullptr)), "Variable_1");
  EXPECT_STREQ(TG_VariableName(NewVar(IntScalar(3), "foo")), "foo");
  TG_Variable* v3 = NewVar(IntScalar(4), "foo");
  EXPECT_STREQ(TG_VariableName(v3), "foo_1");
  EXPECT_EQ(Name(TG_VariableInitializer(v3)), "foo_1/Assign");
  EXPECT_EQ(Name(TG_VariableReadValue(v3).oper), "foo_1/read");
}

TEST_F(VariablesTest, CollectionsAndInitializerCoverEveryVariable) {
  NewVar(FloatScalar(1), "a");
  NewVar(FloatScalar(2), "b", /*trainable=*/false);
  TG_VariableOptions opts;
  TG_InitVariableOptions(&opts);
  opts.name = "c";
  const char* extra[] = {TG_MODEL_VARIABLES, "mine"};
  opts.collections = extra;
  opts.num_collections = 2;
  TG_Tensor* t = FloatScalar(3);
  TG_GraphNewVariableFromTensor(g_, t, &opts, s_);
  TG_DeleteTensor(t);
  TG_ASSERT_OK(s_);
  EXPECT_EQ(CollectionNames(TG_GLOBAL_VARIABLES), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(CollectionNames(TG_TRAINABLE_VARIABLES), (std::vector<std::string>{"a", "c"}));
  EXPECT_EQ(CollectionNames(TG_MODEL_VARIABLES), (std::vector<std::string>{"c"}));
  EXPECT_EQ(CollectionNames("mine"), (std::vector<std::string>{"c"}));

  TG_Operation* init = TG_GraphGlobalVariablesInitializer(g_, s_);
  TG_ASSERT_OK(s_);
  EXPECT_EQ(ControlInputNames(init),
            (std::vector<std::string>{"a/Assign", "b/Assign", "c/Assign"}));
}

TEST_F(VariablesTest, LocalVariablesAreNotGlobal) {
  TG_VariableOptions opts;
  TG_InitVariableOptions(&opts);
  opts.name = "counter";
  opts.trainable = 0;
  const char* base[] = {TG_LOCAL_VARIABLES};
  opts.base_collections = base;
  opts.num_base_collections = 1;
  TG_Tensor* t = IntScalar(0);
  TG_Variable* v = TG_GraphNewVariableFromTensor(g_, t, &opts, s_);
  TG_DeleteTensor(t);
  TG_ASSERT_OK(s_);
  EXPECT_EQ(CollectionNames(TG_LOCAL_VARIABLES), (std::vector<std::string>{"counter"}));
  EXPECT_TRUE(CollectionNames(TG_GLOBAL_VARIABLES).empty());
  TG_Operation* init = TG_GraphGlobalVariablesInitializer(g_, s_);
  EXPECT_TRUE(ControlInputNames(init).empty());
  TG_Variable* list[] = {v};
  TG_Operation* local_init = TG_GraphVariablesInitializer(g_, list, 1, "local_init", s_);
  TG_ASSERT_OK(s_);
  EXPECT_EQ(Name(local_init), "local_init");
  EXPECT_EQ(ControlInputNames(local_init), (std::vector<std::string>{"counter/Assign"}));
}

TEST_F(VariablesTest, VariableFromAGraphTensor) {
  // Seed: W = Variable(tf.truncated_normal([700, 10])): the value op is made beforehand.
  TG_Operation* value = FloatConst({3, 2}, 0.5f, "truncated_normal");
  TG_VariableOptions opts;
  TG_InitVariableOptions(&opts);
  opts.name = "W";
  TG_Variable* w = TG_GraphNewVariable(g_, Out(value), &opts, s_);
  TG_ASSERT_OK(s_);
  EXPECT_EQ(OpNames(),
            (std::vector<std::string>{"truncated_normal", "W", "W/Assign", "W/read"}));
  EXPECT_EQ(TG_VariableInitialValue(w).oper, value);
  EXPECT_EQ(Shape(TG_VariableReadValue(w).oper), (std::vector<int64_t>{3, 2}));
  // A matmul of a placeholder and the variable.
  TG_Operation* x = Placeholder(TG_FLOAT, {-1, 3}, "x");
  TG_OperationDescription* d = TG_NewOperation(g_, "MatMul", "y");
  TG_AddInput(d, Out(x));
  TG_AddInput(d, TG_VariableReadValue(w));
  TG_Operation* y = TG_FinishOperation(d, s_);
  TG_ASSERT_OK(s_);
  EXPECT_EQ(Shape(y), (std::vector<int64_t>{-1, 2}));
}

TEST_F(VariablesTest, ValidateShapeRequiresAKnownShape) {
  TG_Operation* p = Placeholder(TG_FLOAT, {-1}, "p");
  TG_VariableOptions opts;
  TG_InitVariableOptions(&opts);
  opts.name = "v";
  EXPECT_EQ(TG_GraphNewVariable(g_, Out(p), &opts, s_), nullptr);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  EXPECT_NE(msg().find("v"), std::string::npos) << msg();
  EXPECT_EQ(TG_GraphNumOperations(g_), 1);  // nothing half-built
  opts.validate_shape = 0;
  TG_Variable* v = TG_GraphNewVariable(g_, Out(p), &opts, s_);
  TG_ASSERT_OK(s_);
  EXPECT_EQ(TG_GraphGetTensorNumDims(g_, TG_VariableReadValue(v), s_), -1);
}

struct InitArg {
  TG_Status* status;
  int calls;
};

TG_Output BuildValue(void* arg, TG_Graph* g, TG_DataType dtype, const int64_t* dims,
                     int num_dims, TG_Status* status) {
  auto* a = static_cast<InitArg*>(arg);
  ++a->calls;
  int64_t n = 1;
  for (int i = 0; i < num_dims; ++i) n *= dims[i];
  if (num_dims < 0) {  // tf.Variable(lambda: ...): no shape given; make a [2] value
    static const int64_t kTwo[] = {2};
    dims = kTwo;
    num_dims = 1;
    n = 2;
    dtype = TG_FLOAT;
  }
  TG_Tensor* t = TG_AllocateTensor(dtype, dims, num_dims, static_cast<size_t>(n) * 4);
  TG_OperationDescription* d = TG_NewOperation(g, "Const", "random_normal");
  TG_SetAttrTensor(d, "value", t, status);
  TG_SetAttrType(d, "dtype", dtype);
  TG_DeleteTensor(t);
  TG_Operation* op = TG_FinishOperation(d, status);
  return TG_Output{op, 0};
}

TG_Output FailingInit(void*, TG_Graph*, TG_DataType, const int64_t*, int, TG_Status* status) {
  TG_SetStatus(status, TG_UNIMPLEMENTED, "no random ops yet");
  return TG_Output{nullptr, 0};
}

TEST_F(VariablesTest, InitializerCallbackBuildsInsideTheVariableScope) {
  InitArg arg{s_, 0};
  TG_VariableOptions opts;
  TG_InitVariableOptions(&opts);
  opts.name = "w";
  TG_Variable* w = TG_GraphNewVariableWithInitializer(g_, BuildValue, &arg, &opts, s_);
  TG_ASSERT_OK(s_);
  EXPECT_EQ(arg.calls, 1);
  EXPECT_EQ(Name(TG_VariableInitialValue(w).oper), "w/random_normal");

  int64_t dims[] = {3, 4};
  TG_Variable* g1 = TG_GraphGetVariableWithInitializer(g_, "g", TG_FLOAT, dims, 2, BuildValue,
                                                       &arg, nullptr, s_);
  TG_ASSERT_OK(s_);
  EXPECT_EQ(Name(TG_VariableInitialValue(g1).oper), "g/Initializer/random_normal");
  EXPECT_EQ(Shape(TG_VariableReadValue(g1).oper), (std::vector<int64_t>{3, 4}));

  int before = TG_GraphNumOperations(g_);
  EXPECT_EQ(TG_GraphNewVariableWithInitializer(g_, FailingInit, nullptr, &opts, s_), nullptr);
  EXPECT_EQ(code(), TG_UNIMPLEMENTED);
  EXPECT_NE(msg().find("no random ops yet"), std::string::npos) << msg();
  EXPECT_EQ(TG_GraphNumOperations(g_), before);
  EXPECT_EQ(TG_GraphNewVariableWithInitializer(g_, nullptr, nullptr, &opts, s_), nullptr);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
}

// The out-parameter form, for bindings whose callbacks cannot return a struct (ctypes).
void BuildValueInto(void* arg, TG_Graph* g, TG_DataType dtype, const int64_t* dims,
                    int num_dims, TG_Output* out, TG_Status* status) {
  *out = BuildValue(arg, g, dtype, dims, num_dims, status);
}

void FailingInitInto(void*, TG_Graph*, TG_DataType, const int64_t*, int, TG_Output*,
                     TG_Status* status) {
  TG_SetStatus(status, TG_UNIMPLEMENTED, "no random ops yet");
}

TEST_F(VariablesTest, GetVariableWithCallbackBuildsOnlyWhenCreating) {
  InitArg arg{s_, 0};
  int64_t dims[] = {2, 5};
  TG_Variable* c = TG_GraphGetVariableWithCallback(g_, "c", TG_FLOAT, dims, 2, BuildValueInto,
                                                   &arg, nullptr, s_);
  TG_ASSERT_OK(s_);
  EXPECT_EQ(arg.calls, 1);
  EXPECT_EQ(Name(TG_VariableInitialValue(c).oper), "c/Initializer/random_normal");
  EXPECT_EQ(Shape(TG_VariableReadValue(c).oper), (std::vector<int64_t>{2, 5}));

  // Reused: the callback is not called again.
  TG_GraphReuseVariables(g_, s_);
  TG_ASSERT_OK(s_);
  EXPECT_EQ(TG_GraphGetVariableWithCallback(g_, "c", TG_FLOAT, dims, 2, BuildValueInto, &arg,
                                            nullptr, s_),
            c);
  TG_ASSERT_OK(s_);
  EXPECT_EQ(arg.calls, 1);
}

TEST_F(VariablesTest, GetVariableWithCallbackReportsFailures) {
  int64_t dims[] = {3};
  const int before = TG_GraphNumOperations(g_);
  EXPECT_EQ(TG_GraphGetVariableWithCallback(g_, "f", TG_FLOAT, dims, 1, FailingInitInto, nullptr,
                                            nullptr, s_),
            nullptr);
  EXPECT_EQ(code(), TG_UNIMPLEMENTED);
  EXPECT_NE(msg().find("initializer of variable 'f'"), std::string::npos) << msg();
  EXPECT_NE(msg().find("no random ops yet"), std::string::npos) << msg();
  EXPECT_EQ(TG_GraphNumOperations(g_), before);
  EXPECT_EQ(TG_GraphGetVariableWithCallback(g_, "f", TG_FLOAT, dims, 1, nullptr, nullptr,
                                            nullptr, s_),
            nullptr);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  EXPECT_NE(msg().find("initializer callback"), std::string::npos) << msg();
}

// ---- get_variable and variable scopes ----

// Seed: scoping(variable_scope) vs scoping(name_scope).
TEST_F(VariablesTest, GetVariableIgnoresNameScopeButNotVariableScope) {
  auto scoping = [&](bool variable_scope, const char* scope1) {
    if (variable_scope) {
      PushVarScope(scope1, TG_REUSE_INHERIT);
    } else {
      TG_GraphPushNameScope(g_, scope1, s_);
    }
    TG_VariableOptions opts;
    TG_InitVariableOptions(&opts);
    opts.name = "a";
    TG_Tensor* one = IntScalar(1);
    TG_Variable* a = TG_GraphNewVariableFromTensor(g_, one, &opts, s_);
    TG_DeleteTensor(one);
    TG_Tensor* two = IntScalar(2);
    TG_Variable* b = TG_GraphGetVariable(g_, "b", TG_INVALID_DTYPE, nullptr, -1, two, nullptr, s_);
    TG_DeleteTensor(two);
    EXPECT_TRUE(tgtest::IsOk(s_));
    TG_Operation* c = IntConst(3, "c");
    if (variable_scope) {
      PushVarScope("res", TG_REUSE_INHERIT);
    } else {
      TG_GraphPushNameScope(g_, "res", s_);
    }
    TG_Operation* ab = Binary("Mul", TG_VariableReadValue(a).oper, TG_VariableReadValue(b).oper);
    TG_Operation* d = Binary("Add", ab, c, "res");
    EXPECT_TRUE(tgtest::IsOk(s_));
    if (variable_scope) {
      PopVarScope();
      PopVarScope();
    } else {
      TG_GraphPopNameScope(g_, s_);
      TG_GraphPopNameScope(g_, s_);
    }
    return std::vector<std::string>{TG_VariableName(a), TG_VariableName(b), Name(c), Name(d)};
  };
  EXPECT_EQ(scoping(true, "scope_vars"),
            (std::vector<std::string>{"scope_vars/a", "scope_vars/b", "scope_vars/c",
                                      "scope_vars/res/res"}));
  EXPECT_EQ(scoping(false, "scope_name"),
            (std::vector<std::string>{"scope_name/a", "b", "scope_name/c",
                                      "scope_name/res/res"}));
}

TEST_F(VariablesTest, ReuseFalseRejectsDuplicates) {
  PushVarScope("layer", TG_REUSE_FALSE);
  TG_Variable* w = GetVar("w", {2, 2});
  TG_ASSERT_OK(s_);
  EXPECT_STREQ(TG_VariableName(w), "layer/w");
  int before = TG_GraphNumOperations(g_);
  EXPECT_EQ(GetVar("w", {2, 2}), nullptr);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  EXPECT_NE(msg().find("layer/w"), std::string::npos) << msg();
  EXPECT_NE(msg().find("already exists"), std::string::npos) << msg();
  EXPECT_EQ(TG_GraphNumOperations(g_), before);
  PopVarScope();
}

TEST_F(VariablesTest, ReuseTrueFindsExistingAndRejectsMissing) {
  PushVarScope("layer", TG_REUSE_FALSE);
  TG_Variable* w = GetVar("w", {2, 2});
  TG_ASSERT_OK(s_);
  PopVarScope();
  PushVarScope("layer", TG_REUSE_TRUE);
  EXPECT_EQ(GetVar("w", {2, 2}), w);
  TG_EXPECT_OK(s_);
  // Shape may be left unknown when reusing.
  EXPECT_EQ(TG_GraphGetVariable(g_, "w", TG_INVALID_DTYPE, nullptr, -1, nullptr, nullptr, s_), w);
  TG_EXPECT_OK(s_);
  EXPECT_EQ(GetVar("missing", {2}), nullptr);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  EXPECT_NE(msg().find("layer/missing"), std::string::npos) << msg();
  EXPECT_NE(msg().find("does not exist"), std::string::npos) << msg();
  // Incompatible shape or dtype.
  EXPECT_EQ(GetVar("w", {3, 2}), nullptr);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  EXPECT_EQ(GetVar("w", {2, 2}, nullptr, nullptr, TG_INT32), nullptr);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  // Sub-scopes of a reusing scope reuse too.
  PushVarScope("inner", TG_REUSE_FALSE);
  EXPECT_EQ(GetVar("x", {1}), nullptr);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  PopVarScope();
  PopVarScope();
}

TEST_F(VariablesTest, AutoReuseCreatesOnceThenReuses) {
  // Seed: with variable_scope('test', reuse=AUTO_REUSE): get_variable('weights', [1],
  // trainable=False) twice -> one variable, and trainable_variables() is empty.
  PushVarScope("test", TG_REUSE_AUTO);
  TG_VariableOptions opts;
  TG_InitVariableOptions(&opts);
  opts.trainable = 0;
  TG_Variable* a = GetVar("weights", {1}, nullptr, &opts);
  TG_ASSERT_OK(s_);
  TG_Variable* b = GetVar("weights", {1});
  TG_ASSERT_OK(s_);
  PopVarScope();
  EXPECT_EQ(a, b);
  EXPECT_STREQ(TG_VariableName(a), "test/weights");
  EXPECT_TRUE(CollectionNames(TG_TRAINABLE_VARIABLES).empty());
  EXPECT_EQ(CollectionNames(TG_GLOBAL_VARIABLES), (std::vector<std::string>{"test/weights"}));
}

// scope.reuse_variables(): from then on the scope (and scopes inside it) reuses; the
// enclosing scope's mode comes back with the pop.
TEST_F(VariablesTest, ReuseVariablesSwitchesTheCurrentScope) {
  EXPECT_EQ(TG_GraphVariableScopeReuse(g_), TG_REUSE_FALSE);
  PushVarScope("rnn", TG_REUSE_INHERIT);
  TG_Variable* w = GetVar("w", {2});
  TG_ASSERT_OK(s_);
  EXPECT_EQ(GetVar("w", {2}), nullptr);  // not reusing yet
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  TG_GraphReuseVariables(g_, s_);
  TG_ASSERT_OK(s_);
  EXPECT_EQ(TG_GraphVariableScopeReuse(g_), TG_REUSE_TRUE);
  EXPECT_EQ(GetVar("w", {2}), w);
  TG_EXPECT_OK(s_);
  PushVarScope("inner", TG_REUSE_INHERIT);
  EXPECT_EQ(TG_GraphVariableScopeReuse(g_), TG_REUSE_TRUE);
  PopVarScope();
  PopVarScope();
  EXPECT_EQ(TG_GraphVariableScopeReuse(g_), TG_REUSE_FALSE);
  EXPECT_NE(GetVar("fresh", {1}), nullptr);
  TG_EXPECT_OK(s_);
  PushVarScope("auto", TG_REUSE_AUTO);
  EXPECT_EQ(TG_GraphVariableScopeReuse(g_), TG_REUSE_AUTO);
  PopVarScope();
  TG_GraphReuseVariables(nullptr, s_);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  EXPECT_EQ(TG_GraphVariableScopeReuse(nullptr), TG_REUSE_FALSE);
}

TEST_F(VariablesTest, TfVariableIsNotReusableByGetVariable) {
  NewVar(FloatScalar(1), "v");
  TG_GraphPushVariableScope(g_, "", TG_REUSE_TRUE, s_);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);  // a variable scope needs a name
  PushVarScope("s", TG_REUSE_FALSE);
  NewVar(FloatScalar(1), "w");  // tf.Variable: s/w
  PopVarScope();
  PushVarScope("s", TG_REUSE_TRUE);
  EXPECT_EQ(GetVar("w", {}), nullptr);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  EXPECT_NE(msg().find("s/w"), std::string::npos) << msg();
  PopVarScope();
}

TEST_F(VariablesTest, GetVariableInitialValues) {
  // Scalar filled to the shape, in "<name>/Initializer/Const".
  TG_Variable* v = GetVar("filled", {2, 3}, FloatScalar(1.5f));
  TG_ASSERT_OK(s_);
  TG_Operation* iv = TG_VariableInitialValue(v).oper;
  EXPECT_EQ(Name(iv), "filled/Initializer/Const");
  TG_Tensor* value = nullptr;
  TG_OperationGetAttrTensor(iv, "value", &value, s_);
  TG_ASSERT_OK(s_);
  EXPECT_EQ(TG_TensorElementCount(value), 6);
  EXPECT_EQ(static_cast<float*>(TG_TensorData(value))[5], 1.5f);
  TG_DeleteTensor(value);
  EXPECT_EQ(OpNames(), (std::vector<std::string>{"filled/Initializer/Const", "filled",
                                                 "filled/Assign", "filled/read"}));

  // No initial value: TF's default, glorot_uniform for a float variable (see
  // variable_initialization_test.cc for integers, bool and the values).
  TG_Variable* z = GetVar("default_var", {4});
  TG_ASSERT_OK(s_);
  EXPECT_EQ(Name(TG_VariableInitialValue(z).oper), "default_var/Initializer/random_uniform");

  // A tensor of the variable's shape; shape taken from it when num_dims == -1.
  int64_t dims[] = {2};
  TG_Tensor* t = TG_AllocateTensor(TG_INT64, dims, 1, 16);
  TG_Variable* from = TG_GraphGetVariable(g_, "from", TG_INVALID_DTYPE, nullptr, -1, t, nullptr, s_);
  TG_ASSERT_OK(s_);
  EXPECT_EQ(TG_VariableDataType(from), TG_INT64);
  EXPECT_EQ(Shape(TG_VariableReadValue(from).oper), (std::vector<int64_t>{2}));

  // Mismatches fail and add nothing.
  int before = TG_GraphNumOperations(g_);
  int64_t three[] = {3};
  EXPECT_EQ(TG_GraphGetVariable(g_, "bad_shape", TG_INT64, three, 1, t, nullptr, s_), nullptr);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  EXPECT_NE(msg().find("bad_shape"), std::string::npos) << msg();
  EXPECT_EQ(TG_GraphGetVariable(g_, "bad_type", TG_FLOAT, dims, 1, t, nullptr, s_), nullptr);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  EXPECT_NE(msg().find("bad_type"), std::string::npos) << msg();
  EXPECT_EQ(TG_GraphNumOperations(g_), before);
  TG_DeleteTensor(t);

  // Unknown shape without an initial value cannot be created.
  EXPECT_EQ(TG_GraphGetVariable(g_, "shapeless", TG_FLOAT, nullptr, -1, nullptr, nullptr, s_),
            nullptr);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
}

TEST_F(VariablesTest, VariableScopeAlsoScopesOps) {
  PushVarScope("outer", TG_REUSE_INHERIT);
  EXPECT_STREQ(TG_GraphCurrentVariableScope(g_), "outer");
  EXPECT_EQ(Scope(), "outer");
  EXPECT_EQ(Name(NoOp("op")), "outer/op");
  PushVarScope("inner", TG_REUSE_INHERIT);
  EXPECT_STREQ(TG_GraphCurrentVariableScope(g_), "outer/inner");
  TG_Variable* v = GetVar("v", {1});
  TG_ASSERT_OK(s_);
  EXPECT_STREQ(TG_VariableName(v), "outer/inner/v");
  PopVarScope();
  PopVarScope();
  EXPECT_STREQ(TG_GraphCurrentVariableScope(g_), "");
  EXPECT_EQ(Scope(), "");
  // Reopening: the name scope becomes outer_1, the variable scope stays "outer".
  PushVarScope("outer", TG_REUSE_AUTO);
  EXPECT_EQ(Scope(), "outer_1");
  EXPECT_STREQ(TG_GraphCurrentVariableScope(g_), "outer");
  TG_Variable* again = GetVar("v2", {1});
  TG_ASSERT_OK(s_);
  EXPECT_STREQ(TG_VariableName(again), "outer/v2");
  PopVarScope();
}

TEST_F(VariablesTest, GetVariableInsideANameScopeUnderAVariableScope) {
  PushVarScope("vs", TG_REUSE_INHERIT);
  TG_GraphPushNameScope(g_, "ns", s_);
  TG_ASSERT_OK(s_);
  TG_Variable* v = GetVar("v", {1});
  TG_ASSERT_OK(s_);
  EXPECT_STREQ(TG_VariableName(v), "vs/v");
  EXPECT_EQ(Name(NoOp("op")), "vs/ns/op");
  EXPECT_EQ(Scope(), "vs/ns");  // the name scope is restored after get_variable
  TG_GraphPopNameScope(g_, s_);
  PopVarScope();
}

TEST_F(VariablesTest, BadArguments) {
  TG_Tensor* t = FloatScalar(1);
  TG_VariableOptions opts;
  TG_InitVariableOptions(&opts);
  opts.struct_size = 3;
  EXPECT_EQ(TG_GraphNewVariableFromTensor(g_, t, &opts, s_), nullptr);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  EXPECT_NE(msg().find("struct_size"), std::string::npos) << msg();
  TG_InitVariableOptions(&opts);
  opts.num_collections = 2;
  EXPECT_EQ(TG_GraphNewVariableFromTensor(g_, t, &opts, s_), nullptr);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  EXPECT_EQ(TG_GraphNewVariableFromTensor(g_, nullptr, nullptr, s_), nullptr);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  EXPECT_EQ(TG_GraphNewVariableFromTensor(nullptr, t, nullptr, s_), nullptr);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  EXPECT_EQ(TG_GraphNewVariable(g_, TG_Output{nullptr, 0}, nullptr, s_), nullptr);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  EXPECT_EQ(TG_GraphGetVariable(g_, nullptr, TG_FLOAT, nullptr, 0, nullptr, nullptr, s_), nullptr);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  EXPECT_EQ(TG_GraphGetVariable(g_, "x", static_cast<TG_DataType>(55), nullptr, 0, nullptr,
                                nullptr, s_),
            nullptr);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  int64_t neg[] = {-3};
  EXPECT_EQ(TG_GraphGetVariable(g_, "x", TG_FLOAT, neg, 1, nullptr, nullptr, s_), nullptr);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  TG_GraphPushVariableScope(g_, "s", static_cast<TG_Reuse>(3), s_);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  TG_GraphPopVariableScope(g_, s_);
  EXPECT_EQ(code(), TG_FAILED_PRECONDITION);
  TG_Variable* null_var = nullptr;
  TG_GraphVariablesInitializer(g_, &null_var, 1, nullptr, s_);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  EXPECT_EQ(TG_GraphNumOperations(g_), 0);
  TG_DeleteTensor(t);

  EXPECT_EQ(TG_VariableName(nullptr), nullptr);
  EXPECT_EQ(TG_VariableOutput(nullptr).oper, nullptr);
  EXPECT_EQ(TG_VariableReadValue(nullptr).oper, nullptr);
  EXPECT_EQ(TG_VariableInitializer(nullptr), nullptr);
  EXPECT_EQ(TG_VariableInitialValue(nullptr).oper, nullptr);
  EXPECT_EQ(TG_VariableDataType(nullptr), TG_INVALID_DTYPE);
  EXPECT_EQ(TG_VariableTrainable(nullptr), 0);
}

TEST_F(VariablesTest, FinalizedGraphRejectsVariables) {
  TG_GraphFinalize(g_);
  TG_Tensor* t = FloatScalar(1);
  EXPECT_EQ(TG_GraphNewVariableFromTensor(g_, t, nullptr, s_), nullptr);
  EXPECT_EQ(code(), TG_FAILED_PRECONDITION);
  TG_DeleteTensor(t);
  EXPECT_EQ(GetVar("v", {1}), nullptr);
  EXPECT_EQ(code(), TG_FAILED_PRECONDITION);
  TG_GraphPushVariableScope(g_, "s", TG_REUSE_AUTO, s_);
  EXPECT_EQ(code(), TG_FAILED_PRECONDITION);
  EXPECT_EQ(TG_GraphNumOperations(g_), 0);
}

}  // namespace
