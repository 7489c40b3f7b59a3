// A GraphDef or MetaGraphDef file's contents for clients without protobuf: decoded from
// binary or text (whichever the bytes are), without importing anything, so a graph whose
// ops are unknown here can still be described.
#include <google/protobuf/stubs/logging.h>
#include <google/protobuf/text_format.h>
#include <google/protobuf/unknown_field_set.h>

#include <algorithm>
#include <cctype>
#include <climits>
#include <string_view>

#include "c_api/src/attr_value_text.h"
#include "c_api/src/c_api_internal.h"
#include "core/graph/attr_value_util.h"
#include "core/graph/graphdef_io.h"
#include "tgraph/proto/meta_graph.pb.h"
#include "tgraph/proto/variable.pb.h"
#include "core/graph/proto_limits.h"

using namespace tgraph;
using namespace tgraph::capi;

struct TG_GraphDefSummary {
  struct Node {
    // Sorted by attr name; values as attr_value_text.h writes them.
    std::vector<std::pair<std::string, std::string>> attrs;
  };
  struct Collection {
    std::string key;
    std::string kind;  // "node_list", "bytes_list", ...
    std::vector<std::string> items;
  };
  bool is_meta_graph = false;
  bool is_text = false;
  tf::GraphDef graph_def;  // names, ops, devices and inputs are read from here
  std::vector<Node> nodes;
  std::vector<Collection> collections;  // sorted by key
};

namespace {

// Text format has no control bytes and starts with a field name or a comment; a serialized
// GraphDef starts with a field tag and has length bytes below 0x20 within its first node.
bool LooksLikeText(std::string_view bytes) {
  std::string_view head = bytes.substr(0, 4096);
  for (unsigned char c : head) {
    if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f) return false;
  }
  size_t first = head.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return false;
  unsigned char c = static_cast<unsigned char>(head[first]);
  return std::isalpha(c) || c == '#';
}

bool HasUnknownFields(const google::protobuf::Message& m) {
  return !m.GetReflection()->GetUnknownFields(m).empty();
}

// Every node has a name and an op: what bytes of another message type read as a GraphDef
// rarely manage.
bool NodesLookReal(const tf::GraphDef& g) {
  return std::all_of(g.node().begin(), g.node().end(),
                     [](const tf::NodeDef& n) { return !n.name().empty() && !n.op().empty(); });
}

// A binary file is tried as both messages: the same bytes often parse as either, so the
// reading whose graph looks real wins, a MetaGraphDef first (its graph_def is field 2,
// which a GraphDef reads as its function library).
Status ParseBinary(std::string_view bytes, TG_GraphDefSummary* out) {
  if (bytes.size() > static_cast<size_t>(INT_MAX)) {
    return InvalidArgument(bytes.size(), " bytes is over protobuf's 2 GiB limit");
  }
  // A wrong reading can log complaints (invalid UTF-8 in a string field): not for users.
  google::protobuf::LogSilencer quiet;
  int size = static_cast<int>(bytes.size());
  tf::MetaGraphDef meta;
  if (meta.ParseFromArray(bytes.data(), size) && meta.graph_def().node_size() > 0 &&
      NodesLookReal(meta.graph_def())) {
    out->is_meta_graph = true;
    out->graph_def = meta.graph_def();
    return Status::OK();
  }
  tf::GraphDef graph;
  bool parsed = graph.ParseFromArray(bytes.data(), size);
  if (parsed && graph.node_size() > 0 && NodesLookReal(graph)) {
    out->graph_def = std::move(graph);
    return Status::OK();
  }
  if (parsed && graph.node_size() == 0 && !HasUnknownFields(graph)) {
    out->graph_def = std::move(graph);  // an empty graph (maybe with versions)
    return Status::OK();
  }
  return InvalidArgument("not a GraphDef or MetaGraphDef (", bytes.size(),
                         " bytes, neither binary protobuf nor text format: truncated or "
                         "malformed)");
}

// Text names its fields, so the message type is not a guess: a MetaGraphDef's fields
// (graph_def, collection_def, ...) are unknown to GraphDef.
Status ParseText(std::string_view text, TG_GraphDefSummary* out) {
  out->is_text = true;
  Status as_graph = ParseGraphDefText(text, &out->graph_def);
  if (as_graph.ok()) return Status::OK();
  tf::MetaGraphDef meta;
  google::protobuf::TextFormat::Parser parser;
  LimitNesting(&parser);
  // Only the GraphDef reading's error is reported: it has the line and column.
  std::string text_copy(text);
  if (parser.ParseFromString(text_copy, &meta) && meta.has_graph_def()) {
    out->is_meta_graph = true;
    out->graph_def = meta.graph_def();
    return Status::OK();
  }
  return InvalidArgument("not a GraphDef or MetaGraphDef in text format: ", as_graph.message());
}

std::string BytesItemText(const std::string& bytes) {
  bool printable = std::all_of(bytes.begin(), bytes.end(),
                               [](unsigned char c) { return c >= 0x20 && c < 0x7f; });
  if (printable) return "'" + bytes + "'";
  // TensorFlow's variable collections hold serialized VariableDefs: name the variable.
  tf::VariableDef variable;
  if (variable.ParseFromString(bytes) && !variable.variable_name().empty()) {
    return "variable " + variable.variable_name();
  }
  return StrCat("<", bytes.size(), " bytes>");
}

