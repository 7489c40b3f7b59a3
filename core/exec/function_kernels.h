// The call kernels: PartitionedCall / StatefulPartitionedCall, If / StatelessIf, Case /
// StatelessCase and While / StatelessWhile (core/ops/functional_ops.cc), for the CPU. They
// live in the core because they run other graphs (the functions' bodies, through the
// session's FunctionRuntime), which no plugin could reach through plugin.h.
//
// Creating one (when a plan is built) instantiates the functions its attrs name and checks
// them against the node: an unknown function, a wrong number of inputs or results, or a
// dtype that differs is INVALID_ARGUMENT naming the node and the function, so a bad call
// fails the plan, not a run. A While checks each iteration's new loop variables against
// its shape invariants (output_shapes, else the node's input shapes).
#pragma once

#include <vector>

#include "tgraph/plugin.h"

namespace tgraph {

// One definition per op type, device "CPU", for RegisterCoreKernels.
std::vector<TG_KernelDefinition> FunctionKernelDefinitions();

}  // namespace tgraph
