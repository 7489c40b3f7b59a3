// Discrete Fourier transforms over the inner-most 1, 2 or 3 dimensions: FFT / IFFT (complex to
// complex), RFFT (real to the fft_length/2+1 unique bins) and IRFFT (those bins back to a real
// signal), with TensorFlow's semantics: IFFT scales by 1/n; RFFT crops or zero-pads each
// transformed dimension of its input to fft_length; IRFFT crops or zero-pads its input to
// fft_length (fft_length/2+1 on the last dimension) and, as a real inverse transform, ignores
// the imaginary parts of the DC and Nyquist bins.
//
// A k-D transform is k passes of 1-D transforms, one per dimension, each over every line along
// that dimension (lines are gathered into a contiguous buffer, in parallel). The 1-D transforms
// are Eigen's (unsupported/Eigen/FFT, a mixed-radix kissfft: any length, no padding), always
// in double: one instantiation to compile (this file is compiled once per CPU variant), and
// complex64 results as accurate as TensorFlow's. IRFFT fills the bins its input omits with
// the conjugates Hermitian symmetry gives, runs the complex inverse and keeps the real part;
// taking the real part is what drops the DC and Nyquist bins' imaginary parts.
#include <unsupported/Eigen/FFT>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <string>
#include <vector>

#include "array_kernel_util.h"
#include "cpu_kernels.h"

namespace tgraph_cpu {
namespace {

using array_util::ShapeString;
using tgraph::plugin::Construction;
using tgraph::plugin::Context;
using tgraph::plugin::KernelBuilder;
using tgraph::plugin::TensorView;

int64_t Product(const std::vector<int64_t>& dims, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t i = begin; i < end; ++i) p *= dims[i];
  return p;
}

// In place: the 1-D DFT (or inverse DFT, scaled by 1/n) along each of the `k` inner-most
// dimensions of `data`, laid out row-major with `dims`.
template <typename R>
void TransformInner(Context& ctx, std::complex<R>* data, const std::vector<int64_t>& dims, int k,
                    bool inverse) {
  const size_t rank = dims.size();
  for (size_t axis = rank - static_cast<size_t>(k); axis < rank; ++axis) {
    const int64_t n = dims[axis];
    if (n <= 1) continue;  // a 1-point transform is the identity, forward and inverse
    const int64_t inner = Product(dims, axis + 1, rank);
    const int64_t lines = Product(dims, 0, axis) * inner;
    if (lines == 0) return;
    const double cost = 10.0 * static_cast<double>(n) * std::log2(static_cast<double>(n)) + 8.0 * n;
    ctx.ParallelFor(lines, cost, [&](int64_t begin, int64_t end) {
      // Eigen's FFT object caches plans and is not shared between threads.
      Eigen::FFT<double> fft;
      std::vector<std::complex<double>> in(static_cast<size_t>(n)), out(static_cast<size_t>(n));
      for (int64_t line = begin; line < end; ++line) {
        std::complex<R>* base = data + (line / inner) * n * inner + line % inner;
        for (int64_t j = 0; j < n; ++j) {
          in[static_cast<size_t>(j)] = std::complex<double>(base[j * inner]);
        }
        if (inverse) {
          fft.inv(out.data(), in.data(), n);
        } else {
          fft.fwd(out.data(), in.data(), n);
        }
        for (int64_t j = 0; j < n; ++j) {
          base[j * inner] = std::complex<R>(out[static_cast<size_t>(j)]);
        }
      }
    });
  }
}

// The input's rank is at least k (the transformed dimensions are the inner-most k).
bool CheckRank(Context& ctx, const TensorView& in, int k) {
  if (in.rank() < k) {
    ctx.Fail(TG_INVALID_ARGUMENT, "the input must have rank of at least " + std::to_string(k) +
                                      ", got shape " + ShapeString(in.dims()));
    return false;
  }
  return true;
}

// FFT, IFFT, FFT2D, IFFT2D, FFT3D, IFFT3D.
template <typename R>
class ComplexFftOp {
 public:
  explicit ComplexFftOp(Construction&, int k, bool inverse) : k_(k), inverse_(inverse) {}

  void Compute(Context& ctx) {
    const TensorView in = ctx.input(0);
    if (!CheckRank(ctx, in, k_)) return;
    const std::vector<int64_t> dims = in.dims();
    auto out = ctx.ForwardOrAllocateOutput(0, 0, dims);
    if (!ctx.ok()) return;
    const int64_t n = in.num_elements();
    if (n == 0) return;
    auto* y = out.template mutable_data<std::complex<R>>();
    const auto* x = in.template data<std::complex<R>>();
    if (x != y) std::copy(x, x + n, y);
    TransformInner(ctx, y, dims, k_, inverse_);
  }

