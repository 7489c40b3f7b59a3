#include "core/autodiff/while_grad.h"

#include <deque>
#include <string>

#include "core/exec/control_flow.h"
#include "core/graph/attr_value_util.h"
#include "core/graph/control_flow_builder.h"

namespace tgraph {

struct WhileGradients::Loop {
  struct Var {
    Operation* enter = nullptr;
    Operation* merge = nullptr;
    Operation* sw = nullptr;
    Operation* identity = nullptr;  // the body's input (may be absent)
    Operation* next = nullptr;
    Operation* exit = nullptr;  // may be absent
    // backward loop
    Operation* b_merge = nullptr;
    Output b_inside;  // the gradient of the body's output, per iteration
    bool closed = false;
  };
  std::string frame;
  int64_t parallel_iterations = 10;
  Operation* loop_cond = nullptr;
  std::vector<Var> vars;
  std::set<const Operation*> ops;  // everything in the frame and nested frames, Exits included
  std::set<const Operation*> own;  // the ops of this frame itself (its Enters and Exits too)
  Loop* parent = nullptr;          // the loop whose body holds this one
  int min_id = 0;
  bool started = false, finished = false;
  // built
  std::unique_ptr<class GradLoopContext> context;
  BuildContext* saved_context = nullptr;
  // Where the forward ops this adds (counter, pushes) are built: the outermost loop's
  // context when the gradient started, outside every backward frame.
  BuildContext* forward_context = nullptr;
  Operation* b_count_exit = nullptr;
  std::string grad_frame;
  Operation* f_merge = nullptr;
  Operation* f_add = nullptr;
  Operation* b_merge = nullptr;
  Operation* b_sub = nullptr;
  Output b_cond;
  std::vector<Operation*> pushes, pops;
  bool conditional_pushes = false;  // some push is inside a cond of the body (may be dead)
  std::map<Output, Output> popped;
  // The conds of the body enclosing a forward value (see CondPathOf), and the backward
  // frame's pivots of their branches.
  std::map<Output, CondPath> cond_paths;
  std::map<std::pair<Output, int>, Operation*> branch_pivots;
};

// The backward loop's frame as a build context: what gradient functions build there is in
// the backward frame, and forward values they use come in through BringIn.
class GradLoopContext : public ControlFlowContext {
 public:
  GradLoopContext(Graph& graph, BuildContext* parent, WhileGradients* owner, WhileGradients::Loop* loop)
      : ControlFlowContext(graph, parent), owner_(owner), loop_(loop) {}
  void SetPivot(Operation* pivot) { pivot_ = pivot; }
  using ControlFlowContext::AddInParent;
  // A value from outside: WhileGradients brings it in, through the enclosing backward
  // frames itself (an enclosing backward loop must not be asked first: the value may be
  // of this loop's forward frame, which the enclosing loop would stack in the wrong frame).
  StatusOr<Output> Inside(Output t, const std::string&) override {
    if (t.op == nullptr || Contains(t.op)) return t;
    return owner_->BringIn(*loop_, t);
  }

 protected:
  StatusOr<Output> BringIn(Output t, const std::string&) override { return owner_->BringIn(*loop_, t); }
  bool KeepsExternalControlInputs() const override { return false; }

