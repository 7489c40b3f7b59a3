// GraphDef export and import through the C API: round trips, prefixes, mappings, results,
// malformed input.
#include <cstring>
#include <string>

#include "c_api_test_util.h"

namespace {

using tgtest::CApiTest;
using tgtest::Name;
using tgtest::Out;

class GraphDefTest : public CApiTest {
 protected:
  // A small graph: placeholder x, variable W, y = matmul(x, W), init.
  void BuildModel() {
    TG_Operation* x = Placeholder(TG_FLOAT, {-1, 3}, "x");
    int64_t dims[] = {3, 2};
    TG_Tensor* t = TG_AllocateTensor(TG_FLOAT, dims, 2, 6 * sizeof(float));
    TG_VariableOptions opts;
    TG_InitVariableOptions(&opts);
    opts.name = "W";
    TG_Variable* w = TG_GraphNewVariableFromTensor(g_, t, &opts, s_);
    TG_DeleteTensor(t);
    ASSERT_TRUE(tgtest::IsOk(s_));
    TG_OperationDescription* d = TG_NewOperation(g_, "MatMul", "y");
    TG_AddInput(d, Out(x));
    TG_AddInput(d, TG_VariableReadValue(w));
    TG_FinishOperation(d, s_);
    ASSERT_TRUE(tgtest::IsOk(s_));
    TG_GraphGlobalVariablesInitializer(g_, s_);
    ASSERT_TRUE(tgtest::IsOk(s_));
  }
  std::string Export(TG_Graph* g) {
    TG_Buffer* b = TG_NewBuffer();
    TG_GraphToGraphDef(g, b, s_);
    EXPECT_TRUE(tgtest::IsOk(s_));
    std::string bytes(static_cast<const char*>(b->data), b->length);
    TG_DeleteBuffer(b);
    return bytes;
  }
  std::string ExportText(TG_Graph* g) {
    TG_Buffer* b = TG_NewBuffer();
    TG_GraphToGraphDefText(g, b, s_);
    EXPECT_TRUE(tgtest::IsOk(s_));
    std::string text(static_cast<const char*>(b->data), b->length);
    TG_DeleteBuffer(b);
    return text;
  }
  void Import(TG_Graph* g, const std::string& bytes, TG_ImportGraphDefOptions* opts) {
    TG_Buffer* b = TG_NewBufferFromString(bytes.data(), bytes.size());
    TG_GraphImportGraphDef(g, b, opts, s_);
    TG_DeleteBuffer(b);
  }
};

TEST_F(GraphDefTest, TextExportNamesEveryNode) {
  BuildModel();
  std::string text = ExportText(g_);
  for (const char* name : {"\"x\"", "\"W/initial_value\"", "\"W\"", "\"W/Assign\"", "\"W/read\"",
                           "\"y\"", "\"init\"", "\"^W/Assign\"", "\"loc:@W\"", "VariableV2"}) {
    EXPECT_NE(text.find(name), std::string::npos) << name << " in\n" << text;
  }
}

TEST_F(GraphDefTest, RoundTripGivesIdenticalBytes) {
  BuildModel();
  std::string first = Export(g_);
  EXPECT_EQ(Export(g_), first);  // deterministic
  TG_Graph* copy = TG_NewGraph();
  TG_ImportGraphDefOptions* opts = TG_NewImportGraphDefOptions();
  TG_ImportGraphDefOptionsSetPrefix(opts, "");
  Import(copy, first, opts);
  TG_ASSERT_OK(s_);
  EXPECT_EQ(TG_GraphNumOperations(copy), TG_GraphNumOperations(g_));
  EXPECT_EQ(Export(copy), first);
  // Imported ops keep their static shapes.
  TG_Operation* y = TG_GraphOperationByName(copy, "y");
  ASSERT_NE(y, nullptr);
  EXPECT_EQ(TG_GraphGetTensorNumDims(copy, Out(y), s_), 2);
  TG_DeleteImportGraphDefOptions(opts);
  TG_DeleteGraph(copy);
}

// As TF_NewImportGraphDefOptions: no prefix unless one is set (NULL options too).
TEST_F(GraphDefTest, DefaultPrefixIsNone) {
  BuildModel();
  std::string bytes = Export(g_);
  TG_Graph* other = TG_NewGraph();
  Import(other, bytes, nullptr);
  TG_ASSERT_OK(s_);
  EXPECT_NE(TG_GraphOperationByName(other, "y"), nullptr);
  EXPECT_NE(TG_GraphOperationByName(other, "W/read"), nullptr);
  EXPECT_EQ(TG_GraphOperationByName(other, "import/y"), nullptr);
  TG_DeleteGraph(other);

  other = TG_NewGraph();
  TG_ImportGraphDefOptions* opts = TG_NewImportGraphDefOptions();
  Import(other, bytes, opts);
  TG_ASSERT_OK(s_);
  EXPECT_NE(TG_GraphOperationByName(other, "y"), nullptr);
  // Python's import_graph_def passes "import": made unique like a name scope.
  TG_ImportGraphDefOptionsSetPrefix(opts, "import");
  Import(other, bytes, opts);
  TG_ASSERT_OK(s_);
  EXPECT_NE(TG_GraphOperationByName(other, "import/y"), nullptr);
  Import(other, bytes, opts);
  TG_ASSERT_OK(s_);
  EXPECT_NE(TG_GraphOperationByName(other, "import_1/y"), nullptr);
  TG_DeleteImportGraphDefOptions(opts);
  TG_DeleteGraph(other);
}

TEST_F(GraphDefTest, TextFormatImport) {
  BuildModel();
  std::string text = ExportText(g_);
  TG_Graph* other = TG_NewGraph();
  TG_ImportGraphDefOptions* opts = TG_NewImportGraphDefOptions();
  TG_ImportGraphDefOptionsSetTextFormat(opts, 1);
  TG_ImportGraphDefOptionsSetPrefix(opts, "t");
  Import(other, text, opts);
  TG_ASSERT_OK(s_);
  EXPECT_NE(TG_GraphOperationByName(other, "t/y"), nullptr);
  TG_DeleteImportGraphDefOptions(opts);
  TG_DeleteGraph(other);
}

TEST_F(GraphDefTest, InputMappingAndResults) {
  BuildModel();
  std::string bytes = Export(g_);
  TG_Graph* other = TG_NewGraph();
  TG_Status* s = s_;
  // A replacement for x in the destination graph.
  TG_OperationDescription* d = TG_NewOperation(other, "Placeholder", "new_x");
  TG_SetAttrType(d, "dtype", TG_FLOAT);
  int64_t dims[] = {5, 3};
  TG_SetAttrShape(d, "shape", dims, 2);
  TG_Operation* new_x = TG_FinishOperation(d, s);
  TG_ASSERT_OK(s);
  TG_Operation* gate = nullptr;
  {
    TG_OperationDescription* n = TG_NewOperation(other, "NoOp", "gate");
    gate = TG_FinishOperation(n, s);
    TG_ASSERT_OK(s);
  }

  TG_ImportGraphDefOptions* opts = TG_NewImportGraphDefOptions();
  TG_ImportGraphDefOptionsSetPrefix(opts, "m");
  TG_ImportGraphDefOptionsAddInputMapping(opts, "x", 0, Out(new_x));
  TG_ImportGraphDefOptionsAddInputMapping(opts, "ghost", 0, Out(new_x));
  TG_ImportGraphDefOptionsAddControlDependency(opts, gate);
  TG_ImportGraphDefOptionsAddReturnOutput(opts, "y", 0);
  TG_ImportGraphDefOptionsAddReturnOperation(opts, "init");
  EXPECT_EQ(TG_ImportGraphDefOptionsNumReturnOutputs(opts), 1);
  EXPECT_EQ(TG_ImportGraphDefOptionsNumReturnOperations(opts), 1);
  TG_Buffer* b = TG_NewBufferFromString(bytes.data(), bytes.size());
  TG_ImportGraphDefResults* r = TG_GraphImportGraphDefWithResults(other, b, opts, s);
  TG_DeleteBuffer(b);
  TG_ASSERT_OK(s);
  ASSERT_NE(r, nullptr);

  int n = 0;
  TG_Output* outs = nullptr;
  TG_ImportGraphDefResultsReturnOutputs(r, &n, &outs);
  ASSERT_EQ(n, 1);
  EXPECT_EQ(Name(outs[0].oper), "m/y");
  // y now reads new_x, so its static shape is [5, 2].
  int64_t got[2];
  TG_GraphGetTensorShape(other, outs[0], got, 2, s);
  TG_EXPECT_OK(s);
  EXPECT_EQ(got[0], 5);
  EXPECT_EQ(TG_OperationInput(TG_Input{outs[0].oper, 0}).oper, new_x);

  TG_Operation** ops = nullptr;
  TG_ImportGraphDefResultsReturnOperations(r, &n, &ops);
  ASSERT_EQ(n, 1);
  EXPECT_EQ(Name(ops[0]), "m/init");

  const char** names = nullptr;
  int* indexes = nullptr;
  TG_ImportGraphDefResultsMissingUnusedInputMappings(r, &n, &names, &indexes);
  ASSERT_EQ(n, 1);
  EXPECT_STREQ(names[0], "ghost");
  EXPECT_EQ(indexes[0], 0);

  // As in TF, the mapped node is still imported but nothing reads it; ops without inputs
  // wait for the gate.
  TG_Operation* mx = TG_GraphOperationByName(other, "m/x");
  ASSERT_NE(mx, nullptr);
  EXPECT_EQ(TG_OperationOutputNumConsumers(Out(mx)), 0);
  TG_Operation* w = TG_GraphOperationByName(other, "m/W");
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(ControlInputNames(w), (std::vector<std::string>{"gate"}));
  TG_DeleteImportGraphDefResults(r);
  TG_DeleteImportGraphDefOptions(opts);
  TG_DeleteGraph(other);
}

TEST_F(GraphDefTest, MalformedBytesLeaveTheGraphUnchanged) {
  ScalarConst(1, "keep");
  const char garbage[] = "\x0a\xff\xff\xff\xff\x0f not a graph";
  TG_Buffer* b = TG_NewBufferFromString(garbage, sizeof(garbage) - 1);
  TG_GraphImportGraphDef(g_, b, nullptr, s_);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  EXPECT_NE(msg().find("GraphDef"), std::string::npos) << msg();
  EXPECT_EQ(TG_GraphNumOperations(g_), 1);
  EXPECT_EQ(TG_GraphImportGraphDefWithResults(g_, b, nullptr, s_), nullptr);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  TG_DeleteBuffer(b);

  TG_ImportGraphDefOptions* opts = TG_NewImportGraphDefOptions();
  TG_ImportGraphDefOptionsSetTextFormat(opts, 1);
  std::string text = "node { name: \"a\" op: ";
  b = TG_NewBufferFromString(text.data(), text.size());
  TG_GraphImportGraphDef(g_, b, opts, s_);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  TG_DeleteBuffer(b);
  TG_DeleteImportGraphDefOptions(opts);
  EXPECT_EQ(TG_GraphNumOperations(g_), 1);
}

TEST_F(GraphDefTest, InvalidGraphsNameTheNode) {
  TG_ImportGraphDefOptions* opts = TG_NewImportGraphDefOptions();
  TG_ImportGraphDefOptionsSetTextFormat(opts, 1);
  TG_ImportGraphDefOptionsSetPrefix(opts, "");
  struct Case {
    const char* text;
    const char* node;
  } cases[] = {
      {"node { name: \"u\" op: \"NoSuchOp\" }", "u"},
      {"node { name: \"i\" op: \"Identity\" input: \"missing\" attr { key: \"T\" value { type: "
       "DT_FLOAT } } }",
       "i"},
      {"node { name: \"p\" op: \"Placeholder\" }", "p"},
      {"node { name: \"a\" op: \"Identity\" input: \"b\" attr { key: \"T\" value { type: DT_FLOAT "
       "} } } node { name: \"b\" op: \"Identity\" input: \"a\" attr { key: \"T\" value { type: "
       "DT_FLOAT } } }",
       "a"},
      {"node { name: \"d\" op: \"NoOp\" } node { name: \"d\" op: \"NoOp\" }", "d"},
  };
  for (const Case& c : cases) {
    TG_Buffer* b = TG_NewBufferFromString(c.text, std::strlen(c.text));
    TG_GraphImportGraphDef(g_, b, opts, s_);
    TG_DeleteBuffer(b);
    EXPECT_NE(code(), TG_OK) << c.text;
    EXPECT_NE(msg().find(c.node), std::string::npos) << c.text << " -> " << msg();
    EXPECT_EQ(TG_GraphNumOperations(g_), 0) << c.text;
  }
  TG_DeleteImportGraphDefOptions(opts);
}

TEST_F(GraphDefTest, BadArguments) {
  TG_Buffer* b = TG_NewBuffer();
  TG_GraphToGraphDef(nullptr, b, s_);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  TG_GraphToGraphDef(g_, nullptr, s_);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  TG_GraphToGraphDefText(nullptr, b, s_);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  TG_GraphImportGraphDef(g_, nullptr, nullptr, s_);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  TG_GraphImportGraphDef(nullptr, b, nullptr, s_);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  // An empty buffer is an empty GraphDef: nothing to import, not an error.
  TG_GraphImportGraphDef(g_, b, nullptr, s_);
  TG_EXPECT_OK(s_);
  TG_DeleteBuffer(b);

  // Mapping onto a tensor of another graph, or a NULL control dependency.
  TG_Graph* other = TG_NewGraph();
  TG_Operation* foreign = ScalarConstIn(other, 1, "foreign");
  TG_ImportGraphDefOptions* opts = TG_NewImportGraphDefOptions();
  TG_ImportGraphDefOptionsAddInputMapping(opts, "x", 0, Out(foreign));
  std::string text = "node { name: \"n\" op: \"NoOp\" }";
  TG_ImportGraphDefOptionsSetTextFormat(opts, 1);
  b = TG_NewBufferFromString(text.data(), text.size());
  TG_GraphImportGraphDef(g_, b, opts, s_);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  EXPECT_NE(msg().find("foreign"), std::string::npos) << msg();
  TG_DeleteImportGraphDefOptions(opts);
  opts = TG_NewImportGraphDefOptions();
  TG_ImportGraphDefOptionsSetTextFormat(opts, 1);
  TG_ImportGraphDefOptionsAddControlDependency(opts, nullptr);
  TG_GraphImportGraphDef(g_, b, opts, s_);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  TG_DeleteImportGraphDefOptions(opts);
  TG_DeleteBuffer(b);
  TG_DeleteGraph(other);
  EXPECT_EQ(TG_GraphNumOperations(g_), 0);

  // Results accessors tolerate NULL.
  int n = 5;
  TG_ImportGraphDefResultsReturnOutputs(nullptr, &n, nullptr);
  EXPECT_EQ(n, 0);
  TG_DeleteImportGraphDefResults(nullptr);
  TG_DeleteImportGraphDefOptions(nullptr);
  EXPECT_EQ(TG_ImportGraphDefOptionsNumReturnOutputs(nullptr), 0);
}

}  // namespace
