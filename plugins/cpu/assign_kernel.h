// Assign(ref, value) for every backend: the CPU plugin registers AssignKernel<its copy>, and
// the GPU plugins theirs (plugins/opencl/training_kernels.cc, plugins/cuda/state_kernels.cc),
// so all check shapes and adopt buffers by the same rules. Plugin-side code over
// tgraph/plugin.hpp only, like unique_kernel.h.
//
// When nobody else holds the value's buffer (a restored checkpoint tensor on its way from
// RestoreV2, an initializer's or an update's fresh output), the variable takes that buffer
// and nothing is copied (Context::ForwardInputToRefInput, plugin ABI 8), as TensorFlow's
// Assign forwards its value. The core decides: only this call holds the buffer (no later
// consumer, not fetched, fed, a constant's or another variable's), the dtype is a plain one,
// and the buffer is in the kernel's memory space (a device kernel's host-memory input never
// becomes a variable's in device memory). Otherwise `Copy` copies the value into the
// variable's buffer: the one it has for the same shape, a new one (in the kernel's memory
// space) for an uninitialized variable or, without validate_shape, a new shape.
//
// TensorFlow forwards only where it would otherwise allocate (an uninitialized variable, or
// one of another size) and copies into a variable of the same size; here a variable of the
// same shape adopts the buffer too, which saves the copy of every restore into an
// initialized session. The difference shows only to a reader that took the variable's value
// (its `/read` Identity) before the Assign and reads it after: it keeps the old bytes, as
// after an Assign that changes the shape (in both runtimes), where with a copy it would see
// the new ones -- an unordered read in TF1's own terms.
#pragma once

#include "array_kernel_util.h"
#include "tgraph/plugin.hpp"

namespace tgraph_cpu {

// Copy: default-constructible, `void operator()(Context&, const TensorMut& dst,
// const TensorView& src) const` copies src's elements into dst (same dims and dtype, in the
// kernel's memory space), failing the context on error.
template <typename Copy>
class AssignKernel {
 public:
  explicit AssignKernel(tgraph::plugin::Construction& c) {
    c.GetAttr("validate_shape", &validate_shape_);
    c.GetAttr("use_locking", &use_locking_);
  }

  void Compute(tgraph::plugin::Context& ctx) {
    const tgraph::plugin::TensorView value = ctx.input(1);
    {
      tgraph::plugin::Context::RefLock lock(ctx, 0, use_locking_);
      tgraph::plugin::TensorMut target;
      if (ctx.IsRefInitialized(0)) {
        tgraph::plugin::TensorMut current = ctx.MutableRefInput(0);
        if (!ctx.ok()) return;
        if (current.dims() == value.dims()) {
          target = current;  // same shape: write in place, unless the buffer is adopted
        } else if (validate_shape_) {
          ctx.Fail(TG_INVALID_ARGUMENT,
                   "Assign requires shapes of both tensors to match. lhs shape= " +
                       array_util::ShapeString(current.dims()) +
                       " rhs shape= " + array_util::ShapeString(value.dims()));
          return;
        }
      }
      if (!ctx.ForwardInputToRefInput(1, 0)) {
        if (!target.valid()) {  // uninitialized, or reshaped without validate_shape
          target = ctx.ReallocateRefInput(0, value.dims());
          if (!ctx.ok()) return;
        }
        Copy()(ctx, target, value);
        if (!ctx.ok()) return;
      }
    }
    ctx.ForwardRefInputToRefOutput(0, 0);
  }

 private:
  bool validate_shape_ = true;
  bool use_locking_ = true;
};

}  // namespace tgraph_cpu
