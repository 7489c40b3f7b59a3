// Placement: the device every operation of a run's fragment runs on, and its kernel there.
//
// Rules, in order:
//   - operations of one colocation group (`_class: loc:@x`, e.g. a variable with its Assign
//     and read) share a device; their device requests must agree;
//   - a request names a device type and maybe an ordinal ("/device:GPU:1", "/device:GPU:*");
//     job, replica and task are ignored (a session is one local task);
//   - an operation without a request goes to the session's default device, or to the first
//     device (CPU first) with a kernel for every member of its group;
//   - a request that cannot be met (no such device, or no kernel for that device type) is
//     INVALID_ARGUMENT naming the operation, the requested device and the device types
//     that do have a kernel — unless soft placement is allowed, which then picks another
//     ordinal of the type, the default device, or the first device with a kernel.
//   - a kernel may decline a node when it is created (plugin ABI 6: an attr value it does
//     not support): the node's next kernel on that device type is asked, and when every
//     one declines, the device type counts as having no kernel for the node and the rules
//     above place it elsewhere (or fail naming the node, each kernel and its reason).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/base/status.h"
#include "core/graph/operation.h"
#include "core/plugin/registry.h"

namespace tgraph {

struct PlacementDevice {
  std::string name;  // "/device:CPU:0"
  std::string type;
  int ordinal = 0;
};

// What asking a device type's kernels for a node gave: the kernel that took it, or null and
// one message per kernel that declined.
struct KernelDecision {
  const KernelRegistration* kernel = nullptr;
  void* state = nullptr;  // the kernel's created state, when `created`
  bool created = false;
  std::vector<std::string> declines;
};
using ChooseKernelFn = std::function<StatusOr<KernelDecision>(
    const Operation& op, int device, const KernelRegistration* first)>;

struct PlacementRequest {
  const std::vector<Operation*>* ops = nullptr;
  // The session's devices; the first of a type has the lowest ordinal.
  const std::vector<PlacementDevice>* devices = nullptr;
  int default_device = 0;  // index into devices
  bool allow_soft_placement = false;
  // Asks (creates) the kernels of `op` on devices[device], `first` being the registry's
  // choice; called once a device is picked for the op. Unset: `first` is taken unasked.
  const ChooseKernelFn* choose_kernel = nullptr;
};

struct Placement {
  std::vector<int> device;  // per op: index into the request's devices
  std::vector<const KernelRegistration*> kernel;  // per op
  // Per op, when the request has choose_kernel: the kernel's state it created (created[i]),
  // so the plan need not look it up again.
  std::vector<void*> state;
  std::vector<char> created;
};

StatusOr<Placement> PlaceOperations(const PlacementRequest& request);

}  // namespace tgraph
