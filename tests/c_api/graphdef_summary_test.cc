// TG_GraphDefSummary: GraphDefs and MetaGraphDefs decoded from binary or text without being
// imported (unknown ops included), and clear errors for bytes that are neither.
#include <string>
#include <vector>

#include "c_api_test_util.h"
#include "tgraph/c_api.h"

namespace {

using tgtest::CApiTest;
using tgtest::Out;

class GraphDefSummaryTest : public CApiTest {
 protected:
  ~GraphDefSummaryTest() override { TG_DeleteGraphDefSummary(summary_); }

  // x: float [?,3] placeholder, scale/w: a Const, scale/y = MatMul(x, w) on /device:CPU:0.
  void BuildGraph() {
    TG_Operation* x = Placeholder(TG_FLOAT, {-1, 3}, "x");
    TG_GraphPushNameScope(g_, "scale", s_);
    TG_Operation* w = FloatConst({3, 2}, 1.0f, "w");
    TG_OperationDescription* d = TG_NewOperation(g_, "MatMul", "y");
    TG_AddInput(d, Out(x));
    TG_AddInput(d, Out(w));
    TG_SetDevice(d, "/cpu:0");
    TG_FinishOperation(d, s_);
    TG_ASSERT_OK(s_);
    TG_GraphPopNameScope(g_, s_);
  }

  std::string Export(bool text) {
    TG_Buffer* buffer = TG_NewBuffer();
    if (text) {
      TG_GraphToGraphDefText(g_, buffer, s_);
    } else {
      TG_GraphToGraphDef(g_, buffer, s_);
    }
    std::string bytes(static_cast<const char*>(buffer->data), buffer->length);
    TG_DeleteBuffer(buffer);
    return bytes;
  }

  const TG_GraphDefSummary* Summarize(const std::string& bytes) {
    TG_DeleteGraphDefSummary(summary_);
    summary_ = TG_NewGraphDefSummary(bytes.data(), bytes.size(), s_);
    return summary_;
  }

  int NodeIndex(const std::string& name) {
    for (int i = 0; i < TG_GraphDefSummaryNumNodes(summary_); ++i) {
      if (name == TG_GraphDefSummaryNodeName(summary_, i)) return i;
    }
    return -1;
  }

