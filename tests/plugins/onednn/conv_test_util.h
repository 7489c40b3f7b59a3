// A convolution's geometry for the oneDNN tests of Conv2D, its gradients and _FusedConv2D:
// the attrs, TensorFlow's output sizes, and random geometries over odd sizes, strides,
// dilations and paddings.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <random>
#include <string>
#include <vector>

#include "onednn_test_util.h"

namespace tgraph::onednn_test {

struct Conv {
  int64_t batch = 1, h = 5, w = 5, c = 3, kh = 3, kw = 3, oc = 4;
  int64_t sh = 1, sw = 1, dh = 1, dw = 1;
  std::string padding = "SAME";
  std::vector<int64_t> pads;  // explicit_paddings (8 values) for EXPLICIT

  std::string Describe() const {
    return Str("input ", DimsString({batch, h, w, c}), " filter ", DimsString({kh, kw, c, oc}),
               " strides ", sh, ",", sw, " dilations ", dh, ",", dw, " ", padding, " ",
               DimsString(pads));
  }
  AttrMap Attrs() const {
    return {{"strides", AttrOfIntList({1, sh, sw, 1})},
            {"dilations", AttrOfIntList({1, dh, dw, 1})},
            {"padding", AttrOfString(padding)},
            {"explicit_paddings", AttrOfIntList(pads)},
            {"data_format", AttrOfString("NHWC")}};
  }
  // The output size of one spatial dim (as TensorFlow computes it); -1 when negative.
  int64_t Out(int64_t in, int64_t k, int64_t s, int64_t d, int64_t before, int64_t after) const {
    const int64_t eff = (k - 1) * d + 1;
    if (padding == "SAME") return (in + s - 1) / s;
    const int64_t num = in + before + after - eff + s;
    return num < 0 ? -1 : num / s;
  }
  int64_t OutH() const { return Out(h, kh, sh, dh, Pad(2), Pad(3)); }
  int64_t OutW() const { return Out(w, kw, sw, dw, Pad(4), Pad(5)); }
  // VALID windows larger than the image have no output (the shape function refuses them).
  bool HasOutput() const { return OutH() >= 0 && OutW() >= 0; }
  int64_t Pad(size_t i) const { return pads.empty() ? 0 : pads[i]; }
};

inline Conv Geometry(int64_t batch, int64_t h, int64_t w, int64_t c, int64_t kh, int64_t kw,
                     int64_t oc) {
  Conv g;
  g.batch = batch;
  g.h = h;
  g.w = w;
  g.c = c;
  g.kh = kh;
  g.kw = kw;
  g.oc = oc;
  return g;
}

// The i-th of a run of random geometries drawn from `gen`: SAME, VALID and EXPLICIT in turn.
inline Conv RandomConv(std::mt19937& gen, int i) {
  auto pick = [&](std::initializer_list<int64_t> v) {
    return *(v.begin() + std::uniform_int_distribution<size_t>(0, v.size() - 1)(gen));
  };
  Conv c;
  c.batch = pick({1, 1, 2, 3});
  c.h = pick({1, 4, 5, 7, 9, 12});
  c.w = pick({1, 3, 5, 8, 11});
  c.c = pick({1, 2, 3, 8, 17});
  c.kh = pick({1, 2, 3, 5});
  c.kw = pick({1, 2, 3, 4});
  c.oc = pick({1, 3, 8, 16});
  c.sh = pick({1, 1, 2, 3});
  c.sw = pick({1, 2, 3});
  c.dh = pick({1, 1, 2});
  c.dw = pick({1, 2, 3});
  switch (i % 3) {
    case 0: c.padding = "SAME"; break;
    case 1: c.padding = "VALID"; break;
    default:
      c.padding = "EXPLICIT";
      c.pads = {0, 0, pick({0, 1, 2}), pick({0, 1, 3}), pick({0, 2}), pick({0, 1}), 0, 0};
  }
  return c;
}

}  // namespace tgraph::onednn_test
