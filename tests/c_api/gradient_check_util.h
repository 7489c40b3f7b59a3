// Finite-difference gradient checks through the public C API: the symbolic gradient of
// sum(y * w) (w fixed and random, so every output element matters) from TG_AddGradients is
// compared, element by element, with central differences of the same graph in float64.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "c_api_test_util.h"
#include "session_test_util.h"
#include "tgraph/c_api.h"

namespace tgtest {

struct GradInputSpec {
  std::vector<int64_t> dims;
  std::vector<double> values = {};  // empty: seeded random in [-1, 1]
  bool differentiate = true;
};

// One argument of a node: a tensor, or a list (AddN, Pack, ConcatV2's values).
struct OpArg {
  std::vector<TG_Output> tensors;
  bool is_list = false;
  OpArg(TG_Output t) : tensors{t} {}  // NOLINT: implicit, for AddOp(g, "Mul", {a, b})
  static OpArg List(std::vector<TG_Output> ts) {
    OpArg a(TG_Output{nullptr, 0});
    a.tensors = std::move(ts);
    a.is_list = true;
    return a;
  }
};

using AttrSetter = std::function<void(TG_OperationDescription*)>;

// Adds a node and returns its output `index` (oper NULL, with a test failure, on error).
inline TG_Output AddOp(TG_Graph* g, const char* type, const std::vector<OpArg>& args,
                       const AttrSetter& attrs = {}, int index = 0, const char* name = nullptr) {
  static int counter = 0;
  std::string unique = name ? name : std::string(type) + "_gc" + std::to_string(counter++);
  TG_OperationDescription* d = TG_NewOperation(g, type, unique.c_str());
  for (const OpArg& a : args) {
    if (a.is_list) {
      TG_AddInputList(d, a.tensors.data(), static_cast<int>(a.tensors.size()));
    } else {
      TG_AddInput(d, a.tensors[0]);
    }
  }
  if (attrs) attrs(d);
  TG_Status* s = TG_NewStatus();
  TG_Operation* op = TG_FinishOperation(d, s);
  EXPECT_TRUE(IsOk(s)) << "adding a " << type << " node";
  TG_DeleteStatus(s);
  return TG_Output{op, op ? index : 0};
}

template <typename T>
TG_Output ConstOf(TG_Graph* g, TG_DataType dtype, const std::vector<T>& values,
                  std::vector<int64_t> dims) {
  TensorPtr t = MakeTensor<T>(dtype, std::move(dims), values);
  return AddOp(g, "Const", {}, [&](TG_OperationDescription* d) {
    TG_Status* s = TG_NewStatus();
    TG_SetAttrTensor(d, "value", t.get(), s);
    EXPECT_TRUE(IsOk(s));
    TG_DeleteStatus(s);
    TG_SetAttrType(d, "dtype", dtype);
  });
}
// dims empty: a vector of the values' length (use {} values with dims {} for... a scalar
// needs ScalarInt32 below).
inline TG_Output ConstInt32(TG_Graph* g, const std::vector<int32_t>& values,
                            std::vector<int64_t> dims = {-1}) {
  if (dims == std::vector<int64_t>{-1}) dims = {static_cast<int64_t>(values.size())};
  return ConstOf<int32_t>(g, TG_INT32, values, std::move(dims));
}
inline TG_Output ConstInt64(TG_Graph* g, const std::vector<int64_t>& values,
                            std::vector<int64_t> dims = {-1}) {
  if (dims == std::vector<int64_t>{-1}) dims = {static_cast<int64_t>(values.size())};
  return ConstOf<int64_t>(g, TG_INT64, values, std::move(dims));
}
inline TG_Output ConstDouble(TG_Graph* g, const std::vector<double>& values,
                             std::vector<int64_t> dims = {-1}) {
  if (dims == std::vector<int64_t>{-1}) dims = {static_cast<int64_t>(values.size())};
  return ConstOf<double>(g, TG_DOUBLE, values, std::move(dims));
}
inline TG_Output ScalarInt32(TG_Graph* g, int32_t v) { return ConstInt32(g, {v}, {}); }

inline std::vector<double> Doubles(const TG_Tensor* t) {
  if (t == nullptr || TG_TensorType(t) != TG_DOUBLE) return {};
  const auto* p = static_cast<const double*>(TG_TensorData(t));
  return std::vector<double>(p, p + TG_TensorElementCount(t));
}

namespace gradient_check_internal {

struct Deleters {
  TG_Graph* g = nullptr;
  TG_Status* s = nullptr;
  TG_Session* session = nullptr;
  ~Deleters() {
    if (session) TG_DeleteSession(session, nullptr);
    if (g) TG_DeleteGraph(g);
    if (s) TG_DeleteStatus(s);
  }
};

// Runs `fetches` with the inputs fed; empty on failure (with a test failure).
inline std::vector<std::vector<double>> RunDoubles(TG_Session* session,
                                                   const std::vector<TG_Output>& placeholders,
                                                   const std::vector<GradInputSpec>& specs,
                                                   const std::vector<std::vector<double>>& values,
                                                   const std::vector<TG_Output>& fetches,
                                                   TG_Status* s) {
  std::vector<TensorPtr> feeds;
  std::vector<TG_Tensor*> feed_ptrs;
  for (size_t i = 0; i < placeholders.size(); ++i) {
    feeds.push_back(MakeTensor<double>(TG_DOUBLE, specs[i].dims, values[i]));
    feed_ptrs.push_back(feeds.back().get());
  }
  std::vector<TG_Tensor*> outs(fetches.size(), nullptr);
  TG_SessionRun(session, nullptr, placeholders.data(), feed_ptrs.data(),
                static_cast<int>(placeholders.size()), fetches.data(), outs.data(),
                static_cast<int>(fetches.size()), nullptr, 0, nullptr, s);
  std::vector<std::vector<double>> result;
  EXPECT_TRUE(IsOk(s)) << "running the graph";
  for (TG_Tensor* t : outs) {
    if (t == nullptr) continue;
    result.push_back(Doubles(t));
    TG_DeleteTensor(t);
  }
  if (!IsOk(s)) result.clear();
  return result;
}

}  // namespace gradient_check_internal

using GradBuildFn = std::function<TG_Output(TG_Graph* g, const std::vector<TG_Output>& inputs)>;

// Checks TG_AddGradients of build(...) against central differences for every input with
// differentiate = true. Pick inputs away from kinks (Relu at 0, ties in Max/MaxPool).
inline void CheckGradients(const std::vector<GradInputSpec>& specs, const GradBuildFn& build,
                           double tolerance = 1e-6) {
  using gradient_check_internal::RunDoubles;
  LoadCpuPlugin();
  gradient_check_internal::Deleters owned;
  owned.g = TG_NewGraph();
  owned.s = TG_NewStatus();
  TG_Graph* g = owned.g;
  TG_Status* s = owned.s;

  std::mt19937 rng(1234);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  std::vector<TG_Output> placeholders;
  std::vector<std::vector<double>> values;
  for (size_t i = 0; i < specs.size(); ++i) {
    const GradInputSpec& spec = specs[i];
    int64_t n = 1;
    for (int64_t d : spec.dims) n *= d;
    std::vector<double> v = spec.values;
    if (v.empty()) {
      for (int64_t k = 0; k < n; ++k) v.push_back(uniform(rng));
    }
    ASSERT_EQ(static_cast<int64_t>(v.size()), n) << "input " << i << ": values do not fit dims";
    values.push_back(v);
    std::string name = "x";  // appended: GCC 12 -O3 warns falsely on "x" + to_string(i)
    name += std::to_string(i);
    placeholders.push_back(AddOp(g, "Placeholder", {}, [&](TG_OperationDescription* d) {
      TG_SetAttrType(d, "dtype", TG_DOUBLE);
      TG_SetAttrShape(d, "shape", spec.dims.data(), static_cast<int>(spec.dims.size()));
    }, 0, name.c_str()));
  }
  TG_Output y = build(g, placeholders);
  ASSERT_NE(y.oper, nullptr) << "build() returned no tensor";
  ASSERT_EQ(TG_OperationOutputType(y), TG_DOUBLE) << "the checked tensor must be float64";

  // y's shape, from one run, gives the weights' shape.
  owned.session = TG_NewSession(g, nullptr, s);
  ASSERT_TRUE(IsOk(s));
  std::vector<std::vector<double>> y_value =
      RunDoubles(owned.session, placeholders, specs, values, {y}, s);
  ASSERT_EQ(y_value.size(), 1u);
  std::vector<double> w;
  for (size_t k = 0; k < y_value[0].size(); ++k) w.push_back(uniform(rng));
  TG_Output weights = ConstDouble(g, w);
  TG_Output flat = AddOp(g, "Reshape", {y, ConstInt32(g, {-1})});
  TG_Output loss = AddOp(g, "Sum", {AddOp(g, "Mul", {flat, weights}), ConstInt32(g, {0})});

  std::vector<TG_Output> xs;
  std::vector<size_t> x_spec;
  for (size_t i = 0; i < specs.size(); ++i) {
    if (!specs[i].differentiate) continue;
    xs.push_back(placeholders[i]);
    x_spec.push_back(i);
  }
  std::vector<TG_Output> dy(xs.size());
  TG_AddGradients(g, &loss, 1, xs.data(), static_cast<int>(xs.size()), nullptr, s, dy.data());
  ASSERT_TRUE(IsOk(s)) << "TG_AddGradients";

  // A new session sees the gradient nodes (sessions plan from the graph as it is now).
  TG_DeleteSession(owned.session, nullptr);
  owned.session = TG_NewSession(g, nullptr, s);
  ASSERT_TRUE(IsOk(s));
  std::vector<TG_Output> fetches;
  for (const TG_Output& d : dy) {
    if (d.oper != nullptr) fetches.push_back(d);
  }
  std::vector<std::vector<double>> symbolic =
      RunDoubles(owned.session, placeholders, specs, values, fetches, s);
  ASSERT_EQ(symbolic.size(), fetches.size());

  const double h = 1e-5;
  size_t next_fetch = 0;
  for (size_t xi = 0; xi < xs.size(); ++xi) {
    const size_t i = x_spec[xi];
    std::vector<double> analytic(values[i].size(), 0.0);
    if (dy[xi].oper != nullptr) analytic = symbolic[next_fetch++];
    ASSERT_EQ(analytic.size(), values[i].size()) << "gradient of input " << i << " has the wrong size";
    int reported = 0;
    for (size_t k = 0; k < values[i].size(); ++k) {
      std::vector<std::vector<double>> shifted = values;
      shifted[i][k] = values[i][k] + h;
      auto plus = RunDoubles(owned.session, placeholders, specs, shifted, {loss}, s);
      shifted[i][k] = values[i][k] - h;
      auto minus = RunDoubles(owned.session, placeholders, specs, shifted, {loss}, s);
      ASSERT_TRUE(plus.size() == 1 && minus.size() == 1);
      const double numeric = (plus[0][0] - minus[0][0]) / (2 * h);
      if (std::abs(numeric - analytic[k]) > tolerance * (1.0 + std::abs(numeric)) && reported < 5) {
        ++reported;
        ADD_FAILURE() << "d/d" << TG_OperationName(placeholders[i].oper) << "[" << k
                      << "]: symbolic " << analytic[k] << ", numeric " << numeric
                      << (dy[xi].oper == nullptr ? " (TG_AddGradients gave no gradient)" : "");
      }
    }
  }
}

}  // namespace tgtest

namespace tgraph_test = tgtest;
