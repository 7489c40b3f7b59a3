// Variables: tf.Variable (from a tensor, from a graph tensor, from a builder callback),
// get_variable with variable scopes and reuse, initializers, initialized_value,
// is_variable_initialized and report_uninitialized_variables.
#include <cstddef>
#include <cstring>

#include "c_api/src/c_api_internal.h"
#include "core/autodiff/initializers.h"
#include "core/graph/attr_value_util.h"

using namespace tgraph;
using namespace tgraph::capi;

namespace {

// The size of the first released TG_VariableOptions: callers built against it (or later
// headers) are accepted; fields past a caller's struct_size take their defaults.
constexpr size_t kVariableOptionsV1Size = sizeof(TG_VariableOptions);

#define TG_HAS_FIELD(opts, field) \
  ((opts)->struct_size >= offsetof(TG_VariableOptions, field) + sizeof((opts)->field))

Status StringArray(const char* fn, const char* what, const char* const* values, int n,
                   std::vector<std::string>* out) {
  if (n < 0) return InvalidArgument(fn, ": ", what, " count is ", n);
  if (n > 0 && values == nullptr) return NullArg(fn, what);
  for (int i = 0; i < n; ++i) {
    if (values[i] == nullptr) return InvalidArgument(fn, ": ", what, "[", i, "] is NULL");
    out->push_back(values[i]);
  }
  return Status::OK();
}

}  // namespace

namespace tgraph::capi {

Status ReadVariableOptions(const char* fn, const TG_VariableOptions* in, VariableOptions* out) {
  *out = VariableOptions();
  if (in == nullptr) return Status::OK();
  if (in->struct_size < kVariableOptionsV1Size || in->struct_size > sizeof(TG_VariableOptions)) {
    return InvalidArgument(fn, ": TG_VariableOptions.struct_size is ", in->struct_size,
                           "; expected ", sizeof(TG_VariableOptions),
                           " (initialise it with TG_InitVariableOptions)");
  }
  if (TG_HAS_FIELD(in, name) && in->name != nullptr && in->name[0] != '\0') out->name = in->name;
  if (TG_HAS_FIELD(in, trainable)) out->trainable = in->trainable != 0;
  if (TG_HAS_FIELD(in, validate_shape)) out->validate_shape = in->validate_shape != 0;
  if (TG_HAS_FIELD(in, num_collections)) {
    TG_RETURN_IF_ERROR(StringArray(fn, "collections", in->collections, in->num_collections,
                                   &out->collections));
  }
  if (TG_HAS_FIELD(in, num_base_collections)) {
    TG_RETURN_IF_ERROR(StringArray(fn, "base_collections", in->base_collections,
                                   in->num_base_collections, &out->base_collections));
  }
  return Status::OK();
}

}  // namespace tgraph::capi

namespace {

#undef TG_HAS_FIELD

StatusOr<Output> MakeConst(Graph& graph, const Tensor& value, const std::string& name) {
  NodeSpec spec;
  spec.type = "Const";
  spec.name = name;
  spec.attrs["value"] = AttrOfTensor(value);
  spec.attrs["dtype"] = AttrOfType(value.dtype());
  TG_ASSIGN_OR_RETURN(Operation * op, graph.AddOperation(std::move(spec)));
  return op->output(0);
}

// `scalar` repeated to `dims`.
StatusOr<Tensor> FillTensor(const Tensor& scalar, const std::vector<int64_t>& dims) {
  TG_ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(scalar.dtype(), dims));
  int64_t n = t.NumElements();
  if (scalar.dtype() == DT_STRING) {
    for (int64_t i = 0; i < n; ++i) t.strings()[static_cast<size_t>(i)] = scalar.strings()[0];
    return t;
  }
  size_t elem = DataTypeSize(scalar.dtype());
  auto* dst = static_cast<char*>(t.data());
  for (int64_t i = 0; i < n; ++i) std::memcpy(dst + static_cast<size_t>(i) * elem, scalar.data(), elem);
  return t;
}

Status CheckGraphOutput(const char* fn, TG_Graph* g, TG_Output o) {
  return CheckOutput(fn, &g->graph, o);
}

