// The optimizer update rules (TensorFlow's formulas), each written once over a Chunk so that
// the dense kernels (slices of the flat variables) and the sparse ones (rows addressed by
// indices) share them. A rule names its op's inputs in the dense op's order (the sparse op
// adds `indices` right after `grad`), says how many leading inputs are variables, where the
// gradient is, and reads its attrs; every other input is a scalar hyper-parameter. The
// resource-variable ops (kResourceOp, kResourceSparseOp: the variables are handles the core
// binds to their slots, and there is no output) run the same rule. A null name: no such op.
// Prepare folds the scalars into per-call coefficients once; Apply updates one chunk.
#pragma once

#include <cmath>

#include "training_common.h"

namespace tgraph_cpu::training {

// var -= alpha * delta
template <typename T>
struct GradientDescentRule {
  static constexpr const char* kDenseOp = "ApplyGradientDescent";
  static constexpr const char* kResourceOp = "ResourceApplyGradientDescent";
  static constexpr const char* kSparseOp = nullptr;
  static constexpr const char* kResourceSparseOp = nullptr;
  static constexpr const char* kInputs[] = {"var", "alpha", "delta"};
  static constexpr int kSlots = 1, kGrad = 2;
  static constexpr double kCost = 1.0;  // ns per element, for ParallelFor
  explicit GradientDescentRule(Construction&) {}

  struct Coeffs {
    T alpha;
  };
  Coeffs Prepare(const Scalars<T>& in) const { return {in[1]}; }
  void Apply(const Coeffs& k, const Chunk<T, kSlots>& c) const { c.s(0) -= c.g() * k.alpha; }
};

// accum = accum * momentum + grad
// var -= lr * accum          (use_nesterov: var -= lr * grad + lr * momentum * accum)
template <typename T>
struct MomentumRule {
  static constexpr const char* kDenseOp = "ApplyMomentum";
  static constexpr const char* kResourceOp = "ResourceApplyMomentum";
  static constexpr const char* kSparseOp = "SparseApplyMomentum";
  static constexpr const char* kResourceSparseOp = "ResourceSparseApplyMomentum";
  static constexpr const char* kInputs[] = {"var", "accum", "lr", "grad", "momentum"};
  static constexpr int kSlots = 2, kGrad = 3;
  static constexpr double kCost = 2.0;
  explicit MomentumRule(Construction& c) { c.GetAttr("use_nesterov", &nesterov); }
  bool nesterov = false;

  struct Coeffs {
    T lr, momentum;
  };
  Coeffs Prepare(const Scalars<T>& in) const { return {in[2], in[4]}; }
  void Apply(const Coeffs& k, const Chunk<T, kSlots>& c) const {
    auto var = c.s(0), accum = c.s(1);
    auto grad = c.g();
    accum = accum * k.momentum + grad;
    if (nesterov) {
      var -= grad * k.lr + accum * (k.momentum * k.lr);
    } else {
      var -= accum * k.lr;
    }
  }
};

// lr_t = lr * sqrt(1 - beta2_power) / (1 - beta1_power)
// m += (grad - m) * (1 - beta1);  v += (grad^2 - v) * (1 - beta2)
// var -= lr_t * m / (sqrt(v) + epsilon)     (use_nesterov: m -> beta1 * m + (1 - beta1) * grad)
template <typename T>
struct AdamRule {
  static constexpr const char* kDenseOp = "ApplyAdam";
  static constexpr const char* kResourceOp = "ResourceApplyAdam";
  static constexpr const char* kSparseOp = nullptr;
  static constexpr const char* kResourceSparseOp = nullptr;
  static constexpr const char* kInputs[] = {"var",  "m",     "v",     "beta1_power", "beta2_power",
                                            "lr",   "beta1", "beta2", "epsilon",     "grad"};
  static constexpr int kSlots = 3, kGrad = 9;
  static constexpr double kCost = 8.0;
  explicit AdamRule(Construction& c) { c.GetAttr("use_nesterov", &nesterov); }
  bool nesterov = false;

