// Runs one node's kernel outside a session, through the same plugin ABI the executor uses:
// picks the registered kernel for the node and device, creates it once, and calls compute
// with given input tensors. The executor (issue 5) builds on it; kernel tests use it as a
// harness, on the CPU and (device conformance) on devices whose memory the host cannot
// read: there the runner moves inputs, variables and outputs across, so callers always
// give and get host tensors.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/base/status.h"
#include "core/base/tensor.h"
#include "core/graph/operation.h"

namespace tgraph {

class ThreadPool;
struct DeviceInstance;
struct KernelRegistration;

// A variable's storage as a ref input sees it (sessions own these; tests make their own).
struct VariableSlot {
  std::mutex mu;
  Tensor value;
  bool initialized = false;
  std::string name;  // for FAILED_PRECONDITION messages
  // The memory `value` is in: a device's, or the host's when null. Written under `mu`;
  // read without it by the executors' fast path (MoveVariableTo).
  std::atomic<DeviceInstance*> space{nullptr};
};

// Makes `slot`'s value live in `space` (null = the host's memory), copying it there first
// when a plan placed the variable on another device than the run that wrote it (soft
// placement with another fetch set). A no-op, without locking, when it is there already.
Status MoveVariableToSlow(VariableSlot& slot, DeviceInstance* space);
inline Status MoveVariableTo(VariableSlot& slot, DeviceInstance* space) {
  if (slot.space.load(std::memory_order_acquire) == space) return Status::OK();
  return MoveVariableToSlow(slot, space);
}

// One input of a run: a value, or a ref to a variable slot for ref inputs.
struct KernelInput {
  Tensor value;
  VariableSlot* ref = nullptr;
};

class KernelRunner {
 public:
  // Finds the kernel for `op` on `device_type` (matching type constraints against the op's
  // attrs; highest priority wins) and calls its create. When a device of that type is
  // registered, the kernel runs with instance `device_ordinal` of it (created on first
  // use). A kernel that declines the node (plugin ABI 6) passes it to the next match in
  // priority order. NOT_FOUND naming the op, its type and the device when no kernel
  // matches; UNIMPLEMENTED naming each kernel and its reason when every match declined;
  // the device registry's status for a bad ordinal; create's status otherwise.
  static StatusOr<std::unique_ptr<KernelRunner>> Create(const Operation& op,
                                                        const std::string& device_type = "CPU",
                                                        ThreadPool* intra_op_pool = nullptr,
                                                        int device_ordinal = 0);
  // The same with a given kernel instead of the highest-priority match: tests compare two
  // implementations of one op (a oneDNN kernel against the Eigen one it outranks).
  // INVALID_ARGUMENT when `kernel` is for another op type or its constraints don't match.
  // UNIMPLEMENTED when it declines the node.
  static StatusOr<std::unique_ptr<KernelRunner>> CreateWithKernel(
      const Operation& op, const KernelRegistration& kernel, ThreadPool* intra_op_pool = nullptr,
      int device_ordinal = 0);
  ~KernelRunner();  // calls the kernel's destroy
  KernelRunner(const KernelRunner&) = delete;
  KernelRunner& operator=(const KernelRunner&) = delete;

  // Runs compute. Checks input count and dtypes first; ref inputs need `ref` set and an
  // initialized slot unless the op allows uninitialized input. Outputs come back in
  // `outputs` (a ref output yields the variable's current value). Errors name the node.
  //
  // On a device that is not host-accessible, inputs and outputs are still host tensors:
  // inputs are copied to the device (except the kernel's host-memory args), each variable
  // gets a device-side slot holding a copy of its value, outputs in device memory are
  // copied back and the device is synchronized. After the call (failed or not) each
  // variable's host slot holds the device slot's value (a new host buffer).
  Status Run(const std::vector<KernelInput>& inputs, std::vector<Tensor>* outputs);
  // Convenience for ops without ref inputs.
  Status Run(const std::vector<Tensor>& inputs, std::vector<Tensor>* outputs);

  const Operation& op() const { return op_; }
  const KernelRegistration& kernel() const { return *kernel_; }

 private:
  // CreateWithKernel; null (and `declined` set to the message) when the kernel declines.
  static StatusOr<std::unique_ptr<KernelRunner>> Make(const Operation& op,
                                                      const KernelRegistration& kernel,
                                                      ThreadPool* intra_op_pool, int device_ordinal,
                                                      std::string* declined);
  KernelRunner(const Operation& op, const KernelRegistration* kernel, ThreadPool* pool)
      : op_(op), kernel_(kernel), pool_(pool) {}
  // Run's path for a device without host access: `inputs` are prepared host values.
  Status RunInDeviceMemory(std::vector<KernelInput> inputs, std::vector<Tensor>* outputs);

  const Operation& op_;
  const KernelRegistration* kernel_;
  ThreadPool* pool_;
  void* state_ = nullptr;
  DeviceInstance* device_ = nullptr;  // null: the host (no device of the kernel's type)
  bool device_memory_ = false;        // device_ is not host-accessible
  // Per flat input / output: a host-memory arg of the kernel (only set with device_memory_).
  std::vector<char> host_memory_inputs_, host_memory_outputs_;
};

}  // namespace tgraph
