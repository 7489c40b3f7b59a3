// TFRecord framing, checked against the worked values of TensorFlow's format (masked
// CRC-32C of the length and of the data), and the writer's and reader's errors.
#include "core/io/record_writer.h"

#include <gtest/gtest.h>

#include <sys/resource.h>

#include <boost/filesystem.hpp>
#include <csignal>
#include <fstream>

#include "core/io/record_reader.h"

namespace tgraph::io {
namespace {

uint32_t Le32(const std::string& s, size_t at) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(s[at + static_cast<size_t>(i)]);
  return v;
}

class TempDir {
 public:
  TempDir() : path_(boost::filesystem::temp_directory_path() /
                    boost::filesystem::unique_path("tgraph-records-%%%%%%%%")) {
    boost::filesystem::create_directories(path_);
  }
  ~TempDir() {
    boost::system::error_code ec;
    boost::filesystem::remove_all(path_, ec);
  }
  std::string File(const std::string& name) const { return (path_ / name).string(); }

 private:
  boost::filesystem::path path_;
};

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(RecordWriterTest, FramingMatchesTensorFlowsWorkedExample) {
  // Event{file_version: "brain.Event:2"} serialized (FORMATS: 15 bytes).
  const std::string data = std::string("\x1a\x0d", 2) + "brain.Event:2";
  const std::string header = RecordHeader(data.size());
  ASSERT_EQ(header.size(), 12u);
  EXPECT_EQ(header.substr(0, 8), std::string("\x0f\0\0\0\0\0\0\0", 8));
  EXPECT_EQ(Le32(header, 8), 0x092b536du);
  EXPECT_EQ(Le32(RecordFooter(data), 0), 0x295198fcu);
  // TensorBoard's published test vector.
  EXPECT_EQ(Le32(RecordFooter(std::string("\x1a\x11", 2) + "CRC test, one two"), 0),
            0x5794d08au);
}

TEST(RecordWriterTest, WritesRecordsTheReaderReadsBack) {
  TempDir dir;
  const std::string path = dir.File("r.tfrecord");
  auto writer = RecordWriter::CreateNew(path);
  ASSERT_TRUE(writer.ok()) << writer.status().ToString();
  for (const std::string& r : {std::string("first"), std::string(), std::string(100000, 'x')}) {
    ASSERT_TRUE((*writer)->Write(r).ok());
  }
  ASSERT_TRUE((*writer)->Close().ok());
  EXPECT_EQ(ReadAll(path).size(), 3 * 16 + 5 + 100000u);
  auto reader = RecordReader::Open(path);
  ASSERT_TRUE(reader.ok());
  std::string record;
  ASSERT_TRUE((*reader)->Next(&record).value());
  EXPECT_EQ(record, "first");
  ASSERT_TRUE((*reader)->Next(&record).value());
  EXPECT_EQ(record, "");
  ASSERT_TRUE((*reader)->Next(&record).value());
  EXPECT_EQ(record.size(), 100000u);
  EXPECT_FALSE((*reader)->Next(&record).value());
}

TEST(RecordWriterTest, NeverTruncatesAnExistingFile) {
  TempDir dir;
  const std::string path = dir.File("taken");
  { std::ofstream(path) << "keep me"; }
  auto writer = RecordWriter::CreateNew(path);
  ASSERT_EQ(writer.status().code(), Code::kAlreadyExists);
  EXPECT_NE(writer.status().message().find(path), std::string::npos);
  EXPECT_EQ(ReadAll(path), "keep me");
}

TEST(RecordWriterTest, MissingDirectoryIsNotFoundNamingTheFile) {
  TempDir dir;
  const std::string path = dir.File("no/such/dir/r.tfrecord");
  auto writer = RecordWriter::CreateNew(path);
  ASSERT_EQ(writer.status().code(), Code::kNotFound);
  EXPECT_NE(writer.status().message().find(path), std::string::npos);
}

// A file size limit (RLIMIT_FSIZE) stands in for a full disk: writes past it fail (EFBIG)
// as they would with ENOSPC, after the buffered records were accepted.
TEST(RecordWriterTest, WriteErrorsSurfaceAtFlushNamingTheFile) {
  TempDir dir;
  const std::string path = dir.File("full.tfrecord");
  auto writer = RecordWriter::CreateNew(path);
  ASSERT_TRUE(writer.ok());
  rlimit old{};
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &old), 0);
  auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  rlimit small = old;
  small.rlim_cur = 1000;
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
  Status s = (*writer)->Write(std::string(5000, 'x'));
  if (s.ok()) s = (*writer)->Flush();
  setrlimit(RLIMIT_FSIZE, &old);
  std::signal(SIGXFSZ, old_handler);
  EXPECT_EQ(s.code(), Code::kResourceExhausted) << s.ToString();
  EXPECT_NE(s.message().find(path), std::string::npos) << s.message();
  // The error sticks: later calls report it instead of writing after a gap.
  EXPECT_EQ((*writer)->Write("more").code(), Code::kResourceExhausted);
  EXPECT_EQ((*writer)->Close().code(), Code::kResourceExhausted);
  EXPECT_EQ((*writer)->Write("closed").code(), Code::kResourceExhausted);
}

