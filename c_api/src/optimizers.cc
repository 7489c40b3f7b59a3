// Optimizers through C: TG_Optimizer wraps core/autodiff's Optimizer.
#include <memory>

#include "c_api/src/c_api_internal.h"
#include "core/autodiff/optimizer.h"

struct TG_Optimizer {
  std::unique_ptr<tgraph::Optimizer> optimizer;
};

using namespace tgraph;
using namespace tgraph::capi;

namespace {

Status ToOptions(const TG_OptimizerOptions* in, OptimizerOptions* out) {
  if (in == nullptr) return NullArg("TG_NewOptimizer", "the options");
  if (in->struct_size < offsetof(TG_OptimizerOptions, clip_norm) + sizeof(double)) {
    return InvalidArgument("TG_NewOptimizer: options have struct_size ", in->struct_size,
                           " (was TG_InitOptimizerOptions called?)");
  }
  if (in->kind < TG_OPTIMIZER_GRADIENT_DESCENT || in->kind > TG_OPTIMIZER_ADAGRAD) {
    return InvalidArgument("TG_NewOptimizer: unknown optimizer kind ", static_cast<int>(in->kind));
  }
  out->kind = static_cast<OptimizerKind>(in->kind);
  out->learning_rate = in->learning_rate;
  out->learning_rate_tensor = ToOutput(in->learning_rate_tensor);
  out->momentum = in->momentum;
  out->use_nesterov = in->use_nesterov != 0;
  out->beta1 = in->beta1;
  out->beta2 = in->beta2;
  out->epsilon = in->epsilon;
  out->decay = in->decay;
  out->centered = in->centered != 0;
  out->initial_accumulator_value = in->initial_accumulator_value;
  out->use_locking = in->use_locking != 0;
  out->name = in->name ? in->name : "";
  out->clip_norm = in->clip_norm;
  return Status::OK();
}

Status ReadVars(const char* fn, TG_Graph* g, TG_Variable* const* var_list, int n,
                std::vector<Variable*>* out) {
  if (n < 0 || (n > 0 && var_list == nullptr)) return InvalidArgument(fn, ": bad var_list (n = ", n, ")");
  for (int i = 0; i < n; ++i) {
    if (var_list[i] == nullptr) return InvalidArgument(fn, ": variable ", i, " is NULL");
    Variable* v = ToVar(var_list[i]);
    if (v->op == nullptr || v->op->graph() != &g->graph) {
      return InvalidArgument(fn, ": variable '", v->name, "' is not in this graph");
    }
    out->push_back(v);
  }
  return Status::OK();
}

Status CheckStep(const char* fn, TG_Graph* g, TG_Variable* step) {
  if (step != nullptr && ToVar(step)->op->graph() != &g->graph) {
    return InvalidArgument(fn, ": global_step is not in this graph");
  }
  return Status::OK();
}

TG_Output OrNull(Output o) { return o.op == nullptr ? TG_Output{nullptr, 0} : ToC(o); }

}  // namespace

extern "C" void TG_InitOptimizerOptions(TG_OptimizerOptions* opts, TG_OptimizerKind kind) {
  if (opts == nullptr) return;
  const OptimizerOptions d = DefaultOptimizerOptions(static_cast<OptimizerKind>(kind));
  std::memset(opts, 0, sizeof *opts);
  opts->struct_size = sizeof *opts;
  opts->kind = kind;
  opts->learning_rate = d.learning_rate;
  opts->learning_rate_tensor = TG_Output{nullptr, 0};
  opts->momentum = d.momentum;
  opts->use_nesterov = d.use_nesterov;
  opts->beta1 = d.beta1;
  opts->beta2 = d.beta2;
  opts->epsilon = d.epsilon;
  opts->decay = d.decay;
  opts->centered = d.centered;
  opts->initial_accumulator_value = d.initial_accumulator_value;
  opts->use_locking = d.use_locking;
  opts->name = nullptr;
  opts->clip_norm = d.clip_norm;
}

