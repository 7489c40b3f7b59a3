/* tgraph/plugin.h -- the plugin ABI (pure C).
 *
 * A plugin is a shared library that exports exactly one symbol, TG_PluginInit. The core
 * calls it once after loading the library, handing over a table of core services
 * (TG_CoreApi). Through that table the plugin registers what it brings: op definitions with
 * shape functions, kernels, gradient functions, devices and checkpoint savers. Everything
 * else the plugin does at run time (reading inputs, allocating outputs, failing a kernel)
 * also goes through the table. A plugin includes this header (and tgraph/types.h, which it
 * pulls in) and nothing else of tgraph; it never links libtgraph.
 *
 * Compatibility rules
 *  - Every struct that crosses the boundary starts with `size_t struct_size`, set by whoever
 *    fills the struct to sizeof(the struct) as *they* compiled it. A reader never touches a
 *    field beyond the struct_size it was given: fields added later read as absent (NULL/0).
 *  - Tables and structs only grow: new members are appended, nothing is removed, reordered
 *    or retyped. TG_PLUGIN_ABI_VERSION goes up by one with every release that appends.
 *  - The core accepts plugins built against its own or any older ABI version and refuses a
 *    newer one (naming the file and both versions), but only after TG_PluginInit returns:
 *    code there checks that api->struct_size covers a member newer than ABI 1 before calling it.
 *  - Optional callbacks are checked for NULL, and used only where struct_size covers them.
 *
 * Ownership rules
 *  - Strings and arrays passed to a core function are read during the call only (the core
 *    copies what it keeps), unless the function says otherwise.
 *  - Strings the core returns (names, messages) are owned by the core and valid for the
 *    call they were obtained in (a kernel's compute, a shape function, ...).
 *  - Tensors handed to a kernel (inputs, outputs, temporaries) are owned by the core and
 *    valid until the kernel's compute returns.
 *  - Memory the plugin allocates (its kernel state, device buffers) is freed by the plugin,
 *    through the destroy/deallocate callbacks it registered. The core never calls free() on
 *    plugin memory, and the plugin never frees core memory.
 *  - `user_data` pointers given at registration are passed back verbatim; the plugin keeps
 *    them alive until the library is unloaded.
 *
 * Threading: registration happens inside TG_PluginInit, on one thread. Kernel compute and
 * shape functions may be called concurrently from many threads, for different nodes or the
 * same node; a kernel's state must be safe for concurrent compute calls (read-only after
 * create, or locked).
 */
#ifndef TGRAPH_PLUGIN_H_
#define TGRAPH_PLUGIN_H_

#include <stddef.h>
#include <stdint.h>

#include "tgraph/types.h"

