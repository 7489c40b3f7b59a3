// convert_variables_to_constants over resource variables: the value is read through a
// ReadVariableOp of the handle, the VarHandleOp becomes a Const, its kept readers read it.
#include <gtest/gtest.h>

#include "core/graph/graph_freeze.h"
#include "tgraph/proto/graph.pb.h"

namespace tgraph {
namespace {

tf::NodeDef* Add(tf::GraphDef* def, const std::string& name, const std::string& op,
                 std::vector<std::string> inputs) {
  tf::NodeDef* n = def->add_node();
  n->set_name(name);
  n->set_op(op);
  for (auto& i : inputs) n->add_input(i);
  return n;
}

void SetType(tf::NodeDef* n, const char* attr, int type) { (*n->mutable_attr())[attr].set_type(static_cast<tf::DataType>(type)); }

class FreezeResourceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    SetType(Add(&def_, "v", "VarHandleOp", {}), "dtype", DT_FLOAT);
    SetType(Add(&def_, "v/Read", "ReadVariableOp", {"v"}), "dtype", DT_FLOAT);
    SetType(Add(&def_, "ids", "Placeholder", {}), "dtype", DT_INT32);
    tf::NodeDef* gather = Add(&def_, "g", "ResourceGather", {"v", "ids", "^v/Read"});
    SetType(gather, "dtype", DT_FLOAT);
    SetType(gather, "Tindices", DT_INT32);
    tf::NodeDef* out = Add(&def_, "out", "AddV2", {"v/Read", "g"});
    SetType(out, "T", DT_FLOAT);
  }
  TensorReader Reader() {
    return [this](const std::vector<std::string>& names) -> StatusOr<std::vector<Tensor>> {
      asked_ = names;
      std::vector<Tensor> out;
      for (size_t i = 0; i < names.size(); ++i) out.push_back(Tensor::Allocate(DT_FLOAT, {2}).value());
      return out;
    };
  }
  tf::GraphDef def_;
  std::vector<std::string> asked_;
};

TEST_F(FreezeResourceTest, HandleBecomesAConstAndItsReadersReadIt) {
  FreezeOptions options;
  options.output_node_names = {"out"};
  std::vector<std::string> converted;
  StatusOr<tf::GraphDef> frozen = ConvertVariablesToConstants(def_, options, Reader(), &converted);
  ASSERT_TRUE(frozen.ok()) << frozen.status().ToString();
  EXPECT_EQ(asked_, (std::vector<std::string>{"v/Read:0"}));
  EXPECT_EQ(converted, (std::vector<std::string>{"v"}));
  std::map<std::string, const tf::NodeDef*> by_name;
  for (const auto& n : frozen->node()) by_name[n.name()] = &n;
  ASSERT_TRUE(by_name.count("v") && by_name.count("v/Read") && by_name.count("g") && by_name.count("g/axis"));
  EXPECT_EQ(by_name["v"]->op(), "Const");
  EXPECT_EQ(by_name["v/Read"]->op(), "Identity");
  EXPECT_EQ(by_name["v/Read"]->attr().at("T").type(), tf::DT_FLOAT);
  const tf::NodeDef& g = *by_name["g"];
  EXPECT_EQ(g.op(), "GatherV2");
  ASSERT_EQ(g.input_size(), 4);
  EXPECT_EQ(g.input(2), "g/axis");
  EXPECT_EQ(g.input(3), "^v/Read");
  EXPECT_EQ(g.attr().at("Tparams").type(), tf::DT_FLOAT);
  EXPECT_EQ(g.attr().at("Taxis").type(), tf::DT_INT32);
}

TEST_F(FreezeResourceTest, AVariableWithoutAReadOrAKeptWriterIsAStatus) {
  FreezeOptions options;
  options.output_node_names = {"out"};
  tf::GraphDef no_read;
  SetType(Add(&no_read, "v", "VarHandleOp", {}), "dtype", DT_FLOAT);
  tf::NodeDef* shape = Add(&no_read, "out", "VariableShape", {"v"});
  SetType(shape, "out_type", DT_INT32);
  StatusOr<tf::GraphDef> frozen = ConvertVariablesToConstants(no_read, options, Reader());
  EXPECT_EQ(frozen.status().code(), Code::kInvalidArgument) << frozen.status().ToString();
  EXPECT_NE(frozen.status().message().find("no ReadVariableOp"), std::string::npos);
  // With a read somewhere, a kept VariableShape of the frozen handle cannot read a Const.
  SetType(Add(&no_read, "r", "ReadVariableOp", {"v"}), "dtype", DT_FLOAT);
  frozen = ConvertVariablesToConstants(no_read, options, Reader());
  EXPECT_EQ(frozen.status().code(), Code::kUnimplemented) << frozen.status().ToString();
  EXPECT_NE(frozen.status().message().find("'out' (VariableShape)"), std::string::npos);
}

}  // namespace
}  // namespace tgraph
