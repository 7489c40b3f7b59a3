// ResizeBicubic, ResizeBicubicGrad and ResizeArea (plugins/cpu/image_resize_bicubic_ops.cc,
// image_resize_area_op.cc): every registered input type, each coordinate mode, against the
// values TensorFlow 2.21's kernels give for the same inputs (written out here), and the
// argument checks. tests/python/test_differential_ops.py compares larger images, the
// gradients and tf.image.resize_images with TensorFlow directly.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "array_test_util.h"
#include "core/graph/attr_value_util.h"

namespace tgraph::testing {
namespace {

void ExpectFloats(const Tensor& t, const std::vector<float>& want, float tol = 2e-5f) {
  const std::vector<float> got = Values<float>(t);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_NEAR(got[i], want[i], tol * (1 + std::abs(want[i]))) << "element " << i;
  }
}

// The row 0 4 8 12 as a [1, 1, 4, 1] image of `dtype`.
Tensor Row(DataType dtype) {
  switch (dtype) {
    case DT_FLOAT: return MakeTensor<float>(dtype, {1, 1, 4, 1}, {0, 4, 8, 12});
    case DT_DOUBLE: return MakeTensor<double>(dtype, {1, 1, 4, 1}, {0, 4, 8, 12});
    case DT_UINT8: return MakeTensor<uint8_t>(dtype, {1, 1, 4, 1}, {0, 4, 8, 12});
    case DT_INT8: return MakeTensor<int8_t>(dtype, {1, 1, 4, 1}, {0, 4, 8, 12});
    case DT_UINT16: return MakeTensor<uint16_t>(dtype, {1, 1, 4, 1}, {0, 4, 8, 12});
    case DT_INT16: return MakeTensor<int16_t>(dtype, {1, 1, 4, 1}, {0, 4, 8, 12});
    case DT_INT32: return MakeTensor<int32_t>(dtype, {1, 1, 4, 1}, {0, 4, 8, 12});
    default: return MakeTensor<int64_t>(DT_INT64, {1, 1, 4, 1}, {0, 4, 8, 12});
  }
}

const DataType kTypes[] = {DT_FLOAT, DT_DOUBLE, DT_UINT8, DT_INT8,
                           DT_UINT16, DT_INT16, DT_INT32, DT_INT64};

TEST(ImageResizeKernelTest, BicubicEveryTypeLegacyCoordinates) {
  for (DataType dtype : kTypes) {
    SCOPED_TRACE(DataTypeName(dtype));
    OpRun r = RunOp("ResizeBicubic", {Row(dtype), I32Vec({1, 6})});
    ASSERT_TRUE(r.status.ok()) << r.status.ToString();
    EXPECT_EQ(r.outputs[0].dtype(), DT_FLOAT);
    EXPECT_EQ(r.outputs[0].dims(), (Dims{1, 1, 6, 1}));
    // Keys' a = -0.75, clamped taps keep their weight (the edges overshoot less than 12).
    ExpectFloats(r.outputs[0], {0.0f, 2.2977071f, 5.4803967f, 8.0f, 10.964048f, 12.444444f});
  }
}

TEST(ImageResizeKernelTest, BicubicHalfPixelCentersAndAlignCorners) {
  // a = -0.5; taps outside the image get weight 0, the rest renormalized.
  OpRun r = RunOp("ResizeBicubic", {Row(DT_FLOAT), I32Vec({1, 6})},
                  {{"half_pixel_centers", AttrOfBool(true)}});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  ExpectFloats(r.outputs[0], {-0.26355535f, 1.6470590f, 4.6679688f, 7.3320313f, 10.352942f, 12.263554f});
  r = RunOp("ResizeBicubic", {Row(DT_FLOAT), I32Vec({1, 3})}, {{"align_corners", AttrOfBool(true)}});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  ExpectFloats(r.outputs[0], {0, 6, 12});
  // Both dimensions: 3x3 -> 2x2.
  r = RunOp("ResizeBicubic", {Iota({1, 3, 3, 1}), I32Vec({2, 2})},
            {{"half_pixel_centers", AttrOfBool(true)}});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  ExpectFloats(r.outputs[0], {0.67153281f, 2.3357663f, 5.6642337f, 7.3284674f});
}

TEST(ImageResizeKernelTest, BicubicGradSpreadsByTheSameWeights) {
  const Tensor grads = F32({1, 1, 6, 1}, {1, 2, 3, 4, 5, 6});
  OpRun r = RunOp("ResizeBicubicGrad", {grads, Row(DT_FLOAT)});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.outputs[0].dims(), (Dims{1, 1, 4, 1}));
  ExpectFloats(r.outputs[0], {1.2955914f, 3.7058733f, 6.0706029f, 9.9279337f});
  r = RunOp("ResizeBicubicGrad", {grads, Row(DT_DOUBLE)}, {{"half_pixel_centers", AttrOfBool(true)}});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.outputs[0].dtype(), DT_DOUBLE);
  const std::vector<double> got = Values<double>(r.outputs[0]);
  const std::vector<double> want = {1.9044390, 4.0397596, 6.2800069, 8.7757950};
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-4) << i;
  ExpectInvalid(RunOp("ResizeBicubicGrad", {F32({1, 1, 6, 2}, std::vector<float>(12)), Row(DT_FLOAT)},
                      {}, false).status,
                {"node", "channels"});
}

