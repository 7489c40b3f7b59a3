// Functions (core/graph/function_library.h) and the call kernels
// (core/exec/function_kernels.cc): GraphDefs with a library, written as TensorFlow writes
// them ("node:output_arg:index" inputs, ret maps, attr placeholders), imported and run.
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "core/exec/function_runtime.h"
#include "core/exec/kernel_runner.h"
#include "core/graph/function_library.h"
#include "core/graph/graphdef_io.h"
#include "session_test_util.h"

namespace tgraph {
namespace {

// f(x, y) = x * y + x.
constexpr const char* kMulAdd = R"(
  function {
    signature { name: "mul_add" input_arg { name: "x" type: DT_FLOAT }
                input_arg { name: "y" type: DT_FLOAT } output_arg { name: "out" type: DT_FLOAT } }
    node_def { name: "m" op: "Mul" input: "x" input: "y" attr { key: "T" value { type: DT_FLOAT } } }
    node_def { name: "a" op: "AddV2" input: "m:z:0" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
    ret { key: "out" value: "a:z:0" }
  })";

// twice(x: T) = x + x for any T (an attr placeholder).
constexpr const char* kTwice = R"(
  function {
    signature { name: "twice" input_arg { name: "x" type_attr: "T" } output_arg { name: "y" type_attr: "T" }
                attr { name: "T" type: "type" } }
    node_def { name: "a" op: "AddV2" input: "x" input: "x" attr { key: "T" value { placeholder: "T" } } }
    ret { key: "y" value: "a:z:0" }
  })";

// Branches of an If: (x, y) -> x - y, and (x, y) -> mul_add(x, y) through a nested call.
constexpr const char* kBranches = R"(
  function {
    signature { name: "minus" input_arg { name: "x" type: DT_FLOAT } input_arg { name: "y" type: DT_FLOAT }
                output_arg { name: "out" type: DT_FLOAT } }
    node_def { name: "s" op: "Sub" input: "x" input: "y" attr { key: "T" value { type: DT_FLOAT } } }
    ret { key: "out" value: "s:z:0" }
  }
  function {
    signature { name: "call_mul_add" input_arg { name: "x" type: DT_FLOAT } input_arg { name: "y" type: DT_FLOAT }
                output_arg { name: "out" type: DT_FLOAT } }
    node_def { name: "c" op: "StatefulPartitionedCall" input: "x" input: "y"
               attr { key: "Tin" value { list { type: DT_FLOAT type: DT_FLOAT } } }
               attr { key: "Tout" value { list { type: DT_FLOAT } } }
               attr { key: "f" value { func { name: "mul_add" } } } }
    ret { key: "out" value: "c:output:0" }
  })";

// Factorial by a loop: (i, acc, n) -> (i + 1, acc * i, n) while i <= n.
constexpr const char* kFactorialLoop = R"(
  function {
    signature { name: "fact_cond" input_arg { name: "i" type: DT_FLOAT } input_arg { name: "acc" type: DT_FLOAT }
                input_arg { name: "n" type: DT_FLOAT } output_arg { name: "go" type: DT_BOOL } }
    node_def { name: "le" op: "LessEqual" input: "i" input: "n" attr { key: "T" value { type: DT_FLOAT } } }
    ret { key: "go" value: "le:z:0" }
  }
  function {
    signature { name: "fact_body" input_arg { name: "i" type: DT_FLOAT } input_arg { name: "acc" type: DT_FLOAT }
                input_arg { name: "n" type: DT_FLOAT } output_arg { name: "i1" type: DT_FLOAT }
                output_arg { name: "acc1" type: DT_FLOAT } output_arg { name: "n1" type: DT_FLOAT } }
    node_def { name: "one" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
               attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 1 } } } }
    node_def { name: "inc" op: "AddV2" input: "i" input: "one:output:0" attr { key: "T" value { type: DT_FLOAT } } }
    node_def { name: "mul" op: "Mul" input: "acc" input: "i" attr { key: "T" value { type: DT_FLOAT } } }
    ret { key: "i1" value: "inc:z:0" } ret { key: "acc1" value: "mul:z:0" } ret { key: "n1" value: "n" }
  })";

