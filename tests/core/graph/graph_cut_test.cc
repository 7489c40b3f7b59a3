// extract_sub_graph and remove_training_nodes on GraphDef protos (written as text here).
#include "core/graph/graph_cut.h"

#include <gtest/gtest.h>

#include "core/graph/graphdef_io.h"

namespace tgraph {
namespace {

tf::GraphDef Parse(const std::string& text) {
  tf::GraphDef def;
  Status s = ParseGraphDefText(text, &def);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return def;
}

std::vector<std::string> NodeNames(const tf::GraphDef& def) {
  std::vector<std::string> names;
  for (const auto& n : def.node()) names.push_back(n.name());
  return names;
}

std::vector<std::string> Inputs(const tf::GraphDef& def, const std::string& node) {
  for (const auto& n : def.node()) {
    if (n.name() == node) return {n.input().begin(), n.input().end()};
  }
  ADD_FAILURE() << node << " is not in the graph";
  return {};
}

// a, b -> c = Add(a, b); d = Neg(c) with a control input on e; f reads a; g is alone.
const char* kGraph = R"(
  node { name: "g" op: "NoOp" }
  node { name: "a" op: "Placeholder" }
  node { name: "b" op: "Placeholder" }
  node { name: "e" op: "NoOp" }
  node { name: "c" op: "Add" input: "a" input: "b:0" }
  node { name: "f" op: "Neg" input: "a" }
  node { name: "d" op: "Neg" input: "c" input: "^e" }
  versions { producer: 27 }
)";

TEST(ExtractSubGraphTest, KeepsWhatTheDestinationsNeedInOriginalOrder) {
  tf::GraphDef def = Parse(kGraph);
  StatusOr<tf::GraphDef> sub = ExtractSubGraph(def, {"d"});
  ASSERT_TRUE(sub.ok()) << sub.status().ToString();
  EXPECT_EQ(NodeNames(*sub), (std::vector<std::string>{"a", "b", "e", "c", "d"}));
  EXPECT_EQ(sub->versions().producer(), 27);
  sub = ExtractSubGraph(def, {"f", "g"});
  ASSERT_TRUE(sub.ok());
  EXPECT_EQ(NodeNames(*sub), (std::vector<std::string>{"g", "a", "f"}));
  sub = ExtractSubGraph(def, {"c:0", "d"});  // a tensor name stands for its node
  ASSERT_TRUE(sub.ok());
  EXPECT_EQ(NodeNames(*sub), (std::vector<std::string>{"a", "b", "e", "c", "d"}));
  sub = ExtractSubGraph(def, {});
  ASSERT_TRUE(sub.ok());
  EXPECT_EQ(sub->node_size(), 0);
}

TEST(ExtractSubGraphTest, UnknownNodesAreErrorsNamingThem) {
  tf::GraphDef def = Parse(kGraph);
  StatusOr<tf::GraphDef> sub = ExtractSubGraph(def, {"d", "nowhere"});
  ASSERT_FALSE(sub.ok());
  EXPECT_EQ(sub.status().code(), Code::kInvalidArgument);
  EXPECT_NE(sub.status().message().find("'nowhere' is not in graph"), std::string::npos)
      << sub.status().ToString();
  tf::GraphDef dangling = Parse(R"(node { name: "x" op: "Neg" input: "ghost:1" })");
  sub = ExtractSubGraph(dangling, {"x"});
  ASSERT_FALSE(sub.ok());
  EXPECT_NE(sub.status().message().find("ghost"), std::string::npos) << sub.status().ToString();
  tf::GraphDef twice = Parse(R"(node { name: "x" op: "NoOp" } node { name: "x" op: "NoOp" })");
  sub = ExtractSubGraph(twice, {"x"});
  ASSERT_FALSE(sub.ok());
  EXPECT_NE(sub.status().message().find("two nodes named 'x'"), std::string::npos);
}

TEST(ExtractSubGraphTest, FollowsLongChainsAndCycles) {
  tf::GraphDef def;
  def.add_node()->set_name("n0");
  for (int i = 1; i < 5000; ++i) {
    tf::NodeDef* n = def.add_node();
    n->set_name(StrCat("n", i));
    n->add_input(StrCat("n", i - 1));
  }
  def.mutable_node(0)->add_input("^n4999");  // a cycle does not loop the visit
  StatusOr<tf::GraphDef> sub = ExtractSubGraph(def, {"n10"});
  ASSERT_TRUE(sub.ok());
  EXPECT_EQ(sub->node_size(), 5000);
}

// x -> i1 (Identity) -> i2 (StopGradient) -> chk (CheckNumerics) -> y (Neg); keep (Identity,
// protected); ordered (Identity with a control input) and gate (Identity used as a control
// input) stay; z reads chk as a control input.
const char* kTraining = R"(
  node { name: "x" op: "Placeholder" }
  node { name: "i1" op: "Identity" input: "x" }
  node { name: "i2" op: "StopGradient" input: "i1:0" }
  node { name: "chk" op: "CheckNumerics" input: "i2" }
  node { name: "y" op: "Neg" input: "chk" }
  node { name: "keep" op: "Identity" input: "i1" }
  node { name: "ordered" op: "Identity" input: "x" input: "^y" }
  node { name: "gate" op: "Identity" input: "x" }
  node { name: "z" op: "Neg" input: "gate" input: "^chk" input: "^gate" }
  library { function { signature { name: "f" } } }
)";

TEST(RemoveTrainingNodesTest, SplicesPassThroughNodes) {
  tf::GraphDef def = Parse(kTraining);
  StatusOr<tf::GraphDef> out = RemoveTrainingNodes(def, {"keep"});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(NodeNames(*out),
            (std::vector<std::string>{"x", "y", "keep", "ordered", "gate", "z"}));
  EXPECT_EQ(Inputs(*out, "y"), std::vector<std::string>{"x"});
  EXPECT_EQ(Inputs(*out, "keep"), std::vector<std::string>{"x"});
  EXPECT_EQ(Inputs(*out, "ordered"), (std::vector<std::string>{"x", "^y"}));
  EXPECT_EQ(Inputs(*out, "z"), (std::vector<std::string>{"gate", "^gate"}));
  EXPECT_EQ(out->library().function_size(), 1);
  // Without protection "keep" goes too; protecting chk keeps it (and its chain into it).
  out = RemoveTrainingNodes(def, {"chk"});
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(NodeNames(*out),
            (std::vector<std::string>{"x", "chk", "y", "ordered", "gate", "z"}));
  EXPECT_EQ(Inputs(*out, "chk"), std::vector<std::string>{"x"});
  EXPECT_EQ(Inputs(*out, "y"), std::vector<std::string>{"chk"});
  EXPECT_EQ(Inputs(*out, "z"), (std::vector<std::string>{"gate", "^chk", "^gate"}));
}

TEST(RemoveTrainingNodesTest, ACycleOfIdentitiesIsAnError) {
  tf::GraphDef def = Parse(R"(
    node { name: "a" op: "Identity" input: "b" }
    node { name: "b" op: "Identity" input: "a" }
    node { name: "c" op: "Neg" input: "a" }
  )");
  StatusOr<tf::GraphDef> out = RemoveTrainingNodes(def, {});
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("'c'"), std::string::npos) << out.status().ToString();
}

}  // namespace
}  // namespace tgraph
