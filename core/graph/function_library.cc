#include "core/graph/function_library.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/util/message_differencer.h>

#include <set>
#include <unordered_map>

#include "core/graph/attr_value_util.h"
#include "core/graph/graph.h"
#include "core/graph/graphdef_io.h"
#include "core/ops/op_registry.h"
#include "core/ops/op_signature.h"

namespace tgraph {
namespace {

bool SameMessage(const google::protobuf::Message& a, const google::protobuf::Message& b) {
  return google::protobuf::util::MessageDifferencer::Equals(a, b);
}

std::string DeterministicBytes(const google::protobuf::Message& m) {
  std::string bytes;
  google::protobuf::io::StringOutputStream stream(&bytes);
  google::protobuf::io::CodedOutputStream coded(&stream);
  coded.SetSerializationDeterministic(true);
  m.SerializeToCodedStream(&coded);
  return bytes;
}

// Replaces attr placeholders ("T" inside a function body) by the instantiation's values,
// also inside func attrs' own attrs.
Status Substitute(tf::AttrValue* value, const AttrMap& attrs, const std::string& where) {
  switch (value->value_case()) {
    case tf::AttrValue::kPlaceholder: {
      auto it = attrs.find(value->placeholder());
      if (it == attrs.end()) {
        return InvalidArgument(where, ": attr placeholder '", value->placeholder(),
                               "' has no value in this instantiation");
      }
      *value = it->second;
      return Status::OK();
    }
    case tf::AttrValue::kFunc:
      for (auto& [k, v] : *value->mutable_func()->mutable_attr()) {
        TG_RETURN_IF_ERROR(Substitute(&v, attrs, where));
      }
      return Status::OK();
    case tf::AttrValue::kList:
      for (tf::NameAttrList& f : *value->mutable_list()->mutable_func()) {
        for (auto& [k, v] : *f.mutable_attr()) TG_RETURN_IF_ERROR(Substitute(&v, attrs, where));
      }
      return Status::OK();
    default:
      return Status::OK();
  }
}

// An arg's dtypes: one for a plain arg, N for `number_attr` N (of `type` or `type_attr`),
// the list's for `type_list_attr`.
StatusOr<std::vector<DataType>> ArgTypes(const tf::OpDef::ArgDef& arg, const AttrMap& attrs,
                                         const std::string& where) {
  auto missing = [&](const std::string& attr) {
    return InvalidArgument(where, ": arg '", arg.name(), "' (attr '", attr,
                           "') has no value in this instantiation");
  };
  if (!arg.type_list_attr().empty()) {
    auto it = attrs.find(arg.type_list_attr());
    if (it == attrs.end() || it->second.value_case() != tf::AttrValue::kList) {
      return missing(arg.type_list_attr());
    }
    std::vector<DataType> types;
    for (int t : it->second.list().type()) types.push_back(static_cast<DataType>(t));
    return types;
  }
  DataType type = static_cast<DataType>(arg.type());
  if (arg.type() == tf::DT_INVALID) {
    auto it = attrs.find(arg.type_attr());
    if (arg.type_attr().empty() || it == attrs.end() ||
        it->second.value_case() != tf::AttrValue::kType) {
      return missing(arg.type_attr());
    }
    type = static_cast<DataType>(it->second.type());
  }
  if (arg.number_attr().empty()) return std::vector<DataType>{type};
  auto it = attrs.find(arg.number_attr());
  if (it == attrs.end() || it->second.value_case() != tf::AttrValue::kI) return missing(arg.number_attr());
  if (it->second.i() < 0 || it->second.i() > (1 << 20)) {
    return InvalidArgument(where, ": arg '", arg.name(), "' has ", it->second.i(), " elements");
  }
  return std::vector<DataType>(static_cast<size_t>(it->second.i()), type);
}

bool IsListArg(const tf::OpDef::ArgDef& arg) {
  return !arg.number_attr().empty() || !arg.type_list_attr().empty();
}

// A body node's outputs by output arg name: (arg name -> flat range).
struct NodeOutputs {
  std::vector<std::string> arg_names;
  std::vector<ArgRange> ranges;
};

class BodyBuilder {
 public:
  BodyBuilder(const tf::FunctionDef& fdef, const AttrMap& attrs, const OpRegistry& registry)
      : fdef_(fdef), attrs_(attrs), registry_(registry),
        where_(StrCat("Function '", fdef.signature().name(), "'")) {}

