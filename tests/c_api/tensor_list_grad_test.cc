// Gradients of the TensorList ops (core/autodiff/tensor_list_grad.cc) against central
// differences in float64: straight-line lists (SetItem / GetItem / Stack / FromTensor,
// Gather / Scatter / ScatterV2 / ScatterIntoExistingList, PushBack / PopBack), and the pattern of a lowered Keras RNN — a
// list of the input's rows read in a loop (a loop invariant) and a list loop variable the
// body writes, stacked after the loop.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gradient_check_util.h"

namespace tgtest {
namespace {

using Inputs = std::vector<TG_Output>;

AttrSetter ElementDouble() {
  return [](TG_OperationDescription* d) { TG_SetAttrType(d, "element_dtype", TG_DOUBLE); };
}

TG_Output FromTensor(TG_Graph* g, TG_Output t, int64_t row) {
  return AddOp(g, "TensorListFromTensor", {t, ConstInt32(g, {static_cast<int32_t>(row)})}, ElementDouble());
}
TG_Output GetItem(TG_Graph* g, TG_Output list, TG_Output index, int64_t row) {
  return AddOp(g, "TensorListGetItem", {list, index, ConstInt32(g, {static_cast<int32_t>(row)})}, ElementDouble());
}
TG_Output SetItem(TG_Graph* g, TG_Output list, TG_Output index, TG_Output item) {
  return AddOp(g, "TensorListSetItem", {list, index, item}, ElementDouble());
}
TG_Output Reserve(TG_Graph* g, int64_t row, int32_t n) {
  return AddOp(g, "TensorListReserve", {ConstInt32(g, {static_cast<int32_t>(row)}), ScalarInt32(g, n)},
               ElementDouble());
}
TG_Output Stack(TG_Graph* g, TG_Output list, int64_t row) {
  return AddOp(g, "TensorListStack", {list, ConstInt32(g, {static_cast<int32_t>(row)})}, ElementDouble());
}

// Rows of x read back from a list (one twice, one not at all), and a list written element by
// element (one element left unset) and stacked.
TEST(TensorListGradTest, StraightLine) {
  CheckGradients({{{4, 3}}, {{3}}}, [](TG_Graph* g, const Inputs& in) {
    TG_Output rows = FromTensor(g, in[0], 3);
    TG_Output a = GetItem(g, rows, ScalarInt32(g, 1), 3);
    TG_Output b = GetItem(g, rows, ScalarInt32(g, 3), 3);
    TG_Output c = GetItem(g, rows, ScalarInt32(g, 1), 3);
    TG_Output list = Reserve(g, 3, 3);
    list = SetItem(g, list, ScalarInt32(g, 0), AddOp(g, "Tanh", {AddOp(g, "Mul", {a, in[1]})}));
    list = SetItem(g, list, ScalarInt32(g, 2), AddOp(g, "Mul", {b, c}));
    // Overwritten: the first value's gradient is zero.
    list = SetItem(g, list, ScalarInt32(g, 0), AddOp(g, "Mul", {a, b}));
    return Stack(g, list, 3);
  });
}

TG_Output Gather(TG_Graph* g, TG_Output list, std::vector<int32_t> indices, int64_t row) {
  return AddOp(g, "TensorListGather", {list, ConstInt32(g, indices), ConstInt32(g, {static_cast<int32_t>(row)})},
               ElementDouble());
}

// Gather (a row twice: TensorFlow's gradient keeps one), ScatterV2 into a longer list,
// Scatter, ScatterIntoExistingList over set and unset elements, read back by Stack.
TEST(TensorListGradTest, GatherAndScatter) {
  CheckGradients({{{4, 3}}, {{2, 3}}}, [](TG_Graph* g, const Inputs& in) {
    TG_Output rows = FromTensor(g, in[0], 3);
    TG_Output picked = Gather(g, rows, {3, 0}, 3);  // [2, 3]
    TG_Output scattered = AddOp(g, "TensorListScatterV2",
                                {AddOp(g, "Tanh", {picked}), ConstInt32(g, {4, 1}), ConstInt32(g, {3}),
                                 ScalarInt32(g, 6)}, ElementDouble());
    scattered = AddOp(g, "TensorListScatterIntoExistingList",
                      {scattered, AddOp(g, "Mul", {in[1], picked}), ConstInt32(g, {1, 2})}, ElementDouble());
    TG_Output v1 = AddOp(g, "TensorListScatter", {in[1], ConstInt32(g, {0, 2}), ConstInt32(g, {3})},
                         ElementDouble());
    TG_Output both = AddOp(g, "Mul", {Gather(g, v1, {2, 0}, 3), Gather(g, scattered, {4, 2}, 3)});
    return AddOp(g, "ConcatV2", {OpArg::List({Stack(g, scattered, 3), both}), ScalarInt32(g, 0)});
  });
}

// PushBack onto a list and PopBack off it: the popped element, and the shorter list stacked.
TEST(TensorListGradTest, PushBackAndPopBack) {
  CheckGradients({{{2, 3}}, {{3}}, {{3}}}, [](TG_Graph* g, const Inputs& in) {
    TG_Output list = FromTensor(g, in[0], 3);
    list = AddOp(g, "TensorListPushBack", {list, AddOp(g, "Tanh", {in[1]})}, ElementDouble());
    list = AddOp(g, "TensorListPushBack", {list, AddOp(g, "Mul", {in[1], in[2]})}, ElementDouble());
    TG_Output popped = AddOp(g, "TensorListPopBack", {list, ConstInt32(g, {3})}, ElementDouble(), 1);
    TG_Output shorter = TG_Output{popped.oper, 0};
    TG_Output rest = Stack(g, shorter, 3);  // [3, 3]: x's rows and tanh(v)
    TG_Output last = AddOp(g, "Reshape", {AddOp(g, "Square", {popped}), ConstInt32(g, {1, 3})});
    // A PopBack whose list output is not used: its gradient list starts empty.
    TG_Output only = AddOp(g, "TensorListPopBack", {shorter, ConstInt32(g, {3})}, ElementDouble(), 1);
    TG_Output only2 = AddOp(g, "Reshape", {AddOp(g, "Exp", {only}), ConstInt32(g, {1, 3})});
    return AddOp(g, "ConcatV2", {OpArg::List({rest, last, only2}), ScalarInt32(g, 0)});
  });
}

// for t in range(4): h = tanh(h * w + x[t]); out[t] = h — then stack(out). The output list is
// a loop variable whose gradient goes round the backward loop. The input list is either a
// loop invariant (its gradient accumulates over the iterations with AddN of lists) or, as
// TF2's lowering passes it, a loop variable the body hands on unchanged (the GetItem's
// gradient reads each iteration's list back off a stack).
TG_Output Recurrent(TG_Graph* g, const Inputs& in, int parallel, bool xs_as_loop_var) {
  TG_Status* s = TG_NewStatus();
  TG_Output xs = FromTensor(g, in[0], 3);
  std::vector<TG_Output> init = {ScalarInt32(g, 0), in[2], Reserve(g, 3, 4)};
  if (xs_as_loop_var) init.push_back(xs);
  TG_While* w = TG_NewWhile(g, init.data(), static_cast<int>(init.size()), nullptr, parallel, s);
  EXPECT_TRUE(IsOk(s)) << TG_Message(s);
  std::vector<TG_Output> out(init.size());
  if (w != nullptr) {
    TG_WhileSetCond(w, AddOp(g, "Less", {TG_WhileCondInput(w, 0), ScalarInt32(g, 4)}), s);
    EXPECT_TRUE(IsOk(s)) << TG_Message(s);
    TG_Output i = TG_WhileBodyInput(w, 0), h = TG_WhileBodyInput(w, 1), list = TG_WhileBodyInput(w, 2);
    TG_Output rows = xs_as_loop_var ? TG_WhileBodyInput(w, 3) : xs;
    TG_Output xt = GetItem(g, rows, i, 3);
    TG_Output next_h = AddOp(g, "Tanh", {AddOp(g, "AddV2", {AddOp(g, "Mul", {h, in[1]}), xt})});
    std::vector<TG_Output> next = {AddOp(g, "AddV2", {i, ScalarInt32(g, 1)}), next_h, SetItem(g, list, i, next_h)};
    if (xs_as_loop_var) next.push_back(AddOp(g, "Identity", {rows}));
    TG_FinishWhile(w, next.data(), out.data(), s);
    EXPECT_TRUE(IsOk(s)) << TG_Message(s);
  }
  TG_DeleteStatus(s);
  if (out[2].oper == nullptr) return TG_Output{nullptr, 0};
  // The stacked outputs and the last state both reach the loss.
  TG_Output stacked = Stack(g, out[2], 3);
  return AddOp(g, "AddV2", {stacked, AddOp(g, "Mul", {out[1], out[1]})});
}

TEST(TensorListGradTest, RecurrentLoopReadingAnInvariantList) {
  for (int parallel : {1, 10}) {
    SCOPED_TRACE(parallel);
    CheckGradients({{{4, 3}}, {{3}}, {{3}}},
                   [parallel](TG_Graph* g, const Inputs& in) { return Recurrent(g, in, parallel, false); });
  }
}

TEST(TensorListGradTest, RecurrentLoopReadingAListLoopVariable) {
  for (int parallel : {1, 10}) {
    SCOPED_TRACE(parallel);
    CheckGradients({{{4, 3}}, {{3}}, {{3}}},
                   [parallel](TG_Graph* g, const Inputs& in) { return Recurrent(g, in, parallel, true); });
  }
}

}  // namespace
}  // namespace tgtest
