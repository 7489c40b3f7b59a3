// Moving graph names in and out of a name scope, as TF's strip_name_scope and
// prepend_name_scope do for MetaGraph export and import. Names may be node names, tensor
// names ("x:0"), control inputs ("^x") or colocation values ("loc:@x").
#pragma once

#include <string>
#include <string_view>

namespace tgraph {

// The node a name refers to: "^x", "x:1" and "loc:@x" all give "x".
std::string_view NodeNameOf(std::string_view name);
// Whether the node a name refers to is `scope` or under it ("" = everything is).
bool IsInScope(std::string_view name, std::string_view scope);
// "scope/x:0" -> "x:0", "^scope/x" -> "^x", "loc:@scope/x" -> "loc:@x"; names not under the
// scope are returned unchanged.
std::string StripScope(std::string_view name, std::string_view scope);
// "x:0" -> "scope/x:0", "^x" -> "^scope/x", "loc:@x" -> "loc:@scope/x" ("" = unchanged).
std::string PrependScope(std::string_view name, std::string_view scope);

}  // namespace tgraph
