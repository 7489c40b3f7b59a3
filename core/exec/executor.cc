#include "core/exec/executor.h"

#include <thread>

#include "core/exec/control_flow_executor.h"
#include "core/exec/cpu_relax.h"
#include "core/exec/device_copy.h"
#include "core/exec/resource_variables.h"
#include "core/exec/thread_pool.h"
#include "core/rewrite/rewriter.h"

namespace tgraph {
namespace {

using Clock = std::chrono::steady_clock;

std::string OpLabel(const Operation& op) { return StrCat("node '", op.name(), "' (", op.type(), ")"); }

// `v = SlotValue{}`, in place (run once or more per step: no temporary).
void Clear(SlotValue& v) {
  v.tensor.Clear();
  v.ref = nullptr;
}

// The value of a slot as a plain tensor: a ref's variable is read (it must be initialized).
Status ReadSlot(const SlotValue& v, const PlanStep& reader, Tensor* out) {
  if (v.ref == nullptr) {
    *out = v.tensor;
    return Status::OK();
  }
  std::lock_guard<std::mutex> lock(v.ref->mu);
  if (!v.ref->initialized) {
    return FailedPrecondition("Attempting to use uninitialized value ", v.ref->name,
                              reader.op != nullptr ? StrCat(" (read by ", OpLabel(*reader.op), ")")
                                                   : StrCat(" (copying ", *reader.label, ")"));
  }
  *out = v.ref->value;
  return Status::OK();
}

class StepRunner {
 public:
  StepRunner(const ExecuteArgs& args, bool parallel)
      : plan_(*args.plan), rs_(*args.state), parallel_(parallel) {}

  Status Run(int i) {
    const PlanStep& step = plan_.steps[static_cast<size_t>(i)];
    // Pointer arithmetic, not &values[k]: a step with no outputs (NoOp, Assert) may sit at
    // the end, where first_output == values.size() and values may be empty (found by
    // fuzz/op_run: binding a reference to values[size] is undefined behaviour).
    SlotValue* out = rs_.values.data() + step.first_output;
    switch (step.kind) {
      case StepKind::kConstant:
        out->tensor = *step.constant;
        break;
      case StepKind::kVariable:
        TG_RETURN_IF_ERROR(MoveVariableTo(*step.variable, step.copy_to));
        out->ref = step.variable;
        break;
      case StepKind::kCopy: {
        Tensor value;
        TG_RETURN_IF_ERROR(ReadSlot(rs_.values[static_cast<size_t>(step.inputs[0].slot)], step, &value));
        ReleaseInputs(step);
        TG_ASSIGN_OR_RETURN(out->tensor, CopyTensor(value, step.copy_from, step.copy_to, *step.label));
        break;
      }
      case StepKind::kKernel:
        TG_RETURN_IF_ERROR(RunKernel(i, step));
        break;
      case StepKind::kControlFlow:  // plans with these go to the frame executor
        return Internal(*step.label, ": a control-flow step outside the frame executor");
    }
    if (step.drops_outputs) DropUnread(step);
    return Status::OK();
  }

 private:
  Status RunKernel(int i, const PlanStep& step) {
    TG_KernelContext& ctx = rs_.contexts[static_cast<size_t>(i)];
    // A serial run's plain inputs were bound to their slots when the run state was made.
    if (parallel_ || !step.plain_inputs) TG_RETURN_IF_ERROR(BindInputs(ctx, step));
    // A parallel run's inputs are the context's own copies: the slots read last go now,
    // so an input buffer only this call holds can be forwarded.
    if (parallel_) ReleaseInputs(step);
    Status status = RunKernelCompute(*step.kernel, step.kernel_state, &ctx);
    if (!parallel_) ReleaseInputsSerial(step);
    TG_RETURN_IF_ERROR(status);
    if (step.validate_outputs) TG_RETURN_IF_ERROR(Validate(step, ctx));
    // Values are in their slots already; a ref output leaves its variable there.
    if (step.ref_outputs) {
      for (int k = 0; k < step.num_outputs; ++k) {
        if (VariableSlot* ref = ctx.outputs[static_cast<size_t>(k)].ref) {
          rs_.values[static_cast<size_t>(step.first_output + k)].ref = ref;
        }
      }
    }
    return Status::OK();
  }

  // SessionOptions::validate_kernel_outputs, out of the common path.
  static Status Validate(const PlanStep& step, const TG_KernelContext& ctx) {
    std::vector<const Tensor*> outputs;
    for (const KernelCallOutput& out : ctx.outputs) {
      outputs.push_back(out.ref == nullptr && out.value != nullptr ? &out.value->tensor : nullptr);
    }
    return ValidateKernelOutputs(step, outputs.data());
  }

