// MetaGraphs: export (buffer, file) and import (buffer, file) with the SaverDef handed back.
#include <cstddef>

#include "c_api/src/c_api_internal.h"
#include "core/base/file_io.h"
#include "core/graph/meta_graph_io.h"

using namespace tgraph;
using namespace tgraph::capi;

namespace {

// The first released sizes: callers built against them (or later headers) are accepted;
// fields past a caller's struct_size take their defaults.
constexpr size_t kExportOptionsV1Size = sizeof(TG_MetaGraphExportOptions);
constexpr size_t kImportOptionsV1Size = sizeof(TG_MetaGraphImportOptions);

#define TG_MG_HAS_FIELD(type, opts, field) \
  ((opts)->struct_size >= offsetof(type, field) + sizeof((opts)->field))

Status CheckStructSize(const char* fn, const char* type, size_t got, size_t min, size_t max,
                       const char* init) {
  if (got < min || got > max) {
    return InvalidArgument(fn, ": ", type, ".struct_size is ", got, "; expected ", max,
                           " (initialise it with ", init, ")");
  }
  return Status::OK();
}

Status ReadExportOptions(const char* fn, const TG_MetaGraphExportOptions* in,
                         MetaGraphExportOptions* out) {
  *out = MetaGraphExportOptions();
  out->producer_version = StrCat("tgraph ", TGRAPH_VERSION_STRING);
  if (in == nullptr) return Status::OK();
  using T = TG_MetaGraphExportOptions;
  TG_RETURN_IF_ERROR(CheckStructSize(fn, "TG_MetaGraphExportOptions", in->struct_size,
                                     kExportOptionsV1Size, sizeof(T),
                                     "TG_InitMetaGraphExportOptions"));
  if (TG_MG_HAS_FIELD(T, in, export_scope)) out->export_scope = Str(in->export_scope);
  if (TG_MG_HAS_FIELD(T, in, clear_devices)) out->clear_devices = in->clear_devices != 0;
  if (TG_MG_HAS_FIELD(T, in, strip_default_attrs)) {
    out->strip_default_attrs = in->strip_default_attrs != 0;
  }
  if (TG_MG_HAS_FIELD(T, in, num_tags)) {
    if (in->num_tags < 0) return InvalidArgument(fn, ": num_tags is ", in->num_tags);
    if (in->num_tags > 0 && in->tags == nullptr) return NullArg(fn, "tags");
    for (int i = 0; i < in->num_tags; ++i) {
      if (in->tags[i] == nullptr) return InvalidArgument(fn, ": tags[", i, "] is NULL");
      out->tags.emplace_back(in->tags[i]);
    }
  }
  if (TG_MG_HAS_FIELD(T, in, meta_graph_version)) {
    out->meta_graph_version = Str(in->meta_graph_version);
  }
  if (TG_MG_HAS_FIELD(T, in, saver_def_len) && in->saver_def != nullptr) {
    out->has_saver_def = true;
    out->saver_def.assign(static_cast<const char*>(in->saver_def), in->saver_def_len);
  }
  return Status::OK();
}

Status ReadImportOptions(const char* fn, const TG_MetaGraphImportOptions* in,
                         MetaGraphImportOptions* out) {
  *out = MetaGraphImportOptions();
  if (in == nullptr) return Status::OK();
  using T = TG_MetaGraphImportOptions;
  TG_RETURN_IF_ERROR(CheckStructSize(fn, "TG_MetaGraphImportOptions", in->struct_size,
                                     kImportOptionsV1Size, sizeof(T),
                                     "TG_InitMetaGraphImportOptions"));
  if (TG_MG_HAS_FIELD(T, in, import_scope)) out->import_scope = Str(in->import_scope);
  if (TG_MG_HAS_FIELD(T, in, clear_devices)) out->clear_devices = in->clear_devices != 0;
  return Status::OK();
}

Status Export(const char* fn, TG_Graph* g, const TG_MetaGraphExportOptions* opts,
              std::string* bytes) {
  if (g == nullptr) return NullArg(fn, "the graph");
  MetaGraphExportOptions options;
  TG_RETURN_IF_ERROR(ReadExportOptions(fn, opts, &options));
  GraphLock lock(g->graph.mutex());
  return ExportMetaGraphBytes(g->graph, options, bytes);
}

Status Import(const char* fn, TG_Graph* g, const tf::MetaGraphDef& def,
              const TG_MetaGraphImportOptions* opts, TG_Buffer* saver_def_out) {
  MetaGraphImportOptions options;
  TG_RETURN_IF_ERROR(ReadImportOptions(fn, opts, &options));
  MetaGraphImportResults results;
  {
    GraphLock lock(g->graph.mutex());
    TG_RETURN_IF_ERROR(CheckNotInDeviceFunction(fn, g));
    TG_RETURN_IF_ERROR(ImportMetaGraph(def, options, &g->graph, &results));
  }
  if (saver_def_out != nullptr) return FillBuffer(saver_def_out, results.saver_def);
  return Status::OK();
}

}  // namespace

