// MetaGraphDef export: MetaInfoDef, collections as TF writes them, scoping and options.
#include <gtest/gtest.h>

#include <algorithm>

#include "core/graph/meta_graph_io.h"
#include "tests/core/graph/meta_graph_test_util.h"
#include "tgraph/proto/variable.pb.h"

namespace tgraph {
namespace {

tf::MetaGraphDef Export(const Graph& g, const MetaGraphExportOptions& opts = {}) {
  tf::MetaGraphDef meta;
  Status s = ExportMetaGraph(g, opts, &meta);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return meta;
}

std::vector<tf::VariableDef> VariableDefs(const tf::MetaGraphDef& meta, const std::string& key) {
  std::vector<tf::VariableDef> out;
  for (const std::string& bytes : meta.collection_def().at(key).bytes_list().value()) {
    out.emplace_back();
    EXPECT_TRUE(out.back().ParseFromString(bytes));
  }
  return out;
}

std::vector<std::string> NodeNames(const tf::GraphDef& def) {
  std::vector<std::string> names;
  for (const auto& n : def.node()) names.push_back(n.name());
  return names;
}

TEST(MetaGraphExportTest, MetaInfoDefListsTheOpsUsedSortedAndUndocumented) {
  Graph g;
  testing::BuildMetaGraphTestGraph(g);
  MetaGraphExportOptions opts;
  opts.tags = {"serve", "train"};
  opts.meta_graph_version = "v1";
  opts.producer_version = "tgraph 0.1.0";
  tf::MetaGraphDef meta = Export(g, opts);
  const auto& info = meta.meta_info_def();
  std::vector<std::string> ops;
  for (const auto& op : info.stripped_op_list().op()) {
    ops.push_back(op.name());
    EXPECT_TRUE(op.summary().empty() && op.description().empty()) << op.name();
  }
  EXPECT_EQ(ops, (std::vector<std::string>{"Assign", "Const", "Identity", "Mul", "NoOp",
                                           "VariableV2"}));
  EXPECT_EQ(std::vector<std::string>(info.tags().begin(), info.tags().end()),
            (std::vector<std::string>{"serve", "train"}));
  EXPECT_EQ(info.meta_graph_version(), "v1");
  // TF reads tensorflow_version as a version number: ours goes to the free-form field.
  EXPECT_EQ(info.tensorflow_git_version(), "tgraph 0.1.0");
  EXPECT_EQ(info.tensorflow_version(), "");
  EXPECT_EQ(meta.graph_def().node_size(), g.num_operations());
  EXPECT_FALSE(meta.has_saver_def());
}

TEST(MetaGraphExportTest, CollectionsAreWrittenAsTensorFlowWritesThem) {
  Graph g;
  testing::BuildMetaGraphTestGraph(g);
  tf::MetaGraphDef meta = Export(g);
  const auto& cols = meta.collection_def();

  auto vars = VariableDefs(meta, "variables");
  ASSERT_EQ(vars.size(), 2u);
  EXPECT_EQ(vars[0].variable_name(), "model/W:0");
  EXPECT_EQ(vars[0].initializer_name(), "model/W/Assign");
  EXPECT_EQ(vars[0].snapshot_name(), "model/W/read:0");
  EXPECT_EQ(vars[0].initial_value_name(), "model/W/initial_value:0");
  EXPECT_TRUE(vars[0].trainable());
  EXPECT_FALSE(vars[0].is_resource());
  EXPECT_EQ(vars[1].variable_name(), "model/step:0");
  EXPECT_FALSE(vars[1].trainable());
  ASSERT_EQ(VariableDefs(meta, "trainable_variables").size(), 1u);
  ASSERT_EQ(VariableDefs(meta, "global_step").size(), 1u);
  EXPECT_EQ(VariableDefs(meta, "global_step")[0].variable_name(), "model/step:0");

  EXPECT_EQ(cols.at("train_op").node_list().value(0), "train");
  EXPECT_EQ(cols.at("my_ops").node_list().value(0), "model/y");
  EXPECT_EQ(cols.at("my_tensors").node_list().value(0), "model/y:0");
  // A variable under a key TF has no proto function for is written by name.
  EXPECT_EQ(cols.at("my_vars").node_list().value(0), "model/W:0");
  ASSERT_EQ(cols.at("ints").int64_list().value_size(), 2);
  EXPECT_EQ(cols.at("ints").int64_list().value(1), -3);
  EXPECT_EQ(cols.at("floats").float_list().value(0), 0.25f);
  EXPECT_EQ(cols.at("strings").bytes_list().value(1), std::string("\0b", 2));
}

TEST(MetaGraphExportTest, TheVariableDefBytesMatchTensorFlowsLayout) {
  // FORMATS.md 2.3's real example: field 1, 2, 3, then 6 and 7.
  Graph g;
  VariableOptions o;
  o.name = "v1";
  g.variables().CreateVariableFromTensor(testing::ScalarFloat(1), o).value();
  tf::MetaGraphDef meta = Export(g);
  EXPECT_EQ(meta.collection_def().at("variables").bytes_list().value(0),
            std::string("\n\004v1:0\022\tv1/Assign\032\tv1/read:02\022v1/initial_value:08\001"));
}

TEST(MetaGraphExportTest, ACollectionMixingKindsIsAnErrorNamingIt) {
  Graph g;
  Operation* c = testing::Const(g, 1, "c");
  ASSERT_TRUE(g.AddToCollection("mixed", CollectionItem::OfOperation(c)).ok());
  ASSERT_TRUE(g.AddToCollection("mixed", CollectionItem::OfInt64(1)).ok());
  tf::MetaGraphDef meta;
  Status s = ExportMetaGraph(g, {}, &meta);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_NE(s.message().find("'mixed'"), std::string::npos) << s.message();
}

TEST(MetaGraphExportTest, SaverDefIsWrittenAndAnInvalidOneRejected) {
  Graph g;
  testing::BuildMetaGraphTestGraph(g);
  MetaGraphExportOptions opts;
  opts.has_saver_def = true;
  opts.saver_def = testing::TestSaverDef();
  tf::MetaGraphDef meta = Export(g, opts);
  EXPECT_EQ(meta.saver_def().restore_op_name(), "model/W/Assign");
  EXPECT_EQ(meta.saver_def().max_to_keep(), 5);

  opts.saver_def = "\xff\xff\xff";
  Status s = ExportMetaGraph(g, opts, &meta);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_NE(s.message().find("SaverDef"), std::string::npos);
}

TEST(MetaGraphExportTest, ExportScopeKeepsTheScopeWithRelativeNames) {
  Graph g;
  testing::BuildMetaGraphTestGraph(g);
  // An op outside the scope feeding one inside, and a look-alike scope name.
  Operation* outside = testing::Const(g, 3, "outside");
  ASSERT_TRUE(g.PushNameScope("model/").ok());
  testing::MustAdd(g, testing::UnarySpec("Identity", outside->output(0), "uses_outside"));
  ASSERT_TRUE(g.PopNameScope().ok());
  testing::Const(g, 4, "model_other");
  MetaGraphExportOptions opts;
  opts.export_scope = "model";
  opts.has_saver_def = true;
  opts.saver_def = testing::TestSaverDef();
  tf::MetaGraphDef meta = Export(g, opts);

  EXPECT_EQ(NodeNames(meta.graph_def()),
            (std::vector<std::string>{"W/initial_value", "W", "W/Assign", "W/read",
                                      "step/initial_value", "step", "step/Assign", "step/read",
                                      "x", "y", "uses_outside"}));
  const tf::NodeDef& read = meta.graph_def().node(3);
  EXPECT_EQ(read.input(0), "W");
  EXPECT_EQ(read.attr().at("_class").list().s(0), "loc:@W");
  EXPECT_EQ(meta.graph_def().node(10).input(0), "$unbound_inputs_outside");
  EXPECT_EQ(meta.collection_def().at("unbound_inputs").bytes_list().value(0),
            "$unbound_inputs_outside");
  EXPECT_EQ(VariableDefs(meta, "variables")[0].variable_name(), "W:0");
  EXPECT_EQ(VariableDefs(meta, "variables")[0].snapshot_name(), "W/read:0");
  EXPECT_EQ(meta.collection_def().at("my_tensors").node_list().value(0), "y:0");
  // "train" is outside: train_op has nothing left and is not written. Values stay.
  EXPECT_EQ(meta.collection_def().count("train_op"), 0u);
  EXPECT_EQ(meta.collection_def().at("ints").int64_list().value_size(), 2);
  EXPECT_EQ(meta.saver_def().filename_tensor_name(), "x:0");
  EXPECT_EQ(meta.saver_def().restore_op_name(), "W/Assign");
  std::vector<std::string> ops;
  for (const auto& op : meta.meta_info_def().stripped_op_list().op()) ops.push_back(op.name());
  EXPECT_EQ(std::count(ops.begin(), ops.end(), "NoOp"), 0);

  // A SaverDef outside the export scope is left out.
  opts.saver_def = testing::TestSaverDef("elsewhere");
  EXPECT_FALSE(Export(g, opts).has_saver_def());
}

TEST(MetaGraphExportTest, ClearDevicesAndStripDefaultAttrs) {
  Graph g;
  ASSERT_TRUE(g.PushDevice("/cpu:0").ok());
  testing::BuildMetaGraphTestGraph(g);
  ASSERT_TRUE(g.PopDevice().ok());
  tf::MetaGraphDef kept = Export(g);
  EXPECT_EQ(kept.graph_def().node(0).device(), "/device:CPU:0");
  EXPECT_EQ(kept.graph_def().node(1).attr().count("container"), 1u);

  MetaGraphExportOptions opts;
  opts.clear_devices = true;
  opts.strip_default_attrs = true;
  tf::MetaGraphDef stripped = Export(g, opts);
  for (const auto& node : stripped.graph_def().node()) EXPECT_EQ(node.device(), "") << node.name();
  const tf::NodeDef& var = stripped.graph_def().node(1);
  ASSERT_EQ(var.op(), "VariableV2");
  EXPECT_EQ(var.attr().count("container"), 0u);
  EXPECT_EQ(var.attr().count("shared_name"), 0u);
  EXPECT_EQ(var.attr().count("shape"), 1u);
  EXPECT_TRUE(stripped.meta_info_def().stripped_default_attrs());
}

TEST(MetaGraphExportTest, BytesAreDeterministic) {
  Graph g;
  testing::BuildMetaGraphTestGraph(g);
  std::string a, b;
  ASSERT_TRUE(ExportMetaGraphBytes(g, {}, &a).ok());
  ASSERT_TRUE(ExportMetaGraphBytes(g, {}, &b).ok());
  EXPECT_EQ(a, b);
  EXPECT_FALSE(a.empty());
}

}  // namespace
}  // namespace tgraph
