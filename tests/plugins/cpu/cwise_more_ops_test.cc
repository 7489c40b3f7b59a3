// CPU kernels of the element-wise math beyond the basic set (core/ops/math_more_ops.cc):
// every op on every registered dtype against float64 references (std:: functions, series for
// digamma, Newton inverses for erfinv and ndtri, explicit bit arithmetic), special values
// (NaN, inf, zeros, negative operands of Mod / TruncateMod, x = 0 for Xlogy, y = 0 for
// DivNoNan, shift counts out of range), broadcasting, and bad inputs (a status naming the
// node).
#include <climits>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "kernel_test_util.h"
#include "nn_test_util.h"
#include "typed_tensors.h"

namespace tgraph::testing {
namespace {

// The DataType of an element type (all of the integer types, the float ones).
template <typename T>
constexpr DataType DataTypeOf() {
  if constexpr (std::is_same_v<T, int8_t>) return DT_INT8;
  if constexpr (std::is_same_v<T, uint8_t>) return DT_UINT8;
  if constexpr (std::is_same_v<T, int16_t>) return DT_INT16;
  if constexpr (std::is_same_v<T, uint16_t>) return DT_UINT16;
  if constexpr (std::is_same_v<T, uint32_t>) return DT_UINT32;
  if constexpr (std::is_same_v<T, uint64_t>) return DT_UINT64;
  if constexpr (!std::is_integral_v<T> || std::is_same_v<T, int32_t> || std::is_same_v<T, int64_t>) {
    return DT<T>();
  }
  return DT_INVALID;
}

const double kNan = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

const std::vector<DataType>& FloatTypes() {
  static const std::vector<DataType> types = {DT_FLOAT, DT_DOUBLE, DT_HALF, DT_BFLOAT16};
  return types;
}

// Relative tolerance of a kernel result in `dtype` (rounded once, from float for the 2-byte
// types; Eigen's float approximations are within a few ulp).
double Tol(DataType dtype, double scale = 1) {
  switch (dtype) {
    case DT_DOUBLE: return 1e-12 * scale;
    case DT_FLOAT: return 4e-6 * scale;
    case DT_HALF: return 1e-3;
    default: return 8e-3;  // bfloat16
  }
}

// |got - want| <= tol * max(1, |want|); NaN and infinities must match exactly.
void ExpectValues(const std::vector<double>& got, const std::vector<double>& want, double tol,
                  const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << what << " at " << i << ": " << got[i];
    } else if (std::isinf(want[i])) {
      EXPECT_EQ(got[i], want[i]) << what << " at " << i;
    } else {
      EXPECT_NEAR(got[i], want[i], tol * std::max(1.0, std::abs(want[i]))) << what << " at " << i;
    }
  }
}

std::vector<bool> Bools(const Tensor& t) {
  std::vector<bool> out;
  for (int64_t i = 0; i < t.NumElements(); ++i) out.push_back(t.flat<bool>()[i]);
  return out;
}

// ---- float64 references ----

double Digamma(double x) {
  if (x <= 0 && x == std::floor(x)) return kNan;
  if (x < 0) return Digamma(1 - x) - M_PI / std::tan(M_PI * x);  // reflection
  double r = 0;
  for (; x < 8; x += 1) r -= 1 / x;
  const double f = 1 / (x * x);
  return r + std::log(x) - 0.5 / x -
         f * (1.0 / 12 - f * (1.0 / 120 - f * (1.0 / 252 - f * (1.0 / 240 - f / 132))));
}

// The y with f(y) = v, by Newton's method from 0 (f increasing, f' given).
double Inverse(const std::function<double(double)>& f, const std::function<double(double)>& df,
               double v) {
  double y = 0;
  for (int i = 0; i < 100; ++i) y -= (f(y) - v) / df(y);
  return y;
}

double Erfinv(double x) {
  if (x == 1) return kInf;
  if (x == -1) return -kInf;
  return Inverse([](double y) { return std::erf(y); },
                 [](double y) { return 2 / std::sqrt(M_PI) * std::exp(-y * y); }, x);
}

double Ndtri(double p) {
  if (p == 0) return -kInf;
  if (p == 1) return kInf;
  return Inverse([](double y) { return 0.5 * std::erfc(-y / std::sqrt(2.0)); },
                 [](double y) { return std::exp(-y * y / 2) / std::sqrt(2 * M_PI); }, p);
}

struct UnaryCase {
  std::string op;
  std::function<double(double)> f;
  std::vector<double> values;
  double float_scale = 1;  // looser float tolerance for the special functions
};

const std::vector<double> kGeneral = {-3.5, -1.25, -0.5, 0, 0.3, 1, 2.75, 7.5};
const std::vector<double> kOpenUnit = {-0.99, -0.5, -0.1, 0, 0.2, 0.6, 0.9, 0.95};

