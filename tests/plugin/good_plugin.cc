// A well-behaved test plugin (C++ through tgraph/plugin.hpp, plus the raw C table for what
// the C++ layer does not wrap). It exercises every service of TG_CoreApi:
//   TestScaleAdd   z = alpha * x + y (float, double) with a shape function, a CPU kernel
//                  (forwarding, parallel_for) and a higher-priority float-only variant;
//                  a gradient registration.
//   TestFillShape  int64 output shaped by the value of its int32 `shape` input (shape
//                  function reads the constant input value), filled with attr `value`.
//   TestAttrs      reads every attr kind in create, returns a DT_STRING summary.
//   TestPoolInfo   reports the intra-op pool (threads, parallel_for coverage, schedule).
//   TESTDEV        a device (host memory) with kernels for Identity (alias), Reshape-like
//                  TestView (alias with new dims), AssignAdd and Assign (ref inputs; Assign
//                  adopts a value nobody else holds, ABI 8),
//                  TestScratch (temporaries, device state and stream).
//   TestMisbehave  a kernel that misuses the ABI as a careless plugin may, by attr `how`:
//                  "throw_std" (a std::runtime_error "boom"), "throw_int" (not a
//                  std::exception), "info_size_zero" (input_info with struct_size 0).
//   test_memory    a saver keeping tensors in memory, keyed by prefix.
//   ABI 6:
//   TestRefInitialized  whether its ref input's variable is initialized (the op allows
//                  uninitialized input).
//   TestShapeGetters    outputs shaped by every shape-function getter (no kernel).
//   TestWrongShape  a CPU kernel whose output contradicts its shape function when asked
//                  (attr wrong = "shape"), for the kernel-output validation mode.
//   ABI 7:
//   TestInputVersion  input x's input_version, as an int64 scalar (the tests of which
//                  writes renumber a variable's bytes).
//   TestVersionDuringWrite  adds 1 to its ref input's variable (mutable_ref_input) and
//                  outputs the input_version the variable had while it was written.
//   ABI 8:
//   TestStaticShapes  what its kernel's create read of the static shapes, as int64s: input
//                  0's [rank, dims...], then output 0's, then input 1's (out of range: [-1]);
//                  declines a node whose input 0 is known to have more than attr `limit`
//                  elements (limit >= 0).
//   TestFreshFill  output y, newly allocated with attr `shape` and filled with attr `value`,
//                  and output address, y's data pointer (what a variable adopting y's buffer
//                  then has).
//   TestBufferAddress  its input's data pointer, as an int64 scalar.
#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "tgraph/plugin.hpp"

namespace {

using tgraph::plugin::Api;
using tgraph::plugin::Construction;
using tgraph::plugin::Context;
using tgraph::plugin::KernelBuilder;
using tgraph::plugin::OpBuilder;
using tgraph::plugin::ShapeContext;

// ---- TestScaleAdd ----

void ScaleAddShape(ShapeContext& c) {
  const int rx = c.input_rank(0), ry = c.input_rank(1);
  if (rx < 0 && ry < 0) {
    c.SetOutputUnknownRank(0);
    return;
  }
  if (rx >= 0 && ry >= 0 && rx != ry) {
    c.Fail("x and y must have the same rank, got " + std::to_string(rx) + " and " +
           std::to_string(ry));
    return;
  }
  const int rank = rx >= 0 ? rx : ry;
  std::vector<int64_t> dims(static_cast<size_t>(rank), -1);
  for (int d = 0; d < rank; ++d) {
    const int64_t a = rx >= 0 ? c.input_dim(0, d) : -1;
    const int64_t b = ry >= 0 ? c.input_dim(1, d) : -1;
    if (a >= 0 && b >= 0 && a != b) {
      c.Fail("x and y differ in dimension " + std::to_string(d) + ": " + std::to_string(a) +
             " vs " + std::to_string(b));
      return;
    }
    dims[static_cast<size_t>(d)] = a >= 0 ? a : b;
  }
  c.SetOutput(0, dims);
}

template <int kMarker>
struct ScaleAddKernel {
  explicit ScaleAddKernel(Construction& c) { c.GetAttr("alpha", &alpha); }
  template <typename T>
  void Run(Context& ctx) {
    auto x = ctx.input(0), y = ctx.input(1);
    if (x.dims() != y.dims()) {
      ctx.Fail(TG_INVALID_ARGUMENT, "x and y must have the same shape");
      return;
    }
    auto z = ctx.ForwardOrAllocateOutput(0, 0, x.dims());
    if (!ctx.ok()) return;
    const T* xp = x.data<T>();
    const T* yp = y.data<T>();
    T* zp = z.mutable_data<T>();
    const T a = static_cast<T>(alpha);
    ctx.ParallelFor(x.num_elements(), 2.0, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) zp[i] = a * xp[i] + yp[i];
    });
  }
  void Compute(Context& ctx) {
    if (ctx.input(0).dtype() == TG_FLOAT) {
      Run<float>(ctx);
    } else {
      Run<double>(ctx);
    }
  }
  float alpha = 1.0f;
};

