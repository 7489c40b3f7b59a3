/* Small helpers shared by the training examples: a process-wide status checked after each
 * call, operation builders, tensors from C arrays, a seeded random number generator and a
 * clock. Every example is a client of the C API only (tgraph/c_api.h). */
#ifndef TGRAPH_EXAMPLES_EXAMPLE_UTIL_H_
#define TGRAPH_EXAMPLES_EXAMPLE_UTIL_H_

#include <stddef.h>
#include <stdint.h>

#include "tgraph/c_api.h"

/* The status every call of the examples reports into. */
extern TG_Status* ex_status;

/* Creates ex_status and loads the plugins on the search path (plugins/ next to libtgraph in
 * the build tree); exits when no plugin could be loaded. `program` prefixes messages. */
void ex_init(const char* program);
/* Frees ex_status. */
void ex_shutdown(void);
/* Exits with the status message when the last call failed. */
void ex_check(const char* what);
/* Prints "program: message" on stderr and exits with status 1. */
void ex_die(const char* fmt, ...);

/* The usual two-step operation building: ex_begin, then inputs and attrs, then ex_finish
 * (which checks the status). `name` NULL = the op type. */
TG_OperationDescription* ex_begin(TG_Graph* g, const char* type, const char* name);
TG_Output ex_finish(TG_OperationDescription* d);
TG_Output ex_out(TG_Operation* op, int index);

/* One- and two-input ops without attrs (beyond the inferred type attrs). */
TG_Output ex_unary(TG_Graph* g, const char* type, const char* name, TG_Output x);
TG_Output ex_binary(TG_Graph* g, const char* type, const char* name, TG_Output a, TG_Output b);

TG_Output ex_placeholder(TG_Graph* g, const char* name, TG_DataType dtype, const int64_t* dims,
                         int num_dims);
/* A Const holding a copy of the tensor. */
TG_Output ex_const(TG_Graph* g, const char* name, const TG_Tensor* value);
TG_Output ex_const_int32(TG_Graph* g, const char* name, int32_t value);
TG_Output ex_const_float(TG_Graph* g, const char* name, float value);
/* MatMul(a, b) with the given transpose flags. */
TG_Output ex_matmul(TG_Graph* g, const char* name, TG_Output a, TG_Output b, int transpose_a,
                    int transpose_b);
/* A reduction (Sum, Mean, ...) over axes[0, num_axes), keep_dims false. */
TG_Output ex_reduce(TG_Graph* g, const char* type, const char* name, TG_Output x,
                    const int32_t* axes, int num_axes);
/* An int32 vector Const. */
TG_Output ex_const_int32_vector(TG_Graph* g, const char* name, const int32_t* values, int n);
/* Reshape to dims[0, num_dims) (one may be -1). */
TG_Output ex_reshape(TG_Graph* g, const char* name, TG_Output x, const int32_t* dims,
                     int num_dims);
/* GatherV2(params, indices, axis 0). */
TG_Output ex_gather(TG_Graph* g, const char* name, TG_Output params, TG_Output indices);

/* A tensor of the given dtype and shape holding a copy of `data` (NULL: zeros). */
TG_Tensor* ex_tensor(TG_DataType dtype, const int64_t* dims, int num_dims, const void* data);
/* A trainable variable `name` whose initial value is a copy of `init`. */
TG_Variable* ex_variable(TG_Graph* g, const char* name, const TG_Tensor* init);

/* A trainable float variable `name` of dims[0, num_dims) whose initial value the initializer
 * builds in the graph (seeded by the graph-level seed, TG_GraphSetRandomSeed). */
TG_Variable* ex_variable_with_init(TG_Graph* g, const char* name, const TG_Initializer* init,
                                   const int64_t* dims, int num_dims);

/* Runs the session: feeds, fetches (the caller deletes output_values), targets. Exits on
 * failure. */
void ex_run(TG_Session* s, const TG_Output* inputs, TG_Tensor* const* values, int ninputs,
            const TG_Output* outputs, TG_Tensor** output_values, int noutputs,
            const TG_Operation* const* targets, int ntargets, const char* what);

/* A seeded generator (SplitMix64): the same sequence on every platform, so runs are
 * reproducible. */
typedef struct ex_rng {
  uint64_t state;
} ex_rng;
uint64_t ex_rng_next(ex_rng* r);
/* Uniform in [0, 1). */
double ex_rng_uniform(ex_rng* r);
/* Uniform in [0, n). */
uint32_t ex_rng_below(ex_rng* r, uint32_t n);
/* Fisher-Yates shuffle of values[0, n). */
void ex_shuffle_int32(ex_rng* r, int32_t* values, int64_t n);

/* Writes the graph as a binary GraphDef (TG_GraphToGraphDef) to `path`; returns its size in
 * bytes. Exits with a message naming the file on failure. */
size_t ex_write_graph_def(TG_Graph* g, const char* path);

/* Monotonic seconds. */
double ex_seconds(void);
/* Parses a non-negative integer / a double option value; exits with a message otherwise. */
long ex_parse_long(const char* option, const char* value);
double ex_parse_double(const char* option, const char* value);

#endif /* TGRAPH_EXAMPLES_EXAMPLE_UTIL_H_ */