extern "C" TG_Optimizer* TG_NewOptimizer(const TG_OptimizerOptions* opts, TG_Status* status) {
  return GuardValue<TG_Optimizer*>(status, nullptr, [&](TG_Optimizer** out) -> Status {
    OptimizerOptions options;
    TG_RETURN_IF_ERROR(ToOptions(opts, &options));
    TG_ASSIGN_OR_RETURN(std::unique_ptr<Optimizer> opt, Optimizer::Create(options));
    *out = new TG_Optimizer{std::move(opt)};
    return Status::OK();
  });
}

extern "C" void TG_DeleteOptimizer(TG_Optimizer* opt) { delete opt; }

extern "C" TG_Operation* TG_OptimizerMinimize(TG_Optimizer* opt, TG_Graph* g, TG_Output loss,
                                              TG_Variable* const* var_list, int n,
                                              TG_Variable* global_step, TG_Status* status) {
  return GuardValue<TG_Operation*>(status, nullptr, [&](TG_Operation** out) -> Status {
    const char* fn = "TG_OptimizerMinimize";
    if (opt == nullptr) return NullArg(fn, "the optimizer");
    if (g == nullptr) return NullArg(fn, "the graph");
    GraphLock lock(g->graph.mutex());
    TG_RETURN_IF_ERROR(CheckNotInDeviceFunction(fn, g));
    TG_RETURN_IF_ERROR(CheckOutput(fn, &g->graph, loss));
    std::vector<Variable*> vars;
    TG_RETURN_IF_ERROR(ReadVars(fn, g, var_list, n, &vars));
    TG_RETURN_IF_ERROR(CheckStep(fn, g, global_step));
    TG_ASSIGN_OR_RETURN(Operation * op, opt->optimizer->Minimize(g->graph, ToOutput(loss),
                                                                 global_step ? ToVar(global_step) : nullptr,
                                                                 vars));
    *out = ToC(op);
    return Status::OK();
  });
}

extern "C" void TG_OptimizerComputeGradients(TG_Optimizer* opt, TG_Graph* g, TG_Output loss,
                                             TG_Variable* const* var_list, int n,
                                             TG_Output* grad_values, TG_Output* grad_indices,
                                             TG_Output* grad_dense_shape, TG_Variable** vars_out,
                                             int max, int* num_vars, TG_Status* status) {
  Guard(status, [&]() -> Status {
    const char* fn = "TG_OptimizerComputeGradients";
    if (opt == nullptr) return NullArg(fn, "the optimizer");
    if (g == nullptr) return NullArg(fn, "the graph");
    if (max < 0) return InvalidArgument(fn, ": max is ", max);
    if (max > 0 && (grad_values == nullptr || grad_indices == nullptr || grad_dense_shape == nullptr ||
                    vars_out == nullptr)) {
      return NullArg(fn, "an output array");
    }
    GraphLock lock(g->graph.mutex());
    TG_RETURN_IF_ERROR(CheckNotInDeviceFunction(fn, g));
    TG_RETURN_IF_ERROR(CheckOutput(fn, &g->graph, loss));
    std::vector<Variable*> vars;
    TG_RETURN_IF_ERROR(ReadVars(fn, g, var_list, n, &vars));
    if (max == 0 && num_vars != nullptr) {
      // Only the count (one entry per variable), without building anything: the gradients
      // would be built again by the call that takes them.
      int count = static_cast<int>(vars.size());
      if (vars.empty()) {
        if (const auto* items = g->graph.collections().Find(collection_keys::kTrainableVariables)) {
          for (const CollectionItem& item : *items) count += item.kind == CollectionItem::Kind::kVariable;
        }
      }
      *num_vars = count;
      return Status::OK();
    }
    TG_ASSIGN_OR_RETURN(std::vector<GradAndVar> grads,
                        opt->optimizer->ComputeGradients(g->graph, ToOutput(loss), vars));
    if (num_vars != nullptr) *num_vars = static_cast<int>(grads.size());
    for (size_t i = 0; i < grads.size() && static_cast<int>(i) < max; ++i) {
      grad_values[i] = OrNull(grads[i].grad.values);
      grad_indices[i] = OrNull(grads[i].grad.indices);
      grad_dense_shape[i] = OrNull(grads[i].grad.dense_shape);
      vars_out[i] = ToC(grads[i].var);
    }
    return Status::OK();
  });
}

