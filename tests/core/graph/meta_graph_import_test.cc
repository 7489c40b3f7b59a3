// MetaGraphDef import: collections and variables rebuilt, scopes, the SaverDef, round trips
// and all-or-nothing failures.
#include <gtest/gtest.h>

#include "core/graph/meta_graph_io.h"
#include "tests/core/graph/meta_graph_test_util.h"
#include "tgraph/proto/variable.pb.h"

namespace tgraph {
namespace {

tf::MetaGraphDef ExportOf(const Graph& g, const MetaGraphExportOptions& opts = {}) {
  tf::MetaGraphDef meta;
  Status s = ExportMetaGraph(g, opts, &meta);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return meta;
}

MetaGraphExportOptions WithSaver() {
  MetaGraphExportOptions opts;
  opts.has_saver_def = true;
  opts.saver_def = testing::TestSaverDef();
  opts.tags = {"train"};
  return opts;
}

TEST(MetaGraphImportTest, ExportImportExportIsByteIdentical) {
  Graph g;
  testing::BuildMetaGraphTestGraph(g);
  std::string first;
  ASSERT_TRUE(ExportMetaGraphBytes(g, WithSaver(), &first).ok());

  Graph imported;
  MetaGraphImportResults results;
  tf::MetaGraphDef meta;
  ASSERT_TRUE(ParseMetaGraphDef(first.data(), first.size(), "test", &meta).ok());
  Status s = ImportMetaGraph(meta, {}, &imported, &results);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_TRUE(results.has_saver_def);

  MetaGraphExportOptions again = WithSaver();
  again.saver_def = results.saver_def;
  std::string second;
  ASSERT_TRUE(ExportMetaGraphBytes(imported, again, &second).ok());
  EXPECT_EQ(first, second);
}

TEST(MetaGraphImportTest, CollectionsAndVariablesAreRebuilt) {
  Graph g;
  testing::BuildMetaGraphTestGraph(g);
  Graph imported;
  ASSERT_TRUE(ImportMetaGraph(ExportOf(g), {}, &imported, nullptr).ok());
  const Collections& cols = imported.collections();

  const auto& vars = *cols.Find("variables");
  ASSERT_EQ(vars.size(), 2u);
  ASSERT_EQ(vars[0].kind, CollectionItem::Kind::kVariable);
  Variable* w = vars[0].variable;
  EXPECT_EQ(w->name, "model/W");
  EXPECT_EQ(w->op, imported.FindOperation("model/W"));
  EXPECT_EQ(w->initializer, imported.FindOperation("model/W/Assign"));
  EXPECT_EQ(w->snapshot.Name(), "model/W/read:0");
  EXPECT_EQ(w->initial_value.Name(), "model/W/initial_value:0");
  EXPECT_EQ(w->dtype, DT_FLOAT);
  EXPECT_EQ(w->shape, PartialShape({2, 3}));
  EXPECT_TRUE(w->trainable);
  EXPECT_FALSE(vars[1].variable->trainable);
  // One object per variable, whatever collections list it; the store knows it.
  EXPECT_EQ((*cols.Find("trainable_variables"))[0].variable, w);
  EXPECT_EQ((*cols.Find("global_step"))[0].variable, vars[1].variable);
  EXPECT_EQ(imported.variables().FindByName("model/W"), w);

  // VariableDef fields tgraph does not use survive the round trip.
  tf::MetaGraphDef meta = ExportOf(g);
  tf::VariableDef step;
  ASSERT_TRUE(step.ParseFromString(meta.collection_def().at("global_step").bytes_list().value(0)));
  step.set_aggregation(tf::VARIABLE_AGGREGATION_ONLY_FIRST_REPLICA);
  step.set_synchronization(tf::VARIABLE_SYNCHRONIZATION_ON_READ);
  for (const char* key : {"variables", "global_step"}) {
    auto* values = (*meta.mutable_collection_def())[key].mutable_bytes_list()->mutable_value();
    *values->rbegin() = step.SerializeAsString();
  }
  Graph again;
  ASSERT_TRUE(ImportMetaGraph(meta, {}, &again, nullptr).ok());
  EXPECT_EQ(testing::DeterministicBytes(ExportOf(again).collection_def().at("global_step")),
            testing::DeterministicBytes(meta.collection_def().at("global_step")));

  // The initializer covers the imported variables.
  Operation* init = imported.variables().GlobalVariablesInitializer().value();
  ASSERT_EQ(init->control_inputs().size(), 2u);
  EXPECT_EQ(init->control_inputs()[0]->name(), "model/W/Assign");

  EXPECT_EQ((*cols.Find("train_op"))[0].op, imported.FindOperation("train"));
  EXPECT_EQ((*cols.Find("my_ops"))[0].op, imported.FindOperation("model/y"));
  ASSERT_EQ((*cols.Find("my_tensors"))[0].kind, CollectionItem::Kind::kTensor);
  EXPECT_EQ((*cols.Find("my_tensors"))[0].tensor.Name(), "model/y:0");
  EXPECT_EQ((*cols.Find("my_vars"))[0].tensor.Name(), "model/W:0");
  EXPECT_EQ((*cols.Find("ints"))[1].int64_value, -3);
  EXPECT_EQ((*cols.Find("floats"))[0].float_value, 0.25f);
  EXPECT_EQ((*cols.Find("strings"))[1].bytes, std::string("\0b", 2));
}

TEST(MetaGraphImportTest, ImportScopePrefixesNodesCollectionsAndTheSaverDef) {
  Graph g;
  testing::BuildMetaGraphTestGraph(g);
  tf::MetaGraphDef meta = ExportOf(g, WithSaver());
  Graph imported;
  MetaGraphImportOptions opts;
  opts.import_scope = "imp";
  MetaGraphImportResults results;
  ASSERT_TRUE(ImportMetaGraph(meta, opts, &imported, &results).ok());
  EXPECT_EQ(results.scope, "imp");
  EXPECT_NE(imported.FindOperation("imp/model/W"), nullptr);
  EXPECT_EQ((*imported.collections().Find("variables"))[0].variable->snapshot.Name(),
            "imp/model/W/read:0");
  EXPECT_EQ((*imported.collections().Find("train_op"))[0].op->name(), "imp/train");
  tf::SaverDef saver;
  ASSERT_TRUE(saver.ParseFromString(results.saver_def));
  EXPECT_EQ(saver.filename_tensor_name(), "imp/model/x:0");
  EXPECT_EQ(saver.restore_op_name(), "imp/model/W/Assign");

  // A second import under the same scope gets a unique one, as a name scope would.
  ASSERT_TRUE(ImportMetaGraph(meta, opts, &imported, &results).ok());
  EXPECT_EQ(results.scope, "imp_1");
  EXPECT_NE(imported.FindOperation("imp_1/model/W"), nullptr);
  EXPECT_EQ(imported.collections().Find("variables")->size(), 4u);

  // Exporting the scope gives back the original names.
  MetaGraphExportOptions scoped = WithSaver();
  scoped.export_scope = "imp";
  scoped.saver_def = results.saver_def;  // names under imp_1: outside "imp", left out
  tf::MetaGraphDef back = ExportOf(imported, scoped);
  EXPECT_EQ(testing::DeterministicBytes(back.graph_def()),
            testing::DeterministicBytes(meta.graph_def()));
  EXPECT_FALSE(back.has_saver_def());
}

TEST(MetaGraphImportTest, ScopedExportImportsWithItsUnboundInputsMapped) {
  Graph g;
  Operation* outside = testing::Const(g, 3, "outside");
  ASSERT_TRUE(g.PushNameScope("s").ok());
  testing::MustAdd(g, testing::UnarySpec("Identity", outside->output(0), "id"));
  ASSERT_TRUE(g.PopNameScope().ok());
  MetaGraphExportOptions eopts;
  eopts.export_scope = "s";
  tf::MetaGraphDef meta = ExportOf(g, eopts);

  Graph dst;
  Operation* feed = testing::Const(dst, 5, "feed");
  MetaGraphImportOptions iopts;
  iopts.import_scope = "t";
  Status s = ImportMetaGraph(meta, iopts, &dst, nullptr);
  EXPECT_FALSE(s.ok());  // "$unbound_inputs_outside" is not a node
  EXPECT_EQ(dst.num_operations(), 1);
  iopts.input_map[{"$unbound_inputs_outside", 0}] = feed->output(0);
  MetaGraphImportResults results;
  s = ImportMetaGraph(meta, iopts, &dst, &results);
  ASSERT_TRUE(s.ok()) << s.ToString();
  // The failed import had reserved "t" already, as a TF name scope would.
  EXPECT_EQ(results.scope, "t_1");
  Operation* id = dst.FindOperation("t_1/id");
  ASSERT_NE(id, nullptr);
  EXPECT_EQ(id->input(0).op, feed);
  EXPECT_EQ(dst.collections().Find(kUnboundInputsCollection), nullptr);
}

TEST(MetaGraphImportTest, ClearDevicesDropsDevices) {
  Graph g;
  ASSERT_TRUE(g.PushDevice("/cpu:0").ok());
  testing::BuildMetaGraphTestGraph(g);
  ASSERT_TRUE(g.PopDevice().ok());
  tf::MetaGraphDef meta = ExportOf(g);
  Graph kept, cleared;
  ASSERT_TRUE(ImportMetaGraph(meta, {}, &kept, nullptr).ok());
  EXPECT_EQ(kept.FindOperation("model/W")->device(), "/device:CPU:0");
  MetaGraphImportOptions opts;
  opts.clear_devices = true;
  ASSERT_TRUE(ImportMetaGraph(meta, opts, &cleared, nullptr).ok());
  for (const auto& op : cleared.operations()) EXPECT_EQ(op->device(), "") << op->name();
}

TEST(MetaGraphImportTest, StrippedDefaultAttrsAreFilledBack) {
  Graph g;
  testing::BuildMetaGraphTestGraph(g);
  MetaGraphExportOptions opts;
  opts.strip_default_attrs = true;
  Graph imported;
  ASSERT_TRUE(ImportMetaGraph(ExportOf(g, opts), {}, &imported, nullptr).ok());
  EXPECT_NE(imported.FindOperation("model/W")->FindAttr("container"), nullptr);
}

TEST(MetaGraphImportTest, AttrsANewerProducerDefaultedAreDropped) {
  Graph g;
  testing::BuildMetaGraphTestGraph(g);
  tf::MetaGraphDef meta = ExportOf(g);
  // A producer whose Mul has an extra attr with a default, written at that default.
  for (auto& op : *meta.mutable_meta_info_def()->mutable_stripped_op_list()->mutable_op()) {
    if (op.name() != "Mul") continue;
    auto* attr = op.add_attr();
    attr->set_name("newer_attr");
    attr->set_type("bool");
    attr->mutable_default_value()->set_b(false);
  }
  for (auto& node : *meta.mutable_graph_def()->mutable_node()) {
    if (node.op() == "Mul") (*node.mutable_attr())["newer_attr"].set_b(false);
  }
  Graph imported;
  Status s = ImportMetaGraph(meta, {}, &imported, nullptr);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(imported.FindOperation("model/y")->FindAttr("newer_attr"), nullptr);
}

TEST(MetaGraphImportTest, BadReferencesFailBeforeAnythingIsAdded) {
  Graph g;
  testing::BuildMetaGraphTestGraph(g);
  const tf::MetaGraphDef good = ExportOf(g, WithSaver());

  struct Case {
    const char* what;
    std::function<void(tf::MetaGraphDef*)> corrupt;
    Code code;
    const char* message;
  };
  std::vector<Case> cases = {
      {"node_list name", [](tf::MetaGraphDef* m) {
         (*m->mutable_collection_def())["train_op"].mutable_node_list()->set_value(0, "nope");
       }, Code::kInvalidArgument, "'nope'"},
      {"VariableDef bytes", [](tf::MetaGraphDef* m) {
         // Not a VariableDef: a tag byte whose varint never ends.
         *(*m->mutable_collection_def())["variables"].mutable_bytes_list()->mutable_value(0) =
             std::string(1, '\xff');
       }, Code::kInvalidArgument, "collection 'variables' item 0"},
      {"variable op type", [](tf::MetaGraphDef* m) {
         tf::VariableDef v;
         v.set_variable_name("model/x:0");
         v.set_initializer_name("model/W/Assign");
         v.set_snapshot_name("model/W/read:0");
         (*m->mutable_collection_def())["variables"].mutable_bytes_list()->set_value(
             0, v.SerializeAsString());
       }, Code::kInvalidArgument, "not a VariableV2"},
      // A resource variable's VariableDef must name a VarHandleOp (its handle).
      {"resource variable", [](tf::MetaGraphDef* m) {
         tf::VariableDef v;
         v.set_variable_name("model/W:0");
         v.set_is_resource(true);
         (*m->mutable_collection_def())["variables"].mutable_bytes_list()->set_value(
             0, v.SerializeAsString());
       }, Code::kInvalidArgument, "is a resource variable but names a VariableV2 node, not a VarHandleOp"},
      {"SaverDef name", [](tf::MetaGraphDef* m) {
         m->mutable_saver_def()->set_restore_op_name("save/restore_all");
       }, Code::kInvalidArgument, "restore_op_name 'save/restore_all'"},
      {"GraphDef node", [](tf::MetaGraphDef* m) {
         m->mutable_graph_def()->mutable_node(9)->set_op("NoSuchOp");
       }, Code::kNotFound, "NoSuchOp"},
  };
  for (const Case& c : cases) {
    tf::MetaGraphDef bad = good;
    c.corrupt(&bad);
    Graph dst;
    testing::Const(dst, 1, "already_here");
    Status s = ImportMetaGraph(bad, {}, &dst, nullptr);
    EXPECT_EQ(s.code(), c.code) << c.what << ": " << s.ToString();
    EXPECT_NE(s.message().find(c.message), std::string::npos) << c.what << ": " << s.message();
    EXPECT_EQ(dst.num_operations(), 1) << c.what;
    EXPECT_TRUE(dst.collections().Keys().empty()) << c.what;
    EXPECT_TRUE(dst.variables().all().empty()) << c.what;
  }
}

}  // namespace
}  // namespace tgraph
