// The stateless random kernels (plugins/cpu/stateless_random_ops.cc): golden values taken
// from TensorFlow 2.21's CPU kernels for small cases of every op and output layout (bit
// patterns, so any change in the generator, the seed scrambling or a conversion fails), and
// properties: the same inputs give the same numbers in any kernel and on any thread count,
// shapes, ranges, and bad inputs failing with a status that names the node.
#include <Eigen/Core>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "array_test_util.h"

namespace tgraph::testing {
namespace {

AttrMap Dtype(DataType t) { return {{"dtype", AttrOfType(t)}}; }

Tensor SeedI64(int64_t a, int64_t b) { return Vec<int64_t>(DT_INT64, {a, b}); }
Tensor U64Vec(const std::vector<uint64_t>& v) { return Vec<uint64_t>(DT_UINT64, v); }

// The raw bits of every element, as unsigned 64-bit numbers.
std::vector<uint64_t> Bits(const Tensor& t) {
  std::vector<uint64_t> out;
  const size_t size = DataTypeSize(t.dtype());
  const auto* p = static_cast<const unsigned char*>(t.data());
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    uint64_t v = 0;
    std::memcpy(&v, p + static_cast<size_t>(i) * size, size);  // little-endian
    out.push_back(v);
  }
  return out;
}

void ExpectBits(const OpRun& r, DataType dtype, const std::vector<uint64_t>& want) {
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  ASSERT_EQ(r.outputs[0].dtype(), dtype);
  EXPECT_EQ(Bits(r.outputs[0]), want);
}

// ---- golden values (TensorFlow, seed (7, -3) or key 123456789 / counter (1, 2)) ----

TEST(StatelessRandomGolden, UniformEveryDtype) {
  ExpectBits(RunOp("StatelessRandomUniform", {I32Vec({5}), SeedI64(7, -3)}, Dtype(DT_FLOAT)),
             DT_FLOAT, {0x3ede896c, 0x3d85af60, 0x3f3f6390, 0x3e1855a0, 0x3f16fc3e});
  ExpectBits(RunOp("StatelessRandomUniform", {I32Vec({3}), SeedI64(7, -3)}, Dtype(DT_DOUBLE)),
             DT_DOUBLE, {0x3fde896ce8216bd8, 0x3fef639102261568, 0x3fe6fc3ea751c30a});
  ExpectBits(RunOp("StatelessRandomUniform", {I32Vec({5}), SeedI64(7, -3)}, Dtype(DT_HALF)),
             DT_HALF, {0x38b6, 0x39ec, 0x3720, 0x3968, 0x383e});
  ExpectBits(RunOp("StatelessRandomUniform", {I32Vec({5}), SeedI64(7, -3)}, Dtype(DT_BFLOAT16)),
             DT_BFLOAT16, {0x3f36, 0x3f6c, 0x3f10, 0x3ed0, 0x3e78});
}

TEST(StatelessRandomGolden, NormalAndTruncatedNormal) {
  ExpectBits(RunOp("StatelessRandomNormal", {I32Vec({5}), SeedI64(7, -3)}, Dtype(DT_FLOAT)),
             DT_FLOAT, {0x3f03c5d9, 0x3f978884, 0x3f1d11c8, 0x3ee7fbc6, 0x3f6e7706});
  ExpectBits(RunOp("StatelessRandomNormal", {I32Vec({3}), SeedI64(7, -3)}, Dtype(DT_DOUBLE)),
             DT_DOUBLE, {0xbfc2a35fbcdd7934, 0x3ff35301e5e4fb27, 0x3fd71a8cac473633});
  ExpectBits(RunOp("StatelessTruncatedNormal", {I32Vec({9}), SeedI64(7, -3)}, Dtype(DT_FLOAT)),
             DT_FLOAT,
             {0x3f03c5d9, 0x3f978884, 0x3f1d11c8, 0x3ee7fbc6, 0x3f8196c4, 0xbc91bb52, 0x3bd1bd4b,
              0xbedd2060, 0xbf8d5028});
  ExpectBits(
      RunOp("StatelessTruncatedNormal", {I32Vec({3}), SeedI64(7, -3)}, Dtype(DT_DOUBLE)),
      DT_DOUBLE, {0xbfc2a35fbcdd7934, 0x3ff35301e5e4fb27, 0xbfd2768e2cd10406});
  ExpectBits(RunOp("StatelessTruncatedNormal", {I32Vec({5}), SeedI64(7, -3)}, Dtype(DT_HALF)),
             DT_HALF, {0x381e, 0x3cbc, 0x38e9, 0x3740, 0x3c0d});
}

TEST(StatelessRandomGolden, Integers) {
  // An int32 seed pair scrambles as the same values widened to int64.
  OpRun i32 = RunOp("StatelessRandomUniformInt",
                    {I32Vec({5}), I32Vec({7, -3}), I32Scalar(-10), I32Scalar(1000)});
  ASSERT_TRUE(i32.status.ok()) << i32.status.ToString();
  EXPECT_EQ(Values<int32_t>(i32.outputs[0]), (std::vector<int32_t>{717, 232, 638, 98, 27}));
  OpRun i64 = RunOp("StatelessRandomUniformInt",
                    {I32Vec({3}), SeedI64(7, -3), I64({}, {-10}), I64({}, {int64_t{1} << 40})});
  ASSERT_TRUE(i64.status.ok()) << i64.status.ToString();
  EXPECT_EQ(Values<int64_t>(i64.outputs[0]),
            (std::vector<int64_t>{1058649886413, 773703660378, 572145460555}));
  ExpectBits(
      RunOp("StatelessRandomUniformFullInt", {I32Vec({5}), SeedI64(7, -3)}, Dtype(DT_UINT32)),
      DT_UINT32, {2125963867u, 973626102u, 694137288u, 2165508788u, 969637407u});
  OpRun full64 =
      RunOp("StatelessRandomUniformFullInt", {I32Vec({3}), SeedI64(7, -3)}, Dtype(DT_INT64));
  ASSERT_TRUE(full64.status.ok()) << full64.status.ToString();
  EXPECT_EQ(Values<int64_t>(full64.outputs[0]),
            (std::vector<int64_t>{4181692268747924059, -9145954649354817080,
                                  6028316063551946271}));
}

TEST(StatelessRandomGolden, KeyCounterAndV2) {
  for (const char* op : {"StatelessRandomGetKeyCounter", "StatelessRandomGetKeyCounterAlg"}) {
    OpRun kc = RunOp(op, {SeedI64(7, -3)});
    ASSERT_TRUE(kc.status.ok()) << kc.status.ToString();
    EXPECT_EQ(Values<uint64_t>(kc.outputs[0]), (std::vector<uint64_t>{13399541416664089238u}));
    EXPECT_EQ(Values<uint64_t>(kc.outputs[1]),
              (std::vector<uint64_t>{0, 2845039061138926877u}));
    if (kc.outputs.size() > 2) {
      EXPECT_EQ(Values<int32_t>(kc.outputs[2]), (std::vector<int32_t>{1}));
    }
  }
  OpRun alg = RunOp("StatelessRandomGetAlg", {});
  ASSERT_TRUE(alg.status.ok()) << alg.status.ToString();
  EXPECT_EQ(Values<int32_t>(alg.outputs[0]), (std::vector<int32_t>{1}));

  const Tensor key = U64Vec({123456789}), counter = U64Vec({1, 2});
  ExpectBits(RunOp("StatelessRandomUniformV2", {I32Vec({5}), key, counter, I32Scalar(1)},
                   Dtype(DT_FLOAT)),
             DT_FLOAT, {0x3ee89468, 0x3f432642, 0x3f62a88a, 0x3f7b28d4, 0x3f1e84cc});
  // alg 3 (auto-select) is Philox on CPU.
  ExpectBits(RunOp("StatelessRandomNormalV2", {I32Vec({5}), key, counter, I32Scalar(3)},
                   Dtype(DT_FLOAT)),
             DT_FLOAT, {0xbfa05221, 0x3dc6adad, 0xbd6f8bf2, 0x3efada2e, 0xbf2d9da5});
  // The counter's low word is all ones: the second group's block carries into the high word.
  ExpectBits(RunOp("StatelessTruncatedNormalV2",
                   {I32Vec({5}), key, U64Vec({~uint64_t{0}, 2}), I32Scalar(1)}, Dtype(DT_FLOAT)),
             DT_FLOAT, {0xbe7fd4d4, 0xbf1e7370, 0xbfd4ee71, 0x3fadc693, 0x3f72581f});
  OpRun iv2 = RunOp("StatelessRandomUniformIntV2",
                    {I32Vec({5}), key, counter, I32Scalar(1), I32Scalar(0), I32Scalar(7)});
  ASSERT_TRUE(iv2.status.ok()) << iv2.status.ToString();
  EXPECT_EQ(Values<int32_t>(iv2.outputs[0]), (std::vector<int32_t>{0, 4, 5, 0, 0}));
  ExpectBits(RunOp("StatelessRandomUniformFullIntV2", {I32Vec({3}), key, counter, I32Scalar(1)},
                   Dtype(DT_UINT64)),
             DT_UINT64, {14727214029545809178u, 575779513782326341u, 10804251389301047910u});
}

TEST(StatelessRandomGolden, Shuffle) {
  OpRun a = RunOp("StatelessShuffle", {Vec<int32_t>(DT_INT32, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}),
                                       U64Vec({123456789}), U64Vec({1, 2}), I32Scalar(1)});
  ASSERT_TRUE(a.status.ok()) << a.status.ToString();
  EXPECT_EQ(Values<int32_t>(a.outputs[0]), (std::vector<int32_t>{2, 0, 7, 3, 6, 5, 9, 4, 1, 8}));
  // Rows move whole.
  OpRun b = RunOp("StatelessShuffle", {Iota({6, 2}), U64Vec({5}), U64Vec({0, 0}), I32Scalar(3)});
  ASSERT_TRUE(b.status.ok()) << b.status.ToString();
  EXPECT_EQ(b.outputs[0].dims(), (std::vector<int64_t>{6, 2}));
  EXPECT_EQ(Values<float>(b.outputs[0]),
            (std::vector<float>{2, 3, 6, 7, 10, 11, 4, 5, 8, 9, 0, 1}));
}