// Calls a C initializer function and checks what it returns.
StatusOr<Output> CallInitializer(const char* fn, TG_Graph* g, TG_InitializerFunction init,
                                 void* arg, TG_DataType dtype, const PartialShape* shape,
                                 const std::string& var_name) {
  TG_Status st;
  std::vector<int64_t> dims;
  if (shape != nullptr && shape->known_rank()) dims = shape->dims();
  TG_Output out = init(arg, g, dtype, dims.empty() ? nullptr : dims.data(),
                       shape == nullptr || !shape->known_rank() ? -1 : static_cast<int>(dims.size()),
                       &st);
  if (!st.status.ok()) {
    return st.status.Prepend(StrCat("initializer of variable '", var_name, "': "));
  }
  TG_RETURN_IF_ERROR(CheckGraphOutput(fn, g, out).Prepend(
      StrCat("initializer of variable '", var_name, "': ")));
  return ToOutput(out);
}

}  // namespace

extern "C" void TG_InitVariableOptions(TG_VariableOptions* opts) {
  if (opts == nullptr) return;
  std::memset(opts, 0, sizeof(*opts));
  opts->struct_size = sizeof(TG_VariableOptions);
  opts->trainable = 1;
  opts->validate_shape = 1;
}

extern "C" TG_Variable* TG_GraphNewVariableFromTensor(TG_Graph* g, const TG_Tensor* initial_value,
                                                      const TG_VariableOptions* opts,
                                                      TG_Status* status) {
  const char* fn = "TG_GraphNewVariableFromTensor";
  return GuardValue<TG_Variable*>(status, nullptr, [&](TG_Variable** out) -> Status {
    if (g == nullptr) return NullArg(fn, "the graph");
    if (initial_value == nullptr) return NullArg(fn, "initial_value");
    VariableOptions options;
    TG_RETURN_IF_ERROR(ReadVariableOptions(fn, opts, &options));
    GraphLock lock(g->graph.mutex());
    TG_RETURN_IF_ERROR(CheckNotInDeviceFunction(fn, g));
    TG_ASSIGN_OR_RETURN(Variable * v,
                        g->graph.variables().CreateVariableFromTensor(initial_value->tensor, options));
    *out = ToC(v);
    return Status::OK();
  });
}

extern "C" TG_Variable* TG_GraphNewVariable(TG_Graph* g, TG_Output initial_value,
                                            const TG_VariableOptions* opts, TG_Status* status) {
  const char* fn = "TG_GraphNewVariable";
  return GuardValue<TG_Variable*>(status, nullptr, [&](TG_Variable** out) -> Status {
    if (g == nullptr) return NullArg(fn, "the graph");
    VariableOptions options;
    TG_RETURN_IF_ERROR(ReadVariableOptions(fn, opts, &options));
    GraphLock lock(g->graph.mutex());
    TG_RETURN_IF_ERROR(CheckNotInDeviceFunction(fn, g));
    TG_RETURN_IF_ERROR(CheckGraphOutput(fn, g, initial_value).Prepend(
        StrCat("initial value of variable '", options.name, "': ")));
    Output value = ToOutput(initial_value);
    TG_ASSIGN_OR_RETURN(Variable * v, g->graph.variables().CreateVariable(
                                          [value](Graph&) -> StatusOr<Output> { return value; },
                                          options));
    *out = ToC(v);
    return Status::OK();
  });
}

extern "C" TG_Variable* TG_GraphNewVariableWithInitializer(TG_Graph* g, TG_InitializerFunction fn_ptr,
                                                           void* arg,
                                                           const TG_VariableOptions* opts,
                                                           TG_Status* status) {
  const char* fn = "TG_GraphNewVariableWithInitializer";
  return GuardValue<TG_Variable*>(status, nullptr, [&](TG_Variable** out) -> Status {
    if (g == nullptr) return NullArg(fn, "the graph");
    if (fn_ptr == nullptr) return NullArg(fn, "the initializer function");
    VariableOptions options;
    TG_RETURN_IF_ERROR(ReadVariableOptions(fn, opts, &options));
    GraphLock lock(g->graph.mutex());
    TG_RETURN_IF_ERROR(CheckNotInDeviceFunction(fn, g));
    TG_ASSIGN_OR_RETURN(
        Variable * v,
        g->graph.variables().CreateVariable(
            [&](Graph&) {
              return CallInitializer(fn, g, fn_ptr, arg, TG_INVALID_DTYPE, nullptr, options.name);
            },
            options));
    *out = ToC(v);
    return Status::OK();
  });
}

