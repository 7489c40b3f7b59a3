// The object-detection ops: non-maximum suppression (NonMaxSuppression V1-V5,
// NonMaxSuppressionWithOverlaps, CombinedNonMaxSuppression) and CropAndResize, with TensorFlow's CPU semantics:
//  - NMS is greedy over a queue ordered by score, higher first, equal scores by lower box
//    index; only boxes scoring above score_threshold enter it. A candidate is compared with
//    the boxes selected since it was last looked at: hard NMS drops it when an IoU exceeds
//    iou_threshold; Soft-NMS (V5, sigma > 0) multiplies its score by exp(-0.5 * iou^2 /
//    sigma) per selected box and puts it back in the queue when the score fell but stays
//    above score_threshold. Boxes may come with y1 > y2 or x1 > x2 (corners are sorted);
//    a box of no area overlaps nothing. Scores and thresholds are in T (half or float),
//    the IoU in float, as TF computes them.
//  - CropAndResize samples each box (normalized corners, y1 > y2 flips the crop) at
//    crop_size points spaced evenly from corner to corner (the box's centre for a size of
//    1), bilinearly or at the nearest pixel; points outside the image get
//    extrapolation_value. Its gradients' ops (CropAndResizeGradImage / GradBoxes) follow
//    the same sample points.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <queue>
#include <string>
#include <vector>

#include "model_op_kernels.h"
#include "nn_common.h"

namespace tgraph_cpu {
namespace {

using nn::ShapeString;
using tgraph::plugin::Construction;
using tgraph::plugin::Context;

// ---- non-maximum suppression ----

enum class Nms { kV1, kV2, kV3, kV4, kV5, kOverlaps };

// A scalar threshold input of type half or float, converted to T. Fails the context naming
// `what` otherwise.
template <typename T>
bool ReadThreshold(Context& ctx, int index, const char* what, T* out) {
  const auto t = ctx.input(index);
  if (t.rank() != 0 || (t.dtype() != TG_FLOAT && t.dtype() != TG_HALF)) {
    ctx.Fail(TG_INVALID_ARGUMENT, std::string(what) + " must be a half or float scalar, got shape " +
                                      ShapeString(t.dims()));
    return false;
  }
  *out = t.dtype() == TG_FLOAT ? static_cast<T>(t.data<float>()[0])
                               : static_cast<T>(static_cast<float>(t.data<Eigen::half>()[0]));
  return true;
}

// The intersection over union of boxes i and j (rows of 4 corners, either order).
template <typename T>
float IoU(const T* boxes, int64_t i, int64_t j) {
  const T* a = boxes + i * 4;
  const T* b = boxes + j * 4;
  const float a_y0 = std::min(static_cast<float>(a[0]), static_cast<float>(a[2]));
  const float a_x0 = std::min(static_cast<float>(a[1]), static_cast<float>(a[3]));
  const float a_y1 = std::max(static_cast<float>(a[0]), static_cast<float>(a[2]));
  const float a_x1 = std::max(static_cast<float>(a[1]), static_cast<float>(a[3]));
  const float b_y0 = std::min(static_cast<float>(b[0]), static_cast<float>(b[2]));
  const float b_x0 = std::min(static_cast<float>(b[1]), static_cast<float>(b[3]));
  const float b_y1 = std::max(static_cast<float>(b[0]), static_cast<float>(b[2]));
  const float b_x1 = std::max(static_cast<float>(b[1]), static_cast<float>(b[3]));
  const float area_a = (a_y1 - a_y0) * (a_x1 - a_x0);
  const float area_b = (b_y1 - b_y0) * (b_x1 - b_x0);
  if (area_a <= 0 || area_b <= 0) return 0.0f;
  const float inter = std::max(std::min(a_y1, b_y1) - std::max(a_y0, b_y0), 0.0f) *
                      std::max(std::min(a_x1, b_x1) - std::max(a_x0, b_x0), 0.0f);
  return inter / (area_a + area_b - inter);
}

// The greedy selection (see the file comment). `similarity(i, j)`: candidate i against the
// selected box j.
template <typename T, typename Similarity>
void Select(const T* scores, int64_t num_boxes, int64_t max_output, T similarity_threshold,
            T score_threshold, T sigma, const Similarity& similarity, std::vector<int32_t>* selected,
            std::vector<T>* selected_scores) {
  struct Candidate {
    int32_t index;
    T score;
    int64_t compared_up_to;  // selected boxes before this one were already applied
  };
  // Pops the highest score first, the lower index among equal scores.
  auto lower = [](const Candidate& a, const Candidate& b) {
    return a.score < b.score || (a.score == b.score && a.index > b.index);
  };
  std::priority_queue<Candidate, std::vector<Candidate>, decltype(lower)> queue(lower);
  for (int64_t i = 0; i < num_boxes; ++i) {
    if (scores[i] > score_threshold) queue.push({static_cast<int32_t>(i), scores[i], 0});
  }
  const bool soft = sigma > T(0);
  const T scale = soft ? static_cast<T>(-0.5f) / sigma : T(0);
  while (static_cast<int64_t>(selected->size()) < max_output && !queue.empty()) {
    Candidate next = queue.top();
    queue.pop();
    const T original = next.score;
    bool suppressed = false;
    for (int64_t j = static_cast<int64_t>(selected->size()) - 1; j >= next.compared_up_to; --j) {
      const T s = static_cast<T>(similarity(next.index, (*selected)[static_cast<size_t>(j)]));
      const T weight = static_cast<T>(std::exp(static_cast<float>(scale * s * s)));
      next.score *= (soft || s <= similarity_threshold) ? weight : T(0);
      if (!soft && s > similarity_threshold) {
        suppressed = true;
        break;
      }
      if (next.score <= score_threshold) break;
    }
    next.compared_up_to = static_cast<int64_t>(selected->size());
    if (suppressed) continue;
    if (next.score == original) {
      selected->push_back(next.index);
      selected_scores->push_back(next.score);
    } else if (next.score > score_threshold) {
      queue.push(next);  // decayed by Soft-NMS: back in line at its new score
    }
  }
}

template <typename T, Nms kVersion>
class NmsOp {
 public:
  explicit NmsOp(Construction& c) {
    if constexpr (kVersion == Nms::kV1) {
      float t = 0;
      if (c.GetAttr("iou_threshold", &t)) iou_attr_ = t;
    }
    if constexpr (kVersion == Nms::kV4 || kVersion == Nms::kV5) {
      c.GetAttr("pad_to_max_output_size", &pad_);
    }
  }

