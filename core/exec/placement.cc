#include "core/exec/placement.h"

#include <algorithm>
#include <array>
#include <map>
#include <boost/pending/disjoint_sets.hpp>
#include <string_view>
#include <unordered_map>

#include "core/exec/control_flow.h"
#include "core/graph/device_spec.h"
#include "core/graph/graph.h"

namespace tgraph {
namespace {

std::string OpLabel(const Operation& op) { return StrCat("'", op.name(), "' (", op.type(), ")"); }

// The kernel registry's choice for an operation on a device type depends only on the op
// type and the op's type-valued attrs, so operations alike share one look-up (a large graph
// has many operations and few such combinations).
class KernelChoices {
 public:
  const KernelRegistration* Find(const Operation& op, const std::string& device_type) {
    Key key;
    key.op = &op.registration();
    key.device_type = device_type;
    for (const auto& [name, value] : op.attrs()) {
      if (value.value_case() == tf::AttrValue::kType) {
        if (!key.Add(value.type())) return Lookup(op, device_type);
      } else if (value.value_case() == tf::AttrValue::kList && value.list().type_size() > 0) {
        if (!key.Add(-1 - value.list().type_size())) return Lookup(op, device_type);
        for (int t : value.list().type()) {
          if (!key.Add(t)) return Lookup(op, device_type);
        }
      }
    }
    auto it = memo_.find(key);
    if (it != memo_.end()) return it->second;
    const KernelRegistration* kernel = Lookup(op, device_type);
    memo_.emplace(key, kernel);
    return kernel;
  }

 private:
  static const KernelRegistration* Lookup(const Operation& op, const std::string& device_type) {
    return KernelRegistry::Global()->FindOrNull(op.type(), op.attrs(), device_type);
  }
  struct Key {
    const void* op = nullptr;
    std::string device_type;  // short: kept inline by the string
    std::array<int, 8> types{};    // the type attrs' values in attr-name order
    int count = 0;
    bool Add(int t) {
      if (count == static_cast<int>(types.size())) return false;  // too many: not memoized
      types[static_cast<size_t>(count++)] = t;
      return true;
    }
    bool operator==(const Key& o) const {
      return op == o.op && device_type == o.device_type && count == o.count && types == o.types;
    }
  };
  struct KeyHash {
    size_t operator()(const Key& k) const {
      size_t h = std::hash<const void*>()(k.op) ^ (std::hash<std::string>()(k.device_type) << 1);
      for (int i = 0; i < k.count; ++i) h = (h ^ static_cast<size_t>(k.types[static_cast<size_t>(i)])) * 0x100000001B3ull;
      return h;
    }
  };
  std::unordered_map<Key, const KernelRegistration*, KeyHash> memo_;
};

class Placer {
 public:
  explicit Placer(const PlacementRequest& r) : r_(r), ops_(*r.ops), devices_(*r.devices) {}

  StatusOr<Placement> Run() {
    const size_t n = ops_.size();
    Placement out;
    out.device.assign(n, -1);
    out.kernel.assign(n, nullptr);
    if (r_.choose_kernel != nullptr) {
      out.state.assign(n, nullptr);
      out.created.assign(n, 0);
    }

    // Colocation groups as disjoint sets over the fragment's operations.
    // An operation is the group named after it; `loc:@x` joins x's group. Only the names
    // such attrs mention are looked up (most operations have none).
    std::vector<size_t> rank(n, 0), parent(n);
    boost::disjoint_sets<size_t*, size_t*> sets(rank.data(), parent.data());
    for (size_t i = 0; i < n; ++i) sets.make_set(i);
    std::vector<int> index_of_id;  // graph op id -> fragment index, or -1
    std::unordered_map<std::string_view, size_t> absent_groups;  // names not in the fragment
    for (size_t i = 0; i < n; ++i) {
      const Operation& op = *ops_[i];
      const tf::AttrValue* cls = op.FindAttr("_class");
      if (cls == nullptr) continue;
      for (const std::string& s : cls->list().s()) {
        if (!s.starts_with("loc:@")) continue;
        const std::string_view group = std::string_view(s).substr(5);
        if (index_of_id.empty()) {
          index_of_id.assign(static_cast<size_t>(op.graph()->num_operations()), -1);
          for (size_t j = 0; j < n; ++j) index_of_id[static_cast<size_t>(ops_[j]->id())] = static_cast<int>(j);
        }
        const Operation* named = op.graph()->FindOperation(group);
        const int j = named == nullptr ? -1 : index_of_id[static_cast<size_t>(named->id())];
        if (j >= 0) {
          sets.union_set(static_cast<size_t>(j), i);
        } else if (auto [it, inserted] = absent_groups.emplace(group, i); !inserted) {
          sets.union_set(it->second, i);
        }
      }
    }
    // Members of each set, in fragment order.
    std::vector<std::vector<size_t>> members_of(n);
    for (size_t i = 0; i < n; ++i) members_of[sets.find_set(i)].push_back(i);

    for (size_t root = 0; root < n; ++root) {
      const std::vector<size_t>& members = members_of[root];
      if (members.empty()) continue;
      // A member whose kernels all decline it on the chosen device type rules that type out
      // for it; the group is placed again (each round rules out one more pair, so it ends).
      for (;;) {
        TG_ASSIGN_OR_RETURN(int device, PlaceGroup(members));
        const std::string& type = devices_[static_cast<size_t>(device)].type;
        bool again = false;
        for (size_t m : members) {
          const Operation& op = *ops_[m];
          out.device[m] = device;
          out.kernel[m] = kernels_.Find(op, type);
          if (r_.choose_kernel == nullptr || out.kernel[m] == nullptr) continue;
          TG_ASSIGN_OR_RETURN(KernelDecision decision, (*r_.choose_kernel)(op, device, out.kernel[m]));
          out.kernel[m] = decision.kernel;
          out.state[m] = decision.state;
          out.created[m] = decision.created ? 1 : 0;
          if (decision.kernel != nullptr) continue;
          declined_[&op].emplace_back(type, std::move(decision.declines));
          again = true;
          break;
        }
        if (!again) break;
      }
    }
    return out;
  }

