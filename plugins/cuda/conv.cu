// Conv2D and its two gradients, direct, in NHWC ([N, H, W, C]) or NCHW ([N, C, H, W]) with an
// HWIO filter [KH, KW, C, OC], any strides, dilations and padding (the host passes the
// leading padding of each spatial dim). The same algorithms as the OpenCL plugin's
// (plugins/opencl/cl_sources_conv.cc), which the tests exercise on every machine:
//   Conv2D: one output element per thread (grid-stride);
//   Conv2DBackpropInput: one input element per thread, a gather over the output pixels whose
//     windows cover it (no atomics);
//   Conv2DBackpropFilter: one block per filter element (grid-stride over them), summing over
//     every output pixel of the batch in shared memory.
// MaxPool / AvgPool (NHWC) and their gradients: an output element per thread, and a gather
// over the covering windows per input element (MaxPoolGrad recomputes each window's first
// maximum). Offsets are int64; counts are ints (the host refuses tensors of 2^31 elements or more).
// Launch wrappers: cuda_launch.h.
#include <algorithm>
#include <cfloat>
#include <cstdint>

#include "cuda_launch.h"
#include "launch_geometry.cuh"

namespace tgraph_cuda {
namespace {

constexpr int kReduceThreads = 256;  // a power of two

int BlocksFor(int64_t n) { return StrideBlocks(n); }

// The offset of element [b, y, x, ch] of a tensor with spatial size h x w and depth c.
__device__ int64_t At(bool nchw, int b, int y, int x, int ch, int h, int w, int c) {
  return nchw ? ((static_cast<int64_t>(b) * c + ch) * h + y) * w + x
              : ((static_cast<int64_t>(b) * h + y) * w + x) * c + ch;
}

// Splits flat index i of a [b, y, x, ch] tensor (in its layout) into its coordinates.
__device__ void Coords(bool nchw, int i, int h, int w, int c, int* b, int* y, int* x, int* ch) {
  if (nchw) {
    *x = i % w;
    i /= w;
    *y = i % h;
    i /= h;
    *ch = i % c;
    *b = i / c;
  } else {
    *ch = i % c;
    i /= c;
    *x = i % w;
    i /= w;
    *y = i % h;
    *b = i / h;
  }
}

__global__ void Conv2DKernel(const float* x, const float* f, float* y, ConvShape s) {
  const int64_t cstep = s.nchw ? static_cast<int64_t>(s.h) * s.w : 1;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < s.n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int b, oy, ox, o;
    Coords(s.nchw, static_cast<int>(i), s.oh, s.ow, s.oc, &b, &oy, &ox, &o);
    float acc = 0.0f;
    for (int ky = 0; ky < s.kh; ++ky) {
      const int iy = oy * s.sh - s.pad_top + ky * s.dh;
      if (iy < 0 || iy >= s.h) continue;
      for (int kx = 0; kx < s.kw; ++kx) {
        const int ix = ox * s.sw - s.pad_left + kx * s.dw;
        if (ix < 0 || ix >= s.w) continue;
        const float* xp = x + At(s.nchw, b, iy, ix, 0, s.h, s.w, s.c);
        const float* fp = f + (static_cast<int64_t>(ky) * s.kw + kx) * s.c * s.oc + o;
        for (int c = 0; c < s.c; ++c) acc += xp[c * cstep] * fp[static_cast<int64_t>(c) * s.oc];
      }
    }
    y[i] = acc;
  }
}

// dx[b, iy, ix, ch] = sum over (ky, kx, o) with iy = oy * sh - pad_top + ky * dh (and the
// same for x) of dy[b, oy, ox, o] * f[ky, kx, ch, o].
__global__ void Conv2DBackpropInputKernel(const float* dy, const float* f, float* dx,
                                          ConvShape s) {
  const int64_t ostep = s.nchw ? static_cast<int64_t>(s.oh) * s.ow : 1;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < s.n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int b, iy, ix, ch;
    Coords(s.nchw, static_cast<int>(i), s.h, s.w, s.c, &b, &iy, &ix, &ch);
    float acc = 0.0f;
    for (int ky = 0; ky < s.kh; ++ky) {
      const int ty = iy + s.pad_top - ky * s.dh;
      if (ty < 0 || ty % s.sh != 0) continue;
      const int oy = ty / s.sh;
      if (oy >= s.oh) continue;
      for (int kx = 0; kx < s.kw; ++kx) {
        const int tx = ix + s.pad_left - kx * s.dw;
        if (tx < 0 || tx % s.sw != 0) continue;
        const int ox = tx / s.sw;
        if (ox >= s.ow) continue;
        const float* dyp = dy + At(s.nchw, b, oy, ox, 0, s.oh, s.ow, s.oc);
        const float* fp = f + ((static_cast<int64_t>(ky) * s.kw + kx) * s.c + ch) * s.oc;
        for (int o = 0; o < s.oc; ++o) acc += dyp[o * ostep] * fp[o];
      }
    }
    dx[i] = acc;
  }
}

