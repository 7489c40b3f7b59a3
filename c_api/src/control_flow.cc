// TG_NewWhile / TG_FinishWhile, TG_NewCond / TG_FinishCond, TG_UpdateEdge: the C face of
// core/graph/control_flow_builder.h.
#include <memory>

#include "c_api/src/c_api_internal.h"
#include "core/graph/control_flow_builder.h"

struct TG_While {
  TG_Graph* graph = nullptr;
  std::unique_ptr<tgraph::WhileLoopBuilder> builder;
};

struct TG_Cond {
  TG_Graph* graph = nullptr;
  std::unique_ptr<tgraph::CondBuilder> builder;
  int num_outputs = -1;  // the true branch's, once closed
};

using namespace tgraph;
using namespace tgraph::capi;

namespace {

Status ReadOutputs(const char* fn, const Graph& g, const TG_Output* outs, int n, const char* what,
                   std::vector<Output>* out) {
  if (n < 0) return InvalidArgument(fn, ": negative number of ", what);
  if (n > 0 && outs == nullptr) return NullArg(fn, what);
  for (int i = 0; i < n; ++i) {
    TG_RETURN_IF_ERROR(CheckOutput(fn, &g, outs[i]));
    out->push_back(ToOutput(outs[i]));
  }
  return Status::OK();
}

}  // namespace

extern "C" TG_While* TG_NewWhile(TG_Graph* g, const TG_Output* inputs, int ninputs, const char* name,
                                 int parallel_iterations, TG_Status* status) {
  return GuardValue(status, static_cast<TG_While*>(nullptr), [&](TG_While** result) -> Status {
    const char* fn = "TG_NewWhile";
    if (g == nullptr) return NullArg(fn, "graph");
    GraphLock lock(g->graph.mutex());
    TG_RETURN_IF_ERROR(CheckNotInDeviceFunction(fn, g));
    std::vector<Output> vars;
    TG_RETURN_IF_ERROR(ReadOutputs(fn, g->graph, inputs, ninputs, "inputs", &vars));
    TG_ASSIGN_OR_RETURN(auto builder, WhileLoopBuilder::Start(g->graph, vars, name == nullptr ? "" : name,
                                                              parallel_iterations));
    auto w = std::make_unique<TG_While>();
    w->graph = g;
    w->builder = std::move(builder);
    *result = w.release();
    return Status::OK();
  });
}

extern "C" int TG_WhileNumLoopVars(const TG_While* w) {
  return w == nullptr ? 0 : static_cast<int>(w->builder->cond_inputs().size());
}

extern "C" TG_Output TG_WhileCondInput(const TG_While* w, int i) {
  if (w == nullptr || i < 0 || i >= static_cast<int>(w->builder->cond_inputs().size())) return NullOutput();
  return ToC(w->builder->cond_inputs()[static_cast<size_t>(i)]);
}

extern "C" TG_Output TG_WhileBodyInput(const TG_While* w, int i) {
  if (w == nullptr || i < 0 || i >= static_cast<int>(w->builder->body_inputs().size())) return NullOutput();
  return ToC(w->builder->body_inputs()[static_cast<size_t>(i)]);
}

extern "C" void TG_WhileSetCond(TG_While* w, TG_Output pred, TG_Status* status) {
  Guard(status, [&]() -> Status {
    const char* fn = "TG_WhileSetCond";
    if (w == nullptr) return NullArg(fn, "while loop");
    GraphLock lock(w->graph->graph.mutex());
    TG_RETURN_IF_ERROR(CheckOutput(fn, &w->graph->graph, pred));
    return w->builder->SetCondition(ToOutput(pred));
  });
}

extern "C" void TG_FinishWhile(TG_While* w, const TG_Output* body_outputs, TG_Output* outputs,
                               TG_Status* status) {
  std::unique_ptr<TG_While> owned(w);
  Guard(status, [&]() -> Status {
    const char* fn = "TG_FinishWhile";
    if (w == nullptr) return NullArg(fn, "while loop");
    GraphLock lock(w->graph->graph.mutex());
    const int n = static_cast<int>(w->builder->cond_inputs().size());
    if (outputs == nullptr) return NullArg(fn, "outputs");
    std::vector<Output> next;
    TG_RETURN_IF_ERROR(ReadOutputs(fn, w->graph->graph, body_outputs, n, "body_outputs", &next));
    TG_ASSIGN_OR_RETURN(std::vector<Output> exits, w->builder->Finish(next));
    for (int i = 0; i < n; ++i) outputs[i] = ToC(exits[static_cast<size_t>(i)]);
    return Status::OK();
  });
  if (owned != nullptr) {
    GraphLock lock(owned->graph->graph.mutex());
    owned->builder.reset();  // closes the loop if Finish did not
  }
}

