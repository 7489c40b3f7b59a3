// The OpenCL C programs, by name. Each is built once per device per process (ClDevice::Kernel)
// with -DTS=<matmul tile> -DRG=<reduction work-group size> chosen for the device.
//
// Index math: element counts fit an int (the host refuses bigger tensors); offsets that
// multiply two counts are computed in long.
#include "cl_sources.h"

#include <cstring>

namespace tgraph_opencl {
namespace {

// The broadcast walk of element-wise binary ops, prepended to the programs that have them
// ("cwise", "compare"). Each op comes in two forms: `_same` for operands of one shape,
// `_bcast` for NumPy broadcasting, where the host passes the output's dims and each
// operand's strides (0 along broadcast dims), collapsed to at most 6 dims
// (device_common/binary_args.h). T: the operands' type, R: the output's.
const char kBinaryPrelude[] = R"CLC(
typedef struct { int rank; int n; int dims[6]; int xs[6]; int ys[6]; } Bcast;

#define BINARY_T(NAME, T, R, EXPR)                                                       \
__kernel void NAME##_same(__global const T* x, __global const T* y,                      \
                          __global R* z, int n) {                                        \
  int i = get_global_id(0);                                                              \
  if (i < n) { T a = x[i], b = y[i]; z[i] = (R)(EXPR); }                                 \
}                                                                                        \
__kernel void NAME##_bcast(__global const T* x, __global const T* y,                     \
                           __global R* z, Bcast s) {                                     \
  int i = get_global_id(0);                                                              \
  if (i >= s.n) return;                                                                  \
  int r = i, xi = 0, yi = 0;                                                             \
  for (int d = s.rank - 1; d >= 0; --d) {                                                \
    int c = r % s.dims[d];                                                               \
    r /= s.dims[d];                                                                      \
    xi += c * s.xs[d];                                                                   \
    yi += c * s.ys[d];                                                                   \
  }                                                                                      \
  T a = x[xi], b = y[yi];                                                                \
  z[i] = (R)(EXPR);                                                                      \
}
)CLC";

// Element-wise float math (binary ops through kBinaryPrelude).
const char kCwise[] = R"CLC(
#define BINARY(NAME, EXPR) BINARY_T(NAME, float, float, EXPR)

BINARY(tg_add, a + b)
BINARY(tg_sub, a - b)
BINARY(tg_mul, a * b)
BINARY(tg_div, a / b)
/* NaN in either operand gives NaN, as TensorFlow's maximum. */
BINARY(tg_maximum, (isnan(a) || isnan(b)) ? NAN : fmax(a, b))

#define UNARY(NAME, EXPR)                                                                \
__kernel void NAME(__global const float* x, __global float* y, int n) {                  \
  int i = get_global_id(0);                                                              \
  if (i < n) { float a = x[i]; y[i] = EXPR; }                                            \
}

UNARY(tg_neg, -a)
UNARY(tg_exp, exp(a))
UNARY(tg_log, log(a))
UNARY(tg_tanh, tanh(a))
UNARY(tg_sigmoid, 1.0f / (1.0f + exp(-a)))
UNARY(tg_relu, isnan(a) ? a : fmax(a, 0.0f))
/* log(1 + exp(a)) as the CPU plugin and TensorFlow: a itself above -threshold, exp(a) below
 * threshold, threshold = log(FLT_EPSILON) + 2 = -13.942385. */
UNARY(tg_softplus, a > 13.942385f ? a : (a < -13.942385f ? exp(a) : log1p(exp(a))))

/* g where f > 0, else 0 (NaN features give 0). */
__kernel void tg_relu_grad(__global const float* g, __global const float* f,
                           __global float* y, int n) {
  int i = get_global_id(0);
  if (i < n) y[i] = f[i] > 0.0f ? g[i] : 0.0f;
}

/* Softplus'(f) = sigmoid(f): g / (1 + exp(-f)) (0 where exp(-f) overflows). */
__kernel void tg_softplus_grad(__global const float* g, __global const float* f,
                               __global float* y, int n) {
  int i = get_global_id(0);
  if (i < n) y[i] = g[i] / (exp(-f[i]) + 1.0f);
}