// ---- accessors ----

extern "C" const char* TG_VariableName(const TG_Variable* v) {
  return v == nullptr ? nullptr : ToVar(v)->name.c_str();
}

extern "C" TG_Output TG_VariableOutput(const TG_Variable* v) {
  return v == nullptr ? NullOutput() : ToC(ToVar(v)->ref());
}

extern "C" TG_Output TG_VariableReadValue(const TG_Variable* v) {
  return v == nullptr ? NullOutput() : ToC(ToVar(v)->snapshot);
}

extern "C" TG_Operation* TG_VariableInitializer(const TG_Variable* v) {
  return v == nullptr ? nullptr : ToC(ToVar(v)->initializer);
}

extern "C" TG_Output TG_VariableInitialValue(const TG_Variable* v) {
  return v == nullptr ? NullOutput() : ToC(ToVar(v)->initial_value);
}

extern "C" TG_DataType TG_VariableDataType(const TG_Variable* v) {
  return v == nullptr ? TG_INVALID_DTYPE : static_cast<TG_DataType>(ToVar(v)->dtype);
}

extern "C" int TG_VariableTrainable(const TG_Variable* v) {
  return v != nullptr && ToVar(v)->trainable ? 1 : 0;
}

extern "C" TG_Variable* TG_GraphVariableByName(TG_Graph* g, const char* name) {
  if (g == nullptr || name == nullptr) return nullptr;
  return NoThrow<TG_Variable*>(nullptr, [&] {
    GraphLock lock(g->graph.mutex());
    return ToC(g->graph.variables().FindByName(name));
  });
}

// ---- initializers ----

extern "C" TG_Operation* TG_GraphGlobalVariablesInitializer(TG_Graph* g, TG_Status* status) {
  return GuardValue<TG_Operation*>(status, nullptr, [&](TG_Operation** out) -> Status {
    const char* fn = "TG_GraphGlobalVariablesInitializer";
    if (g == nullptr) return NullArg(fn, "the graph");
    GraphLock lock(g->graph.mutex());
    TG_RETURN_IF_ERROR(CheckNotInDeviceFunction(fn, g));
    TG_ASSIGN_OR_RETURN(Operation * op, g->graph.variables().GlobalVariablesInitializer("init"));
    *out = ToC(op);
    return Status::OK();
  });
}

extern "C" TG_Operation* TG_GraphVariablesInitializer(TG_Graph* g, TG_Variable* const* vars,
                                                      int n, const char* name,
                                                      TG_Status* status) {
  const char* fn = "TG_GraphVariablesInitializer";
  return GuardValue<TG_Operation*>(status, nullptr, [&](TG_Operation** out) -> Status {
    if (g == nullptr) return NullArg(fn, "the graph");
    if (n < 0) return InvalidArgument(fn, ": n is ", n);
    if (n > 0 && vars == nullptr) return NullArg(fn, "vars");
    GraphLock lock(g->graph.mutex());
    TG_RETURN_IF_ERROR(CheckNotInDeviceFunction(fn, g));
    std::vector<Variable*> list;
    for (int i = 0; i < n; ++i) {
      if (vars[i] == nullptr) return InvalidArgument(fn, ": variable ", i, " is NULL");
      Variable* v = ToVar(vars[i]);
      if (v->op == nullptr || v->op->graph() != &g->graph) {
        return InvalidArgument(fn, ": variable '", v->name, "' is not in this graph");
      }
      list.push_back(v);
    }
    std::string op_name = (name == nullptr || name[0] == '\0') ? "init" : name;
    TG_ASSIGN_OR_RETURN(Operation * op, g->graph.variables().VariablesInitializer(list, op_name));
    *out = ToC(op);
    return Status::OK();
  });
}

// ---- variable scopes ----

