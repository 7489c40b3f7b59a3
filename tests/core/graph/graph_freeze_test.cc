// convert_variables_to_constants on a GraphDef made by the variable helpers, with a reader
// standing in for the session.
#include "core/graph/graph_freeze.h"

#include <gtest/gtest.h>

#include "core/graph/graph.h"
#include "core/graph/graphdef_io.h"
#include "core/graph/proto_convert.h"
#include "core/graph/variables.h"
#include "tests/core/graph/graph_test_util.h"

namespace tgraph {
namespace {

Tensor Floats(std::vector<int64_t> dims, std::vector<float> values) {
  Tensor t = Tensor::Allocate(DT_FLOAT, std::move(dims)).value();
  for (size_t i = 0; i < values.size(); ++i) t.flat<float>()[i] = values[i];
  return t;
}

VariableOptions Named(const std::string& name) {
  VariableOptions o;
  o.name = name;
  return o;
}

const tf::NodeDef* FindNode(const tf::GraphDef& def, const std::string& name) {
  for (const auto& n : def.node()) {
    if (n.name() == name) return &n;
  }
  return nullptr;
}

class FreezeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    w_ = g_.variables().CreateVariableFromTensor(Floats({2}, {1, 2}), Named("w")).value();
    b_ = g_.variables().CreateVariableFromTensor(Floats({2}, {0, 0}), Named("b")).value();
    NodeSpec add;
    add.type = "Add";
    add.name = "y";
    add.inputs = {{{w_->snapshot}, false}, {{b_->snapshot}, false}};
    ASSERT_TRUE(g_.AddOperation(std::move(add)).ok());
    ASSERT_TRUE(g_.variables().GlobalVariablesInitializer().ok());
    ASSERT_TRUE(ExportGraphDef(g_, &def_).ok());
  }

  // Answers with w = [5, 6], b = [7, 8] and records what was asked.
  TensorReader Reader() {
    return [this](const std::vector<std::string>& names) -> StatusOr<std::vector<Tensor>> {
      asked_.push_back(names);
      std::vector<Tensor> out;
      for (const auto& n : names) {
        out.push_back(n == "w:0" ? Floats({2}, {5, 6}) : Floats({2}, {7, 8}));
      }
      return out;
    };
  }

  Graph g_;
  Variable* w_ = nullptr;
  Variable* b_ = nullptr;
  tf::GraphDef def_;
  std::vector<std::vector<std::string>> asked_;
};

TEST_F(FreezeTest, VariablesBecomeConstantsOfTheirValues) {
  FreezeOptions options;
  options.output_node_names = {"y"};
  std::vector<std::string> converted;
  StatusOr<tf::GraphDef> frozen = ConvertVariablesToConstants(def_, options, Reader(), &converted);
  ASSERT_TRUE(frozen.ok()) << frozen.status().ToString();
  EXPECT_EQ(converted, (std::vector<std::string>{"w", "b"}));
  ASSERT_EQ(asked_.size(), 1u);  // one read for all
  EXPECT_EQ(asked_[0], (std::vector<std::string>{"w:0", "b:0"}));
  std::vector<std::string> nodes;
  for (const auto& n : frozen->node()) nodes.push_back(n.name() + "=" + n.op());
  EXPECT_EQ(nodes, (std::vector<std::string>{"w=Const", "w/read=Identity", "b=Const",
                                             "b/read=Identity", "y=Add"}));
  const tf::NodeDef* w = FindNode(*frozen, "w");
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->attr().at("dtype").type(), tf::DT_FLOAT);
  Tensor value = TensorFromProto(w->attr().at("value").tensor()).value();
  EXPECT_TRUE(value.Equals(Floats({2}, {5, 6})));
  EXPECT_EQ(w->attr().size(), 2u);  // shape, container, shared_name are gone
  // The frozen graph imports and is complete.
  Graph imported;
  ImportOptions import;
  import.prefix = "";
  EXPECT_TRUE(ImportGraphDef(*frozen, import, &imported, nullptr).ok());
}

TEST_F(FreezeTest, WhitelistAndBlacklistChooseTheVariables) {
  FreezeOptions options;
  options.output_node_names = {"y"};
  options.whitelist = std::set<std::string>{"b"};
  StatusOr<tf::GraphDef> frozen = ConvertVariablesToConstants(def_, options, Reader());
  ASSERT_TRUE(frozen.ok());
  EXPECT_EQ(FindNode(*frozen, "w")->op(), "VariableV2");
  EXPECT_EQ(FindNode(*frozen, "b")->op(), "Const");
  options.whitelist.reset();
  options.blacklist = {"b"};
  frozen = ConvertVariablesToConstants(def_, options, Reader());
  ASSERT_TRUE(frozen.ok());
  EXPECT_EQ(FindNode(*frozen, "w")->op(), "Const");
  EXPECT_EQ(FindNode(*frozen, "b")->op(), "VariableV2");
  // Nothing to freeze: the reader is not called.
  options.output_node_names = {"w/initial_value"};
  asked_.clear();
  frozen = ConvertVariablesToConstants(def_, options, Reader());
  ASSERT_TRUE(frozen.ok());
  EXPECT_TRUE(asked_.empty());
  EXPECT_EQ(frozen->node_size(), 1);
}

TEST_F(FreezeTest, ErrorsNameWhatFailed) {
  FreezeOptions options;
  options.output_node_names = {"nope"};
  StatusOr<tf::GraphDef> frozen = ConvertVariablesToConstants(def_, options, Reader());
  ASSERT_FALSE(frozen.ok());
  EXPECT_NE(frozen.status().message().find("nope"), std::string::npos);
  options.output_node_names = {"y"};
  TensorReader failing = [](const std::vector<std::string>&) -> StatusOr<std::vector<Tensor>> {
    return FailedPrecondition("Attempting to use uninitialized value w");
  };
  frozen = ConvertVariablesToConstants(def_, options, failing);
  ASSERT_FALSE(frozen.ok());
  EXPECT_EQ(frozen.status().code(), Code::kFailedPrecondition);
  TensorReader wrong_type = [](const std::vector<std::string>& names)
      -> StatusOr<std::vector<Tensor>> {
    return std::vector<Tensor>(names.size(), Tensor::Allocate(DT_INT32, {2}).value());
  };
  frozen = ConvertVariablesToConstants(def_, options, wrong_type);
  ASSERT_FALSE(frozen.ok());
  EXPECT_NE(frozen.status().message().find("'w'"), std::string::npos);
  options.output_node_names.clear();
  EXPECT_FALSE(ConvertVariablesToConstants(def_, options, Reader()).ok());
}

}  // namespace
}  // namespace tgraph
