// Gradients through while loops (core/autodiff/while_grad.cc), run in sessions and checked
// against the closed forms: a loop invariant's gradient sums over the iterations, a loop
// variable's goes round the backward loop, and forward values come back off stacks in order.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "../exec/session_test_util.h"
#include "core/autodiff/add_gradients.h"
#include "core/graph/control_flow_builder.h"

namespace tgraph {
namespace {

class WhileGradTest : public SessionTest {
 protected:
  Output Vec(std::vector<float> v) {
    Tensor t = Tensor::Allocate(DT_FLOAT, {static_cast<int64_t>(v.size())}).value();
    for (size_t i = 0; i < v.size(); ++i) t.flat<float>()[i] = v[i];
    return Const(t);
  }
  Output IntConst(int32_t v) {
    Tensor t = Tensor::Allocate(DT_INT32, {}).value();
    *t.flat<int32_t>() = v;
    return Const(t);
  }
  // for (i = 0; i < n; ++i) p = body(p, x); returns the Exit of p.
  template <typename Body>
  Output Loop(Output p0, int32_t n, Body body, int parallel_iterations = 10) {
    auto w = WhileLoopBuilder::Start(g_, {IntConst(0), p0}, "while", parallel_iterations);
    EXPECT_TRUE(w.ok()) << w.status().ToString();
    Output i = (*w)->cond_inputs()[0];
    EXPECT_TRUE((*w)->SetCondition(Op("Less", {i, IntConst(n)})->output(0)).ok());
    Output bi = (*w)->body_inputs()[0];
    Output bp = (*w)->body_inputs()[1];
    Output next_i = Op("AddV2", {bi, IntConst(1)})->output(0);
    auto exits = (*w)->Finish({next_i, body(bp)});
    EXPECT_TRUE(exits.ok()) << exits.status().ToString();
    return (*exits)[1];
  }
  std::vector<float> Run(Output t) {
    auto s = NewSession();
    std::vector<Tensor> out;
    Status st = s->Run({}, {t}, {}, &out);
    EXPECT_TRUE(st.ok()) << st.ToString();
    if (!st.ok()) return {};
    return std::vector<float>(out[0].flat<float>(), out[0].flat<float>() + out[0].NumElements());
  }
};

// p = p * x four times: y = sum(p0 * x^4); dy/dx = 4 p0 x^3 (x is a loop invariant), dy/dp0 = x^4.
TEST_F(WhileGradTest, PowerByLoop) {
  Output x = Vec({0.5f, 1.5f, -2.0f});
  Output p0 = Vec({1.0f, 2.0f, 3.0f});
  Output p = Loop(p0, 4, [&](Output bp) { return Op("Mul", {bp, x})->output(0); });
  Output y = Op("Sum", {p, Op("Const", {}, {{"value", AttrOfTensor(Tensor::Allocate(DT_INT32, {1}).value())},
                                          {"dtype", AttrOfType(DT_INT32)}})->output(0)})->output(0);
  auto grads = AddGradients(g_, {y}, {x, p0}, {});
  ASSERT_TRUE(grads.ok()) << grads.status().ToString();
  const std::vector<float> xs = {0.5f, 1.5f, -2.0f}, p0s = {1, 2, 3};
  std::vector<float> dx = Run((*grads)[0].values), dp0 = Run((*grads)[1].values);
  ASSERT_EQ(dx.size(), 3u);
  ASSERT_EQ(dp0.size(), 3u);
  for (int k = 0; k < 3; ++k) {
    EXPECT_NEAR(dx[k], 4 * p0s[k] * std::pow(xs[k], 3.0f), 1e-4) << k;
    EXPECT_NEAR(dp0[k], std::pow(xs[k], 4.0f), 1e-4) << k;
  }
}

// v = v * v three times: y = sum(v^8), dy/dv0 = 8 v0^7: each backward iteration needs the
// forward value of its own iteration (popped in reverse order), one iteration at a time or
// ten in flight.
TEST_F(WhileGradTest, SquaringNeedsForwardValuesInOrder) {
  for (int parallel : {1, 10}) {
    Output v0 = Vec({0.9f, -1.1f});
    Output v = Loop(v0, 3, [&](Output bv) { return Op("Mul", {bv, bv})->output(0); }, parallel);
    auto grads = AddGradients(g_, {v}, {v0}, {});
    ASSERT_TRUE(grads.ok()) << grads.status().ToString();
    std::vector<float> d = Run((*grads)[0].values);
    ASSERT_EQ(d.size(), 2u);
    EXPECT_NEAR(d[0], 8 * std::pow(0.9f, 7.0f), 1e-4);
    EXPECT_NEAR(d[1], 8 * std::pow(-1.1f, 7.0f), 1e-4);
    // Runs again to the same numbers (fresh stacks each run).
    EXPECT_EQ(Run((*grads)[0].values), d);
  }
}

}  // namespace
}  // namespace tgraph

