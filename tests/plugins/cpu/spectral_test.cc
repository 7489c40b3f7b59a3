// CPU kernels of the complex-number ops and the Fourier transforms (complex_ops.cc,
// fft_ops.cc): FFT / IFFT / RFFT / IRFFT in 1, 2 and 3 dimensions against a naive DFT in
// double (with RFFT's cropping and zero-padding, IRFFT's Hermitian completion that ignores the
// DC and Nyquist bins' imaginary parts), Complex with broadcasting, Real, Imag, Angle,
// ComplexAbs, Conj, complex AddN and ConjugateTranspose on every dtype they are registered
// for; empty tensors; and bad inputs failing with the node's name.
// tests/interop/test_model_ops_spectral.py compares them with TensorFlow itself.
#include <cmath>
#include <complex>
#include <cstring>
#include <numbers>
#include <string>
#include <vector>

#include "array_test_util.h"
#include "core/graph/attr_value_util.h"

namespace tgraph::testing {
namespace {

using C = std::complex<double>;

std::string ShapeString(const Dims& dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i > 0) s += ',';
    s += std::to_string(dims[i]);
  }
  s += ']';
  return s;
}

DataType ComplexDt(DataType real) { return real == DT_DOUBLE ? DT_COMPLEX128 : DT_COMPLEX64; }

double Tol(DataType t) { return t == DT_FLOAT || t == DT_COMPLEX64 ? 2e-5 : 1e-11; }

Tensor RealTensor(DataType dt, const Dims& dims, const std::vector<double>& v) {
  Tensor t = Tensor::Allocate(dt, dims).value();
  for (size_t i = 0; i < v.size(); ++i) {
    if (dt == DT_FLOAT) t.flat<float>()[i] = static_cast<float>(v[i]);
    else t.flat<double>()[i] = v[i];
  }
  return t;
}

Tensor ComplexTensor(DataType dt, const Dims& dims, const std::vector<C>& v) {
  Tensor t = Tensor::Allocate(dt, dims).value();
  for (size_t i = 0; i < v.size(); ++i) {
    if (dt == DT_COMPLEX64) t.flat<std::complex<float>>()[i] = std::complex<float>(v[i]);
    else t.flat<std::complex<double>>()[i] = v[i];
  }
  return t;
}

std::vector<double> RealValues(const Tensor& t) {
  std::vector<double> v(static_cast<size_t>(t.NumElements()));
  for (size_t i = 0; i < v.size(); ++i) {
    v[i] = t.dtype() == DT_FLOAT ? t.flat<float>()[i] : t.flat<double>()[i];
  }
  return v;
}

std::vector<C> ComplexValues(const Tensor& t) {
  std::vector<C> v(static_cast<size_t>(t.NumElements()));
  for (size_t i = 0; i < v.size(); ++i) {
    v[i] = t.dtype() == DT_COMPLEX64 ? C(t.flat<std::complex<float>>()[i])
                                     : t.flat<std::complex<double>>()[i];
  }
  return v;
}

// Values the float types hold exactly enough: a fixed pseudo-random pattern.
std::vector<double> Pattern(int64_t n, double seed) {
  std::vector<double> v;
  for (int64_t i = 0; i < n; ++i) v.push_back(std::sin(1.3 * static_cast<double>(i) + seed) * 2.0);
  return v;
}

std::vector<C> ComplexPattern(int64_t n, double seed) {
  const std::vector<double> re = Pattern(n, seed), im = Pattern(n, seed + 0.7);
  std::vector<C> v;
  for (int64_t i = 0; i < n; ++i) v.push_back(C(re[static_cast<size_t>(i)], im[static_cast<size_t>(i)]));
  return v;
}

void ExpectNear(const std::vector<C>& got, const std::vector<C>& want, double tol,
                const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  double scale = 1.0;
  for (const C& w : want) scale = std::max(scale, std::abs(w));
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_NEAR(got[i].real(), want[i].real(), tol * scale) << what << " at " << i;
    EXPECT_NEAR(got[i].imag(), want[i].imag(), tol * scale) << what << " at " << i;
  }
}