TG_GraphDefSummary::Collection CollectionOf(const std::string& key, const tf::CollectionDef& c) {
  TG_GraphDefSummary::Collection out;
  out.key = key;
  google::protobuf::LogSilencer quiet;
  switch (c.kind_case()) {
    case tf::CollectionDef::kNodeList:
      out.kind = "node_list";
      out.items.assign(c.node_list().value().begin(), c.node_list().value().end());
      break;
    case tf::CollectionDef::kBytesList:
      out.kind = "bytes_list";
      for (const std::string& b : c.bytes_list().value()) out.items.push_back(BytesItemText(b));
      break;
    case tf::CollectionDef::kInt64List:
      out.kind = "int64_list";
      for (int64_t v : c.int64_list().value()) out.items.push_back(std::to_string(v));
      break;
    case tf::CollectionDef::kFloatList:
      out.kind = "float_list";
      for (float v : c.float_list().value()) out.items.push_back(AttrValueText(AttrOfFloat(v)));
      break;
    case tf::CollectionDef::kAnyList:
      out.kind = "any_list";
      for (const auto& any : c.any_list().value()) out.items.push_back("<" + any.type_url() + ">");
      break;
    case tf::CollectionDef::KIND_NOT_SET:
      break;
  }
  return out;
}

void Summarize(TG_GraphDefSummary* s) {
  for (const tf::NodeDef& node : s->graph_def.node()) {
    TG_GraphDefSummary::Node n;
    for (const auto& [name, value] : node.attr()) n.attrs.emplace_back(name, AttrValueText(value));
    std::sort(n.attrs.begin(), n.attrs.end());
    s->nodes.push_back(std::move(n));
  }
}

// Collections are only in a MetaGraphDef: read again for them (the first reading kept only
// the graph).
void ReadCollections(std::string_view bytes, TG_GraphDefSummary* s) {
  tf::MetaGraphDef meta;
  google::protobuf::LogSilencer quiet;
  google::protobuf::TextFormat::Parser parser;
  LimitNesting(&parser);
  bool parsed = s->is_text
                    ? parser.ParseFromString(std::string(bytes), &meta)
                    : meta.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()));
  if (!parsed) return;
  for (const auto& [key, collection] : meta.collection_def()) {
    s->collections.push_back(CollectionOf(key, collection));
  }
  std::sort(s->collections.begin(), s->collections.end(),
            [](const auto& a, const auto& b) { return a.key < b.key; });
}

bool NodeInRange(const TG_GraphDefSummary* s, int i) {
  return s != nullptr && i >= 0 && i < s->graph_def.node_size();
}
bool CollectionInRange(const TG_GraphDefSummary* s, int i) {
  return s != nullptr && i >= 0 && static_cast<size_t>(i) < s->collections.size();
}

}  // namespace

extern "C" TG_GraphDefSummary* TG_NewGraphDefSummary(const void* data, size_t length,
                                                     TG_Status* status) {
  return GuardValue<TG_GraphDefSummary*>(status, nullptr, [&](TG_GraphDefSummary** out) -> Status {
    if (data == nullptr && length > 0) return NullArg("TG_NewGraphDefSummary", "data");
    std::string_view bytes(static_cast<const char*>(data), data == nullptr ? 0 : length);
    auto summary = std::make_unique<TG_GraphDefSummary>();
    TG_RETURN_IF_ERROR(LooksLikeText(bytes) ? ParseText(bytes, summary.get())
                                            : ParseBinary(bytes, summary.get()));
    Summarize(summary.get());
    if (summary->is_meta_graph) ReadCollections(bytes, summary.get());
    *out = summary.release();
    return Status::OK();
  });
}

extern "C" void TG_DeleteGraphDefSummary(TG_GraphDefSummary* s) { delete s; }

extern "C" int TG_GraphDefSummaryIsMetaGraphDef(const TG_GraphDefSummary* s) {
  return s != nullptr && s->is_meta_graph ? 1 : 0;
}
extern "C" int TG_GraphDefSummaryIsText(const TG_GraphDefSummary* s) {
  return s != nullptr && s->is_text ? 1 : 0;
}

extern "C" void TG_GraphDefSummaryGraphDef(const TG_GraphDefSummary* s, TG_Buffer* output,
                                           TG_Status* status) {
  Guard(status, [&]() -> Status {
    if (s == nullptr) return NullArg("TG_GraphDefSummaryGraphDef", "the summary");
    if (output == nullptr) return NullArg("TG_GraphDefSummaryGraphDef", "output");
    std::string bytes;
    if (!s->graph_def.SerializeToString(&bytes)) {
      return Internal("TG_GraphDefSummaryGraphDef: the GraphDef does not serialize");
    }
    return FillBuffer(output, bytes);
  });
}

