// A test-only device backend, "TESTACC", for placement and copy-insertion tests: two devices
// (ordinals 0 and 1) that declare host_accessible = 0, so the executor must treat their
// memory as foreign and move tensors across with the copy callbacks.
//
// Why not "TESTDEV": tg_test_good (good_plugin.cc) already registers a host-accessible
// device of that type, and a process that loads both plugins (c_api_tests run as one
// binary, discovery over good/) would refuse the second registration.
//
// The memory is really host memory (so kernels here can compute with plain loops), but it
// is guarded so the tests can see what the executor did with it:
//   - every buffer has a header (magic, owner ordinal) right before the pointer handed out
//     and guard bytes right after its end; a live-buffer table records [start, end) and the
//     owning device;
//   - deallocate counts a "bad free" instead of crashing when the pointer is not a live
//     buffer (freed twice, or allocated by someone else: the CPU allocator), when the
//     buffer belongs to the other ordinal, or when its header or guard bytes were
//     overwritten;
//   - copies and kernels check that device-side pointers are live buffers of the right
//     device and host-side pointers are not ours; a violation (e.g. a kernel handed a host
//     tensor because a copy step is missing) is a "bad access" and fails the call with a
//     clear status;
//   - copy calls are counted per direction.
// The plugin exports only TG_PluginInit, so the counters reach tests through an op,
// TestDevStats (CPU kernel, stateful), whose int64 output is
//   [host->device copies, device->host copies, device->device copies,
//    live allocations, bad frees, bad accesses, synchronize calls].
//
// TestDecline (y = x + 1, 2 or 10) has two CPU kernels and a TESTACC one that decline nodes
// by attr `mode` (plugin ABI 6), for placement's fallbacks.
//
// Kernels on TESTACC: Const, Identity (numeric dtypes), AddV2 and Mul (float, same-shape
// inputs only), NoOp, and float variables (VariableV2, Assign, AssignAdd), whose storage then
// lives in TESTACC memory. Deliberately no MatMul and no double variables, so tests can
// exercise soft placement and colocation fallbacks.
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include "device_common/host_shapes.h"
#include "tgraph/plugin.hpp"

