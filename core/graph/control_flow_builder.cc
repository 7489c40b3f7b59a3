#include "core/graph/control_flow_builder.h"

#include <algorithm>

#include "core/graph/attr_value_util.h"

namespace tgraph {
namespace {

NodeSpec Spec(const std::string& type, const std::string& name, std::vector<Output> inputs) {
  NodeSpec spec;
  spec.type = type;
  spec.name = name;
  for (const Output& o : inputs) spec.inputs.push_back(NodeSpec::InputGroup{{o}, false});
  return spec;
}

// An Enter that brings a loop invariant in (is_constant): its value is the same in every
// iteration.
bool IsLoopConstant(const Output& t) {
  if (t.op == nullptr || (t.op->type() != "Enter" && t.op->type() != "RefEnter")) return false;
  const tf::AttrValue* constant = t.op->FindAttr("is_constant");
  return constant != nullptr && constant->b();
}

// The name scope without its trailing '/' ("while/" -> "while").
std::string ScopeName(const std::string& scope) {
  return !scope.empty() && scope.back() == '/' ? scope.substr(0, scope.size() - 1) : scope;
}

}  // namespace

// ---- ControlFlowContext ----

void ControlFlowContext::Mark(Operation* op) {
  inside_.insert(op);
  if (auto* parent = dynamic_cast<ControlFlowContext*>(parent_)) parent->Mark(op);
}

StatusOr<Output> ControlFlowContext::Inside(Output t, const std::string& consumer) {
  if (t.op == nullptr || Contains(t.op)) return t;
  auto it = brought_in_.find(t);
  if (it != brought_in_.end()) return it->second;
  // The value must first be inside the enclosing construct (a loop in a branch, ...).
  if (auto* parent = dynamic_cast<ControlFlowContext*>(parent_)) {
    TG_ASSIGN_OR_RETURN(Output outer, parent->Inside(t, consumer));
    if (!(outer == t)) {
      TG_ASSIGN_OR_RETURN(Output inner, BringIn(outer, consumer));
      brought_in_.emplace(t, inner);
      return inner;
    }
  }
  TG_ASSIGN_OR_RETURN(Output inner, BringIn(t, consumer));
  brought_in_.emplace(t, inner);
  return inner;
}

Status ControlFlowContext::AdjustSpec(NodeSpec* spec) {
  std::string consumer = spec->name.empty() ? spec->type : spec->name;
  const bool absolute = !consumer.empty() && consumer.back() == '/';
  while (!consumer.empty() && consumer.back() == '/') consumer.pop_back();
  if (absolute) {
    // The copies of outside values ("<consumer>/Switch", "<consumer>/Enter") are named in
    // the current scope, which an absolute consumer name already includes.
    std::string scope = graph_.name_scope();
    if (!scope.empty() && scope.back() != '/') scope += '/';
    if (!scope.empty() && consumer.starts_with(scope)) {
      consumer = consumer.substr(scope.size());
    } else if (!scope.empty() && consumer == scope.substr(0, scope.size() - 1)) {
      consumer.clear();  // the op takes its scope's name, as TF's op wrappers make them
    }
  }
  bool any_data = false;
  bool only_loop_constants = true;  // every data input a loop-invariant Enter
  for (NodeSpec::InputGroup& group : spec->inputs) {
    for (Output& t : group.tensors) {
      any_data = true;
      if (t.op != nullptr && t.op->graph() == &graph_ && !Contains(t.op)) {
        TG_ASSIGN_OR_RETURN(t, Inside(t, consumer));
      }
      if (!IsLoopConstant(t)) only_loop_constants = false;
    }
  }
  if (!KeepsExternalControlInputs()) {
    std::erase_if(spec->control_inputs, [this](const Operation* c) { return !Contains(c); });
  }
  // As TF's _MaybeAddControlDependency: an op fed only by loop invariants would otherwise
  // run once more than the body (in the iteration that exits), or outside any iteration.
  const bool free = !any_data || (only_loop_constants && spec->control_inputs.empty());
  if (free && pivot_ != nullptr) spec->control_inputs.push_back(pivot_);
  return Status::OK();
}

StatusOr<Operation*> ControlFlowContext::AddInParent(NodeSpec spec) {
  // Restores whatever context was current (a nested backward loop's, in while_grad.cc).
  BuildContext* current = graph_.build_context();
  graph_.set_build_context(parent_);
  auto op = graph_.AddOperation(std::move(spec));
  graph_.set_build_context(current);
  if (op.ok()) Mark(op.value());
  return op;
}

// ---- WhileLoopBuilder ----

StatusOr<std::unique_ptr<WhileLoopBuilder>> WhileLoopBuilder::Start(Graph& graph,
                                                                     const std::vector<Output>& inputs,
                                                                     const std::string& name,
                                                                     int parallel_iterations) {
  std::lock_guard lock(graph.mutex());
  if (inputs.empty()) return InvalidArgument("a while loop needs at least one loop variable");
  if (parallel_iterations < 1) {
    return InvalidArgument("parallel_iterations must be positive, got ", parallel_iterations);
  }
  TG_ASSIGN_OR_RETURN(std::string scope, graph.PushNameScope(name.empty() ? "while" : name));
  std::unique_ptr<WhileLoopBuilder> w(new WhileLoopBuilder(graph, graph.build_context()));
  w->frame_name_ = StrCat(ScopeName(scope), "/while_context");  // TensorFlow's frame name
  w->parallel_iterations_ = parallel_iterations;
  w->open_ = true;
  auto fail = [&](Status s) {
    w->Close();
    return s;
  };
  std::vector<Output> enters;
  for (const Output& x : inputs) {
    NodeSpec spec = Spec("Enter", "Enter", {x});
    spec.attrs["frame_name"] = AttrOfString(w->frame_name_);
    spec.attrs["is_constant"] = AttrOfBool(false);
    spec.attrs["parallel_iterations"] = AttrOfInt(parallel_iterations);
    auto enter = graph.AddOperation(std::move(spec));  // in the enclosing construct
    if (!enter.ok()) return fail(enter.status());
    w->Mark(enter.value());
    enters.push_back(Output{enter.value(), 0});
  }
  graph.set_build_context(w.get());
  for (const Output& e : enters) {
    // Closed by Finish: input 1 becomes the NextIteration.
    NodeSpec spec;
    spec.type = "Merge";
    spec.name = "Merge";
    spec.inputs.push_back(NodeSpec::InputGroup{{e, e}, true});
    auto merge = graph.AddOperation(std::move(spec));
    if (!merge.ok()) return fail(merge.status());
    w->merges_.push_back(Output{merge.value(), 0});
  }
  w->pivot_ = w->merges_[0].op;
  return w;
}

WhileLoopBuilder::~WhileLoopBuilder() { Close(); }

void WhileLoopBuilder::Close() {
  if (!open_) return;
  open_ = false;
  std::lock_guard lock(graph_.mutex());
  if (graph_.build_context() == this) graph_.set_build_context(parent_);
  (void)graph_.PopNameScope();
}

void WhileLoopBuilder::Abort() { Close(); }

Status WhileLoopBuilder::CheckOpen(const char* what) const {
  if (!open_) return FailedPrecondition("while loop '", frame_name_, "': ", what, " after it was closed");
  if (graph_.build_context() != this) {
    return FailedPrecondition("while loop '", frame_name_, "': ", what,
                              " while a control-flow construct opened inside it is still open");
  }
  return Status::OK();
}

StatusOr<Output> WhileLoopBuilder::BringIn(Output t, const std::string& consumer) {
  // A variable (ref) enters as a ref, so ops inside can update it (TF's RefEnter).
  NodeSpec spec = Spec(IsRefType(t.dtype()) ? "RefEnter" : "Enter",
                       consumer.empty() ? std::string("Enter") : StrCat(consumer, "/Enter"), {t});
  spec.attrs["frame_name"] = AttrOfString(frame_name_);
  spec.attrs["is_constant"] = AttrOfBool(true);
  spec.attrs["parallel_iterations"] = AttrOfInt(parallel_iterations_);
  TG_ASSIGN_OR_RETURN(Operation * enter, AddInParent(std::move(spec)));
  return Output{enter, 0};
}

Status WhileLoopBuilder::SetCondition(Output pred) {
  std::lock_guard lock(graph_.mutex());
  TG_RETURN_IF_ERROR(CheckOpen("SetCondition"));
  if (in_body_) return FailedPrecondition("while loop '", frame_name_, "': the condition is already set");
  if (pred.op == nullptr || BaseType(pred.dtype()) != DT_BOOL) {
    return InvalidArgument("while loop '", frame_name_, "': the condition must be a bool tensor");
  }
  TG_ASSIGN_OR_RETURN(Operation * loop_cond, graph_.AddOperation(Spec("LoopCond", "LoopCond", {pred})));
  const Output p{loop_cond, 0};
  std::vector<Operation*> switches;
  for (const Output& m : merges_) {
    TG_ASSIGN_OR_RETURN(Operation * sw, graph_.AddOperation(Spec("Switch", "Switch", {m, p})));
    switches.push_back(sw);
    switches_false_.push_back(Output{sw, 0});
  }
  for (Operation* sw : switches) {
    TG_ASSIGN_OR_RETURN(Operation * id, graph_.AddOperation(Spec("Identity", "Identity", {Output{sw, 1}})));
    identities_.push_back(Output{id, 0});
  }
  pivot_ = identities_[0].op;
  in_body_ = true;
  return Status::OK();
}

StatusOr<std::vector<Output>> WhileLoopBuilder::Finish(const std::vector<Output>& body_outputs) {
  std::lock_guard lock(graph_.mutex());
  TG_RETURN_IF_ERROR(CheckOpen("Finish"));
  if (!in_body_) return FailedPrecondition("while loop '", frame_name_, "': Finish before SetCondition");
  if (body_outputs.size() != merges_.size()) {
    return InvalidArgument("while loop '", frame_name_, "': the body returned ", body_outputs.size(),
                           " values for ", merges_.size(), " loop variables");
  }
  for (size_t i = 0; i < body_outputs.size(); ++i) {
    const Output& o = body_outputs[i];
    if (o.op == nullptr || o.op->graph() != &graph_) {
      return InvalidArgument("while loop '", frame_name_, "': body output ", i, " is not a tensor of the graph");
    }
    if (BaseType(o.dtype()) != BaseType(merges_[i].dtype())) {
      return InvalidArgument("while loop '", frame_name_, "': body output ", i, " ('", o.Name(),
                             "') is ", DataTypeName(o.dtype()), ", but loop variable ", i, " is ",
                             DataTypeName(merges_[i].dtype()));
    }
  }
  std::vector<Operation*> nexts;
  for (const Output& o : body_outputs) {
    TG_ASSIGN_OR_RETURN(Operation * next, graph_.AddOperation(Spec("NextIteration", "NextIteration", {o})));
    nexts.push_back(next);
  }
  for (size_t i = 0; i < nexts.size(); ++i) {
    TG_RETURN_IF_ERROR(graph_.UpdateInput(merges_[i].op, 1, Output{nexts[i], 0}));
  }
  std::vector<Output> exits;
  for (const Output& s : switches_false_) {
    TG_ASSIGN_OR_RETURN(Operation * exit, AddInParent(Spec("Exit", "Exit", {s})));
    exits.push_back(Output{exit, 0});
  }
  Close();
  return exits;
}

// ---- cond ----

StatusOr<Output> CondBranch::BringIn(Output t, const std::string& consumer) {
  // A variable (ref) stays a ref, so a branch can update it (TF's RefSwitch).
  TG_ASSIGN_OR_RETURN(Operation * sw,
                      AddInParent(Spec(IsRefType(t.dtype()) ? "RefSwitch" : "Switch",
                                       consumer.empty() ? std::string("Switch") : StrCat(consumer, "/Switch"),
                                       {t, pred_})));
  return Output{sw, branch_};
}

StatusOr<std::unique_ptr<CondBuilder>> CondBuilder::Start(Graph& graph, Output pred, const std::string& name) {
  std::lock_guard lock(graph.mutex());
  if (pred.op == nullptr || pred.op->graph() != &graph || BaseType(pred.dtype()) != DT_BOOL) {
    return InvalidArgument("cond: the predicate must be a bool tensor of the graph");
  }
  TG_RETURN_IF_ERROR(graph.PushNameScope(name.empty() ? "cond" : name).status());
  std::unique_ptr<CondBuilder> c(new CondBuilder(graph));
  c->parent_ = graph.build_context();
  c->open_ = true;
  auto fail = [&](Status s) {
    c->Close();
    return s;
  };
  auto sw = graph.AddOperation(Spec("Switch", "Switch", {pred, pred}));
  if (!sw.ok()) return fail(sw.status());
  auto switch_t = graph.AddOperation(Spec("Identity", "switch_t", {Output{sw.value(), 1}}));
  if (!switch_t.ok()) return fail(switch_t.status());
  auto switch_f = graph.AddOperation(Spec("Identity", "switch_f", {Output{sw.value(), 0}}));
  if (!switch_f.ok()) return fail(switch_f.status());
  auto pred_id = graph.AddOperation(Spec("Identity", "pred_id", {pred}));
  if (!pred_id.ok()) return fail(pred_id.status());
  c->pred_id_ = Output{pred_id.value(), 0};
  c->true_ = std::make_unique<CondBranch>(graph, c->parent_, c->pred_id_, 1, switch_t.value());
  c->false_ = std::make_unique<CondBranch>(graph, c->parent_, c->pred_id_, 0, switch_f.value());
  c->true_->Mark(switch_t.value());
  graph.set_build_context(c->true_.get());
  return c;
}

CondBuilder::~CondBuilder() { Close(); }

void CondBuilder::Close() {
  if (!open_) return;
  open_ = false;
  std::lock_guard lock(graph_.mutex());
  if (graph_.build_context() == true_.get() || graph_.build_context() == false_.get()) {
    graph_.set_build_context(parent_);
  }
  (void)graph_.PopNameScope();
}

void CondBuilder::Abort() { Close(); }

Status CondBuilder::CheckOpen(const char* what, const CondBranch* branch) const {
  if (!open_) return FailedPrecondition("cond: ", what, " after it was closed");
  if (graph_.build_context() != branch) {
    return FailedPrecondition("cond: ", what, " out of order, or while a control-flow construct "
                              "opened inside the branch is still open");
  }
  return Status::OK();
}

Status CondBuilder::Else(const std::vector<Output>& true_outputs) {
  std::lock_guard lock(graph_.mutex());
  TG_RETURN_IF_ERROR(CheckOpen("Else", true_.get()));
  std::vector<Output> outs;
  for (const Output& o : true_outputs) {
    if (o.op == nullptr || o.op->graph() != &graph_) return InvalidArgument("cond: a true-branch result is not a tensor of the graph");
    // A result from outside the branch still goes through its Switch: dead when untaken.
    TG_ASSIGN_OR_RETURN(Output inside, true_->Inside(o));
    outs.push_back(inside);
  }
  true_outputs_ = std::move(outs);
  false_->Mark(false_->pivot());
  graph_.set_build_context(false_.get());
  return Status::OK();
}

StatusOr<std::vector<Output>> CondBuilder::Finish(const std::vector<Output>& false_outputs) {
  std::lock_guard lock(graph_.mutex());
  TG_RETURN_IF_ERROR(CheckOpen("Finish", false_.get()));
  if (false_outputs.size() != true_outputs_.size()) {
    return InvalidArgument("cond: the true branch returned ", true_outputs_.size(),
                           " values and the false branch ", false_outputs.size());
  }
  std::vector<Output> outs;
  for (size_t i = 0; i < false_outputs.size(); ++i) {
    const Output& o = false_outputs[i];
    if (o.op == nullptr || o.op->graph() != &graph_) return InvalidArgument("cond: a false-branch result is not a tensor of the graph");
    if (BaseType(o.dtype()) != BaseType(true_outputs_[i].dtype())) {
      return InvalidArgument("cond: result ", i, " is ", DataTypeName(true_outputs_[i].dtype()),
                             " in the true branch and ", DataTypeName(o.dtype()), " in the false branch");
    }
    TG_ASSIGN_OR_RETURN(Output inside, false_->Inside(o));
    outs.push_back(inside);
  }
  graph_.set_build_context(parent_);
  std::vector<Output> merged;
  for (size_t i = 0; i < outs.size(); ++i) {
    NodeSpec spec;
    spec.type = "Merge";
    spec.name = "Merge";
    spec.inputs.push_back(NodeSpec::InputGroup{{outs[i], true_outputs_[i]}, true});
    auto merge = graph_.AddOperation(std::move(spec));
    if (!merge.ok()) {
      graph_.set_build_context(false_.get());
      return merge.status();
    }
    merged.push_back(Output{merge.value(), 0});
  }
  Close();
  return merged;
}

}  // namespace tgraph