  void Compute(Context& ctx) {
    const auto boxes = ctx.input(0), scores = ctx.input(1), max_t = ctx.input(2);
    const bool overlaps = kVersion == Nms::kOverlaps;
    const int64_t num_boxes = boxes.rank() >= 1 ? boxes.dim(0) : 0;
    if (overlaps) {
      if (boxes.rank() != 2 || boxes.dim(1) != num_boxes) {
        ctx.Fail(TG_INVALID_ARGUMENT, "overlaps must be a square matrix, got shape " +
                                          ShapeString(boxes.dims()));
        return;
      }
    } else if (boxes.rank() != 2 || boxes.dim(1) != 4) {
      ctx.Fail(TG_INVALID_ARGUMENT, "boxes must be 2-D [num_boxes, 4], got shape " +
                                        ShapeString(boxes.dims()));
      return;
    }
    if (scores.rank() != 1 || scores.dim(0) != num_boxes) {
      ctx.Fail(TG_INVALID_ARGUMENT, "scores must be a vector of " + std::to_string(num_boxes) +
                                        " values (one per box), got shape " + ShapeString(scores.dims()));
      return;
    }
    if (max_t.rank() != 0) {
      ctx.Fail(TG_INVALID_ARGUMENT, "max_output_size must be a scalar, got shape " +
                                        ShapeString(max_t.dims()));
      return;
    }
    const int64_t max_output = max_t.data<int32_t>()[0];
    if (max_output < 0) {
      ctx.Fail(TG_INVALID_ARGUMENT, "max_output_size must be non-negative, got " +
                                        std::to_string(max_output));
      return;
    }
    T iou = static_cast<T>(iou_attr_);
    T score_threshold = std::numeric_limits<T>::lowest();
    T sigma = T(0);
    if constexpr (kVersion != Nms::kV1) {
      if (!ReadThreshold(ctx, 3, overlaps ? "overlap_threshold" : "iou_threshold", &iou)) return;
    }
    if constexpr (kVersion != Nms::kV1 && kVersion != Nms::kV2) {
      if (!ReadThreshold(ctx, 4, "score_threshold", &score_threshold)) return;
    }
    if constexpr (kVersion == Nms::kV5) {
      if (!ReadThreshold(ctx, 5, "soft_nms_sigma", &sigma)) return;
      if (sigma < T(0)) {
        ctx.Fail(TG_INVALID_ARGUMENT, "soft_nms_sigma must be >= 0, got " +
                                          std::to_string(static_cast<float>(sigma)));
        return;
      }
    }
    if (!overlaps && !(iou >= T(0) && iou <= T(1))) {
      ctx.Fail(TG_INVALID_ARGUMENT, "iou_threshold must be in [0, 1], got " +
                                        std::to_string(static_cast<float>(iou)));
      return;
    }
    const T* b = boxes.template data<T>();
    const T* s = scores.template data<T>();
    std::vector<int32_t> selected;
    std::vector<T> selected_scores;
    if (overlaps) {
      Select<T>(s, num_boxes, max_output, iou, score_threshold, sigma,
                [&](int64_t i, int64_t j) { return static_cast<float>(b[i * num_boxes + j]); },
                &selected, &selected_scores);
    } else {
      Select<T>(s, num_boxes, max_output, iou, score_threshold, sigma,
                [&](int64_t i, int64_t j) { return IoU(b, i, j); }, &selected, &selected_scores);
    }
    const int32_t valid = static_cast<int32_t>(selected.size());
    const int64_t out_size = pad_ ? max_output : static_cast<int64_t>(valid);
    selected.resize(static_cast<size_t>(out_size), 0);
    selected_scores.resize(static_cast<size_t>(out_size), T(0));
    auto indices = ctx.AllocateOutput(0, {out_size});
    if (!ctx.ok()) return;
    std::copy(selected.begin(), selected.end(), indices.template mutable_data<int32_t>());
    int next_output = 1;
    if constexpr (kVersion == Nms::kV5) {
      auto out_scores = ctx.AllocateOutput(next_output++, {out_size});
      if (!ctx.ok()) return;
      std::copy(selected_scores.begin(), selected_scores.end(), out_scores.template mutable_data<T>());
    }
    if constexpr (kVersion == Nms::kV4 || kVersion == Nms::kV5) {
      auto count = ctx.AllocateOutput(next_output, std::vector<int64_t>{});
      if (!ctx.ok()) return;
      count.template mutable_data<int32_t>()[0] = valid;
    }
  }

