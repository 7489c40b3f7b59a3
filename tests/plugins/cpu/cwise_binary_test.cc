// CPU kernels of the binary arithmetic ops (Add, AddV2, Sub, Mul, RealDiv, Maximum, Minimum,
// Pow) and AddN, against a float64 reference with NumPy broadcasting computed here.
#include <Eigen/Core>

#include <cmath>
#include <functional>
#include <limits>

#include "kernel_test_util.h"
#include "typed_tensors.h"

namespace tgraph::testing {
namespace {

// Relative tolerance of one rounding in T (exact for integers).
template <typename T>
double Tolerance() {
  if constexpr (std::is_same_v<T, half>) return 1e-3;
  if constexpr (std::is_same_v<T, bfloat16>) return 8e-3;
  if constexpr (std::is_same_v<T, float>) return 1e-6;
  if constexpr (std::is_same_v<T, double>) return 1e-14;
  return 0;
}

template <typename T>
void ExpectNear(const std::vector<double>& got, const std::vector<double>& want,
                const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << what << " at " << i << ": " << got[i];
      continue;
    }
    const double tol = Tolerance<T>() * std::max(1.0, std::abs(want[i]));
    EXPECT_NEAR(got[i], want[i], tol) << what << " at " << i;
  }
}

// NumPy broadcasting, the slow obvious way.
std::vector<double> Reference(const Dims& ad, const std::vector<double>& a, const Dims& bd,
                              const std::vector<double>& b,
                              const std::function<double(double, double)>& f, Dims* out_dims) {
  const size_t rank = std::max(ad.size(), bd.size());
  auto dim_of = [&](const Dims& d, size_t i) { return i + d.size() >= rank ? d[i + d.size() - rank] : 1; };
  Dims od(rank);
  int64_t n = 1;
  for (size_t i = 0; i < rank; ++i) {
    od[i] = std::max(dim_of(ad, i), dim_of(bd, i));
    if (dim_of(ad, i) == 0 || dim_of(bd, i) == 0) od[i] = 0;
    n *= od[i];
  }
  *out_dims = od;
  std::vector<double> out;
  for (int64_t flat = 0; flat < n; ++flat) {
    int64_t rem = flat, ia = 0, ib = 0, sa = 1, sb = 1;
    for (size_t i = rank; i-- > 0;) {
      const int64_t idx = rem % od[i];
      rem /= od[i];
      const int64_t da = dim_of(ad, i), db = dim_of(bd, i);
      ia += (da == 1 ? 0 : idx) * sa;
      ib += (db == 1 ? 0 : idx) * sb;
      sa *= da;
      sb *= db;
    }
    out.push_back(f(a[static_cast<size_t>(ia)], b[static_cast<size_t>(ib)]));
  }
  return out;
}

// Deterministic values: small integers (exact in every dtype), shifted by `offset`.
std::vector<double> Values(int64_t n, int modulo, int offset) {
  std::vector<double> v;
  for (int64_t i = 0; i < n; ++i) v.push_back(static_cast<double>((i * 7 + 3) % modulo + offset));
  return v;
}
struct BinaryCase {
  std::string op;
  std::function<double(double, double)> f;
  int a_mod, a_off, b_mod, b_off;  // value ranges of x and y
};

std::vector<BinaryCase> Cases(bool integral) {
  std::vector<BinaryCase> cases = {
      {"Add", [](double x, double y) { return x + y; }, 9, -4, 7, -3},
      {"AddV2", [](double x, double y) { return x + y; }, 9, -4, 7, -3},
      {"Sub", [](double x, double y) { return x - y; }, 9, -4, 7, -3},
      {"Mul", [](double x, double y) { return x * y; }, 9, -4, 7, -3},
      {"Maximum", [](double x, double y) { return std::max(x, y); }, 9, -4, 7, -3},
      {"Minimum", [](double x, double y) { return std::min(x, y); }, 9, -4, 7, -3},
  };
  if (integral) {
    cases.push_back({"Pow", [](double x, double y) { return std::pow(x, y); }, 7, -3, 4, 0});
  } else {
    cases.push_back({"RealDiv", [](double x, double y) { return x / y; }, 9, -4, 4, 1});
    cases.push_back({"Pow", [](double x, double y) { return std::pow(x, y); }, 4, 1, 5, -2});
  }
  return cases;
}