namespace {

using tgraph_device_common::ShapeString;  // "[2,3]", worded as the GPU plugins word it

using tgraph::plugin::Api;
using tgraph::plugin::Construction;
using tgraph::plugin::Context;
using tgraph::plugin::KernelBuilder;
using tgraph::plugin::OpBuilder;
using tgraph::plugin::ShapeContext;
using tgraph::plugin::TensorMut;
using tgraph::plugin::TensorView;

constexpr const char* kDeviceType = "TESTACC";
constexpr int kNumDevices = 2;
constexpr uint64_t kLiveMagic = 0x7e57acc0a110c8edULL;
constexpr uint64_t kFreedMagic = 0xf7eedf7eedf7eedfULL;
constexpr size_t kGuardBytes = 16;
constexpr unsigned char kGuardByte = 0xa5;
// Device buffers are at least this aligned, like a real device allocator's.
constexpr size_t kMinAlignment = 64;

// Sits immediately before the pointer allocate returns.
struct Header {
  uint64_t magic;
  void* base;  // what aligned_alloc returned
  size_t bytes;
  int ordinal;
};

struct Device {
  int ordinal;
};
Device g_devices[kNumDevices] = {{0}, {1}};

struct LiveBuffer {
  size_t bytes;
  int ordinal;
};

struct Stats {
  std::atomic<int64_t> h2d{0}, d2h{0}, d2d{0}, bad_frees{0}, bad_accesses{0}, syncs{0};
  std::mutex mu;
  std::map<uintptr_t, LiveBuffer> live;  // start address -> buffer
};

// Never destroyed: the core may free device buffers while the process exits (sessions
// owned by static objects), after this library's static destructors would have run.
Stats& GetStats() {
  static Stats* stats = new Stats();
  return *stats;
}

int OrdinalOf(void* device_state) { return static_cast<const Device*>(device_state)->ordinal; }

std::string DeviceName(int ordinal) {
  return std::string("/device:") + kDeviceType + ":" + std::to_string(ordinal);
}

std::string Hex(const void* p) {
  std::ostringstream os;
  os << p;
  return os.str();
}

// The ordinal of the live buffer holding [p, p + bytes) (bytes > 0), or -1 when no single
// live buffer does.
int OwnerOf(const void* p, size_t bytes) {
  if (p == nullptr) return -1;
  const auto addr = reinterpret_cast<uintptr_t>(p);
  Stats& s = GetStats();
  std::lock_guard<std::mutex> lock(s.mu);
  auto it = s.live.upper_bound(addr);
  if (it == s.live.begin()) return -1;
  --it;
  const uintptr_t start = it->first, end = start + it->second.bytes;
  if (addr < start || addr >= end || bytes > end - addr) return -1;
  return it->second.ordinal;
}

// Records a bad access by a copy and fails it with `message`.
void BadCopy(TG_Status* status, const std::string& message) {
  GetStats().bad_accesses.fetch_add(1);
  Api()->set_status(status, TG_INTERNAL, message.c_str());
}

// ---- the device ----

int DeviceCount(void*) { return kNumDevices; }

const char* DeviceDescription(void*, int ordinal) {
  return ordinal == 0 ? "guarded host memory, not host accessible (test device 0)"
                      : "guarded host memory, not host accessible (test device 1)";
}

void* CreateDevice(void*, int ordinal, TG_Status* status) {
  if (ordinal < 0 || ordinal >= kNumDevices) {
    tgraph::plugin::SetStatus(
        status, TG_INVALID_ARGUMENT,
        DeviceName(ordinal) + " does not exist (there are " + std::to_string(kNumDevices) + ")");
    return nullptr;
  }
  return &g_devices[ordinal];
}

// The device objects are static.
void DestroyDevice(void*) {}

void* Allocate(void* state, size_t bytes, size_t alignment, TG_Status* status) {
  if (alignment != 0 && (alignment & (alignment - 1)) != 0) {
    tgraph::plugin::SetStatus(status, TG_INVALID_ARGUMENT,
                              std::string(kDeviceType) + " allocate: alignment " +
                                  std::to_string(alignment) + " is not a power of two");
    return nullptr;
  }
  const size_t align = alignment > kMinAlignment ? alignment : kMinAlignment;
  // The header goes in the alignment padding before the user pointer.
  const size_t offset = (sizeof(Header) + align - 1) / align * align;
  const size_t total = offset + bytes + kGuardBytes;
  const size_t rounded = (total + align - 1) / align * align;
  void* base = total < bytes ? nullptr : std::aligned_alloc(align, rounded);
  if (base == nullptr) {
    tgraph::plugin::SetStatus(status, TG_RESOURCE_EXHAUSTED,
                              std::string(kDeviceType) + " allocate: out of memory allocating " +
                                  std::to_string(bytes) + " bytes");
    return nullptr;
  }
  unsigned char* user = static_cast<unsigned char*>(base) + offset;
  const Header header{kLiveMagic, base, bytes, OrdinalOf(state)};
  std::memcpy(user - sizeof(Header), &header, sizeof(Header));
  std::memset(user + bytes, kGuardByte, kGuardBytes);
  Stats& s = GetStats();
  std::lock_guard<std::mutex> lock(s.mu);
  s.live[reinterpret_cast<uintptr_t>(user)] = LiveBuffer{bytes, header.ordinal};
  return user;
}

void Deallocate(void* state, void* ptr) {
  if (ptr == nullptr) return;
  Stats& s = GetStats();
  LiveBuffer buffer{};
  {
    std::lock_guard<std::mutex> lock(s.mu);
    auto it = s.live.find(reinterpret_cast<uintptr_t>(ptr));
    if (it == s.live.end()) {
      // Not ours, or freed already: its memory must not even be read.
      s.bad_frees.fetch_add(1);
      return;
    }
    buffer = it->second;
    s.live.erase(it);
  }
  unsigned char* user = static_cast<unsigned char*>(ptr);
  Header header;
  std::memcpy(&header, user - sizeof(Header), sizeof(Header));
  bool intact = header.magic == kLiveMagic && header.bytes == buffer.bytes &&
                header.ordinal == buffer.ordinal;
  for (size_t i = 0; i < kGuardBytes && intact; ++i) intact = user[buffer.bytes + i] == kGuardByte;
  // Freed through the other device's allocator, or written out of bounds.
  if (buffer.ordinal != OrdinalOf(state) || !intact) s.bad_frees.fetch_add(1);
  if (header.magic != kLiveMagic) return;  // base is not to be trusted
  header.magic = kFreedMagic;
  std::memcpy(user - sizeof(Header), &header, sizeof(Header));
  std::free(header.base);
}

void CopyHostToDevice(void* state, void* dst, const void* src, size_t bytes, TG_Status* status) {
  GetStats().h2d.fetch_add(1);
  if (bytes == 0) return;
  const int ordinal = OrdinalOf(state);
  if (OwnerOf(dst, bytes) != ordinal) {
    BadCopy(status, DeviceName(ordinal) + " copy_host_to_device: destination " + Hex(dst) + " (" +
                        std::to_string(bytes) + " bytes) is not a live buffer of " +
                        DeviceName(ordinal));
    return;
  }
  if (OwnerOf(src, bytes) >= 0) {
    BadCopy(status, DeviceName(ordinal) + " copy_host_to_device: source " + Hex(src) +
                        " is device memory, not host memory");
    return;
  }
  std::memcpy(dst, src, bytes);
}

void CopyDeviceToHost(void* state, void* dst, const void* src, size_t bytes, TG_Status* status) {
  GetStats().d2h.fetch_add(1);
  if (bytes == 0) return;
  const int ordinal = OrdinalOf(state);
  if (OwnerOf(src, bytes) != ordinal) {
    BadCopy(status, DeviceName(ordinal) + " copy_device_to_host: source " + Hex(src) + " (" +
                        std::to_string(bytes) + " bytes) is not a live buffer of " +
                        DeviceName(ordinal));
    return;
  }
  if (OwnerOf(dst, bytes) >= 0) {
    BadCopy(status, DeviceName(ordinal) + " copy_device_to_host: destination " + Hex(dst) +
                        " is device memory, not host memory");
    return;
  }
  std::memcpy(dst, src, bytes);
}

// The ABI does not say whether the source's or the destination's device state comes with a
// device-to-device copy, so either is accepted; both ends must be live device buffers.
void CopyDeviceToDevice(void* state, void* dst, const void* src, size_t bytes, TG_Status* status) {
  GetStats().d2d.fetch_add(1);
  if (bytes == 0) return;
  const int ordinal = OrdinalOf(state);
  const int from = OwnerOf(src, bytes), to = OwnerOf(dst, bytes);
  if (from < 0 || to < 0 || (from != ordinal && to != ordinal)) {
    BadCopy(status, DeviceName(ordinal) + " copy_device_to_device: " + Hex(src) + " -> " +
                        Hex(dst) + " (" + std::to_string(bytes) +
                        " bytes) are not both live device buffers, one of them on " +
                        DeviceName(ordinal));
    return;
  }
  std::memcpy(dst, src, bytes);
}

void Synchronize(void*, TG_Status*) { GetStats().syncs.fetch_add(1); }

void* Stream(void*) { return nullptr; }

// ---- kernels ----

// Fails the node (and counts a bad access) unless `t` lives in this kernel's device memory:
// a host tensor here means the executor skipped a copy step.
bool CheckOnDevice(Context& ctx, const TensorView& t, const char* what) {
  const void* p = Api()->tensor_data(t.raw());
  const size_t bytes = t.byte_size();
  if (bytes == 0) return true;
  const int ordinal = OrdinalOf(ctx.device_state());
  if (OwnerOf(p, bytes) == ordinal) return true;
  GetStats().bad_accesses.fetch_add(1);
  ctx.Fail(TG_INTERNAL, std::string(what) + " at " + Hex(p) + " (" + std::to_string(bytes) +
                            " bytes) is not in " + DeviceName(ordinal) + " memory");
  return false;
}

// Const: the value is copied out of the attr in create (it only lives that long) and into a
// fresh device buffer on every run.
class ConstKernel {
 public:
  explicit ConstKernel(Construction& c) {
    TensorView value = c.GetTensorAttr("value");
    if (!c.ok()) return;
    dims_ = value.dims();
    const auto* p = value.data<unsigned char>();
    if (p != nullptr) bytes_.assign(p, p + value.byte_size());
  }
  void Compute(Context& ctx) {
    TensorMut out = ctx.AllocateOutput(0, dims_);
    if (!ctx.ok() || !CheckOnDevice(ctx, out, "output")) return;
    if (out.byte_size() != bytes_.size()) {
      ctx.Fail(TG_INTERNAL, "output has " + std::to_string(out.byte_size()) +
                                " bytes, the constant " + std::to_string(bytes_.size()));
      return;
    }
    if (!bytes_.empty())
      std::memcpy(out.mutable_data<unsigned char>(), bytes_.data(), bytes_.size());
  }

