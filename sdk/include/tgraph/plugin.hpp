// tgraph/plugin.hpp -- a header-only C++ layer over tgraph/plugin.h for plugin authors.
//
// Everything here compiles down to calls through the C table the core hands to
// TG_PluginInit; nothing C++ crosses the boundary. Exceptions thrown by kernel code are
// caught in the thunks below and turned into statuses, so they never reach the core.
//
//   struct ReluKernel {
//     explicit ReluKernel(tgraph::plugin::Construction&) {}
//     void Compute(tgraph::plugin::Context& ctx) { ... }
//   };
//   TG_PLUGIN_EXPORT void TG_PluginInit(const TG_PluginInitArgs* args, TG_Status* status) {
//     tgraph::plugin::Init init(args, status, "my_plugin", "1.0");
//     init.Kernel<ReluKernel>(tgraph::plugin::KernelBuilder("Relu", "CPU")
//                                 .TypeConstraint("T", {TG_FLOAT, TG_DOUBLE}));
//   }
#ifndef TGRAPH_PLUGIN_HPP_
#define TGRAPH_PLUGIN_HPP_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "tgraph/plugin.h"

namespace tgraph::plugin {

// The core's table, set once by Init. One per plugin library (hidden symbols keep plugins
// apart).
inline const TG_CoreApi*& Api() {
  static const TG_CoreApi* api = nullptr;
  return api;
}

// True if the core's table is large enough to hold `member` (for members appended later).
#define TG_PLUGIN_API_HAS(member)                                                       \
  (::tgraph::plugin::Api()->struct_size >= offsetof(TG_CoreApi, member) + sizeof(void*) && \
   ::tgraph::plugin::Api()->member != nullptr)

inline void SetStatus(TG_Status* status, TG_Code code, const std::string& message) {
  Api()->set_status(status, code, message.c_str());
}
inline bool IsOk(const TG_Status* status) { return Api()->status_code(status) == TG_OK; }

// The device type a backend registers its devices and kernels under: the environment
// variable `env_var` when set (the user's explicit choice), else `preferred` (e.g. "GPU")
// unless a backend loaded earlier has taken it, else `fallback` (e.g. "CUDA_GPU"). Two GPU
// backends in one process thus both load: the first is /device:GPU:N, the second is named
// after itself. A core older than ABI 3 cannot be asked; `preferred` is used then.
inline std::string ChooseDeviceType(const char* env_var, const char* preferred,
                                    const char* fallback) {
  const char* forced = env_var != nullptr ? std::getenv(env_var) : nullptr;
  if (forced != nullptr && forced[0] != '\0') return forced;
  if (TG_PLUGIN_API_HAS(device_type_registered) && Api()->device_type_registered(preferred)) {
    return fallback;
  }
  return preferred;
}

// A read-only view of a tensor owned by the core.
class TensorView {
 public:
  TensorView() = default;
  explicit TensorView(const TG_Tensor* t) : t_(t) {}
  const TG_Tensor* raw() const { return t_; }
  bool valid() const { return t_ != nullptr; }
  TG_DataType dtype() const { return Api()->tensor_dtype(t_); }
  int rank() const { return Api()->tensor_num_dims(t_); }
  int64_t dim(int i) const { return Api()->tensor_dim(t_, i); }
  std::vector<int64_t> dims() const {
    const int r = rank();  // one call through the table, not one per dim
    std::vector<int64_t> d(static_cast<size_t>(r < 0 ? 0 : r));
    for (int i = 0; i < r; ++i) d[static_cast<size_t>(i)] = dim(i);
    return d;
  }
  int64_t num_elements() const { return Api()->tensor_num_elements(t_); }
  size_t byte_size() const { return Api()->tensor_byte_size(t_); }
  template <typename T>
  const T* data() const { return static_cast<const T*>(Api()->tensor_data(t_)); }
  std::string_view string_at(int64_t i) const {
    const char* p = nullptr;
    size_t n = 0;
    Api()->tensor_get_string(t_, i, &p, &n);
    return std::string_view(p, n);
  }

 private:
  const TG_Tensor* t_ = nullptr;
};

// What a kernel reads of a tensor, taken in one call through the table (dtype, shape,
// element count, data) instead of one call each: for kernels whose work is small next to a
// call, such as element-wise ops on scalars. A snapshot, valid while compute runs.
struct TensorInfo {
  TensorInfo() = default;
  explicit TensorInfo(const TG_Tensor* t) : tensor_(t) {
    if (t != nullptr) Api()->tensor_info(t, &info_);
  }
  TensorInfo(const TG_Tensor* t, const TG_TensorInfo& info) : tensor_(t), info_(info) {}

