// BatchMatMulV2's shape rules, shared by the Eigen kernel and the oneDNN plugin's so that
// both accept the same inputs with the same messages: ranks >= 2, inner dimensions that
// agree under the adjoint flags, and batch dims that broadcast (aligned from the right).
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "nn_common.h"

namespace tgraph_cpu::nn {

struct BatchMatMulShape {
  int64_t x_rows = 0, x_cols = 0, y_rows = 0, y_cols = 0;  // as stored (before adjoints)
  int64_t m = 0, k = 0, n = 0;
  int64_t batches = 1;                 // product of out_batch
  std::vector<int64_t> x_batch;        // x's batch dims, padded on the left with 1s
  std::vector<int64_t> y_batch;        // likewise for y
  std::vector<int64_t> out_batch;      // the broadcast batch dims
};

// Fills `s`; on bad shapes fails `ctx` (INVALID_ARGUMENT) and returns false.
inline bool GetBatchMatMulShape(tgraph::plugin::Context& ctx, const std::vector<int64_t>& xd,
                                const std::vector<int64_t>& yd, bool adj_x, bool adj_y,
                                BatchMatMulShape* s) {
  if (xd.size() < 2 || yd.size() < 2) {
    ctx.Fail(TG_INVALID_ARGUMENT, "BatchMatMulV2 needs inputs of rank >= 2, got shapes " +
                                      ShapeString(xd) + " and " + ShapeString(yd));
    return false;
  }
  const size_t rx = xd.size(), ry = yd.size();
  s->x_rows = xd[rx - 2];
  s->x_cols = xd[rx - 1];
  s->y_rows = yd[ry - 2];
  s->y_cols = yd[ry - 1];
  s->m = adj_x ? s->x_cols : s->x_rows;
  s->k = adj_x ? s->x_rows : s->x_cols;
  const int64_t k_y = adj_y ? s->y_cols : s->y_rows;
  s->n = adj_y ? s->y_rows : s->y_cols;
  if (s->k != k_y) {
    ctx.Fail(TG_INVALID_ARGUMENT, "Matrix size-incompatible: In[0]: " + ShapeString(xd) +
                                      ", In[1]: " + ShapeString(yd) +
                                      " (adj_x=" + (adj_x ? "true" : "false") +
                                      ", adj_y=" + (adj_y ? "true" : "false") + ")");
    return false;
  }
  const size_t bx = rx - 2, by = ry - 2, rank = std::max(bx, by);
  s->out_batch.assign(rank, 0);
  s->x_batch.assign(rank, 1);
  s->y_batch.assign(rank, 1);
  for (size_t i = 0; i < bx; ++i) s->x_batch[rank - bx + i] = xd[i];
  for (size_t i = 0; i < by; ++i) s->y_batch[rank - by + i] = yd[i];
  s->batches = 1;
  for (size_t i = 0; i < rank; ++i) {
    const int64_t a = s->x_batch[i], b = s->y_batch[i];
    if (a != b && a != 1 && b != 1) {
      ctx.Fail(TG_INVALID_ARGUMENT, "batch dimensions of " + ShapeString(xd) + " and " +
                                        ShapeString(yd) + " do not broadcast");
      return false;
    }
    s->out_batch[i] = a == 1 ? b : a;
    s->batches *= s->out_batch[i];
  }
  return true;
}

}  // namespace tgraph_cpu::nn