const std::vector<UnaryCase>& UnaryCases() {
  static const std::vector<UnaryCase> cases = {
      {"Sin", [](double x) { return std::sin(x); }, kGeneral},
      {"Cos", [](double x) { return std::cos(x); }, kGeneral},
      {"Tan", [](double x) { return std::tan(x); }, kGeneral},
      {"Asin", [](double x) { return std::asin(x); }, kOpenUnit},
      {"Acos", [](double x) { return std::acos(x); }, kOpenUnit},
      {"Atan", [](double x) { return std::atan(x); }, kGeneral},
      {"Sinh", [](double x) { return std::sinh(x); }, kGeneral},
      {"Cosh", [](double x) { return std::cosh(x); }, kGeneral},
      {"Asinh", [](double x) { return std::asinh(x); }, kGeneral},
      {"Acosh", [](double x) { return std::acosh(x); }, {1, 1.1, 1.5, 2, 3, 5, 10, 100}},
      {"Atanh", [](double x) { return std::atanh(x); }, kOpenUnit},
      {"Ceil", [](double x) { return std::ceil(x); }, kGeneral},
      {"Rint", [](double x) { return std::nearbyint(x); },
       {0.5, 1.5, 2.5, -0.5, -2.5, -1.7, 3.2, 0}},
      {"Softsign", [](double x) { return x / (1 + std::abs(x)); }, kGeneral},
      {"Inv", [](double x) { return 1 / x; }, {-4, -0.5, 0.25, 1, 2, 3, 8, 100}},
      {"Lgamma", [](double x) { return std::lgamma(x); },
       {-2.5, -0.5, 0.25, 0.5, 1, 2, 3.5, 10}, 8},
      {"Digamma", Digamma, {-2.5, -0.5, 0.25, 0.5, 1, 2, 3.5, 10}, 8},
      {"Erfinv", Erfinv, kOpenUnit, 8},
      {"Ndtri", Ndtri, {0.01, 0.1, 0.25, 0.5, 0.6, 0.75, 0.9, 0.99}, 8},
  };
  return cases;
}

TEST(CwiseMoreOpsTest, UnaryFloatOpsOnEveryTypeAndShape) {
  for (const UnaryCase& c : UnaryCases()) {
    for (DataType dtype : FloatTypes()) {
      for (const Dims& dims : {Dims{8}, Dims{2, 4}}) {
        const Tensor in = MakeTyped(dtype, dims, c.values);
        std::vector<double> want;
        for (double x : ToDoubles(in)) want.push_back(c.f(x));
        const std::string what = c.op + " " + DataTypeName(dtype);
        auto r = RunOp(c.op, {in});
        ASSERT_TRUE(r.status.ok()) << what << ": " << r.status.ToString();
        EXPECT_EQ(r.outputs[0].dtype(), dtype) << what;
        EXPECT_EQ(r.outputs[0].dims(), dims) << what;
        ExpectValues(ToDoubles(r.outputs[0]), want, Tol(dtype, c.float_scale), what);
      }
    }
    // Rank 0 and empty.
    auto scalar = RunOp(c.op, {MakeTyped(DT_DOUBLE, {}, {c.values[4]})});
    ASSERT_TRUE(scalar.status.ok()) << c.op;
    ExpectValues(ToDoubles(scalar.outputs[0]), {c.f(c.values[4])}, 1e-12, c.op);
    auto empty = RunOp(c.op, {MakeTyped(DT_FLOAT, {3, 0}, {})});
    ASSERT_TRUE(empty.status.ok()) << c.op;
    EXPECT_EQ(empty.outputs[0].dims(), (Dims{3, 0})) << c.op;
  }
}

// Large inputs go through the intra-op pool (Eigen's vectorized sin and cos on blocks).
TEST(CwiseMoreOpsTest, UnaryOnThePool) {
  const int64_t n = 1 << 16;
  std::vector<double> x(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) x[static_cast<size_t>(i)] = -50 + 100.0 * static_cast<double>(i) / n;
  for (const char* op : {"Sin", "Cos", "Softsign"}) {
    const Tensor in = MakeTyped(DT_FLOAT, {n}, x);
    auto r = RunOpOnPool(TestPool(), op, {in});
    ASSERT_TRUE(r.status.ok()) << op;
    const std::vector<double> xs = ToDoubles(in);
    std::vector<double> want;
    for (double v : xs) {
      want.push_back(std::string(op) == "Sin"   ? std::sin(v)
                     : std::string(op) == "Cos" ? std::cos(v)
                                                : v / (1 + std::abs(v)));
    }
    ExpectValues(ToDoubles(r.outputs[0]), want, 1e-5, op);
  }
}

