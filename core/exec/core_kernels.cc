#include "core/exec/core_kernels.h"

#include <mutex>
#include <vector>

#include "core/exec/function_kernels.h"
#include "core/exec/list_kernels.h"
#include "core/plugin/registry.h"

namespace tgraph {
namespace {

void* CreateCoreKernel(TG_KernelConstruction*, void* user_data, TG_Status*) { return user_data; }

void ComputeCoreKernel(void* kernel, TG_KernelContext* ctx) {
  const CoreKernel* k = static_cast<const CoreKernel*>(kernel);
  CoreKernelIo io{ctx};
  Status s = k->compute(io);
  if (!s.ok()) ctx->status.status = std::move(s);
}

Status RegisterAll() {
  PluginRegistrations regs("the core");
  PluginRegistrations::Scope scope(&regs);
  static const TG_DataType kVariant[] = {TG_VARIANT};
  std::vector<TG_TypeConstraint> constraints;  // one per kernel at most, kept while registering
  constraints.reserve(ListKernels().size());
  for (const CoreKernel& k : ListKernels()) {
    TG_KernelDefinition def{};
    def.struct_size = sizeof def;
    def.op_type = k.op_type;
    if (k.variant_attr != nullptr) {
      constraints.push_back(TG_TypeConstraint{sizeof(TG_TypeConstraint), k.variant_attr, kVariant, 1});
      def.type_constraints = &constraints.back();
      def.num_type_constraints = 1;
    }
    def.device_type = "CPU";
    def.create = CreateCoreKernel;
    def.compute = ComputeCoreKernel;
    def.user_data = const_cast<CoreKernel*>(&k);
    TG_RETURN_IF_ERROR(regs.AddKernel(def));
  }
  for (const TG_KernelDefinition& def : FunctionKernelDefinitions()) {
    TG_RETURN_IF_ERROR(regs.AddKernel(def));
  }
  return regs.Commit(nullptr);
}

}  // namespace

Status RegisterCoreKernels() {
  static std::once_flag once;
  static Status status;
  std::call_once(once, [] { status = RegisterAll(); });
  return status;
}

}  // namespace tgraph