void ExpectNear(const std::vector<double>& got, const std::vector<double>& want, double tol,
                const std::string& what) {
  std::vector<C> g(got.begin(), got.end()), w(want.begin(), want.end());
  ExpectNear(g, w, tol, what);
}

// ---- the naive reference ----

int64_t Count(const Dims& d, size_t begin = 0) {
  int64_t n = 1;
  for (size_t i = begin; i < d.size(); ++i) n *= d[i];
  return n;
}

// x (dims `from`) cropped or zero-padded to `to` (same rank).
std::vector<C> Fit(const std::vector<C>& x, const Dims& from, const Dims& to) {
  std::vector<C> out(static_cast<size_t>(Count(to)));
  for (int64_t e = 0; e < Count(to); ++e) {
    int64_t rest = e, src = 0, stride = 1;
    bool inside = true;
    for (size_t a = to.size(); a-- > 0;) {
      const int64_t c = rest % to[a];
      rest /= to[a];
      if (c >= from[a]) inside = false;
      src += c * stride;
      stride *= from[a];
    }
    if (inside) out[static_cast<size_t>(e)] = x[static_cast<size_t>(src)];
  }
  return out;
}

// The k-D DFT (sign -1) or inverse DFT (sign +1, scaled by 1/n) of the inner-most k dims,
// straight from the definition.
std::vector<C> NaiveDft(const std::vector<C>& x, const Dims& dims, int k, bool inverse) {
  const size_t rank = dims.size(), first = rank - static_cast<size_t>(k);
  const int64_t inner = Count(dims, first), batch = Count(dims) / std::max<int64_t>(inner, 1);
  std::vector<C> out(x.size());
  if (inner == 0) return out;
  const double sign = inverse ? 1.0 : -1.0;
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t o = 0; o < inner; ++o) {
      C sum = 0;
      for (int64_t i = 0; i < inner; ++i) {
        double phase = 0;
        int64_t ro = o, ri = i;
        for (size_t a = rank; a-- > first;) {
          const int64_t co = ro % dims[a], ci = ri % dims[a];
          ro /= dims[a];
          ri /= dims[a];
          phase += static_cast<double>(co * ci % dims[a]) / static_cast<double>(dims[a]);
        }
        sum += x[static_cast<size_t>(b * inner + i)] *
               std::polar(1.0, sign * 2 * std::numbers::pi * phase);
      }
      out[static_cast<size_t>(b * inner + o)] = inverse ? sum / static_cast<double>(inner) : sum;
    }
  }
  return out;
}

Dims WithInner(Dims dims, int k, const std::vector<int64_t>& inner) {
  for (int i = 0; i < k; ++i) dims[dims.size() - static_cast<size_t>(k - i)] = inner[static_cast<size_t>(i)];
  return dims;
}

OpRun RunFft(const std::string& op, const Tensor& x, const std::vector<int32_t>& lengths,
             DataType out_attr_type, const char* out_attr) {
  AttrMap attrs;
  if (out_attr != nullptr) attrs[out_attr] = AttrOfType(out_attr_type);
  return RunArgs(op, {In(x), Const(I32Vec(lengths))}, attrs);
}

const char* Suffix(int k) { return k == 1 ? "" : k == 2 ? "2D" : "3D"; }

// Shapes per rank: batch dims first, then the transformed ones (odd, even, prime, 1).
std::vector<Dims> ShapesFor(int k) {
  if (k == 1) return {{8}, {3, 7}, {2, 1}, {2, 12}};
  if (k == 2) return {{5, 6}, {2, 3, 4}, {1, 4, 1}};
  return {{2, 3, 4}, {2, 2, 3, 5}};
}

class SpectralTest : public ::testing::TestWithParam<DataType> {};

TEST_P(SpectralTest, ComplexTransformsMatchTheDefinition) {
  const DataType cdt = ComplexDt(GetParam());
  for (int k = 1; k <= 3; ++k) {
    for (const Dims& dims : ShapesFor(k)) {
      const std::vector<C> x = ComplexValues(ComplexTensor(cdt, dims, ComplexPattern(Count(dims), 0.3)));
      for (bool inverse : {false, true}) {
        const std::string op = std::string(inverse ? "IFFT" : "FFT") + Suffix(k);
        OpRun r = RunOp(op, {ComplexTensor(cdt, dims, x)});
        const std::string what = op + " " + DataTypeName(cdt) + " " + ShapeString(dims);
        ASSERT_TRUE(r.status.ok()) << what << ": " << r.status.ToString();
        EXPECT_EQ(r.outputs[0].dims(), dims) << what;
        EXPECT_EQ(r.outputs[0].dtype(), cdt) << what;
        ExpectNear(ComplexValues(r.outputs[0]), NaiveDft(x, dims, k, inverse), Tol(cdt) * 4, what);
      }
    }
  }
}

