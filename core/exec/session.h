// A session runs the fragment of a graph that a (feeds, fetches, targets) request needs, and
// owns the state that lives between runs: variable values, created kernels, cached plans.
//
// Run = look up (or build once) the plan for the request's signature, then execute it:
//   - plan (execution_plan.h): prune on Boost.Graph from fetches and targets back to fed
//     tensors, validate, order, rewrite (core/rewrite, on a plan-local view), place, insert copies, choose and create kernels, lay out
//     value slots, pending counts and last uses;
//   - execute (executor.h): run the steps inline or on the inter-op pool.
// The graph may grow after the session was made (operations are append-only and never
// change), so a cached plan stays valid for the session's life.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "core/base/status.h"
#include "core/base/tensor.h"
#include "core/graph/graph.h"
#include "core/graph/operation.h"
#include "core/rewrite/rewrite_options.h"

namespace tgraph {

// TGRAPH_VALIDATE_KERNEL_OUTPUTS set to something other than "" or "0".
bool ValidateKernelOutputsFromEnvironment();

struct SessionOptions {
  // <= 0: the number of hardware threads. Steps run concurrently (expensive ones handed to
  // an inter-op pool) only while the intra-op pool leaves cores free: with intra-op threads
  // for every hardware thread, each expensive kernel already spreads over all the cores, and
  // a second one beside it only oversubscribes them (a 2-core VM: the MLP, CNN and word2vec
  // training steps 6-8% faster run one step at a time), so the plan runs on the caller.
  int inter_op_threads = 0;
  int intra_op_threads = 0;  // <= 0: the number of hardware threads
  // An op whose requested device does not exist or has no kernel for it goes to a device
  // that has one, instead of failing the run.
  bool allow_soft_placement = false;
  // Logs "node (Op): /device:CPU:0" for every op when a plan is made.
  bool log_device_placement = false;
  // One order of execution, the same on every run and platform: the steps run one after
  // another on the calling thread in a canonical topological order (ties broken by
  // creation order), so stateful ops without control dependencies always run in that
  // order. Intra-op parallelism stays (kernels' results do not depend on it).
  bool deterministic = false;
  // Where ops without a device request go ("" = /device:CPU:0).
  std::string default_device;
  // Receives log_device_placement lines; null = standard error.
  std::function<void(const std::string&)> log_sink;
  // The graph rewrites applied when a request is planned (core/rewrite): constant folding,
  // common-subexpression elimination, Identity/NoOp removal, arithmetic simplification,
  // dependency optimization, fusion; and, off by default, automatic mixed precision. Fetched
  // values are the same with or without, but for mixed precision's bf16 rounding.
  RewriteOptions rewrites;
  // Checks every kernel's outputs against its op's static output types and fully known
  // inferred shapes after each call: a kernel (a plugin's, say) that contradicts them fails
  // the run with INVALID_ARGUMENT naming the op, the node, the kernel and its plugin,
  // instead of a later op failing for it. Off by default (no cost then: the plan carries
  // no check); on when the environment has TGRAPH_VALIDATE_KERNEL_OUTPUTS=1 (the tests).
  bool validate_kernel_outputs = ValidateKernelOutputsFromEnvironment();
};

struct RunOptions {
  // 0 = no tracing; > 0 = collect per-node step stats into RunMetadata.
  int trace_level = 0;
};

struct NodeStepStats {
  std::string node_name;
  std::string op_type;
  std::string device;       // canonical device name
  int64_t start_ns = 0;     // since the run started
  int64_t duration_ns = 0;
  int64_t output_bytes = 0;  // sum over the node's outputs
  int thread_id = 0;         // 0 = the calling thread, i > 0 = inter-op pool thread i-1
};

struct RunMetadata {
  std::vector<NodeStepStats> step_stats;  // in completion order
  // Tensor buffers the run's steps allocated in host memory (outputs, temporaries, copies):
  // the most held at once during the run, and the sum of all. Buffers a run forwards or
  // reuses are not new allocations; feeds and variables updated in place cost nothing.
  int64_t peak_bytes = 0;
  int64_t allocated_bytes = 0;
};

// A device the session can place ops on.
struct SessionDevice {
  std::string name;  // "/device:CPU:0"
  std::string type;  // "CPU"
  int ordinal = 0;
  std::string description;
};

class SessionState;   // session_state.h
class ExecutionPlan;  // execution_plan.h
class FunctionRuntime;  // function_runtime.h
class KernelCache;    // execution_plan.h
struct PlanDevice;    // execution_plan.h
class ThreadPool;     // thread_pool.h

class Session {
 public:
  // Loads nothing: the devices are those registered by plugins loaded so far.
  // INVALID_ARGUMENT for a malformed default device; NOT_FOUND when there is no device at all.
  static StatusOr<std::unique_ptr<Session>> Create(Graph* graph, SessionOptions options);
  ~Session();  // waits for runs in flight

  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // Runs the graph fragment needed for `fetches` and `targets`, with `feeds` replacing the
  // values of the tensors they name. On success `outputs` holds one tensor per fetch (a
  // tensor fetched twice is computed once). Thread-safe: runs may overlap.
  Status Run(const RunOptions& run_options, const std::vector<std::pair<Output, Tensor>>& feeds,
             const std::vector<Output>& fetches, const std::vector<Operation*>& targets,
             std::vector<Tensor>* outputs, RunMetadata* metadata);
  Status Run(const std::vector<std::pair<Output, Tensor>>& feeds,
             const std::vector<Output>& fetches, const std::vector<Operation*>& targets,
             std::vector<Tensor>* outputs) {
    return Run(RunOptions{}, feeds, fetches, targets, outputs, nullptr);
  }

