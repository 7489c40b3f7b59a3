#include "core/exec/function_runtime.h"

#include "core/exec/execution_plan.h"
#include "core/exec/executor.h"
#include "core/graph/function_library.h"
#include "core/graph/graph.h"

namespace tgraph {

struct FunctionRuntime::Instance {
  std::mutex mu;
  bool built = false;
  Status status;
  std::unique_ptr<KernelCache> kernels = std::make_unique<KernelCache>();
  std::unique_ptr<ExecutionPlan> plan;
  ~Instance() {
    plan.reset();  // run states hold contexts naming kernels, destroyed next
    kernels.reset();
  }
};

FunctionRuntime::FunctionRuntime(const std::vector<PlanDevice>* devices, int default_device,
                                 bool allow_soft_placement, SessionState* state,
                                 ThreadPool* intra_op_pool)
    : devices_(devices), default_device_(default_device),
      allow_soft_placement_(allow_soft_placement), state_(state), intra_op_pool_(intra_op_pool) {}

FunctionRuntime::~FunctionRuntime() = default;

StatusOr<FunctionRuntime::Instance*> FunctionRuntime::InstanceFor(const FunctionBody& body) {
  Instance* instance;
  {
    std::lock_guard lock(mu_);
    std::unique_ptr<Instance>& slot = instances_[&body];
    if (slot == nullptr) slot = std::make_unique<Instance>();
    instance = slot.get();
  }
  std::lock_guard lock(instance->mu);
  if (!instance->built) {
    PlanRequest request;
    request.graph = body.graph.get();
    request.feeds = body.args;
    request.fetches = body.rets;
    request.targets = body.targets;
    request.devices = devices_;
    request.default_device = default_device_;
    request.allow_soft_placement = allow_soft_placement_;
    request.deterministic = true;  // serial: see function_runtime.h
    request.inter_op_threads = 1;
    request.kernels = instance->kernels.get();
    request.state = state_;
    request.functions = this;
    std::lock_guard graph_lock(body.graph->mutex());
    auto plan = BuildPlan(request);
    if (plan.ok()) {
      instance->plan = std::move(plan).value();
    } else {
      instance->status = plan.status();
    }
    instance->built = true;
  }
  if (!instance->status.ok()) return instance->status;
  return instance;
}

namespace {

// `status` with the call that failed in front; a deep recursion's error keeps only its
// innermost calls, so the message stays readable (and small).
Status WithContext(const Status& status, const std::string& caller, const char* what,
                   const std::string& function) {
  if (status.message().size() > 1000) return status;
  return status.Prepend(StrCat(caller, ": ", what, " '", function, "': "));
}

// Calls nested on this thread (a body's call kernel runs on the thread of its caller).
thread_local int call_depth = 0;

struct DepthScope {
  DepthScope() { ++call_depth; }
  ~DepthScope() { --call_depth; }
  DepthScope(const DepthScope&) = delete;
  DepthScope& operator=(const DepthScope&) = delete;
};

}  // namespace

Status FunctionRuntime::Call(const FunctionBody& body, const std::vector<Tensor>& args,
                             std::vector<Tensor>* results, const std::string& caller) {
  results->clear();
  if (call_depth >= kMaxFunctionCallDepth) {
    return ResourceExhausted(caller, ": calling function '", body.name, "' nests calls more than ",
                             kMaxFunctionCallDepth, " deep (unbounded recursion?)");
  }
  DepthScope depth;
  auto instance = InstanceFor(body);
  if (!instance.ok()) return WithContext(instance.status(), caller, "function", body.name);
  ExecutionPlan* plan = (*instance)->plan.get();
  if (args.size() != plan->feeds.size()) {
    return InvalidArgument(caller, ": function '", body.name, "' takes ", plan->feeds.size(),
                           " argument(s), given ", args.size());
  }
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i].dtype() != plan->feeds[i].dtype) {
      return InvalidArgument(caller, ": function '", body.name, "' argument ", i, " ('",
                             plan->feeds[i].output.op->name(), "') is ",
                             DataTypeName(plan->feeds[i].dtype), ", given ",
                             DataTypeName(args[i].dtype()));
    }
  }
  std::unique_ptr<RunState> rs = plan->AcquireRunState(intra_op_pool_);
  for (size_t i = 0; i < args.size(); ++i) {
    const int slot = plan->feeds[i].slot;
    if (slot >= 0) rs->values[static_cast<size_t>(slot)].tensor = args[i];
  }
  ExecuteArgs run;
  run.plan = plan;
  run.state = rs.get();
  Status status = ExecutePlan(run);
  const bool ran_every_step = status.ok();
  if (status.ok()) {
    results->reserve(plan->fetch_slots.size());
    for (size_t i = 0; i < plan->fetch_slots.size(); ++i) {
      SlotValue& v = rs->values[static_cast<size_t>(plan->fetch_slots[i])];
      if (v.ref != nullptr) {
        status = Unimplemented("result ", i, " ('", body.rets[i].Name(), "') is a ref");
        break;
      }
      if (v.tensor.dtype() == DT_INVALID) {
        status = InvalidArgument("result ", i, " ('", body.rets[i].Name(),
                                 "') has no value (dead, or not computed)");
        break;
      }
      if (plan->fetch_moves[i]) {
        results->push_back(std::move(v.tensor));
      } else {
        results->push_back(v.tensor);
      }
    }
  }
  plan->ReleaseRunState(std::move(rs), ran_every_step);
  if (!status.ok()) {
    results->clear();
    return WithContext(status, caller, "in function", body.name);
  }
  return Status::OK();
}

}  // namespace tgraph