TEST_P(SpectralTest, RfftCropsPadsAndKeepsTheUniqueBins) {
  const DataType dt = GetParam(), cdt = ComplexDt(dt);
  struct Case {
    Dims dims;
    std::vector<int64_t> lengths;
  };
  const std::vector<Case> cases = {
      {{2, 8}, {8}},       {{3, 7}, {7}},        {{2, 6}, {4}},  // crop
      {{2, 5}, {8}},                                          // pad
      {{1, 4}, {1}},       {{4, 6, 5}, {6, 5}},  {{2, 3, 4}, {5, 3}},
      {{2, 3, 4}, {2, 6}}, {{2, 2, 3, 4}, {2, 3, 4}}, {{2, 3, 2, 3}, {4, 2, 5}}};
  for (const Case& c : cases) {
    const int k = static_cast<int>(c.lengths.size());
    const std::string op = std::string("RFFT") + Suffix(k);
    const std::vector<double> x = RealValues(RealTensor(dt, c.dims, Pattern(Count(c.dims), 1.1)));
    std::vector<int32_t> l32(c.lengths.begin(), c.lengths.end());
    OpRun r = RunFft(op, RealTensor(dt, c.dims, x), l32, cdt, "Tcomplex");
    const std::string what = op + " " + DataTypeName(dt) + " " + ShapeString(c.dims);
    ASSERT_TRUE(r.status.ok()) << what << ": " << r.status.ToString();
    const Dims full = WithInner(c.dims, k, c.lengths);
    std::vector<C> want = NaiveDft(Fit(std::vector<C>(x.begin(), x.end()), c.dims, full), full, k, false);
    Dims half = full;
    half.back() = full.back() / 2 + 1;
    want = Fit(want, full, half);
    EXPECT_EQ(r.outputs[0].dims(), half) << what;
    EXPECT_EQ(r.outputs[0].dtype(), cdt) << what;
    ExpectNear(ComplexValues(r.outputs[0]), want, Tol(dt) * 4, what);
  }
}

