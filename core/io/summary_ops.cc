#include "core/io/summary_ops.h"

#include <cctype>

#include "core/autodiff/gradient_context.h"
#include "core/graph/collections.h"
#include "core/graph/graph.h"
#include "core/graph/graph_context_guard.h"

namespace tgraph::io {
namespace {

Status CheckTensor(const Graph& graph, const char* fn, const char* what, Output t) {
  if (t.op == nullptr) return InvalidArgument(fn, ": ", what, " is missing");
  if (t.op->graph() != &graph) {
    return InvalidArgument(fn, ": ", what, " is not a tensor of this graph");
  }
  if (t.index < 0 || t.index >= t.op->num_outputs()) {
    return InvalidArgument(fn, ": ", what, " names output ", t.index, " of '", t.op->name(),
                           "', which has ", t.op->num_outputs());
  }
  return Status::OK();
}

Status CheckString(const char* fn, Output t) {
  if (BaseType(t.dtype()) != DT_STRING) {
    return InvalidArgument(fn, ": input '", t.Name(), "' is ", DataTypeName(t.dtype()),
                           ", not a string (a serialized Summary)");
  }
  return Status::OK();
}

// One summary op of `type` over `values`, the tag in a Const input named `tag_input` (the
// op's argument name), built as TF's summary_scope does.
StatusOr<Output> AddTaggedSummary(Graph& graph, const char* fn, const char* type,
                                  const char* tag_input, const std::string& name,
                                  Output values) {
  std::lock_guard lock(graph.mutex());
  TG_RETURN_IF_ERROR(CheckTensor(graph, fn, "the values", values));
  const std::string clean = CleanTag(name);
  if (clean.empty()) return InvalidArgument(fn, ": the summary name '", name, "' is empty");
  GraphContextGuard scope(graph);
  TG_ASSIGN_OR_RETURN(std::string tag, scope.NameScope(clean));
  TG_ASSIGN_OR_RETURN(Tensor tag_tensor, Tensor::Allocate(DT_STRING, {}));
  tag_tensor.strings()[0] = tag;
  GraphBuilder b(graph);
  Output tag_const = b.Const(tag_tensor, tag_input);
  Output summary = b.Op(type, {tag_const, values}, {}, tag + "/");
  TG_RETURN_IF_ERROR(b.status());
  TG_RETURN_IF_ERROR(
      graph.AddToCollection(collection_keys::kSummaries, CollectionItem::OfTensor(summary)));
  return summary;
}

}  // namespace

std::string CleanTag(const std::string& name) {
  std::string out;
  out.reserve(name.size());
  for (char c : name) {
    const bool ok = std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' ||
                    c == '.' || c == '/';
    out.push_back(ok ? c : '_');
  }
  const size_t first = out.find_first_not_of('/');
  return first == std::string::npos ? std::string() : out.substr(first);
}

StatusOr<Output> AddScalarSummary(Graph& graph, const std::string& name, Output tensor) {
  return AddTaggedSummary(graph, "summary.scalar", "ScalarSummary", "tags", name, tensor);
}

StatusOr<Output> AddHistogramSummary(Graph& graph, const std::string& name, Output values) {
  return AddTaggedSummary(graph, "summary.histogram", "HistogramSummary", "tag", name, values);
}

StatusOr<Output> AddMergeSummary(Graph& graph, const std::vector<Output>& inputs,
                                 const std::string& name) {
  const char* fn = "summary.merge";
  std::lock_guard lock(graph.mutex());
  if (inputs.empty()) return InvalidArgument(fn, ": no summaries to merge");
  for (const Output& in : inputs) {
    TG_RETURN_IF_ERROR(CheckTensor(graph, fn, "an input", in));
    TG_RETURN_IF_ERROR(CheckString(fn, in));
  }
  GraphContextGuard scope(graph);
  TG_RETURN_IF_ERROR(scope.NameScope(name.empty() ? "Merge" : name).status());
  GraphBuilder b(graph);
  Output merged = b.Op("MergeSummary", {GradInput::List(inputs)}, {},
                       name.empty() ? "MergeSummary" : name);
  TG_RETURN_IF_ERROR(b.status());
  return merged;
}

StatusOr<std::optional<Output>> AddMergeAllSummaries(Graph& graph, const std::string& key,
                                                     const std::string& name) {
  std::lock_guard lock(graph.mutex());
  TG_ASSIGN_OR_RETURN(std::vector<CollectionItem> items,
                      graph.collections().Get(key.empty() ? collection_keys::kSummaries : key));
  std::vector<Output> inputs;
  for (const CollectionItem& item : items) {
    if (item.kind == CollectionItem::Kind::kTensor) inputs.push_back(item.tensor);
  }
  if (inputs.empty()) return std::optional<Output>();
  TG_ASSIGN_OR_RETURN(Output merged, AddMergeSummary(graph, inputs, name));
  return std::optional<Output>(merged);
}

}  // namespace tgraph::io
