// Gradients of the call ops (core/autodiff/function_grad.cc) against central differences in
// float64, with TG_AddGradients: a PartitionedCall (SymbolicGradient of its function), an If
// taking either branch (an If of the branches' gradients), a Case on each branch, a While
// (lowered and differentiated as a dataflow loop), a call whose function holds a While, and
// calls of functions whose args and results are lists (number_attr, type_list_attr), which
// also run forward.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gradient_check_util.h"

namespace tgtest {
namespace {

using Inputs = std::vector<TG_Output>;

#define DOUBLE_T R"(attr { key: "T" value { type: DT_DOUBLE } })"
#define INT_T R"(attr { key: "T" value { type: DT_INT32 } })"

// f(x, w) = (tanh(x w), x x); g(x, w) = (tanh x + w, w w); the loop c / b:
// (i, x, w) -> (i + 1, x w + tanh x, w) while i < 3; h(x, w) = that loop's x from i = 0;
// sum_all(xs: N * T) = (sum xs)^2; pass_list(parts: Ts) = parts; split(x) = N pieces of x
// (a whole output arg, "sp:output", as the result).
constexpr const char* kLibrary = R"(
library {
  function {
    signature { name: "f" input_arg { name: "x" type: DT_DOUBLE } input_arg { name: "w" type: DT_DOUBLE }
                output_arg { name: "y" type: DT_DOUBLE } output_arg { name: "z" type: DT_DOUBLE } }
    node_def { name: "xw" op: "Mul" input: "x" input: "w" )" DOUBLE_T R"( }
    node_def { name: "t" op: "Tanh" input: "xw:z:0" )" DOUBLE_T R"( }
    node_def { name: "sq" op: "Mul" input: "x" input: "x" )" DOUBLE_T R"( }
    ret { key: "y" value: "t:y:0" } ret { key: "z" value: "sq:z:0" }
  }
  function {
    signature { name: "g" input_arg { name: "x" type: DT_DOUBLE } input_arg { name: "w" type: DT_DOUBLE }
                output_arg { name: "y" type: DT_DOUBLE } output_arg { name: "z" type: DT_DOUBLE } }
    node_def { name: "s" op: "Tanh" input: "x" )" DOUBLE_T R"( }
    node_def { name: "a" op: "AddV2" input: "s:y:0" input: "w" )" DOUBLE_T R"( }
    node_def { name: "m" op: "Mul" input: "w" input: "w" )" DOUBLE_T R"( }
    ret { key: "y" value: "a:z:0" } ret { key: "z" value: "m:z:0" }
  }
  function {
    signature { name: "c" input_arg { name: "i" type: DT_INT32 } input_arg { name: "x" type: DT_DOUBLE }
                input_arg { name: "w" type: DT_DOUBLE } output_arg { name: "go" type: DT_BOOL } }
    node_def { name: "three" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
               attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 3 } } } }
    node_def { name: "lt" op: "Less" input: "i" input: "three:output:0" )" INT_T R"( }
    ret { key: "go" value: "lt:z:0" }
  }
  function {
    signature { name: "b" input_arg { name: "i" type: DT_INT32 } input_arg { name: "x" type: DT_DOUBLE }
                input_arg { name: "w" type: DT_DOUBLE } output_arg { name: "i1" type: DT_INT32 }
                output_arg { name: "x1" type: DT_DOUBLE } output_arg { name: "w1" type: DT_DOUBLE } }
    node_def { name: "one" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
               attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 1 } } } }
    node_def { name: "inc" op: "AddV2" input: "i" input: "one:output:0" )" INT_T R"( }
    node_def { name: "xw" op: "Mul" input: "x" input: "w" )" DOUBLE_T R"( }
    node_def { name: "s" op: "Tanh" input: "x" )" DOUBLE_T R"( }
    node_def { name: "nx" op: "AddV2" input: "xw:z:0" input: "s:y:0" )" DOUBLE_T R"( }
    ret { key: "i1" value: "inc:z:0" } ret { key: "x1" value: "nx:z:0" } ret { key: "w1" value: "w" }
  }
  function {
    signature { name: "h" input_arg { name: "x" type: DT_DOUBLE } input_arg { name: "w" type: DT_DOUBLE }
                output_arg { name: "y" type: DT_DOUBLE } }
    node_def { name: "zero" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
               attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 0 } } } }
    node_def { name: "loop" op: "StatelessWhile" input: "zero:output:0" input: "x" input: "w"
               attr { key: "T" value { list { type: DT_INT32 type: DT_DOUBLE type: DT_DOUBLE } } }
               attr { key: "cond" value { func { name: "c" } } }
               attr { key: "body" value { func { name: "b" } } } }
    ret { key: "y" value: "loop:output:1" }
  }
  function {
    signature { name: "sum_all" input_arg { name: "xs" type_attr: "T" number_attr: "N" }
                output_arg { name: "s" type_attr: "T" }
                attr { name: "T" type: "type" } attr { name: "N" type: "int" } }
    node_def { name: "sum" op: "AddN" input: "xs"
               attr { key: "N" value { placeholder: "N" } } attr { key: "T" value { placeholder: "T" } } }
    node_def { name: "sq" op: "Mul" input: "sum:sum:0" input: "sum:sum:0"
               attr { key: "T" value { placeholder: "T" } } }
    ret { key: "s" value: "sq:z:0" }
  }
  function {
    signature { name: "pass_list" input_arg { name: "parts" type_list_attr: "Ts" }
                output_arg { name: "outs" type_list_attr: "Ts" } attr { name: "Ts" type: )" "\"list(type)\"" R"( } }
    ret { key: "outs" value: "parts" }
  }
  function {
    signature { name: "split" input_arg { name: "x" type: DT_DOUBLE }
                output_arg { name: "parts" type: DT_DOUBLE number_attr: "N" } attr { name: "N" type: "int" } }
    node_def { name: "axis" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
               attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 0 } } } }
    node_def { name: "sp" op: "Split" input: "axis:output:0" input: "x"
               attr { key: "num_split" value { placeholder: "N" } } )" DOUBLE_T R"( }
    ret { key: "parts" value: "sp:output" }
  }
}
)";

