// The detection kernels: NonMaxSuppression V1-V5 and WithOverlaps (hand-worked selections:
// ties by index, score_threshold, IoU exactly at the threshold, corners given in either
// order, boxes of no area, padding, Soft-NMS decay and re-ordering, half), CropAndResize
// (bilinear and nearest against a reference, flipped boxes, 1-point crops, extrapolation,
// every image type), empty inputs and bad inputs.
#include <cmath>

#include "nn_test_util.h"
#include "typed_tensors.h"

namespace tgraph::testing {
namespace {

Tensor F32(Dims d, std::vector<float> v) { return MakeTensor<float>(DT_FLOAT, std::move(d), v); }
Tensor Scalar32(int32_t v) { return MakeTensor<int32_t>(DT_INT32, {}, {v}); }
Tensor ScalarF(float v) { return MakeTensor<float>(DT_FLOAT, {}, {v}); }

std::vector<int32_t> Ints(const Tensor& t) { return Values<int32_t>(t); }

// Four boxes: 0 and 1 overlap with IoU 0.6 (box 1 given with y1 > y2 and x1 > x2), 2 is far
// away, 3 has no area.
const std::vector<float> kBoxes = {0, 0, 1, 1,   1, 1.25f, 0, 0.25f,   5, 5, 6, 6,   2, 2, 2, 3};

TEST(NonMaxSuppressionTest, HardNmsAcrossVersions) {
  const Tensor boxes = F32({4, 4}, kBoxes);
  const Tensor scores = F32({4}, {0.9f, 0.95f, 0.5f, 0.7f});
  // IoU(0, 1) = 0.75 / 1.25 = 0.6: box 1 (best) suppresses box 0 at 0.5, not at 0.6.
  auto v2 = RunOp("NonMaxSuppressionV2", {boxes, scores, Scalar32(10), ScalarF(0.5f)});
  ASSERT_TRUE(v2.status.ok()) << v2.status.ToString();
  EXPECT_EQ(Ints(v2.outputs[0]), (std::vector<int32_t>{1, 3, 2}));
  auto at = RunOp("NonMaxSuppressionV2", {boxes, scores, Scalar32(10), ScalarF(0.6f)});
  ASSERT_TRUE(at.status.ok()) << at.status.ToString();
  EXPECT_EQ(Ints(at.outputs[0]), (std::vector<int32_t>{1, 0, 3, 2}));  // IoU == threshold stays
  auto v1 = RunOp("NonMaxSuppression", {boxes, scores, Scalar32(2)},
                  {{"iou_threshold", AttrOfFloat(0.5f)}});
  ASSERT_TRUE(v1.status.ok()) << v1.status.ToString();
  EXPECT_EQ(Ints(v1.outputs[0]), (std::vector<int32_t>{1, 3}));
  // score_threshold is exclusive: 0.7 drops box 3 (0.7) and box 2.
  auto v3 = RunOp("NonMaxSuppressionV3", {boxes, scores, Scalar32(10), ScalarF(0.5f), ScalarF(0.7f)});
  ASSERT_TRUE(v3.status.ok()) << v3.status.ToString();
  EXPECT_EQ(Ints(v3.outputs[0]), (std::vector<int32_t>{1}));
  for (bool pad : {false, true}) {
    auto v4 = RunOp("NonMaxSuppressionV4", {boxes, scores, Scalar32(6), ScalarF(0.5f), ScalarF(0.6f)},
                    {{"pad_to_max_output_size", AttrOfBool(pad)}});
    ASSERT_TRUE(v4.status.ok()) << v4.status.ToString();
    EXPECT_EQ(Ints(v4.outputs[0]), pad ? (std::vector<int32_t>{1, 3, 0, 0, 0, 0})
                                       : (std::vector<int32_t>{1, 3}));
    EXPECT_EQ(Ints(v4.outputs[1]), (std::vector<int32_t>{2}));
  }
}

TEST(NonMaxSuppressionTest, TiesGoToTheLowerIndex) {
  const Tensor boxes = F32({3, 4}, {0, 0, 1, 1, 0, 0, 1, 1, 3, 3, 4, 4});
  const Tensor scores = F32({3}, {0.5f, 0.5f, 0.5f});
  auto r = RunOp("NonMaxSuppressionV3", {boxes, scores, Scalar32(3), ScalarF(0.5f), ScalarF(0.0f)});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Ints(r.outputs[0]), (std::vector<int32_t>{0, 2}));
}

TEST(NonMaxSuppressionTest, SoftNmsDecaysAndReorders) {
  // Box 1 overlaps box 0 with IoU 0.6; sigma 0.5 scales its 0.8 by exp(-0.36) = 0.6977 to
  // 0.558, below box 2's 0.6, so box 2 comes before it.
  const Tensor boxes = F32({3, 4}, {0, 0, 1, 1, 0, 0.25f, 1, 1.25f, 5, 5, 6, 6});
  const Tensor scores = F32({3}, {0.9f, 0.8f, 0.6f});
  auto r = RunOp("NonMaxSuppressionV5",
                 {boxes, scores, Scalar32(5), ScalarF(1.0f), ScalarF(0.0f), ScalarF(0.5f)},
                 {{"pad_to_max_output_size", AttrOfBool(true)}});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Ints(r.outputs[0]), (std::vector<int32_t>{0, 2, 1, 0, 0}));
  const auto s = Values<float>(r.outputs[1]);
  const float decayed = 0.8f * std::exp(-0.5f / 0.5f * 0.6f * 0.6f);
  EXPECT_FLOAT_EQ(s[0], 0.9f);
  EXPECT_FLOAT_EQ(s[1], 0.6f);
  EXPECT_NEAR(s[2], decayed, 1e-6);
  EXPECT_EQ(s[3], 0.0f);
  EXPECT_EQ(Ints(r.outputs[2]), (std::vector<int32_t>{3}));
  // A score_threshold above the decayed score drops box 1; sigma 0 is hard NMS.
  auto t = RunOp("NonMaxSuppressionV5",
                 {boxes, scores, Scalar32(5), ScalarF(1.0f), ScalarF(0.56f), ScalarF(0.5f)});
  ASSERT_TRUE(t.status.ok()) << t.status.ToString();
  EXPECT_EQ(Ints(t.outputs[0]), (std::vector<int32_t>{0, 2}));
  auto hard = RunOp("NonMaxSuppressionV5",
                    {boxes, scores, Scalar32(5), ScalarF(0.5f), ScalarF(0.0f), ScalarF(0.0f)});
  ASSERT_TRUE(hard.status.ok()) << hard.status.ToString();
  EXPECT_EQ(Ints(hard.outputs[0]), (std::vector<int32_t>{0, 2}));
  EXPECT_EQ(Values<float>(hard.outputs[1]), (std::vector<float>{0.9f, 0.6f}));
}

