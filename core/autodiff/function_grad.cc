#include "core/autodiff/function_grad.h"

#include <cctype>
#include <cstdio>
#include <functional>
#include <set>

#include "core/autodiff/add_gradients.h"
#include "core/autodiff/differentiable.h"
#include "core/graph/control_flow_builder.h"
#include "core/graph/function_library.h"
#include "core/graph/graph.h"
#include "core/graph/graphdef_io.h"

namespace tgraph {
namespace {

// Numbers have zeros; a gradient for a handle (resource, list), a string or a bool is the
// value itself, which no one reads (SymbolicGradient's outputs have its inputs' types).
bool HasZeros(DataType dtype) {
  const DataType t = BaseType(dtype);
  return t != DT_RESOURCE && t != DT_VARIANT && t != DT_STRING && t != DT_BOOL;
}

AttrMap AttrsOf(const tf::NameAttrList& f) { return AttrMap(f.attr().begin(), f.attr().end()); }

// A function's symbolic gradient, as a graph: x_i and dy_j placeholders, the body inlined
// on the x's, AddGradients of its floating-point results.
StatusOr<std::unique_ptr<FunctionBody>> BuildGradient(FunctionLibrary& library, const FunctionBody& f) {
  auto grad = std::make_unique<FunctionBody>();
  grad->name = StrCat(f.name, " (gradient)");
  grad->graph = std::make_unique<Graph>(&f.graph->registry(), &library);
  Graph& g = *grad->graph;
  std::lock_guard lock(g.mutex());
  GraphBuilder b(g);
  std::vector<Output> xs, dys;
  for (size_t i = 0; i < f.arg_types.size(); ++i) {
    xs.push_back(b.Op("Placeholder", {}, {{"dtype", AttrOfType(f.arg_types[i])}}, StrCat("x_", i)));
  }
  for (size_t j = 0; j < f.ret_types.size(); ++j) {
    dys.push_back(b.Op("Placeholder", {}, {{"dtype", AttrOfType(f.ret_types[j])}}, StrCat("dy_", j)));
  }
  TG_RETURN_IF_ERROR(b.status());
  TG_ASSIGN_OR_RETURN(std::vector<Output> ys, InlineFunction(g, f, xs));
  std::vector<Output> fy, fdy, fx;
  for (size_t j = 0; j < ys.size(); ++j) {
    if (IsDifferentiable(ys[j].dtype())) {
      fy.push_back(ys[j]);
      fdy.push_back(dys[j]);
    }
  }
  std::vector<size_t> fx_index;
  for (size_t i = 0; i < xs.size(); ++i) {
    if (IsDifferentiable(xs[i].dtype())) {
      fx.push_back(xs[i]);
      fx_index.push_back(i);
    }
  }
  std::vector<Output> dxs(xs.size());
  if (!fy.empty() && !fx.empty()) {
    TG_ASSIGN_OR_RETURN(std::vector<GradValue> grads, AddGradients(g, fy, fx, fdy));
    for (size_t k = 0; k < grads.size(); ++k) {
      if (grads[k].defined()) dxs[fx_index[k]] = grads[k].values;  // AddGradients made it dense
    }
  }
  for (size_t i = 0; i < xs.size(); ++i) {
    if (dxs[i].op == nullptr) dxs[i] = HasZeros(xs[i].dtype()) ? b.ZerosLike(xs[i]) : b.Identity(xs[i]);
  }
  TG_RETURN_IF_ERROR(b.status());
  grad->args = xs;
  grad->args.insert(grad->args.end(), dys.begin(), dys.end());
  grad->arg_types = f.arg_types;
  grad->arg_types.insert(grad->arg_types.end(), f.ret_types.begin(), f.ret_types.end());
  grad->rets = dxs;
  grad->ret_types = f.arg_types;
  return grad;
}

// One gradient per output of a call for its SymbolicGradient: the gradient that reached it,
// zeros for a floating-point output that got none, the output itself for any other (unread).
std::vector<Output> OutputGradients(GradientContext& ctx, int first_output = 0) {
  std::vector<Output> dys;
  for (int k = first_output; k < ctx.num_outputs(); ++k) {
    if (ctx.has_grad(k)) {
      dys.push_back(ctx.grad(k));
    } else if (IsDifferentiable(ctx.output(k).dtype())) {
      dys.push_back(ctx.ZerosLike(ctx.output(k)));
    } else {
      dys.push_back(ctx.output(k));
    }
  }
  return dys;
}

std::vector<DataType> TypesOf(const std::vector<Output>& ts) {
  std::vector<DataType> types;
  for (const Output& t : ts) types.push_back(BaseType(t.dtype()));
  return types;
}

StatusOr<const tf::NameAttrList*> FuncAttr(GradientContext& ctx, const char* name) {
  const tf::AttrValue* v = ctx.FindAttr(name);
  if (v == nullptr || v->value_case() != tf::AttrValue::kFunc) {
    return InvalidArgument("attr '", name, "' is not a function");
  }
  return &v->func();
}

void SetFloatInputGrads(GradientContext& ctx, const std::vector<Output>& grads, int first_input) {
  for (size_t i = 0; i < grads.size(); ++i) {
    const int input = first_input + static_cast<int>(i);
    if (IsDifferentiable(ctx.input(input).dtype())) ctx.SetInputGrad(input, grads[i]);
  }
}

// PartitionedCall, StatefulPartitionedCall: SymbolicGradient of f.
Status CallGrad(GradientContext& ctx) {
  TG_ASSIGN_OR_RETURN(const tf::NameAttrList* f, FuncAttr(ctx, "f"));
  TG_RETURN_IF_ERROR(
      SymbolicGradientBody(ctx.graph().functions(), f->name(), AttrsOf(*f)).status());
  std::vector<Output> inputs;
  for (int i = 0; i < ctx.num_inputs(); ++i) inputs.push_back(ctx.input(i));
  std::vector<Output> all = inputs;
  for (const Output& dy : OutputGradients(ctx)) all.push_back(dy);
  tf::AttrValue fattr;
  *fattr.mutable_func() = *f;
  std::vector<Output> grads = ctx.OpOutputs(
      "SymbolicGradient", {GradInput::List(all)},
      {{"Tin", AttrOfTypeList(TypesOf(all))}, {"Tout", AttrOfTypeList(TypesOf(inputs))}, {"f", fattr}});
  if (!ctx.ok()) return ctx.status();
  SetFloatInputGrads(ctx, grads, 0);
  return ctx.status();
}

// The FunctionDef "<branch>_grad_<hash of its instantiation>": (x..., dy...) -> dx..., one
// SymbolicGradient node of the branch. Added to the library (again is fine: same definition).
StatusOr<std::string> BranchGradientFunction(FunctionLibrary& library, const tf::NameAttrList& branch,
                                             const std::vector<DataType>& x_types,
                                             const std::vector<DataType>& dy_types) {
  const std::string key = FunctionLibrary::InstanceKey(branch.name(), AttrsOf(branch));
  char hash[17];
  std::snprintf(hash, sizeof hash, "%016llx",
                static_cast<unsigned long long>(std::hash<std::string>{}(key)));
  tf::FunctionDef fdef;
  tf::OpDef* sig = fdef.mutable_signature();
  sig->set_name(StrCat(branch.name(), "_grad_", hash));
  tf::NodeDef* node = fdef.add_node_def();
  node->set_name("grad");
  node->set_op("SymbolicGradient");
  std::vector<DataType> in_types;
  auto add_input = [&](const std::string& name, DataType t) {
    tf::OpDef::ArgDef* arg = sig->add_input_arg();
    arg->set_name(name);
    arg->set_type(static_cast<tf::DataType>(t));
    node->add_input(name);
    in_types.push_back(t);
  };
  for (size_t i = 0; i < x_types.size(); ++i) add_input(StrCat("x_", i), x_types[i]);
  for (size_t j = 0; j < dy_types.size(); ++j) add_input(StrCat("dy_", j), dy_types[j]);
  for (size_t i = 0; i < x_types.size(); ++i) {
    tf::OpDef::ArgDef* arg = sig->add_output_arg();
    arg->set_name(StrCat("dx_", i));
    arg->set_type(static_cast<tf::DataType>(x_types[i]));
    (*fdef.mutable_ret())[arg->name()] = StrCat("grad:output:", i);
  }
  auto& attrs = *node->mutable_attr();
  attrs["Tin"] = AttrOfTypeList(in_types);
  attrs["Tout"] = AttrOfTypeList(x_types);
  *attrs["f"].mutable_func() = branch;
  tf::FunctionDefLibrary lib;
  *lib.add_function() = fdef;
  TG_RETURN_IF_ERROR(library.Add(lib));
  return sig->name();
}

// If, StatelessIf: If(cond, x..., dy...) of the branches' gradients.
Status IfGrad(GradientContext& ctx) {
  TG_ASSIGN_OR_RETURN(const tf::NameAttrList* then_f, FuncAttr(ctx, "then_branch"));
  TG_ASSIGN_OR_RETURN(const tf::NameAttrList* else_f, FuncAttr(ctx, "else_branch"));
  FunctionLibrary& library = ctx.graph().functions();
  for (const tf::NameAttrList* f : {then_f, else_f}) {
    TG_RETURN_IF_ERROR(SymbolicGradientBody(library, f->name(), AttrsOf(*f)).status());
  }
  std::vector<Output> inputs;
  for (int i = 1; i < ctx.num_inputs(); ++i) inputs.push_back(ctx.input(i));
  const std::vector<Output> dys = OutputGradients(ctx);
  const std::vector<DataType> x_types = TypesOf(inputs), dy_types = TypesOf(dys);
  TG_ASSIGN_OR_RETURN(std::string then_grad, BranchGradientFunction(library, *then_f, x_types, dy_types));
  TG_ASSIGN_OR_RETURN(std::string else_grad, BranchGradientFunction(library, *else_f, x_types, dy_types));
  std::vector<Output> all = inputs;
  all.insert(all.end(), dys.begin(), dys.end());
  tf::AttrValue then_attr, else_attr;
  then_attr.mutable_func()->set_name(then_grad);
  else_attr.mutable_func()->set_name(else_grad);
  std::vector<Output> grads = ctx.OpOutputs(
      ctx.op()->type(), {ctx.input(0), GradInput::List(all)},
      {{"Tcond", AttrOfType(BaseType(ctx.input(0).dtype()))},
       {"Tin", AttrOfTypeList(TypesOf(all))},
       {"Tout", AttrOfTypeList(x_types)},
       {"then_branch", then_attr},
       {"else_branch", else_attr}});
  if (!ctx.ok()) return ctx.status();
  SetFloatInputGrads(ctx, grads, 1);
  return ctx.status();
}

// Case, StatelessCase: a Case(branch_index, x..., dy...) of the branches' gradients (an
// index out of range picks the last branch, in both).
Status CaseGrad(GradientContext& ctx) {
  const tf::AttrValue* branches = ctx.FindAttr("branches");
  if (branches == nullptr || branches->list().func_size() == 0) {
    return InvalidArgument("attr 'branches' lists no function");
  }
  FunctionLibrary& library = ctx.graph().functions();
  std::vector<Output> inputs;
  for (int i = 1; i < ctx.num_inputs(); ++i) inputs.push_back(ctx.input(i));
  const std::vector<Output> dys = OutputGradients(ctx);
  const std::vector<DataType> x_types = TypesOf(inputs), dy_types = TypesOf(dys);
  tf::AttrValue grad_branches;
  for (const tf::NameAttrList& f : branches->list().func()) {
    TG_RETURN_IF_ERROR(SymbolicGradientBody(library, f.name(), AttrsOf(f)).status());
    TG_ASSIGN_OR_RETURN(std::string grad, BranchGradientFunction(library, f, x_types, dy_types));
    grad_branches.mutable_list()->add_func()->set_name(grad);
  }
  std::vector<Output> all = inputs;
  all.insert(all.end(), dys.begin(), dys.end());
  std::vector<Output> grads = ctx.OpOutputs(
      ctx.op()->type(), {ctx.input(0), GradInput::List(all)},
      {{"Tin", AttrOfTypeList(TypesOf(all))}, {"Tout", AttrOfTypeList(x_types)}, {"branches", grad_branches}});
  if (!ctx.ok()) return ctx.status();
  SetFloatInputGrads(ctx, grads, 1);
  return ctx.status();
}

// TensorFlow's truth of a loop condition as the bool scalar LoopCond needs.
Output AsBool(GraphBuilder& b, Output pred) {
  if (BaseType(pred.dtype()) == DT_BOOL) return pred;
  if (BaseType(pred.dtype()) == DT_STRING) {
    b.Fail(Unimplemented("a While whose cond returns a string has no gradient here"));
    return Output{};
  }
  return b.Cast(pred, DT_BOOL);  // non-zero
}

// While, StatelessWhile: the loop lowered to dataflow control flow, differentiated.
Status WhileGrad(GradientContext& ctx) {
  TG_ASSIGN_OR_RETURN(const tf::NameAttrList* cond_f, FuncAttr(ctx, "cond"));
  TG_ASSIGN_OR_RETURN(const tf::NameAttrList* body_f, FuncAttr(ctx, "body"));
  FunctionLibrary& library = ctx.graph().functions();
  TG_ASSIGN_OR_RETURN(const FunctionBody* cond, library.Instantiate(cond_f->name(), AttrsOf(*cond_f)));
  TG_ASSIGN_OR_RETURN(const FunctionBody* body, library.Instantiate(body_f->name(), AttrsOf(*body_f)));
  if (cond->ret_types.size() != 1 || body->ret_types.size() != static_cast<size_t>(ctx.num_inputs())) {
    return InvalidArgument("cond '", cond->name, "' or body '", body->name,
                           "' does not fit the loop's variables");
  }
  std::vector<Output> inputs;
  for (int i = 0; i < ctx.num_inputs(); ++i) inputs.push_back(ctx.input(i));
  const tf::AttrValue* pi = ctx.FindAttr("parallel_iterations");
  const int parallel = pi != nullptr && pi->i() > 0 ? static_cast<int>(pi->i()) : 10;
  Graph& g = ctx.graph();
  TG_ASSIGN_OR_RETURN(std::unique_ptr<WhileLoopBuilder> loop,
                      WhileLoopBuilder::Start(g, inputs, "lowered", parallel));
  auto lowered = [&]() -> StatusOr<std::vector<Output>> {
    TG_ASSIGN_OR_RETURN(std::vector<Output> pred,
                        InlineFunction(g, *cond, loop->cond_inputs(), loop->cond_inputs()[0].op));
    Output p = AsBool(ctx, pred[0]);
    TG_RETURN_IF_ERROR(ctx.status());
    TG_RETURN_IF_ERROR(loop->SetCondition(p));
    TG_ASSIGN_OR_RETURN(std::vector<Output> next,
                        InlineFunction(g, *body, loop->body_inputs(), loop->body_inputs()[0].op));
    return loop->Finish(next);
  };
  StatusOr<std::vector<Output>> exits = inputs.empty()
      ? StatusOr<std::vector<Output>>(InvalidArgument("a While without loop variables"))
      : lowered();
  if (!exits.ok()) {
    loop->Abort();
    return exits.status();
  }
  std::vector<Output> ys, dys, xs;
  std::vector<int> x_index;
  for (int k = 0; k < ctx.num_outputs(); ++k) {
    if (ctx.has_grad(k) && IsDifferentiable((*exits)[static_cast<size_t>(k)].dtype())) {
      ys.push_back((*exits)[static_cast<size_t>(k)]);
      dys.push_back(ctx.grad(k));
    }
  }
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    if (IsDifferentiable(inputs[static_cast<size_t>(i)].dtype())) {
      xs.push_back(inputs[static_cast<size_t>(i)]);
      x_index.push_back(i);
    }
  }
  if (ys.empty() || xs.empty()) return ctx.status();
  TG_ASSIGN_OR_RETURN(std::vector<GradValue> grads, AddGradients(g, ys, xs, dys));
  for (size_t k = 0; k < grads.size(); ++k) {
    if (grads[k].defined()) ctx.SetInputGrad(x_index[k], grads[k]);
  }
  return ctx.status();
}

}  // namespace

