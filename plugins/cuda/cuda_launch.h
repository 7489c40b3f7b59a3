// The device code of the CUDA plugin, seen from the host: plain functions that launch one
// kernel each on `stream` (asynchronously) and return the launch's error (cudaGetLastError).
// They take raw device pointers and int sizes, so the C++ kernel classes (*.cc, g++) never
// need nvcc; the definitions are in the *.cu files named below. Sizes are ints: the kernel
// classes refuse tensors of 2^31 elements or more before calling these.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace tgraph_cuda {

// ---- element-wise (cwise.cu) ----

enum class BinaryOp { kAdd, kSub, kMul, kDiv, kMaximum };
enum class UnaryOp { kNeg, kExp, kLog, kTanh, kSigmoid, kRelu, kSoftplus };
// ReluGrad(gradients, features), SigmoidGrad(y, dy), TanhGrad(y, dy),
// SoftplusGrad(gradients, features).
enum class GradOp { kRelu, kSigmoid, kTanh, kSoftplus };

// A broadcast of x and y to the output: its dims and each operand's element strides per
// output dim (0 where the operand is broadcast), at most kMaxBroadcastRank after merging.
constexpr int kMaxBroadcastRank = 6;
struct BroadcastShape {
  int rank;
  int n;  // output elements
  int dims[kMaxBroadcastRank];
  int xs[kMaxBroadcastRank];
  int ys[kMaxBroadcastRank];
};

cudaError_t LaunchBinary(BinaryOp op, const float* x, const float* y, float* z, int n,
                         cudaStream_t stream);
cudaError_t LaunchBinaryBroadcast(BinaryOp op, const float* x, const float* y, float* z,
                                  const BroadcastShape& shape, cudaStream_t stream);
cudaError_t LaunchUnary(UnaryOp op, const float* x, float* y, int n, cudaStream_t stream);
cudaError_t LaunchGrad(GradOp op, const float* a, const float* b, float* y, int n,
                       cudaStream_t stream);
// y = x + bias[(i / inner) % channels] (NHWC: inner 1).
cudaError_t LaunchBiasAdd(const float* x, const float* bias, float* y, int n, int channels,
                          int inner, cudaStream_t stream);
// var (+|-)= value, element-wise (AssignAdd / AssignSub).
cudaError_t LaunchAssignUpdate(float* var, const float* value, int n, bool subtract,
                               cudaStream_t stream);

// ---- comparisons and logical ops (compare.cu) ----

// z = x op y as bools (bytes 0 or 1), over n elements of one shape when `shape` is NULL,
// else over the broadcast `shape` describes. Bool operands are bytes, any nonzero one true.
enum class CompareOp { kEqual, kNotEqual, kLess, kLessEqual, kGreater, kGreaterEqual };
cudaError_t LaunchCompare(CompareOp op, const float* x, const float* y, uint8_t* z, int n,
                          const BroadcastShape* shape, cudaStream_t stream);
cudaError_t LaunchCompare(CompareOp op, const int32_t* x, const int32_t* y, uint8_t* z, int n,
                          const BroadcastShape* shape, cudaStream_t stream);
// Bools: kEqual and kNotEqual only.
cudaError_t LaunchCompare(CompareOp op, const uint8_t* x, const uint8_t* y, uint8_t* z, int n,
                          const BroadcastShape* shape, cudaStream_t stream);
enum class LogicalOp { kAnd, kOr };
cudaError_t LaunchLogical(LogicalOp op, const uint8_t* x, const uint8_t* y, uint8_t* z, int n,
                          const BroadcastShape* shape, cudaStream_t stream);
cudaError_t LaunchLogicalNot(const uint8_t* x, uint8_t* y, int n, cudaStream_t stream);

// ---- reductions and softmax (reduce.cu) ----

// x viewed as [outer, reduce, inner]: y[p * inner + q] = scale * sum_r x[p, r, q], one
// output per block; `outputs` = outer * inner.
cudaError_t LaunchReduceSum(const float* x, float* y, int outputs, int reduce, int inner,
                            float scale, cudaStream_t stream);
// Max over the same view; NaN wins (as the CPU plugin), an empty reduction gives -inf.
cudaError_t LaunchReduceMax(const float* x, float* y, int outputs, int reduce, int inner,
                            cudaStream_t stream);
// ArgMax over the middle dim of [outer, reduce, inner] (reduce >= 1), `outputs` = outer *
// inner: the smallest index of the largest value; a NaN counts as the largest.
cudaError_t LaunchArgMax(const float* x, int32_t* y, int outputs, int reduce, int inner,
                         cudaStream_t stream);
cudaError_t LaunchArgMax(const float* x, int64_t* y, int outputs, int reduce, int inner,
                         cudaStream_t stream);
// Softmax over the last dim of [rows, cols].
cudaError_t LaunchSoftmax(const float* x, float* y, int rows, int cols, cudaStream_t stream);
// SoftmaxCrossEntropyWithLogits over [batch, cols], features and labels read through (row,
// column) element strides (0 along a broadcast dim).
cudaError_t LaunchSoftmaxXent(const float* features, const float* labels, float* loss,
                              float* backprop, int batch, int cols, int f_row, int f_col,
                              int l_row, int l_col, cudaStream_t stream);
