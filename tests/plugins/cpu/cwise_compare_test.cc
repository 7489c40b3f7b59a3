// CPU kernels of the comparisons (with broadcasting), the logical ops and Select.
#include <Eigen/Core>

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>

#include "core/exec/thread_pool.h"
#include "kernel_test_util.h"
#include "typed_tensors.h"

namespace tgraph::testing {

namespace {

Tensor Bools(Dims dims, const std::vector<bool>& v) {
  Tensor t = Tensor::Allocate(DT_BOOL, std::move(dims)).value();
  for (size_t i = 0; i < v.size(); ++i) t.flat<bool>()[i] = v[i];
  return t;
}
std::vector<bool> GetBools(const Tensor& t) {
  EXPECT_EQ(t.dtype(), DT_BOOL);
  return std::vector<bool>(t.flat<bool>(), t.flat<bool>() + t.NumElements());
}
std::vector<double> Values(int64_t n, int modulo, int offset) {
  std::vector<double> v;
  for (int64_t i = 0; i < n; ++i) v.push_back(static_cast<double>((i * 5 + 2) % modulo + offset));
  return v;
}

// NumPy broadcasting for a predicate.
std::vector<bool> Reference(const Dims& ad, const std::vector<double>& a, const Dims& bd,
                            const std::vector<double>& b,
                            const std::function<bool(double, double)>& f, Dims* out_dims) {
  const size_t rank = std::max(ad.size(), bd.size());
  auto dim_of = [&](const Dims& d, size_t i) -> int64_t {
    return i + d.size() >= rank ? d[i + d.size() - rank] : 1;
  };
  Dims od(rank);
  int64_t n = 1;
  for (size_t i = 0; i < rank; ++i) {
    od[i] = (dim_of(ad, i) == 0 || dim_of(bd, i) == 0) ? 0 : std::max(dim_of(ad, i), dim_of(bd, i));
    n *= od[i];
  }
  *out_dims = od;
  std::vector<bool> out;
  for (int64_t flat = 0; flat < n; ++flat) {
    int64_t rem = flat, ia = 0, ib = 0, sa = 1, sb = 1;
    for (size_t i = rank; i-- > 0;) {
      const int64_t idx = rem % od[i];
      rem /= od[i];
      ia += (dim_of(ad, i) == 1 ? 0 : idx) * sa;
      ib += (dim_of(bd, i) == 1 ? 0 : idx) * sb;
      sa *= dim_of(ad, i);
      sb *= dim_of(bd, i);
    }
    out.push_back(f(a[static_cast<size_t>(ia)], b[static_cast<size_t>(ib)]));
  }
  return out;
}

const std::vector<std::pair<Dims, Dims>>& ShapePairs() {
  static const std::vector<std::pair<Dims, Dims>> pairs = {
      {{2, 3}, {2, 3}}, {{2, 3}, {3}},     {{2, 1}, {1, 3}},          {{}, {2, 3}},
      {{4}, {}},        {{}, {}},          {{2, 1, 3, 1}, {1, 2, 1, 4}}, {{0, 3}, {1, 3}},
      {{3, 1, 2, 1, 2, 1}, {1, 2, 1, 2, 1, 2}},
      {{1, 200, 5, 3}, {3}},  // few channels: blocks of whole rows (bool outputs)
  };
  return pairs;
}

struct Cmp {
  const char* op;
  std::function<bool(double, double)> f;
};
const std::vector<Cmp>& Comparisons() {
  static const std::vector<Cmp> c = {
      {"Equal", [](double x, double y) { return x == y; }},
      {"NotEqual", [](double x, double y) { return x != y; }},
      {"Less", [](double x, double y) { return x < y; }},
      {"LessEqual", [](double x, double y) { return x <= y; }},
      {"Greater", [](double x, double y) { return x > y; }},
      {"GreaterEqual", [](double x, double y) { return x >= y; }},
  };
  return c;
}

template <typename T>
void CheckComparisons() {
  for (const Cmp& c : Comparisons()) {
    for (const auto& [ad, bd] : ShapePairs()) {
      const std::vector<double> a = Values(Count(ad), 5, -2), b = Values(Count(bd), 4, -1);
      Dims want_dims;
      const std::vector<bool> want = Reference(ad, a, bd, b, c.f, &want_dims);
      const std::string what = std::string(c.op) + " " + DataTypeName(DT<T>()) + " " +
                               PartialShape(ad).ToString() + " " + PartialShape(bd).ToString();
      auto r = RunOp(c.op, {Make<T>(ad, a), Make<T>(bd, b)});
      ASSERT_TRUE(r.status.ok()) << what << ": " << r.status.ToString();
      EXPECT_EQ(r.outputs[0].dims(), want_dims) << what;
      EXPECT_EQ(GetBools(r.outputs[0]), want) << what;
    }
  }
}

TEST(CompareTest, Float) { CheckComparisons<float>(); }
TEST(CompareTest, Double) { CheckComparisons<double>(); }
TEST(CompareTest, Int32) { CheckComparisons<int32_t>(); }
TEST(CompareTest, Int64) { CheckComparisons<int64_t>(); }
TEST(CompareTest, Half) { CheckComparisons<half>(); }
TEST(CompareTest, Bfloat16) { CheckComparisons<bfloat16>(); }

TEST(CompareTest, BoolEquality) {
  auto eq = RunOp("Equal", {Bools({2, 2}, {true, false, true, false}), Bools({2}, {true, false})});
  ASSERT_TRUE(eq.status.ok()) << eq.status.ToString();
  EXPECT_EQ(GetBools(eq.outputs[0]), (std::vector<bool>{true, true, true, true}));
  auto ne = RunOp("NotEqual", {Bools({}, {true}), Bools({3}, {true, false, true})});
  ASSERT_TRUE(ne.status.ok());
  EXPECT_EQ(GetBools(ne.outputs[0]), (std::vector<bool>{false, true, false}));
}

TEST(CompareTest, NaNComparesUnequal) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const Tensor x = Make<float>({2}, {nan, 1}), y = Make<float>({2}, {nan, nan});
  for (const Cmp& c : Comparisons()) {
    auto r = RunOp(c.op, {x, y});
    ASSERT_TRUE(r.status.ok());
    const bool want = std::string(c.op) == "NotEqual";
    EXPECT_EQ(GetBools(r.outputs[0]), (std::vector<bool>{want, want})) << c.op;
  }
}

// NaN (every comparison false but !=), infinities, signed zeros (equal) and the ends of int32,
// broadcast both ways: the device plugins' comparisons are checked against these CPU runs by
// opencl.conformance / cuda.conformance (tests/plugins/cpu/device_conformance.h).
TEST(CompareTest, SpecialValuesBroadcast) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  const double lo = std::numeric_limits<int32_t>::min(), hi = std::numeric_limits<int32_t>::max();
  struct Case {
    DataType dtype;
    Dims xd, yd;
    std::vector<double> x, y;
  };
  const std::vector<Case> cases = {
      {DT_FLOAT, {6, 1}, {5}, {nan, -inf, -0.0, 0.0, 1.5, inf}, {nan, 0.0, -0.0, inf, -inf}},
      {DT_FLOAT, {}, {2, 3}, {nan}, {1, nan, -inf, 0, inf, -0.0}},
      {DT_INT32, {4, 1}, {1, 3}, {lo, -1, 0, hi}, {lo, 0, hi}},
  };
  for (const Cmp& c : Comparisons()) {
    for (const Case& k : cases) {
      Dims want_dims;
      const std::vector<bool> want = Reference(k.xd, k.x, k.yd, k.y, c.f, &want_dims);
      const Tensor x = k.dtype == DT_FLOAT ? Make<float>(k.xd, k.x) : Make<int32_t>(k.xd, k.x);
      const Tensor y = k.dtype == DT_FLOAT ? Make<float>(k.yd, k.y) : Make<int32_t>(k.yd, k.y);
      auto r = RunOp(c.op, {x, y});
      const std::string what = std::string(c.op) + " " + DataTypeName(k.dtype) + " " +
                               PartialShape(k.xd).ToString();
      ASSERT_TRUE(r.status.ok()) << what << ": " << r.status.ToString();
      EXPECT_EQ(r.outputs[0].dims(), want_dims) << what;
      EXPECT_EQ(GetBools(r.outputs[0]), want) << what;
    }
  }
}

