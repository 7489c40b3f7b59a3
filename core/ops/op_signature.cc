#include "core/ops/op_signature.h"

#include <algorithm>
#include <map>

#include "core/graph/attr_value_util.h"
#include "core/graph/proto_convert.h"

namespace tgraph {
namespace {

// No real op takes anywhere near this many tensors; a hostile N (from a GraphDef) must not
// make us build a huge signature.
constexpr int64_t kMaxFlatArgs = int64_t{1} << 20;

// "node 'n' (op 'Add')", or "op 'Add'" when there is no node yet.
std::string NodeDesc(const tf::OpDef& op_def, const std::string& node_name) {
  if (node_name.empty()) return StrCat("op '", op_def.name(), "'");
  return StrCat("node '", node_name, "' (op '", op_def.name(), "')");
}

std::string TypeListString(const std::vector<DataType>& types) {
  std::string s = "[";
  for (size_t i = 0; i < types.size(); ++i) s += (i ? ", " : "") + DataTypeName(types[i]);
  return s + "]";
}

template <typename Repeated>
std::vector<DataType> ToTypes(const Repeated& list) {
  std::vector<DataType> out;
  for (int t : list) out.push_back(static_cast<DataType>(t));
  return out;
}

const tf::OpDef::AttrDef* FindAttrDef(const tf::OpDef& def, const std::string& name) {
  for (const auto& a : def.attr())
    if (a.name() == name) return &a;
  return nullptr;
}

bool IsListArg(const tf::OpDef::ArgDef& arg) {
  return !arg.number_attr().empty() || !arg.type_list_attr().empty();
}

// Sets attrs[name] = value unless it is already set; then they must agree. `what` says
// in words what the argument gave ("type int32", "3 tensors"), `given` what the attr holds.
class AttrInference {
 public:
  AttrInference(const tf::OpDef& op_def, const std::string& node_name, AttrMap* attrs)
      : node_(NodeDesc(op_def, node_name)), attrs_(attrs) {}

  Status SetType(const std::string& arg, const std::string& attr, DataType dtype) {
    tf::AttrValue v = AttrOfType(dtype);
    return Set(arg, attr, v, [&](const tf::AttrValue& old) {
      return old.value_case() == tf::AttrValue::kType && old.type() == v.type();
    }, StrCat("type ", DataTypeName(dtype)));
  }
  Status SetInt(const std::string& arg, const std::string& attr, int64_t n) {
    tf::AttrValue v = AttrOfInt(n);
    return Set(arg, attr, v, [&](const tf::AttrValue& old) {
      return old.value_case() == tf::AttrValue::kI && old.i() == n;
    }, StrCat(n, " tensors"));
  }
  Status SetTypeList(const std::string& arg, const std::string& attr,
                     const std::vector<DataType>& types) {
    tf::AttrValue v = AttrOfTypeList(types);
    return Set(arg, attr, v, [&](const tf::AttrValue& old) {
      return old.value_case() == tf::AttrValue::kList && old.list().type_size() == v.list().type_size() &&
             std::equal(old.list().type().begin(), old.list().type().end(),
                        v.list().type().begin()) &&
             old.list().s_size() + old.list().i_size() + old.list().f_size() +
                     old.list().b_size() + old.list().shape_size() + old.list().tensor_size() +
                     old.list().func_size() == 0;
    }, StrCat("types ", TypeListString(types)));
  }

 private:
  template <typename Same>
  Status Set(const std::string& arg, const std::string& attr, const tf::AttrValue& value,
             Same same, const std::string& what) {
    auto it = attrs_->find(attr);
    if (it == attrs_->end()) {
      attrs_->emplace(attr, value);
      set_by_[attr] = arg;
      return Status::OK();
    }
    if (same(it->second)) return Status::OK();
    auto by = set_by_.find(attr);
    if (by != set_by_.end()) {
      return InvalidArgument("Input '", arg, "' of ", node_, " has ", what,
                             " that does not match argument '", by->second, "' (attr '", attr,
                             "' is ", Describe(it->second), ")");
    }
    return InvalidArgument("Input '", arg, "' of ", node_, " has ", what, " but attr '", attr,
                           "' is set to ", Describe(it->second));
  }

  static std::string Describe(const tf::AttrValue& v) {
    switch (v.value_case()) {
      case tf::AttrValue::kType: return DataTypeName(static_cast<DataType>(v.type()));
      case tf::AttrValue::kI: return std::to_string(v.i());
      case tf::AttrValue::kList: return TypeListString(ToTypes(v.list().type()));
      default: return "a value of kind '" + AttrValueKind(v) + "'";
    }
  }

