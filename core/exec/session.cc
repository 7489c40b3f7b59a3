#include "core/exec/session.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <shared_mutex>
#include <string_view>
#include <thread>
#include <unordered_map>

#include "core/exec/core_kernels.h"
#include "core/exec/execution_plan.h"
#include "core/exec/executor.h"
#include "core/exec/function_runtime.h"
#include "core/exec/session_state.h"
#include "core/exec/thread_pool.h"
#include "core/graph/device_spec.h"
#include "core/plugin/registry.h"

namespace tgraph {
namespace {

int HardwareThreads() {
  const unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : static_cast<int>(n);
}

// How long an intra-op thread spins for more work after a task before it may sleep
// (thread_pool.h): a training step hands the pool work tens of times, with gaps shorter
// than this, and a sleeping thread wakes 20-100 us late on a virtual machine. 300 us to
// 3 ms measured the same on the MLP step (2 cores); TGRAPH_POOL_LINGER_US overrides (0: sleep
// at once, as before).
constexpr long kDefaultIntraOpLingerUs = 500;

std::chrono::microseconds IntraOpLinger() {
  static const long us = [] {
    const char* text = std::getenv("TGRAPH_POOL_LINGER_US");
    if (text == nullptr || *text == '\0') return kDefaultIntraOpLingerUs;
    char* end = nullptr;
    const long value = std::strtol(text, &end, 10);
    if (*end != '\0' || value < 0) return kDefaultIntraOpLingerUs;
    return std::min(value, 1000000L);  // at most a second
  }();
  return std::chrono::microseconds(us);
}

// A tensor of our own: fetched values must not change when a variable they share a
// buffer with is assigned later, nor alias another fetch. A copy that cannot be allocated
// fails the run (RESOURCE_EXHAUSTED) rather than hand out the alias.
StatusOr<Tensor> DeepCopy(const Tensor& t) {
  TG_ASSIGN_OR_RETURN(Tensor out, Tensor::AllocateUninitialized(t.dtype(), t.dims()));
  if (t.dtype() == DT_STRING) {
    out.strings() = t.strings();
  } else if (t.ByteSize() != 0) {
    std::memcpy(out.data(), t.data(), t.ByteSize());
  }
  return out;
}

// Does anything besides `t` hold its buffer (a variable, a constant, a caller's feed), or
// does `t` only borrow it (a graph constant's view)?
bool Shared(const Tensor& t) {
  if (t.dtype() == DT_STRING) return false;  // strings are never written in place
  return t.buffer() != nullptr && t.buffer().use_count() != 1;
}

// Marks a run in flight for Close and the destructor. The count goes up before the run
// checks `closed` (both sequentially consistent), so Close either sees the run or the run
// sees Close.
class RunScope {
 public:
  explicit RunScope(std::atomic<int>* count) : count_(count) { count_->fetch_add(1); }
  ~RunScope() {
    if (count_->fetch_sub(1) == 1) count_->notify_all();
  }
  RunScope(const RunScope&) = delete;
  RunScope& operator=(const RunScope&) = delete;

