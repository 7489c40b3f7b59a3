// Finite-difference checks (float64, through TG_AddGradients) of the gradients of the
// element-wise math beyond the basic set (core/autodiff/math_grad_more.cc): trigonometric and
// hyperbolic functions, Softsign, the special functions, Inv, Atan2 and the "no NaN" and
// x*log(y) binaries with broadcasting on either side; TF's rules where the derivative is
// special (Xlogy's zero x-partial at x = 0, DivNoNan's zeros at y = 0); AccumulateNV2; and
// the ops without gradient (rounding, classifiers, integer arithmetic).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "gradient_check_util.h"

namespace tgtest {
namespace {

using Dims = std::vector<int64_t>;

int64_t Count(const Dims& dims) {
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
  for (int64_t i = 0; i < Count(dims); ++i) {
    const double m = mag(rng);
    v.push_back(signed_values && negative(rng) ? -m : m);
  }
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

struct UnaryDomain {
  const char* type;
  double lo, hi;
  bool signed_values;
};

TEST(MathGradMoreTest, UnaryOps) {
  const UnaryDomain cases[] = {
      {"Sin", 0, 3, true},        {"Cos", 0, 3, true},       {"Tan", 0, 1.2, true},
      {"Asin", 0, 0.9, true},     {"Acos", 0, 0.9, true},    {"Atan", 0, 3, true},
      {"Sinh", 0, 2, true},       {"Cosh", 0, 2, true},      {"Asinh", 0, 3, true},
      {"Acosh", 1.2, 4, false},   {"Atanh", 0, 0.9, true},   {"Softsign", 0.1, 3, true},
      {"Inv", 0.3, 2, true},      {"Lgamma", 0.3, 4, false}, {"Digamma", 0.3, 4, false},
      {"Erfinv", 0, 0.9, true},   {"Ndtri", 0.05, 0.95, false},
  };
  unsigned seed = 1;
  for (const UnaryDomain& c : cases) {
    SCOPED_TRACE(c.type);
    for (const Dims& dims : std::vector<Dims>{{}, {2, 3}}) {
      CheckGradients({{dims, Magnitudes(dims, c.lo, c.hi, c.signed_values, seed++)}},
                     Unary(c.type), 1e-5);
    }
  }
}

TEST(MathGradMoreTest, RoundingOpsHaveNoGradient) {
  // Away from integers the numeric derivative is 0, which "no gradient" stands for; next to a
  // differentiable path only that path counts.
  for (const char* type : {"Ceil", "Rint"}) {
    SCOPED_TRACE(type);
    CheckGradients({{{6}, {-1.3, -0.7, -0.2, 0.3, 0.6, 1.4}}},
                   [type](TG_Graph* g, const std::vector<TG_Output>& in) {
                     return AddOp(g, "Mul", {AddOp(g, type, {in[0]}), AddOp(g, "Sin", {in[0]})});
                   });
  }
}

// The broadcasting shape pairs every binary op is checked with.
const std::vector<std::pair<Dims, Dims>>& BroadcastCases() {
  static const std::vector<std::pair<Dims, Dims>> cases = {
      {{2, 3}, {2, 3}}, {{2, 3}, {3}}, {{3}, {2, 3}}, {{2, 1, 4}, {3, 1}}, {{}, {2, 2}}, {{2, 2}, {}}};
  return cases;
}

void CheckBinary(const char* type, double x_lo, double x_hi, bool x_signed, double y_lo,
                 double y_hi, bool y_signed) {
  unsigned seed = 1;
  for (const auto& [dx, dy] : BroadcastCases()) {
    SCOPED_TRACE(std::string(type) + " case " + std::to_string(seed));
    CheckGradients({{dx, Magnitudes(dx, x_lo, x_hi, x_signed, seed)},
                    {dy, Magnitudes(dy, y_lo, y_hi, y_signed, seed + 100)}},
                   Binary(type), 1e-5);
    ++seed;
  }
}

TEST(MathGradMoreTest, BinaryOpsBroadcast) {
  CheckBinary("Atan2", 0.2, 2, true, 0.2, 2, true);
  CheckBinary("DivNoNan", 0, 2, true, 0.5, 2, true);
  CheckBinary("MulNoNan", 0, 2, true, 0.5, 2, true);
  CheckBinary("Xlogy", 0.2, 2, true, 0.3, 3, false);
  CheckBinary("Xdivy", 0.2, 2, true, 0.5, 2, true);
  CheckBinary("Xlog1py", 0.2, 2, true, 0.1, 2, false);
}

TEST(MathGradMoreTest, PolygammaAlongX) {
  // The order a gets no gradient (TF's None); polygamma(1, x)' = polygamma(2, x).
  CheckGradients({GradInputSpec{{}, {1.0}, /*differentiate=*/false},
                  GradInputSpec{{2, 2}, {0.5, 1.2, 2.5, 4.0}}},
                 Binary("Polygamma"), 1e-5);
}

// The points where TF's formulas differ from the plain derivative's NaN or inf: x = 0 for
// Xlogy / Xdivy / Xlog1py (the x-partial is 0, not log(0)), y = 0 for DivNoNan and MulNoNan.
TEST(MathGradMoreTest, ZeroRulesMatchTensorFlow) {
  LoadCpuPlugin();
  struct Case {
    const char* type;
    std::vector<double> x, y, dx, dy;
  };
  const Case cases[] = {
      // xlogy(x, y): dx = log(y) where x != 0, else 0; dy = x / y (0 where x = 0).
      {"Xlogy", {0, 0, 2}, {0, 2, 4}, {0, 0, std::log(4.0)}, {0, 0, 0.5}},
      {"Xdivy", {0, 0, 2}, {0, 2, 4}, {0, 0, 0.25}, {0, 0, -2.0 / 16}},
      {"Xlog1py", {0, 0, 2}, {-1, 1, 3}, {0, 0, std::log1p(3.0)}, {0, 0, 0.5}},
      // div_no_nan: dx = 1 / y (0 at y = 0); dy = -x / y^2 (0 at y = 0).
      {"DivNoNan", {3, 3, 2}, {0, 0, 4}, {0, 0, 0.25}, {0, 0, -2.0 / 16}},
      // mul_no_nan: dx = y (0 at y = 0), dy = x.
      {"MulNoNan", {3, std::numeric_limits<double>::infinity(), 2}, {0, 0, 4}, {0, 0, 4},
       {3, std::numeric_limits<double>::infinity(), 2}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.type);
    gradient_check_internal::Deleters owned;
    owned.g = TG_NewGraph();
    owned.s = TG_NewStatus();
    TG_Output inputs[] = {ConstDouble(owned.g, c.x), ConstDouble(owned.g, c.y)};
    TG_Output z = AddOp(owned.g, c.type, {inputs[0], inputs[1]});
    TG_Output grads[2];
    TG_AddGradients(owned.g, &z, 1, inputs, 2, nullptr, owned.s, grads);
    ASSERT_TRUE(IsOk(owned.s));
    owned.session = TG_NewSession(owned.g, nullptr, owned.s);
    ASSERT_TRUE(IsOk(owned.s));
    const std::vector<std::vector<double>> got = gradient_check_internal::RunDoubles(
        owned.session, {}, {}, {}, {grads[0], grads[1]}, owned.s);
    ASSERT_EQ(got.size(), 2u);
    EXPECT_EQ(got[0], c.dx);
    EXPECT_EQ(got[1], c.dy);
  }
}

TEST(MathGradMoreTest, AccumulateNV2LikeAddN) {
  CheckGradients({{{2, 3}}, {{2, 3}}, {{2, 3}}}, [](TG_Graph* g, const std::vector<TG_Output>& in) {
    return AddOp(g, "AccumulateNV2", {OpArg::List({in[0], in[1], in[2], in[0]})},
                 [](TG_OperationDescription* d) {
                   const int64_t dims[] = {2, 3};
                   TG_SetAttrShape(d, "shape", dims, 2);
                 });
  });
}

}  // namespace
}  // namespace tgtest