// SparseSoftmaxCrossEntropyWithLogits: a row whose label is outside [0, cols) writes nothing
// and atomicMins its row into *bad (which the caller set above any row).
cudaError_t LaunchSparseXent(const float* features, const int32_t* labels, float* loss,
                             float* backprop, int batch, int cols, int* bad,
                             cudaStream_t stream);
cudaError_t LaunchSparseXent(const float* features, const int64_t* labels, float* loss,
                             float* backprop, int batch, int cols, int* bad,
                             cudaStream_t stream);

// ---- data movement, casts, optimizer updates (misc.cu) ----

// Any 4-byte dtype (the bits are copied): y[i] = v[0].
cudaError_t LaunchFill32(const uint32_t* value, uint32_t* y, int n, cudaStream_t stream);

// Tile: output dims and input dims, size-1 output dims dropped and untiled dims merged.
// Pad: output element i is the input element at its coordinates less `before`, or zero.
constexpr int kMaxPadRank = 8;
struct PadShape {
  int rank;
  int n;
  int out[kMaxPadRank];
  int in[kMaxPadRank];
  int before[kMaxPadRank];
};
cudaError_t LaunchPad32(const uint32_t* x, uint32_t* y, const PadShape& shape,
                        cudaStream_t stream);

constexpr int kMaxTileRank = 6;
struct TileShape {
  int rank;
  int n;  // output elements
  int out[kMaxTileRank];
  int in[kMaxTileRank];
};
cudaError_t LaunchTile32(const uint32_t* x, uint32_t* y, const TileShape& shape,
                         cudaStream_t stream);

// GatherV2 over params viewed as [batch * outer, limit, inner] and indices as [batch,
// num_indices] (batch 1 without batch_dims): y[bo, k, q] = p[bo, idx[(bo / outer) *
// num_indices + k], q]. An index outside [0, limit) writes nothing and atomicMins its
// position into *bad.
cudaError_t LaunchGather32(const uint32_t* params, const int32_t* indices, uint32_t* y, int n,
                           int num_indices, int limit, int inner, int outer, int* bad,
                           cudaStream_t stream);

// ---- Select and DynamicStitch (select_stitch.cu) ----

// Select / SelectV2 over 4-byte t and e: y = c ? t : e over the broadcast of the three
// (output dims, each operand's element strides, 0 where it is broadcast); any nonzero
// condition byte is true.
constexpr int kMaxSelectRank = 6;
struct SelectShape {
  int rank;
  int n;  // output elements
  int dims[kMaxSelectRank];
  int cs[kMaxSelectRank];
  int ts[kMaxSelectRank];
  int es[kMaxSelectRank];
};
cudaError_t LaunchSelect32(const uint8_t* c, const uint32_t* t, const uint32_t* e, uint32_t* y,
                           const SelectShape& shape, cudaStream_t stream);

// DynamicStitch, 4-byte elements: pair k of `pairs` (count pairs of output row, row of x)
// copies one row of `inner` elements; no output row is in two pairs of one launch.
cudaError_t LaunchStitch32(const uint32_t* x, const int32_t* pairs, uint32_t* y, int count,
                           int inner, cudaStream_t stream);

// float -> int32 truncates toward zero, saturates, NaN gives 0 (as the CPU plugin).
cudaError_t LaunchCastFloatToInt32(const float* x, int32_t* y, int n, cudaStream_t stream);
cudaError_t LaunchCastInt32ToFloat(const int32_t* x, float* y, int n, cudaStream_t stream);

// The optimizer updates, with the CPU plugin's formulas (plugins/cpu/training_rules.h). The
// scalar hyper-parameters stay in device memory (each a pointer to one float).
cudaError_t LaunchApplyGradientDescent(float* var, const float* alpha, const float* delta, int n,
                                       cudaStream_t stream);
cudaError_t LaunchApplyMomentum(float* var, float* accum, const float* lr, const float* grad,
                                const float* momentum, int n, bool nesterov,
                                cudaStream_t stream);
struct AdamScalars {
  const float* beta1_power;
  const float* beta2_power;
  const float* lr;
  const float* beta1;
  const float* beta2;
  const float* epsilon;
};
cudaError_t LaunchApplyAdam(float* var, float* m, float* v, const AdamScalars& scalars,
                            const float* grad, int n, bool nesterov, cudaStream_t stream);
cudaError_t LaunchApplyAdagrad(float* var, float* accum, const float* lr, const float* grad,
                               int n, bool update_slots, cudaStream_t stream);
struct RMSPropScalars {
  const float* lr;
  const float* rho;
  const float* momentum;
  const float* epsilon;
};
// Centered when `mg` is not NULL (ApplyCenteredRMSProp).
cudaError_t LaunchApplyRMSProp(float* var, float* mg, float* ms, float* mom,
                               const RMSPropScalars& scalars, const float* grad, int n,
                               cudaStream_t stream);

