// TG_FileWriter: the event file's name and records, read back here by their TFRecord framing
// (the contents are checked by the core tests and, with TensorBoard itself, by
// interop.events_tensorboard).
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <regex>

#include "session_test_util.h"

namespace {

using tgtest::CApiTest;
using tgtest::Contains;
using tgtest::IsOk;

uint64_t Le64(const std::string& s, size_t at) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(s[at + static_cast<size_t>(i)]);
  return v;
}

// The records of a TFRecord file (framing only; the CRCs are the core tests' business).
std::vector<std::string> Records(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), {});
  std::vector<std::string> records;
  for (size_t at = 0; at < bytes.size();) {
    EXPECT_LE(at + 12, bytes.size());
    if (at + 12 > bytes.size()) break;
    const uint64_t len = Le64(bytes, at);
    EXPECT_LE(at + 16 + len, bytes.size());
    if (at + 16 + len > bytes.size()) break;
    records.push_back(bytes.substr(at + 12, len));
    at += 16 + len;
  }
  return records;
}

class FileWriterTest : public CApiTest {
 protected:
  FileWriterTest() {
    char tmpl[] = "/tmp/tgraph-fw-XXXXXX";
    dir_ = mkdtemp(tmpl);
  }
  ~FileWriterTest() override {
    TG_DeleteFileWriter(writer_);
    std::string cmd = "rm -rf '" + dir_ + "'";
    EXPECT_EQ(std::system(cmd.c_str()), 0);
  }
  std::string dir_;
  TG_FileWriter* writer_ = nullptr;
};

TEST_F(FileWriterTest, WritesTheFileVersionGraphAndSummaries) {
  const std::string logdir = dir_ + "/run/1";
  writer_ = TG_NewFileWriter(logdir.c_str(), ".test", s_);
  ASSERT_TRUE(IsOk(s_));
  const std::string path = TG_FileWriterPath(writer_);
  EXPECT_TRUE(std::regex_match(
      path, std::regex(logdir + R"(/events\.out\.tfevents\.\d{10}\.[^/]+\.test)")))
      << path;
  // The first record is on disk before anything else is written.
  std::vector<std::string> first = Records(path);
  ASSERT_EQ(first.size(), 1u);
  EXPECT_TRUE(Contains(first[0], "brain.Event:2"));

  ScalarConst(1.0f, "node_in_the_graph");
  TG_FileWriterAddGraph(writer_, g_, s_);
  ASSERT_TRUE(IsOk(s_));
  TG_FileWriterAddScalar(writer_, "loss", 0.5f, 7, s_);
  ASSERT_TRUE(IsOk(s_));
  const double values[] = {1, 2, 3};
  TG_FileWriterAddHistogram(writer_, "weights", values, 3, 7, s_);
  ASSERT_TRUE(IsOk(s_));
  TG_FileWriterAddSessionLog(writer_, TG_SESSION_LOG_START, nullptr, "hello", 0, s_);
  ASSERT_TRUE(IsOk(s_));
  // Summary{value{tag: "acc", simple_value: 0.75}}
  const std::string summary = std::string("\x0a\x0a\x0a\x03" "acc" "\x15", 8) +
                              std::string("\x00\x00\x40\x3f", 4);
  TG_FileWriterAddSummary(writer_, summary.data(), summary.size(), 8, s_);
  ASSERT_TRUE(IsOk(s_));
  EXPECT_EQ(Records(path).size(), 1u);  // buffered until a flush
  TG_FileWriterFlush(writer_, s_);
  ASSERT_TRUE(IsOk(s_));
  std::vector<std::string> records = Records(path);
  ASSERT_EQ(records.size(), 6u);
  EXPECT_TRUE(Contains(records[1], "node_in_the_graph"));
  EXPECT_TRUE(Contains(records[2], "loss"));
  EXPECT_TRUE(Contains(records[3], "weights"));
  EXPECT_TRUE(Contains(records[4], "hello"));
  EXPECT_TRUE(Contains(records[5], summary));
  TG_FileWriterClose(writer_, s_);
  ASSERT_TRUE(IsOk(s_));
  TG_FileWriterAddScalar(writer_, "late", 1, 9, s_);
  EXPECT_EQ(code(), TG_FAILED_PRECONDITION);
  EXPECT_TRUE(Contains(msg(), path)) << msg();
}

TEST_F(FileWriterTest, BadInputsAreStatusesNamingWhatIsWrong) {
  writer_ = TG_NewFileWriter(dir_.c_str(), nullptr, s_);
  ASSERT_TRUE(IsOk(s_));
  const std::string path = TG_FileWriterPath(writer_);
  TG_FileWriterAddSummary(writer_, "\xff\xff\xff", 3, 1, s_);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  EXPECT_TRUE(Contains(msg(), path)) << msg();
  const double nan[] = {std::nan("")};
  TG_FileWriterAddHistogram(writer_, "h", nan, 1, 1, s_);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  EXPECT_TRUE(Contains(msg(), "Nan in summary histogram for: h")) << msg();
  TG_FileWriterAddSessionLog(writer_, static_cast<TG_SessionLogStatus>(9), nullptr, nullptr, 1,
                             s_);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  TG_FileWriterAddScalar(nullptr, "x", 1, 1, s_);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  TG_FileWriterAddGraph(writer_, nullptr, s_);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  // The same name in the same second: refused rather than truncating the first file.
  TG_FileWriter* again = TG_NewFileWriter(dir_.c_str(), nullptr, s_);
  if (again == nullptr) {
    EXPECT_EQ(code(), TG_ALREADY_EXISTS);
    EXPECT_TRUE(Contains(msg(), path)) << msg();
  }
  TG_DeleteFileWriter(again);
  // A logdir under a regular file cannot be created.
  const std::string file = dir_ + "/plain";
  { std::ofstream(file) << "x"; }
  EXPECT_EQ(TG_NewFileWriter((file + "/logs").c_str(), nullptr, s_), nullptr);
  EXPECT_NE(code(), TG_OK);
  EXPECT_TRUE(Contains(msg(), file)) << msg();
  EXPECT_EQ(TG_NewFileWriter(nullptr, nullptr, s_), nullptr);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  TG_DeleteFileWriter(nullptr);
}

}  // namespace