// ---- properties ----

TEST(StatelessRandomKernelTest, V1EqualsV2OnTheSeedsKeyAndCounter) {
  OpRun kc = RunOp("StatelessRandomGetKeyCounter", {I32Vec({11, 12})});
  ASSERT_TRUE(kc.status.ok());
  const struct {
    const char* v1;
    const char* v2;
  } pairs[] = {{"StatelessRandomUniform", "StatelessRandomUniformV2"},
               {"StatelessRandomNormal", "StatelessRandomNormalV2"},
               {"StatelessTruncatedNormal", "StatelessTruncatedNormalV2"}};
  for (const auto& p : pairs) {
    for (DataType t : {DT_FLOAT, DT_DOUBLE, DT_HALF, DT_BFLOAT16}) {
      OpRun a = RunOp(p.v1, {I32Vec({7, 3}), I32Vec({11, 12})}, Dtype(t));
      OpRun b = RunOp(p.v2, {I32Vec({7, 3}), kc.outputs[0], kc.outputs[1], I32Scalar(1)},
                      Dtype(t));
      ASSERT_TRUE(a.status.ok() && b.status.ok()) << p.v1 << " " << a.status.ToString() << " "
                                                  << b.status.ToString();
      EXPECT_EQ(a.outputs[0].dims(), (std::vector<int64_t>{7, 3}));
      EXPECT_TRUE(a.outputs[0].Equals(b.outputs[0])) << p.v1 << " " << DataTypeName(t);
    }
  }
  for (DataType t : {DT_INT32, DT_INT64, DT_UINT32, DT_UINT64}) {
    OpRun a = RunOp("StatelessRandomUniformFullInt", {I32Vec({9}), I32Vec({11, 12})}, Dtype(t));
    OpRun b = RunOp("StatelessRandomUniformFullIntV2",
                    {I32Vec({9}), kc.outputs[0], kc.outputs[1], I32Scalar(3)}, Dtype(t));
    ASSERT_TRUE(a.status.ok() && b.status.ok()) << DataTypeName(t);
    EXPECT_TRUE(a.outputs[0].Equals(b.outputs[0])) << DataTypeName(t);
  }
  OpRun a = RunOp("StatelessRandomUniformInt",
                  {I32Vec({9}), I32Vec({11, 12}), I64({}, {-5}), I64({}, {5})});
  OpRun b = RunOp("StatelessRandomUniformIntV2", {I32Vec({9}), kc.outputs[0], kc.outputs[1],
                                                   I32Scalar(1), I64({}, {-5}), I64({}, {5})});
  ASSERT_TRUE(a.status.ok() && b.status.ok());
  EXPECT_TRUE(a.outputs[0].Equals(b.outputs[0]));
}

