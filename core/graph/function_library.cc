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

// The instantiation cache's key: the name and every attr, in a deterministic form.
std::string InstanceKey(const std::string& name, const AttrMap& attrs) {
  std::string key = name;
  for (const auto& [attr, value] : attrs) {
    key.append("\n").append(attr).append("=").append(DeterministicBytes(value));
  }
  return key;
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

StatusOr<DataType> ArgType(const tf::OpDef::ArgDef& arg, const AttrMap& attrs,
                           const std::string& where) {
  if (!arg.number_attr().empty() || !arg.type_list_attr().empty()) {
    return Unimplemented(where, ": arg '", arg.name(),
                         "' is a list (number_attr or type_list_attr); function args that are "
                         "lists are not supported");
  }
  if (arg.type() != tf::DT_INVALID) return static_cast<DataType>(arg.type());
  auto it = attrs.find(arg.type_attr());
  if (arg.type_attr().empty() || it == attrs.end() ||
      it->second.value_case() != tf::AttrValue::kType) {
    return InvalidArgument(where, ": the type of arg '", arg.name(), "' (attr '", arg.type_attr(),
                           "') has no value in this instantiation");
  }
  return static_cast<DataType>(it->second.type());
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
    for (const tf::OpDef::ArgDef& arg : sig.input_arg()) {
      TG_ASSIGN_OR_RETURN(DataType t, ArgType(arg, attrs_, where_));
      if (!args_.insert(arg.name()).second) {
        return InvalidArgument(where_, ": input arg '", arg.name(), "' appears twice");
      }
      tf::NodeDef* n = gd.add_node();
      n->set_name(arg.name());
      n->set_op("Placeholder");
      (*n->mutable_attr())["dtype"] = AttrOfType(t);
      body->arg_types.push_back(t);
    }
    // Attrs first: output ranges may depend on them (N, list types).
    std::vector<tf::NodeDef> nodes(fdef_.node_def().begin(), fdef_.node_def().end());
    for (tf::NodeDef& n : nodes) {
      const std::string where = StrCat(where_, ", node '", n.name(), "'");
      for (auto& [k, v] : *n.mutable_attr()) TG_RETURN_IF_ERROR(Substitute(&v, attrs_, where));
      if (args_.count(n.name()) || outputs_.count(n.name())) {
        return InvalidArgument(where_, ": the name '", n.name(), "' is used twice");
      }
      NodeOutputs& out = outputs_[n.name()];
      tf::FunctionDef callee;
      if (library != nullptr && library->Find(n.op(), &callee)) {
        // A Defun-style call: results are named by the callee's output args, one each.
        TG_RETURN_IF_ERROR(RewriteDirectCall(callee, &n).Prepend(StrCat(where_, ": ")));
        for (int i = 0; i < callee.signature().output_arg_size(); ++i) {
          out.arg_names.push_back(callee.signature().output_arg(i).name());
          out.ranges.push_back(ArgRange{i, 1});
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
      for (std::string& in : *n.mutable_input()) {
        if (in.starts_with("^")) continue;
        TG_ASSIGN_OR_RETURN(in, FlatName(in, where));
      }
      *gd.add_node() = std::move(n);
    }

    // Results, in signature order.
    ImportOptions opts;
    opts.prefix = "";
    opts.validate_colocation_constraints = false;
    for (const tf::OpDef::ArgDef& arg : sig.output_arg()) {
      TG_ASSIGN_OR_RETURN(DataType t, ArgType(arg, attrs_, where_));
      body->ret_types.push_back(t);
      auto it = fdef_.ret().find(arg.name());
      if (it == fdef_.ret().end()) {
        return InvalidArgument(where_, ": output arg '", arg.name(), "' has no ret entry");
      }
      TG_ASSIGN_OR_RETURN(std::string flat, FlatName(it->second, StrCat(where_, ", ret '", arg.name(), "'")));
      const size_t colon = flat.rfind(':');
      opts.return_tensors.emplace_back(flat.substr(0, colon), std::stoi(flat.substr(colon + 1)));
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
    for (const tf::OpDef::ArgDef& arg : sig.input_arg()) {
      body->args.push_back(Output{body->graph->FindOperation(arg.name()), 0});
    }
    body->rets = results.return_tensors;
    for (size_t i = 0; i < body->rets.size(); ++i) {
      const DataType got = BaseType(body->rets[i].dtype());
      if (got != body->ret_types[i]) {
        return InvalidArgument(where_, ": output arg '", sig.output_arg(static_cast<int>(i)).name(),
                               "' is declared ", DataTypeName(body->ret_types[i]), " but its ret '",
                               body->rets[i].Name(), "' is ", DataTypeName(got));
      }
    }
    std::set<Operation*> targets(results.return_operations.begin(), results.return_operations.end());
    for (const auto& op : body->graph->operations()) {
      if (op->is_stateful() && !args_.count(op->name())) targets.insert(op.get());
    }
    for (const auto& op : body->graph->operations()) {
      if (targets.count(op.get())) body->targets.push_back(op.get());  // creation order
    }
    return body;
  }

 private:
  // "arg", "node:out_arg:index" (or "node:k", "node") -> "name:flat index".
  StatusOr<std::string> FlatName(const std::string& in, const std::string& where) {
    const size_t first = in.find(':');
    const std::string node = in.substr(0, first);
    if (first == std::string::npos) {
      if (args_.count(node) || outputs_.count(node)) return node + ":0";
      return InvalidArgument(where, ": input '", in, "' names no arg or node of the function");
    }
    if (!outputs_.count(node)) {
      if (args_.count(node)) {
        return InvalidArgument(where, ": input '", in, "': '", node, "' is an arg, named without an output");
      }
      return InvalidArgument(where, ": input '", in, "' names no node of the function");
    }
    const size_t second = in.find(':', first + 1);
    auto parse_index = [&](const std::string& digits) -> StatusOr<int> {
      if (digits.empty() || digits.size() > 9 ||
          digits.find_first_not_of("0123456789") != std::string::npos) {
        return InvalidArgument(where, ": input '", in, "' is not 'node:output_arg:index'");
      }
      return std::stoi(digits);
    };
    if (second == std::string::npos) {  // "node:k", a flat index
      TG_ASSIGN_OR_RETURN(int k, parse_index(in.substr(first + 1)));
      return StrCat(node, ":", k);
    }
    const std::string arg = in.substr(first + 1, second - first - 1);
    TG_ASSIGN_OR_RETURN(int index, parse_index(in.substr(second + 1)));
    const NodeOutputs& out = outputs_.at(node);
    for (size_t a = 0; a < out.arg_names.size(); ++a) {
      if (out.arg_names[a] != arg) continue;
      if (index >= out.ranges[a].count) {
        return InvalidArgument(where, ": input '", in, "': output arg '", arg, "' of '", node,
                               "' has ", out.ranges[a].count, " tensor(s)");
      }
      return StrCat(node, ":", out.ranges[a].start + index);
    }
    // An output arg named differently here than in the writer's OpDef: a single output arg
    // is unambiguous.
    if (out.arg_names.size() == 1 && index < out.ranges[0].count) {
      return StrCat(node, ":", out.ranges[0].start + index);
    }
    if (out.arg_names.empty()) return StrCat(node, ":", index);  // an op the import will report
    return InvalidArgument(where, ": input '", in, "': '", node, "' has no output arg '", arg, "'");
  }

  const tf::FunctionDef& fdef_;
  const AttrMap& attrs_;
  const OpRegistry& registry_;
  const std::string where_;
  std::set<std::string> args_;
  std::unordered_map<std::string, NodeOutputs> outputs_;
};

}  // namespace

FunctionBody::~FunctionBody() = default;
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
    TG_ASSIGN_OR_RETURN(DataType t, ArgType(arg, attrs, where));
    tin.mutable_list()->add_type(static_cast<tf::DataType>(t));
  }
  for (const tf::OpDef::ArgDef& arg : fdef.signature().output_arg()) {
    TG_ASSIGN_OR_RETURN(DataType t, ArgType(arg, attrs, where));
    tout.mutable_list()->add_type(static_cast<tf::DataType>(t));
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
