// What the optimizer update kernels (training_dense_ops.cc, training_sparse_ops.cc) share:
// taking their variables (locked in one global order when use_locking), reading scalar
// hyper-parameters, and the contiguous pieces of every tensor that an update rule
// (training_rules.h) works on.
#pragma once

#include <Eigen/Core>
#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "array_kernel_util.h"
#include "cpu_kernels.h"

namespace tgraph_cpu {

void RegisterDenseTrainingKernels(tgraph::plugin::Init& init);   // training_dense_ops.cc
void RegisterSparseTrainingKernels(tgraph::plugin::Init& init);  // training_sparse_ops.cc

namespace training {

using tgraph::plugin::Construction;
using tgraph::plugin::Context;
using tgraph::plugin::TensorMut;
using tgraph::plugin::TensorView;

// The most inputs any update op has, not counting indices (ApplyAdam: 10).
constexpr int kMaxInputs = 10;

// Scalar hyper-parameters by their input position in the dense op (others unused).
template <typename T>
using Scalars = std::array<T, kMaxInputs>;

template <typename T>
using Vec = Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>>;
template <typename T>
using ConstVec = Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>>;

// `n` consecutive elements of each variable (var first) and the matching gradient elements:
// a slice of the flat tensors (dense ops) or one row (sparse ops).
template <typename T, int kSlots>
struct Chunk {
  std::array<T*, kSlots> slot;
  const T* grad;
  int64_t n;
  Vec<T> s(int k) const { return Vec<T>(slot[static_cast<size_t>(k)], n); }
  ConstVec<T> g() const { return ConstVec<T>(grad, n); }
};

// Ref inputs [0, N): the variables an update writes. With `lock` (use_locking) each
// variable's mutex is held while this object lives, taken in the order of the variables'
// buffer addresses so that two updates locking overlapping sets cannot deadlock. A variable
// passed twice (same buffer when the call started) is locked and fetched once: the core's
// mutexes are not recursive.
template <int N>
class VarRefs {
 public:
  VarRefs(Context& ctx, bool lock) : ctx_(ctx) {
    std::array<const void*, N> addr{};
    for (int i = 0; i < N; ++i) {
      addr[At(i)] = ctx.input(i).data<void>();
      first_[At(i)] = i;
      for (int j = 0; j < i && addr[At(i)] != nullptr; ++j) {
        if (addr[At(j)] == addr[At(i)]) {
          first_[At(i)] = j;
          break;
        }
      }
    }
    if (lock) {
      for (int i = 0; i < N; ++i) {
        if (first_[At(i)] == i) order_[At(num_locked_++)] = i;
      }
      // One variable needs no order (and GCC 12 -O3 warns on sorting a one-element array).
      if constexpr (N > 1) {
        std::sort(order_.begin(), order_.begin() + num_locked_, [&](int a, int b) {
          return std::less<const void*>()(addr[At(a)], addr[At(b)]) ||
                 (addr[At(a)] == addr[At(b)] && a < b);
        });
      }
      for (int k = 0; k < num_locked_; ++k) {
        tgraph::plugin::Api()->lock_ref_input(ctx.raw(), order_[At(k)]);
      }
    }
    for (int i = 0; i < N; ++i) {
      if (first_[At(i)] != i) {
        t_[At(i)] = t_[At(first_[At(i)])];
        continue;
      }
      t_[At(i)] = ctx.MutableRefInput(i);  // FAILED_PRECONDITION when uninitialized
      if (!ctx.ok()) return;
    }
    ok_ = true;
  }
  ~VarRefs() {
    for (int k = num_locked_; k-- > 0;) {
      tgraph::plugin::Api()->unlock_ref_input(ctx_.raw(), order_[At(k)]);
    }
  }
  VarRefs(const VarRefs&) = delete;
  VarRefs& operator=(const VarRefs&) = delete;

  bool ok() const { return ok_; }
  const TensorMut& operator[](int i) const { return t_[At(i)]; }

 private:
  static size_t At(int i) { return static_cast<size_t>(i); }
  Context& ctx_;
  std::array<TensorMut, N> t_{};
  std::array<int, N> first_{};
  std::array<int, N> order_{};
  int num_locked_ = 0;
  bool ok_ = false;
};

// Every variable must have var's shape (a session may hold values of other shapes than the
// graph says, after an Assign with validate_shape=false).
template <int N>
bool CheckSlotShapes(Context& ctx, const VarRefs<N>& refs, const char* const* names) {
  const std::vector<int64_t> var = refs[0].dims();
  for (int i = 1; i < N; ++i) {
    if (refs[i].dims() != var) {
      ctx.Fail(TG_INVALID_ARGUMENT, std::string("var and ") + names[i] +
                                        " do not have the same shape: " +
                                        array_util::ShapeString(var) + " vs " +
                                        array_util::ShapeString(refs[i].dims()));
      return false;
    }
  }
  return true;
}

// Input `i` (named `name`) must be a scalar; its value goes to *out.
template <typename T>
bool ReadScalar(Context& ctx, int i, const char* name, T* out) {
  TensorView t = ctx.input(i);
  if (t.rank() != 0) {
    ctx.Fail(TG_INVALID_ARGUMENT, std::string(name) + " is not a scalar: " +
                                      array_util::ShapeString(t.dims()));
    return false;
  }
  *out = t.data<T>()[0];
  return true;
}

}  // namespace training
}  // namespace tgraph_cpu