TEST(CompareTest, IncompatibleShapes) {
  const Tensor a = Make<int32_t>({2}, {1, 2}), b = Make<int32_t>({3}, {1, 2, 3});
  for (const Cmp& c : Comparisons()) {
    auto r = RunOp(c.op, {a, b}, {}, /*known_shapes=*/false);
    EXPECT_EQ(r.status.code(), Code::kInvalidArgument) << c.op << ": " << r.status.ToString();
    EXPECT_NE(r.status.message().find("[2] vs. [3]"), std::string::npos) << r.status.message();
  }
  // Equal / NotEqual with incompatible_shape_error=false: a scalar answer.
  AttrMap lenient{{"incompatible_shape_error", AttrOfBool(false)}};
  auto eq = RunOp("Equal", {a, b}, lenient);
  ASSERT_TRUE(eq.status.ok()) << eq.status.ToString();
  EXPECT_EQ(eq.outputs[0].rank(), 0);
  EXPECT_EQ(GetBools(eq.outputs[0]), std::vector<bool>{false});
  auto ne = RunOp("NotEqual", {a, b}, lenient);
  ASSERT_TRUE(ne.status.ok());
  EXPECT_EQ(GetBools(ne.outputs[0]), std::vector<bool>{true});
  auto ok = RunOp("Equal", {a, Make<int32_t>({}, {2})}, lenient);  // compatible: element-wise
  ASSERT_TRUE(ok.status.ok());
  EXPECT_EQ(GetBools(ok.outputs[0]), (std::vector<bool>{false, true}));
}

