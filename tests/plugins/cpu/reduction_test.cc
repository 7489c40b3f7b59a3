// CPU kernels of Sum, Mean, Prod, Max, Min against a float64 reference reduction: axes as
// scalar or vector, negative and duplicate axes, keep_dims, int32/int64 Tidx, empty inputs,
// rank 0, and large inputs on a pool (every split of the [A, K, B] plan).
#include <cmath>
#include <functional>
#include <limits>
#include <set>

#include "core/exec/thread_pool.h"
#include "kernel_test_util.h"
#include "typed_tensors.h"

namespace tgraph::testing {

namespace {

Tensor Axes(const std::vector<int64_t>& axes, DataType dtype = DT_INT32, bool scalar = false) {
  Dims dims = scalar ? Dims{} : Dims{static_cast<int64_t>(axes.size())};
  Tensor t = Tensor::Allocate(dtype, dims).value();
  for (size_t i = 0; i < axes.size(); ++i) {
    if (dtype == DT_INT32) {
      t.flat<int32_t>()[i] = static_cast<int32_t>(axes[i]);
    } else {
      t.flat<int64_t>()[i] = axes[i];
    }
  }
  return t;
}
enum class Op { kSum, kMean, kProd, kMax, kMin };
const char* Name(Op op) {
  switch (op) {
    case Op::kSum: return "Sum";
    case Op::kMean: return "Mean";
    case Op::kProd: return "Prod";
    case Op::kMax: return "Max";
    case Op::kMin: return "Min";
  }
  return "?";
}

// The reduction of x (shape dims) over `axes` (any sign, duplicates allowed), in double;
// integer Mean truncates like integer division.
std::vector<double> Reference(Op op, const Dims& dims, const std::vector<double>& x,
                              std::vector<int64_t> axes, bool keep_dims, bool integral,
                              Dims* out_dims) {
  const int rank = static_cast<int>(dims.size());
  std::set<int> reduced;
  for (int64_t a : axes) reduced.insert(static_cast<int>(a < 0 ? a + rank : a));
  Dims od, kept;  // kept: output dims without keep_dims' 1s
  int64_t count = 1;
  for (int d = 0; d < rank; ++d) {
    if (reduced.count(d)) {
      count *= dims[static_cast<size_t>(d)];
      if (keep_dims) od.push_back(1);
    } else {
      od.push_back(dims[static_cast<size_t>(d)]);
      kept.push_back(dims[static_cast<size_t>(d)]);
    }
  }
  *out_dims = od;
  const double init = op == Op::kProd ? 1
                      : op == Op::kMax ? -std::numeric_limits<double>::infinity()
                      : op == Op::kMin ? std::numeric_limits<double>::infinity()
                                       : 0;
  std::vector<double> out(static_cast<size_t>(Count(kept)), init);
  for (int64_t flat = 0; flat < Count(dims); ++flat) {
    int64_t rem = flat, o = 0, stride = 1;
    for (int d = rank; d-- > 0;) {
      const int64_t idx = rem % dims[static_cast<size_t>(d)];
      rem /= dims[static_cast<size_t>(d)];
      if (!reduced.count(d)) {
        o += idx * stride;
        stride *= dims[static_cast<size_t>(d)];
      }
    }
    double& acc = out[static_cast<size_t>(o)];
    const double v = x[static_cast<size_t>(flat)];
    switch (op) {
      case Op::kSum:
      case Op::kMean: acc += v; break;
      case Op::kProd: acc *= v; break;
      case Op::kMax: acc = std::max(acc, v); break;
      case Op::kMin: acc = std::min(acc, v); break;
    }
  }
  if (op == Op::kMean) {
    for (double& v : out) {
      if (count == 0) {
        v = integral ? 0 : std::numeric_limits<double>::quiet_NaN();
      } else {
        v = integral ? std::trunc(v / static_cast<double>(count)) : v / static_cast<double>(count);
      }
    }
  }
  if (integral) {  // integer Max/Min over nothing: the type's limits
    for (double& v : out) {
      if (std::isinf(v)) v = v > 0 ? 2147483647.0 : -2147483648.0;
    }
  }
  return out;
}

std::vector<double> InputValues(Op op, int64_t n) {
  std::vector<double> v;
  for (int64_t i = 0; i < n; ++i) {
    if (op == Op::kProd) {
      v.push_back((i * 7 + 3) % 4 == 0 ? 2.0 : (i % 3 == 0 ? -1.0 : 1.0));
    } else {
      v.push_back(static_cast<double>((i * 7 + 3) % 9 - 4));
    }
  }
  return v;
}

struct Case {
  Dims dims;
  std::vector<int64_t> axes;
  bool scalar_axis = false;
};

const std::vector<Case>& Cases() {
  static const std::vector<Case> cases = {
      {{2, 3, 4}, {}},         {{2, 3, 4}, {0}},        {{2, 3, 4}, {1}},
      {{2, 3, 4}, {2}},        {{2, 3, 4}, {-1}},       {{2, 3, 4}, {0, 2}},
      {{2, 3, 4}, {1, 2}},     {{2, 3, 4}, {0, 1}},     {{2, 3, 4}, {0, 1, 2}},
      {{2, 3, 4}, {1, 1}},     {{2, 3, 4}, {-3, 2}},    {{2, 3, 4}, {1}, true},
      {{2, 3, 4}, {-2}, true}, {{2, 3, 2, 3, 2}, {0, 2, 4}}, {{2, 3, 2, 3, 2}, {1, 3}},
      {{2, 3, 2, 3, 2}, {0, 1, 3}}, {{5}, {0}},      {{5}, {0}, true},
      {{}, {}},                {{3, 1, 4}, {1}},        {{3, 1, 4}, {0, 1}},
      {{1, 1}, {0}},           {{0, 3}, {0}},           {{0, 3}, {1}},
      {{2, 0, 3}, {1}},        {{2, 0, 3}, {0, 2}},     {{0}, {0}, true},
      {{7, 1, 9, 1}, {-4, 2}},
  };
  return cases;
}

template <typename T>
void CheckReductions() {
  constexpr bool kIntegral = std::is_integral_v<T>;
  for (Op op : {Op::kSum, Op::kMean, Op::kProd, Op::kMax, Op::kMin}) {
    for (const Case& c : Cases()) {
      for (bool keep : {false, true}) {
        for (DataType tidx : {DT_INT32, DT_INT64}) {
          const std::vector<double> x = InputValues(op, Count(c.dims));
          Dims want_dims;
          std::vector<double> want = Reference(op, c.dims, x, c.axes, keep, kIntegral, &want_dims);
          if (kIntegral && sizeof(T) == 8) {
            for (double& v : want) {
              if (v == 2147483647.0) v = static_cast<double>(std::numeric_limits<int64_t>::max());
              if (v == -2147483648.0) v = static_cast<double>(std::numeric_limits<int64_t>::min());
            }
          }
          std::string axes;
          for (int64_t a : c.axes) axes += std::to_string(a) + ",";
          const std::string what = std::string(Name(op)) + " " + DataTypeName(DT<T>()) + " " +
                                   PartialShape(c.dims).ToString() + " axes {" + axes + "}" +
                                   (keep ? " keep_dims" : "") + " " + DataTypeName(tidx);
          auto r = RunOp(Name(op), {Make<T>(c.dims, x), Axes(c.axes, tidx, c.scalar_axis)},
                         {{"keep_dims", AttrOfBool(keep)}});
          ASSERT_TRUE(r.status.ok()) << what << ": " << r.status.ToString();
          EXPECT_EQ(r.outputs[0].dtype(), DT<T>()) << what;
          EXPECT_EQ(r.outputs[0].dims(), want_dims) << what;
          const std::vector<double> got = Get<T>(r.outputs[0]);
          ASSERT_EQ(got.size(), want.size()) << what;
          for (size_t i = 0; i < got.size(); ++i) {
            if (std::isnan(want[i])) {
              EXPECT_TRUE(std::isnan(got[i])) << what << " at " << i;
            } else if (std::isinf(want[i])) {
              EXPECT_EQ(got[i], want[i]) << what << " at " << i;
            } else {
              EXPECT_NEAR(got[i], want[i], kIntegral ? 0 : 1e-6 * std::max(1.0, std::abs(want[i])))
                  << what << " at " << i;
            }
          }
        }
      }
    }
  }
}

TEST(ReductionTest, Float) { CheckReductions<float>(); }
TEST(ReductionTest, Double) { CheckReductions<double>(); }
TEST(ReductionTest, Int32) { CheckReductions<int32_t>(); }
TEST(ReductionTest, Int64) { CheckReductions<int64_t>(); }

TEST(ReductionTest, NaNPropagatesThroughMaxAndMin) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (const char* op : {"Max", "Min", "Sum"}) {
    auto r = RunOp(op, {Make<float>({2, 3}, {1, nan, 3, 4, 5, 6}), Axes({1})});
    ASSERT_TRUE(r.status.ok()) << r.status.ToString();
    auto v = Get<float>(r.outputs[0]);
    EXPECT_TRUE(std::isnan(v[0])) << op;
    EXPECT_FALSE(std::isnan(v[1])) << op;
    // Along the other axis (the column path).
    r = RunOp(op, {Make<float>({2, 3}, {1, nan, 3, 4, 5, 6}), Axes({0})});
    ASSERT_TRUE(r.status.ok());
    v = Get<float>(r.outputs[0]);
    EXPECT_FALSE(std::isnan(v[0])) << op;
    EXPECT_TRUE(std::isnan(v[1])) << op;
  }
}

TEST(ReductionTest, EmptyReductions) {
  const double inf = std::numeric_limits<double>::infinity();
  auto r = RunOp("Max", {Make<float>({0, 2}, {}), Axes({0})});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Get<float>(r.outputs[0]), (std::vector<double>{-inf, -inf}));
  r = RunOp("Min", {Make<int64_t>({0, 1}, {}), Axes({0})});
  ASSERT_TRUE(r.status.ok());
  EXPECT_EQ(r.outputs[0].flat<int64_t>()[0], std::numeric_limits<int64_t>::max());
  r = RunOp("Prod", {Make<double>({3, 0}, {}), Axes({1}, DT_INT64)});
  ASSERT_TRUE(r.status.ok());
  EXPECT_EQ(Get<double>(r.outputs[0]), (std::vector<double>{1, 1, 1}));
  r = RunOp("Sum", {Make<int32_t>({0}, {}), Axes({}, DT_INT32)});  // nothing reduced: empty
  ASSERT_TRUE(r.status.ok());
  EXPECT_EQ(r.outputs[0].dims(), Dims{0});
}