StatusOr<std::vector<Output>> InlineFunction(Graph& graph, const FunctionBody& body,
                                             const std::vector<Output>& args, Operation* control) {
  if (args.size() != body.args.size()) {
    return InvalidArgument("function '", body.name, "' takes ", body.args.size(), " args, given ",
                           args.size());
  }
  tf::GraphDef gd;
  TG_RETURN_IF_ERROR(ExportGraphDef(*body.graph, &gd));
  gd.clear_library();  // the graph shares the body's library
  std::set<std::string> arg_names;
  for (const Output& a : body.args) arg_names.insert(a.op->name());
  tf::GraphDef nodes;
  *nodes.mutable_versions() = gd.versions();
  for (tf::NodeDef& n : *gd.mutable_node()) {
    if (!arg_names.count(n.name())) *nodes.add_node() = std::move(n);
  }
  ImportOptions opts;
  // Under the current scope, uniquified by the import; a node name may not start with '_'
  // (TF2's "__inference_f_12") nor hold what a node name may not.
  std::string scope;
  for (char c : body.name) {
    const bool ok = std::isalnum(static_cast<unsigned char>(c)) || c == '.' || (!scope.empty() && (c == '_' || c == '-'));
    if (ok) scope.push_back(c);
  }
  opts.prefix = scope.empty() ? "function" : scope;
  opts.validate_colocation_constraints = false;
  for (size_t i = 0; i < args.size(); ++i) opts.input_map[{body.args[i].op->name(), 0}] = args[i];
  for (const Output& r : body.rets) opts.return_tensors.emplace_back(r.op->name(), r.index);
  if (control != nullptr) opts.control_dependencies.push_back(control);
  ImportResults results;
  const int first = graph.num_operations();
  TG_RETURN_IF_ERROR(ImportGraphDef(nodes, opts, &graph, &results)
                         .Prepend(StrCat("inlining function '", body.name, "': ")));
  // Import bypasses the build context: an open loop or branch adopts the inlined nodes.
  if (auto* context = dynamic_cast<ControlFlowContext*>(graph.build_context())) {
    for (int id = first; id < graph.num_operations(); ++id) context->Mark(graph.operation(id));
  }
  return results.return_tensors;
}

