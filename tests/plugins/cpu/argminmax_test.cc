// CPU kernels of ArgMax / ArgMin: every registered input dtype, both output types, every axis
// (negative too), ties (first index), NaN (first NaN), rank 1, large inputs on a pool, and
// bad axes.
#include <Eigen/Core>

#include <cmath>
#include <limits>

#include "core/exec/thread_pool.h"
#include "kernel_test_util.h"
#include "typed_tensors.h"

namespace tgraph::testing {

namespace {

Tensor Scalar(int64_t v, DataType dtype = DT_INT32) {
  Tensor t = Tensor::Allocate(dtype, {}).value();
  if (dtype == DT_INT32) {
    t.flat<int32_t>()[0] = static_cast<int32_t>(v);
  } else {
    t.flat<int64_t>()[0] = v;
  }
  return t;
}
std::vector<int64_t> Indices(const Tensor& t) {
  std::vector<int64_t> out;
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    out.push_back(t.dtype() == DT_INT32 ? t.flat<int32_t>()[i] : t.flat<int64_t>()[i]);
  }
  return out;
}
// Index of the first extreme along `axis`; NaN wins at its first position.
std::vector<int64_t> Reference(bool max, const Dims& dims, const std::vector<double>& x, int axis,
                               Dims* out_dims) {
  int64_t A = 1, K = dims[static_cast<size_t>(axis)], B = 1;
  out_dims->clear();
  for (int d = 0; d < static_cast<int>(dims.size()); ++d) {
    if (d == axis) continue;
    out_dims->push_back(dims[static_cast<size_t>(d)]);
    (d < axis ? A : B) *= dims[static_cast<size_t>(d)];
  }
  std::vector<int64_t> out;
  for (int64_t a = 0; a < A; ++a) {
    for (int64_t b = 0; b < B; ++b) {
      int64_t best = 0;
      auto at = [&](int64_t k) { return x[static_cast<size_t>((a * K + k) * B + b)]; };
      for (int64_t k = 1; k < K; ++k) {
        const double v = at(k), cur = at(best);
        if (std::isnan(cur)) break;
        if (std::isnan(v) || (max ? v > cur : v < cur)) best = k;
      }
      out.push_back(best);
    }
  }
  return out;
}

std::vector<double> InputValues(int64_t n, bool boolean) {
  std::vector<double> v;
  for (int64_t i = 0; i < n; ++i) {
    v.push_back(boolean ? static_cast<double>((i * 5 + 1) % 3 == 0)
                        : static_cast<double>((i * 7 + 3) % 11 - 5));  // with ties
  }
  return v;
}

template <typename T>
void CheckArgOps() {
  const std::vector<Dims> shapes = {{7}, {3, 4}, {2, 3, 4}, {2, 1, 5, 3}, {1, 600}, {600, 2}, {3, 5, 300}};
  for (const char* op : {"ArgMax", "ArgMin"}) {
    const bool max = std::string(op) == "ArgMax";
    for (const Dims& dims : shapes) {
      const std::vector<double> x = InputValues(Count(dims), std::is_same_v<T, bool>);
      const int rank = static_cast<int>(dims.size());
      for (int axis = -rank; axis < rank; ++axis) {
        Dims want_dims;
        const std::vector<int64_t> want = Reference(max, dims, x, axis < 0 ? axis + rank : axis, &want_dims);
        for (DataType out_type : {DT_INT64, DT_INT32}) {
          const std::string what = std::string(op) + " " + DataTypeName(DT<T>()) + " " +
                                   PartialShape(dims).ToString() + " axis " + std::to_string(axis) +
                                   " -> " + DataTypeName(out_type);
          auto r = RunOp(op, {Make<T>(dims, x), Scalar(axis, axis % 2 ? DT_INT64 : DT_INT32)},
                         {{"output_type", AttrOfType(out_type)}});
          ASSERT_TRUE(r.status.ok()) << what << ": " << r.status.ToString();
          EXPECT_EQ(r.outputs[0].dtype(), out_type) << what;
          EXPECT_EQ(r.outputs[0].dims(), want_dims) << what;
          EXPECT_EQ(Indices(r.outputs[0]), want) << what;
        }
      }
    }
  }
}

TEST(ArgMinMaxTest, Float) { CheckArgOps<float>(); }
TEST(ArgMinMaxTest, Double) { CheckArgOps<double>(); }
TEST(ArgMinMaxTest, Int32) { CheckArgOps<int32_t>(); }
TEST(ArgMinMaxTest, Int64) { CheckArgOps<int64_t>(); }
TEST(ArgMinMaxTest, Half) { CheckArgOps<half>(); }
TEST(ArgMinMaxTest, Bfloat16) { CheckArgOps<bfloat16>(); }
TEST(ArgMinMaxTest, Bool) { CheckArgOps<bool>(); }

TEST(ArgMinMaxTest, DefaultOutputTypeIsInt64) {
  auto r = RunOp("ArgMax", {Make<float>({3}, {1, 5, 2}), Scalar(0)});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.outputs[0].dtype(), DT_INT64);
  EXPECT_EQ(r.outputs[0].rank(), 0);
  EXPECT_EQ(Indices(r.outputs[0]), std::vector<int64_t>{1});
}

