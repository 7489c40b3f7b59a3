// BatchMatMulV2 on the CPU plugin against a float64 reference: batch broadcasting, adjoints,
// every registered dtype, many small and a few large products, empty shapes, bad inputs.
#include "nn_test_util.h"

namespace tgraph::testing {
namespace {


// Reference with NumPy broadcasting of the batch dims; also the error scales sum |x||y|.
void Reference(const std::vector<double>& x, const Dims& xd, const std::vector<double>& y,
               const Dims& yd, bool adj_x, bool adj_y, Dims* out_dims, std::vector<double>* out,
               std::vector<double>* scale) {
  const size_t rx = xd.size(), ry = yd.size();
  const int64_t xr = xd[rx - 2], xc = xd[rx - 1], yr = yd[ry - 2], yc = yd[ry - 1];
  const int64_t m = adj_x ? xc : xr, k = adj_x ? xr : xc, n = adj_y ? yr : yc;
  const size_t rank = std::max(rx, ry) - 2;
  Dims xb(rank, 1), yb(rank, 1), ob(rank);
  for (size_t i = 0; i < rx - 2; ++i) xb[rank - (rx - 2) + i] = xd[i];
  for (size_t i = 0; i < ry - 2; ++i) yb[rank - (ry - 2) + i] = yd[i];
  int64_t batches = 1;
  for (size_t i = 0; i < rank; ++i) {
    ob[i] = std::max(xb[i], yb[i]);
    if (xb[i] == 0 || yb[i] == 0) ob[i] = 0;
    batches *= ob[i];
  }
  *out_dims = ob;
  out_dims->push_back(m);
  out_dims->push_back(n);
  out->assign(static_cast<size_t>(batches * m * n), 0.0);
  scale->assign(out->size(), 0.0);
  for (int64_t b = 0; b < batches; ++b) {
    // Unravel b over ob, then ravel over xb / yb with broadcasting.
    int64_t rem = b, xi = 0, yi = 0, xs = 1, ys = 1;
    for (size_t d = rank; d-- > 0;) {
      const int64_t idx = rem % ob[d];
      rem /= ob[d];
      xi += (xb[d] == 1 ? 0 : idx) * xs;
      yi += (yb[d] == 1 ? 0 : idx) * ys;
      xs *= xb[d];
      ys *= yb[d];
    }
    const double* xm = x.data() + xi * xr * xc;
    const double* ym = y.data() + yi * yr * yc;
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        double s = 0, sc = 0;
        for (int64_t p = 0; p < k; ++p) {
          const double a = adj_x ? xm[p * xc + i] : xm[i * xc + p];
          const double c = adj_y ? ym[j * yc + p] : ym[p * yc + j];
          s += a * c;
          sc += std::abs(a * c);
        }
        (*out)[static_cast<size_t>((b * m + i) * n + j)] = s;
        (*scale)[static_cast<size_t>((b * m + i) * n + j)] = sc;
      }
    }
  }
}

void CheckOn(ThreadPool* pool, DataType dtype, const Dims& xd, const Dims& yd, bool adj_x,
             bool adj_y, uint32_t seed) {
  const std::string what = std::string(DataTypeName(dtype)) + " x=" + PartialShape(xd).ToString() +
                           " y=" + PartialShape(yd).ToString() + " adj_x=" + std::to_string(adj_x) +
                           " adj_y=" + std::to_string(adj_y);
  SCOPED_TRACE(what);
  const auto x = RandomValues(dtype, Count(xd), seed);
  const auto y = RandomValues(dtype, Count(yd), seed + 100);
  auto r = RunOpOnPool(pool, "BatchMatMulV2", {MakeTyped(dtype, xd, x), MakeTyped(dtype, yd, y)},
                       {{"adj_x", AttrOfBool(adj_x)}, {"adj_y", AttrOfBool(adj_y)}});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  Dims want_dims;
  std::vector<double> want, scale;
  Reference(x, xd, y, yd, adj_x, adj_y, &want_dims, &want, &scale);
  EXPECT_EQ(r.outputs[0].dtype(), dtype);
  ASSERT_EQ(r.outputs[0].dims(), want_dims);
  std::vector<double> tol(scale.size());
  for (size_t i = 0; i < tol.size(); ++i) tol[i] = Epsilon(dtype) * (scale[i] + std::abs(want[i]));
  ExpectClose(ToDoubles(r.outputs[0]), want, tol, what);
}

