// What plugins registered: kernels, devices, checkpoint savers and gradient functions, each
// remembering the plugin that brought it. Plugins stay loaded for the life of the process,
// so every function pointer kept here stays valid; registrations are never removed.
//
// Registrations arrive through the TG_CoreApi register_* calls during a plugin's
// TG_PluginInit. They are buffered in a PluginRegistrations (one per load) and reach the
// process-wide registries only when the whole init succeeded (Commit), so a failed load
// leaves nothing behind.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <utility>
#include <vector>

#include "core/base/dtype.h"
#include "core/base/status.h"
#include "core/base/tensor.h"
#include "core/graph/attr_map.h"
#include "core/ops/op_registry.h"
#include "tgraph/plugin.h"

namespace tgraph {

struct LoadedPlugin;

// ---- kernels ----

struct KernelRegistration {
  std::string op_type;
  std::string device_type;
  // attr name -> allowed dtypes; sorted by attr name, each list sorted and unique.
  std::vector<std::pair<std::string, std::vector<DataType>>> type_constraints;
  std::vector<std::string> host_memory_args;  // sorted
  TG_KernelCreateFn create = nullptr;
  TG_KernelComputeFn compute = nullptr;
  TG_KernelDestroyFn destroy = nullptr;
  void* user_data = nullptr;
  int32_t priority = 0;
  double cost_ns_per_element = 0;  // 0 = unknown
  const LoadedPlugin* plugin = nullptr;  // null for registrations made by the core itself

  // Do the node's attrs satisfy every type constraint? (A type attr's value, or every
  // element of a list(type) attr, must be allowed; a missing attr does not match.)
  bool Matches(const AttrMap& attrs) const;
  // Same op, device, constraints and priority: two such kernels could never be told apart.
  bool SameKey(const KernelRegistration& other) const;
  // Some node could match both: same op and device, and every attr both constrain allows a
  // dtype in common.
  bool Overlaps(const KernelRegistration& other) const;
  bool IsHostMemoryArg(const std::string& arg_name) const;
  // "Relu on CPU [T in {float, double}] priority 0", for messages and listings.
  std::string DebugString() const;
};

class KernelRegistry {
 public:
  static KernelRegistry* Global();

  // The kernel for a node of `op_type` with `attrs` on `device_type`: the highest-priority
  // match (the first registered among equals). NOT_FOUND naming node, op, device and the
  // node's type attrs, and listing what is registered for the op, when none matches.
  StatusOr<const KernelRegistration*> Find(const std::string& node_name,
                                           const std::string& op_type, const AttrMap& attrs,
                                           const std::string& device_type) const;
  // The same without a message: null when none matches.
  const KernelRegistration* FindOrNull(const std::string& op_type, const AttrMap& attrs,
                                       const std::string& device_type) const;
  // Every kernel matching the node on `device_type`, in the order placement tries them
  // when kernels decline the node: highest priority first, then registration order (the
  // first is FindOrNull's choice).
  std::vector<const KernelRegistration*> Candidates(const std::string& op_type,
                                                    const AttrMap& attrs,
                                                    const std::string& device_type) const;
  std::vector<const KernelRegistration*> KernelsFor(const std::string& op_type) const;
  // Device types with at least one kernel for `op_type`.
  std::vector<std::string> DeviceTypesFor(const std::string& op_type) const;
  // ALREADY_EXISTS if an equal key is registered.
  Status CheckNoDuplicate(const KernelRegistration& kernel) const;

 private:
  friend class PluginRegistrations;
  void AddLocked(std::unique_ptr<KernelRegistration> kernel);
  mutable std::shared_mutex mu_;
  // op type -> kernels in registration order (pointers are stable).
  std::map<std::string, std::vector<std::unique_ptr<KernelRegistration>>> kernels_;
};

// ---- devices ----

struct DeviceRegistration {
  std::string device_type;
  TG_DeviceDefinition def{};  // copied; fields the plugin did not have are zero
  const LoadedPlugin* plugin = nullptr;

