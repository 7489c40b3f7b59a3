// Kernels the core runs itself, registered for the CPU device like a plugin's: the
// TensorArray, Stack and TensorList ops (core/exec/list_kernels.h), whose values are C++ objects
// (core/exec/host_object.h) that no plugin could make or read through plugin.h.
#pragma once

#include "core/base/status.h"

namespace tgraph {

// Registers them once per process (later calls return the first call's status). Sessions
// call it on creation, so any run can find them.
Status RegisterCoreKernels();

}  // namespace tgraph