 private:
  std::vector<int64_t> dims_;
  std::vector<unsigned char> bytes_;
};

// Identity: the output shares the input's device buffer.
class IdentityKernel {
 public:
  explicit IdentityKernel(Construction&) {}
  void Compute(Context& ctx) {
    TensorView in = ctx.input(0);
    if (!CheckOnDevice(ctx, in, "input 0")) return;
    ctx.SetOutputAlias(0, in, in.dims());
  }
};

struct AddFn {
  float operator()(float a, float b) const { return a + b; }
};
struct MulFn {
  float operator()(float a, float b) const { return a * b; }
};

// AddV2 / Mul on float tensors of one shape (no broadcasting: this device is for placement
// tests, not arithmetic).
template <typename Fn>
class BinaryKernel {
 public:
  explicit BinaryKernel(Construction&) {}
  void Compute(Context& ctx) {
    TensorView x = ctx.input(0), y = ctx.input(1);
    if (x.dims() != y.dims()) {
      ctx.Fail(TG_INVALID_ARGUMENT, std::string(kDeviceType) +
                                        " kernels take inputs of the same shape only, got " +
                                        ShapeString(x.dims()) + " and " + ShapeString(y.dims()));
      return;
    }
    if (!CheckOnDevice(ctx, x, "input 0") || !CheckOnDevice(ctx, y, "input 1")) return;
    TensorMut z = ctx.AllocateOutput(0, x.dims());
    if (!ctx.ok() || !CheckOnDevice(ctx, z, "output")) return;
    const float* xp = x.data<float>();
    const float* yp = y.data<float>();
    float* zp = z.mutable_data<float>();
    const Fn fn;
    for (int64_t i = 0; i < x.num_elements(); ++i) zp[i] = fn(xp[i], yp[i]);
  }
};

// VariableV2: the executor binds the session's variable slot to the ref output; the kernel
// only tells placement that float variables may live here.
class VariableKernel {
 public:
  explicit VariableKernel(Construction&) {}
  void Compute(Context& ctx) {
    ctx.Fail(TG_INTERNAL, "VariableV2's output is bound by the executor, not computed");
  }
};

// Assign (float): the variable's buffer must be (re)allocated in this device's memory.
class AssignKernel {
 public:
  explicit AssignKernel(Construction& c) { c.GetAttr("validate_shape", &validate_shape_); }
  void Compute(Context& ctx) {
    TensorView value = ctx.input(1);
    if (!CheckOnDevice(ctx, value, "value")) return;
    {
      Context::RefLock lock(ctx, 0, true);
      TensorMut target;
      if (ctx.IsRefInitialized(0)) {
        TensorMut current = ctx.MutableRefInput(0);
        if (!ctx.ok()) return;
        if (current.dims() == value.dims()) {
          target = current;
        } else if (validate_shape_) {
          ctx.Fail(TG_INVALID_ARGUMENT, "Assign requires shapes of both tensors to match. lhs shape= " +
                                            ShapeString(current.dims()) + " rhs shape= " +
                                            ShapeString(value.dims()));
          return;
        }
      }
      if (!target.valid()) {
        target = ctx.ReallocateRefInput(0, value.dims());
        if (!ctx.ok()) return;
      }
      if (!CheckOnDevice(ctx, target, "variable")) return;
      if (value.byte_size() > 0) {
        std::memcpy(target.mutable_data<unsigned char>(), value.data<unsigned char>(),
                    value.byte_size());
      }
    }
    ctx.ForwardRefInputToRefOutput(0, 0);
  }