  TensorView view() const { return TensorView(tensor_); }
  bool valid() const { return tensor_ != nullptr; }
  TG_DataType dtype() const { return info_.dtype; }
  int rank() const { return info_.num_dims; }
  // rank() entries (NULL for a scalar); pass both on, e.g. to AllocateOutput.
  const int64_t* dims() const { return info_.dims; }
  std::vector<int64_t> dims_vector() const {
    return info_.num_dims > 0 ? std::vector<int64_t>(info_.dims, info_.dims + info_.num_dims)
                              : std::vector<int64_t>();
  }
  bool SameShape(const TensorInfo& other) const {
    return rank() == other.rank() &&
           (rank() <= 0 || std::equal(dims(), dims() + rank(), other.dims()));
  }
  int64_t num_elements() const { return info_.num_elements; }
  template <typename T>
  const T* data() const { return static_cast<const T*>(info_.data); }

 private:
  const TG_Tensor* tensor_ = nullptr;
  TG_TensorInfo info_{sizeof(TG_TensorInfo), TG_INVALID_DTYPE, -1, nullptr, 0, nullptr};
};

// A writable tensor owned by the core (an output, a temporary, a variable's buffer).
class TensorMut : public TensorView {
 public:
  TensorMut() = default;
  explicit TensorMut(TG_Tensor* t) : TensorView(t), m_(t) {}
  TG_Tensor* raw_mut() const { return m_; }
  template <typename T>
  T* mutable_data() const { return static_cast<T*>(Api()->tensor_data(m_)); }
  void set_string(int64_t i, std::string_view s) const {
    Api()->tensor_set_string(m_, i, s.data(), s.size());
  }

 private:
  TG_Tensor* m_ = nullptr;
};

// A shape as shape functions see it: rank and dims may be unknown (-1).
struct PartialShape {
  bool known_rank = false;
  std::vector<int64_t> dims;  // -1 for an unknown size; empty when the rank is unknown

  PartialShape() = default;  // unknown rank
  explicit PartialShape(std::vector<int64_t> d) : known_rank(true), dims(std::move(d)) {}
  static PartialShape Unknown() { return PartialShape(); }
  int rank() const { return known_rank ? static_cast<int>(dims.size()) : -1; }
  bool fully_defined() const {
    return known_rank && std::all_of(dims.begin(), dims.end(), [](int64_t d) { return d >= 0; });
  }
};

// What a kernel's constructor sees: the node's attrs and signature. Getters record the
// first failure in the construction status and return false.
class Construction {
 public:
  Construction(TG_KernelConstruction* ctx, TG_Status* status) : ctx_(ctx), status_(status) {}
  TG_KernelConstruction* raw() const { return ctx_; }
  bool ok() const { return IsOk(status_); }
  void Fail(TG_Code code, const std::string& message) {
    if (ok()) SetStatus(status_, code, node_name() + ": " + message);
  }
  std::string node_name() const { return Api()->construction_node_name(ctx_); }
  std::string op_type() const { return Api()->construction_op_type(ctx_); }
  int num_inputs() const { return Api()->construction_num_inputs(ctx_); }
  int num_outputs() const { return Api()->construction_num_outputs(ctx_); }
  TG_DataType input_type(int i) const { return Api()->construction_input_type(ctx_, i); }
  TG_DataType output_type(int i) const { return Api()->construction_output_type(ctx_, i); }
  bool HasAttr(const char* name) const { return Api()->has_attr(ctx_, name) != 0; }

