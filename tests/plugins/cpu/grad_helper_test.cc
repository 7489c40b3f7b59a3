// CPU kernels of the gradient helpers: ReluGrad, Relu6Grad, EluGrad, SoftplusGrad,
// SigmoidGrad, TanhGrad, SqrtGrad, RsqrtGrad, ReciprocalGrad, Reciprocal, FloorDiv, FloorMod
// and BiasAddGrad, against their formulas evaluated in float64 on the same (rounded) inputs,
// for every registered dtype, inline and on a pool.
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>

#include "nn_test_util.h"

namespace tgraph::testing {
namespace {

// ---- the two-input element-wise gradients ----------------------------------------------

struct GradCase {
  std::string op;
  std::vector<DataType> dtypes;
  double a_lo, a_hi, b_lo, b_hi;                 // value ranges of the two inputs
  std::function<double(double, double)> f;      // the formula
  std::function<double(double, double)> scale;  // size of its intermediate terms
};

const std::vector<DataType> kFloats = {DT_FLOAT, DT_DOUBLE, DT_HALF, DT_BFLOAT16};
const std::vector<DataType> kReals = {DT_FLOAT, DT_DOUBLE, DT_INT32, DT_INT64, DT_HALF,
                                      DT_BFLOAT16};

std::vector<GradCase> GradCases() {
  auto abs_a = [](double a, double) { return std::abs(a); };
  return {
      // (gradients, features / outputs)
      {"ReluGrad", kReals, -3, 3, -8, 8, [](double g, double f) { return f > 0 ? g : 0.0; },
       abs_a},
      {"Relu6Grad", kReals, -3, 3, -8, 8,
       [](double g, double f) { return f > 0 && f < 6 ? g : 0.0; }, abs_a},
      {"EluGrad", kFloats, -3, 3, -1, 3,
       [](double g, double o) { return o < 0 ? g * (o + 1) : g; },
       [](double g, double o) { return std::abs(g) * (std::abs(o) + 1); }},
      {"SoftplusGrad", kFloats, -3, 3, -20, 20,
       [](double g, double f) { return g / (1 + std::exp(-f)); }, abs_a},
      // (y, dy)
      {"SigmoidGrad", kFloats, 0, 1, -3, 3, [](double y, double dy) { return dy * y * (1 - y); },
       [](double y, double dy) { return std::abs(dy) * std::abs(y) * (1 + std::abs(y)); }},
      {"TanhGrad", kFloats, -1, 1, -3, 3, [](double y, double dy) { return dy * (1 - y * y); },
       [](double y, double dy) { return std::abs(dy) * (1 + y * y); }},
      {"SqrtGrad", kFloats, 0.25, 4, -3, 3, [](double y, double dy) { return dy * 0.5 / y; },
       [](double y, double dy) { return std::abs(dy * 0.5 / y); }},
      {"RsqrtGrad", kFloats, 0.25, 2, -3, 3,
       [](double y, double dy) { return -0.5 * y * y * y * dy; },
       [](double y, double dy) { return std::abs(0.5 * y * y * y * dy); }},
      {"ReciprocalGrad", kFloats, -2, 2, -3, 3, [](double y, double dy) { return -dy * y * y; },
       [](double y, double dy) { return std::abs(dy * y * y); }},
  };
}

// Half's subnormals are 2^-24 apart: products of small values lose their relative precision
// there, so each rounding may be off by half that step.
double AbsoluteSlack(DataType dtype) { return dtype == DT_HALF ? 4 * std::ldexp(1.0, -24) : 0; }

void CheckGrad(const GradCase& c, DataType dtype, const Dims& dims, uint32_t seed) {
  SCOPED_TRACE(c.op + " " + DataTypeName(dtype) + " " + PartialShape(dims).ToString());
  const int64_t n = Count(dims);
  const auto a = RandomValues(dtype, n, seed, c.a_lo, c.a_hi);
  const auto b = RandomValues(dtype, n, seed + 7, c.b_lo, c.b_hi);
  std::vector<double> want(a.size()), tol(a.size());
  for (size_t i = 0; i < a.size(); ++i) {
    want[i] = c.f(a[i], b[i]);
    // A few roundings in dtype, relative to the terms' size (exact for integers).
    tol[i] = 8 * Epsilon(dtype) * c.scale(a[i], b[i]) + AbsoluteSlack(dtype);
  }
  for (ThreadPool* pool : Pools()) {
    auto r = RunOpOnPool(pool, c.op, {MakeTyped(dtype, dims, a), MakeTyped(dtype, dims, b)});
    ASSERT_TRUE(r.status.ok()) << r.status.ToString();
    ASSERT_EQ(r.outputs[0].dtype(), dtype);
    ASSERT_EQ(r.outputs[0].dims(), dims);
    ExpectClose(ToDoubles(r.outputs[0]), want, tol, c.op);
  }
}

TEST(GradHelperKernelTest, ElementwiseGradsEveryDtype) {
  uint32_t seed = 1;
  for (const GradCase& c : GradCases()) {
    for (DataType dtype : c.dtypes) {
      CheckGrad(c, dtype, {7}, seed++);
      CheckGrad(c, dtype, {3, 5}, seed++);
      CheckGrad(c, dtype, {129, 257}, seed++);  // big enough to split across the pool
      CheckGrad(c, dtype, {0, 4}, seed++);
    }
  }
}

Tensor F32(Dims dims, const std::vector<float>& v) {
  return MakeTensor<float>(DT_FLOAT, std::move(dims), v);
}

std::vector<float> RunF32(const std::string& op, const std::vector<Tensor>& in) {
  auto r = RunOp(op, in);
  EXPECT_TRUE(r.status.ok()) << op << ": " << r.status.ToString();
  return r.status.ok() ? Values<float>(r.outputs[0]) : std::vector<float>{};
}

// Large enough to be split over the intra-op pool (the blocks' edges fall inside the
// array): every element is still its own gradient.
TEST(GradHelperKernelTest, ElementwiseGradsSplitOverThePool) {
  const int64_t n = (int64_t{1} << 18) + 3;
  std::vector<float> g(static_cast<size_t>(n)), f(static_cast<size_t>(n));
  for (size_t i = 0; i < g.size(); ++i) {
    g[i] = static_cast<float>(i % 1000) * 0.5f;
    f[i] = static_cast<float>(static_cast<int64_t>(i % 7) - 3);
  }
  auto r = RunOpEx("ReluGrad", {MakeTensor(DT_FLOAT, {n}, g), MakeTensor(DT_FLOAT, {n}, f)}, {},
                   TestPool());
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  const float* v = r.outputs[0].flat<float>();
  size_t bad = 0;
  for (size_t i = 0; i < g.size(); ++i) bad += v[i] != (f[i] > 0 ? g[i] : 0.0f);
  EXPECT_EQ(bad, 0u);
}

TEST(GradHelperKernelTest, HandComputedValues) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  // Relu's derivative is 0 at 0 and for NaN; Relu6's is 0 at 0 and at 6.
  EXPECT_EQ(RunF32("ReluGrad", {F32({5}, {1, 2, 3, 4, 5}), F32({5}, {-1, 0, 0.5f, 7, nan})}),
            (std::vector<float>{0, 0, 3, 4, 0}));
  EXPECT_EQ(RunF32("Relu6Grad", {F32({5}, {1, 2, 3, 4, 5}), F32({5}, {-1, 0, 3, 6, 7})}),
            (std::vector<float>{0, 0, 3, 0, 0}));
  EXPECT_EQ(RunF32("EluGrad", {F32({3}, {2, 2, 2}), F32({3}, {-0.5f, 0, 2})}),
            (std::vector<float>{1, 2, 2}));
  EXPECT_EQ(RunF32("SoftplusGrad", {F32({3}, {2, 2, 2}), F32({3}, {0, 200, -200})}),
            (std::vector<float>{1, 2, 0}));
  EXPECT_EQ(RunF32("SigmoidGrad", {F32({2}, {0.5f, 0.25f}), F32({2}, {4, 16})}),
            (std::vector<float>{1, 3}));
  EXPECT_EQ(RunF32("TanhGrad", {F32({2}, {0.5f, -1}), F32({2}, {4, 3})}),
            (std::vector<float>{3, 0}));
  EXPECT_EQ(RunF32("SqrtGrad", {F32({2}, {2, 0.5f}), F32({2}, {3, 1})}),
            (std::vector<float>{0.75f, 1}));
  EXPECT_EQ(RunF32("RsqrtGrad", {F32({2}, {2, 0.5f}), F32({2}, {1, -8})}),
            (std::vector<float>{-4, 0.5f}));
  EXPECT_EQ(RunF32("ReciprocalGrad", {F32({2}, {2, -0.5f}), F32({2}, {3, 4})}),
            (std::vector<float>{-12, -1}));
  const auto rec = RunF32("Reciprocal", {F32({4}, {2, -4, 0.5f, 0})});
  ASSERT_EQ(rec.size(), 4u);
  EXPECT_EQ(rec[0], 0.5f);
  EXPECT_EQ(rec[1], -0.25f);
  EXPECT_EQ(rec[2], 2.0f);
  EXPECT_TRUE(std::isinf(rec[3]) && rec[3] > 0);
}

TEST(GradHelperKernelTest, ReciprocalEveryDtype) {
  uint32_t seed = 100;
  for (DataType dtype : kFloats) {
    for (const Dims& dims : {Dims{6}, Dims{40, 300}, Dims{0}}) {
      SCOPED_TRACE(std::string(DataTypeName(dtype)) + " " + PartialShape(dims).ToString());
      auto x = RandomValues(dtype, Count(dims), seed++, 0.125, 4);
      for (size_t i = 0; i < x.size(); i += 2) x[i] = -x[i];
      std::vector<double> want, tol;
      for (double v : x) {
        want.push_back(1 / v);
        tol.push_back(2 * Epsilon(dtype) * std::abs(1 / v));
      }
      for (ThreadPool* pool : Pools()) {
        auto r = RunOpOnPool(pool, "Reciprocal", {MakeTyped(dtype, dims, x)});
        ASSERT_TRUE(r.status.ok()) << r.status.ToString();
        ASSERT_EQ(r.outputs[0].dims(), dims);
        ExpectClose(ToDoubles(r.outputs[0]), want, tol, "Reciprocal");
      }
    }
  }
}

TEST(GradHelperKernelTest, OutputGradsTakeYShapeForEqualSizes) {
  // TensorFlow's y/dy gradients need one element count, not one shape (when static shapes
  // are unknown): the output has y's shape.
  auto r = RunOp("SigmoidGrad", {F32({2, 3}, {0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f}),
                                 F32({6}, {4, 8, 4, 8, 4, 8})},
                 {}, /*known_shapes=*/false);
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.outputs[0].dims(), (Dims{2, 3}));
  EXPECT_EQ(Values<float>(r.outputs[0]), (std::vector<float>{1, 2, 1, 2, 1, 2}));
}

