// GraphDef export and import: node format, determinism, round trips, prefixes, input_map,
// return values and control dependencies.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "core/graph/graph.h"
#include "core/graph/graphdef_io.h"
#include "core/graph/proto_convert.h"
#include "core/graph/variables.h"
#include "tests/core/graph/graphdef_test_util.h"

namespace tgraph {
namespace {

using testing::ConstSpec;
using testing::ExportBytes;
using testing::ExportText;
using testing::FloatMatrix;
using testing::GraphDefTestRegistry;
using testing::MustAdd;
using testing::NoPrefix;
using testing::OpNames;
using testing::ParseText;
using testing::PlaceholderSpec;

const tf::NodeDef* FindNode(const tf::GraphDef& def, const std::string& name) {
  for (const auto& n : def.node()) {
    if (n.name() == name) return &n;
  }
  return nullptr;
}

std::vector<std::string> Inputs(const tf::NodeDef& n) { return {n.input().begin(), n.input().end()}; }

// A graph with everything export has to carry: scopes, control dependencies, devices,
// colocation, list inputs and list attrs, a second output, and a variable subgraph.
void BuildRichGraph(Graph& g) {
  Operation* x = MustAdd(g, PlaceholderSpec(DT_FLOAT, PartialShape({-1, 3}), "x"));
  ASSERT_TRUE(g.PushNameScope("layer").ok());
  Operation* w = MustAdd(g, ConstSpec(FloatMatrix(3, 2, 0.5f), "w"));
  NodeSpec mm = testing::BinarySpec("MatMul", x->output(0), w->output(0), "m");
  mm.attrs["transpose_b"] = AttrOfBool(false);
  Operation* m = MustAdd(g, std::move(mm));
  ASSERT_TRUE(g.PushDevice("/gpu:1").ok());
  Operation* b = MustAdd(g, ConstSpec(FloatMatrix(1, 2, 2.0f), "b"));
  Operation* add = MustAdd(g, testing::BinarySpec("AddV2", m->output(0), b->output(0), "add"));
  ASSERT_TRUE(g.PopDevice().ok());
  ASSERT_TRUE(g.PopNameScope().ok());

  Operation* gate = MustAdd(g, testing::NoOpSpec("gate"));
  ASSERT_TRUE(g.PushControlDependencies({gate}).ok());
  Operation* ident = MustAdd(g, testing::UnarySpec("Identity", add->output(0), "out"));
  ASSERT_TRUE(g.PopControlDependencies().ok());

  ASSERT_TRUE(g.PushColocateWith(m).ok());
  MustAdd(g, testing::UnarySpec("Identity", m->output(0), "near_m"));
  ASSERT_TRUE(g.PopColocateWith().ok());

  Operation* split = MustAdd(g, testing::UnarySpec("TestSplit", ident->output(0), "split"));
  NodeSpec cat;
  cat.type = "TestConcat";
  cat.name = "cat";
  cat.inputs = {{{split->output(1), split->output(0), split->output(1)}, true}};
  cat.attrs["axes"] = AttrOfIntList({0, -1, 2});
  cat.attrs["labels"] = AttrOfStringList({"a", "b"});
  MustAdd(g, std::move(cat));

  VariableOptions vopts;
  vopts.name = "V";
  ASSERT_TRUE(g.variables().CreateVariableFromTensor(FloatMatrix(2, 2, 1.5f), vopts).ok());
  ASSERT_TRUE(g.variables().GlobalVariablesInitializer().ok());
}

TEST(GraphDefExportTest, NodesInCreationOrderWithInputsDevicesAndAllAttrs) {
  Graph g(GraphDefTestRegistry());
  BuildRichGraph(g);
  tf::GraphDef def;
  TG_ASSERT_OK(ExportGraphDef(g, &def));

  ASSERT_EQ(def.node_size(), g.num_operations());
  for (int i = 0; i < def.node_size(); ++i) EXPECT_EQ(def.node(i).name(), g.operation(i)->name());
  EXPECT_EQ(def.versions().producer(), kGraphDefProducer);
  EXPECT_GE(def.versions().producer(), 27);
  EXPECT_EQ(def.versions().min_consumer(), 0);

  const tf::NodeDef* m = FindNode(def, "layer/m");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->op(), "MatMul");
  EXPECT_EQ(Inputs(*m), (std::vector<std::string>{"x", "layer/w"}));
  // Every attr of the OpDef is written, defaults included, except attrs newer than TF 1.x
  // at their defaults (TF 1.x would reject them).
  for (const char* a : {"T", "transpose_a", "transpose_b"}) {
    EXPECT_EQ(m->attr().count(a), 1u) << a;
  }
  for (const char* a : {"grad_a", "grad_b"}) {
    EXPECT_EQ(m->attr().count(a), 0u) << a;
  }
  EXPECT_EQ(m->attr().at("T").type(), tf::DT_FLOAT);
  EXPECT_FALSE(m->attr().at("transpose_a").b());