// ---- TestFillShape ----

void FillShapeShape(ShapeContext& c) {
  auto value = c.input_value(0);
  if (value.valid()) {
    std::vector<int64_t> dims;
    for (int64_t i = 0; i < value.num_elements(); ++i) dims.push_back(value.data<int32_t>()[i]);
    c.SetOutput(0, dims);
    return;
  }
  const int64_t n = c.input_rank(0) == 1 ? c.input_dim(0, 0) : -1;
  if (n < 0) {
    c.SetOutputUnknownRank(0);
  } else {
    c.SetOutput(0, std::vector<int64_t>(static_cast<size_t>(n), -1));
  }
}

struct FillShapeKernel {
  explicit FillShapeKernel(Construction& c) { c.GetAttr("value", &value); }
  void Compute(Context& ctx) {
    auto shape = ctx.input(0);
    std::vector<int64_t> dims;
    for (int64_t i = 0; i < shape.num_elements(); ++i) {
      const int32_t d = shape.data<int32_t>()[i];
      if (d < 0) {
        ctx.Fail(TG_INVALID_ARGUMENT, "negative dimension " + std::to_string(d));
        return;
      }
      dims.push_back(d);
    }
    auto out = ctx.AllocateOutput(0, dims);
    if (!ctx.ok()) return;
    for (int64_t i = 0; i < out.num_elements(); ++i) out.mutable_data<int64_t>()[i] = value;
  }
  int64_t value = 0;
};

// ---- TestAttrs ----

struct AttrsKernel {
  explicit AttrsKernel(Construction& c) {
    std::ostringstream os;
    int64_t i = 0;
    float f = 0;
    bool b = false;
    TG_DataType t = TG_INVALID_DTYPE;
    std::string s;
    std::vector<int64_t> il;
    std::vector<float> fl;
    std::vector<TG_DataType> tl;
    std::vector<int64_t> shape;
    bool known_rank = false;
    if (!c.GetAttr("i", &i) || !c.GetAttr("f", &f) || !c.GetAttr("b", &b) || !c.GetAttr("t", &t) ||
        !c.GetAttr("s", &s) || !c.GetAttr("il", &il) || !c.GetAttr("fl", &fl) ||
        !c.GetAttr("tl", &tl) || !c.GetShapeAttr("sh", &shape, &known_rank)) {
      return;
    }
    auto te = c.GetTensorAttr("te");
    if (!c.ok()) return;
    if (s == "ask_missing") {
      int64_t unused = 0;
      c.GetAttr("no_such_attr", &unused);
      return;
    }
    if (s == "ask_wrong_kind") {
      int64_t unused = 0;
      c.GetAttr("f", &unused);
      return;
    }
    os << "i=" << i << " f=" << f << " b=" << b << " t=" << static_cast<int>(t) << " s=" << s
       << " il=";
    for (auto v : il) os << v << ",";
    os << " fl=";
    for (auto v : fl) os << v << ",";
    os << " tl=";
    for (auto v : tl) os << static_cast<int>(v) << ",";
    os << " sh=";
    if (!known_rank) os << "?";
    for (auto v : shape) os << v << ",";
    os << " te=" << static_cast<int>(te.dtype()) << ":" << te.num_elements();
    if (te.dtype() == TG_FLOAT && te.num_elements() > 0) os << ":" << te.data<float>()[0];
    os << " in=" << c.num_inputs() << " out=" << c.num_outputs() << " op=" << c.op_type()
       << " has_i=" << c.HasAttr("i") << " has_zz=" << c.HasAttr("zz");
    summary = os.str();
  }
  void Compute(Context& ctx) {
    auto out = ctx.AllocateOutput(0, {});
    if (ctx.ok()) out.set_string(0, summary);
  }
  std::string summary;
};

// ---- TestPoolInfo ----