/* Gradients from the activation's output y and the incoming gradient dy. */
__kernel void tg_sigmoid_grad(__global const float* y, __global const float* dy,
                              __global float* z, int n) {
  int i = get_global_id(0);
  if (i < n) { float a = y[i]; z[i] = dy[i] * a * (1.0f - a); }
}
__kernel void tg_tanh_grad(__global const float* y, __global const float* dy,
                           __global float* z, int n) {
  int i = get_global_id(0);
  if (i < n) { float a = y[i]; z[i] = dy[i] * (1.0f - a * a); }
}
)CLC";

// C[M,N] = op(A)[M,K] * op(B)[K,N], op = transpose when ta / tb. One TS x TS tile of C per
// work-group; the K dimension is walked in TS-wide slabs staged in local memory.
const char kMatMul[] = R"CLC(
__kernel void tg_matmul(__global const float* a, __global const float* b, __global float* c,
                        int M, int N, int K, int ta, int tb) {
  __local float As[TS][TS];
  __local float Bs[TS][TS];
  const int lr = get_local_id(1), lc = get_local_id(0);
  const int row = get_group_id(1) * TS + lr, col = get_group_id(0) * TS + lc;
  float acc = 0.0f;
  for (int t = 0; t < K; t += TS) {
    const int ka = t + lc, kb = t + lr;
    As[lr][lc] = (row < M && ka < K) ? (ta ? a[(long)ka * M + row] : a[(long)row * K + ka]) : 0.0f;
    Bs[lr][lc] = (kb < K && col < N) ? (tb ? b[(long)col * K + kb] : b[(long)kb * N + col]) : 0.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int k = 0; k < TS; ++k) acc += As[lr][k] * Bs[k][lc];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (row < M && col < N) c[(long)row * N + col] = acc;
}

/* The same product, for devices that allow 128-item work-groups: a 64 x 64 tile of C per
 * 8 x 16 work-group; each item accumulates 4 rows (ty + 16 i) by 8 adjacent columns
 * (8 tx ..) as float8 vectors, from K-slabs of 16 staged in local memory. Explicit vectors
 * and fewer local reads per multiply-add: several times faster than tg_matmul on PoCL. */