 private:

  // The parsed request of a device string ("" = none); parsed once per distinct string.
  StatusOr<const DeviceSpec*> Spec(const Operation& op) {
    auto it = specs_.find(op.device());
    if (it == specs_.end()) {
      auto parsed = DeviceSpec::Parse(op.device());
      if (!parsed.ok()) {
        return parsed.status().Prepend(StrCat("node ", OpLabel(op), ": "));
      }
      it = specs_.emplace(op.device(), std::move(parsed).value()).first;
    }
    return &it->second;
  }

  // Control-flow operations run in the executor itself, on any device. A device type whose
  // kernels all declined the op has none for it.
  bool HasKernel(const Operation& op, const std::string& type) {
    if (!declined_.empty() && Declines(op, type) != nullptr) return false;
    return kernels_.Find(op, type) != nullptr || IsControlFlowOp(op);
  }

  // The messages of the kernels that declined `op` on `type`, or null.
  const std::vector<std::string>* Declines(const Operation& op, const std::string& type) const {
    if (declined_.empty()) return nullptr;
    auto it = declined_.find(&op);
    if (it == declined_.end()) return nullptr;
    for (const auto& [t, messages] : it->second) {
      if (t == type) return &messages;
    }
    return nullptr;
  }

  // All declines of `op`, on every device type, for messages ("" when none).
  std::string DeclineText(const Operation& op) const {
    if (declined_.empty()) return std::string();
    auto it = declined_.find(&op);
    if (it == declined_.end()) return std::string();
    std::string out;
    for (const auto& entry : it->second) {
      out += StrCat(out.empty() ? "" : "; ", JoinMessages(entry.second));
    }
    return out;
  }

  static std::string JoinMessages(const std::vector<std::string>& messages) {
    std::string out;
    for (const std::string& m : messages) out += StrCat(out.empty() ? "" : "; ", m);
    return out;
  }

  // Every member has a kernel for the device type.
  bool GroupSupports(const std::vector<size_t>& members, const std::string& type) {
    for (size_t m : members) {
      if (!HasKernel(*ops_[m], type)) return false;
    }
    return true;
  }

  // The first device whose type every member has a kernel for: the default device first.
  int FirstSupported(const std::vector<size_t>& members) {
    const auto& def = devices_[static_cast<size_t>(r_.default_device)];
    if (GroupSupports(members, def.type)) return r_.default_device;
    for (size_t d = 0; d < devices_.size(); ++d) {
      if (GroupSupports(members, devices_[d].type)) return static_cast<int>(d);
    }
    return -1;
  }

  int FindDevice(const std::string& type, int ordinal) const {
    for (size_t d = 0; d < devices_.size(); ++d) {
      if (devices_[d].type == type && devices_[d].ordinal == ordinal) return static_cast<int>(d);
    }
    return -1;
  }

  // Device types with a kernel for `op`, for messages.
  std::string TypesWithKernel(const Operation& op) const {
    std::string out;
    for (const std::string& t : KernelRegistry::Global()->DeviceTypesFor(op.type())) {
      if (KernelRegistry::Global()->FindOrNull(op.type(), op.attrs(), t) == nullptr) continue;
      out += StrCat(out.empty() ? "" : ", ", t);
    }
    return out.empty() ? std::string("none") : out;
  }

