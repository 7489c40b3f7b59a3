#include "core/exec/control_flow_executor.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <vector>

#include "core/exec/device_copy.h"
#include "core/exec/resource_variables.h"
#include "core/plugin/kernel_context.h"

namespace tgraph {
namespace {

using Clock = std::chrono::steady_clock;

std::string NodeLabel(const PlanStep& step) {
  return step.op != nullptr ? StrCat("node '", step.op->name(), "' (", step.op->type(), ")")
                            : StrCat("copy of ", *step.label);
}

// One value travelling along an edge: a tensor or a variable, or nothing (dead). A
// TG_Tensor, so a kernel reads its inputs from (and writes its outputs into) entries.
struct Entry : TG_Tensor {
  VariableSlot* ref = nullptr;
  bool has_value = false;
  void Clear() {
    tensor.Clear();
    ref = nullptr;
    has_value = false;
  }
};

struct FrameState;

// One iteration of one frame instance: its steps' pending counts and input values.
struct IterState {
  std::vector<Entry> inputs;  // per input entry of the frame
  std::vector<int> pending;   // per local step
  std::vector<int> dead;      // per local step: dead inputs seen
  int outstanding_ops = 0;     // ready or running steps of this iteration
  int outstanding_frames = 0;  // child frames started from this iteration and not done
  std::vector<FrameState*> children;
};

// One instance of a frame: the root, or a loop started from an iteration of its parent.
struct FrameState {
  int id = 0;  // static frame
  FrameState* parent = nullptr;
  int64_t parent_iter = 0;
  int64_t iteration_count = 0;  // the newest iteration
  int num_outstanding_iterations = 1;
  int num_pending_inputs = 0;  // Enters not yet arrived
  int max_parallel = 1;
  // A ring of at least max_parallel + 1 (a power of two: indexed with a mask, not a
  // division, several times per step); null: done.
  std::vector<IterState*> iterations;
  int64_t mask = 0;
  struct Deferred {
    int step = 0;
    Entry value;
    bool dead = false;
  };
  std::vector<Deferred> next_iter_roots;  // NextIteration values waiting for a free iteration
  std::vector<Deferred> loop_invariants;  // constant Enters' values, given to every iteration
  std::vector<int> dead_exits;            // Exits dead in the newest iteration
  IterState*& Iter(int64_t i) { return iterations[static_cast<size_t>(i & mask)]; }
};

struct Ready {
  int step = 0;
  FrameState* frame = nullptr;
  int64_t iter = 0;
  bool dead = false;
};

// Memory a run state keeps between runs of its plan: iteration states per static frame,
// frame states, the ready stack and the output entries.
struct FlowScratch {
  std::vector<std::vector<IterState*>> pools;  // per static frame: iterations to reuse
  std::vector<FrameState*> free_frames;
  std::vector<FrameState*> live_frames;  // during a run
  std::vector<Ready> ready;
  std::vector<Entry> outs;
  ~FlowScratch() {
    for (auto& pool : pools) {
      for (IterState* it : pool) delete it;
    }
    for (FrameState* f : free_frames) delete f;
  }
};

FlowScratch& ScratchFor(RunState& rs, const ControlFlowPlan& cf) {
  if (rs.control_flow_scratch == nullptr) {
    auto scratch = std::make_shared<FlowScratch>();
    scratch->pools.resize(cf.frames.size());
    scratch->outs.resize(static_cast<size_t>(std::max(cf.max_outputs, 2)));
    rs.control_flow_scratch = scratch;
  }
  return *static_cast<FlowScratch*>(rs.control_flow_scratch.get());
}

class FlowRun {
 public:
  explicit FlowRun(const ExecuteArgs& args)
      : args_(args), plan_(*args.plan), cf_(*args.plan->control_flow), rs_(*args.state),
        scratch_(ScratchFor(*args.state, cf_)), ready_(scratch_.ready), outs_(scratch_.outs),
        pools_(scratch_.pools), frames_(scratch_.live_frames) {
    if (args.trace != nullptr) start_ = Clock::now();
  }

  // Everything goes back to the scratch, emptied: frames left over (a failed run, a loop on
  // a dead branch whose inputs never all arrived) included.
  ~FlowRun() {
    ready_.clear();
    for (Entry& e : outs_) e.Clear();
    for (FrameState* f : frames_) ReleaseFrame(f);
    frames_.clear();
  }

