#include "core/autodiff/optimizer.h"

#include <algorithm>

#include "core/autodiff/add_gradients.h"
#include "core/graph/collections.h"
#include "core/graph/graph.h"
#include "core/graph/graph_context_guard.h"

namespace tgraph {
namespace {

const char* KindName(OptimizerKind kind) {
  switch (kind) {
    case OptimizerKind::kGradientDescent: return "GradientDescent";
    case OptimizerKind::kMomentum: return "Momentum";
    case OptimizerKind::kAdam: return "Adam";
    case OptimizerKind::kRMSProp: return "RMSProp";
    case OptimizerKind::kAdagrad: return "Adagrad";
  }
  return "Optimizer";
}

GradAttrs Locking(const OptimizerOptions& o) { return {{"use_locking", AttrOfBool(o.use_locking)}}; }

// Sums the values of repeated indices (TF's _deduplicate_indexed_slices).
GradValue Deduplicate(GraphBuilder& b, const GradValue& g) {
  std::vector<Output> unique = b.OpOutputs("Unique", {g.indices}, {{"out_idx", AttrOfType(DT_INT32)}});
  if (unique.size() != 2) return GradValue{};
  Output count = b.Op("StridedSlice", {b.Shape(unique[0]), b.ConstInt32({0}), b.ConstInt32({1}),
                                       b.ConstInt32({1})},
                      {{"shrink_axis_mask", AttrOfInt(1)}});
  Output values = b.Op("UnsortedSegmentSum", {g.values, unique[1], count});
  return GradValue::Sparse(values, unique[0], g.dense_shape);
}

// ---- the optimizers ----

class GradientDescentOptimizer : public Optimizer {
 public:
  using Optimizer::Optimizer;

 protected:
  Status CreateSlots(GraphBuilder&, Variable*) override { return Status::OK(); }
  Operation* ApplyDense(GraphBuilder& b, Output grad, Variable* var) override {
    return b.OpNode("ApplyGradientDescent", {var->ref(), Hyper(b, lr_, var), grad}, Locking(options_));
  }
  Operation* ApplySparse(GraphBuilder& b, const GradValue& grad, Variable* var) override {
    Output delta = b.Mul(grad.values, Hyper(b, lr_, var));
    return b.OpNode("ScatterSub", {var->ref(), grad.indices, delta}, Locking(options_));
  }
  bool SparseHandlesDuplicates() const override { return true; }
};

class MomentumOptimizer : public Optimizer {
 public:
  using Optimizer::Optimizer;

 protected:
  Status CreateSlots(GraphBuilder& b, Variable* var) override {
    return MakeSlot(b.graph(), var, "momentum", 0.0).status();
  }
  GradAttrs Attrs() const {
    return {{"use_locking", AttrOfBool(options_.use_locking)},
            {"use_nesterov", AttrOfBool(options_.use_nesterov)}};
  }
  Operation* ApplyDense(GraphBuilder& b, Output grad, Variable* var) override {
    return b.OpNode("ApplyMomentum", {var->ref(), Slot(var, "momentum")->ref(), Hyper(b, lr_, var),
                                      grad, HyperConst(b, options_.momentum, var)},
                    Attrs());
  }
  Operation* ApplySparse(GraphBuilder& b, const GradValue& grad, Variable* var) override {
    return b.OpNode("SparseApplyMomentum",
                    {var->ref(), Slot(var, "momentum")->ref(), Hyper(b, lr_, var), grad.values,
                     grad.indices, HyperConst(b, options_.momentum, var)},
                    Attrs());
  }
};

class AdamOptimizer : public Optimizer {
 public:
  using Optimizer::Optimizer;