#define BM 64
#define BN 64
#define BK 16
__kernel __attribute__((reqd_work_group_size(8, 16, 1)))
void tg_matmul_blocked(__global const float* a, __global const float* b, __global float* c,
                       int M, int N, int K, int ta, int tb) {
  __local float As[BK][BM];
  __local float Bs[BK][BN];
  const int tx = get_local_id(0), ty = get_local_id(1), tid = ty * 8 + tx;
  const int row0 = get_group_id(1) * BM, col0 = get_group_id(0) * BN;
  float8 acc0 = 0.0f, acc1 = 0.0f, acc2 = 0.0f, acc3 = 0.0f;
  for (int t = 0; t < K; t += BK) {
    for (int l = tid; l < BM * BK; l += 128) {
      const int m = ta ? l % BM : l / BK, ka = ta ? l / BM : l % BK;
      const int gr = row0 + m, gk = t + ka;
      As[ka][m] = (gr < M && gk < K) ? (ta ? a[(long)gk * M + gr] : a[(long)gr * K + gk]) : 0.0f;
      const int n = tb ? l / BK : l % BN, kb = tb ? l % BK : l / BN;
      const int gc = col0 + n, gk2 = t + kb;
      Bs[kb][n] = (gk2 < K && gc < N) ? (tb ? b[(long)gc * K + gk2] : b[(long)gk2 * N + gc]) : 0.0f;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int k = 0; k < BK; ++k) {
      const float8 bv = vload8(tx, &Bs[k][0]);
      acc0 += As[k][ty] * bv;
      acc1 += As[k][ty + 16] * bv;
      acc2 += As[k][ty + 32] * bv;
      acc3 += As[k][ty + 48] * bv;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  const float8 accs[4] = {acc0, acc1, acc2, acc3};
  for (int i = 0; i < 4; ++i) {
    const int r = row0 + ty + 16 * i, col = col0 + 8 * tx;
    if (r >= M) continue;
    __global float* out = c + (long)r * N + col;
    if (col + 8 <= N) {
      vstore8(accs[i], 0, out);
    } else {
      float v[8];
      vstore8(accs[i], 0, v);
      for (int j = 0; col + j < N; ++j) out[j] = v[j];
    }
  }
}

/* y = x + bias along the channel dim: channel of element i is (i / inner) % C (NHWC: inner 1). */
__kernel void tg_bias_add(__global const float* x, __global const float* bias,
                          __global float* y, int n, int C, int inner) {
  int i = get_global_id(0);
  if (i < n) y[i] = x[i] + bias[(i / inner) % C];
}
)CLC";

// Reductions: one work-group of RG items per output. The input is viewed as
// [outer, reduce, inner]; output o = p * inner + q sums x[p, :, q].
const char kReduce[] = R"CLC(
__kernel void tg_reduce_sum(__global const float* x, __global float* y, int reduce, int inner,
                            float scale) {
  __local float part[RG];
  const int o = get_group_id(0), l = get_local_id(0);
  const long p = o / inner, q = o % inner;
  float s = 0.0f;
  for (int r = l; r < reduce; r += RG) s += x[(p * reduce + r) * inner + q];
  part[l] = s;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int w = RG / 2; w > 0; w >>= 1) {
    if (l < w) part[l] += part[l + w];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (l == 0) y[o] = part[0] * scale;
}

/* Max: as tg_reduce_sum; a NaN anywhere gives NaN, an empty reduction -inf (as the CPU). */
float tg_nan_max(float a, float b) { return isnan(a) ? a : (isnan(b) || b > a) ? b : a; }
__kernel void tg_reduce_max(__global const float* x, __global float* y, int reduce, int inner) {
  __local float part[RG];
  const int o = get_group_id(0), l = get_local_id(0);
  const long p = o / inner, q = o % inner;
  float m = -INFINITY;
  for (int r = l; r < reduce; r += RG) m = tg_nan_max(m, x[(p * reduce + r) * inner + q]);
  part[l] = m;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int w = RG / 2; w > 0; w >>= 1) {
    if (l < w) part[l] = tg_nan_max(part[l], part[l + w]);
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (l == 0) y[o] = part[0];
}

/* Any reduction over any axes: the host passes the kept and the reduced groups of dims
 * (sizes and element strides, outermost first; see device_common/reduce_args.h) and the op
 * (0 sum, 1 max, 2 min, 3 prod; sums are scaled by `scale`, for Mean). One work-group of
 * RG items per output. Max and Min propagate NaN; an empty reduction gives the identity. */
typedef struct {
  int kept_rank, red_rank, reduce;
  int kept_dims[16], kept_strides[16], red_dims[16], red_strides[16];
} ReduceShape;
float tg_nan_min(float a, float b) { return isnan(a) ? a : (isnan(b) || b < a) ? b : a; }
float tg_fold(int op, float a, float b) {
  return op == 0 ? a + b : op == 1 ? tg_nan_max(a, b) : op == 2 ? tg_nan_min(a, b) : a * b;
}
__kernel void tg_reduce_any(__global const float* x, __global float* y, ReduceShape s, int op,
                            float scale) {
  __local float part[RG];
  const int o = get_group_id(0), l = get_local_id(0);
  long base = 0;
  int r = o;
  for (int d = s.kept_rank - 1; d >= 0; --d) {
    base += (long)(r % s.kept_dims[d]) * s.kept_strides[d];
    r /= s.kept_dims[d];
  }
  const float identity = op == 0 ? 0.0f : op == 1 ? -INFINITY : op == 2 ? INFINITY : 1.0f;
  float acc = identity;
  for (int i = l; i < s.reduce; i += RG) {
    long at = base;
    int t = i;
    for (int d = s.red_rank - 1; d >= 0; --d) {
      at += (long)(t % s.red_dims[d]) * s.red_strides[d];
      t /= s.red_dims[d];
    }
    acc = tg_fold(op, acc, x[at]);
  }
  part[l] = acc;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int w = RG / 2; w > 0; w >>= 1) {
    if (l < w) part[l] = tg_fold(op, part[l], part[l + w]);
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (l == 0) y[o] = op == 0 ? part[0] * scale : part[0];
}

/* ArgMax over the middle dim of [outer, reduce, inner], one output per work item: the
 * smallest index of the largest value; a NaN counts as the largest (the first NaN wins). */
#define ARGMAX(NAME, OUT)                                                                  \
__kernel void NAME(__global const float* x, __global OUT* y, int n, int reduce, int inner) { \
  const int o = get_global_id(0);                                                          \
  if (o >= n) return;                                                                      \
  __global const float* xp = x + (long)(o / inner) * reduce * inner + o % inner;           \
  float best = xp[0];                                                                      \
  int at = 0;                                                                              \
  for (int r = 1; r < reduce && !isnan(best); ++r) {                                       \
    const float v = xp[(long)r * inner];                                                   \
    if (isnan(v) || v > best) { best = v; at = r; }                                        \
  }                                                                                        \
  y[o] = (OUT)at;                                                                          \
}
ARGMAX(tg_argmax_i32, int)
ARGMAX(tg_argmax_i64, long)

/* Softmax over the last dim: one work-group per row; max, then sum of exp, then divide. */
__kernel void tg_softmax(__global const float* x, __global float* y, int cols) {
  __local float part[RG];
  const int l = get_local_id(0);
  __global const float* xr = x + (long)get_group_id(0) * cols;
  __global float* yr = y + (long)get_group_id(0) * cols;
  float m = -INFINITY;
  for (int c = l; c < cols; c += RG) m = fmax(m, xr[c]);
  part[l] = m;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int w = RG / 2; w > 0; w >>= 1) {
    if (l < w) part[l] = fmax(part[l], part[l + w]);
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  m = part[0];
  barrier(CLK_LOCAL_MEM_FENCE);
  float s = 0.0f;
  for (int c = l; c < cols; c += RG) s += exp(xr[c] - m);
  part[l] = s;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int w = RG / 2; w > 0; w >>= 1) {
    if (l < w) part[l] += part[l + w];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  s = part[0];
  for (int c = l; c < cols; c += RG) yr[c] = exp(xr[c] - m) / s;
}
)CLC";

