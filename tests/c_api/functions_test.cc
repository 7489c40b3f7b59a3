// Functions through the C API: a GraphDef's library comes in with TG_GraphImportGraphDef
// and goes out with TG_GraphToGraphDef; TG_GraphAddFunctionLibrary / TG_GraphGetFunctionLibrary
// move libraries between graphs; call and While nodes built with TG_NewOperation (func attrs
// through TG_SetAttrValueProto) run their functions in a session; bad calls are errors
// naming the node and the function.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "session_test_util.h"

namespace tgtest {
namespace {

// (i, acc, n) -> (i + 1, acc * i, n) while i <= n: n! in acc.
constexpr const char* kGraph = R"(
node { name: "n" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "one" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 1 } } } }
node { name: "loop" op: "StatelessWhile" input: "one" input: "one" input: "n"
       attr { key: "T" value { list { type: DT_FLOAT type: DT_FLOAT type: DT_FLOAT } } }
       attr { key: "cond" value { func { name: "fact_cond" } } }
       attr { key: "body" value { func { name: "fact_body" } } } }
library {
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
  }
})";

// A serialized AttrValue { func { name: NAME } } (field 10, a NameAttrList with field 1).
std::string FuncAttr(const std::string& name) {
  std::string list = std::string(1, '\x0a') + static_cast<char>(name.size()) + name;
  return std::string(1, '\x52') + static_cast<char>(list.size()) + list;
}

class FunctionsTest : public SessionTest {
 protected:
  void SetUp() override { LoadCpuPlugin(); }

  void ImportText(TG_Graph* g, const std::string& text) {
    TG_ImportGraphDefOptions* opts = TG_NewImportGraphDefOptions();
    TG_ImportGraphDefOptionsSetTextFormat(opts, 1);
    TG_ImportGraphDefOptionsSetPrefix(opts, "");
    TG_Buffer* buf = TG_NewBufferFromString(text.data(), text.size());
    TG_GraphImportGraphDef(g, buf, opts, s_);
    TG_DeleteBuffer(buf);
    TG_DeleteImportGraphDefOptions(opts);
  }

  // A StatelessWhile over (1, 1, n) with the given cond and body.
  TG_Operation* While(TG_Output n, const std::string& cond, const std::string& body, const char* name) {
    TG_Operation* one = ScalarConst(1.0f);
    TG_OperationDescription* d = TG_NewOperation(g_, "StatelessWhile", name);
    TG_Output inputs[3] = {Out(one), Out(one), n};
    TG_AddInputList(d, inputs, 3);
    const std::string c = FuncAttr(cond), b = FuncAttr(body);
    TG_SetAttrValueProto(d, "cond", c.data(), c.size(), s_);
    EXPECT_TRUE(IsOk(s_));
    TG_SetAttrValueProto(d, "body", b.data(), b.size(), s_);
    EXPECT_TRUE(IsOk(s_));
    return TG_FinishOperation(d, s_);
  }
};

TEST_F(FunctionsTest, AnImportedWhileComputesAFactorial) {
  ImportText(g_, kGraph);
  ASSERT_TRUE(IsOk(s_)) << Message(s_);
  EXPECT_EQ(TG_GraphNumFunctions(g_), 2);
  TG_Session* session = NewSession();
  ASSERT_NE(session, nullptr);
  TG_Output n = Out(TG_GraphOperationByName(g_, "n"));
  TG_Output acc = Out(TG_GraphOperationByName(g_, "loop"), 1);
  for (auto [value, want] : {std::pair{5.0f, 120.0f}, {1.0f, 1.0f}, {7.0f, 5040.0f}}) {
    TensorPtr feed = FloatScalar(value);
    std::vector<float> got = RunFloats(session, acc, {{n, feed.get()}});
    ASSERT_TRUE(IsOk(s_)) << Message(s_);
    EXPECT_EQ(got, std::vector<float>{want});
  }
}