TEST(NonMaxSuppressionTest, HalfAndOverlaps) {
  const Tensor boxes = Make<half>({4, 4}, std::vector<double>(kBoxes.begin(), kBoxes.end()));
  const Tensor scores = Make<half>({4}, {0.9, 0.95, 0.5, 0.7});
  const Tensor iou = Make<half>({}, {0.5});
  for (const char* op : {"NonMaxSuppressionV2", "NonMaxSuppressionV3", "NonMaxSuppressionV4"}) {
    SCOPED_TRACE(op);
    std::vector<Tensor> in = {boxes, scores, Scalar32(10), ScalarF(0.5f)};
    if (std::string(op) != "NonMaxSuppressionV2") in.push_back(ScalarF(0.0f));
    auto r = RunOp(op, in);
    ASSERT_TRUE(r.status.ok()) << r.status.ToString();
    EXPECT_EQ(Ints(r.outputs[0]), (std::vector<int32_t>{1, 3, 2}));
  }
  auto v5 = RunOp("NonMaxSuppressionV5", {boxes, scores, Scalar32(10), iou, Make<half>({}, {0}),
                                          Make<half>({}, {0})});
  ASSERT_TRUE(v5.status.ok()) << v5.status.ToString();
  EXPECT_EQ(Ints(v5.outputs[0]), (std::vector<int32_t>{1, 3, 2}));
  EXPECT_EQ(Get<half>(v5.outputs[1]),
            (std::vector<double>{ToDouble(half(0.95f)), ToDouble(half(0.7f)), 0.5}));
  // Overlaps are used as given (row: the candidate, column: a selected box).
  const Tensor overlaps = F32({3, 3}, {1, 0.9f, 0, 0.2f, 1, 0, 0, 0, 1});
  auto o = RunOp("NonMaxSuppressionWithOverlaps",
                 {overlaps, F32({3}, {0.9f, 0.8f, 0.7f}), Scalar32(3), ScalarF(0.5f), ScalarF(0.0f)});
  ASSERT_TRUE(o.status.ok()) << o.status.ToString();
  EXPECT_EQ(Ints(o.outputs[0]), (std::vector<int32_t>{0, 1, 2}));  // overlaps(1, 0) = 0.2
}

