// The OpenCL C source of program "conv": Conv2D and its two gradients, direct, in NHWC
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
)CLC";

}  // namespace tgraph_opencl
