// CPU kernels of the unary element-wise ops against float64 reference functions: every op
// on every registered dtype, rank 0, empty, special values, and 1 << 20 elements on a pool.
#include <Eigen/Core>

#include <cmath>
#include <functional>
#include <limits>

#include "core/exec/thread_pool.h"
#include "kernel_test_util.h"
#include "typed_tensors.h"

namespace tgraph::testing {

namespace {

// Transcendental functions: Eigen's float approximations are within a few ulp.
template <typename T>
double Tolerance() {
  if constexpr (std::is_same_v<T, half>) return 2e-3;
  if constexpr (std::is_same_v<T, bfloat16>) return 1.6e-2;
  if constexpr (std::is_same_v<T, float>) return 1e-5;
  if constexpr (std::is_same_v<T, double>) return 1e-12;
  return 0;
}

template <typename T>
void ExpectNear(const std::vector<double>& got, const std::vector<double>& want,
                const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << what << " at " << i << ": " << got[i];
    } else if (std::isinf(want[i])) {
      EXPECT_EQ(got[i], want[i]) << what << " at " << i;
    } else {
      EXPECT_NEAR(got[i], want[i], Tolerance<T>() * std::max(1.0, std::abs(want[i])))
          << what << " at " << i;
    }
  }
}

struct UnaryCase {
  std::string op;
  std::function<double(double)> f;
  bool positive_domain;  // only x > 0
  bool integers;         // registered for int32/int64 too
};

double Sign(double x) { return std::isnan(x) ? x : x > 0 ? 1 : x < 0 ? -1 : 0; }

const std::vector<UnaryCase>& Cases() {
  static const std::vector<UnaryCase> cases = {
      {"Neg", [](double x) { return -x; }, false, true},
      {"Abs", [](double x) { return std::abs(x); }, false, true},
      {"Square", [](double x) { return x * x; }, false, true},
      {"Sign", Sign, false, true},
      {"Relu", [](double x) { return std::max(x, 0.0); }, false, true},
      {"Relu6", [](double x) { return std::min(std::max(x, 0.0), 6.0); }, false, true},
      {"Sqrt", [](double x) { return std::sqrt(x); }, true, false},
      {"Rsqrt", [](double x) { return 1 / std::sqrt(x); }, true, false},
      {"Log", [](double x) { return std::log(x); }, true, false},
      {"Exp", [](double x) { return std::exp(x); }, false, false},
      {"Log1p", [](double x) { return std::log1p(x); }, true, false},
      {"Expm1", [](double x) { return std::expm1(x); }, false, false},
      {"Tanh", [](double x) { return std::tanh(x); }, false, false},
      {"Sigmoid", [](double x) { return 1 / (1 + std::exp(-x)); }, false, false},
      {"Floor", [](double x) { return std::floor(x); }, false, false},
      {"Elu", [](double x) { return x < 0 ? std::expm1(x) : x; }, false, false},
      {"Softplus", [](double x) { return std::log1p(std::exp(x)); }, false, false},
  };
  return cases;
}

template <typename T>
void CheckAllUnary() {
  constexpr bool kIntegral = std::is_integral_v<T>;
  const std::vector<double> general =
      kIntegral ? std::vector<double>{-7, -3, -1, 0, 1, 2, 5, 9}
                : std::vector<double>{-3.5, -1.25, -0.5, 0, 0.3, 1, 2.75, 7.5};
  const std::vector<double> positive = {0.25, 0.5, 1, 2, 3.5, 10, 100, 0.01};
  for (const UnaryCase& c : Cases()) {
    if (kIntegral && !c.integers) continue;
    const std::vector<double>& values = c.positive_domain ? positive : general;
    for (const Dims& dims : {Dims{8}, Dims{2, 4}, Dims{2, 2, 1, 2}}) {
      const Tensor in = Make<T>(dims, values);
      std::vector<double> want;
      for (double x : Get<T>(in)) want.push_back(c.f(x));
      const std::string what = c.op + " " + DataTypeName(DT<T>()) + " " + PartialShape(dims).ToString();
      auto r = RunOp(c.op, {in});
      ASSERT_TRUE(r.status.ok()) << what << ": " << r.status.ToString();
      EXPECT_EQ(r.outputs[0].dtype(), DT<T>()) << what;
      EXPECT_EQ(r.outputs[0].dims(), dims) << what;
      ExpectNear<T>(Get<T>(r.outputs[0]), want, what);
    }
    // Rank 0 and empty.
    auto scalar = RunOp(c.op, {Make<T>({}, {values[4]})});
    ASSERT_TRUE(scalar.status.ok()) << c.op << ": " << scalar.status.ToString();
    EXPECT_EQ(scalar.outputs[0].rank(), 0) << c.op;
    ExpectNear<T>(Get<T>(scalar.outputs[0]), {c.f(ToDouble(FromDouble<T>(values[4])))}, c.op);
    auto empty = RunOp(c.op, {Make<T>({3, 0}, {})});
    ASSERT_TRUE(empty.status.ok()) << c.op << ": " << empty.status.ToString();
    EXPECT_EQ(empty.outputs[0].dims(), (Dims{3, 0})) << c.op;
  }
}

