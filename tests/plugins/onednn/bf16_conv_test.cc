// The oneDNN plugin's bfloat16 Conv2D, Conv2DBackpropInput and Conv2DBackpropFilter
// (plugins/onednn/conv_kernels.cc's kernels for bfloat16; registered only on CPUs with
// AVX512_BF16 or AMX) against the Eigen float kernels on the same bf16-representable values,
// within bfloat16 rounding (ExpectBf16MatchesFloat): random geometries (odd sizes, strides,
// dilations, SAME / VALID / EXPLICIT), batch 1, the CNN's layers (split in parts), empty
// tensors, inline and split over two threads; the kernels exist exactly where the bf16
// MatMul does. (bfloat16 _FusedConv2D: fused_kernels_test.cc.)
#include <random>

#include "conv_test_util.h"

namespace tgraph::onednn_test {
namespace {

// All three ops for geometry c.
void CheckAll(const Conv& c, uint32_t seed) {
  const int64_t oh = c.OutH(), ow = c.OutW();
  const Tensor x = ToBFloat16(RandomFloats({c.batch, c.h, c.w, c.c}, seed));
  const Tensor w = ToBFloat16(RandomFloats({c.kh, c.kw, c.c, c.oc}, seed + 1));
  const Tensor dy = ToBFloat16(RandomFloats({c.batch, oh, ow, c.oc}, seed + 2));
  const std::string what = c.Describe();
  ExpectBf16MatchesFloat("Conv2D", {In(x), In(w)}, c.Attrs(), c.kh * c.kw * c.c, what);
  ExpectBf16MatchesFloat("Conv2DBackpropInput", {In(Int32s({c.batch, c.h, c.w, c.c})), In(w), In(dy)},
                         c.Attrs(), c.kh * c.kw * c.oc, what);
  ExpectBf16MatchesFloat("Conv2DBackpropFilter", {In(x), In(Int32s({c.kh, c.kw, c.c, c.oc})), In(dy)},
                         c.Attrs(), c.batch * oh * ow, what);
}

bool HasBf16Conv() {
  LoadPlugins();
  return KernelOf("onednn", "Conv2D", {{"T", AttrOfType(DT_BFLOAT16)}}) != nullptr;
}

// The four bf16 convolution kernels exist together (where oneDNN's bf16 kernels run), at
// the bf16 MatMul's priority (which is on every CPU: computed in fp32 where bf16 is slower).
TEST(OneDnnBf16ConvTest, KernelsRankWithTheBf16MatMul) {
  LoadPlugins();
  const AttrMap bf16 = {{"T", AttrOfType(DT_BFLOAT16)}};
  const KernelRegistration* matmul = KernelOf("onednn", "MatMul", bf16);
  ASSERT_NE(matmul, nullptr);
  const bool conv = HasBf16Conv();
  for (const char* op : {"Conv2D", "_FusedConv2D", "Conv2DBackpropInput", "Conv2DBackpropFilter"}) {
    const KernelRegistration* k = KernelOf("onednn", op, bf16);
    EXPECT_EQ(k != nullptr, conv) << op;
    if (k != nullptr) {
      EXPECT_EQ(k->priority, matmul->priority) << op;
    }
  }
}

TEST(OneDnnBf16ConvTest, RandomGeometries) {
  if (!HasBf16Conv()) GTEST_SKIP() << "this CPU has neither AVX512_BF16 nor AMX";
  std::mt19937 gen(4242);
  int checked = 0;
  for (int i = 0; checked < 24 && i < 200; ++i) {
    const Conv c = RandomConv(gen, i);
    if (!c.HasOutput() || c.OutH() == 0 || c.OutW() == 0) continue;
    CheckAll(c, 1000 + 3 * static_cast<uint32_t>(i));
    ++checked;
  }
  EXPECT_EQ(checked, 24);
}

TEST(OneDnnBf16ConvTest, BatchOneLargerAndEmpty) {
  if (!HasBf16Conv()) GTEST_SKIP() << "this CPU has neither AVX512_BF16 nor AMX";
  CheckAll(Geometry(1, 28, 28, 1, 5, 5, 32), 1);   // the CNN's first layer, one image
  CheckAll(Geometry(64, 14, 14, 32, 5, 5, 64), 6);  // its second layer: batch parts
  CheckAll(Geometry(3, 14, 14, 32, 3, 3, 17), 2);  // odd output channels
  CheckAll(Geometry(0, 5, 5, 3, 3, 3, 4), 3);      // no images
  CheckAll(Geometry(2, 5, 5, 3, 3, 3, 0), 4);      // no filters
  // One output column, the stride (3) wider than the 1-pixel image, a filter tap in the
  // padding: oneDNN's bf16 filter gradient read past the input here (its result for that
  // tap depended on the memory after it) until the kernel dropped the useless stride.
  Conv narrow = Geometry(3, 7, 1, 2, 2, 2, 8);
  narrow.sw = 3;
  CheckAll(narrow, 5);
}

}  // namespace
}  // namespace tgraph::onednn_test
