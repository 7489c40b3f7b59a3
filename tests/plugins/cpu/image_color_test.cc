// plugins/cpu/image_color_ops.cc: RGBToHSV / HSVToRGB on known colors and round trips for
// every dtype, AdjustContrastv2's per-channel means, AdjustHue's turn of the color wheel,
// AdjustSaturation's scaling and clamping, and bad shapes failing the node. TensorFlow's
// values are compared in tests/interop/test_model_ops_image_codec.py.
#include "array_test_util.h"
#include "core/graph/attr_value_util.h"

#include <Eigen/Core>

#include <cmath>
#include <vector>

namespace tgraph::testing {
namespace {

template <typename T>
Tensor Of(DataType dtype, std::vector<int64_t> dims, const std::vector<float>& v) {
  std::vector<T> t;
  for (float x : v) t.push_back(T(x));
  return MakeTensor<T>(dtype, std::move(dims), t);
}

template <typename T>
std::vector<float> Floats(const Tensor& t) {
  std::vector<float> out;
  for (const T& x : Values<T>(t)) out.push_back(static_cast<float>(x));
  return out;
}

void ExpectNear(const std::vector<float>& got, const std::vector<float>& want, float tol) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << "at " << i;
}

class ImageColorTest : public ::testing::Test {
 protected:
  void SetUp() override { LoadCpuPlugin(); }
};

template <typename T>
void CheckColorspace(DataType dtype, float tol) {
  // red, green, blue, gray, black, (1, 0, 0.5)
  const std::vector<float> rgb = {1, 0, 0, 0, 1, 0, 0, 0, 1, .5f, .5f, .5f, 0, 0, 0, 1, 0, .5f};
  const std::vector<float> hsv = {0, 1, 1, 1 / 3.f, 1, 1, 2 / 3.f, 1, 1, 0, 0, .5f, 0, 0, 0,
                                  11 / 12.f, 1, 1};
  OpRun to = RunArgs("RGBToHSV", {In(Of<T>(dtype, {2, 3, 3}, rgb))}, {{"T", AttrOfType(dtype)}});
  ASSERT_TRUE(to.status.ok()) << to.status.ToString();
  ExpectNear(Floats<T>(to.outputs[0]), hsv, tol);
  OpRun back = RunArgs("HSVToRGB", {In(to.outputs[0])}, {{"T", AttrOfType(dtype)}});
  ASSERT_TRUE(back.status.ok()) << back.status.ToString();
  ExpectNear(Floats<T>(back.outputs[0]), rgb, tol);
}

TEST_F(ImageColorTest, RgbHsvKnownColorsAndRoundTripsInEveryDtype) {
  CheckColorspace<float>(DT_FLOAT, 1e-6f);
  CheckColorspace<double>(DT_DOUBLE, 1e-12f);
  CheckColorspace<Eigen::half>(DT_HALF, 2e-3f);
  CheckColorspace<Eigen::bfloat16>(DT_BFLOAT16, 1e-2f);
}

template <typename T>
void CheckAdjust(DataType dtype, float tol) {
  // Two 2x1 images of 2 channels: channel means 1.5 / 10, then 0 / 4.
  const Tensor images = Of<T>(dtype, {2, 2, 1, 2}, {1, 8, 2, 12, -1, 4, 1, 4});
  OpRun c = RunArgs("AdjustContrastv2", {In(images), In(MakeTensor<float>(DT_FLOAT, {}, {2.f}))},
                    {{"T", AttrOfType(dtype)}});
  ASSERT_TRUE(c.status.ok()) << c.status.ToString();
  ExpectNear(Floats<T>(c.outputs[0]), {0.5f, 6, 2.5f, 14, -2, 4, 2, 4}, tol);

  const Tensor red = Of<T>(dtype, {1, 1, 3}, {1, 0, 0});
  auto hue = [&](float delta) {
    OpRun r = RunArgs("AdjustHue", {In(red), In(MakeTensor<float>(DT_FLOAT, {}, {delta}))},
                      {{"T", AttrOfType(dtype)}});
    EXPECT_TRUE(r.status.ok()) << r.status.ToString();
    return Floats<T>(r.outputs[0]);
  };
  ExpectNear(hue(1 / 3.f), {0, 1, 0}, tol);   // a third of the wheel: green
  ExpectNear(hue(-1 / 3.f), {0, 0, 1}, tol);  // back a third: blue
  ExpectNear(hue(1.f), {1, 0, 0}, tol);       // a whole turn

  const Tensor pink = Of<T>(dtype, {1, 1, 3}, {1, .5f, .5f});
  auto saturation = [&](float scale) {
    OpRun r = RunArgs("AdjustSaturation", {In(pink), In(MakeTensor<float>(DT_FLOAT, {}, {scale}))},
                      {{"T", AttrOfType(dtype)}});
    EXPECT_TRUE(r.status.ok()) << r.status.ToString();
    return Floats<T>(r.outputs[0]);
  };
  ExpectNear(saturation(0), {1, 1, 1}, tol);  // gray at the same value
  ExpectNear(saturation(2), {1, 0, 0}, tol);  // saturation 0.5 * 2 = 1
  ExpectNear(saturation(9), {1, 0, 0}, tol);  // clamped at 1
}

TEST_F(ImageColorTest, Adjustments) { CheckAdjust<float>(DT_FLOAT, 1e-6f); }

TEST_F(ImageColorTest, BadShapesFailTheNode) {
  const Tensor two = MakeTensor<float>(DT_FLOAT, {1, 2, 2}, {0, 0, 0, 0});
  const Tensor factor = MakeTensor<float>(DT_FLOAT, {}, {1.f});
  ExpectInvalid(RunArgs("RGBToHSV", {In(two)}).status, {"node", "3 channels"});
  ExpectInvalid(RunArgs("RGBToHSV", {In(two)}, {}, /*known_shapes=*/false).status,
                {"node", "input must have 3 channels but input only has 2 channels"});
  ExpectInvalid(RunArgs("AdjustHue", {In(two), In(factor)}, {}, false).status,
                {"node", "input must have 3 channels"});
  ExpectInvalid(RunArgs("AdjustContrastv2",
                        {In(MakeTensor<float>(DT_FLOAT, {2, 2}, {0, 0, 0, 0})), In(factor)})
                    .status,
                {"node", "at least 3-D"});
  ExpectInvalid(RunArgs("AdjustSaturation",
                        {In(MakeTensor<float>(DT_FLOAT, {1, 1, 3}, {0, 0, 0})),
                         In(MakeTensor<float>(DT_FLOAT, {2}, {1, 1}))},
                        {}, false)
                    .status,
                {"node", "scale must be scalar"});
}

}  // namespace
}  // namespace tgraph::testing