TEST(NonMaxSuppressionTest, EmptyAndBadInputs) {
  auto e = RunOp("NonMaxSuppressionV4", {F32({0, 4}, {}), F32({0}, {}), Scalar32(3), ScalarF(0.5f),
                                         ScalarF(0.0f)},
                 {{"pad_to_max_output_size", AttrOfBool(true)}});
  ASSERT_TRUE(e.status.ok()) << e.status.ToString();
  EXPECT_EQ(Ints(e.outputs[0]), (std::vector<int32_t>{0, 0, 0}));
  EXPECT_EQ(Ints(e.outputs[1]), (std::vector<int32_t>{0}));
  const Tensor boxes = F32({4, 4}, kBoxes), scores = F32({4}, {1, 2, 3, 4});
  ExpectStatus(RunOp("NonMaxSuppressionV3", {boxes, scores, Scalar32(-1), ScalarF(0.5f), ScalarF(0)}).status,
               Code::kInvalidArgument, {"node", "max_output_size", "non-negative"});
  ExpectStatus(RunOp("NonMaxSuppressionV3", {boxes, scores, Scalar32(1), ScalarF(1.5f), ScalarF(0)}).status,
               Code::kInvalidArgument, {"node", "iou_threshold", "[0, 1]"});
  ExpectStatus(RunOp("NonMaxSuppressionV5", {boxes, scores, Scalar32(1), ScalarF(0.5f), ScalarF(0),
                                             ScalarF(-1)}).status,
               Code::kInvalidArgument, {"node", "soft_nms_sigma"});
  ExpectStatus(RunOp("NonMaxSuppressionV2", {F32({4, 3}, std::vector<float>(12, 0)), scores,
                                             Scalar32(1), ScalarF(0.5f)}, {}, false).status,
               Code::kInvalidArgument, {"node", "boxes", "[4,3]"});
  ExpectStatus(RunOp("NonMaxSuppressionV2", {boxes, F32({3}, {1, 2, 3}), Scalar32(1), ScalarF(0.5f)},
                     {}, false).status,
               Code::kInvalidArgument, {"node", "scores", "[3]"});
  ExpectStatus(RunOp("NonMaxSuppressionV2", {boxes, F32({3}, {1, 2, 3}), Scalar32(1), ScalarF(0.5f)}).status,
               Code::kInvalidArgument, {"node", "scores"});
  ExpectStatus(RunOp("NonMaxSuppressionWithOverlaps", {F32({2, 3}, std::vector<float>(6, 0)),
                                                       F32({2}, {1, 2}), Scalar32(1), ScalarF(0.5f),
                                                       ScalarF(0)}, {}, false).status,
               Code::kInvalidArgument, {"node", "overlaps", "[2,3]"});
}

