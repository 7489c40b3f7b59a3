// The OpenCL C source of program "conv": Conv2D and its two gradients (and, at the end,
// MaxPool / AvgPool and their gradients, NHWC), direct, in NHWC
// ([N, H, W, C]) or NCHW ([N, C, H, W]) with an HWIO filter [KH, KW, C, OC], any strides,
// dilations and padding (the host passes the leading padding of each spatial dim).
//   tg_conv2d: one output element per work item (in NHWC oc fastest, so neighbouring items
//     read the same input pixels and adjacent filter columns); padding is skipped.
//   tg_conv2d_backprop_input: one input element per work item, a gather over the output
//     pixels whose windows cover it (no atomics).
//   tg_conv2d_backprop_filter: one work-group of RG items per filter element, summing over
//     every output pixel of the batch.
#include "cl_sources.h"

namespace tgraph_opencl {

const char kConvSource[] = R"CLC(
typedef struct {
  int n, batch, h, w, c, oh, ow, oc, kh, kw, sh, sw, dh, dw, pad_top, pad_left, nchw;
} ConvShape;

/* The offset of element [b, y, x, ch] of a tensor with spatial size h x w and depth c. */
long tg_at(int nchw, int b, int y, int x, int ch, int h, int w, int c) {
  return nchw ? (((long)b * c + ch) * h + y) * w + x : (((long)b * h + y) * w + x) * c + ch;
}

/* Splits flat index i of a [b, y, x, ch] tensor (in its layout) into its coordinates. */
void tg_coords(int nchw, int i, int h, int w, int c, int* b, int* y, int* x, int* ch) {
  if (nchw) {
    *x = i % w; i /= w;
    *y = i % h; i /= h;
    *ch = i % c;
    *b = i / c;
  } else {
    *ch = i % c; i /= c;
    *x = i % w; i /= w;
    *y = i % h;
    *b = i / h;
  }
}

__kernel void tg_conv2d(__global const float* x, __global const float* f, __global float* y,
                        ConvShape s) {
  const int i = get_global_id(0);
  if (i >= s.n) return;
  int b, oy, ox, o;
  tg_coords(s.nchw, i, s.oh, s.ow, s.oc, &b, &oy, &ox, &o);
  const long cstep = s.nchw ? (long)s.h * s.w : 1;
  float acc = 0.0f;
  for (int ky = 0; ky < s.kh; ++ky) {
    const int iy = oy * s.sh - s.pad_top + ky * s.dh;
    if (iy < 0 || iy >= s.h) continue;
    for (int kx = 0; kx < s.kw; ++kx) {
      const int ix = ox * s.sw - s.pad_left + kx * s.dw;
      if (ix < 0 || ix >= s.w) continue;
      __global const float* xp = x + tg_at(s.nchw, b, iy, ix, 0, s.h, s.w, s.c);
      __global const float* fp = f + ((long)ky * s.kw + kx) * s.c * s.oc + o;
      for (int c = 0; c < s.c; ++c) acc += xp[c * cstep] * fp[(long)c * s.oc];
    }
  }
  y[i] = acc;
}

/* dx[b, iy, ix, ch] = sum over (ky, kx, o) with iy = oy * sh - pad_top + ky * dh (and the
 * same for x) of dy[b, oy, ox, o] * f[ky, kx, ch, o]. */
__kernel void tg_conv2d_backprop_input(__global const float* dy, __global const float* f,
                                       __global float* dx, ConvShape s) {
  const int i = get_global_id(0);
  if (i >= s.n) return;
  int b, iy, ix, ch;
  tg_coords(s.nchw, i, s.h, s.w, s.c, &b, &iy, &ix, &ch);
  const long ostep = s.nchw ? (long)s.oh * s.ow : 1;
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
      __global const float* dyp = dy + tg_at(s.nchw, b, oy, ox, 0, s.oh, s.ow, s.oc);
      __global const float* fp = f + (((long)ky * s.kw + kx) * s.c + ch) * s.oc;
      for (int o = 0; o < s.oc; ++o) acc += dyp[o * ostep] * fp[o];
    }
  }
  dx[i] = acc;
}

