#include "core/plugin/kernel_context.h"

#include <algorithm>
#include <exception>
#include <limits>

#include "core/base/buffer_versions.h"
#include "core/plugin/plugin_loader.h"

namespace tgraph {
namespace {

// Does `message` name node `name` already ("name: ..." as plugin.hpp writes it, or 'name')?
bool NamesNode(const std::string& message, const std::string& name) {
  return message.starts_with(name + ":") || message.find("'" + name + "'") != std::string::npos;
}

// The node's name goes in front of a message that does not name it yet.
Status NameNode(const Operation& op, const Status& s) {
  if (s.ok() || NamesNode(s.message(), op.name())) return s;
  return s.Prepend(StrCat("node '", op.name(), "' (", op.type(), "): "));
}

}  // namespace

StatusOr<KernelCreation> TryCreateKernel(const KernelRegistration& kernel, const Operation& op) {
  KernelCreation out;
  if (kernel.create == nullptr) return out;
  TG_KernelConstruction construction;
  construction.op = &op;
  TG_Status status;
  try {
    out.state = kernel.create(&construction, kernel.user_data, &status);
  } catch (const std::exception& e) {
    status.status = Internal("kernel create threw: ", e.what());
  } catch (...) {
    status.status = Internal("kernel create threw an unknown exception");
  }
  if (!status.status.ok() || construction.declined) {
    // A failure wins over a decline; either way no state is kept.
    if (out.state != nullptr && kernel.destroy != nullptr) kernel.destroy(out.state);
    out.state = nullptr;
    if (!status.status.ok()) return NameNode(op, status.status);
    out.declined = true;
    out.reason = std::move(construction.decline_reason);
  }
  return out;
}

std::string DeclineMessage(const KernelRegistration& kernel, const Operation& op,
                           const std::string& reason) {
  return StrCat("kernel ", kernel.DebugString(),
                kernel.plugin != nullptr ? StrCat(" of plugin '", kernel.plugin->name, "'") : "",
                " declined node '", op.name(), "' (", op.type(), ")",
                reason.empty() ? std::string() : StrCat(": ", reason));
}

StatusOr<void*> CreateKernelState(const KernelRegistration& kernel, const Operation& op) {
  TG_ASSIGN_OR_RETURN(KernelCreation created, TryCreateKernel(kernel, op));
  if (created.declined) return Unimplemented(DeclineMessage(kernel, op, created.reason));
  return created.state;
}

StatusOr<Tensor> AllocateDeviceTensor(DeviceInstance* device, DataType dtype,
                                      std::vector<int64_t> dims) {
  const TG_DeviceDefinition& def = device->device->def;
  if (!IsPlainDataType(dtype)) {
    return InvalidArgument("a ", DataTypeName(dtype), " tensor cannot live in the memory of ",
                           device->device->device_type, " devices");
  }
  TG_ASSIGN_OR_RETURN(int64_t n, NumElementsOf(dims));
  const size_t elem = DataTypeSize(dtype);
  if (static_cast<uint64_t>(n) > std::numeric_limits<size_t>::max() / elem) {
    return InvalidArgument("tensor of ", n, " elements is too large");
  }
  const size_t bytes = static_cast<size_t>(n) * elem;
  if (def.allocate == nullptr || def.deallocate == nullptr) {
    return FailedPrecondition("device type ", device->device->device_type,
                              " has no allocator but is not host-accessible");
  }
  TG_Status status;
  void* p = def.allocate(device->state, bytes, 64, &status);
  if (!status.status.ok()) {
    if (p != nullptr) def.deallocate(device->state, p);
    return status.status;
  }
  if (p == nullptr) {
    return ResourceExhausted("out of memory allocating ", bytes, " bytes on ",
                             device->device->device_type, ":", device->ordinal);
  }
  auto buffer = std::make_shared<TensorBuffer>(
      p, bytes, [device](void* ptr, size_t) { device->device->def.deallocate(device->state, ptr); });
  return Tensor::Wrap(dtype, std::move(dims), std::move(buffer));
}

void HostMemoryArgFlags(const Operation& op, const KernelRegistration* kernel, bool outputs,
                        std::vector<char>* flags) {
  const size_t n = static_cast<size_t>(outputs ? op.num_outputs() : op.num_inputs());
  flags->assign(n, 0);
  if (kernel == nullptr || kernel->host_memory_args.empty()) return;
  const tf::OpDef& def = op.registration().op_def;
  const auto& args = outputs ? op.output_args() : op.input_args();
  const int num_def_args = outputs ? def.output_arg_size() : def.input_arg_size();
  for (size_t a = 0; a < args.size() && static_cast<int>(a) < num_def_args; ++a) {
    const std::string& name =
        outputs ? def.output_arg(static_cast<int>(a)).name() : def.input_arg(static_cast<int>(a)).name();
    if (!kernel->IsHostMemoryArg(name)) continue;
    for (int k = 0; k < args[a].count; ++k) (*flags)[static_cast<size_t>(args[a].start + k)] = 1;
  }
}

void PrepareKernelContext(TG_KernelContext* ctx, const Operation& op,
                          const KernelRegistration& kernel, DeviceInstance* device,
                          ThreadPool* pool) {
  const size_t num_inputs = static_cast<size_t>(op.num_inputs());
  const size_t num_outputs = static_cast<size_t>(op.num_outputs());
  ctx->op = &op;
  ctx->inputs = std::vector<KernelCallInput>(num_inputs);
  for (KernelCallInput& in : ctx->inputs) in.value = &in.own;
  ctx->outputs = std::vector<KernelCallOutput>(num_outputs);
  ctx->device = device;
  ctx->device_memory = device != nullptr && !device->device->host_accessible();
  // Only a device without host access places outputs by it.
  std::vector<char> host_memory;
  if (ctx->device_memory) {
    HostMemoryArgFlags(op, &kernel, /*outputs=*/false, &host_memory);
    for (size_t i = 0; i < num_inputs; ++i) ctx->inputs[i].host_memory = host_memory[i] != 0;
  }
  HostMemoryArgFlags(op, ctx->device_memory ? &kernel : nullptr, /*outputs=*/true, &host_memory);
  for (size_t i = 0; i < num_outputs; ++i) {
    KernelCallOutput& out = ctx->outputs[i];
    out.value = &out.own;
    out.type = op.output_type(static_cast<int>(i));
    out.host_memory = host_memory[i] != 0;
  }
  ctx->pool = pool != nullptr ? pool->c_handle() : ThreadPool::InlineHandle();
}

namespace {

void ClearOutputs(TG_KernelContext* ctx) {
  for (KernelCallOutput& out : ctx->outputs) out.value->tensor.Clear();
}

// After a call: the inputs' own copies go, and variables are let go of.
void ReleaseCallInputs(TG_KernelContext* ctx) {
  for (KernelCallInput& in : ctx->inputs) {
    if (in.ref != nullptr) {
      // A kernel that forgot to unlock a variable must not leave it locked.
      if (in.locked) {
        in.locked = false;
        in.ref->mu.unlock();
      }
      in.ref = nullptr;
    }
    if (in.value == &in.own) in.own.tensor.Clear();
  }
}

}  // namespace

void RecordComputeException(TG_KernelContext* ctx, const char* what) {
  if (!ctx->status.status.ok()) return;
  ctx->status.status = what != nullptr ? Internal("kernel compute threw: ", what)
                                       : Internal("kernel compute threw an unknown exception");
}

Status FinishKernelCompute(const KernelRegistration& kernel, TG_KernelContext* ctx) {
  const Operation& op = *ctx->op;
  if (!ctx->inputs_bound) ReleaseCallInputs(ctx);
  if (!ctx->ref_views.empty()) {
    // The kernel may have written these variables (mutable_ref_input, reallocate_ref_input):
    // their bytes get a version no reader saw while the kernel ran (plugin.h, ABI 7).
    for (const auto& view : ctx->ref_views) {
      BufferVersions::Renumber(view->tensor.buffer().get());
    }
    ctx->ref_views.clear();
  }
  if (!ctx->temps.empty()) ctx->temps.clear();
  if (!ctx->status.status.ok()) {
    ClearOutputs(ctx);
    return NameNode(op, ctx->status.status);
  }
  for (size_t i = 0; i < ctx->outputs.size(); ++i) {
    if (!ctx->outputs[i].set) {
      ClearOutputs(ctx);
      return Internal("node '", op.name(), "' (", op.type(), "): the kernel (",
                      kernel.DebugString(), ") did not produce output ", i);
    }
  }
  return Status::OK();
}

Status CallKernel(const KernelRegistration& kernel, void* state, const Operation& op,
                  std::vector<KernelInput> inputs, DeviceInstance* device, ThreadPool* pool,
                  std::vector<Tensor>* outputs) {
  TG_KernelContext ctx;
  PrepareKernelContext(&ctx, op, kernel, device, pool);
  for (size_t i = 0; i < inputs.size(); ++i) {
    KernelInput& in = inputs[i];
    KernelCallInput& call = ctx.inputs[i];
    if (in.ref != nullptr && IsRefType(op.input_type(static_cast<int>(i)))) {
      call.ref = in.ref;
      std::lock_guard<std::mutex> lock(in.ref->mu);
      call.own.tensor = in.ref->value;
    } else {
      call.own.tensor = std::move(in.value);
    }
    call.may_forward = true;
  }
  inputs.clear();  // the context holds the only copies now (lets buffers be forwarded)
  TG_RETURN_IF_ERROR(RunKernelCompute(kernel, state, &ctx));
  outputs->clear();
  outputs->reserve(ctx.outputs.size());
  for (KernelCallOutput& out : ctx.outputs) {
    if (VariableSlot* slot = out.ref) {
      std::lock_guard<std::mutex> lock(slot->mu);
      outputs->push_back(slot->value);
    } else {
      outputs->push_back(std::move(out.own.tensor));
    }
  }
  return Status::OK();
}

ShapeFn WrapPluginShapeFn(TG_ShapeFunction fn, void* user_data) {
  return [fn, user_data](InferenceContext& c) -> Status {
    TG_ShapeContext ctx;
    ctx.ic = &c;
    ctx.values.resize(static_cast<size_t>(c.num_inputs()));
    TG_Status status;
    try {
      fn(&ctx, user_data, &status);
    } catch (const std::exception& e) {
      status.status = c.Error("shape function threw: ", e.what());
    } catch (...) {
      status.status = c.Error("shape function threw an unknown exception");
    }
    if (!status.status.ok()) {
      const Status& s = status.status;
      if (NamesNode(s.message(), c.node_name())) return s;
      return Status(s.code(), StrCat(c.op_type(), " '", c.node_name(), "': ", s.message()));
    }
    return ctx.deferred;
  };
}

}  // namespace tgraph
