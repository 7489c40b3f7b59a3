// An execution plan: everything a run with one (feeds, fetches, targets) signature needs,
// worked out once and cached by the session, so that a repeated run does no planning, no
// name look-ups and (kernels' own outputs aside) no allocation.
//
// Values live in numbered slots: one per output of every step, one per fed tensor, one per
// copy. A step reads slots and writes slots; the plan knows each slot's readers, so a slot
// is released right after its last read (and a buffer nobody else holds can be forwarded by
// the kernel to its output).
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/base/shape.h"
#include "core/base/status.h"
#include "core/base/tensor.h"
#include "core/exec/control_flow_plan.h"
#include "core/exec/kernel_runner.h"
#include "core/graph/graph.h"
#include "core/graph/operation.h"
#include "core/plugin/registry.h"

namespace tgraph {

class FunctionRuntime;  // core/exec/function_runtime.h
class SessionState;
class ThreadPool;
struct RunState;
struct RewriteOptions;     // core/rewrite/rewrite_options.h
struct RewrittenFragment;  // core/rewrite/rewriter.h

enum class StepKind : uint8_t {
  kKernel,    // calls a plugin kernel
  kConstant,  // a Const on a host-accessible device: its value, parsed once, is shared
  kVariable,  // VariableV2: its output is the session's variable slot
  kCopy,      // moves a value between memory spaces (host, or a device's own memory)
  kControlFlow,  // Switch, Merge, Enter, ...: run by the frame executor itself
};

struct StepInput {
  int slot = -1;
  bool ref = false;        // the op takes a ref (the variable itself) here
  bool move = false;       // serial order: the slot's last read, and the only one by this step
  bool release = false;    // serial order: the slot's last read (released before compute)
};

struct PlanStep {
  StepKind kind = StepKind::kKernel;
  const Operation* op = nullptr;  // null for copies
  const KernelRegistration* kernel = nullptr;
  void* kernel_state = nullptr;  // owned by the session's kernel cache
  int device = 0;                // session device index (a copy: its destination)
  DeviceInstance* instance = nullptr;
  std::vector<StepInput> inputs;
  int first_output = 0;  // slot of output 0
  int num_outputs = 0;
  std::vector<int> successors;  // steps waiting on this one
  int initial_pending = 0;      // steps this one waits on
  bool expensive = false;       // worth handing to another thread
  // kKernel: every input is a plain value (no ref input, no slot that can hold a variable),
  // so a serial run's kernel reads its input slots in place with no per-call set-up.
  bool plain_inputs = false;
  bool ref_outputs = false;   // kKernel: an output is a ref (the variable stays in its slot)
  bool drops_outputs = false;  // an output nobody reads or fetches, released at once
  // kKernel: check the outputs against the op's types and inferred shapes after each call
  // (SessionOptions::validate_kernel_outputs; ValidateKernelOutputs); shapes only when
  // validate_shapes (not in plans with while loops, whose loop variables may change shape).
  bool validate_outputs = false;
  bool validate_shapes = false;
  // kConstant: a borrowed view of the op's value (the graph, which outlives the session,
  // keeps it): handing it to readers touches no reference count, and nothing writes into
  // it (a view is never forwarded) or returns it (fetches of views are copied).
  const Tensor* constant = nullptr;
  VariableSlot* variable = nullptr;  // kVariable
  DeviceInstance* copy_from = nullptr;  // kCopy: null = host memory
  // kCopy: the destination; kVariable: the memory the variable's value must be in (its
  // device's). Null = host memory.
  DeviceInstance* copy_to = nullptr;
  // The node's name, or "tensor:i" for a copy (held by the plan): messages and step stats.
  // Pointers keep the step small: a million-node plan touches every byte of its steps.
  const std::string* label = nullptr;
};

// One feed of the request, as the plan checks it.
struct PlanFeed {
  Output output;
  DataType dtype = DT_INVALID;
  PartialShape shape;  // the tensor's static shape
  int slot = -1;       // -1: nothing in the fragment reads it
};

class ExecutionPlan {
 public:
  ExecutionPlan() = default;
  ~ExecutionPlan();
  ExecutionPlan(const ExecutionPlan&) = delete;
  ExecutionPlan& operator=(const ExecutionPlan&) = delete;

  // The plan-time rewrites' result when they changed the fragment: the operations they made
  // (steps point at them) and those operations' kernels. First, so it is destroyed last.
  std::unique_ptr<RewrittenFragment> rewritten;
  std::vector<PlanStep> steps;  // a topological order (deterministic for a graph)
  int num_slots = 0;
  std::vector<PlanFeed> feeds;     // in request order
  std::vector<int> fetch_slots;    // per fetch
  std::vector<char> fetch_moves;   // per fetch: the slot's last fetch, so its value can move
  std::vector<int> slot_reads;     // per slot: reads by steps
  std::vector<char> slot_pinned;   // per slot: fetched, so never released by a reader
  std::vector<int> initial_ready;  // steps with nothing to wait on
  // Run steps on the inter-op pool (independent expensive branches exist); otherwise every
  // step runs in order on the calling thread.
  bool parallel = false;
  std::vector<std::string> device_names;  // session devices, for step stats
  // Devices without host access that run steps of this plan: their queued work is waited
  // for once at the end of a run, so a run leaves nothing running and reports the errors of
  // work it enqueued (kernels on such devices return before their work has finished).
  std::vector<DeviceInstance*> devices_to_synchronize;
  std::deque<std::string> copy_labels;    // copy steps' labels (stable addresses)
  std::deque<Tensor> constant_views;      // kConstant steps' values (stable addresses)
  // Set when the fragment holds control flow (Switch, Merge, Enter, ...): the run goes to
  // the frame executor, with frames, iterations and dead values; null otherwise, and a
  // plan without control flow pays nothing for it.
  std::unique_ptr<ControlFlowPlan> control_flow;
  // What call kernels (PartitionedCall, If, While, ...) run function bodies with: every
  // kernel context of the plan's run states gets it (TG_KernelContext::functions).
  FunctionRuntime* functions = nullptr;