 private:
  float iou_attr_ = 0.5f;
  bool pad_ = false;
};

// ---- CombinedNonMaxSuppression ----

// Per image and class, greedy hard NMS of that class's scores (queue ordered by score alone;
// equal scores leave in the heap's order, as TF's kernel, whose std::priority_queue this
// is), up to min(max_size_per_class, num_boxes) each, into the class's slots of one table;
// then the table (unselected slots scoring -1) is sorted by score, best first (std::sort:
// equal scores in the order TF's identical call leaves them), and the best
// max_detections rows become the image's outputs, boxes clipped to [0, 1] unless
// clip_boxes is false, padded with zeros.
class CombinedNmsOp {
 public:
  explicit CombinedNmsOp(Construction& c) {
    c.GetAttr("pad_per_class", &pad_per_class_);
    c.GetAttr("clip_boxes", &clip_boxes_);
  }

  void Compute(Context& ctx) {
    const auto boxes_t = ctx.input(0), scores_t = ctx.input(1);
    int32_t scalars[2];
    const char* names[2] = {"max_output_size_per_class", "max_total_size"};
    for (int i = 0; i < 2; ++i) {
      const auto t = ctx.input(2 + i);
      if (t.rank() != 0) {
        ctx.Fail(TG_INVALID_ARGUMENT, std::string(names[i]) + " must be a scalar, got shape " +
                                          ShapeString(t.dims()));
        return;
      }
      scalars[i] = t.data<int32_t>()[0];
      if (scalars[i] <= 0) {
        ctx.Fail(TG_INVALID_ARGUMENT, std::string(names[i]) + " must be positive, got " +
                                          std::to_string(scalars[i]));
        return;
      }
    }
    const int64_t max_per_class = scalars[0], max_total = scalars[1];
    float iou = 0, score_threshold = 0;
    if (!ReadThreshold(ctx, 4, "iou_threshold", &iou) ||
        !ReadThreshold(ctx, 5, "score_threshold", &score_threshold)) {
      return;
    }
    if (!(iou >= 0 && iou <= 1)) {
      ctx.Fail(TG_INVALID_ARGUMENT, "iou_threshold must be in [0, 1], got " + std::to_string(iou));
      return;
    }
    if (scores_t.rank() != 3) {
      ctx.Fail(TG_INVALID_ARGUMENT, "scores must be 3-D [batch, num_boxes, num_classes], got shape " +
                                        ShapeString(scores_t.dims()));
      return;
    }
    const int64_t batch = scores_t.dim(0), num_boxes = scores_t.dim(1), classes = scores_t.dim(2);
    if (boxes_t.rank() != 4 || boxes_t.dim(0) != batch || boxes_t.dim(1) != num_boxes ||
        (boxes_t.dim(2) != 1 && boxes_t.dim(2) != classes) || boxes_t.dim(3) != 4) {
      ctx.Fail(TG_INVALID_ARGUMENT, "boxes must be [batch, num_boxes, q, 4] with q 1 or the number "
                                    "of classes, matching scores " + ShapeString(scores_t.dims()) +
                                        ", got shape " + ShapeString(boxes_t.dims()));
      return;
    }
    const int64_t q = boxes_t.dim(2);
    const int64_t per_class = std::min(max_per_class, num_boxes);
    const int64_t per_batch =
        pad_per_class_ ? std::min<int64_t>(max_total, std::min<int64_t>(INT32_MAX, max_per_class * classes))
                       : max_total;
    auto out_boxes = ctx.AllocateOutput(0, {batch, per_batch, 4});
    auto out_scores = ctx.AllocateOutput(1, {batch, per_batch});
    auto out_classes = ctx.AllocateOutput(2, {batch, per_batch});
    auto out_valid = ctx.AllocateOutput(3, {batch});
    if (!ctx.ok()) return;
    const float* all_boxes = boxes_t.data<float>();
    const float* all_scores = scores_t.data<float>();
    float* ob = out_boxes.mutable_data<float>();
    float* os = out_scores.mutable_data<float>();
    float* oc = out_classes.mutable_data<float>();
    int32_t* ov = out_valid.mutable_data<int32_t>();
    struct Row {
      int64_t box = -1;
      float score = -1.0f;
      int64_t cls = -1;
      float coord[4] = {0, 0, 0, 0};
    };
    ctx.ParallelFor(batch, static_cast<double>(num_boxes * classes) * 50.0, [&](int64_t begin, int64_t end) {
      for (int64_t b = begin; b < end; ++b) {
        const float* boxes = all_boxes + b * num_boxes * q * 4;
        const float* scores = all_scores + b * num_boxes * classes;
        std::vector<Row> table(static_cast<size_t>(per_class * classes));
        for (int64_t c = 0; c < classes; ++c) {
          struct Candidate {
            int64_t box;
            float score;
          };
          auto by_score = [](const Candidate& x, const Candidate& y) { return x.score < y.score; };
          std::priority_queue<Candidate, std::vector<Candidate>, decltype(by_score)> queue(by_score);
          for (int64_t i = 0; i < num_boxes; ++i) {
            const float s = scores[i * classes + c];
            if (s > score_threshold) queue.push({i, s});
          }
          const int64_t column = q > 1 ? c : 0;
          std::vector<int64_t> selected;
          while (static_cast<int64_t>(selected.size()) < per_class && !queue.empty()) {
            const Candidate next = queue.top();
            queue.pop();
            bool keep = true;
            for (int64_t j = static_cast<int64_t>(selected.size()) - 1; j >= 0; --j) {
              if (IoU(boxes, next.box * q + column, selected[static_cast<size_t>(j)] * q + column) > iou) {
                keep = false;
                break;
              }
            }
            if (!keep) continue;
            Row& row = table[static_cast<size_t>(c * per_class) + selected.size()];
            row.box = next.box;
            row.score = next.score;
            row.cls = c;
            std::copy_n(boxes + (next.box * q + column) * 4, 4, row.coord);
            selected.push_back(next.box);
          }
        }
        std::sort(table.begin(), table.end(), [](const Row& x, const Row& y) { return x.score > y.score; });
        const int64_t found = std::count_if(table.begin(), table.end(), [](const Row& r) { return r.box > -1; });
        const int64_t count = std::min(found, per_batch);
        ov[b] = static_cast<int32_t>(count);
        float* bb = ob + b * per_batch * 4;
        float* sb = os + b * per_batch;
        float* cb = oc + b * per_batch;
        std::fill(bb, bb + per_batch * 4, 0.0f);
        std::fill(sb, sb + per_batch, 0.0f);
        std::fill(cb, cb + per_batch, 0.0f);
        for (int64_t k = 0; k < count && k < static_cast<int64_t>(table.size()); ++k) {
          const Row& r = table[static_cast<size_t>(k)];
          for (int i = 0; i < 4; ++i) {
            bb[k * 4 + i] = clip_boxes_ ? std::max(std::min(r.coord[i], 1.0f), 0.0f) : r.coord[i];
          }
          sb[k] = r.score;
          cb[k] = static_cast<float>(r.cls);
        }
      }
    });
  }