  bool GetAttr(const char* name, int64_t* v) { return Run([&] { Api()->attr_int(ctx_, name, v, status_); }); }
  bool GetAttr(const char* name, int* v) {
    int64_t wide = 0;
    if (!GetAttr(name, &wide)) return false;
    *v = static_cast<int>(wide);
    return true;
  }
  bool GetAttr(const char* name, float* v) { return Run([&] { Api()->attr_float(ctx_, name, v, status_); }); }
  bool GetAttr(const char* name, bool* v) {
    int b = 0;
    if (!Run([&] { Api()->attr_bool(ctx_, name, &b, status_); })) return false;
    *v = b != 0;
    return true;
  }
  bool GetAttr(const char* name, TG_DataType* v) { return Run([&] { Api()->attr_type(ctx_, name, v, status_); }); }
  bool GetAttr(const char* name, std::string* v) {
    const char* p = nullptr;
    size_t n = 0;
    if (!Run([&] { Api()->attr_string(ctx_, name, &p, &n, status_); })) return false;
    v->assign(p, n);
    return true;
  }
  bool GetAttr(const char* name, std::vector<int64_t>* v) {
    size_t n = 0;
    if (!Run([&] { Api()->attr_int_list(ctx_, name, nullptr, 0, &n, status_); })) return false;
    v->resize(n);
    return Run([&] { Api()->attr_int_list(ctx_, name, v->data(), n, &n, status_); });
  }
  bool GetAttr(const char* name, std::vector<float>* v) {
    size_t n = 0;
    if (!Run([&] { Api()->attr_float_list(ctx_, name, nullptr, 0, &n, status_); })) return false;
    v->resize(n);
    return Run([&] { Api()->attr_float_list(ctx_, name, v->data(), n, &n, status_); });
  }
  bool GetAttr(const char* name, std::vector<TG_DataType>* v) {
    size_t n = 0;
    if (!Run([&] { Api()->attr_type_list(ctx_, name, nullptr, 0, &n, status_); })) return false;
    v->resize(n);
    return Run([&] { Api()->attr_type_list(ctx_, name, v->data(), n, &n, status_); });
  }
  // Shape attr; *known_rank false for an unknown-rank shape.
  bool GetShapeAttr(const char* name, std::vector<int64_t>* dims, bool* known_rank) {
    int n = 0;
    if (!Run([&] { Api()->attr_shape(ctx_, name, nullptr, 0, &n, status_); })) return false;
    *known_rank = n >= 0;
    dims->assign(static_cast<size_t>(n < 0 ? 0 : n), 0);
    if (n <= 0) return true;
    return Run([&] { Api()->attr_shape(ctx_, name, dims->data(), n, &n, status_); });
  }
  // Tensor attr, valid during construction only: copy what you keep.
  TensorView GetTensorAttr(const char* name) {
    const TG_Tensor* t = nullptr;
    Run([&] { t = Api()->attr_tensor(ctx_, name, status_); });
    return TensorView(t);
  }

  // Declines the node: this kernel cannot run it (an attr value it does not support), so
  // placement picks the next kernel or device (see TG_CoreApi.construction_decline). The
  // constructor returns normally after calling it; the kernel object is then discarded.
  // A core older than ABI 6 cannot be told: the creation fails with UNIMPLEMENTED instead.
  void Decline(const std::string& reason) {
    if (!ok() || declined_) return;
    if (TG_PLUGIN_API_HAS(construction_decline)) {
      Api()->construction_decline(ctx_, reason.c_str());
      declined_ = true;
    } else {
      Fail(TG_UNIMPLEMENTED, "declined: " + reason);
    }
  }
  bool declined() const { return declined_; }

  // Input i's (output i's) static shape, as the graph's shape inference knows it (plugin.h,
  // construction_input_shape): for declining a node by shape. Unknown rank with a core
  // older than ABI 8, or i out of range.
  PartialShape input_shape(int i) const {
    return TG_PLUGIN_API_HAS(construction_input_shape)
               ? StaticShape(Api()->construction_input_shape, i)
               : PartialShape();
  }
  PartialShape output_shape(int i) const {
    return TG_PLUGIN_API_HAS(construction_output_shape)
               ? StaticShape(Api()->construction_output_shape, i)
               : PartialShape();
  }

 private:
  template <typename Getter>
  PartialShape StaticShape(Getter get, int i) const {
    PartialShape s;
    int64_t small[8];
    const int rank = get(ctx_, i, small, 8);
    if (rank < 0) return s;
    s.known_rank = true;
    if (rank <= 8) {
      s.dims.assign(small, small + rank);
    } else {
      s.dims.resize(static_cast<size_t>(rank));
      get(ctx_, i, s.dims.data(), rank);
    }
    return s;
  }
  template <typename F>
  bool Run(F&& f) {
    if (!ok()) return false;
    f();
    return ok();
  }
  TG_KernelConstruction* ctx_;
  TG_Status* status_;
  bool declined_ = false;
};

// What a kernel's Compute sees.
class Context {
 public:
  explicit Context(TG_KernelContext* ctx) : ctx_(ctx) {}
  TG_KernelContext* raw() const { return ctx_; }
  bool ok() const { return IsOk(status()); }
  // Fails the node; the message gets the node's name in front.
  void Fail(TG_Code code, const std::string& message) {
    if (ok()) SetStatus(status(), code, std::string(node_name()) + ": " + message);
  }
  const char* node_name() const { return Api()->context_node_name(ctx_); }
  int num_inputs() const { return Api()->num_inputs(ctx_); }
  int num_outputs() const { return Api()->num_outputs(ctx_); }
  TensorView input(int i) const { return TensorView(Api()->input(ctx_, i)); }
  // Input i and what a kernel reads of it, in one call (invalid when i is out of range).
  TensorInfo input_info(int i) const {
    TG_TensorInfo info{sizeof(TG_TensorInfo), TG_INVALID_DTYPE, -1, nullptr, 0, nullptr};
    const TG_Tensor* t = Api()->input_info(ctx_, i, &info);
    return t != nullptr ? TensorInfo(t, info) : TensorInfo();
  }
  TG_DataType output_type(int i) const { return Api()->expected_output_type(ctx_, i); }
  // Input i's version (plugin.h, input_version): 0 = unknown, also with a core older than
  // ABI 7. Equal non-zero numbers mean the bytes were not written in between.
  uint64_t input_version(int i) const {
    return TG_PLUGIN_API_HAS(input_version) ? Api()->input_version(ctx_, i) : 0;
  }