// Float sums of many small non-integers stay accurate (pairwise/chunked, not one long chain).
TEST(ReductionTest, LongFloatSumsAreAccurate) {
  const int64_t n = 1 << 20;
  const std::vector<double> x(static_cast<size_t>(n), 0.1);
  const double want = static_cast<double>(n) * static_cast<double>(0.1f);
  for (ThreadPool* pool : {static_cast<ThreadPool*>(nullptr), TestPool()}) {
    auto r = RunOpEx("Sum", {Make<float>({n}, x), Axes({0})}, {}, pool);
    ASSERT_TRUE(r.status.ok()) << r.status.ToString();
    EXPECT_NEAR(Get<float>(r.outputs[0])[0] / want, 1.0, 1e-5) << (pool ? "pool" : "inline");
    auto m = RunOpEx("Mean", {Make<float>({1024, 1024}, x), Axes({0, 1})}, {}, pool);
    ASSERT_TRUE(m.status.ok()) << m.status.ToString();
    EXPECT_NEAR(Get<float>(m.outputs[0])[0], 0.1, 1e-6);
  }
}

TEST(ReductionTest, LargeOnPool) {
  struct Big {
    Dims dims;
    std::vector<int64_t> axes;
  };
  const std::vector<Big> cases = {
      {{1 << 20}, {0}},              // one row: K split across the pool
      {{1024, 1024}, {0}},           // columns
      {{1024, 1024}, {1}},           // rows
      {{4, 262144}, {1}},            // few long rows: K split
      {{2, 131072, 4}, {1}},         // few narrow columns: K split with partial rows
      {{64, 64, 256}, {0, 2}},       // two passes
      {{8, 16, 8, 16, 8, 8}, {1, 3, 5}},
  };
  for (const Big& c : cases) {
    for (Op op : {Op::kSum, Op::kMean, Op::kMax, Op::kMin}) {
      const std::vector<double> x = InputValues(op, Count(c.dims));
      Dims want_dims;
      const std::vector<double> want = Reference(op, c.dims, x, c.axes, false, false, &want_dims);
      const std::string what = std::string(Name(op)) + " " + PartialShape(c.dims).ToString();
      for (bool dbl : {false, true}) {
        auto r = dbl ? RunOpEx(Name(op), {Make<double>(c.dims, x), Axes(c.axes)}, {}, TestPool())
                     : RunOpEx(Name(op), {Make<float>(c.dims, x), Axes(c.axes)}, {}, TestPool());
        ASSERT_TRUE(r.status.ok()) << what << ": " << r.status.ToString();
        EXPECT_EQ(r.outputs[0].dims(), want_dims) << what;
        const std::vector<double> got = dbl ? Get<double>(r.outputs[0]) : Get<float>(r.outputs[0]);
        size_t bad = 0;
        for (size_t i = 0; i < got.size(); ++i) {
          if (std::abs(got[i] - want[i]) > 1e-6 * std::max(1.0, std::abs(want[i]))) ++bad;
        }
        EXPECT_EQ(bad, 0u) << what << (dbl ? " double" : " float");
      }
    }
  }
}

