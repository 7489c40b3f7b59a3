// Complex numbers and discrete Fourier transforms, as audio and spectrogram models use them
// (tf.signal.stft, mel spectrograms) and some vision models: Complex, Real, Imag, Angle,
// ComplexAbs, Conj, ConjugateTranspose, and FFT / IFFT / RFFT / IRFFT in one, two and three
// dimensions (always the inner-most ones). Signatures, attrs, defaults and type lists are
// TensorFlow's.
#include <cstdint>
#include <string>
#include <vector>

#include "core/ops/standard_ops.h"

namespace tgraph {
namespace {

constexpr int64_t kUnknown = PartialShape::kUnknownDim;

// input: T (complex) -> output: Tout (real), element-wise.
OpDefBuilder ComplexToReal(const std::string& name, const std::string& in, const std::string& out,
                           const std::string& doc) {
  return OpDefBuilder(name)
      .Input(in + ": T").Output(out + ": Tout")
      .Attr("T: {complex64, complex128} = DT_COMPLEX64")
      .Attr("Tout: {float, double} = DT_FLOAT")
      .SetShapeFn(shape_fns::UnchangedShape)
      .Doc(doc);
}

// The FFT ops' input must have rank >= `rank` (they transform the inner-most dimensions).
Status NeedRank(InferenceContext& c, int rank) {
  const PartialShape& in = c.input_shape(0);
  if (in.known_rank() && in.rank() < rank) {
    return c.Error("the input must have rank of at least ", rank, ", got shape ", in.ToString());
  }
  return Status::OK();
}

// FFT, IFFT (and 2D, 3D): the input's shape.
Status ComplexFftShape(InferenceContext& c, int rank) {
  TG_RETURN_IF_ERROR(NeedRank(c, rank));
  c.set_output(0, c.input_shape(0));
  return Status::OK();
}

// RFFT / IRFFT (and 2D, 3D): the input's shape with its inner-most `rank` dimensions set by
// fft_length (the last one halved plus one for the forward transform), unknown when
// fft_length is not a constant.
Status RealFftShape(InferenceContext& c, int rank, bool forward) {
  TG_RETURN_IF_ERROR(NeedRank(c, rank));
  const PartialShape& len = c.input_shape(1);
  if (len.known_rank() && (len.rank() != 1 || (len.dim(0) >= 0 && len.dim(0) != rank))) {
    return c.Error("fft_length must be a vector of ", rank, " values, got shape ", len.ToString());
  }
  const PartialShape& in = c.input_shape(0);
  if (!in.known_rank()) {
    c.set_output(0, PartialShape::Unknown());
    return Status::OK();
  }
  std::vector<int64_t> dims = in.dims();
  const auto lengths = shape_fns::ConstInts(c, 1);
  if (lengths && static_cast<int>(lengths->size()) != rank) {
    return c.Error("fft_length must have ", rank, " values, got ", lengths->size());
  }
  const size_t first = dims.size() - static_cast<size_t>(rank);
  for (int i = 0; i < rank; ++i) {
    int64_t d = kUnknown;
    if (lengths) {
      d = (*lengths)[static_cast<size_t>(i)];
      if (d < 0) return c.Error("fft_length[", i, "] is negative: ", d);
      if (forward && i == rank - 1) d = d / 2 + 1;
    }
    dims[first + static_cast<size_t>(i)] = d;
  }
  c.set_output(0, PartialShape(std::move(dims)));
  return Status::OK();
}

// ConjugateTranspose: Transpose's shape (the permuted input dims when perm is a constant).
Status ConjugateTransposeShape(InferenceContext& c) {
  const PartialShape& in = c.input_shape(0);
  const PartialShape& perm_shape = c.input_shape(1);
  if (perm_shape.known_rank() && perm_shape.rank() != 1) {
    return c.Error("perm must be a vector, got shape ", perm_shape.ToString());
  }
  const auto perm = shape_fns::ConstInts(c, 1);
  if (!perm) {
    c.set_output(0, in.known_rank() ? PartialShape::UnknownOfRank(in.rank()) : in);
    return Status::OK();
  }
  const int64_t rank = static_cast<int64_t>(perm->size());
  if (in.known_rank() && in.rank() != rank) {
    return c.Error("perm has ", rank, " entries but the input ", in.ToString(), " has rank ",
                   in.rank());
  }
  std::vector<bool> seen(static_cast<size_t>(rank), false);
  std::vector<int64_t> out(static_cast<size_t>(rank), kUnknown);
  for (int64_t i = 0; i < rank; ++i) {
    const int64_t p = (*perm)[static_cast<size_t>(i)];
    if (p < 0 || p >= rank || seen[static_cast<size_t>(p)]) {
      return c.Error("perm ", PartialShape(*perm).ToString(), " is not a permutation");
    }
    seen[static_cast<size_t>(p)] = true;
    if (in.known_rank()) out[static_cast<size_t>(i)] = in.dim(static_cast<int>(p));
  }
  c.set_output(0, PartialShape(std::move(out)));
  return Status::OK();
}

OpDefBuilder ComplexFft(const std::string& name, int rank, const std::string& doc) {
  return OpDefBuilder(name)
      .Input("input: Tcomplex").Output("output: Tcomplex")
      .Attr("Tcomplex: {complex64, complex128} = DT_COMPLEX64")
      .SetShapeFn([rank](InferenceContext& c) { return ComplexFftShape(c, rank); })
      .Doc(doc);
}

OpDefBuilder Rfft(const std::string& name, int rank, const std::string& doc) {
  return OpDefBuilder(name)
      .Input("input: Treal").Input("fft_length: int32").Output("output: Tcomplex")
      .Attr("Treal: {float, double} = DT_FLOAT")
      .Attr("Tcomplex: {complex64, complex128} = DT_COMPLEX64")
      .SetShapeFn([rank](InferenceContext& c) { return RealFftShape(c, rank, true); })
      .Doc(doc);
}

OpDefBuilder Irfft(const std::string& name, int rank, const std::string& doc) {
  return OpDefBuilder(name)
      .Input("input: Tcomplex").Input("fft_length: int32").Output("output: Treal")
      .Attr("Treal: {float, double} = DT_FLOAT")
      .Attr("Tcomplex: {complex64, complex128} = DT_COMPLEX64")
      .SetShapeFn([rank](InferenceContext& c) { return RealFftShape(c, rank, false); })
      .Doc(doc);
}

}  // namespace

Status RegisterSpectralOps(OpRegistry* registry) {
  return RegisterOps(registry, {
      // ---- complex numbers ----
      OpDefBuilder("Complex")
          .Input("real: T").Input("imag: T").Output("out: Tout")
          .Attr("T: {float, double} = DT_FLOAT")
          .Attr("Tout: {complex64, complex128} = DT_COMPLEX64")
          .SetShapeFn(shape_fns::BroadcastBinaryOpShape)
          .Doc("real + imag * 1j, with broadcasting."),
      ComplexToReal("Real", "input", "output", "The real part of each element."),
      ComplexToReal("Imag", "input", "output", "The imaginary part of each element."),
      ComplexToReal("Angle", "input", "output",
                    "The argument of each element, atan2(imag, real), in [-pi, pi]."),
      ComplexToReal("ComplexAbs", "x", "y", "The magnitude of each element."),
      OpDefBuilder("Conj")
          .Input("input: T").Output("output: T")
          .Attr("T: {complex64, complex128, variant} = DT_COMPLEX64")
          .SetShapeFn(shape_fns::UnchangedShape)
          .Doc("The complex conjugate of each element."),
      OpDefBuilder("ConjugateTranspose")
          .Input("x: T").Input("perm: Tperm").Output("y: T")
          .Attr("T: type")
          .Attr("Tperm: {int32, int64} = DT_INT32")
          .SetShapeFn(ConjugateTransposeShape)
          .Doc("y[i...] = conj(x[perm applied to i...]): Transpose, conjugating complex values."),

      // ---- Fourier transforms over the inner-most 1, 2 or 3 dimensions ----
      ComplexFft("FFT", 1, "The discrete Fourier transform of the inner-most dimension."),
      ComplexFft("IFFT", 1, "The inverse DFT of the inner-most dimension (scaled by 1/n)."),
      ComplexFft("FFT2D", 2, "The 2-D DFT of the 2 inner-most dimensions."),
      ComplexFft("IFFT2D", 2, "The inverse 2-D DFT of the 2 inner-most dimensions."),
      ComplexFft("FFT3D", 3, "The 3-D DFT of the 3 inner-most dimensions."),
      ComplexFft("IFFT3D", 3, "The inverse 3-D DFT of the 3 inner-most dimensions."),
      Rfft("RFFT", 1,
           "The DFT of a real signal cropped or zero-padded to fft_length: the fft_length/2+1 "
           "unique bins."),
      Irfft("IRFFT", 1,
            "The real signal of fft_length samples whose DFT's unique bins are the input."),
      Rfft("RFFT2D", 2, "RFFT over the 2 inner-most dimensions."),
      Irfft("IRFFT2D", 2, "IRFFT over the 2 inner-most dimensions."),
      Rfft("RFFT3D", 3, "RFFT over the 3 inner-most dimensions."),
      Irfft("IRFFT3D", 3, "IRFFT over the 3 inner-most dimensions."),
  });
}

}  // namespace tgraph
