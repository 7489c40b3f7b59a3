// Gradients of the complex-number ops and the Fourier transforms (core/ops/spectral_ops.cc),
// with TensorFlow's conventions (math_grad.py, signal/fft_ops.py): the gradient of a complex
// tensor is the conjugate of dL/dz, so a linear map's gradient is its adjoint applied to the
// incoming gradient.
//
// Where TensorFlow's formula multiplies complex tensors, the same values are built from real
// ops (Real / Imag / Complex around float arithmetic) or from the transforms themselves, since
// the adjoint of the DFT is n times the inverse DFT = conj(FFT(conj(g))):
//   FFT:   ifft(g) * n   = conj(fft(conj(g)))
//   IFFT:  fft(g) / n    = conj(ifft(conj(g)))
//   RFFT:  TensorFlow's 0.5 * (irfft(g) * n + the DC / Nyquist terms) is the real part of the
//          adjoint, n * ifft(g zero-padded to the full spectrum); that is what is built here,
//          for 1, 2 and 3 dimensions, then cropped or zero-padded back to the input's shape
//          (the transform crops or pads its input to fft_length).
//   IRFFT: rfft(g) * mask / n, mask 1 for the DC (and, for even lengths, the Nyquist) bin and
//          2 for the others, which appear twice in the full spectrum; then fitted to the
//          input's shape likewise.
#include <string>
#include <utility>

#include "core/autodiff/gradient_registry.h"
#include "core/graph/attr_value_util.h"