  const tf::NodeDef* add = FindNode(def, "layer/add");
  ASSERT_NE(add, nullptr);
  EXPECT_EQ(add->device(), "/device:GPU:1");

  const tf::NodeDef* out = FindNode(def, "out");
  ASSERT_NE(out, nullptr);
  EXPECT_EQ(Inputs(*out), (std::vector<std::string>{"layer/add", "^gate"}));

  const tf::NodeDef* near = FindNode(def, "near_m");
  ASSERT_NE(near, nullptr);
  ASSERT_EQ(near->attr().count("_class"), 1u);
  EXPECT_EQ(near->attr().at("_class").list().s(0), "loc:@layer/m");

  const tf::NodeDef* cat = FindNode(def, "cat");
  ASSERT_NE(cat, nullptr);
  EXPECT_EQ(Inputs(*cat), (std::vector<std::string>{"split:1", "split", "split:1"}));
  EXPECT_EQ(cat->attr().at("N").i(), 3);
  EXPECT_EQ(cat->attr().at("axes").list().i_size(), 3);

  const tf::NodeDef* init = FindNode(def, "init");
  ASSERT_NE(init, nullptr);
  EXPECT_EQ(Inputs(*init), (std::vector<std::string>{"^V/Assign"}));
  const tf::NodeDef* read = FindNode(def, "V/read");
  ASSERT_NE(read, nullptr);
  EXPECT_EQ(read->attr().at("_class").list().s(0), "loc:@V");
}

TEST(GraphDefExportTest, BytesAreDeterministic) {
  Graph g1(GraphDefTestRegistry());
  Graph g2(GraphDefTestRegistry());
  BuildRichGraph(g1);
  BuildRichGraph(g2);
  const std::string a = ExportBytes(g1);
  EXPECT_FALSE(a.empty());
  EXPECT_EQ(a, ExportBytes(g1));
  EXPECT_EQ(a, ExportBytes(g2));
  EXPECT_EQ(ExportText(g1), ExportText(g2));
}

TEST(GraphDefExportTest, EmptyGraph) {
  Graph g(GraphDefTestRegistry());
  tf::GraphDef def;
  TG_ASSERT_OK(ExportGraphDef(g, &def));
  EXPECT_EQ(def.node_size(), 0);
  EXPECT_EQ(def.versions().producer(), kGraphDefProducer);
  Graph g2(GraphDefTestRegistry());
  TG_EXPECT_OK(ImportGraphDef(def, ImportOptions(), &g2, nullptr));
  EXPECT_EQ(g2.num_operations(), 0);
}

TEST(GraphDefRoundTripTest, ExportImportExportGivesIdenticalBytes) {
  Graph g(GraphDefTestRegistry());
  BuildRichGraph(g);
  const std::string bytes = ExportBytes(g);

  tf::GraphDef def;
  TG_ASSERT_OK(ParseGraphDefBytes(bytes.data(), bytes.size(), &def));
  Graph g2(GraphDefTestRegistry());
  TG_ASSERT_OK(ImportGraphDef(def, NoPrefix(), &g2, nullptr));
  EXPECT_EQ(OpNames(g2), OpNames(g));
  EXPECT_EQ(ExportBytes(g2), bytes);
  EXPECT_EQ(ExportText(g2), ExportText(g));

  // The imported graph is a real graph: dtypes, shapes, devices and edges came through.
  Operation* add = g2.FindOperation("layer/add");
  ASSERT_NE(add, nullptr);
  EXPECT_EQ(add->device(), "/device:GPU:1");
  EXPECT_EQ(add->output_shape(0), PartialShape({-1, 2}));
  Operation* v = g2.FindOperation("V");
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->output_type(0), DT_FLOAT_REF);
  EXPECT_EQ(g2.FindOperation("init")->control_inputs().size(), 1u);
  EXPECT_EQ(g2.FindOperation("V/Assign")->control_outputs().size(), 1u);
  EXPECT_EQ(g2.FindOperation("split")->consumers(1).size(), 2u);
  ASSERT_NE(g2.FindOperation("layer/w")->constant_value(), nullptr);
  EXPECT_TRUE(g2.FindOperation("layer/w")->constant_value()->Equals(FloatMatrix(3, 2, 0.5f)));