TEST(GradHelperKernelTest, ElementwiseGradsRejectMismatchedInputs) {
  const Tensor t23 = F32({2, 3}, std::vector<float>(6, 1));
  const Tensor t32 = F32({3, 2}, std::vector<float>(6, 1));
  const Tensor t5 = F32({5}, std::vector<float>(5, 1));
  for (const char* op : {"ReluGrad", "Relu6Grad", "SoftplusGrad"}) {
    ExpectStatus(RunOp(op, {t23, t32}, {}, false).status, Code::kInvalidArgument,
                 {"node", "gradients and features must have the same shape", "[2,3]", "[3,2]"});
  }
  ExpectStatus(RunOp("EluGrad", {t23, t32}, {}, false).status, Code::kInvalidArgument,
               {"node", "gradients and outputs must have the same shape"});
  for (const char* op : {"SigmoidGrad", "TanhGrad", "SqrtGrad", "RsqrtGrad", "ReciprocalGrad"}) {
    ExpectStatus(RunOp(op, {t23, t5}, {}, false).status, Code::kInvalidArgument,
                 {"node", "y and dy must have the same number of elements", "[2,3]", "[5]"});
  }
  // With static shapes the mismatch is caught when the node is built.
  ExpectStatus(RunOp("ReluGrad", {t23, t32}).status, Code::kInvalidArgument, {"ReluGrad"});
  // Types without a kernel here.
  ExpectStatus(RunOp("ReluGrad", {MakeTensor<uint8_t>(DT_UINT8, {1}, {1}),
                                  MakeTensor<uint8_t>(DT_UINT8, {1}, {1})})
                   .status,
               Code::kNotFound, {"ReluGrad"});
  ExpectStatus(RunOp("Reciprocal", {MakeTensor<int32_t>(DT_INT32, {1}, {1})}).status,
               Code::kNotFound, {"Reciprocal"});
}

