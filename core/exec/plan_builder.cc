// BuildPlan: from a request to an ExecutionPlan (see execution_plan.h).
#include <algorithm>
#include <limits>
#include <unordered_map>

#include "core/base/buffer_versions.h"
#include "core/exec/control_flow.h"
#include "core/exec/control_flow_plan.h"
#include "core/exec/execution_plan.h"
#include "core/exec/executor.h"
#include "core/exec/placement.h"
#include "core/exec/prune.h"
#include "core/exec/resource_variables.h"
#include "core/exec/session_state.h"
#include "core/graph/graph.h"
#include "core/plugin/kernel_context.h"
#include "core/plugin/plugin_loader.h"
#include "core/rewrite/rewriter.h"

namespace tgraph {
namespace {

constexpr int kHost = -1;  // the memory space of host memory (devices have their index)
// A step is worth a thread hand-off (2-90 us to wake a sleeping thread here) above this.
constexpr double kExpensiveNs = 50000;

std::string OpLabel(const Operation& op) { return StrCat("'", op.name(), "' (", op.type(), ")"); }

bool IsVariableOp(const Operation& op) {
  return op.type() == "VariableV2" || op.type() == "Variable";
}

uint64_t TensorKey(const Output& o) {
  return (static_cast<uint64_t>(static_cast<uint32_t>(o.op->id())) << 32) |
         static_cast<uint32_t>(o.index);
}

Status CheckOutputOf(const Graph* graph, const Output& o, const char* what) {
  if (o.op == nullptr) return InvalidArgument(what, " names no operation");
  if (o.op->graph() != graph) {
    return InvalidArgument(what, " '", o.op->name(), "' belongs to another graph than the session's");
  }
  if (o.index < 0 || o.index >= o.op->num_outputs()) {
    return InvalidArgument(what, " ", o.op->name(), ":", o.index, ": operation '", o.op->name(),
                           "' has ", o.op->num_outputs(), " outputs");
  }
  return Status::OK();
}

// Saturates at INT64_MAX: a graph may declare a static shape whose element count does not
// fit (the op then fails when it runs), and a cost guess must not overflow on it.
int64_t StaticElements(const PartialShape& s) {
  constexpr int64_t kUnknown = 1000;  // a guess for shapes only known at run time
  if (!s.known_rank()) return kUnknown;
  int64_t n = 1;
  for (int64_t d : s.dims()) {
    if (__builtin_mul_overflow(n, d < 0 ? 32 : d, &n)) return std::numeric_limits<int64_t>::max();
  }
  return n;
}

// A rough cost of one call, from static shapes: decides inline vs hand-off only.
// A ref (the variable itself, in or out) is not work: ScatterSub on a [50000, 128] variable
// touches only its updates' rows, and counting the variable made every sparse update
// "expensive", handed to another thread for a few microseconds of work.
double EstimateCostNs(const Operation& op, const KernelRegistration* kernel) {
  double out = 0;
  for (int i = 0; i < op.num_outputs(); ++i) {
    if (IsRefType(op.output_type(i))) continue;
    out += static_cast<double>(StaticElements(op.output_shape(i)));
  }
  if (kernel != nullptr && kernel->cost_ns_per_element > 0) {
    return kernel->cost_ns_per_element * out;
  }
  double in = 0;
  for (int i = 0; i < op.num_inputs(); ++i) {
    if (IsRefType(op.input_type(i))) continue;
    in += static_cast<double>(StaticElements(op.input(i).shape()));
  }
  double cost = in + out;
  // Contractions: each output element is a dot product over the inner dimension.
  if ((op.type() == "MatMul" || op.type() == "BatchMatMulV2" || op.type() == "Conv2D") &&
      op.num_inputs() >= 2) {
    const PartialShape& b = op.input(1).shape();
    const int64_t inner = b.known_rank() && b.rank() >= 2 ? std::max<int64_t>(b.dim(b.rank() - 2), 1) : 32;
    cost += 0.05 * out * static_cast<double>(inner);
  }
  return cost;
}

class PlanBuilder {
 public:
  explicit PlanBuilder(const PlanRequest& r) : r_(r), graph_(*r.graph), devices_(*r.devices) {}

