// Softmax and LogSoftmax on the CPU plugin against float64 references: ranks 1..4, large
// logits (stability), empty tensors, float and double, bad inputs.
#include <cmath>

#include "nn_test_util.h"

namespace tgraph::testing {
namespace {


void CheckOn(ThreadPool* pool, const std::string& op, DataType dtype, const Dims& dims,
             uint32_t seed, double lo, double hi) {
  const std::string what =
      op + " " + std::string(DataTypeName(dtype)) + " " + PartialShape(dims).ToString();
  SCOPED_TRACE(what);
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  const auto x = RandomValues(dtype, n, seed, lo, hi);
  auto r = RunOpOnPool(pool, op, {MakeTyped(dtype, dims, x)});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  ASSERT_EQ(r.outputs[0].dims(), dims);
  const int64_t classes = dims.back();
  std::vector<double> want(x.size());
  for (int64_t row = 0; classes > 0 && row < n / classes; ++row) {
    const double* v = x.data() + row * classes;
    double mx = v[0];
    for (int64_t c = 1; c < classes; ++c) mx = std::max(mx, v[c]);
    double sum = 0;
    for (int64_t c = 0; c < classes; ++c) sum += std::exp(v[c] - mx);
    for (int64_t c = 0; c < classes; ++c) {
      want[static_cast<size_t>(row * classes + c)] =
          op == "Softmax" ? std::exp(v[c] - mx) / sum : v[c] - mx - std::log(sum);
    }
  }
  const double tol = dtype == DT_DOUBLE ? 1e-12 : 2e-5;
  ExpectCloseUniform(ToDoubles(r.outputs[0]), want, tol, what);
}

void Check(const std::string& op, DataType dtype, const Dims& dims, uint32_t seed, double lo = -5,
           double hi = 5) {
  for (ThreadPool* pool : Pools()) CheckOn(pool, op, dtype, dims, seed, lo, hi);
}

TEST(SoftmaxKernelTest, Shapes) {
  uint32_t seed = 1;
  for (const char* op : {"Softmax", "LogSoftmax"}) {
    for (DataType dtype : {DT_FLOAT, DT_DOUBLE}) {
      Check(op, dtype, {7}, seed++);
      Check(op, dtype, {1}, seed++);
      Check(op, dtype, {3, 10}, seed++);
      Check(op, dtype, {2, 3, 17}, seed++);
      Check(op, dtype, {2, 2, 2, 33}, seed++);
      Check(op, dtype, {512, 1000}, seed++);
      Check(op, dtype, {4, 1}, seed++);
    }
  }
}

TEST(SoftmaxKernelTest, LargeLogitsAreStable) {
  for (const char* op : {"Softmax", "LogSoftmax"}) {
    for (DataType dtype : {DT_FLOAT, DT_DOUBLE}) {
      Check(op, dtype, {4, 9}, 77, 500, 510);
      Check(op, dtype, {4, 9}, 78, -1000, -990);
    }
  }
  auto r = RunOp("Softmax", {MakeTensor<float>(DT_FLOAT, {2}, {1000, 1000})});
  ASSERT_TRUE(r.status.ok());
  EXPECT_EQ(Values<float>(r.outputs[0]), (std::vector<float>{0.5f, 0.5f}));
}

TEST(SoftmaxKernelTest, EmptyTensors) {
  for (const char* op : {"Softmax", "LogSoftmax"}) {
    for (DataType dtype : {DT_FLOAT, DT_DOUBLE}) {
      Check(op, dtype, {0, 5}, 1);
      Check(op, dtype, {3, 0}, 2);
      Check(op, dtype, {0}, 3);
    }
  }
}

TEST(SoftmaxKernelTest, BadInputs) {
  for (const char* op : {"Softmax", "LogSoftmax"}) {
    const Tensor scalar = MakeTensor<float>(DT_FLOAT, {}, {1});
    ExpectStatus(RunOp(op, {scalar}).status, Code::kInvalidArgument, {"'node'", "rank"});
    ExpectStatus(RunOp(op, {scalar}, {}, false).status, Code::kInvalidArgument,
                 {"node", "rank at least 1"});
    ExpectStatus(RunOp(op, {MakeTyped(DT_HALF, {2}, {1, 2})}).status, Code::kNotFound, {op});
  }
}

}  // namespace
}  // namespace tgraph::testing