struct PoolInfoKernel {
  explicit PoolInfoKernel(Construction&) {}
  static void Scheduled(void* arg) {
    static_cast<std::atomic<int>*>(arg)->fetch_add(1);
  }
  void Compute(Context& ctx) {
    const int64_t n = ctx.input(0).data<int64_t>()[0];
    const double cost = ctx.input(1).data<double>()[0];
    std::vector<std::atomic<int>> hits(static_cast<size_t>(n));
    std::atomic<int64_t> blocks{0};
    std::atomic<int> on_pool{0};
    TG_ThreadPool* pool = ctx.pool();
    ctx.ParallelFor(n, cost, [&](int64_t b, int64_t e) {
      blocks.fetch_add(1);
      if (Api()->pool_current_thread_id(pool) >= 0) on_pool.fetch_add(1);
      for (int64_t i = b; i < e; ++i) hits[static_cast<size_t>(i)].fetch_add(1);
    });
    int64_t covered_once = 0;
    for (auto& h : hits) covered_once += h.load() == 1 ? 1 : 0;
    // pool_schedule: the caller waits for its work.
    std::atomic<int> scheduled{0};
    Api()->pool_schedule(pool, &Scheduled, &scheduled);
    while (scheduled.load() == 0) {
    }
    auto out = ctx.AllocateOutput(0, {5});
    if (!ctx.ok()) return;
    int64_t* o = out.mutable_data<int64_t>();
    o[0] = ctx.num_threads();
    o[1] = covered_once;
    o[2] = blocks.load();
    o[3] = on_pool.load();
    o[4] = Api()->pool_current_thread_id(pool);
  }
};

// ---- TESTDEV: a device on host memory ----

struct TestDevice {
  int ordinal = 0;
  std::atomic<int> allocations{0};
  int stream_token = 0;
};

int DeviceCount(void*) { return 2; }
const char* DeviceDescription(void*, int ordinal) { return ordinal == 0 ? "test device zero" : "test device"; }
void* CreateDevice(void*, int ordinal, TG_Status*) {
  auto* d = new TestDevice();
  d->ordinal = ordinal;
  d->stream_token = 1000 + ordinal;
  return d;
}
void DestroyDevice(void* state) { delete static_cast<TestDevice*>(state); }
void* Allocate(void* state, size_t bytes, size_t alignment, TG_Status* status) {
  if (alignment < sizeof(void*)) alignment = sizeof(void*);
  const size_t rounded = (bytes + alignment - 1) / alignment * alignment;
  void* p = std::aligned_alloc(alignment, rounded == 0 ? alignment : rounded);
  if (p == nullptr) {
    Api()->set_status(status, TG_RESOURCE_EXHAUSTED, "TESTDEV: out of memory");
    return nullptr;
  }
  static_cast<TestDevice*>(state)->allocations.fetch_add(1);
  return p;
}
void Deallocate(void*, void* p) { std::free(p); }
void Copy(void*, void* dst, const void* src, size_t bytes, TG_Status*) { std::memcpy(dst, src, bytes); }
void Synchronize(void*, TG_Status*) {}
void* Stream(void* state) { return &static_cast<TestDevice*>(state)->stream_token; }

// Identity on TESTDEV: the output is the input's buffer.
struct IdentityKernel {
  explicit IdentityKernel(Construction&) {}
  void Compute(Context& ctx) { ctx.SetOutputAlias(0, ctx.input(0), ctx.input(0).dims()); }
};

// TestView: output = input viewed with the dims in attr `shape` (no copy).
struct ViewKernel {
  explicit ViewKernel(Construction& c) {
    bool known = false;
    c.GetShapeAttr("shape", &dims, &known);
  }
  void Compute(Context& ctx) { ctx.SetOutputAlias(0, ctx.input(0), dims); }
  std::vector<int64_t> dims;
};

// TestForwardThenAlias: y = x + 1 written in x's buffer when it can be forwarded, then z
// aliases input x (which by then may have been handed to y): z must share y's bytes.
struct ForwardThenAliasKernel {
  explicit ForwardThenAliasKernel(Construction&) {}
  void Compute(Context& ctx) {
    const auto x = ctx.input(0);
    auto y = ctx.ForwardOrAllocateOutput(0, 0, x.dims());
    if (!ctx.ok()) return;
    const float* in = x.data<float>();
    float* out = y.mutable_data<float>();
    for (int64_t i = 0; i < x.num_elements(); ++i) out[i] = in[i] + 1;
    ctx.SetOutputAlias(1, x, x.dims());
  }
};