// A loop whose body grows its variable: x -> concat(x, x).
constexpr const char* kGrowLoop = R"(
  function {
    signature { name: "grow_cond" input_arg { name: "x" type: DT_FLOAT } output_arg { name: "go" type: DT_BOOL } }
    node_def { name: "size" op: "Size" input: "x" attr { key: "T" value { type: DT_FLOAT } }
               attr { key: "out_type" value { type: DT_INT32 } } }
    node_def { name: "four" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
               attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 4 } } } }
    node_def { name: "lt" op: "Less" input: "size:output:0" input: "four:output:0" attr { key: "T" value { type: DT_INT32 } } }
    ret { key: "go" value: "lt:z:0" }
  }
  function {
    signature { name: "grow_body" input_arg { name: "x" type: DT_FLOAT } output_arg { name: "y" type: DT_FLOAT } }
    node_def { name: "axis" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
               attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 0 } } } }
    node_def { name: "c" op: "ConcatV2" input: "x" input: "x" input: "axis:output:0"
               attr { key: "N" value { i: 2 } } attr { key: "T" value { type: DT_FLOAT } }
               attr { key: "Tidx" value { type: DT_INT32 } } }
    ret { key: "y" value: "c:output:0" }
  })";

// fact(n) = n <= 1 ? 1 : n * fact(n - 1), recursing through an If.
constexpr const char* kRecursiveFactorial = R"(
  function {
    signature { name: "one_of" input_arg { name: "n" type: DT_FLOAT } output_arg { name: "r" type: DT_FLOAT } }
    node_def { name: "one" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
               attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 1 } } } }
    ret { key: "r" value: "one:output:0" }
  }
  function {
    signature { name: "n_times_fact" input_arg { name: "n" type: DT_FLOAT } output_arg { name: "r" type: DT_FLOAT } }
    node_def { name: "one" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
               attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 1 } } } }
    node_def { name: "dec" op: "Sub" input: "n" input: "one:output:0" attr { key: "T" value { type: DT_FLOAT } } }
    node_def { name: "rec" op: "PartitionedCall" input: "dec:z:0"
               attr { key: "Tin" value { list { type: DT_FLOAT } } } attr { key: "Tout" value { list { type: DT_FLOAT } } }
               attr { key: "f" value { func { name: "fact" } } } }
    node_def { name: "mul" op: "Mul" input: "n" input: "rec:output:0" attr { key: "T" value { type: DT_FLOAT } } }
    ret { key: "r" value: "mul:z:0" }
  }
  function {
    signature { name: "fact" input_arg { name: "n" type: DT_FLOAT } output_arg { name: "r" type: DT_FLOAT } }
    node_def { name: "one" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
               attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 1 } } } }
    node_def { name: "le" op: "LessEqual" input: "n" input: "one:output:0" attr { key: "T" value { type: DT_FLOAT } } }
    node_def { name: "if" op: "StatelessIf" input: "le:z:0" input: "n"
               attr { key: "Tcond" value { type: DT_BOOL } }
               attr { key: "Tin" value { list { type: DT_FLOAT } } } attr { key: "Tout" value { list { type: DT_FLOAT } } }
               attr { key: "then_branch" value { func { name: "one_of" } } }
               attr { key: "else_branch" value { func { name: "n_times_fact" } } } }
    ret { key: "r" value: "if:output:0" }
  })";

std::string PlaceholderNode(const char* name, const char* type = "DT_FLOAT") {
  return StrCat("node { name: '", name, "' op: 'Placeholder' attr { key: 'dtype' value { type: ", type,
                " } } }\n");
}

std::string FloatList(int n) {
  std::string s = "list {";
  for (int i = 0; i < n; ++i) s += " type: DT_FLOAT";
  return s + " }";
}

// A call node `name` of op `op` on `inputs`, with `attrs` (text) besides Tin / Tout.
std::string CallNode(const char* name, const char* op, std::vector<std::string> inputs, int tin,
                     int tout, const std::string& attrs) {
  std::string s = StrCat("node { name: '", name, "' op: '", op, "'");
  for (const std::string& in : inputs) s += StrCat(" input: '", in, "'");
  return StrCat(s, " attr { key: 'Tin' value { ", FloatList(tin), " } } attr { key: 'Tout' value { ",
                FloatList(tout), " } } ", attrs, " }\n");
}