TEST(CombinedNonMaxSuppressionTest, PerClassThenAcrossClasses) {
  // One image, 3 boxes shared by 2 classes (q = 1): boxes 0 and 1 overlap (IoU 0.6).
  const Tensor boxes = F32({1, 3, 1, 4}, {0, 0, 1, 1,   0, 0.25f, 1, 1.25f,   2, 2, 3, 3});
  const Tensor scores = F32({1, 3, 2}, {0.9f, 0.1f,   0.8f, 0.7f,   0.3f, 0.6f});
  for (bool pad : {false, true}) {
    auto r = RunOp("CombinedNonMaxSuppression",
                   {boxes, scores, Scalar32(2), Scalar32(pad ? 10 : 5), ScalarF(0.5f), ScalarF(0.2f)},
                   {{"pad_per_class", AttrOfBool(pad)}});
    ASSERT_TRUE(r.status.ok()) << r.status.ToString();
    // class 0: 0 (0.9), 1 suppressed, 2 (0.3); class 1: 1 (0.7), 2 (0.6), 0 below 0.2.
    // Best first across classes; boxes clipped to [0, 1].
    const int64_t n = pad ? 4 : 5;  // pad_per_class: min(10, 2 per class * 2 classes)
    ASSERT_EQ(r.outputs[1].dims(), (Dims{1, n}));
    std::vector<float> want_scores = {0.9f, 0.7f, 0.6f, 0.3f};
    std::vector<float> want_classes = {0, 1, 1, 0};
    want_scores.resize(static_cast<size_t>(n), 0);
    want_classes.resize(static_cast<size_t>(n), 0);
    EXPECT_EQ(Values<float>(r.outputs[1]), want_scores);
    EXPECT_EQ(Values<float>(r.outputs[2]), want_classes);
    std::vector<float> want_boxes = {0, 0, 1, 1,   0, 0.25f, 1, 1,   1, 1, 1, 1,   1, 1, 1, 1};
    want_boxes.resize(static_cast<size_t>(n * 4), 0);
    EXPECT_EQ(Values<float>(r.outputs[0]), want_boxes);
    EXPECT_EQ(Ints(r.outputs[3]), (std::vector<int32_t>{4}));
  }
  // clip_boxes false keeps the coordinates; max_total_size 1 keeps the best only.
  auto u = RunOp("CombinedNonMaxSuppression",
                 {boxes, scores, Scalar32(2), Scalar32(1), ScalarF(0.5f), ScalarF(0.2f)},
                 {{"clip_boxes", AttrOfBool(false)}});
  ASSERT_TRUE(u.status.ok()) << u.status.ToString();
  EXPECT_EQ(Values<float>(u.outputs[0]), (std::vector<float>{0, 0, 1, 1}));
  EXPECT_EQ(Ints(u.outputs[3]), (std::vector<int32_t>{1}));
  ExpectStatus(RunOp("CombinedNonMaxSuppression",
                     {boxes, scores, Scalar32(0), Scalar32(1), ScalarF(0.5f), ScalarF(0.2f)}).status,
               Code::kInvalidArgument, {"node", "max_output_size_per_class", "positive"});
  ExpectStatus(RunOp("CombinedNonMaxSuppression",
                     {F32({1, 3, 3, 4}, std::vector<float>(36, 0)), scores, Scalar32(1), Scalar32(1),
                      ScalarF(0.5f), ScalarF(0.2f)}, {}, false).status,
               Code::kInvalidArgument, {"node", "boxes", "[1,3,3,4]"});
}