 private:
  WhileGradients* owner_;
  WhileGradients::Loop* loop_;
};

namespace {

bool IsType(const Operation* op, std::string_view a) {
  return op != nullptr && (op->type() == a || (op->type().starts_with("Ref") && op->type().substr(3) == a));
}

std::string FrameOf(const Operation* enter) {
  const tf::AttrValue* f = enter->FindAttr("frame_name");
  return f == nullptr ? "" : f->s();
}

bool IsConstantEnter(const Operation* op) {
  if (!IsType(op, "Enter")) return false;
  const tf::AttrValue* c = op->FindAttr("is_constant");
  return c != nullptr && c->b();
}

NodeSpec Spec(const std::string& type, const std::string& name, std::vector<Output> inputs,
              AttrMap attrs = {}, std::vector<Operation*> control = {}) {
  NodeSpec spec;
  spec.type = type;
  spec.name = name;
  for (const Output& o : inputs) spec.inputs.push_back(NodeSpec::InputGroup{{o}, false});
  spec.attrs = std::move(attrs);
  spec.control_inputs = std::move(control);
  return spec;
}

AttrMap EnterAttrs(const std::string& frame, bool constant, int64_t parallel_iterations) {
  return {{"frame_name", AttrOfString(frame)},
          {"is_constant", AttrOfBool(constant)},
          {"parallel_iterations", AttrOfInt(parallel_iterations)}};
}

Tensor Int32Scalar(int32_t v) {
  Tensor t = Tensor::Allocate(DT_INT32, {}).value();
  *t.flat<int32_t>() = v;
  return t;
}

}  // namespace

WhileGradients::WhileGradients(Graph& graph) : graph_(graph) {}
WhileGradients::~WhileGradients() {
  Loop* outermost = active_;
  while (outermost != nullptr && outermost->parent != nullptr) outermost = outermost->parent;
  if (outermost != nullptr && outermost->context) graph_.set_build_context(outermost->saved_context);
}

Status WhileGradients::Analyze(const std::vector<char>& between) {
  // Most gradients cross no loop: one pass over the ops decides.
  bool any_exit = false;
  for (const auto& op : graph_.operations()) {
    any_exit = any_exit || (between[static_cast<size_t>(op->id())] && IsType(op.get(), "Exit"));
  }
  if (!any_exit) return Status::OK();
  // Consumers of every op (data and control), built once.
  std::map<const Operation*, std::vector<Operation*>> consumers;
  for (const auto& op : graph_.operations()) {
    for (const Output& in : op->inputs()) consumers[in.op].push_back(op.get());
    for (Operation* c : op->control_inputs()) consumers[c].push_back(op.get());
  }
  for (const auto& op_ptr : graph_.operations()) {
    Operation* exit = op_ptr.get();
    if (!between[static_cast<size_t>(exit->id())] || !IsType(exit, "Exit") || owner_.count(exit)) continue;
    Operation* sw = exit->input(0).op;
    if (!IsType(sw, "Switch") || !IsType(sw->input(1).op, "LoopCond")) {
      return Unimplemented("the gradient of Exit '", exit->name(), "': not the Exit of a while loop");
    }
    auto loop = std::make_unique<Loop>();
    loop->loop_cond = sw->input(1).op;
    // Every Switch on this LoopCond is a loop variable.
    for (Operation* s : consumers[loop->loop_cond]) {
      if (!IsType(s, "Switch")) continue;
      Loop::Var v;
      v.sw = s;
      v.merge = s->input(0).op;
      if (!IsType(v.merge, "Merge") || v.merge->num_inputs() != 2 || !IsType(v.merge->input(0).op, "Enter") ||
          !IsType(v.merge->input(1).op, "NextIteration")) {
        return Unimplemented("the gradient of while loop '", loop->loop_cond->name(), "': loop variable Switch '",
                             s->name(), "' is not fed by a Merge of an Enter and a NextIteration");
      }
      v.enter = v.merge->input(0).op;
      v.next = v.merge->input(1).op;
      for (Operation* c : consumers[s]) {
        if (IsType(c, "Exit")) v.exit = c;
        if (c->type() == "Identity" && c->input(0).op == s && c->input(0).index == 1) v.identity = c;
      }
      if (v.exit == nullptr) {
        return Unimplemented("the gradient of while loop '", loop->loop_cond->name(), "': loop variable Switch '",
                             s->name(), "' has no Exit");
      }
      loop->vars.push_back(v);
    }
    loop->frame = FrameOf(loop->vars.at(0).enter);
    if (const tf::AttrValue* p = loop->vars[0].enter->FindAttr("parallel_iterations")) {
      loop->parallel_iterations = p->i();
    }
    // The frame's ops: forward from its Enters, up to its Exits, through nested loops (an
    // Enter of another frame goes one frame deeper, an Exit one frame up).
    std::deque<std::pair<Operation*, int>> queue;
    for (const auto& o : graph_.operations()) {
      if (IsType(o.get(), "Enter") && FrameOf(o.get()) == loop->frame) queue.emplace_back(o.get(), 0);
    }
    while (!queue.empty()) {
      auto [o, depth] = queue.front();
      queue.pop_front();
      if (!loop->ops.insert(o).second) continue;
      if (depth == 0) loop->own.insert(o);
      if (IsType(o, "Exit") && depth == 0) continue;
      const int after = IsType(o, "Exit") ? depth - 1 : depth;
      for (Operation* c : consumers[o]) queue.emplace_back(c, IsType(c, "Enter") ? after + 1 : after);
    }
    loop->min_id = exit->id();
    for (const Operation* o : loop->ops) loop->min_id = std::min(loop->min_id, o->id());
    for (const Operation* o : loop->own) {
      // A Switch or Merge is the loop's own, or a cond's in the body (a Switch on another
      // predicate than the LoopCond; a Merge of values made in the body).
      const bool own_plumbing = IsType(o, "Merge") || IsType(o, "Switch") ? [&] {
        for (const Loop::Var& v : loop->vars) {
          if (o == v.merge || o == v.sw) return true;
        }
        if (IsType(o, "Switch")) return !IsType(o->input(1).op, "LoopCond");
        for (const Output& in : o->inputs()) {
          if (IsType(in.op, "Enter") || IsType(in.op, "NextIteration")) return false;
        }
        return true;
      }()
                                                                           : true;
      if (!own_plumbing) {
        return Unimplemented("the gradient of while loop '", loop->frame, "': its body holds control flow other than conds ('",
                             o->name(), "', ", o->type(), "), which has no gradient here yet");
      }
      if (owner_.count(o)) {
        return Unimplemented("the gradient of while loop '", loop->frame, "': op '", o->name(),
                             "' belongs to two loops");
      }
    }
    for (const Operation* o : loop->own) owner_[o] = loop.get();
    loops_.push_back(std::move(loop));
  }
  // A loop nested in another's body: its parent is the innermost loop holding its Enters.
  for (auto& loop : loops_) {
    for (auto& other : loops_) {
      if (other.get() == loop.get() || !other->ops.count(loop->vars.at(0).enter)) continue;
      if (loop->parent == nullptr || other->ops.size() < loop->parent->ops.size()) loop->parent = other.get();
    }
  }
  return Status::OK();
}

bool WhileGradients::IsPlumbing(const Operation* op) const {
  auto it = owner_.find(op);
  if (it == owner_.end()) return false;
  const Loop& loop = *it->second;
  if (op == loop.loop_cond) return true;
  for (const Loop::Var& v : loop.vars) {
    if (op == v.enter || op == v.merge || op == v.sw || op == v.identity || op == v.next || op == v.exit) return true;
  }
  return IsType(op, "Enter") || IsType(op, "Exit") || IsType(op, "NextIteration");
}

bool WhileGradients::IsLoopPlumbing(const Loop& loop, const Operation* op) {
  if (op == loop.loop_cond || IsType(op, "Enter") || IsType(op, "Exit") || IsType(op, "NextIteration")) {
    return true;
  }
  for (const Loop::Var& v : loop.vars) {
    if (op == v.merge || op == v.sw || op == v.identity) return true;
  }
  return false;
}

// Graphs carry no cond contexts, so they are found in the graph, as a Merge's gradient finds
// its predicate: a cond Switch's output k is in (its predicate, k) inside its input's conds;
// a cond Merge leaves the innermost branch its inputs share; any other op is in the
// innermost cond of its inputs (data and control: a constant in a branch hangs off the
// branch's pivot). The loop's own plumbing is outside every cond.
WhileGradients::CondPath WhileGradients::CondPathOf(Loop& loop, Output t) {
  if (!loop.ops.count(t.op) || IsLoopPlumbing(loop, t.op)) return {};
  const bool is_switch = IsType(t.op, "Switch");
  if (!is_switch) t.index = 0;
  auto found = loop.cond_paths.find(t);
  if (found != loop.cond_paths.end()) return found->second;
  loop.cond_paths[t] = {};  // a cycle (none in a body) ends here
  CondPath path;
  auto innermost = [&path](CondPath p) {
    if (p.size() > path.size()) path = std::move(p);
  };
  const Operation* op = t.op;
  if (is_switch) {
    innermost(CondPathOf(loop, op->input(0)));
    innermost(CondPathOf(loop, op->input(1)));
    path.emplace_back(op->input(1), t.index);
  } else if (IsType(op, "Merge")) {
    bool first = true;
    for (const Output& in : op->inputs()) {
      CondPath p = CondPathOf(loop, in);
      if (first) {
        path = std::move(p);
        first = false;
        continue;
      }
      // The branches' paths part at the Merge's own cond: it is outside that cond.
      size_t common = 0;
      while (common < path.size() && common < p.size() && path[common] == p[common]) ++common;
      path.resize(common);
    }
  } else {
    for (const Output& in : op->inputs()) innermost(CondPathOf(loop, in));
    for (Operation* c : op->control_inputs()) {
      innermost(IsType(c, "Switch") ? CondPathOf(loop, c->input(0)) : CondPathOf(loop, Output{c, 0}));
    }
  }
  loop.cond_paths[t] = path;
  return path;
}

// An op of the backward frame that is live exactly in the backward iterations whose forward
// iteration took `branch` of the cond on `pred`: Identity(Switch(p, p)[branch]) of the
// popped predicate p.
StatusOr<Operation*> WhileGradients::BranchPivot(Loop& loop, const std::pair<Output, int>& branch) {
  auto found = loop.branch_pivots.find(branch);
  if (found != loop.branch_pivots.end()) return found->second;
  TG_ASSIGN_OR_RETURN(Output pred, BringIn(loop, branch.first));
  auto add = [&](NodeSpec spec) -> StatusOr<Operation*> { return loop.context->AddInParent(std::move(spec)); };
  TG_ASSIGN_OR_RETURN(Operation * sw, add(Spec("Switch", "b_branch/Switch", {pred, pred})));
  TG_ASSIGN_OR_RETURN(Operation * pivot, add(Spec("Identity", branch.second == 1 ? "b_branch/switch_t"
                                                                                  : "b_branch/switch_f",
                                                  {Output{sw, branch.second}})));
  loop.branch_pivots.emplace(branch, pivot);
  return pivot;
}

StatusOr<Operation*> WhileGradients::AddForward(Loop& loop, NodeSpec spec) {
  BuildContext* current = graph_.build_context();
  graph_.set_build_context(loop.forward_context);
  StatusOr<Operation*> op = graph_.AddOperation(std::move(spec));
  graph_.set_build_context(current);
  return op;
}

// `h` (made outside every loop) as a loop invariant of the loop's forward frame, or of its
// backward frame, through the enclosing loops' frames.
StatusOr<Output> WhileGradients::EnterFrames(Loop& loop, Output h, bool backward) {
  Output outer = h;
  if (loop.parent != nullptr) {
    TG_ASSIGN_OR_RETURN(outer, EnterFrames(*loop.parent, h, backward));
  }
  NodeSpec spec = Spec("Enter", backward ? "StackPopV2/Enter" : "f_acc/Enter", {outer},
                       EnterAttrs(backward ? loop.grad_frame : loop.frame, true, loop.parallel_iterations));
  TG_ASSIGN_OR_RETURN(Operation * e, backward ? loop.context->AddInParent(std::move(spec))
                                              : AddForward(loop, std::move(spec)));
  return Output{e, 0};
}

StatusOr<Output> WhileGradients::BringIn(Loop& loop, Output t) {
  auto add = [&](NodeSpec spec) -> StatusOr<Operation*> { return loop.context->AddInParent(std::move(spec)); };
  const Operation* p = t.op;
  if (loop.ops.count(p) && IsConstantEnter(p)) t = p->input(0);  // an invariant: its value outside
  auto found = loop.popped.find(t);
  if (found != loop.popped.end()) return found->second;
  if (loop.parent != nullptr && loop.parent->context->Contains(t.op)) {
    // A value of the enclosing backward frame (a gradient arriving from the outer body):
    // an invariant of this backward loop.
    TG_ASSIGN_OR_RETURN(Operation * e, add(Spec("Enter", "Enter", {t}, EnterAttrs(loop.grad_frame, true,
                                                                                   loop.parallel_iterations))));
    loop.popped.emplace(t, Output{e, 0});
    return Output{e, 0};
  }
  if (!loop.ops.count(t.op)) {
    // From outside the loop: into the enclosing loop's backward frame first, if any.
    Output outer = t;
    if (loop.parent != nullptr) {
      TG_ASSIGN_OR_RETURN(outer, BringIn(*loop.parent, t));
    } else if (owner_.count(t.op)) {
      return Unimplemented("the gradient of while loop '", loop.frame, "' uses '", t.Name(),
                           "' of another loop");
    }
    TG_ASSIGN_OR_RETURN(Operation * e, add(Spec("Enter", "Enter", {outer}, EnterAttrs(loop.grad_frame, true,
                                                                                       loop.parallel_iterations))));
    loop.popped.emplace(t, Output{e, 0});
    return Output{e, 0};
  }
  // A value of the forward frame: a stack carries it from each forward iteration to the
  // matching backward one. The stack is made outside every loop: a nested loop's pushes of
  // all the outer iterations go on one stack, and the backward loops pop them in exactly
  // the reverse order (each outer iteration's inner loop runs after the previous one's).
  const DataType dtype = BaseType(t.dtype());
  TG_ASSIGN_OR_RETURN(Operation * max_size, AddForward(loop, Spec("Const", "f_acc/max_size", {},
                                                                  {{"value", AttrOfTensor(Int32Scalar(-1))},
                                                                   {"dtype", AttrOfType(DT_INT32)}})));
  TG_ASSIGN_OR_RETURN(Operation * stack, AddForward(loop, Spec("StackV2", "f_acc", {Output{max_size, 0}},
                                                               {{"elem_type", AttrOfType(dtype)}})));
  TG_ASSIGN_OR_RETURN(Output f_handle, EnterFrames(loop, Output{stack, 0}, false));
  TG_ASSIGN_OR_RETURN(Operation * push, AddForward(loop, Spec("StackPushV2", "StackPushV2", {f_handle, t}, {},
                                                              {loop.f_add})));
  TG_ASSIGN_OR_RETURN(Output b_handle, EnterFrames(loop, Output{stack, 0}, true));
  // A value made in a branch of a cond of the body was pushed only in the iterations that
  // took the branch: its pop runs only in the matching backward iterations, those where
  // the popped predicate picks the same branch (its pivot is dead otherwise).
  std::vector<Operation*> pop_control{loop.b_sub};
  const CondPath path = CondPathOf(loop, t);
  if (!path.empty()) {
    TG_ASSIGN_OR_RETURN(Operation * pivot, BranchPivot(loop, path.back()));
    pop_control.push_back(pivot);
    loop.conditional_pushes = true;
  }
  TG_ASSIGN_OR_RETURN(Operation * pop, add(Spec("StackPopV2", "StackPopV2", {b_handle},
                                                {{"elem_type", AttrOfType(dtype)}}, pop_control)));
  loop.pushes.push_back(push);
  loop.pops.push_back(pop);
  loop.popped.emplace(t, Output{pop, 0});
  return Output{pop, 0};
}

Status WhileGradients::Start(Loop& loop, const Operation* first, const std::vector<GradValue>& first_grads,
                             const TakeGrads& take, const Receive& receive) {
  loop.started = true;
  // Backward ops are built in the current context (an enclosing backward loop's, for a
  // nested loop), forward ones outside every backward frame.
  auto add = [&](NodeSpec spec) { return graph_.AddOperation(std::move(spec)); };
  loop.forward_context = loop.parent != nullptr ? loop.parent->forward_context : graph_.build_context();
  auto forward = [&](NodeSpec spec) -> StatusOr<Operation*> {
    TG_ASSIGN_OR_RETURN(Operation * op, AddForward(loop, std::move(spec)));
    // In the enclosing loops' frames too: their backward loops stack what they need of it.
    for (Loop* l = loop.parent; l != nullptr; l = l->parent) l->ops.insert(op);
    return op;
  };
  const int64_t p = loop.parallel_iterations;
  // Gradients of the Exits (zeros where none arrived), taken now: every consumer of an
  // Exit lies outside the loop, so all have arrived.
  std::vector<Output> exit_grads;
  GraphBuilder b(graph_);
  for (Loop::Var& v : loop.vars) {
    GradValue g = v.exit == first ? first_grads.at(0) : take(v.exit).at(0);
    exit_grads.push_back(g.defined() ? b.Densify(g) : b.ZerosLike(Output{v.exit, 0}));
  }
  TG_RETURN_IF_ERROR(b.status());
  // The forward counter, in the forward frame. A nested loop's starts in the enclosing
  // loop's iteration after that iteration's counter moved on, so the inner loop of one
  // outer iteration pushes after the previous one's has finished (the outer counter's
  // NextIteration waits on the outer pushes, the inner loop's count among them).
  std::vector<Operation*> in_parent;
  if (loop.parent != nullptr) in_parent.push_back(loop.parent->f_add);
  TG_ASSIGN_OR_RETURN(Operation * zero, forward(Spec("Const", "f_count", {}, {{"value", AttrOfTensor(Int32Scalar(0))},
                                                                             {"dtype", AttrOfType(DT_INT32)}},
                                                     in_parent)));
  TG_ASSIGN_OR_RETURN(Operation * one, forward(Spec("Const", "f_count/one", {},
                                                    {{"value", AttrOfTensor(Int32Scalar(1))},
                                                     {"dtype", AttrOfType(DT_INT32)}},
                                                    in_parent)));
  TG_ASSIGN_OR_RETURN(Operation * f_enter, forward(Spec("Enter", "f_count/Enter", {Output{zero, 0}},
                                                        EnterAttrs(loop.frame, false, p))));
  TG_ASSIGN_OR_RETURN(Operation * f_one, forward(Spec("Enter", "f_count/one/Enter", {Output{one, 0}},
                                                      EnterAttrs(loop.frame, true, p))));
  NodeSpec merge = Spec("Merge", "f_count/Merge", {});
  merge.inputs.push_back(NodeSpec::InputGroup{{Output{f_enter, 0}, Output{f_enter, 0}}, true});
  TG_ASSIGN_OR_RETURN(loop.f_merge, forward(std::move(merge)));
  TG_ASSIGN_OR_RETURN(Operation * f_switch, forward(Spec("Switch", "f_count/Switch", {Output{loop.f_merge, 0},
                                                                                      Output{loop.loop_cond, 0}})));
  TG_ASSIGN_OR_RETURN(loop.f_add, forward(Spec("AddV2", "f_count/Add", {Output{f_switch, 1}, Output{f_one, 0}})));
  TG_ASSIGN_OR_RETURN(Operation * f_exit, forward(Spec("Exit", "f_count/Exit", {Output{f_switch, 0}})));
  // A nested loop's backward counter adds its own one in the enclosing backward frame.
  if (loop.parent != nullptr) {
    TG_ASSIGN_OR_RETURN(one, add(Spec("Const", "b_count/one", {}, {{"value", AttrOfTensor(Int32Scalar(1))},
                                                                   {"dtype", AttrOfType(DT_INT32)}})));
  }
  // The backward counter, in a frame of its own: runs f_count times.
  loop.grad_frame = StrCat(f_exit->name(), "/b_while_context");
  TG_ASSIGN_OR_RETURN(Operation * b_enter, add(Spec("Enter", "b_count/Enter", {Output{f_exit, 0}},
                                                    EnterAttrs(loop.grad_frame, false, p))));
  TG_ASSIGN_OR_RETURN(Operation * b_one, add(Spec("Enter", "b_count/one/Enter", {Output{one, 0}},
                                                  EnterAttrs(loop.grad_frame, true, p))));
  NodeSpec b_merge = Spec("Merge", "b_count/Merge", {});
  b_merge.inputs.push_back(NodeSpec::InputGroup{{Output{b_enter, 0}, Output{b_enter, 0}}, true});
  TG_ASSIGN_OR_RETURN(loop.b_merge, add(std::move(b_merge)));
  TG_ASSIGN_OR_RETURN(Operation * ge, add(Spec("GreaterEqual", "b_count/GreaterEqual",
                                               {Output{loop.b_merge, 0}, Output{b_one, 0}})));
  TG_ASSIGN_OR_RETURN(Operation * b_cond, add(Spec("LoopCond", "b_count/LoopCond", {Output{ge, 0}})));
  loop.b_cond = Output{b_cond, 0};
  TG_ASSIGN_OR_RETURN(Operation * b_switch, add(Spec("Switch", "b_count/Switch", {Output{loop.b_merge, 0}, loop.b_cond})));
  TG_ASSIGN_OR_RETURN(loop.b_sub, add(Spec("Sub", "b_count/Sub", {Output{b_switch, 1}, Output{b_one, 0}})));
  TG_ASSIGN_OR_RETURN(loop.b_count_exit, add(Spec("Exit", "b_count/Exit", {Output{b_switch, 0}})));
  // The enclosing backward loop's next iteration waits for this one to end (its pops).
  if (loop.parent != nullptr) loop.parent->pops.push_back(loop.b_count_exit);
  // Each loop variable's gradient is a backward loop variable.
  for (size_t k = 0; k < loop.vars.size(); ++k) {
    Loop::Var& v = loop.vars[k];
    TG_ASSIGN_OR_RETURN(Operation * e, add(Spec("Enter", "b_exit", {exit_grads[k]}, EnterAttrs(loop.grad_frame, false, p))));
    NodeSpec m = Spec("Merge", "b_switch", {});
    m.inputs.push_back(NodeSpec::InputGroup{{Output{e, 0}, Output{e, 0}}, true});
    TG_ASSIGN_OR_RETURN(v.b_merge, add(std::move(m)));
    TG_ASSIGN_OR_RETURN(Operation * s, add(Spec("Switch", "Switch", {Output{v.b_merge, 0}, loop.b_cond})));
    TG_ASSIGN_OR_RETURN(Operation * x, add(Spec("Exit", "Exit", {Output{s, 0}})));
    v.b_inside = Output{s, 1};
    receive(v.enter->input(0), GradValue::Dense(Output{x, 0}));  // the initial value's gradient
  }
  // From here on, what the sweep builds is in the backward frame.
  loop.saved_context = graph_.build_context();
  loop.context = std::make_unique<GradLoopContext>(graph_, loop.saved_context, this, &loop);
  loop.context->SetPivot(loop.b_sub);
  for (Operation* o : {b_one, loop.b_merge, ge, b_cond, b_switch, loop.b_sub}) loop.context->Mark(o);
  for (Loop::Var& v : loop.vars) {
    loop.context->Mark(v.b_merge);
    loop.context->Mark(v.b_inside.op);
  }
  graph_.set_build_context(loop.context.get());
  // The body's outputs receive the backward loop variables.
  for (Loop::Var& v : loop.vars) receive(v.next->input(0), GradValue::Dense(v.b_inside));
  active_ = &loop;
  return Status::OK();
}

Status WhileGradients::Finish(Loop& loop) {
  loop.finished = true;
  auto add = [&](NodeSpec spec) { return loop.context->AddInParent(std::move(spec)); };
  for (Loop::Var& v : loop.vars) {
    if (v.closed) continue;  // the body's input got no gradient: zeros go round
    TG_ASSIGN_OR_RETURN(Operation * z, add(Spec("ZerosLike", "ZerosLike", {v.b_inside})));
    TG_ASSIGN_OR_RETURN(Operation * n, add(Spec("NextIteration", "NextIteration", {Output{z, 0}})));
    TG_RETURN_IF_ERROR(graph_.UpdateInput(v.b_merge, 1, Output{n, 0}));
  }
  // The counter moves on after the iteration's pushes. A push inside a cond is dead when
  // its branch was not taken, and a dead control input would kill the NextIteration: those
  // iterations wait on a ControlTrigger instead, which runs whatever its inputs are.
  std::vector<Operation*> f_sync = loop.pushes;
  if (loop.conditional_pushes) {
    TG_ASSIGN_OR_RETURN(Operation * trigger, AddForward(loop, Spec("ControlTrigger", "f_sync", {}, {}, loop.pushes)));
    f_sync = {trigger};
  }
  TG_ASSIGN_OR_RETURN(Operation * f_next, AddForward(loop, Spec("NextIteration", "f_count/NextIteration",
                                                                {Output{loop.f_add, 0}}, {}, f_sync)));
  TG_RETURN_IF_ERROR(graph_.UpdateInput(loop.f_merge, 1, Output{f_next, 0}));
  std::vector<Operation*> sync;
  if (!loop.pops.empty()) {
    // In this backward frame (with its pivot), not the enclosing one's, which the parent
    // context would give an op without inputs.
    TG_ASSIGN_OR_RETURN(Operation * b_sync, graph_.AddOperation(Spec("ControlTrigger", "b_sync", {}, {}, loop.pops)));
    sync.push_back(b_sync);
  }
  TG_ASSIGN_OR_RETURN(Operation * b_next, add(Spec("NextIteration", "b_count/NextIteration",
                                                   {Output{loop.b_sub, 0}}, {}, sync)));
  TG_RETURN_IF_ERROR(graph_.UpdateInput(loop.b_merge, 1, Output{b_next, 0}));
  graph_.set_build_context(loop.saved_context);
  active_ = loop.parent;
  return Status::OK();
}

StatusOr<bool> WhileGradients::Visit(Operation* op, const std::vector<GradValue>& grads, GraphBuilder& builder,
                                     const TakeGrads& take, const Receive& receive) {
  TG_RETURN_IF_ERROR(Leave(op));
  auto it = owner_.find(op);
  if (it == owner_.end()) return false;
  Loop& loop = *it->second;
  auto interleaved = [&] {
    return Unimplemented("the gradient of while loop '", loop.frame, "': its op '", op->name(),
                         "' and another loop's ops interleave in the graph's order");
  };
  if (loop.finished) return interleaved();
  if (loop.started && &loop != active_) {
    // An enclosing loop's plumbing made while a nested loop was built (the Enter that
    // brings an outside value into the outer frame on its way in): handled for its own loop.
    bool enclosing = false;
    for (Loop* l = active_; l != nullptr; l = l->parent) enclosing = enclosing || l == &loop;
    if (!enclosing || !IsPlumbing(op)) return interleaved();
  }
  if (!loop.started) {
    // Loops the sweep has left end; a nested loop starts inside its parent's backward loop.
    while (active_ != nullptr && active_ != loop.parent) TG_RETURN_IF_ERROR(Finish(*active_));
    if (active_ != loop.parent) return interleaved();
    TG_RETURN_IF_ERROR(Start(loop, op, grads, take, receive));
    // Start took every Exit's gradient, this op's among them.
    if (IsType(op, "Exit")) return true;
  }
  if (!IsPlumbing(op)) return false;  // a body op: its own gradient function
  auto add = [&](NodeSpec spec) { return loop.context->AddInParent(std::move(spec)); };
  for (Loop::Var& v : loop.vars) {
    if (op != v.identity) continue;
    // The gradient of the body's input goes round to the next backward iteration.
    if (grads.empty() || !grads[0].defined()) return true;
    Output g = builder.Densify(grads[0]);
    TG_RETURN_IF_ERROR(builder.status());
    TG_ASSIGN_OR_RETURN(Operation * n, add(Spec("NextIteration", "NextIteration", {g})));
    TG_RETURN_IF_ERROR(graph_.UpdateInput(v.b_merge, 1, Output{n, 0}));
    v.closed = true;
    return true;
  }
  if (IsConstantEnter(op) && !grads.empty() && grads[0].defined()) {
    // A loop invariant: its gradient is the sum over the iterations (an accumulator).
    const int64_t p = loop.parallel_iterations;
    Output g = builder.Densify(grads[0]);
    TG_RETURN_IF_ERROR(builder.status());
    TG_ASSIGN_OR_RETURN(Operation * z, add(Spec("ZerosLike", "b_acc", {op->input(0)})));
    // The zeros come from outside both loops: made with no context.
    TG_ASSIGN_OR_RETURN(Operation * e, add(Spec("Enter", "b_acc/Enter", {Output{z, 0}},
                                                EnterAttrs(loop.grad_frame, false, p))));
    NodeSpec m = Spec("Merge", "b_acc/Merge", {});
    m.inputs.push_back(NodeSpec::InputGroup{{Output{e, 0}, Output{e, 0}}, true});
    TG_ASSIGN_OR_RETURN(Operation * merge, add(std::move(m)));
    TG_ASSIGN_OR_RETURN(Operation * s, add(Spec("Switch", "b_acc/Switch", {Output{merge, 0}, loop.b_cond})));
    // A TensorList's gradients add up element-wise through AddN (AddV2 takes no variant).
    NodeSpec add_spec = Spec("AddV2", "b_acc/Add", {Output{s, 1}, g});
    if (BaseType(g.dtype()) == DT_VARIANT) {
      add_spec = Spec("AddN", "b_acc/Add", {});
      add_spec.inputs.push_back(NodeSpec::InputGroup{{Output{s, 1}, g}, true});
    }
    TG_ASSIGN_OR_RETURN(Operation * sum, add(std::move(add_spec)));
    TG_ASSIGN_OR_RETURN(Operation * n, add(Spec("NextIteration", "b_acc/NextIteration", {Output{sum, 0}})));
    TG_RETURN_IF_ERROR(graph_.UpdateInput(merge, 1, Output{n, 0}));
    TG_ASSIGN_OR_RETURN(Operation * x, add(Spec("Exit", "b_acc/Exit", {Output{s, 0}})));
    receive(op->input(0), GradValue::Dense(Output{x, 0}));
  }
  return true;  // other plumbing carries nothing further
}

Status WhileGradients::Leave(const Operation* op) {
  while (active_ != nullptr && op->id() < active_->min_id) TG_RETURN_IF_ERROR(Finish(*active_));
  return Status::OK();
}

Status WhileGradients::FinishAll() {
  while (active_ != nullptr) TG_RETURN_IF_ERROR(Finish(*active_));
  return Status::OK();
}

}  // namespace tgraph