  // Output i with `dims`; an invalid TensorMut (and a failed status) when out of memory.
  TensorMut AllocateOutput(int i, const std::vector<int64_t>& dims) {
    return AllocateOutput(i, dims.data(), static_cast<int>(dims.size()));
  }
  TensorMut AllocateOutput(int i, const int64_t* dims, int num_dims) {
    return TensorMut(Api()->allocate_output(ctx_, i, dims, num_dims, status()));
  }
  // Reuses input `in`'s buffer for output `out` when possible, else allocates.
  TensorMut ForwardOrAllocateOutput(int in, int out, const std::vector<int64_t>& dims) {
    return ForwardOrAllocateOutput(in, out, dims.data(), static_cast<int>(dims.size()));
  }
  TensorMut ForwardOrAllocateOutput(int in, int out, const int64_t* dims, int num_dims) {
    TG_Tensor* t = Api()->forward_input_to_output(ctx_, in, out, dims, num_dims);
    return t ? TensorMut(t) : AllocateOutput(out, dims, num_dims);
  }
  // Output i shares `t`'s buffer, viewed with `dims` (same element count).
  void SetOutputAlias(int i, const TensorView& t, const std::vector<int64_t>& dims) {
    Api()->set_output_alias(ctx_, i, t.raw(), dims.data(), static_cast<int>(dims.size()),
                            status());
  }
  TensorMut AllocateTemp(TG_DataType dtype, const std::vector<int64_t>& dims) {
    return TensorMut(
        Api()->allocate_temp(ctx_, dtype, dims.data(), static_cast<int>(dims.size()), status()));
  }
  void* device_stream() const { return Api()->device_stream(ctx_); }
  void* device_state() const { return Api()->device_state(ctx_); }
  TG_ThreadPool* pool() const { return Api()->intra_op_pool(ctx_); }
  int num_threads() const { return Api()->pool_num_threads(pool()); }

  // Runs fn(begin, end) over [0, total) on the intra-op pool; cost per unit in ns decides
  // how finely to split. Exceptions inside fn fail the node.
  template <typename F>
  void ParallelFor(int64_t total, double cost_per_unit_ns, F&& fn) {
    (void)status();  // looked up here, so workers that fail the node only read it
    struct Closure {
      F* fn;
      Context* self;
      std::mutex failure_mutex;
    } closure{&fn, this, {}};
    Api()->parallel_for(
        pool(), total, cost_per_unit_ns,
        [](void* arg, int64_t begin, int64_t end) {
          auto* c = static_cast<Closure*>(arg);
          try {
            (*c->fn)(begin, end);
          } catch (const std::exception& e) {
            // Workers may fail at once: only the first message is kept.
            std::lock_guard<std::mutex> lock(c->failure_mutex);
            c->self->Fail(TG_INTERNAL, e.what());
          }
        },
        &closure);
  }

  // Variables behind ref inputs.
  TensorMut MutableRefInput(int i) {
    return TensorMut(Api()->mutable_ref_input(ctx_, i, status()));
  }
  TensorMut ReallocateRefInput(int i, const std::vector<int64_t>& dims) {
    return TensorMut(Api()->reallocate_ref_input(ctx_, i, dims.data(),
                                                  static_cast<int>(dims.size()), status()));
  }
  bool IsRefInitialized(int i) { return Api()->is_ref_initialized(ctx_, i) != 0; }
  void ForwardRefInputToRefOutput(int in, int out) { Api()->forward_ref_input_to_ref_output(ctx_, in, out); }
  // The variable behind ref input `ref` takes input `in`'s buffer when nobody else holds it
  // (plugin.h, forward_input_to_ref_input): true when it did, false when the kernel must
  // write the variable itself (also with a core older than ABI 8).
  bool ForwardInputToRefInput(int in, int ref) {
    return TG_PLUGIN_API_HAS(forward_input_to_ref_input) &&
           Api()->forward_input_to_ref_input(ctx_, in, ref) != 0;
  }
  // Holds the variable's lock for the guard's lifetime when `lock` (use_locking).
  class RefLock {
   public:
    RefLock(Context& ctx, int i, bool lock) : ctx_(lock ? &ctx : nullptr), i_(i) {
      if (ctx_) Api()->lock_ref_input(ctx_->raw(), i_);
    }
    ~RefLock() {
      if (ctx_) Api()->unlock_ref_input(ctx_->raw(), i_);
    }
    RefLock(const RefLock&) = delete;
    RefLock& operator=(const RefLock&) = delete;