// CropAndResize's reference, in double from TF's formulas.
std::vector<double> CropReference(const std::vector<double>& img, Dims shape,
                                  const std::vector<float>& boxes, const std::vector<int32_t>& ind,
                                  int64_t ch, int64_t cw, bool bilinear, double extrapolation) {
  const int64_t h = shape[1], w = shape[2], depth = shape[3];
  std::vector<double> out;
  for (size_t b = 0; b < ind.size(); ++b) {
    const double y1 = boxes[b * 4], x1 = boxes[b * 4 + 1], y2 = boxes[b * 4 + 2], x2 = boxes[b * 4 + 3];
    auto at = [&](int64_t y, int64_t x, int64_t d) {
      return img[static_cast<size_t>(((ind[b] * h + y) * w + x) * depth + d)];
    };
    for (int64_t y = 0; y < ch; ++y) {
      const double iy = ch > 1 ? y1 * (h - 1) + y * (y2 - y1) * (h - 1) / (ch - 1) : 0.5 * (y1 + y2) * (h - 1);
      for (int64_t x = 0; x < cw; ++x) {
        const double ix = cw > 1 ? x1 * (w - 1) + x * (x2 - x1) * (w - 1) / (cw - 1) : 0.5 * (x1 + x2) * (w - 1);
        for (int64_t d = 0; d < depth; ++d) {
          if (iy < 0 || iy > h - 1 || ix < 0 || ix > w - 1) {
            out.push_back(extrapolation);
          } else if (!bilinear) {
            out.push_back(at(std::lround(iy), std::lround(ix), d));
          } else {
            const int64_t t = static_cast<int64_t>(std::floor(iy)), bo = static_cast<int64_t>(std::ceil(iy));
            const int64_t l = static_cast<int64_t>(std::floor(ix)), r = static_cast<int64_t>(std::ceil(ix));
            const double yl = iy - t, xl = ix - l;
            const double top = at(t, l, d) + (at(t, r, d) - at(t, l, d)) * xl;
            const double bot = at(bo, l, d) + (at(bo, r, d) - at(bo, l, d)) * xl;
            out.push_back(top + (bot - top) * yl);
          }
        }
      }
    }
  }
  return out;
}

template <typename T>
void CheckCrop(bool bilinear) {
  SCOPED_TRACE(DataTypeName(DT<T>()));
  const Dims shape = {2, 5, 7, 3};
  std::vector<double> img;
  for (int64_t i = 0; i < Count(shape); ++i) img.push_back(static_cast<double>((i * 37) % 101) - 20);
  // Inside, flipped (y1 > y2, x1 > x2), partly outside the image, a 1-point crop, a box of
  // one image row.
  const std::vector<float> boxes = {0.1f, 0.2f, 0.9f, 0.7f,   0.8f, 0.9f, 0.2f, 0.1f,
                                    -0.3f, 0.5f, 1.2f, 1.4f,  0.5f, 0.5f, 0.5f, 0.5f,
                                    0.25f, 0, 0.25f, 1};
  const std::vector<int32_t> ind = {0, 1, 1, 0, 1};
  for (Dims crop : {Dims{3, 4}, Dims{1, 1}, Dims{4, 1}}) {
    AttrMap attrs{{"method", AttrOfString(bilinear ? "bilinear" : "nearest")},
                  {"extrapolation_value", AttrOfFloat(-7.5f)}};
    auto r = RunOp("CropAndResize", {Make<T>(shape, img), F32({5, 4}, boxes),
                                     MakeTensor<int32_t>(DT_INT32, {5}, ind), Sizes(crop)},
                   attrs);
    ASSERT_TRUE(r.status.ok()) << r.status.ToString();
    ASSERT_EQ(r.outputs[0].dims(), (Dims{5, crop[0], crop[1], 3}));
    ExpectCloseUniform(ToDoubles(r.outputs[0]),
                       CropReference(img, shape, boxes, ind, crop[0], crop[1], bilinear, -7.5),
                       1e-3, "CropAndResize");
  }
}