// ---- any reduction over any axes (reduce.cu), convolutions and pooling (conv.cu) ----

// The kept and the reduced groups of dims of a reduction (sizes and element strides in the
// input, outermost first: see plugins/device_common/reduce_args.h; 16 of each kind take any
// input of fewer than 2^31 elements).
constexpr int kMaxReduceGroups = 16;
struct ReduceShape {
  int kept_rank;
  int red_rank;
  int reduce;  // elements folded into each output
  int kept_dims[kMaxReduceGroups];
  int kept_strides[kMaxReduceGroups];
  int red_dims[kMaxReduceGroups];
  int red_strides[kMaxReduceGroups];
};
// y[o] folds the input elements of output o with `op` (0 sum, 1 max, 2 min, 3 prod; Max and
// Min propagate NaN, an empty reduction gives the identity); sums are scaled by `scale`.
cudaError_t LaunchReduceAny(const float* x, float* y, int outputs, const ReduceShape& shape,
                            int op, float scale, cudaStream_t stream);

// One 2-D convolution (plugins/device_common/conv_args.h, ConvShapeOf): input [batch, h, w,
// c] (nchw: [batch, c, h, w]), filter [kh, kw, c, oc], output [batch, oh, ow, oc] (nchw:
// [batch, oc, oh, ow]); n is the element count of what the launch writes.
struct ConvShape {
  int n, batch, h, w, c, oh, ow, oc, kh, kw, sh, sw, dh, dw, pad_top, pad_left, nchw;
};
cudaError_t LaunchConv2D(const float* x, const float* filter, float* y, const ConvShape& s,
                         cudaStream_t stream);
cudaError_t LaunchConv2DBackpropInput(const float* dy, const float* filter, float* dx,
                                      const ConvShape& s, cudaStream_t stream);
cudaError_t LaunchConv2DBackpropFilter(const float* x, const float* dy, float* dfilter,
                                       const ConvShape& s, cudaStream_t stream);
// MaxPool / AvgPool of NHWC x (s's kh x kw the window, oc = c; n output elements), and
// their gradients (n input elements; x is MaxPoolGrad's orig_input, unused by AvgPoolGrad).
cudaError_t LaunchPool(bool max_pool, const float* x, float* y, const ConvShape& s,
                       cudaStream_t stream);
cudaError_t LaunchPoolGrad(bool max_pool, const float* x, const float* dy, float* dx,
                           const ConvShape& s, cudaStream_t stream);

}  // namespace tgraph_cuda

// ---- sparse updates (sparse.cu) ----
//
// They run on a plan the host made from indices in host memory (device_common/sparse_args.h):
// `plan` = rows[groups], starts[groups + 1], order[n] in device memory; thread (g, j) owns
// element j of row rows[g] and applies that row's updates in the order of `indices`, so
// duplicates behave as on the CPU without atomics. `row` = elements per row; every count,
// and groups * row, fits an int (the kernel classes check).
namespace tgraph_cuda {

enum class ScatterOp { kUpdate, kAdd, kSub };
// ScatterUpdate over 4-byte elements (the last position addressing a row wins), ScatterAdd
// and ScatterSub over floats. `scalar`: updates is one value for every element.
cudaError_t LaunchScatter(ScatterOp op, void* params, const void* updates, const int* plan,
                          int groups, int row, bool scalar, cudaStream_t stream);

// SparseApply* with the dense rules' formulas, the scalars in device memory.
cudaError_t LaunchSparseApplyMomentum(float* var, float* accum, const float* lr,
                                      const float* grad, const float* momentum, const int* plan,
                                      int groups, int row, bool nesterov, cudaStream_t stream);
cudaError_t LaunchSparseApplyAdagrad(float* var, float* accum, const float* lr,
                                     const float* grad, const int* plan, int groups, int row,
                                     bool update_slots, cudaStream_t stream);
// Centered when `mg` is not NULL (SparseApplyCenteredRMSProp).
cudaError_t LaunchSparseApplyRMSProp(float* var, float* mg, float* ms, float* mom,
                                     const RMSPropScalars& scalars, const float* grad,
                                     const int* plan, int groups, int row, cudaStream_t stream);

// GatherV2 over 4-byte elements at positions the host checked (int64 indices narrowed to
// int), any batch_dims: params viewed as [batch * outer, limit, inner], positions as
// [batch, num_indices]; y[bo, k, q] = p[bo, pos[(bo / outer) * num_indices + k], q].
cudaError_t LaunchGatherChecked32(const uint32_t* params, const int32_t* pos, uint32_t* y,
                                  int n, int num_indices, int limit, int inner, int outer,
                                  cudaStream_t stream);

// Sqrt and Square (the optimizers' sparse Adam update), element-wise.
enum class OptimizerMathOp { kSqrt, kSquare };
cudaError_t LaunchOptimizerMath(OptimizerMathOp op, const float* x, float* y, int n,
                                cudaStream_t stream);

}  // namespace tgraph_cuda