  TG_GraphDefSummary* summary_ = nullptr;
};

TEST_F(GraphDefSummaryTest, BinaryAndTextGraphDefsGiveTheSameNodes) {
  BuildGraph();
  for (bool text : {false, true}) {
    SCOPED_TRACE(text ? "text" : "binary");
    const TG_GraphDefSummary* s = Summarize(Export(text));
    TG_ASSERT_OK(s_);
    EXPECT_EQ(TG_GraphDefSummaryIsText(s), text ? 1 : 0);
    EXPECT_EQ(TG_GraphDefSummaryIsMetaGraphDef(s), 0);
    ASSERT_EQ(TG_GraphDefSummaryNumNodes(s), 3);
    int x = NodeIndex("x"), y = NodeIndex("scale/y");
    ASSERT_GE(x, 0);
    ASSERT_GE(y, 0);
    EXPECT_STREQ(TG_GraphDefSummaryNodeOp(s, x), "Placeholder");
    EXPECT_STREQ(TG_GraphDefSummaryNodeAttr(s, x, "dtype"), "float");
    EXPECT_STREQ(TG_GraphDefSummaryNodeAttr(s, x, "shape"), "[?,3]");
    EXPECT_EQ(TG_GraphDefSummaryNodeAttr(s, x, "no_such_attr"), nullptr);
    EXPECT_STREQ(TG_GraphDefSummaryNodeDevice(s, y), "/device:CPU:0");
    ASSERT_EQ(TG_GraphDefSummaryNodeNumInputs(s, y), 2);
    EXPECT_STREQ(TG_GraphDefSummaryNodeInput(s, y, 0), "x");
    EXPECT_STREQ(TG_GraphDefSummaryNodeInput(s, y, 1), "scale/w");
    EXPECT_STREQ(TG_GraphDefSummaryNodeAttr(s, y, "transpose_a"), "false");
    int w = NodeIndex("scale/w");
    EXPECT_STREQ(TG_GraphDefSummaryNodeAttr(s, w, "value"), "<tensor float [3,2]>");
    EXPECT_EQ(TG_GraphDefSummaryNumCollections(s), 0);
  }
}

TEST_F(GraphDefSummaryTest, TheGraphDefReimports) {
  BuildGraph();
  const TG_GraphDefSummary* s = Summarize(Export(/*text=*/true));
  TG_ASSERT_OK(s_);
  TG_Buffer* graph_def = TG_NewBuffer();
  TG_GraphDefSummaryGraphDef(s, graph_def, s_);
  TG_ASSERT_OK(s_);
  TG_Graph* copy = TG_NewGraph();
  TG_ImportGraphDefOptions* opts = TG_NewImportGraphDefOptions();
  TG_ImportGraphDefOptionsSetPrefix(opts, "");
  TG_GraphImportGraphDef(copy, graph_def, opts, s_);
  TG_EXPECT_OK(s_);
  EXPECT_NE(TG_GraphOperationByName(copy, "scale/y"), nullptr);
  TG_DeleteImportGraphDefOptions(opts);
  TG_DeleteGraph(copy);
  TG_DeleteBuffer(graph_def);
}

TEST_F(GraphDefSummaryTest, UnknownOpsAreDescribedNotRefused) {
  const TG_GraphDefSummary* s = Summarize(
      "node { name: \"a\" op: \"NoSuchOp\" attr { key: \"T\" value { type: DT_INT32 } } }\n"
      "node { name: \"b\" op: \"Identity\" input: \"a\" input: \"^a\" }\n");
  TG_ASSERT_OK(s_);
  ASSERT_EQ(TG_GraphDefSummaryNumNodes(s), 2);
  EXPECT_STREQ(TG_GraphDefSummaryNodeOp(s, 0), "NoSuchOp");
  EXPECT_STREQ(TG_GraphDefSummaryNodeAttrName(s, 0, 0), "T");
  EXPECT_STREQ(TG_GraphDefSummaryNodeAttrText(s, 0, 0), "int32");
  EXPECT_STREQ(TG_GraphDefSummaryNodeInput(s, 1, 1), "^a");
}

TEST_F(GraphDefSummaryTest, MetaGraphDefTextWithCollections) {
  const TG_GraphDefSummary* s = Summarize(
      "meta_info_def { tags: \"serve\" }\n"
      "graph_def { node { name: \"v\" op: \"VariableV2\" "
      "attr { key: \"dtype\" value { type: DT_FLOAT } } "
      "attr { key: \"shape\" value { shape { dim { size: 2 } } } } } }\n"
      "collection_def { key: \"train_op\" value { node_list { value: \"step\" } } }\n"
      "collection_def { key: \"counts\" value { int64_list { value: 1 value: 2 } } }\n");
  TG_ASSERT_OK(s_);
  EXPECT_EQ(TG_GraphDefSummaryIsMetaGraphDef(s), 1);
  EXPECT_EQ(TG_GraphDefSummaryIsText(s), 1);
  ASSERT_EQ(TG_GraphDefSummaryNumNodes(s), 1);
  EXPECT_STREQ(TG_GraphDefSummaryNodeAttr(s, 0, "shape"), "[2]");
  ASSERT_EQ(TG_GraphDefSummaryNumCollections(s), 2);
  EXPECT_STREQ(TG_GraphDefSummaryCollectionKey(s, 0), "counts");  // key order
  EXPECT_STREQ(TG_GraphDefSummaryCollectionKind(s, 0), "int64_list");
  ASSERT_EQ(TG_GraphDefSummaryCollectionSize(s, 0), 2);
  EXPECT_STREQ(TG_GraphDefSummaryCollectionItem(s, 0, 1), "2");
  EXPECT_STREQ(TG_GraphDefSummaryCollectionKind(s, 1), "node_list");
  EXPECT_STREQ(TG_GraphDefSummaryCollectionItem(s, 1, 0), "step");
  EXPECT_EQ(TG_GraphDefSummaryCollectionItem(s, 1, 1), nullptr);
}

// Field `number` with wire type 2 (length-delimited) around `payload`, as protobuf writes it.
std::string LengthDelimited(int number, const std::string& payload) {
  std::string out(1, static_cast<char>(number << 3 | 2));
  for (size_t n = payload.size();; n >>= 7) {
    out += static_cast<char>((n & 0x7f) | (n > 0x7f ? 0x80 : 0));
    if (n <= 0x7f) break;
  }
  return out + payload;
}

TEST_F(GraphDefSummaryTest, BinaryMetaGraphDefIsToldFromAGraphDef) {
  BuildGraph();
  // MetaGraphDef { graph_def: <the graph>, collection_def { key: "k" value { node_list {
  // value: "scale/y" } } } }
  std::string collection = LengthDelimited(1, LengthDelimited(1, "scale/y"));
  std::string meta = LengthDelimited(2, Export(/*text=*/false)) +
                     LengthDelimited(4, LengthDelimited(1, "k") + LengthDelimited(2, collection));
  const TG_GraphDefSummary* s = Summarize(meta);
  TG_ASSERT_OK(s_);
  EXPECT_EQ(TG_GraphDefSummaryIsMetaGraphDef(s), 1);
  EXPECT_EQ(TG_GraphDefSummaryIsText(s), 0);
  EXPECT_EQ(TG_GraphDefSummaryNumNodes(s), 3);
  ASSERT_EQ(TG_GraphDefSummaryNumCollections(s), 1);
  EXPECT_STREQ(TG_GraphDefSummaryCollectionKey(s, 0), "k");
  EXPECT_STREQ(TG_GraphDefSummaryCollectionItem(s, 0, 0), "scale/y");
}

TEST_F(GraphDefSummaryTest, TruncatedBinaryIsInvalidArgument) {
  BuildGraph();
  std::string bytes = Export(/*text=*/false);
  EXPECT_EQ(Summarize(bytes.substr(0, bytes.size() / 2)), nullptr);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  EXPECT_NE(msg().find("not a GraphDef or MetaGraphDef"), std::string::npos) << msg();
}

TEST_F(GraphDefSummaryTest, NonProtobufBytesAreInvalidArgument) {
  EXPECT_EQ(Summarize(std::string("\x01\x02\xff\xfe garbage \x07", 14)), nullptr);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  EXPECT_EQ(Summarize("hello world, not a graph\n"), nullptr);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  EXPECT_NE(msg().find("line 1"), std::string::npos) << msg();
}

TEST_F(GraphDefSummaryTest, NullArgumentsAreRefusedAndAccessorsNeutral) {
  EXPECT_EQ(TG_NewGraphDefSummary(nullptr, 3, s_), nullptr);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  EXPECT_EQ(TG_GraphDefSummaryNumNodes(nullptr), 0);
  EXPECT_EQ(TG_GraphDefSummaryNodeName(nullptr, 0), nullptr);
  EXPECT_EQ(TG_GraphDefSummaryNodeAttr(nullptr, 0, "dtype"), nullptr);
  EXPECT_EQ(TG_GraphDefSummaryCollectionKey(nullptr, 0), nullptr);
  TG_DeleteGraphDefSummary(nullptr);
  // An empty file is an empty GraphDef.
  const TG_GraphDefSummary* s = Summarize("");
  TG_ASSERT_OK(s_);
  EXPECT_EQ(TG_GraphDefSummaryNumNodes(s), 0);
  EXPECT_EQ(TG_GraphDefSummaryNodeName(s, 0), nullptr);
}

}  // namespace