  StatusOr<std::unique_ptr<ExecutionPlan>> Build() {
    plan_ = std::make_unique<ExecutionPlan>();
    plan_->functions = r_.functions;
    TG_RETURN_IF_ERROR(CheckRequest());
    PruneRequest prune{r_.feeds, r_.fetches, r_.targets};
    TG_ASSIGN_OR_RETURN(PrunedGraph pruned, PruneAndOrder(graph_, prune));
    TG_RETURN_IF_ERROR(CheckPlaceholders(pruned.ordered, pruned.control_flow));
    // Plan-time rewrites, on a plan-local view (never on the user's graph), skipped for
    // fragments with control flow.
    if (r_.rewrites != nullptr && r_.rewrites->any() && !pruned.control_flow) {
      RewriteRequest rewrite{&graph_, &pruned.ordered, r_.feeds, r_.fetches, r_.targets,
                             devices_[static_cast<size_t>(r_.default_device)].type, *r_.rewrites};
      TG_ASSIGN_OR_RETURN(plan_->rewritten, RewriteFragment(rewrite));
    }
    const RewrittenFragment* rewritten = plan_->rewritten.get();
    const std::vector<Operation*>& ordered = rewritten != nullptr ? rewritten->ordered : pruned.ordered;

    std::vector<PlacementDevice> placement_devices;
    for (const PlanDevice& d : devices_) placement_devices.push_back({d.name, d.type, d.ordinal});
    // Kernels are created as they are placed: one may decline its node (plugin ABI 6), and
    // placement then looks further.
    const ChooseKernelFn choose = [this](const Operation& op, int device,
                                         const KernelRegistration* first) -> StatusOr<KernelDecision> {
      KernelDecision decision;
      const PlanDevice& dev = devices_[static_cast<size_t>(device)];
      if (!NeedsKernel(op, dev)) {
        decision.kernel = first;
        return decision;
      }
      KernelCache* cache = CacheFor(op);
      TG_ASSIGN_OR_RETURN(KernelCache::Choice choice, cache->Choose(op, device, dev.type, first));
      decision.kernel = choice.kernel;
      decision.state = choice.state;
      decision.created = choice.kernel != nullptr;
      decision.declines = std::move(choice.declines);
      return decision;
    };
    PlacementRequest placement_request{&ordered, &placement_devices, r_.default_device,
                                       r_.allow_soft_placement, &choose};
    TG_ASSIGN_OR_RETURN(Placement placement, PlaceOperations(placement_request));
    if (r_.placement_log != nullptr && *r_.placement_log) {
      for (size_t i = 0; i < ordered.size(); ++i) {
        const Operation& op = *ordered[i];
        (*r_.placement_log)(StrCat(op.name(), " (", op.type(), "): ",
                                   devices_[static_cast<size_t>(placement.device[i])].name));
      }
    }

    step_of_op_.assign(static_cast<size_t>(graph_.num_operations()), -1);
    if (rewritten != nullptr) {
      step_of_scratch_op_.assign(static_cast<size_t>(rewritten->scratch->num_operations()), -1);
    }
    plan_->steps.reserve(ordered.size() + r_.fetches.size());
    for (size_t i = 0; i < ordered.size(); ++i) {
      const std::vector<Output>& inputs = rewritten != nullptr ? rewritten->inputs[i] : ordered[i]->inputs();
      const std::vector<Operation*>& controls =
          rewritten != nullptr ? rewritten->control_inputs[i] : ordered[i]->control_inputs();
      void* const* state = placement.created.empty() || !placement.created[i] ? nullptr : &placement.state[i];
      TG_RETURN_IF_ERROR(AddOpStep(*ordered[i], inputs, placement.device[i], placement.kernel[i], state));
      const size_t step = static_cast<size_t>(StepOf(ordered[i]));
      if (step_controls_.size() <= step) step_controls_.resize(step + 1, nullptr);
      step_controls_[step] = &controls;
    }
    // Loops' back edges (NextIteration -> Merge) point at steps made after their consumer.
    for (const DeferredInput& d : deferred_) {
      const Operation& op = *plan_->steps[static_cast<size_t>(d.step)].op;
      const int slot = EnsureIn(SlotOf(d.source), d.space);  // may add a copy step
      StepInput& in = plan_->steps[static_cast<size_t>(d.step)].inputs[static_cast<size_t>(d.input)];
      in.slot = slot;
      in.ref = IsRefType(op.input_type(d.input)) || TakesVariableHandle(op, d.input);
    }
    for (const Output& o : r_.fetches) {
      int slot = SlotOf(o);
      slot = EnsureIn(slot, kHost);
      plan_->fetch_slots.push_back(slot);
    }
    plan_->fetch_moves.assign(plan_->fetch_slots.size(), 0);
    std::vector<char> fetched_later(static_cast<size_t>(plan_->num_slots), 0);
    for (size_t i = plan_->fetch_slots.size(); i-- > 0;) {
      char& later = fetched_later[static_cast<size_t>(plan_->fetch_slots[i])];
      plan_->fetch_moves[i] = !later;
      later = 1;
    }
    FinishSlots();
    FinishDependencies();
    if (pruned.control_flow) {
      // A loop variable's static shape is its shape on entry; shape invariants let it change.
      for (PlanStep& step : plan_->steps) step.validate_shapes = false;
      // The frame executor binds every input per call and runs on the calling thread.
      for (PlanStep& step : plan_->steps) step.plain_inputs = false;
      plan_->parallel = false;
      TG_RETURN_IF_ERROR(BuildControlFlowPlan(plan_.get(), slot_producer_, step_of_op_));
    }
    for (const PlanDevice& d : devices_) plan_->device_names.push_back(d.name);
    for (const PlanStep& step : plan_->steps) {
      const PlanDevice& d = devices_[static_cast<size_t>(step.device)];
      auto& sync = plan_->devices_to_synchronize;
      if (!d.host_accessible && d.instance != nullptr &&
          std::find(sync.begin(), sync.end(), d.instance) == sync.end()) {
        sync.push_back(d.instance);
      }
    }
    return std::move(plan_);
  }

