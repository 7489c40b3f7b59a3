// The variables an optimizer update writes, as one object: ref inputs [0, n) fetched once
// each and, with use_locking, their mutexes held in one global order. Shared by the dense
// updates (training_kernels.cc) and the sparse ones (sparse_kernels.cc).
#pragma once

#include <algorithm>
#include <functional>
#include <vector>

#include "cl_common.h"

namespace tgraph_opencl {

// The ref inputs [0, n) an update writes, fetched once each. With `lock` (use_locking) each
// distinct variable's mutex is held while this object lives, taken in the order of the
// variables' handles so that two updates locking overlapping sets cannot deadlock; a
// variable passed twice is locked once (the core's mutexes are not recursive).
class LockedRefs {
 public:
  LockedRefs(tgraph::plugin::Context& ctx, int n, bool lock) : ctx_(ctx) {
    std::vector<const void*> handle(static_cast<size_t>(n));
    std::vector<int> first(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) {
      const size_t k = static_cast<size_t>(i);
      handle[k] = tgraph::plugin::Api()->tensor_data(ctx.input(i).raw());
      first[k] = i;
      for (int j = 0; j < i && handle[k] != nullptr; ++j) {
        if (handle[static_cast<size_t>(j)] == handle[k]) {
          first[k] = j;
          break;
        }
      }
    }
    if (lock) {
      for (int i = 0; i < n; ++i) {
        if (first[static_cast<size_t>(i)] == i) locked_.push_back(i);
      }
      std::sort(locked_.begin(), locked_.end(), [&](int a, int b) {
        const void* ha = handle[static_cast<size_t>(a)];
        const void* hb = handle[static_cast<size_t>(b)];
        return std::less<const void*>()(ha, hb) || (ha == hb && a < b);
      });
      for (int i : locked_) tgraph::plugin::Api()->lock_ref_input(ctx.raw(), i);
    }
    refs_.resize(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) {
      const size_t k = static_cast<size_t>(i);
      if (first[k] != i) {
        refs_[k] = refs_[static_cast<size_t>(first[k])];
        continue;
      }
      refs_[k] = ctx.MutableRefInput(i);  // FAILED_PRECONDITION when uninitialized
      if (!ctx.ok()) return;
    }
    ok_ = true;
  }
  ~LockedRefs() {
    for (auto it = locked_.rbegin(); it != locked_.rend(); ++it) {
      tgraph::plugin::Api()->unlock_ref_input(ctx_.raw(), *it);
    }
  }
  LockedRefs(const LockedRefs&) = delete;
  LockedRefs& operator=(const LockedRefs&) = delete;

  bool ok() const { return ok_; }
  const tgraph::plugin::TensorMut& operator[](int i) const { return refs_[static_cast<size_t>(i)]; }

 private:
  tgraph::plugin::Context& ctx_;
  std::vector<tgraph::plugin::TensorMut> refs_;
  std::vector<int> locked_;
  bool ok_ = false;
};

}  // namespace tgraph_opencl