  int DeviceCount() const;
  std::string Description(int ordinal) const;
  bool host_accessible() const { return def.host_accessible != 0; }
};

// A created device (create_device called once per ordinal, kept for the process).
struct DeviceInstance {
  const DeviceRegistration* device = nullptr;
  int ordinal = 0;
  void* state = nullptr;
  void* stream() const;  // TG_DeviceDefinition.stream, or null
};

class DeviceRegistry {
 public:
  static DeviceRegistry* Global();
  const DeviceRegistration* Find(const std::string& device_type) const;
  std::vector<std::string> DeviceTypes() const;  // sorted
  // Creates the device the first time; NOT_FOUND for an unknown type, INVALID_ARGUMENT
  // for an ordinal out of range, create_device's status otherwise.
  StatusOr<DeviceInstance*> GetInstance(const std::string& device_type, int ordinal);

 private:
  friend class PluginRegistrations;
  mutable std::shared_mutex mu_;
  std::map<std::string, std::unique_ptr<DeviceRegistration>> devices_;
  std::mutex instances_mu_;
  std::map<std::pair<std::string, int>, std::unique_ptr<DeviceInstance>> instances_;
};

// ---- savers ----

struct SaverRegistration {
  std::string format;
  TG_SaverDefinition def{};
  const LoadedPlugin* plugin = nullptr;

  // Calls the plugin's save with host tensors; errors name the format and prefix.
  Status Save(const std::string& prefix, const std::vector<std::string>& names,
              const std::vector<Tensor>& tensors) const;
  // Calls the plugin's restore; the tensors it allocated become core tensors.
  Status Restore(const std::string& prefix, const std::vector<std::string>& names,
                 std::vector<Tensor>* tensors) const;

  // ABI 5 calls; UNIMPLEMENTED naming the format where the plugin lacks one.
  struct Entry {
    std::string name;
    DataType dtype = DT_INVALID;
    std::vector<int64_t> dims;
  };
  Status List(const std::string& prefix, std::vector<Entry>* entries) const;
  bool Exists(const std::string& prefix) const;  // false where the plugin can't tell
  Status Remove(const std::string& prefix) const;
  Status Merge(const std::vector<std::string>& prefixes, const std::string& destination,
               bool delete_old_dirs) const;
};

class SaverRegistry {
 public:
  static SaverRegistry* Global();
  const SaverRegistration* Find(const std::string& format) const;
  std::vector<std::string> Formats() const;  // sorted
  // The saver whose file extension `prefix` ends with, else the default format
  // ("tensorflow_v2"); NOT_FOUND naming the prefix and the formats loaded when neither is.
  StatusOr<const SaverRegistration*> ForPrefix(const std::string& prefix) const;
  static constexpr const char* kDefaultFormat = "tensorflow_v2";

 private:
  friend class PluginRegistrations;
  mutable std::shared_mutex mu_;
  std::map<std::string, std::unique_ptr<SaverRegistration>> savers_;
};

// ---- gradients ----

struct GradientRegistration {
  std::string op_type;
  TG_GradientFn fn = nullptr;
  void* user_data = nullptr;
  const LoadedPlugin* plugin = nullptr;
};

class GradientRegistry {
 public:
  static GradientRegistry* Global();
  const GradientRegistration* Find(const std::string& op_type) const;
  std::vector<std::string> OpTypes() const;  // sorted

 private:
  friend class PluginRegistrations;
  mutable std::shared_mutex mu_;
  std::map<std::string, std::unique_ptr<GradientRegistration>> gradients_;
};

// ---- one plugin's registrations, before they count ----

// Collects what one TG_PluginInit registers. Each Add* validates against the process-wide
// registries and against this plugin's own earlier registrations, so Commit cannot fail
// for a reason the plugin caused. The TG_CoreApi register_* functions reach the active
// instance through a thread-local set by Scope (registration outside a load is refused).
class PluginRegistrations {
 public:
  explicit PluginRegistrations(std::string plugin_file);
  ~PluginRegistrations();
  PluginRegistrations(const PluginRegistrations&) = delete;
  PluginRegistrations& operator=(const PluginRegistrations&) = delete;

  // Makes `regs` the target of register_* calls on this thread while it lives.
  class Scope {
   public:
    explicit Scope(PluginRegistrations* regs);
    ~Scope();
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    PluginRegistrations* previous_;
  };
  static PluginRegistrations* Active();

  // Errors are returned to the register_* caller and remembered: a load with a failed
  // registration fails even if the plugin's init ignored the status.
  Status AddOp(const TG_OpDefinition& def);
  Status AddKernel(const TG_KernelDefinition& def);
  Status AddGradient(const TG_GradientDefinition& def);
  Status AddDevice(const TG_DeviceDefinition& def);
  Status AddSaver(const TG_SaverDefinition& def);
  const Status& first_error() const { return first_error_; }