 private:
  Status CheckRequest() {
    std::unordered_map<uint64_t, int> seen;
    for (const Output& o : r_.feeds) {
      TG_RETURN_IF_ERROR(CheckOutputOf(&graph_, o, "feed"));
      if (!seen.emplace(TensorKey(o), 0).second) {
        return InvalidArgument("tensor ", o.Name(), " is fed more than once");
      }
      PlanFeed feed;
      feed.output = o;
      feed.dtype = BaseType(o.dtype());
      feed.shape = o.shape();
      plan_->feeds.push_back(feed);
    }
    for (const Output& o : r_.fetches) TG_RETURN_IF_ERROR(CheckOutputOf(&graph_, o, "fetch"));
    for (const Operation* op : r_.targets) {
      if (op == nullptr) return InvalidArgument("a target names no operation");
      if (op->graph() != &graph_) {
        return InvalidArgument("target '", op->name(), "' belongs to another graph than the session's");
      }
    }
    return Status::OK();
  }

  // A needed placeholder must be fed; which of its tensors were fed was cut by pruning.
  // With control flow, one with control inputs (made inside a cond branch or loop, under
  // its pivot) may be dead in a run: its kernel reports it if it does run.
  Status CheckPlaceholders(const std::vector<Operation*>& ordered, bool control_flow) {
    for (const Operation* op : ordered) {
      if (!IsPlaceholder(*op)) continue;
      if (control_flow && !op->control_inputs().empty()) continue;
      const PartialShape& shape = op->output_shape(0);
      return InvalidArgument("You must feed a value for placeholder tensor '", op->name(),
                             "' with dtype ", DataTypeName(BaseType(op->output_type(0))),
                             shape.known_rank() ? StrCat(" and shape ", shape.ToString()) : std::string());
    }
    return Status::OK();
  }

