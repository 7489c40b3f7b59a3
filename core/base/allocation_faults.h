// Injected allocation failures, for the fault tests: every tensor buffer the core hands out
// (to kernels of every plugin, to feeds, fetches and variables) goes through
// TensorBuffer::Allocate, which asks here whether to fail as if memory had run out. Disarmed,
// the check is one relaxed atomic load.
#pragma once

#include <cstdint>

namespace tgraph {

// The `nth` tensor allocation from now (1 = the next one) fails; 0 disarms. Only one
// allocation fails per arming.
void FailNthTensorAllocation(int64_t nth);

// How many allocations are still to come before the armed failure (0: disarmed or spent).
// Arming a large count, running, and reading this tells how many allocations a run makes.
int64_t TensorAllocationsBeforeFailure();

// Called by TensorBuffer::Allocate: true when this allocation is the one to fail.
bool ConsumeTensorAllocationFault();

}  // namespace tgraph
