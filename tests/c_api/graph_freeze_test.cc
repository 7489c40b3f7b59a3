// convert_variables_to_constants, extract_sub_graph and remove_training_nodes through the C
// API: the frozen GraphDef imports into a fresh graph and computes what the session did.
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

struct BufferDeleter {
  void operator()(TG_Buffer* b) const { TG_DeleteBuffer(b); }
};
using BufferPtr = std::unique_ptr<TG_Buffer, BufferDeleter>;

class GraphFreezeTest : public SessionTest {
 protected:
  // y = x * w + b, w = [2, 3], b = [1, 1]; train = (w += 1), which freezing cuts away.
  void Build() {
    x_ = Placeholder(TG_FLOAT, {2}, "x");
    w_ = Var("w", FloatTensor({2}, {2, 3}));
    b_ = Var("b", FloatTensor({2}, {1, 1}));
    TG_Operation* mul = OpOf("Mul", {Out(x_), Read(w_)}, "mul");
    y_ = OpOf("Add", {Out(mul), Read(b_)}, "y");
    TG_ASSERT_OK(s_);
    Update("AssignAdd", w_, Out(FloatConst({2}, 1.0f)), "train");
    init_ = Init();
  }
  // The GraphDef's nodes as "name=op".
  std::vector<std::string> Nodes(const TG_Buffer* def) {
    TG_Graph* g = TG_NewGraph();
    TG_ImportGraphDefOptions* opts = TG_NewImportGraphDefOptions();
    TG_ImportGraphDefOptionsSetPrefix(opts, "");
    TG_GraphImportGraphDef(g, def, opts, s_);
    TG_DeleteImportGraphDefOptions(opts);
    std::vector<std::string> names;
    size_t pos = 0;
    TG_Operation* op;
    while ((op = TG_GraphNextOperation(g, &pos)) != nullptr) {
      names.push_back(std::string(TG_OperationName(op)) + "=" + TG_OperationOpType(op));
    }
    TG_DeleteGraph(g);
    return names;
  }
  BufferPtr Freeze(TG_Session* sess, std::vector<const char*> outputs, int num_white = -1,
                   std::vector<const char*> white = {}, std::vector<const char*> black = {}) {
    BufferPtr out(TG_NewBuffer());
    TG_ConvertVariablesToConstants(sess, g_, nullptr, outputs.data(),
                                   static_cast<int>(outputs.size()), white.data(), num_white,
                                   black.data(), static_cast<int>(black.size()), out.get(), s_);
    return out;
  }

  TG_Operation* x_ = nullptr;
  TG_Variable* w_ = nullptr;
  TG_Variable* b_ = nullptr;
  TG_Operation* y_ = nullptr;
  TG_Operation* init_ = nullptr;
};

TEST_F(GraphFreezeTest, FrozenGraphComputesTheSameWithoutVariables) {
  Build();
  TG_Session* sess = NewSession();
  RunTargets(sess, {init_});
  TG_ASSERT_OK(s_);
  TG_Operation* train = TG_GraphOperationByName(g_, "train");
  RunTargets(sess, {train});  // w = [3, 4]: the frozen value is the current one
  TG_ASSERT_OK(s_);
  TensorPtr x = FloatTensor({2}, {10, 100});
  std::vector<float> expected = RunFloats(sess, Out(y_), {{Out(x_), x.get()}});
  EXPECT_EQ(expected, (std::vector<float>{31, 401}));

  BufferPtr frozen = Freeze(sess, {"y"});
  TG_ASSERT_OK(s_);
  EXPECT_EQ(Nodes(frozen.get()),
            (std::vector<std::string>{"x=Placeholder", "w=Const", "w/read=Identity", "b=Const",
                                      "b/read=Identity", "mul=Mul", "y=Add"}));
  TG_ASSERT_OK(s_);

  TG_Graph* fg = TG_NewGraph();
  TG_ImportGraphDefOptions* opts = TG_NewImportGraphDefOptions();
  TG_ImportGraphDefOptionsSetPrefix(opts, "");
  TG_GraphImportGraphDef(fg, frozen.get(), opts, s_);
  TG_DeleteImportGraphDefOptions(opts);
  TG_ASSERT_OK(s_);
  TG_Session* fs = TG_NewSession(fg, nullptr, s_);
  TG_ASSERT_OK(s_);
  TG_Output fx{TG_GraphOperationByName(fg, "x"), 0};
  TG_Output fy{TG_GraphOperationByName(fg, "y"), 0};
  TG_Tensor* in = x.get();
  TG_Tensor* result = nullptr;
  TG_SessionRun(fs, nullptr, &fx, &in, 1, &fy, &result, 1, nullptr, 0, nullptr, s_);
  TG_EXPECT_OK(s_);
  EXPECT_EQ(Floats(result), expected);
  TG_DeleteTensor(result);
  TG_DeleteSession(fs, s_);
  TG_DeleteGraph(fg);
}