extern "C" void TG_GraphPushVariableScope(TG_Graph* g, const char* name, TG_Reuse reuse,
                                          TG_Status* status) {
  const char* fn = "TG_GraphPushVariableScope";
  Guard(status, [&]() -> Status {
    if (g == nullptr) return NullArg(fn, "the graph");
    if (name == nullptr) return NullArg(fn, "name");
    int r = EnumValue(reuse);
    if (r < -1 || r > 2) return InvalidArgument(fn, ": ", r, " is not a TG_Reuse value");
    GraphLock lock(g->graph.mutex());
    TG_RETURN_IF_ERROR(CheckNotInDeviceFunction(fn, g));
    if (g->graph.finalized()) {
      return FailedPrecondition(fn, ": the graph is finalized and cannot be modified");
    }
    return g->graph.variables().PushVariableScope(name, static_cast<VariableReuse>(r)).status();
  });
}

extern "C" void TG_GraphPopVariableScope(TG_Graph* g, TG_Status* status) {
  Guard(status, [&]() -> Status {
    const char* fn = "TG_GraphPopVariableScope";
    if (g == nullptr) return NullArg(fn, "the graph");
    GraphLock lock(g->graph.mutex());
    TG_RETURN_IF_ERROR(CheckNotInDeviceFunction(fn, g));
    return g->graph.variables().PopVariableScope();
  });
}

extern "C" void TG_GraphReuseVariables(TG_Graph* g, TG_Status* status) {
  Guard(status, [&]() -> Status {
    const char* fn = "TG_GraphReuseVariables";
    if (g == nullptr) return NullArg(fn, "the graph");
    GraphLock lock(g->graph.mutex());
    TG_RETURN_IF_ERROR(CheckNotInDeviceFunction(fn, g));
    g->graph.variables().ReuseVariables();
    return Status::OK();
  });
}

extern "C" TG_Reuse TG_GraphVariableScopeReuse(TG_Graph* g) {
  if (g == nullptr) return TG_REUSE_FALSE;
  return NoThrow<TG_Reuse>(TG_REUSE_FALSE, [&] {
    GraphLock lock(g->graph.mutex());
    return static_cast<TG_Reuse>(g->graph.variables().reuse());
  });
}

extern "C" const char* TG_GraphCurrentVariableScope(TG_Graph* g) {
  if (g == nullptr) return nullptr;
  return NoThrow<const char*>(nullptr, [&] {
    GraphLock lock(g->graph.mutex());
    return g->graph.variables().variable_scope().c_str();
  });
}

// ---- get_variable ----

namespace {

struct GetVariableArgs {
  const char* fn;
  TG_Graph* g;
  const char* name;
  int dtype;  // the TG_DataType value as passed in
  const int64_t* dims;
  int num_dims;
  const TG_VariableOptions* opts;
  bool from_function = false;  // TG_GraphGetVariableWithInitializer
};

// Shared by both get_variable entry points; `make_initializer(dtype, shape)` returns the
// InitialValueFn used when the variable is created.
template <typename MakeInit>
TG_Variable* GetVariableImpl(const GetVariableArgs& a, const Tensor* initial_value,
                             TG_Status* status, MakeInit&& make_initializer) {
  return GuardValue<TG_Variable*>(status, nullptr, [&](TG_Variable** out) -> Status {
    if (a.g == nullptr) return NullArg(a.fn, "the graph");
    if (a.name == nullptr || a.name[0] == '\0') return InvalidArgument(a.fn, ": the name is NULL or empty");
    VariableOptions options;
    TG_RETURN_IF_ERROR(ReadVariableOptions(a.fn, a.opts, &options));
    PartialShape shape;
    TG_RETURN_IF_ERROR(ShapeFromDims(a.fn, a.dims, a.num_dims, &shape));
    if (!shape.known_rank() && initial_value != nullptr) shape = initial_value->shape();
    const int dtype_value = a.dtype;
    DataType dtype = static_cast<DataType>(dtype_value);
    if (dtype_value != TG_INVALID_DTYPE && !IsValidDataType(dtype_value)) {
      return InvalidArgument(a.fn, ": ", dtype_value, " is not a data type (variable '", a.name,
                             "')");
    }
    GraphLock lock(a.g->graph.mutex());
    const bool value_decides = a.from_function && !shape.known_rank();
    if (dtype_value == TG_INVALID_DTYPE && !value_decides) {
      dtype = initial_value != nullptr ? initial_value->dtype()
                                       : DefaultGetVariableDtype(a.g->graph.variables());
    }
    dtype = BaseType(dtype);
    TG_RETURN_IF_ERROR(CheckNotInDeviceFunction(a.fn, a.g));
    if (a.g->graph.finalized()) {
      return FailedPrecondition(a.fn, ": the graph is finalized (get_variable '", a.name, "')");
    }
    InitialValueFn init = make_initializer(dtype, shape);
    // Only an initializer function can build a value without being told the shape.
    options.shape_from_initial_value = value_decides;
    TG_ASSIGN_OR_RETURN(Variable * v,
                        a.g->graph.variables().GetVariable(a.name, dtype, shape, init, options));
    *out = ToC(v);
    return Status::OK();
  });
}

}  // namespace