void Check(DataType dtype, const Dims& xd, const Dims& yd, bool adj_x, bool adj_y, uint32_t seed) {
  for (ThreadPool* pool : Pools()) CheckOn(pool, dtype, xd, yd, adj_x, adj_y, seed);
}

const DataType kDtypes[] = {DT_FLOAT, DT_DOUBLE, DT_HALF, DT_BFLOAT16};

TEST(BatchMatMulKernelTest, ShapesAdjointsAndBroadcasting) {
  uint32_t seed = 1;
  for (DataType dtype : kDtypes) {
    for (int t = 0; t < 4; ++t) {
      const bool ax = t & 1, ay = t & 2;
      const int64_t m = 3, k = 5, n = 4;
      auto xs = [&](Dims batch) {
        batch.push_back(ax ? k : m);
        batch.push_back(ax ? m : k);
        return batch;
      };
      auto ys = [&](Dims batch) {
        batch.push_back(ay ? n : k);
        batch.push_back(ay ? k : n);
        return batch;
      };
      Check(dtype, xs({}), ys({}), ax, ay, seed++);             // plain matrices
      Check(dtype, xs({2}), ys({2}), ax, ay, seed++);           // same batch
      Check(dtype, xs({2, 1, 3}), ys({4, 1}), ax, ay, seed++);  // broadcast both ways
      Check(dtype, xs({}), ys({3, 2}), ax, ay, seed++);         // rank-2 x against a batch
      Check(dtype, xs({1}), ys({5}), ax, ay, seed++);           // size-1 batch dim stretches
    }
  }
}

TEST(BatchMatMulKernelTest, ManySmallAndFewLarge) {
  Check(DT_FLOAT, {64, 7, 9}, {64, 9, 5}, false, false, 11);  // many small products side by side
  Check(DT_DOUBLE, {3, 2, 16, 8}, {2, 12, 8}, false, true, 12);
  Check(DT_FLOAT, {2, 200, 130}, {130, 150}, false, false, 13);  // large: each product on the pool
  Check(DT_DOUBLE, {3, 96, 128}, {3, 96, 64}, true, false, 14);
  Check(DT_HALF, {10, 33, 17}, {10, 17, 9}, false, false, 15);
  Check(DT_BFLOAT16, {4, 70, 80}, {1, 80, 70}, false, false, 16);
}

TEST(BatchMatMulKernelTest, EmptyShapes) {
  for (DataType dtype : kDtypes) {
    Check(dtype, {0, 3, 4}, {0, 4, 5}, false, false, 21);  // empty batch
    Check(dtype, {0, 3, 4}, {1, 4, 5}, false, false, 22);  // empty batch broadcast against 1
    Check(dtype, {2, 0, 4}, {2, 4, 5}, false, false, 23);  // m == 0
    Check(dtype, {2, 3, 0}, {2, 0, 5}, false, false, 24);  // k == 0: zeros
    Check(dtype, {2, 3, 4}, {1, 4, 0}, false, false, 25);  // n == 0
  }
}

TEST(BatchMatMulKernelTest, BadInputs) {
  const Tensor x = MakeTyped(DT_FLOAT, {2, 3, 4}, std::vector<double>(24, 1));
  const Tensor y = MakeTyped(DT_FLOAT, {3, 4, 5}, std::vector<double>(60, 1));
  ExpectStatus(RunOp("BatchMatMulV2", {x, y}).status, Code::kInvalidArgument, {"'node'", "batch"});
  ExpectStatus(RunOp("BatchMatMulV2", {x, y}, {}, false).status, Code::kInvalidArgument,
               {"node", "batch dimensions", "[2,3,4]", "[3,4,5]"});
  const Tensor y2 = MakeTyped(DT_FLOAT, {2, 5, 4}, std::vector<double>(40, 1));
  ExpectStatus(RunOp("BatchMatMulV2", {x, y2}, {}, false).status, Code::kInvalidArgument,
               {"node", "Matrix size-incompatible"});
  const Tensor v = MakeTyped(DT_FLOAT, {4}, std::vector<double>(4, 1));
  ExpectStatus(RunOp("BatchMatMulV2", {v, y}, {}, false).status, Code::kInvalidArgument,
               {"node", "rank >= 2", "[4]"});
  ExpectStatus(
      RunOp("BatchMatMulV2", {MakeTyped(DT_INT32, {1, 1}, {1}), MakeTyped(DT_INT32, {1, 1}, {1})})
          .status,
      Code::kNotFound, {"BatchMatMulV2"});
}

}  // namespace
}  // namespace tgraph::testing