TEST(CwiseMoreOpsTest, SpecialValues) {
  auto run = [](const std::string& op, DataType dtype, const std::vector<double>& x) {
    auto r = RunOp(op, {MakeTyped(dtype, {static_cast<int64_t>(x.size())}, x)});
    EXPECT_TRUE(r.status.ok()) << op << ": " << r.status.ToString();
    return r.status.ok() ? ToDoubles(r.outputs[0]) : std::vector<double>(x.size(), 0.0);
  };
  for (DataType dtype : FloatTypes()) {
    const std::string t = DataTypeName(dtype);
    ExpectValues(run("Sin", dtype, {kNan, kInf, -kInf}), {kNan, kNan, kNan}, 0, "Sin " + t);
    ExpectValues(run("Asin", dtype, {2, -1.5}), {kNan, kNan}, 0, "Asin " + t);
    ExpectValues(run("Acosh", dtype, {0.5}), {kNan}, 0, "Acosh " + t);
    ExpectValues(run("Atanh", dtype, {1, -1}), {kInf, -kInf}, 0, "Atanh " + t);
    ExpectValues(run("Ceil", dtype, {kNan, kInf, -0.5}), {kNan, kInf, 0}, 0, "Ceil " + t);
    // inf / (1 + inf), as TF computes it.
    ExpectValues(run("Softsign", dtype, {kInf, -kInf, kNan}), {kNan, kNan, kNan}, 0, "Softsign " + t);
    ExpectValues(run("Inv", dtype, {0}), {kInf}, 0, "Inv " + t);
    ExpectValues(run("Lgamma", dtype, {0, -1, kInf}), {kInf, kInf, kInf}, 0, "Lgamma " + t);
    ExpectValues(run("Erfinv", dtype, {1, -1, 2, -2}), {kInf, -kInf, kNan, kNan}, 0, "Erfinv " + t);
    ExpectValues(run("Ndtri", dtype, {0, 1, -0.5, 1.5}), {-kInf, kInf, kNan, kNan}, 0, "Ndtri " + t);
    ExpectValues(run("Digamma", dtype, {0, -1}), {kNan, kNan}, 0, "Digamma " + t);
  }
  // Ceil(-0.5) is -0, as TF's.
  EXPECT_TRUE(std::signbit(run("Ceil", DT_DOUBLE, {-0.5})[0]));
}

TEST(CwiseMoreOpsTest, ClassifiersGiveBools) {
  const std::vector<double> x = {kNan, kInf, -kInf, 0, -0.0, 1.5, -1e30, 1e-40};
  struct Want {
    const char* op;
    std::vector<bool> values;
  };
  for (DataType dtype : FloatTypes()) {
    // 1e-40 is subnormal in float, 0 in half; -1e30 overflows half to -inf.
    const bool half = dtype == DT_HALF;
    for (const Want& w : {Want{"IsNan", {true, false, false, false, false, false, false, false}},
                          Want{"IsInf", {false, true, true, false, false, false, half, false}},
                          Want{"IsFinite", {false, false, false, true, true, true, !half, true}}}) {
      for (const Dims& dims : {Dims{8}, Dims{2, 2, 2}}) {
        auto r = RunOp(w.op, {MakeTyped(dtype, dims, x)});
        ASSERT_TRUE(r.status.ok()) << w.op << ": " << r.status.ToString();
        EXPECT_EQ(r.outputs[0].dtype(), DT_BOOL);
        EXPECT_EQ(r.outputs[0].dims(), dims);
        EXPECT_EQ(Bools(r.outputs[0]), w.values) << w.op << " " << DataTypeName(dtype);
      }
    }
  }
  // On the pool too.
  std::vector<double> big(1 << 16, 1.0);
  big[12345] = kNan;
  auto r = RunOpOnPool(TestPool(), "IsFinite", {MakeTyped(DT_FLOAT, {1 << 16}, big)});
  ASSERT_TRUE(r.status.ok());
  const std::vector<bool> b = Bools(r.outputs[0]);
  EXPECT_FALSE(b[12345]);
  EXPECT_TRUE(b[0] && b[12344] && b[12346] && b.back());
}

// ---- binary float ops ----

struct BinaryCase {
  std::string op;
  std::function<double(double, double)> f;
  std::vector<double> x, y;  // 6 values each ([2, 3])
};