extern "C" TG_Variable* TG_GraphGetVariable(TG_Graph* g, const char* name, TG_DataType dtype,
                                            const int64_t* dims, int num_dims,
                                            const TG_Tensor* initial_value,
                                            const TG_VariableOptions* opts, TG_Status* status) {
  GetVariableArgs a{"TG_GraphGetVariable", g, name, EnumValue(dtype), dims, num_dims, opts};
  const Tensor* value = initial_value == nullptr ? nullptr : &initial_value->tensor;
  std::string var_name = name == nullptr ? "" : name;
  return GetVariableImpl(a, value, status, [&](DataType dt, const PartialShape& shape) -> InitialValueFn {
    if (value == nullptr) {
      return DefaultGetVariableInitializer(g->graph.variables(), var_name, dt, shape);
    }
    return [value, dt, shape, var_name](Graph& graph) -> StatusOr<Output> {
      // Called only when creating, inside "<var>/Initializer": the shape is fully defined.
      const std::vector<int64_t>& dims = shape.dims();
      if (BaseType(value->dtype()) != dt) {
        return InvalidArgument("get_variable '", var_name, "': the initial value is ",
                               DataTypeName(value->dtype()), " but the variable is ",
                               DataTypeName(dt));
      }
      if (value->dims() == dims) return MakeConst(graph, *value, "Const");
      if (value->rank() == 0) {
        TG_ASSIGN_OR_RETURN(Tensor filled, FillTensor(*value, dims));
        return MakeConst(graph, filled, "Const");
      }
      return InvalidArgument("get_variable '", var_name, "': the initial value has shape ",
                             value->shape().ToString(), " but the variable has shape ",
                             shape.ToString(), " (give a scalar or a tensor of that shape)");
    };
  });
}

extern "C" TG_Variable* TG_GraphGetVariableWithInitializer(
    TG_Graph* g, const char* name, TG_DataType dtype, const int64_t* dims, int num_dims,
    TG_InitializerFunction fn, void* arg, const TG_VariableOptions* opts, TG_Status* status) {
  const char* fn_name = "TG_GraphGetVariableWithInitializer";
  GetVariableArgs a{fn_name, g, name, EnumValue(dtype), dims, num_dims, opts, true};
  if (fn == nullptr) {
    SetStatus(status, NullArg(fn_name, "the initializer function"));
    return nullptr;
  }
  std::string var_name = name == nullptr ? "" : name;
  return GetVariableImpl(a, nullptr, status, [&](DataType dt, const PartialShape& shape) -> InitialValueFn {
    return [g, fn, arg, dt, shape, var_name, fn_name](Graph&) -> StatusOr<Output> {
      return CallInitializer(fn_name, g, fn, arg, static_cast<TG_DataType>(dt), &shape, var_name);
    };
  });
}

namespace {

// Adapts a TG_InitializerCallback to the TG_InitializerFunction the shared path calls.
struct CallbackInitializer {
  TG_InitializerCallback callback;
  void* arg;
};

TG_Output CallCallbackInitializer(void* arg, TG_Graph* g, TG_DataType dtype, const int64_t* dims,
                                  int num_dims, TG_Status* status) {
  const auto* adapter = static_cast<const CallbackInitializer*>(arg);
  TG_Output out = NullOutput();
  adapter->callback(adapter->arg, g, dtype, dims, num_dims, &out, status);
  return out;
}

}  // namespace

extern "C" TG_Variable* TG_GraphGetVariableWithCallback(
    TG_Graph* g, const char* name, TG_DataType dtype, const int64_t* dims, int num_dims,
    TG_InitializerCallback callback, void* arg, const TG_VariableOptions* opts,
    TG_Status* status) {
  if (callback == nullptr) {
    SetStatus(status, NullArg("TG_GraphGetVariableWithCallback", "the initializer callback"));
    return nullptr;
  }
  // Lives until the call returns: the initializer runs only while the variable is created.
  CallbackInitializer adapter{callback, arg};
  return TG_GraphGetVariableWithInitializer(g, name, dtype, dims, num_dims,
                                            &CallCallbackInitializer, &adapter, opts, status);
}

