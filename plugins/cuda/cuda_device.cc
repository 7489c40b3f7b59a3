// The CUDA device type: discovery, the allocator (stream-ordered: cudaMallocAsync and
// cudaFreeAsync on the device's stream, so a buffer freed by the core is reused only after
// the work queued on it), asynchronous copies, synchronize, and the helpers of cuda_common.h.
//
// Discovery happens once, at plugin load: cudaGetDeviceCount. The runtime is linked
// statically and looks for the driver (libcuda) then; without a driver, or without a GPU,
// it reports an error (cudaErrorInsufficientDriver, cudaErrorNoDevice), and the plugin says
// "no device" and registers nothing at all.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "cuda_common.h"
#include "device_common/device_log.h"
#include "cuda_kernels.h"

namespace tgraph_cuda {
namespace {

using tgraph::plugin::Api;
using tgraph::plugin::SetStatus;

// What discovery found. Devices are created on first use and never destroyed: the core may
// free device buffers while the process exits, after this library's static destructors.
struct Discovery {
  std::string device_type = "GPU";
  std::vector<std::string> descriptions;  // one per device
  std::vector<CudaDevice*> created;       // by ordinal, NULL until create_device
  std::mutex mu;
};

Discovery& Found() {
  static Discovery* d = new Discovery();
  return *d;
}

std::string DeviceName(int ordinal) {
  return "/device:" + Found().device_type + ":" + std::to_string(ordinal);
}

// The devices, or the reason there are none (empty result, *why set).
std::vector<std::string> Discover(std::string* why) {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) {
    *why = cudaGetErrorString(err);
    return {};
  }
  if (count <= 0) {
    *why = "the CUDA runtime found no device";
    return {};
  }
  std::vector<std::string> descriptions;
  for (int i = 0; i < count; ++i) {
    cudaDeviceProp prop;
    if (cudaGetDeviceProperties(&prop, i) != cudaSuccess) {
      descriptions.push_back("CUDA device " + std::to_string(i));
      continue;
    }
    descriptions.push_back(std::string(prop.name) + " (sm_" + std::to_string(prop.major) +
                           std::to_string(prop.minor) + ", " +
                           std::to_string(prop.totalGlobalMem >> 20) + " MiB)");
  }
  return descriptions;
}

// ---- the device callbacks ----

int DeviceCount(void*) { return static_cast<int>(Found().descriptions.size()); }

const char* DeviceDescription(void*, int ordinal) {
  const Discovery& d = Found();
  if (ordinal < 0 || static_cast<size_t>(ordinal) >= d.descriptions.size()) return "none";
  return d.descriptions[static_cast<size_t>(ordinal)].c_str();
}

void SetCudaStatus(TG_Status* status, int ordinal, const std::string& what, cudaError_t err) {
  SetStatus(status, CodeOf(err), DeviceName(ordinal) + " " + what + ": " + CudaErrorString(err));
}

void* CreateDevice(void*, int ordinal, TG_Status* status) {
  Discovery& d = Found();
  if (ordinal < 0 || static_cast<size_t>(ordinal) >= d.descriptions.size()) {
    SetStatus(status, TG_INVALID_ARGUMENT,
              DeviceName(ordinal) + " does not exist (the CUDA plugin has " +
                  std::to_string(d.descriptions.size()) + " device(s))");
    return nullptr;
  }
  std::lock_guard<std::mutex> lock(d.mu);
  CudaDevice*& dev = d.created[static_cast<size_t>(ordinal)];
  if (dev != nullptr) return dev;
  cudaError_t err = cudaSetDevice(ordinal);
  cudaStream_t stream = nullptr;
  if (err == cudaSuccess) err = cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
  if (err != cudaSuccess) {
    SetCudaStatus(status, ordinal, "creating its stream", err);
    return nullptr;
  }
  int pools = 0;
  if (cudaDeviceGetAttribute(&pools, cudaDevAttrMemoryPoolsSupported, ordinal) != cudaSuccess) {
    pools = 0;
  }
  if (pools != 0) {
    // Keep freed memory in the pool across synchronizations (the default threshold 0 hands
    // it back to the driver at every stream sync, which makes each run allocate afresh).
    cudaMemPool_t pool = nullptr;
    uint64_t keep = UINT64_MAX;
    if (cudaDeviceGetDefaultMemPool(&pool, ordinal) == cudaSuccess) {
      cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep);
    }
  }
  dev = new CudaDevice(ordinal, stream, pools != 0);
  return dev;
}

