// The graph-building context: name scopes, unique names, control-dependency, device and
// colocation stacks.
#include "c_api/src/c_api_internal.h"

using namespace tgraph;
using namespace tgraph::capi;

namespace {

// Runs body(Graph&) under the graph lock, behind the exception boundary.
template <typename Body>
void WithGraph(const char* fn, TG_Graph* g, TG_Status* status, Body&& body) {
  Guard(status, [&]() -> Status {
    if (g == nullptr) return NullArg(fn, "the graph");
    GraphLock lock(g->graph.mutex());
    TG_RETURN_IF_ERROR(CheckNotInDeviceFunction(fn, g));
    return body(g->graph);
  });
}

Status CheckPushAllowed(const char* fn, const Graph& graph) {
  if (graph.finalized()) {
    return FailedPrecondition(fn, ": the graph is finalized and cannot be modified");
  }
  return Status::OK();
}

}  // namespace

// ---- name scopes ----

extern "C" void TG_GraphPushNameScope(TG_Graph* g, const char* name, TG_Status* status) {
  WithGraph("TG_GraphPushNameScope", g, status, [&](Graph& graph) -> Status {
    TG_RETURN_IF_ERROR(CheckPushAllowed("TG_GraphPushNameScope", graph));
    return graph.PushNameScope(Str(name)).status();
  });
}

extern "C" void TG_GraphPopNameScope(TG_Graph* g, TG_Status* status) {
  WithGraph("TG_GraphPopNameScope", g, status,
            [&](Graph& graph) -> Status { return graph.PopNameScope(); });
}

extern "C" const char* TG_GraphCurrentNameScope(TG_Graph* g) {
  if (g == nullptr) return nullptr;
  return NoThrow<const char*>(nullptr, [&] {
    GraphLock lock(g->graph.mutex());
    return g->graph.name_scope().c_str();
  });
}

extern "C" void TG_GraphUniqueName(TG_Graph* g, const char* name, int mark_used, TG_Buffer* out,
                                   TG_Status* status) {
  WithGraph("TG_GraphUniqueName", g, status, [&](Graph& graph) -> Status {
    if (name == nullptr) return NullArg("TG_GraphUniqueName", "name");
    if (out == nullptr) return NullArg("TG_GraphUniqueName", "out");
    // Compute without reserving first, so a failed copy into `out` reserves nothing.
    std::string unique = graph.UniqueName(name, /*mark_used=*/false);
    TG_RETURN_IF_ERROR(FillBuffer(out, unique));
    if (mark_used != 0) (void)graph.UniqueName(name, /*mark_used=*/true);
    return Status::OK();
  });
}

// ---- control dependencies ----

extern "C" void TG_GraphPushControlDependencies(TG_Graph* g, TG_Operation* const* ops, int n,
                                                TG_Status* status) {
  WithGraph("TG_GraphPushControlDependencies", g, status, [&](Graph& graph) -> Status {
    TG_RETURN_IF_ERROR(CheckPushAllowed("TG_GraphPushControlDependencies", graph));
    if (n < 0) return InvalidArgument("TG_GraphPushControlDependencies: n is ", n);
    if (n > 0 && ops == nullptr) return NullArg("TG_GraphPushControlDependencies", "ops");
    std::vector<Operation*> list;
    for (int i = 0; i < n; ++i) {
      if (ops[i] == nullptr) {
        return InvalidArgument("TG_GraphPushControlDependencies: operation ", i, " is NULL");
      }
      list.push_back(ToOp(ops[i]));
    }
    return graph.PushControlDependencies(std::move(list));
  });
}

extern "C" void TG_GraphPushClearControlDependencies(TG_Graph* g, TG_Status* status) {
  WithGraph("TG_GraphPushClearControlDependencies", g, status, [&](Graph& graph) -> Status {
    TG_RETURN_IF_ERROR(CheckPushAllowed("TG_GraphPushClearControlDependencies", graph));
    return graph.PushClearControlDependencies();
  });
}

extern "C" void TG_GraphPopControlDependencies(TG_Graph* g, TG_Status* status) {
  WithGraph("TG_GraphPopControlDependencies", g, status,
            [&](Graph& graph) -> Status { return graph.PopControlDependencies(); });
}

// ---- devices ----

extern "C" void TG_GraphPushDevice(TG_Graph* g, const char* device, TG_Status* status) {
  WithGraph("TG_GraphPushDevice", g, status, [&](Graph& graph) -> Status {
    TG_RETURN_IF_ERROR(CheckPushAllowed("TG_GraphPushDevice", graph));
    return graph.PushDevice(Str(device));
  });
}

extern "C" void TG_GraphPushDeviceFunction(TG_Graph* g, TG_DeviceFunction fn, void* arg,
                                           TG_Status* status) {
  WithGraph("TG_GraphPushDeviceFunction", g, status, [&](Graph& graph) -> Status {
    TG_RETURN_IF_ERROR(CheckPushAllowed("TG_GraphPushDeviceFunction", graph));
    if (fn == nullptr) return NullArg("TG_GraphPushDeviceFunction", "the device function");
    return graph.PushDeviceFunction([g, fn, arg](const Operation& op) -> std::string {
      // Called under the graph lock while `op` is being created.
      struct Mark {
        TG_Graph* g;
        explicit Mark(TG_Graph* graph) : g(graph) { ++g->in_device_function; }
        ~Mark() { --g->in_device_function; }
      } mark(g);
      const char* chosen = fn(arg, ToC(&op));
      return chosen == nullptr ? std::string() : std::string(chosen);
    });
  });
}

extern "C" void TG_GraphPushClearDevice(TG_Graph* g, TG_Status* status) {
  WithGraph("TG_GraphPushClearDevice", g, status, [&](Graph& graph) -> Status {
    TG_RETURN_IF_ERROR(CheckPushAllowed("TG_GraphPushClearDevice", graph));
    return graph.PushClearDevice();
  });
}

extern "C" void TG_GraphPopDevice(TG_Graph* g, TG_Status* status) {
  WithGraph("TG_GraphPopDevice", g, status,
            [&](Graph& graph) -> Status { return graph.PopDevice(); });
}

// ---- colocation ----

extern "C" void TG_GraphPushColocateWith(TG_Graph* g, TG_Operation* op, int ignore_existing,
                                         TG_Status* status) {
  WithGraph("TG_GraphPushColocateWith", g, status, [&](Graph& graph) -> Status {
    TG_RETURN_IF_ERROR(CheckPushAllowed("TG_GraphPushColocateWith", graph));
    if (op == nullptr) return NullArg("TG_GraphPushColocateWith", "the operation");
    return graph.PushColocateWith(ToOp(op), ignore_existing != 0);
  });
}

extern "C" void TG_GraphPopColocateWith(TG_Graph* g, TG_Status* status) {
  WithGraph("TG_GraphPopColocateWith", g, status,
            [&](Graph& graph) -> Status { return graph.PopColocateWith(); });
}
