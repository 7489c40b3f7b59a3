// The safetensors saver over the savers' shared I/O (plugins/saver_io): a file with a MiB of
// data or more has its data section on a page boundary (the header padded with spaces, which
// the format allows), is written O_DIRECT (none of its data pages left in the page cache where
// the file system does direct I/O), and restores exactly, from the cache or from the disk.
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "safetensors_test_util.h"

namespace tgraph::testing {
namespace {

uint64_t HeaderLength(const std::string& bytes) {
  uint64_t n = 0;
  for (int i = 0; i < 8; ++i) {
    n |= static_cast<uint64_t>(static_cast<unsigned char>(bytes[i])) << (8 * i);
  }
  return n;
}

// Pages of the file in the page cache, from `offset` (page-aligned) to its end.
size_t CachedPages(const std::string& path, uint64_t offset, size_t n) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  EXPECT_GE(fd, 0);
  void* map = ::mmap(nullptr, n, PROT_READ, MAP_SHARED, fd, static_cast<off_t>(offset));
  ::close(fd);
  EXPECT_NE(map, MAP_FAILED);
  std::vector<unsigned char> resident((n + 4095) / 4096);
  EXPECT_EQ(::mincore(map, n, resident.data()), 0);
  ::munmap(map, n);
  size_t cached = 0;
  for (unsigned char r : resident) cached += r & 1;
  return cached;
}

void Evict(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  ::fsync(fd);
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  ::close(fd);
}

TEST(SafetensorsDirectIo, LargeFilesArePageAlignedWrittenDirectAndRestoreExactly) {
  const SaverRegistration* saver = SafetensorsSaver();
  ASSERT_NE(saver, nullptr);
  ScratchDir dir;
  const std::string path = dir / "model.safetensors";
  const Tensor big = PatternTensor(DT_FLOAT, {3, 1 << 20}, 1);  // 12 MiB
  const Tensor odd = PatternTensor(DT_INT16, {1001}, 2);
  const Tensor big2 = PatternTensor(DT_DOUBLE, {1 << 19}, 3);  // 4 MiB
  ASSERT_TRUE(saver->Save(path, {"big", "odd", "big2"}, {big, odd, big2}).ok());
  const std::string bytes = ReadFile(path);
  const uint64_t n = HeaderLength(bytes);
  EXPECT_EQ((8 + n) % 4096, 0u) << "the data section starts on a page";
  const auto header = nlohmann::json::parse(bytes.substr(8, n));  // trailing spaces are fine
  EXPECT_EQ(header["big"]["dtype"], "F32");
  for (bool cold : {false, true}) {
    SCOPED_TRACE(cold ? "from the disk" : "from the cache");
    if (cold) Evict(path);
    std::vector<Tensor> out;
    ASSERT_TRUE(saver->Restore(path, {"odd", "big", "big2"}, &out).ok());
    EXPECT_TRUE(SameBytes(out[0], odd));
    EXPECT_TRUE(SameBytes(out[1], big));
    EXPECT_TRUE(SameBytes(out[2], big2));
  }
}

TEST(SafetensorsDirectIo, SaveLeavesNoDataInThePageCacheWhereDirectIoWorks) {
  const SaverRegistration* saver = SafetensorsSaver();
  ASSERT_NE(saver, nullptr);
  ScratchDir dir;
  const std::string path = dir / "model.safetensors";
  const std::string probe = dir / "probe";
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_DIRECT, 0644);
  if (fd < 0) GTEST_SKIP() << "no O_DIRECT in " << probe;
  ::close(fd);
  ASSERT_TRUE(saver->Save(path, {"w"}, {PatternTensor(DT_FLOAT, {1 << 21}, 4)}).ok());  // 8 MiB
  const uint64_t data_start = 8 + HeaderLength(ReadFile(path).substr(0, 8));
  Evict(path);  // ReadFile above read the file through the cache
  ASSERT_TRUE(saver->Save(path, {"w"}, {PatternTensor(DT_FLOAT, {1 << 21}, 5)}).ok());
  EXPECT_EQ(CachedPages(path, data_start, 8 << 20), 0u);
}

}  // namespace
}  // namespace tgraph::testing