// df[ky, kx, ch, o] = sum over (b, oy, ox) of x[b, iy, ix, ch] * dy[b, oy, ox, o]. The
// filter element is the same for the whole block, so __syncthreads is reached by all.
__global__ void Conv2DBackpropFilterKernel(const float* x, const float* dy, float* df,
                                           ConvShape s) {
  __shared__ float part[kReduceThreads];
  const int l = threadIdx.x;
  const int64_t pixels = static_cast<int64_t>(s.batch) * s.oh * s.ow;
  for (int64_t i = blockIdx.x; i < s.n; i += gridDim.x) {
    const int o = static_cast<int>(i % s.oc);
    int r = static_cast<int>(i / s.oc);
    const int ch = r % s.c;
    r /= s.c;
    const int kx = r % s.kw, ky = r / s.kw;
    float acc = 0.0f;
    for (int64_t p = l; p < pixels; p += kReduceThreads) {
      const int ox = static_cast<int>(p % s.ow);
      const int64_t q = p / s.ow;
      const int oy = static_cast<int>(q % s.oh), b = static_cast<int>(q / s.oh);
      const int iy = oy * s.sh - s.pad_top + ky * s.dh, ix = ox * s.sw - s.pad_left + kx * s.dw;
      if (iy < 0 || iy >= s.h || ix < 0 || ix >= s.w) continue;
      acc += x[At(s.nchw, b, iy, ix, ch, s.h, s.w, s.c)] *
             dy[At(s.nchw, b, oy, ox, o, s.oh, s.ow, s.oc)];
    }
    part[l] = acc;
    __syncthreads();
    for (int w = kReduceThreads / 2; w > 0; w >>= 1) {
      if (l < w) part[l] += part[l + w];
      __syncthreads();
    }
    if (l == 0) df[i] = part[0];
    __syncthreads();  // part is written again by the next filter element
  }
}

// Pooling, NHWC (the ConvShape's kh x kw is the window, oc = c): the input rows and columns
// [*lo, *hi) of window o along one dim.
__device__ void Window(int o, int stride, int pad, int k, int in, int* lo, int* hi) {
  const int start = o * stride - pad;
  *lo = max(start, 0);
  *hi = min(start + k, in);
}

// The output windows that cover input index i along one dim: [*lo, *hi].
__device__ void Covering(int i, int stride, int pad, int k, int out, int* lo, int* hi) {
  const int t = i + pad - k + 1;
  *lo = t <= 0 ? 0 : (t + stride - 1) / stride;
  *hi = min((i + pad) / stride, out - 1);
}

// MaxPool / AvgPool: one output element per thread. Max ignores padding and NaN (it starts
// from -FLT_MAX and takes an element only when strictly greater), as the CPU plugin; the
// average divides by the number of input elements the window covers.
template <bool kMax>
__global__ void PoolKernel(const float* x, float* y, ConvShape s) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < s.n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int b, oy, ox, ch, h0, h1, w0, w1;
    Coords(false, static_cast<int>(i), s.oh, s.ow, s.c, &b, &oy, &ox, &ch);
    Window(oy, s.sh, s.pad_top, s.kh, s.h, &h0, &h1);
    Window(ox, s.sw, s.pad_left, s.kw, s.w, &w0, &w1);
    float acc = kMax ? -FLT_MAX : 0.0f;
    for (int h = h0; h < h1; ++h) {
      for (int w = w0; w < w1; ++w) {
        const float v = x[At(false, b, h, w, ch, s.h, s.w, s.c)];
        if (kMax) {
          acc = v > acc ? v : acc;
        } else {
          acc += v;
        }
      }
    }
    y[i] = kMax ? acc : acc * (1.0f / static_cast<float>(max((h1 - h0) * (w1 - w0), 1)));
  }
}