   private:
    Context* ctx_;
    int i_;
  };

 private:
  TG_KernelContext* ctx_;
  // The node's status, asked for on first use: a kernel that neither fails nor allocates
  // (one that forwards its input) never needs it.
  TG_Status* status() const {
    if (status_ == nullptr) status_ = Api()->context_status(ctx_);
    return status_;
  }

  mutable TG_Status* status_ = nullptr;
};

// Describes a kernel registration; the strings and arrays are kept alive by the builder
// until the core has copied them (during the register call).
class KernelBuilder {
 public:
  KernelBuilder(std::string op_type, std::string device_type)
      : op_type_(std::move(op_type)), device_type_(std::move(device_type)) {}
  KernelBuilder& TypeConstraint(std::string attr, std::initializer_list<TG_DataType> allowed) {
    constraints_.push_back({std::move(attr), std::vector<TG_DataType>(allowed)});
    return *this;
  }
  KernelBuilder& TypeConstraint(std::string attr, TG_DataType allowed) {
    return TypeConstraint(std::move(attr), {allowed});
  }
  KernelBuilder& HostMemory(std::string arg) {
    host_memory_.push_back(std::move(arg));
    return *this;
  }
  KernelBuilder& Priority(int32_t p) {
    priority_ = p;
    return *this;
  }
  KernelBuilder& CostPerElementNs(double ns) {
    cost_ = ns;
    return *this;
  }

  // Fills `def` with pointers into this builder (valid while it lives).
  void Fill(TG_KernelDefinition* def, std::vector<TG_TypeConstraint>* constraints,
            std::vector<const char*>* host_memory) const {
    constraints->clear();
    for (const auto& c : constraints_) {
      TG_TypeConstraint tc;
      std::memset(&tc, 0, sizeof(tc));
      tc.struct_size = sizeof(TG_TypeConstraint);
      tc.attr_name = c.attr.c_str();
      tc.allowed = c.allowed.data();
      tc.num_allowed = c.allowed.size();
      constraints->push_back(tc);
    }
    host_memory->clear();
    for (const auto& h : host_memory_) host_memory->push_back(h.c_str());
    std::memset(def, 0, sizeof(*def));
    def->struct_size = sizeof(TG_KernelDefinition);
    def->op_type = op_type_.c_str();
    def->device_type = device_type_.c_str();
    def->type_constraints = constraints->data();
    def->num_type_constraints = constraints->size();
    def->host_memory_args = host_memory->data();
    def->num_host_memory_args = host_memory->size();
    def->priority = priority_;
    def->cost_ns_per_element = cost_;
  }

 private:
  struct Constraint {
    std::string attr;
    std::vector<TG_DataType> allowed;
  };
  std::string op_type_, device_type_;
  std::vector<Constraint> constraints_;
  std::vector<std::string> host_memory_;
  int32_t priority_ = 0;
  double cost_ = 0;
};

// What a shape function sees. Getters record a failure in the shape function's status and
// return false; those added in ABI 6 fail with UNIMPLEMENTED on an older core.
class ShapeContext {
 public:
  ShapeContext(TG_ShapeContext* ctx, TG_Status* status) : ctx_(ctx), status_(status) {}
  TG_ShapeContext* raw() const { return ctx_; }
  bool ok() const { return IsOk(status_); }
  int num_inputs() const { return Api()->shape_num_inputs(ctx_); }
  int input_rank(int i) const { return Api()->shape_input_rank(ctx_, i); }
  int64_t input_dim(int i, int d) const { return Api()->shape_input_dim(ctx_, i, d); }
  // Known-rank dims of input i (-1 for unknown sizes); empty for an unknown rank.
  std::vector<int64_t> input_dims(int i) const { return input_shape(i).dims; }
  // Input i's partial shape (one call through the table on an ABI 6 core).
  PartialShape input_shape(int i) const {
    PartialShape s;
    if (TG_PLUGIN_API_HAS(shape_input_shape)) {
      int64_t small[8];
      const int rank = Api()->shape_input_shape(ctx_, i, small, 8);
      if (rank < 0) return s;
      s.known_rank = true;
      if (rank <= 8) {
        s.dims.assign(small, small + rank);
      } else {
        s.dims.resize(static_cast<size_t>(rank));
        Api()->shape_input_shape(ctx_, i, s.dims.data(), rank);
      }
      return s;
    }
    const int rank = input_rank(i);
    if (rank < 0) return s;
    s.known_rank = true;
    for (int k = 0; k < rank; ++k) s.dims.push_back(input_dim(i, k));
    return s;
  }
  // Input i's dtype (TG_INVALID_DTYPE on a core older than ABI 6).
  TG_DataType input_type(int i) const {
    return TG_PLUGIN_API_HAS(shape_input_type) ? Api()->shape_input_type(ctx_, i)
                                               : TG_INVALID_DTYPE;
  }
  // Input i's value when it is known while building (a Const), else an invalid view.
  TensorView input_value(int i) const { return TensorView(Api()->shape_input_value(ctx_, i)); }