  StatusOr<std::unique_ptr<FunctionBody>> Build(FunctionLibrary* library) {
    auto body = std::make_unique<FunctionBody>();
    body->name = fdef_.signature().name();
    const tf::OpDef& sig = fdef_.signature();
    tf::GraphDef gd;
    std::vector<std::string> placeholders;
    for (const tf::OpDef::ArgDef& arg : sig.input_arg()) {
      TG_ASSIGN_OR_RETURN(std::vector<DataType> types, ArgTypes(arg, attrs_, where_));
      if (!args_.insert(arg.name()).second) {
        return InvalidArgument(where_, ": input arg '", arg.name(), "' appears twice");
      }
      // A list arg is a Placeholder per element, "<arg>_<i>"; naming the arg names them all.
      std::vector<std::string>& names = arg_placeholders_[arg.name()];
      for (size_t i = 0; i < types.size(); ++i) {
        names.push_back(IsListArg(arg) ? StrCat(arg.name(), "_", i) : arg.name());
        tf::NodeDef* n = gd.add_node();
        n->set_name(names.back());
        n->set_op("Placeholder");
        (*n->mutable_attr())["dtype"] = AttrOfType(types[i]);
        body->arg_types.push_back(types[i]);
        placeholders.push_back(names.back());
      }
    }
    for (const std::string& p : placeholders) {
      if (!args_.count(p) && !placeholder_names_.insert(p).second) {
        return InvalidArgument(where_, ": the name '", p, "' is used twice");
      }
    }
    // Attrs first: output ranges may depend on them (N, list types).
    std::vector<tf::NodeDef> nodes(fdef_.node_def().begin(), fdef_.node_def().end());
    for (tf::NodeDef& n : nodes) {
      const std::string where = StrCat(where_, ", node '", n.name(), "'");
      for (auto& [k, v] : *n.mutable_attr()) TG_RETURN_IF_ERROR(Substitute(&v, attrs_, where));
      if (args_.count(n.name()) || placeholder_names_.count(n.name()) || outputs_.count(n.name())) {
        return InvalidArgument(where_, ": the name '", n.name(), "' is used twice");
      }
      NodeOutputs& out = outputs_[n.name()];
      tf::FunctionDef callee;
      if (library != nullptr && library->Find(n.op(), &callee)) {
        // A Defun-style call: results are named by the callee's output args, one each.
        TG_RETURN_IF_ERROR(RewriteDirectCall(callee, &n).Prepend(StrCat(where_, ": ")));
        const tf::NameAttrList& f = n.attr().at("f").func();
        const AttrMap callee_attrs(f.attr().begin(), f.attr().end());
        int start = 0;
        for (const tf::OpDef::ArgDef& arg : callee.signature().output_arg()) {
          TG_ASSIGN_OR_RETURN(std::vector<DataType> types, ArgTypes(arg, callee_attrs, where));
          out.arg_names.push_back(arg.name());
          out.ranges.push_back(ArgRange{start, static_cast<int>(types.size())});
          start += static_cast<int>(types.size());
        }
        continue;
      }
      const OpRegistration* reg = registry_.Find(n.op());
      if (reg == nullptr) continue;  // the import reports it, naming the op
      AttrMap node_attrs(n.attr().begin(), n.attr().end());
      ResolvedSignature rs;
      if (!ResolveSignature(reg->op_def, n.name(), &node_attrs, &rs).ok()) continue;  // likewise
      for (int i = 0; i < reg->op_def.output_arg_size(); ++i) {
        out.arg_names.push_back(reg->op_def.output_arg(i).name());
        out.ranges.push_back(rs.output_args[static_cast<size_t>(i)]);
      }
    }
    for (tf::NodeDef& n : nodes) {
      const std::string where = StrCat(where_, ", node '", n.name(), "'");
      google::protobuf::RepeatedPtrField<std::string> flat;
      for (const std::string& in : n.input()) {
        if (in.starts_with("^")) {
          *flat.Add() = in;
          continue;
        }
        TG_ASSIGN_OR_RETURN(std::vector<std::string> names, FlatNames(in, where));
        for (std::string& name : names) *flat.Add() = std::move(name);
      }
      n.mutable_input()->Swap(&flat);
      *gd.add_node() = std::move(n);
    }

    // Results, in signature order.
    ImportOptions opts;
    opts.prefix = "";
    opts.validate_colocation_constraints = false;
    std::vector<std::string> ret_args;  // per result, its output arg's name
    for (const tf::OpDef::ArgDef& arg : sig.output_arg()) {
      TG_ASSIGN_OR_RETURN(std::vector<DataType> types, ArgTypes(arg, attrs_, where_));
      auto it = fdef_.ret().find(arg.name());
      if (it == fdef_.ret().end()) {
        return InvalidArgument(where_, ": output arg '", arg.name(), "' has no ret entry");
      }
      const std::string where = StrCat(where_, ", ret '", arg.name(), "'");
      TG_ASSIGN_OR_RETURN(std::vector<std::string> flat, FlatNames(it->second, where));
      if (IsListArg(arg) && flat.size() == 1 && types.size() > 1) {
        // "node:out_arg:0" of a list output: the list from that tensor on.
        const size_t colon = flat[0].rfind(':');
        const int start = std::stoi(flat[0].substr(colon + 1));
        for (size_t i = 1; i < types.size(); ++i) {
          flat.push_back(StrCat(flat[0].substr(0, colon), ":", start + static_cast<int>(i)));
        }
      }
      if (flat.size() != types.size()) {
        return InvalidArgument(where, ": '", it->second, "' names ", flat.size(),
                               " tensor(s) for an output arg of ", types.size());
      }
      for (size_t i = 0; i < flat.size(); ++i) {
        const size_t colon = flat[i].rfind(':');
        opts.return_tensors.emplace_back(flat[i].substr(0, colon), std::stoi(flat[i].substr(colon + 1)));
        body->ret_types.push_back(types[i]);
        ret_args.push_back(arg.name());
      }
    }
    for (const auto& [name, node] : fdef_.control_ret()) {
      if (!outputs_.count(node)) {
        return InvalidArgument(where_, ": control_ret '", name, "' names node '", node,
                               "', which is not in the body");
      }
      opts.return_operations.push_back(node);
    }

    body->graph = std::make_unique<Graph>(&registry_, library);
    ImportResults results;
    Status s = ImportGraphDef(gd, opts, body->graph.get(), &results);
    if (!s.ok()) return s.Prepend(StrCat(where_, ": "));
    for (const std::string& p : placeholders) body->args.push_back(Output{body->graph->FindOperation(p), 0});
    body->rets = results.return_tensors;
    for (size_t i = 0; i < body->rets.size(); ++i) {
      const DataType got = BaseType(body->rets[i].dtype());
      if (got != body->ret_types[i]) {
        return InvalidArgument(where_, ": output arg '", ret_args[i],
                               "' is declared ", DataTypeName(body->ret_types[i]), " but its ret '",
                               body->rets[i].Name(), "' is ", DataTypeName(got));
      }
    }
    std::set<Operation*> targets(results.return_operations.begin(), results.return_operations.end());
    for (const auto& op : body->graph->operations()) {
      if (op->is_stateful() && !args_.count(op->name()) && !placeholder_names_.count(op->name())) {
        targets.insert(op.get());
      }
    }
    for (const auto& op : body->graph->operations()) {
      if (targets.count(op.get())) body->targets.push_back(op.get());  // creation order
    }
    return body;
  }