TEST(CropAndResizeTest, BilinearAndNearestEveryType) {
  for (bool bilinear : {true, false}) {
    CheckCrop<float>(bilinear);
    CheckCrop<double>(bilinear);
    CheckCrop<half>(bilinear);
    CheckCrop<int32_t>(bilinear);
    CheckCrop<int64_t>(bilinear);
  }
  // The narrow integer types, whose test tensors are built by hand.
  const std::vector<float> box = {0, 0, 1, 1};
  auto run = [&](DataType dt, auto fill) {
    Tensor img = Tensor::Allocate(dt, {1, 2, 2, 1}).value();
    fill(img);
    auto r = RunOp("CropAndResize", {img, F32({1, 4}, box), MakeTensor<int32_t>(DT_INT32, {1}, {0}),
                                     Sizes({3, 3})});
    EXPECT_TRUE(r.status.ok()) << r.status.ToString();
    return r.status.ok() ? Values<float>(r.outputs[0]) : std::vector<float>{};
  };
  const std::vector<float> want = {0, 50, 100, 50, 100, 150, 100, 150, 200};  // corners 0 100 100 200
  EXPECT_EQ(run(DT_UINT8, [](Tensor& t) { auto* p = t.flat<uint8_t>(); p[0] = 0; p[1] = 100; p[2] = 100; p[3] = 200; }), want);
  EXPECT_EQ(run(DT_UINT16, [](Tensor& t) { auto* p = t.flat<uint16_t>(); p[0] = 0; p[1] = 100; p[2] = 100; p[3] = 200; }), want);
  const std::vector<float> want_small = {0, -25, -50, 25, 0, -25, 50, 25, 0};  // corners 0 -50 50 0
  EXPECT_EQ(run(DT_INT8, [](Tensor& t) { auto* p = t.flat<int8_t>(); p[0] = 0; p[1] = -50; p[2] = 50; p[3] = 0; }), want_small);
  EXPECT_EQ(run(DT_INT16, [](Tensor& t) { auto* p = t.flat<int16_t>(); p[0] = 0; p[1] = -50; p[2] = 50; p[3] = 0; }), want_small);
}

// sum(grads * crops) as a function of the image and boxes, in double (CropReference).
double CropDot(const std::vector<double>& img, Dims shape, const std::vector<float>& boxes,
               const std::vector<int32_t>& ind, Dims crop, const std::vector<double>& grads) {
  const auto c = CropReference(img, shape, boxes, ind, crop[0], crop[1], true, 0);
  double sum = 0;
  for (size_t i = 0; i < c.size(); ++i) sum += c[i] * grads[i];
  return sum;
}

TEST(CropAndResizeGradTest, ImageGradientIsTheAdjointAndBoxesGradientTheSlope) {
  const Dims shape = {2, 6, 8, 2};
  std::vector<double> img;
  for (int64_t i = 0; i < Count(shape); ++i) img.push_back(static_cast<double>((i * 53) % 97) / 7 - 5);
  // Sample points off the pixel grid (finite differences stay in one cell), one flipped box,
  // one partly outside the image (its outside samples give no gradient), a 1-point crop.
  const std::vector<float> boxes = {0.13f, 0.21f, 0.77f, 0.66f,   0.81f, 0.93f, 0.17f, 0.09f,
                                    -0.31f, 0.43f, 0.64f, 1.37f,  0.37f, 0.52f, 0.61f, 0.18f};
  const std::vector<int32_t> ind = {0, 1, 1, 0};
  for (Dims crop : {Dims{3, 4}, Dims{1, 1}, Dims{5, 1}}) {
    SCOPED_TRACE(crop[0] * 10 + crop[1]);
    const Dims gshape = {4, crop[0], crop[1], 2};
    const auto gv = RandomValues(DT_FLOAT, Count(gshape), 77, -1, 1);
    const Tensor grads = MakeTyped(DT_FLOAT, gshape, gv);
    const Tensor box_t = F32({4, 4}, boxes), ind_t = MakeTensor<int32_t>(DT_INT32, {4}, ind);
    for (const char* method : {"bilinear", "nearest"}) {
      // sum(grads * crop(image)) is linear in the image: <GradImage(grads), image> equals it.
      for (DataType dt : {DT_FLOAT, DT_DOUBLE, DT_HALF}) {
        auto r = RunOp("CropAndResizeGradImage", {grads, box_t, ind_t, Sizes(shape)},
                       {{"T", AttrOfType(dt)}, {"method", AttrOfString(method)}});
        ASSERT_TRUE(r.status.ok()) << r.status.ToString();
        ASSERT_EQ(r.outputs[0].dims(), shape);
        const auto gi = ToDoubles(r.outputs[0]);
        double dot = 0;
        for (size_t i = 0; i < gi.size(); ++i) dot += gi[i] * img[i];
        const auto c = CropReference(img, shape, boxes, ind, crop[0], crop[1],
                                     std::string(method) == "bilinear", 0);
        double want = 0;
        for (size_t i = 0; i < c.size(); ++i) want += c[i] * gv[i];
        EXPECT_NEAR(dot, want, dt == DT_HALF ? 0.5 : 1e-3) << method << " " << DataTypeName(dt);
      }
    }
    // The boxes' gradient: central differences of sum(grads * crops) in each corner.
    std::vector<double> want;
    for (size_t k = 0; k < boxes.size(); ++k) {
      std::vector<float> hi = boxes, lo = boxes;
      const float e = 1e-3f;
      hi[k] += e;
      lo[k] -= e;
      want.push_back((CropDot(img, shape, hi, ind, crop, gv) - CropDot(img, shape, lo, ind, crop, gv)) /
                     (static_cast<double>(hi[k]) - static_cast<double>(lo[k])));
    }
    auto r = RunOp("CropAndResizeGradBoxes", {grads, MakeTyped(DT_FLOAT, shape, img), box_t, ind_t});
    ASSERT_TRUE(r.status.ok()) << r.status.ToString();
    ASSERT_EQ(r.outputs[0].dims(), (Dims{4, 4}));
    ExpectCloseUniform(ToDoubles(r.outputs[0]), want, 2e-2, "CropAndResizeGradBoxes");
  }
}