  // Builds (or finds) and caches the plan for a request without running anything: what the
  // first Run with the same feeds, fetches and targets would do before executing. The feed
  // values only need the right dtype and shape.
  Status Prepare(const std::vector<std::pair<Output, Tensor>>& feeds,
                 const std::vector<Output>& fetches, const std::vector<Operation*>& targets);

  // Further runs fail with FAILED_PRECONDITION; waits for runs in flight. Idempotent.
  Status Close();
  bool closed() const { return closed_.load(std::memory_order_acquire); }

  const std::vector<SessionDevice>& devices() const { return devices_; }
  Graph* graph() const { return graph_; }
  const SessionOptions& options() const { return options_; }
  SessionState& state() { return *state_; }
  // How many plans were built (tests check that repeated runs reuse them).
  int64_t plans_built() const { return plans_built_.load(std::memory_order_relaxed); }

 private:
  Session(Graph* graph, SessionOptions options);
  struct PlanCache;
  // Plans live as long as the session (the cache never drops one).
  StatusOr<ExecutionPlan*> GetPlan(const std::vector<std::pair<Output, Tensor>>& feeds,
                                   const std::vector<Output>& fetches,
                                   const std::vector<Operation*>& targets);

  Graph* graph_;
  SessionOptions options_;
  std::vector<SessionDevice> devices_;
  std::vector<PlanDevice> plan_devices_;
  int default_device_ = 0;
  std::function<void(const std::string&)> placement_log_;
  std::unique_ptr<ThreadPool> inter_op_pool_;  // null when steps run one at a time
  std::unique_ptr<ThreadPool> intra_op_pool_;
  std::unique_ptr<SessionState> state_;
  std::unique_ptr<KernelCache> kernels_;
  std::unique_ptr<FunctionRuntime> functions_;  // runs the bodies of called functions
  std::unique_ptr<PlanCache> plans_;
  std::atomic<bool> closed_{false};
  std::atomic<int64_t> plans_built_{0};
  // Runs in flight (Close and the destructor wait for zero).
  std::atomic<int> runs_in_flight_{0};
  // Unique per session in the process (addresses are reused): keys the per-thread
  // last-plan cache.
  uint64_t serial_ = 0;
};

}  // namespace tgraph
