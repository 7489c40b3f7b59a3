// Control-dependency, device and colocation stacks, finalize, shapes and edges.
#include <gtest/gtest.h>

#include "tests/core/graph/graph_test_util.h"

namespace tgraph {
namespace {

using testing::BinarySpec;
using testing::Const;
using testing::MustAdd;
using testing::Names;
using testing::NoOpSpec;
using testing::UnarySpec;

TEST(ControlDependenciesTest, NestedFramesUnionAndApplyOnlyInside) {
  Graph g;
  Operation* a = Const(g, 1, "a");
  Operation* b = Const(g, 2, "b");
  Operation* before = Const(g, 3, "before");
  ASSERT_TRUE(g.PushControlDependencies({a}).ok());
  Operation* c = Const(g, 4, "c");
  ASSERT_TRUE(g.PushControlDependencies({b}).ok());
  Operation* d = Const(g, 5, "d");
  ASSERT_TRUE(g.PopControlDependencies().ok());
  ASSERT_TRUE(g.PopControlDependencies().ok());
  Operation* after = Const(g, 6, "after");
  EXPECT_EQ(Names(c->control_inputs()), (std::vector<std::string>{"a"}));
  EXPECT_EQ(Names(d->control_inputs()), (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(before->control_inputs().empty());
  EXPECT_TRUE(after->control_inputs().empty());
  EXPECT_EQ(Names(a->control_outputs()), (std::vector<std::string>{"c", "d"}));
}

TEST(ControlDependenciesTest, NoneClearsTheOuterFrames) {
  Graph g;
  Operation* a = Const(g, 1, "a");
  Operation* b = Const(g, 1, "b");
  ASSERT_TRUE(g.PushControlDependencies({a}).ok());
  ASSERT_TRUE(g.PushClearControlDependencies().ok());
  Operation* cleared = Const(g, 1, "cleared");
  ASSERT_TRUE(g.PushControlDependencies({b}).ok());
  Operation* only_b = Const(g, 1, "only_b");
  ASSERT_TRUE(g.PopControlDependencies().ok());
  ASSERT_TRUE(g.PopControlDependencies().ok());
  Operation* back = Const(g, 1, "back");
  ASSERT_TRUE(g.PopControlDependencies().ok());
  EXPECT_TRUE(cleared->control_inputs().empty());
  EXPECT_EQ(Names(only_b->control_inputs()), (std::vector<std::string>{"b"}));
  EXPECT_EQ(Names(back->control_inputs()), (std::vector<std::string>{"a"}));
}

TEST(ControlDependenciesTest, SkipsDependenciesImpliedByDataInputs) {
  Graph g;
  Operation* a = Const(g, 1, "a");
  ASSERT_TRUE(g.PushControlDependencies({a}).ok());
  Operation* inside = Const(g, 1, "inside");
  // Its input was made inside the frame, so it already runs after `a`.
  Operation* uses_inside = MustAdd(g, UnarySpec("Identity", inside->output(0), "uses_inside"));
  // `a` as a data input is not also a control input.
  Operation* uses_a = MustAdd(g, UnarySpec("Identity", a->output(0), "uses_a"));
  ASSERT_TRUE(g.PopControlDependencies().ok());
  EXPECT_EQ(Names(inside->control_inputs()), (std::vector<std::string>{"a"}));
  EXPECT_TRUE(uses_inside->control_inputs().empty());
  EXPECT_TRUE(uses_a->control_inputs().empty());
}

TEST(ControlDependenciesTest, UnbalancedPopAndForeignOpsAreErrors) {
  Graph g, other;
  EXPECT_EQ(g.PopControlDependencies().code(), Code::kFailedPrecondition);
  Operation* foreign = Const(other, 1, "x");
  EXPECT_EQ(g.PushControlDependencies({foreign}).code(), Code::kInvalidArgument);
  EXPECT_EQ(g.PushControlDependencies({nullptr}).code(), Code::kInvalidArgument);
}

TEST(DeviceStackTest, StringsAreCanonicalisedAndMerged) {
  Graph g;
  ASSERT_TRUE(g.PushDevice("/job:worker").ok());
  ASSERT_TRUE(g.PushDevice("/gpu:1").ok());
  EXPECT_EQ(Const(g, 1)->device(), "/job:worker/device:GPU:1");
  ASSERT_TRUE(g.PushDevice("/cpu:0").ok());
  EXPECT_EQ(Const(g, 1)->device(), "/job:worker/device:CPU:0");
  ASSERT_TRUE(g.PopDevice().ok());
  ASSERT_TRUE(g.PopDevice().ok());
  EXPECT_EQ(Const(g, 1)->device(), "/job:worker");
  ASSERT_TRUE(g.PopDevice().ok());
  EXPECT_EQ(Const(g, 1)->device(), "");
  EXPECT_EQ(g.PushDevice("/gpu:one").code(), Code::kInvalidArgument);
  EXPECT_EQ(g.PopDevice().code(), Code::kFailedPrecondition);
}

TEST(DeviceStackTest, FunctionsAreCalledPerOpAndNoneClears) {
  Graph g;
  int calls = 0;
  ASSERT_TRUE(g.PushDevice("/job:ps").ok());
  ASSERT_TRUE(g.PushDeviceFunction([&](const Operation& op) {
                  ++calls;
                  return op.type() == "Const" ? std::string("/device:GPU:0") : std::string();
                }).ok());
  Operation* c = Const(g, 1);
  Operation* n = MustAdd(g, NoOpSpec());
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(c->device(), "/job:ps/device:GPU:0");
  EXPECT_EQ(n->device(), "/job:ps");
  ASSERT_TRUE(g.PushClearDevice().ok());
  EXPECT_EQ(Const(g, 1)->device(), "");
  ASSERT_TRUE(g.PushDevice("/cpu:0").ok());
  EXPECT_EQ(Const(g, 1)->device(), "/device:CPU:0");
  EXPECT_EQ(calls, 2);
}

TEST(DeviceStackTest, ExplicitDeviceWinsOverTheStack) {
  Graph g;
  ASSERT_TRUE(g.PushDevice("/job:w/device:CPU:0").ok());
  NodeSpec spec = testing::ConstSpec(testing::ScalarFloat(1));
  spec.device = "/gpu:2";
  EXPECT_EQ(MustAdd(g, spec)->device(), "/job:w/device:GPU:2");
}

TEST(DeviceStackTest, BadFunctionResultIsAnErrorNamingTheNode) {
  Graph g;
  ASSERT_TRUE(g.PushDeviceFunction([](const Operation&) { return std::string("/bogus:1"); }).ok());
  auto op = g.AddOperation(testing::ConstSpec(testing::ScalarFloat(1), "victim"));
  ASSERT_FALSE(op.ok());
  EXPECT_NE(op.status().message().find("victim"), std::string::npos);
  EXPECT_EQ(g.num_operations(), 0);
}

TEST(ColocationTest, ColocateWithSetsClassAndDeviceAndHidesDeviceStack) {
  Graph g;
  ASSERT_TRUE(g.PushDevice("/gpu:0").ok());
  Operation* anchor = Const(g, 1, "anchor");
  ASSERT_TRUE(g.PopDevice().ok());
  ASSERT_TRUE(g.PushDevice("/cpu:0").ok());
  ASSERT_TRUE(g.PushColocateWith(anchor).ok());
  Operation* c = Const(g, 1, "c");
  ASSERT_TRUE(g.PopColocateWith().ok());
  ASSERT_TRUE(g.PopDevice().ok());
  EXPECT_EQ(c->device(), "/device:GPU:0");
  ASSERT_NE(c->FindAttr("_class"), nullptr);
  EXPECT_EQ(c->ColocationGroups(), (std::vector<std::string>{"loc:@anchor"}));
  EXPECT_EQ(anchor->ColocationGroups(), (std::vector<std::string>{"loc:@anchor"}));
  EXPECT_EQ(anchor->FindAttr("_class"), nullptr);
}

TEST(ColocationTest, NestedColocationUnionsAndIgnoreExistingResets) {
  Graph g;
  Operation* a = Const(g, 1, "a");
  Operation* b = Const(g, 1, "b");
  ASSERT_TRUE(g.PushColocateWith(a).ok());
  ASSERT_TRUE(g.PushColocateWith(b).ok());
  Operation* both = Const(g, 1, "both");
  ASSERT_TRUE(g.PushColocateWith(b, /*ignore_existing=*/true).ok());
  Operation* only_b = Const(g, 1, "only_b");
  EXPECT_EQ(both->ColocationGroups(), (std::vector<std::string>{"loc:@a", "loc:@b"}));
  EXPECT_EQ(only_b->ColocationGroups(), (std::vector<std::string>{"loc:@b"}));
}

TEST(FinalizeTest, FinalizedGraphRefusesNewOps) {
  Graph g;
  Const(g, 1, "a");
  g.Finalize();
  EXPECT_TRUE(g.finalized());
  auto op = g.AddOperation(testing::ConstSpec(testing::ScalarFloat(1), "b"));
  ASSERT_FALSE(op.ok());
  EXPECT_EQ(op.status().code(), Code::kFailedPrecondition);
  EXPECT_NE(op.status().message().find("finalized"), std::string::npos);
  EXPECT_EQ(g.AddToCollection("k", CollectionItem::OfInt64(1)).code(), Code::kFailedPrecondition);
  EXPECT_EQ(g.num_operations(), 1);
}

TEST(ShapesTest, StaticShapesAreInferredAndMismatchesFailAtConstruction) {
  Graph g;
  Operation* a = MustAdd(g, testing::ConstSpec(testing::FloatMatrix(2, 3), "a"));
  Operation* b = MustAdd(g, testing::ConstSpec(testing::FloatMatrix(3, 4), "b"));
  Operation* m = MustAdd(g, BinarySpec("MatMul", a->output(0), b->output(0), "m"));
  EXPECT_EQ(m->output_shape(0), PartialShape({2, 4}));
  EXPECT_EQ(m->output_type(0), DT_FLOAT);

  Operation* c = MustAdd(g, testing::ConstSpec(testing::FloatMatrix(4, 2), "c"));
  auto bad = g.AddOperation(BinarySpec("MatMul", a->output(0), c->output(0), "bad"));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), Code::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("bad"), std::string::npos) << bad.status().message();
  EXPECT_NE(bad.status().message().find("MatMul"), std::string::npos) << bad.status().message();
  EXPECT_EQ(g.FindOperation("bad"), nullptr);
  // The failed attempt did not reserve the name.
  EXPECT_EQ(MustAdd(g, BinarySpec("MatMul", a->output(0), b->output(0), "bad"))->name(), "bad");
}

TEST(ShapesTest, SetOutputShapeMergesOrRejects) {
  Graph g;
  NodeSpec ph;
  ph.type = "Placeholder";
  ph.name = "x";
  ph.attrs["dtype"] = AttrOfType(DT_FLOAT);
  ph.attrs["shape"] = AttrOfShape(PartialShape({-1, 3}));
  Operation* x = MustAdd(g, ph);
  EXPECT_EQ(x->output_shape(0), PartialShape({-1, 3}));
  ASSERT_TRUE(g.SetOutputShape(x->output(0), PartialShape({5, -1})).ok());
  EXPECT_EQ(x->output_shape(0), PartialShape({5, 3}));
  Status s = g.SetOutputShape(x->output(0), PartialShape({5, 4}));
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_NE(s.message().find("x:0"), std::string::npos);
}

TEST(EdgesTest, InputsConsumersAndDtypeChecks) {
  Graph g;
  Operation* a = Const(g, 1, "a");
  Operation* b = Const(g, 2, "b");
  Operation* add = MustAdd(g, BinarySpec("Add", a->output(0), b->output(0), "add"));
  ASSERT_EQ(add->num_inputs(), 2);
  EXPECT_EQ(add->input(0), a->output(0));
  ASSERT_EQ(a->consumers(0).size(), 1u);
  EXPECT_EQ(a->consumers(0)[0], (Input{add, 0}));
  EXPECT_EQ(b->consumers(0)[0], (Input{add, 1}));

  NodeSpec int_const = testing::ConstSpec(Tensor::Allocate(DT_INT32, {}).value(), "i");
  Operation* i = MustAdd(g, int_const);
  auto mixed = g.AddOperation(BinarySpec("Add", a->output(0), i->output(0), "mixed"));
  ASSERT_FALSE(mixed.ok());
  EXPECT_EQ(mixed.status().code(), Code::kInvalidArgument);
  EXPECT_NE(mixed.status().message().find("mixed"), std::string::npos) << mixed.status().message();
  EXPECT_TRUE(i->consumers(0).empty());

  auto unknown = g.AddOperation(UnarySpec("NoSuchOp", a->output(0), "u"));
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("NoSuchOp"), std::string::npos);