 private:
  bool pad_per_class_ = false;
  bool clip_boxes_ = true;
};

// ---- CropAndResize ----

template <typename T>
class CropAndResizeOp {
 public:
  explicit CropAndResizeOp(Construction& c) {
    std::string method;
    if (!c.GetAttr("method", &method) || !c.GetAttr("extrapolation_value", &extrapolation_)) return;
    if (method != "bilinear" && method != "nearest") {
      c.Fail(TG_INVALID_ARGUMENT, "method must be 'bilinear' or 'nearest', got '" + method + "'");
      return;
    }
    bilinear_ = method == "bilinear";
  }

  void Compute(Context& ctx) {
    const auto image = ctx.input(0), boxes_t = ctx.input(1), box_ind_t = ctx.input(2);
    const auto crop_t = ctx.input(3);
    if (image.rank() != 4) {
      ctx.Fail(TG_INVALID_ARGUMENT, "image must be 4-D, got shape " + ShapeString(image.dims()));
      return;
    }
    const int64_t batch = image.dim(0), height = image.dim(1), width = image.dim(2);
    const int64_t depth = image.dim(3);
    if (height <= 0 || width <= 0) {
      ctx.Fail(TG_INVALID_ARGUMENT, "image dimensions must be positive, got shape " +
                                        ShapeString(image.dims()));
      return;
    }
    if (boxes_t.rank() != 2 || boxes_t.dim(1) != 4) {
      ctx.Fail(TG_INVALID_ARGUMENT, "boxes must be 2-D [num_boxes, 4], got shape " +
                                        ShapeString(boxes_t.dims()));
      return;
    }
    const int64_t num_boxes = boxes_t.dim(0);
    if (box_ind_t.rank() != 1 || box_ind_t.dim(0) != num_boxes) {
      ctx.Fail(TG_INVALID_ARGUMENT, "box_ind must be a vector of " + std::to_string(num_boxes) +
                                        " values (one per box), got shape " +
                                        ShapeString(box_ind_t.dims()));
      return;
    }
    if (crop_t.rank() != 1 || crop_t.dim(0) != 2) {
      ctx.Fail(TG_INVALID_ARGUMENT, "crop_size must be a vector of 2 values, got shape " +
                                        ShapeString(crop_t.dims()));
      return;
    }
    const int64_t crop_h = crop_t.data<int32_t>()[0], crop_w = crop_t.data<int32_t>()[1];
    if (crop_h <= 0 || crop_w <= 0) {
      ctx.Fail(TG_INVALID_ARGUMENT, "crop dimensions must be positive, got [" +
                                        std::to_string(crop_h) + ", " + std::to_string(crop_w) + "]");
      return;
    }
    const float* boxes = boxes_t.data<float>();
    const int32_t* box_ind = box_ind_t.data<int32_t>();
    for (int64_t i = 0; i < num_boxes; ++i) {
      if (box_ind[i] < 0 || box_ind[i] >= batch) {
        ctx.Fail(TG_INVALID_ARGUMENT, "box_ind has values outside [0, batch_size): " +
                                          std::to_string(box_ind[i]) + " at " + std::to_string(i) +
                                          ", batch_size " + std::to_string(batch));
        return;
      }
    }
    for (int64_t i = 0; i < num_boxes * 4; ++i) {
      if (!std::isfinite(boxes[i])) {
        ctx.Fail(TG_INVALID_ARGUMENT, "boxes contains at least one element that is not finite");
        return;
      }
    }
    auto out = ctx.AllocateOutput(0, {num_boxes, crop_h, crop_w, depth});
    if (!ctx.ok() || num_boxes == 0 || depth == 0) return;
    const T* img = image.template data<T>();
    float* crops = out.template mutable_data<float>();
    const float extrapolation = extrapolation_;
    const bool bilinear = bilinear_;
    // TF's arithmetic, in float (the centre of a 1-point crop in double, as TF computes it).
    const auto sample = [](float c0, float c1, int64_t crop, int64_t size, int64_t i, float scale) {
      return crop > 1 ? c0 * static_cast<float>(size - 1) + static_cast<float>(i) * scale
                      : static_cast<float>(0.5 * static_cast<double>(c0 + c1) * static_cast<double>(size - 1));
    };
    ctx.ParallelFor(num_boxes * crop_h, static_cast<double>(crop_w * depth) * 8.0,
                    [&](int64_t begin, int64_t end) {
      for (int64_t row = begin; row < end; ++row) {
        const int64_t b = row / crop_h, y = row % crop_h;
        const float y1 = boxes[b * 4], x1 = boxes[b * 4 + 1];
        const float y2 = boxes[b * 4 + 2], x2 = boxes[b * 4 + 3];
        const T* src = img + box_ind[b] * height * width * depth;
        float* dst = crops + row * crop_w * depth;
        const float h_scale = crop_h > 1 ? (y2 - y1) * static_cast<float>(height - 1) / static_cast<float>(crop_h - 1) : 0.0f;
        const float w_scale = crop_w > 1 ? (x2 - x1) * static_cast<float>(width - 1) / static_cast<float>(crop_w - 1) : 0.0f;
        const float in_y = sample(y1, y2, crop_h, height, y, h_scale);
        if (in_y < 0 || in_y > static_cast<float>(height - 1)) {
          std::fill(dst, dst + crop_w * depth, extrapolation);
          continue;
        }
        const int64_t top = static_cast<int64_t>(std::floor(in_y));
        const int64_t bottom = static_cast<int64_t>(std::ceil(in_y));
        const float y_lerp = in_y - static_cast<float>(top);
        const int64_t nearest_y = static_cast<int64_t>(std::round(in_y));
        for (int64_t x = 0; x < crop_w; ++x) {
          float* px = dst + x * depth;
          const float in_x = sample(x1, x2, crop_w, width, x, w_scale);
          if (in_x < 0 || in_x > static_cast<float>(width - 1)) {
            std::fill(px, px + depth, extrapolation);
            continue;
          }
          if (!bilinear) {
            const T* p = src + (nearest_y * width + static_cast<int64_t>(std::round(in_x))) * depth;
            for (int64_t d = 0; d < depth; ++d) px[d] = static_cast<float>(p[d]);
            continue;
          }
          const int64_t left = static_cast<int64_t>(std::floor(in_x));
          const int64_t right = static_cast<int64_t>(std::ceil(in_x));
          const float x_lerp = in_x - static_cast<float>(left);
          const T* tl = src + (top * width + left) * depth;
          const T* tr = src + (top * width + right) * depth;
          const T* bl = src + (bottom * width + left) * depth;
          const T* br = src + (bottom * width + right) * depth;
          for (int64_t d = 0; d < depth; ++d) {
            const float t_l = static_cast<float>(tl[d]), t_r = static_cast<float>(tr[d]);
            const float b_l = static_cast<float>(bl[d]), b_r = static_cast<float>(br[d]);
            const float t = t_l + (t_r - t_l) * x_lerp;
            const float bo = b_l + (b_r - b_l) * x_lerp;
            px[d] = t + (bo - t) * y_lerp;
          }
        }
      }
    });
  }

