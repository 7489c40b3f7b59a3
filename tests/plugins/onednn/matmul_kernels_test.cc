// The oneDNN MatMul and BatchMatMulV2 kernels against the Eigen ones: odd and empty sizes,
// every transpose, broadcasting, batch 1, more batch dimensions than oneDNN takes, shapes
// changing between runs of one kernel, and bad inputs failing alike.
#include <cstring>
#include <random>

#include "onednn_test_util.h"

namespace tgraph::onednn_test {
namespace {

void CheckMatMul(int64_t m, int64_t k, int64_t n, bool ta, bool tb, uint32_t seed) {
  const std::vector<int64_t> a = ta ? std::vector<int64_t>{k, m} : std::vector<int64_t>{m, k};
  const std::vector<int64_t> b = tb ? std::vector<int64_t>{n, k} : std::vector<int64_t>{k, n};
  TwoKernelNode node("MatMul", {In(RandomFloats(a, seed)), In(RandomFloats(b, seed + 1))},
                     {{"transpose_a", AttrOfBool(ta)}, {"transpose_b", AttrOfBool(tb)}});
  node.ExpectSame(k, Str("MatMul m=", m, " k=", k, " n=", n, " ta=", ta, " tb=", tb));
}

TEST(OneDnnMatMulTest, OddSizesEveryTranspose) {
  uint32_t seed = 1;
  for (int t = 0; t < 4; ++t) {
    const bool ta = t & 1, tb = t & 2;
    CheckMatMul(1, 1, 1, ta, tb, seed += 2);
    CheckMatMul(3, 5, 7, ta, tb, seed += 2);
    CheckMatMul(17, 33, 9, ta, tb, seed += 2);
    CheckMatMul(1, 64, 31, ta, tb, seed += 2);   // vector times matrix
    CheckMatMul(31, 64, 1, ta, tb, seed += 2);   // matrix times vector
    CheckMatMul(67, 129, 45, ta, tb, seed += 2);
    CheckMatMul(131, 129, 133, ta, tb, seed += 2);
    CheckMatMul(131, 257, 133, ta, tb, seed += 2);  // above MatMul's one-part bound (256*128^2)
  }
}

TEST(OneDnnMatMulTest, RandomShapes) {
  std::mt19937 gen(7);
  std::uniform_int_distribution<int64_t> dim(1, 150);
  for (int i = 0; i < 12; ++i) {
    CheckMatMul(dim(gen), dim(gen), dim(gen), i & 1, i & 2, 100 + 2 * static_cast<uint32_t>(i));
  }
}

TEST(OneDnnMatMulTest, EmptyOperands) {
  for (int t = 0; t < 4; ++t) {
    CheckMatMul(0, 3, 4, t & 1, t & 2, 50);
    CheckMatMul(3, 4, 0, t & 1, t & 2, 52);
    CheckMatMul(3, 0, 4, t & 1, t & 2, 54);  // k = 0: zeros
    CheckMatMul(0, 0, 0, t & 1, t & 2, 56);
  }
}

TEST(OneDnnMatMulTest, LargeProducts) {
  CheckMatMul(256, 300, 200, false, true, 60);
  // Few rows: split by columns of the product.
  for (int t = 0; t < 4; ++t) {
    CheckMatMul(1, 2048, 1100, t & 1, t & 2, 62);
    CheckMatMul(3, 1000, 701, t & 1, t & 2, 64);
    CheckMatMul(17, 100, 2000, t & 1, t & 2, 66);
  }
}

// Tens to a couple of hundred rows and more columns (fp32, the MLP's batch of 128): split by
// columns, two parts per thread, each part's columns of B only; uneven last parts too.
TEST(OneDnnMatMulTest, FewRowsManyColumnsSplitByColumnsTwoPartsPerThread) {
  uint32_t seed = 80;
  for (int t = 0; t < 4; ++t) {
    CheckMatMul(128, 784, 512, t & 1, t & 2, seed += 2);  // the MLP's first layer
    CheckMatMul(100, 200, 450, t & 1, t & 2, seed += 2);  // 4 parts: 113, 113, 113, 111
    CheckMatMul(255, 129, 257, t & 1, t & 2, seed += 2);  // just under the packed-B bound
    CheckMatMul(33, 1000, 300, t & 1, t & 2, seed += 2);
  }
}

// Many rows (>= 256): B is reordered once per call into oneDNN's blocked layout and the
// rows go in parts of 128 (the last one shorter when the rows are not a multiple).
TEST(OneDnnMatMulTest, ManyRowsReadPackedB) {
  uint32_t seed = 70;
  for (int t = 0; t < 4; ++t) {
    CheckMatMul(256, 129, 130, t & 1, t & 2, seed += 2);
    CheckMatMul(385, 67, 200, t & 1, t & 2, seed += 2);
    CheckMatMul(1000, 33, 515, t & 1, t & 2, seed += 2);
    CheckMatMul(1000, 257, 17, t & 1, t & 2, seed += 2);  // B narrower than a block
  }
  // A transposed (weight gradients): B stays as stored, rows in two parts per thread.
  CheckMatMul(784, 128, 512, true, false, seed += 2);  // the MLP's first layer
  CheckMatMul(513, 64, 300, true, false, seed += 2);   // uneven parts: 129, 129, 129, 126
  CheckMatMul(257, 100, 77, true, true, seed += 2);
}

// 1024 rows and more, A not transposed (fp32, not fused): oneDNN's sgemm in row parts of at
// least 512 rows, one or two per thread (uneven last parts too); 1023 rows and a transposed A
// stay on the matmul primitive.
TEST(OneDnnMatMulTest, ThousandsOfRowsRunOnSgemmInRowParts) {
  uint32_t seed = 120;
  for (int tb = 0; tb < 2; ++tb) {
    CheckMatMul(1023, 67, 130, false, tb, seed += 2);  // just under the sgemm bound
    CheckMatMul(1024, 67, 130, false, tb, seed += 2);  // 2 parts of 512
    CheckMatMul(1025, 129, 33, false, tb, seed += 2);  // 2 parts: 513, 512
    CheckMatMul(2049, 31, 70, false, tb, seed += 2);   // 4 parts: 513, 513, 513, 510
    CheckMatMul(1500, 1, 45, false, tb, seed += 2);    // k = 1
    CheckMatMul(1100, 300, 1, false, tb, seed += 2);   // matrix times vector
  }
  CheckMatMul(1024, 67, 130, true, false, seed += 2);  // A transposed: the primitive
}

TEST(OneDnnMatMulTest, MismatchedInnerDimensionsFailAlike) {
  TwoKernelNode node("MatMul", {In(RandomFloats({2, 3}, 1)), In(RandomFloats({4, 5}, 2))},
                     {{"transpose_a", AttrOfBool(false)}, {"transpose_b", AttrOfBool(false)}},
                     /*known_shapes=*/false);
  node.ExpectSame(3, "MatMul [2,3] x [4,5]");
  TwoKernelNode rank("MatMul", {In(RandomFloats({2, 3, 1}, 1)), In(RandomFloats({3, 5}, 2))},
                     {{"transpose_a", AttrOfBool(false)}, {"transpose_b", AttrOfBool(false)}},
                     /*known_shapes=*/false);
  rank.ExpectSame(3, "MatMul [2,3,1] x [3,5]");
}

// One kernel, shapes changing from run to run (a Placeholder of unknown shape): each shape
// gets its own cached primitive, and going back to an earlier shape finds it again, also
// past the cache's capacity.
TEST(OneDnnMatMulTest, ShapesChangingBetweenRuns) {
  LoadPlugins();
  Graph graph;
  const Operation* node = AddMatMulOfUnknownShapes(graph, DT_FLOAT, false, true);
  auto eigen = KernelRunner::CreateWithKernel(*node, *KernelOf("cpu", "MatMul", node->attrs()));
  auto onednn =
      KernelRunner::CreateWithKernel(*node, *KernelOf("onednn", "MatMul", node->attrs()));
  ASSERT_TRUE(eigen.ok() && onednn.ok());
  uint32_t seed = 300;
  for (int round = 0; round < 3; ++round) {
    for (int64_t m = 1; m <= 12; ++m) {  // 12 shapes: more than the cache holds
      const int64_t k = 2 * m + 1, n = 13 - m;
      const std::vector<Tensor> inputs = {RandomFloats({m, k}, seed++),
                                          RandomFloats({n, k}, seed++)};
      std::vector<Tensor> want, got;
      ASSERT_TRUE(eigen.value()->Run(inputs, &want).ok());
      ASSERT_TRUE(onednn.value()->Run(inputs, &got).ok());
      ASSERT_EQ(got[0].dims(), want[0].dims());
      for (int64_t e = 0; e < want[0].NumElements(); ++e) {
        ASSERT_NEAR(got[0].flat<float>()[e], want[0].flat<float>()[e], 1e-4)
            << "round " << round << " m=" << m << " element " << e;
      }
    }
  }
}

// bfloat16 (oneDNN's own kernels, or on CPUs where bf16 is the slower sgemm over widened
// operands: plugins/onednn/bf16_mode.h; tests/CMakeLists.txt runs this test with each
// TGRAPH_ONEDNN_BF16 too): against the Eigen kernel, which widens to float, multiplies and
// rounds the result once, as both do; the two
// may differ by the rounding of a float sum that differs in its last bits: one bfloat16
// step (2^-8 relative) of the result's magnitude, at most k here.
void CheckBFloat16MatMul(int64_t m, int64_t k, int64_t n, bool ta, bool tb, uint32_t seed) {
  const std::vector<int64_t> a = ta ? std::vector<int64_t>{k, m} : std::vector<int64_t>{m, k};
  const std::vector<int64_t> b = tb ? std::vector<int64_t>{n, k} : std::vector<int64_t>{k, n};
  TwoKernelNode node("MatMul",
                     {In(RandomOf(DT_BFLOAT16, a, seed)), In(RandomOf(DT_BFLOAT16, b, seed + 1))},
                     {{"transpose_a", AttrOfBool(ta)}, {"transpose_b", AttrOfBool(tb)}},
                     /*known_shapes=*/true, DT_BFLOAT16);
  node.ExpectSame(k, Str("bfloat16 MatMul m=", m, " k=", k, " n=", n, " ta=", ta, " tb=", tb));
}

TEST(OneDnnMatMulTest, BFloat16) {
  LoadPlugins();
  uint32_t seed = 500;
  for (int t = 0; t < 4; ++t) {
    CheckBFloat16MatMul(3, 5, 7, t & 1, t & 2, seed += 2);
    CheckBFloat16MatMul(67, 129, 45, t & 1, t & 2, seed += 2);
    CheckBFloat16MatMul(1, 512, 1024, t & 1, t & 2, seed += 2);
    CheckBFloat16MatMul(300, 129, 200, t & 1, t & 2, seed += 2);     // split in row parts
    CheckBFloat16MatMul(1100, 64, 33, t & 1, t & 2, seed += 2);      // two parts per thread
    CheckBFloat16MatMul(0, 4, 3, t & 1, t & 2, seed += 2);
    CheckBFloat16MatMul(4, 0, 3, t & 1, t & 2, seed += 2);
  }
}

void CheckBatch(const std::vector<int64_t>& x, const std::vector<int64_t>& y, bool adj_x,
                bool adj_y, uint32_t seed, bool known_shapes = true) {
  TwoKernelNode node("BatchMatMulV2", {In(RandomFloats(x, seed)), In(RandomFloats(y, seed + 1))},
                     {{"adj_x", AttrOfBool(adj_x)}, {"adj_y", AttrOfBool(adj_y)}}, known_shapes);
  const int64_t k = x.size() >= 2 ? x[x.size() - (adj_x ? 2 : 1)] : 0;
  node.ExpectSame(k, Str("BatchMatMulV2 ", DimsString(x), " x ", DimsString(y), " adj_x=", adj_x,
                         " adj_y=", adj_y));
}

TEST(OneDnnBatchMatMulTest, SameBatchEveryAdjoint) {
  uint32_t seed = 1;
  for (int t = 0; t < 4; ++t) {
    const bool ax = t & 1, ay = t & 2;
    // x is [.., m, k] (or [.., k, m] when adj_x); y is [.., k, n] (or [.., n, k]).
    auto xs = [&](std::vector<int64_t> b, int64_t m, int64_t k) {
      b.push_back(ax ? k : m);
      b.push_back(ax ? m : k);
      return b;
    };
    auto ys = [&](std::vector<int64_t> b, int64_t k, int64_t n) {
      b.push_back(ay ? n : k);
      b.push_back(ay ? k : n);
      return b;
    };
    CheckBatch(xs({2}, 3, 4), ys({2}, 4, 5), ax, ay, seed += 2);
    CheckBatch(xs({1}, 7, 9), ys({1}, 9, 3), ax, ay, seed += 2);  // batch 1
    CheckBatch(xs({3, 2}, 5, 1), ys({3, 2}, 1, 6), ax, ay, seed += 2);
    CheckBatch(xs({}, 5, 6), ys({}, 6, 7), ax, ay, seed += 2);  // plain matrices
    CheckBatch(xs({4}, 70, 65), ys({4}, 65, 33), ax, ay, seed += 2);  // split 2 + 2
    CheckBatch(xs({3}, 70, 65), ys({3}, 65, 33), ax, ay, seed += 2);  // split 2 + 1
    CheckBatch(xs({5}, 40, 50), ys({}, 50, 60), ax, ay, seed += 2);   // y broadcast, split
    CheckBatch(xs({}, 40, 50), ys({5}, 50, 60), ax, ay, seed += 2);   // x broadcast, split
  }
}

TEST(OneDnnBatchMatMulTest, Broadcasting) {
  CheckBatch({1, 3, 4}, {6, 4, 5}, false, false, 10);
  CheckBatch({6, 3, 4}, {1, 4, 5}, false, false, 12);
  CheckBatch({6, 3, 4}, {4, 5}, false, false, 14);   // y has no batch dims
  CheckBatch({3, 4}, {2, 6, 4, 5}, false, false, 16);  // x has none
  CheckBatch({2, 1, 3, 4}, {1, 5, 4, 6}, false, false, 18);  // both sides broadcast
  CheckBatch({2, 1, 4, 3}, {1, 5, 6, 4}, true, true, 20);
  CheckBatch({7, 1, 2, 9, 8}, {3, 1, 8, 5}, false, false, 22);
}

// 11 batch dims + 2: more than oneDNN's 12 dimensions (the batch dims are collapsed), and
// some broadcast on one side only (one 2-D product per output matrix).
TEST(OneDnnBatchMatMulTest, MoreDimensionsThanOneDnnTakes) {
  CheckBatch({2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 3, 4, 5}, {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 3, 5, 2},
             false, false, 30);
  CheckBatch({2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 3, 5, 4}, {3, 2, 5}, true, true, 32);
}

TEST(OneDnnBatchMatMulTest, EmptyTensors) {
  CheckBatch({0, 3, 4}, {0, 4, 5}, false, false, 40);  // no batches
  CheckBatch({2, 0, 4}, {2, 4, 5}, false, false, 42);  // m = 0
  CheckBatch({2, 3, 0}, {2, 0, 5}, false, false, 44);  // k = 0: zeros
  CheckBatch({2, 3, 4}, {1, 4, 0}, false, false, 46);  // n = 0
}

TEST(OneDnnBatchMatMulTest, BadShapesFailAlike) {
  CheckBatch({2, 3, 4}, {2, 5, 6}, false, false, 50, /*known_shapes=*/false);  // k mismatch
  CheckBatch({2, 3, 4}, {3, 4, 6}, false, false, 52, false);  // batches don't broadcast
  CheckBatch({4}, {4, 6}, false, false, 54, false);          // rank 1
}

}  // namespace
}  // namespace tgraph::onednn_test