// AssignAdd on TESTDEV (float): ref += value, under the variable's lock if use_locking.
struct AssignAddKernel {
  explicit AssignAddKernel(Construction& c) { c.GetAttr("use_locking", &use_locking); }
  void Compute(Context& ctx) {
    Context::RefLock lock(ctx, 0, use_locking);
    auto var = ctx.MutableRefInput(0);
    if (!ctx.ok()) return;
    auto value = ctx.input(1);
    if (var.dims() != value.dims()) {
      ctx.Fail(TG_INVALID_ARGUMENT, "shapes differ");
      return;
    }
    float* v = var.mutable_data<float>();
    for (int64_t i = 0; i < var.num_elements(); ++i) v[i] += value.data<float>()[i];
    ctx.ForwardRefInputToRefOutput(0, 0);
  }
  bool use_locking = false;
};

// Assign on TESTDEV (float): the variable adopts the value's buffer when nobody else holds
// it (plugin ABI 8, as the CPU's Assign); else the value is copied, into a new buffer when
// the variable is uninitialized or reshaped.
struct AssignKernel {
  explicit AssignKernel(Construction& c) { c.GetAttr("use_locking", &use_locking); }
  void Compute(Context& ctx) {
    Context::RefLock lock(ctx, 0, use_locking);
    auto value = ctx.input(1);
    if (!ctx.ForwardInputToRefInput(1, 0)) {
      tgraph::plugin::TensorMut var;
      if (ctx.IsRefInitialized(0)) var = ctx.MutableRefInput(0);
      if (!var.valid() || var.dims() != value.dims()) {
        var = ctx.ReallocateRefInput(0, value.dims());
      }
      if (!ctx.ok()) return;
      std::memcpy(var.mutable_data<float>(), value.data<float>(), value.byte_size());
    }
    ctx.ForwardRefInputToRefOutput(0, 0);
  }
  bool use_locking = true;
};

// TestScratch on TESTDEV: sums its input through a temporary; output [sum, stream token,
// device ordinal].
struct ScratchKernel {
  explicit ScratchKernel(Construction&) {}
  void Compute(Context& ctx) {
    auto x = ctx.input(0);
    auto tmp = ctx.AllocateTemp(TG_DOUBLE, {x.num_elements()});
    if (!ctx.ok()) return;
    double total = 0;
    for (int64_t i = 0; i < x.num_elements(); ++i) {
      tmp.mutable_data<double>()[i] = x.data<float>()[i];
      total += tmp.data<double>()[i];
    }
    auto out = ctx.AllocateOutput(0, {3});
    if (!ctx.ok()) return;
    const auto* dev = static_cast<const TestDevice*>(ctx.device_state());
    const int* token = static_cast<const int*>(ctx.device_stream());
    out.mutable_data<float>()[0] = static_cast<float>(total);
    out.mutable_data<float>()[1] = token == nullptr ? -1.0f : static_cast<float>(*token);
    out.mutable_data<float>()[2] = dev == nullptr ? -1.0f : static_cast<float>(dev->ordinal);
  }
};

// ---- the saver ----

struct MemorySaver {
  std::mutex mu;
  std::map<std::string, std::map<std::string, std::pair<std::vector<int64_t>, std::vector<float>>>> files;
};

MemorySaver& Saver() {
  static MemorySaver saver;
  return saver;
}

void Save(void* user_data, const char* prefix, const char* const* names, const TG_Tensor* const* tensors,
          size_t count, TG_Status* status) {
  auto* saver = static_cast<MemorySaver*>(user_data);
  std::lock_guard<std::mutex> lock(saver->mu);
  auto& file = saver->files[prefix];
  for (size_t i = 0; i < count; ++i) {
    tgraph::plugin::TensorView t(tensors[i]);
    if (t.dtype() != TG_FLOAT) {
      Api()->set_status(status, TG_UNIMPLEMENTED, (std::string("test_memory saves float only: ") + names[i]).c_str());
      return;
    }
    file[names[i]] = {t.dims(), std::vector<float>(t.data<float>(), t.data<float>() + t.num_elements())};
  }
}