  Status Run() {
    FrameState* root = NewFrame(0, nullptr, 0);
    // Feeds are root-frame values, delivered before anything runs.
    for (const FlowFeedEdge& e : cf_.feed_edges) {
      SlotValue& v = rs_.values[static_cast<size_t>(e.slot)];
      Entry value;
      value.tensor = v.tensor;
      value.ref = v.ref;
      value.has_value = true;
      Deliver(root, 0, e.dst, e.dst_input, value, false, /*move=*/false);
    }
    for (const PlanFeed& f : plan_.feeds) {
      if (f.slot >= 0 && !plan_.slot_pinned[static_cast<size_t>(f.slot)]) {
        SlotValue& v = rs_.values[static_cast<size_t>(f.slot)];
        v.tensor.Clear();
        v.ref = nullptr;
      }
    }
    for (int s : cf_.root_sources) Push(Ready{s, root, 0, false});
    while (!ready_.empty()) {
      const Ready r = ready_.back();
      ready_.pop_back();
      TG_RETURN_IF_ERROR(Process(r));
    }
    return Status::OK();
  }

 private:
  // ---- frames and iterations ----

  IterState* NewIter(int frame) {
    const FlowFrame& info = cf_.frames[static_cast<size_t>(frame)];
    std::vector<IterState*>& pool = pools_[static_cast<size_t>(frame)];
    IterState* it;
    if (!pool.empty()) {
      it = pool.back();
      pool.pop_back();
      std::fill(it->dead.begin(), it->dead.end(), 0);
    } else {
      it = new IterState;
      it->inputs.resize(static_cast<size_t>(info.num_inputs));
      it->dead.assign(info.initial_pending.size(), 0);
    }
    it->pending = info.initial_pending;
    it->outstanding_ops = 0;
    it->outstanding_frames = 0;
    it->children.clear();
    return it;
  }

  void FreeIter(int frame, IterState* it) {
    for (Entry& e : it->inputs) {
      if (e.has_value) e.Clear();  // inputs of steps that never became ready
    }
    pools_[static_cast<size_t>(frame)].push_back(it);
  }

  FrameState* NewFrame(int id, FrameState* parent, int64_t parent_iter) {
    const FlowFrame& info = cf_.frames[static_cast<size_t>(id)];
    FrameState* f;
    if (!scratch_.free_frames.empty()) {
      f = scratch_.free_frames.back();
      scratch_.free_frames.pop_back();
    } else {
      f = new FrameState;
    }
    frames_.push_back(f);
    f->iteration_count = 0;
    f->num_outstanding_iterations = 1;
    f->id = id;
    f->parent = parent;
    f->parent_iter = parent_iter;
    f->max_parallel = info.parallel_iterations;
    f->num_pending_inputs = info.num_enters;
    size_t ring = 2;
    while (ring < static_cast<size_t>(f->max_parallel) + 1) ring *= 2;
    f->iterations.assign(ring, nullptr);
    f->mask = static_cast<int64_t>(ring) - 1;
    f->Iter(0) = NewIter(id);
    return f;
  }

  FrameState* FindOrCreateChild(FrameState* f, int64_t iter, int child_id) {
    IterState* it = f->Iter(iter);
    for (FrameState* c : it->children) {
      if (c->id == child_id) return c;
    }
    FrameState* child = NewFrame(child_id, f, iter);
    it->children.push_back(child);
    ++it->outstanding_frames;
    return child;
  }

  bool IsIterationDone(FrameState* f, int64_t iter) {
    IterState* it = f->Iter(iter);
    if (it == nullptr || it->outstanding_ops != 0 || it->outstanding_frames != 0) return false;
    if (iter == 0) return f->num_pending_inputs == 0;
    return f->Iter(iter - 1) == nullptr;  // the one before finished
  }