extern "C" int TG_GraphDefSummaryNumFunctions(const TG_GraphDefSummary* s) {
  return s == nullptr ? 0 : s->graph_def.library().function_size();
}
extern "C" const char* TG_GraphDefSummaryFunctionName(const TG_GraphDefSummary* s, int f) {
  if (s == nullptr || f < 0 || f >= s->graph_def.library().function_size()) return nullptr;
  return s->graph_def.library().function(f).signature().name().c_str();
}
extern "C" int TG_GraphDefSummaryFunctionNumNodes(const TG_GraphDefSummary* s, int f) {
  if (s == nullptr || f < 0 || f >= s->graph_def.library().function_size()) return 0;
  return s->graph_def.library().function(f).node_def_size();
}
extern "C" const char* TG_GraphDefSummaryFunctionNodeOp(const TG_GraphDefSummary* s, int f,
                                                        int node) {
  if (s == nullptr || f < 0 || f >= s->graph_def.library().function_size()) return nullptr;
  const tf::FunctionDef& def = s->graph_def.library().function(f);
  if (node < 0 || node >= def.node_def_size()) return nullptr;
  return def.node_def(node).op().c_str();
}

extern "C" int TG_GraphDefSummaryNumNodes(const TG_GraphDefSummary* s) {
  return s == nullptr ? 0 : s->graph_def.node_size();
}
extern "C" const char* TG_GraphDefSummaryNodeName(const TG_GraphDefSummary* s, int i) {
  return NodeInRange(s, i) ? s->graph_def.node(i).name().c_str() : nullptr;
}
extern "C" const char* TG_GraphDefSummaryNodeOp(const TG_GraphDefSummary* s, int i) {
  return NodeInRange(s, i) ? s->graph_def.node(i).op().c_str() : nullptr;
}
extern "C" const char* TG_GraphDefSummaryNodeDevice(const TG_GraphDefSummary* s, int i) {
  return NodeInRange(s, i) ? s->graph_def.node(i).device().c_str() : nullptr;
}
extern "C" int TG_GraphDefSummaryNodeNumInputs(const TG_GraphDefSummary* s, int i) {
  return NodeInRange(s, i) ? s->graph_def.node(i).input_size() : 0;
}
extern "C" const char* TG_GraphDefSummaryNodeInput(const TG_GraphDefSummary* s, int i, int j) {
  if (!NodeInRange(s, i) || j < 0 || j >= s->graph_def.node(i).input_size()) return nullptr;
  return s->graph_def.node(i).input(j).c_str();
}
extern "C" int TG_GraphDefSummaryNodeNumAttrs(const TG_GraphDefSummary* s, int i) {
  return NodeInRange(s, i) ? static_cast<int>(s->nodes[static_cast<size_t>(i)].attrs.size()) : 0;
}
extern "C" const char* TG_GraphDefSummaryNodeAttrName(const TG_GraphDefSummary* s, int i, int j) {
  if (j < 0 || j >= TG_GraphDefSummaryNodeNumAttrs(s, i)) return nullptr;
  return s->nodes[static_cast<size_t>(i)].attrs[static_cast<size_t>(j)].first.c_str();
}
extern "C" const char* TG_GraphDefSummaryNodeAttrText(const TG_GraphDefSummary* s, int i, int j) {
  if (j < 0 || j >= TG_GraphDefSummaryNodeNumAttrs(s, i)) return nullptr;
  return s->nodes[static_cast<size_t>(i)].attrs[static_cast<size_t>(j)].second.c_str();
}
extern "C" const char* TG_GraphDefSummaryNodeAttr(const TG_GraphDefSummary* s, int i,
                                                  const char* attr_name) {
  if (!NodeInRange(s, i) || attr_name == nullptr) return nullptr;
  for (const auto& [name, text] : s->nodes[static_cast<size_t>(i)].attrs) {
    if (name == attr_name) return text.c_str();
  }
  return nullptr;
}

extern "C" int TG_GraphDefSummaryNumCollections(const TG_GraphDefSummary* s) {
  return s == nullptr ? 0 : static_cast<int>(s->collections.size());
}
extern "C" const char* TG_GraphDefSummaryCollectionKey(const TG_GraphDefSummary* s, int i) {
  return CollectionInRange(s, i) ? s->collections[static_cast<size_t>(i)].key.c_str() : nullptr;
}
extern "C" const char* TG_GraphDefSummaryCollectionKind(const TG_GraphDefSummary* s, int i) {
  return CollectionInRange(s, i) ? s->collections[static_cast<size_t>(i)].kind.c_str() : nullptr;
}
extern "C" int TG_GraphDefSummaryCollectionSize(const TG_GraphDefSummary* s, int i) {
  if (!CollectionInRange(s, i)) return 0;
  return static_cast<int>(s->collections[static_cast<size_t>(i)].items.size());
}
extern "C" const char* TG_GraphDefSummaryCollectionItem(const TG_GraphDefSummary* s, int i, int j) {
  if (j < 0 || j >= TG_GraphDefSummaryCollectionSize(s, i)) return nullptr;
  return s->collections[static_cast<size_t>(i)].items[static_cast<size_t>(j)].c_str();
}
