#include "core/plugin/kernel_context.h"

#include <exception>

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

StatusOr<void*> CreateKernelState(const KernelRegistration& kernel, const Operation& op) {
  if (kernel.create == nullptr) return static_cast<void*>(nullptr);
  TG_KernelConstruction construction;
  construction.op = &op;
  TG_Status status;
  void* state = nullptr;
  try {
    state = kernel.create(&construction, kernel.user_data, &status);
  } catch (const std::exception& e) {
    status.status = Internal("kernel create threw: ", e.what());
  } catch (...) {
    status.status = Internal("kernel create threw an exception");
  }
  if (!status.status.ok()) return NameNode(op, status.status);
  return state;
}

Status CallKernel(const KernelRegistration& kernel, void* state, const Operation& op,
                  std::vector<KernelInput> inputs, DeviceInstance* device, ThreadPool* pool,
                  std::vector<Tensor>* outputs) {
  const size_t num_inputs = inputs.size();
  const size_t num_outputs = static_cast<size_t>(op.num_outputs());
  TG_KernelContext ctx;
  ctx.op = &op;
  ctx.inputs.resize(num_inputs);
  ctx.refs.assign(num_inputs, nullptr);
  ctx.ref_locked.assign(num_inputs, 0);
  for (size_t i = 0; i < num_inputs; ++i) {
    KernelInput& in = inputs[i];
    if (in.ref != nullptr && IsRefType(op.input_type(static_cast<int>(i)))) {
      ctx.refs[i] = in.ref;
      std::lock_guard<std::mutex> lock(in.ref->mu);
      ctx.inputs[i].tensor = in.ref->value;
    } else {
      ctx.inputs[i].tensor = std::move(in.value);
    }
  }
  inputs.clear();  // the context holds the only copies now (lets buffers be forwarded)
  ctx.outputs.resize(num_outputs);
  ctx.output_set.assign(num_outputs, 0);
  ctx.output_refs.assign(num_outputs, nullptr);
  ctx.device = device;
  ctx.pool = pool != nullptr ? pool->c_handle() : ThreadPool::InlineHandle();

  try {
    kernel.compute(state, &ctx);
  } catch (const std::exception& e) {
    if (ctx.status.status.ok()) ctx.status.status = Internal("kernel compute threw: ", e.what());
  } catch (...) {
    if (ctx.status.status.ok()) ctx.status.status = Internal("kernel compute threw an exception");
  }
  // A kernel that forgot to unlock a variable must not leave it locked.
  for (size_t i = 0; i < num_inputs; ++i) {
    if (ctx.ref_locked[i]) {
      ctx.ref_locked[i] = 0;
      ctx.refs[i]->mu.unlock();
    }
  }
  if (!ctx.status.status.ok()) return NameNode(op, ctx.status.status);

  outputs->clear();
  outputs->reserve(num_outputs);
  for (size_t i = 0; i < num_outputs; ++i) {
    if (!ctx.output_set[i]) {
      return Internal("node '", op.name(), "' (", op.type(), "): the kernel (", kernel.DebugString(),
                      ") did not produce output ", i);
    }
    if (VariableSlot* slot = ctx.output_refs[i]) {
      std::lock_guard<std::mutex> lock(slot->mu);
      outputs->push_back(slot->value);
    } else {
      outputs->push_back(std::move(ctx.outputs[i].tensor));
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
      status.status = c.Error("shape function threw an exception");
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