  // Publishes everything (ops into OpRegistry::Global(), the rest into the registries
  // above), tagged with `plugin`, which must outlive the process-wide registries (it does:
  // loaded plugins are never freed). All or nothing.
  Status Commit(const LoadedPlugin* plugin);

  // What this load registered, in registration order (for the plugin listing).
  std::vector<std::string> OpNames() const;
  std::vector<std::pair<std::string, std::string>> KernelKeys() const;  // (op, device)
  // One line per already registered kernel that one of these outranks for some node (a
  // higher priority, overlapping type constraints): "kernel X overrides Y of plugin 'p'".
  std::vector<std::string> KernelOverrides() const;
  std::vector<std::string> DeviceTypes() const;
  std::vector<std::string> SaverFormats() const;
  std::vector<std::string> GradientOpTypes() const;

  const std::string& plugin_file() const { return file_; }

  // What the plugin logged during its init, kept for the plugin listing (`tgraph plugins`)
  // so that a line logged quietly (say, a backend that found no device) is still on record.
  void AddMessage(std::string line) { messages_.push_back(std::move(line)); }
  const std::vector<std::string>& Messages() const { return messages_; }

 private:
  Status Remember(Status s);
  const tf::OpDef* FindOpDef(const std::string& op_type) const;

  std::string file_;
  Status first_error_;
  std::vector<std::string> messages_;
  // Ops are registered into a private registry first: it validates them (and catches a
  // plugin defining one op twice); Commit moves them to the global registry.
  OpRegistry scratch_ops_;
  std::vector<OpRegistration> ops_;
  std::vector<std::unique_ptr<KernelRegistration>> kernels_;
  std::vector<std::unique_ptr<DeviceRegistration>> devices_;
  std::vector<std::unique_ptr<SaverRegistration>> savers_;
  std::vector<std::unique_ptr<GradientRegistration>> gradients_;
};

// Copies a struct the plugin filled: min(struct_size, sizeof(T)) bytes, the rest zero (a
// field beyond the plugin's struct_size reads as absent). INVALID_ARGUMENT naming `what`
// when struct_size does not cover the fields every definition needs (`min_size` bytes).
template <typename T>
Status ReadPluginStruct(const T* in, size_t min_size, const char* what, T* out) {
  std::memset(static_cast<void*>(out), 0, sizeof(T));
  if (in == nullptr) return InvalidArgument(what, " is NULL");
  const size_t declared = in->struct_size;
  if (declared < min_size) {
    return InvalidArgument(what, " has struct_size ", declared, ", but its required fields take ",
                           min_size, " bytes (was struct_size set to sizeof(", what, ")?)");
  }
  const size_t n = declared < sizeof(T) ? declared : sizeof(T);
  std::memcpy(static_cast<void*>(out), static_cast<const void*>(in), n);
  out->struct_size = n;
  return Status::OK();
}

// How many bytes of each ABI struct a plugin must provide: up to and including the last
// field that is not optional. Later (optional) fields may lie beyond struct_size.
#define TG_SIZE_THROUGH(type, field) (offsetof(type, field) + sizeof(static_cast<type*>(nullptr)->field))
inline constexpr size_t kOpDefinitionMinSize = TG_SIZE_THROUGH(TG_OpDefinition, num_attrs);
inline constexpr size_t kTypeConstraintMinSize = TG_SIZE_THROUGH(TG_TypeConstraint, num_allowed);
inline constexpr size_t kKernelDefinitionMinSize = TG_SIZE_THROUGH(TG_KernelDefinition, compute);
inline constexpr size_t kGradientDefinitionMinSize = TG_SIZE_THROUGH(TG_GradientDefinition, fn);
inline constexpr size_t kDeviceDefinitionMinSize = TG_SIZE_THROUGH(TG_DeviceDefinition, device_count);
inline constexpr size_t kSaverDefinitionMinSize = TG_SIZE_THROUGH(TG_SaverDefinition, restore);
inline constexpr size_t kPluginInfoMinSize = TG_SIZE_THROUGH(TG_PluginInfo, abi_version);
#undef TG_SIZE_THROUGH

}  // namespace tgraph