const std::vector<BinaryCase>& BinaryCases() {
  static const std::vector<BinaryCase> cases = {
      {"Atan2", [](double y, double x) { return std::atan2(y, x); },
       {1, -1, 0, 2, -3, 0.5}, {1, 1, -1, -2, 0.5, 0}},
      {"DivNoNan", [](double x, double y) { return y == 0 ? 0 : x / y; },
       {1, -2, 3, 0, 5, -6}, {2, 0, -4, 0, 0.5, 3}},
      {"MulNoNan", [](double x, double y) { return y == 0 ? 0 : x * y; },
       {1, -2, 3, 0, 5, -6}, {2, 0, -4, 0, 0.5, 3}},
      {"Xlogy", [](double x, double y) { return x == 0 ? 0 : x * std::log(y); },
       {0, 2, -1.5, 0, 3, 0.5}, {0, 3, 0.25, 2, 1, 7}},
      {"Xdivy", [](double x, double y) { return x == 0 ? 0 : x / y; },
       {0, 2, -1.5, 0, 3, 0.5}, {0, 3, 0.25, 2, 1, 7}},
      {"Xlog1py", [](double x, double y) { return x == 0 ? 0 : x * std::log1p(y); },
       {0, 2, -1.5, 0, 3, 0.5}, {-1, 3, 0.25, 2, 1e-3, 7}},
      {"Mod", [](double x, double y) { return std::fmod(x, y); },
       {7, -7, 7, -7, 7.5, -0.5}, {3, 3, -3, -3, 2, 0.25}},
      {"TruncateMod", [](double x, double y) { return std::fmod(x, y); },
       {7, -7, 7, -7, 7.5, -0.5}, {3, 3, -3, -3, 2, 0.25}},
  };
  return cases;
}

// Values of a [2, 3] operand broadcast to other shapes: the case's x against y's first row
// ([3]) and first column ([2, 1]), and y's scalar.
TEST(CwiseMoreOpsTest, BinaryFloatOpsWithBroadcasting) {
  for (const BinaryCase& c : BinaryCases()) {
    for (DataType dtype : FloatTypes()) {
      const std::string what = c.op + " " + DataTypeName(dtype);
      const Tensor x = MakeTyped(dtype, {2, 3}, c.x);
      const std::vector<double> xs = ToDoubles(x);
      struct Shape {
        Dims dims;
        std::vector<double> values;
        std::function<size_t(size_t)> index;  // y's element for output element i
      };
      const std::vector<Shape> shapes = {
          {{2, 3}, c.y, [](size_t i) { return i; }},
          {{3}, {c.y[0], c.y[1], c.y[2]}, [](size_t i) { return i % 3; }},
          {{2, 1}, {c.y[0], c.y[3]}, [](size_t i) { return i / 3; }},
          {{}, {c.y[1]}, [](size_t) { return size_t{0}; }},
      };
      for (const Shape& s : shapes) {
        const Tensor y = MakeTyped(dtype, s.dims, s.values);
        const std::vector<double> ys = ToDoubles(y);
        std::vector<double> want;
        for (size_t i = 0; i < 6; ++i) want.push_back(c.f(xs[i], ys[s.index(i)]));
        auto r = RunOp(c.op, {x, y});
        ASSERT_TRUE(r.status.ok()) << what << ": " << r.status.ToString();
        EXPECT_EQ(r.outputs[0].dims(), (Dims{2, 3})) << what;
        ExpectValues(ToDoubles(r.outputs[0]), want, Tol(dtype, 4), what);
        // And the other way round (x broadcast against a full y), for the commuted patterns.
        auto swapped = RunOp(c.op, {y, x});
        ASSERT_TRUE(swapped.status.ok()) << what;
        std::vector<double> want_swapped;
        for (size_t i = 0; i < 6; ++i) want_swapped.push_back(c.f(ys[s.index(i)], xs[i]));
        ExpectValues(ToDoubles(swapped.outputs[0]), want_swapped, Tol(dtype, 4), what + " swapped");
      }
    }
  }
}

TEST(CwiseMoreOpsTest, BinarySpecialValues) {
  auto run = [](const std::string& op, std::vector<double> x, std::vector<double> y) {
    const int64_t n = static_cast<int64_t>(x.size());
    auto r = RunOp(op, {MakeTyped(DT_DOUBLE, {n}, x), MakeTyped(DT_DOUBLE, {n}, y)});
    EXPECT_TRUE(r.status.ok()) << op << ": " << r.status.ToString();
    return r.status.ok() ? ToDoubles(r.outputs[0]) : std::vector<double>(x.size(), 0.0);
  };
  // y = 0 gives 0 whatever x is; NaN y is not 0.
  ExpectValues(run("DivNoNan", {kNan, 1, kInf, 0}, {0, 0, 0, kNan}), {0, 0, 0, kNan}, 0, "DivNoNan");
  ExpectValues(run("MulNoNan", {kNan, kInf, 1, 0}, {0, 0, kNan, kNan}), {0, 0, kNan, kNan}, 0,
               "MulNoNan");
  // x = 0 gives 0 whatever y is (NaN, 0 or negative), as TF.
  ExpectValues(run("Xlogy", {0, 0, 0, 1, 2}, {kNan, 0, -1, 0, -1}), {0, 0, 0, -kInf, kNan}, 0,
               "Xlogy");
  ExpectValues(run("Xdivy", {0, 0, 0, 1}, {kNan, 0, -1, 0}), {0, 0, 0, kInf}, 0, "Xdivy");
  ExpectValues(run("Xlog1py", {0, 0, 1}, {kNan, -1, -1}), {0, 0, -kInf}, 0, "Xlog1py");
  ExpectValues(run("Atan2", {0, -0.0, kInf, kNan}, {-1, -1, kInf, 1}),
               {M_PI, -M_PI, M_PI / 4, kNan}, 1e-15, "Atan2");
  ExpectValues(run("Mod", {1, kInf, 5}, {0, 2, kInf}), {kNan, kNan, 5}, 0, "Mod");
}

