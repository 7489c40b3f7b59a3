// Optimizer update kernels (Apply* and SparseApply*) through ref inputs, as the executor
// drives them: two successive steps of each op, checked against a plain scalar reference
// of TensorFlow's formula (written below, one element at a time), for float and double,
// both Nesterov settings, sparse updates with duplicate indices of both index types, the
// intra-op pool on big variables, use_locking, and the error paths.
#include <cmath>
#include <string>
#include <thread>
#include <vector>

#include "array_test_util.h"

namespace tgraph::testing {
namespace {

// ---- The reference: TensorFlow's update rules for one element, in double. ----

void MomentumElem(double& var, double& accum, double lr, double grad, double momentum,
                  bool nesterov) {
  accum = accum * momentum + grad;
  if (nesterov) {
    var -= grad * lr + accum * momentum * lr;
  } else {
    var -= lr * accum;
  }
}

void AdamElem(double& var, double& m, double& v, double beta1_power, double beta2_power,
              double lr, double beta1, double beta2, double epsilon, double grad, bool nesterov) {
  const double lr_t = lr * std::sqrt(1 - beta2_power) / (1 - beta1_power);
  m = m + (grad - m) * (1 - beta1);
  v = v + (grad * grad - v) * (1 - beta2);
  const double step = nesterov ? beta1 * m + (1 - beta1) * grad : m;
  var -= lr_t * step / (std::sqrt(v) + epsilon);
}

void RMSPropElem(double& var, double& ms, double& mom, double lr, double rho, double momentum,
                 double epsilon, double grad) {
  ms = ms + (grad * grad - ms) * (1 - rho);
  mom = mom * momentum + lr * grad / std::sqrt(ms + epsilon);
  var -= mom;
}

void CenteredRMSPropElem(double& var, double& mg, double& ms, double& mom, double lr,
                         double rho, double momentum, double epsilon, double grad) {
  mg = mg + (grad - mg) * (1 - rho);
  ms = ms + (grad * grad - ms) * (1 - rho);
  mom = mom * momentum + lr * grad / std::sqrt(ms - mg * mg + epsilon);
  var -= mom;
}

void AdagradElem(double& var, double& accum, double lr, double grad, bool update_slots) {
  if (update_slots) accum += grad * grad;
  var -= lr * grad / std::sqrt(accum);
}

// ---- Harness ----

template <typename T>
constexpr DataType kDtype = std::is_same_v<T, float> ? DT_FLOAT : DT_DOUBLE;

// `x` as the kernel sees it (rounded to T), so the reference starts from the same numbers.
template <typename T>
double Rounded(double x) {
  return static_cast<double>(static_cast<T>(x));
}

template <typename T>
Tensor Make(std::vector<int64_t> dims, const std::vector<double>& v) {
  std::vector<T> t;
  for (double x : v) t.push_back(static_cast<T>(x));
  return MakeTensor<T>(kDtype<T>, std::move(dims), t);
}

template <typename T>
Tensor Scalar(double v) {
  return Make<T>({}, {v});
}

template <typename T>
std::vector<double> AsDoubles(const Tensor& t) {
  std::vector<double> out;
  for (T x : Values<T>(t)) out.push_back(static_cast<double>(x));
  return out;
}

// The variables of one update op (var first), each in its own session slot.
template <typename T>
class Vars {
 public:
  Vars(std::vector<std::string> names, std::vector<int64_t> dims,
       std::vector<std::vector<double>> values)
      : dims_(std::move(dims)) {
    for (size_t i = 0; i < names.size(); ++i) {
      auto slot = std::make_unique<VariableSlot>();
      slot->name = names[i];
      slot->value = Make<T>(dims_, values[i]);
      slot->initialized = true;
      slots_.push_back(std::move(slot));
    }
  }
  std::vector<ArgIn> Args() const {
    std::vector<ArgIn> args;
    for (const auto& s : slots_) args.push_back(Ref(s.get(), Make<T>(dims_, Zeros())));
    return args;
  }
  // Variable i's value (what the reference starts from).
  std::vector<double> Get(size_t i) const { return AsDoubles<T>(slots_[i]->value); }
  VariableSlot* slot(size_t i) const { return slots_[i].get(); }
  const std::vector<int64_t>& dims() const { return dims_; }