  // Run states are reused across runs (a run takes one, gives it back). A run that ran
  // every step has released each slot at its last read, so only the fetched slots still
  // hold values; after a failure any slot may.
  std::unique_ptr<RunState> AcquireRunState(ThreadPool* intra_op_pool);
  void ReleaseRunState(std::unique_ptr<RunState> state, bool ran_every_step);

 private:
  // One free state without a lock (the common case: one run at a time), then the rest.
  std::atomic<RunState*> spare_{nullptr};
  std::mutex pool_mu_;
  std::vector<std::unique_ptr<RunState>> free_states_;
};

// Caches created kernels per (operation, device) for a session: stateful kernels (random
// streams) keep their state across plans, and each kernel is created once.
class KernelCache {
 public:
  ~KernelCache();  // destroys every kernel
  // The state of `kernel` for `op` on `device`, created on first use. A kernel that declines
  // the node is an error here (UNIMPLEMENTED naming the kernel, node and reason): callers
  // that can go elsewhere use Choose.
  StatusOr<void*> Get(const Operation& op, int device, const KernelRegistration& kernel);

  // The kernel for `op` on `device`: the one already created for it, else the first of
  // `first` and then the registry's other candidates (in priority order) that does not
  // decline the node (ABI 6). Null when every candidate declined; `declines` then holds
  // one message per kernel (DeclineMessage). Declines are remembered: a kernel is asked
  // once per node (a registration is for one device type, so once for all its ordinals).
  struct Choice {
    const KernelRegistration* kernel = nullptr;
    void* state = nullptr;  // the kernel's state (owned by the cache)
    std::vector<std::string> declines;
  };
  StatusOr<Choice> Choose(const Operation& op, int device, const std::string& device_type,
                          const KernelRegistration* first);

 private:
  struct Entry {
    const KernelRegistration* kernel = nullptr;
    void* state = nullptr;
  };
  struct Declined {
    const KernelRegistration* kernel = nullptr;
    std::string message;
  };
  Entry& EntryLocked(const Operation& op, int device);
  // Asks `kernel` (not declined before); true when it took the node (entry filled).
  StatusOr<bool> TryLocked(const Operation& op, const KernelRegistration& kernel, Entry* entry);
  std::mutex mu_;
  // [device][op id]: op ids are dense, so a table beats hashing a million keys.
  std::vector<std::vector<Entry>> by_device_;
  // op id -> the kernels that declined the node (rare: kept apart).
  std::map<int, std::vector<Declined>> declined_;
  bool WasDeclinedLocked(const Operation& op, const KernelRegistration* kernel) const;
};

struct PlanDevice {
  std::string name;
  std::string type;
  int ordinal = 0;
  DeviceInstance* instance = nullptr;
  bool host_accessible = true;
};

struct PlanRequest {
  const Graph* graph = nullptr;
  std::vector<Output> feeds;
  std::vector<Output> fetches;
  std::vector<Operation*> targets;
  const std::vector<PlanDevice>* devices = nullptr;
  int default_device = 0;
  bool allow_soft_placement = false;
  bool deterministic = false;
  int inter_op_threads = 1;
  // Called with "name (Type): device" per operation when set.
  const std::function<void(const std::string&)>* placement_log = nullptr;
  KernelCache* kernels = nullptr;
  SessionState* state = nullptr;
  // The graph rewrites to apply between pruning and placement; null = none.
  const RewriteOptions* rewrites = nullptr;
  // The session's function runtime, for the plan's call kernels; null outside a session.
  FunctionRuntime* functions = nullptr;
  bool validate_kernel_outputs = false;  // PlanStep::validate_outputs on every kernel step
};

// A kernel step's outputs (`outputs[k]`, null for one not produced as a plain value, e.g. a
// ref) against the op's output dtypes and (step.validate_shapes) its fully known inferred
// output shapes: INVALID_ARGUMENT naming the op, node, kernel and plugin on a contradiction.
// Shapes TensorFlow itself does not hold to are not checked: resource and variant handles
// (TensorArrayV3 declares its scalar handle as [2]) and the outputs of ops reading a variable
// (its declared shape, which Assign with validate_shape=false may change).
Status ValidateKernelOutputs(const PlanStep& step, const Tensor* const* outputs);

// Prunes, validates, places, inserts copies and lays out slots. Errors: INVALID_ARGUMENT
// for an unfed placeholder that is needed (naming it, its dtype and shape), for a request
// naming a tensor or op of another graph, for placement that fails; a kernel's create error.
// The caller holds the graph's lock.
StatusOr<std::unique_ptr<ExecutionPlan>> BuildPlan(const PlanRequest& request);

}  // namespace tgraph