// ---- Polygamma ----

TEST(CwiseMoreOpsTest, PolygammaMatchesDigammaAndItsDerivative) {
  const std::vector<double> x = {0.5, 1, 2.5, 7};
  for (DataType dtype : {DT_FLOAT, DT_DOUBLE}) {
    // a = 0: digamma; a = 1: trigamma = sum 1 / (x + k)^2; a = 1.5: NaN (not an order).
    auto r = RunOp("Polygamma", {MakeTyped(dtype, {3, 1}, {0, 1, 1.5}), MakeTyped(dtype, {4}, x)});
    ASSERT_TRUE(r.status.ok()) << r.status.ToString();
    EXPECT_EQ(r.outputs[0].dims(), (Dims{3, 4}));
    std::vector<double> want;
    for (double v : x) want.push_back(Digamma(v));
    for (double v : x) {
      double s = 0;
      for (int k = 0; k < 200000; ++k) s += 1 / ((v + k) * (v + k));
      want.push_back(s + 1 / (v + 200000));  // the tail's integral
    }
    for (size_t i = 0; i < x.size(); ++i) want.push_back(kNan);
    ExpectValues(ToDoubles(r.outputs[0]), want, dtype == DT_FLOAT ? 1e-5 : 1e-9,
                 std::string("Polygamma ") + DataTypeName(dtype));
  }
}

// ---- integer division ----

template <typename T>
void CheckIntegerDivision() {
  const DataType dt = DataTypeOf<T>();
  const std::string what = DataTypeName(dt);
  std::vector<T> x, y;
  if constexpr (std::is_signed_v<T>) {
    x = {7, -7, 7, -7, 0, std::numeric_limits<T>::min(), std::numeric_limits<T>::max(), 5};
    y = {3, 3, -3, -3, 4, -1, 2, -1};
  } else {
    x = {7, 200, 9, 0, 1, std::numeric_limits<T>::max(), 6, 5};
    y = {3, 7, 3, 4, 2, 2, 1, 9};
  }
  std::vector<T> div, mod;
  for (size_t i = 0; i < x.size(); ++i) {
    if (std::is_signed_v<T> && y[i] == T(-1)) {
      div.push_back(static_cast<T>(T(0) - static_cast<std::make_unsigned_t<T>>(x[i])));  // wraps
      mod.push_back(0);
    } else {
      div.push_back(static_cast<T>(x[i] / y[i]));
      mod.push_back(static_cast<T>(x[i] % y[i]));
    }
  }
  auto r = RunOp("TruncateDiv", {MakeTensor<T>(dt, {2, 4}, x), MakeTensor<T>(dt, {2, 4}, y)});
  ASSERT_TRUE(r.status.ok()) << what << ": " << r.status.ToString();
  EXPECT_EQ(Values<T>(r.outputs[0]), div) << "TruncateDiv " << what;
  if constexpr (std::is_same_v<T, int32_t> || std::is_same_v<T, int64_t>) {
    for (const char* op : {"Mod", "TruncateMod"}) {
      auto m = RunOp(op, {MakeTensor<T>(dt, {8}, x), MakeTensor<T>(dt, {8}, y)});
      ASSERT_TRUE(m.status.ok()) << op << " " << what << ": " << m.status.ToString();
      EXPECT_EQ(Values<T>(m.outputs[0]), mod) << op << " " << what;
    }
  }
  // Broadcast divisor: [2, 4] by a scalar.
  auto b = RunOp("TruncateDiv", {MakeTensor<T>(dt, {2, 4}, x), MakeTensor<T>(dt, {}, {T(2)})});
  ASSERT_TRUE(b.status.ok()) << what;
  std::vector<T> halves;
  for (T v : x) halves.push_back(static_cast<T>(v / 2));
  EXPECT_EQ(Values<T>(b.outputs[0]), halves) << what;
  // Division by zero is an error naming the node, for every op, with or without broadcasting.
  for (const char* op : {"TruncateDiv", "Mod", "TruncateMod"}) {
    if (std::string(op) != "TruncateDiv" && !(std::is_same_v<T, int32_t> || std::is_same_v<T, int64_t>)) {
      continue;
    }
    ExpectStatus(RunOp(op, {MakeTensor<T>(dt, {2}, {T(1), T(2)}), MakeTensor<T>(dt, {2}, {T(1), T(0)})}).status,
                 Code::kInvalidArgument, {"node", "Integer division by zero"});
    ExpectStatus(RunOp(op, {MakeTensor<T>(dt, {2, 2}, {1, 2, 3, 4}), MakeTensor<T>(dt, {2}, {1, 0})}).status,
                 Code::kInvalidArgument, {"node", "Integer division by zero"});
  }
}

