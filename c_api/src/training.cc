// Training builders through C: graph-level random seeds, initializers (and variables built
// with them), embedding_lookup, dropout, l2_loss, sigmoid cross entropy and nce_loss. The
// graph building lives in core/autodiff (initializers.h, nn_builders.h, random_seed.h).
#include <cstddef>
#include <cstring>

#include "c_api/src/c_api_internal.h"
#include "core/autodiff/initializers.h"
#include "core/autodiff/nn_builders.h"
#include "core/autodiff/random_seed.h"

using namespace tgraph;
using namespace tgraph::capi;

namespace {

// The first released layouts: callers built against them (or later headers) are accepted.
constexpr size_t kInitializerV1Size = sizeof(TG_Initializer);
constexpr size_t kNceLossOptionsV1Size = sizeof(TG_NceLossOptions);

}  // namespace

Status tgraph::capi::ReadInitializer(const char* fn, const TG_Initializer* in, InitializerSpec* out) {
  if (in == nullptr) return NullArg(fn, "the initializer");
  if (in->struct_size < kInitializerV1Size || in->struct_size > sizeof(TG_Initializer)) {
    return InvalidArgument(fn, ": TG_Initializer.struct_size is ", in->struct_size, "; expected ",
                           sizeof(TG_Initializer), " (initialise it with TG_InitInitializer)");
  }
  const int kind = EnumValue(in->kind);
  if (kind < TG_INIT_ZEROS || kind > TG_INIT_GLOROT_UNIFORM) {
    return InvalidArgument(fn, ": ", kind, " is not a TG_InitializerKind value");
  }
  *out = InitializerSpec();
  out->kind = static_cast<InitializerKind>(kind);
  out->value = in->value;
  if (in->tensor != nullptr) out->tensor = in->tensor->tensor;
  out->mean = in->mean;
  out->stddev = in->stddev;
  out->minval = in->minval;
  out->maxval = in->maxval;
  if (in->has_seed != 0) out->seed = in->seed;
  return Status::OK();
}

namespace {

// dtype TG_INVALID_DTYPE means TG_FLOAT (as TG_GraphGetVariable).
Status ReadDtype(const char* fn, TG_DataType dtype, DataType* out) {
  const int v = EnumValue(dtype);
  if (v == TG_INVALID_DTYPE) {
    *out = DT_FLOAT;
    return Status::OK();
  }
  if (!IsValidDataType(v)) return InvalidArgument(fn, ": ", v, " is not a data type");
  *out = BaseType(static_cast<DataType>(v));
  return Status::OK();
}

Status FullShape(const char* fn, const int64_t* dims, int num_dims, std::vector<int64_t>* out) {
  PartialShape shape;
  TG_RETURN_IF_ERROR(ShapeFromDims(fn, dims, num_dims, &shape));
  if (!shape.IsFullyDefined()) {
    return InvalidArgument(fn, ": the shape must be fully defined, got ", shape.ToString());
  }
  *out = shape.dims();
  return Status::OK();
}

Status CheckGraph(const char* fn, TG_Graph* g) {
  if (g == nullptr) return NullArg(fn, "the graph");
  TG_RETURN_IF_ERROR(CheckNotInDeviceFunction(fn, g));
  if (g->graph.finalized()) return FailedPrecondition(fn, ": the graph is finalized");
  return Status::OK();
}

// Runs a builder returning StatusOr<Output> under the graph lock, with the usual checks.
template <typename Fn>
TG_Output BuildOutput(const char* fn, TG_Graph* g, TG_Status* status,
                      std::initializer_list<TG_Output> inputs, Fn&& build) {
  return GuardValue<TG_Output>(status, NullOutput(), [&](TG_Output* out) -> Status {
    if (g == nullptr) return NullArg(fn, "the graph");
    GraphLock lock(g->graph.mutex());
    TG_RETURN_IF_ERROR(CheckGraph(fn, g));
    for (const TG_Output& in : inputs) TG_RETURN_IF_ERROR(CheckOutput(fn, &g->graph, in));
    TG_ASSIGN_OR_RETURN(Output o, build());
    *out = ToC(o);
    return Status::OK();
  });
}

}  // namespace

// ---- random seeds ----

extern "C" void TG_GraphSetRandomSeed(TG_Graph* g, int64_t seed, TG_Status* status) {
  Guard(status, [&]() -> Status {
    const char* fn = "TG_GraphSetRandomSeed";
    if (g == nullptr) return NullArg(fn, "the graph");
    GraphLock lock(g->graph.mutex());
    TG_RETURN_IF_ERROR(CheckGraph(fn, g));
    return SetGraphSeed(g->graph, seed);
  });
}