 private:
  bool bilinear_ = true;
  float extrapolation_ = 0;
};

// ---- CropAndResize's gradients ----

// The checks CropAndResize's gradients share with it: grads [num_boxes, crop_h, crop_w,
// depth] with positive crop sizes, boxes [num_boxes, 4] (finite), box_ind [num_boxes] of
// images in [0, batch). Fails the context otherwise.
struct CropGeometry {
  int64_t num_boxes = 0, crop_h = 0, crop_w = 0, depth = 0;
  int64_t batch = 0, height = 0, width = 0;
};

bool CheckCropGrad(Context& ctx, const tgraph::plugin::TensorView& grads,
                   const tgraph::plugin::TensorView& boxes, const tgraph::plugin::TensorView& box_ind,
                   const std::vector<int64_t>& image, CropGeometry* g) {
  if (grads.rank() != 4) {
    ctx.Fail(TG_INVALID_ARGUMENT, "grads must be 4-D, got shape " + ShapeString(grads.dims()));
    return false;
  }
  g->num_boxes = grads.dim(0);
  g->crop_h = grads.dim(1);
  g->crop_w = grads.dim(2);
  g->depth = grads.dim(3);
  if (g->crop_h <= 0 || g->crop_w <= 0) {
    ctx.Fail(TG_INVALID_ARGUMENT, "grads' crop dimensions must be positive, got shape " +
                                      ShapeString(grads.dims()));
    return false;
  }
  if (boxes.rank() != 2 || boxes.dim(0) != g->num_boxes || boxes.dim(1) != 4) {
    ctx.Fail(TG_INVALID_ARGUMENT, "boxes must be [" + std::to_string(g->num_boxes) +
                                      ", 4] (a row per crop in grads), got shape " +
                                      ShapeString(boxes.dims()));
    return false;
  }
  if (box_ind.rank() != 1 || box_ind.dim(0) != g->num_boxes) {
    ctx.Fail(TG_INVALID_ARGUMENT, "box_ind must be a vector of " + std::to_string(g->num_boxes) +
                                      " values, got shape " + ShapeString(box_ind.dims()));
    return false;
  }
  if (image.size() != 4 || image[1] <= 0 || image[2] <= 0 || image[3] != g->depth) {
    ctx.Fail(TG_INVALID_ARGUMENT, "the image " + ShapeString(image) +
                                      " must be 4-D with positive height and width and the depth "
                                      "of grads " + ShapeString(grads.dims()));
    return false;
  }
  g->batch = image[0];
  g->height = image[1];
  g->width = image[2];
  const int32_t* ind = box_ind.data<int32_t>();
  for (int64_t i = 0; i < g->num_boxes; ++i) {
    if (ind[i] < 0 || ind[i] >= g->batch) {
      ctx.Fail(TG_INVALID_ARGUMENT, "box_ind has values outside [0, batch_size): " +
                                        std::to_string(ind[i]) + " at " + std::to_string(i));
      return false;
    }
  }
  const float* b = boxes.data<float>();
  for (int64_t i = 0; i < g->num_boxes * 4; ++i) {
    if (!std::isfinite(b[i])) {
      ctx.Fail(TG_INVALID_ARGUMENT, "boxes contains at least one element that is not finite");
      return false;
    }
  }
  return true;
}

// A sample's coordinate along one axis, as CropAndResize computes it.
inline float SampleAt(float c0, float c1, int64_t crop, int64_t size, int64_t i, float scale) {
  return crop > 1 ? c0 * static_cast<float>(size - 1) + static_cast<float>(i) * scale
                  : static_cast<float>(0.5 * static_cast<double>(c0 + c1) * static_cast<double>(size - 1));
}

// Each crop sample's gradient added to the pixels it read (bilinear: the four neighbours by
// their weights; nearest: the one pixel), in T, box after box in order as TF adds them.
template <typename T>
class CropAndResizeGradImageOp {
 public:
  explicit CropAndResizeGradImageOp(Construction& c) {
    std::string method;
    if (c.GetAttr("method", &method)) bilinear_ = method == "bilinear";
  }

