// Const, Placeholder, PlaceholderWithDefault, Identity, NoOp, Transpose, Shape/Size/Rank,
// OneHot, Tile and Pad on the CPU plugin, against hand-computed results.
#include <cstring>

#include "array_test_util.h"

namespace tgraph::testing {
namespace {

TEST(ArrayKernelTest, ConstOutputsItsValueEveryRun) {
  Tensor v = F32({2, 2}, {1, 2, 3, 4});
  KernelFixture f("Const", {}, {{"dtype", AttrOfType(DT_FLOAT)}, {"value", AttrOfTensor(v)}});
  for (int run = 0; run < 2; ++run) {
    OpRun r = f.Run();
    ASSERT_TRUE(r.status.ok()) << r.status.ToString();
    ASSERT_EQ(r.outputs.size(), 1u);
    EXPECT_TRUE(r.outputs[0].Equals(v));
    EXPECT_NE(r.outputs[0].data(), v.data());  // its own buffer
  }
}

TEST(ArrayKernelTest, ConstOtherDtypesEmptyAndScalar) {
  Tensor s = MakeTensor<int64_t>(DT_INT64, {}, {-7});
  OpRun r = RunOp("Const", {}, {{"dtype", AttrOfType(DT_INT64)}, {"value", AttrOfTensor(s)}});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_TRUE(r.outputs[0].Equals(s));

  Tensor empty = Tensor::Allocate(DT_DOUBLE, {0, 3}).value();
  r = RunOp("Const", {}, {{"dtype", AttrOfType(DT_DOUBLE)}, {"value", AttrOfTensor(empty)}});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.outputs[0].dims(), (std::vector<int64_t>{0, 3}));

  Tensor str = Tensor::Allocate(DT_STRING, {2}).value();
  str.strings() = {"hello", std::string("a\0b", 3)};
  r = RunOp("Const", {}, {{"dtype", AttrOfType(DT_STRING)}, {"value", AttrOfTensor(str)}});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_TRUE(r.outputs[0].Equals(str));