  struct Coeffs {
    T lr_t, beta1, beta2, epsilon;
  };
  Coeffs Prepare(const Scalars<T>& in) const {
    const T one(1);
    return {in[5] * std::sqrt(one - in[4]) / (one - in[3]), in[6], in[7], in[8]};
  }
  void Apply(const Coeffs& k, const Chunk<T, kSlots>& c) const {
    auto var = c.s(0), m = c.s(1), v = c.s(2);
    auto grad = c.g();
    const T one(1);
    m += (grad - m) * (one - k.beta1);
    v += (grad.square() - v) * (one - k.beta2);
    if (nesterov) {
      var -= (grad * (one - k.beta1) + m * k.beta1) * k.lr_t / (v.sqrt() + k.epsilon);
    } else {
      var -= m * k.lr_t / (v.sqrt() + k.epsilon);
    }
  }
};

// ms += (grad^2 - ms) * (1 - rho)
// mom = mom * momentum + lr * grad / sqrt(ms + epsilon);  var -= mom
template <typename T>
struct RMSPropRule {
  static constexpr const char* kDenseOp = "ApplyRMSProp";
  static constexpr const char* kResourceOp = "ResourceApplyRMSProp";
  static constexpr const char* kSparseOp = "SparseApplyRMSProp";
  static constexpr const char* kResourceSparseOp = "ResourceSparseApplyRMSProp";
  static constexpr const char* kInputs[] = {"var", "ms",       "mom",     "lr",
                                            "rho", "momentum", "epsilon", "grad"};
  static constexpr int kSlots = 3, kGrad = 7;
  static constexpr double kCost = 6.0;
  explicit RMSPropRule(Construction&) {}

  struct Coeffs {
    T lr, rho, momentum, epsilon;
  };
  Coeffs Prepare(const Scalars<T>& in) const { return {in[3], in[4], in[5], in[6]}; }
  void Apply(const Coeffs& k, const Chunk<T, kSlots>& c) const {
    auto var = c.s(0), ms = c.s(1), mom = c.s(2);
    auto grad = c.g();
    ms += (grad.square() - ms) * (T(1) - k.rho);
    mom = mom * k.momentum + grad * k.lr / (ms + k.epsilon).sqrt();
    var -= mom;
  }
};

// mg += (grad - mg) * (1 - rho);  ms += (grad^2 - ms) * (1 - rho)
// mom = mom * momentum + lr * grad / sqrt(ms - mg^2 + epsilon);  var -= mom
template <typename T>
struct CenteredRMSPropRule {
  static constexpr const char* kDenseOp = "ApplyCenteredRMSProp";
  static constexpr const char* kResourceOp = "ResourceApplyCenteredRMSProp";
  static constexpr const char* kSparseOp = "SparseApplyCenteredRMSProp";
  static constexpr const char* kResourceSparseOp = "ResourceSparseApplyCenteredRMSProp";
  static constexpr const char* kInputs[] = {"var", "mg",       "ms",      "mom", "lr",
                                            "rho", "momentum", "epsilon", "grad"};
  static constexpr int kSlots = 4, kGrad = 8;
  static constexpr double kCost = 8.0;
  explicit CenteredRMSPropRule(Construction&) {}

  struct Coeffs {
    T lr, rho, momentum, epsilon;
  };
  Coeffs Prepare(const Scalars<T>& in) const { return {in[4], in[5], in[6], in[7]}; }
  void Apply(const Coeffs& k, const Chunk<T, kSlots>& c) const {
    auto var = c.s(0), mg = c.s(1), ms = c.s(2), mom = c.s(3);
    auto grad = c.g();
    const T decay = T(1) - k.rho;
    ms += (grad.square() - ms) * decay;
    mg += (grad - mg) * decay;
    mom = mom * k.momentum + grad * k.lr / (ms - mg.square() + k.epsilon).sqrt();
    var -= mom;
  }
};

// accum += grad^2 (when update_slots);  var -= lr * grad / sqrt(accum)
template <typename T>
struct AdagradRule {
  static constexpr const char* kDenseOp = "ApplyAdagrad";
  static constexpr const char* kResourceOp = "ResourceApplyAdagrad";
  static constexpr const char* kSparseOp = "SparseApplyAdagrad";
  static constexpr const char* kResourceSparseOp = "ResourceSparseApplyAdagrad";
  static constexpr const char* kInputs[] = {"var", "accum", "lr", "grad"};
  static constexpr int kSlots = 2, kGrad = 3;
  static constexpr double kCost = 4.0;
  explicit AdagradRule(Construction& c) { c.GetAttr("update_slots", &update_slots); }
  bool update_slots = true;