// ---- FloorDiv, FloorMod ------------------------------------------------------------------

double FloorDivRef(double x, double y) { return std::floor(x / y); }
double FloorModRef(double x, double y) {
  const double r = std::fmod(x, y);
  return r != 0 && ((r < 0) != (y < 0)) ? r + y : r;
}

// NumPy broadcasting, the slow obvious way.
std::vector<double> BroadcastRef(const Dims& ad, const std::vector<double>& a, const Dims& bd,
                                 const std::vector<double>& b,
                                 const std::function<double(double, double)>& f, Dims* out_dims) {
  const size_t rank = std::max(ad.size(), bd.size());
  auto dim_of = [&](const Dims& d, size_t i) {
    return i + d.size() >= rank ? d[i + d.size() - rank] : int64_t{1};
  };
  Dims od(rank);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t da = dim_of(ad, i), db = dim_of(bd, i);
    od[i] = da == 1 ? db : da;
  }
  *out_dims = od;
  std::vector<double> out;
  for (int64_t flat = 0; flat < Count(od); ++flat) {
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

// Dividends in [-20, 20] (halves for floating types), nonzero divisors in [-5, 5]: every
// value, quotient and remainder is exact in every dtype, so results compare exactly.
std::vector<double> Dividends(DataType dtype, int64_t n) {
  const bool integral = dtype == DT_INT32 || dtype == DT_INT64;
  std::vector<double> v;
  for (int64_t i = 0; i < n; ++i) {
    v.push_back(static_cast<double>((i * 7 + 3) % 41 - 20) + (integral || i % 2 ? 0.0 : 0.5));
  }
  return v;
}
std::vector<double> Divisors(int64_t n) {
  std::vector<double> v;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t y = (i * 5 + 1) % 11 - 5;
    v.push_back(static_cast<double>(y == 0 ? 3 : y));
  }
  return v;
}