  // Output shapes: dims may be -1 (unknown size); SetOutputUnknownRank for unknown rank.
  void SetOutput(int i, const std::vector<int64_t>& dims) {
    Api()->shape_set_output(ctx_, i, dims.data(), static_cast<int>(dims.size()));
  }
  void SetOutputShape(int i, const PartialShape& shape) {
    if (!shape.known_rank) {
      SetOutputUnknownRank(i);
    } else {
      SetOutput(i, shape.dims);
    }
  }
  void SetOutputUnknownRank(int i) { Api()->shape_set_output(ctx_, i, nullptr, -1); }
  // Output `output` has input `input`'s shape.
  void SetOutputSameAsInput(int output, int input) {
    if (TG_PLUGIN_API_HAS(shape_set_output_from_input)) {
      Api()->shape_set_output_from_input(ctx_, output, input);
    } else {
      SetOutputShape(output, input_shape(input));
    }
  }

  bool HasAttr(const char* name) const {
    return TG_PLUGIN_API_HAS(shape_has_attr) && Api()->shape_has_attr(ctx_, name) != 0;
  }
  bool GetAttr(const char* name, int64_t* v) {
    Api()->shape_attr_int(ctx_, name, v, status_);
    return ok();
  }
  bool GetAttr(const char* name, int* v) {
    int64_t wide = 0;
    if (!GetAttr(name, &wide)) return false;
    *v = static_cast<int>(wide);
    return true;
  }
  bool GetAttr(const char* name, bool* v) {
    int b = 0;
    Api()->shape_attr_bool(ctx_, name, &b, status_);
    *v = b != 0;
    return ok();
  }
  bool GetAttr(const char* name, float* v) {
    return Has(TG_PLUGIN_API_HAS(shape_attr_float)) &&
           Done([&] { Api()->shape_attr_float(ctx_, name, v, status_); });
  }
  bool GetAttr(const char* name, TG_DataType* v) {
    return Has(TG_PLUGIN_API_HAS(shape_attr_type)) &&
           Done([&] { Api()->shape_attr_type(ctx_, name, v, status_); });
  }
  bool GetAttr(const char* name, std::string* v) {
    const char* p = nullptr;
    size_t n = 0;
    if (!Has(TG_PLUGIN_API_HAS(shape_attr_string)) ||
        !Done([&] { Api()->shape_attr_string(ctx_, name, &p, &n, status_); })) {
      return false;
    }
    v->assign(p == nullptr ? "" : p, n);
    return true;
  }
  bool GetAttr(const char* name, PartialShape* v) {
    if (!Has(TG_PLUGIN_API_HAS(shape_attr_shape))) return false;
    int n = 0;
    if (!Done([&] { Api()->shape_attr_shape(ctx_, name, nullptr, 0, &n, status_); })) return false;
    *v = PartialShape();
    if (n < 0) return true;
    v->known_rank = true;
    v->dims.assign(static_cast<size_t>(n), 0);
    return n == 0 || Done([&] { Api()->shape_attr_shape(ctx_, name, v->dims.data(), n, &n, status_); });
  }
  bool GetAttr(const char* name, std::vector<int64_t>* v) {
    return Has(TG_PLUGIN_API_HAS(shape_attr_int_list)) && List(v, [&](int64_t* d, size_t m, size_t* n) {
             Api()->shape_attr_int_list(ctx_, name, d, m, n, status_);
           });
  }
  bool GetAttr(const char* name, std::vector<float>* v) {
    return Has(TG_PLUGIN_API_HAS(shape_attr_float_list)) && List(v, [&](float* d, size_t m, size_t* n) {
             Api()->shape_attr_float_list(ctx_, name, d, m, n, status_);
           });
  }
  bool GetAttr(const char* name, std::vector<TG_DataType>* v) {
    return Has(TG_PLUGIN_API_HAS(shape_attr_type_list)) &&
           List(v, [&](TG_DataType* d, size_t m, size_t* n) {
             Api()->shape_attr_type_list(ctx_, name, d, m, n, status_);
           });
  }
  bool GetAttr(const char* name, std::vector<std::string>* v) {
    if (!Has(TG_PLUGIN_API_HAS(shape_attr_string_list))) return false;
    size_t n = 0;
    if (!Done([&] { Api()->shape_attr_string_list(ctx_, name, nullptr, nullptr, 0, &n, status_); })) {
      return false;
    }
    std::vector<const char*> p(n);
    std::vector<size_t> lens(n);
    if (!Done([&] { Api()->shape_attr_string_list(ctx_, name, p.data(), lens.data(), n, &n, status_); })) {
      return false;
    }
    v->clear();
    for (size_t k = 0; k < p.size(); ++k) v->emplace_back(p[k] == nullptr ? "" : p[k], lens[k]);
    return true;
  }
  bool GetAttr(const char* name, std::vector<PartialShape>* v) {
    if (!Has(TG_PLUGIN_API_HAS(shape_attr_shape_list))) return false;
    size_t n = 0;
    int rank = 0;
    if (!Done([&] {
          Api()->shape_attr_shape_list(ctx_, name, 0, nullptr, 0, &rank, &n, status_);
        })) {
      return false;
    }
    v->assign(n, PartialShape());
    for (size_t k = 0; k < n; ++k) {
      size_t len = 0;
      if (!Done([&] { Api()->shape_attr_shape_list(ctx_, name, k, nullptr, 0, &rank, &len, status_); })) {
        return false;
      }
      if (rank < 0) continue;
      PartialShape& s = (*v)[k];
      s.known_rank = true;
      s.dims.assign(static_cast<size_t>(rank), 0);
      if (rank > 0 && !Done([&] {
            Api()->shape_attr_shape_list(ctx_, name, k, s.dims.data(), rank, &rank, &len, status_);
          })) {
        return false;
      }
    }
    return true;
  }
  std::string node_name() const { return Api()->shape_node_name(ctx_); }
  void Fail(const std::string& message) {
    SetStatus(status_, TG_INVALID_ARGUMENT, node_name() + ": " + message);
  }