extern "C" void TG_InitMetaGraphExportOptions(TG_MetaGraphExportOptions* opts) {
  if (opts == nullptr) return;
  *opts = TG_MetaGraphExportOptions{};
  opts->struct_size = sizeof(TG_MetaGraphExportOptions);
}

extern "C" void TG_InitMetaGraphImportOptions(TG_MetaGraphImportOptions* opts) {
  if (opts == nullptr) return;
  *opts = TG_MetaGraphImportOptions{};
  opts->struct_size = sizeof(TG_MetaGraphImportOptions);
}

extern "C" void TG_ExportMetaGraph(TG_Graph* g, const TG_MetaGraphExportOptions* opts,
                                   TG_Buffer* out, TG_Status* status) {
  Guard(status, [&]() -> Status {
    const char* fn = "TG_ExportMetaGraph";
    if (out == nullptr) return NullArg(fn, "out");
    std::string bytes;
    TG_RETURN_IF_ERROR(Export(fn, g, opts, &bytes));
    return FillBuffer(out, bytes);
  });
}

extern "C" void TG_WriteMetaGraphFile(TG_Graph* g, const char* path,
                                      const TG_MetaGraphExportOptions* opts, TG_Status* status) {
  Guard(status, [&]() -> Status {
    const char* fn = "TG_WriteMetaGraphFile";
    if (path == nullptr || path[0] == '\0') return InvalidArgument(fn, ": path is NULL or empty");
    std::string bytes;
    TG_RETURN_IF_ERROR(Export(fn, g, opts, &bytes));
    return WriteFileAtomically(path, bytes);
  });
}

extern "C" void TG_ImportMetaGraph(TG_Graph* g, const void* proto, size_t len,
                                   const TG_MetaGraphImportOptions* opts,
                                   TG_Buffer* saver_def_out, TG_Status* status) {
  Guard(status, [&]() -> Status {
    const char* fn = "TG_ImportMetaGraph";
    if (g == nullptr) return NullArg(fn, "the graph");
    tf::MetaGraphDef def;
    TG_RETURN_IF_ERROR(ParseMetaGraphDef(proto, len, "MetaGraphDef buffer", &def));
    return Import(fn, g, def, opts, saver_def_out);
  });
}

extern "C" void TG_ImportMetaGraphFile(TG_Graph* g, const char* path,
                                       const TG_MetaGraphImportOptions* opts,
                                       TG_Buffer* saver_def_out, TG_Status* status) {
  Guard(status, [&]() -> Status {
    const char* fn = "TG_ImportMetaGraphFile";
    if (g == nullptr) return NullArg(fn, "the graph");
    if (path == nullptr || path[0] == '\0') return InvalidArgument(fn, ": path is NULL or empty");
    tf::MetaGraphDef def;
    TG_RETURN_IF_ERROR(ReadMetaGraphFile(path, &def));
    Status s = Import(fn, g, def, opts, saver_def_out);
    if (!s.ok()) return s.Prepend(StrCat("importing MetaGraph file '", path, "': "));
    return s;
  });
}