extern "C" void TG_AbortWhile(TG_While* w) {
  if (w == nullptr) return;
  (void)NoThrow(0, [&] {
    GraphLock lock(w->graph->graph.mutex());
    w->builder.reset();  // closes the loop
    return 0;
  });
  delete w;
}

extern "C" TG_Cond* TG_NewCond(TG_Graph* g, TG_Output pred, const char* name, TG_Status* status) {
  return GuardValue(status, static_cast<TG_Cond*>(nullptr), [&](TG_Cond** result) -> Status {
    const char* fn = "TG_NewCond";
    if (g == nullptr) return NullArg(fn, "graph");
    GraphLock lock(g->graph.mutex());
    TG_RETURN_IF_ERROR(CheckNotInDeviceFunction(fn, g));
    TG_RETURN_IF_ERROR(CheckOutput(fn, &g->graph, pred));
    TG_ASSIGN_OR_RETURN(auto builder, CondBuilder::Start(g->graph, ToOutput(pred), name == nullptr ? "" : name));
    auto c = std::make_unique<TG_Cond>();
    c->graph = g;
    c->builder = std::move(builder);
    *result = c.release();
    return Status::OK();
  });
}

extern "C" void TG_CondElse(TG_Cond* c, const TG_Output* true_outputs, int n, TG_Status* status) {
  Guard(status, [&]() -> Status {
    const char* fn = "TG_CondElse";
    if (c == nullptr) return NullArg(fn, "cond");
    GraphLock lock(c->graph->graph.mutex());
    std::vector<Output> outs;
    TG_RETURN_IF_ERROR(ReadOutputs(fn, c->graph->graph, true_outputs, n, "true_outputs", &outs));
    TG_RETURN_IF_ERROR(c->builder->Else(outs));
    c->num_outputs = n;
    return Status::OK();
  });
}

extern "C" void TG_FinishCond(TG_Cond* c, const TG_Output* false_outputs, int n, TG_Output* outputs,
                              TG_Status* status) {
  std::unique_ptr<TG_Cond> owned(c);
  Guard(status, [&]() -> Status {
    const char* fn = "TG_FinishCond";
    if (c == nullptr) return NullArg(fn, "cond");
    GraphLock lock(c->graph->graph.mutex());
    if (n > 0 && outputs == nullptr) return NullArg(fn, "outputs");
    std::vector<Output> outs;
    TG_RETURN_IF_ERROR(ReadOutputs(fn, c->graph->graph, false_outputs, n, "false_outputs", &outs));
    TG_ASSIGN_OR_RETURN(std::vector<Output> merged, c->builder->Finish(outs));
    for (int i = 0; i < n; ++i) outputs[i] = ToC(merged[static_cast<size_t>(i)]);
    return Status::OK();
  });
  if (owned != nullptr) {
    GraphLock lock(owned->graph->graph.mutex());
    owned->builder.reset();
  }
}

extern "C" void TG_AbortCond(TG_Cond* c) {
  if (c == nullptr) return;
  (void)NoThrow(0, [&] {
    GraphLock lock(c->graph->graph.mutex());
    c->builder.reset();  // closes the cond
    return 0;
  });
  delete c;
}

extern "C" void TG_UpdateEdge(TG_Graph* g, TG_Output new_src, TG_Input dst, TG_Status* status) {
  Guard(status, [&]() -> Status {
    const char* fn = "TG_UpdateEdge";
    if (g == nullptr) return NullArg(fn, "graph");
    GraphLock lock(g->graph.mutex());
    TG_RETURN_IF_ERROR(CheckOutput(fn, &g->graph, new_src));
    if (dst.oper == nullptr) return NullArg(fn, "dst.oper");
    if (ToOp(dst.oper)->graph() != &g->graph) return InvalidArgument(fn, ": dst is not an operation of the graph");
    return g->graph.UpdateInput(ToOp(dst.oper), dst.index, ToOutput(new_src));
  });
}
