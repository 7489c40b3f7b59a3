#include "core/exec/function_kernels.h"

#include <memory>
#include <string>

#include "core/autodiff/function_grad.h"
#include "core/exec/function_runtime.h"
#include "core/graph/function_library.h"
#include "core/graph/graph.h"
#include "core/plugin/kernel_context.h"

namespace tgraph {
namespace {

enum class CallKind { kCall, kIf, kCase, kWhile, kGradient };

// A call node's functions, instantiated and checked when its kernel is created.
struct CallKernel {
  CallKind kind = CallKind::kCall;
  std::string label;  // "'node' (If)"
  // kCall: {f}; kIf: {then, else}; kCase: the branches; kWhile: {cond, body}.
  std::vector<const FunctionBody*> functions;
  std::vector<PartialShape> invariants;  // kWhile: per loop variable
};

PartialShape FromProto(const tf::TensorShapeProto& p) {
  if (p.unknown_rank()) return PartialShape::Unknown();
  std::vector<int64_t> dims;
  for (const auto& d : p.dim()) dims.push_back(d.size() < 0 ? PartialShape::kUnknownDim : d.size());
  return PartialShape(std::move(dims));
}

StatusOr<const FunctionBody*> Resolve(const Operation& op, const tf::NameAttrList& f,
                                      const char* role) {
  AttrMap attrs(f.attr().begin(), f.attr().end());
  auto body = op.graph()->functions().Instantiate(f.name(), attrs);
  if (!body.ok()) {
    return InvalidArgument(op.type(), " '", op.name(), "': ", role, " '", f.name(), "': ",
                           body.status().message());
  }
  return *body;
}

StatusOr<const tf::NameAttrList*> FuncAttr(const Operation& op, const char* name) {
  const tf::AttrValue* v = op.FindAttr(name);
  if (v == nullptr || v->value_case() != tf::AttrValue::kFunc) {
    return InvalidArgument(op.type(), " '", op.name(), "': attr '", name, "' is not a function");
  }
  return &v->func();
}

// `types` against what `body` takes (args) or gives (results).
Status CheckTypes(const Operation& op, const FunctionBody& body, const char* role,
                  const std::vector<DataType>& types, bool results) {
  const std::vector<DataType>& want = results ? body.ret_types : body.arg_types;
  const char* what = results ? "result" : "input";
  if (want.size() != types.size()) {
    return InvalidArgument(op.type(), " '", op.name(), "': ", role, " '", body.name, "' ",
                           results ? "returns " : "takes ", want.size(), " ", what, "(s) but the node ",
                           results ? "has " : "gives ", types.size());
  }
  for (size_t i = 0; i < want.size(); ++i) {
    if (want[i] != types[i]) {
      return InvalidArgument(op.type(), " '", op.name(), "': ", role, " '", body.name, "' ", what,
                             " ", i, " is ", DataTypeName(want[i]), " but the node's is ",
                             DataTypeName(types[i]));
    }
  }
  return Status::OK();
}

std::vector<DataType> InputTypes(const Operation& op, int from) {
  std::vector<DataType> t;
  for (int i = from; i < op.num_inputs(); ++i) t.push_back(BaseType(op.input_type(i)));
  return t;
}

std::vector<DataType> OutputTypes(const Operation& op) {
  std::vector<DataType> t;
  for (int i = 0; i < op.num_outputs(); ++i) t.push_back(BaseType(op.output_type(i)));
  return t;
}

// Checks `f` as a function from the node's inputs (from input `from` on) to its outputs.
Status AddChecked(CallKernel* k, const Operation& op, const tf::NameAttrList& f, const char* role,
                  int from) {
  TG_ASSIGN_OR_RETURN(const FunctionBody* body, Resolve(op, f, role));
  TG_RETURN_IF_ERROR(CheckTypes(op, *body, role, InputTypes(op, from), false));
  TG_RETURN_IF_ERROR(CheckTypes(op, *body, role, OutputTypes(op), true));
  k->functions.push_back(body);
  return Status::OK();
}

StatusOr<std::unique_ptr<CallKernel>> Create(const Operation& op, CallKind kind) {
  auto k = std::make_unique<CallKernel>();
  k->kind = kind;
  k->label = StrCat("'", op.name(), "' (", op.type(), ")");
  switch (kind) {
    case CallKind::kCall: {
      TG_ASSIGN_OR_RETURN(const tf::NameAttrList* f, FuncAttr(op, "f"));
      TG_RETURN_IF_ERROR(AddChecked(k.get(), op, *f, "function", 0));
      break;
    }
    case CallKind::kGradient: {
      TG_ASSIGN_OR_RETURN(const tf::NameAttrList* f, FuncAttr(op, "f"));
      AttrMap attrs(f->attr().begin(), f->attr().end());
      auto body = SymbolicGradientBody(op.graph()->functions(), f->name(), attrs);
      if (!body.ok()) {
        return InvalidArgument(op.type(), " '", op.name(), "': function '", f->name(), "': ",
                               body.status().message());
      }
      TG_RETURN_IF_ERROR(CheckTypes(op, **body, "gradient of", InputTypes(op, 0), false));
      TG_RETURN_IF_ERROR(CheckTypes(op, **body, "gradient of", OutputTypes(op), true));
      k->functions.push_back(*body);
      break;
    }
    case CallKind::kIf: {
      TG_ASSIGN_OR_RETURN(const tf::NameAttrList* then_f, FuncAttr(op, "then_branch"));
      TG_ASSIGN_OR_RETURN(const tf::NameAttrList* else_f, FuncAttr(op, "else_branch"));
      TG_RETURN_IF_ERROR(AddChecked(k.get(), op, *then_f, "then_branch", 1));
      TG_RETURN_IF_ERROR(AddChecked(k.get(), op, *else_f, "else_branch", 1));
      break;
    }
    case CallKind::kCase: {
      const tf::AttrValue* branches = op.FindAttr("branches");
      if (branches == nullptr || branches->list().func_size() == 0) {
        return InvalidArgument(op.type(), " '", op.name(), "': attr 'branches' lists no function");
      }
      for (int b = 0; b < branches->list().func_size(); ++b) {
        const std::string role = StrCat("branch ", b);
        TG_RETURN_IF_ERROR(AddChecked(k.get(), op, branches->list().func(b), role.c_str(), 1));
      }
      break;
    }
    case CallKind::kWhile: {
      TG_ASSIGN_OR_RETURN(const tf::NameAttrList* cond_f, FuncAttr(op, "cond"));
      TG_ASSIGN_OR_RETURN(const tf::NameAttrList* body_f, FuncAttr(op, "body"));
      TG_ASSIGN_OR_RETURN(const FunctionBody* cond, Resolve(op, *cond_f, "cond"));
      TG_RETURN_IF_ERROR(CheckTypes(op, *cond, "cond", InputTypes(op, 0), false));
      if (cond->ret_types.size() != 1) {
        return InvalidArgument(op.type(), " '", op.name(), "': cond '", cond->name, "' returns ",
                               cond->ret_types.size(), " results; it must return one");
      }
      k->functions.push_back(cond);
      TG_RETURN_IF_ERROR(AddChecked(k.get(), op, *body_f, "body", 0));
      const tf::AttrValue* shapes = op.FindAttr("output_shapes");
      const bool given = shapes != nullptr && shapes->list().shape_size() == op.num_inputs();
      for (int i = 0; i < op.num_inputs(); ++i) {
        k->invariants.push_back(given ? FromProto(shapes->list().shape(i)) : op.input(i).shape());
      }
      break;
    }
  }
  return k;
}

// TensorFlow's truth of a predicate: a scalar's value is non-zero (a string's non-empty);
// any other tensor is true when it has elements.
StatusOr<bool> Truth(const Tensor& t, const std::string& what) {
  if (t.rank() != 0) return t.NumElements() > 0;
  switch (t.dtype()) {
    case DT_BOOL: return *static_cast<const bool*>(t.data());
    case DT_FLOAT: return *static_cast<const float*>(t.data()) != 0;
    case DT_DOUBLE: return *static_cast<const double*>(t.data()) != 0;
    case DT_INT32: return *static_cast<const int32_t*>(t.data()) != 0;
    case DT_INT64: return *static_cast<const int64_t*>(t.data()) != 0;
    case DT_INT16: return *static_cast<const int16_t*>(t.data()) != 0;
    case DT_INT8: return *static_cast<const int8_t*>(t.data()) != 0;
    case DT_UINT8: return *static_cast<const uint8_t*>(t.data()) != 0;
    case DT_STRING: return !t.strings()[0].empty();
    default:
      return InvalidArgument(what, " is a ", DataTypeName(t.dtype()),
                             " scalar, which has no truth value here");
  }
}

Status RunCall(const CallKernel& k, TG_KernelContext* ctx) {
  FunctionRuntime* runtime = ctx->functions;
  if (runtime == nullptr) {
    return FailedPrecondition(k.label, " calls a function, which only runs in a session");
  }
  std::vector<Tensor> args;
  const int from = k.kind == CallKind::kIf || k.kind == CallKind::kCase ? 1 : 0;
  args.reserve(ctx->inputs.size());
  for (size_t i = static_cast<size_t>(from); i < ctx->inputs.size(); ++i) {
    args.push_back(ctx->inputs[i].value->tensor);
  }
  std::vector<Tensor> results;
  switch (k.kind) {
    case CallKind::kCall:
    case CallKind::kGradient:
      TG_RETURN_IF_ERROR(runtime->Call(*k.functions[0], args, &results, k.label));
      break;
    case CallKind::kIf: {
      TG_ASSIGN_OR_RETURN(bool pred, Truth(ctx->inputs[0].value->tensor, k.label + ": cond"));
      TG_RETURN_IF_ERROR(runtime->Call(*k.functions[pred ? 0 : 1], args, &results, k.label));
      break;
    }
    case CallKind::kCase: {
      const Tensor& index = ctx->inputs[0].value->tensor;
      if (index.dtype() != DT_INT32 || index.rank() != 0) {
        return InvalidArgument(k.label, ": branch_index must be an int32 scalar, got shape ",
                               PartialShape(index.dims()).ToString());
      }
      int32_t b = *static_cast<const int32_t*>(index.data());
      const int n = static_cast<int>(k.functions.size());
      if (b < 0 || b >= n) b = n - 1;  // TensorFlow's default branch: the last
      TG_RETURN_IF_ERROR(runtime->Call(*k.functions[static_cast<size_t>(b)], args, &results, k.label));
      break;
    }
    case CallKind::kWhile: {
      std::vector<Tensor> pred;
      for (int64_t iteration = 0;; ++iteration) {
        TG_RETURN_IF_ERROR(runtime->Call(*k.functions[0], args, &pred, k.label));
        TG_ASSIGN_OR_RETURN(bool go, Truth(pred[0], StrCat(k.label, ": cond '", k.functions[0]->name, "'")));
        if (!go) break;
        TG_RETURN_IF_ERROR(runtime->Call(*k.functions[1], args, &results, k.label));
        for (size_t i = 0; i < results.size(); ++i) {
          if (!k.invariants[i].IsCompatibleWithDims(results[i].dims())) {
            return InvalidArgument(
                k.label, ": body '", k.functions[1]->name, "' made loop variable ", i, " of shape ",
                PartialShape(results[i].dims()).ToString(), " in iteration ", iteration,
                ", which does not fit its shape ", k.invariants[i].ToString(),
                " (relax it with shape_invariants)");
          }
        }
        args.swap(results);
      }
      results = std::move(args);
      break;
    }
  }
  for (size_t i = 0; i < results.size(); ++i) {
    KernelCallOutput& out = ctx->outputs[i];
    out.value->tensor = std::move(results[i]);
    out.set = true;
  }
  return Status::OK();
}

template <CallKind kKind>
void* CreateCall(TG_KernelConstruction* construction, void*, TG_Status* status) {
  auto k = Create(*construction->op, kKind);
  if (!k.ok()) {
    status->status = k.status();
    return nullptr;
  }
  return std::move(k).value().release();
}

void ComputeCall(void* kernel, TG_KernelContext* ctx) {
  Status s = RunCall(*static_cast<const CallKernel*>(kernel), ctx);
  if (!s.ok()) ctx->status.status = std::move(s);
}

void DestroyCall(void* kernel) { delete static_cast<CallKernel*>(kernel); }

template <CallKind kKind>
TG_KernelDefinition Definition(const char* op_type) {
  TG_KernelDefinition def{};
  def.struct_size = sizeof def;
  def.op_type = op_type;
  def.device_type = "CPU";
  def.create = CreateCall<kKind>;
  def.compute = ComputeCall;
  def.destroy = DestroyCall;
  return def;
}

}  // namespace

std::vector<TG_KernelDefinition> FunctionKernelDefinitions() {
  return {
      Definition<CallKind::kCall>("PartitionedCall"),
      Definition<CallKind::kCall>("StatefulPartitionedCall"),
      Definition<CallKind::kIf>("If"),
      Definition<CallKind::kIf>("StatelessIf"),
      Definition<CallKind::kCase>("Case"),
      Definition<CallKind::kCase>("StatelessCase"),
      Definition<CallKind::kWhile>("While"),
      Definition<CallKind::kWhile>("StatelessWhile"),
      Definition<CallKind::kGradient>("SymbolicGradient"),
  };
}

}  // namespace tgraph