TEST(StatelessRandomKernelTest, SameInputsSameNumbersOnAnyThreadCount) {
  for (const char* op :
       {"StatelessRandomUniform", "StatelessRandomNormal", "StatelessTruncatedNormal"}) {
    for (DataType t : {DT_FLOAT, DT_DOUBLE, DT_HALF, DT_BFLOAT16}) {
      OpRun inline_run = RunArgs(op, {In(I32Vec({100003})), In(SeedI64(3, 4))}, Dtype(t));
      OpRun pooled =
          RunArgs(op, {In(I32Vec({100003})), In(SeedI64(3, 4))}, Dtype(t), true, TestPool());
      ASSERT_TRUE(inline_run.status.ok() && pooled.status.ok()) << op;
      EXPECT_TRUE(inline_run.outputs[0].Equals(pooled.outputs[0])) << op;
      // A prefix of a longer request is the shorter request (groups are positional).
      OpRun shorter = RunOp(op, {I32Vec({13}), SeedI64(3, 4)}, Dtype(t));
      ASSERT_TRUE(shorter.status.ok());
      std::vector<uint64_t> all = Bits(pooled.outputs[0]), few = Bits(shorter.outputs[0]);
      EXPECT_TRUE(std::equal(few.begin(), few.end(), all.begin())) << op;
      // Other seeds, other numbers.
      OpRun other = RunOp(op, {I32Vec({13}), SeedI64(3, 5)}, Dtype(t));
      EXPECT_FALSE(other.outputs[0].Equals(shorter.outputs[0])) << op;
    }
  }
}