StatusOr<const FunctionBody*> SymbolicGradientBody(FunctionLibrary& library, const std::string& name,
                                                   const AttrMap& attrs) {
  TG_ASSIGN_OR_RETURN(const FunctionBody* f, library.Instantiate(name, attrs));
  return library.Derived(StrCat("SymbolicGradient\n", FunctionLibrary::InstanceKey(name, attrs)),
                         [&library, f]() -> StatusOr<std::unique_ptr<FunctionBody>> {
                           auto grad = BuildGradient(library, *f);
                           if (!grad.ok()) {
                             return grad.status().Prepend(
                                 StrCat("the gradient of function '", f->name, "': "));
                           }
                           return grad;
                         });
}

Status RegisterFunctionGradients(GradientFunctionRegistry& registry) {
  Status first;
  auto keep = [&first](Status s) {
    if (!s.ok() && first.ok()) first = s;
  };
  keep(registry.Register("PartitionedCall", CallGrad));
  keep(registry.Register("StatefulPartitionedCall", CallGrad));
  keep(registry.Register("If", IfGrad));
  keep(registry.Register("StatelessIf", IfGrad));
  keep(registry.Register("Case", CaseGrad));
  keep(registry.Register("StatelessCase", CaseGrad));
  keep(registry.Register("While", WhileGrad));
  keep(registry.Register("StatelessWhile", WhileGrad));
  return first;
}

}  // namespace tgraph