class FunctionTest : public SessionTest {
 protected:
  Status Import(const std::string& nodes, const std::string& library, const std::string& prefix = "") {
    tf::GraphDef def;
    Status s = ParseGraphDefText(StrCat(nodes, "library {", library, "}"), &def);
    if (!s.ok()) return s;
    ImportOptions opts;
    opts.prefix = prefix;
    return ImportGraphDef(def, opts, &g_, nullptr);
  }
  Output T(const std::string& name) { return g_.FindOutput(name).value(); }
  Status Run(std::vector<std::pair<std::string, Tensor>> feeds, std::vector<std::string> fetches,
             std::vector<Tensor>* out) {
    if (session_ == nullptr) session_ = NewSession();
    std::vector<std::pair<Output, Tensor>> f;
    for (auto& [name, value] : feeds) f.emplace_back(T(name), value);
    std::vector<Output> outputs;
    for (const std::string& name : fetches) outputs.push_back(T(name));
    return session_->Run(f, outputs, {}, out);
  }
  float RunScalar(std::vector<std::pair<std::string, Tensor>> feeds, const std::string& fetch) {
    std::vector<Tensor> out;
    Status s = Run(std::move(feeds), {fetch}, &out);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return s.ok() ? Value(out[0]) : -1e30f;
  }
  static Tensor Bool(bool b) {
    Tensor t = Tensor::Allocate(DT_BOOL, {}).value();
    *static_cast<bool*>(t.data()) = b;
    return t;
  }
  static Tensor Int(int32_t v) {
    Tensor t = Tensor::Allocate(DT_INT32, {}).value();
    *t.flat<int32_t>() = v;
    return t;
  }
  std::unique_ptr<Session> session_;
};

TEST_F(FunctionTest, ImportKeepsTheLibraryAndExportWritesItBack) {
  ASSERT_TRUE(Import(PlaceholderNode("x"), StrCat(kMulAdd, kTwice)).ok());
  EXPECT_EQ(g_.functions().size(), 2);
  EXPECT_TRUE(g_.functions().Contains("twice"));
  tf::GraphDef out;
  ASSERT_TRUE(ExportGraphDef(g_, &out).ok());
  ASSERT_EQ(out.library().function_size(), 2);
  EXPECT_EQ(out.library().function(0).signature().name(), "mul_add");  // sorted by name
  EXPECT_EQ(out.library().function(1).node_def(0).attr().at("T").placeholder(), "T");
  // The same definitions again (another import of the file) are fine...
  ASSERT_TRUE(Import(PlaceholderNode("x"), kMulAdd, "again").ok());
  EXPECT_EQ(g_.functions().size(), 2);
  // ...another definition under a taken name is not, and adds nothing.
  const int ops = g_.num_operations();
  std::string other = kMulAdd;
  other.replace(other.find("\"AddV2\""), 7, "\"Sub\"");
  Status s = Import(PlaceholderNode("z"), other, "third");
  EXPECT_EQ(s.code(), Code::kInvalidArgument) << s.ToString();
  EXPECT_NE(s.message().find("'mul_add'"), std::string::npos) << s.ToString();
  EXPECT_EQ(g_.num_operations(), ops);
  // Export -> import -> export gives the same bytes.
  std::string first, second;
  ASSERT_TRUE(ExportGraphDefBytes(g_, &first).ok());
  Graph copy;
  ImportOptions opts;
  opts.prefix = "";
  ASSERT_TRUE(ImportGraphDef(out, opts, &copy, nullptr).ok());
  tf::GraphDef again;
  ASSERT_TRUE(ExportGraphDef(copy, &again).ok());
  ASSERT_TRUE(SerializeGraphDef(again, &second).ok());
  ASSERT_TRUE(SerializeGraphDef(out, &first).ok());
  EXPECT_EQ(first, second);
}

TEST_F(FunctionTest, PartitionedCallRunsTheBody) {
  ASSERT_TRUE(Import(PlaceholderNode("x") + PlaceholderNode("y") +
                         CallNode("call", "PartitionedCall", {"x", "y"}, 2, 1,
                                  "attr { key: 'f' value { func { name: 'mul_add' } } }"),
                     kMulAdd)
                  .ok());
  EXPECT_FLOAT_EQ(RunScalar({{"x", Scalar(3)}, {"y", Scalar(4)}}, "call"), 15.0f);
  EXPECT_FLOAT_EQ(RunScalar({{"x", Scalar(-2)}, {"y", Scalar(0.5f)}}, "call"), -3.0f);
  EXPECT_EQ(session_->plans_built(), 1);  // the outer plan is cached; so is the body's
}