// Softmax cross-entropy, one work-group of RG items per batch row:
//   loss[b] = sum_c labels[b, c] * (logsumexp(f[b]) - f[b, c])
//   backprop[b, c] = softmax(f[b])[c] - labels[b, c]
// The dense kernel reads features and labels through (row, column) element strides, 0
// along a dim broadcast to [batch, classes]. The sparse kernels check their row's label and,
// when it is out of range, write nothing but atomic_min their row into *bad (the host reads
// it back and fails the node with the first bad row).
const char kXent[] = R"CLC(
float group_max(__local float* part, float v) {
  const int l = get_local_id(0);
  part[l] = v;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int w = RG / 2; w > 0; w >>= 1) {
    if (l < w) part[l] = fmax(part[l], part[l + w]);
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  v = part[0];
  barrier(CLK_LOCAL_MEM_FENCE);  /* part is reused by the next reduction */
  return v;
}
float group_sum(__local float* part, float v) {
  const int l = get_local_id(0);
  part[l] = v;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int w = RG / 2; w > 0; w >>= 1) {
    if (l < w) part[l] += part[l + w];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  v = part[0];
  barrier(CLK_LOCAL_MEM_FENCE);
  return v;
}

__kernel void tg_softmax_xent(__global const float* f, __global const float* lab,
                              __global float* loss, __global float* bp, int cols,
                              int f_row, int f_col, int l_row, int l_col) {
  __local float part[RG];
  const int b = get_group_id(0), l = get_local_id(0);
  __global const float* fr = f + (long)b * f_row;
  __global const float* lr = lab + (long)b * l_row;
  __global float* br = bp + (long)b * cols;
  float m = -INFINITY;
  for (int c = l; c < cols; c += RG) m = fmax(m, fr[(long)c * f_col]);
  m = group_max(part, m);
  float s = 0.0f;
  for (int c = l; c < cols; c += RG) s += exp(fr[(long)c * f_col] - m);
  const float log_sum = log(group_sum(part, s));
  float t = 0.0f;
  for (int c = l; c < cols; c += RG) {
    const float z = fr[(long)c * f_col] - m, y = lr[(long)c * l_col];
    t += y * (log_sum - z);
    br[c] = exp(z - log_sum) - y;
  }
  t = group_sum(part, t);
  if (l == 0) loss[b] = t;
}

