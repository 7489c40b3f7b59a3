// Event files for TensorBoard, as TensorFlow's EventsWriter writes them: a TFRecord file
// <logdir>/events.out.tfevents.<10-digit unix seconds>.<hostname><suffix> whose first record
// is an Event with the file version ("brain.Event:2") and the writer's source metadata,
// followed by graph, summary and session-log events. Thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "core/base/status.h"
#include "core/io/record_writer.h"
#include "tgraph/proto/event.pb.h"

namespace tgraph::io {

inline constexpr const char* kEventFileVersion = "brain.Event:2";
inline constexpr const char* kEventWriterName = "tgraph.core.io.events_writer";

// Seconds since the epoch, with the fraction (an Event's wall_time).
double WallTimeNow();

// "<prefix>.out.tfevents.%010lld.<hostname><suffix>".
std::string EventFileName(const std::string& prefix, int64_t unix_seconds,
                          const std::string& suffix);

class EventsWriter {
 public:
  // Creates `logdir` (with its parents) and a new event file in it. Errors name the
  // directory or the file.
  static StatusOr<std::unique_ptr<EventsWriter>> Create(const std::string& logdir,
                                                        const std::string& filename_suffix);

  const std::string& path() const { return writer_->path(); }

  // Writes `event`, stamped with the current time when its wall_time is 0.
  Status WriteEvent(tf::Event event);
  // A graph_def event (TensorBoard's graph tab) of a serialized GraphDef.
  Status WriteGraphDef(std::string graph_def);
  // A summary event at `step`.
  Status WriteSummary(tf::Summary summary, int64_t step);
  // `serialized` must parse as a Summary (the output of a summary op): INVALID_ARGUMENT
  // otherwise.
  Status WriteSerializedSummary(const std::string& serialized, int64_t step);
  Status WriteSessionLog(tf::SessionLog log, int64_t step);

  Status Flush();
  // Flushes and closes; later writes fail with FAILED_PRECONDITION naming the file.
  Status Close();

 private:
  explicit EventsWriter(std::unique_ptr<RecordWriter> writer) : writer_(std::move(writer)) {}
  Status WriteLocked(const tf::Event& event);

  std::mutex mutex_;
  std::unique_ptr<RecordWriter> writer_;
};

}  // namespace tgraph::io