 private:
  // False, with an UNIMPLEMENTED status, when the core lacks an ABI 6 getter.
  bool Has(bool present) {
    if (!present && ok()) {
      SetStatus(status_, TG_UNIMPLEMENTED,
                node_name() + ": this shape-function getter needs a core with plugin ABI 6");
    }
    return present && ok();
  }
  template <typename F>
  bool Done(F&& f) {
    f();
    return ok();
  }
  template <typename T, typename F>
  bool List(std::vector<T>* v, F&& get) {
    size_t n = 0;
    if (!Done([&] { get(nullptr, 0, &n); })) return false;
    v->resize(n);
    return n == 0 || Done([&] { get(v->data(), n, &n); });
  }

  TG_ShapeContext* ctx_;
  TG_Status* status_;
};

// Describes an op definition in spec strings (see TG_OpDefinition).
class OpBuilder {
 public:
  using ShapeFn = void (*)(ShapeContext& ctx);
  explicit OpBuilder(std::string name) : name_(std::move(name)) {}
  OpBuilder& Input(std::string spec) { return Add(inputs_, std::move(spec)); }
  OpBuilder& Output(std::string spec) { return Add(outputs_, std::move(spec)); }
  OpBuilder& Attr(std::string spec) { return Add(attrs_, std::move(spec)); }
  OpBuilder& Stateful() {
    stateful_ = true;
    return *this;
  }
  OpBuilder& Summary(std::string s) {
    summary_ = std::move(s);
    return *this;
  }
  OpBuilder& SetShapeFn(ShapeFn fn) {
    shape_fn_ = fn;
    return *this;
  }
  // Ref inputs may be uninitialized variables when the kernel runs (IsVariableInitialized,
  // Assign); see TG_OpDefinition.allows_uninitialized_input.
  OpBuilder& AllowsUninitializedInput() {
    allows_uninitialized_input_ = true;
    return *this;
  }