/* df[ky, kx, ch, o] = sum over (b, oy, ox) of x[b, iy, ix, ch] * dy[b, oy, ox, o]. */
__kernel void tg_conv2d_backprop_filter(__global const float* x, __global const float* dy,
                                        __global float* df, ConvShape s) {
  __local float part[RG];
  const int i = get_group_id(0), l = get_local_id(0);
  const int o = i % s.oc;
  int r = i / s.oc;
  const int ch = r % s.c;
  r /= s.c;
  const int kx = r % s.kw, ky = r / s.kw;
  const int pixels = s.batch * s.oh * s.ow;
  float acc = 0.0f;
  for (int p = l; p < pixels; p += RG) {
    const int ox = p % s.ow, q = p / s.ow;
    const int oy = q % s.oh, b = q / s.oh;
    const int iy = oy * s.sh - s.pad_top + ky * s.dh, ix = ox * s.sw - s.pad_left + kx * s.dw;
    if (iy < 0 || iy >= s.h || ix < 0 || ix >= s.w) continue;
    acc += x[tg_at(s.nchw, b, iy, ix, ch, s.h, s.w, s.c)] *
           dy[tg_at(s.nchw, b, oy, ox, o, s.oh, s.ow, s.oc)];
  }
  part[l] = acc;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int w = RG / 2; w > 0; w >>= 1) {
    if (l < w) part[l] += part[l + w];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (l == 0) df[i] = part[0];
}

/* Pooling, NHWC (the ConvShape's kh x kw is the window, oc = c): the input rows and columns
 * [*lo, *hi) of window o along one dim. */
void tg_window(int o, int stride, int pad, int k, int in, int* lo, int* hi) {
  const int start = o * stride - pad;
  *lo = max(start, 0);
  *hi = min(start + k, in);
}
/* The output windows that cover input index i along one dim: [*lo, *hi]. */
void tg_covering(int i, int stride, int pad, int k, int out, int* lo, int* hi) {
  const int t = i + pad - k + 1;
  *lo = t <= 0 ? 0 : (t + stride - 1) / stride;
  *hi = min((i + pad) / stride, out - 1);
}

/* MaxPool / AvgPool: one output element per work item. Max ignores padding and NaN (it starts
 * from -FLT_MAX and takes an element only when strictly greater), as the CPU plugin; the
 * average divides by the number of input elements the window covers. */
__kernel void tg_max_pool(__global const float* x, __global float* y, ConvShape s) {
  const int i = get_global_id(0);
  if (i >= s.n) return;
  int b, oy, ox, ch, h0, h1, w0, w1;
  tg_coords(0, i, s.oh, s.ow, s.c, &b, &oy, &ox, &ch);
  tg_window(oy, s.sh, s.pad_top, s.kh, s.h, &h0, &h1);
  tg_window(ox, s.sw, s.pad_left, s.kw, s.w, &w0, &w1);
  float m = -FLT_MAX;
  for (int h = h0; h < h1; ++h) {
    for (int w = w0; w < w1; ++w) {
      const float v = x[tg_at(0, b, h, w, ch, s.h, s.w, s.c)];
      m = v > m ? v : m;
    }
  }
  y[i] = m;
}
__kernel void tg_avg_pool(__global const float* x, __global float* y, ConvShape s) {
  const int i = get_global_id(0);
  if (i >= s.n) return;
  int b, oy, ox, ch, h0, h1, w0, w1;
  tg_coords(0, i, s.oh, s.ow, s.c, &b, &oy, &ox, &ch);
  tg_window(oy, s.sh, s.pad_top, s.kh, s.h, &h0, &h1);
  tg_window(ox, s.sw, s.pad_left, s.kw, s.w, &w0, &w1);
  float sum = 0.0f;
  for (int h = h0; h < h1; ++h) {
    for (int w = w0; w < w1; ++w) sum += x[tg_at(0, b, h, w, ch, s.h, s.w, s.c)];
  }
  y[i] = sum * (1.0f / (float)max((h1 - h0) * (w1 - w0), 1));
}