  void Compute(Context& ctx) {
    const auto grads = ctx.input(0), boxes_t = ctx.input(1), ind_t = ctx.input(2), size_t_ = ctx.input(3);
    if (size_t_.rank() != 1 || size_t_.dim(0) != 4) {
      ctx.Fail(TG_INVALID_ARGUMENT, "image_size must be a vector of 4 values, got shape " +
                                        ShapeString(size_t_.dims()));
      return;
    }
    const int32_t* sz = size_t_.data<int32_t>();
    const std::vector<int64_t> image = {sz[0], sz[1], sz[2], sz[3]};
    if (image[0] < 0) {
      ctx.Fail(TG_INVALID_ARGUMENT, "image_size must be non-negative, got " + ShapeString(image));
      return;
    }
    CropGeometry g;
    if (!CheckCropGrad(ctx, grads, boxes_t, ind_t, image, &g)) return;
    auto out = ctx.AllocateOutput(0, image);
    if (!ctx.ok()) return;
    T* dst = out.template mutable_data<T>();
    std::fill(dst, dst + g.batch * g.height * g.width * g.depth, T(0));
    const float* gy = grads.data<float>();
    const float* boxes = boxes_t.data<float>();
    const int32_t* ind = ind_t.data<int32_t>();
    for (int64_t b = 0; b < g.num_boxes; ++b) {
      const float y1 = boxes[b * 4], x1 = boxes[b * 4 + 1], y2 = boxes[b * 4 + 2], x2 = boxes[b * 4 + 3];
      T* img = dst + ind[b] * g.height * g.width * g.depth;
      const float h_scale = g.crop_h > 1 ? (y2 - y1) * static_cast<float>(g.height - 1) / static_cast<float>(g.crop_h - 1) : 0.0f;
      const float w_scale = g.crop_w > 1 ? (x2 - x1) * static_cast<float>(g.width - 1) / static_cast<float>(g.crop_w - 1) : 0.0f;
      for (int64_t y = 0; y < g.crop_h; ++y) {
        const float in_y = SampleAt(y1, y2, g.crop_h, g.height, y, h_scale);
        if (in_y < 0 || in_y > static_cast<float>(g.height - 1)) continue;
        const int64_t top = static_cast<int64_t>(std::floor(in_y));
        const int64_t bottom = static_cast<int64_t>(std::ceil(in_y));
        const float y_lerp = in_y - static_cast<float>(top);
        for (int64_t x = 0; x < g.crop_w; ++x) {
          const float in_x = SampleAt(x1, x2, g.crop_w, g.width, x, w_scale);
          if (in_x < 0 || in_x > static_cast<float>(g.width - 1)) continue;
          const float* gp = gy + ((b * g.crop_h + y) * g.crop_w + x) * g.depth;
          if (!bilinear_) {
            T* p = img + (static_cast<int64_t>(std::round(in_y)) * g.width +
                          static_cast<int64_t>(std::round(in_x))) * g.depth;
            for (int64_t d = 0; d < g.depth; ++d) p[d] += static_cast<T>(gp[d]);
            continue;
          }
          const int64_t left = static_cast<int64_t>(std::floor(in_x));
          const int64_t right = static_cast<int64_t>(std::ceil(in_x));
          const float x_lerp = in_x - static_cast<float>(left);
          T* tl = img + (top * g.width + left) * g.depth;
          T* tr = img + (top * g.width + right) * g.depth;
          T* bl = img + (bottom * g.width + left) * g.depth;
          T* br = img + (bottom * g.width + right) * g.depth;
          for (int64_t d = 0; d < g.depth; ++d) {
            const float dtop = (1 - y_lerp) * gp[d];
            tl[d] += static_cast<T>((1 - x_lerp) * dtop);
            tr[d] += static_cast<T>(x_lerp * dtop);
            const float dbottom = y_lerp * gp[d];
            bl[d] += static_cast<T>((1 - x_lerp) * dbottom);
            br[d] += static_cast<T>(x_lerp * dbottom);
          }
        }
      }
    }
  }

