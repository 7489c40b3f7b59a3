// Shared pieces of the OpenCL plugin: the device state, the device-buffer handle kernels
// get from tensor_data, the per-device program cache and the launch helpers.
//
// What a device pointer is here: allocate returns a `ClBuffer*` (a small host struct owning
// one cl_mem), and the core hands that pointer back verbatim as the tensor's data, through
// copies, aliases (Identity, Reshape) and forwarding. Kernels never dereference it as
// elements; they take `BufferOf(tensor)` and pass the cl_mem to an OpenCL kernel. A
// zero-byte tensor has no buffer (OpenCL has no empty buffers): tensor_data is NULL then,
// and kernels return before launching anything.
#pragma once

#include <CL/opencl.hpp>

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "device_common/host_shapes.h"
#include "device_common/int_sized.h"
#include "tgraph/plugin.hpp"

namespace tgraph_opencl {

// The device type the plugin registers its devices and kernels under: "GPU" unless another
// GPU backend loaded first took it ("OPENCL_GPU" then), or TGRAPH_OPENCL_DEVICE_TYPE names
// one. Fixed once by RegisterDevice, before any kernel is registered.
const std::string& DeviceType();
// "/device:<type>:<ordinal>", for messages.
std::string DeviceName(int ordinal);

struct ClBuffer {
  cl::Buffer mem;
  size_t bytes = 0;
};

// A kernel object with the lock that makes setArg + enqueue atomic: cl_kernel argument
// state is shared, and computes run concurrently on the inter-op threads.
struct KernelSlot {
  std::mutex mu;
  cl::Kernel kernel;
};

// One OpenCL device: its context, one in-order queue (kernels, copies and frees are ordered
// by enqueue order, which the executor makes follow the data dependencies; copies to and
// from the host do not block), and the programs built for it so far.
class ClDevice {
 public:
  ClDevice(int ordinal, cl::Device device);
  int ordinal() const { return ordinal_; }
  const cl::Context& context() const { return context_; }
  cl::CommandQueue& queue() { return queue_; }
  const cl::Device& device() const { return device_; }
  // The matmul tile edge (TS) and the reduction work-group size (RG) the programs are built
  // with: 16 and 64 where the device allows work-groups that big.
  int tile() const { return tile_; }
  int reduce_group() const { return reduce_group_; }

  // The kernel `kernel` of program `program` (a name in cl_sources.h), building the program
  // the first time any kernel of it is asked for on this device. Throws cl::BuildError
  // with the build log on a build failure.
  KernelSlot& Kernel(const std::string& program, const std::string& kernel);

  // Host-to-device copies are non-blocking from a staging block the device owns: Stage
  // takes `block` and keeps it until `done` (the write's event) has completed (on an
  // exception `block` is left untouched); ReapStaging frees the blocks of completed writes
  // (called at each copy and after Synchronize's finish).
  void Stage(const cl::Event& done, std::unique_ptr<unsigned char[]>& block);
  void ReapStaging();

 private:
  int ordinal_;
  cl::Device device_;
  cl::Context context_;
  cl::CommandQueue queue_;
  int tile_ = 1;
  int reduce_group_ = 1;
  std::mutex mu_;  // guards the maps below
  std::map<std::string, cl::Program> programs_;
  std::map<std::pair<std::string, std::string>, std::unique_ptr<KernelSlot>> kernels_;
  std::mutex staging_mu_;  // guards staging_
  std::vector<std::pair<cl::Event, std::unique_ptr<unsigned char[]>>> staging_;
};

// The device a kernel runs on.
inline ClDevice& DeviceOf(tgraph::plugin::Context& ctx) {
  return *static_cast<ClDevice*>(ctx.device_state());
}

// The cl_mem of a device tensor (NULL for a zero-byte tensor).
inline cl_mem BufferOf(const tgraph::plugin::TensorView& t) {
  const auto* b = static_cast<const ClBuffer*>(tgraph::plugin::Api()->tensor_data(t.raw()));
  return b == nullptr ? nullptr : b->mem();
}

// Kernel arguments: cl_mem handles, scalars, or raw structs passed by value.
struct Arg {
  size_t size;
  const void* value;
};
template <typename T>
Arg A(const T& v) {
  return Arg{sizeof(T), &v};
}

// Enqueues `kernel` of `program` over `global` (1 or 2 dims; each rounded up to a multiple
// of `local` when given). Fails the node with the OpenCL error and returns false.
bool Launch(tgraph::plugin::Context& ctx, const char* program, const char* kernel,
            const std::vector<Arg>& args, std::vector<size_t> global,
            std::vector<size_t> local = {});

// The cl::Buffer of a device tensor that has one (not zero bytes).
inline const cl::Buffer& MemOf(const tgraph::plugin::TensorView& t) {
  return static_cast<const ClBuffer*>(tgraph::plugin::Api()->tensor_data(t.raw()))->mem;
}

// Turns an OpenCL exception into a failed node status.
void FailFromClError(tgraph::plugin::Context& ctx, const std::exception& e, const char* what);

// `data` copied into a new device buffer (an index plan); a null buffer after failing the node.
cl::Buffer Upload(tgraph::plugin::Context& ctx, const std::vector<int32_t>& data);

// The broadcast of two operands as the binary kernels take it (kBinaryPrelude's Bcast in
// cl_sources.cc; ints only: no padding differences), filled by device_common/binary_args.h.
struct Bcast {
  cl_int rank;
  cl_int n;
  cl_int dims[6];
  cl_int xs[6];
  cl_int ys[6];
};

// Element counts handed to kernels are ints: bigger tensors are refused with a status.
bool CheckIntSized(tgraph::plugin::Context& ctx, int64_t n, const char* what);

// Every kernel of the plugin is registered through AddDeviceKernel: a node with a tensor
// statically known to have 2^31 elements or more is declined at creation and placed
// elsewhere (the CPU), while CheckIntSized above still refuses sizes known only at run time
// (device_common/int_sized.h).
struct OpenclBackend {
  static constexpr const char* kName = "OpenCL";
};
template <typename K>
void AddDeviceKernel(tgraph::plugin::Init& init, const tgraph::plugin::KernelBuilder& builder) {
  init.Kernel<tgraph_device_common::IntSizedKernel<OpenclBackend, K>>(builder);
}

using tgraph_device_common::ShapeString;

}  // namespace tgraph_opencl