 protected:
  Status CreateSlots(GraphBuilder& b, Variable* var) override {
    TG_RETURN_IF_ERROR(MakeSlot(b.graph(), var, "m", 0.0).status());
    return MakeSlot(b.graph(), var, "v", 0.0).status();
  }
  Status CreateNonSlots(Graph& graph, Variable* first) {
    TG_RETURN_IF_ERROR(MakeNonSlot(graph, first, "beta1_power", options_.beta1, first->dtype).status());
    return MakeNonSlot(graph, first, "beta2_power", options_.beta2, first->dtype).status();
  }
  Variable* Power(int which) const {
    for (const auto& [n, v] : non_slots_) {
      if (n == (which == 1 ? "beta1_power" : "beta2_power")) return v;
    }
    return nullptr;
  }
  Output PowerValue(GraphBuilder& b, int which, Variable* var) {
    Variable* p = Power(which);
    Output value = p->snapshot;
    return BaseType(value.dtype()) == var->dtype ? value : b.Cast(value, var->dtype);
  }
  Operation* ApplyDense(GraphBuilder& b, Output grad, Variable* var) override {
    if (!EnsurePowers(b, var)) return nullptr;
    return b.OpNode("ApplyAdam",
                    {var->ref(), Slot(var, "m")->ref(), Slot(var, "v")->ref(), PowerValue(b, 1, var),
                     PowerValue(b, 2, var), Hyper(b, lr_, var), HyperConst(b, options_.beta1, var),
                     HyperConst(b, options_.beta2, var), HyperConst(b, options_.epsilon, var), grad},
                    {{"use_locking", AttrOfBool(options_.use_locking)},
                     {"use_nesterov", AttrOfBool(false)}});
  }
  // TF 1.x's sparse Adam: m and v decay everywhere, the gradient lands on its rows, and the
  // whole variable moves by lr_t * m / (sqrt(v) + epsilon).
  Operation* ApplySparse(GraphBuilder& b, const GradValue& grad, Variable* var) override {
    if (!EnsurePowers(b, var)) return nullptr;
    Output one = HyperConst(b, 1.0, var);
    Output beta1 = HyperConst(b, options_.beta1, var);
    Output beta2 = HyperConst(b, options_.beta2, var);
    Output lr_t = b.Div(b.Mul(Hyper(b, lr_, var), b.Op("Sqrt", {b.Sub(one, PowerValue(b, 2, var))})),
                        b.Sub(one, PowerValue(b, 1, var)));
    Variable* m = Slot(var, "m");
    Variable* v = Slot(var, "v");
    Output m_scaled = b.Op("Assign", {m->ref(), b.Mul(m->ref(), beta1)}, Locking(options_));
    Output m_t = b.Op("ScatterAdd", {m_scaled, grad.indices, b.Mul(grad.values, b.Sub(one, beta1))},
                      Locking(options_));
    Output v_scaled = b.Op("Assign", {v->ref(), b.Mul(v->ref(), beta2)}, Locking(options_));
    Output v_t = b.Op("ScatterAdd",
                      {v_scaled, grad.indices, b.Mul(b.Square(grad.values), b.Sub(one, beta2))},
                      Locking(options_));
    Output step = b.Div(b.Mul(lr_t, m_t),
                        b.Add(b.Op("Sqrt", {v_t}), HyperConst(b, options_.epsilon, var)));
    Output var_update = b.Op("AssignSub", {var->ref(), step}, Locking(options_));
    return b.OpNode("NoOp", {}, {}, "update",
                    {var_update.op, m_t.op, v_t.op});
  }
  std::vector<Operation*> Finish(GraphBuilder& b, std::vector<Operation*> updates,
                                 const std::vector<Variable*>& vars) override {
    if (vars.empty() || !EnsurePowers(b, vars[0])) return updates;
    Graph& g = b.graph();
    GraphContextGuard guard(g);
    if (!b.Fail(guard.ControlDependencies(updates)).ok()) return updates;
    if (!b.Fail(guard.ColocateWith(Power(1)->op)).ok()) return updates;
    Variable* p1 = Power(1);
    Variable* p2 = Power(2);
    Output u1 = b.Op("Assign", {p1->ref(), b.Mul(p1->snapshot, b.ScalarLike(p1->snapshot, options_.beta1))},
                     Locking(options_));
    Output u2 = b.Op("Assign", {p2->ref(), b.Mul(p2->snapshot, b.ScalarLike(p2->snapshot, options_.beta2))},
                     Locking(options_));
    updates.push_back(u1.op);
    updates.push_back(u2.op);
    return updates;
  }
  bool EnsurePowers(GraphBuilder& b, Variable* first) {
    if (Power(1) != nullptr) return true;
    return b.Fail(CreateNonSlots(b.graph(), first)).ok();
  }
};

class RMSPropOptimizer : public Optimizer {
 public:
  using Optimizer::Optimizer;

