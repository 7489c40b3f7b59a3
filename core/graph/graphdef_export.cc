// GraphDef export, binary (deterministic) and text.
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/text_format.h>

#include <algorithm>
#include <mutex>

#include "core/graph/attr_value_util.h"
#include "core/graph/function_library.h"
#include "core/graph/graph.h"
#include "core/graph/graphdef_io.h"
#include "core/ops/op_registry.h"

namespace tgraph {
namespace {

std::string InputString(const Output& in) {
  if (in.index == 0) return in.op->name();
  return StrCat(in.op->name(), ":", in.index);
}

}  // namespace

Status ExportGraphDef(const Graph& g, tf::GraphDef* out) {
  if (out == nullptr) return InvalidArgument("ExportGraphDef: output is null");
  std::lock_guard lock(g.mutex());
  tf::GraphDef def;
  def.mutable_node()->Reserve(g.num_operations());
  for (const auto& op : g.operations()) {
    tf::NodeDef* node = def.add_node();
    node->set_name(op->name());
    node->set_op(op->type());
    for (const Output& in : op->inputs()) node->add_input(InputString(in));
    for (const Operation* c : op->control_inputs()) node->add_input("^" + c->name());
    node->set_device(op->device());
    auto* attrs = node->mutable_attr();
    const auto& newer = op->registration().attrs_newer_than_tf1;
    for (const auto& [name, value] : op->attrs()) {
      if (!newer.empty() && std::find(newer.begin(), newer.end(), name) != newer.end() &&
          IsDefaultAttrValue(op->registration().op_def, name, value)) {
        continue;
      }
      (*attrs)[name] = value;
    }
  }
  if (!g.functions().empty()) g.functions().ToProto(def.mutable_library());
  def.mutable_versions()->set_producer(kGraphDefProducer);
  def.mutable_versions()->set_min_consumer(0);
  *out = std::move(def);
  return Status::OK();
}

Status SerializeGraphDef(const tf::GraphDef& def, std::string* out) {
  if (out == nullptr) return InvalidArgument("SerializeGraphDef: output is null");
  std::string bytes;
  {
    google::protobuf::io::StringOutputStream stream(&bytes);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    if (!def.SerializeToCodedStream(&coded) || coded.HadError()) {
      return Internal("serializing a GraphDef failed (", def.ByteSizeLong(),
                      " bytes; protobuf messages are limited to 2 GiB)");
    }
  }
  *out = std::move(bytes);
  return Status::OK();
}

Status ExportGraphDefBytes(const Graph& g, std::string* out) {
  if (out == nullptr) return InvalidArgument("ExportGraphDefBytes: output is null");
  tf::GraphDef def;
  TG_RETURN_IF_ERROR(ExportGraphDef(g, &def));
  return SerializeGraphDef(def, out);
}

Status ExportGraphDefText(const Graph& g, std::string* out) {
  if (out == nullptr) return InvalidArgument("ExportGraphDefText: output is null");
  tf::GraphDef def;
  TG_RETURN_IF_ERROR(ExportGraphDef(g, &def));
  // The text printer sorts map entries by key, so the output is deterministic too.
  google::protobuf::TextFormat::Printer printer;
  std::string text;
  if (!printer.PrintToString(def, &text)) return Internal("ExportGraphDefText: printing failed");
  *out = std::move(text);
  return Status::OK();
}

}  // namespace tgraph
