// The op registry as clients see it: every registered op's name, and a snapshot of one op's
// definition (argument and attr specs in OpDefBuilder's spelling), the plugin that defined
// it and the device types that have kernels for it.
#include "core/ops/op_registry.h"

#include <algorithm>

#include "c_api/src/attr_value_text.h"
#include "c_api/src/c_api_internal.h"
#include "core/exec/control_flow.h"
#include "core/exec/core_kernels.h"
#include "core/plugin/plugin_loader.h"
#include "core/plugin/registry.h"

using namespace tgraph;
using namespace tgraph::capi;

// A snapshot taken by TG_NewOpInfo: later plugin loads (new kernels for the op) do not change
// it, and it owns every string it hands out.
struct TG_OpInfo {
  std::string name;
  std::string summary;
  bool stateful = false;
  std::vector<std::string> inputs, outputs, attrs;
  std::vector<std::string> kernel_device_types;
  const TG_Plugin* plugin = nullptr;
};

namespace {

// "x: T", "values: N * T", "ref: Ref(T)", "out: float", "args: Tin".
std::string ArgSpec(const tf::OpDef::ArgDef& arg) {
  std::string type = !arg.type_attr().empty()        ? arg.type_attr()
                     : !arg.type_list_attr().empty() ? arg.type_list_attr()
                     : IsValidDataType(arg.type()) ? DataTypeName(static_cast<DataType>(arg.type()))
                                                   : std::string("<invalid>");
  if (!arg.number_attr().empty()) type = arg.number_attr() + " * " + type;
  if (arg.is_ref()) type = "Ref(" + type + ")";
  return arg.name() + ": " + type;
}

// "T: {float, double}", "padding: {'SAME', 'VALID'} = 'SAME'", "N: int >= 2",
// "transpose_a: bool = false".
std::string AttrSpec(const tf::OpDef::AttrDef& attr) {
  std::string type = attr.type();
  const tf::AttrValue::ListValue& allowed = attr.allowed_values().list();
  if (allowed.type_size() > 0 || allowed.s_size() > 0) {
    std::string values = AttrValueText(attr.allowed_values());  // "[a, b]"
    std::string choice = StrCat("{", values.substr(1, values.size() - 2), "}");
    type = type.starts_with("list(") ? StrCat("list(", choice, ")") : choice;
  }
  std::string spec = attr.name() + ": " + type;
  if (attr.has_minimum()) spec += StrCat(" >= ", attr.minimum());
  if (attr.has_default_value()) spec += StrCat(" = ", AttrValueText(attr.default_value()));
  return spec;
}

const TG_Plugin* DefiningPlugin(const std::string& op_type) {
  for (const LoadedPlugin* plugin : LoadedPlugins()) {
    if (std::find(plugin->ops.begin(), plugin->ops.end(), op_type) != plugin->ops.end()) {
      return reinterpret_cast<const TG_Plugin*>(plugin);
    }
  }
  return nullptr;
}

template <typename T>
bool InRange(const std::vector<T>& v, int i) {
  return i >= 0 && static_cast<size_t>(i) < v.size();
}

const char* At(const TG_OpInfo* info, std::vector<std::string> TG_OpInfo::*member, int i) {
  if (info == nullptr || !InRange(info->*member, i)) return nullptr;
  return (info->*member)[static_cast<size_t>(i)].c_str();
}

int Count(const TG_OpInfo* info, std::vector<std::string> TG_OpInfo::*member) {
  return info == nullptr ? 0 : static_cast<int>((info->*member).size());
}

}  // namespace

extern "C" int TG_NumRegisteredOps(void) {
  return NoThrow(0, [] { return static_cast<int>(OpRegistry::Global()->ListOps().size()); });
}

extern "C" const char* TG_RegisteredOpName(int index) {
  return NoThrow<const char*>(nullptr, [&]() -> const char* {
    std::vector<std::string> names = OpRegistry::Global()->ListOps();
    if (!InRange(names, index)) return nullptr;
    // Registrations never move or go away, so their names outlive this call.
    return OpRegistry::Global()->Find(names[static_cast<size_t>(index)])->op_def.name().c_str();
  });
}

extern "C" TG_OpInfo* TG_NewOpInfo(const char* op_type, TG_Status* status) {
  return GuardValue<TG_OpInfo*>(status, nullptr, [&](TG_OpInfo** out) -> Status {
    if (op_type == nullptr) return NullArg("TG_NewOpInfo", "op_type");
    const OpRegistration* registration = OpRegistry::Global()->Find(op_type);
    if (registration == nullptr) return NotFound("Op type not registered '", op_type, "'");
    const tf::OpDef& def = registration->op_def;
    auto info = std::make_unique<TG_OpInfo>();
    info->name = def.name();
    info->summary = def.summary();
    info->stateful = def.is_stateful();
    for (const auto& arg : def.input_arg()) info->inputs.push_back(ArgSpec(arg));
    for (const auto& arg : def.output_arg()) info->outputs.push_back(ArgSpec(arg));
    for (const auto& attr : def.attr()) info->attrs.push_back(AttrSpec(attr));
    TG_RETURN_IF_ERROR(RegisterCoreKernels());
    info->kernel_device_types = KernelRegistry::Global()->DeviceTypesFor(def.name());
    // Control flow runs in the executor itself, on every device type.
    if (ControlFlowKindOfType(def.name()) != ControlFlowKind::kNone) {
      info->kernel_device_types = DeviceRegistry::Global()->DeviceTypes();
    }
    std::sort(info->kernel_device_types.begin(), info->kernel_device_types.end());
    info->plugin = DefiningPlugin(def.name());
    *out = info.release();
    return Status::OK();
  });
}

extern "C" void TG_DeleteOpInfo(TG_OpInfo* info) { delete info; }

extern "C" const char* TG_OpInfoName(const TG_OpInfo* info) {
  return info == nullptr ? nullptr : info->name.c_str();
}
extern "C" const char* TG_OpInfoSummary(const TG_OpInfo* info) {
  return info == nullptr ? nullptr : info->summary.c_str();
}
extern "C" int TG_OpInfoIsStateful(const TG_OpInfo* info) {
  return info != nullptr && info->stateful ? 1 : 0;
}
extern "C" int TG_OpInfoNumInputs(const TG_OpInfo* info) { return Count(info, &TG_OpInfo::inputs); }
extern "C" const char* TG_OpInfoInput(const TG_OpInfo* info, int i) {
  return At(info, &TG_OpInfo::inputs, i);
}
extern "C" int TG_OpInfoNumOutputs(const TG_OpInfo* info) {
  return Count(info, &TG_OpInfo::outputs);
}
extern "C" const char* TG_OpInfoOutput(const TG_OpInfo* info, int i) {
  return At(info, &TG_OpInfo::outputs, i);
}
extern "C" int TG_OpInfoNumAttrs(const TG_OpInfo* info) { return Count(info, &TG_OpInfo::attrs); }
extern "C" const char* TG_OpInfoAttr(const TG_OpInfo* info, int i) {
  return At(info, &TG_OpInfo::attrs, i);
}
extern "C" int TG_OpInfoNumKernelDeviceTypes(const TG_OpInfo* info) {
  return Count(info, &TG_OpInfo::kernel_device_types);
}
extern "C" const char* TG_OpInfoKernelDeviceType(const TG_OpInfo* info, int i) {
  return At(info, &TG_OpInfo::kernel_device_types, i);
}
extern "C" const TG_Plugin* TG_OpInfoPlugin(const TG_OpInfo* info) {
  return info == nullptr ? nullptr : info->plugin;
}