// Devices live for the process (see Discovery).
void DestroyDevice(void*) {}

// What allocate returns for zero bytes (the core never reads it: tensor_data is NULL for
// zero-byte tensors); never handed to CUDA.
char empty_allocation;

void* Allocate(void* state, size_t bytes, size_t, TG_Status* status) {
  // CUDA allocations are aligned to at least 256 bytes: any requested alignment holds.
  auto* dev = static_cast<CudaDevice*>(state);
  if (bytes == 0) return &empty_allocation;
  void* p = nullptr;
  cudaError_t err = cudaSetDevice(dev->ordinal());
  if (err == cudaSuccess) {
    err = dev->pools() ? cudaMallocAsync(&p, bytes, dev->stream()) : cudaMalloc(&p, bytes);
  }
  if (err != cudaSuccess) {
    SetCudaStatus(status, dev->ordinal(), "allocating " + std::to_string(bytes) + " bytes", err);
    return nullptr;
  }
  return p;
}

// Ordered after the work already queued on the stream (cudaFree, without pools, waits for
// the whole device). Errors cannot be reported from here; the runtime may also be shutting
// down when the last tensors go at process exit.
void Deallocate(void* state, void* ptr) {
  if (ptr == &empty_allocation || ptr == nullptr) return;
  auto* dev = static_cast<CudaDevice*>(state);
  if (cudaSetDevice(dev->ordinal()) != cudaSuccess) return;
  if (dev->pools()) {
    cudaFreeAsync(ptr, dev->stream());
  } else {
    cudaFree(ptr);
  }
}

// Queued on the stream. From pageable host memory (what the core passes) cudaMemcpyAsync
// returns once the source has been staged, so the caller may free it right away.
void CopyHostToDevice(void* state, void* dst, const void* src, size_t bytes, TG_Status* status) {
  if (bytes == 0) return;
  auto* dev = static_cast<CudaDevice*>(state);
  cudaError_t err = cudaSetDevice(dev->ordinal());
  if (err == cudaSuccess) {
    err = cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, dev->stream());
  }
  if (err != cudaSuccess) SetCudaStatus(status, dev->ordinal(), "copy to the device", err);
}

// Queued on the stream after the work that produces `src`; the core synchronizes before it
// reads `dst`. Into pageable memory (what the core passes) the call itself may wait for the
// stream; since the core synchronizes the device right after every copy to the host
// (core/exec/device_copy.cc), a pinned staging block would not let the host go on sooner.
void CopyDeviceToHost(void* state, void* dst, const void* src, size_t bytes, TG_Status* status) {
  if (bytes == 0) return;
  auto* dev = static_cast<CudaDevice*>(state);
  cudaError_t err = cudaSetDevice(dev->ordinal());
  if (err == cudaSuccess) {
    err = cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, dev->stream());
  }
  if (err != cudaSuccess) SetCudaStatus(status, dev->ordinal(), "copy to the host", err);
}

// Issued by the destination (the core has synchronized the source's device first). Within
// one device the copy is queued on the stream like any kernel. From another device it is a
// peer copy, waited for here: the source's buffer may be freed on its own stream as soon as
// this returns, and that stream does not wait for ours.
void CopyDeviceToDevice(void* state, void* dst, const void* src, size_t bytes,
                        TG_Status* status) {
  if (bytes == 0) return;
  auto* dev = static_cast<CudaDevice*>(state);
  cudaError_t err = cudaSetDevice(dev->ordinal());
  cudaPointerAttributes attrs;
  if (err == cudaSuccess) err = cudaPointerGetAttributes(&attrs, src);
  if (err == cudaSuccess && attrs.type == cudaMemoryTypeDevice &&
      attrs.device != dev->ordinal()) {
    err = cudaMemcpyPeerAsync(dst, dev->ordinal(), src, attrs.device, bytes, dev->stream());
    if (err == cudaSuccess) err = cudaStreamSynchronize(dev->stream());
  } else if (err == cudaSuccess) {
    err = cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, dev->stream());
  }
  if (err != cudaSuccess) SetCudaStatus(status, dev->ordinal(), "copy between devices", err);
}

// Waits for everything queued on the device's stream; an asynchronous failure of a kernel
// queued earlier surfaces here.
void Synchronize(void* state, TG_Status* status) {
  auto* dev = static_cast<CudaDevice*>(state);
  cudaError_t err = cudaSetDevice(dev->ordinal());
  if (err == cudaSuccess) err = cudaStreamSynchronize(dev->stream());
  if (err != cudaSuccess) SetCudaStatus(status, dev->ordinal(), "synchronize", err);
}