const std::vector<std::pair<Dims, Dims>>& ShapePairs() {
  static const std::vector<std::pair<Dims, Dims>> pairs = {
      {{2, 3}, {2, 3}},                    // same shape
      {{2, 3}, {3}},                       // trailing vector
      {{3}, {2, 3}},
      {{1, 224, 7, 3}, {1, 1, 1, 3}},     // few channels: blocks of whole rows, the last partial
      {{31}, {5, 7, 31}},
      {{2, 1}, {1, 3}},                    // both broadcast
      {{}, {2, 3}},                        // scalar + tensor
      {{2, 3}, {}},
      {{}, {}},                            // rank 0
      {{1}, {5}},
      {{2, 1, 3, 1}, {1, 4, 1, 5}},        // rank 4
      {{4, 1, 5}, {2, 4, 3, 5}},
      {{2, 1, 2, 1, 2, 1}, {1, 2, 1, 2, 1, 2}},  // rank 6, alternating
      {{0, 3}, {3}},                       // empty
      {{2, 0}, {1, 0}},
      {{0}, {}},
  };
  return pairs;
}

template <typename T>
void CheckAllBinary() {
  constexpr bool kIntegral = std::is_integral_v<T>;
  for (const BinaryCase& c : Cases(kIntegral)) {
    for (const auto& [ad, bd] : ShapePairs()) {
      const std::vector<double> a = Values(Count(ad), c.a_mod, c.a_off);
      const std::vector<double> b = Values(Count(bd), c.b_mod, c.b_off);
      // The reference sees the inputs as T holds them.
      const Tensor ta = Make<T>(ad, a), tb = Make<T>(bd, b);
      Dims want_dims;
      const std::vector<double> want = Reference(ad, Get<T>(ta), bd, Get<T>(tb), c.f, &want_dims);
      const std::string what = c.op + " " + DataTypeName(DT<T>()) + " " +
                               PartialShape(ad).ToString() + " " + PartialShape(bd).ToString();
      auto r = RunOp(c.op, {ta, tb});
      ASSERT_TRUE(r.status.ok()) << what << ": " << r.status.ToString();
      ASSERT_EQ(r.outputs.size(), 1u);
      EXPECT_EQ(r.outputs[0].dtype(), DT<T>()) << what;
      EXPECT_EQ(r.outputs[0].dims(), want_dims) << what;
      std::vector<double> rounded;  // the reference rounded to T
      for (double w : want) rounded.push_back(ToDouble(FromDouble<T>(w)));
      ExpectNear<T>(Get<T>(r.outputs[0]), kIntegral ? want : rounded, what);
    }
  }
}

TEST(CwiseBinaryTest, Float) { CheckAllBinary<float>(); }
TEST(CwiseBinaryTest, Double) { CheckAllBinary<double>(); }
TEST(CwiseBinaryTest, Int32) { CheckAllBinary<int32_t>(); }
TEST(CwiseBinaryTest, Int64) { CheckAllBinary<int64_t>(); }
TEST(CwiseBinaryTest, Half) { CheckAllBinary<half>(); }
TEST(CwiseBinaryTest, Bfloat16) { CheckAllBinary<bfloat16>(); }

TEST(CwiseBinaryTest, NonIntegerValues) {
  const Tensor a = Make<double>({4}, {0.1, -2.5, 1e10, 3.75});
  const Tensor b = Make<double>({4}, {0.3, 0.5, -1e-10, 2.0});
  auto div = RunOp("RealDiv", {a, b});
  ASSERT_TRUE(div.status.ok()) << div.status.ToString();
  EXPECT_EQ(Get<double>(div.outputs[0]), (std::vector<double>{0.1 / 0.3, -5.0, -1e20, 1.875}));
  auto pow = RunOp("Pow", {Make<double>({3}, {2.0, 9.0, 0.0}), Make<double>({3}, {0.5, -0.5, 0.0})});
  ASSERT_TRUE(pow.status.ok());
  EXPECT_EQ(Get<double>(pow.outputs[0]), (std::vector<double>{std::sqrt(2.0), 1.0 / 3.0, 1.0}));
  // Division by zero follows IEEE.
  auto inf = RunOp("RealDiv", {Make<float>({2}, {1, -1}), Make<float>({}, {0})});
  ASSERT_TRUE(inf.status.ok());
  EXPECT_EQ(Get<float>(inf.outputs[0]),
            (std::vector<double>{std::numeric_limits<double>::infinity(),
                                 -std::numeric_limits<double>::infinity()}));
}