void Restore(void* user_data, const char* prefix, const char* const* names, size_t count,
             TG_Tensor** tensors, TG_Status* status) {
  auto* saver = static_cast<MemorySaver*>(user_data);
  std::lock_guard<std::mutex> lock(saver->mu);
  auto file = saver->files.find(prefix);
  if (file == saver->files.end()) {
    Api()->set_status(status, TG_NOT_FOUND, (std::string("no checkpoint ") + prefix).c_str());
    return;
  }
  for (size_t i = 0; i < count; ++i) {
    auto entry = file->second.find(names[i]);
    if (entry == file->second.end()) {
      Api()->set_status(status, TG_NOT_FOUND, (std::string("no tensor ") + names[i]).c_str());
      return;  // tensors made so far are the core's to free
    }
    const auto& dims = entry->second.first;
    tensors[i] = Api()->new_host_tensor(TG_FLOAT, dims.data(), static_cast<int>(dims.size()), status);
    if (tensors[i] == nullptr) return;
    std::memcpy(Api()->tensor_data(tensors[i]), entry->second.second.data(),
                entry->second.second.size() * sizeof(float));
  }
}

// ---- the gradient (its builder services arrive with autodiff) ----

void ScaleAddGrad(TG_GradientContext*, void*, TG_Status* status) {
  Api()->set_status(status, TG_UNIMPLEMENTED, "TestScaleAdd gradient: nothing to build yet");
}

}  // namespace

// ---- TestMisbehave ----

struct MisbehaveKernel {
  explicit MisbehaveKernel(Construction& c) { c.GetAttr("how", &how); }
  void Compute(Context& ctx) {
    if (how == "throw_std") throw std::runtime_error("boom");
    if (how == "throw_int") throw 42;  // not a std::exception: the core must still say so
    if (how == "info_size_zero") {
      TG_TensorInfo info;
      std::memset(&info, 0, sizeof info);  // struct_size forgotten
      Api()->input_info(ctx.raw(), 0, &info);
      return;
    }
    ctx.Fail(TG_INVALID_ARGUMENT, "unknown misbehaviour '" + how + "'");
  }
  std::string how;
};

// ---- ABI 6: TestRefInitialized, TestShapeGetters, TestWrongShape ----

