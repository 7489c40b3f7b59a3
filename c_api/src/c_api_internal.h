// The handle structs behind tgraph/c_api.h and the helpers every c_api source shares:
// status conversion, the exception boundary, handle casts and buffer filling.
#pragma once

#include <cstdint>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "core/base/dtype.h"
#include "core/base/shape.h"
#include "core/base/status.h"
#include "core/base/tensor.h"
#include "core/exec/session.h"
#include "core/graph/collections.h"
#include "core/graph/graph.h"
#include "core/plugin/abi_handles.h"
#include "core/plugin/status_boundary.h"
#include "core/graph/operation.h"
#include "core/graph/variables.h"
#include "tgraph/c_api.h"


struct TG_Graph {
  tgraph::Graph graph;
  // TG_GraphCollectionKey hands out pointers into this snapshot; it is replaced only when
  // the set of keys changes.
  std::vector<std::string> key_cache;
  // > 0 while one of this graph's device functions runs (under the graph lock, so only the
  // calling thread can see it): the graph must not change then.
  int in_device_function = 0;
};

namespace tgraph::capi {
// The handle of a graph made by TG_NewGraph (nullptr for any other graph): callbacks into a
// binding (TG_GradientCallback) name the graph by the handle its caller holds.
TG_Graph* GraphHandleOf(const tgraph::Graph* graph);
void RegisterGraphHandle(TG_Graph* handle);
void UnregisterGraphHandle(TG_Graph* handle);
}  // namespace tgraph::capi

struct TG_Session {
  std::unique_ptr<tgraph::Session> session;
  // A copy taken at creation, so the strings handed out stay put for the session's life
  // whatever the core does with its own list.
  std::vector<tgraph::SessionDevice> devices;
};

struct TG_OperationDescription {
  TG_Graph* graph = nullptr;
  tgraph::NodeSpec spec;
  // The first error a setter found; TG_FinishOperation fails with it.
  tgraph::Status error;
};

struct TG_Collection {
  std::vector<tgraph::CollectionItem> items;
};

// TG_Operation and TG_Variable have no struct of their own: the pointers are the core's
// Operation* and Variable*, owned by the graph.

namespace tgraph {
struct InitializerSpec;  // core/autodiff/initializers.h
}  // namespace tgraph

namespace tgraph::capi {

// ---- handles ----
inline Operation* ToOp(TG_Operation* op) { return reinterpret_cast<Operation*>(op); }
inline const Operation* ToOp(const TG_Operation* op) {
  return reinterpret_cast<const Operation*>(op);
}
inline TG_Operation* ToC(Operation* op) { return reinterpret_cast<TG_Operation*>(op); }
inline const TG_Operation* ToC(const Operation* op) {
  return reinterpret_cast<const TG_Operation*>(op);
}
inline Variable* ToVar(TG_Variable* v) { return reinterpret_cast<Variable*>(v); }
inline const Variable* ToVar(const TG_Variable* v) { return reinterpret_cast<const Variable*>(v); }
inline TG_Variable* ToC(Variable* v) { return reinterpret_cast<TG_Variable*>(v); }
inline Output ToOutput(TG_Output o) { return Output{ToOp(o.oper), o.index}; }
inline TG_Output ToC(Output o) { return TG_Output{ToC(o.op), o.index}; }
inline TG_Output NullOutput() { return TG_Output{nullptr, -1}; }

// ---- status: SetStatus, Guard, GuardValue, NoThrow (core/plugin/status_boundary.h) ----

inline Status NullArg(const char* fn, const char* what) {
  return InvalidArgument(fn, ": ", what, " is NULL");
}

// The lock every graph call takes (recursive: callbacks may call back into the API).
using GraphLock = std::lock_guard<std::recursive_mutex>;

// TG_VariableOptions (NULL: defaults) as the core's VariableOptions; a struct_size outside
// the released sizes or a bad collection list is INVALID_ARGUMENT naming `fn`.
Status ReadVariableOptions(const char* fn, const TG_VariableOptions* in, VariableOptions* out);

// TG_Initializer as the core's InitializerSpec; NULL, a bad struct_size or kind is
// INVALID_ARGUMENT naming `fn` (training.cc).
Status ReadInitializer(const char* fn, const TG_Initializer* in, InitializerSpec* out);

// Checks that `o` names an existing output of an operation of `g` (g may be null: any graph).
Status CheckOutput(const char* fn, const Graph* g, TG_Output o);

// Replaces the contents of `buffer` with a library-owned copy of `bytes`.
Status FillBuffer(TG_Buffer* buffer, const std::string& bytes);

// dims[0, num_dims) (num_dims == -1: unknown rank) as a PartialShape; checks dims >= -1.
Status ShapeFromDims(const char* what, const int64_t* dims, int num_dims, PartialShape* out);

// FAILED_PRECONDITION when called from inside a device function of `g` (building there would
// change the graph while the core is creating an operation).
inline Status CheckNotInDeviceFunction(const char* fn, const TG_Graph* g) {
  if (g->in_device_function > 0) {
    return FailedPrecondition(fn, ": the graph cannot be changed from inside a device function");
  }
  return Status::OK();
}

// The int inside an enum argument from C. A C caller may pass any int; reading such a value
// as the C++ enum type would be undefined behaviour, so its bytes are copied out instead.
template <typename E>
int EnumValue(const E& e) {
  static_assert(sizeof(E) == sizeof(int), "C API enums are int-sized");
  int v;
  std::memcpy(&v, &e, sizeof v);
  return v;
}

// A C string argument: NULL becomes "".
inline std::string Str(const char* s) { return s == nullptr ? std::string() : std::string(s); }

}  // namespace tgraph::capi
