// tf.summary's graph builders through C: scalar, histogram, merge, merge_all. The building
// lives in core/io/summary_ops.h.
#include <vector>

#include "c_api/src/c_api_internal.h"
#include "core/io/summary_ops.h"

using namespace tgraph;
using namespace tgraph::capi;

namespace {

Status CheckGraph(const char* fn, TG_Graph* g) {
  if (g == nullptr) return NullArg(fn, "the graph");
  TG_RETURN_IF_ERROR(CheckNotInDeviceFunction(fn, g));
  if (g->graph.finalized()) return FailedPrecondition(fn, ": the graph is finalized");
  return Status::OK();
}

template <typename Build>
TG_Output BuildSummary(const char* fn, TG_Graph* g, TG_Status* status, Build&& build) {
  return GuardValue<TG_Output>(status, NullOutput(), [&](TG_Output* out) -> Status {
    if (g == nullptr) return NullArg(fn, "the graph");
    GraphLock lock(g->graph.mutex());
    TG_RETURN_IF_ERROR(CheckGraph(fn, g));
    TG_ASSIGN_OR_RETURN(std::optional<Output> o, build());
    *out = o.has_value() ? ToC(*o) : NullOutput();
    return Status::OK();
  });
}

}  // namespace

extern "C" TG_Output TG_SummaryScalar(TG_Graph* g, const char* name, TG_Output tensor,
                                      TG_Status* status) {
  const char* fn = "TG_SummaryScalar";
  return BuildSummary(fn, g, status, [&]() -> StatusOr<std::optional<Output>> {
    if (name == nullptr) return NullArg(fn, "name");
    TG_RETURN_IF_ERROR(CheckOutput(fn, &g->graph, tensor));
    TG_ASSIGN_OR_RETURN(Output o, io::AddScalarSummary(g->graph, name, ToOutput(tensor)));
    return std::optional<Output>(o);
  });
}

extern "C" TG_Output TG_SummaryHistogram(TG_Graph* g, const char* name, TG_Output values,
                                         TG_Status* status) {
  const char* fn = "TG_SummaryHistogram";
  return BuildSummary(fn, g, status, [&]() -> StatusOr<std::optional<Output>> {
    if (name == nullptr) return NullArg(fn, "name");
    TG_RETURN_IF_ERROR(CheckOutput(fn, &g->graph, values));
    TG_ASSIGN_OR_RETURN(Output o, io::AddHistogramSummary(g->graph, name, ToOutput(values)));
    return std::optional<Output>(o);
  });
}

extern "C" TG_Output TG_SummaryMerge(TG_Graph* g, const TG_Output* inputs, int n,
                                     const char* name, TG_Status* status) {
  const char* fn = "TG_SummaryMerge";
  return BuildSummary(fn, g, status, [&]() -> StatusOr<std::optional<Output>> {
    if (n < 0) return InvalidArgument(fn, ": n is ", n);
    if (n > 0 && inputs == nullptr) return NullArg(fn, "inputs");
    std::vector<Output> ins;
    for (int i = 0; i < n; ++i) {
      TG_RETURN_IF_ERROR(CheckOutput(fn, &g->graph, inputs[i]));
      ins.push_back(ToOutput(inputs[i]));
    }
    TG_ASSIGN_OR_RETURN(Output o, io::AddMergeSummary(g->graph, ins, Str(name)));
    return std::optional<Output>(o);
  });
}

extern "C" TG_Output TG_SummaryMergeAll(TG_Graph* g, const char* key, TG_Status* status) {
  return BuildSummary("TG_SummaryMergeAll", g, status, [&]() {
    return io::AddMergeAllSummaries(g->graph, Str(key));
  });
}