TEST(CompareTest, LargeOnPool) {
  const int64_t n = 1 << 20;
  const std::vector<double> a = Values(n, 1000, 0);
  auto r = RunOpEx("Greater", {Make<float>({n}, a), Make<float>({}, {500})}, {}, TestPool());
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  const bool* v = r.outputs[0].flat<bool>();
  size_t bad = 0;
  for (int64_t i = 0; i < n; ++i) bad += v[i] != (a[static_cast<size_t>(i)] > 500);
  EXPECT_EQ(bad, 0u);
}

// ---- logical ----

TEST(LogicalTest, AndOrNot) {
  const Tensor x = Bools({2, 2}, {true, true, false, false});
  const Tensor y = Bools({2}, {true, false});
  auto a = RunOp("LogicalAnd", {x, y});
  ASSERT_TRUE(a.status.ok()) << a.status.ToString();
  EXPECT_EQ(GetBools(a.outputs[0]), (std::vector<bool>{true, false, false, false}));
  auto o = RunOp("LogicalOr", {x, y});
  ASSERT_TRUE(o.status.ok());
  EXPECT_EQ(GetBools(o.outputs[0]), (std::vector<bool>{true, true, true, false}));
  auto o2 = RunOp("LogicalOr", {Bools({}, {false}), Bools({2, 1}, {true, false})});
  ASSERT_TRUE(o2.status.ok());
  EXPECT_EQ(o2.outputs[0].dims(), (Dims{2, 1}));
  EXPECT_EQ(GetBools(o2.outputs[0]), (std::vector<bool>{true, false}));
  auto n = RunOp("LogicalNot", {x});
  ASSERT_TRUE(n.status.ok());
  EXPECT_EQ(GetBools(n.outputs[0]), (std::vector<bool>{false, false, true, true}));
  auto n0 = RunOp("LogicalNot", {Bools({}, {false})});
  ASSERT_TRUE(n0.status.ok());
  EXPECT_EQ(GetBools(n0.outputs[0]), std::vector<bool>{true});
  auto empty = RunOp("LogicalAnd", {Bools({0}, {}), Bools({}, {true})});
  ASSERT_TRUE(empty.status.ok());
  EXPECT_EQ(empty.outputs[0].dims(), Dims{0});
  auto bad = RunOp("LogicalAnd", {Bools({2}, {true, true}), Bools({3}, {true, true, true})}, {},
                   false);
  EXPECT_EQ(bad.status.code(), Code::kInvalidArgument);
}

// ---- Select ----

template <typename T>
void CheckSelect() {
  const std::string what = DataTypeName(DT<T>());
  const Tensor t = Make<T>({3, 2}, {1, 2, 3, 4, 5, 6});
  const Tensor e = Make<T>({3, 2}, {0, -1, 0, -1, 0, -1});
  auto get = [](const Tensor& x) {
    std::vector<double> v;
    for (int64_t i = 0; i < x.NumElements(); ++i) {
      if constexpr (std::is_same_v<T, half> || std::is_same_v<T, bfloat16>) {
        v.push_back(static_cast<float>(x.flat<T>()[i]));
      } else {
        v.push_back(static_cast<double>(x.flat<T>()[i]));
      }
    }
    return v;
  };
  // Same shape.
  auto r = RunOp("Select", {Bools({3, 2}, {true, false, false, true, true, true}), t, e});
  ASSERT_TRUE(r.status.ok()) << what << ": " << r.status.ToString();
  EXPECT_EQ(r.outputs[0].dtype(), DT<T>());
  EXPECT_EQ(get(r.outputs[0]), (std::vector<double>{1, -1, 0, 4, 5, 6})) << what;
  // A vector over the first dimension picks rows.
  r = RunOp("Select", {Bools({3}, {false, true, false}), t, e});
  ASSERT_TRUE(r.status.ok()) << what << ": " << r.status.ToString();
  EXPECT_EQ(r.outputs[0].dims(), (Dims{3, 2}));
  EXPECT_EQ(get(r.outputs[0]), (std::vector<double>{0, -1, 3, 4, 0, -1})) << what;
  // A scalar picks a whole input.
  r = RunOp("Select", {Bools({}, {false}), t, e});
  ASSERT_TRUE(r.status.ok()) << what << ": " << r.status.ToString();
  EXPECT_EQ(get(r.outputs[0]), get(e)) << what;
  r = RunOp("Select", {Bools({}, {true}), t, e});
  ASSERT_TRUE(r.status.ok());
  EXPECT_EQ(get(r.outputs[0]), get(t)) << what;
  // Rank 0 and empty.
  r = RunOp("Select", {Bools({}, {true}), Make<T>({}, {7}), Make<T>({}, {8})});
  ASSERT_TRUE(r.status.ok());
  EXPECT_EQ(get(r.outputs[0]), std::vector<double>{7});
  r = RunOp("Select", {Bools({0, 2}, {}), Make<T>({0, 2}, {}), Make<T>({0, 2}, {})});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.outputs[0].dims(), (Dims{0, 2}));
}

