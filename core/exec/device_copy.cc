#include "core/exec/device_copy.h"

#include "core/plugin/abi_handles.h"
#include "core/plugin/kernel_context.h"

namespace tgraph {
namespace {

Status DeviceCall(const std::string& what, const DeviceInstance* device, const TG_Status& status) {
  if (status.status.ok()) return Status::OK();
  return status.status.Prepend(StrCat(what, " on ", device->device->device_type, ":",
                                      device->ordinal, ": "));
}

}  // namespace

Status SynchronizeDevice(DeviceInstance* device) {
  if (device == nullptr || device->device->def.synchronize == nullptr) return Status::OK();
  TG_Status status;
  device->device->def.synchronize(device->state, &status);
  return DeviceCall("synchronize", device, status);
}

StatusOr<Tensor> CopyTensor(const Tensor& src, DeviceInstance* from, DeviceInstance* to,
                            const std::string& label) {
  if (!IsPlainDataType(src.dtype())) {
    return InvalidArgument("tensor ", label, " of dtype ", DataTypeName(src.dtype()),
                           " cannot be copied between host and device memory");
  }
  const size_t bytes = src.ByteSize();
  if (from != nullptr && to != nullptr && from->device != to->device) {
    // Between device types: through the host.
    TG_ASSIGN_OR_RETURN(Tensor staged, CopyTensor(src, from, nullptr, label));
    return CopyTensor(staged, nullptr, to, label);
  }
  Tensor dst;
  if (to == nullptr) {
    TG_ASSIGN_OR_RETURN(dst, Tensor::Allocate(src.dtype(), src.dims()));
  } else {
    TG_ASSIGN_OR_RETURN(dst, AllocateDeviceTensor(to, src.dtype(), src.dims()));
  }
  if (bytes == 0) return dst;
  TG_Status status;
  if (from == nullptr) {
    const auto& def = to->device->def;
    if (def.copy_host_to_device == nullptr) {
      return FailedPrecondition("device type ", to->device->device_type, " cannot copy from the host");
    }
    def.copy_host_to_device(to->state, dst.data(), src.data(), bytes, &status);
    TG_RETURN_IF_ERROR(DeviceCall("copy of " + label + " to the device", to, status));
  } else if (to == nullptr) {
    const auto& def = from->device->def;
    if (def.copy_device_to_host == nullptr) {
      return FailedPrecondition("device type ", from->device->device_type, " cannot copy to the host");
    }
    def.copy_device_to_host(from->state, dst.data(), src.data(), bytes, &status);
    TG_RETURN_IF_ERROR(DeviceCall("copy of " + label + " to the host", from, status));
    // The host reads it next: the copy must have landed.
    TG_RETURN_IF_ERROR(SynchronizeDevice(from));
  } else {
    const auto& def = to->device->def;
    if (def.copy_device_to_device == nullptr) {
      return FailedPrecondition("device type ", to->device->device_type,
                                " cannot copy between its devices");
    }
    // Same backend: the destination's state issues the copy; a copy must not race the
    // source's queued work, so the source is synchronized first.
    TG_RETURN_IF_ERROR(SynchronizeDevice(from));
    def.copy_device_to_device(to->state, dst.data(), src.data(), bytes, &status);
    TG_RETURN_IF_ERROR(DeviceCall("copy of " + label + " between devices", to, status));
  }
  return dst;
}

}  // namespace tgraph