TEST_F(FunctionTest, NodesNamingAFunctionAsTheirOpAreCalls) {
  // TF1 Defun: op type = function name, at the top level and inside a body (whose results
  // are then named by the callee's output args), with the node's attrs for the callee's.
  constexpr const char* kDirect = R"(
    function {
      signature { name: "direct" input_arg { name: "x" type: DT_FLOAT } output_arg { name: "r" type: DT_FLOAT } }
      node_def { name: "c" op: "mul_add" input: "x" input: "x" }
      node_def { name: "t" op: "twice" input: "c:out:0" attr { key: "T" value { type: DT_FLOAT } } }
      ret { key: "r" value: "t:y:0" }
    })";
  ASSERT_TRUE(Import(PlaceholderNode("x") + PlaceholderNode("i", "DT_INT32") +
                         "node { name: 'd' op: 'direct' input: 'x' }\n"
                         "node { name: 'ti' op: 'twice' input: 'i' attr { key: 'T' value { type: DT_INT32 } } }\n",
                     StrCat(kMulAdd, kTwice, kDirect))
                  .ok());
  EXPECT_EQ(g_.FindOperation("d")->type(), "StatefulPartitionedCall");
  std::vector<Tensor> out;
  ASSERT_TRUE(Run({{"x", Scalar(3)}, {"i", Int(4)}}, {"d", "ti"}, &out).ok());
  EXPECT_FLOAT_EQ(Value(out[0]), 24.0f);  // 2 * (3 * 3 + 3)
  EXPECT_EQ(*out[1].flat<int32_t>(), 8);
  // A call whose function needs a type attr the node lacks names both.
  Status s = Import("node { name: 'bad' op: 'twice' input: 'x' }\n", "", "p");
  EXPECT_EQ(s.code(), Code::kInvalidArgument) << s.ToString();
  EXPECT_NE(s.message().find("'bad'"), std::string::npos) << s.ToString();
  EXPECT_NE(s.message().find("'twice'"), std::string::npos) << s.ToString();
}

TEST_F(FunctionTest, AttrPlaceholdersGiveOneInstantiationPerType) {
  ASSERT_TRUE(Import(PlaceholderNode("x") + PlaceholderNode("i", "DT_INT32") +
                         "node { name: 'fx' op: 'PartitionedCall' input: 'x' attr { key: 'Tin' value { list { type: "
                         "DT_FLOAT } } } attr { key: 'Tout' value { list { type: DT_FLOAT } } } attr { key: 'f' "
                         "value { func { name: 'twice' attr { key: 'T' value { type: DT_FLOAT } } } } } }\n"
                         "node { name: 'fi' op: 'PartitionedCall' input: 'i' attr { key: 'Tin' value { list { type: "
                         "DT_INT32 } } } attr { key: 'Tout' value { list { type: DT_INT32 } } } attr { key: 'f' "
                         "value { func { name: 'twice' attr { key: 'T' value { type: DT_INT32 } } } } } }\n",
                     kTwice)
                  .ok());
  std::vector<Tensor> out;
  ASSERT_TRUE(Run({{"x", Scalar(1.25f)}, {"i", Int(21)}}, {"fx", "fi"}, &out).ok());
  EXPECT_FLOAT_EQ(Value(out[0]), 2.5f);
  EXPECT_EQ(*out[1].flat<int32_t>(), 42);
}

TEST_F(FunctionTest, IfRunsOneBranchAndCallsNest) {
  ASSERT_TRUE(Import(PlaceholderNode("p", "DT_BOOL") + PlaceholderNode("x") + PlaceholderNode("y") +
                         CallNode("if", "If", {"p", "x", "y"}, 2, 1,
                                  "attr { key: 'Tcond' value { type: DT_BOOL } } "
                                  "attr { key: 'then_branch' value { func { name: 'call_mul_add' } } } "
                                  "attr { key: 'else_branch' value { func { name: 'minus' } } }"),
                     StrCat(kMulAdd, kBranches))
                  .ok());
  EXPECT_FLOAT_EQ(RunScalar({{"p", Bool(true)}, {"x", Scalar(3)}, {"y", Scalar(4)}}, "if"), 15.0f);
  EXPECT_FLOAT_EQ(RunScalar({{"p", Bool(false)}, {"x", Scalar(3)}, {"y", Scalar(4)}}, "if"), -1.0f);
}

