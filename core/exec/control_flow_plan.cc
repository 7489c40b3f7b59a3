#include "core/exec/control_flow_plan.h"

#include <algorithm>
#include <map>
#include <utility>

#include "core/exec/execution_plan.h"

namespace tgraph {
namespace {

constexpr int64_t kMaxParallelIterations = 4096;

std::string FrameLabel(const ControlFlowPlan& cf, int frame) {
  return frame == 0 ? std::string("the root frame")
                    : StrCat("while-loop frame '", cf.frames[static_cast<size_t>(frame)].name, "'");
}

class FlowBuilder {
 public:
  FlowBuilder(ExecutionPlan* plan, const std::vector<int>& slot_producer,
              const std::vector<int>& step_of_op)
      : plan_(*plan), slot_producer_(slot_producer), step_of_op_(step_of_op) {}

  StatusOr<std::unique_ptr<ControlFlowPlan>> Build() {
    cf_ = std::make_unique<ControlFlowPlan>();
    cf_->frames.emplace_back();  // the root
    const size_t n = plan_.steps.size();
    cf_->steps.resize(n);
    for (size_t i = 0; i < n; ++i) {
      const PlanStep& step = plan_.steps[i];
      FlowStep& fs = cf_->steps[i];
      fs.kind = step.op != nullptr ? ControlFlowKindOf(*step.op) : ControlFlowKind::kNone;
      fs.num_inputs = static_cast<int>(step.inputs.size());
      cf_->max_outputs = std::max(cf_->max_outputs, step.num_outputs);
    }
    for (size_t i = 0; i < n; ++i) TG_RETURN_IF_ERROR(AssignFrame(static_cast<int>(i)));
    TG_RETURN_IF_ERROR(CheckBackEdges());
    LayOut();
    TG_RETURN_IF_ERROR(MarkFetches());
    return std::move(cf_);
  }

 private:
  std::string Name(int step) const {
    const PlanStep& s = plan_.steps[static_cast<size_t>(step)];
    return s.op != nullptr ? StrCat("'", s.op->name(), "' (", s.op->type(), ")") : StrCat("'", *s.label, "'");
  }

  // Calls fn(producer step or -1 for a feed, data input or -1 for control) per input.
  template <typename Fn>
  void ForEachProducer(int i, Fn fn) const {
    const PlanStep& step = plan_.steps[static_cast<size_t>(i)];
    for (size_t k = 0; k < step.inputs.size(); ++k) {
      fn(slot_producer_[static_cast<size_t>(step.inputs[k].slot)], static_cast<int>(k));
    }
    if (step.op == nullptr) return;
    for (const Operation* c : step.op->control_inputs()) {
      const int p = step_of_op_[static_cast<size_t>(c->id())];
      if (p >= 0) fn(p, -1);
    }
  }

  Status AssignFrame(int i) {
    FlowStep& fs = cf_->steps[static_cast<size_t>(i)];
    int frame = -1, from = -1;
    Status error;
    // Producers later in the order feed a Merge along a loop's back edge: checked later.
    ForEachProducer(i, [&](int p, int) {
      if (!error.ok() || p > i) return;
      const int f = p < 0 ? 0 : cf_->steps[static_cast<size_t>(p)].out_frame;
      if (frame < 0) {
        frame = f;
        from = p;
      } else if (f != frame) {
        error = InvalidArgument(
            "node ", Name(i), " has inputs from different frames: ",
            from < 0 ? std::string("a feed") : Name(from), " is in ", FrameLabel(*cf_, frame), ", ",
            p < 0 ? std::string("a feed") : Name(p), " is in ", FrameLabel(*cf_, f),
            " (a value used inside a while loop must enter it through an Enter)");
      }
    });
    TG_RETURN_IF_ERROR(error);
    fs.frame = frame < 0 ? 0 : frame;
    fs.out_frame = fs.frame;
    const PlanStep& step = plan_.steps[static_cast<size_t>(i)];
    if (fs.kind == ControlFlowKind::kEnter) {
      const tf::AttrValue* name = step.op->FindAttr("frame_name");
      const tf::AttrValue* constant = step.op->FindAttr("is_constant");
      const tf::AttrValue* parallel = step.op->FindAttr("parallel_iterations");
      const std::string frame_name = name != nullptr ? name->s() : std::string();
      auto [it, inserted] = child_.emplace(std::make_pair(fs.frame, frame_name),
                                           static_cast<int>(cf_->frames.size()));
      if (inserted) {
        FlowFrame child;
        child.name = frame_name;
        child.parent = fs.frame;
        // At most kMaxParallelIterations: each one in flight has a slot in the frame's ring.
        child.parallel_iterations = static_cast<int>(
            std::clamp<int64_t>(parallel != nullptr ? parallel->i() : 10, 1, kMaxParallelIterations));
        cf_->frames.push_back(std::move(child));
      }
      fs.out_frame = it->second;
      fs.constant_enter = constant != nullptr && constant->b();
      ++cf_->frames[static_cast<size_t>(fs.out_frame)].num_enters;
    } else if (fs.kind == ControlFlowKind::kExit || fs.kind == ControlFlowKind::kNextIteration) {
      if (fs.frame == 0) {
        return InvalidArgument("node ", Name(i), " is not inside a while loop: its input is in ",
                               "the root frame (an Exit or NextIteration needs an Enter upstream)");
      }
      if (fs.kind == ControlFlowKind::kExit) fs.out_frame = cf_->frames[static_cast<size_t>(fs.frame)].parent;
    }
    return Status::OK();
  }