TEST(CwiseMoreOpsTest, IntegerDivisionOnEveryType) {
  CheckIntegerDivision<int8_t>();
  CheckIntegerDivision<uint8_t>();
  CheckIntegerDivision<int16_t>();
  CheckIntegerDivision<uint16_t>();
  CheckIntegerDivision<int32_t>();
  CheckIntegerDivision<uint32_t>();
  CheckIntegerDivision<int64_t>();
  CheckIntegerDivision<uint64_t>();
}

// ---- bitwise ----

template <typename T>
T ClampedShift(T y) {
  const int64_t bits = sizeof(T) * CHAR_BIT;
  const int64_t v = static_cast<int64_t>(y);
  return static_cast<T>(v < 0 ? 0 : v > bits - 1 ? bits - 1 : v);
}

template <typename T>
void CheckBitwise() {
  const DataType dt = DataTypeOf<T>();
  const std::string what = DataTypeName(dt);
  using U = std::make_unsigned_t<T>;
  const T bits = static_cast<T>(sizeof(T) * CHAR_BIT);
  const T lo = std::numeric_limits<T>::min(), hi = std::numeric_limits<T>::max();
  const std::vector<T> x = {T(1), T(5), T(-1), lo, hi, T(0x5a), T(3), T(-7)};
  // Shift counts in and out of [0, bits - 1]: negative (signed types), bits, far beyond.
  const std::vector<T> y = {T(0), T(1), std::is_signed_v<T> ? T(-1) : T(2), T(bits - 1), bits,
                            T(100), T(3), std::is_signed_v<T> ? T(-100) : T(bits + 1)};
  std::vector<T> band, bor, bxor, lsh, rsh, inv;
  std::vector<uint8_t> pop;
  for (size_t i = 0; i < x.size(); ++i) {
    band.push_back(static_cast<T>(x[i] & y[i]));
    bor.push_back(static_cast<T>(x[i] | y[i]));
    bxor.push_back(static_cast<T>(x[i] ^ y[i]));
    const int s = static_cast<int>(ClampedShift(y[i]));
    lsh.push_back(static_cast<T>(static_cast<U>(static_cast<U>(x[i]) << s)));
    // Arithmetic shift for signed values: a division by 2^s rounded down (the sign itself
    // for the sign bit's shift).
    if constexpr (std::is_signed_v<T>) {
      if (s == bits - 1) {
        rsh.push_back(x[i] < 0 ? T(-1) : T(0));
      } else {
        const T d = static_cast<T>(T(1) << s);
        const T q = static_cast<T>(x[i] / d);
        rsh.push_back(static_cast<T>(q * d != x[i] && x[i] < 0 ? q - 1 : q));
      }
    } else {
      rsh.push_back(static_cast<T>(x[i] >> s));
    }
    inv.push_back(static_cast<T>(~x[i]));
    int count = 0;
    for (U v = static_cast<U>(x[i]); v != 0; v = static_cast<U>(v >> 1)) count += v & 1;
    pop.push_back(static_cast<uint8_t>(count));
  }
  const Tensor tx = MakeTensor<T>(dt, {2, 4}, x), ty = MakeTensor<T>(dt, {2, 4}, y);
  auto run = [&](const char* op, std::vector<Tensor> in) {
    auto r = RunOp(op, in);
    EXPECT_TRUE(r.status.ok()) << op << " " << what << ": " << r.status.ToString();
    return r.status.ok() ? Values<T>(r.outputs[0]) : std::vector<T>{};
  };
  EXPECT_EQ(run("BitwiseAnd", {tx, ty}), band) << what;
  EXPECT_EQ(run("BitwiseOr", {tx, ty}), bor) << what;
  EXPECT_EQ(run("BitwiseXor", {tx, ty}), bxor) << what;
  EXPECT_EQ(run("LeftShift", {tx, ty}), lsh) << what;
  EXPECT_EQ(run("RightShift", {tx, ty}), rsh) << what;
  EXPECT_EQ(run("Invert", {tx}), inv) << what;
  auto p = RunOp("PopulationCount", {tx});
  ASSERT_TRUE(p.status.ok()) << what << ": " << p.status.ToString();
  EXPECT_EQ(p.outputs[0].dtype(), DT_UINT8);
  EXPECT_EQ(Values<uint8_t>(p.outputs[0]), pop) << what;
  // Broadcasting a scalar count and a row.
  std::vector<T> shifted;
  for (T v : x) shifted.push_back(static_cast<T>(static_cast<U>(static_cast<U>(v) << 2)));
  EXPECT_EQ(run("LeftShift", {tx, MakeTensor<T>(dt, {}, {T(2)})}), shifted) << what;
  std::vector<T> masked;
  const std::vector<T> row = {T(1), T(2), T(4), T(8)};
  for (size_t i = 0; i < x.size(); ++i) masked.push_back(static_cast<T>(x[i] & row[i % 4]));
  EXPECT_EQ(run("BitwiseAnd", {tx, MakeTensor<T>(dt, {4}, row)}), masked) << what;
  // Bad input: shapes that do not broadcast (unknown while building, so the kernel sees them).
  ExpectStatus(RunOp("BitwiseOr", {tx, MakeTensor<T>(dt, {3}, {T(1), T(2), T(3)})}, {}, false).status,
               Code::kInvalidArgument, {"node", "Incompatible shapes: [2,4] vs. [3]"});
  EXPECT_EQ(hi, std::numeric_limits<T>::max());
  (void)lo;
}