 private:
  std::atomic<int>* count_;
};

std::atomic<uint64_t> next_session_serial{1};

// The plan this thread ran last: a repeated run skips the cache's lock and hash.
struct LastPlan {
  uint64_t session_serial = 0;
  std::vector<uint64_t> key;
  ExecutionPlan* plan = nullptr;
};
// This thread's request key (reused, so a repeated run allocates nothing) and last plan.
struct ThreadPlanState {
  std::vector<uint64_t> key;
  LastPlan last;
};
// Out of line: in a shared library every thread-local access is a call, and the compiler
// repeats it at each use rather than keep the address; one call per run gives it a pointer.
[[gnu::noinline]] ThreadPlanState* ThisThreadPlanState() {
  thread_local ThreadPlanState state;
  return &state;
}

}  // namespace

// Plans by request signature: the feeds', fetches' and targets' ids, each list prefixed by
// its length.
struct Session::PlanCache {
  struct KeyHash {
    size_t operator()(const std::vector<uint64_t>& k) const {
      uint64_t h = 0x9E3779B97F4A7C15ull;
      for (uint64_t v : k) h = (h ^ v) * 0xBF58476D1CE4E5B9ull + (h >> 29);
      return static_cast<size_t>(h);
    }
  };
  std::shared_mutex mu;
  std::unordered_map<std::vector<uint64_t>, std::shared_ptr<ExecutionPlan>, KeyHash> plans;
};

bool ValidateKernelOutputsFromEnvironment() {
  const char* v = std::getenv("TGRAPH_VALIDATE_KERNEL_OUTPUTS");
  return v != nullptr && v[0] != '\0' && std::string_view(v) != "0";
}

Session::Session(Graph* graph, SessionOptions options)
    : graph_(graph), options_(std::move(options)) {}

StatusOr<std::unique_ptr<Session>> Session::Create(Graph* graph, SessionOptions options) {
  if (graph == nullptr) return InvalidArgument("Session: the graph is NULL");
  TG_RETURN_IF_ERROR(RegisterCoreKernels());  // the TensorArray / TensorList kernels
  std::unique_ptr<Session> s(new Session(graph, std::move(options)));
  s->serial_ = next_session_serial.fetch_add(1, std::memory_order_relaxed);
  // Devices: CPU first, then the other types by name; ordinals in order.
  DeviceRegistry* registry = DeviceRegistry::Global();
  std::vector<std::string> types = registry->DeviceTypes();
  std::stable_partition(types.begin(), types.end(), [](const std::string& t) { return t == "CPU"; });
  for (const std::string& type : types) {
    const DeviceRegistration* reg = registry->Find(type);
    const int count = reg == nullptr ? 0 : reg->DeviceCount();
    for (int ordinal = 0; ordinal < count; ++ordinal) {
      TG_ASSIGN_OR_RETURN(DeviceInstance * instance, registry->GetInstance(type, ordinal));
      SessionDevice d;
      d.type = type;
      d.ordinal = ordinal;
      d.name = StrCat("/device:", type, ":", ordinal);
      d.description = reg->Description(ordinal);
      s->devices_.push_back(d);
      s->plan_devices_.push_back(PlanDevice{d.name, type, ordinal, instance, reg->host_accessible()});
    }
  }
  if (s->devices_.empty()) {
    return NotFound("no devices are available to the session: load a device plugin (the CPU "
                    "plugin, e.g. through TGRAPH_PLUGIN_PATH or TG_LoadPlugin) first");
  }
  // The default device.
  const std::string& wanted = s->options_.default_device;
  s->default_device_ = -1;
  if (wanted.empty()) {
    s->default_device_ = 0;  // CPU:0 when there is a CPU (it sorts first)
  } else {
    auto spec = DeviceSpec::Parse(wanted);
    if (!spec.ok()) return spec.status().Prepend("Session: default device: ");
    for (size_t i = 0; i < s->devices_.size() && spec->type; ++i) {
      if (s->devices_[i].type == *spec->type && s->devices_[i].ordinal == spec->id.value_or(0)) {
        s->default_device_ = static_cast<int>(i);
        break;
      }
    }
    if (s->default_device_ < 0) {
      std::string names;
      for (const auto& d : s->devices_) names += StrCat(names.empty() ? "" : ", ", d.name);
      return InvalidArgument("Session: default device '", wanted, "' does not exist (devices: ",
                             names, ")");
    }
  }
  if (s->options_.log_device_placement) {
    s->placement_log_ = s->options_.log_sink ? s->options_.log_sink : [](const std::string& line) {
      std::fprintf(stderr, "%s\n", line.c_str());
    };
  }
  const int inter = s->options_.inter_op_threads > 0 ? s->options_.inter_op_threads : HardwareThreads();
  const int intra = s->options_.intra_op_threads > 0 ? s->options_.intra_op_threads : HardwareThreads();
  s->options_.inter_op_threads = inter;
  s->options_.intra_op_threads = intra;
  const bool intra_fills_the_cores = intra > 1 && intra >= HardwareThreads();
  if (inter > 1 && !s->options_.deterministic && !intra_fills_the_cores) {
    s->inter_op_pool_ = std::make_unique<ThreadPool>(inter);
  }
  if (intra > 1) s->intra_op_pool_ = std::make_unique<ThreadPool>(intra, IntraOpLinger());
  s->state_ = std::make_unique<SessionState>();
  s->kernels_ = std::make_unique<KernelCache>();
  s->functions_ = std::make_unique<FunctionRuntime>(&s->plan_devices_, s->default_device_,
                                                    s->options_.allow_soft_placement,
                                                    s->state_.get(), s->intra_op_pool_.get());
  s->plans_ = std::make_unique<PlanCache>();
  return s;
}

Session::~Session() {
  (void)Close();  // always OK
  plans_.reset();      // run states hold contexts naming kernels...
  functions_.reset();  // (the function bodies' plans and kernels)
  kernels_.reset();    // ...which are destroyed next
  inter_op_pool_.reset();
  intra_op_pool_.reset();
}

Status Session::Close() {
  closed_.store(true);
  for (int n = runs_in_flight_.load(); n != 0; n = runs_in_flight_.load()) runs_in_flight_.wait(n);
  return Status::OK();
}

StatusOr<ExecutionPlan*> Session::GetPlan(
    const std::vector<std::pair<Output, Tensor>>& feeds, const std::vector<Output>& fetches,
    const std::vector<Operation*>& targets) {
  // The key; a request naming another graph's operations must not match a cached plan.
  ThreadPlanState* thread_state = ThisThreadPlanState();
  std::vector<uint64_t>& key = thread_state->key;
  LastPlan& last = thread_state->last;
  key.clear();
  auto id_of = [this](const Operation* op, const char* what) -> StatusOr<uint64_t> {
    if (op == nullptr) return InvalidArgument("a ", what, " names no operation");
    if (op->graph() != graph_) {
      return InvalidArgument(what, " '", op->name(), "' belongs to another graph than the session's");
    }
    return static_cast<uint64_t>(op->id());
  };
  key.push_back(feeds.size());
  for (const auto& [o, v] : feeds) {
    TG_ASSIGN_OR_RETURN(uint64_t id, id_of(o.op, "feed"));
    key.push_back(id << 20 | static_cast<uint32_t>(o.index));
  }
  key.push_back(fetches.size());
  for (const Output& o : fetches) {
    TG_ASSIGN_OR_RETURN(uint64_t id, id_of(o.op, "fetch"));
    key.push_back(id << 20 | static_cast<uint32_t>(o.index));
  }
  key.push_back(targets.size());
  for (const Operation* op : targets) {
    TG_ASSIGN_OR_RETURN(uint64_t id, id_of(op, "target"));
    key.push_back(id);
  }
  if (last.session_serial == serial_ && last.key == key) return last.plan;
  auto remember = [&](ExecutionPlan* plan) {
    last.session_serial = serial_;
    last.key = key;
    last.plan = plan;
    return plan;
  };
  {
    std::shared_lock<std::shared_mutex> lock(plans_->mu);
    auto it = plans_->plans.find(key);
    if (it != plans_->plans.end()) return remember(it->second.get());
  }
  PlanRequest request;
  request.graph = graph_;
  for (const auto& [o, v] : feeds) request.feeds.push_back(o);
  request.fetches = fetches;
  request.targets = targets;
  request.devices = &plan_devices_;
  request.default_device = default_device_;
  request.allow_soft_placement = options_.allow_soft_placement;
  request.deterministic = options_.deterministic;
  request.inter_op_threads = inter_op_pool_ != nullptr ? options_.inter_op_threads : 1;
  request.placement_log = placement_log_ ? &placement_log_ : nullptr;
  request.kernels = kernels_.get();
  request.state = state_.get();
  request.rewrites = &options_.rewrites;
  request.functions = functions_.get();
  request.validate_kernel_outputs = options_.validate_kernel_outputs;
  std::unique_ptr<ExecutionPlan> built;
  {
    std::lock_guard<std::recursive_mutex> graph_lock(graph_->mutex());
    TG_ASSIGN_OR_RETURN(built, BuildPlan(request));
  }
  plans_built_.fetch_add(1, std::memory_order_relaxed);
  std::shared_ptr<ExecutionPlan> plan(std::move(built));
  std::unique_lock<std::shared_mutex> lock(plans_->mu);
  // Another run may have built the same plan meanwhile: keep the first.
  auto [it, inserted] = plans_->plans.emplace(key, plan);
  return remember(it->second.get());
}

Status Session::Prepare(const std::vector<std::pair<Output, Tensor>>& feeds,
                        const std::vector<Output>& fetches, const std::vector<Operation*>& targets) {
  RunScope scope(&runs_in_flight_);
  if (closed_.load()) return FailedPrecondition("Session has been closed");
  return GetPlan(feeds, fetches, targets).status();
}

Status Session::Run(const RunOptions& run_options,
                    const std::vector<std::pair<Output, Tensor>>& feeds,
                    const std::vector<Output>& fetches, const std::vector<Operation*>& targets,
                    std::vector<Tensor>* outputs, RunMetadata* metadata) {
  if (outputs == nullptr) return InvalidArgument("Session::Run: outputs is NULL");
  outputs->clear();
  RunScope scope(&runs_in_flight_);
  if (closed_.load()) return FailedPrecondition("Session has been closed");
  TG_ASSIGN_OR_RETURN(ExecutionPlan * plan, GetPlan(feeds, fetches, targets));

  // Feeds are checked before anything runs.
  for (size_t i = 0; i < feeds.size(); ++i) {
    const PlanFeed& f = plan->feeds[i];
    const Tensor& value = feeds[i].second;
    if (value.dtype() != f.dtype) {
      return InvalidArgument("Cannot feed value of dtype ", DataTypeName(value.dtype()),
                             " for tensor '", f.output.Name(), "', which has dtype ",
                             DataTypeName(f.dtype));
    }
    if (!f.shape.IsCompatibleWithDims(value.dims())) {
      return InvalidArgument("Cannot feed value of shape ", PartialShape(value.dims()).ToString(),
                             " for tensor '", f.output.Name(), "', which has shape ",
                             f.shape.ToString());
    }
  }

  std::unique_ptr<RunState> rs = plan->AcquireRunState(intra_op_pool_.get());
  for (size_t i = 0; i < feeds.size(); ++i) {
    const int slot = plan->feeds[i].slot;
    if (slot >= 0) rs->values[static_cast<size_t>(slot)].tensor = feeds[i].second;
  }
  if (metadata != nullptr) {
    metadata->step_stats.clear();
    metadata->peak_bytes = 0;
    metadata->allocated_bytes = 0;
  }
  ExecuteArgs args;
  args.plan = plan;
  args.state = rs.get();
  args.inter_op_pool = inter_op_pool_.get();
  args.trace = run_options.trace_level > 0 ? metadata : nullptr;
  std::shared_ptr<MemoryAccount> memory;
  if (args.trace != nullptr) {
    memory = std::make_shared<MemoryAccount>();
    args.memory = &memory;
  }
  MemoryAccountScope memory_scope(args.memory);
  Status status = ExecutePlan(args);
  const bool ran_every_step = status.ok();

  if (status.ok()) {
    outputs->reserve(fetches.size());
    for (size_t i = 0; i < plan->fetch_slots.size(); ++i) {
      SlotValue& v = rs->values[static_cast<size_t>(plan->fetch_slots[i])];
      if (plan->control_flow != nullptr && v.ref == nullptr && v.tensor.dtype() == DT_INVALID) {
        // A dead tensor (on the untaken side of a Switch) or one that was never computed.
        status = InvalidArgument("Retval[", i, "] does not have value: tensor '", fetches[i].Name(),
                                 "' is dead (it depends on an untaken branch of a Switch) or was "
                                 "not computed in this run");
        break;
      }
      if (v.ref != nullptr) {
        std::lock_guard<std::mutex> lock(v.ref->mu);
        if (!v.ref->initialized) {
          status = FailedPrecondition("Attempting to use uninitialized value ", v.ref->name,
                                      " (fetched as ", fetches[i].Name(), ")");
          break;
        }
        auto copy = DeepCopy(v.ref->value);
        if (!copy.ok()) {
          status = copy.status();
          break;
        }
        outputs->push_back(std::move(copy).value());
      } else if (plan->fetch_moves[i]) {
        outputs->push_back(std::move(v.tensor));  // the run state is cleared next anyway
      } else {
        outputs->push_back(v.tensor);
      }
    }
  }
  plan->ReleaseRunState(std::move(rs), ran_every_step);  // drops the run's last references
  if (!status.ok()) {
    outputs->clear();
    return status;
  }
  for (Tensor& t : *outputs) {
    if (!Shared(t)) continue;
    auto copy = DeepCopy(t);
    if (!copy.ok()) {
      outputs->clear();
      return copy.status();
    }
    t = std::move(copy).value();
  }
  if (memory != nullptr) {
    metadata->peak_bytes = memory->peak_bytes();
    metadata->allocated_bytes = memory->allocated_bytes();
  }
  return Status::OK();
}

}  // namespace tgraph
