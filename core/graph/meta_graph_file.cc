// `.meta` files: parsing (binary, else text format) and reading.

#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/text_format.h>

#include <cerrno>
#include <fstream>
#include <limits>
#include <sstream>

#include "core/base/file_io.h"
#include "core/graph/meta_graph_io.h"
#include "core/graph/proto_budget.h"
#include "core/graph/proto_limits.h"

namespace tgraph {

Status ParseMetaGraphDef(const void* data, size_t len, const std::string& source,
                         tf::MetaGraphDef* out) {
  if (data == nullptr && len > 0) return InvalidArgument(source, ": data is null");
  if (len > static_cast<size_t>(std::numeric_limits<int>::max())) {
    return InvalidArgument(source, ": ", len, " bytes is more than a protobuf message can hold");
  }
  TG_RETURN_IF_ERROR(CheckImportFitsInMemory(*tf::MetaGraphDef::descriptor(), data, len, source));
  tf::MetaGraphDef def;
  if (len > 0 && def.ParseFromArray(data, static_cast<int>(len))) {
    *out = std::move(def);
    return Status::OK();
  }
  // Text format only when the bytes are text; an empty input is an empty MetaGraphDef.
  std::string text = len == 0 ? std::string() : std::string(static_cast<const char*>(data), len);
  def.Clear();
  google::protobuf::TextFormat::Parser parser;
  LimitNesting(&parser);
  parser.AllowPartialMessage(false);
  class Silent : public google::protobuf::io::ErrorCollector {
   public:
    void AddError(int line, int column, const std::string& message) override {
      if (first.empty()) first = StrCat("line ", line + 1, ", column ", column + 1, ": ", message);
    }
    std::string first;
  } errors;
  parser.RecordErrorsTo(&errors);
  if (text.find('\0') == std::string::npos) {
    TG_RETURN_IF_ERROR(CheckTextImportFitsInMemory(text, source));
  }
  if (text.find('\0') == std::string::npos && parser.ParseFromString(text, &def)) {
    *out = std::move(def);
    return Status::OK();
  }
  return InvalidArgument(source, " is not a valid MetaGraphDef (", len,
                         " bytes: neither a binary proto nor text format",
                         errors.first.empty() ? "" : StrCat("; as text, ", errors.first),
                         "); is it truncated or another kind of file?");
}

Status ReadMetaGraphFile(const std::string& path, tf::MetaGraphDef* out) {
  if (out == nullptr) return InvalidArgument("ReadMetaGraphFile: output is null");
  std::ifstream in(path, std::ios::binary);
  if (!in) return ErrnoStatus(errno, StrCat("cannot open MetaGraph file '", path, "'"));
  std::ostringstream contents;
  contents << in.rdbuf();
  if (in.bad()) return ErrnoStatus(errno, StrCat("cannot read MetaGraph file '", path, "'"));
  std::string bytes = std::move(contents).str();
  return ParseMetaGraphDef(bytes.data(), bytes.size(), StrCat("MetaGraph file '", path, "'"), out);
}

}  // namespace tgraph