TEST(CwiseBinaryTest, IntegerPowIsExact) {
  auto r = RunOp("Pow", {Make<int64_t>({4}, {3, -2, 7, 0}), Make<int64_t>({4}, {39, 63, 0, 0})});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  const int64_t* v = r.outputs[0].flat<int64_t>();
  EXPECT_EQ(v[0], 4052555153018976267LL);  // 3^39
  EXPECT_EQ(v[1], std::numeric_limits<int64_t>::min());  // (-2)^63 wraps to min
  EXPECT_EQ(v[2], 1);
  EXPECT_EQ(v[3], 1);  // 0^0
}

TEST(CwiseBinaryTest, MaximumMinimumPropagateNaN) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (const char* op : {"Maximum", "Minimum"}) {
    auto r = RunOp(op, {Make<float>({3}, {nan, 1, 2}), Make<float>({3}, {1, nan, 0})});
    ASSERT_TRUE(r.status.ok());
    auto v = Get<float>(r.outputs[0]);
    EXPECT_TRUE(std::isnan(v[0])) << op;
    EXPECT_TRUE(std::isnan(v[1])) << op;
    EXPECT_EQ(v[2], std::string(op) == "Maximum" ? 2 : 0) << op;
  }
}

TEST(CwiseBinaryTest, LargeTensorsOnThePool) {
  const int64_t rows = 1024, cols = 1024;  // 1 << 20 elements
  std::vector<double> a(static_cast<size_t>(rows * cols)), b(static_cast<size_t>(cols));
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<double>(i % 1000) * 0.25;
  for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<double>(i) * 0.5 - 100;
  const Tensor ta = Make<float>({rows, cols}, a), tb = Make<float>({cols}, b);
  struct Case {
    const char* op;
    Tensor x, y;
    std::function<double(double, double)> f;
  };
  const Tensor col = Make<float>({rows, 1}, std::vector<double>(a.begin(), a.begin() + rows));
  const std::vector<Case> cases = {
      {"Add", ta, tb, [](double x, double y) { return x + y; }},                      // rows
      {"Mul", ta, ta, [](double x, double y) { return x * y; }},                      // same
      {"Sub", Make<float>({}, {3}), ta, [](double x, double y) { return x - y; }},    // scalar
      {"Maximum", col, tb, [](double x, double y) { return std::max(x, y); }},        // outer
  };
  for (const Case& c : cases) {
    Dims want_dims;
    const std::vector<double> want = Reference(c.x.dims(), Get<float>(c.x), c.y.dims(),
                                               Get<float>(c.y), c.f, &want_dims);
    auto r = RunOpEx(c.op, {c.x, c.y}, {}, TestPool());
    ASSERT_TRUE(r.status.ok()) << c.op << ": " << r.status.ToString();
    EXPECT_EQ(r.outputs[0].dims(), want_dims) << c.op;
    const std::vector<double> got = Get<float>(r.outputs[0]);
    size_t bad = 0;
    for (size_t i = 0; i < got.size(); ++i) {
      if (std::abs(got[i] - want[i]) > 1e-6 * std::max(1.0, std::abs(want[i]))) ++bad;
    }
    EXPECT_EQ(bad, 0u) << c.op;
  }
}

TEST(CwiseBinaryTest, BadInputs) {
  // Shapes that do not broadcast (unknown static shapes, so the kernel sees them).
  auto r = RunOp("Add", {Make<float>({2, 3}, Values(6, 5, 0)), Make<float>({4}, Values(4, 5, 0))},
                 {}, /*known_shapes=*/false);
  EXPECT_EQ(r.status.code(), Code::kInvalidArgument) << r.status.ToString();
  EXPECT_NE(r.status.message().find("node"), std::string::npos) << r.status.message();
  EXPECT_NE(r.status.message().find("[2,3]"), std::string::npos) << r.status.message();
  EXPECT_NE(r.status.message().find("[4]"), std::string::npos) << r.status.message();
  r = RunOp("Maximum", {Make<int32_t>({3, 2}, Values(6, 5, 0)), Make<int32_t>({2, 2}, Values(4, 5, 0))},
            {}, false);
  EXPECT_EQ(r.status.code(), Code::kInvalidArgument);

  // Integer Pow with a negative exponent.
  r = RunOp("Pow", {Make<int32_t>({2}, {2, 2}), Make<int32_t>({2}, {1, -1})});
  EXPECT_EQ(r.status.code(), Code::kInvalidArgument) << r.status.ToString();
  EXPECT_NE(r.status.message().find("negative"), std::string::npos);

  // No integer RealDiv kernel (TensorFlow has none either).
  r = RunOp("RealDiv", {Make<int32_t>({1}, {1}), Make<int32_t>({1}, {1})});
  EXPECT_FALSE(r.status.ok());
}

