// The OpenCL C source of program "train": the optimizer updates and the sparse updates.
// Hyper-parameters (lr, momentum, beta1_power, ...) are device scalars that every item reads,
// so an update never waits for the host. The formulas and their operation order are the CPU
// plugin's (plugins/cpu/training_rules.h, TensorFlow's), each written once as a step on one
// element that the dense kernels (one work item per element) and the sparse ones share.
//
// The sparse kernels (ScatterUpdate/Add/Sub, SparseApply*, GatherV2 with int64 indices) run
// on a plan the host made from the indices (plugins/device_common/sparse_args.h): one int
// buffer holding rows[G], starts[G + 1] and order[n] for G distinct rows. One work item per
// (group, column) applies that row's updates in the order of `indices`, so duplicates
// behave as on the CPU, with no atomics.
#include "cl_sources.h"

namespace tgraph_opencl {

const char kTrainSource[] = R"CLC(
/* var -= alpha * delta */
__kernel void tg_apply_gradient_descent(__global float* var, __global const float* alpha,
                                        __global const float* delta, int n) {
  int i = get_global_id(0);
  if (i < n) var[i] -= delta[i] * alpha[0];
}

/* accum = accum * momentum + grad; var -= lr * accum
 * (nesterov: var -= grad * lr + accum * (momentum * lr)) */
void momentum_step(__global float* var, __global float* accum, float g, float l,
                   float mo, int nesterov) {
  const float a = *accum * mo + g;
  *accum = a;
  *var -= nesterov ? g * l + a * (mo * l) : a * l;
}

/* accum += grad^2 (when update_slots); var -= lr * grad / sqrt(accum) */
void adagrad_step(__global float* var, __global float* accum, float g, float l,
                  int update_slots) {
  float a = *accum;
  if (update_slots) {
    a += g * g;
    *accum = a;
  }
  *var -= g * l / sqrt(a);
}

/* ms += (grad^2 - ms) * (1 - rho)
 * mom = mom * momentum + lr * grad / sqrt(ms + epsilon); var -= mom */
void rms_prop_step(__global float* var, __global float* ms, __global float* mom, float g,
                   float l, float rho, float mo, float eps) {
  float s = *ms;
  s += (g * g - s) * (1.0f - rho);
  *ms = s;
  const float m = *mom * mo + g * l / sqrt(s + eps);
  *mom = m;
  *var -= m;
}

/* ms and mg as above, mom = mom * momentum + lr * grad / sqrt(ms - mg^2 + epsilon) */
void centered_rms_prop_step(__global float* var, __global float* mg, __global float* ms,
                            __global float* mom, float g, float l, float rho, float mo,
                            float eps) {
  const float decay = 1.0f - rho;
  float s = *ms, a = *mg;
  s += (g * g - s) * decay;
  a += (g - a) * decay;
  *ms = s;
  *mg = a;
  const float m = *mom * mo + g * l / sqrt(s - a * a + eps);
  *mom = m;
  *var -= m;
}

__kernel void tg_apply_momentum(__global float* var, __global float* accum,
                                __global const float* lr, __global const float* grad,
                                __global const float* momentum, int n, int nesterov) {
  int i = get_global_id(0);
  if (i < n) momentum_step(var + i, accum + i, grad[i], lr[0], momentum[0], nesterov);
}

/* lr_t = lr * sqrt(1 - beta2_power) / (1 - beta1_power)
 * m += (grad - m) * (1 - beta1); v += (grad^2 - v) * (1 - beta2)
 * var -= m * lr_t / (sqrt(v) + epsilon)  (nesterov: m -> grad * (1 - beta1) + m * beta1) */
__kernel void tg_apply_adam(__global float* var, __global float* m, __global float* v,
                            __global const float* beta1_power,
                            __global const float* beta2_power, __global const float* lr,
                            __global const float* beta1, __global const float* beta2,
                            __global const float* epsilon, __global const float* grad, int n,
                            int nesterov) {
  int i = get_global_id(0);
  if (i >= n) return;
  const float b1 = beta1[0], b2 = beta2[0], eps = epsilon[0];
  const float lr_t = lr[0] * sqrt(1.0f - beta2_power[0]) / (1.0f - beta1_power[0]);
  const float g = grad[i];
  float mi = m[i], vi = v[i];
  mi += (g - mi) * (1.0f - b1);
  vi += (g * g - vi) * (1.0f - b2);
  m[i] = mi;
  v[i] = vi;
  const float step = nesterov ? (g * (1.0f - b1) + mi * b1) : mi;
  var[i] -= step * lr_t / (sqrt(vi) + eps);
}

__kernel void tg_apply_adagrad(__global float* var, __global float* accum,
                               __global const float* lr, __global const float* grad, int n,
                               int update_slots) {
  int i = get_global_id(0);
  if (i < n) adagrad_step(var + i, accum + i, grad[i], lr[0], update_slots);
}

__kernel void tg_apply_rms_prop(__global float* var, __global float* ms, __global float* mom,
                                __global const float* lr, __global const float* rho,
                                __global const float* momentum, __global const float* epsilon,
                                __global const float* grad, int n) {
  int i = get_global_id(0);
  if (i < n) {
    rms_prop_step(var + i, ms + i, mom + i, grad[i], lr[0], rho[0], momentum[0], epsilon[0]);
  }
}

__kernel void tg_apply_centered_rms_prop(__global float* var, __global float* mg,
                                         __global float* ms, __global float* mom,
                                         __global const float* lr, __global const float* rho,
                                         __global const float* momentum,
                                         __global const float* epsilon,
                                         __global const float* grad, int n) {
  int i = get_global_id(0);
  if (i < n) {
    centered_rms_prop_step(var + i, mg + i, ms + i, mom + i, grad[i], lr[0], rho[0],
                           momentum[0], epsilon[0]);
  }
}

/* ---- sparse updates over a row plan ----
 * plan = rows[groups], starts[groups + 1], order[n]. Work item (g, j) = (id / row, id % row)
 * walks group g's positions in order; the element it owns is row rows[g], column j. The
 * host checked that groups * row and every tensor's element count fit an int. */
#define PLAN_ITEM(plan, groups, row)                                                     \
  const int id = get_global_id(0);                                                       \
  if (id >= (groups) * (row)) return;                                                    \
  const int g = id / (row), j = id % (row);                                              \
  const int at = (plan)[g] * (row) + j;                                                  \
  __global const int* order = (plan) + 2 * (groups) + 1;                                 \
  const int begin = (plan)[(groups) + g], end = (plan)[(groups) + g + 1];

/* ScatterUpdate of 4-byte elements: the last position addressing a row wins. */
__kernel void tg_scatter_update32(__global uint* params, __global const uint* updates,
                                  __global const int* plan, int groups, int row, int scalar) {
  PLAN_ITEM(plan, groups, row)
  (void)begin;
  params[at] = scalar ? updates[0] : updates[order[end - 1] * row + j];
}

/* ScatterAdd / ScatterSub: every position addressing a row, in order. */
__kernel void tg_scatter_add_sub(__global float* params, __global const float* updates,
                                 __global const int* plan, int groups, int row, int scalar,
                                 int subtract) {
  PLAN_ITEM(plan, groups, row)
  float p = params[at];
  for (int u = begin; u < end; ++u) {
    const float v = scalar ? updates[0] : updates[order[u] * row + j];
    p = subtract ? p - v : p + v;
  }
  params[at] = p;
}

__kernel void tg_sparse_apply_momentum(__global float* var, __global float* accum,
                                       __global const float* lr, __global const float* grad,
                                       __global const float* momentum,
                                       __global const int* plan, int groups, int row,
                                       int nesterov) {
  PLAN_ITEM(plan, groups, row)
  for (int u = begin; u < end; ++u) {
    momentum_step(var + at, accum + at, grad[order[u] * row + j], lr[0], momentum[0], nesterov);
  }
}

__kernel void tg_sparse_apply_adagrad(__global float* var, __global float* accum,
                                      __global const float* lr, __global const float* grad,
                                      __global const int* plan, int groups, int row,
                                      int update_slots) {
  PLAN_ITEM(plan, groups, row)
  for (int u = begin; u < end; ++u) {
    adagrad_step(var + at, accum + at, grad[order[u] * row + j], lr[0], update_slots);
  }
}

__kernel void tg_sparse_apply_rms_prop(__global float* var, __global float* ms,
                                       __global float* mom, __global const float* lr,
                                       __global const float* rho,
                                       __global const float* momentum,
                                       __global const float* epsilon,
                                       __global const float* grad, __global const int* plan,
                                       int groups, int row, int unused) {
  PLAN_ITEM(plan, groups, row)
  for (int u = begin; u < end; ++u) {
    rms_prop_step(var + at, ms + at, mom + at, grad[order[u] * row + j], lr[0], rho[0],
                  momentum[0], epsilon[0]);
  }
}

__kernel void tg_sparse_apply_centered_rms_prop(__global float* var, __global float* mg,
                                                __global float* ms, __global float* mom,
                                                __global const float* lr,
                                                __global const float* rho,
                                                __global const float* momentum,
                                                __global const float* epsilon,
                                                __global const float* grad,
                                                __global const int* plan, int groups, int row,
                                                int unused) {
  PLAN_ITEM(plan, groups, row)
  for (int u = begin; u < end; ++u) {
    centered_rms_prop_step(var + at, mg + at, ms + at, mom + at, grad[order[u] * row + j],
                           lr[0], rho[0], momentum[0], epsilon[0]);
  }
}

/* GatherV2 of 4-byte elements at positions the host checked and narrowed to int (int64
 * indices), any batch_dims (device_common's GatherPlan): params viewed as
 * [batch * outer, limit, inner], positions as [batch, num_indices];
 * y[bo, k, q] = p[bo, pos[(bo / outer) * num_indices + k], q]. */
__kernel void tg_gather_checked32(__global const uint* p, __global const int* pos,
                                  __global uint* y, int n, int num_indices, int limit,
                                  int inner, int outer) {
  const int i = get_global_id(0);
  if (i >= n) return;
  const int q = i % inner, r = i / inner, k = r % num_indices;
  const long bo = r / num_indices;
  y[i] = p[(bo * limit + pos[(bo / outer) * num_indices + k]) * inner + q];
}

/* Sqrt and Square, which the optimizers' sparse Adam update computes next to its variable
 * (colocated with it, so they run where it lives). */
__kernel void tg_sqrt(__global const float* x, __global float* y, int n) {
  const int i = get_global_id(0);
  if (i < n) y[i] = sqrt(x[i]);
}
__kernel void tg_square(__global const float* x, __global float* y, int n) {
  const int i = get_global_id(0);
  if (i < n) y[i] = x[i] * x[i];
}
)CLC";

}  // namespace tgraph_opencl