  // Frees the finished iterations from `iter` on, starting deferred ones; whether the
  // whole frame is done.
  bool CleanupIterations(FrameState* f, int64_t iter) {
    for (int64_t cur = iter; cur <= f->iteration_count && IsIterationDone(f, cur); ++cur) {
      FreeIter(f->id, f->Iter(cur));
      f->Iter(cur) = nullptr;
      --f->num_outstanding_iterations;
      if (!f->next_iter_roots.empty()) IncrementIteration(f);
    }
    return f->num_pending_inputs == 0 && f->num_outstanding_iterations == 0;
  }

  void IncrementIteration(FrameState* f) {
    const int64_t next = ++f->iteration_count;
    f->Iter(next) = NewIter(f->id);
    ++f->num_outstanding_iterations;
    f->dead_exits.clear();
    std::vector<FrameState::Deferred> roots = std::move(f->next_iter_roots);
    f->next_iter_roots.clear();
    for (FrameState::Deferred& d : roots) Activate(f, next, d.step, &d.value, d.dead, /*move=*/true);
    for (FrameState::Deferred& d : f->loop_invariants) {
      Activate(f, next, d.step, &d.value, d.dead, /*move=*/false);
    }
  }

  // A finished iteration: the frame may be done, and with it its parent's iteration.
  bool DecrementOutstandingOps(FrameState* f, int64_t iter) {
    IterState* it = f->Iter(iter);
    if (--it->outstanding_ops != 0) return false;
    return CleanupIterations(f, iter);
  }

  void DeleteFrame(FrameState* f) {
    FrameState* parent = f->parent;
    // Exits dead in the last iteration make their consumers in the parent dead.
    for (int exit : f->dead_exits) {
      Entry none[1];
      Activate(parent, f->parent_iter, exit, none, /*dead=*/true, /*move=*/false);
    }
    IterState* pit = parent->Iter(f->parent_iter);
    std::erase(pit->children, f);
    std::erase(frames_, f);
    ReleaseFrame(f);
  }

  // A frame state and its iterations back to the scratch, emptied.
  void ReleaseFrame(FrameState* f) {
    for (IterState*& it : f->iterations) {
      if (it != nullptr) FreeIter(f->id, it);
      it = nullptr;
    }
    f->next_iter_roots.clear();
    f->loop_invariants.clear();
    f->dead_exits.clear();
    scratch_.free_frames.push_back(f);
  }

  void CleanupFramesIterations(FrameState* f, int64_t iter) {
    --f->Iter(iter)->outstanding_frames;
    if (!CleanupIterations(f, iter) || f->parent == nullptr) return;
    FrameState* parent = f->parent;
    const int64_t parent_iter = f->parent_iter;
    DeleteFrame(f);
    CleanupFramesIterations(parent, parent_iter);
  }

  void FinishFrameIfDone(FrameState* f, bool done) {
    if (!done || f->parent == nullptr) return;
    FrameState* parent = f->parent;
    const int64_t parent_iter = f->parent_iter;
    DeleteFrame(f);
    CleanupFramesIterations(parent, parent_iter);
  }

  // ---- activation ----

  void Push(const Ready& r) {
    ++r.frame->Iter(r.iter)->outstanding_ops;
    ready_.push_back(r);
  }

  void Store(IterState* it, const FlowStep& d, int input, Entry* value, bool move) {
    Entry& slot = it->inputs[static_cast<size_t>(d.input_base + input)];
    if (move) {
      slot.tensor = std::move(value->tensor);
    } else {
      slot.tensor = value->tensor;
    }
    slot.ref = value->ref;
    slot.has_value = true;
  }

  // One edge's arrival at `dst` in iteration `iter` of `f` (TensorFlow's ActivateNodes).
  void Deliver(FrameState* f, int64_t iter, int dst, int dst_input, Entry& value, bool src_dead,
               bool move) {
    IterState* it = f->Iter(iter);
    const FlowStep& d = cf_.steps[static_cast<size_t>(dst)];
    int& pending = it->pending[static_cast<size_t>(d.local)];
    int& dead = it->dead[static_cast<size_t>(d.local)];
    bool ready = false, dst_dead = false;
    if (d.kind == ControlFlowKind::kMerge) {
      if (dst_input < 0) {
        pending -= 2;
        dst_dead = dead == d.num_inputs;
        ready = pending == 0 || (pending == 1 && dst_dead);
      } else if (value.has_value) {
        const int count = pending;
        pending &= ~1;  // a live input has arrived: only the first is used
        ready = count == 1;
        if ((count & 1) != 0) Store(it, d, dst_input, &value, move);
      } else {
        ++dead;
        dst_dead = dead == d.num_inputs;
        ready = pending == 1 && dst_dead;
      }
    } else {
      const bool data = dst_input >= 0;
      if (data && value.has_value) Store(it, d, dst_input, &value, move);
      if (src_dead || (data && !value.has_value)) ++dead;
      ready = --pending == 0;
      dst_dead = dead > 0 && d.kind != ControlFlowKind::kControlTrigger;
    }
    if (ready) Push(Ready{dst, f, iter, dst_dead});
  }