  // Points each input of the call at what it reads this run: its slot (a serial run's plain
  // value) or a copy in the context (a parallel run, a ref, a variable's value).
  Status BindInputs(TG_KernelContext& ctx, const PlanStep& step) {
    const Operation& op = *step.op;
    for (size_t k = 0; k < step.inputs.size(); ++k) {
      const StepInput& in = step.inputs[k];
      SlotValue& v = rs_.values[static_cast<size_t>(in.slot)];
      KernelCallInput& call = ctx.inputs[k];
      if (!in.ref && v.ref == nullptr && !parallel_) {
        // The kernel reads the slot in place; it may take the buffer when this is the
        // slot's last read (nothing else reads it later).
        call.value = &v;
        call.may_forward = in.move;
        continue;
      }
      call.value = &call.own;
      call.may_forward = true;
      Tensor& dst = call.own.tensor;
      if (in.ref) {
        // A ref, or a resource variable's handle naming the slot (resource_variables.h).
        VariableSlot* slot = v.ref != nullptr ? v.ref : VariableOfHandle(v.tensor);
        if (slot == nullptr) {
          ClearInputs(ctx, k);
          return v.tensor.dtype() == DT_RESOURCE
                     ? InvalidArgument(OpLabel(op), ": input ", k, " is not a resource variable's handle")
                     : Internal(OpLabel(op), ": input ", k, " needs a variable, but its producer gave a value");
        }
        std::lock_guard<std::mutex> lock(slot->mu);
        if (!slot->initialized && !op.registration().op_def.allows_uninitialized_input()) {
          ClearInputs(ctx, k);
          return FailedPrecondition("Attempting to use uninitialized value ", slot->name,
                                    " (read by ", OpLabel(op), ")");
        }
        call.ref = slot;
        dst = slot->value;
      } else if (v.ref != nullptr) {
        Status s = ReadSlot(v, step, &dst);
        if (!s.ok()) {
          ClearInputs(ctx, k);
          return s;
        }
      } else {
        dst = v.tensor;
      }
    }
    return Status::OK();
  }

  // Inputs copied in before a failure are let go.
  static void ClearInputs(TG_KernelContext& ctx, size_t upto) {
    for (size_t k = 0; k <= upto && k < ctx.inputs.size(); ++k) {
      KernelCallInput& call = ctx.inputs[k];
      call.own.tensor.Clear();
      call.ref = nullptr;
      call.value = &call.own;
    }
  }

  // Slots read for the last time are released: in a parallel run before compute (the
  // reader holds its own copy), in a serial run after it (the kernel read the slot).
  void ReleaseInputs(const PlanStep& step) {
    if (!parallel_) return ReleaseInputsSerial(step);
    for (const StepInput& in : step.inputs) {
      if (rs_.reads_left[static_cast<size_t>(in.slot)].fetch_sub(1, std::memory_order_acq_rel) == 1 &&
          !plan_.slot_pinned[static_cast<size_t>(in.slot)]) {
        Clear(rs_.values[static_cast<size_t>(in.slot)]);
      }
    }
  }
  // A serial run's release points are in the plan. Small, so it is inlined into every step.
  void ReleaseInputsSerial(const PlanStep& step) {
    for (const StepInput& in : step.inputs) {
      if (in.release) Clear(rs_.values[static_cast<size_t>(in.slot)]);
    }
  }

  // Outputs nobody reads or fetches go at once.
  void DropUnread(const PlanStep& step) {
    for (int k = 0; k < step.num_outputs; ++k) {
      const size_t s = static_cast<size_t>(step.first_output + k);
      if (plan_.slot_reads[s] == 0 && !plan_.slot_pinned[s]) Clear(rs_.values[s]);
    }
  }