  int NewSlot(int space, int producer) {
    slot_space_.push_back(space);
    slot_producer_.push_back(producer);
    return plan_->num_slots++;
  }

  // The slot holding tensor `o`'s value in this run: its feed, or its producer's output.
  int SlotOf(const Output& o) {
    for (size_t f = 0; f < plan_->feeds.size(); ++f) {
      PlanFeed& feed = plan_->feeds[f];
      if (!(feed.output == o)) continue;
      if (feed.slot < 0) feed.slot = NewSlot(kHost, -1);
      return feed.slot;
    }
    const int step = StepOf(o.op);
    return plan_->steps[static_cast<size_t>(step)].first_output + o.index;
  }

  // `slot`'s value in memory space `space`: itself, or a copy (one per slot and space).
  int EnsureIn(int slot, int space) {
    const int from = slot_space_[static_cast<size_t>(slot)];
    if (from == space) return slot;
    const uint64_t key = (static_cast<uint64_t>(static_cast<uint32_t>(slot)) << 32) |
                         static_cast<uint32_t>(space + 1);
    auto it = copies_.find(key);
    if (it != copies_.end()) return it->second;
    PlanStep step;
    step.kind = StepKind::kCopy;
    step.device = space == kHost ? CopyHostDevice(from) : space;
    step.instance = devices_[static_cast<size_t>(step.device)].instance;
    step.copy_from = from == kHost ? nullptr : devices_[static_cast<size_t>(from)].instance;
    step.copy_to = space == kHost ? nullptr : devices_[static_cast<size_t>(space)].instance;
    step.inputs.push_back(StepInput{slot, false, false, false});
    step.num_outputs = 1;
    const int index = static_cast<int>(plan_->steps.size());
    step.first_output = NewSlot(space, index);
    plan_->copy_labels.push_back(SlotLabel(slot));
    step.label = &plan_->copy_labels.back();
    plan_->steps.push_back(std::move(step));
    copies_.emplace(key, plan_->steps.back().first_output);
    return plan_->steps.back().first_output;
  }

  // A copy runs on (and its step stats name) the device that is not the host side.
  int CopyHostDevice(int from) const { return from; }

  std::string SlotLabel(int slot) const {
    for (const PlanFeed& f : plan_->feeds) {
      if (f.slot == slot) return f.output.Name();
    }
    const int producer = slot_producer_[static_cast<size_t>(slot)];
    const PlanStep& p = plan_->steps[static_cast<size_t>(producer)];
    if (p.op == nullptr) return *p.label;
    return StrCat(p.op->name(), ":", slot - p.first_output);
  }

  // The step of an operation of the graph or of the rewrites' scratch graph, or -1.
  int StepOf(const Operation* op) const {
    if (op->graph() == &graph_) return step_of_op_[static_cast<size_t>(op->id())];
    return step_of_scratch_op_[static_cast<size_t>(op->id())];
  }
  int& StepSlot(const Operation* op) {
    if (op->graph() == &graph_) return step_of_op_[static_cast<size_t>(op->id())];
    return step_of_scratch_op_[static_cast<size_t>(op->id())];
  }

  // A Const whose value a host-memory step hands out as it is (no kernel).
  static bool IsHostConstant(const Operation& op, const PlanDevice& dev) {
    return op.type() == "Const" && dev.host_accessible && op.constant_value() != nullptr;
  }
  // Does the op's step run a kernel on `dev` (AddOpStep's kKernel)?
  static bool NeedsKernel(const Operation& op, const PlanDevice& dev) {
    return !IsVariableOp(op) && !IsVarHandleOp(op) && !IsHostConstant(op, dev) && !IsControlFlowOp(op);
  }
  KernelCache* CacheFor(const Operation& op) const {
    return op.graph() == &graph_ ? r_.kernels : plan_->rewritten->kernels.get();
  }