// The element (h * w + x) that MaxPoolGrad routes window (oy, ox)'s gradient to, as the CPU
// plugin: the maximum starts from the window's first element and moves only to a strictly
// greater one; the gradient goes to the first element equal to it (the first element when
// the maximum is that element's NaN). Windows that cover an input element are not empty.
__device__ int WindowArgMax(const float* x, const ConvShape& s, int b, int oy, int ox, int ch) {
  int h0, h1, w0, w1;
  Window(oy, s.sh, s.pad_top, s.kh, s.h, &h0, &h1);
  Window(ox, s.sw, s.pad_left, s.kw, s.w, &w0, &w1);
  float mx = x[At(false, b, h0, w0, ch, s.h, s.w, s.c)];
  for (int h = h0; h < h1; ++h) {
    for (int w = w0; w < w1; ++w) {
      const float v = x[At(false, b, h, w, ch, s.h, s.w, s.c)];
      mx = mx < v ? v : mx;
    }
  }
  if (isnan(mx)) return h0 * s.w + w0;
  for (int h = h0; h < h1; ++h) {
    for (int w = w0; w < w1; ++w) {
      if (x[At(false, b, h, w, ch, s.h, s.w, s.c)] == mx) return h * s.w + w;
    }
  }
  return h0 * s.w + w0;
}

// MaxPoolGrad (x is orig_input) / AvgPoolGrad (x unused): one input element per thread, a
// gather over the windows that cover it (no atomics).
template <bool kMax>
__global__ void PoolGradKernel(const float* x, const float* dy, float* dx, ConvShape s) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < s.n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int b, iy, ix, ch, oy0, oy1, ox0, ox1;
    Coords(false, static_cast<int>(i), s.h, s.w, s.c, &b, &iy, &ix, &ch);
    Covering(iy, s.sh, s.pad_top, s.kh, s.oh, &oy0, &oy1);
    Covering(ix, s.sw, s.pad_left, s.kw, s.ow, &ox0, &ox1);
    float acc = 0.0f;
    for (int oy = oy0; oy <= oy1; ++oy) {
      int h0, h1;
      Window(oy, s.sh, s.pad_top, s.kh, s.h, &h0, &h1);
      for (int ox = ox0; ox <= ox1; ++ox) {
        const float g = dy[At(false, b, oy, ox, ch, s.oh, s.ow, s.c)];
        if (kMax) {
          if (WindowArgMax(x, s, b, oy, ox, ch) == iy * s.w + ix) acc += g;
        } else {
          int w0, w1;
          Window(ox, s.sw, s.pad_left, s.kw, s.w, &w0, &w1);
          acc += g * (1.0f / static_cast<float>(max((h1 - h0) * (w1 - w0), 1)));
        }
      }
    }
    dx[i] = acc;
  }
}

}  // namespace

cudaError_t LaunchPool(bool max_pool, const float* x, float* y, const ConvShape& s,
                       cudaStream_t stream) {
  if (s.n <= 0) return cudaSuccess;
  if (max_pool) {
    PoolKernel<true><<<BlocksFor(s.n), kBlock, 0, stream>>>(x, y, s);
  } else {
    PoolKernel<false><<<BlocksFor(s.n), kBlock, 0, stream>>>(x, y, s);
  }
  return cudaGetLastError();
}

cudaError_t LaunchPoolGrad(bool max_pool, const float* x, const float* dy, float* dx,
                           const ConvShape& s, cudaStream_t stream) {
  if (s.n <= 0) return cudaSuccess;
  if (max_pool) {
    PoolGradKernel<true><<<BlocksFor(s.n), kBlock, 0, stream>>>(x, dy, dx, s);
  } else {
    PoolGradKernel<false><<<BlocksFor(s.n), kBlock, 0, stream>>>(x, dy, dx, s);
  }
  return cudaGetLastError();
}

cudaError_t LaunchConv2D(const float* x, const float* filter, float* y, const ConvShape& s,
                         cudaStream_t stream) {
  if (s.n <= 0) return cudaSuccess;
  Conv2DKernel<<<BlocksFor(s.n), kBlock, 0, stream>>>(x, filter, y, s);
  return cudaGetLastError();
}

cudaError_t LaunchConv2DBackpropInput(const float* dy, const float* filter, float* dx,
                                      const ConvShape& s, cudaStream_t stream) {
  if (s.n <= 0) return cudaSuccess;
  Conv2DBackpropInputKernel<<<BlocksFor(s.n), kBlock, 0, stream>>>(dy, filter, dx, s);
  return cudaGetLastError();
}

cudaError_t LaunchConv2DBackpropFilter(const float* x, const float* dy, float* dfilter,
                                       const ConvShape& s, cudaStream_t stream) {
  if (s.n <= 0) return cudaSuccess;
  Conv2DBackpropFilterKernel<<<static_cast<int>(std::min<int64_t>(s.n, kMaxStrideBlocks)), kReduceThreads, 0, stream>>>(
      x, dy, dfilter, s);
  return cudaGetLastError();
}

}  // namespace tgraph_cuda