void sparse_xent_row(__local float* part, __global const float* f, long label,
                     __global float* loss, __global float* bp, int cols) {
  const int b = get_group_id(0), l = get_local_id(0);
  __global const float* fr = f + (long)b * cols;
  __global float* br = bp + (long)b * cols;
  float m = -INFINITY;
  for (int c = l; c < cols; c += RG) m = fmax(m, fr[c]);
  m = group_max(part, m);
  float s = 0.0f;
  for (int c = l; c < cols; c += RG) s += exp(fr[c] - m);
  const float log_sum = log(group_sum(part, s));
  for (int c = l; c < cols; c += RG) br[c] = exp(fr[c] - m - log_sum) - (c == label ? 1.0f : 0.0f);
  if (l == 0) loss[b] = log_sum - (fr[label] - m);
}

/* The label is uniform over the work-group, so the early return skips no barrier. */
__kernel void tg_sparse_xent_i32(__global const float* f, __global const int* lab,
                                 __global float* loss, __global float* bp, int cols,
                                 __global int* bad) {
  __local float part[RG];
  const long label = lab[get_group_id(0)];
  if (label < 0 || label >= cols) {
    if (get_local_id(0) == 0) atomic_min(bad, (int)get_group_id(0));
    return;
  }
  sparse_xent_row(part, f, label, loss, bp, cols);
}
__kernel void tg_sparse_xent_i64(__global const float* f, __global const long* lab,
                                 __global float* loss, __global float* bp, int cols,
                                 __global int* bad) {
  __local float part[RG];
  const long label = lab[get_group_id(0)];
  if (label < 0 || label >= cols) {
    if (get_local_id(0) == 0) atomic_min(bad, (int)get_group_id(0));
    return;
  }
  sparse_xent_row(part, f, label, loss, bp, cols);
}
)CLC";

// Fill, Tile, Pad, GatherV2, Select and DynamicStitch (any 4-byte dtype: the bits are copied)
// and Cast float <-> int32.
const char kMisc[] = R"CLC(
__kernel void tg_fill32(__global const uint* v, __global uint* y, int n) {
  int i = get_global_id(0);
  if (i < n) y[i] = v[0];
}
/* Tile, any 4-byte dtype: output element i reads input element (coordinate % in dim) per
 * dim; the host drops output dims of size 1 and merges untiled dims (at most 6 remain). */
/* Pad: output element i is the input element at its coordinates less the pads before, or
 * zero where that falls outside the input (zero bits are 0 for float and int32). */