  // Text goes round too.
  tf::GraphDef from_text = ParseText(ExportText(g));
  Graph g3(GraphDefTestRegistry());
  TG_ASSERT_OK(ImportGraphDef(from_text, NoPrefix(), &g3, nullptr));
  EXPECT_EQ(ExportBytes(g3), bytes);
}

TEST(GraphDefRoundTripTest, RoundTripWithTheGlobalRegistry) {
  Graph g;
  Operation* x = MustAdd(g, PlaceholderSpec(DT_FLOAT, PartialShape({2, 2}), "x"));
  Operation* y = MustAdd(g, testing::BinarySpec("Mul", x->output(0), x->output(0), "y"));
  NodeSpec pwd;
  pwd.type = "PlaceholderWithDefault";
  pwd.name = "pwd";
  pwd.inputs = {{{y->output(0)}, false}};
  pwd.attrs["shape"] = AttrOfShape(PartialShape({-1, 2}));
  MustAdd(g, std::move(pwd));
  const std::string bytes = ExportBytes(g);
  tf::GraphDef def;
  TG_ASSERT_OK(ParseGraphDefBytes(bytes.data(), bytes.size(), &def));
  Graph g2;
  TG_ASSERT_OK(ImportGraphDef(def, NoPrefix(), &g2, nullptr));
  EXPECT_EQ(ExportBytes(g2), bytes);
}

TEST(GraphDefImportTest, ForwardReferencesAreImportedInTopologicalOrder) {
  Graph g(GraphDefTestRegistry());
  BuildRichGraph(g);
  tf::GraphDef def;
  TG_ASSERT_OK(ExportGraphDef(g, &def));
  std::reverse(def.mutable_node()->begin(), def.mutable_node()->end());

  Graph g2(GraphDefTestRegistry());
  TG_ASSERT_OK(ImportGraphDef(def, NoPrefix(), &g2, nullptr));
  ASSERT_EQ(g2.num_operations(), g.num_operations());
  for (const auto& op : g2.operations()) {
    for (const Output& in : op->inputs()) EXPECT_LT(in.op->id(), op->id()) << op->name();
    for (Operation* c : op->control_inputs()) EXPECT_LT(c->id(), op->id()) << op->name();
  }
  std::vector<std::string> a = OpNames(g), b = OpNames(g2);
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  EXPECT_EQ(a, b);
}