extern "C" int TG_GraphGetRandomSeed(TG_Graph* g, int64_t* seed) {
  if (g == nullptr) return 0;
  return NoThrow<int>(0, [&] {
    std::optional<int64_t> s = GraphSeed(g->graph);
    if (s && seed != nullptr) *seed = *s;
    return s ? 1 : 0;
  });
}

// ---- initializers ----

extern "C" void TG_InitInitializer(TG_Initializer* init, TG_InitializerKind kind) {
  if (init == nullptr) return;
  std::memset(init, 0, sizeof *init);
  const InitializerSpec d;
  init->struct_size = sizeof *init;
  init->kind = kind;
  init->value = d.value;
  init->tensor = nullptr;
  init->mean = d.mean;
  init->stddev = d.stddev;
  init->minval = d.minval;
  init->maxval = d.maxval;
  init->has_seed = 0;
  init->seed = 0;
}

extern "C" TG_Output TG_InitializerValue(TG_Graph* g, const TG_Initializer* init,
                                         TG_DataType dtype, const int64_t* dims, int num_dims,
                                         TG_Status* status) {
  const char* fn = "TG_InitializerValue";
  return BuildOutput(fn, g, status, {}, [&]() -> StatusOr<Output> {
    InitializerSpec spec;
    TG_RETURN_IF_ERROR(ReadInitializer(fn, init, &spec));
    DataType dt;
    TG_RETURN_IF_ERROR(ReadDtype(fn, dtype, &dt));
    std::vector<int64_t> shape;
    TG_RETURN_IF_ERROR(FullShape(fn, dims, num_dims, &shape));
    return BuildInitializer(g->graph, spec, dt, shape);
  });
}

extern "C" TG_Variable* TG_GraphGetVariableWithInit(TG_Graph* g, const char* name,
                                                    TG_DataType dtype, const int64_t* dims,
                                                    int num_dims, const TG_Initializer* init,
                                                    const TG_VariableOptions* opts,
                                                    TG_Status* status) {
  const char* fn = "TG_GraphGetVariableWithInit";
  return GuardValue<TG_Variable*>(status, nullptr, [&](TG_Variable** out) -> Status {
    if (g == nullptr) return NullArg(fn, "the graph");
    if (name == nullptr || name[0] == '\0') return InvalidArgument(fn, ": the name is NULL or empty");
    InitializerSpec spec;
    TG_RETURN_IF_ERROR(ReadInitializer(fn, init, &spec));
    VariableOptions options;
    TG_RETURN_IF_ERROR(ReadVariableOptions(fn, opts, &options));
    DataType dt;
    TG_RETURN_IF_ERROR(ReadDtype(fn, dtype, &dt));
    PartialShape shape;
    TG_RETURN_IF_ERROR(ShapeFromDims(fn, dims, num_dims, &shape));
    GraphLock lock(g->graph.mutex());
    TG_RETURN_IF_ERROR(CheckGraph(fn, g));
    if (EnumValue(dtype) == TG_INVALID_DTYPE) dt = DefaultGetVariableDtype(g->graph.variables());
    // GetVariable calls this only when it creates the variable (the shape is then fully
    // defined), inside "<var>/Initializer".
    InitialValueFn build = [spec, dt, shape](Graph& graph) -> StatusOr<Output> {
      return BuildInitializer(graph, spec, dt, shape.dims());
    };
    TG_ASSIGN_OR_RETURN(Variable * v, g->graph.variables().GetVariable(name, dt, shape, build, options));
    *out = ToC(v);
    return Status::OK();
  });
}

extern "C" TG_Variable* TG_GraphNewVariableWithInit(TG_Graph* g, const TG_Initializer* init,
                                                    TG_DataType dtype, const int64_t* dims,
                                                    int num_dims, const TG_VariableOptions* opts,
                                                    TG_Status* status) {
  const char* fn = "TG_GraphNewVariableWithInit";
  return GuardValue<TG_Variable*>(status, nullptr, [&](TG_Variable** out) -> Status {
    if (g == nullptr) return NullArg(fn, "the graph");
    InitializerSpec spec;
    TG_RETURN_IF_ERROR(ReadInitializer(fn, init, &spec));
    VariableOptions options;
    TG_RETURN_IF_ERROR(ReadVariableOptions(fn, opts, &options));
    DataType dt;
    TG_RETURN_IF_ERROR(ReadDtype(fn, dtype, &dt));
    std::vector<int64_t> shape;
    TG_RETURN_IF_ERROR(FullShape(fn, dims, num_dims, &shape));
    GraphLock lock(g->graph.mutex());
    TG_RETURN_IF_ERROR(CheckGraph(fn, g));
    TG_ASSIGN_OR_RETURN(Variable * v, g->graph.variables().CreateVariable(
                                          InitializerFn(spec, dt, shape, /*open_initializer_scope=*/true),
                                          options));
    *out = ToC(v);
    return Status::OK();
  });
}