namespace {

using tgraph::plugin::PartialShape;

void ScalarShape(ShapeContext& c) { c.SetOutput(0, std::vector<int64_t>{}); }

// Reads an uninitialized variable: the op allows uninitialized input.
struct RefInitializedKernel {
  explicit RefInitializedKernel(Construction&) {}
  void Compute(Context& ctx) {
    auto out = ctx.AllocateOutput(0, std::vector<int64_t>{});
    if (!ctx.ok()) return;
    *out.mutable_data<bool>() = ctx.IsRefInitialized(0);
  }
};

// Outputs shaped by every ABI 6 shape-function getter:
//   same:   input x's partial shape (SetOutputSameAsInput);
//   sh:     the shape attr `sh`;
//   dims:   the constant value of input `dims` when known, else unknown rank;
//   facts:  [f*10, t, len(s), sum(il), sum(fl)*10, tl[0], len(sl[0]), len(shl), x's dtype,
//            has_attr("nope")];
//   shl1:   shl[1] (unknown dims or rank kept).
// attr `misuse` = "kind" reads the string attr `s` as a float (an error naming the attr).
void ShapeGettersShape(ShapeContext& c) {
  std::string misuse;
  if (!c.GetAttr("misuse", &misuse)) return;
  if (misuse == "kind") {
    float wrong = 0;
    c.GetAttr("s", &wrong);
    return;
  }
  c.SetOutputSameAsInput(0, 0);
  PartialShape sh;
  if (!c.GetAttr("sh", &sh)) return;
  c.SetOutputShape(1, sh);
  tgraph::plugin::TensorView dims = c.input_value(1);
  if (dims.valid()) {
    std::vector<int64_t> d;
    for (int64_t k = 0; k < dims.num_elements(); ++k) d.push_back(dims.data<int32_t>()[k]);
    c.SetOutput(2, d);
  } else {
    c.SetOutputUnknownRank(2);
  }
  float f = 0;
  TG_DataType t = TG_INVALID_DTYPE;
  std::string str;
  std::vector<int64_t> il;
  std::vector<float> fl;
  std::vector<TG_DataType> tl;
  std::vector<std::string> sl;
  std::vector<PartialShape> shl;
  if (!c.GetAttr("f", &f) || !c.GetAttr("t", &t) || !c.GetAttr("s", &str) ||
      !c.GetAttr("il", &il) || !c.GetAttr("fl", &fl) || !c.GetAttr("tl", &tl) ||
      !c.GetAttr("sl", &sl) || !c.GetAttr("shl", &shl)) {
    return;
  }
  int64_t il_sum = 0;
  for (int64_t v : il) il_sum += v;
  float fl_sum = 0;
  for (float v : fl) fl_sum += v;
  c.SetOutput(3, std::vector<int64_t>{static_cast<int64_t>(f * 10 + 0.5f), static_cast<int64_t>(t),
                                      static_cast<int64_t>(str.size()), il_sum,
                                      static_cast<int64_t>(fl_sum * 10 + 0.5f),
                                      tl.empty() ? 0 : static_cast<int64_t>(tl[0]),
                                      sl.empty() ? 0 : static_cast<int64_t>(sl[0].size()),
                                      static_cast<int64_t>(shl.size()),
                                      static_cast<int64_t>(c.input_type(0)),
                                      c.HasAttr("nope") ? 1 : 0});
  if (shl.size() < 2) {
    c.Fail("shl needs two shapes");
    return;
  }
  c.SetOutputShape(4, shl[1]);
}

// y = x, or (wrong = "shape") one element more than its shape function says.
struct WrongShapeKernel {
  explicit WrongShapeKernel(Construction& c) { c.GetAttr("wrong", &wrong); }
  void Compute(Context& ctx) {
    auto x = ctx.input(0);
    std::vector<int64_t> dims = x.dims();
    if (wrong == "shape" && !dims.empty()) dims[0] += 1;
    auto y = ctx.AllocateOutput(0, dims);
    if (!ctx.ok()) return;
    const int64_t n = std::min(x.num_elements(), y.num_elements());
    for (int64_t k = 0; k < y.num_elements(); ++k) y.mutable_data<float>()[k] = k < n ? x.data<float>()[k] : 0;
  }
  std::string wrong;
};

// ---- ABI 7: TestInputVersion ----

struct InputVersionKernel {
  explicit InputVersionKernel(Construction&) {}
  void Compute(Context& ctx) {
    const uint64_t version = ctx.input_version(0);
    auto out = ctx.AllocateOutput(0, std::vector<int64_t>{});
    if (!ctx.ok()) return;
    *out.mutable_data<int64_t>() = static_cast<int64_t>(version);
  }
};

// The number a reader running during the write would have seen: after mutable_ref_input.
struct VersionDuringWriteKernel {
  explicit VersionDuringWriteKernel(Construction&) {}
  void Compute(Context& ctx) {
    auto var = ctx.MutableRefInput(0);
    if (!ctx.ok()) return;
    const uint64_t version = ctx.input_version(0);
    for (int64_t i = 0; i < var.num_elements(); ++i) var.mutable_data<float>()[i] += 1.0f;
    auto out = ctx.AllocateOutput(0, std::vector<int64_t>{});
    if (!ctx.ok()) return;
    *out.mutable_data<int64_t>() = static_cast<int64_t>(version);
  }
};

// ---- ABI 8: TestStaticShapes, TestFreshFill, TestBufferAddress ----

struct StaticShapesKernel {
  explicit StaticShapesKernel(Construction& c) {
    int64_t limit = -1;
    if (!c.GetAttr("limit", &limit)) return;
    const tgraph::plugin::PartialShape in = c.input_shape(0);
    if (limit >= 0 && in.fully_defined()) {
      int64_t n = 1;
      for (int64_t d : in.dims) n *= d;
      if (n > limit) {
        c.Decline("input 0 has " + std::to_string(n) + " elements, more than " +
                  std::to_string(limit));
        return;
      }
    }
    for (const tgraph::plugin::PartialShape& s : {in, c.output_shape(0), c.input_shape(1)}) {
      seen.push_back(s.rank());
      seen.insert(seen.end(), s.dims.begin(), s.dims.end());
    }
  }
  void Compute(Context& ctx) {
    auto out = ctx.AllocateOutput(0, std::vector<int64_t>{static_cast<int64_t>(seen.size())});
    if (!ctx.ok()) return;
    std::copy(seen.begin(), seen.end(), out.mutable_data<int64_t>());
  }
  std::vector<int64_t> seen;
};

struct FreshFillKernel {
  explicit FreshFillKernel(Construction& c) {
    c.GetAttr("value", &value);
    c.GetAttr("shape", &shape);
  }
  void Compute(Context& ctx) {
    auto y = ctx.AllocateOutput(0, shape);
    if (!ctx.ok()) return;
    for (int64_t i = 0; i < y.num_elements(); ++i) y.mutable_data<float>()[i] = value;
    auto address = ctx.AllocateOutput(1, std::vector<int64_t>{});
    if (!ctx.ok()) return;
    *address.mutable_data<int64_t>() = static_cast<int64_t>(reinterpret_cast<intptr_t>(y.data<float>()));
  }
  float value = 0;
  std::vector<int64_t> shape;
};

struct BufferAddressKernel {
  explicit BufferAddressKernel(Construction&) {}
  void Compute(Context& ctx) {
    const void* data = Api()->tensor_data(ctx.input(0).raw());
    auto out = ctx.AllocateOutput(0, std::vector<int64_t>{});
    if (!ctx.ok()) return;
    *out.mutable_data<int64_t>() = static_cast<int64_t>(reinterpret_cast<intptr_t>(data));
  }
};

}  // namespace