 private:
  // "arg", "node:out_arg:index" (or "node:k", "node") -> "name:flat index"; a list arg, or
  // "node:out_arg" (a whole output arg), -> one per tensor.
  StatusOr<std::vector<std::string>> FlatNames(const std::string& in, const std::string& where) {
    const size_t first = in.find(':');
    const std::string node = in.substr(0, first);
    if (first == std::string::npos) {
      auto arg = arg_placeholders_.find(node);
      if (arg != arg_placeholders_.end()) {
        std::vector<std::string> names;
        for (const std::string& p : arg->second) names.push_back(p + ":0");
        return names;
      }
      if (outputs_.count(node)) return std::vector<std::string>{node + ":0"};
      return InvalidArgument(where, ": input '", in, "' names no arg or node of the function");
    }
    if (!outputs_.count(node)) {
      if (args_.count(node)) {
        return InvalidArgument(where, ": input '", in, "': '", node, "' is an arg, named without an output");
      }
      return InvalidArgument(where, ": input '", in, "' names no node of the function");
    }
    const NodeOutputs& out = outputs_.at(node);
    const size_t second = in.find(':', first + 1);
    auto is_index = [](const std::string& digits) {
      return !digits.empty() && digits.size() <= 9 &&
             digits.find_first_not_of("0123456789") == std::string::npos;
    };
    auto bad = [&]() { return InvalidArgument(where, ": input '", in, "' is not 'node:output_arg:index'"); };
    if (second == std::string::npos) {
      const std::string rest = in.substr(first + 1);
      if (is_index(rest)) return std::vector<std::string>{StrCat(node, ":", std::stoi(rest))};  // flat
      for (size_t a = 0; a < out.arg_names.size(); ++a) {  // a whole output arg
        if (out.arg_names[a] != rest) continue;
        std::vector<std::string> names;
        for (int k = 0; k < out.ranges[a].count; ++k) names.push_back(StrCat(node, ":", out.ranges[a].start + k));
        return names;
      }
      return bad();
    }
    const std::string arg = in.substr(first + 1, second - first - 1);
    const std::string digits = in.substr(second + 1);
    if (!is_index(digits)) return bad();
    const int index = std::stoi(digits);
    for (size_t a = 0; a < out.arg_names.size(); ++a) {
      if (out.arg_names[a] != arg) continue;
      if (index >= out.ranges[a].count) {
        return InvalidArgument(where, ": input '", in, "': output arg '", arg, "' of '", node,
                               "' has ", out.ranges[a].count, " tensor(s)");
      }
      return std::vector<std::string>{StrCat(node, ":", out.ranges[a].start + index)};
    }
    // An output arg named differently here than in the writer's OpDef: a single output arg
    // is unambiguous.
    if (out.arg_names.size() == 1 && index < out.ranges[0].count) {
      return std::vector<std::string>{StrCat(node, ":", out.ranges[0].start + index)};
    }
    if (out.arg_names.empty()) return std::vector<std::string>{StrCat(node, ":", index)};  // reported by import
    return InvalidArgument(where, ": input '", in, "': '", node, "' has no output arg '", arg, "'");
  }