  const ExecutionPlan& plan_;
  RunState& rs_;
  bool parallel_;
};

int64_t OutputBytes(const ExecutionPlan& plan, const RunState& rs, const PlanStep& step) {
  int64_t bytes = 0;
  for (int k = 0; k < step.num_outputs; ++k) {
    const SlotValue& v = rs.values[static_cast<size_t>(step.first_output + k)];
    if (v.ref != nullptr) {
      std::lock_guard<std::mutex> lock(v.ref->mu);
      bytes += static_cast<int64_t>(v.ref->value.ByteSize());
    } else if (plan.slot_reads[static_cast<size_t>(step.first_output + k)] > 0 ||
               plan.slot_pinned[static_cast<size_t>(step.first_output + k)]) {
      bytes += static_cast<int64_t>(v.tensor.ByteSize());
    }
  }
  return bytes;
}

// Step stats, when tracing.
class Tracer {
 public:
  Tracer(const ExecuteArgs& args) : args_(args), start_(Clock::now()) {}
  bool on() const { return args_.trace != nullptr; }
  Clock::time_point Now() const { return Clock::now(); }
  void Record(int i, Clock::time_point begin, Clock::time_point end, int thread) {
    const PlanStep& step = args_.plan->steps[static_cast<size_t>(i)];
    NodeStepStats s;
    s.node_name = *step.label;
    s.op_type = step.op != nullptr ? step.op->type() : std::string("_Copy");
    s.device = args_.plan->device_names[static_cast<size_t>(step.device)];
    s.start_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(begin - start_).count();
    s.duration_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(end - begin).count();
    s.output_bytes = OutputBytes(*args_.plan, *args_.state, step);
    s.thread_id = thread;
    std::lock_guard<std::mutex> lock(mu_);
    args_.trace->step_stats.push_back(std::move(s));
  }

 private:
  const ExecuteArgs& args_;
  Clock::time_point start_;
  std::mutex mu_;
};

Status ExecuteSerial(const ExecuteArgs& args) {
  StepRunner runner(args, /*parallel=*/false);
  const int n = static_cast<int>(args.plan->steps.size());
  if (args.trace == nullptr) {
    for (int i = 0; i < n; ++i) TG_RETURN_IF_ERROR(runner.Run(i));
    return Status::OK();
  }
  Tracer tracer(args);
  for (int i = 0; i < n; ++i) {
    const auto begin = tracer.Now();
    TG_RETURN_IF_ERROR(runner.Run(i));
    tracer.Record(i, begin, tracer.Now(), 0);
  }
  return Status::OK();
}

class ParallelRun {
 public:
  explicit ParallelRun(const ExecuteArgs& args)
      : args_(args), plan_(*args.plan), runner_(args, /*parallel=*/true), tracer_(args) {
    remaining_.store(static_cast<int>(plan_.steps.size()), std::memory_order_relaxed);
  }

  Status Run() {
    std::vector<int> stack;
    int keep = -1;
    for (int r : plan_.initial_ready) Ready(r, &stack, &keep);
    if (keep >= 0) stack.insert(stack.begin(), keep);
    Drain(&stack);
    Wait();
    return error_;
  }

 private:
  // A step became ready: cheap ones run on this thread; of expensive ones this thread keeps
  // one and hands the rest to the pool.
  void Ready(int i, std::vector<int>* stack, int* keep) {
    if (!plan_.steps[static_cast<size_t>(i)].expensive || args_.inter_op_pool == nullptr ||
        failed_.load(std::memory_order_relaxed)) {
      stack->push_back(i);
    } else if (*keep < 0) {
      *keep = i;
    } else {
      args_.inter_op_pool->Schedule([this, i] {
        MemoryAccountScope memory(args_.memory);
        std::vector<int> own{i};
        Drain(&own);
      });
    }
  }

  void Drain(std::vector<int>* stack) {
    while (!stack->empty()) {
      const int i = stack->back();
      stack->pop_back();
      if (!failed_.load(std::memory_order_acquire)) {
        const auto begin = tracer_.on() ? tracer_.Now() : Clock::time_point();
        Status s = runner_.Run(i);
        if (!s.ok()) {
          Fail(std::move(s));
        } else if (tracer_.on()) {
          const int pool_thread = args_.inter_op_pool != nullptr ? args_.inter_op_pool->CurrentThreadId() : -1;
          tracer_.Record(i, begin, tracer_.Now(), pool_thread + 1);
        }
      }
      int keep = -1;
      for (int succ : plan_.steps[static_cast<size_t>(i)].successors) {
        if (args_.state->pending[static_cast<size_t>(succ)].fetch_sub(1, std::memory_order_acq_rel) == 1) {
          Ready(succ, stack, &keep);
        }
      }
      if (keep >= 0) stack->insert(stack->begin(), keep);
      if (remaining_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
        std::lock_guard<std::mutex> lock(mu_);
        done_.store(true, std::memory_order_release);
        cv_.notify_all();
      }
    }
  }

  void Fail(Status s) {
    std::lock_guard<std::mutex> lock(mu_);
    if (error_.ok()) error_ = std::move(s);
    failed_.store(true, std::memory_order_release);
  }

  // Spin briefly (a hand-off often completes within microseconds), then sleep. The spin
  // pauses rather than yields: on a busy machine sched_yield hands the core to another
  // process for a whole time slice, far longer than the wait it was meant to shorten.
  void Wait() {
    const auto spin_until = Clock::now() + std::chrono::microseconds(50);
    for (int i = 0; !done_.load(std::memory_order_acquire); ++i) {
      if ((i & 63) == 63 && Clock::now() >= spin_until) break;
      CpuRelax();
    }
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [this] { return done_.load(std::memory_order_acquire); });
    // Holding mu_ here also means the thread that finished the last step has let go of it.
  }

