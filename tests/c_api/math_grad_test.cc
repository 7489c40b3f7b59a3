// Finite-difference checks (float64, through TG_AddGradients) of the math ops' gradients
// (core/autodiff/math_grad*.cc): broadcasting on either side, every transpose combination,
// reductions with keep_dims both ways, negative and run-time axes, and shapes unknown while
// building (which take the in-graph shape computations instead of constants).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "gradient_check_util.h"

namespace tgtest {
namespace {

using Dims = std::vector<int64_t>;

int64_t NumElements(const Dims& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

// Random values with |v| in [lo, hi] and a random sign (or only positive ones).
std::vector<double> Magnitudes(const Dims& dims, double lo, double hi, bool signed_values,
                               unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> mag(lo, hi);
  std::bernoulli_distribution negative(0.5);
  std::vector<double> v;
  for (int64_t i = 0; i < NumElements(dims); ++i) {
    const double m = mag(rng);
    v.push_back(signed_values && negative(rng) ? -m : m);
  }
  return v;
}

// Distinct values (a shuffled ramp in [-1, 1]): no ties within a finite-difference step.
std::vector<double> Distinct(const Dims& dims, unsigned seed, double offset = 0.0) {
  const int64_t n = NumElements(dims);
  std::vector<double> v;
  for (int64_t i = 0; i < n; ++i) v.push_back(offset - 1.0 + 2.0 * (static_cast<double>(i) + 0.5) / n);
  std::mt19937 rng(seed);
  std::shuffle(v.begin(), v.end(), rng);
  return v;
}

GradBuildFn Unary(const char* type) {
  return [type](TG_Graph* g, const std::vector<TG_Output>& in) { return AddOp(g, type, {in[0]}); };
}

GradBuildFn Binary(const char* type) {
  return [type](TG_Graph* g, const std::vector<TG_Output>& in) {
    return AddOp(g, type, {in[0], in[1]});
  };
}

// x with its static shape forgotten (Reshape to its own run-time shape), so gradients take
// their in-graph shape paths.
TG_Output Opaque(TG_Graph* g, TG_Output x) {
  return AddOp(g, "Reshape", {x, AddOp(g, "Identity", {AddOp(g, "Shape", {x})})});
}

// The broadcasting shape pairs every binary op is checked with.
const std::vector<std::pair<Dims, Dims>>& BroadcastCases() {
  static const std::vector<std::pair<Dims, Dims>> cases = {
      {{2, 3}, {2, 3}}, {{2, 3}, {3}}, {{3}, {2, 3}},     {{2, 1, 4}, {3, 1}},
      {{}, {2, 2}},     {{2, 2}, {}},  {{1, 3}, {2, 1}}};
  return cases;
}

void CheckBinary(const char* type, const std::function<std::vector<double>(const Dims&, unsigned)>& x_values,
                 const std::function<std::vector<double>(const Dims&, unsigned)>& y_values) {
  unsigned seed = 1;
  for (const auto& [dx, dy] : BroadcastCases()) {
    SCOPED_TRACE(std::string(type) + " case " + std::to_string(seed));
    CheckGradients({{dx, x_values(dx, seed)}, {dy, y_values(dy, seed + 100)}}, Binary(type));
    ++seed;
  }
  // Shapes unknown while building.
  CheckGradients({{{2, 3}, x_values({2, 3}, 50)}, {{3}, y_values({3}, 51)}},
                 [type](TG_Graph* g, const std::vector<TG_Output>& in) {
                   return AddOp(g, type, {Opaque(g, in[0]), Opaque(g, in[1])});
                 });
}

std::vector<double> AnyValues(const Dims& dims, unsigned seed) {
  return Magnitudes(dims, 0.0, 1.0, true, seed);
}

// ---- binary ----

TEST(MathGradTest, AddAddV2SubMul) {
  for (const char* type : {"Add", "AddV2", "Sub", "Mul"}) CheckBinary(type, AnyValues, AnyValues);
}

TEST(MathGradTest, RealDiv) {
  CheckBinary("RealDiv", AnyValues,
              [](const Dims& d, unsigned s) { return Magnitudes(d, 0.5, 2.0, true, s); });
}

TEST(MathGradTest, MaximumMinimum) {
  // x and y draw from disjoint interleaved grids, so no pair ties.
  for (const char* type : {"Maximum", "Minimum"}) {
    CheckBinary(type, [](const Dims& d, unsigned s) { return Distinct(d, s, 0.0); },
                [](const Dims& d, unsigned s) { return Distinct(d, s, 0.013); });
  }
}

TEST(MathGradTest, Pow) {
  // Positive bases: x^y is smooth in both arguments there.
  CheckBinary("Pow", [](const Dims& d, unsigned s) { return Magnitudes(d, 0.5, 1.5, false, s); },
              [](const Dims& d, unsigned s) { return Magnitudes(d, 0.0, 2.0, true, s); });
  // A negative base with an integer exponent: only x is differentiable (and log x is taken
  // as 0, as TensorFlow does).
  CheckGradients({GradInputSpec{{4}, {-1.5, -0.5, 0.7, 1.2}},
                  GradInputSpec{{}, {3.0}, /*differentiate=*/false}},
                 Binary("Pow"));
}

// ---- unary ----

TEST(MathGradTest, SmoothUnary) {
  for (const char* type : {"Neg", "Square", "Exp", "Expm1", "Tanh", "Sigmoid"}) {
    SCOPED_TRACE(type);
    for (const Dims& dims : std::vector<Dims>{{}, {5}, {2, 3}}) CheckGradients({{dims}}, Unary(type));
  }
}

TEST(MathGradTest, PositiveDomainUnary) {
  for (const char* type : {"Sqrt", "Rsqrt", "Log", "Log1p"}) {
    SCOPED_TRACE(type);
    for (const Dims& dims : std::vector<Dims>{{}, {2, 3}}) {
      CheckGradients({{dims, Magnitudes(dims, 0.3, 2.0, false, 7)}}, Unary(type));
    }
  }
}

TEST(MathGradTest, AwayFromZeroUnary) {
  for (const char* type : {"Abs", "Sign", "Reciprocal"}) {
    SCOPED_TRACE(type);
    const Dims dims{3, 4};
    CheckGradients({{dims, Magnitudes(dims, 0.2, 2.0, true, 8)}}, Unary(type));
  }
}

TEST(MathGradTest, FloorHasNoGradient) {
  // Away from integers the numeric derivative is 0, which "no gradient" stands for.
  const Dims dims{6};
  CheckGradients({{dims, {-1.5, -0.7, -0.2, 0.3, 0.6, 1.4}}}, Unary("Floor"));
  // Next to a differentiable path only that path counts.
  CheckGradients({{dims, {-1.5, -0.7, -0.2, 0.3, 0.6, 1.4}}},
                 [](TG_Graph* g, const std::vector<TG_Output>& in) {
                   return AddOp(g, "Mul", {AddOp(g, "Floor", {in[0]}), AddOp(g, "Exp", {in[0]})});
                 });
}

TEST(MathGradTest, AddN) {
  CheckGradients({{{2, 3}}, {{2, 3}}, {{2, 3}}}, [](TG_Graph* g, const std::vector<TG_Output>& in) {
    return AddOp(g, "AddN", {OpArg::List({in[0], in[1], in[2], in[0]})});
  });
}

TEST(MathGradTest, Cast) {
  auto cast = [](TG_Graph* g, TG_Output x, TG_DataType to) {
    return AddOp(g, "Cast", {x}, [to](TG_OperationDescription* d) { TG_SetAttrType(d, "DstT", to); });
  };
  // Through float: the rounding to float limits the finite differences' precision.
  CheckGradients({{{2, 3}}}, [cast](TG_Graph* g, const std::vector<TG_Output>& in) {
    return cast(g, AddOp(g, "Square", {cast(g, in[0], TG_FLOAT)}), TG_DOUBLE);
  }, 1e-2);
  // Through int32: no gradient (and the numeric one is 0 away from integers).
  CheckGradients({{{4}, {-1.5, -0.4, 0.3, 2.6}}}, [cast](TG_Graph* g, const std::vector<TG_Output>& in) {
    return AddOp(g, "AddV2", {cast(g, cast(g, in[0], TG_INT32), TG_DOUBLE), in[0]});
  });
}

TEST(MathGradTest, Select) {
  // The condition comes from a third input, not differentiated.
  auto select = [](TG_Graph* g, const std::vector<TG_Output>& in) {
    TG_Output cond = AddOp(g, "Greater", {in[2], ConstDouble(g, {0.0}, {})});
    return AddOp(g, "Select", {cond, in[0], in[1]});
  };
  const std::vector<double> signs{0.5, -0.5, -0.3, 0.9, 0.1, -0.8};
  CheckGradients({{{2, 3}}, {{2, 3}}, {{2, 3}, signs, false}}, select);
  CheckGradients({{{6}}, {{6}}, {{6}, signs, false}}, select);
  // A vector condition over the first dimension of matrices.
  CheckGradients({{{3, 2}}, {{3, 2}}, {{3}, {0.5, -0.5, 0.2}, false}}, select);
}

// ---- matrix products ----

TEST(MathGradTest, MatMulAllTransposes) {
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      SCOPED_TRACE(std::string("transpose_a=") + (ta ? "1" : "0") + " transpose_b=" + (tb ? "1" : "0"));
      const Dims a = ta ? Dims{3, 2} : Dims{2, 3};
      const Dims b = tb ? Dims{4, 3} : Dims{3, 4};
      CheckGradients({{a}, {b}}, [ta, tb](TG_Graph* g, const std::vector<TG_Output>& in) {
        return AddOp(g, "MatMul", {in[0], in[1]}, [ta, tb](TG_OperationDescription* d) {
          TG_SetAttrBool(d, "transpose_a", ta);
          TG_SetAttrBool(d, "transpose_b", tb);
        });
      });
    }
  }
}

struct BatchCase {
  Dims x, y;
};

TEST(MathGradTest, BatchMatMulV2AdjointsAndBroadcasting) {
  // Shapes written for adj_x = adj_y = false; the adjoint cases swap the last two dims.
  const std::vector<BatchCase> cases = {
      {{2, 2, 3}, {2, 3, 4}},        // same batch
      {{2, 1, 2, 3}, {3, 3, 2}},     // both sides broadcast, different ranks
      {{2, 2, 3}, {3, 4}},           // y is a plain matrix
      {{2, 3}, {3, 3, 2}},           // x is a plain matrix
  };
  auto swap_last = [](Dims d) {
    std::swap(d[d.size() - 1], d[d.size() - 2]);
    return d;
  };
  for (const BatchCase& c : cases) {
    for (bool adj_x : {false, true}) {
      for (bool adj_y : {false, true}) {
        SCOPED_TRACE(std::string("adj_x=") + (adj_x ? "1" : "0") + " adj_y=" + (adj_y ? "1" : "0") +
                     " x rank " + std::to_string(c.x.size()) + " y rank " + std::to_string(c.y.size()));
        const Dims x = adj_x ? swap_last(c.x) : c.x;
        const Dims y = adj_y ? swap_last(c.y) : c.y;
        CheckGradients({{x}, {y}}, [adj_x, adj_y](TG_Graph* g, const std::vector<TG_Output>& in) {
          return AddOp(g, "BatchMatMulV2", {in[0], in[1]}, [adj_x, adj_y](TG_OperationDescription* d) {
            TG_SetAttrBool(d, "adj_x", adj_x);
            TG_SetAttrBool(d, "adj_y", adj_y);
          });
        });
      }
    }
  }
  // Shapes unknown while building.
  CheckGradients({{{2, 1, 2, 3}}, {{3, 3, 2}}}, [](TG_Graph* g, const std::vector<TG_Output>& in) {
    return AddOp(g, "BatchMatMulV2", {Opaque(g, in[0]), Opaque(g, in[1])});
  });
}

// ---- reductions ----

struct ReduceCase {
  Dims dims;
  std::vector<int32_t> axes;
  bool scalar_axis = false;  // axes holds one value, passed as a scalar
};

const std::vector<ReduceCase>& ReduceCases() {
  static const std::vector<ReduceCase> cases = {
      {{2, 3, 4}, {1}},     {{2, 3, 4}, {-1, 0}}, {{2, 3, 4}, {0, 1, 2}}, {{2, 3, 4}, {}},
      {{2, 3, 4}, {-2}, true}, {{5}, {0}},        {{3, 4}, {1, -1}},       {{3, 4}, {-2}}};
  return cases;
}

enum class AxesKind { kConst, kConstInt64, kRunTime, kUnknownShape };

// Checks `type` over every case, keep_dims both ways, with the axes as an int32 constant,
// an int64 constant, a tensor known only at run time, and on an input of unknown shape.
void CheckReduction(const char* type,
                    const std::function<std::vector<double>(const Dims&, unsigned)>& values) {
  unsigned seed = 1;
  for (const ReduceCase& c : ReduceCases()) {
    for (bool keep_dims : {false, true}) {
      for (AxesKind kind : {AxesKind::kConst, AxesKind::kConstInt64, AxesKind::kRunTime,
                            AxesKind::kUnknownShape}) {
        SCOPED_TRACE(std::string(type) + " case " + std::to_string(seed) + " keep_dims " +
                     (keep_dims ? "1" : "0") + " axes kind " + std::to_string(static_cast<int>(kind)));
        CheckGradients({{c.dims, values(c.dims, seed)}},
                       [&c, keep_dims, kind, type](TG_Graph* g, const std::vector<TG_Output>& in) {
          const Dims axes_dims = c.scalar_axis ? Dims{} : Dims{static_cast<int64_t>(c.axes.size())};
          TG_Output axes;
          if (kind == AxesKind::kConstInt64) {
            axes = ConstInt64(g, std::vector<int64_t>(c.axes.begin(), c.axes.end()), axes_dims);
          } else {
            axes = ConstInt32(g, c.axes, axes_dims);
          }
          if (kind == AxesKind::kRunTime) axes = AddOp(g, "Identity", {axes});
          TG_Output x = kind == AxesKind::kUnknownShape ? Opaque(g, in[0]) : in[0];
          return AddOp(g, type, {x, axes}, [keep_dims](TG_OperationDescription* d) {
            TG_SetAttrBool(d, "keep_dims", keep_dims);
          });
        });
      }
    }
    ++seed;
  }
}

TEST(MathGradTest, Sum) { CheckReduction("Sum", AnyValues); }

TEST(MathGradTest, Mean) { CheckReduction("Mean", AnyValues); }

TEST(MathGradTest, MaxMin) {
  // Distinct values: one extremum per reduction, far from ties.
  CheckReduction("Max", [](const Dims& d, unsigned s) { return Distinct(d, s); });
  CheckReduction("Min", [](const Dims& d, unsigned s) { return Distinct(d, s); });
}

TEST(MathGradTest, Prod) {
  CheckReduction("Prod", [](const Dims& d, unsigned s) { return Magnitudes(d, 0.5, 1.5, true, s); });
  // Zeros: the gradient is still the product of the other elements (one zero gives a
  // non-zero gradient at that element, two give zero everywhere in that reduction).
  CheckGradients({GradInputSpec{{2, 3}, {0.0, 1.5, -2.0, 0.0, 0.0, 3.0}}},
                 [](TG_Graph* g, const std::vector<TG_Output>& in) {
                   return AddOp(g, "Prod", {in[0], ConstInt32(g, {1})});
                 });
  CheckGradients({GradInputSpec{{2, 3}, {0.0, 1.5, -2.0, 0.0, 0.5, 3.0}}},
                 [](TG_Graph* g, const std::vector<TG_Output>& in) {
                   return AddOp(g, "Prod", {Opaque(g, in[0]), AddOp(g, "Identity", {ConstInt32(g, {0})})});
                 });
}

// ---- a composite: paths that meet ----

TEST(MathGradTest, PathsThatMeet) {
  CheckGradients({{{3, 4}}, {{4}}}, [](TG_Graph* g, const std::vector<TG_Output>& in) {
    TG_Output prod = AddOp(g, "Mul", {in[0], in[1]});
    TG_Output sq = AddOp(g, "Square", {in[0]});
    TG_Output mean = AddOp(g, "Mean", {AddOp(g, "AddV2", {prod, sq}), ConstInt32(g, {0})},
                           [](TG_OperationDescription* d) { TG_SetAttrBool(d, "keep_dims", true); });
    return AddOp(g, "Sub", {mean, AddOp(g, "Tanh", {in[1]})});
  });
}

}  // namespace
}  // namespace tgtest

