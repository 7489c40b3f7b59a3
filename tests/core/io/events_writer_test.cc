// Event files: the name, the first record, and graph / summary / session-log events read
// back through the record reader and the Event proto.
#include "core/io/events_writer.h"

#include <gtest/gtest.h>

#include <boost/filesystem.hpp>
#include <cmath>
#include <fstream>
#include <regex>

#include "core/io/record_reader.h"
#include "core/io/summary_values.h"
#include "tgraph/proto/graph.pb.h"

namespace tgraph::io {
namespace {

namespace fs = boost::filesystem;

class EventsWriterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / fs::unique_path("tgraph-events-%%%%%%%%");
  }
  void TearDown() override {
    boost::system::error_code ec;
    fs::remove_all(root_, ec);
  }
  std::string Dir(const std::string& sub) const { return (root_ / sub).string(); }

  static std::vector<tf::Event> ReadEvents(const std::string& path) {
    std::vector<tf::Event> events;
    auto reader = RecordReader::Open(path);
    EXPECT_TRUE(reader.ok()) << reader.status().ToString();
    if (!reader.ok()) return events;
    std::string record;
    for (;;) {
      StatusOr<bool> more = (*reader)->Next(&record);
      EXPECT_TRUE(more.ok()) << more.status().ToString();
      if (!more.ok() || !*more) break;
      tf::Event e;
      EXPECT_TRUE(e.ParseFromString(record));
      events.push_back(e);
    }
    return events;
  }

  fs::path root_;
};

TEST_F(EventsWriterTest, NamesTheFileAsTensorFlowAndStartsWithTheFileVersion) {
  const double before = WallTimeNow();
  auto writer = EventsWriter::Create(Dir("a/b/logs"), ".v1");  // parents are created
  ASSERT_TRUE(writer.ok()) << writer.status().ToString();
  const std::string path = (*writer)->path();
  EXPECT_EQ(fs::path(path).parent_path().string(), Dir("a/b/logs"));
  const std::string name = fs::path(path).filename().string();
  EXPECT_TRUE(std::regex_match(name, std::regex(R"(events\.out\.tfevents\.\d{10}\..+\.v1)")))
      << name;
  // Visible (flushed) at once, before anything else is written.
  std::vector<tf::Event> events = ReadEvents(path);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].file_version(), "brain.Event:2");
  EXPECT_EQ(events[0].source_metadata().writer(), kEventWriterName);
  EXPECT_EQ(events[0].wall_time(), std::floor(events[0].wall_time()));  // whole seconds
  EXPECT_GE(events[0].wall_time(), std::floor(before));
  EXPECT_NE(name.find(std::to_string(static_cast<int64_t>(events[0].wall_time()))),
            std::string::npos);
  ASSERT_TRUE((*writer)->Close().ok());
}

TEST_F(EventsWriterTest, WritesGraphSummaryAndSessionLogEvents) {
  auto writer = EventsWriter::Create(Dir("logs"), "");
  ASSERT_TRUE(writer.ok());
  tf::GraphDef graph;
  graph.add_node()->set_name("x");
  ASSERT_TRUE((*writer)->WriteGraphDef(graph.SerializeAsString()).ok());
  ASSERT_TRUE((*writer)->WriteSummary(ScalarSummary("loss", 0.5f), 3).ok());
  ASSERT_TRUE(
      (*writer)->WriteSerializedSummary(ScalarSummary("acc", 0.75f).SerializeAsString(), 4).ok());
  const double values[] = {1, 2, 2, 3};
  auto histo = HistogramSummary("w", values, 4);
  ASSERT_TRUE(histo.ok());
  ASSERT_TRUE((*writer)->WriteSummary(*histo, 5).ok());
  tf::SessionLog log;
  log.set_status(tf::SessionLog::CHECKPOINT);
  log.set_checkpoint_path("/tmp/model.ckpt-5");
  ASSERT_TRUE((*writer)->WriteSessionLog(log, 5).ok());
  ASSERT_TRUE((*writer)->Close().ok());

  std::vector<tf::Event> events = ReadEvents((*writer)->path());
  ASSERT_EQ(events.size(), 6u);
  tf::GraphDef read;
  ASSERT_TRUE(read.ParseFromString(events[1].graph_def()));
  EXPECT_EQ(read.node(0).name(), "x");
  EXPECT_GT(events[1].wall_time(), 0);
  EXPECT_EQ(events[2].step(), 3);
  EXPECT_EQ(events[2].summary().value(0).tag(), "loss");
  EXPECT_EQ(events[2].summary().value(0).simple_value(), 0.5f);
  EXPECT_EQ(events[3].summary().value(0).tag(), "acc");
  const tf::HistogramProto& h = events[4].summary().value(0).histo();
  EXPECT_EQ(h.num(), 4);
  EXPECT_EQ(h.sum(), 8);
  EXPECT_EQ(h.sum_squares(), 18);
  EXPECT_EQ(h.min(), 1);
  EXPECT_EQ(h.max(), 3);
  EXPECT_EQ(events[5].session_log().status(), tf::SessionLog::CHECKPOINT);
  EXPECT_EQ(events[5].session_log().checkpoint_path(), "/tmp/model.ckpt-5");
}

TEST_F(EventsWriterTest, ErrorsNameTheFileOrDirectory) {
  auto writer = EventsWriter::Create(Dir("logs"), "");
  ASSERT_TRUE(writer.ok());
  Status bad = (*writer)->WriteSerializedSummary("\xff\xff not a proto", 1);
  EXPECT_EQ(bad.code(), Code::kInvalidArgument);
  EXPECT_NE(bad.message().find((*writer)->path()), std::string::npos) << bad.message();
  ASSERT_TRUE((*writer)->Close().ok());
  Status closed = (*writer)->WriteSummary(ScalarSummary("late", 1), 1);
  EXPECT_EQ(closed.code(), Code::kFailedPrecondition);
  EXPECT_NE(closed.message().find((*writer)->path()), std::string::npos);

  // A logdir that is a file cannot be created.
  { std::ofstream(Dir("plain_file")) << "x"; }
  auto on_file = EventsWriter::Create(Dir("plain_file"), "");
  EXPECT_FALSE(on_file.ok());
  EXPECT_NE(on_file.status().message().find(Dir("plain_file")), std::string::npos)
      << on_file.status().ToString();
  EXPECT_EQ(EventsWriter::Create("", "").status().code(), Code::kInvalidArgument);
  EXPECT_EQ(EventsWriter::Create(Dir("logs"), "/x").status().code(), Code::kInvalidArgument);
}

TEST_F(EventsWriterTest, HistogramRejectsNonFiniteValuesNamingTheTag) {
  const double values[] = {1, std::nan("")};
  auto s = HistogramSummary("weights", values, 2);
  EXPECT_EQ(s.status().code(), Code::kInvalidArgument);
  EXPECT_NE(s.status().message().find("weights"), std::string::npos);
}

}  // namespace
}  // namespace tgraph::io