template <typename T>
std::vector<double> GradBoxesOf(const std::vector<double>& img) {
  const Tensor grads = MakeTyped(DT_FLOAT, {1, 2, 3, 1}, {1, -2, 0.5, 3, 1, -1});
  auto r = RunOp("CropAndResizeGradBoxes", {grads, Make<T>({1, 3, 4, 1}, img),
                                            F32({1, 4}, {0.1f, 0.2f, 0.9f, 0.7f}),
                                            MakeTensor<int32_t>(DT_INT32, {1}, {0})});
  EXPECT_TRUE(r.status.ok()) << r.status.ToString();
  return r.status.ok() ? ToDoubles(r.outputs[0]) : std::vector<double>{};
}

TEST(CropAndResizeGradTest, BoxesGradientOnEveryImageType) {
  const std::vector<double> img = {3, 7, 1, 0, 9, 4, 4, 2, 8, 5, 6, 1};
  const auto want = GradBoxesOf<float>(img);
  ASSERT_EQ(want.size(), 4u);
  EXPECT_NE(want, std::vector<double>(4, 0));
  EXPECT_EQ(GradBoxesOf<double>(img), want);
  EXPECT_EQ(GradBoxesOf<half>(img), want);
  EXPECT_EQ(GradBoxesOf<int32_t>(img), want);
  EXPECT_EQ(GradBoxesOf<int64_t>(img), want);
  auto narrow = [&](DataType dt, auto setter) {
    Tensor t = Tensor::Allocate(dt, {1, 3, 4, 1}).value();
    for (size_t i = 0; i < img.size(); ++i) setter(t, i, img[i]);
    auto r = RunOp("CropAndResizeGradBoxes", {MakeTyped(DT_FLOAT, {1, 2, 3, 1}, {1, -2, 0.5, 3, 1, -1}), t,
                                              F32({1, 4}, {0.1f, 0.2f, 0.9f, 0.7f}),
                                              MakeTensor<int32_t>(DT_INT32, {1}, {0})});
    EXPECT_TRUE(r.status.ok()) << r.status.ToString();
    if (r.status.ok()) {
      EXPECT_EQ(ToDoubles(r.outputs[0]), want) << DataTypeName(dt);
    }
  };
  narrow(DT_UINT8, [](Tensor& t, size_t i, double v) { t.flat<uint8_t>()[i] = static_cast<uint8_t>(v); });
  narrow(DT_UINT16, [](Tensor& t, size_t i, double v) { t.flat<uint16_t>()[i] = static_cast<uint16_t>(v); });
  narrow(DT_INT8, [](Tensor& t, size_t i, double v) { t.flat<int8_t>()[i] = static_cast<int8_t>(v); });
  narrow(DT_INT16, [](Tensor& t, size_t i, double v) { t.flat<int16_t>()[i] = static_cast<int16_t>(v); });
}