  struct Coeffs {
    T lr;
  };
  Coeffs Prepare(const Scalars<T>& in) const { return {in[2]}; }
  void Apply(const Coeffs& k, const Chunk<T, kSlots>& c) const {
    auto var = c.s(0), accum = c.s(1);
    auto grad = c.g();
    if (update_slots) accum += grad.square();
    var -= grad * k.lr / accum.sqrt();
  }
};

// Keras' SGD with momentum (resource variables only):
// accum = accum * momentum - lr * grad
// var += accum               (use_nesterov: var += accum * momentum - lr * grad)
template <typename T>
struct KerasMomentumRule {
  static constexpr const char* kDenseOp = nullptr;
  static constexpr const char* kResourceOp = "ResourceApplyKerasMomentum";
  static constexpr const char* kSparseOp = nullptr;
  static constexpr const char* kResourceSparseOp = "ResourceSparseApplyKerasMomentum";
  static constexpr const char* kInputs[] = {"var", "accum", "lr", "grad", "momentum"};
  static constexpr int kSlots = 2, kGrad = 3;
  static constexpr double kCost = 2.0;
  explicit KerasMomentumRule(Construction& c) { c.GetAttr("use_nesterov", &nesterov); }
  bool nesterov = false;

  struct Coeffs {
    T lr, momentum;
  };
  Coeffs Prepare(const Scalars<T>& in) const { return {in[2], in[4]}; }
  void Apply(const Coeffs& k, const Chunk<T, kSlots>& c) const {
    auto var = c.s(0), accum = c.s(1);
    auto grad = c.g();
    accum = accum * k.momentum - grad * k.lr;
    if (nesterov) {
      var += accum * k.momentum - grad * k.lr;
    } else {
      var += accum;
    }
  }
};

// Adagrad with epsilon (Keras' Adagrad; resource variables only):
// accum += grad^2 (when update_slots);  var -= lr * grad / (sqrt(accum) + epsilon)
template <typename T>
struct AdagradV2Rule {
  static constexpr const char* kDenseOp = nullptr;
  static constexpr const char* kResourceOp = "ResourceApplyAdagradV2";
  static constexpr const char* kSparseOp = nullptr;
  static constexpr const char* kResourceSparseOp = "ResourceSparseApplyAdagradV2";
  static constexpr const char* kInputs[] = {"var", "accum", "lr", "epsilon", "grad"};
  static constexpr int kSlots = 2, kGrad = 4;
  static constexpr double kCost = 4.0;
  explicit AdagradV2Rule(Construction& c) { c.GetAttr("update_slots", &update_slots); }
  bool update_slots = true;

  struct Coeffs {
    T lr, epsilon;
  };
  Coeffs Prepare(const Scalars<T>& in) const { return {in[2], in[3]}; }
  void Apply(const Coeffs& k, const Chunk<T, kSlots>& c) const {
    auto var = c.s(0), accum = c.s(1);
    auto grad = c.g();
    if (update_slots) accum += grad.square();
    var -= grad * k.lr / (accum.sqrt() + k.epsilon);
  }
};

// Adadelta (resource variables only):
// accum = accum * rho + grad^2 * (1 - rho)
// update = sqrt(accum_update + epsilon) / sqrt(accum + epsilon) * grad;  var -= lr * update
// accum_update = accum_update * rho + update^2 * (1 - rho)
template <typename T>
struct AdadeltaRule {
  static constexpr const char* kDenseOp = nullptr;
  static constexpr const char* kResourceOp = "ResourceApplyAdadelta";
  static constexpr const char* kSparseOp = nullptr;
  static constexpr const char* kResourceSparseOp = "ResourceSparseApplyAdadelta";
  static constexpr const char* kInputs[] = {"var", "accum", "accum_update", "lr", "rho", "epsilon", "grad"};
  static constexpr int kSlots = 3, kGrad = 6;
  static constexpr double kCost = 8.0;
  explicit AdadeltaRule(Construction&) {}

  struct Coeffs {
    T lr, rho, epsilon;
  };
  Coeffs Prepare(const Scalars<T>& in) const { return {in[3], in[4], in[5]}; }
  // Element by element: the update is used twice, and one pass keeps it in a register.
  void Apply(const Coeffs& k, const Chunk<T, kSlots>& c) const {
    T* var = c.slot[0];
    T* accum = c.slot[1];
    T* accum_update = c.slot[2];
    const T decay = T(1) - k.rho;
    for (int64_t i = 0; i < c.n; ++i) {
      const T g = c.grad[i];
      accum[i] = accum[i] * k.rho + g * g * decay;
      const T update = std::sqrt(accum_update[i] + k.epsilon) / std::sqrt(accum[i] + k.epsilon) * g;
      var[i] -= update * k.lr;
      accum_update[i] = accum_update[i] * k.rho + update * update * decay;
    }
  }
};

}  // namespace tgraph_cpu::training