// Imports `nodes` (text GraphDef nodes reading x0, x1, ... = the inputs) with kLibrary and
// returns output 0 of the node named "out".
TG_Output ImportCall(TG_Graph* g, const Inputs& in, const std::string& nodes) {
  const std::string text = nodes + kLibrary;
  TG_ImportGraphDefOptions* opts = TG_NewImportGraphDefOptions();
  TG_ImportGraphDefOptionsSetTextFormat(opts, 1);
  TG_ImportGraphDefOptionsSetPrefix(opts, "");
  for (size_t i = 0; i < in.size(); ++i) {
    std::string name = "x";
    name += std::to_string(i);
    TG_ImportGraphDefOptionsAddInputMapping(opts, name.c_str(), 0, in[i]);
  }
  TG_Buffer* buf = TG_NewBufferFromString(text.data(), text.size());
  TG_Status* s = TG_NewStatus();
  TG_GraphImportGraphDef(g, buf, opts, s);
  EXPECT_TRUE(IsOk(s)) << Message(s);
  TG_DeleteStatus(s);
  TG_DeleteBuffer(buf);
  TG_DeleteImportGraphDefOptions(opts);
  return TG_Output{TG_GraphOperationByName(g, "out"), 0};
}

// Both results of f weigh in (y + 2 z), so the SymbolicGradient sums two paths per input.
TEST(FunctionGradTest, PartitionedCall) {
  CheckGradients({{{3}}, {{3}}}, [](TG_Graph* g, const Inputs& in) {
    return ImportCall(g, in, R"(
node { name: "call" op: "StatefulPartitionedCall" input: "x0" input: "x1"
       attr { key: "Tin" value { list { type: DT_DOUBLE type: DT_DOUBLE } } }
       attr { key: "Tout" value { list { type: DT_DOUBLE type: DT_DOUBLE } } }
       attr { key: "f" value { func { name: "f" } } } }
node { name: "two" op: "Const" attr { key: "dtype" value { type: DT_DOUBLE } }
       attr { key: "value" value { tensor { dtype: DT_DOUBLE tensor_shape {} double_val: 2 } } } }
node { name: "z2" op: "Mul" input: "call:1" input: "two" )" DOUBLE_T R"( }
node { name: "out" op: "AddV2" input: "call:0" input: "z2" )" DOUBLE_T R"( }
)");
  });
}

// Only result 0 is used: result 1's gradient is zeros inside the SymbolicGradient.
TEST(FunctionGradTest, PartitionedCallWithAnUnusedResult) {
  CheckGradients({{{2, 2}}, {{2, 2}}}, [](TG_Graph* g, const Inputs& in) {
    return ImportCall(g, in, R"(
node { name: "out" op: "PartitionedCall" input: "x0" input: "x1"
       attr { key: "Tin" value { list { type: DT_DOUBLE type: DT_DOUBLE } } }
       attr { key: "Tout" value { list { type: DT_DOUBLE type: DT_DOUBLE } } }
       attr { key: "f" value { func { name: "f" } } } }
)");
  });
}