extern "C" TG_Operation* TG_OptimizerApplyGradients(TG_Optimizer* opt, TG_Graph* g,
                                                    const TG_Output* grad_values,
                                                    const TG_Output* grad_indices,
                                                    const TG_Output* grad_dense_shape,
                                                    TG_Variable* const* vars, int n,
                                                    TG_Variable* global_step, const char* name,
                                                    TG_Status* status) {
  return GuardValue<TG_Operation*>(status, nullptr, [&](TG_Operation** out) -> Status {
    const char* fn = "TG_OptimizerApplyGradients";
    if (opt == nullptr) return NullArg(fn, "the optimizer");
    if (g == nullptr) return NullArg(fn, "the graph");
    if (n <= 0 || grad_values == nullptr || vars == nullptr) {
      return InvalidArgument(fn, ": no (gradient, variable) pairs given");
    }
    GraphLock lock(g->graph.mutex());
    TG_RETURN_IF_ERROR(CheckNotInDeviceFunction(fn, g));
    std::vector<Variable*> var_list;
    TG_RETURN_IF_ERROR(ReadVars(fn, g, vars, n, &var_list));
    TG_RETURN_IF_ERROR(CheckStep(fn, g, global_step));
    std::vector<GradAndVar> pairs;
    for (int i = 0; i < n; ++i) {
      GradAndVar gv;
      gv.var = var_list[static_cast<size_t>(i)];
      if (grad_values[i].oper != nullptr) {
        TG_RETURN_IF_ERROR(CheckOutput(fn, &g->graph, grad_values[i]));
        gv.grad.values = ToOutput(grad_values[i]);
        const bool sparse = grad_indices != nullptr && grad_indices[i].oper != nullptr;
        if (sparse) {
          if (grad_dense_shape == nullptr || grad_dense_shape[i].oper == nullptr) {
            return InvalidArgument(fn, ": gradient ", i, " has indices but no dense_shape");
          }
          TG_RETURN_IF_ERROR(CheckOutput(fn, &g->graph, grad_indices[i]));
          TG_RETURN_IF_ERROR(CheckOutput(fn, &g->graph, grad_dense_shape[i]));
          gv.grad.indices = ToOutput(grad_indices[i]);
          gv.grad.dense_shape = ToOutput(grad_dense_shape[i]);
        }
      }
      pairs.push_back(gv);
    }
    TG_ASSIGN_OR_RETURN(Operation * op,
                        opt->optimizer->ApplyGradients(g->graph, pairs,
                                                       global_step ? ToVar(global_step) : nullptr,
                                                       name ? name : ""));
    *out = ToC(op);
    return Status::OK();
  });
}

extern "C" TG_Variable* TG_OptimizerGetSlot(const TG_Optimizer* opt, const TG_Variable* var,
                                            const char* slot_name) {
  return NoThrow(static_cast<TG_Variable*>(nullptr), [&]() -> TG_Variable* {
    if (opt == nullptr || var == nullptr || slot_name == nullptr) return nullptr;
    return ToC(opt->optimizer->Slot(ToVar(var), slot_name));
  });
}

extern "C" TG_Variable* TG_GraphGetOrCreateGlobalStep(TG_Graph* g, TG_Status* status) {
  return GuardValue<TG_Variable*>(status, nullptr, [&](TG_Variable** out) -> Status {
    const char* fn = "TG_GraphGetOrCreateGlobalStep";
    if (g == nullptr) return NullArg(fn, "the graph");
    GraphLock lock(g->graph.mutex());
    TG_RETURN_IF_ERROR(CheckNotInDeviceFunction(fn, g));
    TG_ASSIGN_OR_RETURN(Variable * v, GetOrCreateGlobalStep(g->graph));
    *out = ToC(v);
    return Status::OK();
  });
}
