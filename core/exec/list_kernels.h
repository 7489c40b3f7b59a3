// The TensorArray, Stack (TF1) and TensorList (TF2) kernels (tensor_array_kernels.cc,
// tensor_list_kernels.cc): see core/ops/list_ops.cc for the ops
// and core/exec/host_object.h for how their values are held.
#pragma once

#include <string>
#include <vector>

#include "core/base/status.h"
#include "core/base/tensor.h"
#include "core/graph/operation.h"
#include "core/plugin/kernel_context.h"

namespace tgraph {

// One compute call as a core kernel sees it.
struct CoreKernelIo {
  TG_KernelContext* ctx;
  const Operation& op() const { return *ctx->op; }
  int num_inputs() const { return static_cast<int>(ctx->inputs.size()); }
  const Tensor& in(int i) const { return ctx->inputs[static_cast<size_t>(i)].value->tensor; }
  void out(int i, Tensor t) const {
    KernelCallOutput& o = ctx->outputs[static_cast<size_t>(i)];
    o.value->tensor = std::move(t);
    o.set = true;
  }
};

struct CoreKernel {
  const char* op_type;
  Status (*compute)(const CoreKernelIo& io);
  // Set for a kernel of an op the CPU plugin also has (AddN, ZerosLike): the type attr it
  // takes for DT_VARIANT only, the plugin's kernels keeping the other types.
  const char* variant_attr = nullptr;
};

const std::vector<CoreKernel>& ListKernels();

}  // namespace tgraph