  void Register(TG_Status* status) const {
    auto ptrs = [](const std::vector<std::string>& v) {
      std::vector<const char*> p;
      for (const auto& s : v) p.push_back(s.c_str());
      return p;
    };
    std::vector<const char*> in = ptrs(inputs_), out = ptrs(outputs_), at = ptrs(attrs_);
    TG_OpDefinition def;
    std::memset(&def, 0, sizeof(def));
    def.struct_size = sizeof(def);
    def.name = name_.c_str();
    def.inputs = in.data();
    def.num_inputs = in.size();
    def.outputs = out.data();
    def.num_outputs = out.size();
    def.attrs = at.data();
    def.num_attrs = at.size();
    def.is_stateful = stateful_ ? 1 : 0;
    def.summary = summary_.empty() ? nullptr : summary_.c_str();
    def.allows_uninitialized_input = allows_uninitialized_input_ ? 1 : 0;
    if (shape_fn_ != nullptr) {
      def.shape_fn = [](TG_ShapeContext* ctx, void* user_data, TG_Status* st) {
        ShapeContext c(ctx, st);
        try {
          reinterpret_cast<ShapeFn>(user_data)(c);
        } catch (const std::exception& e) {
          SetStatus(st, TG_INTERNAL, c.node_name() + ": " + e.what());
        }
      };
      def.shape_fn_user_data = reinterpret_cast<void*>(shape_fn_);
    }
    Api()->register_op(&def, status);
  }

 private:
  OpBuilder& Add(std::vector<std::string>& v, std::string s) {
    v.push_back(std::move(s));
    return *this;
  }
  std::string name_;
  std::vector<std::string> inputs_, outputs_, attrs_;
  bool stateful_ = false;
  bool allows_uninitialized_input_ = false;
  std::string summary_;
  ShapeFn shape_fn_ = nullptr;
};

// Thunks from the C callbacks to a kernel class K with K(Construction&) and
// void Compute(Context&).
template <typename K>
struct KernelThunks {
  static void* Create(TG_KernelConstruction* raw, void*, TG_Status* status) {
    Construction c(raw, status);
    try {
      auto k = std::make_unique<K>(c);
      if (!c.ok() || c.declined()) return nullptr;  // a decline is not a failure
      return k.release();
    } catch (const std::bad_alloc&) {
      SetStatus(status, TG_RESOURCE_EXHAUSTED, c.node_name() + ": out of memory creating kernel");
    } catch (const std::exception& e) {
      SetStatus(status, TG_INTERNAL, c.node_name() + ": " + e.what());
    }
    return nullptr;
  }
  static void Compute(void* kernel, TG_KernelContext* raw) {
    Context ctx(raw);
    try {
      static_cast<K*>(kernel)->Compute(ctx);
    } catch (const std::bad_alloc&) {
      ctx.Fail(TG_RESOURCE_EXHAUSTED, "out of memory");
    } catch (const std::exception& e) {
      ctx.Fail(TG_INTERNAL, e.what());
    }
  }
  static void Destroy(void* kernel) { delete static_cast<K*>(kernel); }
};

// Wraps TG_PluginInit's arguments: fills in the plugin info, keeps the first failure, and
// registers ops and kernels.
class Init {
 public:
  Init(const TG_PluginInitArgs* args, TG_Status* status, const char* name, const char* version)
      : args_(args), status_(status) {
    Api() = args->api;
    // The fields below are v1's; a core whose TG_PluginInfo grew still has them.
    if (args->info != nullptr &&
        args->info->struct_size >= offsetof(TG_PluginInfo, abi_version) + sizeof(uint32_t)) {
      args->info->name = name;
      args->info->version = version;
      args->info->abi_version = TG_PLUGIN_ABI_VERSION;
    }
  }
  bool ok() const { return IsOk(status_); }
  const TG_PluginInitArgs* args() const { return args_; }
  TG_Status* status() const { return status_; }

  void Op(const OpBuilder& op) {
    if (ok()) op.Register(status_);
  }

  template <typename K>
  void Kernel(const KernelBuilder& builder) {
    if (!ok()) return;
    TG_KernelDefinition def;
    std::vector<TG_TypeConstraint> constraints;
    std::vector<const char*> host_memory;
    builder.Fill(&def, &constraints, &host_memory);
    def.create = &KernelThunks<K>::Create;
    def.compute = &KernelThunks<K>::Compute;
    def.destroy = &KernelThunks<K>::Destroy;
    Api()->register_kernel(&def, status_);
  }

 private:
  const TG_PluginInitArgs* args_;
  TG_Status* status_;
};

}  // namespace tgraph::plugin

#endif  // TGRAPH_PLUGIN_HPP_