TEST(ArgMinMaxTest, NaNAndTies) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const Tensor x = Make<double>({2, 4}, {1, nan, 3, nan, 2, 2, -1, -1});
  auto mx = RunOp("ArgMax", {x, Scalar(1)});
  ASSERT_TRUE(mx.status.ok());
  EXPECT_EQ(Indices(mx.outputs[0]), (std::vector<int64_t>{1, 0}));
  auto mn = RunOp("ArgMin", {x, Scalar(-1)});
  ASSERT_TRUE(mn.status.ok());
  EXPECT_EQ(Indices(mn.outputs[0]), (std::vector<int64_t>{1, 2}));
  auto col = RunOp("ArgMax", {Make<float>({3, 2}, {1, 2, nan, 2, 5, 7}), Scalar(0)});
  ASSERT_TRUE(col.status.ok());
  EXPECT_EQ(Indices(col.outputs[0]), (std::vector<int64_t>{1, 2}));
}

TEST(ArgMinMaxTest, LargeOnPool) {
  for (const Dims& dims : {Dims{1024, 1024}, Dims{4, 262144}, Dims{1 << 20}}) {
    const std::vector<double> x = [&] {
      std::vector<double> v(static_cast<size_t>(Count(dims)));
      for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>((i * 2654435761u) % 1000003);
      return v;
    }();
    for (int axis = 0; axis < static_cast<int>(dims.size()); ++axis) {
      for (const char* op : {"ArgMax", "ArgMin"}) {
        Dims want_dims;
        const auto want = Reference(std::string(op) == "ArgMax", dims, x, axis, &want_dims);
        auto r = RunOpEx(op, {Make<float>(dims, x), Scalar(axis)}, {}, TestPool());
        ASSERT_TRUE(r.status.ok()) << r.status.ToString();
        EXPECT_EQ(r.outputs[0].dims(), want_dims);
        EXPECT_TRUE(Indices(r.outputs[0]) == want) << op << " " << PartialShape(dims).ToString() << " axis " << axis;
      }
    }
  }
}

TEST(ArgMinMaxTest, BadInputs) {
  const Tensor x = Make<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  for (const char* op : {"ArgMax", "ArgMin"}) {
    auto r = RunOp(op, {x, Scalar(2)});
    EXPECT_EQ(r.status.code(), Code::kInvalidArgument) << op << ": " << r.status.ToString();
    EXPECT_NE(r.status.message().find("node"), std::string::npos) << r.status.message();
    r = RunOp(op, {x, Scalar(-3, DT_INT64)});
    EXPECT_EQ(r.status.code(), Code::kInvalidArgument) << op;
    // An empty axis has no arg-extreme.
    r = RunOp(op, {Make<float>({2, 0}, {}), Scalar(1)});
    EXPECT_EQ(r.status.code(), Code::kInvalidArgument) << op << ": " << r.status.ToString();
    EXPECT_NE(r.status.message().find("empty"), std::string::npos) << r.status.message();
    // A scalar input has no axis.
    r = RunOp(op, {Make<float>({}, {1}), Scalar(0)});
    EXPECT_EQ(r.status.code(), Code::kInvalidArgument) << op << ": " << r.status.ToString();
    // The dimension must be a scalar.
    Tensor vec = Tensor::Allocate(DT_INT32, {1}).value();
    r = RunOp(op, {x, vec}, {}, /*known_shapes=*/false);
    EXPECT_EQ(r.status.code(), Code::kInvalidArgument) << op << ": " << r.status.ToString();
  }
}

}  // namespace
}  // namespace tgraph::testing
