// SoftmaxCrossEntropyWithLogits and SparseSoftmaxCrossEntropyWithLogits on the CPU plugin
// against float64 references: both outputs, broadcasting of features and labels, int32 and
// int64 labels, empty batches, large logits, bad inputs (out-of-range labels name the index).
#include <cmath>

#include "nn_test_util.h"

namespace tgraph::testing {
namespace {


// loss and backprop for one row given the features and dense labels of that row.
void RowReference(const std::vector<double>& f, const std::vector<double>& l, double* loss,
                  std::vector<double>* backprop) {
  double mx = -INFINITY;
  for (double v : f) mx = std::max(mx, v);
  double sum = 0;
  for (double v : f) sum += std::exp(v - mx);
  const double log_sum = std::log(sum) + mx;
  *loss = 0;
  backprop->resize(f.size());
  for (size_t c = 0; c < f.size(); ++c) {
    *loss += l[c] * (log_sum - f[c]);
    (*backprop)[c] = std::exp(f[c] - log_sum) - l[c];
  }
}

double Tol(DataType dtype) { return dtype == DT_DOUBLE ? 1e-11 : 5e-5; }

// Loss tolerances grow with the loss (a sum over the classes).
std::vector<double> LossTol(DataType dtype, const std::vector<double>& loss) {
  std::vector<double> tol;
  for (double l : loss) tol.push_back(Tol(dtype) * 10 * std::max(1.0, std::abs(l)));
  return tol;
}

void CheckDenseOn(ThreadPool* pool, DataType dtype, const Dims& fd, const Dims& ld, uint32_t seed) {
  const std::string what = std::string(DataTypeName(dtype)) + " features " +
                           PartialShape(fd).ToString() + " labels " + PartialShape(ld).ToString();
  SCOPED_TRACE(what);
  const auto f = RandomValues(dtype, Count(fd), seed, -4, 4);
  auto l = RandomValues(dtype, Count(ld), seed + 1, 0, 1);  // need not sum to 1
  auto r = RunOpOnPool(pool, "SoftmaxCrossEntropyWithLogits",
                       {MakeTyped(dtype, fd, f), MakeTyped(dtype, ld, l)});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  // Broadcast both to [batch, classes].
  Dims f2 = fd, l2 = ld;
  while (f2.size() < 2) f2.insert(f2.begin(), 1);
  while (l2.size() < 2) l2.insert(l2.begin(), 1);
  const int64_t batch = std::max(f2[0], l2[0]) * (f2[0] && l2[0] ? 1 : 0);
  const int64_t classes = std::max(f2[1], l2[1]) * (f2[1] && l2[1] ? 1 : 0);
  ASSERT_EQ(r.outputs.size(), 2u);
  ASSERT_EQ(r.outputs[0].dims(), Dims{batch});
  ASSERT_EQ(r.outputs[1].dims(), (Dims{batch, classes}));
  std::vector<double> want_loss, want_bp;
  for (int64_t b = 0; b < batch; ++b) {
    std::vector<double> fr(static_cast<size_t>(classes)), lr(fr.size()), bp;
    for (int64_t c = 0; c < classes; ++c) {
      fr[static_cast<size_t>(c)] =
          f[static_cast<size_t>((f2[0] == 1 ? 0 : b) * f2[1] + (f2[1] == 1 ? 0 : c))];
      lr[static_cast<size_t>(c)] =
          l[static_cast<size_t>((l2[0] == 1 ? 0 : b) * l2[1] + (l2[1] == 1 ? 0 : c))];
    }
    double loss;
    RowReference(fr, lr, &loss, &bp);
    want_loss.push_back(loss);
    want_bp.insert(want_bp.end(), bp.begin(), bp.end());
  }
  ExpectClose(ToDoubles(r.outputs[0]), want_loss, LossTol(dtype, want_loss), what + " loss");
  ExpectCloseUniform(ToDoubles(r.outputs[1]), want_bp, Tol(dtype), what + " backprop");
}

void CheckDense(DataType dtype, const Dims& fd, const Dims& ld, uint32_t seed) {
  for (ThreadPool* pool : Pools()) CheckDenseOn(pool, dtype, fd, ld, seed);
}

TEST(SoftmaxXentKernelTest, Dense) {
  uint32_t seed = 1;
  for (DataType dtype : {DT_FLOAT, DT_DOUBLE}) {
    CheckDense(dtype, {4, 10}, {4, 10}, seed++);
    CheckDense(dtype, {1, 1}, {1, 1}, seed++);
    CheckDense(dtype, {64, 1000}, {64, 1000}, seed++);
    CheckDense(dtype, {5, 7}, {7}, seed++);     // one label row for every example
    CheckDense(dtype, {1, 7}, {5, 7}, seed++);  // one feature row for every label row
    CheckDense(dtype, {5, 7}, {5, 1}, seed++);  // labels broadcast along classes
    CheckDense(dtype, {0, 7}, {0, 7}, seed++);  // empty batch
    CheckDense(dtype, {3, 0}, {3, 0}, seed++);  // no classes: zero loss
  }
}

TEST(SoftmaxXentKernelTest, DenseHandComputed) {
  // Uniform logits, one-hot labels: loss = log(4), backprop = 0.25 - onehot.
  auto r =
      RunOp("SoftmaxCrossEntropyWithLogits", {MakeTensor<double>(DT_DOUBLE, {1, 4}, {2, 2, 2, 2}),
                                              MakeTensor<double>(DT_DOUBLE, {1, 4}, {0, 1, 0, 0})});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_NEAR(Values<double>(r.outputs[0])[0], std::log(4.0), 1e-15);
  ExpectCloseUniform(ToDoubles(r.outputs[1]), {0.25, -0.75, 0.25, 0.25}, 1e-15, "backprop");
  // Huge logits stay finite.
  auto big =
      RunOp("SoftmaxCrossEntropyWithLogits", {MakeTensor<float>(DT_FLOAT, {1, 2}, {1000, -1000}),
                                              MakeTensor<float>(DT_FLOAT, {1, 2}, {0, 1})});
  ASSERT_TRUE(big.status.ok());
  EXPECT_FLOAT_EQ(Values<float>(big.outputs[0])[0], 2000.0f);
}

template <typename L>
void CheckSparseOn(ThreadPool* pool, DataType dtype, DataType label_dtype, int64_t batch,
                   int64_t classes, uint32_t seed) {
  const std::string what = std::string(DataTypeName(dtype)) + "/" +
                           std::string(DataTypeName(label_dtype)) + " batch " +
                           std::to_string(batch) + " classes " + std::to_string(classes);
  SCOPED_TRACE(what);
  const auto f = RandomValues(dtype, batch * classes, seed, -4, 4);
  std::vector<L> labels(static_cast<size_t>(batch));
  for (int64_t b = 0; b < batch; ++b)
    labels[static_cast<size_t>(b)] = static_cast<L>((b * 7 + seed) % classes);
  auto r = RunOpOnPool(
      pool, "SparseSoftmaxCrossEntropyWithLogits",
      {MakeTyped(dtype, {batch, classes}, f), MakeTensor<L>(label_dtype, {batch}, labels)});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  ASSERT_EQ(r.outputs[0].dims(), Dims{batch});
  ASSERT_EQ(r.outputs[1].dims(), (Dims{batch, classes}));
  std::vector<double> want_loss, want_bp;
  for (int64_t b = 0; b < batch; ++b) {
    std::vector<double> fr(f.begin() + b * classes, f.begin() + (b + 1) * classes);
    std::vector<double> onehot(static_cast<size_t>(classes), 0.0), bp;
    onehot[static_cast<size_t>(labels[static_cast<size_t>(b)])] = 1;
    double loss;
    RowReference(fr, onehot, &loss, &bp);
    want_loss.push_back(loss);
    want_bp.insert(want_bp.end(), bp.begin(), bp.end());
  }
  ExpectClose(ToDoubles(r.outputs[0]), want_loss, LossTol(dtype, want_loss), what + " loss");
  ExpectCloseUniform(ToDoubles(r.outputs[1]), want_bp, Tol(dtype), what + " backprop");
}

template <typename L>
void CheckSparse(DataType dtype, DataType label_dtype, int64_t batch, int64_t classes,
                 uint32_t seed) {
  for (ThreadPool* pool : Pools()) {
    CheckSparseOn<L>(pool, dtype, label_dtype, batch, classes, seed);
  }
}

TEST(SparseSoftmaxXentKernelTest, Int32AndInt64Labels) {
  uint32_t seed = 1;
  for (DataType dtype : {DT_FLOAT, DT_DOUBLE}) {
    CheckSparse<int32_t>(dtype, DT_INT32, 4, 10, seed++);
    CheckSparse<int64_t>(dtype, DT_INT64, 4, 10, seed++);
    CheckSparse<int32_t>(dtype, DT_INT32, 1, 1, seed++);
    CheckSparse<int64_t>(dtype, DT_INT64, 300, 1001, seed++);
    CheckSparse<int32_t>(dtype, DT_INT32, 0, 5, seed++);  // empty batch
    CheckSparse<int64_t>(dtype, DT_INT64, 0, 5, seed++);
  }
}

TEST(SparseSoftmaxXentKernelTest, BadInputs) {
  const std::string op = "SparseSoftmaxCrossEntropyWithLogits";
  const Tensor f = MakeTyped(DT_FLOAT, {4, 5}, std::vector<double>(20, 0));
  // Out of range labels: the first bad index is named.
  for (bool known : {true, false}) {
    auto r = RunOp(op, {f, MakeTensor<int32_t>(DT_INT32, {4}, {0, 4, 5, 1})}, {}, known);
    ExpectStatus(r.status, Code::kInvalidArgument, {"node", "labels[2] = 5", "[0, 5)"});
    ExpectStatus(
        RunOp(op, {f, MakeTensor<int64_t>(DT_INT64, {4}, {0, -1, 2, 3})}, {}, known).status,
        Code::kInvalidArgument, {"node", "labels[1] = -1"});
  }
  ExpectStatus(
      RunOp(op, {f, MakeTensor<int64_t>(DT_INT64, {4}, {0, 1, 2, int64_t{1} << 40})}).status,
      Code::kInvalidArgument, {"labels[3] = 1099511627776"});
  // Shapes.
  ExpectStatus(RunOp(op, {f, MakeTensor<int32_t>(DT_INT32, {3}, {0, 1, 2})}).status,
               Code::kInvalidArgument, {"'node'", "batch"});
  ExpectStatus(RunOp(op, {f, MakeTensor<int32_t>(DT_INT32, {3}, {0, 1, 2})}, {}, false).status,
               Code::kInvalidArgument, {"node", "[4,5]", "[3]"});
  ExpectStatus(RunOp(op,
                     {MakeTyped(DT_FLOAT, {20}, std::vector<double>(20, 0)),
                      MakeTensor<int32_t>(DT_INT32, {20}, std::vector<int32_t>(20, 0))},
                     {}, false)
                   .status,
               Code::kInvalidArgument, {"node", "2-D"});
  ExpectStatus(
      RunOp(op, {MakeTyped(DT_FLOAT, {2, 0}, {}), MakeTensor<int32_t>(DT_INT32, {2}, {0, 0})})
          .status,
      Code::kInvalidArgument, {"node", "at least one class"});
}

TEST(SoftmaxXentKernelTest, BadInputs) {
  const std::string op = "SoftmaxCrossEntropyWithLogits";
  const Tensor f = MakeTyped(DT_FLOAT, {4, 5}, std::vector<double>(20, 0));
  const Tensor l = MakeTyped(DT_FLOAT, {4, 6}, std::vector<double>(24, 0));
  ExpectStatus(RunOp(op, {f, l}).status, Code::kInvalidArgument, {"'node'", "broadcast"});
  ExpectStatus(RunOp(op, {f, l}, {}, false).status, Code::kInvalidArgument,
               {"node", "broadcastable", "[4,5]", "[4,6]"});
  const Tensor f3 = MakeTyped(DT_FLOAT, {2, 2, 5}, std::vector<double>(20, 0));
  ExpectStatus(RunOp(op, {f3, f3}, {}, false).status, Code::kInvalidArgument,
               {"node", "2-D", "[2,2,5]"});
  const Tensor v = MakeTyped(DT_FLOAT, {5}, std::vector<double>(5, 0));
  ExpectStatus(RunOp(op, {v, v}, {}, false).status, Code::kInvalidArgument, {"node", "2-D"});
}

}  // namespace
}  // namespace tgraph::testing