namespace tgraph {
namespace {

// A dynamic_rnn-like loop: inputs unstacked into a TensorArray, h = tanh(h * w + x[t]) for
// each t, every h written to an output TensorArray, y = sum(stack(outputs) * c). The
// gradients with respect to w (a loop invariant) and x (through the input array's reads)
// agree with finite differences of the forward loop.
class RnnGradTest : public WhileGradTest {
 protected:
  Output Ints(std::vector<int32_t> v) {
    Tensor t = Tensor::Allocate(DT_INT32, {static_cast<int64_t>(v.size())}).value();
    for (size_t i = 0; i < v.size(); ++i) t.flat<int32_t>()[i] = v[i];
    return Const(t);
  }
  // y for inputs x (T x 2) and weight w (2).
  Output Build(Output x, Output w, int T) {
    AttrMap f = {{"dtype", AttrOfType(DT_FLOAT)}};
    Operation* in = Op("TensorArrayV3", {IntConst(T)}, f);
    Operation* out = Op("TensorArrayV3", {IntConst(T)}, f);
    std::vector<int32_t> idx(static_cast<size_t>(T));
    for (int t = 0; t < T; ++t) idx[static_cast<size_t>(t)] = t;
    Output in_flow = Op("TensorArrayScatterV3", {in->output(0), Ints(idx), x, in->output(1)},
                        {{"T", AttrOfType(DT_FLOAT)}})->output(0);
    auto w_loop = WhileLoopBuilder::Start(g_, {IntConst(0), Vec({0.1f, -0.2f}), out->output(1)}, "rnn", 10);
    EXPECT_TRUE(w_loop.ok());
    auto& loop = *w_loop;
    EXPECT_TRUE(loop->SetCondition(Op("Less", {loop->cond_inputs()[0], IntConst(T)})->output(0)).ok());
    Output t = loop->body_inputs()[0], h = loop->body_inputs()[1], flow = loop->body_inputs()[2];
    Output xt = Op("TensorArrayReadV3", {in->output(0), t, in_flow}, f)->output(0);
    Output h2 = Op("Tanh", {Op("AddV2", {Op("Mul", {h, w})->output(0), xt})->output(0)})->output(0);
    Output flow2 = Op("TensorArrayWriteV3", {out->output(0), t, h2, flow}, {{"T", AttrOfType(DT_FLOAT)}})->output(0);
    auto exits = loop->Finish({Op("AddV2", {t, IntConst(1)})->output(0), h2, flow2});
    EXPECT_TRUE(exits.ok()) << exits.status().ToString();
    Output stacked = Op("TensorArrayGatherV3", {out->output(0), Ints(idx), (*exits)[2]}, f)->output(0);
    Tensor c = Tensor::Allocate(DT_FLOAT, {T, 2}).value();
    for (int k = 0; k < 2 * T; ++k) c.flat<float>()[k] = 0.3f + 0.1f * static_cast<float>(k);
    return Op("Sum", {Op("Mul", {stacked, Const(c)})->output(0), Ints({0, 1})})->output(0);
  }
};

TEST_F(RnnGradTest, GradientsThroughTensorArraysInALoopMatchFiniteDifferences) {
  constexpr int T = 4;
  std::vector<float> xv = {0.5f, -0.3f, 0.8f, 0.1f, -0.6f, 0.4f, 0.2f, 0.9f};
  std::vector<float> wv = {0.7f, -1.2f};
  auto constant = [&](const std::vector<float>& v, std::vector<int64_t> dims) {
    Tensor t = Tensor::Allocate(DT_FLOAT, std::move(dims)).value();
    for (size_t i = 0; i < v.size(); ++i) t.flat<float>()[i] = v[i];
    return t;
  };
  Output x = Placeholder(PartialShape({T, 2}), "x");
  Output w = Placeholder(PartialShape({2}), "w");
  Output y = Build(x, w, T);
  auto grads = AddGradients(g_, {y}, {x, w}, {});
  ASSERT_TRUE(grads.ok()) << grads.status().ToString();
  auto session = NewSession();
  auto run = [&](const std::vector<float>& xs, const std::vector<float>& ws, std::vector<Output> fetch) {
    std::vector<Tensor> out;
    Status s = session->Run({{x, constant(xs, {T, 2})}, {w, constant(ws, {2})}}, fetch, {}, &out);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return out;
  };
  std::vector<Tensor> got = run(xv, wv, {(*grads)[0].values, (*grads)[1].values});
  ASSERT_EQ(got.size(), 2u);
  const double eps = 1e-3;
  // Central differences, coordinate by coordinate.
  for (size_t k = 0; k < xv.size(); ++k) {
    std::vector<float> hi = xv, lo = xv;
    hi[k] += static_cast<float>(eps);
    lo[k] -= static_cast<float>(eps);
    const double want = (*run(hi, wv, {y})[0].flat<float>() - *run(lo, wv, {y})[0].flat<float>()) / (2 * eps);
    EXPECT_NEAR(got[0].flat<float>()[k], want, 2e-3) << "dx[" << k << "]";
  }
  for (size_t k = 0; k < wv.size(); ++k) {
    std::vector<float> hi = wv, lo = wv;
    hi[k] += static_cast<float>(eps);
    lo[k] -= static_cast<float>(eps);
    const double want = (*run(xv, hi, {y})[0].flat<float>() - *run(xv, lo, {y})[0].flat<float>()) / (2 * eps);
    EXPECT_NEAR(got[1].flat<float>()[k], want, 2e-3) << "dw[" << k << "]";
  }
}

}  // namespace
}  // namespace tgraph
