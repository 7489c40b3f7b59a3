// Issue 21, item 4: GraphDefs and MetaGraphDefs from strangers that declare absurd sizes or
// nest absurdly deep fail with INVALID_ARGUMENT before anything of that size is allocated
// (graphdef_parse.cc, meta_graph_file.cc, proto_convert.cc, the shape functions).
#include <gtest/gtest.h>

#include <string>

#include "core/graph/graph.h"
#include "core/graph/graphdef_io.h"
#include "core/graph/meta_graph_io.h"
#include "tests/core/graph/graphdef_test_util.h"
#include "tgraph/proto/meta_graph.pb.h"

namespace tgraph {
namespace {

using testing::ParseText;

// "node { name: 'n' op: 'NoOp' attr { key: 'x' value { func { name: 'f' attr { key: 'a'
// value { func { ... } } } } } } }", `depth` funcs deep.
std::string NestedFuncText(int depth) {
  std::string open, close;
  for (int i = 0; i < depth; ++i) {
    open += "func { name: 'f' attr { key: 'a' value { ";
    close += "} } } ";
  }
  return "node { name: 'n' op: 'NoOp' attr { key: 'x' value { " + open + close + "} } }";
}

Status Import(const tf::GraphDef& def, Graph* g) {
  ImportOptions opts;
  opts.prefix = "";
  return ImportGraphDef(def, opts, g, nullptr);
}

TEST(UntrustedInputLimitsTest, DeeplyNestedTextGraphDefFailsToParse) {
  // Without a recursion limit protobuf's text parser recursed once per level and overflowed
  // the stack long before 200,000 levels.
  tf::GraphDef def;
  Status s = ParseGraphDefText(NestedFuncText(200000), &def);
  ASSERT_EQ(s.code(), Code::kInvalidArgument) << s.ToString();
  EXPECT_NE(s.message().find("Invalid GraphDef: text format"), std::string::npos) << s.message();
  // Nesting within the limit still parses.
  EXPECT_TRUE(ParseGraphDefText(NestedFuncText(20), &def).ok());
}

TEST(UntrustedInputLimitsTest, DeeplyNestedTextMetaGraphDefFailsToParse) {
  const std::string text = "graph_def { " + NestedFuncText(200000) + " }";
  tf::MetaGraphDef def;
  Status s = ParseMetaGraphDef(text.data(), text.size(), "nested.meta", &def);
  ASSERT_EQ(s.code(), Code::kInvalidArgument) << s.ToString();
  EXPECT_NE(s.message().find("nested.meta"), std::string::npos) << s.message();
}

TEST(UntrustedInputLimitsTest, DeeplyNestedBinaryGraphDefFailsToParse) {
  tf::GraphDef def;
  tf::NodeDef* node = def.add_node();
  node->set_name("n");
  node->set_op("NoOp");
  tf::AttrValue* value = &(*node->mutable_attr())["x"];
  for (int i = 0; i < 1000; ++i) {
    tf::NameAttrList* func = value->mutable_func();
    func->set_name("f");
    value = &(*func->mutable_attr())["a"];
  }
  std::string bytes;
  ASSERT_TRUE(def.SerializeToString(&bytes));
  tf::GraphDef parsed;
  Status s = ParseGraphDefBytes(bytes.data(), bytes.size(), &parsed);
  EXPECT_EQ(s.code(), Code::kInvalidArgument) << s.ToString();
}

TEST(UntrustedInputLimitsTest, ConstDeclaringAHugeTensorIsRejectedBeforeAllocating) {
  struct Case {
    const char* what;
    std::string text;
    const char* needle;
  };
  const Case cases[] = {
      {"2^40 floats, no values",
       "node { name: 'c' op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } } "
       "attr { key: 'value' value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: "
       "1099511627776 } } } } } }",
       "limited to"},
      {"2^40 strings from one string_val",
       "node { name: 'c' op: 'Const' attr { key: 'dtype' value { type: DT_STRING } } "
       "attr { key: 'value' value { tensor { dtype: DT_STRING tensor_shape { dim { size: "
       "1099511627776 } } string_val: 'x' } } } }",
       "exceeds the limit"},
      {"an element count that overflows int64",
       "node { name: 'c' op: 'Const' attr { key: 'dtype' value { type: DT_INT8 } } "
       "attr { key: 'value' value { tensor { dtype: DT_INT8 tensor_shape { dim { size: "
       "4294967296 } dim { size: 4294967296 } dim { size: 4294967296 } } } } } }",
       "too many elements"},
  };
  for (const Case& c : cases) {
    Graph g;
    Status s = Import(ParseText(c.text), &g);
    EXPECT_EQ(s.code(), Code::kInvalidArgument) << c.what << ": " << s.ToString();
    EXPECT_NE(s.message().find(c.needle), std::string::npos) << c.what << ": " << s.message();
    EXPECT_NE(s.message().find("'c'"), std::string::npos) << c.what << ": " << s.message();
    EXPECT_TRUE(g.operations().empty()) << c.what;
  }
}

TEST(UntrustedInputLimitsTest, OverflowingStaticShapeIsUnknownNotWrappedAround) {
  // [2^40, 2^40, 2^40] has more elements than int64 holds: Reshape to [-1] cannot know its
  // size. (The product wrapped around to 0 and gave a static shape of [0].)
  Graph g;
  TG_ASSERT_OK(Import(ParseText(R"pb(
    node { name: "x" op: "Placeholder"
           attr { key: "dtype" value { type: DT_FLOAT } }
           attr { key: "shape" value { shape { dim { size: 1099511627776 }
                                               dim { size: 1099511627776 }
                                               dim { size: 1099511627776 } } } } }
    node { name: "shape" op: "Const"
           attr { key: "dtype" value { type: DT_INT32 } }
           attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 1 } }
                                                int_val: -1 } } } }
    node { name: "r" op: "Reshape" input: "x" input: "shape"
           attr { key: "T" value { type: DT_FLOAT } } }
  )pb"), &g));
  const Operation* r = g.FindOperation("r");
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->output_shape(0).ToString(), "[?]");
}

}  // namespace
}  // namespace tgraph