void* Stream(void* state) { return static_cast<CudaDevice*>(state)->stream(); }

}  // namespace

// ---- cuda_common.h ----

const std::string& DeviceType() { return Found().device_type; }

std::string CudaDevice::name() const { return DeviceName(ordinal_); }

cublasHandle_t CudaDevice::Blas(cublasStatus_t* status) {
  *status = CUBLAS_STATUS_SUCCESS;
  if (blas_ != nullptr) return blas_;
  cublasHandle_t handle = nullptr;
  *status = cublasCreate(&handle);
  if (*status != CUBLAS_STATUS_SUCCESS) return nullptr;
  *status = cublasSetStream(handle, stream_);
  if (*status != CUBLAS_STATUS_SUCCESS) {
    cublasDestroy(handle);
    return nullptr;
  }
  blas_ = handle;
  return blas_;
}

TG_Code CodeOf(cudaError_t err) {
  return err == cudaErrorMemoryAllocation ? TG_RESOURCE_EXHAUSTED : TG_INTERNAL;
}

std::string CudaErrorString(cudaError_t err) {
  return std::string(cudaGetErrorName(err)) + ": " + cudaGetErrorString(err);
}

CudaDevice* BindDevice(tgraph::plugin::Context& ctx) {
  auto* dev = static_cast<CudaDevice*>(ctx.device_state());
  const cudaError_t err = cudaSetDevice(dev->ordinal());
  if (err != cudaSuccess) {
    ctx.Fail(CodeOf(err), "selecting " + dev->name() + ": " + CudaErrorString(err));
    return nullptr;
  }
  return dev;
}

bool CudaOk(tgraph::plugin::Context& ctx, cudaError_t err, const std::string& what) {
  if (err == cudaSuccess) return true;
  ctx.Fail(CodeOf(err), what + ": " + CudaErrorString(err));
  return false;
}

bool CheckIntSized(tgraph::plugin::Context& ctx, int64_t n, const char* what) {
  if (n <= 0x7fffffff) return true;
  ctx.Fail(TG_UNIMPLEMENTED, std::string(what) + " has " + std::to_string(n) +
                                 " elements; the CUDA kernels take at most 2^31 - 1");
  return false;
}

const int32_t* Upload(tgraph::plugin::Context& ctx, CudaDevice& dev,
                      const std::vector<int32_t>& data) {
  tgraph::plugin::TensorMut temp =
      ctx.AllocateTemp(TG_INT32, {static_cast<int64_t>(data.size())});
  if (!ctx.ok()) return nullptr;
  int32_t* p = DataOf<int32_t>(temp);
  if (!CudaOk(ctx,
              cudaMemcpyAsync(p, data.data(), data.size() * sizeof(int32_t),
                              cudaMemcpyHostToDevice, dev.stream()),
              "uploading the index plan")) {
    return nullptr;
  }
  return p;
}

bool ReadFlag(tgraph::plugin::Context& ctx, CudaDevice& dev, const int* flag, int* value) {
  return CudaOk(ctx,
                cudaMemcpyAsync(value, flag, sizeof(int), cudaMemcpyDeviceToHost, dev.stream()),
                "reading the check flag back") &&
         CudaOk(ctx, cudaStreamSynchronize(dev.stream()), "waiting for the check");
}

bool RegisterDevice(tgraph::plugin::Init& init) {
  if (!init.ok()) return false;
  Discovery& d = Found();
  std::string why;
  d.descriptions = Discover(&why);
  if (d.descriptions.empty()) {
    const std::string line = "cuda plugin: no device (" + why + "); registering nothing";
    // Quiet: a machine without a GPU is normal, and every process would print it. The line
    // stays on the plugin's record (TG_PluginMessage, `tgraph plugins`).
    Api()->log(TG_LOG_INFO, line.c_str());
    return false;
  }
  d.created.assign(d.descriptions.size(), nullptr);
  d.device_type = tgraph::plugin::ChooseDeviceType("TGRAPH_CUDA_DEVICE_TYPE", "GPU", "CUDA_GPU");
  Api()->log(TG_LOG_INFO,
             tgraph_device_common::DevicesLine("cuda", d.device_type, d.descriptions).c_str());

  TG_DeviceDefinition def;
  std::memset(&def, 0, sizeof def);
  def.struct_size = sizeof def;
  def.device_type = d.device_type.c_str();
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

}  // namespace tgraph_cuda