// ---- AddN ----

template <typename T>
void CheckAddN() {
  for (const Dims& dims : {Dims{2, 3}, Dims{}, Dims{0, 4}, Dims{5}}) {
    for (int n : {1, 2, 3, 5}) {
      std::vector<Tensor> inputs;
      std::vector<double> want(static_cast<size_t>(Count(dims)), 0.0);
      for (int k = 0; k < n; ++k) {
        const std::vector<double> v = Values(Count(dims), 9, -4 + k);
        for (size_t i = 0; i < v.size(); ++i) want[i] += v[i];
        inputs.push_back(Make<T>(dims, v));
      }
      const std::string what = std::string(DataTypeName(DT<T>())) + " N=" + std::to_string(n) +
                               " " + PartialShape(dims).ToString();
      auto r = RunOpEx("AddN", inputs, {}, nullptr, /*one_list=*/true);
      ASSERT_TRUE(r.status.ok()) << what << ": " << r.status.ToString();
      EXPECT_EQ(r.outputs[0].dims(), dims) << what;
      ExpectNear<T>(Get<T>(r.outputs[0]), want, what);
    }
  }
}

TEST(AddNTest, AllTypes) {
  CheckAddN<float>();
  CheckAddN<double>();
  CheckAddN<int32_t>();
  CheckAddN<int64_t>();
  CheckAddN<half>();
  CheckAddN<bfloat16>();
}

TEST(AddNTest, LargeOnPool) {
  const int64_t n = 1 << 20;
  std::vector<Tensor> inputs;
  for (int k = 0; k < 4; ++k) inputs.push_back(Make<double>({n}, Values(n, 1000, k)));
  auto r = RunOpEx("AddN", inputs, {}, TestPool(), true);
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  const double* v = r.outputs[0].flat<double>();
  size_t bad = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double x = static_cast<double>((i * 7 + 3) % 1000);
    if (v[i] != 4 * x + 6) ++bad;
  }
  EXPECT_EQ(bad, 0u);
}

// Integer sums wrap, as TensorFlow's do (found by the op_run fuzz corpus under UBSan: the
// signed addition overflowed, which is undefined behaviour).
TEST(AddNTest, IntegersWrapOnOverflow) {
  const int32_t big = std::numeric_limits<int32_t>::max();
  auto r = RunOpEx("AddN",
                   {MakeTensor<int32_t>(DT_INT32, {2}, {big, -1}),
                    MakeTensor<int32_t>(DT_INT32, {2}, {big, -big}),
                    MakeTensor<int32_t>(DT_INT32, {2}, {2, -2})},
                   {}, nullptr, true);
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  const int32_t* sums = r.outputs[0].flat<int32_t>();
  EXPECT_EQ(sums[0], 0);
  EXPECT_EQ(sums[1], std::numeric_limits<int32_t>::max() - 1);  // -2^31 - 2, wrapped
  const int64_t big64 = std::numeric_limits<int64_t>::max();
  r = RunOpEx("AddN", {MakeTensor<int64_t>(DT_INT64, {1}, {big64}),
                       MakeTensor<int64_t>(DT_INT64, {1}, {1})},
              {}, nullptr, true);
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.outputs[0].flat<int64_t>()[0], std::numeric_limits<int64_t>::min());
}

TEST(AddNTest, ShapeMismatch) {
  auto r = RunOpEx("AddN", {Make<float>({2}, {1, 2}), Make<float>({3}, {1, 2, 3})}, {}, nullptr,
                   true, /*known_shapes=*/false);
  EXPECT_EQ(r.status.code(), Code::kInvalidArgument) << r.status.ToString();
  EXPECT_NE(r.status.message().find("[3]"), std::string::npos) << r.status.message();
}

}  // namespace
}  // namespace tgraph::testing
