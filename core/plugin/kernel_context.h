// The core's side of the opaque contexts tgraph/plugin.h hands to plugin code: what a
// kernel's create sees (TG_KernelConstruction), what its compute sees (TG_KernelContext)
// and what a shape function sees (TG_ShapeContext), plus the calls that set them up. The
// TG_CoreApi functions (core_api.cc) read these structs; KernelRunner and the executor
// build them.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/base/status.h"
#include "core/base/tensor.h"
#include "core/exec/kernel_runner.h"
#include "core/exec/thread_pool.h"
#include "core/graph/operation.h"
#include "core/ops/shape_inference.h"
#include "core/plugin/abi_handles.h"
#include "core/plugin/registry.h"

struct TG_KernelConstruction {
  const tgraph::Operation* op = nullptr;
  // Tensors handed out by attr_tensor, alive until create returns.
  std::vector<std::unique_ptr<TG_Tensor>> attr_tensors;
  // construction_decline was called (ABI 6), with this reason.
  bool declined = false;
  std::string decline_reason;
};

namespace tgraph {

class FunctionRuntime;  // core/exec/function_runtime.h

// One input of a compute call.
struct KernelCallInput {
  // What the kernel reads: `own`, or (a serial run reading a plain value) the run's slot
  // itself, which saves moving the value in and out on every call.
  TG_Tensor* value = nullptr;
  // The variable behind a ref input (value is then a snapshot of it), else null.
  VariableSlot* ref = nullptr;
  // The call may hand value's buffer to an output when nobody else holds it: `own`, or a
  // slot this call is the last reader of.
  bool may_forward = false;
  bool locked = false;  // this call holds ref's mutex (lock_ref_input)
  // A host-memory arg of a kernel whose other inputs live in a device's memory: its buffer
  // cannot become a variable's there (forward_input_to_ref_input).
  bool host_memory = false;
  TG_Tensor own;
};

// One output of a compute call.
struct KernelCallOutput {
  // Where the output goes: `own`, or the run's slot for it (no move after the call).
  TG_Tensor* value = nullptr;
  VariableSlot* ref = nullptr;  // the slot a ref output forwards (forward_ref_input_to_ref_output)
  // The op's output dtype, which kernels ask about on every call.
  DataType type = DT_INVALID;
  bool set = false;
  // A host-memory arg of the kernel: allocated in host memory even when device_memory.
  bool host_memory = false;
  TG_Tensor own;
};

}  // namespace tgraph

// Inputs and outputs are one record each (two allocations per context, every field of an
// argument on the same cache lines): a chain of cheap kernels is bound by these accesses.
struct TG_KernelContext {
  const tgraph::Operation* op = nullptr;
  TG_Status status;
  std::vector<tgraph::KernelCallInput> inputs;
  std::vector<tgraph::KernelCallOutput> outputs;
  tgraph::DeviceInstance* device = nullptr;
  TG_ThreadPool* pool = nullptr;  // never null (the inline pool when there is none)
  // Outputs go in the device's memory (its allocator): the device is not host-accessible.
  bool device_memory = false;
  // Every input reads a run's slot in place for good (plain values, a serial run): after a
  // call there is no copy to release and no variable to unlock.
  bool inputs_bound = false;
  // Handed out by mutable_ref_input / reallocate_ref_input / allocate_temp. (Vectors of
  // pointers, not deques: stable addresses without a heap allocation per call when unused.)
  std::vector<std::unique_ptr<TG_Tensor>> ref_views;
  std::vector<std::unique_ptr<TG_Tensor>> temps;
  // The session's function runtime (the call kernels run function bodies with it); null
  // outside a session (KernelRunner). Last: the fields a cheap kernel's call touches keep
  // their places.
  tgraph::FunctionRuntime* functions = nullptr;

  TG_KernelContext() = default;
  // Each record's value may point at its own `own`: never copied.
  TG_KernelContext(const TG_KernelContext&) = delete;
  TG_KernelContext& operator=(const TG_KernelContext&) = delete;
  TG_KernelContext(TG_KernelContext&&) = default;
  TG_KernelContext& operator=(TG_KernelContext&&) = default;
};

struct TG_ShapeContext {
  tgraph::InferenceContext* ic = nullptr;
  // A misuse without a status to report it in (shape_set_output out of range, ...): the
  // shape function then fails with it.
  tgraph::Status deferred;
  std::vector<std::unique_ptr<TG_Tensor>> values;  // per input, made on first request
};

