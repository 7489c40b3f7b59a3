#include "core/plugin/registry.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>

#include "core/graph/attr_value_util.h"
#include "core/ops/op_signature.h"
#include "core/plugin/abi_handles.h"
#include "core/plugin/kernel_context.h"
#include "core/plugin/plugin_loader.h"

namespace tgraph {
namespace {

std::string TypeListString(const std::vector<DataType>& types) {
  std::string s = "{";
  for (size_t i = 0; i < types.size(); ++i) {
    if (i > 0) s += ", ";
    s += DataTypeName(types[i]);
  }
  return s + "}";
}

// Device types look like "CPU", "GPU", "OPENCL_GPU": letters, digits and '_'.
bool IsValidDeviceType(const std::string& s) {
  if (s.empty() || !std::isalpha(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

std::string OwnerName(const LoadedPlugin* plugin) {
  if (plugin == nullptr) return "the core";
  return StrCat("plugin '", plugin->name, "' (", plugin->file, ")");
}

// Which plugin defined each plugin op (core ops are absent), for duplicate messages.
std::map<std::string, const LoadedPlugin*>& PluginOpOwners() {
  static auto* owners = new std::map<std::string, const LoadedPlugin*>();
  return *owners;
}
std::mutex& PluginOpOwnersMutex() {
  static auto* mu = new std::mutex();
  return *mu;
}

thread_local PluginRegistrations* g_active_registrations = nullptr;

}  // namespace

// ===================================================================================== //
// KernelRegistration / KernelRegistry
// ===================================================================================== //

bool KernelRegistration::Matches(const AttrMap& attrs) const {
  for (const auto& [attr, allowed] : type_constraints) {
    auto it = attrs.find(attr);
    if (it == attrs.end()) return false;
    // Captured by name: Clang 14 can't capture a structured binding implicitly.
    auto ok = [&allowed = allowed](int t) {
      return std::binary_search(allowed.begin(), allowed.end(), static_cast<DataType>(t));
    };
    const tf::AttrValue& v = it->second;
    if (v.value_case() == tf::AttrValue::kType) {
      if (!ok(v.type())) return false;
    } else if (v.value_case() == tf::AttrValue::kList) {
      for (int t : v.list().type()) {
        if (!ok(t)) return false;
      }
    } else {
      return false;
    }
  }
  return true;
}

bool KernelRegistration::SameKey(const KernelRegistration& other) const {
  return op_type == other.op_type && device_type == other.device_type &&
         priority == other.priority && type_constraints == other.type_constraints;
}

bool KernelRegistration::Overlaps(const KernelRegistration& other) const {
  if (op_type != other.op_type || device_type != other.device_type) return false;
  for (const auto& [attr, allowed] : type_constraints) {
    for (const auto& [other_attr, other_allowed] : other.type_constraints) {
      if (attr != other_attr) continue;
      // Both lists are sorted and deduplicated.
      bool common = false;
      for (size_t i = 0, j = 0; !common && i < allowed.size() && j < other_allowed.size();) {
        if (allowed[i] == other_allowed[j]) {
          common = true;
        } else if (allowed[i] < other_allowed[j]) {
          ++i;
        } else {
          ++j;
        }
      }
      if (!common) return false;
    }
  }
  return true;
}

bool KernelRegistration::IsHostMemoryArg(const std::string& arg_name) const {
  return std::binary_search(host_memory_args.begin(), host_memory_args.end(), arg_name);
}

std::string KernelRegistration::DebugString() const {
  std::string s = StrCat(op_type, " on ", device_type);
  if (!type_constraints.empty()) {
    s += " [";
    for (size_t i = 0; i < type_constraints.size(); ++i) {
      if (i > 0) s += ", ";
      s += StrCat(type_constraints[i].first, " in ", TypeListString(type_constraints[i].second));
    }
    s += "]";
  }
  if (priority != 0) s += StrCat(" priority ", priority);
  return s;
}

KernelRegistry* KernelRegistry::Global() {
  static KernelRegistry* const registry = new KernelRegistry();  // never destroyed
  return registry;
}

const KernelRegistration* KernelRegistry::FindOrNull(const std::string& op_type,
                                                     const AttrMap& attrs,
                                                     const std::string& device_type) const {
  std::shared_lock<std::shared_mutex> lock(mu_);
  const KernelRegistration* best = nullptr;
  auto it = kernels_.find(op_type);
  if (it == kernels_.end()) return nullptr;
  for (const auto& k : it->second) {
    if (k->device_type != device_type || !k->Matches(attrs)) continue;
    if (best == nullptr || k->priority > best->priority) best = k.get();
  }
  return best;
}

std::vector<const KernelRegistration*> KernelRegistry::Candidates(
    const std::string& op_type, const AttrMap& attrs, const std::string& device_type) const {
  std::vector<const KernelRegistration*> out;
  std::shared_lock<std::shared_mutex> lock(mu_);
  auto it = kernels_.find(op_type);
  if (it == kernels_.end()) return out;
  for (const auto& k : it->second) {
    if (k->device_type == device_type && k->Matches(attrs)) out.push_back(k.get());
  }
  // Highest priority first; among equals, registration order (FindOrNull's choice first).
  std::stable_sort(out.begin(), out.end(), [](const KernelRegistration* a, const KernelRegistration* b) {
    return a->priority > b->priority;
  });
  return out;
}

StatusOr<const KernelRegistration*> KernelRegistry::Find(const std::string& node_name,
                                                          const std::string& op_type,
                                                          const AttrMap& attrs,
                                                          const std::string& device_type) const {
  if (const KernelRegistration* best = FindOrNull(op_type, attrs, device_type)) return best;
  std::shared_lock<std::shared_mutex> lock(mu_);
  auto it = kernels_.find(op_type);
  // No match: the message lists what is registered for the op.
  std::string registered;
  if (it != kernels_.end()) {
    for (const auto& k : it->second) {
      if (!registered.empty()) registered += "; ";
      registered += k->DebugString();
    }
  }
  // Name the node's type attrs: they decide which kernel matches.
  std::string type_attrs;
  for (const auto& [name, value] : attrs) {
    std::string v;
    if (value.value_case() == tf::AttrValue::kType) {
      v = DataTypeName(static_cast<DataType>(value.type()));
    } else if (value.value_case() == tf::AttrValue::kList && value.list().type_size() > 0) {
      std::vector<DataType> types;
      for (int t : value.list().type()) types.push_back(static_cast<DataType>(t));
      v = TypeListString(types);
    } else {
      continue;
    }
    type_attrs += StrCat(type_attrs.empty() ? "" : ", ", name, "=", v);
  }
  return NotFound("No kernel registered for op '", op_type, "' (node '", node_name,
                  "') on device '", device_type, "'",
                  type_attrs.empty() ? "" : StrCat(" with ", type_attrs),
                  registered.empty() ? std::string("; no kernels are registered for this op"
                                                   " (is the plugin providing them loaded?)")
                                     : StrCat("; registered kernels: ", registered));
}

std::vector<const KernelRegistration*> KernelRegistry::KernelsFor(const std::string& op_type) const {
  std::shared_lock<std::shared_mutex> lock(mu_);
  std::vector<const KernelRegistration*> out;
  auto it = kernels_.find(op_type);
  if (it != kernels_.end()) {
    for (const auto& k : it->second) out.push_back(k.get());
  }
  return out;
}

std::vector<std::string> KernelRegistry::DeviceTypesFor(const std::string& op_type) const {
  std::set<std::string> types;
  for (const KernelRegistration* k : KernelsFor(op_type)) types.insert(k->device_type);
  return {types.begin(), types.end()};
}

Status KernelRegistry::CheckNoDuplicate(const KernelRegistration& kernel) const {
  std::shared_lock<std::shared_mutex> lock(mu_);
  auto it = kernels_.find(kernel.op_type);
  if (it == kernels_.end()) return Status::OK();
  for (const auto& k : it->second) {
    if (k->SameKey(kernel)) {
      return AlreadyExists("duplicate kernel ", kernel.DebugString(), ": already registered by ",
                           OwnerName(k->plugin));
    }
  }
  return Status::OK();
}

void KernelRegistry::AddLocked(std::unique_ptr<KernelRegistration> kernel) {
  auto& list = kernels_[kernel->op_type];
  list.push_back(std::move(kernel));
}

// ===================================================================================== //
// Devices
// ===================================================================================== //

int DeviceRegistration::DeviceCount() const {
  if (def.device_count == nullptr) return 0;
  const int n = def.device_count(def.user_data);
  return n < 0 ? 0 : n;
}

std::string DeviceRegistration::Description(int ordinal) const {
  if (def.device_description == nullptr) return device_type;
  const char* d = def.device_description(def.user_data, ordinal);
  return d == nullptr ? device_type : std::string(d);
}

void* DeviceInstance::stream() const {
  if (device == nullptr || device->def.stream == nullptr) return nullptr;
  return device->def.stream(state);
}

DeviceRegistry* DeviceRegistry::Global() {
  static DeviceRegistry* const registry = new DeviceRegistry();  // never destroyed
  return registry;
}

const DeviceRegistration* DeviceRegistry::Find(const std::string& device_type) const {
  std::shared_lock<std::shared_mutex> lock(mu_);
  auto it = devices_.find(device_type);
  return it == devices_.end() ? nullptr : it->second.get();
}

std::vector<std::string> DeviceRegistry::DeviceTypes() const {
  std::shared_lock<std::shared_mutex> lock(mu_);
  std::vector<std::string> out;
  for (const auto& [type, reg] : devices_) out.push_back(type);
  return out;
}

StatusOr<DeviceInstance*> DeviceRegistry::GetInstance(const std::string& device_type,
                                                      int ordinal) {
  const DeviceRegistration* reg = Find(device_type);
  if (reg == nullptr) {
    return NotFound("No device of type '", device_type, "' is registered (is its plugin loaded?)");
  }
  std::lock_guard<std::mutex> lock(instances_mu_);
  auto key = std::make_pair(device_type, ordinal);
  auto it = instances_.find(key);
  if (it != instances_.end()) return it->second.get();
  const int count = reg->DeviceCount();
  if (ordinal < 0 || ordinal >= count) {
    return InvalidArgument("Device /device:", device_type, ":", ordinal, " does not exist (",
                           count, " ", device_type, " device", count == 1 ? "" : "s", ")");
  }
  auto instance = std::make_unique<DeviceInstance>();
  instance->device = reg;
  instance->ordinal = ordinal;
  if (reg->def.create_device != nullptr) {
    TG_Status st;
    instance->state = reg->def.create_device(reg->def.user_data, ordinal, &st);
    if (!st.status.ok()) {
      return st.status.Prepend(StrCat("creating device /device:", device_type, ":", ordinal,
                                      " of ", OwnerName(reg->plugin), ": "));
    }
  }
  DeviceInstance* raw = instance.get();
  instances_.emplace(key, std::move(instance));
  return raw;
}

// ===================================================================================== //
// Savers
// ===================================================================================== //

Status SaverRegistration::Save(const std::string& prefix, const std::vector<std::string>& names,
                               const std::vector<Tensor>& tensors) const {
  if (names.size() != tensors.size()) {
    return InvalidArgument("saver '", format, "': ", names.size(), " names for ", tensors.size(),
                           " tensors");
  }
  std::vector<const char*> name_ptrs;
  std::vector<TG_Tensor> wrapped;
  std::vector<const TG_Tensor*> tensor_ptrs;
  wrapped.reserve(tensors.size());
  for (size_t i = 0; i < names.size(); ++i) {
    name_ptrs.push_back(names[i].c_str());
    wrapped.push_back(TG_Tensor{tensors[i]});
  }
  for (const TG_Tensor& t : wrapped) tensor_ptrs.push_back(&t);
  TG_Status st;
  def.save(def.user_data, prefix.c_str(), name_ptrs.data(), tensor_ptrs.data(), names.size(), &st);
  return st.status.Prepend(StrCat("saver '", format, "' saving '", prefix, "': "));
}

Status SaverRegistration::Restore(const std::string& prefix, const std::vector<std::string>& names,
                                  std::vector<Tensor>* tensors) const {
  std::vector<const char*> name_ptrs;
  for (const auto& n : names) name_ptrs.push_back(n.c_str());
  std::vector<TG_Tensor*> out(names.size(), nullptr);
  TG_Status st;
  def.restore(def.user_data, prefix.c_str(), name_ptrs.data(), names.size(), out.data(), &st);
  // Whatever the plugin allocated is the core's now, success or not.
  std::vector<std::unique_ptr<TG_Tensor>> owned;
  for (TG_Tensor* t : out) owned.emplace_back(t);
  if (!st.status.ok()) {
    return st.status.Prepend(StrCat("saver '", format, "' restoring '", prefix, "': "));
  }
  tensors->clear();
  for (size_t i = 0; i < owned.size(); ++i) {
    if (owned[i] == nullptr) {
      return Internal("saver '", format, "' restoring '", prefix, "': returned no tensor for '",
                      names[i], "'");
    }
    tensors->push_back(std::move(owned[i]->tensor));
  }
  return Status::OK();
}

namespace {

Status SaverLacks(const std::string& format, const char* call) {
  return Unimplemented("saver '", format, "' does not implement ", call,
                       " (a plugin built against plugin ABI 4 or older, or a format without it)");
}

int ListVisitor(void* arg, const TG_CheckpointEntry* entry) {
  auto* entries = static_cast<std::vector<SaverRegistration::Entry>*>(arg);
  SaverRegistration::Entry e;
  e.name = entry->name != nullptr ? entry->name : "";
  e.dtype = static_cast<DataType>(entry->dtype);
  if (entry->num_dims > 0 && entry->dims != nullptr) {
    e.dims.assign(entry->dims, entry->dims + entry->num_dims);
  }
  entries->push_back(std::move(e));
  return 0;
}

}  // namespace

Status SaverRegistration::List(const std::string& prefix, std::vector<Entry>* entries) const {
  if (def.list == nullptr) return SaverLacks(format, "list");
  entries->clear();
  TG_Status st;
  def.list(def.user_data, prefix.c_str(), ListVisitor, entries, &st);
  return st.status.Prepend(StrCat("saver '", format, "' listing '", prefix, "': "));
}

bool SaverRegistration::Exists(const std::string& prefix) const {
  return def.exists != nullptr && def.exists(def.user_data, prefix.c_str()) != 0;
}

Status SaverRegistration::Remove(const std::string& prefix) const {
  if (def.remove == nullptr) return SaverLacks(format, "remove");
  TG_Status st;
  def.remove(def.user_data, prefix.c_str(), &st);
  return st.status.Prepend(StrCat("saver '", format, "' removing '", prefix, "': "));
}

Status SaverRegistration::Merge(const std::vector<std::string>& prefixes,
                                const std::string& destination, bool delete_old_dirs) const {
  if (def.merge == nullptr) return SaverLacks(format, "merge");
  std::vector<const char*> ptrs;
  for (const auto& p : prefixes) ptrs.push_back(p.c_str());
  TG_Status st;
  def.merge(def.user_data, ptrs.data(), ptrs.size(), destination.c_str(), delete_old_dirs ? 1 : 0,
            &st);
  return st.status.Prepend(StrCat("saver '", format, "' merging into '", destination, "': "));
}

SaverRegistry* SaverRegistry::Global() {
  static SaverRegistry* const registry = new SaverRegistry();  // never destroyed
  return registry;
}

const SaverRegistration* SaverRegistry::Find(const std::string& format) const {
  std::shared_lock<std::shared_mutex> lock(mu_);
  auto it = savers_.find(format);
  return it == savers_.end() ? nullptr : it->second.get();
}

StatusOr<const SaverRegistration*> SaverRegistry::ForPrefix(const std::string& prefix) const {
  std::shared_lock<std::shared_mutex> lock(mu_);
  for (const auto& [format, reg] : savers_) {
    const char* ext = reg->def.file_extension;
    if (ext == nullptr || *ext == '\0') continue;
    std::string_view suffix(ext);
    if (prefix.size() >= suffix.size() &&
        std::string_view(prefix).substr(prefix.size() - suffix.size()) == suffix) {
      return reg.get();
    }
  }
  auto it = savers_.find(kDefaultFormat);
  if (it != savers_.end()) return it->second.get();
  std::string loaded;
  for (const auto& entry : savers_) {
    if (!loaded.empty()) loaded += ", ";
    loaded += entry.first;
  }
  return NotFound("no checkpoint saver for '", prefix, "': no loaded saver plugin claims its ",
                  "file extension, and the default format '", kDefaultFormat,
                  "' is not loaded (loaded formats: ", loaded.empty() ? "none" : loaded, ")");
}

std::vector<std::string> SaverRegistry::Formats() const {
  std::shared_lock<std::shared_mutex> lock(mu_);
  std::vector<std::string> out;
  for (const auto& [f, reg] : savers_) out.push_back(f);
  return out;
}

// ===================================================================================== //
// Gradients
// ===================================================================================== //

GradientRegistry* GradientRegistry::Global() {
  static GradientRegistry* const registry = new GradientRegistry();  // never destroyed
  return registry;
}

const GradientRegistration* GradientRegistry::Find(const std::string& op_type) const {
  std::shared_lock<std::shared_mutex> lock(mu_);
  auto it = gradients_.find(op_type);
  return it == gradients_.end() ? nullptr : it->second.get();
}

std::vector<std::string> GradientRegistry::OpTypes() const {
  std::shared_lock<std::shared_mutex> lock(mu_);
  std::vector<std::string> out;
  for (const auto& [op, reg] : gradients_) out.push_back(op);
  return out;
}

// ===================================================================================== //
// PluginRegistrations
// ===================================================================================== //

PluginRegistrations::PluginRegistrations(std::string plugin_file) : file_(std::move(plugin_file)) {}
PluginRegistrations::~PluginRegistrations() = default;

PluginRegistrations::Scope::Scope(PluginRegistrations* regs) : previous_(g_active_registrations) {
  g_active_registrations = regs;
}
PluginRegistrations::Scope::~Scope() { g_active_registrations = previous_; }

PluginRegistrations* PluginRegistrations::Active() { return g_active_registrations; }

Status PluginRegistrations::Remember(Status s) {
  if (!s.ok()) {
    s = s.Prepend(StrCat("Plugin '", file_, "': "));
    if (first_error_.ok()) first_error_ = s;
  }
  return s;
}

const tf::OpDef* PluginRegistrations::FindOpDef(const std::string& op_type) const {
  if (const OpRegistration* reg = scratch_ops_.Find(op_type)) return &reg->op_def;
  if (const OpRegistration* reg = OpRegistry::Global()->Find(op_type)) return &reg->op_def;
  return nullptr;
}

namespace {

// A C string array from the plugin: NULL is fine only when empty; no element may be NULL.
Status ReadStrings(const char* const* strings, size_t count, const char* what,
                   std::vector<std::string>* out) {
  out->clear();
  if (count == 0) return Status::OK();
  if (strings == nullptr) return InvalidArgument(what, " is NULL but its count is ", count);
  for (size_t i = 0; i < count; ++i) {
    if (strings[i] == nullptr) return InvalidArgument(what, "[", i, "] is NULL");
    out->emplace_back(strings[i]);
  }
  return Status::OK();
}

}  // namespace

Status PluginRegistrations::AddOp(const TG_OpDefinition& in) {
  TG_OpDefinition def;
  Status s = ReadPluginStruct(&in, kOpDefinitionMinSize, "TG_OpDefinition", &def);
  if (!s.ok()) return Remember(s.Prepend("register_op: "));
  if (def.name == nullptr || def.name[0] == '\0') {
    return Remember(InvalidArgument("register_op: the op has no name"));
  }
  const std::string name = def.name;
  auto fail = [&](const Status& st) { return Remember(st.Prepend(StrCat("op '", name, "': "))); };
  std::vector<std::string> inputs, outputs, attrs;
  if (!(s = ReadStrings(def.inputs, def.num_inputs, "inputs", &inputs)).ok()) return fail(s);
  if (!(s = ReadStrings(def.outputs, def.num_outputs, "outputs", &outputs)).ok()) return fail(s);
  if (!(s = ReadStrings(def.attrs, def.num_attrs, "attrs", &attrs)).ok()) return fail(s);

  if (OpRegistry::Global()->Find(name) != nullptr) {
    const LoadedPlugin* owner = nullptr;
    {
      std::lock_guard<std::mutex> lock(PluginOpOwnersMutex());
      auto it = PluginOpOwners().find(name);
      if (it != PluginOpOwners().end()) owner = it->second;
    }
    return Remember(AlreadyExists("duplicate op '", name, "': already registered by ",
                                  OwnerName(owner)));
  }
  OpDefBuilder builder(name);
  for (auto& spec : inputs) builder.Input(spec);
  for (auto& spec : outputs) builder.Output(spec);
  for (auto& spec : attrs) builder.Attr(spec);
  if (def.is_stateful) builder.SetIsStateful();
  // ABI 6; reads 0 for older plugins (ReadPluginStruct zeroes what they did not fill).
  if (def.allows_uninitialized_input) builder.SetAllowsUninitializedInput();
  if (def.summary != nullptr) builder.Doc(def.summary);
  if (def.shape_fn != nullptr) builder.SetShapeFn(WrapPluginShapeFn(def.shape_fn, def.shape_fn_user_data));
  OpRegistration reg;
  if (!(s = builder.Finalize(&reg)).ok()) return Remember(s);
  OpRegistration copy = reg;
  // The scratch registry validates the whole OpDef and refuses a second op of this name.
  s = scratch_ops_.Register(std::move(copy));
  if (s.code() == Code::kAlreadyExists) {
    return Remember(AlreadyExists("duplicate op '", name, "': this plugin registers it twice"));
  }
  if (!s.ok()) return Remember(s);
  ops_.push_back(std::move(reg));
  return Status::OK();
}

Status PluginRegistrations::AddKernel(const TG_KernelDefinition& in) {
  TG_KernelDefinition def;
  Status s = ReadPluginStruct(&in, kKernelDefinitionMinSize, "TG_KernelDefinition", &def);
  if (!s.ok()) return Remember(s.Prepend("register_kernel: "));
  if (def.op_type == nullptr || def.op_type[0] == '\0') {
    return Remember(InvalidArgument("register_kernel: the kernel has no op_type"));
  }
  const std::string op_type = def.op_type;
  const std::string device = def.device_type == nullptr ? "" : def.device_type;
  auto fail = [&](const Status& st) {
    return Remember(st.Prepend(StrCat("kernel for op '", op_type, "' on device '", device, "': ")));
  };
  if (!IsValidDeviceType(device)) {
    return fail(InvalidArgument("invalid device type (letters, digits and '_', e.g. \"CPU\")"));
  }
  if (def.compute == nullptr) return fail(InvalidArgument("compute is NULL"));
  const tf::OpDef* op_def = FindOpDef(op_type);
  if (op_def == nullptr) {
    return Remember(NotFound("kernel for unknown op '", op_type, "' on device '", device,
                             "': no op of that type is registered (register the op before its "
                             "kernels)"));
  }

  auto kernel = std::make_unique<KernelRegistration>();
  kernel->op_type = op_type;
  kernel->device_type = device;
  if (def.num_type_constraints > 0 && def.type_constraints == nullptr) {
    return fail(InvalidArgument("type_constraints is NULL but num_type_constraints is ",
                                def.num_type_constraints));
  }
  for (size_t i = 0; i < def.num_type_constraints; ++i) {
    TG_TypeConstraint tc;
    s = ReadPluginStruct(&def.type_constraints[i], kTypeConstraintMinSize, "TG_TypeConstraint", &tc);
    if (!s.ok()) return fail(s.Prepend(StrCat("type_constraints[", i, "]: ")));
    if (tc.attr_name == nullptr) return fail(InvalidArgument("type_constraints[", i, "] has no attr_name"));
    const std::string attr = tc.attr_name;
    const tf::OpDef::AttrDef* attr_def = nullptr;
    for (const auto& a : op_def->attr()) {
      if (a.name() == attr) attr_def = &a;
    }
    if (attr_def == nullptr || (attr_def->type() != "type" && attr_def->type() != "list(type)")) {
      return fail(InvalidArgument("type constraint on '", attr, "', which is not a type attr of op '",
                                  op_type, "'"));
    }
    if (tc.num_allowed == 0 || tc.allowed == nullptr) {
      return fail(InvalidArgument("type constraint on '", attr, "' allows no dtype"));
    }
    std::vector<DataType> allowed;
    for (size_t k = 0; k < tc.num_allowed; ++k) {
      int v;
      std::memcpy(&v, &tc.allowed[k], sizeof v);  // any int may arrive from C
      if (!IsValidDataType(v) || IsRefType(static_cast<DataType>(v))) {
        return fail(InvalidArgument("type constraint on '", attr, "' allows invalid dtype ", v));
      }
      allowed.push_back(static_cast<DataType>(v));
    }
    std::sort(allowed.begin(), allowed.end());
    allowed.erase(std::unique(allowed.begin(), allowed.end()), allowed.end());
    for (const auto& existing : kernel->type_constraints) {
      if (existing.first == attr) return fail(InvalidArgument("two type constraints on '", attr, "'"));
    }
    kernel->type_constraints.emplace_back(attr, std::move(allowed));
  }
  std::sort(kernel->type_constraints.begin(), kernel->type_constraints.end());
  std::vector<std::string> host_memory;
  s = ReadStrings(def.host_memory_args, def.num_host_memory_args, "host_memory_args", &host_memory);
  if (!s.ok()) return fail(s);
  for (const auto& arg : host_memory) {
    bool found = false;
    for (const auto& a : op_def->input_arg()) found = found || a.name() == arg;
    for (const auto& a : op_def->output_arg()) found = found || a.name() == arg;
    if (!found) {
      return fail(InvalidArgument("host-memory arg '", arg, "' is not an input or output of op '",
                                  op_type, "'"));
    }
  }
  std::sort(host_memory.begin(), host_memory.end());
  host_memory.erase(std::unique(host_memory.begin(), host_memory.end()), host_memory.end());
  kernel->host_memory_args = std::move(host_memory);
  kernel->create = def.create;
  kernel->compute = def.compute;
  kernel->destroy = def.destroy;
  kernel->user_data = def.user_data;
  kernel->priority = def.priority;
  kernel->cost_ns_per_element =
      def.cost_ns_per_element > 0 && std::isfinite(def.cost_ns_per_element) ? def.cost_ns_per_element : 0;

  s = KernelRegistry::Global()->CheckNoDuplicate(*kernel);
  if (!s.ok()) return Remember(s);
  for (const auto& k : kernels_) {
    if (k->SameKey(*kernel)) {
      return Remember(AlreadyExists("duplicate kernel ", kernel->DebugString(),
                                    ": this plugin registers it twice"));
    }
  }
  kernels_.push_back(std::move(kernel));
  return Status::OK();
}

Status PluginRegistrations::AddGradient(const TG_GradientDefinition& in) {
  TG_GradientDefinition def;
  Status s = ReadPluginStruct(&in, kGradientDefinitionMinSize, "TG_GradientDefinition", &def);
  if (!s.ok()) return Remember(s.Prepend("register_gradient: "));
  if (def.op_type == nullptr || def.op_type[0] == '\0') {
    return Remember(InvalidArgument("register_gradient: no op_type"));
  }
  const std::string op_type = def.op_type;
  if (def.fn == nullptr) return Remember(InvalidArgument("gradient for op '", op_type, "': fn is NULL"));
  if (FindOpDef(op_type) == nullptr) {
    return Remember(NotFound("gradient for unknown op '", op_type, "'"));
  }
  if (const GradientRegistration* g = GradientRegistry::Global()->Find(op_type)) {
    return Remember(AlreadyExists("duplicate gradient for op '", op_type, "': already registered by ",
                                  OwnerName(g->plugin)));
  }
  for (const auto& g : gradients_) {
    if (g->op_type == op_type) {
      return Remember(AlreadyExists("duplicate gradient for op '", op_type,
                                    "': this plugin registers it twice"));
    }
  }
  auto reg = std::make_unique<GradientRegistration>();
  reg->op_type = op_type;
  reg->fn = def.fn;
  reg->user_data = def.user_data;
  gradients_.push_back(std::move(reg));
  return Status::OK();
}

Status PluginRegistrations::AddDevice(const TG_DeviceDefinition& in) {
  auto reg = std::make_unique<DeviceRegistration>();
  Status s = ReadPluginStruct(&in, kDeviceDefinitionMinSize, "TG_DeviceDefinition", &reg->def);
  if (!s.ok()) return Remember(s.Prepend("register_device: "));
  const std::string type = reg->def.device_type == nullptr ? "" : reg->def.device_type;
  if (!IsValidDeviceType(type)) {
    return Remember(InvalidArgument("register_device: invalid device type '", type,
                                    "' (letters, digits and '_', e.g. \"GPU\")"));
  }
  if (reg->def.device_count == nullptr) {
    return Remember(InvalidArgument("device '", type, "': device_count is NULL"));
  }
  if ((reg->def.allocate == nullptr) != (reg->def.deallocate == nullptr)) {
    return Remember(InvalidArgument("device '", type, "': allocate and deallocate come in pairs"));
  }
  if (const DeviceRegistration* d = DeviceRegistry::Global()->Find(type)) {
    return Remember(AlreadyExists("duplicate device type '", type, "': already registered by ",
                                  OwnerName(d->plugin)));
  }
  for (const auto& d : devices_) {
    if (d->device_type == type) {
      return Remember(AlreadyExists("duplicate device type '", type,
                                    "': this plugin registers it twice"));
    }
  }
  reg->device_type = type;
  reg->def.device_type = nullptr;  // the plugin's string is not kept; device_type is
  devices_.push_back(std::move(reg));
  return Status::OK();
}

Status PluginRegistrations::AddSaver(const TG_SaverDefinition& in) {
  auto reg = std::make_unique<SaverRegistration>();
  Status s = ReadPluginStruct(&in, kSaverDefinitionMinSize, "TG_SaverDefinition", &reg->def);
  if (!s.ok()) return Remember(s.Prepend("register_saver: "));
  const std::string format = reg->def.format == nullptr ? "" : reg->def.format;
  if (format.empty()) return Remember(InvalidArgument("register_saver: the saver has no format name"));
  if (reg->def.save == nullptr || reg->def.restore == nullptr) {
    return Remember(InvalidArgument("saver '", format, "': save and restore must both be set"));
  }
  if (const SaverRegistration* existing = SaverRegistry::Global()->Find(format)) {
    return Remember(AlreadyExists("duplicate saver format '", format, "': already registered by ",
                                  OwnerName(existing->plugin)));
  }
  for (const auto& v : savers_) {
    if (v->format == format) {
      return Remember(AlreadyExists("duplicate saver format '", format,
                                    "': this plugin registers it twice"));
    }
  }
  reg->format = format;
  reg->def.format = nullptr;
  savers_.push_back(std::move(reg));
  return Status::OK();
}

Status PluginRegistrations::Commit(const LoadedPlugin* plugin) {
  if (!first_error_.ok()) return first_error_;
  KernelRegistry* kernels = KernelRegistry::Global();
  DeviceRegistry* devices = DeviceRegistry::Global();
  SaverRegistry* savers = SaverRegistry::Global();
  GradientRegistry* gradients = GradientRegistry::Global();
  std::unique_lock<std::shared_mutex> lk(kernels->mu_), ld(devices->mu_), ls(savers->mu_),
      lg(gradients->mu_);
  // Loads are serialised, so nothing below can have appeared since the Add* checks; check
  // again anyway so that a commit is all or nothing whatever happens.
  for (const auto& k : kernels_) {
    auto it = kernels->kernels_.find(k->op_type);
    if (it == kernels->kernels_.end()) continue;
    for (const auto& existing : it->second) {
      if (existing->SameKey(*k)) {
        return Remember(AlreadyExists("duplicate kernel ", k->DebugString()));
      }
    }
  }
  for (const auto& d : devices_) {
    if (devices->devices_.count(d->device_type) > 0) {
      return Remember(AlreadyExists("duplicate device type '", d->device_type, "'"));
    }
  }
  for (const auto& v : savers_) {
    if (savers->savers_.count(v->format) > 0) {
      return Remember(AlreadyExists("duplicate saver format '", v->format, "'"));
    }
  }
  for (const auto& g : gradients_) {
    if (gradients->gradients_.count(g->op_type) > 0) {
      return Remember(AlreadyExists("duplicate gradient for op '", g->op_type, "'"));
    }
  }
  std::vector<std::string> op_names = OpNames();
  Status s = OpRegistry::Global()->RegisterAll(std::move(ops_));
  ops_.clear();
  if (!s.ok()) return Remember(s);
  {
    std::lock_guard<std::mutex> lock(PluginOpOwnersMutex());
    for (const auto& name : op_names) PluginOpOwners()[name] = plugin;
  }
  for (auto& k : kernels_) {
    k->plugin = plugin;
    kernels->AddLocked(std::move(k));
  }
  for (auto& d : devices_) {
    d->plugin = plugin;
    std::string type = d->device_type;
    devices->devices_.emplace(std::move(type), std::move(d));
  }
  for (auto& v : savers_) {
    v->plugin = plugin;
    std::string format = v->format;
    savers->savers_.emplace(std::move(format), std::move(v));
  }
  for (auto& g : gradients_) {
    g->plugin = plugin;
    std::string op = g->op_type;
    gradients->gradients_.emplace(std::move(op), std::move(g));
  }
  kernels_.clear();
  devices_.clear();
  savers_.clear();
  gradients_.clear();
  return Status::OK();
}

std::vector<std::string> PluginRegistrations::OpNames() const {
  std::vector<std::string> out;
  for (const auto& op : ops_) out.push_back(op.op_def.name());
  return out;
}

std::vector<std::pair<std::string, std::string>> PluginRegistrations::KernelKeys() const {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& k : kernels_) out.emplace_back(k->op_type, k->device_type);
  return out;
}

std::vector<std::string> PluginRegistrations::KernelOverrides() const {
  std::vector<std::string> out;
  KernelRegistry* registry = KernelRegistry::Global();
  std::shared_lock<std::shared_mutex> lock(registry->mu_);
  for (const auto& k : kernels_) {
    auto it = registry->kernels_.find(k->op_type);
    if (it == registry->kernels_.end()) continue;
    for (const auto& existing : it->second) {
      if (existing->priority < k->priority && k->Overlaps(*existing)) {
        out.push_back(StrCat("kernel ", k->DebugString(), " overrides ", existing->DebugString(),
                             " of ", OwnerName(existing->plugin)));
      }
    }
  }
  return out;
}

std::vector<std::string> PluginRegistrations::DeviceTypes() const {
  std::vector<std::string> out;
  for (const auto& d : devices_) out.push_back(d->device_type);
  return out;
}

std::vector<std::string> PluginRegistrations::SaverFormats() const {
  std::vector<std::string> out;
  for (const auto& v : savers_) out.push_back(v->format);
  return out;
}

std::vector<std::string> PluginRegistrations::GradientOpTypes() const {
  std::vector<std::string> out;
  for (const auto& g : gradients_) out.push_back(g->op_type);
  return out;
}

}  // namespace tgraph