  void Activate(FrameState* f, int64_t iter, int src, Entry* outs, bool src_dead, bool move) {
    for (const FlowEdge& e : cf_.steps[static_cast<size_t>(src)].edges) {
      Entry& value = outs[e.dst_input >= 0 ? e.src_output : 0];
      if (e.dst_input < 0) {
        Deliver(f, iter, e.dst, -1, none_, src_dead, false);  // reads no value
      } else {
        Deliver(f, iter, e.dst, e.dst_input, value, src_dead, move && e.last_use);
      }
    }
  }

  // ---- running a step ----

  Status Process(const Ready& r) {
    const PlanStep& step = plan_.steps[static_cast<size_t>(r.step)];
    const FlowStep& fs = cf_.steps[static_cast<size_t>(r.step)];
    Entry* in = r.frame->Iter(r.iter)->inputs.data() + fs.input_base;
    Entry* outs = outs_.data();
    for (int k = 0; k < step.num_outputs; ++k) outs[k].Clear();
    const auto begin = args_.trace != nullptr ? Clock::now() : Clock::time_point();
    Status status;
    if (!r.dead) {
      switch (fs.kind) {
        case ControlFlowKind::kNone:
          status = Compute(r.step, step, in, outs);
          break;
        case ControlFlowKind::kSwitch: {
          auto pred = ReadPredicate(step, in[1]);
          if (!pred.ok()) {
            status = pred.status();
            break;
          }
          outs[*pred ? 1 : 0] = std::move(in[0]);
          break;
        }
        case ControlFlowKind::kMerge:
          for (int k = 0; k < fs.num_inputs; ++k) {
            if (!in[k].has_value) continue;
            outs[0] = std::move(in[k]);
            if (!fs.uses_output1) break;  // nobody reads value_index: no tensor for it
            auto index = Tensor::Allocate(DT_INT32, {});
            if (!index.ok()) {
              status = index.status();
              break;
            }
            *index->flat<int32_t>() = k;
            outs[1].tensor = std::move(index).value();
            outs[1].has_value = true;
            break;
          }
          break;
        case ControlFlowKind::kEnter:
        case ControlFlowKind::kExit:
        case ControlFlowKind::kNextIteration:
        case ControlFlowKind::kLoopCond:
          outs[0] = std::move(in[0]);
          break;
        case ControlFlowKind::kControlTrigger:
          break;
      }
    }
    for (int k = 0; k < fs.num_inputs; ++k) {
      if (in[k].has_value) in[k].Clear();
    }
    TG_RETURN_IF_ERROR(status);
    if (fs.stores_fetch) StoreFetches(step, outs);
    if (args_.trace != nullptr) Record(step, begin, outs);
    Propagate(r, fs, outs);
    return Status::OK();
  }

  StatusOr<bool> ReadPredicate(const PlanStep& step, const Entry& e) {
    Tensor value = e.tensor;
    if (e.ref != nullptr) {
      std::lock_guard<std::mutex> lock(e.ref->mu);
      value = e.ref->value;
    }
    if (value.dtype() != DT_BOOL || value.NumElements() != 1 || value.data() == nullptr) {
      return InvalidArgument(NodeLabel(step), ": the predicate must be a bool scalar, but is a ",
                             DataTypeName(value.dtype()), " of shape ", value.shape().ToString());
    }
    return *value.flat<bool>();
  }

