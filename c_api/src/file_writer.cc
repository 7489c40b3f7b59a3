// tf.summary.FileWriter through C: an event file for TensorBoard (core/io/events_writer.h).
#include <memory>
#include <string>

#include "c_api/src/c_api_internal.h"
#include "core/graph/graphdef_io.h"
#include "core/io/events_writer.h"
#include "core/io/summary_values.h"

using namespace tgraph;
using namespace tgraph::capi;

struct TG_FileWriter {
  std::unique_ptr<io::EventsWriter> writer;
};

namespace {

template <typename Fn>
void WithWriter(const char* fn, TG_FileWriter* w, TG_Status* status, Fn&& body) {
  Guard(status, [&]() -> Status {
    if (w == nullptr) return NullArg(fn, "the file writer");
    return body(*w->writer);
  });
}

}  // namespace

extern "C" TG_FileWriter* TG_NewFileWriter(const char* logdir, const char* filename_suffix,
                                           TG_Status* status) {
  return GuardValue<TG_FileWriter*>(status, nullptr, [&](TG_FileWriter** out) -> Status {
    if (logdir == nullptr) return NullArg("TG_NewFileWriter", "logdir");
    TG_ASSIGN_OR_RETURN(std::unique_ptr<io::EventsWriter> writer,
                        io::EventsWriter::Create(logdir, Str(filename_suffix)));
    *out = new TG_FileWriter{std::move(writer)};
    return Status::OK();
  });
}

extern "C" const char* TG_FileWriterPath(const TG_FileWriter* writer) {
  return writer == nullptr ? "" : writer->writer->path().c_str();
}

extern "C" void TG_FileWriterAddGraph(TG_FileWriter* writer, const TG_Graph* graph,
                                      TG_Status* status) {
  const char* fn = "TG_FileWriterAddGraph";
  WithWriter(fn, writer, status, [&](io::EventsWriter& w) -> Status {
    if (graph == nullptr) return NullArg(fn, "the graph");
    std::string bytes;
    {
      GraphLock lock(graph->graph.mutex());
      TG_RETURN_IF_ERROR(ExportGraphDefBytes(graph->graph, &bytes));
    }
    return w.WriteGraphDef(std::move(bytes));
  });
}

extern "C" void TG_FileWriterAddSummary(TG_FileWriter* writer, const void* summary,
                                        size_t length, int64_t step, TG_Status* status) {
  const char* fn = "TG_FileWriterAddSummary";
  WithWriter(fn, writer, status, [&](io::EventsWriter& w) -> Status {
    if (summary == nullptr && length > 0) return NullArg(fn, "the summary");
    const std::string bytes = length > 0 ? std::string(static_cast<const char*>(summary), length)
                                         : std::string();
    return w.WriteSerializedSummary(bytes, step);
  });
}

extern "C" void TG_FileWriterAddScalar(TG_FileWriter* writer, const char* tag, float value,
                                       int64_t step, TG_Status* status) {
  WithWriter("TG_FileWriterAddScalar", writer, status, [&](io::EventsWriter& w) -> Status {
    if (tag == nullptr) return NullArg("TG_FileWriterAddScalar", "tag");
    return w.WriteSummary(io::ScalarSummary(tag, value), step);
  });
}

extern "C" void TG_FileWriterAddHistogram(TG_FileWriter* writer, const char* tag,
                                          const double* values, int64_t n, int64_t step,
                                          TG_Status* status) {
  WithWriter("TG_FileWriterAddHistogram", writer, status, [&](io::EventsWriter& w) -> Status {
    if (tag == nullptr) return NullArg("TG_FileWriterAddHistogram", "tag");
    TG_ASSIGN_OR_RETURN(tf::Summary summary, io::HistogramSummary(tag, values, n));
    return w.WriteSummary(std::move(summary), step);
  });
}

extern "C" void TG_FileWriterAddSessionLog(TG_FileWriter* writer, TG_SessionLogStatus log_status,
                                           const char* checkpoint_path, const char* msg,
                                           int64_t step, TG_Status* status) {
  const char* fn = "TG_FileWriterAddSessionLog";
  WithWriter(fn, writer, status, [&](io::EventsWriter& w) -> Status {
    const int value = EnumValue(log_status);
    if (!tf::SessionLog::SessionStatus_IsValid(value)) {
      return InvalidArgument(fn, ": ", value, " is not a TG_SessionLogStatus value");
    }
    tf::SessionLog log;
    log.set_status(static_cast<tf::SessionLog::SessionStatus>(value));
    log.set_checkpoint_path(Str(checkpoint_path));
    log.set_msg(Str(msg));
    return w.WriteSessionLog(std::move(log), step);
  });
}

extern "C" void TG_FileWriterFlush(TG_FileWriter* writer, TG_Status* status) {
  WithWriter("TG_FileWriterFlush", writer, status,
             [](io::EventsWriter& w) { return w.Flush(); });
}

extern "C" void TG_FileWriterClose(TG_FileWriter* writer, TG_Status* status) {
  WithWriter("TG_FileWriterClose", writer, status,
             [](io::EventsWriter& w) { return w.Close(); });
}

// The record writer's destructor closes the file without throwing.
extern "C" void TG_DeleteFileWriter(TG_FileWriter* writer) { delete writer; }