TEST(RecordWriterTest, ClosedWriterRefusesWrites) {
  TempDir dir;
  auto writer = RecordWriter::CreateNew(dir.File("c"));
  ASSERT_TRUE(writer.ok());
  ASSERT_TRUE((*writer)->Close().ok());
  const Status s = (*writer)->Write("late");
  EXPECT_EQ(s.code(), Code::kFailedPrecondition);
  EXPECT_NE(s.message().find(dir.File("c")), std::string::npos);
  EXPECT_EQ((*writer)->Close().code(), Code::kFailedPrecondition);
}

TEST(RecordReaderTest, TruncatedAndCorruptRecordsAreDataLoss) {
  TempDir dir;
  const std::string path = dir.File("r.tfrecord");
  {
    auto writer = RecordWriter::CreateNew(path);
    ASSERT_TRUE(writer.ok());
    ASSERT_TRUE((*writer)->Write("one").ok());
    ASSERT_TRUE((*writer)->Write("two").ok());
    ASSERT_TRUE((*writer)->Close().ok());
  }
  const std::string good = ReadAll(path);
  auto read_all = [&](const std::string& bytes) -> Status {
    const std::string bad = dir.File("bad");
    { std::ofstream(bad, std::ios::binary | std::ios::trunc) << bytes; }
    auto reader = RecordReader::Open(bad);
    if (!reader.ok()) return reader.status();
    std::string record;
    for (;;) {
      StatusOr<bool> more = (*reader)->Next(&record);
      if (!more.ok()) return more.status();
      if (!*more) return Status::OK();
    }
  };
  EXPECT_TRUE(read_all(good).ok());
  for (size_t cut : {good.size() - 1, good.size() - 4, good.size() / 2 + 3, size_t{5}}) {
    const Status s = read_all(good.substr(0, cut));
    EXPECT_EQ(s.code(), Code::kDataLoss) << cut << ": " << s.ToString();
    EXPECT_NE(s.message().find("bad"), std::string::npos) << s.message();
  }
  for (size_t at : {size_t{2}, size_t{9}, size_t{13}, size_t{16}, size_t{20}}) {
    std::string flipped = good;
    flipped[at] = static_cast<char>(flipped[at] ^ 0x20);
    const Status s = read_all(flipped);
    EXPECT_EQ(s.code(), Code::kDataLoss) << at << ": " << s.ToString();
  }
  EXPECT_EQ(RecordReader::Open(dir.File("absent")).status().code(), Code::kNotFound);
}

}  // namespace
}  // namespace tgraph::io