  Tensor big = Iota({1 << 21});  // 8 MiB: the parallel copy
  KernelFixture f("Const", {}, {{"dtype", AttrOfType(DT_FLOAT)}, {"value", AttrOfTensor(big)}},
                  true, TestPool());
  r = f.Run();
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_TRUE(r.outputs[0].Equals(big));
}

TEST(ArrayKernelTest, UnfedPlaceholderNamesItselfDtypeAndShape) {
  OpRun r = RunOp("Placeholder", {},
                  {{"dtype", AttrOfType(DT_FLOAT)}, {"shape", AttrOfShape(PartialShape{-1, 3})}});
  ExpectInvalid(r.status, {"You must feed a value for placeholder tensor 'node' with dtype float "
                           "and shape [?,3]"});
  r = RunOp("Placeholder", {}, {{"dtype", AttrOfType(DT_INT32)}});
  ExpectInvalid(r.status, {"placeholder tensor 'node' with dtype int32"});
  EXPECT_EQ(r.status.message().find("shape"), std::string::npos) << r.status.message();
}

TEST(ArrayKernelTest, PlaceholderWithDefaultAndIdentityAlias) {
  Tensor v = F32({3}, {1, 2, 3});
  OpRun r = RunOp("PlaceholderWithDefault", {v}, {{"shape", AttrOfShape(PartialShape{-1})}});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_TRUE(r.outputs[0].Equals(v));
  EXPECT_EQ(r.outputs[0].data(), v.data());  // no copy

  for (DataType t : {DT_FLOAT, DT_DOUBLE, DT_INT32, DT_INT64, DT_BOOL, DT_HALF, DT_BFLOAT16}) {
    Tensor in = Tensor::Allocate(t, {2, 2}).value();
    std::memset(in.data(), 1, in.ByteSize());
    r = RunOp("Identity", {in});
    ASSERT_TRUE(r.status.ok()) << r.status.ToString();
    EXPECT_EQ(r.outputs[0].data(), in.data()) << DataTypeName(t);
    EXPECT_EQ(r.outputs[0].dims(), in.dims());
  }
  Tensor str = Tensor::Allocate(DT_STRING, {1}).value();
  str.strings()[0] = "s";
  r = RunOp("Identity", {str});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_TRUE(r.outputs[0].Equals(str));

  r = RunOp("NoOp", {});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_TRUE(r.outputs.empty());
}

// IdentityN (Keras's custom-gradient activations): each output is its input, no copy, of
// mixed dtypes and shapes.
TEST(ArrayKernelTest, IdentityNAliasesEachInput) {
  Tensor f = F32({2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor i = I32Vec({7, 8});
  Tensor str = Tensor::Allocate(DT_STRING, {1}).value();
  str.strings()[0] = "s";
  OpRun r = RunOpEx("IdentityN", {f, i, str}, {{"T", AttrOfTypeList({DT_FLOAT, DT_INT32, DT_STRING})}},
                    nullptr, /*one_list=*/true);
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  ASSERT_EQ(r.outputs.size(), 3u);
  EXPECT_EQ(r.outputs[0].data(), f.data());
  EXPECT_EQ(r.outputs[0].dims(), f.dims());
  EXPECT_EQ(r.outputs[1].data(), i.data());
  EXPECT_TRUE(r.outputs[2].Equals(str));
}

TEST(ArrayKernelTest, IdentityReadsAVariable) {
  VariableSlot slot;
  slot.value = F32({2}, {5, 6});
  slot.initialized = true;
  slot.name = "v";
  OpRun r = RunOp("Identity", {slot.value}, {}, true, {&slot});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<float>(r.outputs[0]), (std::vector<float>{5, 6}));
}

TEST(ArrayKernelTest, Transpose2D3DAndIdentity) {
  OpRun r = RunOp("Transpose", {F32({2, 3}, {1, 2, 3, 4, 5, 6}), I32Vec({1, 0})});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.outputs[0].dims(), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(Values<float>(r.outputs[0]), (std::vector<float>{1, 4, 2, 5, 3, 6}));

  // x[i,j,k] = 100i + 10j + k, perm [2,0,1]: y[k,i,j] = x[i,j,k].
  std::vector<int32_t> x;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 4; ++k) x.push_back(100 * i + 10 * j + k);
  r = RunOp("Transpose", {I32({2, 3, 4}, x), I64({3}, {2, 0, 1})});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  ASSERT_EQ(r.outputs[0].dims(), (std::vector<int64_t>{4, 2, 3}));
  std::vector<int32_t> y = Values<int32_t>(r.outputs[0]);
  for (int k = 0; k < 4; ++k)
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 3; ++j)
        EXPECT_EQ(y[static_cast<size_t>(k * 6 + i * 3 + j)], 100 * i + 10 * j + k);

  Tensor in = F32({2, 3}, {1, 2, 3, 4, 5, 6});
  r = RunOp("Transpose", {in, I32Vec({0, 1})});
  ASSERT_TRUE(r.status.ok());
  EXPECT_EQ(r.outputs[0].data(), in.data());  // identity: alias
  // Moving only a size-1 dim keeps the order: still an alias.
  Tensor col = F32({3, 1}, {1, 2, 3});
  r = RunOp("Transpose", {col, I32Vec({1, 0})});
  ASSERT_TRUE(r.status.ok());
  EXPECT_EQ(r.outputs[0].dims(), (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(r.outputs[0].data(), col.data());
  // Rank 0 and empty.
  r = RunOp("Transpose", {F32({}, {7}), I32({0}, {})});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<float>(r.outputs[0]), std::vector<float>{7});
  r = RunOp("Transpose", {Tensor::Allocate(DT_FLOAT, {0, 2}).value(), I32Vec({1, 0})});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.outputs[0].dims(), (std::vector<int64_t>{2, 0}));
}

