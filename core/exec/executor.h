// The executor: runs an ExecutionPlan's steps with the values of one run.
//
// Serial plans (nothing worth running in parallel, deterministic mode, one inter-op thread)
// run every step in plan order on the calling thread: no pending counts, no atomics, slots
// released at the plan's precomputed last reads. Parallel plans count down each step's
// pending inputs; a finished step runs its cheap successors itself and hands expensive ones
// to the inter-op pool (keeping one for itself), because waking a thread costs 2-90 us
// while a spin hand-off costs ~0.2 us. The caller spins briefly, then sleeps, until every
// step is done. A failing step stops the run: later steps are skipped (not computed), the
// run waits for steps already running, and the first error comes back naming its node.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "core/base/memory_account.h"
#include "core/base/status.h"
#include "core/base/tensor.h"
#include "core/exec/execution_plan.h"
#include "core/exec/kernel_runner.h"
#include "core/exec/session.h"
#include "core/plugin/kernel_context.h"

namespace tgraph {

class ThreadPool;

// A value in a slot: a tensor, or (for a ref output) the variable it refers to. A
// TG_Tensor, so that a kernel reads its inputs from (and writes its outputs into) the
// slots themselves.
struct SlotValue : TG_Tensor {
  VariableSlot* ref = nullptr;
};

// The mutable side of one run of a plan; reused by later runs of the same plan.
struct RunState {
  std::vector<SlotValue> values;                   // per slot
  std::vector<TG_KernelContext> contexts;          // per step (kernel steps only)
  std::unique_ptr<std::atomic<int>[]> pending;     // per step (parallel plans)
  std::unique_ptr<std::atomic<int>[]> reads_left;  // per slot (parallel plans)
  // The frame executor's reusable memory (iterations, frames, queues), made on first use by
  // a plan with control flow: a repeated run then allocates none of it.
  std::shared_ptr<void> control_flow_scratch;
};

struct ExecuteArgs {
  ExecutionPlan* plan = nullptr;
  RunState* state = nullptr;
  ThreadPool* inter_op_pool = nullptr;
  RunMetadata* trace = nullptr;  // non-null: record step stats
  // Non-null (when tracing): the account the run's allocations are charged to, made current
  // on every thread that runs a step.
  const std::shared_ptr<MemoryAccount>* memory = nullptr;
};

// Runs every step (the feeds are already in their slots). On success the fetched slots hold
// their values; every other slot may have been released.
Status ExecutePlan(const ExecuteArgs& args);

// Makes a run state for `plan` (contexts prepared with `intra_op_pool`).
std::unique_ptr<RunState> NewRunState(const ExecutionPlan& plan, ThreadPool* intra_op_pool);

}  // namespace tgraph