std::string IfGraph(bool pred) {
  std::string text = R"(
node { name: "pred" op: "Const" attr { key: "dtype" value { type: DT_BOOL } }
       attr { key: "value" value { tensor { dtype: DT_BOOL tensor_shape {} bool_val: )";
  text.append(pred ? "true" : "false");
  text.append(R"( } } } }
node { name: "if" op: "If" input: "pred" input: "x0" input: "x1"
       attr { key: "Tcond" value { type: DT_BOOL } }
       attr { key: "Tin" value { list { type: DT_DOUBLE type: DT_DOUBLE } } }
       attr { key: "Tout" value { list { type: DT_DOUBLE type: DT_DOUBLE } } }
       attr { key: "then_branch" value { func { name: "f" } } }
       attr { key: "else_branch" value { func { name: "g" } } } }
node { name: "out" op: "Mul" input: "if:0" input: "if:1" )" DOUBLE_T R"( }
)");
  return text;
}

TEST(FunctionGradTest, IfTakingTheThenBranch) {
  CheckGradients({{{3}}, {{3}}}, [](TG_Graph* g, const Inputs& in) { return ImportCall(g, in, IfGraph(true)); });
}

TEST(FunctionGradTest, IfTakingTheElseBranch) {
  CheckGradients({{{3}}, {{3}}}, [](TG_Graph* g, const Inputs& in) { return ImportCall(g, in, IfGraph(false)); });
}

// A Case over f and g picking branch `index` (out of range: the last).
std::string CaseGraph(int index) {
  std::string text = R"(
node { name: "index" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
       attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: )";
  text.append(std::to_string(index));
  text.append(R"( } } } }
node { name: "case" op: "StatelessCase" input: "index" input: "x0" input: "x1"
       attr { key: "Tin" value { list { type: DT_DOUBLE type: DT_DOUBLE } } }
       attr { key: "Tout" value { list { type: DT_DOUBLE type: DT_DOUBLE } } }
       attr { key: "branches" value { list { func { name: "f" } func { name: "g" } } } } }
node { name: "out" op: "Mul" input: "case:0" input: "case:1" )" DOUBLE_T R"( }
)");
  return text;
}

TEST(FunctionGradTest, CaseTakingEachBranch) {
  for (int index : {0, 1, 7}) {
    SCOPED_TRACE(index);
    CheckGradients({{{3}}, {{3}}}, [index](TG_Graph* g, const Inputs& in) { return ImportCall(g, in, CaseGraph(index)); });
  }
}

// The If's gradient is an If of two FunctionDefs added to the graph's library.
TEST(FunctionGradTest, IfGradientAddsTheBranchGradientsToTheLibrary) {
  LoadCpuPlugin();
  TG_Graph* g = TG_NewGraph();
  TG_Status* s = TG_NewStatus();
  TG_Output x0 = AddOp(g, "Placeholder", {}, [](TG_OperationDescription* d) { TG_SetAttrType(d, "dtype", TG_DOUBLE); });
  TG_Output x1 = AddOp(g, "Placeholder", {}, [](TG_OperationDescription* d) { TG_SetAttrType(d, "dtype", TG_DOUBLE); });
  TG_Output out = ImportCall(g, {x0, x1}, IfGraph(true));
  const int before = TG_GraphNumFunctions(g);
  TG_Output dx[2];
  TG_Output xs[2] = {x0, x1};
  TG_AddGradients(g, &out, 1, xs, 2, nullptr, s, dx);
  ASSERT_TRUE(IsOk(s)) << Message(s);
  EXPECT_EQ(TG_GraphNumFunctions(g), before + 2);
  EXPECT_STREQ(TG_OperationOpType(dx[0].oper), "If");
  TG_DeleteStatus(s);
  TG_DeleteGraph(g);
}

TEST(FunctionGradTest, StatelessWhile) {
  CheckGradients({{{3}, {0.3, -0.5, 0.8}}, {{3}, {0.9, 1.1, -0.7}}}, [](TG_Graph* g, const Inputs& in) {
    return ImportCall(g, in, R"(
node { name: "i0" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
       attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 0 } } } }
node { name: "loop" op: "While" input: "i0" input: "x0" input: "x1"
       attr { key: "T" value { list { type: DT_INT32 type: DT_DOUBLE type: DT_DOUBLE } } }
       attr { key: "cond" value { func { name: "c" } } }
       attr { key: "body" value { func { name: "b" } } } }
node { name: "out" op: "Mul" input: "loop:1" input: "loop:2" )" DOUBLE_T R"( }
)");
  });
}

