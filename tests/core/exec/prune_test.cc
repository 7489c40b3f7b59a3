// PruneAndOrder with TF1 control flow: a loop's NextIteration -> Merge back edge is reached
// but left out of the order; every other cycle is an error naming its nodes.
#include "core/exec/prune.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "core/graph/attr_value_util.h"
#include "core/graph/graph.h"

namespace tgraph {
namespace {

class PruneTest : public ::testing::Test {
 protected:
  Operation* Op(const std::string& type, std::vector<Output> inputs, AttrMap attrs = {},
                const std::string& name = "", bool list = false) {
    NodeSpec spec;
    spec.type = type;
    spec.name = name;
    if (list) {
      spec.inputs.push_back({inputs, true});
    } else {
      for (const Output& o : inputs) spec.inputs.push_back({{o}, false});
    }
    spec.attrs = std::move(attrs);
    auto op = g_.AddOperation(std::move(spec));
    EXPECT_TRUE(op.ok()) << op.status().ToString();
    return op.ok() ? op.value() : nullptr;
  }
  Output Scalar(float v, const std::string& name) {
    Tensor t = Tensor::Allocate(DT_FLOAT, {}).value();
    *t.flat<float>() = v;
    return Op("Const", {}, {{"value", AttrOfTensor(t)}, {"dtype", AttrOfType(DT_FLOAT)}}, name)->output(0);
  }
  static size_t Position(const PrunedGraph& p, const Operation* op) {
    return static_cast<size_t>(std::find(p.ordered.begin(), p.ordered.end(), op) - p.ordered.begin());
  }

  Graph g_;
};

TEST_F(PruneTest, LoopBackEdgeIsNotACycle) {
  Output x = Scalar(0, "x");
  Output limit = Scalar(3, "limit");
  Operation* enter = Op("Enter", {x}, {{"frame_name", AttrOfString("w")}}, "w/Enter");
  Operation* merge = Op("Merge", {enter->output(0), enter->output(0)}, {}, "w/Merge", true);
  Operation* limit_in = Op("Enter", {limit}, {{"frame_name", AttrOfString("w")}, {"is_constant", AttrOfBool(true)}},
                           "w/Less/Enter");
  Operation* less = Op("Less", {merge->output(0), limit_in->output(0)}, {}, "w/Less");
  Operation* cond = Op("LoopCond", {less->output(0)}, {}, "w/LoopCond");
  Operation* sw = Op("Switch", {merge->output(0), cond->output(0)}, {}, "w/Switch");
  Operation* body = Op("Identity", {sw->output(1)}, {}, "w/Identity");
  Operation* next = Op("NextIteration", {body->output(0)}, {}, "w/NextIteration");
  ASSERT_TRUE(g_.UpdateInput(merge, 1, next->output(0)).ok());
  Operation* exit = Op("Exit", {sw->output(0)}, {}, "w/Exit");

  auto pruned = PruneAndOrder(g_, PruneRequest{{}, {exit->output(0)}, {}});
  ASSERT_TRUE(pruned.ok()) << pruned.status().ToString();
  EXPECT_TRUE(pruned->control_flow);
  // The body is needed through the back edge; the Merge comes before its NextIteration.
  EXPECT_LT(Position(*pruned, next), pruned->ordered.size());
  EXPECT_LT(Position(*pruned, merge), Position(*pruned, next));
  EXPECT_LT(Position(*pruned, enter), Position(*pruned, merge));
  EXPECT_LT(Position(*pruned, sw), Position(*pruned, exit));
}

TEST_F(PruneTest, RealCycleIsRejectedNamingItsNodes) {
  Output x = Scalar(1, "x");
  Operation* a = Op("Identity", {x}, {}, "a");
  Operation* b = Op("Identity", {a->output(0)}, {}, "b");
  Operation* c = Op("Identity", {b->output(0)}, {}, "c");
  ASSERT_TRUE(g_.UpdateInput(a, 0, c->output(0)).ok());
  auto pruned = PruneAndOrder(g_, PruneRequest{{}, {c->output(0)}, {}});
  ASSERT_FALSE(pruned.ok());
  EXPECT_EQ(pruned.status().code(), Code::kInvalidArgument);
  const std::string& m = pruned.status().message();
  for (const char* name : {"'a'", "'b'", "'c'"}) EXPECT_NE(m.find(name), std::string::npos) << m;
  EXPECT_NE(m.find("cycle"), std::string::npos) << m;
}

TEST_F(PruneTest, MergeCycleWithoutNextIterationIsRejected) {
  // A Merge fed back through an Identity (not a NextIteration) is a real cycle.
  Output x = Scalar(1, "x");
  Operation* merge = Op("Merge", {x, x}, {}, "m", true);
  Operation* back = Op("Identity", {merge->output(0)}, {}, "back");
  ASSERT_TRUE(g_.UpdateInput(merge, 1, back->output(0)).ok());
  auto pruned = PruneAndOrder(g_, PruneRequest{{}, {back->output(0)}, {}});
  ASSERT_FALSE(pruned.ok());
  EXPECT_NE(pruned.status().message().find("'back'"), std::string::npos) << pruned.status().ToString();
}

}  // namespace
}  // namespace tgraph