TEST(GradHelperKernelTest, FloorDivModBroadcastEveryDtype) {
  const std::vector<std::pair<Dims, Dims>> shapes = {
      {{6}, {6}},       {{2, 3}, {3}},  {{4, 1}, {1, 5}}, {{}, {7}},        {{7}, {}},
      {{2, 1, 3}, {4, 1}}, {{0, 3}, {3}}, {{3, 1}, {3, 0}}, {{300, 129}, {129}},
      {{2, 3, 4, 5}, {3, 1, 5}}, {{}, {}}};
  for (const char* op : {"FloorDiv", "FloorMod"}) {
    const auto f = std::string(op) == "FloorDiv" ? FloorDivRef : FloorModRef;
    for (DataType dtype : kReals) {
      for (const auto& [ad, bd] : shapes) {
        SCOPED_TRACE(std::string(op) + " " + DataTypeName(dtype) + " " +
                     PartialShape(ad).ToString() + " vs " + PartialShape(bd).ToString());
        const auto a = Dividends(dtype, Count(ad));
        const auto b = Divisors(Count(bd));
        Dims od;
        const auto want = BroadcastRef(ad, a, bd, b, f, &od);
        for (ThreadPool* pool : Pools()) {
          auto r = RunOpOnPool(pool, op, {MakeTyped(dtype, ad, a), MakeTyped(dtype, bd, b)});
          ASSERT_TRUE(r.status.ok()) << r.status.ToString();
          ASSERT_EQ(r.outputs[0].dtype(), dtype);
          ASSERT_EQ(r.outputs[0].dims(), od);
          ExpectClose(ToDoubles(r.outputs[0]), want, {}, op);
        }
      }
    }
  }
}