namespace tgtest {
namespace {

// Ties have no derivative, so finite differences cannot check them: Max and Min share the
// gradient equally among the elements equal to the result (TensorFlow's choice).
TEST(MathGradTest, MaxMinShareTiesEqually) {
  LoadCpuPlugin();
  for (const char* type : {"Max", "Min"}) {
    SCOPED_TRACE(type);
    gradient_check_internal::Deleters owned;
    owned.g = TG_NewGraph();
    owned.s = TG_NewStatus();
    TG_Graph* g = owned.g;
    const bool max = std::string(type) == "Max";
    const std::vector<double> values = max ? std::vector<double>{1, 3, 3, 0, 2, 2, 2, -1}
                                           : std::vector<double>{1, -3, -3, 0, -2, -2, -2, 1};
    const GradInputSpec spec{{2, 4}, values};
    TG_Output x = AddOp(g, "Placeholder", {}, [](TG_OperationDescription* d) {
      TG_SetAttrType(d, "dtype", TG_DOUBLE);
      const int64_t dims[] = {2, 4};
      TG_SetAttrShape(d, "shape", dims, 2);
    });
    TG_Output y = AddOp(g, type, {x, ConstInt32(g, {1})});
    TG_Output dx{};
    TG_AddGradients(g, &y, 1, &x, 1, nullptr, owned.s, &dx);
    ASSERT_TRUE(IsOk(owned.s));
    ASSERT_NE(dx.oper, nullptr);
    owned.session = TG_NewSession(g, nullptr, owned.s);
    ASSERT_TRUE(IsOk(owned.s));
    auto out = gradient_check_internal::RunDoubles(owned.session, {x}, {spec}, {values}, {dx},
                                                   owned.s);
    ASSERT_EQ(out.size(), 1u);
    const std::vector<double> want{0, 0.5, 0.5, 0, 1.0 / 3, 1.0 / 3, 1.0 / 3, 0};
    ASSERT_EQ(out[0].size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(out[0][i], want[i], 1e-12) << i;
  }
}

}  // namespace
}  // namespace tgtest
