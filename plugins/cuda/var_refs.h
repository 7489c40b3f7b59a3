// The variables an optimizer update writes, as one object: ref inputs [0, count) fetched
// once each and, with use_locking, their mutexes held in one global order. Shared by the
// dense updates (state_kernels.cc) and the sparse ones (sparse_kernels.cc).
#pragma once

#include <algorithm>
#include <functional>
#include <vector>

#include "cuda_common.h"

namespace tgraph_cuda {

// Ref inputs [0, count): the variables an update writes. With `lock` (use_locking) each
// variable's mutex is held while this object lives, taken in the order of the variables'
// buffer addresses so that two updates locking overlapping sets cannot deadlock; a variable
// passed twice is locked and fetched once (the core's mutexes are not recursive).
class VarRefs {
 public:
  VarRefs(tgraph::plugin::Context& ctx, int count, bool lock)
      : ctx_(ctx), t_(static_cast<size_t>(count)) {
    std::vector<const void*> addr(t_.size());
    std::vector<int> first(t_.size());
    for (size_t i = 0; i < t_.size(); ++i) {
      addr[i] = ctx.input(static_cast<int>(i)).data<void>();
      first[i] = static_cast<int>(i);
      for (size_t j = 0; j < i && addr[i] != nullptr; ++j) {
        if (addr[j] == addr[i]) {
          first[i] = static_cast<int>(j);
          break;
        }
      }
    }
    if (lock) {
      for (size_t i = 0; i < t_.size(); ++i) {
        if (first[i] == static_cast<int>(i)) locked_.push_back(static_cast<int>(i));
      }
      std::sort(locked_.begin(), locked_.end(), [&](int a, int b) {
        const void* pa = addr[static_cast<size_t>(a)];
        const void* pb = addr[static_cast<size_t>(b)];
        return std::less<const void*>()(pa, pb) || (pa == pb && a < b);
      });
      for (int i : locked_) tgraph::plugin::Api()->lock_ref_input(ctx.raw(), i);
    }
    for (size_t i = 0; i < t_.size(); ++i) {
      if (first[i] != static_cast<int>(i)) {
        t_[i] = t_[static_cast<size_t>(first[i])];
        continue;
      }
      t_[i] = ctx.MutableRefInput(static_cast<int>(i));  // FAILED_PRECONDITION if uninitialized
      if (!ctx.ok()) return;
    }
    ok_ = true;
  }
  ~VarRefs() {
    for (size_t k = locked_.size(); k-- > 0;) {
      tgraph::plugin::Api()->unlock_ref_input(ctx_.raw(), locked_[k]);
    }
  }
  VarRefs(const VarRefs&) = delete;
  VarRefs& operator=(const VarRefs&) = delete;

  bool ok() const { return ok_; }
  float* data(int i) const { return DataOf<float>(t_[static_cast<size_t>(i)]); }
  std::vector<int64_t> dims(int i) const { return t_[static_cast<size_t>(i)].dims(); }

 private:
  tgraph::plugin::Context& ctx_;
  std::vector<tgraph::plugin::TensorMut> t_;
  std::vector<int> locked_;
  bool ok_ = false;
};

}  // namespace tgraph_cuda
