// MatMul on the CPU plugin against a float64 reference, every registered dtype, all
// transpose combinations, odd, empty and large sizes, and bad inputs.
#include "nn_test_util.h"

namespace tgraph::testing {
namespace {

// a is [m, k] (or [k, m] when ta), b is [k, n] (or [n, k] when tb). Returns the product and
// per-element error scales sum_k |a||b|.
void ReferenceMatMul(const std::vector<double>& a, const std::vector<double>& b, int64_t m,
                     int64_t k, int64_t n, bool ta, bool tb, std::vector<double>* out,
                     std::vector<double>* scale) {
  out->assign(static_cast<size_t>(m * n), 0.0);
  scale->assign(out->size(), 0.0);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double s = 0, sc = 0;
      for (int64_t p = 0; p < k; ++p) {
        const double av = a[static_cast<size_t>(ta ? p * m + i : i * k + p)];
        const double bv = b[static_cast<size_t>(tb ? j * k + p : p * n + j)];
        s += av * bv;
        sc += std::abs(av * bv);
      }
      (*out)[static_cast<size_t>(i * n + j)] = s;
      (*scale)[static_cast<size_t>(i * n + j)] = sc;
    }
  }
}

void CheckMatMulOn(ThreadPool* pool, DataType dtype, int64_t m, int64_t k, int64_t n, bool ta,
                   bool tb, uint32_t seed) {
  const std::string what = std::string(DataTypeName(dtype)) + " m=" + std::to_string(m) +
                           " k=" + std::to_string(k) + " n=" + std::to_string(n) +
                           " ta=" + std::to_string(ta) + " tb=" + std::to_string(tb);
  SCOPED_TRACE(what);
  const double lo = dtype == DT_INT32 ? -5 : -1, hi = dtype == DT_INT32 ? 6 : 1;
  const auto a = RandomValues(dtype, m * k, seed, lo, hi);
  const auto b = RandomValues(dtype, k * n, seed + 1, lo, hi);
  std::vector<int64_t> a_dims = ta ? std::vector<int64_t>{k, m} : std::vector<int64_t>{m, k};
  std::vector<int64_t> b_dims = tb ? std::vector<int64_t>{n, k} : std::vector<int64_t>{k, n};
  auto r = RunOpOnPool(pool, "MatMul", {MakeTyped(dtype, a_dims, a), MakeTyped(dtype, b_dims, b)},
                       {{"transpose_a", AttrOfBool(ta)}, {"transpose_b", AttrOfBool(tb)}});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  ASSERT_EQ(r.outputs.size(), 1u);
  EXPECT_EQ(r.outputs[0].dtype(), dtype);
  EXPECT_EQ(r.outputs[0].dims(), (std::vector<int64_t>{m, n}));
  std::vector<double> want, scale;
  ReferenceMatMul(a, b, m, k, n, ta, tb, &want, &scale);
  std::vector<double> tol(scale.size());
  for (size_t i = 0; i < tol.size(); ++i) tol[i] = Epsilon(dtype) * (scale[i] + std::abs(want[i]));
  ExpectClose(ToDoubles(r.outputs[0]), want, tol, what);
}

void CheckMatMul(DataType dtype, int64_t m, int64_t k, int64_t n, bool ta, bool tb, uint32_t seed) {
  for (ThreadPool* pool : Pools()) CheckMatMulOn(pool, dtype, m, k, n, ta, tb, seed);
}

const DataType kDtypes[] = {DT_FLOAT, DT_DOUBLE, DT_HALF, DT_BFLOAT16, DT_INT32};

TEST(MatMulKernelTest, SmallAndOddSizesEveryDtypeAndTranspose) {
  uint32_t seed = 1;
  for (DataType dtype : kDtypes) {
    for (int t = 0; t < 4; ++t) {
      const bool ta = t & 1, tb = t & 2;
      CheckMatMul(dtype, 1, 1, 1, ta, tb, seed++);
      CheckMatMul(dtype, 3, 5, 7, ta, tb, seed++);
      CheckMatMul(dtype, 17, 33, 9, ta, tb, seed++);
      CheckMatMul(dtype, 1, 64, 31, ta, tb, seed++);  // vector times matrix
      CheckMatMul(dtype, 31, 64, 1, ta, tb, seed++);  // matrix times vector
    }
  }
}