/* The element (h * w + x) that MaxPoolGrad routes window (oy, ox)'s gradient to, as the CPU
 * plugin: the maximum starts from the window's first element and moves only to a strictly
 * greater one; the gradient goes to the first element equal to it (the first element when
 * the maximum is that element's NaN). */
int tg_window_argmax(__global const float* x, ConvShape s, int b, int oy, int ox, int ch) {
  int h0, h1, w0, w1;
  tg_window(oy, s.sh, s.pad_top, s.kh, s.h, &h0, &h1);
  tg_window(ox, s.sw, s.pad_left, s.kw, s.w, &w0, &w1);
  float mx = x[tg_at(0, b, h0, w0, ch, s.h, s.w, s.c)];
  for (int h = h0; h < h1; ++h) {
    for (int w = w0; w < w1; ++w) {
      const float v = x[tg_at(0, b, h, w, ch, s.h, s.w, s.c)];
      mx = mx < v ? v : mx;
    }
  }
  if (isnan(mx)) return h0 * s.w + w0;
  for (int h = h0; h < h1; ++h) {
    for (int w = w0; w < w1; ++w) {
      if (x[tg_at(0, b, h, w, ch, s.h, s.w, s.c)] == mx) return h * s.w + w;
    }
  }
  return h0 * s.w + w0;
}

/* MaxPoolGrad / AvgPoolGrad: one input element per work item, a gather over the windows that
 * cover it (no atomics). */
__kernel void tg_max_pool_grad(__global const float* x, __global const float* dy,
                               __global float* dx, ConvShape s) {
  const int i = get_global_id(0);
  if (i >= s.n) return;
  int b, iy, ix, ch, oy0, oy1, ox0, ox1;
  tg_coords(0, i, s.h, s.w, s.c, &b, &iy, &ix, &ch);
  tg_covering(iy, s.sh, s.pad_top, s.kh, s.oh, &oy0, &oy1);
  tg_covering(ix, s.sw, s.pad_left, s.kw, s.ow, &ox0, &ox1);
  float acc = 0.0f;
  for (int oy = oy0; oy <= oy1; ++oy) {
    for (int ox = ox0; ox <= ox1; ++ox) {
      if (tg_window_argmax(x, s, b, oy, ox, ch) == iy * s.w + ix) {
        acc += dy[tg_at(0, b, oy, ox, ch, s.oh, s.ow, s.c)];
      }
    }
  }
  dx[i] = acc;
}
__kernel void tg_avg_pool_grad(__global const float* dy, __global float* dx, ConvShape s) {
  const int i = get_global_id(0);
  if (i >= s.n) return;
  int b, iy, ix, ch, oy0, oy1, ox0, ox1;
  tg_coords(0, i, s.h, s.w, s.c, &b, &iy, &ix, &ch);
  tg_covering(iy, s.sh, s.pad_top, s.kh, s.oh, &oy0, &oy1);
  tg_covering(ix, s.sw, s.pad_left, s.kw, s.ow, &ox0, &ox1);
  float acc = 0.0f;
  for (int oy = oy0; oy <= oy1; ++oy) {
    int h0, h1;
    tg_window(oy, s.sh, s.pad_top, s.kh, s.h, &h0, &h1);
    for (int ox = ox0; ox <= ox1; ++ox) {
      int w0, w1;
      tg_window(ox, s.sw, s.pad_left, s.kw, s.w, &w0, &w1);
      const float scale = 1.0f / (float)max((h1 - h0) * (w1 - w0), 1);
      acc += dy[tg_at(0, b, oy, ox, ch, s.oh, s.ow, s.c)] * scale;
    }
  }
  dx[i] = acc;
}
)CLC";

}  // namespace tgraph_opencl