TEST(GraphDefImportTest, LongChainInReverseOrder) {
  // Deep graphs must not recurse: 20000 nodes, each feeding the next, listed last first.
  constexpr int kNodes = 20000;
  tf::GraphDef def;
  for (int i = kNodes - 1; i >= 0; --i) {
    tf::NodeDef* n = def.add_node();
    n->set_name(StrCat("n", i));
    if (i == 0) {
      n->set_op("Placeholder");
      (*n->mutable_attr())["dtype"] = AttrOfType(DT_FLOAT);
    } else {
      n->set_op("Identity");
      n->add_input(StrCat("n", i - 1));
      (*n->mutable_attr())["T"] = AttrOfType(DT_FLOAT);
    }
  }
  Graph g(GraphDefTestRegistry());
  TG_ASSERT_OK(ImportGraphDef(def, NoPrefix(), &g, nullptr));
  ASSERT_EQ(g.num_operations(), kNodes);
  EXPECT_EQ(g.operation(0)->name(), "n0");
  EXPECT_EQ(g.operation(kNodes - 1)->name(), "n" + std::to_string(kNodes - 1));

  // Close the chain into a cycle: found without recursion, nothing added.
  tf::NodeDef* first = def.mutable_node(kNodes - 1);  // "n0", the Placeholder
  ASSERT_EQ(first->name(), "n0");
  first->set_op("Identity");
  first->mutable_attr()->clear();
  (*first->mutable_attr())["T"] = AttrOfType(DT_FLOAT);
  first->add_input("n" + std::to_string(kNodes - 1));
  Graph g2(GraphDefTestRegistry());
  Status s = ImportGraphDef(def, NoPrefix(), &g2, nullptr);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_NE(s.message().find("cycle"), std::string::npos) << s.ToString().substr(0, 300);
  EXPECT_LT(s.message().size(), 1000u);
  EXPECT_EQ(g2.num_operations(), 0);
}

TEST(GraphDefImportTest, PrefixRenamesNodesInputsAndColocation) {
  Graph src(GraphDefTestRegistry());
  BuildRichGraph(src);
  tf::GraphDef def;
  TG_ASSERT_OK(ExportGraphDef(src, &def));

  Graph g(GraphDefTestRegistry());
  testing::Const(g, 1.0f, "existing");
  TG_ASSERT_OK(ImportGraphDef(def, ImportOptions(), &g, nullptr));
  EXPECT_EQ(g.num_operations(), 1 + src.num_operations());
  Operation* m = g.FindOperation("import/layer/m");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->input(0).op->name(), "import/x");
  Operation* read = g.FindOperation("import/V/read");
  ASSERT_NE(read, nullptr);
  EXPECT_EQ(read->ColocationGroups(), (std::vector<std::string>{"loc:@import/V"}));
  EXPECT_EQ(g.FindOperation("import/init")->control_inputs()[0]->name(), "import/V/Assign");

  // The prefix is a used name scope now: the next import goes to "import_1", and a name
  // scope opened later does not reuse it either.
  TG_ASSERT_OK(ImportGraphDef(def, ImportOptions(), &g, nullptr));
  EXPECT_NE(g.FindOperation("import_1/layer/m"), nullptr);
  EXPECT_EQ(g.PushNameScope("import").value(), "import_2");
  ASSERT_TRUE(g.PopNameScope().ok());

  // A prefix ending in '/' is taken as is.
  ImportOptions exact;
  exact.prefix = "fixed/";
  TG_ASSERT_OK(ImportGraphDef(def, exact, &g, nullptr));
  EXPECT_NE(g.FindOperation("fixed/layer/m"), nullptr);
  auto again = ImportGraphDef(def, exact, &g, nullptr);
  EXPECT_EQ(again.code(), Code::kAlreadyExists) << again.ToString();

  // A custom prefix, under the current name scope, like TF's import_graph_def(name=...).
  ASSERT_TRUE(g.PushNameScope("outer").ok());
  ImportOptions custom;
  custom.prefix = "net";
  TG_ASSERT_OK(ImportGraphDef(def, custom, &g, nullptr));
  ASSERT_TRUE(g.PopNameScope().ok());
  EXPECT_NE(g.FindOperation("outer/net/V/read"), nullptr);
  EXPECT_EQ(g.FindOperation("outer/net/V/read")->ColocationGroups(),
            (std::vector<std::string>{"loc:@outer/net/V"}));
}