 protected:
  Status CreateSlots(GraphBuilder& b, Variable* var) override {
    TG_RETURN_IF_ERROR(MakeSlot(b.graph(), var, "rms", 1.0).status());
    if (options_.centered) TG_RETURN_IF_ERROR(MakeSlot(b.graph(), var, "mg", 0.0).status());
    return MakeSlot(b.graph(), var, "momentum", 0.0).status();
  }
  std::vector<GradInput> Args(GraphBuilder& b, Variable* var, Output grad) {
    std::vector<GradInput> args = {var->ref()};
    if (options_.centered) args.push_back(Slot(var, "mg")->ref());
    for (Output o : {Slot(var, "rms")->ref(), Slot(var, "momentum")->ref(), Hyper(b, lr_, var),
                     HyperConst(b, options_.decay, var), HyperConst(b, options_.momentum, var),
                     HyperConst(b, options_.epsilon, var), grad}) {
      args.push_back(o);
    }
    return args;
  }
  Operation* ApplyDense(GraphBuilder& b, Output grad, Variable* var) override {
    return b.OpNode(options_.centered ? "ApplyCenteredRMSProp" : "ApplyRMSProp", Args(b, var, grad),
                    Locking(options_));
  }
  Operation* ApplySparse(GraphBuilder& b, const GradValue& grad, Variable* var) override {
    std::vector<GradInput> args = Args(b, var, grad.values);
    args.push_back(grad.indices);
    return b.OpNode(options_.centered ? "SparseApplyCenteredRMSProp" : "SparseApplyRMSProp", args,
                    Locking(options_));
  }
};

class AdagradOptimizer : public Optimizer {
 public:
  using Optimizer::Optimizer;