  // `inputs`: where the op's inputs come from in this plan (its own, or as rewritten).
  // `state`: the kernel's state placement created, or null to look it up in the cache.
  Status AddOpStep(const Operation& op, const std::vector<Output>& inputs, int device,
                   const KernelRegistration* kernel, void* const* state) {
    const PlanDevice& dev = devices_[static_cast<size_t>(device)];
    PlanStep step;
    step.op = &op;
    step.device = device;
    step.instance = dev.instance;
    step.label = &op.name();
    if (IsVariableOp(op)) {
      // The variable's storage lives in its device's memory space: readers elsewhere get a
      // copy step like any other value's, and kernels colocated with it (Assign, Apply*)
      // update it in place there.
      step.kind = StepKind::kVariable;
      step.variable = r_.state->VariableFor(op);
      step.copy_to = dev.host_accessible ? nullptr : dev.instance;
    } else if (IsVarHandleOp(op)) {
      // A resource variable's handle names the same kind of slot (resource_variables.h): a
      // constant of the plan, made once.
      step.kind = StepKind::kConstant;
      if (r_.state == nullptr) return FailedPrecondition(OpLabel(op), ": a resource variable outside a session");
      const tf::AttrValue* dtype = op.FindAttr("dtype");
      TG_ASSIGN_OR_RETURN(Tensor handle,
                          MakeVariableHandle(r_.state->SharedVariableFor(op), SessionState::VariableKey(op),
                                             dtype != nullptr ? static_cast<DataType>(dtype->type()) : DT_INVALID));
      plan_->constant_views.push_back(std::move(handle));
      step.constant = &plan_->constant_views.back();
    } else if (IsHostConstant(op, dev)) {
      step.kind = StepKind::kConstant;
      // The graph's constant is never written: one version for its life (input_version).
      BufferVersions::Ensure(op.constant_value()->buffer());
      plan_->constant_views.push_back(op.constant_value()->BorrowedView());
      step.constant = &plan_->constant_views.back();
    } else if (IsControlFlowOp(op)) {
      step.kind = StepKind::kControlFlow;
    } else {
      if (kernel == nullptr) {
        return Internal("no kernel chosen for ", OpLabel(op), " on ", dev.name);
      }
      step.kind = StepKind::kKernel;
      step.kernel = kernel;
      if (state != nullptr) {
        step.kernel_state = *state;
      } else {
        TG_ASSIGN_OR_RETURN(step.kernel_state, CacheFor(op)->Get(op, device, *kernel));
      }
    }
    const int my_space = dev.host_accessible ? kHost : device;
    std::vector<char>& host_inputs = host_inputs_;
    std::vector<char>& host_outputs = host_outputs_;
    HostMemoryArgFlags(op, kernel, /*outputs=*/false, &host_inputs);
    HostMemoryArgFlags(op, kernel, /*outputs=*/true, &host_outputs);
    if (step.kind == StepKind::kControlFlow) ControlFlowHostArgs(op, &host_inputs, &host_outputs);
    for (int k = 0; k < op.num_inputs(); ++k) {
      const Output& source = inputs[static_cast<size_t>(k)];
      if (!Available(source)) {
        deferred_.push_back(DeferredInput{static_cast<int>(plan_->steps.size()), k,
                                          host_inputs[static_cast<size_t>(k)] ? kHost : my_space,
                                          source});
        step.inputs.push_back(StepInput{-1, false, false, false});
        continue;
      }
      int slot = SlotOf(source);
      const int need = host_inputs[static_cast<size_t>(k)] ? kHost : my_space;
      // A resource variable's handle, for a kernel that updates the variable (ResourceApply*),
      // is bound like a ref input: to the slot it names.
      const bool ref = IsRefType(op.input_type(k)) || TakesVariableHandle(op, k);
      if (ref && slot_space_[static_cast<size_t>(slot)] != need) {
        return Unimplemented(OpLabel(op), " takes a ref input from another memory space (",
                             SlotLabel(slot), "); colocate it with its variable");
      }
      slot = EnsureIn(slot, need);
      step.inputs.push_back(StepInput{slot, ref, false, false});
    }
    step.expensive = step.kind == StepKind::kKernel && EstimateCostNs(op, kernel) >= kExpensiveNs;
    step.validate_outputs = step.kind == StepKind::kKernel && r_.validate_kernel_outputs;
    step.validate_shapes = step.validate_outputs;
    const int index = static_cast<int>(plan_->steps.size());
    step.num_outputs = op.num_outputs();
    step.first_output = plan_->num_slots;
    for (int k = 0; k < op.num_outputs(); ++k) {
      const bool host = host_outputs[static_cast<size_t>(k)] || step.kind == StepKind::kConstant;
      NewSlot(host ? kHost : my_space, index);
    }
    StepSlot(&op) = index;
    plan_->steps.push_back(std::move(step));
    return Status::OK();
  }