extern "C" TG_PLUGIN_EXPORT void TG_PluginInit(const TG_PluginInitArgs* args, TG_Status* status) {
  tgraph::plugin::Init init(args, status, "test_good", "1.2.3");
  Api()->log(TG_LOG_INFO, "test_good: registering");

  init.Op(OpBuilder("TestScaleAdd")
              .Input("x: T")
              .Input("y: T")
              .Output("z: T")
              .Attr("T: {float, double}")
              .Attr("alpha: float = 1.0")
              .Summary("z = alpha * x + y")
              .SetShapeFn(ScaleAddShape));
  init.Kernel<ScaleAddKernel<0>>(
      KernelBuilder("TestScaleAdd", "CPU").TypeConstraint("T", {TG_FLOAT, TG_DOUBLE}).CostPerElementNs(2));
  init.Kernel<ScaleAddKernel<1>>(
      KernelBuilder("TestScaleAdd", "CPU").TypeConstraint("T", TG_FLOAT).Priority(10));

  init.Op(OpBuilder("TestFillShape")
              .Input("shape: int32")
              .Output("out: int64")
              .Attr("value: int = 0")
              .SetShapeFn(FillShapeShape));
  init.Kernel<FillShapeKernel>(KernelBuilder("TestFillShape", "CPU").HostMemory("shape"));

  init.Op(OpBuilder("TestAttrs")
              .Output("summary: string")
              .Attr("i: int")
              .Attr("f: float")
              .Attr("b: bool")
              .Attr("t: type")
              .Attr("s: string")
              .Attr("il: list(int)")
              .Attr("fl: list(float)")
              .Attr("tl: list(type)")
              .Attr("sh: shape")
              .Attr("te: tensor"));
  init.Kernel<AttrsKernel>(KernelBuilder("TestAttrs", "CPU"));

  init.Op(OpBuilder("TestPoolInfo").Input("n: int64").Input("cost: double").Output("info: int64"));
  init.Kernel<PoolInfoKernel>(KernelBuilder("TestPoolInfo", "CPU"));

  init.Op(OpBuilder("TestView").Input("x: T").Output("y: T").Attr("T: type").Attr("shape: shape"));
  init.Op(OpBuilder("TestScratch").Input("x: float").Output("y: float"));
  init.Kernel<IdentityKernel>(KernelBuilder("Identity", "TESTDEV"));
  init.Kernel<ViewKernel>(KernelBuilder("TestView", "TESTDEV"));
  init.Op(OpBuilder("TestForwardThenAlias").Input("x: float").Output("y: float").Output("z: float"));
  init.Kernel<ForwardThenAliasKernel>(KernelBuilder("TestForwardThenAlias", "TESTDEV"));
  init.Kernel<AssignAddKernel>(KernelBuilder("AssignAdd", "TESTDEV").TypeConstraint("T", TG_FLOAT));
  init.Kernel<AssignKernel>(KernelBuilder("Assign", "TESTDEV").TypeConstraint("T", TG_FLOAT));
  init.Kernel<ScratchKernel>(KernelBuilder("TestScratch", "TESTDEV"));
  init.Op(OpBuilder("TestMisbehave").Input("x: float").Output("y: float").Attr("how: string"));
  init.Kernel<MisbehaveKernel>(KernelBuilder("TestMisbehave", "TESTDEV"));

  init.Op(OpBuilder("TestRefInitialized")
              .Input("ref: Ref(float)")
              .Output("initialized: bool")
              .AllowsUninitializedInput()
              .SetShapeFn(ScalarShape));
  init.Kernel<RefInitializedKernel>(KernelBuilder("TestRefInitialized", "CPU"));
  init.Op(OpBuilder("TestShapeGetters")
              .Input("x: T")
              .Input("dims: int32")
              .Output("same: T")
              .Output("sh: float")
              .Output("dims_out: float")
              .Output("facts: float")
              .Output("shl1: float")
              .Attr("T: type")
              .Attr("f: float")
              .Attr("t: type")
              .Attr("s: string")
              .Attr("sh: shape")
              .Attr("il: list(int)")
              .Attr("fl: list(float)")
              .Attr("tl: list(type)")
              .Attr("sl: list(string)")
              .Attr("shl: list(shape)")
              .Attr("misuse: string = ''")
              .SetShapeFn(ShapeGettersShape));
  init.Op(OpBuilder("TestWrongShape")
              .Input("x: float")
              .Output("y: float")
              .Attr("wrong: string = 'none'")
              .SetShapeFn([](ShapeContext& c) { c.SetOutputSameAsInput(0, 0); }));
  init.Kernel<WrongShapeKernel>(KernelBuilder("TestWrongShape", "CPU"));
  init.Op(OpBuilder("TestInputVersion")
              .Input("x: T")
              .Output("version: int64")
              .Attr("T: type")
              .Stateful()  // never folded as a constant nor merged with another
              .SetShapeFn(ScalarShape));
  init.Kernel<InputVersionKernel>(KernelBuilder("TestInputVersion", "CPU"));
  init.Op(OpBuilder("TestVersionDuringWrite")
              .Input("ref: Ref(float)")
              .Output("version: int64")
              .Stateful()
              .SetShapeFn(ScalarShape));
  init.Kernel<VersionDuringWriteKernel>(KernelBuilder("TestVersionDuringWrite", "CPU"));
  init.Op(OpBuilder("TestStaticShapes")
              .Input("x: T")
              .Output("seen: int64")
              .Attr("T: type")
              .Attr("limit: int = -1")
              .Stateful()
              .SetShapeFn([](ShapeContext& c) { c.SetOutput(0, std::vector<int64_t>{-1}); }));
  init.Kernel<StaticShapesKernel>(KernelBuilder("TestStaticShapes", "CPU"));
  init.Op(OpBuilder("TestFreshFill")
              .Output("y: float")
              .Output("address: int64")
              .Attr("shape: list(int)")
              .Attr("value: float")
              .Stateful()
              .SetShapeFn([](ShapeContext& c) {
                std::vector<int64_t> shape;
                c.GetAttr("shape", &shape);
                c.SetOutput(0, shape);
                c.SetOutput(1, std::vector<int64_t>{});
              }));
  init.Kernel<FreshFillKernel>(KernelBuilder("TestFreshFill", "CPU"));
  init.Op(OpBuilder("TestBufferAddress")
              .Input("x: T")
              .Output("address: int64")
              .Attr("T: type")
              .Stateful()
              .SetShapeFn(ScalarShape));
  init.Kernel<BufferAddressKernel>(KernelBuilder("TestBufferAddress", "CPU"));
  if (!init.ok()) return;

  TG_DeviceDefinition device;
  std::memset(&device, 0, sizeof device);
  device.struct_size = sizeof device;
  device.device_type = "TESTDEV";
  device.device_count = DeviceCount;
  device.device_description = DeviceDescription;
  device.create_device = CreateDevice;
  device.destroy_device = DestroyDevice;
  device.allocate = Allocate;
  device.deallocate = Deallocate;
  device.copy_host_to_device = Copy;
  device.copy_device_to_host = Copy;
  device.copy_device_to_device = Copy;
  device.synchronize = Synchronize;
  device.stream = Stream;
  device.host_accessible = 1;
  Api()->register_device(&device, status);
  if (!init.ok()) return;

  TG_SaverDefinition saver;
  std::memset(&saver, 0, sizeof saver);
  saver.struct_size = sizeof saver;
  saver.format = "test_memory";
  saver.user_data = &Saver();
  saver.save = Save;
  saver.restore = Restore;
  Api()->register_saver(&saver, status);
  if (!init.ok()) return;

  TG_GradientDefinition grad;
  std::memset(&grad, 0, sizeof grad);
  grad.struct_size = sizeof grad;
  grad.op_type = "TestScaleAdd";
  grad.fn = ScaleAddGrad;
  Api()->register_gradient(&grad, status);
}