TEST(GraphDefImportTest, ImportIntoTheSameGraphTwiceAndExportAgain) {
  Graph g(GraphDefTestRegistry());
  BuildRichGraph(g);
  tf::GraphDef def;
  TG_ASSERT_OK(ExportGraphDef(g, &def));
  const int before = g.num_operations();
  TG_ASSERT_OK(ImportGraphDef(def, ImportOptions(), &g, nullptr));
  EXPECT_EQ(g.num_operations(), 2 * before);
  // The whole thing still round-trips.
  const std::string bytes = ExportBytes(g);
  tf::GraphDef def2;
  TG_ASSERT_OK(ParseGraphDefBytes(bytes.data(), bytes.size(), &def2));
  Graph g2(GraphDefTestRegistry());
  TG_ASSERT_OK(ImportGraphDef(def2, NoPrefix(), &g2, nullptr));
  EXPECT_EQ(ExportBytes(g2), bytes);
}

constexpr char kSmallGraph[] = R"pb(
  node {
    name: "x"
    op: "Placeholder"
    attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "shape" value { shape { dim { size: -1 } dim { size: 3 } } } }
  }
  node {
    name: "w"
    op: "Const"
    attr { key: "dtype" value { type: DT_FLOAT } }
    attr {
      key: "value"
      value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 3 } dim { size: 2 } } float_val: 1 } }
    }
  }
  node { name: "y" op: "MatMul" input: "x" input: "w" attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "z" op: "Identity" input: "y" input: "^w" attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "go" op: "NoOp" }
)pb";

TEST(GraphDefImportTest, InputMapReplacesTensorsAndReportsMissingKeys) {
  Graph g(GraphDefTestRegistry());
  Operation* feed = MustAdd(g, PlaceholderSpec(DT_FLOAT, PartialShape({5, 3}), "feed"));
  Operation* other = MustAdd(g, testing::NoOpSpec("other"));

  ImportOptions opts;
  opts.input_map[{"x", 0}] = feed->output(0);
  opts.input_map[{"w", -1}] = Output{other, 0};     // "^w" becomes "^other"
  opts.input_map[{"go", 0}] = feed->output(0);      // "go" has no output 0: missing
  opts.input_map[{"nowhere", 0}] = feed->output(0);  // no such node: missing
  opts.input_map[{"y", 0}] = feed->output(0);       // z reads feed instead of y
  opts.return_tensors = {{"y", 0}, {"z", 0}, {"x", 0}};
  opts.return_operations = {"go", "w"};
  ImportResults results;
  TG_ASSERT_OK(ImportGraphDef(ParseText(kSmallGraph), opts, &g, &results));

  Operation* y = g.FindOperation("import/y");
  ASSERT_NE(y, nullptr);
  EXPECT_EQ(y->input(0), feed->output(0));
  EXPECT_EQ(y->output_shape(0), PartialShape({5, 2}));
  EXPECT_EQ(feed->consumers(0).size(), 2u);  // import/y and import/z
  Operation* z = g.FindOperation("import/z");
  EXPECT_EQ(z->input(0), feed->output(0));
  ASSERT_EQ(z->control_inputs().size(), 1u);
  EXPECT_EQ(z->control_inputs()[0], other);
  // The mapped-away source node is still imported (TF semantics).
  EXPECT_NE(g.FindOperation("import/x"), nullptr);

  ASSERT_EQ(results.return_tensors.size(), 3u);
  EXPECT_EQ(results.return_tensors[0], feed->output(0));  // a mapped key returns the mapping
  EXPECT_EQ(results.return_tensors[1], z->output(0));
  EXPECT_EQ(results.return_tensors[2], feed->output(0));
  EXPECT_EQ(testing::Names(results.return_operations),
            (std::vector<std::string>{"import/go", "import/w"}));
  EXPECT_EQ(results.missing_unused_input_map_keys,
            (std::vector<std::pair<std::string, int>>{{"go", 0}, {"nowhere", 0}}));
}