// ---- tf.nn builders ----

extern "C" TG_Output TG_EmbeddingLookup(TG_Graph* g, TG_Output params, TG_Output ids,
                                        const char* name, TG_Status* status) {
  return BuildOutput("TG_EmbeddingLookup", g, status, {params, ids}, [&] {
    return EmbeddingLookup(g->graph, ToOutput(params), ToOutput(ids), Str(name));
  });
}

extern "C" TG_Output TG_Dropout(TG_Graph* g, TG_Output x, double keep_prob,
                                TG_Output keep_prob_tensor, const int64_t* seed,
                                const char* name, TG_Status* status) {
  const char* fn = "TG_Dropout";
  return BuildOutput(fn, g, status, {x}, [&]() -> StatusOr<Output> {
    if (keep_prob_tensor.oper != nullptr) {
      TG_RETURN_IF_ERROR(CheckOutput(fn, &g->graph, keep_prob_tensor));
    }
    std::optional<int64_t> op_seed;
    if (seed != nullptr) op_seed = *seed;
    Output kp = keep_prob_tensor.oper != nullptr ? ToOutput(keep_prob_tensor) : Output{};
    return Dropout(g->graph, ToOutput(x), keep_prob, kp, op_seed, Str(name));
  });
}

extern "C" TG_Output TG_L2Loss(TG_Graph* g, TG_Output t, const char* name, TG_Status* status) {
  return BuildOutput("TG_L2Loss", g, status, {t},
                     [&] { return L2Loss(g->graph, ToOutput(t), Str(name)); });
}

extern "C" TG_Output TG_SigmoidCrossEntropyWithLogits(TG_Graph* g, TG_Output labels,
                                                      TG_Output logits, const char* name,
                                                      TG_Status* status) {
  return BuildOutput("TG_SigmoidCrossEntropyWithLogits", g, status, {labels, logits}, [&] {
    return SigmoidCrossEntropyWithLogits(g->graph, ToOutput(labels), ToOutput(logits), Str(name));
  });
}

extern "C" void TG_InitNceLossOptions(TG_NceLossOptions* opts) {
  if (opts == nullptr) return;
  std::memset(opts, 0, sizeof *opts);
  opts->struct_size = sizeof *opts;
  opts->num_true = 1;
}

extern "C" TG_Output TG_NceLoss(TG_Graph* g, TG_Output weights, TG_Output biases,
                                TG_Output labels, TG_Output inputs, int64_t num_sampled,
                                int64_t num_classes, const TG_NceLossOptions* opts,
                                TG_Status* status) {
  const char* fn = "TG_NceLoss";
  return BuildOutput(fn, g, status, {weights, biases, labels, inputs}, [&]() -> StatusOr<Output> {
    NceLossOptions options;
    if (opts != nullptr) {
      if (opts->struct_size < kNceLossOptionsV1Size || opts->struct_size > sizeof(TG_NceLossOptions)) {
        return InvalidArgument(fn, ": TG_NceLossOptions.struct_size is ", opts->struct_size,
                               "; expected ", sizeof(TG_NceLossOptions),
                               " (initialise it with TG_InitNceLossOptions)");
      }
      options.num_true = opts->num_true;
      options.remove_accidental_hits = opts->remove_accidental_hits != 0;
      if (opts->has_seed != 0) options.seed = opts->seed;
      if (opts->sampled_values != nullptr) {
        for (int i = 0; i < 3; ++i) TG_RETURN_IF_ERROR(CheckOutput(fn, &g->graph, opts->sampled_values[i]));
        options.sampled_candidates = ToOutput(opts->sampled_values[0]);
        options.true_expected_count = ToOutput(opts->sampled_values[1]);
        options.sampled_expected_count = ToOutput(opts->sampled_values[2]);
      }
      if (opts->name != nullptr && opts->name[0] != '\0') options.name = opts->name;
    }
    return NceLoss(g->graph, ToOutput(weights), ToOutput(biases), ToOutput(labels),
                   ToOutput(inputs), num_sampled, num_classes, options);
  });
}