  // An ordinary step (kernel, constant, variable, copy) on its inputs' values.
  Status Compute(int i, const PlanStep& step, Entry* in, Entry* outs) {
    switch (step.kind) {
      case StepKind::kConstant:
        outs[0].tensor = *step.constant;
        outs[0].has_value = true;
        return Status::OK();
      case StepKind::kVariable:
        TG_RETURN_IF_ERROR(MoveVariableTo(*step.variable, step.copy_to));
        outs[0].ref = step.variable;
        outs[0].has_value = true;
        return Status::OK();
      case StepKind::kCopy: {
        Tensor value = std::move(in[0].tensor);
        if (in[0].ref != nullptr) {
          std::lock_guard<std::mutex> lock(in[0].ref->mu);
          if (!in[0].ref->initialized) {
            return FailedPrecondition("Attempting to use uninitialized value ", in[0].ref->name,
                                      " (copying ", *step.label, ")");
          }
          value = in[0].ref->value;
        }
        TG_ASSIGN_OR_RETURN(outs[0].tensor, CopyTensor(value, step.copy_from, step.copy_to, *step.label));
        outs[0].has_value = true;
        return Status::OK();
      }
      case StepKind::kKernel:
        return RunKernel(i, step, in, outs);
      case StepKind::kControlFlow:
        break;
    }
    return Internal(NodeLabel(step), ": not an ordinary step");
  }

  Status RunKernel(int i, const PlanStep& step, Entry* in, Entry* outs) {
    TG_KernelContext& ctx = rs_.contexts[static_cast<size_t>(i)];
    const Operation& op = *step.op;
    bool in_place = true;  // every input read from its entry (cleared by the caller)
    for (size_t k = 0; k < step.inputs.size(); ++k) {
      Entry& e = in[k];
      KernelCallInput& call = ctx.inputs[k];
      call.may_forward = true;
      call.ref = nullptr;
      if (!step.inputs[k].ref && e.ref == nullptr) {
        call.value = &e;  // the kernel may take the buffer: nothing else reads this entry
        continue;
      }
      in_place = false;
      call.value = &call.own;
      Status s;
      if (step.inputs[k].ref) {
        // A ref, or a resource variable's handle naming the slot (resource_variables.h).
        VariableSlot* slot = e.ref != nullptr ? e.ref : VariableOfHandle(e.tensor);
        if (slot == nullptr) {
          s = e.tensor.dtype() == DT_RESOURCE
                  ? InvalidArgument(NodeLabel(step), ": input ", k, " is not a resource variable's handle")
                  : Internal(NodeLabel(step), ": input ", k, " needs a variable, but its producer gave a value");
        } else {
          std::lock_guard<std::mutex> lock(slot->mu);
          if (!slot->initialized && !op.registration().op_def.allows_uninitialized_input()) {
            s = FailedPrecondition("Attempting to use uninitialized value ", slot->name, " (read by ",
                                   NodeLabel(step), ")");
          } else {
            call.ref = slot;
            call.own.tensor = slot->value;
          }
        }
      } else {
        std::lock_guard<std::mutex> lock(e.ref->mu);
        if (!e.ref->initialized) {
          s = FailedPrecondition("Attempting to use uninitialized value ", e.ref->name, " (read by ",
                                 NodeLabel(step), ")");
        } else {
          call.own.tensor = e.ref->value;
        }
      }
      if (!s.ok()) {
        for (size_t j = 0; j <= k; ++j) {
          ctx.inputs[j].own.tensor.Clear();
          ctx.inputs[j].ref = nullptr;
          ctx.inputs[j].value = &ctx.inputs[j].own;
        }
        return s;
      }
    }
    ctx.inputs_bound = in_place;
    for (int k = 0; k < step.num_outputs; ++k) ctx.outputs[static_cast<size_t>(k)].value = &outs[k];
    TG_RETURN_IF_ERROR(RunKernelCompute(*step.kernel, step.kernel_state, &ctx));
    for (int k = 0; k < step.num_outputs; ++k) {
      outs[k].ref = step.ref_outputs ? ctx.outputs[static_cast<size_t>(k)].ref : nullptr;
      outs[k].has_value = true;
    }
    if (step.validate_outputs) {  // SessionOptions::validate_kernel_outputs
      std::vector<const Tensor*> produced;
      for (int k = 0; k < step.num_outputs; ++k) {
        produced.push_back(outs[k].ref == nullptr ? &outs[k].tensor : nullptr);
      }
      TG_RETURN_IF_ERROR(ValidateKernelOutputs(step, produced.data()));
    }
    return Status::OK();
  }

