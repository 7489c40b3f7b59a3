#include "core/ops/op_registry.h"

#include <cctype>
#include <cstdio>
#include <set>

#include "core/ops/op_signature.h"

namespace tgraph {
namespace {

bool IsIdentifier(const std::string& s) {
  if (s.empty()) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    const unsigned char ch = static_cast<unsigned char>(s[i]);
    if (!(std::isalpha(ch) || ch == '_' || (i > 0 && std::isdigit(ch)))) return false;
  }
  return true;
}

// TF's op-name rule ([A-Z][a-zA-Z0-9>_]*), plus a leading '_' for internal ops (_Recv).
bool IsValidOpName(const std::string& s) {
  if (s.empty()) return false;
  if (!(std::isupper(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s) {
    const unsigned char ch = static_cast<unsigned char>(c);
    if (!(std::isalnum(ch) || ch == '_' || ch == '>')) return false;
  }
  return true;
}

bool IsKnownAttrType(const std::string& type) {
  static const std::set<std::string> kScalar = {"string", "int",    "float",  "bool",
                                                "type",   "shape",  "tensor", "func"};
  if (type.starts_with("list(") && type.ends_with(")")) {
    return kScalar.count(type.substr(5, type.size() - 6)) > 0;
  }
  return kScalar.count(type) > 0;
}

const tf::OpDef::AttrDef* FindAttrDef(const tf::OpDef& def, const std::string& name) {
  for (const auto& a : def.attr())
    if (a.name() == name) return &a;
  return nullptr;
}

Status ValidateAttrDef(const tf::OpDef& def, const tf::OpDef::AttrDef& attr) {
  const std::string where = StrCat("Op '", def.name(), "': attr '", attr.name(), "'");
  if (!IsIdentifier(attr.name())) return InvalidArgument(where, " has an invalid name");
  const std::string& type = attr.type();
  if (!IsKnownAttrType(type)) return InvalidArgument(where, " has unknown type '", type, "'");
  const bool is_list = type.starts_with("list(");

  if (attr.has_allowed_values()) {
    const tf::AttrValue& allowed = attr.allowed_values();
    const bool types = type == "type" || type == "list(type)";
    const bool strings = type == "string" || type == "list(string)";
    if (!types && !strings) {
      return InvalidArgument(where, " of type ", type,
                             " cannot have allowed values (only type and string attrs can)");
    }
    if (allowed.value_case() != tf::AttrValue::kList ||
        (types && allowed.list().s_size() > 0) || (strings && allowed.list().type_size() > 0)) {
      return InvalidArgument(where, " has allowed values of the wrong kind for type ", type);
    }
    for (int t : allowed.list().type()) {
      if (!IsValidDataType(t) || IsRefType(static_cast<DataType>(t))) {
        return InvalidArgument(where, " allows invalid dtype ", t);
      }
    }
  }
  if (attr.has_minimum()) {
    if (type != "int" && !is_list) {
      return InvalidArgument(where, " of type ", type, " cannot have a minimum");
    }
    if (is_list && attr.minimum() < 0) {
      return InvalidArgument(where, " has a negative minimum length ", attr.minimum());
    }
  }
  if (attr.has_default_value() &&
      attr.default_value().value_case() != tf::AttrValue::VALUE_NOT_SET) {
    Status s = ValidateAttrValue("", attr, attr.default_value());
    if (!s.ok()) return InvalidArgument(where, " has a bad default: ", s.message());
  }
  return Status::OK();
}

Status ValidateArgDef(const tf::OpDef& def, const tf::OpDef::ArgDef& arg, const char* what) {
  const std::string where = StrCat("Op '", def.name(), "': ", what, " '", arg.name(), "'");
  if (!IsIdentifier(arg.name())) return InvalidArgument(where, " has an invalid name");
  const int ways = (arg.type() != tf::DT_INVALID) + !arg.type_attr().empty() +
                   !arg.type_list_attr().empty();
  if (ways != 1) {
    return InvalidArgument(where, " must have exactly one of a fixed type, a type attr or a "
                                  "type-list attr");
  }
  if (arg.type() != tf::DT_INVALID &&
      (!IsValidDataType(arg.type()) || IsRefType(static_cast<DataType>(arg.type())))) {
    return InvalidArgument(where, " has invalid type ", static_cast<int>(arg.type()),
                           " (use is_ref for references)");
  }
  auto need_attr = [&](const std::string& name, const char* kind) -> Status {
    const tf::OpDef::AttrDef* attr = FindAttrDef(def, name);
    if (attr == nullptr) return InvalidArgument(where, " refers to missing attr '", name, "'");
    if (attr->type() != kind) {
      return InvalidArgument(where, " refers to attr '", name, "' of type ", attr->type(),
                             "; expected ", kind);
    }
    return Status::OK();
  };
  if (!arg.type_attr().empty()) TG_RETURN_IF_ERROR(need_attr(arg.type_attr(), "type"));
  if (!arg.type_list_attr().empty()) {
    TG_RETURN_IF_ERROR(need_attr(arg.type_list_attr(), "list(type)"));
    if (!arg.number_attr().empty()) {
      return InvalidArgument(where, " cannot have both a number attr and a type-list attr");
    }
  }
  if (!arg.number_attr().empty()) {
    TG_RETURN_IF_ERROR(need_attr(arg.number_attr(), "int"));
    // A length must be known to be >= 0, so a bad value is caught when the node is made.
    const tf::OpDef::AttrDef* n = FindAttrDef(def, arg.number_attr());
    if (!n->has_minimum() || n->minimum() < 0) {
      return InvalidArgument(where, " uses attr '", arg.number_attr(),
                             "' as a length, so it needs a minimum >= 0 (e.g. 'N: int >= 1')");
    }
  }
  return Status::OK();
}

Status ValidateOpDef(const tf::OpDef& def) {
  if (!IsValidOpName(def.name())) {
    return InvalidArgument("invalid op name '", def.name(),
                           "': must match [A-Z_][A-Za-z0-9_>]*");
  }
  std::set<std::string> names;
  for (const auto& attr : def.attr()) {
    if (!names.insert(attr.name()).second) {
      return InvalidArgument("Op '", def.name(), "': duplicate attr '", attr.name(), "'");
    }
    TG_RETURN_IF_ERROR(ValidateAttrDef(def, attr));
  }
  for (const auto* args : {&def.input_arg(), &def.output_arg()}) {
    const char* what = args == &def.input_arg() ? "input" : "output";
    names.clear();
    for (const auto& arg : *args) {
      if (!names.insert(arg.name()).second) {
        return InvalidArgument("Op '", def.name(), "': duplicate ", what, " '", arg.name(), "'");
      }
      TG_RETURN_IF_ERROR(ValidateArgDef(def, arg, what));
    }
  }
  return Status::OK();
}

}  // namespace

OpRegistry* OpRegistry::Global() {
  // Built once, thread-safely (function-local static); never destroyed, so ops stay valid
  // for whatever runs during static destruction.
  static OpRegistry* const registry = [] {
    auto* r = new OpRegistry();
    Status s = RegisterStandardOps(r);
    if (!s.ok()) {
      // A bug in a core op definition; core tests catch it. Keep what did register.
      std::fprintf(stderr, "tgraph: registering the standard ops failed: %s\n",
                   s.ToString().c_str());
    }
    return r;
  }();
  return registry;
}

Status OpRegistry::Register(OpRegistration registration) {
  TG_RETURN_IF_ERROR(ValidateOpDef(registration.op_def));
  const std::string name = registration.op_def.name();
  std::lock_guard<std::mutex> lock(mutex_);
  if (ops_.count(name) > 0) return AlreadyExists("Op '", name, "' is already registered");
  ops_.emplace(name, std::make_unique<OpRegistration>(std::move(registration)));
  return Status::OK();
}

Status OpRegistry::RegisterAll(std::vector<OpRegistration> registrations) {
  std::set<std::string> names;
  for (const auto& r : registrations) {
    TG_RETURN_IF_ERROR(ValidateOpDef(r.op_def));
    if (!names.insert(r.op_def.name()).second) {
      return AlreadyExists("Op '", r.op_def.name(), "' is registered twice");
    }
  }
  std::lock_guard<std::mutex> lock(mutex_);
  for (const auto& name : names) {
    if (ops_.count(name) > 0) return AlreadyExists("Op '", name, "' is already registered");
  }
  for (auto& r : registrations) {
    std::string name = r.op_def.name();
    ops_.emplace(std::move(name), std::make_unique<OpRegistration>(std::move(r)));
  }
  return Status::OK();
}

Status OpRegistry::Register(const OpDefBuilder& builder) {
  OpRegistration registration;
  TG_RETURN_IF_ERROR(builder.Finalize(&registration));
  return Register(std::move(registration));
}

const OpRegistration* OpRegistry::Find(const std::string& op_type) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = ops_.find(op_type);
  return it == ops_.end() ? nullptr : it->second.get();
}

StatusOr<const OpRegistration*> OpRegistry::Lookup(const std::string& op_type,
                                                   const std::string& node_name) const {
  if (const OpRegistration* reg = Find(op_type)) return reg;
  if (node_name.empty()) return NotFound("Op type not registered '", op_type, "'");
  return NotFound("Op type not registered '", op_type, "' (node '", node_name, "')");
}

std::vector<std::string> OpRegistry::ListOps() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<std::string> names;
  names.reserve(ops_.size());
  for (const auto& [name, reg] : ops_) names.push_back(name);
  return names;  // std::map keeps them sorted
}

}  // namespace tgraph