#if defined(_WIN32)
#define TG_PLUGIN_EXPORT __declspec(dllexport)
#else
#define TG_PLUGIN_EXPORT __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The ABI this header describes. 1 = the first release; 2 appended the gradient-building
 * services to TG_CoreApi; 3 appended device_type_registered; 4 appended tensor_info and
 * input_info (TG_TensorInfo); 5 appended the checkpoint services and the saver's list,
 * exists, remove and merge; 6 appended construction_decline (a kernel declining a node),
 * TG_OpDefinition.allows_uninitialized_input and the shape-function getters (attrs of every
 * kind, input types and partial shapes in one call, "same shape as input i"); 7 appended
 * input_version (caching what a kernel derives from a variable's or a constant's bytes); 8
 * appended construction_input_shape / construction_output_shape (a kernel's create reads the
 * static shapes, to decline a node by shape) and forward_input_to_ref_input (Assign adopting
 * its value's buffer). */
#define TG_PLUGIN_ABI_VERSION 8u

/* ===================================================================================== */
/* Opaque handles, owned by the core (TG_Status and TG_Tensor come from types.h)          */
/* ===================================================================================== */

typedef struct TG_KernelConstruction TG_KernelConstruction; /* what a kernel's create sees */
typedef struct TG_KernelContext TG_KernelContext;     /* what a kernel's compute sees */
typedef struct TG_ShapeContext TG_ShapeContext;       /* what a shape function sees */
typedef struct TG_GradientContext TG_GradientContext; /* what a gradient function sees */
typedef struct TG_ThreadPool TG_ThreadPool;           /* the intra-op thread pool */
typedef struct TG_GradNodeBuilder TG_GradNodeBuilder; /* a node being added by a gradient */

/* Log severities for TG_CoreApi.log. */
typedef enum TG_LogSeverity {
  TG_LOG_INFO = 0,
  TG_LOG_WARNING = 1,
  TG_LOG_ERROR = 2
} TG_LogSeverity;

/* ===================================================================================== */
/* Registration records (filled by the plugin, read by the core during the register call) */
/* ===================================================================================== */

/* An op definition in TensorFlow's spec-string form, e.g.
 *   inputs  = {"x: T", "y: T"}, outputs = {"z: T"},
 *   attrs   = {"T: {float, double}", "alpha: float = 1.0"}.
 * Input/output specs: "name: T", "name: float", "name: N * T", "name: Tlist",
 * "name: Ref(T)". Attr specs: "name: type", "name: {float, int32} = DT_FLOAT",
 * "name: int >= 1 = 2", "name: list(int) = [1, 1]", "name: string = 'SAME'",
 * "name: {'SAME', 'VALID'}", "name: shape", "name: tensor", "name: bool = true". */
typedef void (*TG_ShapeFunction)(TG_ShapeContext* ctx, void* user_data, TG_Status* status);

typedef struct TG_OpDefinition {
  size_t struct_size;
  const char* name; /* op type, e.g. "MyCustomOp" */
  const char* const* inputs;
  size_t num_inputs;
  const char* const* outputs;
  size_t num_outputs;
  const char* const* attrs;
  size_t num_attrs;
  int is_stateful;            /* never pruned as a common subexpression; may have effects */
  const char* summary;        /* one line; may be NULL */
  TG_ShapeFunction shape_fn;  /* NULL: outputs get unknown shapes */
  void* shape_fn_user_data;

  /* ---- ABI 6 ---- */
  /* Non-zero: the op's ref inputs may be uninitialized variables when its kernel runs
   * (TensorFlow's IsVariableInitialized and Assign). The core then does not fail the node
   * with FAILED_PRECONDITION before compute; the kernel asks is_ref_initialized, and
   * writes the variable with reallocate_ref_input. Zero (and plugins older than ABI 6):
   * an uninitialized ref input fails the node before compute, naming the variable. */
  int allows_uninitialized_input;
} TG_OpDefinition;

/* Restricts a type attr of the op to some dtypes for this kernel. */
typedef struct TG_TypeConstraint {
  size_t struct_size;
  const char* attr_name; /* e.g. "T" */
  const TG_DataType* allowed;
  size_t num_allowed;
} TG_TypeConstraint;

/* create: reads attrs through the TG_CoreApi construction functions and returns the
 *   kernel's state (may be NULL for a stateless kernel). On error it sets `status` and
 *   returns NULL (destroy is not called then). A kernel that cannot run this particular
 *   node (an attr value it does not support) declines it instead of failing: it calls
 *   TG_CoreApi.construction_decline (ABI 6) and returns NULL, and placement picks another
 *   kernel or device for the node (see construction_decline).
 * compute: runs the kernel; fails by setting the context's status (TG_CoreApi.set_status
 *   on TG_CoreApi.context_status(ctx)).
 * destroy: frees the state returned by create. May be NULL when create keeps nothing. */
typedef void* (*TG_KernelCreateFn)(TG_KernelConstruction* ctx, void* user_data, TG_Status* status);
typedef void (*TG_KernelComputeFn)(void* kernel, TG_KernelContext* ctx);
typedef void (*TG_KernelDestroyFn)(void* kernel);

typedef struct TG_KernelDefinition {
  size_t struct_size;
  const char* op_type;      /* must be a registered op (core's or a plugin's) */
  const char* device_type;  /* "CPU", "GPU", or a device type a plugin registered */
  const TG_TypeConstraint* type_constraints;
  size_t num_type_constraints;
  /* Names of input/output args that live in host memory even on a device kernel (shapes,
   * axes, ...). */
  const char* const* host_memory_args;
  size_t num_host_memory_args;
  TG_KernelCreateFn create;
  TG_KernelComputeFn compute;
  TG_KernelDestroyFn destroy;
  void* user_data;          /* passed to create */
  int32_t priority;         /* among kernels matching the same node, the highest wins */
  /* A rough cost for one call, in nanoseconds per output element; 0 = unknown. The
   * executor uses it to decide between running inline and handing to a thread. */
  double cost_ns_per_element;
} TG_KernelDefinition;

/* A gradient function: given the op (through ctx) and the gradients of its outputs, adds
 * the nodes computing the gradients of its inputs, through the grad_* services of
 * TG_CoreApi (ABI 2). It runs while the graph is being built, inside the name scope
 * "gradients/<op name>_grad". Failing (set_status) fails the AddGradients call. */
typedef void (*TG_GradientFn)(TG_GradientContext* ctx, void* user_data, TG_Status* status);

typedef struct TG_GradientDefinition {
  size_t struct_size;
  const char* op_type;
  TG_GradientFn fn;
  void* user_data;
} TG_GradientDefinition;

/* A device backend. `device_state` is what create_device returned for one ordinal. Copies
 * may be asynchronous on the device's stream; synchronize waits for all of them. */
typedef struct TG_DeviceDefinition {
  size_t struct_size;
  const char* device_type; /* "CPU", "GPU", ...; devices are named /device:TYPE:ORDINAL */
  void* user_data;
  /* How many devices of this type exist now (0 is fine: the backend loads, registers its
   * kernels, and reports no device). */
  int (*device_count)(void* user_data);
  /* A description for logs and device listings, e.g. "pocl / cpu-haswell". Copied. */
  const char* (*device_description)(void* user_data, int ordinal);
  void* (*create_device)(void* user_data, int ordinal, TG_Status* status);
  void (*destroy_device)(void* device_state);
  /* Device memory. allocate returns NULL and sets status when out of memory. */
  void* (*allocate)(void* device_state, size_t bytes, size_t alignment, TG_Status* status);
  void (*deallocate)(void* device_state, void* ptr);
  void (*copy_host_to_device)(void* device_state, void* device_dst, const void* host_src,
                              size_t bytes, TG_Status* status);
  void (*copy_device_to_host)(void* device_state, void* host_dst, const void* device_src,
                              size_t bytes, TG_Status* status);
  void (*copy_device_to_device)(void* device_state, void* dst, const void* src, size_t bytes,
                                TG_Status* status);
  void (*synchronize)(void* device_state, TG_Status* status);
  /* The queue/stream kernels enqueue on (cl_command_queue, cudaStream_t, ...). */
  void* (*stream)(void* device_state);
  /* Non-zero if host code may read and write this device's buffers directly (the CPU). */
  int host_accessible;
} TG_DeviceDefinition;

/* One tensor of a checkpoint, as a saver's `list` reports it (ABI 5). Everything it points
 * at is the saver's and valid during the visit call only. */
typedef struct TG_CheckpointEntry {
  size_t struct_size;
  const char* name;
  TG_DataType dtype;
  int num_dims;
  const int64_t* dims; /* num_dims entries (NULL when num_dims is 0) */
} TG_CheckpointEntry;

/* Called by a saver's `list` once per tensor; return non-zero to stop early. */
typedef int (*TG_CheckpointVisitFn)(void* visit_arg, const TG_CheckpointEntry* entry);

/* A checkpoint format. save/restore work on (name, tensor) lists of host tensors.
 *
 * What every saver guarantees (the core and its users rely on it):
 *  - save is atomic: files are written under temporary names, flushed to disk and renamed
 *    into place, so a save that fails (full disk, crash) leaves any checkpoint already at
 *    `prefix` whole, and no partial file under the final names;
 *  - save streams: it writes each tensor from its own memory, without a second copy;
 *  - restore checks every tensor's integrity where the format has a checksum; codes:
 *    NOT_FOUND for a missing file or tensor (naming it), DATA_LOSS for a corrupt or
 *    truncated file (naming the file and the tensor), INVALID_ARGUMENT for bad arguments;
 *  - restore reads only the named tensors (restore with one name is "read one tensor"). */
typedef struct TG_SaverDefinition {
  size_t struct_size;
  const char* format; /* e.g. "tensorflow_v2" */
  void* user_data;
  void (*save)(void* user_data, const char* prefix, const char* const* names,
               const TG_Tensor* const* tensors, size_t count, TG_Status* status);
  /* Fills `tensors[i]` with newly allocated tensors (TG_CoreApi.new_host_tensor), which the
   * core then owns (also on failure: the core frees whatever is non-NULL). */
  void (*restore)(void* user_data, const char* prefix, const char* const* names, size_t count,
                  TG_Tensor** tensors, TG_Status* status);

  /* ---- ABI 5 (each may be NULL) ---- */
  /* A prefix ending in this suffix (".safetensors") selects this format; NULL: chosen by
   * format name only. */
  const char* file_extension;
  /* Reports every tensor of the checkpoint (name, dtype, shape) in name order, without
   * reading tensor data. */
  void (*list)(void* user_data, const char* prefix, TG_CheckpointVisitFn visit,
               void* visit_arg, TG_Status* status);
  /* Non-zero when a checkpoint of this format exists at `prefix`. */
  int (*exists)(void* user_data, const char* prefix);
  /* Deletes the checkpoint's files (the Saver's rotation of old checkpoints). A checkpoint
   * that is not there is not an error. */
  void (*remove)(void* user_data, const char* prefix, TG_Status* status);
  /* Merges checkpoints written by a sharded save into one at `destination`
   * (MergeV2Checkpoints), deleting the sources' files, and their directories when
   * `delete_old_dirs` is non-zero and they are left empty. */
  void (*merge)(void* user_data, const char* const* prefixes, size_t count,
                const char* destination, int delete_old_dirs, TG_Status* status);
} TG_SaverDefinition;

/* What a kernel reads of a tensor, filled by one call (ABI 4): the caller sets struct_size
 * and the core fills the fields it covers. `dims` points at the tensor's own shape; it and
 * `data` stay valid while the kernel's compute runs (a tensor's shape and buffer do not
 * change under a kernel). */
typedef struct TG_TensorInfo {
  size_t struct_size;
  TG_DataType dtype;
  int num_dims;
  const int64_t* dims; /* num_dims entries (NULL when num_dims is 0) */
  int64_t num_elements;
  void* data;          /* as tensor_data: NULL for DT_STRING and zero-byte tensors */
} TG_TensorInfo;

/* ===================================================================================== */
/* The core's services                                                                   */
/* ===================================================================================== */

typedef void (*TG_ParallelForFn)(void* arg, int64_t begin, int64_t end);

typedef struct TG_CoreApi {
  size_t struct_size;
  uint32_t abi_version;

  /* ---- status and logging ---- */
  void (*set_status)(TG_Status* status, TG_Code code, const char* message);
  TG_Code (*status_code)(const TG_Status* status);
  void (*log)(TG_LogSeverity severity, const char* message);

  /* ---- registration (only during TG_PluginInit) ---- */
  void (*register_op)(const TG_OpDefinition* def, TG_Status* status);
  void (*register_kernel)(const TG_KernelDefinition* def, TG_Status* status);
  void (*register_gradient)(const TG_GradientDefinition* def, TG_Status* status);
  void (*register_device)(const TG_DeviceDefinition* def, TG_Status* status);
  void (*register_saver)(const TG_SaverDefinition* def, TG_Status* status);

  /* ---- tensors ---- */
  TG_DataType (*tensor_dtype)(const TG_Tensor* t);
  int (*tensor_num_dims)(const TG_Tensor* t);
  int64_t (*tensor_dim)(const TG_Tensor* t, int i);
  int64_t (*tensor_num_elements)(const TG_Tensor* t);
  size_t (*tensor_byte_size)(const TG_Tensor* t);
  /* Element memory (device memory for device tensors). NULL for zero-byte tensors. */
  void* (*tensor_data)(const TG_Tensor* t);
  /* DT_STRING elements. */
  void (*tensor_get_string)(const TG_Tensor* t, int64_t index, const char** data, size_t* len);
  void (*tensor_set_string)(TG_Tensor* t, int64_t index, const char* data, size_t len);
  /* A new host tensor (a plain dtype's bytes unset, for the caller to write; strings empty)
   * the caller passes on to the core (saver restore) or frees with delete_host_tensor. */
  TG_Tensor* (*new_host_tensor)(TG_DataType dtype, const int64_t* dims, int num_dims,
                                TG_Status* status);
  void (*delete_host_tensor)(TG_Tensor* t);

  /* ---- kernel construction: attrs of the node ---- */
  const char* (*construction_node_name)(const TG_KernelConstruction* ctx);
  const char* (*construction_op_type)(const TG_KernelConstruction* ctx);
  int (*construction_num_inputs)(const TG_KernelConstruction* ctx);
  int (*construction_num_outputs)(const TG_KernelConstruction* ctx);
  TG_DataType (*construction_input_type)(const TG_KernelConstruction* ctx, int i);
  TG_DataType (*construction_output_type)(const TG_KernelConstruction* ctx, int i);
  /* Attr getters fail with INVALID_ARGUMENT naming the node and attr when the attr is
   * missing or of another kind. List getters copy at most `max` values and return the list
   * length through *len (call with max = 0 to learn it). */
  void (*attr_int)(const TG_KernelConstruction* ctx, const char* name, int64_t* value, TG_Status* status);
  void (*attr_float)(const TG_KernelConstruction* ctx, const char* name, float* value, TG_Status* status);
  void (*attr_bool)(const TG_KernelConstruction* ctx, const char* name, int* value, TG_Status* status);
  void (*attr_type)(const TG_KernelConstruction* ctx, const char* name, TG_DataType* value, TG_Status* status);
  /* The string stays valid until create returns. */
  void (*attr_string)(const TG_KernelConstruction* ctx, const char* name, const char** value,
                      size_t* len, TG_Status* status);
  void (*attr_int_list)(const TG_KernelConstruction* ctx, const char* name, int64_t* values,
                        size_t max, size_t* len, TG_Status* status);
  void (*attr_float_list)(const TG_KernelConstruction* ctx, const char* name, float* values,
                          size_t max, size_t* len, TG_Status* status);
  void (*attr_type_list)(const TG_KernelConstruction* ctx, const char* name, TG_DataType* values,
                         size_t max, size_t* len, TG_Status* status);
  /* Shape attr: *num_dims = -1 for unknown rank. */
  void (*attr_shape)(const TG_KernelConstruction* ctx, const char* name, int64_t* dims,
                     int max_dims, int* num_dims, TG_Status* status);
  /* Tensor attr (e.g. Const's value), as a host tensor valid until create returns. */
  const TG_Tensor* (*attr_tensor)(const TG_KernelConstruction* ctx, const char* name, TG_Status* status);
  int (*has_attr)(const TG_KernelConstruction* ctx, const char* name);

  /* ---- kernel compute ---- */
  const char* (*context_node_name)(const TG_KernelContext* ctx);
  TG_Status* (*context_status)(TG_KernelContext* ctx);
  int (*num_inputs)(const TG_KernelContext* ctx);
  int (*num_outputs)(const TG_KernelContext* ctx);
  const TG_Tensor* (*input)(TG_KernelContext* ctx, int i);
  TG_DataType (*expected_output_type)(const TG_KernelContext* ctx, int i);
  /* Allocates output i with the node's output dtype; NULL + status on failure. */
  TG_Tensor* (*allocate_output)(TG_KernelContext* ctx, int i, const int64_t* dims, int num_dims,
                                TG_Status* status);
  /* Reuses input `input_index`'s buffer for output `output_index` when nobody else holds
   * it and dtype/size match (element-wise ops write in place). Returns NULL when it can't;
   * the kernel then calls allocate_output. */
  TG_Tensor* (*forward_input_to_output)(TG_KernelContext* ctx, int input_index, int output_index,
                                        const int64_t* dims, int num_dims);
  /* Makes output i share `t`'s buffer (Identity, Reshape: no copy). `t` must be an input
   * of this call or an output already produced. */
  void (*set_output_alias)(TG_KernelContext* ctx, int i, const TG_Tensor* t, const int64_t* dims,
                           int num_dims, TG_Status* status);
  /* Scratch memory freed when compute returns. */
  TG_Tensor* (*allocate_temp)(TG_KernelContext* ctx, TG_DataType dtype, const int64_t* dims,
                              int num_dims, TG_Status* status);
  /* The device's queue/stream (TG_DeviceDefinition.stream), NULL on the CPU. */
  void* (*device_stream)(TG_KernelContext* ctx);
  void* (*device_state)(TG_KernelContext* ctx);
  /* The intra-op pool: parallel_for splits [0, total) into chunks sized by cost and runs
   * them on the calling thread and at most pool_num_threads - 1 pool threads. */
  TG_ThreadPool* (*intra_op_pool)(TG_KernelContext* ctx);
  int (*pool_num_threads)(const TG_ThreadPool* pool);
  void (*parallel_for)(TG_ThreadPool* pool, int64_t total, double cost_per_unit_ns,
                       TG_ParallelForFn fn, void* arg);
  /* Runs fn(arg) on a pool thread some time later (for libraries with their own
   * scheduling, e.g. an Eigen ThreadPoolInterface adaptor). The caller waits for it. */
  void (*pool_schedule)(TG_ThreadPool* pool, void (*fn)(void* arg), void* arg);
  /* This thread's index in the pool, in [0, pool_num_threads), or -1 off the pool. */
  int (*pool_current_thread_id)(const TG_ThreadPool* pool);
  /* Ref inputs (variables): the variable's current tensor, writable in place. `lock`
   * takes the variable's mutex until unlock_ref_input (use_locking). Uninitialized
   * variables fail with FAILED_PRECONDITION naming the variable before compute runs,
   * unless the op allows uninitialized input. */
  TG_Tensor* (*mutable_ref_input)(TG_KernelContext* ctx, int i, TG_Status* status);
  void (*lock_ref_input)(TG_KernelContext* ctx, int i);
  void (*unlock_ref_input)(TG_KernelContext* ctx, int i);
  /* Replaces the variable's tensor behind ref input i with a new allocation of `dims`
   * (Assign with a new shape) and returns it for the kernel to fill. */
  TG_Tensor* (*reallocate_ref_input)(TG_KernelContext* ctx, int i, const int64_t* dims,
                                     int num_dims, TG_Status* status);
  /* Output `output_index` is the same ref as input `input_index` (Assign's output_ref). */
  void (*forward_ref_input_to_ref_output)(TG_KernelContext* ctx, int input_index, int output_index);
  int (*is_ref_initialized)(TG_KernelContext* ctx, int i);

  /* ---- shape functions ---- */
  int (*shape_num_inputs)(const TG_ShapeContext* ctx);
  /* -1 for unknown rank; dims may be -1 for unknown size. */
  int (*shape_input_rank)(const TG_ShapeContext* ctx, int i);
  int64_t (*shape_input_dim)(const TG_ShapeContext* ctx, int i, int d);
  /* The input's value if known while building (a Const), else NULL. */
  const TG_Tensor* (*shape_input_value)(const TG_ShapeContext* ctx, int i);
  /* Output i's shape: num_dims dims, each >= 0 or -1 for an unknown size; num_dims = -1
   * (dims may be NULL) for an unknown rank. Bad arguments fail the shape function. */
  void (*shape_set_output)(TG_ShapeContext* ctx, int i, const int64_t* dims, int num_dims);
  void (*shape_attr_int)(const TG_ShapeContext* ctx, const char* name, int64_t* value, TG_Status* status);
  void (*shape_attr_bool)(const TG_ShapeContext* ctx, const char* name, int* value, TG_Status* status);
  const char* (*shape_node_name)(const TG_ShapeContext* ctx);

  /* ---- gradient functions (ABI 2) ----
   * Symbolic tensors are integer handles, valid during one gradient call; -1 means "none".
   * Strings returned are owned by the core and valid during the call. */
  const char* (*grad_op_name)(const TG_GradientContext* ctx);
  const char* (*grad_op_type)(const TG_GradientContext* ctx);
  int (*grad_num_inputs)(const TG_GradientContext* ctx);
  int (*grad_num_outputs)(const TG_GradientContext* ctx);
  int (*grad_input)(TG_GradientContext* ctx, int i);   /* the forward op's input i */
  int (*grad_output)(TG_GradientContext* ctx, int i);  /* the forward op's output i */
  /* The gradient arriving at output i (dense), or -1 when that output has none. */
  int (*grad_output_gradient)(TG_GradientContext* ctx, int i);
  TG_DataType (*grad_tensor_dtype)(const TG_GradientContext* ctx, int tensor);
  /* Attrs of the forward op; errors as the kernel-construction getters. */
  void (*grad_attr_int)(const TG_GradientContext* ctx, const char* name, int64_t* value,
                        TG_Status* status);
  void (*grad_attr_float)(const TG_GradientContext* ctx, const char* name, float* value,
                          TG_Status* status);
  void (*grad_attr_bool)(const TG_GradientContext* ctx, const char* name, int* value,
                         TG_Status* status);
  void (*grad_attr_type)(const TG_GradientContext* ctx, const char* name, TG_DataType* value,
                         TG_Status* status);
  /* A scalar constant of `dtype` (a real type). */
  int (*grad_scalar)(TG_GradientContext* ctx, TG_DataType dtype, double value, TG_Status* status);
  /* Adding a node: new_node, then inputs in argument order and attrs, then finish_node,
   * which adds it (type attrs such as T are inferred from the inputs), frees the builder
   * and returns the handle of output 0; output k has handle (that + k). `name` may be NULL
   * (the op type is used, made unique). On failure finish_node returns -1 and sets status;
   * the builder is freed either way. */
  TG_GradNodeBuilder* (*grad_new_node)(TG_GradientContext* ctx, const char* op_type,
                                       const char* name);
  void (*grad_node_add_input)(TG_GradNodeBuilder* node, int tensor);
  void (*grad_node_add_input_list)(TG_GradNodeBuilder* node, const int* tensors, int count);
  void (*grad_node_set_attr_int)(TG_GradNodeBuilder* node, const char* name, int64_t value);
  void (*grad_node_set_attr_float)(TG_GradNodeBuilder* node, const char* name, float value);
  void (*grad_node_set_attr_bool)(TG_GradNodeBuilder* node, const char* name, int value);
  void (*grad_node_set_attr_type)(TG_GradNodeBuilder* node, const char* name, TG_DataType value);
  void (*grad_node_set_attr_string)(TG_GradNodeBuilder* node, const char* name,
                                    const char* value, size_t len);
  void (*grad_node_set_attr_int_list)(TG_GradNodeBuilder* node, const char* name,
                                      const int64_t* values, int count);
  int (*grad_finish_node)(TG_GradNodeBuilder* node, TG_Status* status);
  /* The result: the gradient of the forward op's input i (not calling it = no gradient). */
  void (*grad_set_input_gradient)(TG_GradientContext* ctx, int i, int tensor, TG_Status* status);

  /* ---- devices (ABI 3) ----
   * Non-zero when `device_type` is already registered by a plugin loaded earlier. Registering
   * a taken type fails the plugin's load (ALREADY_EXISTS), so a backend that finds devices
   * asks first and, when e.g. "GPU" is taken by another GPU backend, registers under its own
   * name instead ("CUDA_GPU", "OPENCL_GPU"); see docs/ARCHITECTURE.md "Device types". */
  int (*device_type_registered)(const char* device_type);

  /* ---- kernel compute in fewer calls (ABI 4) ----
   * A small kernel (a scalar add) spends most of its time crossing the table: these read
   * what several calls would, in one. tensor_info fills `info` from `t` (a NULL `t` gives
   * dtype TG_INVALID_DTYPE, num_dims -1). input_info is input(ctx, i) plus tensor_info of
   * it; out of range it returns NULL and fills nothing. */
  void (*tensor_info)(const TG_Tensor* t, TG_TensorInfo* info);
  const TG_Tensor* (*input_info)(TG_KernelContext* ctx, int i, TG_TensorInfo* info);

  /* ---- checkpoints (ABI 5) ----
   * What SaveV2, RestoreV2 and MergeV2Checkpoints kernels call: the core hands the work to
   * the saver plugin whose file_extension the prefix ends with, else to "tensorflow_v2".
   * Tensors are host tensors. checkpoint_restore fills tensors[i] with tensors the caller
   * owns (pass them to set_output, or free them with delete_host_tensor), also on failure. */
  void (*checkpoint_save)(const char* prefix, const char* const* names,
                          const TG_Tensor* const* tensors, size_t count, TG_Status* status);
  void (*checkpoint_restore)(const char* prefix, const char* const* names, size_t count,
                             TG_Tensor** tensors, TG_Status* status);
  void (*checkpoint_merge)(const char* const* prefixes, size_t count, const char* destination,
                           int delete_old_dirs, TG_Status* status);
  /* Makes `t` output i of the kernel, taking ownership of it (also on failure). `t` comes
   * from new_host_tensor or checkpoint_restore; its dtype must be the output's. */
  void (*set_output)(TG_KernelContext* ctx, int i, TG_Tensor* t, TG_Status* status);

  /* ---- declining a node (ABI 6) ----
   * Called by a kernel's create (only there) for a node it cannot run: an attr value it does
   * not support (Conv2D dilations, EXPLICIT padding, GatherV2 batch_dims, ...). create then
   * returns NULL and leaves its status OK. Placement tries the node's next kernel on the
   * same device type (the next lower priority), then places the node as if that device type
   * had no kernel for it: on the session's default device or the first device with a kernel,
   * when the node asked for no device or soft placement is on; with an explicit device and
   * soft placement off the run fails with INVALID_ARGUMENT naming the node, the kernel, its
   * plugin and `reason`. Copies between devices are inserted as for any placement. A
   * kernel that declined a node is not asked again for that node in the session. A
   * failure status set by create wins over a decline; state returned non-NULL after a
   * decline is passed to destroy. `reason` is copied (NULL reads as ""). */
  void (*construction_decline)(TG_KernelConstruction* ctx, const char* reason);

  /* ---- shape functions, more getters (ABI 6) ----
   * Attrs of the node, of every kind; errors as the kernel-construction getters (missing
   * attr or another kind: INVALID_ARGUMENT naming the node and attr). Strings stay valid
   * while the shape function runs. List getters copy at most `max` values and report the
   * length through *len (max = 0 to learn it). */
  void (*shape_attr_float)(const TG_ShapeContext* ctx, const char* name, float* value,
                           TG_Status* status);
  void (*shape_attr_type)(const TG_ShapeContext* ctx, const char* name, TG_DataType* value,
                          TG_Status* status);
  void (*shape_attr_string)(const TG_ShapeContext* ctx, const char* name, const char** value,
                            size_t* len, TG_Status* status);
  /* Shape attr: *num_dims = -1 for unknown rank; at most max_dims dims copied, -1 for an
   * unknown size. */
  void (*shape_attr_shape)(const TG_ShapeContext* ctx, const char* name, int64_t* dims,
                           int max_dims, int* num_dims, TG_Status* status);
  void (*shape_attr_int_list)(const TG_ShapeContext* ctx, const char* name, int64_t* values,
                              size_t max, size_t* len, TG_Status* status);
  void (*shape_attr_float_list)(const TG_ShapeContext* ctx, const char* name, float* values,
                                size_t max, size_t* len, TG_Status* status);
  void (*shape_attr_type_list)(const TG_ShapeContext* ctx, const char* name,
                               TG_DataType* values, size_t max, size_t* len, TG_Status* status);
  /* list(string): element k's bytes in values[k] and its length in lens[k] (either array may
   * be NULL). */
  void (*shape_attr_string_list)(const TG_ShapeContext* ctx, const char* name,
                                 const char** values, size_t* lens, size_t max, size_t* len,
                                 TG_Status* status);
  /* list(shape): the list's length through *len and, when index < *len, element `index` as
   * shape_attr_shape gives it. */
  void (*shape_attr_shape_list)(const TG_ShapeContext* ctx, const char* name, size_t index,
                                int64_t* dims, int max_dims, int* num_dims, size_t* len,
                                TG_Status* status);
  int (*shape_has_attr)(const TG_ShapeContext* ctx, const char* name);
  /* Input i's dtype (the base type of a ref input); TG_INVALID_DTYPE out of range. */
  TG_DataType (*shape_input_type)(const TG_ShapeContext* ctx, int i);
  /* Input i's partial shape in one call: returns its rank (-1 for an unknown rank or i out
   * of range) and copies at most max_dims dims, -1 for an unknown size. Constant values of
   * inputs, where known while building, come from shape_input_value. */
  int (*shape_input_shape)(const TG_ShapeContext* ctx, int i, int64_t* dims, int max_dims);
  /* Output `output` gets input `input`'s partial shape ("same shape as input i"). An index
   * out of range fails the shape function. */
  void (*shape_set_output_from_input)(TG_ShapeContext* ctx, int output, int input);

  /* ---- input versions (ABI 7) ----
   * A number naming the bytes of input i's buffer as they are now, for kernels that cache
   * work derived from an input across calls (a weight matrix packed into a GEMM's blocked
   * layout): while it returns the same non-zero number, the bytes have not been written.
   * Numbers are unique in the process: no two buffers, and no two states of one buffer, ever
   * get the same one, so no pointer comparison is needed (a kernel still keys its cache on
   * the shapes and layout it derived, which the node's other inputs may change).
   *  - Variables (ref variables, read through any alias: the ref itself, its `/read`
   *    Identity): a new number whenever the variable may be written: when a kernel calls
   *    mutable_ref_input or reallocate_ref_input (before it writes), and again when that
   *    kernel returns, so that a reader that ran during the write and cached a torn copy
   *    under the first number never matches again. Assign, AssignAdd/Sub, Scatter*, the
   *    optimizers' Apply* kernels, restores from a checkpoint (RestoreV2 + Assign) and
   *    re-initialization all write that way, whatever ABI their plugin was built for. (The
   *    runtime has no resource variables.)
   *  - Const outputs: one number for the plan's life.
   *  - Everything else: 0, "unknown": never cache on it. That includes feeds (a fed
   *    variable's or constant's tensor too), intermediate tensors and an i out of range.
   * Read it at the start of compute, before reading the input's bytes (a write that starts
   * later then renumbers them). It costs a table lookup under a lock: once per input per
   * call, for inputs worth caching on. */
  uint64_t (*input_version)(TG_KernelContext* ctx, int i);

  /* ---- kernel construction: static shapes (ABI 8) ----
   * Input i's (output i's) shape as the graph's shape inference knows it when the kernel is
   * created, for a create that declines a node by shape (construction_decline): returns the
   * rank (-1 for an unknown rank, or i out of range) and copies at most max_dims dims (dims
   * may be NULL when max_dims is 0), -1 for a size known only at run time. The kernel is
   * created once per node and session, so this is the graph's static shape, never a
   * particular run's: a feed or a loop variable whose shape invariant is looser than its
   * shape on entry may bring other shapes at run time, so compute still checks what it
   * needs (a decline by shape saves a run-time failure where the shape is known; it is
   * never the only check). */
  int (*construction_input_shape)(const TG_KernelConstruction* ctx, int i, int64_t* dims,
                                  int max_dims);
  int (*construction_output_shape)(const TG_KernelConstruction* ctx, int i, int64_t* dims,
                                   int max_dims);

  /* ---- variables adopting a buffer (ABI 8) ----
   * Makes input `input_index`'s buffer the variable's behind ref input `ref_index` (the
   * variable takes the input's shape; its previous buffer is let go of), when nobody else
   * holds that buffer: no other consumer reads it later, it is not fetched, fed by the
   * caller or a constant's, nor another variable's. Returns non-zero when it did (nothing
   * to copy: TensorFlow's Assign forwards its value so), 0 when it did not (the kernel then
   * writes the variable as before: mutable_ref_input or reallocate_ref_input, and copies).
   * It also needs the input's dtype to be the variable's (a plain dtype, not DT_STRING),
   * and, in a device's memory, the input not to be a host-memory arg. The caller checks
   * any shape rule first (Assign's validate_shape); the variable is initialized after a
   * non-zero return. Takes the variable's lock unless the caller holds it (lock_ref_input);
   * the variable's input_version is renumbered as by reallocate_ref_input. */
  int (*forward_input_to_ref_input)(TG_KernelContext* ctx, int input_index, int ref_index);
} TG_CoreApi;

/* What the plugin tells the core about itself (filled inside TG_PluginInit). The strings
 * must have static storage (string literals). */
typedef struct TG_PluginInfo {
  size_t struct_size;
  const char* name;     /* e.g. "cpu" */
  const char* version;  /* e.g. "0.1.0" */
  uint32_t abi_version; /* TG_PLUGIN_ABI_VERSION as the plugin was compiled */
} TG_PluginInfo;

typedef struct TG_PluginInitArgs {
  size_t struct_size;         /* sizeof as the core was built */
  uint32_t core_abi_version;  /* what the core offers */
  const TG_CoreApi* api;      /* valid for the life of the process */
  TG_PluginInfo* info;        /* for the plugin to fill; its struct_size is preset by the core */
  const char* plugin_path;    /* the file being loaded */
} TG_PluginInitArgs;

/* The one symbol a plugin exports. Report failure through `status` (api->set_status);
 * the core then unloads the library and reports the status with the file's name. */
typedef void (*TG_PluginInitFn)(const TG_PluginInitArgs* args, TG_Status* status);
TG_PLUGIN_EXPORT void TG_PluginInit(const TG_PluginInitArgs* args, TG_Status* status);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TGRAPH_PLUGIN_H_ */