 private:
  std::vector<double> Zeros() const {
    int64_t n = 1;
    for (int64_t d : dims_) n *= d;
    return std::vector<double>(static_cast<size_t>(n), 0.0);
  }
  std::vector<int64_t> dims_;
  std::vector<std::unique_ptr<VariableSlot>> slots_;
};

// Runs `op` over vars' refs followed by `rest`; the step must succeed and its ref output
// must be var's value.
template <typename T>
void Step(const std::string& op, const Vars<T>& vars, std::vector<ArgIn> rest, AttrMap attrs = {},
          ThreadPool* pool = nullptr) {
  std::vector<ArgIn> args = vars.Args();
  for (ArgIn& a : rest) args.push_back(std::move(a));
  OpRun r = RunArgs(op, std::move(args), std::move(attrs), true, pool);
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  ASSERT_EQ(r.outputs.size(), 1u);
  EXPECT_TRUE(r.outputs[0].Equals(vars.slot(0)->value));
}

template <typename T>
void ExpectClose(const std::vector<double>& actual, const std::vector<double>& expected,
                 const std::string& what) {
  const double tol = std::is_same_v<T, float> ? 2e-5 : 1e-12;
  ASSERT_EQ(actual.size(), expected.size()) << what;
  for (size_t i = 0; i < actual.size(); ++i) {
    EXPECT_NEAR(actual[i], expected[i], tol * std::max(1.0, std::fabs(expected[i])))
        << what << "[" << i << "]";
  }
}

template <typename T>
void ExpectVars(const Vars<T>& vars, const std::vector<std::vector<double>>& expected,
                const std::string& when) {
  for (size_t i = 0; i < expected.size(); ++i) {
    ExpectClose<T>(vars.Get(i), expected[i], when + " " + vars.slot(i)->name);
  }
}

AttrMap Nesterov(bool on) { return {{"use_nesterov", AttrOfBool(on)}}; }

template <typename T>
class TrainingTest : public ::testing::Test {};
using TrainingTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(TrainingTest, TrainingTypes);

// ---- Dense updates ----

TYPED_TEST(TrainingTest, ApplyGradientDescentTwoSteps) {
  using T = TypeParam;
  Vars<T> vars({"var"}, {2, 2}, {{1, 2, 3, 4}});
  Step<T>("ApplyGradientDescent", vars, {In(Scalar<T>(0.5)), In(Make<T>({2, 2}, {1, -2, 0.5, 4}))});
  ExpectVars(vars, {{0.5, 3, 2.75, 2}}, "step 1");
  Step<T>("ApplyGradientDescent", vars, {In(Scalar<T>(0.25)), In(Make<T>({2, 2}, {2, 2, 2, -2}))},
          {{"use_locking", AttrOfBool(true)}});
  ExpectVars(vars, {{0, 2.5, 2.25, 2.5}}, "step 2");
}

TYPED_TEST(TrainingTest, ApplyMomentumTwoSteps) {
  using T = TypeParam;
  // One step written out: accum = 0.9 * [0.1, 0.2] + [1, -1] = [1.09, -0.82];
  // var = [1, 2] - 0.1 * accum = [0.891, 2.082].
  Vars<T> first({"var", "accum"}, {2}, {{1, 2}, {0.1, 0.2}});
  Step<T>("ApplyMomentum", first,
          {In(Scalar<T>(0.1)), In(Make<T>({2}, {1, -1})), In(Scalar<T>(0.9))});
  ExpectVars(first, {{0.891, 2.082}, {1.09, -0.82}}, "written out");

  for (bool nesterov : {false, true}) {
    Vars<T> vars({"var", "accum"}, {2, 3}, {{1, -2, 0.5, 3, 0, -1}, {0.1, 0, -0.3, 0.2, 1, 0}});
    std::vector<double> var = vars.Get(0), accum = vars.Get(1);
    const std::vector<std::vector<double>> grads{{0.5, -1, 2, 0, 0.25, -3}, {1, 1, -1, 2, 0, 0.5}};
    const double lr = Rounded<T>(0.05), momentum = Rounded<T>(0.9);
    for (int step = 0; step < 2; ++step) {
      Step<T>("ApplyMomentum", vars,
              {In(Scalar<T>(lr)), In(Make<T>({2, 3}, grads[step])), In(Scalar<T>(momentum))},
              Nesterov(nesterov));
      for (size_t i = 0; i < var.size(); ++i) {
        MomentumElem(var[i], accum[i], lr, Rounded<T>(grads[step][i]), momentum, nesterov);
      }
      ExpectVars(vars, {var, accum},
                 "nesterov=" + std::to_string(nesterov) + " step " + std::to_string(step + 1));
    }
  }
}

TYPED_TEST(TrainingTest, ApplyAdamTwoSteps) {
  using T = TypeParam;
  for (bool nesterov : {false, true}) {
    Vars<T> vars({"var", "m", "v"}, {2, 2},
                 {{1, -2, 0.5, 3}, {0.1, 0, -0.2, 0.3}, {0.01, 0.2, 0, 0.5}});
    std::vector<double> var = vars.Get(0), m = vars.Get(1), v = vars.Get(2);
    const std::vector<std::vector<double>> grads{{0.1, -0.2, 0.3, -0.4}, {1, 2, -3, 0}};
    const double lr = Rounded<T>(0.01), b1 = Rounded<T>(0.9), b2 = Rounded<T>(0.999),
                 eps = Rounded<T>(1e-8);
    for (int step = 0; step < 2; ++step) {
      const double b1p = Rounded<T>(std::pow(0.9, step + 1)),
                   b2p = Rounded<T>(std::pow(0.999, step + 1));
      Step<T>("ApplyAdam", vars,
              {In(Scalar<T>(b1p)), In(Scalar<T>(b2p)), In(Scalar<T>(lr)), In(Scalar<T>(b1)),
               In(Scalar<T>(b2)), In(Scalar<T>(eps)), In(Make<T>({2, 2}, grads[step]))},
              Nesterov(nesterov));
      for (size_t i = 0; i < var.size(); ++i) {
        AdamElem(var[i], m[i], v[i], b1p, b2p, lr, b1, b2, eps, Rounded<T>(grads[step][i]),
                 nesterov);
      }
      ExpectVars(vars, {var, m, v},
                 "nesterov=" + std::to_string(nesterov) + " step " + std::to_string(step + 1));
    }
  }
}

TYPED_TEST(TrainingTest, ApplyRMSPropTwoSteps) {
  using T = TypeParam;
  Vars<T> vars({"var", "ms", "mom"}, {3}, {{1, -2, 0.5}, {0.5, 0, 1}, {0.1, -0.1, 0}});
  std::vector<double> var = vars.Get(0), ms = vars.Get(1), mom = vars.Get(2);
  const std::vector<std::vector<double>> grads{{0.5, -1, 2}, {1, 0, -0.5}};
  const double lr = Rounded<T>(0.01), rho = Rounded<T>(0.9), momentum = Rounded<T>(0.5),
               eps = Rounded<T>(1e-6);
  for (int step = 0; step < 2; ++step) {
    Step<T>("ApplyRMSProp", vars,
            {In(Scalar<T>(lr)), In(Scalar<T>(rho)), In(Scalar<T>(momentum)), In(Scalar<T>(eps)),
             In(Make<T>({3}, grads[step]))});
    for (size_t i = 0; i < var.size(); ++i) {
      RMSPropElem(var[i], ms[i], mom[i], lr, rho, momentum, eps, Rounded<T>(grads[step][i]));
    }
    ExpectVars(vars, {var, ms, mom}, "step " + std::to_string(step + 1));
  }
}

TYPED_TEST(TrainingTest, ApplyCenteredRMSPropTwoSteps) {
  using T = TypeParam;
  Vars<T> vars({"var", "mg", "ms", "mom"}, {2, 2},
               {{1, -2, 0.5, 0}, {0.1, 0, -0.2, 0}, {0.5, 0.1, 1, 0}, {0.1, -0.1, 0, 0}});
  std::vector<double> var = vars.Get(0), mg = vars.Get(1), ms = vars.Get(2), mom = vars.Get(3);
  const std::vector<std::vector<double>> grads{{0.5, -1, 2, 0.25}, {1, 0, -0.5, 3}};
  const double lr = Rounded<T>(0.02), rho = Rounded<T>(0.8), momentum = Rounded<T>(0.9),
               eps = Rounded<T>(1e-4);
  for (int step = 0; step < 2; ++step) {
    Step<T>("ApplyCenteredRMSProp", vars,
            {In(Scalar<T>(lr)), In(Scalar<T>(rho)), In(Scalar<T>(momentum)), In(Scalar<T>(eps)),
             In(Make<T>({2, 2}, grads[step]))});
    for (size_t i = 0; i < var.size(); ++i) {
      CenteredRMSPropElem(var[i], mg[i], ms[i], mom[i], lr, rho, momentum, eps,
                          Rounded<T>(grads[step][i]));
    }
    ExpectVars(vars, {var, mg, ms, mom}, "step " + std::to_string(step + 1));
  }
}

TYPED_TEST(TrainingTest, ApplyAdagradTwoSteps) {
  using T = TypeParam;
  // One step written out: accum = [1, 4] + [3, 0]^2 = [10, 4];
  // var = [1, 2] - 0.5 * [3, 0] / sqrt([10, 4]) = [1 - 1.5 / sqrt(10), 2].
  Vars<T> first({"var", "accum"}, {2}, {{1, 2}, {1, 4}});
  Step<T>("ApplyAdagrad", first, {In(Scalar<T>(0.5)), In(Make<T>({2}, {3, 0}))});
  ExpectVars(first, {{1 - 1.5 / std::sqrt(10.0), 2}, {10, 4}}, "written out");

  for (bool update_slots : {true, false}) {
    Vars<T> vars({"var", "accum"}, {2, 2}, {{1, -2, 0.5, 3}, {0.1, 1, 0.5, 2}});
    std::vector<double> var = vars.Get(0), accum = vars.Get(1);
    const std::vector<std::vector<double>> grads{{0.5, -1, 2, 0}, {1, 1, -1, 0.5}};
    const double lr = Rounded<T>(0.1);
    for (int step = 0; step < 2; ++step) {
      Step<T>("ApplyAdagrad", vars, {In(Scalar<T>(lr)), In(Make<T>({2, 2}, grads[step]))},
              {{"update_slots", AttrOfBool(update_slots)}});
      for (size_t i = 0; i < var.size(); ++i) {
        AdagradElem(var[i], accum[i], lr, Rounded<T>(grads[step][i]), update_slots);
      }
      ExpectVars(vars, {var, accum},
                 "update_slots=" + std::to_string(update_slots) + " step " +
                     std::to_string(step + 1));
    }
  }
}

// ---- Sparse updates: [4, 3] variables, grad rows addressed by indices with duplicates.
// Step 1 uses int32 indices {2, 0, 2}, step 2 int64 {1, 3, 1, 1}. ----

struct SparseStep {
  Tensor indices;
  std::vector<int64_t> rows;
  std::vector<double> grad;  // rows.size() x 3
};

template <typename T>
std::vector<SparseStep> SparseSteps() {
  return {{I32Vec({2, 0, 2}), {2, 0, 2}, {0.5, -1, 2, 1, 0.25, -0.5, -1, 3, 0.1}},
          {I64({4}, {1, 3, 1, 1}),
           {1, 3, 1, 1},
           {1, 0, -2, 0.5, 0.5, 0.5, -1, 2, 0, 3, -0.25, 1}}};
}

constexpr int64_t kRow = 3;

// Applies `elem(row element j, grad element)` for every (index, grad row) in order.
template <typename F>
void ReferenceRows(const SparseStep& s, F elem) {
  for (size_t i = 0; i < s.rows.size(); ++i) {
    for (int64_t j = 0; j < kRow; ++j) {
      elem(static_cast<size_t>(s.rows[i] * kRow + j), s.grad[i * kRow + static_cast<size_t>(j)]);
    }
  }
}

template <typename T>
Tensor GradOf(const SparseStep& s) {
  return Make<T>({static_cast<int64_t>(s.rows.size()), kRow}, s.grad);
}

const std::vector<double> kVar4x3{1, -2, 0.5, 3, 0, -1, 0.25, 2, -0.5, 1.5, -3, 4};

TYPED_TEST(TrainingTest, SparseApplyMomentumDuplicateIndices) {
  using T = TypeParam;
  for (bool nesterov : {false, true}) {
    Vars<T> vars({"var", "accum"}, {4, kRow},
                 {kVar4x3, {0.1, 0, -0.3, 0.2, 1, 0, 0, 0.5, 0.5, -1, 0, 0.25}});
    std::vector<double> var = vars.Get(0), accum = vars.Get(1);
    const double lr = Rounded<T>(0.05), momentum = Rounded<T>(0.9);
    for (const SparseStep& s : SparseSteps<T>()) {
      Step<T>("SparseApplyMomentum", vars,
              {In(Scalar<T>(lr)), In(GradOf<T>(s)), In(s.indices), In(Scalar<T>(momentum))},
              Nesterov(nesterov));
      ReferenceRows(s, [&](size_t e, double g) {
        MomentumElem(var[e], accum[e], lr, Rounded<T>(g), momentum, nesterov);
      });
      ExpectVars(vars, {var, accum}, "nesterov=" + std::to_string(nesterov));
    }
  }
}

TYPED_TEST(TrainingTest, SparseApplyAdagradDuplicateIndices) {
  using T = TypeParam;
  for (bool update_slots : {true, false}) {
    Vars<T> vars({"var", "accum"}, {4, kRow},
                 {kVar4x3, {0.1, 1, 0.5, 2, 1, 1, 0.3, 0.5, 0.5, 1, 2, 0.25}});
    std::vector<double> var = vars.Get(0), accum = vars.Get(1);
    const double lr = Rounded<T>(0.1);
    for (const SparseStep& s : SparseSteps<T>()) {
      Step<T>("SparseApplyAdagrad", vars, {In(Scalar<T>(lr)), In(GradOf<T>(s)), In(s.indices)},
              {{"update_slots", AttrOfBool(update_slots)}});
      ReferenceRows(s, [&](size_t e, double g) {
        AdagradElem(var[e], accum[e], lr, Rounded<T>(g), update_slots);
      });
      ExpectVars(vars, {var, accum}, "update_slots=" + std::to_string(update_slots));
    }
  }
}

TYPED_TEST(TrainingTest, SparseApplyRMSPropDuplicateIndices) {
  using T = TypeParam;
  Vars<T> vars({"var", "ms", "mom"}, {4, kRow},
               {kVar4x3, {0.5, 0, 1, 0.2, 0.1, 0, 1, 1, 0.5, 0, 0.3, 0.1},
                {0.1, -0.1, 0, 0, 0.2, 0, 0, 0, 0.5, -0.5, 0, 0}});
  std::vector<double> var = vars.Get(0), ms = vars.Get(1), mom = vars.Get(2);
  const double lr = Rounded<T>(0.01), rho = Rounded<T>(0.9), momentum = Rounded<T>(0.5),
               eps = Rounded<T>(1e-6);
  for (const SparseStep& s : SparseSteps<T>()) {
    Step<T>("SparseApplyRMSProp", vars,
            {In(Scalar<T>(lr)), In(Scalar<T>(rho)), In(Scalar<T>(momentum)), In(Scalar<T>(eps)),
             In(GradOf<T>(s)), In(s.indices)});
    ReferenceRows(s, [&](size_t e, double g) {
      RMSPropElem(var[e], ms[e], mom[e], lr, rho, momentum, eps, Rounded<T>(g));
    });
    ExpectVars(vars, {var, ms, mom}, "step");
  }
}

TYPED_TEST(TrainingTest, SparseApplyCenteredRMSPropDuplicateIndices) {
  using T = TypeParam;
  Vars<T> vars({"var", "mg", "ms", "mom"}, {4, kRow},
               {kVar4x3, {0.1, 0, -0.2, 0, 0, 0.1, 0, 0, 0, 0.3, 0, 0},
                {0.5, 0.1, 1, 0.2, 0.1, 0.2, 1, 1, 0.5, 0.4, 0.3, 0.1},
                {0.1, -0.1, 0, 0, 0.2, 0, 0, 0, 0.5, -0.5, 0, 0}});
  std::vector<double> var = vars.Get(0), mg = vars.Get(1), ms = vars.Get(2), mom = vars.Get(3);
  const double lr = Rounded<T>(0.02), rho = Rounded<T>(0.8), momentum = Rounded<T>(0.9),
               eps = Rounded<T>(1e-4);
  for (const SparseStep& s : SparseSteps<T>()) {
    Step<T>("SparseApplyCenteredRMSProp", vars,
            {In(Scalar<T>(lr)), In(Scalar<T>(rho)), In(Scalar<T>(momentum)), In(Scalar<T>(eps)),
             In(GradOf<T>(s)), In(s.indices)});
    ReferenceRows(s, [&](size_t e, double g) {
      CenteredRMSPropElem(var[e], mg[e], ms[e], mom[e], lr, rho, momentum, eps, Rounded<T>(g));
    });
    ExpectVars(vars, {var, mg, ms, mom}, "step");
  }
}

// ---- Big variables on a 4-thread pool: the split work gives the sequential result. ----

std::vector<double> Pattern(size_t n, double scale, double offset) {
  std::vector<double> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = scale * std::sin(0.37 * static_cast<double>(i)) + offset;
  return v;
}

// The dense kernels work in tiles of 2048 elements within each thread's range: a size of
// no multiple of it (and ranges that start inside a tile) must update every element once.
template <typename T>
void AdamOnABigVariableInParallel(const std::vector<int64_t>& dims) {
  size_t n = 1;
  for (int64_t d : dims) n *= static_cast<size_t>(d);
  Vars<T> vars({"var", "m", "v"}, dims,
               {Pattern(n, 1, 0), Pattern(n, 0.1, 0), Pattern(n, 0.01, 0.02)});
  std::vector<double> var = vars.Get(0), m = vars.Get(1), v = vars.Get(2);
  const double lr = Rounded<T>(0.001), b1 = Rounded<T>(0.9), b2 = Rounded<T>(0.999),
               eps = Rounded<T>(1e-8);
  for (int step = 0; step < 2; ++step) {
    const std::vector<double> grad = Pattern(n, 0.5, 0.1 * step);
    const double b1p = Rounded<T>(std::pow(0.9, step + 1)),
                 b2p = Rounded<T>(std::pow(0.999, step + 1));
    Step<T>("ApplyAdam", vars,
            {In(Scalar<T>(b1p)), In(Scalar<T>(b2p)), In(Scalar<T>(lr)), In(Scalar<T>(b1)),
             In(Scalar<T>(b2)), In(Scalar<T>(eps)), In(Make<T>(dims, grad))},
            Nesterov(step == 1), TestPool());
    for (size_t i = 0; i < n; ++i) {
      AdamElem(var[i], m[i], v[i], b1p, b2p, lr, b1, b2, eps, Rounded<T>(grad[i]), step == 1);
    }
    ExpectVars(vars, {var, m, v}, "step " + std::to_string(step + 1));
  }
}

TYPED_TEST(TrainingTest, ApplyAdamOnABigVariableInParallel) {
  AdamOnABigVariableInParallel<TypeParam>({784, 512});
}

TYPED_TEST(TrainingTest, ApplyAdamOnAnOddSizedVariableInParallel) {
  AdamOnABigVariableInParallel<TypeParam>({1001, 37});
}

TYPED_TEST(TrainingTest, SparseApplyMomentumOnABigVariableInParallel) {
  using T = TypeParam;
  const int64_t rows = 784, cols = 512;
  const size_t n = static_cast<size_t>(rows * cols);
  Vars<T> vars({"var", "accum"}, {rows, cols}, {Pattern(n, 1, 0), Pattern(n, 0.1, 0)});
  std::vector<double> var = vars.Get(0), accum = vars.Get(1);
  // 300 indices over 97 distinct rows: most rows are updated several times.
  std::vector<int64_t> idx;
  for (int64_t i = 0; i < 300; ++i) idx.push_back((i * 37) % 97 * 8);
  const std::vector<double> grad = Pattern(idx.size() * static_cast<size_t>(cols), 0.5, 0.05);
  const double lr = Rounded<T>(0.01), momentum = Rounded<T>(0.9);
  Step<T>("SparseApplyMomentum", vars,
          {In(Scalar<T>(lr)), In(Make<T>({static_cast<int64_t>(idx.size()), cols}, grad)),
           In(I64({static_cast<int64_t>(idx.size())}, idx)), In(Scalar<T>(momentum))},
          Nesterov(true), TestPool());
  for (size_t i = 0; i < idx.size(); ++i) {
    for (int64_t j = 0; j < cols; ++j) {
      const size_t e = static_cast<size_t>(idx[i] * cols + j);
      MomentumElem(var[e], accum[e], lr, Rounded<T>(grad[i * static_cast<size_t>(cols) +
                                                         static_cast<size_t>(j)]),
                   momentum, true);
    }
  }
  ExpectVars(vars, {var, accum}, "parallel");
}

// ---- use_locking ----

TEST(TrainingKernelTest, ConcurrentLockedUpdatesAreNotLost) {
  // accum += 1 and var -= accum on every step: after N steps accum = N and
  // var = -(1 + ... + N), whatever order the locked steps run in.
  Vars<float> vars({"var", "accum"}, {}, {{0}, {0}});
  std::vector<ArgIn> args = vars.Args();
  args.push_back(In(Scalar<float>(1)));
  args.push_back(In(Scalar<float>(1)));
  args.push_back(In(Scalar<float>(1)));
  KernelFixture f("ApplyMomentum", std::move(args), {{"use_locking", AttrOfBool(true)}});
  ASSERT_TRUE(f.status().ok()) << f.status().ToString();
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&f] {
      for (int i = 0; i < 200; ++i) ASSERT_TRUE(f.Run().status.ok());
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(Values<float>(vars.slot(1)->value), std::vector<float>{800});
  EXPECT_EQ(Values<float>(vars.slot(0)->value), std::vector<float>{-320400});
}

TEST(TrainingKernelTest, OneVariableAsTwoLockedInputsDoesNotDeadlock) {
  Vars<float> vars({"var"}, {2}, {{1, 2}});
  // var and accum are the same slot: accum = accum * 0 + grad = grad, then var -= 1 * var.
  OpRun r = RunArgs("ApplyMomentum",
                    {Ref(vars.slot(0), Make<float>({2}, {0, 0})),
                     Ref(vars.slot(0), Make<float>({2}, {0, 0})), In(Scalar<float>(1)),
                     In(Make<float>({2}, {3, 4})), In(Scalar<float>(0))},
                    {{"use_locking", AttrOfBool(true)}});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<float>(vars.slot(0)->value), (std::vector<float>{0, 0}));
}

// ---- Errors: each names the node and leaves every variable as it was. ----

TEST(TrainingKernelTest, DenseShapeErrors) {
  Vars<float> vars({"var", "accum"}, {2, 2}, {{1, 2, 3, 4}, {1, 1, 1, 1}});
  auto run = [&](Tensor lr, Tensor grad) {
    std::vector<ArgIn> args = vars.Args();
    args.push_back(In(std::move(lr)));
    args.push_back(In(std::move(grad)));
    args.push_back(In(Scalar<float>(0.9)));
    // Unknown static shapes: the kernel, not the shape function, must catch these.
    return RunArgs("ApplyMomentum", std::move(args), {}, false);
  };
  ExpectInvalid(run(Scalar<float>(0.1), Make<float>({3}, {1, 1, 1})).status,
                {"node", "var and grad do not have the same shape: [2,2] vs [3]"});
  ExpectInvalid(run(Make<float>({1}, {0.1}), Make<float>({2, 2}, {1, 1, 1, 1})).status,
                {"node", "lr is not a scalar: [1]"});
  // The session's accum holds [4] while the graph says [2,2].
  vars.slot(1)->value = Make<float>({4}, {1, 1, 1, 1});
  ExpectInvalid(run(Scalar<float>(0.1), Make<float>({2, 2}, {1, 1, 1, 1})).status,
                {"node", "var and accum do not have the same shape: [2,2] vs [4]"});
  EXPECT_EQ(vars.Get(0), (std::vector<double>{1, 2, 3, 4}));
  EXPECT_EQ(vars.Get(1), (std::vector<double>{1, 1, 1, 1}));
}

TEST(TrainingKernelTest, UninitializedSlotIsFailedPrecondition) {
  Vars<float> vars({"weights"}, {2}, {{1, 2}});
  VariableSlot accum;
  accum.name = "weights/Momentum";
  accum.initialized = false;
  OpRun r = RunArgs("ApplyMomentum",
                    {Ref(vars.slot(0), Make<float>({2}, {0, 0})),
                     Ref(&accum, Make<float>({2}, {0, 0})), In(Scalar<float>(0.1)),
                     In(Make<float>({2}, {1, 1})), In(Scalar<float>(0.9))});
  ExpectInvalid(r.status, {"uninitialized", "weights/Momentum"}, Code::kFailedPrecondition);
  EXPECT_EQ(vars.Get(0), (std::vector<double>{1, 2}));
  // With use_locking too (the locks are released on the failure path).
  r = RunArgs("ApplyAdagrad",
              {Ref(vars.slot(0), Make<float>({2}, {0, 0})), Ref(&accum, Make<float>({2}, {0, 0})),
               In(Scalar<float>(0.1)), In(Make<float>({2}, {1, 1}))},
              {{"use_locking", AttrOfBool(true)}});
  ExpectInvalid(r.status, {"uninitialized", "weights/Momentum"}, Code::kFailedPrecondition);
  EXPECT_EQ(vars.Get(0), (std::vector<double>{1, 2}));
}

TEST(TrainingKernelTest, SparseIndexAndShapeErrors) {
  Vars<float> vars({"var", "accum"}, {4, 2}, {{0, 1, 2, 3, 4, 5, 6, 7}, {1, 1, 1, 1, 1, 1, 1, 1}});
  const std::vector<double> var = vars.Get(0), accum = vars.Get(1);
  auto run = [&](Tensor grad, Tensor indices, bool known_shapes = true) {
    std::vector<ArgIn> args = vars.Args();
    args.push_back(In(Scalar<float>(0.1)));
    args.push_back(In(std::move(grad)));
    args.push_back(In(std::move(indices)));
    return RunArgs("SparseApplyAdagrad", std::move(args), {{"use_locking", AttrOfBool(true)}},
                   known_shapes);
  };
  // Row 1 comes first and is valid; it must not be written either.
  ExpectInvalid(run(Make<float>({2, 2}, {1, 1, 1, 1}), I32Vec({1, 4})).status,
                {"node", "indices[1] = 4 is not in [0, 4)"});
  ExpectInvalid(run(Make<float>({2, 2}, {1, 1, 1, 1}), I64({2}, {0, -1})).status,
                {"node", "indices[1] = -1 is not in [0, 4)"});
  ExpectInvalid(run(Make<float>({3, 2}, {1, 1, 1, 1, 1, 1}), I32Vec({1, 2}), false).status,
                {"node", "grad must have shape [len(indices)] + var.shape[1:] = [2,2]", "[3,2]"});
  ExpectInvalid(run(Make<float>({2, 3}, {1, 1, 1, 1, 1, 1}), I32Vec({1, 2}), false).status,
                {"node", "[2,2]", "[2,3]"});
  ExpectInvalid(run(Make<float>({2, 2}, {1, 1, 1, 1}), I32({2, 1}, {1, 2}), false).status,
                {"node", "indices must be one-dimensional", "[2,1]"});
  EXPECT_EQ(vars.Get(0), var);
  EXPECT_EQ(vars.Get(1), accum);
  // A scalar variable cannot be addressed by rows (the session holds a scalar, the graph [4,2]).
  Vars<float> scalar({"var", "accum"}, {}, {{1}, {1}});
  OpRun r = RunArgs("SparseApplyAdagrad",
                    {Ref(scalar.slot(0), Make<float>({4, 2}, std::vector<double>(8, 0))),
                     Ref(scalar.slot(1), Make<float>({4, 2}, std::vector<double>(8, 0))),
                     In(Scalar<float>(0.1)), In(Make<float>({1, 2}, {1, 1})), In(I32Vec({0}))});
  ExpectInvalid(r.status, {"node", "var must be at least 1 dimensional"});
  // No indices: nothing to do.
  Step<float>("SparseApplyAdagrad", vars,
              {In(Scalar<float>(0.1)), In(Make<float>({0, 2}, {})), In(I32({0}, {}))});
  EXPECT_EQ(vars.Get(0), var);
}

}  // namespace
}  // namespace tgraph::testing
