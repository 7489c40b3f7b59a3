// The CRC of a tensor read in overlapped blocks (FileReader's ReadAhead: the CRC runs over
// each block while the next ones are read): one flipped byte anywhere, at the first or last
// byte of any block, is DATA_LOSS naming the data file and the tensor, read direct (the file
// evicted from the page cache) or from the cache; an intact tensor reads back exactly.
#include <fcntl.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

#include "bundle_test_util.h"
#include "file_io.h"
#include "naming.h"

namespace tgraph::saver_tf {
namespace {

using testing::RawTensor;
using testing::ReadRawTensor;
using testing::SaveRaw;
using testing::ScratchDir;

constexpr size_t kBlock = 16 << 10;

void Evict(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  ::fsync(fd);
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  ::close(fd);
}

void FlipByteAt(const std::string& path, uint64_t offset) {
  const int fd = ::open(path.c_str(), O_RDWR);
  ASSERT_GE(fd, 0);
  char c = 0;
  ASSERT_EQ(::pread(fd, &c, 1, static_cast<off_t>(offset)), 1);
  c = static_cast<char>(c ^ 0x10);
  ASSERT_EQ(::pwrite(fd, &c, 1, static_cast<off_t>(offset)), 1);
  ::close(fd);
}

class OverlappedCrc : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    SetReadBlockSizeForTesting(kBlock);
    SetDirectIoForTesting(GetParam() ? 1 : 0);
  }
  void TearDown() override {
    SetReadBlockSizeForTesting(0);
    SetDirectIoForTesting(-1);
  }
  // Direct reads want the file out of the cache; cached ones want it in.
  void Prepare(const std::string& data) {
    if (GetParam()) {
      Evict(data);
    } else {
      (void)testing::ReadFile(data);
    }
  }
};

TEST_P(OverlappedCrc, FlippedByteAtEveryBlockBoundaryIsDataLoss) {
  ScratchDir dir;
  const std::string prefix = dir / "model.ckpt";
  // A small tensor first, so that "w" starts at an unaligned offset (read through the staging
  // ring when direct), then "v" at an aligned one (read in place).
  std::string w(10 * kBlock + 123, '\0'), v(9 * kBlock, '\0');
  for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<char>(i * 7 + 3);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<char>(i * 13 + 1);
  const std::string pad(4096 - 123, 'p');  // realigns "v"
  ASSERT_TRUE(SaveRaw(prefix, {{"a", TG_INT8, {5}, "12345"},
                               {"w", TG_INT8, {static_cast<int64_t>(w.size())}, w},
                               {"x", TG_INT8, {static_cast<int64_t>(pad.size() - 5)},
                                pad.substr(5)},
                               {"v", TG_INT8, {static_cast<int64_t>(v.size())}, v}})
                  .ok());
  const std::string data = DataFileName(prefix, 0, 1);
  std::string bytes;
  for (const auto& [name, contents, start] :
       std::vector<std::tuple<std::string, std::string, uint64_t>>{
           {"w", w, 5}, {"v", v, 5 + w.size() + pad.size() - 5}}) {
    Prepare(data);
    ASSERT_TRUE(ReadRawTensor(prefix, name, &bytes).ok()) << name;
    ASSERT_TRUE(bytes == contents) << name;
    // The first and last byte of every block of the file that the tensor covers.
    std::vector<uint64_t> spots = {start, start + contents.size() - 1};
    for (uint64_t b = (start / kBlock + 1) * kBlock; b < start + contents.size(); b += kBlock) {
      spots.push_back(b - 1);
      spots.push_back(b);
    }
    for (uint64_t spot : spots) {
      SCOPED_TRACE(::testing::Message() << name << " byte " << spot);
      FlipByteAt(data, spot);
      Prepare(data);
      BundleStatus s = ReadRawTensor(prefix, name, &bytes);
      EXPECT_EQ(s.code, TG_DATA_LOSS);
      EXPECT_NE(s.message.find(data), std::string::npos) << s.message;
      EXPECT_NE(s.message.find("'" + name + "'"), std::string::npos) << s.message;
      FlipByteAt(data, spot);  // back
    }
    Prepare(data);
    ASSERT_TRUE(ReadRawTensor(prefix, name, &bytes).ok()) << name;
  }
}

INSTANTIATE_TEST_SUITE_P(DirectAndCached, OverlappedCrc, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "Direct" : "Cached"; });

}  // namespace
}  // namespace tgraph::saver_tf
