// The "GPU" device type on OpenCL: discovery, the allocator (cl::Buffer behind a ClBuffer
// handle, see cl_common.h), copies, synchronize, the program cache and the launch helper.
//
// Discovery (once, at plugin load): TGRAPH_OPENCL_PLATFORM picks the platform by index
// ("1") or by a case-insensitive substring of its name ("pocl"); without it, the first
// platform that has a device. Every device of that platform becomes /device:GPU:N (or
// OPENCL_GPU:N, see DeviceType), all in one context (so device-to-device copies are plain
// buffer copies), each with one in-order queue. No platform, or none matching, is not an
// error: the plugin loads, logs one line saying why it has no device, and registers
// nothing (no device type, no kernels), so another backend may still take "GPU".
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <vector>

#include "cl_common.h"
#include "device_common/device_log.h"
#include "cl_kernels.h"
#include "cl_sources.h"

namespace tgraph_opencl {
namespace {

using tgraph::plugin::Api;
using tgraph::plugin::SetStatus;

// What discovery found. Devices are created on first use and never destroyed: the core may
// free device buffers while the process exits, after this library's static destructors.
struct Discovery {
  cl::Context context;
  std::vector<cl::Device> devices;
  std::vector<std::string> descriptions;
  std::vector<ClDevice*> created;  // by ordinal, NULL until create_device
  std::mutex mu;
};

Discovery& Found() {
  static Discovery* d = new Discovery();
  return *d;
}

// Set once by RegisterDevice (plugin load is single-threaded), read by kernels afterwards.
std::string& DeviceTypeSlot() {
  static std::string* type = new std::string("GPU");
  return *type;
}

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// The platform to use, or an explanation of why there is none in *why.
bool ChoosePlatform(cl::Platform* chosen, std::string* why) {
  std::vector<cl::Platform> platforms;
  try {
    cl::Platform::get(&platforms);
  } catch (const cl::Error& e) {
    *why = "no OpenCL platform (" + std::string(e.what()) + ": error " + std::to_string(e.err()) +
           ")";
    return false;
  }
  if (platforms.empty()) {
    *why = "no OpenCL platform";
    return false;
  }
  std::vector<std::string> names;
  for (const auto& p : platforms) names.push_back(p.getInfo<CL_PLATFORM_NAME>());
  const char* env = std::getenv("TGRAPH_OPENCL_PLATFORM");
  if (env != nullptr && *env != '\0') {
    const std::string want = env;
    const bool is_index = std::all_of(want.begin(), want.end(),
                                      [](unsigned char c) { return std::isdigit(c) != 0; });
    for (size_t i = 0; i < platforms.size(); ++i) {
      const bool match = is_index ? want == std::to_string(i)
                                  : Lower(names[i]).find(Lower(want)) != std::string::npos;
      if (match) {
        *chosen = platforms[i];
        return true;
      }
    }
    std::string list;
    for (size_t i = 0; i < names.size(); ++i) {
      list += (i ? ", " : "") + std::to_string(i) + ": " + names[i];
    }
    *why = "TGRAPH_OPENCL_PLATFORM='" + want + "' matches no platform (" + list + ")";
    return false;
  }
  for (const auto& p : platforms) {
    std::vector<cl::Device> devices;
    try {
      p.getDevices(CL_DEVICE_TYPE_ALL, &devices);
    } catch (const cl::Error&) {
      continue;  // CL_DEVICE_NOT_FOUND
    }
    if (!devices.empty()) {
      *chosen = p;
      return true;
    }
  }
  *why = "no OpenCL platform has a device";
  return false;
}

void Discover() {
  Discovery& d = Found();
  cl::Platform platform;
  std::string why;
  if (ChoosePlatform(&platform, &why)) {
    try {
      std::vector<cl::Device> devices;
      platform.getDevices(CL_DEVICE_TYPE_ALL, &devices);
      d.context = cl::Context(devices);
      d.devices = devices;
      const std::string pname = platform.getInfo<CL_PLATFORM_NAME>();
      for (const auto& dev : devices) {
        d.descriptions.push_back(pname + " / " + dev.getInfo<CL_DEVICE_NAME>() + " (" +
                                 dev.getInfo<CL_DEVICE_VERSION>() + ")");
      }
    } catch (const cl::Error& e) {
      d.devices.clear();
      d.descriptions.clear();
      why = std::string("the OpenCL platform's devices are unusable (") + e.what() + ": error " +
            std::to_string(e.err()) + ")";
    }
  }
  d.created.assign(d.devices.size(), nullptr);
  if (d.devices.empty()) {
    // Quiet: see the CUDA plugin's twin; the line stays on the plugin's record.
    Api()->log(TG_LOG_INFO,
               ("opencl plugin: no device (" + why + "); registering no device type or kernels")
                   .c_str());
  }
}

void LogDevices() {
  const Discovery& d = Found();
  Api()->log(TG_LOG_INFO,
             tgraph_device_common::DevicesLine("opencl", DeviceType(), d.descriptions).c_str());
}

// ---- the device callbacks ----

int DeviceCount(void*) { return static_cast<int>(Found().devices.size()); }

const char* DeviceDescription(void*, int ordinal) {
  const Discovery& d = Found();
  if (ordinal < 0 || static_cast<size_t>(ordinal) >= d.descriptions.size()) return "none";
  return d.descriptions[static_cast<size_t>(ordinal)].c_str();
}

void* CreateDevice(void*, int ordinal, TG_Status* status) {
  Discovery& d = Found();
  if (ordinal < 0 || static_cast<size_t>(ordinal) >= d.devices.size()) {
    SetStatus(status, TG_INVALID_ARGUMENT,
              DeviceName(ordinal) + " does not exist (the OpenCL plugin has " +
                  std::to_string(d.devices.size()) + " device(s))");
    return nullptr;
  }
  std::lock_guard<std::mutex> lock(d.mu);
  ClDevice*& dev = d.created[static_cast<size_t>(ordinal)];
  if (dev == nullptr) {
    try {
      dev = new ClDevice(ordinal, d.devices[static_cast<size_t>(ordinal)]);
    } catch (const cl::Error& e) {
      SetStatus(status, TG_INTERNAL,
                "creating " + DeviceName(ordinal) + ": " + e.what() +
                    ": OpenCL error " + std::to_string(e.err()));
      return nullptr;
    }
  }
  return dev;
}

// Devices live for the process (see Discovery).
void DestroyDevice(void*) {}

TG_Code CodeOf(cl_int err) {
  return err == CL_MEM_OBJECT_ALLOCATION_FAILURE || err == CL_OUT_OF_RESOURCES ||
                 err == CL_OUT_OF_HOST_MEMORY || err == CL_INVALID_BUFFER_SIZE
             ? TG_RESOURCE_EXHAUSTED
             : TG_INTERNAL;
}

void SetClStatus(TG_Status* status, void* state, const char* what, const cl::Error& e) {
  SetStatus(status, CodeOf(e.err()),
            DeviceName(static_cast<ClDevice*>(state)->ordinal()) + " " + what + ": " + e.what() + ": OpenCL error " + std::to_string(e.err()));
}

void* Allocate(void* state, size_t bytes, size_t, TG_Status* status) {
  // Buffers are at least as aligned as the device's base-address alignment (>= 128 bytes
  // on every OpenCL 1.2 device), so the requested alignment always holds.
  auto* b = new ClBuffer();
  b->bytes = bytes;
  if (bytes == 0) return b;  // no cl_mem: OpenCL has no empty buffers
  try {
    b->mem = cl::Buffer(Found().context, CL_MEM_READ_WRITE, bytes);
  } catch (const cl::Error& e) {
    delete b;
    SetClStatus(status, state, ("allocating " + std::to_string(bytes) + " bytes").c_str(), e);
    return nullptr;
  }
  return b;
}

// Releasing the cl_mem is safe with kernels still queued on it: OpenCL frees the memory once
// they complete.
void Deallocate(void*, void* ptr) { delete static_cast<ClBuffer*>(ptr); }

// Non-blocking, ordered on the device's in-order queue after the kernels already enqueued
// (a blocking write would wait for all of them). The caller may free or reuse `src` as soon
// as this returns, so it is first copied into a staging block the device owns until the
// write has completed (ClDevice::Stage; reaped here and at Synchronize).
void CopyHostToDevice(void* state, void* dst, const void* src, size_t bytes, TG_Status* status) {
  if (bytes == 0) return;
  auto* dev = static_cast<ClDevice*>(state);
  dev->ReapStaging();
  std::unique_ptr<unsigned char[]> staging(new (std::nothrow) unsigned char[bytes]);
  if (staging == nullptr) {
    SetStatus(status, TG_RESOURCE_EXHAUSTED,
              DeviceName(dev->ordinal()) + " copy to the device: cannot allocate " +
                  std::to_string(bytes) + " bytes of staging memory");
    return;
  }
  std::memcpy(staging.get(), src, bytes);
  cl::Event done;
  try {
    dev->queue().enqueueWriteBuffer(static_cast<ClBuffer*>(dst)->mem, CL_FALSE, 0, bytes,
                                    staging.get(), nullptr, &done);
  } catch (const cl::Error& e) {
    SetClStatus(status, state, "copy to the device", e);
    return;
  }
  try {
    dev->Stage(done, staging);
  } catch (const std::exception&) {
    // The block could not be kept (out of memory): it stays here until the write is done.
    try {
      done.wait();
    } catch (const cl::Error& e) {
      SetClStatus(status, state, "copy to the device", e);
    }
  }
}

// Non-blocking: the core synchronizes the device (Synchronize: the queue finishes) before it
// reads `dst` (core/exec/device_copy.cc), and `dst` is the core's, alive until then.
void CopyDeviceToHost(void* state, void* dst, const void* src, size_t bytes, TG_Status* status) {
  if (bytes == 0) return;
  try {
    static_cast<ClDevice*>(state)->queue().enqueueReadBuffer(
        static_cast<const ClBuffer*>(src)->mem, CL_FALSE, 0, bytes, dst);
  } catch (const cl::Error& e) {
    SetClStatus(status, state, "copy to the host", e);
  }
}

// One context holds every device, so a buffer copy works between any two of them; it is
// queued on `state`'s queue (the executor has synchronized the source first).
void CopyDeviceToDevice(void* state, void* dst, const void* src, size_t bytes,
                        TG_Status* status) {
  if (bytes == 0) return;
  try {
    static_cast<ClDevice*>(state)->queue().enqueueCopyBuffer(
        static_cast<const ClBuffer*>(src)->mem, static_cast<ClBuffer*>(dst)->mem, 0, 0, bytes);
  } catch (const cl::Error& e) {
    SetClStatus(status, state, "copy between devices", e);
  }
}

void Synchronize(void* state, TG_Status* status) {
  auto* dev = static_cast<ClDevice*>(state);
  try {
    dev->queue().finish();
  } catch (const cl::Error& e) {
    SetClStatus(status, state, "synchronize", e);
  }
  dev->ReapStaging();
}

void* Stream(void* state) { return static_cast<ClDevice*>(state)->queue()(); }

}  // namespace

// ---- ClDevice ----

ClDevice::ClDevice(int ordinal, cl::Device device)
    : ordinal_(ordinal), device_(std::move(device)), context_(Found().context),
      queue_(context_, device_) {
  size_t max_wg = device_.getInfo<CL_DEVICE_MAX_WORK_GROUP_SIZE>();
  // Tests set this to run the small-work-group kernels (tile 8) on a device that has big ones.
  const char* cap = std::getenv("TGRAPH_OPENCL_MAX_WORK_GROUP");
  if (cap != nullptr && std::atoi(cap) > 0) {
    max_wg = std::min(max_wg, static_cast<size_t>(std::atoi(cap)));
  }
  tile_ = max_wg >= 256 ? 16 : max_wg >= 64 ? 8 : max_wg >= 16 ? 4 : 1;
  reduce_group_ = 1;
  while (reduce_group_ * 2 <= 64 && static_cast<size_t>(reduce_group_) * 2 <= max_wg) {
    reduce_group_ *= 2;
  }
}

void ClDevice::Stage(const cl::Event& done, std::unique_ptr<unsigned char[]>& block) {
  std::lock_guard<std::mutex> lock(staging_mu_);
  // emplace_back either takes the block or throws leaving it with the caller.
  staging_.emplace_back(done, std::move(block));
}

void ClDevice::ReapStaging() {
  std::lock_guard<std::mutex> lock(staging_mu_);
  std::erase_if(staging_, [](const auto& entry) {
    cl_int state = CL_QUEUED;
    // CL_COMPLETE, or a negative error code: the command is over either way. A failed
    // query keeps the block (it is reaped at a later call).
    if (clGetEventInfo(entry.first(), CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof state, &state,
                       nullptr) != CL_SUCCESS) {
      return false;
    }
    return state == CL_COMPLETE || state < 0;
  });
}

KernelSlot& ClDevice::Kernel(const std::string& program, const std::string& kernel) {
  std::lock_guard<std::mutex> lock(mu_);
  auto key = std::make_pair(program, kernel);
  auto it = kernels_.find(key);
  if (it != kernels_.end()) return *it->second;
  auto p = programs_.find(program);
  if (p == programs_.end()) {
    const char* source = ProgramSource(program);
    if (source == nullptr) throw std::runtime_error("no OpenCL program named " + program);
    cl::Program built(context_, std::string(source));
    const std::string options = "-cl-std=CL1.2 -DTS=" + std::to_string(tile_) +
                                " -DRG=" + std::to_string(reduce_group_);
    try {
      built.build(std::vector<cl::Device>{device_}, options.c_str());
    } catch (const cl::Error& e) {
      std::string log;
      try {
        log = built.getBuildInfo<CL_PROGRAM_BUILD_LOG>(device_);
      } catch (const cl::Error&) {
      }
      throw std::runtime_error("building OpenCL program '" + program + "' failed (error " +
                               std::to_string(e.err()) + "): " + log);
    }
    Api()->log(TG_LOG_INFO,
               ("opencl plugin: built program '" + program + "' for " + DeviceName(ordinal_))
                   .c_str());
    p = programs_.emplace(program, std::move(built)).first;
  }
  auto slot = std::make_unique<KernelSlot>();
  slot->kernel = cl::Kernel(p->second, kernel.c_str());
  return *kernels_.emplace(key, std::move(slot)).first->second;
}

// ---- helpers for kernels ----

void FailFromClError(tgraph::plugin::Context& ctx, const std::exception& e, const char* what) {
  std::string message = std::string(what) + ": " + e.what();
  TG_Code code = TG_INTERNAL;
  if (const auto* cl_error = dynamic_cast<const cl::Error*>(&e)) {
    message += ": OpenCL error " + std::to_string(cl_error->err());
    code = CodeOf(cl_error->err());
  }
  ctx.Fail(code, message);
}

bool Launch(tgraph::plugin::Context& ctx, const char* program, const char* kernel,
            const std::vector<Arg>& args, std::vector<size_t> global,
            std::vector<size_t> local) {
  try {
    ClDevice& dev = DeviceOf(ctx);
    KernelSlot& slot = dev.Kernel(program, kernel);
    for (size_t d = 0; d < local.size() && d < global.size(); ++d) {
      global[d] = (global[d] + local[d] - 1) / local[d] * local[d];
    }
    auto range = [](const std::vector<size_t>& r) {
      return r.size() == 1 ? cl::NDRange(r[0]) : cl::NDRange(r[0], r[1]);
    };
    std::lock_guard<std::mutex> lock(slot.mu);
    cl_uint i = 0;
    for (const Arg& a : args) slot.kernel.setArg(i++, a.size, a.value);
    dev.queue().enqueueNDRangeKernel(slot.kernel, cl::NullRange, range(global),
                                     local.empty() ? cl::NullRange : range(local));
    return true;
  } catch (const std::exception& e) {
    FailFromClError(ctx, e, kernel);
    return false;
  }
}

cl::Buffer Upload(tgraph::plugin::Context& ctx, const std::vector<int32_t>& data) {
  try {
    return cl::Buffer(DeviceOf(ctx).context(), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                      data.size() * sizeof(int32_t), const_cast<int32_t*>(data.data()));
  } catch (const std::exception& e) {
    FailFromClError(ctx, e, "uploading the index plan");
    return cl::Buffer();
  }
}

bool CheckIntSized(tgraph::plugin::Context& ctx, int64_t n, const char* what) {
  if (n <= 0x7fffffff) return true;
  ctx.Fail(TG_UNIMPLEMENTED, std::string(what) + " has " + std::to_string(n) +
                                 " elements; OpenCL kernels take at most 2^31 - 1");
  return false;
}

const std::string& DeviceType() { return DeviceTypeSlot(); }

std::string DeviceName(int ordinal) {
  return "/device:" + DeviceType() + ":" + std::to_string(ordinal);
}

bool RegisterDevice(tgraph::plugin::Init& init) {
  if (!init.ok()) return false;
  Discover();
  if (Found().devices.empty()) return false;
  DeviceTypeSlot() =
      tgraph::plugin::ChooseDeviceType("TGRAPH_OPENCL_DEVICE_TYPE", "GPU", "OPENCL_GPU");
  LogDevices();
  TG_DeviceDefinition def;
  std::memset(&def, 0, sizeof def);
  def.struct_size = sizeof def;
  def.device_type = DeviceType().c_str();
  def.device_count = &DeviceCount;
  def.device_description = &DeviceDescription;
  def.create_device = &CreateDevice;
  def.destroy_device = &DestroyDevice;
  def.allocate = &Allocate;
  def.deallocate = &Deallocate;
  def.copy_host_to_device = &CopyHostToDevice;
  def.copy_device_to_host = &CopyDeviceToHost;
  def.copy_device_to_device = &CopyDeviceToDevice;
  def.synchronize = &Synchronize;
  def.stream = &Stream;
  def.host_accessible = 0;
  Api()->register_device(&def, init.status());
  return init.ok();
}

}  // namespace tgraph_opencl