TEST(ArrayKernelTest, TransposeLargeHalfAndComplex) {
  // 512 x 300 half (element size 2), on the pool.
  Tensor in = Tensor::Allocate(DT_HALF, {512, 300}).value();
  for (int64_t i = 0; i < in.NumElements(); ++i)
    in.flat<uint16_t>()[i] = static_cast<uint16_t>(i * 7);
  OpRun r = RunArgs("Transpose", {In(in), In(I32Vec({1, 0}))}, {}, true, TestPool());
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  const uint16_t* y = r.outputs[0].flat<uint16_t>();
  for (int64_t a = 0; a < 300; a += 7)
    for (int64_t b = 0; b < 512; b += 5)
      ASSERT_EQ(y[a * 512 + b], static_cast<uint16_t>((b * 300 + a) * 7));
  Tensor c = Tensor::Allocate(DT_COMPLEX128, {2, 2}).value();
  for (int i = 0; i < 8; ++i) c.flat<double>()[i] = i;
  r = RunOp("Transpose", {c, I32Vec({1, 0})});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<double>(r.outputs[0]).size(), 4u);
  const double* z = r.outputs[0].flat<double>();
  EXPECT_EQ((std::vector<double>(z, z + 8)), (std::vector<double>{0, 1, 4, 5, 2, 3, 6, 7}));
}

TEST(ArrayKernelTest, TransposeTiledPaths) {
  // NHWC -> NCHW: y[n,c,h,w] = x[n,h,w,c].
  const int64_t N = 2, H = 5, W = 9, C = 16;
  Tensor x = Iota({N, H, W, C});
  OpRun r = RunArgs("Transpose", {In(x), In(I32Vec({0, 3, 1, 2}))}, {}, true, TestPool());
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  ASSERT_EQ(r.outputs[0].dims(), (std::vector<int64_t>{N, C, H, W}));
  const float* y = r.outputs[0].flat<float>();
  for (int64_t n = 0; n < N; ++n)
    for (int64_t c = 0; c < C; ++c)
      for (int64_t h = 0; h < H; ++h)
        for (int64_t w = 0; w < W; ++w)
          ASSERT_EQ(y[((n * C + c) * H + h) * W + w],
                    static_cast<float>(((n * H + h) * W + w) * C + c));
  // Batched matrix transpose, int64, sizes not multiples of the tile.
  Tensor b = Iota({3, 40, 50}, DT_INT64);
  r = RunOp("Transpose", {b, I32Vec({0, 2, 1})});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  const int64_t* z = r.outputs[0].flat<int64_t>();
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t j = 0; j < 50; ++j)
      for (int64_t k = 0; k < 40; ++k) ASSERT_EQ(z[(i * 50 + j) * 40 + k], (i * 40 + k) * 50 + j);
}

TEST(ArrayKernelTest, TransposeRejectsBadPerm) {
  Tensor x = F32({2, 3}, {1, 2, 3, 4, 5, 6});
  ExpectInvalid(RunOp("Transpose", {x, I32Vec({0})}, {}, false).status, {"node", "size 2"});
  ExpectInvalid(RunOp("Transpose", {x, I32Vec({0, 2})}, {}, false).status, {"2 is out of range"});
  ExpectInvalid(RunOp("Transpose", {x, I32Vec({1, 1})}, {}, false).status, {"duplicated"});
}