  // A tensor whose slot exists already: fed, or made by a step added before.
  bool Available(const Output& o) const {
    if (StepOf(o.op) >= 0) return true;
    for (const PlanFeed& feed : plan_->feeds) {
      if (feed.output == o) return true;
    }
    return false;
  }

  // The control-flow steps' host-memory arguments: a Switch's predicate, LoopCond, a
  // Merge's value_index (the executor reads and writes them on the host).
  static void ControlFlowHostArgs(const Operation& op, std::vector<char>* inputs,
                                  std::vector<char>* outputs) {
    switch (ControlFlowKindOf(op)) {
      case ControlFlowKind::kSwitch:
        (*inputs)[1] = 1;
        break;
      case ControlFlowKind::kLoopCond:
        (*inputs)[0] = 1;
        (*outputs)[0] = 1;
        break;
      case ControlFlowKind::kMerge:
        (*outputs)[1] = 1;
        break;
      default:
        break;
    }
  }

  // Reads per slot, pinned slots, and the serial order's release and move points.
  void FinishSlots() {
    const size_t slots = static_cast<size_t>(plan_->num_slots);
    plan_->slot_reads.assign(slots, 0);
    plan_->slot_pinned.assign(slots, 0);
    for (int s : plan_->fetch_slots) plan_->slot_pinned[static_cast<size_t>(s)] = 1;
    std::vector<int> last_reader(slots, -1);
    for (size_t i = 0; i < plan_->steps.size(); ++i) {
      for (const StepInput& in : plan_->steps[i].inputs) {
        ++plan_->slot_reads[static_cast<size_t>(in.slot)];
        last_reader[static_cast<size_t>(in.slot)] = static_cast<int>(i);
      }
    }
    std::vector<char> holds_ref(slots, 0);  // per slot: can it hold a variable (a ref)?
    for (const PlanStep& step : plan_->steps) {
      for (int k = 0; k < step.num_outputs; ++k) {
        holds_ref[static_cast<size_t>(step.first_output + k)] =
            step.kind == StepKind::kVariable ||
            (step.kind == StepKind::kKernel && IsRefType(step.op->output_type(k)));
      }
    }
    for (PlanStep& step : plan_->steps) {
      step.plain_inputs = step.kind == StepKind::kKernel;
      for (const StepInput& in : step.inputs) {
        if (in.ref || holds_ref[static_cast<size_t>(in.slot)]) step.plain_inputs = false;
      }
      for (int k = 0; k < step.num_outputs; ++k) {
        const size_t s = static_cast<size_t>(step.first_output + k);
        if (step.kind == StepKind::kKernel && holds_ref[s]) step.ref_outputs = true;
        if (plan_->slot_reads[s] == 0 && !plan_->slot_pinned[s]) step.drops_outputs = true;
      }
    }
    for (size_t i = 0; i < plan_->steps.size(); ++i) {
      auto& inputs = plan_->steps[i].inputs;
      for (size_t k = 0; k < inputs.size(); ++k) {
        StepInput& in = inputs[k];
        if (plan_->slot_pinned[static_cast<size_t>(in.slot)] ||
            last_reader[static_cast<size_t>(in.slot)] != static_cast<int>(i)) {
          continue;
        }
        // Only the step's last read of the slot releases it; a sole read may move it.
        bool later = false, earlier = false;
        for (size_t j = 0; j < inputs.size(); ++j) {
          if (j == k || inputs[j].slot != in.slot) continue;
          (j > k ? later : earlier) = true;
        }
        if (later) continue;
        in.release = true;
        in.move = !earlier && !in.ref;
      }
    }
  }

