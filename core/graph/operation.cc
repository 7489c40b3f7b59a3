#include "core/graph/operation.h"

#include "core/ops/op_registry.h"

namespace tgraph {

bool Output::operator<(const Output& o) const {
  if (op != o.op) return op->id() < o.op->id();
  return index < o.index;
}

std::string Output::Name() const { return op->name() + ":" + std::to_string(index); }
DataType Output::dtype() const { return op->output_type(index); }
const PartialShape& Output::shape() const { return op->output_shape(index); }

bool Operation::is_stateful() const { return registration_->op_def.is_stateful(); }

namespace {

ArgRange FindArgRange(const google::protobuf::RepeatedPtrField<tf::OpDef::ArgDef>& args,
                      const std::vector<ArgRange>& ranges, const std::string& arg_name) {
  for (int i = 0; i < args.size(); ++i) {
    if (args.Get(i).name() == arg_name) return ranges[static_cast<size_t>(i)];
  }
  return ArgRange{0, -1};
}

}  // namespace

ArgRange Operation::InputArgRange(const std::string& arg_name) const {
  return FindArgRange(registration_->op_def.input_arg(), input_args_, arg_name);
}

ArgRange Operation::OutputArgRange(const std::string& arg_name) const {
  return FindArgRange(registration_->op_def.output_arg(), output_args_, arg_name);
}

const tf::AttrValue* Operation::FindAttr(const std::string& name) const {
  auto it = attrs_.find(name);
  return it == attrs_.end() ? nullptr : &it->second;
}

std::vector<std::string> Operation::ColocationGroups() const {
  std::vector<std::string> groups;
  if (const tf::AttrValue* cls = FindAttr("_class")) {
    for (const std::string& s : cls->list().s()) {
      if (s.rfind("loc:@", 0) == 0) groups.push_back(s);
    }
  }
  if (groups.empty()) groups.push_back("loc:@" + name_);
  return groups;
}

}  // namespace tgraph
