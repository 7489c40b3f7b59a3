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
};

struct TG_KernelContext {
  const tgraph::Operation* op = nullptr;
  TG_Status status;
  // Input values. For a ref input: the variable's tensor when the call started.
  std::vector<TG_Tensor> inputs;
  // Per input: the variable slot behind a ref input, else null.
  std::vector<tgraph::VariableSlot*> refs;
  // Per input: this call holds the slot's mutex (lock_ref_input).
  std::vector<char> ref_locked;
  // Handed out by mutable_ref_input / reallocate_ref_input. (Vectors of pointers, not
  // deques: stable addresses without a heap allocation per call when unused.)
  std::vector<std::unique_ptr<TG_Tensor>> ref_views;
  std::vector<TG_Tensor> outputs;
  // Per output: the op's output dtype, which kernels ask about on every call (kept here,
  // next to the rest of the context, rather than read from the operation each time).
  std::vector<tgraph::DataType> output_types;
  std::vector<char> output_set;
  // Per output: the slot a ref output forwards (forward_ref_input_to_ref_output).
  std::vector<tgraph::VariableSlot*> output_refs;
  std::vector<std::unique_ptr<TG_Tensor>> temps;
  tgraph::DeviceInstance* device = nullptr;
  // Outputs go in the device's memory (its allocator): the device is not host-accessible.
  // Per output, output_host_memory says the output is a host-memory arg anyway.
  bool device_memory = false;
  std::vector<char> output_host_memory;
  TG_ThreadPool* pool = nullptr;  // never null (the inline pool when there is none)
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
// every call (no allocation per call when the kernel keeps to its outputs).
void PrepareKernelContext(TG_KernelContext* ctx, const Operation& op,
                          const KernelRegistration& kernel, DeviceInstance* device,
                          ThreadPool* pool);

// One compute call on a prepared context whose inputs (and refs) the caller has filled in.
// The inputs are released when compute returns; on success ctx->outputs holds every output
// (ctx->output_refs[i] the variable behind a ref output) for the caller to take. Errors
// name the node.
Status RunKernelCompute(const KernelRegistration& kernel, void* state, TG_KernelContext* ctx);

// Calls `kernel`'s create for `op` (null state when it has no create). create's status,
// with the node named, on failure.
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