 private:
  bool bilinear_ = true;
};

// d crops / d box corners of bilinear sampling: per sample the image's slope along y and x
// at the sample point times the sample's gradient, times how the point moves with each
// corner. TF's arithmetic (the 1-point crops' halves in double).
template <typename T>
class CropAndResizeGradBoxesOp {
 public:
  explicit CropAndResizeGradBoxesOp(Construction&) {}

  void Compute(Context& ctx) {
    const auto grads = ctx.input(0), image_t = ctx.input(1), boxes_t = ctx.input(2), ind_t = ctx.input(3);
    CropGeometry g;
    if (image_t.rank() != 4) {
      ctx.Fail(TG_INVALID_ARGUMENT, "image must be 4-D, got shape " + ShapeString(image_t.dims()));
      return;
    }
    if (!CheckCropGrad(ctx, grads, boxes_t, ind_t, image_t.dims(), &g)) return;
    auto out = ctx.AllocateOutput(0, {g.num_boxes, 4});
    if (!ctx.ok() || g.num_boxes == 0) return;
    float* db = out.template mutable_data<float>();
    const float* gy = grads.data<float>();
    const float* boxes = boxes_t.data<float>();
    const int32_t* ind = ind_t.data<int32_t>();
    const T* image = image_t.template data<T>();
    ctx.ParallelFor(g.num_boxes, static_cast<double>(g.crop_h * g.crop_w * g.depth) * 20.0,
                    [&](int64_t begin, int64_t end) {
      for (int64_t b = begin; b < end; ++b) {
        float* o = db + b * 4;
        std::fill(o, o + 4, 0.0f);
        const float y1 = boxes[b * 4], x1 = boxes[b * 4 + 1], y2 = boxes[b * 4 + 2], x2 = boxes[b * 4 + 3];
        const T* img = image + ind[b] * g.height * g.width * g.depth;
        const float h_ratio = g.crop_h > 1 ? static_cast<float>(g.height - 1) / static_cast<float>(g.crop_h - 1) : 0.0f;
        const float w_ratio = g.crop_w > 1 ? static_cast<float>(g.width - 1) / static_cast<float>(g.crop_w - 1) : 0.0f;
        const float h_scale = g.crop_h > 1 ? (y2 - y1) * h_ratio : 0.0f;
        const float w_scale = g.crop_w > 1 ? (x2 - x1) * w_ratio : 0.0f;
        const double half_h = 0.5 * static_cast<double>(g.height - 1);
        const double half_w = 0.5 * static_cast<double>(g.width - 1);
        for (int64_t y = 0; y < g.crop_h; ++y) {
          const float in_y = SampleAt(y1, y2, g.crop_h, g.height, y, h_scale);
          if (in_y < 0 || in_y > static_cast<float>(g.height - 1)) continue;
          const int64_t top = static_cast<int64_t>(std::floor(in_y));
          const int64_t bottom = static_cast<int64_t>(std::ceil(in_y));
          const float y_lerp = in_y - static_cast<float>(top);
          for (int64_t x = 0; x < g.crop_w; ++x) {
            const float in_x = SampleAt(x1, x2, g.crop_w, g.width, x, w_scale);
            if (in_x < 0 || in_x > static_cast<float>(g.width - 1)) continue;
            const int64_t left = static_cast<int64_t>(std::floor(in_x));
            const int64_t right = static_cast<int64_t>(std::ceil(in_x));
            const float x_lerp = in_x - static_cast<float>(left);
            const float* gp = gy + ((b * g.crop_h + y) * g.crop_w + x) * g.depth;
            for (int64_t d = 0; d < g.depth; ++d) {
              const float t_l = static_cast<float>(img[(top * g.width + left) * g.depth + d]);
              const float t_r = static_cast<float>(img[(top * g.width + right) * g.depth + d]);
              const float b_l = static_cast<float>(img[(bottom * g.width + left) * g.depth + d]);
              const float b_r = static_cast<float>(img[(bottom * g.width + right) * g.depth + d]);
              float grad_y = (1 - x_lerp) * (b_l - t_l) + x_lerp * (b_r - t_r);
              float grad_x = (1 - y_lerp) * (t_r - t_l) + y_lerp * (b_r - b_l);
              grad_y *= gp[d];
              grad_x *= gp[d];
              if (g.crop_h > 1) {
                o[0] += grad_y * (static_cast<float>(g.height - 1) - static_cast<float>(y) * h_ratio);
                o[2] += grad_y * (static_cast<float>(y) * h_ratio);
              } else {
                o[0] = static_cast<float>(o[0] + grad_y * half_h);
                o[2] = static_cast<float>(o[2] + grad_y * half_h);
              }
              if (g.crop_w > 1) {
                o[1] += grad_x * (static_cast<float>(g.width - 1) - static_cast<float>(x) * w_ratio);
                o[3] += grad_x * (static_cast<float>(x) * w_ratio);
              } else {
                o[1] = static_cast<float>(o[1] + grad_x * half_w);
                o[3] = static_cast<float>(o[3] + grad_x * half_w);
              }
            }
          }
        }
      }
    });
  }
};

template <typename T>
constexpr TG_DataType kType = TG_FLOAT;
template <> constexpr TG_DataType kType<uint8_t> = TG_UINT8;
template <> constexpr TG_DataType kType<uint16_t> = TG_UINT16;
template <> constexpr TG_DataType kType<int8_t> = TG_INT8;
template <> constexpr TG_DataType kType<int16_t> = TG_INT16;
template <> constexpr TG_DataType kType<int32_t> = TG_INT32;
template <> constexpr TG_DataType kType<int64_t> = TG_INT64;
template <> constexpr TG_DataType kType<Eigen::half> = TG_HALF;
template <> constexpr TG_DataType kType<double> = TG_DOUBLE;

template <typename T>
void RegisterCropAndResize(tgraph::plugin::Init& init) {
  init.Kernel<CropAndResizeOp<T>>(tgraph::plugin::KernelBuilder("CropAndResize", "CPU")
                                      .TypeConstraint("T", kType<T>)
                                      .HostMemory("crop_size"));
}

template <typename T>
void RegisterCropAndResizeGradBoxes(tgraph::plugin::Init& init) {
  init.Kernel<CropAndResizeGradBoxesOp<T>>(
      tgraph::plugin::KernelBuilder("CropAndResizeGradBoxes", "CPU").TypeConstraint("T", kType<T>));
}

template <typename T>
void RegisterCropAndResizeGradImage(tgraph::plugin::Init& init) {
  init.Kernel<CropAndResizeGradImageOp<T>>(tgraph::plugin::KernelBuilder("CropAndResizeGradImage", "CPU")
                                               .TypeConstraint("T", kType<T>)
                                               .HostMemory("image_size"));
}

template <typename T>
void RegisterNms(tgraph::plugin::Init& init) {
  using tgraph::plugin::KernelBuilder;
  init.Kernel<NmsOp<T, Nms::kV2>>(KernelBuilder("NonMaxSuppressionV2", "CPU").TypeConstraint("T", kType<T>));
  init.Kernel<NmsOp<T, Nms::kV3>>(KernelBuilder("NonMaxSuppressionV3", "CPU").TypeConstraint("T", kType<T>));
  init.Kernel<NmsOp<T, Nms::kV4>>(KernelBuilder("NonMaxSuppressionV4", "CPU").TypeConstraint("T", kType<T>));
  init.Kernel<NmsOp<T, Nms::kV5>>(KernelBuilder("NonMaxSuppressionV5", "CPU").TypeConstraint("T", kType<T>));
}

}  // namespace

void RegisterDetectionKernels(tgraph::plugin::Init& init) {
  using tgraph::plugin::KernelBuilder;
  init.Kernel<NmsOp<float, Nms::kV1>>(KernelBuilder("NonMaxSuppression", "CPU"));
  init.Kernel<NmsOp<float, Nms::kOverlaps>>(KernelBuilder("NonMaxSuppressionWithOverlaps", "CPU"));
  init.Kernel<CombinedNmsOp>(KernelBuilder("CombinedNonMaxSuppression", "CPU"));
  RegisterNms<float>(init);
  RegisterNms<Eigen::half>(init);
  RegisterCropAndResize<uint8_t>(init);
  RegisterCropAndResize<uint16_t>(init);
  RegisterCropAndResize<int8_t>(init);
  RegisterCropAndResize<int16_t>(init);
  RegisterCropAndResize<int32_t>(init);
  RegisterCropAndResize<int64_t>(init);
  RegisterCropAndResize<Eigen::half>(init);
  RegisterCropAndResize<float>(init);
  RegisterCropAndResize<double>(init);
  RegisterCropAndResizeGradImage<float>(init);
  RegisterCropAndResizeGradImage<Eigen::half>(init);
  RegisterCropAndResizeGradImage<double>(init);
  RegisterCropAndResizeGradBoxes<uint8_t>(init);
  RegisterCropAndResizeGradBoxes<uint16_t>(init);
  RegisterCropAndResizeGradBoxes<int8_t>(init);
  RegisterCropAndResizeGradBoxes<int16_t>(init);
  RegisterCropAndResizeGradBoxes<int32_t>(init);
  RegisterCropAndResizeGradBoxes<int64_t>(init);
  RegisterCropAndResizeGradBoxes<Eigen::half>(init);
  RegisterCropAndResizeGradBoxes<float>(init);
  RegisterCropAndResizeGradBoxes<double>(init);
}

}  // namespace tgraph_cpu