namespace tgraph {

// A tensor in `device`'s memory, from its allocator (plain dtypes only); freed through the
// device's deallocate when the last reference goes.
StatusOr<Tensor> AllocateDeviceTensor(DeviceInstance* device, DataType dtype,
                                      std::vector<int64_t> dims);

// Per flat input (or output, with `outputs`) of `op`: is it a host-memory arg of `kernel`?
// Into `flags` (callers reuse it: planning a large graph should not allocate per op).
void HostMemoryArgFlags(const Operation& op, const KernelRegistration* kernel, bool outputs,
                        std::vector<char>* flags);

// Sizes `ctx` for calls of `kernel` on `op`: a context is made once per node and reused by
// every call (no allocation per call when the kernel keeps to its outputs). Every input and
// output starts out pointing at its record's `own` tensor.
void PrepareKernelContext(TG_KernelContext* ctx, const Operation& op,
                          const KernelRegistration& kernel, DeviceInstance* device,
                          ThreadPool* pool);

// RunKernelCompute's out-of-line parts: an exception from compute becomes the node's
// status (`what` may be NULL); after compute, anything but the common end (inputs read in
// place, no views or temporaries handed out, success, every output produced).
void RecordComputeException(TG_KernelContext* ctx, const char* what);
Status FinishKernelCompute(const KernelRegistration& kernel, TG_KernelContext* ctx);

// One compute call on a prepared context whose inputs (value, ref, may_forward) the caller
// has filled in. Inputs held in `own` are released when compute returns (inputs read from
// elsewhere are the caller's to release); on success every output's value holds it (or
// its ref the variable behind a ref output) for the caller to take; on failure every
// output's value is cleared. Errors name the node.
// The common path is here and small, the rest out of line: a cheap kernel's step (a scalar
// add) then does not pay for the error paths' stack frame.
inline Status RunKernelCompute(const KernelRegistration& kernel, void* state,
                               TG_KernelContext* ctx) {
  if (!ctx->status.status.ok()) ctx->status.status = Status::OK();
  for (KernelCallOutput& out : ctx->outputs) {
    out.set = false;
    out.ref = nullptr;
  }
  try {
    kernel.compute(state, ctx);
  } catch (const std::exception& e) {
    RecordComputeException(ctx, e.what());
  } catch (...) {
    RecordComputeException(ctx, nullptr);
  }
  bool all_set = true;
  for (const KernelCallOutput& out : ctx->outputs) all_set = all_set && out.set;
  if (ctx->inputs_bound && all_set && ctx->status.status.ok() && ctx->ref_views.empty() &&
      ctx->temps.empty()) {
    return Status::OK();
  }
  return FinishKernelCompute(kernel, ctx);
}

// What a kernel's create made of a node: its state, or a decline (ABI 6) with the reason.
struct KernelCreation {
  void* state = nullptr;
  bool declined = false;
  std::string reason;  // the plugin's reason for declining
};

// Calls `kernel`'s create for `op` (null state when it has no create). create's status,
// with the node named, on failure; a decline is not a failure.
StatusOr<KernelCreation> TryCreateKernel(const KernelRegistration& kernel, const Operation& op);

// "kernel Relu on GPU [...] priority 0 of plugin 'p' declined node 'n' (Relu): reason".
std::string DeclineMessage(const KernelRegistration& kernel, const Operation& op,
                           const std::string& reason);

// TryCreateKernel where a decline is an error (UNIMPLEMENTED, DeclineMessage): for callers
// that asked for this one kernel.
StatusOr<void*> CreateKernelState(const KernelRegistration& kernel, const Operation& op);

// One compute call. `inputs` (one per input of `op`, already checked against its
// signature) are taken by value: an input buffer nobody else holds may be forwarded to an
// output. On success `outputs` holds one tensor per output (a ref output: the variable's
// value after the call). Errors name the node.
Status CallKernel(const KernelRegistration& kernel, void* state, const Operation& op,
                  std::vector<KernelInput> inputs, DeviceInstance* device, ThreadPool* pool,
                  std::vector<Tensor>* outputs);

// A plugin's C shape function as the core's ShapeFn.
ShapeFn WrapPluginShapeFn(TG_ShapeFunction fn, void* user_data);

}  // namespace tgraph