  std::string node_;
  AttrMap* attrs_;
  std::map<std::string, std::string> set_by_;  // attr -> the argument it was inferred from
};

}  // namespace

Status InferAttrsFromInputs(const tf::OpDef& op_def, const std::string& node_name,
                            const std::vector<std::vector<DataType>>& groups,
                            const std::vector<bool>& group_is_list, AttrMap* attrs) {
  const std::string node = NodeDesc(op_def, node_name);
  if (groups.size() != static_cast<size_t>(op_def.input_arg_size())) {
    return InvalidArgument(node, " takes ", op_def.input_arg_size(), " input argument(s), got ",
                           groups.size());
  }
  if (group_is_list.size() != groups.size()) {
    return InvalidArgument(node, ": ", groups.size(), " input groups but ",
                           group_is_list.size(), " list flags");
  }
  AttrInference infer(op_def, node_name, attrs);
  for (size_t i = 0; i < groups.size(); ++i) {
    const tf::OpDef::ArgDef& arg = op_def.input_arg(static_cast<int>(i));
    const std::vector<DataType>& dtypes = groups[i];
    const bool wants_list = IsListArg(arg);
    if (wants_list && !group_is_list[i]) {
      return InvalidArgument("Input '", arg.name(), "' of ", node,
                             " expects a list of tensors, got a single tensor");
    }
    if (!wants_list && (group_is_list[i] || dtypes.size() != 1)) {
      return InvalidArgument("Input '", arg.name(), "' of ", node,
                             " expects a single tensor, got a list of ", dtypes.size());
    }
    for (size_t k = 0; k < dtypes.size(); ++k) {
      if (!IsValidDataType(dtypes[k])) {
        return InvalidArgument("Input '", arg.name(), "' of ", node, " has invalid dtype ",
                               static_cast<int>(dtypes[k]), " at position ", k);
      }
    }
    // Type attrs take the base type: a ref tensor feeds a T input as T.
    std::vector<DataType> base(dtypes.size());
    std::transform(dtypes.begin(), dtypes.end(), base.begin(), BaseType);

    if (!arg.number_attr().empty()) {
      TG_RETURN_IF_ERROR(infer.SetInt(arg.name(), arg.number_attr(),
                                      static_cast<int64_t>(dtypes.size())));
    }
    if (!arg.type_list_attr().empty()) {
      TG_RETURN_IF_ERROR(infer.SetTypeList(arg.name(), arg.type_list_attr(), base));
    } else if (!arg.type_attr().empty()) {
      for (size_t k = 0; k < base.size(); ++k) {
        if (base[k] != base[0]) {
          return InvalidArgument("Input '", arg.name(), "' of ", node, " must have one dtype, "
                                 "but element ", k, " is ", DataTypeName(base[k]),
                                 " and element 0 is ", DataTypeName(base[0]));
        }
      }
      // An empty `N * T` list says nothing about T.
      if (!base.empty()) TG_RETURN_IF_ERROR(infer.SetType(arg.name(), arg.type_attr(), base[0]));
    }
  }
  return Status::OK();
}

namespace {

// Flat dtypes of one argument under resolved attrs.
Status ExpandArg(const tf::OpDef& op_def, const std::string& node,
                 const tf::OpDef::ArgDef& arg, const AttrMap& attrs, std::vector<DataType>* types,
                 ArgRange* range) {
  range->start = static_cast<int>(types->size());
  std::vector<DataType> mine;
  if (!arg.type_list_attr().empty()) {
    mine = ToTypes(attrs.at(arg.type_list_attr()).list().type());
  } else {
    const DataType dtype = arg.type_attr().empty()
                               ? static_cast<DataType>(arg.type())
                               : static_cast<DataType>(attrs.at(arg.type_attr()).type());
    int64_t count = 1;
    if (!arg.number_attr().empty()) {
      count = attrs.at(arg.number_attr()).i();
      if (count < 0) {
        return InvalidArgument(node, ": attr '", arg.number_attr(), "' is ", count,
                               "; a length must be >= 0");
      }
    }
    if (count > kMaxFlatArgs) {
      return InvalidArgument(node, ": argument '", arg.name(), "' would have ", count,
                             " tensors (at most ", kMaxFlatArgs, " are supported)");
    }
    mine.assign(static_cast<size_t>(count), dtype);
  }
  if (static_cast<int64_t>(types->size() + mine.size()) > kMaxFlatArgs) {
    return InvalidArgument(node, " would have more than ", kMaxFlatArgs, " tensors");
  }
  for (DataType t : mine) types->push_back(arg.is_ref() ? MakeRefType(t) : t);
  range->count = static_cast<int>(mine.size());
  return Status::OK();
}

}  // namespace

Status ResolveSignature(const tf::OpDef& op_def, const std::string& node_name, AttrMap* attrs,
                        ResolvedSignature* out) {
  const std::string node = NodeDesc(op_def, node_name);
  for (const auto& [name, value] : *attrs) {
    if (name.starts_with("_")) continue;  // internal attrs (_class, ...) are not in OpDefs
    const tf::OpDef::AttrDef* def = FindAttrDef(op_def, name);
    if (def == nullptr) {
      return InvalidArgument(node, " has attr '", name, "', which op '", op_def.name(),
                             "' does not define");
    }
    TG_RETURN_IF_ERROR(ValidateAttrValue(node_name, *def, value));
  }
  for (const auto& def : op_def.attr()) {
    if (attrs->count(def.name()) > 0) continue;
    if (!def.has_default_value() ||
        def.default_value().value_case() == tf::AttrValue::VALUE_NOT_SET) {
      return InvalidArgument(node, " is missing attr '", def.name(), "' (of type ", def.type(),
                             ")");
    }
    attrs->emplace(def.name(), def.default_value());
  }

  ResolvedSignature sig;
  for (const auto& arg : op_def.input_arg()) {
    sig.input_args.emplace_back();
    TG_RETURN_IF_ERROR(ExpandArg(op_def, node, arg, *attrs, &sig.input_types,
                                 &sig.input_args.back()));
  }
  for (const auto& arg : op_def.output_arg()) {
    sig.output_args.emplace_back();
    TG_RETURN_IF_ERROR(ExpandArg(op_def, node, arg, *attrs, &sig.output_types,
                                 &sig.output_args.back()));
  }
  *out = std::move(sig);
  return Status::OK();
}

Status CheckInputTypes(const tf::OpDef& op_def, const std::string& node_name,
                       const ResolvedSignature& signature, const std::vector<DataType>& actual) {
  const std::string node = NodeDesc(op_def, node_name);
  const auto& expected = signature.input_types;
  if (actual.size() != expected.size()) {
    return InvalidArgument(node, " expects ", expected.size(), " inputs, got ", actual.size());
  }
  for (size_t i = 0; i < actual.size(); ++i) {
    const DataType want = expected[i];
    const DataType got = actual[i];
    const bool ok = IsRefType(want) ? got == want : BaseType(got) == want;
    if (ok) continue;
    std::string arg_name;
    for (size_t a = 0; a < signature.input_args.size(); ++a) {
      const ArgRange& r = signature.input_args[a];
      if (static_cast<int>(i) >= r.start && static_cast<int>(i) < r.start + r.count &&
          a < static_cast<size_t>(op_def.input_arg_size())) {
        arg_name = op_def.input_arg(static_cast<int>(a)).name();
      }
    }
    const std::string arg = arg_name.empty() ? "" : StrCat(" ('", arg_name, "')");
    if (IsRefType(want) && BaseType(want) == got) {
      return InvalidArgument("Input ", i, arg, " of ", node, " must be a reference (",
                             DataTypeName(want), "), got ", DataTypeName(got),
                             "; pass a variable, not a value");
    }
    return InvalidArgument("Input ", i, arg, " of ", node, " expects ", DataTypeName(want),
                           ", got ", DataTypeName(got));
  }
  return Status::OK();
}

namespace {

// Counts of the filled fields of a list value.
int FilledListFields(const tf::AttrValue::ListValue& l) {
  return (l.s_size() > 0) + (l.i_size() > 0) + (l.f_size() > 0) + (l.b_size() > 0) +
         (l.type_size() > 0) + (l.shape_size() > 0) + (l.tensor_size() > 0) +
         (l.func_size() > 0);
}

tf::AttrValue::ValueCase CaseOfKind(const std::string& kind) {
  if (kind == "string") return tf::AttrValue::kS;
  if (kind == "int") return tf::AttrValue::kI;
  if (kind == "float") return tf::AttrValue::kF;
  if (kind == "bool") return tf::AttrValue::kB;
  if (kind == "type") return tf::AttrValue::kType;
  if (kind == "shape") return tf::AttrValue::kShape;
  if (kind == "tensor") return tf::AttrValue::kTensor;
  if (kind == "func") return tf::AttrValue::kFunc;
  return tf::AttrValue::VALUE_NOT_SET;
}

Status CheckType(const std::string& where, int t) {
  if (!IsValidDataType(t) || IsRefType(static_cast<DataType>(t))) {
    return InvalidArgument(where, " holds invalid dtype ", t);
  }
  return Status::OK();
}

Status CheckShape(const std::string& where, const tf::TensorShapeProto& shape) {
  auto s = ShapeFromProto(shape);
  if (!s.ok()) return InvalidArgument(where, " holds a bad shape: ", s.status().message());
  return Status::OK();
}

}  // namespace

Status ValidateAttrValue(const std::string& node_name, const tf::OpDef::AttrDef& attr_def,
                         const tf::AttrValue& value) {
  const std::string where = node_name.empty()
                                ? StrCat("attr '", attr_def.name(), "'")
                                : StrCat("node '", node_name, "': attr '", attr_def.name(), "'");
  const std::string& kind = attr_def.type();
  const bool is_list = kind.starts_with("list(") && kind.ends_with(")");
  const std::string element = is_list ? kind.substr(5, kind.size() - 6) : kind;
  if (CaseOfKind(element) == tf::AttrValue::VALUE_NOT_SET) {
    return InvalidArgument(where, " is declared with unknown type '", kind, "'");
  }
  if (value.value_case() == tf::AttrValue::VALUE_NOT_SET) {
    return InvalidArgument(where, " has no value; expected ", kind);
  }

  std::vector<int> types;          // every dtype in the value, for the checks below
  std::vector<std::string> strings;
  int64_t length = 0;
  if (is_list) {
    const std::string actual = AttrValueKind(value);
    if (value.value_case() == tf::AttrValue::kList && FilledListFields(value.list()) > 1) {
      return InvalidArgument(where, " holds a list with values of several kinds; expected '",
                             kind, "'");
    }
    const bool ok = value.value_case() == tf::AttrValue::kList &&
                    (actual == "list(any)" || actual == kind);
    if (!ok) {
      return InvalidArgument(where, " has a value of type '", actual, "', expected '", kind, "'");
    }
    const auto& l = value.list();
    types.assign(l.type().begin(), l.type().end());
    strings.assign(l.s().begin(), l.s().end());
    for (const auto& shape : l.shape()) TG_RETURN_IF_ERROR(CheckShape(where, shape));
    length = std::max<int64_t>({l.s_size(), l.i_size(), l.f_size(), l.b_size(), l.type_size(),
                                l.shape_size(), l.tensor_size(), l.func_size()});
  } else {
    if (value.value_case() != CaseOfKind(kind)) {
      return InvalidArgument(where, " has a value of type '", AttrValueKind(value),
                             "', expected '", kind, "'");
    }
    if (kind == "type") types.push_back(value.type());
    if (kind == "string") strings.push_back(value.s());
    if (kind == "shape") TG_RETURN_IF_ERROR(CheckShape(where, value.shape()));
  }
  for (int t : types) TG_RETURN_IF_ERROR(CheckType(where, t));

  if (attr_def.has_allowed_values()) {
    const auto& allowed = attr_def.allowed_values().list();
    if (element == "type") {
      for (int t : types) {
        if (std::find(allowed.type().begin(), allowed.type().end(), t) == allowed.type().end()) {
          return InvalidArgument(where, " is ", DataTypeName(static_cast<DataType>(t)),
                                 ", which is not in the allowed list ",
                                 TypeListString(ToTypes(allowed.type())));
        }
      }
    } else if (element == "string") {
      for (const auto& s : strings) {
        if (std::find(allowed.s().begin(), allowed.s().end(), s) == allowed.s().end()) {
          std::string list;
          for (const auto& a : allowed.s()) list += (list.empty() ? "'" : ", '") + a + "'";
          return InvalidArgument(where, " is '", s, "', which is not in the allowed list [",
                                 list, "]");
        }
      }
    }
  }
  if (attr_def.has_minimum()) {
    if (is_list && length < attr_def.minimum()) {
      return InvalidArgument(where, " has ", length, " elements; at least ",
                             attr_def.minimum(), " are required");
    }
    if (kind == "int" && value.i() < attr_def.minimum()) {
      return InvalidArgument(where, " is ", value.i(), "; it must be >= ",
                             attr_def.minimum());
    }
  }
  return Status::OK();
}

}  // namespace tgraph