TEST_P(SpectralTest, IrfftCompletesTheSpectrumAndIgnoresEdgeImaginaryParts) {
  const DataType dt = GetParam(), cdt = ComplexDt(dt);
  struct Case {
    Dims dims;
    std::vector<int64_t> lengths;
  };
  const std::vector<Case> cases = {
      {{2, 5}, {8}},       {{3, 4}, {7}},       {{2, 6}, {4}},  // crop the bins
      {{2, 3}, {10}},                                         // pad the bins
      {{1, 1}, {1}},       {{2, 4, 3}, {4, 4}}, {{3, 4}, {5, 5}},
      {{2, 3, 4}, {2, 6}}, {{2, 2, 3, 3}, {2, 3, 4}}, {{1, 3, 2, 2}, {4, 2, 3}}};
  for (const Case& c : cases) {
    const int k = static_cast<int>(c.lengths.size());
    const std::string op = std::string("IRFFT") + Suffix(k);
    // Arbitrary bins: the DC and Nyquist bins have imaginary parts the transform must ignore.
    const std::vector<C> x = ComplexValues(ComplexTensor(cdt, c.dims, ComplexPattern(Count(c.dims), 2.2)));
    std::vector<int32_t> l32(c.lengths.begin(), c.lengths.end());
    OpRun r = RunFft(op, ComplexTensor(cdt, c.dims, x), l32, dt, "Treal");
    const std::string what = op + " " + DataTypeName(cdt) + " " + ShapeString(c.dims);
    ASSERT_TRUE(r.status.ok()) << what << ": " << r.status.ToString();
    const Dims full = WithInner(c.dims, k, c.lengths);
    Dims half = full;
    const int64_t len = full.back(), bins = len / 2 + 1;
    half.back() = bins;
    const std::vector<C> given = Fit(x, c.dims, half);
    // The Hermitian completion, element by element from the definition X[-k] = conj(X[k]).
    std::vector<C> spectrum(static_cast<size_t>(Count(full)));
    const size_t rank = full.size(), first = rank - static_cast<size_t>(k);
    for (int64_t e = 0; e < Count(full); ++e) {
      std::vector<int64_t> idx(rank);
      int64_t rest = e;
      for (size_t a = rank; a-- > 0;) {
        idx[a] = rest % full[a];
        rest /= full[a];
      }
      bool mirrored = idx[rank - 1] >= bins;
      if (mirrored) {
        for (size_t a = first; a < rank; ++a) idx[a] = (full[a] - idx[a]) % full[a];
      }
      int64_t src = 0;
      for (size_t a = 0; a < rank; ++a) src = src * half[a] + idx[a];
      const C v = given[static_cast<size_t>(src)];
      spectrum[static_cast<size_t>(e)] = mirrored ? std::conj(v) : v;
    }
    // The real part of the inverse: the DC / Nyquist imaginary parts only reach the imaginary
    // part (checked below on a 1-D case against the closed form).
    const std::vector<C> inv = NaiveDft(spectrum, full, k, true);
    std::vector<double> want;
    for (const C& v : inv) want.push_back(v.real());
    EXPECT_EQ(r.outputs[0].dims(), full) << what;
    EXPECT_EQ(r.outputs[0].dtype(), dt) << what;
    ExpectNear(RealValues(r.outputs[0]), want, Tol(dt) * 4, what);
  }
  // 1-D closed form, n = 6: x[t] = (Re X0 + 2 sum_{j=1,2} Re(X_j w^jt) + Re X3 (-1)^t) / 6.
  const std::vector<C> bins = {{1.0, 5.0}, {0.5, -1.0}, {-2.0, 0.25}, {3.0, -7.0}};
  OpRun r = RunFft("IRFFT", ComplexTensor(cdt, {4}, bins), {6}, dt, "Treal");
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  std::vector<double> want;
  for (int t = 0; t < 6; ++t) {
    double s = bins[0].real() + bins[3].real() * (t % 2 == 0 ? 1 : -1);
    for (int j = 1; j <= 2; ++j) s += 2 * (bins[static_cast<size_t>(j)] * std::polar(1.0, 2 * std::numbers::pi * j * t / 6)).real();
    want.push_back(s / 6);
  }
  ExpectNear(RealValues(r.outputs[0]), want, Tol(dt) * 4, "IRFFT closed form");
}

TEST_P(SpectralTest, RoundTrips) {
  const DataType dt = GetParam(), cdt = ComplexDt(dt);
  for (int k = 1; k <= 3; ++k) {
    const Dims dims = k == 1 ? Dims{3, 10} : k == 2 ? Dims{2, 5, 6} : Dims{2, 3, 4, 5};
    const std::vector<double> x = RealValues(RealTensor(dt, dims, Pattern(Count(dims), 0.9)));
    std::vector<int32_t> lengths(dims.end() - k, dims.end());
    OpRun f = RunFft(std::string("RFFT") + Suffix(k), RealTensor(dt, dims, x), lengths, cdt, "Tcomplex");
    ASSERT_TRUE(f.status.ok()) << f.status.ToString();
    OpRun b = RunFft(std::string("IRFFT") + Suffix(k), f.outputs[0], lengths, dt, "Treal");
    ASSERT_TRUE(b.status.ok()) << b.status.ToString();
    ExpectNear(RealValues(b.outputs[0]), x, Tol(dt) * 4, std::string("round trip ") + Suffix(k));
  }
}