 private:
  int k_;
  bool inverse_;
};

// fft_length: a vector of k non-negative values.
bool ReadFftLength(Context& ctx, int k, std::vector<int64_t>* lengths) {
  const TensorView t = ctx.input(1);
  if (t.rank() != 1 || t.dim(0) != k) {
    ctx.Fail(TG_INVALID_ARGUMENT, "fft_length must be a vector of " + std::to_string(k) +
                                      " values, got shape " + ShapeString(t.dims()));
    return false;
  }
  *lengths = array_util::IndexValues(t);
  for (int64_t v : *lengths) {
    if (v < 0) {
      ctx.Fail(TG_INVALID_ARGUMENT, "fft_length holds a negative length: " + std::to_string(v));
      return false;
    }
  }
  return true;
}

// Copies the row-major `src` (dims `from`) into the row-major `dst` (dims `to`, same rank),
// cropping or zero-filling each dimension; `dst` starts zeroed.
template <typename S, typename D>
void CopyCropped(Context& ctx, const S* src, const std::vector<int64_t>& from, D* dst,
                 const std::vector<int64_t>& to) {
  const size_t rank = to.size();
  const int64_t last = to[rank - 1], copy_last = std::min(last, from[rank - 1]);
  const int64_t rows = Product(to, 0, rank - 1);
  if (rows == 0 || copy_last == 0) return;
  ctx.ParallelFor(rows, static_cast<double>(copy_last), [&](int64_t begin, int64_t end) {
    for (int64_t row = begin; row < end; ++row) {
      int64_t rest = row, src_row = 0, src_stride = 1;
      bool inside = true;
      for (size_t k = rank - 1; k-- > 0;) {
        const int64_t c = rest % to[k];
        rest /= to[k];
        if (c >= from[k]) inside = false;
        src_row += c * src_stride;
        src_stride *= from[k];
      }
      if (!inside) continue;
      const S* s = src + src_row * from[rank - 1];
      D* d = dst + row * last;
      for (int64_t j = 0; j < copy_last; ++j) d[j] = D(s[j]);
    }
  });
}

// RFFT, RFFT2D, RFFT3D.
template <typename R>
class RfftOp {
 public:
  explicit RfftOp(Construction&, int k) : k_(k) {}

  void Compute(Context& ctx) {
    const TensorView in = ctx.input(0);
    std::vector<int64_t> lengths;
    if (!CheckRank(ctx, in, k_) || !ReadFftLength(ctx, k_, &lengths)) return;
    const std::vector<int64_t> in_dims = in.dims();
    const size_t rank = in_dims.size(), first = rank - static_cast<size_t>(k_);
    std::vector<int64_t> full = in_dims;
    for (int i = 0; i < k_; ++i) full[first + static_cast<size_t>(i)] = lengths[static_cast<size_t>(i)];
    std::vector<int64_t> out_dims = full;
    const int64_t bins = full[rank - 1] / 2 + 1;
    out_dims[rank - 1] = bins;
    auto out = ctx.AllocateOutput(0, out_dims);
    if (!ctx.ok()) return;
    const int64_t n_out = out.num_elements();
    if (n_out == 0) return;
    auto* y = out.template mutable_data<std::complex<R>>();
    const int64_t n_full = Product(full, 0, rank);
    if (n_full == 0) {  // fft_length 0 on the last dimension: one zero bin per line
      std::fill(y, y + n_out, std::complex<R>(0));
      return;
    }
    std::vector<std::complex<R>> buf(static_cast<size_t>(n_full));
    if (in.num_elements() > 0) CopyCropped(ctx, in.template data<R>(), in_dims, buf.data(), full);
    TransformInner(ctx, buf.data(), full, k_, /*inverse=*/false);
    const int64_t rows = n_out / bins, len = full[rank - 1];
    for (int64_t row = 0; row < rows; ++row) {
      std::copy(buf.data() + row * len, buf.data() + row * len + bins, y + row * bins);
    }
  }

 private:
  int k_;
};

// IRFFT, IRFFT2D, IRFFT3D.
template <typename R>
class IrfftOp {
 public:
  explicit IrfftOp(Construction&, int k) : k_(k) {}