TEST(CwiseMoreOpsTest, BitwiseOnEveryIntegerType) {
  CheckBitwise<int8_t>();
  CheckBitwise<uint8_t>();
  CheckBitwise<int16_t>();
  CheckBitwise<uint16_t>();
  CheckBitwise<int32_t>();
  CheckBitwise<uint32_t>();
  CheckBitwise<int64_t>();
  CheckBitwise<uint64_t>();
}

// TF's numbers for int8 shifts out of range (tf.bitwise on the CPU).
TEST(CwiseMoreOpsTest, ShiftsClampLikeTensorFlow) {
  auto lsh = RunOp("LeftShift", {MakeTensor<int8_t>(DT_INT8, {5}, {1, 1, 1, 1, -1}),
                                 MakeTensor<int8_t>(DT_INT8, {5}, {-1, 7, 8, 100, 3})});
  ASSERT_TRUE(lsh.status.ok());
  EXPECT_EQ(Values<int8_t>(lsh.outputs[0]), (std::vector<int8_t>{1, -128, -128, -128, -8}));
  auto rsh = RunOp("RightShift", {MakeTensor<int8_t>(DT_INT8, {4}, {-128, -128, 64, 64}),
                                  MakeTensor<int8_t>(DT_INT8, {4}, {-1, 7, 8, 100})});
  ASSERT_TRUE(rsh.status.ok());
  EXPECT_EQ(Values<int8_t>(rsh.outputs[0]), (std::vector<int8_t>{-128, -1, 0, 0}));
}

// ---- ApproximateEqual, SoftsignGrad, InvGrad, AccumulateNV2 ----

TEST(CwiseMoreOpsTest, ApproximateEqualUsesItsTolerance) {
  for (DataType dtype : FloatTypes()) {
    const Tensor x = MakeTyped(dtype, {2, 2}, {1, 2, 3, kNan});
    const Tensor y = MakeTyped(dtype, {2, 2}, {1.25, 2.5, 3, kNan});
    auto r = RunOp("ApproximateEqual", {x, y}, {{"tolerance", AttrOfFloat(0.3f)}});
    ASSERT_TRUE(r.status.ok()) << r.status.ToString();
    EXPECT_EQ(Bools(r.outputs[0]), (std::vector<bool>{true, false, true, false}));
    auto d = RunOp("ApproximateEqual", {x, y});  // the default, 1e-5
    ASSERT_TRUE(d.status.ok());
    EXPECT_EQ(Bools(d.outputs[0]), (std::vector<bool>{false, false, true, false}));
    ExpectStatus(RunOp("ApproximateEqual", {x, MakeTyped(dtype, {4}, {1, 2, 3, 4})}, {}, false).status,
                 Code::kInvalidArgument, {"node", "x and y must be of the same shape"});
  }
  // Large enough for the pool: every element compared once.
  const int64_t n = 1 << 17;
  std::vector<double> x(static_cast<size_t>(n)), y(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    x[static_cast<size_t>(i)] = static_cast<double>(i % 1000);
    y[static_cast<size_t>(i)] = x[static_cast<size_t>(i)] + (i % 3 == 0 ? 0.5 : 0.0);
  }
  auto r = RunOpOnPool(TestPool(), "ApproximateEqual", {MakeTyped(DT_FLOAT, {n}, x),
                                                        MakeTyped(DT_FLOAT, {n}, y)});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  const std::vector<bool> eq = Bools(r.outputs[0]);
  int64_t wrong = 0;
  for (int64_t i = 0; i < n; ++i) wrong += eq[static_cast<size_t>(i)] != (i % 3 != 0);
  EXPECT_EQ(wrong, 0);
}