TEST_F(FunctionsTest, ExportWritesTheLibraryBack) {
  ImportText(g_, kGraph);
  ASSERT_TRUE(IsOk(s_)) << Message(s_);
  TG_Buffer* text = TG_NewBuffer();
  TG_GraphToGraphDefText(g_, text, s_);
  ASSERT_TRUE(IsOk(s_));
  const std::string exported(static_cast<const char*>(text->data), text->length);
  TG_DeleteBuffer(text);
  EXPECT_TRUE(Contains(exported, "library {")) << exported;
  EXPECT_TRUE(Contains(exported, "fact_body")) << exported;
  // ...and it imports again, into a graph that runs it.
  TG_Graph* other = TG_NewGraph();
  ImportText(other, exported);
  EXPECT_TRUE(IsOk(s_)) << Message(s_);
  EXPECT_EQ(TG_GraphNumFunctions(other), 2);
  TG_DeleteGraph(other);
}

TEST_F(FunctionsTest, LibrariesMoveBetweenGraphsAndNodesCallThemByName) {
  TG_Graph* source = TG_NewGraph();
  ImportText(source, kGraph);
  ASSERT_TRUE(IsOk(s_)) << Message(s_);
  TG_Buffer* lib = TG_NewBuffer();
  TG_GraphGetFunctionLibrary(source, lib, s_);
  ASSERT_TRUE(IsOk(s_));
  TG_DeleteGraph(source);

  TG_GraphAddFunctionLibrary(g_, lib->data, lib->length, s_);
  ASSERT_TRUE(IsOk(s_)) << Message(s_);
  EXPECT_EQ(TG_GraphNumFunctions(g_), 2);
  TG_GraphAddFunctionLibrary(g_, lib->data, lib->length, s_);  // the same again: fine
  EXPECT_TRUE(IsOk(s_)) << Message(s_);
  TG_DeleteBuffer(lib);

  TG_Operation* n = Placeholder(TG_FLOAT, {}, "n");
  TG_Operation* loop = While(Out(n), "fact_cond", "fact_body", "loop");
  ASSERT_TRUE(IsOk(s_)) << Message(s_);
  TG_Session* session = NewSession();
  TensorPtr six = FloatScalar(6.0f);
  EXPECT_EQ(RunFloats(session, Out(loop, 1), {{Out(n), six.get()}}), std::vector<float>{720.0f});
  EXPECT_TRUE(IsOk(s_)) << Message(s_);
}

TEST_F(FunctionsTest, BadLibrariesAndCallsAreErrors) {
  const char garbage[] = "\xff\xff\xff";
  TG_GraphAddFunctionLibrary(g_, garbage, 3, s_);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  TG_GraphAddFunctionLibrary(nullptr, garbage, 3, s_);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  EXPECT_EQ(TG_GraphNumFunctions(nullptr), 0);

  ImportText(g_, kGraph);
  ASSERT_TRUE(IsOk(s_)) << Message(s_);
  // A function of the same name with another body: refused, the graph unchanged.
  std::string other = kGraph;
  other.replace(other.find("\"Mul\""), 5, "\"Sub\"");
  TG_ImportGraphDefOptions* opts = TG_NewImportGraphDefOptions();
  TG_ImportGraphDefOptionsSetTextFormat(opts, 1);
  TG_ImportGraphDefOptionsSetPrefix(opts, "again");
  TG_Buffer* buf = TG_NewBufferFromString(other.data(), other.size());
  TG_GraphImportGraphDef(g_, buf, opts, s_);
  TG_DeleteBuffer(buf);
  TG_DeleteImportGraphDefOptions(opts);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  EXPECT_TRUE(Contains(msg(), "fact_body")) << msg();
  EXPECT_EQ(TG_GraphOperationByName(g_, "again/loop"), nullptr);

  // A While naming a function the library lacks fails when run, naming node and function.
  TG_Operation* loop = While(Out(TG_GraphOperationByName(g_, "n")), "fact_cond", "no_such_body", "bad");
  ASSERT_TRUE(IsOk(s_)) << Message(s_);
  TG_Session* session = NewSession();
  TensorPtr five = FloatScalar(5.0f);
  RunFloats(session, Out(loop, 1), {{Out(TG_GraphOperationByName(g_, "n")), five.get()}});
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  EXPECT_TRUE(Contains(msg(), "'bad'")) << msg();
  EXPECT_TRUE(Contains(msg(), "no_such_body")) << msg();
}

}  // namespace
}  // namespace tgtest
