#include "core/autodiff/nn_builders.h"

#include <limits>

#include "core/autodiff/gradient_context.h"
#include "core/autodiff/initializers.h"
#include "core/autodiff/random_seed.h"
#include "core/graph/graph.h"
#include "core/graph/graph_context_guard.h"

namespace tgraph {
namespace {

Status CheckTensor(const Graph& graph, const char* fn, const char* what, Output t) {
  if (t.op == nullptr) return InvalidArgument(fn, ": ", what, " is missing");
  if (t.op->graph() != &graph) return InvalidArgument(fn, ": ", what, " is not a tensor of this graph");
  if (t.index < 0 || t.index >= t.op->num_outputs()) {
    return InvalidArgument(fn, ": ", what, " names output ", t.index, " of '", t.op->name(),
                           "', which has ", t.op->num_outputs());
  }
  return Status::OK();
}

Status CheckFloat(const char* fn, const char* what, Output t) {
  const DataType dt = BaseType(t.dtype());
  if (dt != DT_FLOAT && dt != DT_DOUBLE) {
    return InvalidArgument(fn, ": ", what, " ('", t.Name(), "') must be float or double, not ",
                           DataTypeName(dt));
  }
  return Status::OK();
}

Status CheckIndex(const char* fn, const char* what, Output t) {
  const DataType dt = BaseType(t.dtype());
  if (dt != DT_INT32 && dt != DT_INT64) {
    return InvalidArgument(fn, ": ", what, " ('", t.Name(), "') must be int32 or int64, not ",
                           DataTypeName(dt));
  }
  return Status::OK();
}

Status CheckRank(const char* fn, const char* what, Output t, int rank) {
  const PartialShape& s = t.shape();
  if (s.known_rank() && s.rank() != rank) {
    return InvalidArgument(fn, ": ", what, " ('", t.Name(), "') must have rank ", rank,
                           ", but has shape ", s.ToString());
  }
  return Status::OK();
}

Output Int32Const(GraphBuilder& b, int32_t value, const std::string& name) {
  StatusOr<Tensor> t = Tensor::Allocate(DT_INT32, {});
  if (!t.ok()) {
    b.Fail(t.status());
    return Output{};
  }
  *t->flat<int32_t>() = value;
  return b.Const(*t, name);
}

// The length-1 slice [i, i + 1) of Shape(t).
Output DimVector(GraphBuilder& b, Output shape, int32_t i) {
  return b.Op("StridedSlice", {shape, b.ConstInt32({i}), b.ConstInt32({i + 1}), b.ConstInt32({1})});
}

}  // namespace

StatusOr<Output> EmbeddingLookup(Graph& graph, Output params, Output ids,
                                 const std::string& name) {
  const char* fn = "embedding_lookup";
  std::lock_guard lock(graph.mutex());
  TG_RETURN_IF_ERROR(CheckTensor(graph, fn, "params", params));
  TG_RETURN_IF_ERROR(CheckTensor(graph, fn, "ids", ids));
  TG_RETURN_IF_ERROR(CheckIndex(fn, "ids", ids));
  if (params.shape().known_rank() && params.shape().rank() < 1) {
    return InvalidArgument(fn, ": params ('", params.Name(), "') must have rank >= 1, but is a scalar");
  }
  GraphContextGuard scope(graph);
  TG_ASSIGN_OR_RETURN(std::string full, scope.NameScope(name.empty() ? "embedding_lookup" : name));
  GraphBuilder b(graph);
  // The gather runs where params live (a variable's rows are read in place), the Identity
  // frees the result from that constraint.
  GraphContextGuard colocate(graph);
  TG_RETURN_IF_ERROR(colocate.ColocateWith(params.op));
  Output axis = Int32Const(b, 0, "axis");
  Output gathered = b.Op("GatherV2", {params, ids, axis}, {}, full + "/");
  colocate.PopAll();
  Output result = b.Op("Identity", {gathered}, {}, "Identity");
  TG_RETURN_IF_ERROR(b.status());
  return result;
}

StatusOr<Output> Dropout(Graph& graph, Output x, double keep_prob, Output keep_prob_tensor,
                         std::optional<int64_t> seed, const std::string& name) {
  const char* fn = "dropout";
  std::lock_guard lock(graph.mutex());
  TG_RETURN_IF_ERROR(CheckTensor(graph, fn, "x", x));
  TG_RETURN_IF_ERROR(CheckFloat(fn, "x", x));
  const DataType dtype = BaseType(x.dtype());
  if (keep_prob_tensor.op != nullptr) {
    TG_RETURN_IF_ERROR(CheckTensor(graph, fn, "keep_prob", keep_prob_tensor));
    if (BaseType(keep_prob_tensor.dtype()) != dtype) {
      return InvalidArgument(fn, ": keep_prob is ", DataTypeName(keep_prob_tensor.dtype()),
                             " but x is ", DataTypeName(dtype));
    }
    TG_RETURN_IF_ERROR(CheckRank(fn, "keep_prob", keep_prob_tensor, 0));
  } else {
    if (!(keep_prob > 0 && keep_prob <= 1)) {
      return InvalidArgument(fn, ": keep_prob must be a scalar tensor or a float in the range "
                             "(0, 1], got ", keep_prob);
    }
    if (keep_prob == 1) return x;  // TF: nothing to drop, no nodes
  }
  GraphContextGuard scope(graph);
  TG_ASSIGN_OR_RETURN(std::string full, scope.NameScope(name.empty() ? "dropout" : name));
  GraphBuilder b(graph);
  Output kp = keep_prob_tensor.op != nullptr ? keep_prob_tensor : b.Scalar(dtype, keep_prob, "keep_prob");
  Output shape = b.Op("Shape", {x}, {}, "Shape");
  TG_RETURN_IF_ERROR(b.status());
  RandomTensorArgs args;
  args.dtype = dtype;
  args.shape = shape;
  args.seed = seed;
  TG_ASSIGN_OR_RETURN(Output uniform, RandomUniform(graph, args, 0.0, 1.0));
  // keep_prob + U[0, 1) lies in [keep_prob, 1 + keep_prob): its floor is 1 with
  // probability keep_prob, else 0.
  Output binary = b.Op("Floor", {b.Op("Add", {kp, uniform}, {}, "add")}, {}, "Floor");
  Output result = b.Op("Mul", {b.Op("RealDiv", {x, kp}, {}, "div"), binary}, {}, "mul");
  TG_RETURN_IF_ERROR(b.status());
  return result;
}

StatusOr<Output> L2Loss(Graph& graph, Output t, const std::string& name) {
  std::lock_guard lock(graph.mutex());
  TG_RETURN_IF_ERROR(CheckTensor(graph, "l2_loss", "t", t));
  GraphBuilder b(graph);
  Output out = b.Op("L2Loss", {t}, {}, name.empty() ? "L2Loss" : name);
  TG_RETURN_IF_ERROR(b.status());
  return out;
}

StatusOr<Output> SigmoidCrossEntropyWithLogits(Graph& graph, Output labels, Output logits,
                                               const std::string& name) {
  const char* fn = "sigmoid_cross_entropy_with_logits";
  std::lock_guard lock(graph.mutex());
  TG_RETURN_IF_ERROR(CheckTensor(graph, fn, "labels", labels));
  TG_RETURN_IF_ERROR(CheckTensor(graph, fn, "logits", logits));
  TG_RETURN_IF_ERROR(CheckFloat(fn, "logits", logits));
  if (BaseType(labels.dtype()) != BaseType(logits.dtype())) {
    return InvalidArgument(fn, ": labels are ", DataTypeName(labels.dtype()), " but logits are ",
                           DataTypeName(logits.dtype()));
  }
  if (!labels.shape().IsCompatibleWith(logits.shape())) {
    return InvalidArgument(fn, ": logits and labels must have the same shape (",
                           logits.shape().ToString(), " vs ", labels.shape().ToString(), ")");
  }
  GraphContextGuard scope(graph);
  TG_ASSIGN_OR_RETURN(std::string full, scope.NameScope(name.empty() ? "logistic_loss" : name));
  GraphBuilder b(graph);
  // max(x, 0) - x * z + log(1 + exp(-|x|)): never exponentiates a positive number.
  Output zeros = b.Op("ZerosLike", {logits}, {}, "zeros_like");
  Output cond = b.Op("GreaterEqual", {logits, zeros}, {}, "GreaterEqual");
  Output relu_logits = b.Op("Select", {cond, logits, zeros}, {}, "Select");
  Output neg_abs_logits = b.Op("Select", {cond, b.Op("Neg", {logits}, {}, "Neg"), logits}, {}, "Select");
  Output linear = b.Op("Sub", {relu_logits, b.Op("Mul", {logits, labels}, {}, "mul")}, {}, "sub");
  Output log_term = b.Op("Softplus", {neg_abs_logits}, {}, "Softplus");
  Output out = b.Op("Add", {linear, log_term}, {}, full + "/");
  TG_RETURN_IF_ERROR(b.status());
  return out;
}

StatusOr<Output> NceLoss(Graph& graph, Output weights, Output biases, Output labels,
                         Output inputs, int64_t num_sampled, int64_t num_classes,
                         const NceLossOptions& options) {
  const char* fn = "nce_loss";
  std::lock_guard lock(graph.mutex());
  TG_RETURN_IF_ERROR(CheckTensor(graph, fn, "weights", weights));
  TG_RETURN_IF_ERROR(CheckTensor(graph, fn, "biases", biases));
  TG_RETURN_IF_ERROR(CheckTensor(graph, fn, "labels", labels));
  TG_RETURN_IF_ERROR(CheckTensor(graph, fn, "inputs", inputs));
  TG_RETURN_IF_ERROR(CheckFloat(fn, "inputs", inputs));
  TG_RETURN_IF_ERROR(CheckIndex(fn, "labels", labels));
  const DataType dtype = BaseType(inputs.dtype());
  for (const auto& [what, t] : {std::pair{"weights", weights}, std::pair{"biases", biases}}) {
    if (BaseType(t.dtype()) != dtype) {
      return InvalidArgument(fn, ": ", what, " are ", DataTypeName(t.dtype()), " but inputs are ",
                             DataTypeName(dtype));
    }
  }
  TG_RETURN_IF_ERROR(CheckRank(fn, "weights", weights, 2));
  TG_RETURN_IF_ERROR(CheckRank(fn, "biases", biases, 1));
  TG_RETURN_IF_ERROR(CheckRank(fn, "inputs", inputs, 2));
  TG_RETURN_IF_ERROR(CheckRank(fn, "labels", labels, 2));
  if (options.num_true < 1) return InvalidArgument(fn, ": num_true must be >= 1, got ", options.num_true);
  if (num_sampled < 1) return InvalidArgument(fn, ": num_sampled must be >= 1, got ", num_sampled);
  if (num_classes < 1) return InvalidArgument(fn, ": num_classes must be >= 1, got ", num_classes);
  const bool given = options.sampled_candidates.op != nullptr;
  if (given != (options.true_expected_count.op != nullptr) ||
      given != (options.sampled_expected_count.op != nullptr)) {
    return InvalidArgument(fn, ": sampled values need all three of sampled_candidates, "
                           "true_expected_count and sampled_expected_count");
  }
  if (given) {
    TG_RETURN_IF_ERROR(CheckTensor(graph, fn, "sampled_candidates", options.sampled_candidates));
    TG_RETURN_IF_ERROR(CheckIndex(fn, "sampled_candidates", options.sampled_candidates));
    TG_RETURN_IF_ERROR(CheckTensor(graph, fn, "true_expected_count", options.true_expected_count));
    TG_RETURN_IF_ERROR(CheckFloat(fn, "true_expected_count", options.true_expected_count));
    TG_RETURN_IF_ERROR(CheckTensor(graph, fn, "sampled_expected_count", options.sampled_expected_count));
    TG_RETURN_IF_ERROR(CheckFloat(fn, "sampled_expected_count", options.sampled_expected_count));
  } else if (num_sampled > num_classes) {
    return InvalidArgument(fn, ": num_sampled (", num_sampled, ") must not exceed num_classes (",
                           num_classes, ") for the unique sampler");
  }

  GraphContextGuard scope(graph);
  TG_ASSIGN_OR_RETURN(std::string full, scope.NameScope(options.name.empty() ? "nce_loss" : options.name));
  GraphBuilder b(graph);
  const auto num_true = static_cast<int32_t>(options.num_true);
  Output labels64 = BaseType(labels.dtype()) == DT_INT64 ? labels : b.Cast(labels, DT_INT64);
  Output labels_flat = b.Reshape(labels64, b.ConstInt32({-1}));

  Output sampled, true_expected, sampled_expected;
  if (given) {
    sampled = options.sampled_candidates;
    if (BaseType(sampled.dtype()) != DT_INT64) sampled = b.Cast(sampled, DT_INT64);
    true_expected = options.true_expected_count;
    sampled_expected = options.sampled_expected_count;
  } else {
    TG_RETURN_IF_ERROR(b.status());
    const auto [seed, seed2] = GetSeed(graph, options.seed);
    std::vector<Output> s = b.OpOutputs("LogUniformCandidateSampler", {labels64},
                                        {{"num_true", AttrOfInt(num_true)},
                                         {"num_sampled", AttrOfInt(num_sampled)},
                                         {"unique", AttrOfBool(true)},
                                         {"range_max", AttrOfInt(num_classes)},
                                         {"seed", AttrOfInt(seed)},
                                         {"seed2", AttrOfInt(seed2)}});
    TG_RETURN_IF_ERROR(b.status());
    sampled = s[0];
    true_expected = s[1];
    sampled_expected = s[2];
  }
  if (BaseType(true_expected.dtype()) != dtype) true_expected = b.Cast(true_expected, dtype);
  if (BaseType(sampled_expected.dtype()) != dtype) sampled_expected = b.Cast(sampled_expected, dtype);

  // One lookup of the true and sampled rows together, split by slicing after n true ids.
  Output all_ids = b.Op("ConcatV2", {GradInput::List({labels_flat, sampled}), b.ScalarInt32(0)},
                        {}, "concat");
  TG_RETURN_IF_ERROR(b.status());
  TG_ASSIGN_OR_RETURN(Output all_w, EmbeddingLookup(graph, weights, all_ids));
  Output flat_shape = b.Shape(labels_flat);
  Output n = b.Op("StridedSlice",
                  {flat_shape, b.ConstInt32({0}), b.ConstInt32({1}), b.ConstInt32({1})},
                  {{"shrink_axis_mask", AttrOfInt(1)}});
  Output true_w = b.Op("Slice", {all_w, b.ConstInt32({0, 0}),
                                 b.Op("Pack", {GradInput::List({n, b.ScalarInt32(-1)})})});
  Output sampled_w = b.Op("Slice", {all_w, b.Op("Pack", {GradInput::List({n, b.ScalarInt32(0)})}),
                                    b.ConstInt32({-1, -1})});
  Output sampled_logits = b.MatMul(inputs, sampled_w, false, true);  // [batch, num_sampled]
  TG_RETURN_IF_ERROR(b.status());
  TG_ASSIGN_OR_RETURN(Output all_b, EmbeddingLookup(graph, biases, all_ids));
  Output true_b = b.Op("Slice", {all_b, b.ConstInt32({0}), flat_shape});
  Output sampled_b = b.Op("Slice", {all_b, flat_shape, b.ConstInt32({-1})});

  // true_logits[i, j] = <inputs[i], true_w[i * num_true + j]> + true_b[...].
  Output dim = DimVector(b, b.Shape(true_w), 1);
  Output true_w_3d = b.Reshape(
      true_w, b.Op("ConcatV2", {GradInput::List({b.ConstInt32({-1, num_true}), dim}), b.ScalarInt32(0)}));
  Output row_wise_dots = b.Mul(b.Op("ExpandDims", {inputs, b.ScalarInt32(1)}), true_w_3d);
  Output true_logits = b.Sum(row_wise_dots, b.ConstInt32({2}));  // [batch, num_true]
  true_logits = b.Op("Add", {true_logits, b.Reshape(true_b, b.ConstInt32({-1, num_true}))}, {}, "add");
  sampled_logits = b.Op("Add", {sampled_logits, sampled_b}, {}, "add");

  if (options.remove_accidental_hits) {
    // A sampled candidate equal to one of the example's true labels gets -FLT_MAX added
    // (TF's compute_accidental_hits + sparse_to_dense), so it adds nothing to the loss.
    Output true_3d = b.Op("ExpandDims",
                          {b.Reshape(labels64, b.ConstInt32({-1, num_true})), b.ScalarInt32(2)});
    Output cand_3d = b.Reshape(sampled, b.ConstInt32({1, 1, -1}));
    Output hit = b.Op("Max", {b.Cast(b.Op("Equal", {true_3d, cand_3d}), dtype), b.ConstInt32({1})});
    sampled_logits = b.Op("Add", {sampled_logits,
                                  b.Mul(hit, b.Scalar(dtype, -std::numeric_limits<float>::max()))},
                          {}, "add");
  }
  // subtract_log_q: logits of the sampled-softmax correction.
  true_logits = b.Sub(true_logits, b.Op("Log", {true_expected}));
  sampled_logits = b.Sub(sampled_logits, b.Op("Log", {sampled_expected}));

  Output out_logits = b.Op("ConcatV2", {GradInput::List({true_logits, sampled_logits}), b.ScalarInt32(1)});
  Output true_labels = b.Div(b.OnesLike(true_logits), b.Scalar(dtype, static_cast<double>(num_true)));
  Output out_labels = b.Op("ConcatV2", {GradInput::List({true_labels, b.ZerosLike(sampled_logits)}),
                                        b.ScalarInt32(1)});
  TG_RETURN_IF_ERROR(b.status());
  TG_ASSIGN_OR_RETURN(Output losses,
                      SigmoidCrossEntropyWithLogits(graph, out_labels, out_logits, "sampled_losses"));
  Output result = b.Op("Sum", {losses, b.ConstInt32({1})}, {{"keep_dims", AttrOfBool(false)}}, full + "/");
  TG_RETURN_IF_ERROR(b.status());
  return result;
}

}  // namespace tgraph
