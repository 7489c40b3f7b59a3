// tf.summary (TF 1.x) as graph builders: scalar, histogram, merge and merge_all. Like
// TensorFlow's, scalar and histogram open a name scope named after the summary (cleaned of
// characters a tag may not hold), take its full name as the tag (so "loss" twice gives tags
// "loss" and "loss_1", and an enclosing scope "train" gives "train/loss"), name the op after
// the scope, hold the tag in a "<scope>/tags" or "<scope>/tag" Const, and add the output to
// the "summaries" collection.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/base/status.h"
#include "core/graph/operation.h"

namespace tgraph {

class Graph;

namespace io {

// TensorFlow's clean_tag: characters other than letters, digits, '_', '-', '.', '/' become
// '_', and leading '/' are dropped.
std::string CleanTag(const std::string& name);

// tf.summary.scalar(name, tensor): a ScalarSummary of a real scalar.
StatusOr<Output> AddScalarSummary(Graph& graph, const std::string& name, Output tensor);
// tf.summary.histogram(name, values): a HistogramSummary of a real tensor of any shape.
StatusOr<Output> AddHistogramSummary(Graph& graph, const std::string& name, Output values);
// tf.summary.merge(inputs, name): a MergeSummary under the scope `name` ("Merge" when
// empty) named `name` ("MergeSummary"). Not added to any collection.
StatusOr<Output> AddMergeSummary(Graph& graph, const std::vector<Output>& inputs,
                                 const std::string& name = "");
// tf.summary.merge_all(key): the merge of the collection `key` ("summaries" when empty), or
// nullopt when it holds no tensors.
StatusOr<std::optional<Output>> AddMergeAllSummaries(Graph& graph, const std::string& key = "",
                                                     const std::string& name = "");

}  // namespace io
}  // namespace tgraph
