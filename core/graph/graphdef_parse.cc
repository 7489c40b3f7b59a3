// Parsing serialized GraphDefs (binary and text format).
#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/text_format.h>

#include <climits>

#include "core/graph/graphdef_io.h"
#include "core/graph/proto_budget.h"
#include "core/graph/proto_limits.h"

namespace tgraph {
namespace {

// Collects the first text-format error with its position.
class FirstErrorCollector : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int line, int column, const std::string& message) override {
    if (error_.empty()) error_ = StrCat("line ", line + 1, ", column ", column + 1, ": ", message);
  }
  void AddWarning(int, int, const std::string&) override {}
  const std::string& error() const { return error_; }

 private:
  std::string error_;
};

}  // namespace

Status ParseGraphDefBytes(const void* data, size_t len, tf::GraphDef* out) {
  if (out == nullptr) return InvalidArgument("ParseGraphDefBytes: output is null");
  if (data == nullptr && len > 0)
    return InvalidArgument("Invalid GraphDef: null data of ", len, " bytes");
  if (len > static_cast<size_t>(INT_MAX)) {
    return InvalidArgument("Invalid GraphDef: ", len, " bytes is over protobuf's 2 GiB limit");
  }
  TG_RETURN_IF_ERROR(CheckImportFitsInMemory(*tf::GraphDef::descriptor(), data, len, "GraphDef"));
  tf::GraphDef def;
  if (len > 0 && !def.ParseFromArray(data, static_cast<int>(len))) {
    return InvalidArgument("Invalid GraphDef: ", len,
                           " bytes are not a serialized GraphDef (truncated or malformed)");
  }
  *out = std::move(def);
  return Status::OK();
}

Status ParseGraphDefText(std::string_view text, tf::GraphDef* out) {
  if (out == nullptr) return InvalidArgument("ParseGraphDefText: output is null");
  if (text.size() > static_cast<size_t>(INT_MAX)) {
    return InvalidArgument("Invalid GraphDef: text of ", text.size(), " bytes is too large");
  }
  TG_RETURN_IF_ERROR(CheckTextImportFitsInMemory(text, "GraphDef"));
  tf::GraphDef def;
  FirstErrorCollector errors;
  google::protobuf::TextFormat::Parser parser;
  LimitNesting(&parser);
  parser.RecordErrorsTo(&errors);
  google::protobuf::io::ArrayInputStream stream(text.data(), static_cast<int>(text.size()));
  if (!parser.Parse(&stream, &def)) {
    return InvalidArgument("Invalid GraphDef: text format: ",
                           errors.error().empty() ? std::string("parse error") : errors.error());
  }
  *out = std::move(def);
  return Status::OK();
}

}  // namespace tgraph