TEST(MatMulKernelTest, HandComputed) {
  auto r = RunOp("MatMul", {MakeTensor<float>(DT_FLOAT, {2, 3}, {1, 2, 3, 4, 5, 6}),
                            MakeTensor<float>(DT_FLOAT, {3, 2}, {7, 8, 9, 10, 11, 12})});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<float>(r.outputs[0]), (std::vector<float>{58, 64, 139, 154}));
  auto t = RunOp("MatMul",
                 {MakeTensor<int32_t>(DT_INT32, {2, 2}, {1, 2, 3, 4}),
                  MakeTensor<int32_t>(DT_INT32, {2, 2}, {5, 6, 7, 8})},
                 {{"transpose_a", AttrOfBool(true)}});
  ASSERT_TRUE(t.status.ok()) << t.status.ToString();
  EXPECT_EQ(Values<int32_t>(t.outputs[0]), (std::vector<int32_t>{26, 30, 38, 44}));
}

TEST(MatMulKernelTest, EmptyShapes) {
  for (DataType dtype : kDtypes) {
    CheckMatMul(dtype, 0, 3, 4, false, false, 7);
    CheckMatMul(dtype, 3, 4, 0, false, true, 8);
    CheckMatMul(dtype, 0, 0, 0, true, false, 9);
    // k == 0: a well-defined all-zero product.
    CheckMatMul(dtype, 3, 0, 4, false, false, 10);
    CheckMatMul(dtype, 2, 0, 5, true, true, 11);
  }
}

TEST(MatMulKernelTest, Large) {
  CheckMatMul(DT_FLOAT, 512, 512, 512, false, false, 21);
  CheckMatMul(DT_FLOAT, 300, 257, 129, true, true, 22);
  CheckMatMul(DT_DOUBLE, 512, 512, 512, false, true, 23);
  CheckMatMul(DT_HALF, 128, 256, 96, true, false, 24);
  CheckMatMul(DT_BFLOAT16, 96, 256, 128, false, false, 25);
  CheckMatMul(DT_INT32, 200, 150, 100, false, false, 26);
}

TEST(MatMulKernelTest, UnknownStaticShapesStillRun) {
  auto r = RunOp("MatMul",
                 {MakeTensor<double>(DT_DOUBLE, {1, 2}, {1, 2}),
                  MakeTensor<double>(DT_DOUBLE, {2, 1}, {3, 4})},
                 {}, /*known_shapes=*/false);
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<double>(r.outputs[0]), std::vector<double>{11});
}

TEST(MatMulKernelTest, BadInputs) {
  const Tensor a = MakeTensor<float>(DT_FLOAT, {2, 3}, std::vector<float>(6, 1));
  const Tensor b = MakeTensor<float>(DT_FLOAT, {4, 2}, std::vector<float>(8, 1));
  // Known shapes: rejected while building the node.
  ExpectStatus(RunOp("MatMul", {a, b}).status, Code::kInvalidArgument,
               {"'node'", "[2,3]", "[4,2]"});
  // Unknown static shapes: the kernel rejects them, naming the node.
  ExpectStatus(RunOp("MatMul", {a, b}, {}, false).status, Code::kInvalidArgument,
               {"node", "Matrix size-incompatible", "[2,3]", "[4,2]"});
  ExpectStatus(RunOp("MatMul", {a, b}, {{"transpose_a", AttrOfBool(true)}}, false).status,
               Code::kInvalidArgument, {"node", "transpose_a=true"});
  const Tensor v = MakeTensor<float>(DT_FLOAT, {3}, {1, 2, 3});
  ExpectStatus(RunOp("MatMul", {v, a}, {}, false).status, Code::kInvalidArgument,
               {"node", "2-D", "[3]"});
  // A dtype the op allows but the CPU plugin has no kernel for.
  ExpectStatus(RunOp("MatMul", {MakeTensor<int64_t>(DT_INT64, {1, 1}, {1}),
                                MakeTensor<int64_t>(DT_INT64, {1, 1}, {1})})
                   .status,
               Code::kNotFound, {"MatMul"});
}

}  // namespace
}  // namespace tgraph::testing