TEST(ImageResizeKernelTest, AreaEveryTypeIsTheCoveredMean) {
  for (DataType dtype : kTypes) {
    SCOPED_TRACE(DataTypeName(dtype));
    // Downscale 4 -> 3: each output covers 4/3 of a pixel.
    OpRun r = RunOp("ResizeArea", {Row(dtype), I32Vec({1, 3})});
    ASSERT_TRUE(r.status.ok()) << r.status.ToString();
    EXPECT_EQ(r.outputs[0].dtype(), DT_FLOAT);
    ExpectFloats(r.outputs[0], {1, 6, 11});
  }
  // Upscale 4 -> 6, and align_corners (scale 3/2: the last output reaches past the image).
  OpRun r = RunOp("ResizeArea", {Row(DT_FLOAT), I32Vec({1, 6})});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  ExpectFloats(r.outputs[0], {0, 2, 4, 8, 10, 12});
  r = RunOp("ResizeArea", {Row(DT_FLOAT), I32Vec({1, 3})}, {{"align_corners", AttrOfBool(true)}});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  ExpectFloats(r.outputs[0], {1.3333334f, 6.6666667f, 12});
  r = RunOp("ResizeArea", {Iota({1, 3, 3, 1}), I32Vec({2, 2})});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  ExpectFloats(r.outputs[0], {1.3333334f, 2.6666667f, 5.3333335f, 6.6666665f});
}

TEST(ImageResizeKernelTest, BadArgumentsNameTheNode) {
  // One set of checks (image_resize_util.h) for every resize kernel and both gradients.
  for (const char* op : {"ResizeBicubic", "ResizeArea", "ResizeBilinear", "ResizeNearestNeighbor"}) {
    SCOPED_TRACE(op);
    ExpectInvalid(RunOp(op, {Row(DT_FLOAT), I32Vec({0, 4})}, {}, false).status, {"node", "positive"});
    ExpectInvalid(RunOp(op, {Row(DT_FLOAT), I32Vec({1, 2, 3})}, {}, false).status,
                  {"node", "size must be a vector of 2"});
    ExpectInvalid(RunOp(op, {F32({4, 1}, {0, 1, 2, 3}), I32Vec({2, 2})}, {}, false).status,
                  {"node", "images must be 4-D"});
  }
  for (const char* op : {"ResizeBicubicGrad", "ResizeBilinearGrad"}) {
    SCOPED_TRACE(op);
    ExpectInvalid(RunOp(op, {F32({2, 1, 6, 1}, std::vector<float>(12)), Row(DT_FLOAT)}, {}, false).status,
                  {"node", "same batch and channels"});
    ExpectInvalid(RunOp(op, {F32({6, 1}, std::vector<float>(6)), Row(DT_FLOAT)}, {}, false).status,
                  {"node", "must be 4-D"});
  }
  ExpectInvalid(RunOp("ResizeBicubic", {Row(DT_FLOAT), I32Vec({2, 2})},
                      {{"align_corners", AttrOfBool(true)}, {"half_pixel_centers", AttrOfBool(true)}},
                      false).status,
                {"node", "half_pixel_centers"});
}

}  // namespace
}  // namespace tgraph::testing