  // A back edge (producer after its consumer) must stay within the consumer's frame.
  Status CheckBackEdges() {
    for (size_t i = 0; i < cf_->steps.size(); ++i) {
      Status error;
      ForEachProducer(static_cast<int>(i), [&](int p, int) {
        if (!error.ok() || p <= static_cast<int>(i)) return;
        const FlowStep& prod = cf_->steps[static_cast<size_t>(p)];
        const FlowStep& cons = cf_->steps[i];
        if (prod.out_frame != cons.frame) {
          error = InvalidArgument("node ", Name(static_cast<int>(i)), " in ", FrameLabel(*cf_, cons.frame),
                                  " takes the back edge from ", Name(p), " in ",
                                  FrameLabel(*cf_, prod.out_frame));
        }
      });
      TG_RETURN_IF_ERROR(error);
    }
    return Status::OK();
  }

  // Local indices, input entries, out edges and initial pending counts.
  void LayOut() {
    const size_t n = cf_->steps.size();
    std::vector<int> steps_in(cf_->frames.size(), 0);
    for (size_t i = 0; i < n; ++i) {
      FlowStep& fs = cf_->steps[i];
      FlowFrame& frame = cf_->frames[static_cast<size_t>(fs.frame)];
      fs.local = steps_in[static_cast<size_t>(fs.frame)]++;
      fs.input_base = frame.num_inputs;
      frame.num_inputs += fs.num_inputs;
      frame.initial_pending.push_back(0);
    }
    for (size_t i = 0; i < n; ++i) {
      FlowStep& fs = cf_->steps[i];
      int data = 0, control = 0;
      ForEachProducer(static_cast<int>(i), [&](int p, int k) {
        (k >= 0 ? data : control) += 1;
        if (p < 0) {
          cf_->feed_edges.push_back(FlowFeedEdge{plan_.steps[i].inputs[static_cast<size_t>(k)].slot,
                                                 static_cast<int>(i), k});
          return;
        }
        FlowEdge e;
        e.dst = static_cast<int>(i);
        e.dst_input = k;
        if (k >= 0) {
          const int slot = plan_.steps[i].inputs[static_cast<size_t>(k)].slot;
          e.src_output = slot - plan_.steps[static_cast<size_t>(p)].first_output;
        }
        cf_->steps[static_cast<size_t>(p)].edges.push_back(e);
      });
      // TensorFlow's counts: a Merge waits for its control inputs (two each) and one live
      // data input (the low bit); anything else for every input.
      cf_->frames[static_cast<size_t>(fs.frame)].initial_pending[static_cast<size_t>(fs.local)] =
          fs.kind == ControlFlowKind::kMerge ? 1 + 2 * control : data + control;
      if (data + control == 0 && fs.frame == 0) cf_->root_sources.push_back(static_cast<int>(i));
    }
    for (size_t i = 0; i < n; ++i) {
      FlowStep& fs = cf_->steps[i];
      std::vector<char> seen(static_cast<size_t>(plan_.steps[i].num_outputs), 0);
      for (size_t k = fs.edges.size(); k-- > 0;) {
        FlowEdge& e = fs.edges[k];
        if (e.dst_input < 0) continue;
        e.last_use = !seen[static_cast<size_t>(e.src_output)];
        fs.uses_output1 = fs.uses_output1 || e.src_output == 1;
        seen[static_cast<size_t>(e.src_output)] = 1;
      }
    }
  }

  Status MarkFetches() {
    for (size_t f = 0; f < plan_.fetch_slots.size(); ++f) {
      const int p = slot_producer_[static_cast<size_t>(plan_.fetch_slots[f])];
      if (p < 0) continue;
      FlowStep& fs = cf_->steps[static_cast<size_t>(p)];
      if (fs.out_frame != 0) {
        return InvalidArgument("cannot fetch the output of node ", Name(p), ": it is inside ",
                               FrameLabel(*cf_, fs.out_frame),
                               " (fetch the loop's Exit, or a value computed from it)");
      }
      fs.stores_fetch = true;
      if (plan_.fetch_slots[f] == plan_.steps[static_cast<size_t>(p)].first_output + 1) fs.uses_output1 = true;
    }
    return Status::OK();
  }

  ExecutionPlan& plan_;
  const std::vector<int>& slot_producer_;
  const std::vector<int>& step_of_op_;
  std::unique_ptr<ControlFlowPlan> cf_;
  std::map<std::pair<int, std::string>, int> child_;  // (parent frame, name) -> frame
};

}  // namespace

Status BuildControlFlowPlan(ExecutionPlan* plan, const std::vector<int>& slot_producer,
                            const std::vector<int>& step_of_op) {
  TG_ASSIGN_OR_RETURN(plan->control_flow, FlowBuilder(plan, slot_producer, step_of_op).Build());
  return Status::OK();
}

}  // namespace tgraph