TEST_P(SpectralTest, EmptyTensors) {
  const DataType dt = GetParam(), cdt = ComplexDt(dt);
  for (int k = 1; k <= 3; ++k) {
    Dims dims(static_cast<size_t>(k) + 1, 2);
    dims[0] = 0;
    for (const char* op : {"FFT", "IFFT"}) {
      OpRun r = RunOp(std::string(op) + Suffix(k), {ComplexTensor(cdt, dims, {})});
      ASSERT_TRUE(r.status.ok()) << r.status.ToString();
      EXPECT_EQ(r.outputs[0].dims(), dims);
    }
    std::vector<int32_t> lengths(static_cast<size_t>(k), 4);
    OpRun f = RunFft(std::string("RFFT") + Suffix(k), RealTensor(dt, dims, {}), lengths, cdt, "Tcomplex");
    ASSERT_TRUE(f.status.ok()) << f.status.ToString();
    EXPECT_EQ(f.outputs[0].NumElements(), 0);
    OpRun b = RunFft(std::string("IRFFT") + Suffix(k), ComplexTensor(cdt, dims, {}), lengths, dt, "Treal");
    ASSERT_TRUE(b.status.ok()) << b.status.ToString();
    EXPECT_EQ(b.outputs[0].NumElements(), 0);
  }
  // An empty signal zero-padded to 4 points: all-zero bins.
  OpRun f = RunFft("RFFT", RealTensor(dt, {3, 0}, {}), {4}, cdt, "Tcomplex");
  ASSERT_TRUE(f.status.ok()) << f.status.ToString();
  EXPECT_EQ(f.outputs[0].dims(), (Dims{3, 3}));
  for (const C& v : ComplexValues(f.outputs[0])) EXPECT_EQ(v, C(0));
  OpRun b = RunFft("IRFFT", ComplexTensor(cdt, {2, 0}, {}), {3}, dt, "Treal");
  ASSERT_TRUE(b.status.ok()) << b.status.ToString();
  EXPECT_EQ(b.outputs[0].dims(), (Dims{2, 3}));
  for (double v : RealValues(b.outputs[0])) EXPECT_EQ(v, 0.0);
}

TEST_P(SpectralTest, ComplexPartsAngleAbsConj) {
  const DataType dt = GetParam(), cdt = ComplexDt(dt);
  const std::vector<C> z = {{3, 4}, {-1, 0}, {0, -2}, {-0.5, -0.5}, {0, 0}, {1e-3, 2}};
  const Tensor zt = ComplexTensor(cdt, {2, 3}, z);
  const std::vector<C> zq = ComplexValues(zt);
  const AttrMap tout = {{"Tout", AttrOfType(dt)}};
  struct Part {
    const char* op;
    double (*f)(C);
  };
  const Part parts[] = {{"Real", [](C v) { return v.real(); }},
                        {"Imag", [](C v) { return v.imag(); }},
                        {"Angle", [](C v) { return std::arg(v); }},
                        {"ComplexAbs", [](C v) { return std::abs(v); }}};
  for (const Part& p : parts) {
    OpRun r = RunOp(p.op, {zt}, tout);
    ASSERT_TRUE(r.status.ok()) << p.op << ": " << r.status.ToString();
    EXPECT_EQ(r.outputs[0].dtype(), dt);
    EXPECT_EQ(r.outputs[0].dims(), (Dims{2, 3}));
    std::vector<double> want;
    for (const C& v : zq) want.push_back(p.f(v));
    ExpectNear(RealValues(r.outputs[0]), want, Tol(dt), p.op);
  }
  OpRun c = RunOp("Conj", {zt});
  ASSERT_TRUE(c.status.ok()) << c.status.ToString();
  std::vector<C> want;
  for (const C& v : zq) want.push_back(std::conj(v));
  ExpectNear(ComplexValues(c.outputs[0]), want, 0, "Conj");

  OpRun sum = RunArgs("AddN", {List({zt, zt, ComplexTensor(cdt, {2, 3}, ComplexPattern(6, 1))})});
  ASSERT_TRUE(sum.status.ok()) << sum.status.ToString();
  const std::vector<C> third = ComplexValues(ComplexTensor(cdt, {2, 3}, ComplexPattern(6, 1)));
  want.clear();
  for (size_t i = 0; i < zq.size(); ++i) want.push_back(2.0 * zq[i] + third[i]);
  ExpectNear(ComplexValues(sum.outputs[0]), want, Tol(dt), "AddN");
  OpRun bad = RunArgs("AddN", {List({zt, ComplexTensor(cdt, {6}, z)})}, {}, /*known_shapes=*/false);
  ExpectInvalid(bad.status, {"node", "same shape"});
}

