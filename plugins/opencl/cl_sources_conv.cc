// The OpenCL C source of program "conv": Conv2D, NHWC input [N, H, W, C], filter
// [KH, KW, C, OC], direct: one output element per work item (oc fastest, so neighbouring
// items read the same input pixels and adjacent filter columns), zero padding skipped.
#include "cl_sources.h"

namespace tgraph_opencl {

const char kConvSource[] = R"CLC(
typedef struct {
  int n_out, h, w, c, oh, ow, oc, kh, kw, sh, sw, pad_top, pad_left;
} ConvShape;

__kernel void tg_conv2d(__global const float* x, __global const float* f, __global float* y,
                        ConvShape s) {
  const int i = get_global_id(0);
  if (i >= s.n_out) return;
  const int o = i % s.oc;
  int r = i / s.oc;
  const int ox = r % s.ow;
  r /= s.ow;
  const int oy = r % s.oh;
  const int b = r / s.oh;
  float acc = 0.0f;
  for (int ky = 0; ky < s.kh; ++ky) {
    const int iy = oy * s.sh - s.pad_top + ky;
    if (iy < 0 || iy >= s.h) continue;
    for (int kx = 0; kx < s.kw; ++kx) {
      const int ix = ox * s.sw - s.pad_left + kx;
      if (ix < 0 || ix >= s.w) continue;
      __global const float* xp = x + (((long)b * s.h + iy) * s.w + ix) * s.c;
      __global const float* fp = f + ((long)ky * s.kw + kx) * s.c * s.oc + o;
      for (int c = 0; c < s.c; ++c) acc += xp[c] * fp[(long)c * s.oc];
    }
  }
  y[i] = acc;
}
)CLC";

}  // namespace tgraph_opencl