template <typename T>
void CheckIntegerEdges(DataType dtype) {
  SCOPED_TRACE(DataTypeName(dtype));
  const T lo = std::numeric_limits<T>::min(), hi = std::numeric_limits<T>::max();
  const std::vector<T> x = {-7, 7, -7, 7, 6, -6, 0, lo, lo, hi, lo, hi};
  const std::vector<T> y = {2, -2, -2, 2, 3, 3, -4, -1, 1, -1, hi, lo};
  const Dims dims = {static_cast<int64_t>(x.size())};
  auto div = RunOp("FloorDiv", {MakeTensor<T>(dtype, dims, x), MakeTensor<T>(dtype, dims, y)});
  ASSERT_TRUE(div.status.ok()) << div.status.ToString();
  // lo / -1 does not fit: it wraps around to lo (two's complement) instead of trapping.
  EXPECT_EQ(Values<T>(div.outputs[0]),
            (std::vector<T>{-4, -4, 3, 3, 2, -2, 0, lo, lo, static_cast<T>(-hi), -2, -1}));
  auto mod = RunOp("FloorMod", {MakeTensor<T>(dtype, dims, x), MakeTensor<T>(dtype, dims, y)});
  ASSERT_TRUE(mod.status.ok()) << mod.status.ToString();
  EXPECT_EQ(Values<T>(mod.outputs[0]),
            (std::vector<T>{1, -1, -1, 1, 0, 0, 0, 0, 0, 0, static_cast<T>(hi - 1), -1}));
}

TEST(GradHelperKernelTest, FloorDivModIntegerEdges) {
  CheckIntegerEdges<int32_t>(DT_INT32);
  CheckIntegerEdges<int64_t>(DT_INT64);
}

TEST(GradHelperKernelTest, FloorDivModOnShapeVectors) {
  // What gradient code does with int32 shapes: input shape // reduced shape.
  auto r = RunOp("FloorDiv", {MakeTensor<int32_t>(DT_INT32, {3}, {6, 4, 8}),
                              MakeTensor<int32_t>(DT_INT32, {3}, {1, 4, 1})});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<int32_t>(r.outputs[0]), (std::vector<int32_t>{6, 1, 8}));
  // (axes + rank) % rank maps negative axes.
  auto m = RunOp("FloorMod", {MakeTensor<int32_t>(DT_INT32, {3}, {-1, 0, -3}),
                              MakeTensor<int32_t>(DT_INT32, {}, {3})});
  ASSERT_TRUE(m.status.ok()) << m.status.ToString();
  EXPECT_EQ(Values<int32_t>(m.outputs[0]), (std::vector<int32_t>{2, 0, 0}));
}