TEST(GraphDefImportTest, InputMapToAConstantKeepsShapeInference) {
  // The dry run stands in for a mapped Const with its value, so everything shape functions
  // can see is the same as in the destination.
  Graph g(GraphDefTestRegistry());
  Operation* c = MustAdd(g, ConstSpec(FloatMatrix(4, 3), "c"));
  ImportOptions opts;
  opts.input_map[{"x", 0}] = c->output(0);
  TG_ASSERT_OK(ImportGraphDef(ParseText(kSmallGraph), opts, &g, nullptr));
  EXPECT_EQ(g.FindOperation("import/z")->output_shape(0), PartialShape({4, 2}));
}

TEST(GraphDefImportTest, InputMapToAVariableRef) {
  constexpr char kAssign[] = R"pb(
    node {
      name: "v"
      op: "VariableV2"
      attr { key: "dtype" value { type: DT_FLOAT } }
      attr { key: "shape" value { shape { dim { size: 2 } } } }
    }
    node {
      name: "one"
      op: "Const"
      attr { key: "dtype" value { type: DT_FLOAT } }
      attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } } float_val: 1 } } }
    }
    node {
      name: "inc"
      op: "AssignAdd"
      input: "v"
      input: "one"
      attr { key: "T" value { type: DT_FLOAT } }
    }
  )pb";
  Graph g(GraphDefTestRegistry());
  VariableOptions vopts;
  vopts.name = "counter";
  Variable* var =
      g.variables().CreateVariableFromTensor(Tensor::Allocate(DT_FLOAT, {2}).value(), vopts).value();
  ImportOptions opts;
  opts.input_map[{"v", 0}] = var->ref();
  TG_ASSERT_OK(ImportGraphDef(ParseText(kAssign), opts, &g, nullptr));
  Operation* inc = g.FindOperation("import/inc");
  ASSERT_NE(inc, nullptr);
  EXPECT_EQ(inc->input(0), var->ref());
  EXPECT_EQ(inc->output_type(0), DT_FLOAT_REF);

  // The dry run's stand-in for the ref has the variable's exact shape: a mismatch fails
  // before anything is added.
  VariableOptions wide;
  wide.name = "wide";
  Variable* wide_var = g.variables().CreateVariableFromTensor(FloatMatrix(1, 2), wide).value();
  const int before = g.num_operations();
  ImportOptions bad;
  bad.input_map[{"v", 0}] = wide_var->ref();
  Status s = ImportGraphDef(ParseText(kAssign), bad, &g, nullptr);
  EXPECT_EQ(s.code(), Code::kInvalidArgument) << s.ToString();
  EXPECT_NE(s.message().find("inc"), std::string::npos) << s.ToString();
  EXPECT_EQ(g.num_operations(), before);
}

TEST(GraphDefImportTest, ControlDependenciesGoToNodesWithoutImportedInputs) {
  Graph g(GraphDefTestRegistry());
  Operation* dep = MustAdd(g, testing::NoOpSpec("dep"));
  Operation* feed = MustAdd(g, PlaceholderSpec(DT_FLOAT, PartialShape({1, 3}), "feed"));
  ImportOptions opts;
  opts.control_dependencies = {dep};
  opts.input_map[{"x", 0}] = feed->output(0);
  TG_ASSERT_OK(ImportGraphDef(ParseText(kSmallGraph), opts, &g, nullptr));
  auto controls = [&](const std::string& name) {
    return testing::Names(g.FindOperation("import/" + name)->control_inputs());
  };
  using V = std::vector<std::string>;
  EXPECT_EQ(controls("x"), V{"dep"});
  EXPECT_EQ(controls("w"), V{"dep"});
  EXPECT_EQ(controls("go"), V{"dep"});
  EXPECT_EQ(controls("y"), V{});      // inherits through w
  EXPECT_EQ(controls("z"), V{"import/w"});
}