TEST(StatelessRandomKernelTest, ShuffleIsAPermutationOfRowsForEveryDtype) {
  for (DataType t : {DT_FLOAT, DT_DOUBLE, DT_HALF, DT_INT8, DT_INT64, DT_BOOL, DT_COMPLEX64}) {
    Tensor in = Tensor::Allocate(t, {50, 3}).value();
    // Every byte of row r is r (r % 2 for bool, to stay 0 or 1); rows are compared by bytes.
    auto* p = static_cast<unsigned char*>(in.data());
    const size_t row = in.ByteSize() / 50;
    for (size_t r = 0; r < 50; ++r) {
      std::memset(p + r * row, static_cast<int>(t == DT_BOOL ? r % 2 : r), row);
    }
    OpRun a = RunOp("StatelessShuffle", {in, U64Vec({9}), U64Vec({8, 7}), I32Scalar(1)});
    ASSERT_TRUE(a.status.ok()) << DataTypeName(t) << " " << a.status.ToString();
    const auto* q = static_cast<const unsigned char*>(a.outputs[0].data());
    std::vector<int> count(256, 0);
    for (size_t r = 0; r < 50; ++r) {
      for (size_t k = 1; k < row; ++k) ASSERT_EQ(q[r * row + k], q[r * row]);
      ++count[q[r * row]];
    }
    if (t != DT_BOOL) {
      for (int r = 0; r < 50; ++r) EXPECT_EQ(count[static_cast<size_t>(r)], 1) << DataTypeName(t);
    }
  }
  // A scalar and a single row come back unchanged.
  OpRun s = RunOp("StatelessShuffle", {F32({}, {3.5f}), U64Vec({9}), U64Vec({8, 7}), I32Scalar(1)});
  ASSERT_TRUE(s.status.ok());
  EXPECT_EQ(Values<float>(s.outputs[0]), (std::vector<float>{3.5f}));
}

