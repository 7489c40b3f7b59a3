#include "core/exec/kernel_runner.h"

#include "core/base/buffer_versions.h"
#include "core/exec/core_kernels.h"
#include "core/exec/device_copy.h"
#include "core/ops/op_registry.h"
#include "core/plugin/kernel_context.h"
#include "core/plugin/registry.h"

namespace tgraph {
namespace {

std::string NodeLabel(const Operation& op) { return StrCat("node '", op.name(), "' (", op.type(), ")"); }

// "input 1 ('value')": the flat index and the OpDef argument it belongs to.
std::string InputLabel(const Operation& op, int i) {
  const tf::OpDef& def = op.registration().op_def;
  const auto& args = op.input_args();
  for (size_t a = 0; a < args.size() && static_cast<int>(a) < def.input_arg_size(); ++a) {
    if (i >= args[a].start && i < args[a].start + args[a].count) {
      return StrCat("input ", i, " ('", def.input_arg(static_cast<int>(a)).name(), "')");
    }
  }
  return StrCat("input ", i);
}

// Checks the inputs against the node's signature and resolves them to what the kernel
// gets: ref inputs keep their slot; a slot given for a non-ref input is read (TF
// dereferences a ref feeding a value input).
Status PrepareInputs(const Operation& op, const std::vector<KernelInput>& given,
                     std::vector<KernelInput>* out) {
  if (static_cast<int>(given.size()) != op.num_inputs()) {
    return InvalidArgument(NodeLabel(op), " takes ", op.num_inputs(), " inputs, but ", given.size(),
                           " were given");
  }
  const bool allows_uninitialized = op.registration().op_def.allows_uninitialized_input();
  out->clear();
  out->reserve(given.size());
  for (int i = 0; i < op.num_inputs(); ++i) {
    const KernelInput& in = given[static_cast<size_t>(i)];
    const DataType expected = op.input_type(i);
    const DataType base = BaseType(expected);
    KernelInput resolved;
    if (IsRefType(expected)) {
      if (in.ref == nullptr) {
        return InvalidArgument(NodeLabel(op), ": ", InputLabel(op, i), " is a ref input (",
                               DataTypeName(expected), ") and needs a variable slot");
      }
      std::lock_guard<std::mutex> lock(in.ref->mu);
      if (!in.ref->initialized) {
        if (!allows_uninitialized) {
          return FailedPrecondition("Attempting to use uninitialized value ", in.ref->name, " (",
                                    NodeLabel(op), ", ", InputLabel(op, i), ")");
        }
      } else if (in.ref->value.dtype() != base) {
        return InvalidArgument(NodeLabel(op), ": ", InputLabel(op, i), " must be ",
                               DataTypeName(expected), ", but variable ", in.ref->name, " holds ",
                               DataTypeName(in.ref->value.dtype()));
      }
      resolved.ref = in.ref;
    } else {
      if (in.ref != nullptr) {
        std::lock_guard<std::mutex> lock(in.ref->mu);
        if (!in.ref->initialized) {
          return FailedPrecondition("Attempting to use uninitialized value ", in.ref->name, " (",
                                    NodeLabel(op), ", ", InputLabel(op, i), ")");
        }
        resolved.value = in.ref->value;
      } else {
        resolved.value = in.value;
      }
      if (resolved.value.dtype() != base) {
        return InvalidArgument(NodeLabel(op), ": ", InputLabel(op, i), " must be ",
                               DataTypeName(base), ", but a ", DataTypeName(resolved.value.dtype()),
                               " tensor was given");
      }
    }
    out->push_back(std::move(resolved));
  }
  return Status::OK();
}

}  // namespace

Status MoveVariableToSlow(VariableSlot& slot, DeviceInstance* space) {
  std::lock_guard<std::mutex> lock(slot.mu);
  DeviceInstance* from = slot.space.load(std::memory_order_relaxed);
  if (from == space) return Status::OK();
  if (slot.initialized) {
    TG_ASSIGN_OR_RETURN(Tensor moved, CopyTensor(slot.value, from, space, slot.name));
    BufferVersions::Drop(slot.value.buffer().get());  // the variable lets go of it (input_version)
    slot.value = std::move(moved);
  }
  slot.space.store(space, std::memory_order_release);
  return Status::OK();
}

StatusOr<std::unique_ptr<KernelRunner>> KernelRunner::Create(const Operation& op,
                                                             const std::string& device_type,
                                                             ThreadPool* intra_op_pool,
                                                             int device_ordinal) {
  TG_RETURN_IF_ERROR(RegisterCoreKernels());
  TG_ASSIGN_OR_RETURN(const KernelRegistration* first,
                      KernelRegistry::Global()->Find(op.name(), op.type(), op.attrs(), device_type));
  std::string declined;
  TG_ASSIGN_OR_RETURN(auto runner, Make(op, *first, intra_op_pool, device_ordinal, &declined));
  if (runner != nullptr) return runner;
  // Declined (plugin ABI 6): the other matches, in priority order.
  std::string declines = declined;
  for (const KernelRegistration* k :
       KernelRegistry::Global()->Candidates(op.type(), op.attrs(), device_type)) {
    if (k == first) continue;
    TG_ASSIGN_OR_RETURN(runner, Make(op, *k, intra_op_pool, device_ordinal, &declined));
    if (runner != nullptr) return runner;
    declines += StrCat("; ", declined);
  }
  return Unimplemented(NodeLabel(op), ": every kernel for ", device_type,
                       " declined the node: ", declines);
}

StatusOr<std::unique_ptr<KernelRunner>> KernelRunner::CreateWithKernel(
    const Operation& op, const KernelRegistration& registration, ThreadPool* intra_op_pool,
    int device_ordinal) {
  std::string declined;
  TG_ASSIGN_OR_RETURN(auto runner, Make(op, registration, intra_op_pool, device_ordinal, &declined));
  if (runner == nullptr) return Unimplemented(declined);
  return runner;
}

StatusOr<std::unique_ptr<KernelRunner>> KernelRunner::Make(const Operation& op,
                                                           const KernelRegistration& registration,
                                                           ThreadPool* intra_op_pool,
                                                           int device_ordinal,
                                                           std::string* declined) {
  if (registration.op_type != op.type() || !registration.Matches(op.attrs())) {
    return InvalidArgument(NodeLabel(op), ": kernel ", registration.DebugString(),
                           " does not match the node");
  }
  const KernelRegistration* kernel = &registration;
  DeviceInstance* device = nullptr;
  if (DeviceRegistry::Global()->Find(kernel->device_type) != nullptr) {
    TG_ASSIGN_OR_RETURN(device,
                        DeviceRegistry::Global()->GetInstance(kernel->device_type, device_ordinal));
  }
  TG_ASSIGN_OR_RETURN(KernelCreation created, TryCreateKernel(*kernel, op));
  if (created.declined) {
    *declined = DeclineMessage(*kernel, op, created.reason);
    return std::unique_ptr<KernelRunner>();
  }
  std::unique_ptr<KernelRunner> runner(new KernelRunner(op, kernel, intra_op_pool));
  runner->state_ = created.state;
  runner->device_ = device;
  runner->device_memory_ = device != nullptr && !device->device->host_accessible();
  if (runner->device_memory_) {
    HostMemoryArgFlags(op, kernel, /*outputs=*/false, &runner->host_memory_inputs_);
    HostMemoryArgFlags(op, kernel, /*outputs=*/true, &runner->host_memory_outputs_);
  }
  return runner;
}

KernelRunner::~KernelRunner() {
  if (state_ != nullptr && kernel_->destroy != nullptr) kernel_->destroy(state_);
}

Status KernelRunner::Run(const std::vector<KernelInput>& inputs, std::vector<Tensor>* outputs) {
  if (outputs == nullptr) return InvalidArgument(NodeLabel(op_), ": Run: outputs is NULL");
  std::vector<KernelInput> prepared;
  TG_RETURN_IF_ERROR(PrepareInputs(op_, inputs, &prepared));
  if (device_memory_) return RunInDeviceMemory(std::move(prepared), outputs);
  return CallKernel(*kernel_, state_, op_, std::move(prepared), device_, pool_, outputs);
}

Status KernelRunner::RunInDeviceMemory(std::vector<KernelInput> inputs,
                                       std::vector<Tensor>* outputs) {
  // One device-side slot per distinct variable (two inputs may name the same one).
  std::vector<std::pair<VariableSlot*, std::unique_ptr<VariableSlot>>> slots;
  for (size_t i = 0; i < inputs.size(); ++i) {
    KernelInput& in = inputs[i];
    const std::string label = StrCat(InputLabel(op_, static_cast<int>(i)), " of ", NodeLabel(op_));
    if (in.ref == nullptr) {
      if (!host_memory_inputs_[i]) {
        TG_ASSIGN_OR_RETURN(in.value, CopyTensor(in.value, nullptr, device_, label));
      }
      continue;
    }
    VariableSlot* twin = nullptr;
    for (const auto& [host, device] : slots) {
      if (host == in.ref) twin = device.get();
    }
    if (twin == nullptr) {
      auto device_slot = std::make_unique<VariableSlot>();
      std::lock_guard<std::mutex> lock(in.ref->mu);
      device_slot->name = in.ref->name;
      device_slot->initialized = in.ref->initialized;
      if (in.ref->initialized) {
        TG_ASSIGN_OR_RETURN(device_slot->value, CopyTensor(in.ref->value, nullptr, device_,
                                                           StrCat("variable ", in.ref->name)));
      }
      twin = device_slot.get();
      slots.emplace_back(in.ref, std::move(device_slot));
    }
    in.ref = twin;
  }

  Status status = CallKernel(*kernel_, state_, op_, std::move(inputs), device_, pool_, outputs);
  // Variables come home even when the kernel failed: it may have written them first.
  for (const auto& [host, device] : slots) {
    std::lock_guard<std::mutex> lock(device->mu);
    if (!device->initialized) continue;
    auto value = CopyTensor(device->value, device_, nullptr, StrCat("variable ", host->name));
    if (!value.ok()) {
      if (status.ok()) status = value.status();
      continue;
    }
    std::lock_guard<std::mutex> host_lock(host->mu);
    BufferVersions::Drop(host->value.buffer().get());  // as MoveVariableToSlow
    host->value = std::move(value).value();
    host->initialized = true;
  }
  if (status.ok()) {
    for (size_t i = 0; i < outputs->size(); ++i) {
      // A ref output is the device slot's value; other outputs follow the kernel's
      // host-memory args.
      const bool in_device_memory =
          IsRefType(op_.output_type(static_cast<int>(i))) || !host_memory_outputs_[i];
      if (!in_device_memory) continue;
      Tensor& out = (*outputs)[i];
      auto host = CopyTensor(out, device_, nullptr, StrCat("output ", i, " of ", NodeLabel(op_)));
      if (!host.ok()) {
        status = host.status();
        break;
      }
      out = std::move(host).value();
    }
  }
  // Nothing queued for the device may outlive the call (its inputs die with it).
  Status synced = SynchronizeDevice(device_);
  if (!status.ok()) {
    outputs->clear();
    return status;
  }
  return synced;
}

Status KernelRunner::Run(const std::vector<Tensor>& inputs, std::vector<Tensor>* outputs) {
  std::vector<KernelInput> wrapped;
  wrapped.reserve(inputs.size());
  for (const Tensor& t : inputs) wrapped.push_back(KernelInput{t, nullptr});
  return Run(wrapped, outputs);
}

}  // namespace tgraph