 protected:
  Status CreateSlots(GraphBuilder& b, Variable* var) override {
    return MakeSlot(b.graph(), var, "accumulator", options_.initial_accumulator_value).status();
  }
  Operation* ApplyDense(GraphBuilder& b, Output grad, Variable* var) override {
    return b.OpNode("ApplyAdagrad",
                    {var->ref(), Slot(var, "accumulator")->ref(), Hyper(b, lr_, var), grad},
                    Locking(options_));
  }
  Operation* ApplySparse(GraphBuilder& b, const GradValue& grad, Variable* var) override {
    return b.OpNode("SparseApplyAdagrad",
                    {var->ref(), Slot(var, "accumulator")->ref(), Hyper(b, lr_, var), grad.values,
                     grad.indices},
                    Locking(options_));
  }
};

Status Validate(const OptimizerOptions& o) {
  const std::string who = o.name.empty() ? KindName(o.kind) : o.name;
  if (o.learning_rate_tensor.op == nullptr && !(o.learning_rate >= 0)) {
    return InvalidArgument(who, ": learning_rate must be >= 0, got ", o.learning_rate);
  }
  if (o.clip_norm < 0) return InvalidArgument(who, ": clip_norm must be >= 0, got ", o.clip_norm);
  switch (o.kind) {
    case OptimizerKind::kMomentum:
      if (!(o.momentum >= 0)) return InvalidArgument(who, ": momentum must be >= 0, got ", o.momentum);
      break;
    case OptimizerKind::kAdam:
      if (!(o.beta1 >= 0 && o.beta1 < 1) || !(o.beta2 >= 0 && o.beta2 < 1)) {
        return InvalidArgument(who, ": beta1 and beta2 must be in [0, 1), got ", o.beta1, " and ", o.beta2);
      }
      if (!(o.epsilon > 0)) return InvalidArgument(who, ": epsilon must be > 0, got ", o.epsilon);
      break;
    case OptimizerKind::kRMSProp:
      if (!(o.decay >= 0 && o.decay <= 1)) return InvalidArgument(who, ": decay must be in [0, 1], got ", o.decay);
      if (!(o.momentum >= 0)) return InvalidArgument(who, ": momentum must be >= 0, got ", o.momentum);
      if (!(o.epsilon > 0)) return InvalidArgument(who, ": epsilon must be > 0, got ", o.epsilon);
      break;
    case OptimizerKind::kAdagrad:
      if (!(o.initial_accumulator_value > 0)) {
        return InvalidArgument(who, ": initial_accumulator_value must be > 0, got ", o.initial_accumulator_value);
      }
      break;
    case OptimizerKind::kGradientDescent:
      break;
  }
  return Status::OK();
}

std::vector<Variable*> TrainableVariables(Graph& graph) {
  std::vector<Variable*> vars;
  if (const auto* items = graph.collections().Find(collection_keys::kTrainableVariables)) {
    for (const CollectionItem& item : *items) {
      if (item.kind == CollectionItem::Kind::kVariable && item.variable) vars.push_back(item.variable);
    }
  }
  return vars;
}

}  // namespace

OptimizerOptions DefaultOptimizerOptions(OptimizerKind kind) {
  OptimizerOptions o;
  o.kind = kind;
  switch (kind) {
    case OptimizerKind::kAdam:
      o.learning_rate = 0.001;
      break;
    case OptimizerKind::kRMSProp:
      o.momentum = 0.0;
      o.epsilon = 1e-10;
      break;
    default:
      break;
  }
  return o;
}

StatusOr<std::unique_ptr<Optimizer>> Optimizer::Create(const OptimizerOptions& options) {
  TG_RETURN_IF_ERROR(Validate(options));
  OptimizerOptions o = options;
  if (o.name.empty()) o.name = KindName(o.kind);
  std::unique_ptr<Optimizer> opt;
  switch (o.kind) {
    case OptimizerKind::kGradientDescent: opt.reset(new GradientDescentOptimizer(o)); break;
    case OptimizerKind::kMomentum: opt.reset(new MomentumOptimizer(o)); break;
    case OptimizerKind::kAdam: opt.reset(new AdamOptimizer(o)); break;
    case OptimizerKind::kRMSProp: opt.reset(new RMSPropOptimizer(o)); break;
    case OptimizerKind::kAdagrad: opt.reset(new AdagradOptimizer(o)); break;
  }
  if (!opt) return InvalidArgument("unknown optimizer kind ", static_cast<int>(o.kind));
  return opt;
}

StatusOr<std::vector<GradAndVar>> Optimizer::ComputeGradients(Graph& graph, Output loss,
                                                             std::vector<Variable*> var_list) {
  std::lock_guard lock(graph.mutex());
  if (var_list.empty()) var_list = TrainableVariables(graph);
  if (var_list.empty()) return InvalidArgument(name(), ": no variables to optimize");
  std::vector<Output> xs;
  for (Variable* v : var_list) {
    if (v == nullptr || v->op == nullptr || v->op->graph() != &graph) {
      return InvalidArgument(name(), ": a variable in var_list is not in this graph");
    }
    xs.push_back(v->ref());
  }
  AddGradientsOptions options;
  options.allow_sparse = true;
  TG_ASSIGN_OR_RETURN(std::vector<GradValue> grads, AddGradients(graph, {loss}, xs, {}, options));
  std::vector<GradAndVar> result;
  for (size_t i = 0; i < var_list.size(); ++i) result.push_back(GradAndVar{grads[i], var_list[i]});
  return result;
}

void Optimizer::Prepare(GraphBuilder& b) {
  if (options_.learning_rate_tensor.op != nullptr) {
    lr_ = b.Op("Identity", {options_.learning_rate_tensor}, {}, "learning_rate");
  } else {
    lr_ = b.Scalar(DT_FLOAT, options_.learning_rate, "learning_rate");
  }
}

std::vector<Operation*> Optimizer::Finish(GraphBuilder&, std::vector<Operation*> updates,
                                          const std::vector<Variable*>&) {
  return updates;
}

Output Optimizer::Hyper(GraphBuilder& b, Output value, Variable* var) {
  if (value.op == nullptr) return value;
  return BaseType(value.dtype()) == var->dtype ? value : b.Cast(value, var->dtype);
}

Output Optimizer::HyperConst(GraphBuilder& b, double value, Variable* var) {
  return b.Scalar(var->dtype, value);
}

Variable* Optimizer::Slot(const Variable* var, const std::string& slot_name) const {
  for (const auto& [key, slot] : slots_) {
    if (key.first == var && key.second == slot_name) return slot;
  }
  return nullptr;
}

StatusOr<Variable*> Optimizer::MakeSlot(Graph& graph, Variable* var, const std::string& slot_name,
                                        double value) {
  if (Variable* existing = Slot(var, slot_name)) return existing;
  if (!var->shape.IsFullyDefined()) {
    return InvalidArgument(name(), ": variable '", var->name, "' needs a fully defined shape for its ",
                           slot_name, " slot, has ", var->shape.ToString());
  }
  GraphContextGuard guard(graph);
  TG_RETURN_IF_ERROR(guard.NameScope("").status());
  TG_RETURN_IF_ERROR(guard.ClearControlDependencies());
  TG_RETURN_IF_ERROR(guard.ColocateWith(var->op));
  VariableOptions options;
  options.name = var->name + "/" + name();
  options.trainable = false;
  const DataType dtype = var->dtype;
  const std::vector<int64_t> dims = var->shape.dims();
  auto initial = [&](Graph& g) -> StatusOr<Output> {
    GraphBuilder b(g);
    Output fill = b.Fill(b.ConstInt32(std::vector<int32_t>(dims.begin(), dims.end())),
                         b.Scalar(dtype, value));
    // TF names it "<slot>/Initializer/zeros"; an Identity keeps that name on the value.
    Output named = b.Op("Identity", {fill}, {}, value == 0 ? "Initializer/zeros" : "Initializer/Const");
    TG_RETURN_IF_ERROR(b.status());
    return named;
  };
  TG_ASSIGN_OR_RETURN(Variable * slot, graph.variables().CreateVariable(initial, options));
  slots_.push_back({{var, slot_name}, slot});
  return slot;
}

StatusOr<Variable*> Optimizer::MakeNonSlot(Graph& graph, Variable* first, const std::string& var_name,
                                           double value, DataType dtype) {
  for (const auto& [n, v] : non_slots_) {
    if (n == var_name) return v;
  }
  GraphContextGuard guard(graph);
  TG_RETURN_IF_ERROR(guard.NameScope("").status());
  TG_RETURN_IF_ERROR(guard.ClearControlDependencies());
  TG_RETURN_IF_ERROR(guard.ColocateWith(first->op));
  VariableOptions options;
  options.name = var_name;
  options.trainable = false;
  auto initial = [&](Graph& g) -> StatusOr<Output> {
    GraphBuilder b(g);
    Output c = b.Scalar(dtype, value, "initial_value");
    TG_RETURN_IF_ERROR(b.status());
    return c;
  };
  TG_ASSIGN_OR_RETURN(Variable * v, graph.variables().CreateVariable(initial, options));
  non_slots_.push_back({var_name, v});
  return v;
}

StatusOr<Operation*> Optimizer::ApplyGradients(Graph& graph, const std::vector<GradAndVar>& grads,
                                               Variable* global_step, const std::string& name) {
  std::lock_guard lock(graph.mutex());
  if (graph.finalized()) return FailedPrecondition("Graph is finalized and cannot be modified (", this->name(), ".apply_gradients)");
  std::vector<GradAndVar> used;
  for (const GradAndVar& gv : grads) {
    if (gv.var == nullptr) return InvalidArgument(this->name(), ": apply_gradients got a NULL variable");
    if (gv.var->op->graph() != &graph) {
      return InvalidArgument(this->name(), ": variable '", gv.var->name, "' is not in this graph");
    }
    if (!gv.grad.defined()) continue;
    if (BaseType(gv.grad.values.dtype()) != gv.var->dtype) {
      return InvalidArgument(this->name(), ": the gradient for '", gv.var->name, "' is ",
                             DataTypeName(BaseType(gv.grad.values.dtype())), " but the variable is ",
                             DataTypeName(gv.var->dtype));
    }
    used.push_back(gv);
  }
  if (used.empty()) {
    std::string names;
    for (const GradAndVar& gv : grads) names += (names.empty() ? "" : ", ") + gv.var->name;
    return InvalidArgument(this->name(), ": no gradients provided for any variable (", names, ")");
  }
  if (global_step != nullptr && global_step->op->graph() != &graph) {
    return InvalidArgument(this->name(), ": global_step is not in this graph");
  }

  GraphBuilder b(graph);
  for (const GradAndVar& gv : used) TG_RETURN_IF_ERROR(CreateSlots(b, gv.var));

  GraphContextGuard scope(graph);
  std::string scope_name;
  TG_ASSIGN_OR_RETURN(scope_name, scope.NameScope(name.empty() ? this->name() : name));
  Prepare(b);
  std::vector<Operation*> updates;
  std::vector<Variable*> vars;
  for (const GradAndVar& gv : used) {
    GraphContextGuard per_var(graph);
    TG_RETURN_IF_ERROR(per_var.NameScope("update_" + gv.var->name).status());
    TG_RETURN_IF_ERROR(per_var.ColocateWith(gv.var->op));
    Operation* update = nullptr;
    if (gv.grad.is_sparse()) {
      GradValue g = SparseHandlesDuplicates() ? gv.grad : Deduplicate(b, gv.grad);
      if (b.ok()) update = ApplySparse(b, g, gv.var);
    } else {
      update = ApplyDense(b, gv.grad.values, gv.var);
    }
    TG_RETURN_IF_ERROR(b.status());
    if (update == nullptr) return Internal(this->name(), ": no update op for '", gv.var->name, "'");
    updates.push_back(update);
    vars.push_back(gv.var);
  }
  std::vector<Operation*> finish = Finish(b, updates, vars);
  TG_RETURN_IF_ERROR(b.status());
  // The group is named after the scope itself ("Adam"); with a global step it is
  // "<scope>/update" and the step's AssignAdd takes the scope's name.
  Operation* group = b.OpNode("NoOp", {}, {}, global_step ? "update" : scope_name + "/", finish);
  TG_RETURN_IF_ERROR(b.status());
  if (global_step == nullptr) return group;
  GraphContextGuard step_scope(graph);
  TG_RETURN_IF_ERROR(step_scope.ColocateWith(global_step->op));
  Output one = b.Scalar(global_step->dtype, 1.0);
  Operation* step = b.OpNode("AssignAdd", {global_step->ref(), one}, Locking(options_),
                             scope_name + "/", {group});
  TG_RETURN_IF_ERROR(b.status());
  return step;
}

StatusOr<Operation*> Optimizer::Minimize(Graph& graph, Output loss, Variable* global_step,
                                         std::vector<Variable*> var_list, const std::string& name) {
  std::lock_guard lock(graph.mutex());
  TG_ASSIGN_OR_RETURN(std::vector<GradAndVar> grads, ComputeGradients(graph, loss, std::move(var_list)));
  bool any = std::any_of(grads.begin(), grads.end(), [](const GradAndVar& gv) { return gv.grad.defined(); });
  if (!any) {
    return InvalidArgument(this->name(), ": no gradients provided for any variable; '", loss.Name(),
                           "' does not depend on the variables to optimize");
  }
  if (options_.clip_norm > 0) {
    GraphBuilder b(graph);
    GraphContextGuard scope(graph);
    TG_RETURN_IF_ERROR(scope.NameScope("clip_by_global_norm").status());
    grads = ClipByGlobalNorm(b, grads, options_.clip_norm);
    TG_RETURN_IF_ERROR(b.status());
  }
  return ApplyGradients(graph, grads, global_step, name);
}

std::vector<GradAndVar> ClipByGlobalNorm(GraphBuilder& b, const std::vector<GradAndVar>& grads,
                                         double clip_norm) {
  std::vector<Output> squares;
  for (const GradAndVar& gv : grads) {
    if (!gv.grad.defined()) continue;
    Output sq = b.Mul(b.Op("L2Loss", {gv.grad.values}), b.ScalarLike(gv.grad.values, 2.0));
    squares.push_back(BaseType(sq.dtype()) == DT_FLOAT ? sq : b.Cast(sq, DT_FLOAT));
  }
  if (squares.empty() || !b.ok()) return grads;
  Output norm = b.Op("Sqrt", {b.AddN(squares)}, {}, "global_norm");
  Output clip = b.Scalar(DT_FLOAT, clip_norm);
  Output scale = b.Div(clip, b.Op("Maximum", {norm, clip}));
  std::vector<GradAndVar> out = grads;
  for (GradAndVar& gv : out) {
    if (!gv.grad.defined()) continue;
    Output s = BaseType(gv.grad.values.dtype()) == DT_FLOAT ? scale : b.Cast(scale, gv.grad.values.dtype());
    gv.grad.values = b.Mul(gv.grad.values, s);
  }
  return out;
}

StatusOr<Variable*> GetOrCreateGlobalStep(Graph& graph) {
  std::lock_guard lock(graph.mutex());
  if (const auto* items = graph.collections().Find(collection_keys::kGlobalStep)) {
    for (const CollectionItem& item : *items) {
      if (item.kind == CollectionItem::Kind::kVariable && item.variable) return item.variable;
    }
  }
  if (graph.variables().FindByName("global_step") != nullptr) {
    return FailedPrecondition("a variable named 'global_step' exists but is not in the '",
                              collection_keys::kGlobalStep, "' collection");
  }
  GraphContextGuard guard(graph);
  TG_RETURN_IF_ERROR(guard.NameScope("").status());
  TG_RETURN_IF_ERROR(guard.ClearControlDependencies());
  VariableOptions options;
  options.name = "global_step";
  options.trainable = false;
  options.collections = {collection_keys::kGlobalStep};
  auto initial = [](Graph& g) -> StatusOr<Output> {
    GraphBuilder b(g);
    Output zero = b.Scalar(DT_INT64, 0, "Initializer/zeros");
    TG_RETURN_IF_ERROR(b.status());
    return zero;
  };
  return graph.variables().CreateVariable(initial, options);
}

}  // namespace tgraph