TEST_F(FunctionTest, CaseRunsTheIndexedBranchOrTheLast) {
  ASSERT_TRUE(Import(PlaceholderNode("b", "DT_INT32") + PlaceholderNode("x") + PlaceholderNode("y") +
                         "node { name: 'case' op: 'StatelessCase' input: 'b' input: 'x' input: 'y' "
                         "attr { key: 'Tin' value { list { type: DT_FLOAT type: DT_FLOAT } } } "
                         "attr { key: 'Tout' value { list { type: DT_FLOAT } } } "
                         "attr { key: 'branches' value { list { func { name: 'minus' } func { name: 'mul_add' } } } } }\n",
                     StrCat(kMulAdd, kBranches))
                  .ok());
  auto run = [&](int32_t b) { return RunScalar({{"b", Int(b)}, {"x", Scalar(3)}, {"y", Scalar(4)}}, "case"); };
  EXPECT_FLOAT_EQ(run(0), -1.0f);
  EXPECT_FLOAT_EQ(run(1), 15.0f);
  EXPECT_FLOAT_EQ(run(7), 15.0f);   // out of range: the last branch, as in TensorFlow
  EXPECT_FLOAT_EQ(run(-1), 15.0f);
}

TEST_F(FunctionTest, WhileComputesAFactorial) {
  ASSERT_TRUE(Import(PlaceholderNode("n") +
                         "node { name: 'one' op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } } "
                         "attr { key: 'value' value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 1 } } } }\n"
                         "node { name: 'loop' op: 'StatelessWhile' input: 'one' input: 'one' input: 'n' "
                         "attr { key: 'T' value { list { type: DT_FLOAT type: DT_FLOAT type: DT_FLOAT } } } "
                         "attr { key: 'cond' value { func { name: 'fact_cond' } } } "
                         "attr { key: 'body' value { func { name: 'fact_body' } } } }\n",
                     kFactorialLoop)
                  .ok());
  EXPECT_FLOAT_EQ(RunScalar({{"n", Scalar(5)}}, "loop:1"), 120.0f);
  EXPECT_FLOAT_EQ(RunScalar({{"n", Scalar(10)}}, "loop:1"), 3628800.0f);
  EXPECT_FLOAT_EQ(RunScalar({{"n", Scalar(0)}}, "loop:1"), 1.0f);  // no iteration at all
  EXPECT_FLOAT_EQ(RunScalar({{"n", Scalar(3)}}, "loop:0"), 4.0f);
  // The loop's outputs keep its inputs' static shapes (no output_shapes given).
  EXPECT_EQ(T("loop:1").shape(), PartialShape::Scalar());
}

TEST_F(FunctionTest, ConcurrentRunsCallTheSameBodies) {
  ASSERT_TRUE(Import(PlaceholderNode("n") +
                         "node { name: 'one' op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } } "
                         "attr { key: 'value' value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 1 } } } }\n"
                         "node { name: 'loop' op: 'While' input: 'one' input: 'one' input: 'n' "
                         "attr { key: 'T' value { list { type: DT_FLOAT type: DT_FLOAT type: DT_FLOAT } } } "
                         "attr { key: 'cond' value { func { name: 'fact_cond' } } } "
                         "attr { key: 'body' value { func { name: 'fact_body' } } } }\n",
                     kFactorialLoop)
                  .ok());
  session_ = NewSession();
  std::vector<std::thread> threads;
  std::atomic<int> wrong{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 50; ++i) {
        const float n = static_cast<float>((t + i) % 6);
        float want = 1;
        for (int k = 2; k <= static_cast<int>(n); ++k) want *= static_cast<float>(k);
        std::vector<Tensor> out;
        Status s = session_->Run({{T("n"), Scalar(n)}}, {T("loop:1")}, {}, &out);
        if (!s.ok() || Value(out[0]) != want) ++wrong;
      }
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0);
}

