// Gradients through while loops whose bodies hold conds or nested loops
// (core/autodiff/while_grad.cc), built with TG_NewWhile / TG_NewCond and checked against
// central differences in float64: the predicate picks different branches in different
// iterations, so the backward loop must pop each branch's forward values only in the
// iterations that took it; a nested loop's backward loop runs once per outer iteration.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gradient_check_util.h"

namespace tgtest {
namespace {

using Inputs = std::vector<TG_Output>;

// A float64 scalar constant.
TG_Output Scalar(TG_Graph* g, double v) { return ConstDouble(g, {v}, {}); }

// Builds while (i < iterations) { i += 1; v = body(i, v) } from (0, v0) and returns v's Exit.
// `body` gets the graph, the counter and v inside the loop.
using Body = std::function<TG_Output(TG_Graph*, TG_Output i, TG_Output v)>;
TG_Output Loop(TG_Graph* g, TG_Output v0, double iterations, const Body& body, int parallel_iterations = 10) {
  TG_Status* s = TG_NewStatus();
  TG_Output init[2] = {Scalar(g, 0), v0};
  TG_While* w = TG_NewWhile(g, init, 2, nullptr, parallel_iterations, s);
  EXPECT_TRUE(IsOk(s)) << TG_Message(s);
  TG_Output out[2] = {TG_Output{nullptr, 0}, TG_Output{nullptr, 0}};
  if (w != nullptr) {
    TG_WhileSetCond(w, AddOp(g, "Less", {TG_WhileCondInput(w, 0), Scalar(g, iterations)}), s);
    EXPECT_TRUE(IsOk(s)) << TG_Message(s);
    TG_Output i = TG_WhileBodyInput(w, 0);
    TG_Output next[2] = {AddOp(g, "AddV2", {i, Scalar(g, 1)}), body(g, i, TG_WhileBodyInput(w, 1))};
    TG_FinishWhile(w, next, out, s);
    EXPECT_TRUE(IsOk(s)) << TG_Message(s);
  }
  TG_DeleteStatus(s);
  return out[1];
}

// cond(pred, then(), otherwise()) for one tensor.
TG_Output Cond(TG_Graph* g, TG_Output pred, const std::function<TG_Output()>& then,
               const std::function<TG_Output()>& otherwise) {
  TG_Status* s = TG_NewStatus();
  TG_Cond* c = TG_NewCond(g, pred, nullptr, s);
  EXPECT_TRUE(IsOk(s)) << TG_Message(s);
  TG_Output merged{nullptr, 0};
  if (c != nullptr) {
    TG_Output t = then();
    TG_CondElse(c, &t, 1, s);
    EXPECT_TRUE(IsOk(s)) << TG_Message(s);
    TG_Output f = otherwise();
    TG_FinishCond(c, &f, 1, &merged, s);
    EXPECT_TRUE(IsOk(s)) << TG_Message(s);
  }
  TG_DeleteStatus(s);
  return merged;
}

// The branch depends on the iteration: the first two take tanh(v) * x, the last two
// v * v + x (x, from outside, is a loop invariant used in both branches).
TEST(WhileGradTest, CondOnTheCounterInsideALoop) {
  CheckGradients({{{3}}, {{3}}}, [](TG_Graph* g, const Inputs& in) {
    TG_Output x = in[1];
    return Loop(g, in[0], 4, [x](TG_Graph* g, TG_Output i, TG_Output v) {
      return Cond(
          g, AddOp(g, "Less", {i, Scalar(g, 1.5)}),
          [&] { return AddOp(g, "Mul", {AddOp(g, "Tanh", {v}), x}); },
          [&] { return AddOp(g, "AddV2", {AddOp(g, "Mul", {v, v}), x}); });
    });
  });
}

// The predicate depends on the loop variable's value, so which iterations take which branch
// depends on the inputs (fixed here, away from the switching points); the false branch
// does not use v at all (its gradient there is zeros).
TEST(WhileGradTest, CondOnTheLoopVariableWithABranchIgnoringIt) {
  for (int parallel : {1, 10}) {
    SCOPED_TRACE(parallel);
    CheckGradients({{{2}, {0.3, -0.2}}, {{2}, {0.9, 1.1}}}, [parallel](TG_Graph* g, const Inputs& in) {
      TG_Output x = in[1];
      return Loop(
          g, in[0], 5,
          [x](TG_Graph* g, TG_Output, TG_Output v) {
            TG_Output sum = AddOp(g, "Sum", {v, ConstInt32(g, {0})});
            return Cond(
                g, AddOp(g, "Less", {sum, Scalar(g, 1.0)}),
                [&] { return AddOp(g, "AddV2", {AddOp(g, "Mul", {v, x}), Scalar(g, 0.5)}); },
                [&] { return AddOp(g, "Mul", {x, Scalar(g, 0.25)}); });
          },
          parallel);
    });
  }
}

// A cond inside a branch of a cond inside the loop body: the inner branch's values are
// pushed only when both predicates picked it, and popped under both popped predicates.
TEST(WhileGradTest, NestedCondsInsideALoop) {
  CheckGradients({{{3}}, {{3}}}, [](TG_Graph* g, const Inputs& in) {
    TG_Output x = in[1];
    return Loop(g, in[0], 6, [x](TG_Graph* g, TG_Output i, TG_Output v) {
      TG_Output even = AddOp(g, "Less", {AddOp(g, "FloorMod", {i, Scalar(g, 2)}), Scalar(g, 0.5)});
      return Cond(
          g, even,
          [&] {
            return Cond(
                g, AddOp(g, "Less", {i, Scalar(g, 3)}),
                [&] { return AddOp(g, "Mul", {AddOp(g, "Sigmoid", {v}), x}); },
                [&] { return AddOp(g, "Sub", {v, AddOp(g, "Mul", {x, v})}); });
          },
          [&] { return AddOp(g, "Tanh", {AddOp(g, "AddV2", {v, x})}); });
    });
  });
}

// A value used as a loop's initial value, as its invariant and outside it: its gradients
// from the backward loop's Exits and from outside are summed outside the backward frame.
TEST(WhileGradTest, InputUsedInAndAroundALoop) {
  CheckGradients({{{3}}}, [](TG_Graph* g, const Inputs& in) {
    TG_Output x = in[0];
    TG_Output looped = Loop(g, x, 3, [x](TG_Graph* g, TG_Output, TG_Output v) {
      return AddOp(g, "Tanh", {AddOp(g, "Mul", {v, x})});
    });
    return AddOp(g, "AddV2", {looped, AddOp(g, "Mul", {x, x})});
  });
}

// A loop nested in a loop's body: the inner loop's backward loop runs inside the outer
// one's, once per outer iteration, with the inner count of the matching forward iteration;
// the inner loop uses the outer loop variable (an invariant of the inner frame) and an
// outside value.
TEST(WhileGradTest, NestedLoops) {
  for (int parallel : {1, 10}) {
    SCOPED_TRACE(parallel);
    CheckGradients({{{3}}, {{3}}}, [parallel](TG_Graph* g, const Inputs& in) {
      TG_Output x = in[1];
      return Loop(
          g, in[0], 3,
          [x, parallel](TG_Graph* g, TG_Output i, TG_Output v) {
            TG_Output inner = Loop(
                g, v, 2,
                [x, v, i](TG_Graph* g, TG_Output, TG_Output u) {
                  TG_Output scaled = AddOp(g, "Mul", {u, AddOp(g, "AddV2", {x, i})});
                  return AddOp(g, "Tanh", {AddOp(g, "AddV2", {scaled, v})});
                },
                parallel);
            return AddOp(g, "Mul", {inner, v});
          },
          parallel);
    });
  }
}

// Three levels, with a cond in the innermost body.
TEST(WhileGradTest, ThreeNestedLoopsWithACond) {
  CheckGradients({{{2}}, {{2}}}, [](TG_Graph* g, const Inputs& in) {
    TG_Output x = in[1];
    return Loop(g, in[0], 2, [x](TG_Graph* g, TG_Output, TG_Output a) {
      return Loop(g, a, 2, [x](TG_Graph* g, TG_Output j, TG_Output b) {
        return Loop(g, b, 2, [x, j](TG_Graph* g, TG_Output k, TG_Output c) {
          return Cond(
              g, AddOp(g, "Less", {k, j}),
              [&] { return AddOp(g, "Sigmoid", {AddOp(g, "Mul", {c, x})}); },
              [&] { return AddOp(g, "AddV2", {AddOp(g, "Mul", {c, c}), x}); });
        });
      });
    });
  });
}

}  // namespace
}  // namespace tgtest