TEST_F(GraphFreezeTest, WhitelistBlacklistAndAGivenGraphDef) {
  Build();
  TG_Session* sess = NewSession();
  RunTargets(sess, {init_});
  TG_ASSERT_OK(s_);
  BufferPtr frozen = Freeze(sess, {"y"}, 1, {"b"});
  TG_ASSERT_OK(s_);
  std::vector<std::string> nodes = Nodes(frozen.get());
  EXPECT_EQ(nodes[1], "w=VariableV2");
  EXPECT_EQ(nodes[3], "b=Const");
  frozen = Freeze(sess, {"y"}, -1, {}, {"w"});
  TG_ASSERT_OK(s_);
  nodes = Nodes(frozen.get());
  EXPECT_EQ(nodes[1], "w=VariableV2");
  EXPECT_EQ(nodes[3], "b=Const");
  // An empty whitelist freezes nothing (TF's [] rather than None).
  frozen = Freeze(sess, {"y"}, 0);
  TG_ASSERT_OK(s_);
  nodes = Nodes(frozen.get());
  EXPECT_EQ(nodes[3], "b=VariableV2");
  // A GraphDef given explicitly (here the graph's own export).
  BufferPtr def(TG_NewBuffer());
  TG_GraphToGraphDef(g_, def.get(), s_);
  TG_ASSERT_OK(s_);
  const char* outputs[] = {"w/read"};
  BufferPtr out(TG_NewBuffer());
  TG_ConvertVariablesToConstants(sess, g_, def.get(), outputs, 1, nullptr, -1, nullptr, 0,
                                 out.get(), s_);
  TG_ASSERT_OK(s_);
  EXPECT_EQ(Nodes(out.get()), (std::vector<std::string>{"w=Const", "w/read=Identity"}));
}

TEST_F(GraphFreezeTest, ErrorsNameTheVariableOrNode) {
  Build();
  TG_Session* sess = NewSession();
  BufferPtr frozen = Freeze(sess, {"y"});  // not initialized
  EXPECT_EQ(code(), TG_FAILED_PRECONDITION) << msg();
  EXPECT_TRUE(Contains(msg(), "uninitialized value w")) << msg();
  RunTargets(sess, {init_});
  TG_ASSERT_OK(s_);
  frozen = Freeze(sess, {"y", "nothing_here"});
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  EXPECT_TRUE(Contains(msg(), "nothing_here")) << msg();
  frozen = Freeze(nullptr, {"y"});
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  TG_Buffer garbage{"\xff\xff\xff", 3, nullptr};
  const char* outputs[] = {"y"};
  TG_ExtractSubGraph(&garbage, outputs, 1, frozen.get(), s_);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  EXPECT_TRUE(Contains(msg(), "TG_ExtractSubGraph")) << msg();
}

TEST_F(GraphFreezeTest, ExtractSubGraphAndRemoveTrainingNodes) {
  Build();
  TG_Operation* ident = Identity(y_, "ident");
  TG_Operation* out = Unary("Neg", ident, "out");
  TG_ASSERT_OK(s_);
  BufferPtr def(TG_NewBuffer());
  TG_GraphToGraphDef(g_, def.get(), s_);
  TG_ASSERT_OK(s_);
  const char* dest[] = {"out"};
  BufferPtr sub(TG_NewBuffer());
  TG_ExtractSubGraph(def.get(), dest, 1, sub.get(), s_);
  TG_ASSERT_OK(s_);
  std::vector<std::string> nodes = Nodes(sub.get());
  EXPECT_EQ(nodes.front(), "x=Placeholder");
  EXPECT_EQ(nodes.back(), "out=Neg");
  for (const std::string& n : nodes) {
    EXPECT_FALSE(Contains(n, "Assign")) << n;
    EXPECT_FALSE(Contains(n, "train")) << n;
  }
  const char* missing[] = {"out", "ghost"};
  TG_ExtractSubGraph(def.get(), missing, 2, sub.get(), s_);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  EXPECT_TRUE(Contains(msg(), "ghost")) << msg();

  TG_Session* sess = NewSession();
  RunTargets(sess, {init_});
  TG_ASSERT_OK(s_);
  BufferPtr frozen = Freeze(sess, {"out"});
  TG_ASSERT_OK(s_);
  BufferPtr pruned(TG_NewBuffer());
  TG_RemoveTrainingNodes(frozen.get(), dest, 1, pruned.get(), s_);
  TG_ASSERT_OK(s_);
  EXPECT_EQ(Nodes(pruned.get()), (std::vector<std::string>{"x=Placeholder", "w=Const", "b=Const",
                                                          "mul=Mul", "y=Add", "out=Neg"}));
  const char* keep[] = {"out", "ident"};
  TG_RemoveTrainingNodes(frozen.get(), keep, 2, pruned.get(), s_);
  TG_ASSERT_OK(s_);
  nodes = Nodes(pruned.get());
  EXPECT_EQ(nodes[nodes.size() - 2], "ident=Identity");
  (void)out;
}

}  // namespace
