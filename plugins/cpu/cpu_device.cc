// The "CPU" device: one device, host memory (64-byte aligned, for Eigen and SIMD), memcpy
// copies, nothing to synchronize.
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>

#include "cpu_kernels.h"

namespace tgraph_cpu {

// "host CPU (Eigen, x86-64-v3)": generated per variant of the plugin (plugins/cpu/CMakeLists.txt).
extern const char* const kDeviceDescription;

namespace {

constexpr size_t kMinAlignment = 64;

// The device state handed back to us in every call; nothing to keep but an identity.
struct CpuDevice {
  int ordinal = 0;
};
CpuDevice g_cpu;

int DeviceCount(void*) { return 1; }

const char* DeviceDescription(void*, int) { return kDeviceDescription; }

void* CreateDevice(void*, int ordinal, TG_Status* status) {
  if (ordinal != 0) {
    tgraph::plugin::SetStatus(status, TG_INVALID_ARGUMENT,
                              "CPU device ordinal " + std::to_string(ordinal) +
                                  " does not exist (there is one CPU device, ordinal 0)");
    return nullptr;
  }
  return &g_cpu;
}

void DestroyDevice(void*) {}

void* Allocate(void*, size_t bytes, size_t alignment, TG_Status* status) {
  if (alignment != 0 && (alignment & (alignment - 1)) != 0) {
    tgraph::plugin::SetStatus(status, TG_INVALID_ARGUMENT,
                              "CPU allocate: alignment " + std::to_string(alignment) +
                                  " is not a power of two");
    return nullptr;
  }
  const size_t align = alignment > kMinAlignment ? alignment : kMinAlignment;
  // aligned_alloc wants a multiple of the alignment; zero bytes still get a unique pointer.
  const size_t rounded = bytes == 0 ? align : (bytes + align - 1) / align * align;
  void* p = rounded < bytes ? nullptr : std::aligned_alloc(align, rounded);
  if (p == nullptr) {
    tgraph::plugin::SetStatus(status, TG_RESOURCE_EXHAUSTED,
                              "CPU allocate: out of memory allocating " + std::to_string(bytes) +
                                  " bytes");
  }
  return p;
}

void Deallocate(void*, void* ptr) { std::free(ptr); }

void Copy(void*, void* dst, const void* src, size_t bytes, TG_Status*) {
  if (bytes != 0 && dst != src) std::memmove(dst, src, bytes);
}

void Synchronize(void*, TG_Status*) {}

void* Stream(void*) { return nullptr; }

}  // namespace

void RegisterCpuDevice(tgraph::plugin::Init& init) {
  if (!init.ok()) return;
  TG_DeviceDefinition def;
  std::memset(&def, 0, sizeof(def));
  def.struct_size = sizeof(def);
  def.device_type = "CPU";
  def.user_data = nullptr;
  def.device_count = &DeviceCount;
  def.device_description = &DeviceDescription;
  def.create_device = &CreateDevice;
  def.destroy_device = &DestroyDevice;
  def.allocate = &Allocate;
  def.deallocate = &Deallocate;
  def.copy_host_to_device = &Copy;
  def.copy_device_to_host = &Copy;
  def.copy_device_to_device = &Copy;
  def.synchronize = &Synchronize;
  def.stream = &Stream;
  def.host_accessible = 1;
  tgraph::plugin::Api()->register_device(&def, init.status());
}

}  // namespace tgraph_cpu