TEST(ArrayKernelTest, ShapeSizeRank) {
  Tensor x = Tensor::Allocate(DT_DOUBLE, {2, 0, 5}).value();
  OpRun r = RunOp("Shape", {x});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.outputs[0].dtype(), DT_INT32);
  EXPECT_EQ(Values<int32_t>(r.outputs[0]), (std::vector<int32_t>{2, 0, 5}));
  r = RunOp("Shape", {x}, {{"out_type", AttrOfType(DT_INT64)}});
  ASSERT_TRUE(r.status.ok());
  EXPECT_EQ(Values<int64_t>(r.outputs[0]), (std::vector<int64_t>{2, 0, 5}));
  r = RunOp("Size", {F32({2, 3}, {1, 2, 3, 4, 5, 6})}, {{"out_type", AttrOfType(DT_INT64)}});
  ASSERT_TRUE(r.status.ok());
  EXPECT_EQ(r.outputs[0].rank(), 0);
  EXPECT_EQ(Values<int64_t>(r.outputs[0]), std::vector<int64_t>{6});
  r = RunOp("Rank", {F32({2, 3}, {1, 2, 3, 4, 5, 6})});
  ASSERT_TRUE(r.status.ok());
  EXPECT_EQ(Values<int32_t>(r.outputs[0]), std::vector<int32_t>{2});
  r = RunOp("Shape", {F32({}, {1})});
  ASSERT_TRUE(r.status.ok());
  EXPECT_EQ(r.outputs[0].dims(), std::vector<int64_t>{0});
  Tensor str = Tensor::Allocate(DT_STRING, {4}).value();
  r = RunOp("Size", {str});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<int32_t>(r.outputs[0]), std::vector<int32_t>{4});
}

TEST(ArrayKernelTest, OneHot) {
  Tensor on = F32({}, {5}), off = F32({}, {0});
  OpRun r = RunOp("OneHot", {I64({3}, {0, 2, -1}), I32Scalar(3), on, off});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.outputs[0].dims(), (std::vector<int64_t>{3, 3}));
  EXPECT_EQ(Values<float>(r.outputs[0]), (std::vector<float>{5, 0, 0, 0, 0, 5, 0, 0, 0}));
  // axis 0: output[d, i] = indices[i] == d.
  r = RunOp("OneHot", {I32({2}, {1, 3}), I32Scalar(4), I32({}, {1}), I32({}, {-1})},
            {{"axis", AttrOfInt(0)}});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.outputs[0].dims(), (std::vector<int64_t>{4, 2}));
  EXPECT_EQ(Values<int32_t>(r.outputs[0]), (std::vector<int32_t>{-1, -1, 1, -1, -1, -1, -1, 1}));
  // Rank-2 indices, axis 1.
  r = RunOp("OneHot", {I64({2, 2}, {0, 1, 1, 0}), I32Scalar(2), on, off}, {{"axis", AttrOfInt(1)}});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.outputs[0].dims(), (std::vector<int64_t>{2, 2, 2}));
  // out[i, d, j] = idx[i, j] == d
  EXPECT_EQ(Values<float>(r.outputs[0]), (std::vector<float>{5, 0, 0, 5, 0, 5, 5, 0}));
  // Scalar index; depth 0.
  r = RunOp("OneHot", {I64({}, {1}), I32Scalar(2), on, off});
  ASSERT_TRUE(r.status.ok());
  EXPECT_EQ(Values<float>(r.outputs[0]), (std::vector<float>{0, 5}));
  r = RunOp("OneHot", {I64({2}, {1, 0}), I32Scalar(0), on, off});
  ASSERT_TRUE(r.status.ok());
  EXPECT_EQ(r.outputs[0].dims(), (std::vector<int64_t>{2, 0}));
  ExpectInvalid(RunOp("OneHot", {I64({2}, {1, 0}), I32Scalar(-1), on, off}, {}, false).status,
                {"depth must be non-negative"});
  ExpectInvalid(
      RunOp("OneHot", {I64({2}, {1, 0}), I32Scalar(2), on, off}, {{"axis", AttrOfInt(3)}}, false)
          .status,
      {"axis"});
}