TEST(CwiseMoreOpsTest, SoftsignGradAndInvGrad) {
  const std::vector<double> g = {1, -2, 0.5, 3}, f = {0, 1, -3, 0.25};
  for (DataType dtype : FloatTypes()) {
    const Tensor tg = MakeTyped(dtype, {2, 2}, g), tf = MakeTyped(dtype, {2, 2}, f);
    auto s = RunOp("SoftsignGrad", {tg, tf});
    ASSERT_TRUE(s.status.ok()) << s.status.ToString();
    std::vector<double> want, want_inv;
    const std::vector<double> gs = ToDoubles(tg), fs = ToDoubles(tf);
    for (size_t i = 0; i < 4; ++i) {
      want.push_back(gs[i] / ((1 + std::abs(fs[i])) * (1 + std::abs(fs[i]))));
      want_inv.push_back(-gs[i] * fs[i] * fs[i]);  // InvGrad(y = f, dy = g)
    }
    ExpectValues(ToDoubles(s.outputs[0]), want, Tol(dtype, 2), "SoftsignGrad");
    auto inv = RunOp("InvGrad", {tf, tg});
    ASSERT_TRUE(inv.status.ok()) << inv.status.ToString();
    ExpectValues(ToDoubles(inv.outputs[0]), want_inv, Tol(dtype, 2), "InvGrad");
    ExpectStatus(RunOp("SoftsignGrad", {tg, MakeTyped(dtype, {4}, f)}, {}, false).status,
                 Code::kInvalidArgument, {"node", "must have the same shape"});
  }
}

template <typename T>
void CheckAccumulate() {
  const DataType dt = DataTypeOf<T>();
  std::vector<Tensor> in = {MakeTyped(dt, {2, 2}, {1, 2, 3, 4}), MakeTyped(dt, {2, 2}, {10, 20, 30, 40}),
                            MakeTyped(dt, {2, 2}, {-1, -1, 2, 2})};
  AttrMap attrs = {{"shape", AttrOfShape(PartialShape{2, 2})}};
  auto r = RunOpEx("AccumulateNV2", in, attrs, nullptr, /*one_list=*/true);
  ASSERT_TRUE(r.status.ok()) << DataTypeName(dt) << ": " << r.status.ToString();
  EXPECT_EQ(ToDoubles(r.outputs[0]), (std::vector<double>{10, 21, 35, 46})) << DataTypeName(dt);
  in[1] = MakeTyped(dt, {4}, {1, 2, 3, 4});
  ExpectStatus(RunOpEx("AccumulateNV2", in, {{"shape", AttrOfShape(PartialShape::Unknown())}},
                       nullptr, true, /*known_shapes=*/false)
                   .status,
               Code::kInvalidArgument, {"node", "same shape"});
}

TEST(CwiseMoreOpsTest, AccumulateNV2SumsLikeAddN) {
  CheckAccumulate<float>();
  CheckAccumulate<double>();
  CheckAccumulate<int32_t>();
  CheckAccumulate<int64_t>();
  CheckAccumulate<half>();
  CheckAccumulate<bfloat16>();
}

// Shapes that do not broadcast: known while building, the node is rejected naming it; known
// only when run, the kernel fails naming it.
TEST(CwiseMoreOpsTest, MismatchedShapesNameTheNode) {
  const Tensor a = MakeTyped(DT_FLOAT, {2, 3}, {1, 2, 3, 4, 5, 6});
  const Tensor b = MakeTyped(DT_FLOAT, {4}, {1, 2, 3, 4});
  for (const char* op : {"Atan2", "DivNoNan", "Xlogy", "Mod"}) {
    const Status built = RunOp(op, {a, b}).status;
    EXPECT_FALSE(built.ok()) << op;
    EXPECT_NE(built.ToString().find("node"), std::string::npos) << built.ToString();
    ExpectStatus(RunOp(op, {a, b}, {}, false).status, Code::kInvalidArgument,
                 {"node", "Incompatible shapes: [2,3] vs. [4]"});
  }
  // A type without a kernel: int32 Atan2 is not in the op's type list.
  EXPECT_FALSE(RunOp("Atan2", {MakeTensor<int32_t>(DT_INT32, {1}, {1}),
                               MakeTensor<int32_t>(DT_INT32, {1}, {1})}).status.ok());
}

}  // namespace
}  // namespace tgraph::testing