  const tf::FunctionDef& fdef_;
  const AttrMap& attrs_;
  const OpRegistry& registry_;
  const std::string where_;
  std::set<std::string> args_;  // input arg names
  std::map<std::string, std::vector<std::string>> arg_placeholders_;  // arg -> its Placeholders
  std::set<std::string> placeholder_names_;  // list args' "<arg>_<i>"
  std::unordered_map<std::string, NodeOutputs> outputs_;
};

}  // namespace

FunctionBody::~FunctionBody() = default;

// The name and every attr, in a deterministic form.
std::string FunctionLibrary::InstanceKey(const std::string& name, const AttrMap& attrs) {
  std::string key = name;
  for (const auto& [attr, value] : attrs) {
    key.append("\n").append(attr).append("=").append(DeterministicBytes(value));
  }
  return key;
}

StatusOr<const FunctionBody*> FunctionLibrary::Derived(
    const std::string& key, const std::function<StatusOr<std::unique_ptr<FunctionBody>>()>& build) {
  {
    std::lock_guard lock(mu_);
    auto found = derived_.find(key);
    if (found != derived_.end()) return found->second.get();
  }
  TG_ASSIGN_OR_RETURN(std::unique_ptr<FunctionBody> body, build());
  std::lock_guard lock(mu_);
  auto [it, inserted] = derived_.emplace(key, std::move(body));
  return it->second.get();
}
FunctionLibrary::~FunctionLibrary() = default;

StatusOr<std::unique_ptr<FunctionBody>> InstantiateFunction(const tf::FunctionDef& fdef,
                                                            const AttrMap& attrs,
                                                            const OpRegistry& registry,
                                                            FunctionLibrary* library) {
  // The function's own attrs (defaults of its signature's attrs) under the call's.
  AttrMap all = attrs;
  for (const tf::OpDef::AttrDef& a : fdef.signature().attr()) {
    if (!all.count(a.name()) && a.has_default_value()) all[a.name()] = a.default_value();
  }
  return BodyBuilder(fdef, all, registry).Build(library);
}

Status FunctionLibrary::Check(const tf::FunctionDefLibrary& lib) const {
  std::lock_guard lock(mu_);
  std::set<std::string> seen;
  for (const tf::FunctionDef& f : lib.function()) {
    const std::string& name = f.signature().name();
    if (name.empty()) return InvalidArgument("The GraphDef's library has a function without a name");
    if (!seen.insert(name).second) {
      return InvalidArgument("The GraphDef's library defines function '", name, "' twice");
    }
    auto it = functions_.find(name);
    if (it != functions_.end() && !SameMessage(it->second, f)) {
      return InvalidArgument("Function '", name,
                             "' is already in the graph's library with another definition");
    }
  }
  std::map<std::string, std::string> grads;
  for (const tf::GradientDef& g : lib.gradient()) {
    auto it = gradients_.find(g.function_name());
    if ((it != gradients_.end() && it->second != g.gradient_func()) ||
        !grads.emplace(g.function_name(), g.gradient_func()).second) {
      return InvalidArgument("Function '", g.function_name(), "' is given two gradient functions");
    }
  }
  return Status::OK();
}

Status FunctionLibrary::Add(const tf::FunctionDefLibrary& lib) {
  TG_RETURN_IF_ERROR(Check(lib));
  std::lock_guard lock(mu_);
  for (const tf::FunctionDef& f : lib.function()) functions_.emplace(f.signature().name(), f);
  for (const tf::GradientDef& g : lib.gradient()) gradients_.emplace(g.function_name(), g.gradient_func());
  for (const tf::RegisteredGradient& r : lib.registered_gradients()) {
    bool have = false;
    for (const tf::RegisteredGradient& old : registered_gradients_) have = have || SameMessage(old, r);
    if (!have) registered_gradients_.push_back(r);
  }
  return Status::OK();
}

bool FunctionLibrary::empty() const {
  std::lock_guard lock(mu_);
  return functions_.empty() && gradients_.empty() && registered_gradients_.empty();
}

int FunctionLibrary::size() const {
  std::lock_guard lock(mu_);
  return static_cast<int>(functions_.size());
}

bool FunctionLibrary::Find(const std::string& name, tf::FunctionDef* out) const {
  std::lock_guard lock(mu_);
  auto it = functions_.find(name);
  if (it == functions_.end()) return false;
  *out = it->second;
  return true;
}

Status RewriteDirectCall(const tf::FunctionDef& fdef, tf::NodeDef* node) {
  const std::string where = StrCat("Node '", node->name(), "' (a call of function '",
                                   fdef.signature().name(), "')");
  AttrMap attrs;
  for (const auto& [k, v] : node->attr()) {
    if (!k.starts_with("_")) attrs[k] = v;
  }
  for (const tf::OpDef::AttrDef& a : fdef.signature().attr()) {
    if (!attrs.count(a.name()) && a.has_default_value()) attrs[a.name()] = a.default_value();
  }
  tf::AttrValue tin, tout;
  tin.mutable_list();
  tout.mutable_list();
  for (const tf::OpDef::ArgDef& arg : fdef.signature().input_arg()) {
    TG_ASSIGN_OR_RETURN(std::vector<DataType> types, ArgTypes(arg, attrs, where));
    for (DataType t : types) tin.mutable_list()->add_type(static_cast<tf::DataType>(t));
  }
  for (const tf::OpDef::ArgDef& arg : fdef.signature().output_arg()) {
    TG_ASSIGN_OR_RETURN(std::vector<DataType> types, ArgTypes(arg, attrs, where));
    for (DataType t : types) tout.mutable_list()->add_type(static_cast<tf::DataType>(t));
  }
  tf::AttrValue f;
  f.mutable_func()->set_name(fdef.signature().name());
  for (const auto& [k, v] : attrs) (*f.mutable_func()->mutable_attr())[k] = v;
  google::protobuf::Map<std::string, tf::AttrValue> kept;
  for (const auto& [k, v] : node->attr()) {
    if (k.starts_with("_")) kept[k] = v;  // _class, _output_shapes, ... stay
  }
  kept["Tin"] = tin;
  kept["Tout"] = tout;
  kept["f"] = f;
  *node->mutable_attr() = kept;
  node->set_op("StatefulPartitionedCall");
  return Status::OK();
}

bool FunctionLibrary::Contains(const std::string& name) const {
  std::lock_guard lock(mu_);
  return functions_.count(name) != 0;
}

void FunctionLibrary::ToProto(tf::FunctionDefLibrary* out) const {
  std::lock_guard lock(mu_);
  out->Clear();
  for (const auto& [name, f] : functions_) *out->add_function() = f;
  for (const auto& [name, grad] : gradients_) {
    tf::GradientDef* g = out->add_gradient();
    g->set_function_name(name);
    g->set_gradient_func(grad);
  }
  for (const tf::RegisteredGradient& r : registered_gradients_) *out->add_registered_gradients() = r;
}

StatusOr<const FunctionBody*> FunctionLibrary::Instantiate(const std::string& name,
                                                           const AttrMap& attrs) {
  const std::string key = InstanceKey(name, attrs);
  std::lock_guard build_lock(instantiate_mu_);
  tf::FunctionDef fdef;
  {
    std::lock_guard lock(mu_);
    auto found = instances_.find(key);
    if (found != instances_.end()) return found->second.get();
    auto it = functions_.find(name);
    if (it == functions_.end()) {
      return InvalidArgument("Function '", name, "' is not in the graph's function library");
    }
    fdef = it->second;
  }
  TG_ASSIGN_OR_RETURN(std::unique_ptr<FunctionBody> body,
                      InstantiateFunction(fdef, attrs, *registry_, this));
  std::lock_guard lock(mu_);
  auto [it, inserted] = instances_.emplace(key, std::move(body));
  return it->second.get();
}

}  // namespace tgraph