  void StoreFetches(const PlanStep& step, const Entry* outs) {
    for (int k = 0; k < step.num_outputs; ++k) {
      const size_t slot = static_cast<size_t>(step.first_output + k);
      if (!plan_.slot_pinned[slot] || !outs[k].has_value) continue;
      rs_.values[slot].tensor = outs[k].tensor;
      rs_.values[slot].ref = outs[k].ref;
    }
  }

  // Where the outputs go (TensorFlow's PropagateOutputs), then the step's iteration loses an
  // outstanding op.
  void Propagate(const Ready& r, const FlowStep& fs, Entry* outs) {
    FrameState* f = r.frame;
    switch (fs.kind) {
      case ControlFlowKind::kEnter: {
        FrameState* child = FindOrCreateChild(f, r.iter, fs.out_frame);
        if (fs.constant_enter) {
          child->loop_invariants.push_back(FrameState::Deferred{r.step, outs[0], r.dead});
          FrameState::Deferred& inv = child->loop_invariants.back();
          const int64_t first = child->iteration_count - child->num_outstanding_iterations + 1;
          for (int64_t i = std::max<int64_t>(first, 0); i <= child->iteration_count; ++i) {
            if (child->Iter(i) != nullptr) Activate(child, i, r.step, &inv.value, r.dead, false);
          }
        } else {
          Activate(child, 0, r.step, outs, r.dead, true);
        }
        --child->num_pending_inputs;
        // All of a frame's inputs have arrived and nothing in it became ready (a loop on a
        // dead branch): it is done.
        if (child->num_pending_inputs == 0 && child->Iter(0) != nullptr &&
            child->Iter(0)->outstanding_ops == 0) {
          FinishFrameIfDone(child, CleanupIterations(child, 0));
        }
        break;
      }
      case ControlFlowKind::kExit:
        if (r.dead) {
          if (r.iter == f->iteration_count) f->dead_exits.push_back(r.step);
        } else {
          Activate(f->parent, f->parent_iter, r.step, outs, false, true);
        }
        break;
      case ControlFlowKind::kNextIteration:
        if (r.dead) break;  // deadness stops here: the loop has ended on this path
        if (r.iter == f->iteration_count && f->num_outstanding_iterations == f->max_parallel) {
          f->next_iter_roots.push_back(FrameState::Deferred{r.step, std::move(outs[0]), false});
          break;
        }
        if (r.iter == f->iteration_count) IncrementIteration(f);
        Activate(f, r.iter + 1, r.step, outs, false, true);
        break;
      default:
        Activate(f, r.iter, r.step, outs, r.dead, true);
        break;
    }
    FinishFrameIfDone(f, DecrementOutstandingOps(f, r.iter));
  }

  void Record(const PlanStep& step, Clock::time_point begin, const Entry* outs) {
    NodeStepStats s;
    s.node_name = *step.label;
    s.op_type = step.op != nullptr ? step.op->type() : std::string("_Copy");
    s.device = plan_.device_names[static_cast<size_t>(step.device)];
    const auto end = Clock::now();
    s.start_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(begin - start_).count();
    s.duration_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(end - begin).count();
    for (int k = 0; k < step.num_outputs; ++k) s.output_bytes += static_cast<int64_t>(outs[k].tensor.ByteSize());
    args_.trace->step_stats.push_back(std::move(s));
  }

  const ExecuteArgs& args_;
  const ExecutionPlan& plan_;
  const ControlFlowPlan& cf_;
  RunState& rs_;
  FlowScratch& scratch_;
  std::vector<Ready>& ready_;
  std::vector<Entry>& outs_;  // the running step's outputs
  Entry none_;                // what a control edge carries
  std::vector<std::vector<IterState*>>& pools_;  // per static frame: iterations to reuse
  std::vector<FrameState*>& frames_;             // live frame instances
  Clock::time_point start_;
};

}  // namespace

Status ExecuteControlFlow(const ExecuteArgs& args) {
  FlowRun run(args);
  return run.Run();
}

}  // namespace tgraph