  void Compute(Context& ctx) {
    const TensorView in = ctx.input(0);
    std::vector<int64_t> lengths;
    if (!CheckRank(ctx, in, k_) || !ReadFftLength(ctx, k_, &lengths)) return;
    const std::vector<int64_t> in_dims = in.dims();
    const size_t rank = in_dims.size(), first = rank - static_cast<size_t>(k_);
    std::vector<int64_t> full = in_dims;
    for (int i = 0; i < k_; ++i) full[first + static_cast<size_t>(i)] = lengths[static_cast<size_t>(i)];
    auto out = ctx.AllocateOutput(0, full);
    if (!ctx.ok()) return;
    const int64_t n = out.num_elements();
    if (n == 0) return;
    R* y = out.template mutable_data<R>();
    const int64_t len = full[rank - 1], bins = len / 2 + 1;
    // The unique bins: the input cropped or zero-padded to [..., f1, ..., fk/2+1].
    std::vector<int64_t> half = full;
    half[rank - 1] = bins;
    std::vector<std::complex<R>> given(static_cast<size_t>(Product(half, 0, rank)));
    if (in.num_elements() > 0) {
      CopyCropped(ctx, in.template data<std::complex<R>>(), in_dims, given.data(), half);
    }
    // The full spectrum: bin j >= bins of a line is the conjugate of bin len - j of the line
    // at the negated (mod f) indices of the other transformed dimensions.
    std::vector<std::complex<R>> buf(static_cast<size_t>(n));
    const int64_t rows = n / len;
    ctx.ParallelFor(rows, static_cast<double>(len), [&](int64_t begin, int64_t end) {
      for (int64_t row = begin; row < end; ++row) {
        std::complex<R>* d = buf.data() + row * len;
        std::copy(given.data() + row * bins, given.data() + row * bins + std::min(bins, len), d);
        if (bins >= len) continue;
        // The mirrored row: same batch index, each of the k-1 other transformed indices negated.
        int64_t rest = row, mirror = 0, stride = 1;
        for (size_t a = rank - 1; a-- > 0;) {
          const int64_t c = rest % full[a];
          rest /= full[a];
          const int64_t m = a >= first ? (full[a] - c) % full[a] : c;
          mirror += m * stride;
          stride *= full[a];
        }
        const std::complex<R>* s = given.data() + mirror * bins;
        for (int64_t j = bins; j < len; ++j) d[j] = std::conj(s[len - j]);
      }
    });
    TransformInner(ctx, buf.data(), full, k_, /*inverse=*/true);
    for (int64_t i = 0; i < n; ++i) y[i] = buf[static_cast<size_t>(i)].real();
  }

 private:
  int k_;
};

// The plugin constructs kernels from a Construction alone: the transform's rank and direction
// are template arguments of these.
template <typename R, int K, bool Inverse>
class ComplexFft : public ComplexFftOp<R> {
 public:
  explicit ComplexFft(Construction& c) : ComplexFftOp<R>(c, K, Inverse) {}
};
template <typename R, int K>
class Rfft : public RfftOp<R> {
 public:
  explicit Rfft(Construction& c) : RfftOp<R>(c, K) {}
};
template <typename R, int K>
class Irfft : public IrfftOp<R> {
 public:
  explicit Irfft(Construction& c) : IrfftOp<R>(c, K) {}
};

template <typename R, int K>
void RegisterRank(tgraph::plugin::Init& init, const std::string& suffix) {
  constexpr TG_DataType real = sizeof(R) == 4 ? TG_FLOAT : TG_DOUBLE;
  constexpr TG_DataType cplx = sizeof(R) == 4 ? TG_COMPLEX64 : TG_COMPLEX128;
  init.Kernel<ComplexFft<R, K, false>>(
      KernelBuilder("FFT" + suffix, "CPU").TypeConstraint("Tcomplex", cplx));
  init.Kernel<ComplexFft<R, K, true>>(
      KernelBuilder("IFFT" + suffix, "CPU").TypeConstraint("Tcomplex", cplx));
  init.Kernel<Rfft<R, K>>(KernelBuilder("RFFT" + suffix, "CPU")
                              .TypeConstraint("Treal", real)
                              .TypeConstraint("Tcomplex", cplx)
                              .HostMemory("fft_length"));
  init.Kernel<Irfft<R, K>>(KernelBuilder("IRFFT" + suffix, "CPU")
                               .TypeConstraint("Treal", real)
                               .TypeConstraint("Tcomplex", cplx)
                               .HostMemory("fft_length"));
}

template <typename R>
void RegisterFor(tgraph::plugin::Init& init) {
  RegisterRank<R, 1>(init, "");
  RegisterRank<R, 2>(init, "2D");
  RegisterRank<R, 3>(init, "3D");
}

}  // namespace

void RegisterFftKernels(tgraph::plugin::Init& init) {
  RegisterFor<float>(init);
  RegisterFor<double>(init);
}

}  // namespace tgraph_cpu
