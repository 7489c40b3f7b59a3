// Fuzz target: an event file (TFRecord framing, FORMATS.md) read record by record with
// io::RecordReader, each record parsed as an Event (and its Summary values). Truncated
// records and bad CRCs must be DATA_LOSS; nothing may crash or allocate what a length
// field claims.
#include <cstddef>
#include <cstdint>
#include <string>

#include <google/protobuf/stubs/logging.h>

#include "core/io/record_reader.h"
#include "fuzz_files.h"
#include "tgraph/proto/event.pb.h"

extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  google::protobuf::SetLogHandler(nullptr);  // malformed input makes protobuf log each time
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = tgraph::fuzz::Scratch().Write("events.out.tfevents", data, size);
  auto reader = tgraph::io::RecordReader::Open(path);
  if (!reader.ok()) return 0;
  std::string record;
  for (int i = 0; i < 1000; ++i) {
    auto more = reader.value()->Next(&record);
    if (!more.ok() || !more.value()) break;
    tgraph::tf::Event event;
    if (event.ParseFromString(record) && event.has_summary()) {
      for (const auto& value : event.summary().value()) (void)value.tag().size();
    }
  }
  return 0;
}
