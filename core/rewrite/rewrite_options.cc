#include "core/rewrite/rewrite_options.h"

namespace tgraph {

const std::vector<std::string>& RewriteOptions::Names() {
  static const std::vector<std::string> names = {
      "constant_folding",        "common_subgraph_elimination", "identity_removal",
      "arithmetic_optimization", "dependency_optimization",     "remapping",
      "auto_mixed_precision"};
  return names;
}

Status RewriteOptions::Set(std::string_view name, bool on) {
  bool* flags[] = {&constant_folding,        &common_subgraph_elimination, &identity_removal,
                   &arithmetic_optimization, &dependency_optimization,     &remapping,
                   &auto_mixed_precision};
  const std::vector<std::string>& names = Names();
  if (name == "all") {
    // Mixed precision changes values: "all" switches it off with the others, never on.
    for (bool* f : flags) {
      if (f != &auto_mixed_precision || !on) *f = on;
    }
    return Status::OK();
  }
  for (size_t i = 0; i < names.size(); ++i) {
    if (name == names[i]) {
      *flags[i] = on;
      return Status::OK();
    }
  }
  std::string known = "all";
  for (const std::string& n : names) known.append(", ").append(n);
  return InvalidArgument("unknown graph rewrite '", std::string(name), "' (known: ", known, ")");
}

}  // namespace tgraph