  const ExecuteArgs& args_;
  const ExecutionPlan& plan_;
  StepRunner runner_;
  Tracer tracer_;
  std::atomic<int> remaining_{0};
  std::atomic<bool> failed_{false};
  std::atomic<bool> done_{false};
  std::mutex mu_;
  std::condition_variable cv_;
  Status error_;
};

Status ExecuteSteps(const ExecuteArgs& args) {
  if (args.plan->control_flow != nullptr) return ExecuteControlFlow(args);
  if (!args.plan->parallel) return ExecuteSerial(args);
  const size_t steps = args.plan->steps.size();
  for (size_t i = 0; i < steps; ++i) {
    args.state->pending[i].store(args.plan->steps[i].initial_pending, std::memory_order_relaxed);
  }
  for (size_t s = 0; s < static_cast<size_t>(args.plan->num_slots); ++s) {
    args.state->reads_left[s].store(args.plan->slot_reads[s], std::memory_order_relaxed);
  }
  if (steps == 0) return Status::OK();
  ParallelRun run(args);
  return run.Run();
}

}  // namespace

Status ExecutePlan(const ExecuteArgs& args) {
  Status status = ExecuteSteps(args);
  // Once per run and device, even after a failure: nothing of this run stays queued.
  for (DeviceInstance* device : args.plan->devices_to_synchronize) {
    Status synced = SynchronizeDevice(device);
    if (status.ok() && !synced.ok()) status = synced.Prepend("at the end of the run: ");
  }
  return status;
}

std::unique_ptr<RunState> NewRunState(const ExecutionPlan& plan, ThreadPool* intra_op_pool) {
  auto rs = std::make_unique<RunState>();
  rs->values.resize(static_cast<size_t>(plan.num_slots));
  rs->contexts.resize(plan.steps.size());
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    const PlanStep& step = plan.steps[i];
    if (step.kind != StepKind::kKernel) continue;
    TG_KernelContext& ctx = rs->contexts[i];
    PrepareKernelContext(&ctx, *step.op, *step.kernel, step.instance, intra_op_pool);
    ctx.functions = plan.functions;
    // Kernels write their outputs straight into the run's slots (sized once: stable).
    for (int k = 0; k < step.num_outputs; ++k) {
      ctx.outputs[static_cast<size_t>(k)].value = &rs->values[static_cast<size_t>(step.first_output + k)];
    }
    // A serial run's kernel reads its plain inputs in place, for good: bound once here.
    if (!plan.parallel && step.plain_inputs) {
      for (size_t k = 0; k < step.inputs.size(); ++k) {
        KernelCallInput& call = ctx.inputs[k];
        call.value = &rs->values[static_cast<size_t>(step.inputs[k].slot)];
        call.may_forward = step.inputs[k].move;
      }
      ctx.inputs_bound = true;
    }
  }
  if (plan.parallel) {
    rs->pending = std::make_unique<std::atomic<int>[]>(plan.steps.size());
    rs->reads_left = std::make_unique<std::atomic<int>[]>(static_cast<size_t>(plan.num_slots));
  }
  return rs;
}

std::unique_ptr<RunState> ExecutionPlan::AcquireRunState(ThreadPool* intra_op_pool) {
  if (RunState* spare = spare_.exchange(nullptr, std::memory_order_acquire)) {
    return std::unique_ptr<RunState>(spare);
  }
  {
    std::lock_guard<std::mutex> lock(pool_mu_);
    if (!free_states_.empty()) {
      std::unique_ptr<RunState> rs = std::move(free_states_.back());
      free_states_.pop_back();
      return rs;
    }
  }
  return NewRunState(*this, intra_op_pool);
}

void ExecutionPlan::ReleaseRunState(std::unique_ptr<RunState> state, bool ran_every_step) {
  if (ran_every_step) {
    for (int slot : fetch_slots) Clear(state->values[static_cast<size_t>(slot)]);
  } else {
    for (SlotValue& v : state->values) Clear(v);
  }
  RunState* empty = nullptr;
  if (spare_.compare_exchange_strong(empty, state.get(), std::memory_order_release,
                                     std::memory_order_relaxed)) {
    (void)state.release();
    return;
  }
  std::lock_guard<std::mutex> lock(pool_mu_);
  free_states_.push_back(std::move(state));
}

ExecutionPlan::~ExecutionPlan() { delete spare_.load(); }

}  // namespace tgraph