TEST(CropAndResizeGradTest, BadInputs) {
  const Tensor grads = MakeTyped(DT_FLOAT, {1, 2, 2, 1}, {1, 2, 3, 4});
  const Tensor box = F32({1, 4}, {0, 0, 1, 1});
  const AttrMap t{{"T", AttrOfType(DT_FLOAT)}};
  ExpectStatus(RunOp("CropAndResizeGradImage", {grads, box, MakeTensor<int32_t>(DT_INT32, {1}, {1}), Sizes({1, 3, 3, 1})}, t).status,
               Code::kInvalidArgument, {"node", "box_ind", "[0, batch_size)"});
  ExpectStatus(RunOp("CropAndResizeGradImage", {grads, box, MakeTensor<int32_t>(DT_INT32, {1}, {0}), Sizes({1, 3, 3, 2})}, t, false).status,
               Code::kInvalidArgument, {"node", "depth"});
  ExpectStatus(RunOp("CropAndResizeGradBoxes", {grads, MakeTyped(DT_FLOAT, {1, 3, 3, 1}, std::vector<double>(9, 1)),
                                                F32({2, 4}, std::vector<float>(8, 0)), MakeTensor<int32_t>(DT_INT32, {2}, {0, 0})},
                     {}, false).status,
               Code::kInvalidArgument, {"node", "boxes"});
}

TEST(CropAndResizeTest, EmptyAndBadInputs) {
  const Tensor img = MakeTyped(DT_FLOAT, {2, 3, 3, 1}, std::vector<double>(18, 1));
  auto e = RunOp("CropAndResize", {img, F32({0, 4}, {}), MakeTensor<int32_t>(DT_INT32, {0}, {}), Sizes({2, 2})});
  ASSERT_TRUE(e.status.ok()) << e.status.ToString();
  EXPECT_EQ(e.outputs[0].dims(), (Dims{0, 2, 2, 1}));
  const Tensor box = F32({1, 4}, {0, 0, 1, 1});
  ExpectStatus(RunOp("CropAndResize", {img, box, MakeTensor<int32_t>(DT_INT32, {1}, {2}), Sizes({2, 2})}).status,
               Code::kInvalidArgument, {"node", "box_ind", "[0, batch_size)"});
  ExpectStatus(RunOp("CropAndResize", {img, F32({1, 4}, {0, 0, NAN, 1}), MakeTensor<int32_t>(DT_INT32, {1}, {0}),
                                       Sizes({2, 2})}).status,
               Code::kInvalidArgument, {"node", "finite"});
  ExpectStatus(RunOp("CropAndResize", {img, box, MakeTensor<int32_t>(DT_INT32, {1}, {0}), Sizes({0, 2})}, {}, false).status,
               Code::kInvalidArgument, {"node", "crop dimensions must be positive"});
  ExpectStatus(RunOp("CropAndResize", {img, box, MakeTensor<int32_t>(DT_INT32, {1}, {0}), Sizes({0, 2})}).status,
               Code::kInvalidArgument, {"node", "positive"});
  ExpectStatus(RunOp("CropAndResize", {MakeTyped(DT_FLOAT, {3, 3, 1}, std::vector<double>(9, 1)), box,
                                       MakeTensor<int32_t>(DT_INT32, {1}, {0}), Sizes({2, 2})}, {}, false).status,
               Code::kInvalidArgument, {"node", "image", "4-D"});
  ExpectStatus(RunOp("CropAndResize", {img, box, MakeTensor<int32_t>(DT_INT32, {2}, {0, 0}), Sizes({2, 2})}, {}, false).status,
               Code::kInvalidArgument, {"node", "box_ind"});
}

}  // namespace
}  // namespace tgraph::testing