  StatusOr<int> PlaceGroup(const std::vector<size_t>& members) {
    // The group's request: the members' requests merged; two that disagree conflict.
    const Operation* requester = nullptr;
    DeviceSpec request;
    for (size_t m : members) {
      const Operation& op = *ops_[m];
      if (op.device().empty()) continue;
      TG_ASSIGN_OR_RETURN(const DeviceSpec* spec, Spec(op));
      if (!spec->type) continue;
      if (requester == nullptr) {
        requester = &op;
        request = *spec;
        continue;
      }
      const bool type_differs = *spec->type != *request.type;
      const bool id_differs = spec->id && request.id && *spec->id != *request.id;
      if ((type_differs || id_differs) && !r_.allow_soft_placement) {
        return InvalidArgument("Cannot colocate nodes ", OpLabel(*requester), " and ", OpLabel(op),
                               ": they request devices '", requester->device(), "' and '",
                               op.device(), "'");
      }
      if (!request.id && spec->id && !type_differs) request.id = spec->id;
    }
    if (requester == nullptr) {
      const int d = FirstSupported(members);
      if (d < 0) return NoKernelAnywhere(members);
      return d;
    }
    const std::string& type = *request.type;
    const int wanted = FindDevice(type, request.id.value_or(0));
    // Which member (if any) lacks a kernel for the requested type.
    const Operation* missing = nullptr;
    for (size_t m : members) {
      if (!HasKernel(*ops_[m], type)) {
        missing = ops_[m];
        break;
      }
    }
    if (wanted >= 0 && missing == nullptr) return wanted;
    if (r_.allow_soft_placement) {
      if (missing == nullptr) {
        const int any_ordinal = FindDevice(type, 0);
        if (any_ordinal >= 0) return any_ordinal;
      }
      const int d = FirstSupported(members);
      if (d < 0) return NoKernelAnywhere(members);
      return d;
    }
    const Operation& culprit = missing != nullptr ? *missing : *requester;
    std::string why;
    if (const std::vector<std::string>* declines = missing != nullptr ? Declines(*missing, type) : nullptr) {
      why = StrCat("every kernel for ", type, " devices declined it (", JoinMessages(*declines), ")");
    } else if (missing != nullptr) {
      why = StrCat("no supported kernel for ", type, " devices is available");
    } else {
      why = StrCat("no device ", DeviceSpec{std::nullopt, std::nullopt, std::nullopt, type,
                                            request.id.value_or(0)}
                                     .ToString(),
                   " exists (devices: ", DeviceList(), ")");
    }
    return InvalidArgument("Cannot assign a device for operation ", OpLabel(culprit),
                           ": could not satisfy explicit device specification '",
                           requester->device(), "' because ", why,
                           ". Device types with a kernel for it: ", TypesWithKernel(culprit),
                           ". (Set allow_soft_placement to place it elsewhere.)");
  }

  std::string DeviceList() const {
    std::string out;
    for (const auto& d : devices_) out += StrCat(out.empty() ? "" : ", ", d.name);
    return out;
  }

  Status NoKernelAnywhere(const std::vector<size_t>& members) {
    for (size_t m : members) {
      const Operation& op = *ops_[m];
      bool any = false;
      for (const auto& d : devices_) any = any || HasKernel(op, d.type);
      if (!any) {
        // Find's message lists the kernels registered for the op.
        auto found = KernelRegistry::Global()->Find(op.name(), op.type(), op.attrs(),
                                                    devices_[static_cast<size_t>(r_.default_device)].type);
        const std::string declines = DeclineText(op);
        return InvalidArgument("Cannot assign a device for operation ", OpLabel(op),
                               ": no device has a kernel for it (devices: ", DeviceList(), "). ",
                               declines.empty() ? std::string() : StrCat("Declined: ", declines, ". "),
                               found.ok() ? std::string() : found.status().message());
      }
    }
    std::string names;
    for (size_t m : members) names += StrCat(names.empty() ? "" : ", ", OpLabel(*ops_[m]));
    return InvalidArgument("Cannot colocate nodes ", names,
                           ": no single device has a kernel for all of them (devices: ",
                           DeviceList(), ")");
  }

  const PlacementRequest& r_;
  const std::vector<Operation*>& ops_;
  const std::vector<PlacementDevice>& devices_;
  std::unordered_map<std::string, DeviceSpec> specs_;
  KernelChoices kernels_;
  // Op -> (device type, messages) where every kernel declined the op (rare).
  std::map<const Operation*, std::vector<std::pair<std::string, std::vector<std::string>>>> declined_;
};

}  // namespace

StatusOr<Placement> PlaceOperations(const PlacementRequest& request) {
  if (request.ops == nullptr || request.devices == nullptr || request.devices->empty()) {
    return FailedPrecondition("no devices to place operations on (is the CPU plugin loaded?)");
  }
  return Placer(request).Run();
}

}  // namespace tgraph