  Graph other;
  auto foreign = g.AddOperation(UnarySpec("Identity", Const(other, 1)->output(0), "f"));
  EXPECT_EQ(foreign.status().code(), Code::kInvalidArgument);
}

}  // namespace
}  // namespace tgraph

namespace tgraph {
namespace {

TEST(FinalizeTest, FinalizedGraphRefusesContextPushes) {
  Graph g;
  Operation* a = testing::Const(g, 1, "a");
  g.Finalize();
  EXPECT_EQ(g.PushNameScope("s").status().code(), Code::kFailedPrecondition);
  EXPECT_EQ(g.PushControlDependencies({a}).code(), Code::kFailedPrecondition);
  EXPECT_EQ(g.PushDevice("/cpu:0").code(), Code::kFailedPrecondition);
  EXPECT_EQ(g.PushColocateWith(a).code(), Code::kFailedPrecondition);
}

TEST(DeviceStackTest, DeviceFunctionsMayNotBuild) {
  Graph g;
  Status inner;
  ASSERT_TRUE(g.PushDeviceFunction([&](const Operation&) {
                  inner = g.AddOperation(testing::NoOpSpec("sneaky")).status();
                  return std::string();
                }).ok());
  testing::Const(g, 1, "c");
  EXPECT_EQ(inner.code(), Code::kFailedPrecondition);
  EXPECT_EQ(g.num_operations(), 1);
}

TEST(ColocationTest, ExplicitColocationMustBeInThisGraph) {
  Graph g, other;
  NodeSpec spec = testing::ConstSpec(testing::ScalarFloat(1), "c");
  spec.colocate_with = {nullptr};
  EXPECT_EQ(g.AddOperation(spec).status().code(), Code::kInvalidArgument);
  spec.colocate_with = {testing::Const(other, 1, "x")};
  EXPECT_EQ(g.AddOperation(spec).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(g.num_operations(), 0);
}

}  // namespace
}  // namespace tgraph