TEST(ReductionTest, BadAxes) {
  const Tensor x = Make<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  for (const char* op : {"Sum", "Mean", "Prod", "Max", "Min"}) {
    auto r = RunOp(op, {x, Axes({2})});
    EXPECT_EQ(r.status.code(), Code::kInvalidArgument) << op << ": " << r.status.ToString();
    EXPECT_NE(r.status.message().find("node"), std::string::npos) << r.status.message();
    EXPECT_NE(r.status.message().find("2"), std::string::npos) << r.status.message();
    r = RunOp(op, {x, Axes({0, -3}, DT_INT64)});
    EXPECT_EQ(r.status.code(), Code::kInvalidArgument) << op;
    EXPECT_NE(r.status.message().find("-3"), std::string::npos) << r.status.message();
  }
  // Rank-0 input: no axis is valid.
  auto r = RunOp("Sum", {Make<float>({}, {1}), Axes({0}, DT_INT32, true)});
  EXPECT_EQ(r.status.code(), Code::kInvalidArgument) << r.status.ToString();
  // Axes of rank 2.
  Tensor axes2 = Tensor::Allocate(DT_INT32, {1, 1}).value();
  r = RunOp("Sum", {x, axes2}, {}, /*known_shapes=*/false);
  EXPECT_EQ(r.status.code(), Code::kInvalidArgument) << r.status.ToString();
  EXPECT_NE(r.status.message().find("[1,1]"), std::string::npos) << r.status.message();
}

}  // namespace
}  // namespace tgraph::testing