// The call's SymbolicGradient differentiates a body holding a While.
TEST(FunctionGradTest, CallOfAFunctionHoldingAWhile) {
  CheckGradients({{{2}, {0.4, -0.2}}, {{2}, {0.6, 1.2}}}, [](TG_Graph* g, const Inputs& in) {
    return ImportCall(g, in, R"(
node { name: "out" op: "PartitionedCall" input: "x0" input: "x1"
       attr { key: "Tin" value { list { type: DT_DOUBLE type: DT_DOUBLE } } }
       attr { key: "Tout" value { list { type: DT_DOUBLE } } }
       attr { key: "f" value { func { name: "h" } } } }
)");
  });
}

constexpr const char* kSumAll = R"(
node { name: "out" op: "PartitionedCall" input: "x0" input: "x1" input: "x0"
       attr { key: "Tin" value { list { type: DT_DOUBLE type: DT_DOUBLE type: DT_DOUBLE } } }
       attr { key: "Tout" value { list { type: DT_DOUBLE } } }
       attr { key: "f" value { func { name: "sum_all" attr { key: "T" value { type: DT_DOUBLE } }
                                       attr { key: "N" value { i: 3 } } } } } }
)";

TEST(FunctionGradTest, NumberAttrListArg) {
  CheckGradients({{{2}}, {{2}}}, [](TG_Graph* g, const Inputs& in) { return ImportCall(g, in, kSumAll); });
}

// A type_list_attr arg and result: (double, int32) handed straight back.
constexpr const char* kPassList = R"(
node { name: "n" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
       attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 3 } } } }
node { name: "call" op: "PartitionedCall" input: "x0" input: "n"
       attr { key: "Tin" value { list { type: DT_DOUBLE type: DT_INT32 } } }
       attr { key: "Tout" value { list { type: DT_DOUBLE type: DT_INT32 } } }
       attr { key: "f" value { func { name: "pass_list"
              attr { key: "Ts" value { list { type: DT_DOUBLE type: DT_INT32 } } } } } } }
node { name: "nd" op: "Cast" input: "call:1" attr { key: "SrcT" value { type: DT_INT32 } }
       attr { key: "DstT" value { type: DT_DOUBLE } } }
node { name: "out" op: "Mul" input: "call:0" input: "nd" )" DOUBLE_T R"( }
)";

TEST(FunctionGradTest, TypeListArg) {
  CheckGradients({{{3}}}, [](TG_Graph* g, const Inputs& in) { return ImportCall(g, in, kPassList); });
}

// A number_attr result: x split in three, the first and last pieces multiplied.
constexpr const char* kSplit = R"(
node { name: "call" op: "PartitionedCall" input: "x0"
       attr { key: "Tin" value { list { type: DT_DOUBLE } } }
       attr { key: "Tout" value { list { type: DT_DOUBLE type: DT_DOUBLE type: DT_DOUBLE } } }
       attr { key: "f" value { func { name: "split" attr { key: "N" value { i: 3 } } } } } }
node { name: "out" op: "Mul" input: "call:0" input: "call:2" )" DOUBLE_T R"( }
)";

TEST(FunctionGradTest, NumberAttrListResult) {
  CheckGradients({{{3}}}, [](TG_Graph* g, const Inputs& in) { return ImportCall(g, in, kSplit); });
}

// The list args' functions run forward to the right numbers.
TEST(FunctionGradTest, ListArgFunctionsRun) {
  LoadCpuPlugin();
  struct Case {
    const char* nodes;
    std::vector<double> x0, want;
  };
  for (const Case& c : {Case{kSumAll, {1, 2}, {144, 576}},  // (x0 + x1 + x0)^2, x1 = {10, 20}
                        Case{kPassList, {1, 2}, {3, 6}}, Case{kSplit, {1, 2, 3}, {3}}}) {
    TG_Graph* g = TG_NewGraph();
    TG_Status* s = TG_NewStatus();
    TG_Output out = ImportCall(g, {ConstDouble(g, c.x0), ConstDouble(g, {10, 20})}, c.nodes);
    ASSERT_NE(out.oper, nullptr);
    TG_Session* session = TG_NewSession(g, nullptr, s);
    ASSERT_TRUE(IsOk(s)) << Message(s);
    TG_Tensor* result = nullptr;
    TG_SessionRun(session, nullptr, nullptr, nullptr, 0, &out, &result, 1, nullptr, 0, nullptr, s);
    ASSERT_TRUE(IsOk(s)) << Message(s);
    EXPECT_EQ(Doubles(result), c.want);
    TG_DeleteTensor(result);
    TG_DeleteSession(session, s);
    TG_DeleteStatus(s);
    TG_DeleteGraph(g);
  }
}

}  // namespace
}  // namespace tgtest