TEST(GradHelperKernelTest, FloorDivModFloatSpecials) {
  EXPECT_EQ(RunF32("FloorDiv", {F32({3}, {7.5f, -7.5f, 7.5f}), F32({3}, {2, 2, -2})}),
            (std::vector<float>{3, -4, -4}));
  EXPECT_EQ(RunF32("FloorMod", {F32({3}, {7.5f, -7.5f, 7.5f}), F32({3}, {2, 2, -2})}),
            (std::vector<float>{1.5f, 0.5f, -0.5f}));
  // Floating division by zero is not an error.
  const auto div = RunF32("FloorDiv", {F32({2}, {1, -1}), F32({2}, {0, 0})});
  ASSERT_EQ(div.size(), 2u);
  EXPECT_TRUE(std::isinf(div[0]) && div[0] > 0);
  EXPECT_TRUE(std::isinf(div[1]) && div[1] < 0);
  const auto mod = RunF32("FloorMod", {F32({1}, {1}), F32({1}, {0})});
  ASSERT_EQ(mod.size(), 1u);
  EXPECT_TRUE(std::isnan(mod[0]));
}

TEST(GradHelperKernelTest, FloorDivModErrors) {
  for (const char* op : {"FloorDiv", "FloorMod"}) {
    ExpectStatus(RunOp(op, {MakeTensor<int32_t>(DT_INT32, {3}, {1, 2, 3}),
                            MakeTensor<int32_t>(DT_INT32, {3}, {1, 0, 1})})
                     .status,
                 Code::kInvalidArgument, {"node", "Integer division by zero"});
    ExpectStatus(RunOp(op, {MakeTensor<int64_t>(DT_INT64, {2, 1}, {1, 2}),
                            MakeTensor<int64_t>(DT_INT64, {}, {0})})
                     .status,
                 Code::kInvalidArgument, {"node", "Integer division by zero"});
    ExpectStatus(RunOp(op, {F32({2, 3}, std::vector<float>(6, 1)), F32({4}, {1, 1, 1, 1})}, {},
                       /*known_shapes=*/false)
                     .status,
                 Code::kInvalidArgument, {"node", "Incompatible shapes", "[2,3]", "[4]"});
    ExpectStatus(RunOp(op, {MakeTensor<uint8_t>(DT_UINT8, {1}, {1}),
                            MakeTensor<uint8_t>(DT_UINT8, {1}, {1})})
                     .status,
                 Code::kNotFound, {op});
  }
}

// ---- BiasAddGrad -----------------------------------------------------------------------

void CheckBiasAddGrad(DataType dtype, const Dims& dims, bool nchw, uint32_t seed) {
  SCOPED_TRACE(std::string(DataTypeName(dtype)) + " " + PartialShape(dims).ToString() +
               (nchw ? " NCHW" : " NHWC"));
  const int64_t n = Count(dims);
  const size_t channel_dim = nchw ? 1 : dims.size() - 1;
  const int64_t channels = dims[channel_dim];
  int64_t inner = 1;
  for (size_t i = channel_dim + 1; i < dims.size(); ++i) inner *= dims[i];
  const auto x = RandomValues(dtype, n, seed, -10, 10);
  std::vector<double> want(static_cast<size_t>(channels), 0.0), mag(want.size(), 0.0);
  for (int64_t i = 0; i < n; ++i) {
    const auto c = static_cast<size_t>((i / inner) % channels);
    want[c] += x[static_cast<size_t>(i)];
    mag[c] += std::abs(x[static_cast<size_t>(i)]);
  }
  std::vector<double> tol;
  for (double m : mag) tol.push_back(2 * Epsilon(dtype) * std::max(1.0, m));
  AttrMap attrs;
  if (nchw) attrs["data_format"] = AttrOfString("NCHW");
  for (ThreadPool* pool : Pools()) {
    auto r = RunOpOnPool(pool, "BiasAddGrad", {MakeTyped(dtype, dims, x)}, attrs);
    ASSERT_TRUE(r.status.ok()) << r.status.ToString();
    ASSERT_EQ(r.outputs[0].dims(), (Dims{channels}));
    ExpectClose(ToDoubles(r.outputs[0]), want, tol, "BiasAddGrad");
  }
}

