// Shared pieces of the CUDA plugin's host side: the device state, the device type chosen at
// load, and the helpers every kernel class uses to reach its device, its stream and its
// tensors' device pointers, and to turn CUDA / cuBLAS errors into node statuses.
//
// What a device pointer is here: allocate returns a plain CUDA device pointer (from the
// device's stream-ordered pool), and the core hands it back verbatim as the tensor's data,
// through copies, aliases (Identity, Reshape) and forwarding. A zero-byte tensor has no
// buffer (tensor_data is NULL): kernels return before launching anything for it.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "device_common/host_shapes.h"
#include "device_common/int_sized.h"
#include "tgraph/plugin.hpp"

namespace tgraph_cuda {

// "GPU", or "CUDA_GPU" when another backend loaded first took "GPU" (see
// tgraph::plugin::ChooseDeviceType); set once in TG_PluginInit, before any kernel exists.
const std::string& DeviceType();

// One CUDA device: its ordinal, a non-blocking stream every kernel, copy, allocation and
// free of this plugin is queued on (so the executor's data dependencies order them), and a
// cuBLAS handle bound to that stream, made on first use.
class CudaDevice {
 public:
  CudaDevice(int ordinal, cudaStream_t stream, bool pools)
      : ordinal_(ordinal), stream_(stream), pools_(pools) {}
  int ordinal() const { return ordinal_; }
  cudaStream_t stream() const { return stream_; }
  // Whether the device has stream-ordered memory pools (cudaMallocAsync); every GPU the
  // plugin is built for does, with a recent enough driver.
  bool pools() const { return pools_; }
  // "/device:GPU:0", for messages.
  std::string name() const;

  // The cuBLAS handle, created on first call. Calls on one handle from several threads must
  // not overlap: hold blas_mutex() from setting up a call until it has been enqueued.
  // NULL with *status set when cuBLAS cannot be initialized.
  cublasHandle_t Blas(cublasStatus_t* status);
  std::mutex& blas_mutex() { return blas_mu_; }

 private:
  int ordinal_;
  cudaStream_t stream_;
  bool pools_;
  std::mutex blas_mu_;
  cublasHandle_t blas_ = nullptr;  // guarded by blas_mu_ while being created
};

// The status code for a CUDA error: RESOURCE_EXHAUSTED for running out of memory.
TG_Code CodeOf(cudaError_t err);
// "cudaErrorInvalidValue: invalid argument".
std::string CudaErrorString(cudaError_t err);

// The device a kernel runs on, made current on this thread (cudaSetDevice: computes run on
// the executor's threads). NULL after failing the node when that fails.
CudaDevice* BindDevice(tgraph::plugin::Context& ctx);

// Fails the node with `what` and the CUDA error unless `err` is cudaSuccess.
bool CudaOk(tgraph::plugin::Context& ctx, cudaError_t err, const std::string& what);

// The device pointer of a tensor (NULL for a zero-byte tensor).
template <typename T>
T* DataOf(const tgraph::plugin::TensorView& t) {
  return static_cast<T*>(tgraph::plugin::Api()->tensor_data(t.raw()));
}

// Element counts handed to the device code are ints: bigger tensors are refused.
bool CheckIntSized(tgraph::plugin::Context& ctx, int64_t n, const char* what);

// Every kernel of the plugin is registered through AddDeviceKernel: a node with a tensor
// statically known to have 2^31 elements or more is declined at creation and placed
// elsewhere (the CPU), while CheckIntSized above still refuses sizes known only at run time
// (device_common/int_sized.h).
struct CudaBackend {
  static constexpr const char* kName = "CUDA";
};
template <typename K>
void AddDeviceKernel(tgraph::plugin::Init& init, const tgraph::plugin::KernelBuilder& builder) {
  init.Kernel<tgraph_device_common::IntSizedKernel<CudaBackend, K>>(builder);
}

// `data` (not empty) copied into a device temporary (an index plan, alive until the kernel's
// compute returns); NULL after failing the node.
const int32_t* Upload(tgraph::plugin::Context& ctx, CudaDevice& dev,
                      const std::vector<int32_t>& data);

// Reads a one-element flag the device code atomicMin'ed into (set to kNoFlag before the
// launch): waits for the stream. Returns false after failing the node on a CUDA error.
constexpr int kNoFlag = 0x7f7f7f7f;  // what cudaMemsetAsync(..., 0x7f, 4) writes
bool ReadFlag(tgraph::plugin::Context& ctx, CudaDevice& dev, const int* flag, int* value);

using tgraph_device_common::ShapeString;

}  // namespace tgraph_cuda