TEST_F(FunctionTest, WhileBodyMayChangeShapesOnlyWithinTheInvariants) {
  const std::string loop =
      "node { name: 'loop' op: 'While' input: 'x' "
      "attr { key: 'T' value { list { type: DT_FLOAT } } } "
      "attr { key: 'cond' value { func { name: 'grow_cond' } } } "
      "attr { key: 'body' value { func { name: 'grow_body' } } } %s }\n";
  // Relaxed by output_shapes (TF's shape_invariants): [1] grows to [4].
  std::string relaxed = loop;
  relaxed.replace(relaxed.find("%s"), 2,
                  "attr { key: 'output_shapes' value { list { shape { dim { size: -1 } } } } }");
  ASSERT_TRUE(Import("node { name: 'x' op: 'Placeholder' attr { key: 'dtype' value { type: DT_FLOAT } } "
                     "attr { key: 'shape' value { shape { dim { size: 1 } } } } }\n" + relaxed,
                     kGrowLoop)
                  .ok());
  Tensor x = Tensor::Allocate(DT_FLOAT, {1}).value();
  *x.flat<float>() = 2;
  std::vector<Tensor> out;
  ASSERT_TRUE(Run({{"x", x}}, {"loop"}, &out).ok());
  EXPECT_EQ(out[0].dims(), std::vector<int64_t>{4});
  // Without: the loop variable keeps its shape [1], and the body breaks it.
  std::string fixed = loop;
  fixed.replace(fixed.find("%s"), 2, "");
  ASSERT_TRUE(Import("node { name: 'x' op: 'Placeholder' attr { key: 'dtype' value { type: DT_FLOAT } } "
                     "attr { key: 'shape' value { shape { dim { size: 1 } } } } }\n" + fixed,
                     kGrowLoop, "fixed")
                  .ok());
  std::vector<Tensor> unused;
  Status s = session_->Run({{T("fixed/x"), x}}, {T("fixed/loop")}, {}, &unused);
  EXPECT_EQ(s.code(), Code::kInvalidArgument) << s.ToString();
  EXPECT_NE(s.message().find("'fixed/loop' (While)"), std::string::npos) << s.ToString();
  EXPECT_NE(s.message().find("'grow_body'"), std::string::npos) << s.ToString();
  EXPECT_NE(s.message().find("[2]"), std::string::npos) << s.ToString();
}

TEST_F(FunctionTest, RecursionWorksAndItsDepthIsLimited) {
  ASSERT_TRUE(Import(PlaceholderNode("n") +
                         CallNode("fact", "StatefulPartitionedCall", {"n"}, 1, 1,
                                  "attr { key: 'f' value { func { name: 'fact' } } }"),
                     kRecursiveFactorial)
                  .ok());
  EXPECT_FLOAT_EQ(RunScalar({{"n", Scalar(5)}}, "fact"), 120.0f);
  EXPECT_FLOAT_EQ(RunScalar({{"n", Scalar(1)}}, "fact"), 1.0f);
  std::vector<Tensor> out;
  Status s = Run({{"n", Scalar(1000)}}, {"fact"}, &out);
  EXPECT_EQ(s.code(), Code::kResourceExhausted) << s.ToString();
  EXPECT_NE(s.message().find("'fact'"), std::string::npos) << s.ToString();
  EXPECT_LT(s.message().size(), 2000u) << s.ToString();  // not one context per level
  // The session is fine afterwards.
  EXPECT_FLOAT_EQ(RunScalar({{"n", Scalar(4)}}, "fact"), 24.0f);
}

