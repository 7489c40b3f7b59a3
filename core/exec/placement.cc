#include "core/exec/placement.h"

#include <algorithm>
#include <boost/pending/disjoint_sets.hpp>
#include <string_view>
#include <unordered_map>

#include "core/graph/device_spec.h"

namespace tgraph {
namespace {

std::string OpLabel(const Operation& op) { return StrCat("'", op.name(), "' (", op.type(), ")"); }

class Placer {
 public:
  explicit Placer(const PlacementRequest& r) : r_(r), ops_(*r.ops), devices_(*r.devices) {}

  StatusOr<Placement> Run() {
    const size_t n = ops_.size();
    Placement out;
    out.device.assign(n, -1);
    out.kernel.assign(n, nullptr);

    // Colocation groups as disjoint sets over the fragment's operations.
    std::vector<size_t> rank(n, 0), parent(n);
    boost::disjoint_sets<size_t*, size_t*> sets(rank.data(), parent.data());
    for (size_t i = 0; i < n; ++i) sets.make_set(i);
    std::unordered_map<std::string_view, size_t> group_of;
    group_of.reserve(n);
    for (size_t i = 0; i < n; ++i) {
      const Operation& op = *ops_[i];
      const tf::AttrValue* cls = op.FindAttr("_class");
      bool any = false;
      if (cls != nullptr) {
        for (const std::string& s : cls->list().s()) {
          if (!s.starts_with("loc:@")) continue;
          any = true;
          Join(&sets, &group_of, std::string_view(s).substr(5), i);
        }
      }
      if (!any) Join(&sets, &group_of, op.name(), i);
    }
    // Members of each set, in fragment order.
    std::vector<std::vector<size_t>> members_of(n);
    for (size_t i = 0; i < n; ++i) members_of[sets.find_set(i)].push_back(i);

    for (size_t root = 0; root < n; ++root) {
      const std::vector<size_t>& members = members_of[root];
      if (members.empty()) continue;
      TG_ASSIGN_OR_RETURN(int device, PlaceGroup(members));
      for (size_t m : members) {
        const Operation& op = *ops_[m];
        out.device[m] = device;
        out.kernel[m] = KernelRegistry::Global()->FindOrNull(op.type(), op.attrs(),
                                                             devices_[static_cast<size_t>(device)].type);
      }
    }
    return out;
  }

 private:
  static void Join(boost::disjoint_sets<size_t*, size_t*>* sets,
                   std::unordered_map<std::string_view, size_t>* group_of, std::string_view group,
                   size_t i) {
    auto [it, inserted] = group_of->emplace(group, i);
    if (!inserted) sets->union_set(it->second, i);
  }

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

  bool HasKernel(const Operation& op, const std::string& type) {
    return KernelRegistry::Global()->FindOrNull(op.type(), op.attrs(), type) != nullptr;
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
    if (missing != nullptr) {
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
        return InvalidArgument("Cannot assign a device for operation ", OpLabel(op),
                               ": no device has a kernel for it (devices: ", DeviceList(), "). ",
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
};

}  // namespace

StatusOr<Placement> PlaceOperations(const PlacementRequest& request) {
  if (request.ops == nullptr || request.devices == nullptr || request.devices->empty()) {
    return FailedPrecondition("no devices to place operations on (is the CPU plugin loaded?)");
  }
  return Placer(request).Run();
}

}  // namespace tgraph