TEST(GradHelperKernelTest, BiasAddGradNhwcAndNchw) {
  uint32_t seed = 1;
  for (DataType dtype : {DT_FLOAT, DT_DOUBLE}) {
    CheckBiasAddGrad(dtype, {3, 5}, false, seed++);
    CheckBiasAddGrad(dtype, {2, 3, 4, 7}, false, seed++);
    CheckBiasAddGrad(dtype, {1, 1}, false, seed++);
    CheckBiasAddGrad(dtype, {1, 40000}, false, seed++);   // one row: per-channel split
    CheckBiasAddGrad(dtype, {512, 130}, false, seed++);   // many rows: sharded partial sums
    CheckBiasAddGrad(dtype, {2, 3, 2, 2, 9}, false, seed++);
    CheckBiasAddGrad(dtype, {2, 3, 4}, true, seed++);
    CheckBiasAddGrad(dtype, {2, 5, 4, 3}, true, seed++);
    CheckBiasAddGrad(dtype, {1, 64, 33, 33}, true, seed++);  // small batch: per channel
    CheckBiasAddGrad(dtype, {8, 16, 33, 33}, true, seed++);
  }
}

TEST(GradHelperKernelTest, BiasAddGradHandComputedAndEmpty) {
  auto r = RunOp("BiasAddGrad", {F32({2, 3}, {1, 2, 3, 4, 5, 6})});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<float>(r.outputs[0]), (std::vector<float>{5, 7, 9}));
  auto c = RunOp("BiasAddGrad", {F32({1, 2, 2}, {1, 2, 3, 4})},
                 {{"data_format", AttrOfString("NCHW")}});
  ASSERT_TRUE(c.status.ok()) << c.status.ToString();
  EXPECT_EQ(Values<float>(c.outputs[0]), (std::vector<float>{3, 7}));
  // Nothing to sum: zeros, one per channel.
  auto e = RunOp("BiasAddGrad", {F32({0, 3}, {})});
  ASSERT_TRUE(e.status.ok()) << e.status.ToString();
  EXPECT_EQ(Values<float>(e.outputs[0]), (std::vector<float>{0, 0, 0}));
  auto e2 = RunOp("BiasAddGrad", {F32({2, 3, 0, 5}, {})}, {{"data_format", AttrOfString("NCHW")}});
  ASSERT_TRUE(e2.status.ok()) << e2.status.ToString();
  EXPECT_EQ(Values<float>(e2.outputs[0]), (std::vector<float>{0, 0, 0}));
  auto e3 = RunOp("BiasAddGrad", {F32({2, 0}, {})});
  ASSERT_TRUE(e3.status.ok()) << e3.status.ToString();
  EXPECT_EQ(e3.outputs[0].dims(), (Dims{0}));
}

TEST(GradHelperKernelTest, BiasAddGradBadInputs) {
  ExpectStatus(RunOp("BiasAddGrad", {F32({3}, {1, 2, 3})}, {}, false).status,
               Code::kInvalidArgument, {"node", "rank at least 2", "[3]"});
  ExpectStatus(RunOp("BiasAddGrad", {F32({2, 3}, std::vector<float>(6, 1))},
                     {{"data_format", AttrOfString("NCHW")}}, false)
                   .status,
               Code::kInvalidArgument, {"node", "rank at least 3", "NCHW"});
  ExpectStatus(RunOp("BiasAddGrad", {F32({3}, {1, 2, 3})}).status, Code::kInvalidArgument,
               {"BiasAddGrad", "rank at least 2"});
  ExpectStatus(RunOp("BiasAddGrad", {MakeTensor<int32_t>(DT_INT32, {1, 1}, {1})}).status,
               Code::kNotFound, {"BiasAddGrad"});
}

}  // namespace
}  // namespace tgraph::testing