TEST_F(FunctionTest, BadCallsAreInvalidArgumentNamingNodeAndFunction) {
  struct Case {
    std::string node;
    const char* wanted;
  };
  const std::vector<Case> cases = {
      {CallNode("unknown", "PartitionedCall", {"x", "y"}, 2, 1,
                "attr { key: 'f' value { func { name: 'no_such_function' } } }"),
       "no_such_function"},
      {CallNode("arity", "PartitionedCall", {"x"}, 1, 1, "attr { key: 'f' value { func { name: 'mul_add' } } }"),
       "takes 2 input(s) but the node gives 1"},
      {CallNode("results", "PartitionedCall", {"x", "y"}, 2, 2,
                "attr { key: 'f' value { func { name: 'mul_add' } } }"),
       "returns 1 result(s) but the node has 2"},
      {"node { name: 'types' op: 'PartitionedCall' input: 'i' input: 'y' attr { key: 'Tin' value { list { type: "
       "DT_INT32 type: DT_FLOAT } } } attr { key: 'Tout' value { list { type: DT_FLOAT } } } attr { key: 'f' "
       "value { func { name: 'mul_add' } } } }\n",
       "input 0 is float but the node's is int32"},
  };
  std::string nodes = PlaceholderNode("x") + PlaceholderNode("y") + PlaceholderNode("i", "DT_INT32");
  for (const Case& c : cases) nodes += c.node;
  ASSERT_TRUE(Import(nodes, kMulAdd).ok());
  for (const char* name : {"unknown", "arity", "results", "types"}) {
    std::vector<Tensor> out;
    Tensor i = Int(1);
    Status s = Run({{"x", Scalar(1)}, {"y", Scalar(2)}, {"i", i}}, {std::string(name)}, &out);
    EXPECT_EQ(s.code(), Code::kInvalidArgument) << name << ": " << s.ToString();
    EXPECT_NE(s.message().find(StrCat("'", name, "'")), std::string::npos) << s.ToString();
    const char* wanted = nullptr;
    for (size_t k = 0; k < cases.size(); ++k) {
      if (cases[k].node.find(StrCat("'", name, "'")) != std::string::npos) wanted = cases[k].wanted;
    }
    EXPECT_NE(s.message().find(wanted), std::string::npos) << s.ToString();
  }
}

TEST_F(FunctionTest, MalformedBodiesAreReportedWithTheFunctionsName) {
  // An input naming nothing in the body; a ret naming an output arg the op lacks.
  constexpr const char* kBad = R"(
    function {
      signature { name: "dangling" input_arg { name: "x" type: DT_FLOAT } output_arg { name: "y" type: DT_FLOAT } }
      node_def { name: "n" op: "Neg" input: "nowhere:y:0" attr { key: "T" value { type: DT_FLOAT } } }
      ret { key: "y" value: "n:y:0" }
    }
    function {
      signature { name: "wrong_ret_type" input_arg { name: "x" type: DT_FLOAT } output_arg { name: "y" type: DT_INT32 } }
      ret { key: "y" value: "x" }
    })";
  ASSERT_TRUE(Import(PlaceholderNode("x") +
                         CallNode("a", "PartitionedCall", {"x"}, 1, 1, "attr { key: 'f' value { func { name: 'dangling' } } }") +
                         "node { name: 'b' op: 'PartitionedCall' input: 'x' attr { key: 'Tin' value { list { type: "
                         "DT_FLOAT } } } attr { key: 'Tout' value { list { type: DT_INT32 } } } attr { key: 'f' "
                         "value { func { name: 'wrong_ret_type' } } } }\n",
                     kBad)
                  .ok());
  std::vector<Tensor> out;
  Status a = Run({{"x", Scalar(1)}}, {"a"}, &out);
  EXPECT_EQ(a.code(), Code::kInvalidArgument) << a.ToString();
  EXPECT_NE(a.message().find("'dangling'"), std::string::npos) << a.ToString();
  EXPECT_NE(a.message().find("nowhere"), std::string::npos) << a.ToString();
  Status b = Run({{"x", Scalar(1)}}, {"b"}, &out);
  EXPECT_EQ(b.code(), Code::kInvalidArgument) << b.ToString();
  EXPECT_NE(b.message().find("'wrong_ret_type'"), std::string::npos) << b.ToString();
}

TEST_F(FunctionTest, OutsideASessionACallFailsCleanly) {
  ASSERT_TRUE(Import(PlaceholderNode("x") + PlaceholderNode("y") +
                         CallNode("call", "PartitionedCall", {"x", "y"}, 2, 1,
                                  "attr { key: 'f' value { func { name: 'mul_add' } } }"),
                     kMulAdd)
                  .ok());
  auto runner = KernelRunner::Create(*g_.FindOperation("call"));
  ASSERT_TRUE(runner.ok()) << runner.status().ToString();
  std::vector<Tensor> out;
  Status s = (*runner)->Run(std::vector<Tensor>{Scalar(1), Scalar(2)}, &out);
  EXPECT_EQ(s.code(), Code::kFailedPrecondition) << s.ToString();
}

}  // namespace
}  // namespace tgraph