TEST(GraphDefImportTest, ColocationWithAnUnknownNodeIsKeptWhenNotValidated) {
  constexpr char kText[] = R"pb(
    node {
      name: "a"
      op: "NoOp"
      attr { key: "_class" value { list { s: "loc:@elsewhere" s: "loc:@b" } } }
    }
    node { name: "b" op: "NoOp" }
  )pb";
  Graph g(GraphDefTestRegistry());
  ImportOptions opts;
  opts.validate_colocation_constraints = false;
  TG_ASSERT_OK(ImportGraphDef(ParseText(kText), opts, &g, nullptr));
  EXPECT_EQ(g.FindOperation("import/a")->ColocationGroups(),
            (std::vector<std::string>{"loc:@elsewhere", "loc:@import/b"}));
}

TEST(GraphDefImportTest, MissingAttrsWithDefaultsGetTheDefault) {
  constexpr char kText[] = R"pb(
    node { name: "p" op: "Placeholder" attr { key: "dtype" value { type: DT_INT32 } } }
  )pb";
  Graph g(GraphDefTestRegistry());
  TG_ASSERT_OK(ImportGraphDef(ParseText(kText), NoPrefix(), &g, nullptr));
  Operation* p = g.FindOperation("p");
  ASSERT_NE(p, nullptr);
  ASSERT_NE(p->FindAttr("shape"), nullptr);
  EXPECT_TRUE(p->FindAttr("shape")->shape().unknown_rank());
  EXPECT_FALSE(p->output_shape(0).known_rank());
  tf::GraphDef def;
  TG_ASSERT_OK(ExportGraphDef(g, &def));
  EXPECT_EQ(def.node(0).attr().count("shape"), 1u);  // written back with the default
}

TEST(GraphDefImportTest, NamesImportedExactlyAreReservedForLaterBuilding) {
  Graph g(GraphDefTestRegistry());
  TG_ASSERT_OK(ImportGraphDef(ParseText(kSmallGraph), NoPrefix(), &g, nullptr));
  EXPECT_EQ(testing::Const(g, 1.0f, "w")->name(), "w_1");
}

}  // namespace
}  // namespace tgraph

namespace tgraph {
namespace {

// TF 1.x rejects attrs it does not know; attrs newer than TF 1.x are left out of an export
// while they hold their default, and come back as defaults on import.
TEST(GraphDefExportTest, AttrsNewerThanTf1AreOmittedAtTheirDefault) {
  Graph g;
  Tensor m = Tensor::Allocate(DT_FLOAT, {2, 2}).value();
  NodeSpec c;
  c.type = "Const";
  c.name = "m";
  c.attrs["value"] = AttrOfTensor(m);
  c.attrs["dtype"] = AttrOfType(DT_FLOAT);
  Operation* mop = g.AddOperation(c).value();
  NodeSpec mm;
  mm.type = "MatMul";
  mm.name = "mm";
  mm.inputs = {{{mop->output(0)}, false}, {{mop->output(0)}, false}};
  Operation* op = g.AddOperation(mm).value();
  ASSERT_NE(op->FindAttr("grad_a"), nullptr);  // present in the core, with its default

  tf::GraphDef def;
  ASSERT_TRUE(ExportGraphDef(g, &def).ok());
  const tf::NodeDef& node = def.node(1);
  EXPECT_EQ(node.attr().count("grad_a"), 0u);
  EXPECT_EQ(node.attr().count("grad_b"), 0u);
  EXPECT_EQ(node.attr().count("transpose_a"), 1u);

  // A graph written by TF 2.12+ (grad_a explicitly set) still imports.
  (*def.mutable_node(1)->mutable_attr())["grad_a"] = AttrOfBool(true);
  Graph h;
  ImportOptions options;
  options.prefix = "";
  ImportResults results;
  ASSERT_TRUE(ImportGraphDef(def, options, &h, &results).ok());
  tf::GraphDef again;
  ASSERT_TRUE(ExportGraphDef(h, &again).ok());
  EXPECT_EQ(again.node(1).attr().count("grad_a"), 1u);  // not at its default: kept
}

}  // namespace
}  // namespace tgraph
