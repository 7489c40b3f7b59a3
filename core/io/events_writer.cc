#include "core/io/events_writer.h"

#include <unistd.h>

#include <boost/filesystem.hpp>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <utility>

namespace tgraph::io {
namespace {

std::string HostName() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0 || name[0] == '\0') return "localhost";
  return name;
}

}  // namespace

double WallTimeNow() {
  using namespace std::chrono;
  return duration<double>(system_clock::now().time_since_epoch()).count();
}

std::string EventFileName(const std::string& prefix, int64_t unix_seconds,
                          const std::string& suffix) {
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%010" PRId64, unix_seconds);
  std::string name = prefix;
  name.append(".out.tfevents.").append(seconds).append(".").append(HostName()).append(suffix);
  return name;
}

StatusOr<std::unique_ptr<EventsWriter>> EventsWriter::Create(const std::string& logdir,
                                                             const std::string& suffix) {
  if (logdir.empty()) return InvalidArgument("The event file directory (logdir) is empty");
  if (suffix.find('/') != std::string::npos) {
    return InvalidArgument("Event file suffix '", suffix, "' contains '/'");
  }
  boost::system::error_code ec;
  boost::filesystem::create_directories(logdir, ec);
  if (ec) {
    return Status(ec == boost::system::errc::permission_denied ? Code::kPermissionDenied
                                                                : Code::kFailedPrecondition,
                  StrCat("Cannot create the event file directory '", logdir, "': ",
                         ec.message()));
  }
  // TensorFlow's first event carries whole seconds, the same as the file name.
  const auto seconds = static_cast<int64_t>(WallTimeNow());
  const std::string path =
      (boost::filesystem::path(logdir) / EventFileName("events", seconds, suffix)).string();
  TG_ASSIGN_OR_RETURN(std::unique_ptr<RecordWriter> records, RecordWriter::CreateNew(path));
  std::unique_ptr<EventsWriter> writer(new EventsWriter(std::move(records)));
  tf::Event first;
  first.set_wall_time(static_cast<double>(seconds));
  first.set_file_version(kEventFileVersion);
  first.mutable_source_metadata()->set_writer(kEventWriterName);
  TG_RETURN_IF_ERROR(writer->WriteEvent(std::move(first)));
  // The file is visible to TensorBoard at once, as TensorFlow's is.
  TG_RETURN_IF_ERROR(writer->Flush());
  return writer;
}

Status EventsWriter::WriteLocked(const tf::Event& event) {
  std::string bytes;
  if (!event.SerializeToString(&bytes)) {
    return Internal("Cannot serialize an event for '", path(), "'");
  }
  return writer_->Write(bytes);
}

Status EventsWriter::WriteEvent(tf::Event event) {
  if (event.wall_time() == 0) event.set_wall_time(WallTimeNow());
  std::lock_guard lock(mutex_);
  return WriteLocked(event);
}

Status EventsWriter::WriteGraphDef(std::string graph_def) {
  tf::Event event;
  event.set_graph_def(std::move(graph_def));
  return WriteEvent(std::move(event));
}

Status EventsWriter::WriteSummary(tf::Summary summary, int64_t step) {
  tf::Event event;
  event.set_step(step);
  *event.mutable_summary() = std::move(summary);
  return WriteEvent(std::move(event));
}

Status EventsWriter::WriteSerializedSummary(const std::string& serialized, int64_t step) {
  tf::Summary summary;
  if (!summary.ParseFromString(serialized)) {
    return InvalidArgument("Event file '", path(), "': the ", serialized.size(),
                           " bytes given are not a serialized Summary");
  }
  return WriteSummary(std::move(summary), step);
}

Status EventsWriter::WriteSessionLog(tf::SessionLog log, int64_t step) {
  tf::Event event;
  event.set_step(step);
  *event.mutable_session_log() = std::move(log);
  return WriteEvent(std::move(event));
}

Status EventsWriter::Flush() {
  std::lock_guard lock(mutex_);
  return writer_->Flush();
}

Status EventsWriter::Close() {
  std::lock_guard lock(mutex_);
  return writer_->Close();
}

}  // namespace tgraph::io