namespace tgraph {
namespace {

DataType RealOf(DataType complex) { return complex == DT_COMPLEX128 ? DT_DOUBLE : DT_FLOAT; }
DataType ComplexOf(DataType real) { return real == DT_DOUBLE ? DT_COMPLEX128 : DT_COMPLEX64; }

Output MakeComplex(GraphBuilder& b, Output re, Output im) {
  return b.Op("Complex", {re, im}, {{"Tout", AttrOfType(ComplexOf(BaseType(re.dtype())))}});
}
Output RealPart(GraphBuilder& b, Output z) {
  return b.Op("Real", {z}, {{"Tout", AttrOfType(RealOf(BaseType(z.dtype())))}});
}
Output ImagPart(GraphBuilder& b, Output z) {
  return b.Op("Imag", {z}, {{"Tout", AttrOfType(RealOf(BaseType(z.dtype())))}});
}
Output ConjOf(GraphBuilder& b, Output z) { return b.Op("Conj", {z}); }

// A length-1 int32 vector holding the int32 scalar s.
Output AsVector(GraphBuilder& b, Output s) { return b.Reshape(s, b.ConstInt32({1})); }

// t cropped or zero-padded (at the end of each dimension) to the int32 shape `target`.
Output FitTo(GraphBuilder& b, Output t, Output target) {
  Output grow = b.Op("Maximum", {b.Sub(target, b.Shape(t)), b.ScalarInt32(0)});
  Output paddings =
      b.Op("Pack", {GradInput::List({b.ZerosLike(grow), grow})}, {{"axis", AttrOfInt(1)}});
  Output padded = b.Op("Pad", {t, paddings});
  return b.Op("Slice", {padded, b.ZerosLike(target), target});
}

// fft_length's last entry, an int32 scalar.
Output LastLength(GraphBuilder& b, Output fft_length, int rank) {
  return b.Op("GatherV2", {fft_length, b.ScalarInt32(rank - 1), b.ScalarInt32(0)});
}

// The product of fft_length (the number of points transformed), as `dtype`.
Output PointCount(GraphBuilder& b, Output fft_length, DataType dtype) {
  return b.Cast(b.Op("Prod", {fft_length, b.ScalarInt32(0)}), dtype);
}

Status ComplexGrad(GradientContext& ctx) {
  Output g = ctx.grad(0);
  auto [gr, gi] = ctx.ReduceForBroadcast(RealPart(ctx, g), ctx.input(0), ImagPart(ctx, g),
                                         ctx.input(1));
  ctx.SetInputGrad(0, gr);
  ctx.SetInputGrad(1, gi);
  return ctx.status();
}

Status RealGrad(GradientContext& ctx) {
  Output g = ctx.grad(0);
  ctx.SetInputGrad(0, MakeComplex(ctx, g, ctx.ScalarLike(g, 0.0)));
  return ctx.status();
}

Status ImagGrad(GradientContext& ctx) {
  Output g = ctx.grad(0);
  ctx.SetInputGrad(0, MakeComplex(ctx, ctx.ScalarLike(g, 0.0), g));
  return ctx.status();
}

// TensorFlow: -complex(g, 0) / complex(im, re) = complex(-g * im, g * re) / |x|^2.
Status AngleGrad(GradientContext& ctx) {
  Output g = ctx.grad(0), x = ctx.input(0);
  Output re = RealPart(ctx, x), im = ImagPart(ctx, x);
  Output norm = ctx.Add(ctx.Square(re), ctx.Square(im));
  ctx.SetInputGrad(0, MakeComplex(ctx, ctx.Div(ctx.Neg(ctx.Mul(g, im)), norm),
                                  ctx.Div(ctx.Mul(g, re), norm)));
  return ctx.status();
}

// TensorFlow: div_no_nan(complex(g, 0) * x, complex(|x|, 0)): g * x / |x|, 0 where x is 0.
Status ComplexAbsGrad(GradientContext& ctx) {
  Output g = ctx.grad(0), x = ctx.input(0), y = ctx.output(0);
  ctx.SetInputGrad(0, MakeComplex(ctx, ctx.Op("DivNoNan", {ctx.Mul(g, RealPart(ctx, x)), y}),
                                  ctx.Op("DivNoNan", {ctx.Mul(g, ImagPart(ctx, x)), y})));
  return ctx.status();
}

Status ConjGrad(GradientContext& ctx) {
  ctx.SetInputGrad(0, ConjOf(ctx, ctx.grad(0)));
  return ctx.status();
}

Status ConjugateTransposeGrad(GradientContext& ctx) {
  Output inverse = ctx.Op("InvertPermutation", {ctx.input(1)});
  ctx.SetInputGrad(0, ctx.Op("ConjugateTranspose", {ctx.grad(0), inverse}));
  return ctx.status();
}

// FFT's gradient is conj(FFT(conj(g))) and IFFT's conj(IFFT(conj(g))): see the top.
GradientFunction ComplexFftGrad(std::string op) {
  return [op = std::move(op)](GradientContext& ctx) {
    ctx.SetInputGrad(0, ConjOf(ctx, ctx.Op(op, {ConjOf(ctx, ctx.grad(0))})));
    return ctx.status();
  };
}

GradientFunction RfftGrad(int rank, std::string ifft) {
  return [rank, ifft = std::move(ifft)](GradientContext& ctx) {
    Output x = ctx.input(0), fft_length = ctx.input(1), g = ctx.grad(0);
    // g zero-padded on its last dimension from fft_length[-1]/2+1 bins to fft_length[-1].
    Output g_shape = ctx.Shape(g);
    Output outer = ctx.Op("Slice", {g_shape, ctx.ConstInt32({0}),
                                    AsVector(ctx, ctx.Sub(ctx.Rank(g), ctx.ScalarInt32(1)))});
    Output full = ctx.Op("ConcatV2", {GradInput::List({outer, AsVector(ctx, LastLength(ctx, fft_length, rank))}),
                                      ctx.ScalarInt32(0)});
    Output spectrum = FitTo(ctx, g, full);
    Output adjoint = ctx.Mul(RealPart(ctx, ctx.Op(ifft, {spectrum})),
                             PointCount(ctx, fft_length, BaseType(x.dtype())));
    ctx.SetInputGrad(0, FitTo(ctx, adjoint, ctx.Shape(x)));
    return ctx.status();
  };
}

GradientFunction IrfftGrad(int rank, std::string rfft) {
  return [rank, rfft = std::move(rfft)](GradientContext& ctx) {
    Output x = ctx.input(0), fft_length = ctx.input(1), g = ctx.grad(0);
    const DataType real = BaseType(g.dtype());
    Output spectrum =
        ctx.Op(rfft, {g, fft_length}, {{"Tcomplex", AttrOfType(BaseType(x.dtype()))}});
    // mask / n over the fft_length[-1]/2+1 bins.
    Output last = LastLength(ctx, fft_length, rank);
    Output bins = ctx.Add(ctx.Op("FloorDiv", {last, ctx.ScalarInt32(2)}), ctx.ScalarInt32(1));
    Output j = ctx.Op("Range", {ctx.ScalarInt32(0), bins, ctx.ScalarInt32(1)});
    Output is_even = ctx.Cast(
        ctx.Op("Equal", {ctx.Op("FloorMod", {last, ctx.ScalarInt32(2)}), ctx.ScalarInt32(0)}), real);
    Output is_dc = ctx.Cast(ctx.Op("Equal", {j, ctx.ScalarInt32(0)}), real);
    Output is_nyquist = ctx.Mul(
        ctx.Cast(ctx.Op("Equal", {j, ctx.Sub(bins, ctx.ScalarInt32(1))}), real), is_even);
    Output mask = ctx.Sub(ctx.Sub(ctx.Scalar(real, 2.0), is_dc), is_nyquist);
    Output weight = ctx.Div(mask, PointCount(ctx, fft_length, real));
    Output grad = MakeComplex(ctx, ctx.Mul(RealPart(ctx, spectrum), weight),
                              ctx.Mul(ImagPart(ctx, spectrum), weight));
    ctx.SetInputGrad(0, FitTo(ctx, grad, ctx.Shape(x)));
    return ctx.status();
  };
}

}  // namespace

Status RegisterSpectralGradients(GradientFunctionRegistry& registry) {
  Status first;  // every entry is tried; the first clash is reported
  auto keep = [&first](Status s) {
    if (first.ok() && !s.ok()) first = std::move(s);
  };
  keep(registry.Register("Complex", ComplexGrad));
  keep(registry.Register("Real", RealGrad));
  keep(registry.Register("Imag", ImagGrad));
  keep(registry.Register("Angle", AngleGrad));
  keep(registry.Register("ComplexAbs", ComplexAbsGrad));
  keep(registry.Register("Conj", ConjGrad));
  keep(registry.Register("ConjugateTranspose", ConjugateTransposeGrad));
  const std::pair<int, std::string> ranks[] = {{1, ""}, {2, "2D"}, {3, "3D"}};
  for (const auto& [rank, suffix] : ranks) {
    keep(registry.Register("FFT" + suffix, ComplexFftGrad("FFT" + suffix)));
    keep(registry.Register("IFFT" + suffix, ComplexFftGrad("IFFT" + suffix)));
    // TensorFlow has none for RFFT3D / IRFFT3D; the same adjoints hold in 3-D.
    keep(registry.Register("RFFT" + suffix, RfftGrad(rank, "IFFT" + suffix)));
    keep(registry.Register("IRFFT" + suffix, IrfftGrad(rank, "RFFT" + suffix)));
  }
  return first;
}

}  // namespace tgraph