TEST(SelectTest, AllTypes) {
  CheckSelect<float>();
  CheckSelect<double>();
  CheckSelect<int32_t>();
  CheckSelect<int64_t>();
  CheckSelect<half>();
  CheckSelect<bfloat16>();
}

TEST(SelectTest, Bool) {
  auto r = RunOp("Select", {Bools({2}, {true, false}), Bools({2}, {false, false}), Bools({2}, {true, true})});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(GetBools(r.outputs[0]), (std::vector<bool>{false, true}));
}

TEST(SelectTest, LargeOnPool) {
  const int64_t n = 1 << 20;
  std::vector<bool> c(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) c[static_cast<size_t>(i)] = i % 3 == 0;
  const std::vector<double> t = Values(n, 1000, 0), e = Values(n, 1000, -1000);
  auto r = RunOpEx("Select", {Bools({n}, c), Make<int64_t>({n}, t), Make<int64_t>({n}, e)}, {},
                   TestPool());
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  const int64_t* v = r.outputs[0].flat<int64_t>();
  size_t bad = 0;
  for (int64_t i = 0; i < n; ++i) {
    const size_t k = static_cast<size_t>(i);
    bad += v[i] != static_cast<int64_t>(c[k] ? t[k] : e[k]);
  }
  EXPECT_EQ(bad, 0u);
}

// The element-wise select is a bit mask (branch-free): values come through bit for bit
// (NaN payloads, -0.0) for every element of a length that is no multiple of a vector, with a
// condition that changes at random.
TEST(SelectTest, ElementwiseKeepsBits) {
  const int64_t n = 1001;
  std::vector<bool> c(static_cast<size_t>(n));
  std::vector<float> t(static_cast<size_t>(n)), e(static_cast<size_t>(n));
  uint32_t x = 12345;
  for (size_t i = 0; i < c.size(); ++i) {
    x = x * 1664525u + 1013904223u;
    c[i] = (x >> 16) & 1;
    t[i] = i % 7 == 0 ? -0.0f : static_cast<float>(i);
    e[i] = i % 5 == 0 ? std::numeric_limits<float>::quiet_NaN() : -static_cast<float>(i) - 0.5f;
  }
  auto r = RunOp("Select", {Bools({n}, c), MakeTensor(DT_FLOAT, {n}, t),
                            MakeTensor(DT_FLOAT, {n}, e)});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  const float* v = r.outputs[0].flat<float>();
  size_t bad = 0;
  for (size_t i = 0; i < c.size(); ++i) {
    const float want = c[i] ? t[i] : e[i];
    bad += std::memcmp(&v[i], &want, sizeof want) != 0;
  }
  EXPECT_EQ(bad, 0u);
}

TEST(SelectTest, BadShapes) {
  const Tensor t = Make<float>({3, 2}, {1, 2, 3, 4, 5, 6});
  auto r = RunOp("Select", {Bools({3}, {true, true, true}), t, Make<float>({2, 3}, {1, 2, 3, 4, 5, 6})},
                 {}, /*known_shapes=*/false);
  EXPECT_EQ(r.status.code(), Code::kInvalidArgument) << r.status.ToString();
  EXPECT_NE(r.status.message().find("'e'"), std::string::npos) << r.status.message();
  r = RunOp("Select", {Bools({2}, {true, true}), t, t}, {}, false);
  EXPECT_EQ(r.status.code(), Code::kInvalidArgument) << r.status.ToString();
  EXPECT_NE(r.status.message().find("'condition'"), std::string::npos) << r.status.message();
  r = RunOp("Select", {Bools({3, 1}, {true, true, true}), t, t}, {}, false);
  EXPECT_EQ(r.status.code(), Code::kInvalidArgument);
  r = RunOp("Select", {Bools({2}, {true, true}), Make<float>({3}, {1, 2, 3}), Make<float>({3}, {1, 2, 3})},
            {}, false);
  EXPECT_EQ(r.status.code(), Code::kInvalidArgument);
}

}  // namespace
}  // namespace tgraph::testing
