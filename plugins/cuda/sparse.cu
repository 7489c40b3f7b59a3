// Sparse updates (ScatterUpdate/Add/Sub, SparseApply*), the checked gather of GatherV2 with
// int64 indices, and the Sqrt / Square of the sparse Adam update. Launch wrappers and the
// plan's layout: cuda_launch.h. Grid-stride loops over int64 work indices (every launch has
// at least one item: the kernel classes return before launching nothing); the update steps
// are the CPU plugin's formulas (plugins/cpu/training_rules.h) in its operation order.
#include <cmath>
#include <cstdint>

#include "cuda_launch.h"
#include "launch_geometry.cuh"

namespace tgraph_cuda {
namespace {

int Blocks(int64_t n) { return StrideBlocks(n); }

// Work item `id` of a plan (id < groups * row): the element it owns, `at`, its column j,
// and its row's positions order[begin, end) in the order of `indices`.
struct PlanItem {
  int64_t at, j;
  const int* order;
  int begin, end;
};

__device__ PlanItem ItemOf(const int* plan, int groups, int row, int64_t id) {
  const int64_t g = id / row, j = id % row;
  const int* starts = plan + groups;
  return PlanItem{static_cast<int64_t>(plan[g]) * row + j, j,
                  plan + 2 * static_cast<int64_t>(groups) + 1, starts[g], starts[g + 1]};
}

// Grid-stride loops over int64 work indices.

__global__ void ScatterUpdate32Kernel(uint32_t* params, const uint32_t* updates, const int* plan,
                                      int groups, int row, bool scalar) {
  for (int64_t id = FirstItem(); id < static_cast<int64_t>(groups) * row; id += Stride()) {
    const PlanItem it = ItemOf(plan, groups, row, id);
    params[it.at] = scalar ? updates[0]
                           : updates[static_cast<int64_t>(it.order[it.end - 1]) * row + it.j];
  }
}

__global__ void ScatterAddSubKernel(float* params, const float* updates, const int* plan,
                                    int groups, int row, bool scalar, bool subtract) {
  for (int64_t id = FirstItem(); id < static_cast<int64_t>(groups) * row; id += Stride()) {
    const PlanItem it = ItemOf(plan, groups, row, id);
    float p = params[it.at];
    for (int u = it.begin; u < it.end; ++u) {
      const float v =
          scalar ? updates[0] : updates[static_cast<int64_t>(it.order[u]) * row + it.j];
      p = subtract ? p - v : p + v;
    }
    params[it.at] = p;
  }
}

// accum = accum * momentum + grad; var -= lr * accum
// (nesterov: var -= grad * lr + accum * (momentum * lr))
__global__ void SparseMomentumKernel(float* var, float* accum, const float* lr,
                                     const float* grad, const float* momentum, const int* plan,
                                     int groups, int row, bool nesterov) {
  const float rate = lr[0], mu = momentum[0];
  for (int64_t id = FirstItem(); id < static_cast<int64_t>(groups) * row; id += Stride()) {
    const PlanItem it = ItemOf(plan, groups, row, id);
    for (int u = it.begin; u < it.end; ++u) {
      const float g = grad[static_cast<int64_t>(it.order[u]) * row + it.j];
      const float a = accum[it.at] * mu + g;
      accum[it.at] = a;
      var[it.at] -= nesterov ? g * rate + a * (mu * rate) : a * rate;
    }
  }
}

// accum += grad^2 (update_slots); var -= lr * grad / sqrt(accum)
__global__ void SparseAdagradKernel(float* var, float* accum, const float* lr, const float* grad,
                                    const int* plan, int groups, int row, bool update_slots) {
  const float rate = lr[0];
  for (int64_t id = FirstItem(); id < static_cast<int64_t>(groups) * row; id += Stride()) {
    const PlanItem it = ItemOf(plan, groups, row, id);
    for (int u = it.begin; u < it.end; ++u) {
      const float g = grad[static_cast<int64_t>(it.order[u]) * row + it.j];
      float a = accum[it.at];
      if (update_slots) {
        a += g * g;
        accum[it.at] = a;
      }
      var[it.at] -= g * rate / sqrtf(a);
    }
  }
}

// (centered: mg += (grad - mg) * (1 - rho))
// ms += (grad^2 - ms) * (1 - rho)
// mom = mom * momentum + lr * grad / sqrt(ms [- mg^2] + epsilon);  var -= mom
__global__ void SparseRMSPropKernel(float* var, float* mg, float* ms, float* mom,
                                    RMSPropScalars k, const float* grad, const int* plan,
                                    int groups, int row) {
  const float rate = k.lr[0], decay = 1.0f - k.rho[0], mu = k.momentum[0], eps = k.epsilon[0];
  for (int64_t id = FirstItem(); id < static_cast<int64_t>(groups) * row; id += Stride()) {
    const PlanItem it = ItemOf(plan, groups, row, id);
    for (int u = it.begin; u < it.end; ++u) {
      const float g = grad[static_cast<int64_t>(it.order[u]) * row + it.j];
      const float s = ms[it.at] + (g * g - ms[it.at]) * decay;
      ms[it.at] = s;
      float denom = s + eps;
      if (mg != nullptr) {
        const float c = mg[it.at] + (g - mg[it.at]) * decay;
        mg[it.at] = c;
        denom = s - c * c + eps;
      }
      const float m = mom[it.at] * mu + g * rate / sqrtf(denom);
      mom[it.at] = m;
      var[it.at] -= m;
    }
  }
}

__global__ void GatherChecked32Kernel(const uint32_t* p, const int32_t* pos, uint32_t* y, int n,
                                      int num_indices, int limit, int inner, int outer) {
  for (int64_t i = FirstItem(); i < n; i += Stride()) {
    const int64_t q = i % inner, r = i / inner, k = r % num_indices, bo = r / num_indices;
    y[i] = p[(bo * limit + pos[(bo / outer) * num_indices + k]) * inner + q];
  }
}

__global__ void OptimizerMathKernel(OptimizerMathOp op, const float* x, float* y, int n) {
  for (int64_t i = FirstItem(); i < n; i += Stride()) {
    const float a = x[i];
    y[i] = op == OptimizerMathOp::kSqrt ? sqrtf(a) : a * a;
  }
}

}  // namespace

cudaError_t LaunchScatter(ScatterOp op, void* params, const void* updates, const int* plan,
                          int groups, int row, bool scalar, cudaStream_t stream) {
  const int blocks = Blocks(static_cast<int64_t>(groups) * row);
  if (op == ScatterOp::kUpdate) {
    ScatterUpdate32Kernel<<<blocks, kBlock, 0, stream>>>(static_cast<uint32_t*>(params),
                                                         static_cast<const uint32_t*>(updates),
                                                         plan, groups, row, scalar);
  } else {
    ScatterAddSubKernel<<<blocks, kBlock, 0, stream>>>(static_cast<float*>(params),
                                                       static_cast<const float*>(updates), plan,
                                                       groups, row, scalar,
                                                       op == ScatterOp::kSub);
  }
  return cudaGetLastError();
}

cudaError_t LaunchSparseApplyMomentum(float* var, float* accum, const float* lr,
                                      const float* grad, const float* momentum, const int* plan,
                                      int groups, int row, bool nesterov, cudaStream_t stream) {
  SparseMomentumKernel<<<Blocks(static_cast<int64_t>(groups) * row), kBlock, 0, stream>>>(
      var, accum, lr, grad, momentum, plan, groups, row, nesterov);
  return cudaGetLastError();
}

cudaError_t LaunchSparseApplyAdagrad(float* var, float* accum, const float* lr,
                                     const float* grad, const int* plan, int groups, int row,
                                     bool update_slots, cudaStream_t stream) {
  SparseAdagradKernel<<<Blocks(static_cast<int64_t>(groups) * row), kBlock, 0, stream>>>(
      var, accum, lr, grad, plan, groups, row, update_slots);
  return cudaGetLastError();
}

cudaError_t LaunchSparseApplyRMSProp(float* var, float* mg, float* ms, float* mom,
                                     const RMSPropScalars& scalars, const float* grad,
                                     const int* plan, int groups, int row, cudaStream_t stream) {
  SparseRMSPropKernel<<<Blocks(static_cast<int64_t>(groups) * row), kBlock, 0, stream>>>(
      var, mg, ms, mom, scalars, grad, plan, groups, row);
  return cudaGetLastError();
}

cudaError_t LaunchGatherChecked32(const uint32_t* params, const int32_t* pos, uint32_t* y,
                                  int n, int num_indices, int limit, int inner, int outer,
                                  cudaStream_t stream) {
  GatherChecked32Kernel<<<Blocks(n), kBlock, 0, stream>>>(params, pos, y, n, num_indices, limit,
                                                          inner, outer);
  return cudaGetLastError();
}

cudaError_t LaunchOptimizerMath(OptimizerMathOp op, const float* x, float* y, int n,
                                cudaStream_t stream) {
  OptimizerMathKernel<<<Blocks(n), kBlock, 0, stream>>>(op, x, y, n);
  return cudaGetLastError();
}

}  // namespace tgraph_cuda
