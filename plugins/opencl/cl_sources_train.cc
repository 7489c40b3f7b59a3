// The OpenCL C source of program "train": the optimizer updates, one element per work item.
// Hyper-parameters (lr, momentum, beta1_power, ...) are device scalars that every item reads,
// so an update never waits for the host. The formulas and their operation order are the CPU
// plugin's (plugins/cpu/training_rules.h, TensorFlow's).
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
__kernel void tg_apply_momentum(__global float* var, __global float* accum,
                                __global const float* lr, __global const float* grad,
                                __global const float* momentum, int n, int nesterov) {
  int i = get_global_id(0);
  if (i >= n) return;
  const float l = lr[0], mo = momentum[0], g = grad[i];
  const float a = accum[i] * mo + g;
  accum[i] = a;
  var[i] -= nesterov ? g * l + a * (mo * l) : a * l;
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

/* accum += grad^2 (when update_slots); var -= lr * grad / sqrt(accum) */
__kernel void tg_apply_adagrad(__global float* var, __global float* accum,
                               __global const float* lr, __global const float* grad, int n,
                               int update_slots) {
  int i = get_global_id(0);
  if (i >= n) return;
  const float g = grad[i];
  float a = accum[i];
  if (update_slots) {
    a += g * g;
    accum[i] = a;
  }
  var[i] -= g * lr[0] / sqrt(a);
}

/* ms += (grad^2 - ms) * (1 - rho)
 * mom = mom * momentum + lr * grad / sqrt(ms + epsilon); var -= mom */
__kernel void tg_apply_rms_prop(__global float* var, __global float* ms, __global float* mom,
                                __global const float* lr, __global const float* rho,
                                __global const float* momentum, __global const float* epsilon,
                                __global const float* grad, int n) {
  int i = get_global_id(0);
  if (i >= n) return;
  const float g = grad[i];
  float s = ms[i];
  s += (g * g - s) * (1.0f - rho[0]);
  ms[i] = s;
  const float mo = mom[i] * momentum[0] + g * lr[0] / sqrt(s + epsilon[0]);
  mom[i] = mo;
  var[i] -= mo;
}

/* ms and mg as above, mom = mom * momentum + lr * grad / sqrt(ms - mg^2 + epsilon) */
__kernel void tg_apply_centered_rms_prop(__global float* var, __global float* mg,
                                         __global float* ms, __global float* mom,
                                         __global const float* lr, __global const float* rho,
                                         __global const float* momentum,
                                         __global const float* epsilon,
                                         __global const float* grad, int n) {
  int i = get_global_id(0);
  if (i >= n) return;
  const float g = grad[i], decay = 1.0f - rho[0];
  float s = ms[i], a = mg[i];
  s += (g * g - s) * decay;
  a += (g - a) * decay;
  ms[i] = s;
  mg[i] = a;
  const float mo = mom[i] * momentum[0] + g * lr[0] / sqrt(s - a * a + epsilon[0]);
  mom[i] = mo;
  var[i] -= mo;
}
)CLC";

}  // namespace tgraph_opencl
