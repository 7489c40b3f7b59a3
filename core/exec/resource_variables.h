// TensorFlow's resource variables (VarHandleOp, ReadVariableOp, AssignVariableOp,
// ResourceApply*, ...) on the storage of reference variables: a VarHandleOp names a
// VariableSlot of the session's SessionState (keyed by container/shared_name, or the node's
// name, as TensorFlow keys its resource manager), and its DT_RESOURCE output is a handle
// object (host_object.h) holding that slot. The plan makes a VarHandleOp a constant step
// whose value is the handle; the executors bind an op's handle input (TakesVariableHandle)
// like a ref input, to the slot the handle names, so the kernels of the resource ops update
// the variable in place through the ref-input calls of the plugin ABI — the optimizer
// kernels of the CPU plugin serve ApplyAdam and ResourceApplyAdam alike.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/exec/host_object.h"
#include "core/exec/kernel_runner.h"
#include "core/exec/list_kernels.h"
#include "core/graph/operation.h"

namespace tgraph {

// What a VarHandleOp's output holds: the variable's slot (kept alive by the handle, so a
// handle fetched out of a run outlives nothing it points at) and its key.
struct ResourceVariableHandle : HostObject {
  std::shared_ptr<VariableSlot> slot;
  std::string key;
  DataType dtype = DT_INVALID;
};

bool IsVarHandleOp(const Operation& op);

// Is input `i` of `op` a resource variable's handle that the executors resolve to its slot
// (a DT_RESOURCE input of one of the resource-variable ops)?
bool TakesVariableHandle(const Operation& op, int i);

// The slot a handle tensor names, or null when `t` is not a resource variable's handle.
VariableSlot* VariableOfHandle(const Tensor& t);

// A DT_RESOURCE scalar naming `slot`.
StatusOr<Tensor> MakeVariableHandle(std::shared_ptr<VariableSlot> slot, std::string key, DataType dtype);

// The core kernels of the resource-variable ops that the CPU plugin does not run.
std::vector<CoreKernel> ResourceVariableKernels();

}  // namespace tgraph