 private:
  bool validate_shape_ = true;
};

// AssignAdd (float), in place in device memory.
class AssignAddKernel {
 public:
  explicit AssignAddKernel(Construction&) {}
  void Compute(Context& ctx) {
    TensorView value = ctx.input(1);
    {
      Context::RefLock lock(ctx, 0, true);
      TensorMut var = ctx.MutableRefInput(0);
      if (!ctx.ok()) return;
      if (var.dims() != value.dims()) {
        ctx.Fail(TG_INVALID_ARGUMENT, "AssignAdd: shapes " + ShapeString(var.dims()) + " and " +
                                          ShapeString(value.dims()) + " differ");
        return;
      }
      if (!CheckOnDevice(ctx, var, "variable") || !CheckOnDevice(ctx, value, "value")) return;
      float* p = var.mutable_data<float>();
      const float* v = value.data<float>();
      for (int64_t i = 0; i < var.num_elements(); ++i) p[i] += v[i];
    }
    ctx.ForwardRefInputToRefOutput(0, 0);
  }
};

class NoOpKernel {
 public:
  explicit NoOpKernel(Construction&) {}
  void Compute(Context&) {}
};

// ---- TestDevStats ----

constexpr int64_t kNumStats = 7;

void StatsShape(ShapeContext& c) { c.SetOutput(0, {kNumStats}); }

class StatsKernel {
 public:
  explicit StatsKernel(Construction&) {}
  void Compute(Context& ctx) {
    TensorMut out = ctx.AllocateOutput(0, {kNumStats});
    if (!ctx.ok()) return;
    Stats& s = GetStats();
    int64_t live = 0;
    {
      std::lock_guard<std::mutex> lock(s.mu);
      live = static_cast<int64_t>(s.live.size());
    }
    int64_t* o = out.mutable_data<int64_t>();
    o[0] = s.h2d.load();
    o[1] = s.d2h.load();
    o[2] = s.d2d.load();
    o[3] = live;
    o[4] = s.bad_frees.load();
    o[5] = s.bad_accesses.load();
    o[6] = s.syncs.load();
  }
};

// ---- TestDecline: kernels that decline nodes (plugin ABI 6) ----
// y = x + kAdd, where each kernel adds its own amount, so tests see which one ran:
//   CPU priority 10: +1, declines mode "no_fast" and "nowhere";
//   CPU priority 0:  +2, declines mode "nowhere";
//   TESTACC:         +10, declines mode "no_device" and "nowhere".
template <int kAdd>
class DeclineKernel {
 public:
  DeclineKernel(Construction& c, std::initializer_list<const char*> declines) {
    std::string mode;
    if (!c.GetAttr("mode", &mode)) return;
    for (const char* d : declines) {
      if (mode == d) c.Decline("mode '" + mode + "' is not supported by the +" + std::to_string(kAdd) + " kernel");
    }
  }
  void Compute(Context& ctx) {
    TensorView x = ctx.input(0);
    TensorMut y = ctx.AllocateOutput(0, x.dims());
    if (!ctx.ok()) return;
    const float* xp = x.data<float>();
    float* yp = y.mutable_data<float>();
    for (int64_t i = 0; i < x.num_elements(); ++i) yp[i] = xp[i] + static_cast<float>(kAdd);
  }
};
struct DeclineFast : DeclineKernel<1> {
  explicit DeclineFast(Construction& c) : DeclineKernel<1>(c, {"no_fast", "nowhere"}) {}
};
struct DeclineFallback : DeclineKernel<2> {
  explicit DeclineFallback(Construction& c) : DeclineKernel<2>(c, {"nowhere"}) {}
};
struct DeclineOnDevice : DeclineKernel<10> {
  explicit DeclineOnDevice(Construction& c) : DeclineKernel<10>(c, {"no_device", "nowhere"}) {}
  void Compute(Context& ctx) {
    if (!CheckOnDevice(ctx, ctx.input(0), "input 0")) return;
    DeclineKernel<10>::Compute(ctx);
  }
};

}  // namespace