TEST(StatelessRandomKernelTest, Ranges) {
  OpRun u = RunArgs("StatelessRandomUniform", {In(I32Vec({4, 25000})), In(SeedI64(1, 2))},
                    Dtype(DT_DOUBLE), true, TestPool());
  ASSERT_TRUE(u.status.ok());
  const std::vector<double> uv = Values<double>(u.outputs[0]);
  EXPECT_GE(*std::min_element(uv.begin(), uv.end()), 0.0);
  EXPECT_LT(*std::max_element(uv.begin(), uv.end()), 1.0);
  double mean = 0;
  for (double x : uv) mean += x / static_cast<double>(uv.size());
  EXPECT_NEAR(mean, 0.5, 0.01);
  OpRun t = RunArgs("StatelessTruncatedNormal", {In(I32Vec({100000})), In(SeedI64(1, 2))},
                    Dtype(DT_FLOAT), true, TestPool());
  ASSERT_TRUE(t.status.ok());
  for (float x : Values<float>(t.outputs[0])) ASSERT_LT(std::abs(x), 2.0f);
  OpRun i = RunOp("StatelessRandomUniformInt",
                  {I32Vec({1000}), SeedI64(1, 2), I32Scalar(-3), I32Scalar(4)});
  ASSERT_TRUE(i.status.ok());
  std::vector<int32_t> iv = Values<int32_t>(i.outputs[0]);
  EXPECT_EQ(*std::min_element(iv.begin(), iv.end()), -3);
  EXPECT_EQ(*std::max_element(iv.begin(), iv.end()), 3);
  // The whole int32 range wraps correctly.
  OpRun w = RunOp("StatelessRandomUniformInt", {I32Vec({1000}), SeedI64(1, 2),
                                                 I32Scalar(INT32_MIN), I32Scalar(INT32_MAX)});
  ASSERT_TRUE(w.status.ok());
  // Empty shapes are fine, even with an empty range (TensorFlow checks it only when drawing).
  OpRun e = RunOp("StatelessRandomUniformInt",
                  {I32Vec({0, 3}), SeedI64(1, 2), I32Scalar(5), I32Scalar(5)});
  ASSERT_TRUE(e.status.ok()) << e.status.ToString();
  EXPECT_EQ(e.outputs[0].dims(), (std::vector<int64_t>{0, 3}));
}

TEST(StatelessRandomKernelTest, BadInputsNameTheNode) {
  // Shapes unknown to the graph, so the kernels' own checks run.
  auto run = [](const char* op, std::vector<Tensor> in, AttrMap attrs = {}) {
    std::vector<ArgIn> args;
    for (Tensor& t : in) args.push_back(In(std::move(t)));
    return RunArgs(op, std::move(args), std::move(attrs), false);
  };
  ExpectInvalid(run("StatelessRandomUniform", {I32Vec({3}), I64({1, 2}, {1, 2})}).status,
                {"node", "seed must have shape [2]"});
  ExpectInvalid(run("StatelessRandomNormal", {I32Vec({3, -1}), SeedI64(1, 2)}).status,
                {"node", "must be non-negative"});
  ExpectInvalid(run("StatelessRandomUniformInt",
                    {I32Vec({3}), SeedI64(1, 2), I32Scalar(5), I32Scalar(5)}).status,
                {"node", "Need minval < maxval"});
  ExpectInvalid(run("StatelessRandomUniformInt",
                    {I32Vec({3}), SeedI64(1, 2), I32Vec({5}), I32Scalar(6)}).status,
                {"node", "minval must be 0-D"});
  ExpectInvalid(run("StatelessRandomGetKeyCounter", {I32Vec({1, 2, 3})}).status,
                {"node", "seed must have shape [2]"});
  const Tensor counter = U64Vec({1, 2});
  ExpectInvalid(run("StatelessRandomUniformV2",
                    {I32Vec({3}), U64Vec({1}), counter, I32Scalar(2)}).status,
                {"node", "Unsupported algorithm id: 2"});
  ExpectInvalid(run("StatelessRandomUniformV2",
                    {I32Vec({3}), U64Vec({1, 2}), counter, I32Scalar(1)}).status,
                {"node", "key must have shape [1]"});
  ExpectInvalid(run("StatelessRandomUniformFullIntV2",
                    {I32Vec({3}), U64Vec({1}), U64Vec({1}), I32Scalar(1)}).status,
                {"node", "counter must be a vector with length at least 2"});
  ExpectInvalid(run("StatelessTruncatedNormalV2",
                    {I32Vec({3}), U64Vec({1}), counter, I32Vec({1})}).status,
                {"node", "alg must be a scalar"});
  ExpectInvalid(run("StatelessShuffle", {Iota({4}), U64Vec({1}), counter, I32Scalar(2)}).status,
                {"node", "Unsupported algorithm id: 2"});
  // The graph's shape function rejects a bad seed before any kernel runs.
  OpRun bad = RunOp("StatelessRandomUniform", {I32Vec({3}), Vec<int64_t>(DT_INT64, {1, 2, 3})});
  EXPECT_FALSE(bad.status.ok());
}

}  // namespace
}  // namespace tgraph::testing
