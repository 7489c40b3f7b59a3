// Const: outputs the tensor in its `value` attr.
//
// Cost: the attr tensor the core hands to create lives only until create returns, and the
// ABI has no way to output a buffer the kernel owns, so the kernel keeps its own copy of the
// value and each run allocates the output and copies the bytes into it (one memcpy of the
// constant's size per run; split over the intra-op pool for big constants). The executor
// may cache Const outputs across runs to avoid even that.
#include <string>
#include <vector>

#include "array_kernel_util.h"
#include "array_kernels.h"

namespace tgraph_cpu {
namespace {

using namespace array_util;

class ConstOp {
 public:
  explicit ConstOp(Construction& c) {
    TensorView value = c.GetTensorAttr("value");
    if (!c.ok()) return;
    dtype_ = value.dtype();
    if (dtype_ != c.output_type(0)) {
      c.Fail(TG_INVALID_ARGUMENT, "attr 'value' holds a tensor of dtype " + DtypeName(dtype_) +
                                      " but the output is " + DtypeName(c.output_type(0)));
      return;
    }
    dims_ = value.dims();
    if (dtype_ == TG_STRING) {
      const int64_t n = value.num_elements();
      strings_.reserve(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) strings_.emplace_back(value.string_at(i));
    } else {
      const auto* p = value.data<unsigned char>();
      if (p != nullptr) bytes_.assign(p, p + value.byte_size());
    }
  }

  void Compute(Context& ctx) {
    TensorMut out = ctx.AllocateOutput(0, dims_);
    if (!ctx.ok()) return;
    if (dtype_ == TG_STRING) {
      for (size_t i = 0; i < strings_.size(); ++i)
        out.set_string(static_cast<int64_t>(i), strings_[i]);
      return;
    }
    if (out.byte_size() != bytes_.size()) {
      ctx.Fail(TG_INTERNAL, "output buffer has " + std::to_string(out.byte_size()) +
                                " bytes, the constant " + std::to_string(bytes_.size()));
      return;
    }
    ParallelMemcpy(ctx, out.mutable_data<unsigned char>(), bytes_.data(), bytes_.size());
  }

 private:
  TG_DataType dtype_ = TG_INVALID_DTYPE;
  std::vector<int64_t> dims_;
  std::vector<unsigned char> bytes_;
  std::vector<std::string> strings_;
};

}  // namespace

void RegisterConstantKernels(tgraph::plugin::Init& init) {
  // Every dtype (strings included): the kernel copies bytes or strings.
  init.Kernel<ConstOp>(tgraph::plugin::KernelBuilder("Const", "CPU").CostPerElementNs(0.1));
}

}  // namespace tgraph_cpu
