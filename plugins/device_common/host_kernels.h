// Kernels a device plugin registers for its device type that run entirely on the host, over
// arguments registered in host memory, as TensorFlow's GPU kernels for the same ops: Unique
// (int32/int64 values and out_idx), Shape (the dims only; its output on the host) and
// StridedSlice of int32. They are what an optimizer's sparse update builds next to its
// variable (Unique, Shape, StridedSlice and UnsortedSegmentSum sum a gradient's duplicate
// rows, core/autodiff/optimizer.cc): with them on the device, the variable's colocation
// group stays there instead of soft placement moving it, and its slots, to the CPU.
//
// One implementation for both GPU backends; each registers them with RegisterHostKernels.
// Unique is the CPU plugin's kernel and StridedSlice canonicalizes its spec with the CPU
// plugin's header (plugins/cpu/unique_kernel.h, strided_slice_spec.h: plugin-side code over
// tgraph/plugin.hpp only), so the device and the CPU give the same values and errors.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "cpu/strided_slice_spec.h"
#include "cpu/unique_kernel.h"
#include "tgraph/plugin.hpp"

namespace tgraph_device_common {

// Shape(input): input's dims as int32 or int64 (out_type), written on the host; the input's
// elements are never read, so it stays wherever it is.
class HostShapeKernel {
 public:
  explicit HostShapeKernel(tgraph::plugin::Construction&) {}
  void Compute(tgraph::plugin::Context& ctx) {
    const std::vector<int64_t> dims = ctx.input(0).dims();
    const bool int32 = ctx.output_type(0) == TG_INT32;
    for (size_t d = 0; int32 && d < dims.size(); ++d) {
      if (dims[d] > std::numeric_limits<int32_t>::max()) {
        ctx.Fail(TG_INVALID_ARGUMENT, "Shape output type is 32-bit but dim " + std::to_string(d) +
                                          " is " + std::to_string(dims[d]));
        return;
      }
    }
    tgraph::plugin::TensorMut out = ctx.AllocateOutput(0, {static_cast<int64_t>(dims.size())});
    if (!ctx.ok()) return;
    for (size_t d = 0; d < dims.size(); ++d) {
      if (int32) {
        out.mutable_data<int32_t>()[d] = static_cast<int32_t>(dims[d]);
      } else {
        out.mutable_data<int64_t>()[d] = dims[d];
      }
    }
  }
};

// StridedSlice(input, begin, end, strides) of int32: a shape computation (the optimizer's
// count of unique indices, a dim of a shape), everything in host memory.
class HostStridedSliceKernel {
 public:
  explicit HostStridedSliceKernel(tgraph::plugin::Construction& c) {
    tgraph_cpu::strided_slice::ReadMasks(c, &masks_);
  }
  void Compute(tgraph::plugin::Context& ctx) {
    const tgraph::plugin::TensorView in = ctx.input(0);
    const std::vector<int64_t> dims = in.dims();
    tgraph_cpu::strided_slice::Spec spec;
    if (!tgraph_cpu::strided_slice::Canonicalize(ctx, dims, 1, masks_, &spec)) return;
    tgraph::plugin::TensorMut out = ctx.AllocateOutput(0, spec.out_dims);
    if (!ctx.ok() || out.num_elements() == 0) return;
    tgraph_cpu::strided_slice::Transfer<tgraph_cpu::strided_slice::Direction::kGather>(
        ctx, in.data<unsigned char>(), out.mutable_data<unsigned char>(), sizeof(int32_t), dims,
        spec.begin, spec.stride, spec.count);
  }

 private:
  tgraph_cpu::strided_slice::Masks masks_;
};

// Registers the kernels above for `device_type` (the plugin's "GPU"), with every argument
// in host memory but Shape's input of a non-integer dtype (its elements are not read).
inline void RegisterHostKernels(tgraph::plugin::Init& init, const std::string& device_type) {
  using tgraph::plugin::KernelBuilder;
  auto unique = [&](TG_DataType t) {
    return KernelBuilder("Unique", device_type)
        .TypeConstraint("T", t)
        .TypeConstraint("out_idx", {TG_INT32, TG_INT64})
        .HostMemory("x")
        .HostMemory("y")
        .HostMemory("idx");
  };
  init.Kernel<tgraph_cpu::UniqueOp<int32_t>>(unique(TG_INT32));
  init.Kernel<tgraph_cpu::UniqueOp<int64_t>>(unique(TG_INT64));
  init.Kernel<HostShapeKernel>(KernelBuilder("Shape", device_type)
                                   .TypeConstraint("T", TG_FLOAT)
                                   .TypeConstraint("out_type", {TG_INT32, TG_INT64})
                                   .HostMemory("output"));
  init.Kernel<HostShapeKernel>(KernelBuilder("Shape", device_type)
                                   .TypeConstraint("T", {TG_INT32, TG_INT64})
                                   .TypeConstraint("out_type", {TG_INT32, TG_INT64})
                                   .HostMemory("input")
                                   .HostMemory("output"));
  init.Kernel<HostStridedSliceKernel>(KernelBuilder("StridedSlice", device_type)
                                          .TypeConstraint("T", TG_INT32)
                                          .TypeConstraint("Index", {TG_INT32, TG_INT64})
                                          .HostMemory("input")
                                          .HostMemory("begin")
                                          .HostMemory("end")
                                          .HostMemory("strides")
                                          .HostMemory("output"));
}

}  // namespace tgraph_device_common
