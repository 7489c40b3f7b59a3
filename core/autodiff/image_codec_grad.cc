// The image codec ops (core/ops/image_codec_ops.cc) have no gradient, as in TensorFlow:
// their inputs or outputs are encoded strings, and decoding quantizes to integers. Nor do
// HSVToRGB (TensorFlow's NotDifferentiable) and the Adjust* ops (none registered there).
// RGBToHSV's is TensorFlow's: the partial derivatives of value, saturation and hue by each
// of r, g, b on the piece of the color space each pixel lies in (which channel is largest
// and which smallest), with 1/0 taken as 0 (DivNoNan).
#include <vector>

#include "core/autodiff/gradient_registry.h"
#include "core/graph/attr_value_util.h"

namespace tgraph {
namespace {

Status RgbToHsvGrad(GradientContext& ctx) {
  const GradAttrs unpack = {{"num", AttrOfInt(3)}, {"axis", AttrOfInt(-1)}};
  std::vector<Output> rgb = ctx.OpOutputs("Unpack", {ctx.input(0)}, unpack);
  std::vector<Output> hsv = ctx.OpOutputs("Unpack", {ctx.output(0)}, unpack);
  std::vector<Output> g = ctx.OpOutputs("Unpack", {ctx.grad(0)}, unpack);
  if (rgb.size() != 3 || hsv.size() != 3 || g.size() != 3) return ctx.status();
  const DataType dtype = BaseType(ctx.input(0).dtype());
  const Output r = rgb[0], gr = rgb[1], b = rgb[2], s = hsv[1], v = hsv[2];
  auto is = [&](Output cond) { return ctx.Cast(cond, dtype); };
  auto both = [&](Output a, Output c) { return is(ctx.Op("LogicalAnd", {a, c})); };
  auto ge = [&](Output a, Output c) { return ctx.Op("GreaterEqual", {a, c}); };
  auto gt = [&](Output a, Output c) { return ctx.Op("Greater", {a, c}); };
  auto lt = [&](Output a, Output c) { return ctx.Op("Less", {a, c}); };
  auto le = [&](Output a, Output c) { return ctx.Op("LessEqual", {a, c}); };
  auto recip = [&](Output x) { return ctx.Op("DivNoNan", {ctx.ScalarLike(x, 1), x}); };
  auto mul = [&](std::vector<Output> fs) {
    Output p = fs[0];
    for (size_t i = 1; i < fs.size(); ++i) p = ctx.Mul(p, fs[i]);
    return p;
  };
  const Output minus1 = ctx.ScalarLike(r, -1);
  // Which channel is the largest (value) and which the smallest; ties as TensorFlow breaks them.
  const Output r_big = both(ge(r, b), ge(r, gr)), g_big = both(gt(gr, r), ge(gr, b)),
               b_big = both(gt(b, r), gt(b, gr));
  const Output r_small = both(lt(r, b), lt(r, gr)), g_small = both(le(gr, r), lt(gr, b)),
               b_small = both(le(b, r), le(b, gr));
  const Output r_pos = is(gt(r, ctx.ScalarLike(r, 0))), g_pos = is(gt(gr, ctx.ScalarLike(r, 0))),
               b_pos = is(gt(b, ctx.ScalarLike(r, 0)));
  // Saturation (range / max).
  auto ds = [&](Output pos, Output big, Output small, Output x, Output small_a, Output a,
                Output small_b, Output c, Output big_a, Output big_b) {
    return ctx.Mul(pos, ctx.Add(mul({big, ctx.Add(ctx.Mul(small_a, a), ctx.Mul(small_b, c)),
                                     recip(ctx.Square(x))}),
                                mul({small, minus1,
                                     recip(ctx.Add(ctx.Mul(big_a, a), ctx.Mul(big_b, c)))})));
  };
  const Output ds_dr = ds(r_pos, r_big, r_small, r, g_small, gr, b_small, b, g_big, b_big);
  const Output ds_dg = ds(g_pos, g_big, g_small, gr, r_small, r, b_small, b, r_big, b_big);
  const Output ds_db = ds(b_pos, b_big, b_small, b, g_small, gr, r_small, r, g_big, r_big);
  // Hue, in degrees / 360: five pieces per channel.
  const Output s2v2 = ctx.Mul(recip(ctx.Square(s)), recip(ctx.Square(v)));
  auto sq = [&](Output a, Output c) { return recip(ctx.Square(ctx.Sub(a, c))); };
  auto hue = [&](std::vector<std::vector<Output>> terms) {
    std::vector<Output> parts;
    for (auto& t : terms) parts.push_back(ctx.Mul(ctx.ScalarLike(r, 60), mul(t)));
    Output sum = parts[0];
    for (size_t i = 1; i < parts.size(); ++i) sum = ctx.Add(sum, parts[i]);
    return ctx.Div(sum, ctx.ScalarLike(r, 360));
  };
  const Output dh_dr = hue({{r_pos, r_big, minus1, ctx.Sub(gr, b), s2v2},
                            {g_pos, g_big, r_small, ctx.Sub(b, gr), sq(r, gr)},
                            {g_pos, g_big, b_small, minus1, recip(ctx.Sub(gr, b))},
                            {b_pos, b_big, r_small, ctx.Sub(b, gr), sq(b, r)},
                            {b_pos, b_big, g_small, recip(ctx.Sub(b, gr))}});
  const Output dh_dg = hue({{g_pos, g_big, minus1, ctx.Sub(b, r), s2v2},
                            {r_pos, r_big, g_small, ctx.Sub(r, b), sq(r, gr)},
                            {r_pos, r_big, b_small, recip(ctx.Sub(r, b))},
                            {b_pos, b_big, g_small, ctx.Sub(r, b), sq(b, gr)},
                            {b_pos, b_big, r_small, minus1, recip(ctx.Sub(b, r))}});
  const Output dh_db = hue({{b_pos, b_big, minus1, ctx.Sub(r, gr), s2v2},
                            {r_pos, r_big, b_small, ctx.Sub(gr, r), sq(r, b)},
                            {r_pos, r_big, g_small, minus1, recip(ctx.Sub(r, gr))},
                            {g_pos, g_big, b_small, ctx.Sub(gr, r), sq(gr, b)},
                            {g_pos, g_big, r_small, recip(ctx.Sub(gr, r))}});
  auto stack = [&](Output a, Output c, Output d) {
    return ctx.Op("Pack", {GradInput::List({a, c, d})}, {{"axis", AttrOfInt(-1)}});
  };
  const Output dv = stack(ctx.Mul(g[2], r_big), ctx.Mul(g[2], g_big), ctx.Mul(g[2], b_big));
  const Output dsat = stack(ctx.Mul(g[1], ds_dr), ctx.Mul(g[1], ds_dg), ctx.Mul(g[1], ds_db));
  const Output dh = stack(ctx.Mul(g[0], dh_dr), ctx.Mul(g[0], dh_dg), ctx.Mul(g[0], dh_db));
  ctx.SetInputGrad(0, ctx.Add(ctx.Add(dv, dsat), dh));
  return ctx.status();
}

}  // namespace

Status RegisterImageCodecGradients(GradientFunctionRegistry& registry) {
  Status first = registry.Register("RGBToHSV", RgbToHsvGrad);
  for (const char* op : {"DecodeJpeg", "DecodePng", "DecodeBmp", "DecodeImage",
                         "ExtractJpegShape", "EncodeJpeg", "EncodePng", "HSVToRGB",
                         "DecodeAndCropJpeg", "EncodeJpegVariableQuality",
                         "AdjustContrastv2", "AdjustHue", "AdjustSaturation"}) {
    Status s = registry.RegisterNotDifferentiable(op);
    if (first.ok() && !s.ok()) first = std::move(s);
  }
  return first;
}

}  // namespace tgraph