// ---- initialization state ----

namespace {

Status CheckVariable(const char* fn, TG_Graph* g, const TG_Variable* v, const char* what) {
  if (v == nullptr) return NullArg(fn, what);
  const Variable* var = ToVar(v);
  if (var->op == nullptr || var->op->graph() != &g->graph) {
    return InvalidArgument(fn, ": variable '", var->name, "' is not in this graph");
  }
  return Status::OK();
}

}  // namespace

extern "C" TG_Output TG_VariableInitializedValue(TG_Graph* g, const TG_Variable* v,
                                                 TG_Status* status) {
  const char* fn = "TG_VariableInitializedValue";
  return GuardValue<TG_Output>(status, NullOutput(), [&](TG_Output* out) -> Status {
    if (g == nullptr) return NullArg(fn, "the graph");
    GraphLock lock(g->graph.mutex());
    TG_RETURN_IF_ERROR(CheckNotInDeviceFunction(fn, g));
    TG_RETURN_IF_ERROR(CheckVariable(fn, g, v, "the variable"));
    TG_ASSIGN_OR_RETURN(Output value, g->graph.variables().InitializedValue(*ToVar(v)));
    *out = ToC(value);
    return Status::OK();
  });
}

extern "C" TG_Output TG_IsVariableInitialized(TG_Graph* g, const TG_Variable* v, const char* name,
                                              TG_Status* status) {
  const char* fn = "TG_IsVariableInitialized";
  return GuardValue<TG_Output>(status, NullOutput(), [&](TG_Output* out) -> Status {
    if (g == nullptr) return NullArg(fn, "the graph");
    GraphLock lock(g->graph.mutex());
    TG_RETURN_IF_ERROR(CheckNotInDeviceFunction(fn, g));
    TG_RETURN_IF_ERROR(CheckVariable(fn, g, v, "the variable"));
    TG_ASSIGN_OR_RETURN(Output flag,
                        g->graph.variables().IsVariableInitialized(*ToVar(v), Str(name)));
    *out = ToC(flag);
    return Status::OK();
  });
}

extern "C" TG_Output TG_ReportUninitializedVariables(TG_Graph* g, TG_Variable* const* vars, int n,
                                                     const char* name, TG_Status* status) {
  const char* fn = "TG_ReportUninitializedVariables";
  return GuardValue<TG_Output>(status, NullOutput(), [&](TG_Output* out) -> Status {
    if (g == nullptr) return NullArg(fn, "the graph");
    if (n < -1) return InvalidArgument(fn, ": n is ", n);
    if (n > 0 && vars == nullptr) return NullArg(fn, "vars");
    GraphLock lock(g->graph.mutex());
    TG_RETURN_IF_ERROR(CheckNotInDeviceFunction(fn, g));
    std::vector<Variable*> list;
    for (int i = 0; i < n; ++i) {
      TG_RETURN_IF_ERROR(CheckVariable(fn, g, vars[i], "a variable of vars"));
      list.push_back(ToVar(vars[i]));
    }
    TG_ASSIGN_OR_RETURN(Output names, g->graph.variables().ReportUninitializedVariables(
                                          n == -1 ? nullptr : &list, Str(name)));
    *out = ToC(names);
    return Status::OK();
  });
}

extern "C" TG_Operation* TG_GraphLocalVariablesInitializer(TG_Graph* g, TG_Status* status) {
  return GuardValue<TG_Operation*>(status, nullptr, [&](TG_Operation** out) -> Status {
    const char* fn = "TG_GraphLocalVariablesInitializer";
    if (g == nullptr) return NullArg(fn, "the graph");
    GraphLock lock(g->graph.mutex());
    TG_RETURN_IF_ERROR(CheckNotInDeviceFunction(fn, g));
    TG_ASSIGN_OR_RETURN(Operation * op, g->graph.variables().LocalVariablesInitializer("init"));
    *out = ToC(op);
    return Status::OK();
  });
}