TEST_P(SpectralTest, ComplexBroadcasts) {
  const DataType dt = GetParam(), cdt = ComplexDt(dt);
  const AttrMap tout = {{"Tout", AttrOfType(cdt)}};
  const std::vector<double> re = {1, 2, 3, 4, 5, 6}, im = {10, 20, 30};
  OpRun same = RunOp("Complex", {RealTensor(dt, {2, 3}, re), RealTensor(dt, {2, 3}, re)}, tout);
  ASSERT_TRUE(same.status.ok()) << same.status.ToString();
  std::vector<C> want;
  for (double v : re) want.push_back(C(v, v));
  ExpectNear(ComplexValues(same.outputs[0]), want, 0, "same shape");
  // [2, 3] with [3], [3] with [2, 1] and a scalar with [2, 3].
  OpRun row = RunOp("Complex", {RealTensor(dt, {2, 3}, re), RealTensor(dt, {3}, im)}, tout);
  ASSERT_TRUE(row.status.ok()) << row.status.ToString();
  want.clear();
  for (size_t i = 0; i < 6; ++i) want.push_back(C(re[i], im[i % 3]));
  ExpectNear(ComplexValues(row.outputs[0]), want, 0, "row");
  OpRun outer = RunOp("Complex", {RealTensor(dt, {3}, im), RealTensor(dt, {2, 1}, {7, 8})}, tout);
  ASSERT_TRUE(outer.status.ok()) << outer.status.ToString();
  EXPECT_EQ(outer.outputs[0].dims(), (Dims{2, 3}));
  want.clear();
  for (size_t i = 0; i < 6; ++i) want.push_back(C(im[i % 3], i < 3 ? 7 : 8));
  ExpectNear(ComplexValues(outer.outputs[0]), want, 0, "outer");
  OpRun scalar = RunOp("Complex", {RealTensor(dt, {}, {0.5}), RealTensor(dt, {2, 3}, re)}, tout);
  ASSERT_TRUE(scalar.status.ok()) << scalar.status.ToString();
  want.clear();
  for (double v : re) want.push_back(C(0.5, v));
  ExpectNear(ComplexValues(scalar.outputs[0]), want, 0, "scalar");
  OpRun empty = RunOp("Complex", {RealTensor(dt, {0, 3}, {}), RealTensor(dt, {3}, im)}, tout);
  ASSERT_TRUE(empty.status.ok()) << empty.status.ToString();
  EXPECT_EQ(empty.outputs[0].dims(), (Dims{0, 3}));
}

TEST_P(SpectralTest, BadInputsNameTheNode) {
  const DataType dt = GetParam(), cdt = ComplexDt(dt);
  // Once caught by the shape functions (static shapes), once by the kernels.
  for (bool known : {true, false}) {
    // Rank too small for the transform.
    ExpectInvalid(RunOp("FFT2D", {ComplexTensor(cdt, {4}, ComplexPattern(4, 0))}, {}, known).status,
                  {"node", "rank of at least 2"});
    ExpectInvalid(RunOp("IRFFT3D", {ComplexTensor(cdt, {2, 2}, ComplexPattern(4, 0)), I32Vec({2, 2, 2})},
                        {{"Treal", AttrOfType(dt)}}, known).status,
                  {"node", "rank of at least 3"});
    // fft_length of the wrong size.
    ExpectInvalid(RunOp("RFFT", {RealTensor(dt, {4}, {1, 2, 3, 4}), I32Vec({4, 4})},
                        {{"Tcomplex", AttrOfType(cdt)}}, known).status,
                  {"node", "fft_length"});
    // Shapes Complex cannot broadcast.
    ExpectInvalid(RunOp("Complex", {RealTensor(dt, {2, 3}, Pattern(6, 0)), RealTensor(dt, {2}, {1, 2})},
                        {{"Tout", AttrOfType(cdt)}}, known).status,
                  {"node"});
  }
  ExpectInvalid(RunOp("FFT", {ComplexTensor(cdt, {}, {C(1, 0)})}, {}, false).status, {"node", "rank"});
  ExpectInvalid(RunOp("IRFFT2D", {ComplexTensor(cdt, {2, 3}, ComplexPattern(6, 0)), I32Vec({2, -4})},
                      {{"Treal", AttrOfType(dt)}}, false).status,
                {"node", "negative"});
  ExpectInvalid(RunOp("Complex", {RealTensor(dt, {2, 3}, Pattern(6, 0)), RealTensor(dt, {2}, {1, 2})},
                      {{"Tout", AttrOfType(cdt)}}, false).status,
                {"node", "Incompatible shapes: [2,3] vs. [2]"});
}

