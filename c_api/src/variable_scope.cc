// tf.variable_scope with options: reuse, a default initializer and a default dtype for the
// get_variable calls inside.
#include <cstddef>
#include <cstring>

#include "c_api/src/c_api_internal.h"
#include "core/autodiff/initializers.h"

using namespace tgraph;
using namespace tgraph::capi;

namespace {

// The first released layout: callers built against it (or later headers) are accepted.
constexpr size_t kVariableScopeOptionsV1Size = sizeof(TG_VariableScopeOptions);

Status ReadScopeOptions(const char* fn, const TG_VariableScopeOptions* in,
                        VariableScopeOptions* out) {
  *out = VariableScopeOptions();
  if (in == nullptr) return Status::OK();
  if (in->struct_size < kVariableScopeOptionsV1Size ||
      in->struct_size > sizeof(TG_VariableScopeOptions)) {
    return InvalidArgument(fn, ": TG_VariableScopeOptions.struct_size is ", in->struct_size,
                           "; expected ", sizeof(TG_VariableScopeOptions),
                           " (initialise it with TG_InitVariableScopeOptions)");
  }
  const int reuse = EnumValue(in->reuse);
  if (reuse < -1 || reuse > 2) return InvalidArgument(fn, ": ", reuse, " is not a TG_Reuse value");
  out->reuse = static_cast<VariableReuse>(reuse);
  const int dtype = EnumValue(in->dtype);
  if (dtype != TG_INVALID_DTYPE) {
    if (!IsValidDataType(dtype)) return InvalidArgument(fn, ": ", dtype, " is not a data type");
    out->dtype = BaseType(static_cast<DataType>(dtype));
  }
  if (in->initializer != nullptr) {
    InitializerSpec spec;
    TG_RETURN_IF_ERROR(ReadInitializer(fn, in->initializer, &spec));
    out->initializer = ScopeInitializer(std::move(spec));
  }
  return Status::OK();
}

}  // namespace

extern "C" void TG_InitVariableScopeOptions(TG_VariableScopeOptions* opts) {
  if (opts == nullptr) return;
  std::memset(opts, 0, sizeof(*opts));
  opts->struct_size = sizeof(TG_VariableScopeOptions);
  opts->reuse = TG_REUSE_INHERIT;
  opts->initializer = nullptr;
  opts->dtype = TG_INVALID_DTYPE;
}

extern "C" void TG_GraphPushVariableScopeWithOptions(TG_Graph* g, const char* name,
                                                     const TG_VariableScopeOptions* opts,
                                                     TG_Status* status) {
  const char* fn = "TG_GraphPushVariableScopeWithOptions";
  Guard(status, [&]() -> Status {
    if (g == nullptr) return NullArg(fn, "the graph");
    if (name == nullptr) return NullArg(fn, "name");
    VariableScopeOptions options;
    TG_RETURN_IF_ERROR(ReadScopeOptions(fn, opts, &options));
    GraphLock lock(g->graph.mutex());
    TG_RETURN_IF_ERROR(CheckNotInDeviceFunction(fn, g));
    if (g->graph.finalized()) {
      return FailedPrecondition(fn, ": the graph is finalized and cannot be modified");
    }
    return g->graph.variables().PushVariableScope(name, options).status();
  });
}