extern "C" TG_PLUGIN_EXPORT void TG_PluginInit(const TG_PluginInitArgs* args, TG_Status* status) {
  tgraph::plugin::Init init(args, status, "test_device", "1.0.0");

  init.Op(OpBuilder("TestDevStats")
              .Output("stats: int64")
              .Stateful()
              .Summary("TESTACC counters: [h2d, d2h, d2d copies, live buffers, bad frees, "
                       "bad accesses, synchronize calls]")
              .SetShapeFn(StatsShape));
  // A CPU kernel: its output is host memory the test reads directly.
  init.Kernel<StatsKernel>(KernelBuilder("TestDevStats", "CPU"));

  // Strings have no device representation; the numeric types the tests use are enough.
  const std::initializer_list<TG_DataType> numeric = {TG_FLOAT, TG_DOUBLE, TG_INT32, TG_INT64};
  init.Kernel<ConstKernel>(KernelBuilder("Const", kDeviceType).TypeConstraint("dtype", numeric));
  init.Kernel<IdentityKernel>(KernelBuilder("Identity", kDeviceType).TypeConstraint("T", numeric));
  init.Kernel<BinaryKernel<AddFn>>(
      KernelBuilder("AddV2", kDeviceType).TypeConstraint("T", TG_FLOAT));
  init.Kernel<BinaryKernel<MulFn>>(KernelBuilder("Mul", kDeviceType).TypeConstraint("T", TG_FLOAT));
  init.Kernel<NoOpKernel>(KernelBuilder("NoOp", kDeviceType));
  init.Kernel<VariableKernel>(KernelBuilder("VariableV2", kDeviceType).TypeConstraint("dtype", TG_FLOAT));
  init.Kernel<AssignKernel>(KernelBuilder("Assign", kDeviceType).TypeConstraint("T", TG_FLOAT));
  init.Kernel<AssignAddKernel>(KernelBuilder("AssignAdd", kDeviceType).TypeConstraint("T", TG_FLOAT));

  init.Op(OpBuilder("TestDecline")
              .Input("x: float")
              .Output("y: float")
              .Attr("mode: string = 'plain'")
              .Summary("y = x + (1, 2 or 10: which kernel took the node)")
              .SetShapeFn([](ShapeContext& c) { c.SetOutputSameAsInput(0, 0); }));
  init.Kernel<DeclineFast>(KernelBuilder("TestDecline", "CPU").Priority(10));
  init.Kernel<DeclineFallback>(KernelBuilder("TestDecline", "CPU"));
  init.Kernel<DeclineOnDevice>(KernelBuilder("TestDecline", kDeviceType));
  if (!init.ok()) return;

  TG_DeviceDefinition device;
  std::memset(&device, 0, sizeof device);
  device.struct_size = sizeof device;
  device.device_type = kDeviceType;
  device.device_count = DeviceCount;
  device.device_description = DeviceDescription;
  device.create_device = CreateDevice;
  device.destroy_device = DestroyDevice;
  device.allocate = Allocate;
  device.deallocate = Deallocate;
  device.copy_host_to_device = CopyHostToDevice;
  device.copy_device_to_host = CopyDeviceToHost;
  device.copy_device_to_device = CopyDeviceToDevice;
  device.synchronize = Synchronize;
  device.stream = Stream;
  device.host_accessible = 0;
  Api()->register_device(&device, status);
}