typedef struct { int rank; int n; int out[8]; int in[8]; int before[8]; } PadShape;
__kernel void tg_pad32(__global const uint* x, __global uint* y, PadShape s) {
  int i = get_global_id(0);
  if (i >= s.n) return;
  int r = i, xi = 0, stride = 1, inside = 1;
  for (int d = s.rank - 1; d >= 0; --d) {
    const int c = r % s.out[d] - s.before[d];
    r /= s.out[d];
    inside = inside && c >= 0 && c < s.in[d];
    xi += c * stride;
    stride *= s.in[d];
  }
  y[i] = inside ? x[xi] : 0u;
}
typedef struct { int rank; int n; int out[6]; int in[6]; } TileShape;
__kernel void tg_tile32(__global const uint* x, __global uint* y, TileShape s) {
  int i = get_global_id(0);
  if (i >= s.n) return;
  int r = i, xi = 0, stride = 1;
  for (int d = s.rank - 1; d >= 0; --d) {
    const int c = r % s.out[d];
    r /= s.out[d];
    xi += (c % s.in[d]) * stride;
    stride *= s.in[d];
  }
  y[i] = x[xi];
}
/* GatherV2 over params viewed as [batch * outer, limit, inner] and indices as [batch, nidx]
 * (any 4-byte dtype): y[bo, k, q] = p[bo, idx[(bo / outer) * nidx + k], q]. An index outside
 * [0, limit) writes nothing and atomic_mins its position into *bad, which the host reads
 * back. */
__kernel void tg_gather32(__global const uint* p, __global const int* idx, __global uint* y,
                          int n, int nidx, int limit, int inner, int outer, __global int* bad) {
  int i = get_global_id(0);
  if (i >= n) return;
  const int q = i % inner, r = i / inner, k = r % nidx;
  const long bo = r / nidx;
  const int j = (int)(bo / outer) * nidx + k;
  const int v = idx[j];
  if (v < 0 || v >= limit) { atomic_min(bad, j); return; }
  y[i] = p[(bo * limit + v) * inner + q];
}
/* Select / SelectV2, any 4-byte dtype: y = c ? t : e over the broadcast of the three (the
 * host passes the output dims and each operand's strides, 0 where it is broadcast, at most
 * 6 dims); any nonzero condition byte is true. */
typedef struct { int rank; int n; int dims[6]; int cs[6]; int ts[6]; int es[6]; } SelectShape;
__kernel void tg_select32(__global const uchar* c, __global const uint* t,
                          __global const uint* e, __global uint* y, SelectShape s) {
  int i = get_global_id(0);
  if (i >= s.n) return;
  int r = i, ci = 0, ti = 0, ei = 0;
  for (int d = s.rank - 1; d >= 0; --d) {
    const int k = r % s.dims[d];
    r /= s.dims[d];
    ci += k * s.cs[d];
    ti += k * s.ts[d];
    ei += k * s.es[d];
  }
  y[i] = c[ci] ? t[ti] : e[ei];
}
/* DynamicStitch, any 4-byte dtype: pair first + k of `pairs` (output row, row of x) copies
 * one row of `inner` elements. No output row is in two pairs of one launch (the host keeps
 * each row's last writer only), so no order among work items matters. */
__kernel void tg_stitch32(__global const uint* x, __global const int* pairs, __global uint* y,
                          int n, int inner, int first) {
  int i = get_global_id(0);
  if (i >= n) return;
  const int k = first + i / inner, q = i % inner;
  y[(long)pairs[2 * k] * inner + q] = x[(long)pairs[2 * k + 1] * inner + q];
}
/* Truncates toward zero, saturates, NaN gives 0 (as the CPU plugin's Cast). */
__kernel void tg_cast_f2i(__global const float* x, __global int* y, int n) {
  int i = get_global_id(0);
  if (i < n) y[i] = convert_int_sat_rtz(x[i]);
}
__kernel void tg_cast_i2f(__global const int* x, __global float* y, int n) {
  int i = get_global_id(0);
  if (i < n) y[i] = convert_float(x[i]);
}
)CLC";

}  // namespace

const char* ProgramSource(const std::string& name) {
  static const std::string cwise = std::string(kBinaryPrelude) + kCwise;
  static const std::string compare = std::string(kBinaryPrelude) + kCompareSource;
  if (name == "cwise") return cwise.c_str();
  if (name == "compare") return compare.c_str();
  if (name == "matmul") return kMatMul;
  if (name == "reduce") return kReduce;
  if (name == "misc") return kMisc;
  if (name == "xent") return kXent;
  if (name == "train") return kTrainSource;
  if (name == "conv") return kConvSource;
  return nullptr;
}

}  // namespace tgraph_opencl