TEST(CwiseUnaryTest, Float) { CheckAllUnary<float>(); }
TEST(CwiseUnaryTest, Double) { CheckAllUnary<double>(); }
TEST(CwiseUnaryTest, Int32) { CheckAllUnary<int32_t>(); }
TEST(CwiseUnaryTest, Int64) { CheckAllUnary<int64_t>(); }
TEST(CwiseUnaryTest, Half) { CheckAllUnary<half>(); }
TEST(CwiseUnaryTest, Bfloat16) { CheckAllUnary<bfloat16>(); }

TEST(CwiseUnaryTest, SpecialValues) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  auto run = [](const std::string& op, std::vector<double> x) {
    auto r = RunOp(op, {Make<double>({static_cast<int64_t>(x.size())}, x)});
    EXPECT_TRUE(r.status.ok()) << op << ": " << r.status.ToString();
    return r.status.ok() ? Get<double>(r.outputs[0]) : std::vector<double>{};
  };
  auto relu = run("Relu", {nan, -inf, inf});
  EXPECT_TRUE(std::isnan(relu[0]));
  EXPECT_EQ(relu[1], 0);
  EXPECT_EQ(relu[2], inf);
  auto relu6 = run("Relu6", {nan, inf, 6.5});
  EXPECT_TRUE(std::isnan(relu6[0]));
  EXPECT_EQ(relu6[1], 6);
  EXPECT_EQ(relu6[2], 6);
  auto sign = run("Sign", {nan, -0.0, -inf, 1e-300});
  EXPECT_TRUE(std::isnan(sign[0]));
  EXPECT_EQ(sign[1], 0);
  EXPECT_EQ(sign[2], -1);
  EXPECT_EQ(sign[3], 1);
  auto sqrt = run("Sqrt", {-1, 0, inf});
  EXPECT_TRUE(std::isnan(sqrt[0]));
  EXPECT_EQ(sqrt[1], 0);
  EXPECT_EQ(sqrt[2], inf);
  EXPECT_EQ(run("Log", {0})[0], -inf);
  EXPECT_EQ(run("Rsqrt", {0})[0], inf);
  auto exp = run("Exp", {-inf, 1000});
  EXPECT_NEAR(exp[0], 0, 1e-300);  // Eigen's vectorised exp clamps: a denormal at most
  EXPECT_EQ(exp[1], inf);
  auto tanh = run("Tanh", {-50, 50});
  EXPECT_EQ(tanh[0], -1);
  EXPECT_EQ(tanh[1], 1);
  // Softplus stays finite and accurate at both ends.
  auto softplus = run("Softplus", {1000, 40, -100, -40});
  EXPECT_EQ(softplus[0], 1000);
  EXPECT_NEAR(softplus[1], 40, 1e-12);
  EXPECT_NEAR(softplus[2] / std::exp(-100.0), 1, 1e-12);
  EXPECT_NEAR(softplus[3] / std::log1p(std::exp(-40.0)), 1, 1e-12);
  auto fsoftplus = RunOp("Softplus", {Make<float>({2}, {100, -100})});
  ASSERT_TRUE(fsoftplus.status.ok());
  EXPECT_EQ(Get<float>(fsoftplus.outputs[0])[0], 100);
  EXPECT_GE(Get<float>(fsoftplus.outputs[0])[1], 0);
  auto elu = run("Elu", {-inf, -1e-20});
  EXPECT_EQ(elu[0], -1);
  EXPECT_NEAR(elu[1], -1e-20, 1e-30);
}

TEST(CwiseUnaryTest, LargeTensorsOnThePool) {
  const int64_t n = 1 << 20;
  std::vector<double> x(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) x[static_cast<size_t>(i)] = static_cast<double>(i % 2001 - 1000) / 100.0;
  const Tensor in = Make<float>({1024, 1024}, x);
  for (const char* op : {"Exp", "Tanh", "Sigmoid", "Relu", "Abs"}) {
    const UnaryCase* c = nullptr;
    for (const auto& k : Cases())
      if (k.op == op) c = &k;
    ASSERT_NE(c, nullptr);
    auto r = RunOpEx(op, {in}, {}, TestPool());
    ASSERT_TRUE(r.status.ok()) << op << ": " << r.status.ToString();
    EXPECT_EQ(r.outputs[0].dims(), (Dims{1024, 1024}));
    const std::vector<double> got = Get<float>(r.outputs[0]);
    const std::vector<double> xs = Get<float>(in);
    size_t bad = 0;
    for (size_t i = 0; i < got.size(); ++i) {
      const double want = c->f(xs[i]);
      if (std::abs(got[i] - want) > 1e-5 * std::max(1.0, std::abs(want))) ++bad;
    }
    EXPECT_EQ(bad, 0u) << op;
  }
}

TEST(CwiseUnaryTest, UnregisteredTypes) {
  // Integer transcendental ops have no kernel (nor does TensorFlow).
  auto r = RunOp("Exp", {Make<int32_t>({1}, {1})});
  EXPECT_FALSE(r.status.ok());
}

}  // namespace
}  // namespace tgraph::testing
