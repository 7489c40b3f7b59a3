// Moving a tensor between the host's memory and a device's (or between two devices): the
// executor's copy steps and KernelRunner's device runs both go through here.
#pragma once

#include <string>

#include "core/base/status.h"
#include "core/base/tensor.h"
#include "core/plugin/registry.h"

namespace tgraph {

// `src` (in `from`'s memory, or the host's when null) copied into `to`'s memory (the host's
// when null), through the devices' copy callbacks; between two device types it is staged
// through the host. A copy to the host has landed when this returns (the source device is
// synchronized). Plain dtypes only. Errors name `label` (the tensor) and the device.
StatusOr<Tensor> CopyTensor(const Tensor& src, DeviceInstance* from, DeviceInstance* to,
                            const std::string& label);

// The device's synchronize (a no-op when it has none): queued work has finished.
Status SynchronizeDevice(DeviceInstance* device);

}  // namespace tgraph