  // Pending counts and successors from data and control dependencies.
  void FinishDependencies() {
    auto& steps = plan_->steps;
    std::vector<int> preds;
    for (size_t i = 0; i < steps.size(); ++i) {
      preds.clear();
      for (const StepInput& in : steps[i].inputs) {
        const int p = slot_producer_[static_cast<size_t>(in.slot)];
        if (p >= 0) preds.push_back(p);
      }
      if (i < step_controls_.size() && step_controls_[i] != nullptr) {
        for (const Operation* c : *step_controls_[i]) {
          const int p = StepOf(c);
          if (p >= 0) preds.push_back(p);
        }
      }
      std::sort(preds.begin(), preds.end());
      preds.erase(std::unique(preds.begin(), preds.end()), preds.end());
      steps[i].initial_pending = static_cast<int>(preds.size());
      for (int p : preds) steps[static_cast<size_t>(p)].successors.push_back(static_cast<int>(i));
      if (preds.empty()) plan_->initial_ready.push_back(static_cast<int>(i));
    }
    int expensive = 0;
    bool branches = plan_->initial_ready.size() > 1;
    for (const PlanStep& s : steps) {
      expensive += s.expensive ? 1 : 0;
      branches = branches || s.successors.size() > 1;
    }
    plan_->parallel = !r_.deterministic && r_.inter_op_threads > 1 && expensive >= 2 && branches;
  }

