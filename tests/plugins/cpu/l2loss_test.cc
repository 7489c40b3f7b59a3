// L2Loss on the CPU plugin: sum(t ** 2) / 2 against a float64 reference, any rank (rank 0,
// empty, large enough for several parallel blocks), float and double.
#include "nn_test_util.h"

namespace tgraph::testing {
namespace {


void CheckOn(ThreadPool* pool, DataType dtype, const Dims& dims, uint32_t seed) {
  const std::string what = std::string(DataTypeName(dtype)) + " " + PartialShape(dims).ToString();
  SCOPED_TRACE(what);
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  const auto x = RandomValues(dtype, n, seed, -3, 3);
  auto r = RunOpOnPool(pool, "L2Loss", {MakeTyped(dtype, dims, x)});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  ASSERT_EQ(r.outputs[0].rank(), 0);
  EXPECT_EQ(r.outputs[0].dtype(), dtype);
  double want = 0;
  for (double v : x) want += v * v;
  want /= 2;
  const double tol = (dtype == DT_DOUBLE ? 1e-13 : 1e-7) * std::max(want, 1.0);
  ExpectCloseUniform(ToDoubles(r.outputs[0]), {want}, tol, what);
}

void Check(DataType dtype, const Dims& dims, uint32_t seed) {
  for (ThreadPool* pool : Pools()) CheckOn(pool, dtype, dims, seed);
}

TEST(L2LossKernelTest, Shapes) {
  uint32_t seed = 1;
  for (DataType dtype : {DT_FLOAT, DT_DOUBLE}) {
    Check(dtype, {}, seed++);
    Check(dtype, {1}, seed++);
    Check(dtype, {7, 3}, seed++);
    Check(dtype, {2, 3, 4, 5}, seed++);
    Check(dtype, {0}, seed++);
    Check(dtype, {3, 0, 2}, seed++);
    Check(dtype, {1000, 1001}, seed++);  // many blocks
  }
}

TEST(L2LossKernelTest, HandComputed) {
  auto r = RunOp("L2Loss", {MakeTensor<float>(DT_FLOAT, {3}, {1, 2, 3})});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<float>(r.outputs[0]), std::vector<float>{7});
  auto empty = RunOp("L2Loss", {MakeTensor<double>(DT_DOUBLE, {0, 4}, {})});
  ASSERT_TRUE(empty.status.ok());
  EXPECT_EQ(Values<double>(empty.outputs[0]), std::vector<double>{0});
}

TEST(L2LossKernelTest, SameResultEveryRunAndThreadCount) {
  const auto x = RandomValues(DT_FLOAT, 1 << 20, 9);
  const Tensor t = MakeTyped(DT_FLOAT, {1 << 20}, x);
  auto first = RunOp("L2Loss", {t});
  ASSERT_TRUE(first.status.ok());
  for (int i = 0; i < 3; ++i) {
    auto again = RunOpOnPool(TestPool(), "L2Loss", {t});  // any thread count, same sum
    ASSERT_TRUE(again.status.ok());
    EXPECT_EQ(Values<float>(again.outputs[0]), Values<float>(first.outputs[0]));
  }
}

TEST(L2LossKernelTest, UnregisteredDtype) {
  ExpectStatus(RunOp("L2Loss", {MakeTyped(DT_HALF, {2}, {1, 2})}).status, Code::kNotFound,
               {"L2Loss"});
}

}  // namespace
}  // namespace tgraph::testing
