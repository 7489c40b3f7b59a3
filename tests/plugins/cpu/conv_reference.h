// The naive float64 convolution the Conv2D kernel tests and the gradient tests share: a
// case's attrs and name, TF's output-size and padding rules, and every product
// x[.] * f[.] -> y[.] of the convolution, so each test builds its reference from one loop.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

#include "kernel_test_util.h"

namespace tgraph::testing {

inline size_t Idx(int64_t i) { return static_cast<size_t>(i); }

// Output size and padding before along one spatial axis, TF's rules.
inline void Window(int64_t in, int64_t k, int64_t d, int64_t s, const std::string& padding,
                   int64_t pb, int64_t pa, int64_t* out, int64_t* pad_before) {
  const int64_t eff = (k - 1) * d + 1;
  if (padding == "VALID") {
    *out = (in - eff + s) / s;
    *pad_before = 0;
  } else if (padding == "SAME") {
    *out = (in + s - 1) / s;
    *pad_before = std::max<int64_t>((*out - 1) * s + eff - in, 0) / 2;
  } else {
    *out = (in + pb + pa - eff + s) / s;
    *pad_before = pb;
  }
}

struct ConvCase {
  Dims input;   // N, H, W, C
  Dims filter;  // KH, KW, C, OC
  Dims strides = {1, 1, 1, 1};
  std::string padding = "VALID";
  Dims dilations = {1, 1, 1, 1};
  Dims explicit_paddings = {};

  AttrMap Attrs() const {
    AttrMap a{{"strides", AttrOfIntList(strides)},
              {"padding", AttrOfString(padding)},
              {"dilations", AttrOfIntList(dilations)}};
    if (!explicit_paddings.empty()) a["explicit_paddings"] = AttrOfIntList(explicit_paddings);
    return a;
  }
  std::string Name(DataType dtype) const {
    return std::string(DataTypeName(dtype)) + " input " + PartialShape(input).ToString() +
           " filter " + PartialShape(filter).ToString() + " strides " +
           PartialShape(strides).ToString() + " " + padding + " dilations " +
           PartialShape(dilations).ToString();
  }
};

// The convolution's output size and paddings before.
struct ConvShape {
  int64_t oh, ow, pt, pl;
};
inline ConvShape ShapeOf(const ConvCase& c) {
  const Dims ep = c.explicit_paddings.empty() ? Dims(8, 0) : c.explicit_paddings;
  ConvShape s{};
  Window(c.input[1], c.filter[0], c.dilations[1], c.strides[1], c.padding, ep[2], ep[3], &s.oh,
         &s.pt);
  Window(c.input[2], c.filter[1], c.dilations[2], c.strides[2], c.padding, ep[4], ep[5], &s.ow,
         &s.pl);
  return s;
}

// Calls fn(x index, filter index, output index) for every product of the convolution. A
// filter whose input depth kd divides the input's depth ch into groups (TensorFlow's grouped
// convolution): input channel d meets filter channel d % kd and the output channels of
// group d / kd, oc / (ch / kd) of them.
template <typename F>
void ForEachProduct(const ConvCase& c, const ConvShape& s, F fn) {
  const int64_t n = c.input[0], h = c.input[1], w = c.input[2], ch = c.input[3];
  const int64_t kh = c.filter[0], kw = c.filter[1], kd = c.filter[2], oc = c.filter[3];
  const int64_t groups = kd > 0 && ch >= kd && ch % kd == 0 ? ch / kd : 1;
  const int64_t ocg = oc / groups;
  for (int64_t b = 0; b < n; ++b)
    for (int64_t i = 0; i < s.oh; ++i)
      for (int64_t j = 0; j < s.ow; ++j)
        for (int64_t p = 0; p < kh; ++p)
          for (int64_t q = 0; q < kw; ++q) {
            const int64_t y = i * c.strides[1] - s.pt + p * c.dilations[1];
            const int64_t xx = j * c.strides[2] - s.pl + q * c.dilations[2];
            if (y < 0 || y >= h || xx < 0 || xx >= w) continue;
            for (int64_t d = 0; d < ch; ++d)
              for (int64_t o = (d / kd) * ocg; o < (d / kd + 1) * ocg; ++o) {
                fn(Idx(((b * h + y) * w + xx) * ch + d),
                   Idx(((p * kw + q) * kd + d % kd) * oc + o),
                   Idx(((b * s.oh + i) * s.ow + j) * oc + o));
              }
          }
}

}  // namespace tgraph::testing