  const PlanRequest& r_;
  const Graph& graph_;
  const std::vector<PlanDevice>& devices_;
  std::unique_ptr<ExecutionPlan> plan_;
  std::vector<int> step_of_op_;     // per graph op: its step, or -1
  std::vector<int> step_of_scratch_op_;  // per op of the rewrites' scratch graph
  // Per step (null for copies): the control inputs the op waits for in this plan.
  std::vector<const std::vector<Operation*>*> step_controls_;
  std::vector<int> slot_space_;     // per slot: kHost or a device index
  std::vector<int> slot_producer_;  // per slot: the step writing it, -1 for a feed
  std::unordered_map<uint64_t, int> copies_;  // (slot, space) -> copy's slot
  std::vector<char> host_inputs_, host_outputs_;  // per op, reused
  struct DeferredInput {
    int step = 0;
    int input = 0;
    int space = kHost;
    Output source;  // the tensor the input reads
  };
  std::vector<DeferredInput> deferred_;  // inputs along loops' back edges
};

}  // namespace

StatusOr<std::unique_ptr<ExecutionPlan>> BuildPlan(const PlanRequest& request) {
  return PlanBuilder(request).Build();
}

Status ValidateKernelOutputs(const PlanStep& step, const Tensor* const* outputs) {
  const Operation& op = *step.op;
  bool reads_variable = false;
  for (int i = 0; i < op.num_inputs(); ++i) reads_variable = reads_variable || IsRefType(op.input(i).dtype()) || op.input(i).dtype() == DT_RESOURCE;
  for (int k = 0; k < step.num_outputs; ++k) {
    const Tensor* t = outputs[k];
    if (t == nullptr || IsRefType(op.output_type(k))) continue;
    const DataType want = BaseType(op.output_type(k));
    const PartialShape& inferred = op.output_shape(k);
    const bool dtype_differs = t->dtype() != want;
    const bool shape_differs = step.validate_shapes && !reads_variable && want != DT_RESOURCE &&
                               want != DT_VARIANT && inferred.IsFullyDefined() &&
                               inferred.dims() != t->dims();
    if (!dtype_differs && !shape_differs) continue;
    const KernelRegistration& kernel = *step.kernel;
    return InvalidArgument(
        op.type(), " node '", op.name(), "': kernel ", kernel.DebugString(),
        kernel.plugin != nullptr ? StrCat(" of plugin '", kernel.plugin->name, "'") : std::string(" of the core"),
        " produced output ", k, " as a ", DataTypeName(t->dtype()), " tensor of shape ",
        PartialShape(t->dims()).ToString(), ", but the op's ",
        dtype_differs ? StrCat("output type is ", DataTypeName(want))
                      : StrCat("shape function inferred ", inferred.ToString()),
        " (checked because kernel-output validation is on: TGRAPH_VALIDATE_KERNEL_OUTPUTS)");
  }
  return Status::OK();
}

KernelCache::~KernelCache() {
  for (auto& entries : by_device_) {
    for (Entry& entry : entries) {
      if (entry.state != nullptr && entry.kernel->destroy != nullptr) entry.kernel->destroy(entry.state);
    }
  }
}

KernelCache::Entry& KernelCache::EntryLocked(const Operation& op, int device) {
  if (by_device_.size() <= static_cast<size_t>(device)) by_device_.resize(static_cast<size_t>(device) + 1);
  std::vector<Entry>& entries = by_device_[static_cast<size_t>(device)];
  const size_t id = static_cast<size_t>(op.id());
  if (entries.size() <= id) entries.resize(std::max(id + 1, static_cast<size_t>(op.graph()->num_operations())));
  return entries[id];
}

StatusOr<bool> KernelCache::TryLocked(const Operation& op, const KernelRegistration& kernel,
                                      Entry* entry) {
  TG_ASSIGN_OR_RETURN(KernelCreation created, TryCreateKernel(kernel, op));
  if (created.declined) {
    declined_[op.id()].push_back(
        Declined{&kernel, DeclineMessage(kernel, op, created.reason)});
    return false;
  }
  *entry = Entry{&kernel, created.state};
  return true;
}

StatusOr<void*> KernelCache::Get(const Operation& op, int device, const KernelRegistration& kernel) {
  std::lock_guard<std::mutex> lock(mu_);
  Entry& entry = EntryLocked(op, device);
  if (entry.kernel != nullptr) return entry.state;
  if (WasDeclinedLocked(op, &kernel)) {
    for (const Declined& d : declined_[op.id()]) {
      if (d.kernel == &kernel) return Unimplemented(d.message);
    }
  }
  TG_ASSIGN_OR_RETURN(bool taken, TryLocked(op, kernel, &entry));
  if (!taken) return Unimplemented(declined_[op.id()].back().message);
  return entry.state;
}

bool KernelCache::WasDeclinedLocked(const Operation& op, const KernelRegistration* kernel) const {
  if (declined_.empty()) return false;
  auto it = declined_.find(op.id());
  if (it == declined_.end()) return false;
  for (const Declined& d : it->second) {
    if (d.kernel == kernel) return true;
  }
  return false;
}

StatusOr<KernelCache::Choice> KernelCache::Choose(const Operation& op, int device,
                                                  const std::string& device_type,
                                                  const KernelRegistration* first) {
  std::lock_guard<std::mutex> lock(mu_);
  Entry& entry = EntryLocked(op, device);
  Choice choice;
  if (entry.kernel != nullptr) {
    choice.kernel = entry.kernel;
    choice.state = entry.state;
    return choice;
  }
  auto was_declined = [&](const KernelRegistration* k) { return WasDeclinedLocked(op, k); };
  // The common case: the registry's first choice takes the node.
  if (first != nullptr && !was_declined(first)) {
    TG_ASSIGN_OR_RETURN(bool taken, TryLocked(op, *first, &entry));
    if (taken) {
      choice.kernel = first;
      choice.state = entry.state;
      return choice;
    }
  }
  for (const KernelRegistration* k :
       KernelRegistry::Global()->Candidates(op.type(), op.attrs(), device_type)) {
    if (was_declined(k)) continue;
    TG_ASSIGN_OR_RETURN(bool taken, TryLocked(op, *k, &entry));
    if (taken) {
      choice.kernel = k;
      choice.state = entry.state;
      return choice;
    }
  }
  auto it = declined_.find(op.id());
  if (it != declined_.end()) {
    for (const Declined& d : it->second) {
      if (d.kernel->device_type == device_type) choice.declines.push_back(d.message);
    }
  }
  return choice;
}

}  // namespace tgraph