TEST(ArrayKernelTest, Tile) {
  OpRun r = RunOp("Tile", {F32({2, 2}, {1, 2, 3, 4}), I32Vec({2, 3})});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.outputs[0].dims(), (std::vector<int64_t>{4, 6}));
  EXPECT_EQ(Values<float>(r.outputs[0]), (std::vector<float>{1, 2, 1, 2, 1, 2, 3, 4, 3, 4, 3, 4,
                                                             1, 2, 1, 2, 1, 2, 3, 4, 3, 4, 3, 4}));
  r = RunOp("Tile", {I64({3}, {1, 2, 3}), I64({1}, {2})});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<int64_t>(r.outputs[0]), (std::vector<int64_t>{1, 2, 3, 1, 2, 3}));
  r = RunOp("Tile", {I64({3}, {1, 2, 3}), I32Vec({0})});
  ASSERT_TRUE(r.status.ok());
  EXPECT_EQ(r.outputs[0].dims(), std::vector<int64_t>{0});
  r = RunOp("Tile", {F32({}, {4}), I32({0}, {})});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<float>(r.outputs[0]), std::vector<float>{4});
  ExpectInvalid(RunOp("Tile", {F32({2}, {1, 2}), I32Vec({-1})}, {}, false).status,
                {"multiples[0] >= 0"});
  ExpectInvalid(RunOp("Tile", {F32({2}, {1, 2}), I32Vec({1, 1})}, {}, false).status, {"length 1"});
}

TEST(ArrayKernelTest, Pad) {
  OpRun r = RunOp("Pad", {F32({2, 2}, {1, 2, 3, 4}), I32({2, 2}, {1, 0, 0, 2})});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.outputs[0].dims(), (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(Values<float>(r.outputs[0]), (std::vector<float>{0, 0, 0, 0, 1, 2, 0, 0, 3, 4, 0, 0}));
  r = RunOp("Pad", {I64({3}, {7, 8, 9}), I64({1, 2}, {2, 1})});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<int64_t>(r.outputs[0]), (std::vector<int64_t>{0, 0, 7, 8, 9, 0}));
  // Padding an empty tensor gives zeros.
  r = RunOp("Pad", {Tensor::Allocate(DT_FLOAT, {0, 2}).value(), I32({2, 2}, {1, 1, 0, 0})});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<float>(r.outputs[0]), (std::vector<float>{0, 0, 0, 0}));
  // An image batch [2, 3, 4, 5] padded on every dim (rows wholly in the padding, rows with
  // zeros before and after the input's), against an element-by-element reference; and a
  // last dim of zero elements padded.
  const std::vector<int64_t> dims = {2, 3, 4, 5}, pads = {1, 0, 2, 1, 0, 3, 1, 2};
  std::vector<float> input(120);
  for (size_t i = 0; i < input.size(); ++i) input[i] = static_cast<float>(i + 1);
  r = RunOp("Pad", {F32(dims, input), I64({4, 2}, pads)});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  const std::vector<int64_t> out = {3, 6, 7, 8};
  EXPECT_EQ(r.outputs[0].dims(), out);
  std::vector<float> want;
  for (int64_t n = 0; n < out[0]; ++n) {
    for (int64_t h = 0; h < out[1]; ++h) {
      for (int64_t w = 0; w < out[2]; ++w) {
        for (int64_t c = 0; c < out[3]; ++c) {
          const int64_t in[4] = {n - pads[0], h - pads[2], w - pads[4], c - pads[6]};
          bool inside = true;
          for (int d = 0; d < 4; ++d) inside = inside && in[d] >= 0 && in[d] < dims[static_cast<size_t>(d)];
          want.push_back(inside ? input[static_cast<size_t>(((in[0] * 3 + in[1]) * 4 + in[2]) * 5 + in[3])] : 0);
        }
      }
    }
  }
  EXPECT_EQ(Values<float>(r.outputs[0]), want);
  r = RunOp("Pad", {Tensor::Allocate(DT_FLOAT, {2, 0}).value(), I32({2, 2}, {0, 1, 1, 2})});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<float>(r.outputs[0]), std::vector<float>(9, 0.0f));
  ExpectInvalid(RunOp("Pad", {F32({2}, {1, 2}), I32({1, 2}, {-1, 0})}, {}, false).status,
                {"non-negative"});
  ExpectInvalid(RunOp("Pad", {F32({2}, {1, 2}), I32({2, 2}, {0, 0, 0, 0})}, {}, false).status,
                {"paddings must be a matrix"});
}

}  // namespace
}  // namespace tgraph::testing
