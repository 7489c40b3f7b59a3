// Runs function bodies (core/graph/function_library.h) for the call kernels
// (function_kernels.cc): one per session, reached by a kernel through its context
// (TG_KernelContext::functions, set from the plan). Each body gets, on its first call, an
// ExecutionPlan of its own — feeds its arg Placeholders, fetches its results, targets its
// control_ret and stateful nodes — built with the session's devices, variables and
// intra-op pool and a kernel cache of its own, and kept for the session's life; a call then
// takes a run state of that plan, as Session::Run does, so calls may nest and recurse (each
// gets its own run state) and run concurrently. Body plans are serial: a call runs on the
// thread of the step that made it, and never waits for the inter-op pool.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/base/status.h"
#include "core/base/tensor.h"

namespace tgraph {

struct FunctionBody;
struct PlanDevice;
class SessionState;
class ThreadPool;

// How deep calls may nest on one thread (a function that calls itself through an If must
// stop somewhere): deeper is RESOURCE_EXHAUSTED naming the caller and the function.
inline constexpr int kMaxFunctionCallDepth = 100;

class FunctionRuntime {
 public:
  FunctionRuntime(const std::vector<PlanDevice>* devices, int default_device,
                  bool allow_soft_placement, SessionState* state, ThreadPool* intra_op_pool);
  ~FunctionRuntime();
  FunctionRuntime(const FunctionRuntime&) = delete;
  FunctionRuntime& operator=(const FunctionRuntime&) = delete;

  // Runs `body` on `args` (one per input arg, of its dtype) and returns its results.
  // `caller` ("'node' (If)") begins every error message, followed by the function's name.
  Status Call(const FunctionBody& body, const std::vector<Tensor>& args,
              std::vector<Tensor>* results, const std::string& caller);

 private:
  struct Instance;
  StatusOr<Instance*> InstanceFor(const FunctionBody& body);

  const std::vector<PlanDevice>* devices_;
  int default_device_;
  bool allow_soft_placement_;
  SessionState* state_;
  ThreadPool* intra_op_pool_;
  std::mutex mu_;
  std::unordered_map<const FunctionBody*, std::unique_ptr<Instance>> instances_;
};

}  // namespace tgraph