INSTANTIATE_TEST_SUITE_P(Types, SpectralTest, ::testing::Values(DT_FLOAT, DT_DOUBLE),
                         [](const auto& info) { return std::string(DataTypeName(info.param)); });

// ---- ConjugateTranspose on every registered dtype ----

TEST(ConjugateTransposeTest, PermutesEveryDtypeAndConjugatesComplex) {
  const Dims dims = {2, 3, 4};
  const std::vector<int32_t> perm = {2, 0, 1};
  const Dims out_dims = {4, 2, 3};
  for (DataType dt : {DT_BOOL, DT_INT8, DT_UINT8, DT_INT16, DT_UINT16, DT_HALF, DT_BFLOAT16,
                      DT_FLOAT, DT_INT32, DT_UINT32, DT_DOUBLE, DT_INT64, DT_UINT64,
                      DT_COMPLEX64, DT_COMPLEX128}) {
    Tensor x = Tensor::Allocate(dt, dims).value();
    const size_t size = x.ByteSize() / static_cast<size_t>(x.NumElements());
    auto* bytes = static_cast<unsigned char*>(x.data());
    for (size_t i = 0; i < x.ByteSize(); ++i) bytes[i] = static_cast<unsigned char>(i * 7 + 1);
    if (dt == DT_BOOL) {
      for (int64_t i = 0; i < x.NumElements(); ++i) bytes[i] = (i % 3) == 0;
    }
    for (DataType perm_dt : {DT_INT32, DT_INT64}) {
      Tensor p = perm_dt == DT_INT32 ? I32Vec(perm) : I64({3}, {2, 0, 1});
      OpRun r = RunOp("ConjugateTranspose", {x, p});
      const std::string what = DataTypeName(dt);
      ASSERT_TRUE(r.status.ok()) << what << ": " << r.status.ToString();
      ASSERT_EQ(r.outputs[0].dims(), out_dims) << what;
      const auto* got = static_cast<const unsigned char*>(r.outputs[0].data());
      for (int64_t a = 0; a < 4; ++a) {
        for (int64_t b = 0; b < 2; ++b) {
          for (int64_t c = 0; c < 3; ++c) {
            const int64_t out = (a * 2 + b) * 3 + c, in = (b * 3 + c) * 4 + a;
            if (dt == DT_COMPLEX64 || dt == DT_COMPLEX128) {
              const std::vector<C> xin = ComplexValues(x), yout = ComplexValues(r.outputs[0]);
              EXPECT_EQ(yout[static_cast<size_t>(out)], std::conj(xin[static_cast<size_t>(in)])) << what;
            } else {
              EXPECT_EQ(std::memcmp(got + out * static_cast<int64_t>(size),
                                    bytes + in * static_cast<int64_t>(size), size),
                        0)
                  << what << " at " << out;
            }
          }
        }
      }
    }
  }
  Tensor x = Tensor::Allocate(DT_FLOAT, dims).value();
  ExpectInvalid(RunOp("ConjugateTranspose", {x, I32Vec({0, 0, 1})}).status, {"node", "duplicated"});
  ExpectInvalid(RunOp("ConjugateTranspose", {x, I32Vec({0, 1})}).status, {"node", "size"});
  // An empty tensor.
  OpRun e = RunOp("ConjugateTranspose",
                  {Tensor::Allocate(DT_COMPLEX64, {0, 3}).value(), I32Vec({1, 0})});
  ASSERT_TRUE(e.status.ok()) << e.status.ToString();
  EXPECT_EQ(e.outputs[0].dims(), (Dims{3, 0}));
}

}  // namespace
}  // namespace tgraph::testing
