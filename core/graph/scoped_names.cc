#include "core/graph/scoped_names.h"

namespace tgraph {
namespace {

constexpr std::string_view kColocationPrefix = "loc:@";

// Splits a name into its marker ("^", "loc:@" or "") and the rest.
std::pair<std::string_view, std::string_view> SplitMarker(std::string_view name) {
  if (name.starts_with('^')) return {name.substr(0, 1), name.substr(1)};
  if (name.starts_with(kColocationPrefix)) {
    return {name.substr(0, kColocationPrefix.size()), name.substr(kColocationPrefix.size())};
  }
  return {std::string_view(), name};
}

}  // namespace

std::string_view NodeNameOf(std::string_view name) {
  std::string_view rest = SplitMarker(name).second;
  size_t colon = rest.rfind(':');
  return colon == std::string_view::npos ? rest : rest.substr(0, colon);
}

bool IsInScope(std::string_view name, std::string_view scope) {
  if (scope.empty()) return true;
  std::string_view node = NodeNameOf(name);
  return node == scope || (node.size() > scope.size() && node.starts_with(scope) &&
                           node[scope.size()] == '/');
}

std::string StripScope(std::string_view name, std::string_view scope) {
  auto [marker, rest] = SplitMarker(name);
  if (scope.empty() || rest.size() <= scope.size() || !rest.starts_with(scope) ||
      rest[scope.size()] != '/') {
    return std::string(name);
  }
  std::string out(marker);
  out.append(rest.substr(scope.size() + 1));
  return out;
}

std::string PrependScope(std::string_view name, std::string_view scope) {
  if (scope.empty()) return std::string(name);
  auto [marker, rest] = SplitMarker(name);
  std::string out(marker);
  out.append(scope);
  out.push_back('/');
  out.append(rest);
  return out;
}

}  // namespace tgraph
