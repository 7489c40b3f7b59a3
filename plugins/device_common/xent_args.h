// The host side of the softmax cross-entropy kernels every device plugin has: shape checks
// and output shapes, failing the node with the same messages on every device.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "device_common/host_shapes.h"
#include "tgraph/plugin.hpp"

namespace tgraph_device_common {

// SoftmaxCrossEntropyWithLogits: features and labels broadcast to [batch, classes] (each
// 2-D, or lower rank and right-aligned, as the CPU plugin accepts). On success fd and ld are
// the operands' dims padded to 2-D, and batch / classes the broadcast dims.
struct XentPlan {
  std::vector<int64_t> fd, ld;
  int64_t batch = 0, classes = 0;
};

inline bool PlanSoftmaxXent(tgraph::plugin::Context& ctx, const tgraph::plugin::TensorView& features,
                            const tgraph::plugin::TensorView& labels, XentPlan* plan) {
  std::vector<int64_t>& fd = plan->fd;
  std::vector<int64_t>& ld = plan->ld;
  fd = features.dims();
  ld = labels.dims();
  const std::string shapes = "features " + ShapeString(fd) + ", labels " + ShapeString(ld);
  if (fd.size() > 2 || ld.size() > 2 || std::max(fd.size(), ld.size()) != 2) {
    ctx.Fail(TG_INVALID_ARGUMENT,
             "features and labels must be 2-D or broadcast to 2-D, got " + shapes);
    return false;
  }
  while (fd.size() < 2) fd.insert(fd.begin(), 1);
  while (ld.size() < 2) ld.insert(ld.begin(), 1);
  int64_t dims[2];
  for (size_t i = 0; i < 2; ++i) {
    if (fd[i] != ld[i] && fd[i] != 1 && ld[i] != 1) {
      ctx.Fail(TG_INVALID_ARGUMENT, "features and labels must be broadcastable, got " + shapes);
      return false;
    }
    dims[i] = fd[i] == 1 ? ld[i] : fd[i];
  }
  plan->batch = dims[0];
  plan->classes = dims[1];
  return true;
}

// SparseSoftmaxCrossEntropyWithLogits: features [batch, classes], labels [batch], and at
// least one class unless the batch is empty.
inline bool CheckSparseXent(tgraph::plugin::Context& ctx,
                            const tgraph::plugin::TensorView& features,
                            const tgraph::plugin::TensorView& labels) {
  if (features.rank() != 2 || labels.rank() != 1 || labels.dim(0) != features.dim(0)) {
    ctx.Fail(TG_INVALID_ARGUMENT,
             "features must be 2-D [batch, classes] and labels 1-D [batch], got features " +
                 ShapeString(features.dims()) + ", labels " + ShapeString(labels.dims()));
    return false;
  }
  if (features.dim(0) > 0 && features.dim(1) == 0) {
    ctx.Fail(TG_INVALID_ARGUMENT,
             "features must have at least one class, got shape " + ShapeString(features.dims()));
    return false;
  }
  return true;
}

// Fails a sparse cross-entropy whose label at row `row` is `label`, not in [0, classes).
inline void FailBadLabel(tgraph::plugin::Context& ctx, int64_t row, int64_t label,
                         int64_t classes) {
  ctx.Fail(TG_INVALID_ARGUMENT, "labels[" + std::to_string(row) + "] = " +
                                    std::to_string(label) +
                                    " is outside the valid range of classes [0, " +
                                    std::to_string(classes) + ")");
}

}  // namespace tgraph_device_common
