// FileWriter's direct mode (O_DIRECT through a staging buffer) and FileReader's direct reads:
// the bytes are exactly what was appended, whatever the sizes and source alignment, the
// page cache is bypassed where the file system allows it, and buffered I/O takes over where
// direct I/O is off.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "common/crc32c.h"
#include "saver_io/file_io.h"
#include "scratch_files.h"

namespace tgraph::saver_io {
namespace {

using saver_testing::ScratchDir;

constexpr size_t kMiB = size_t{1} << 20;

// Bytes that differ from position to position (a misplaced block shows).
std::vector<char> Pattern(size_t n, unsigned seed) {
  std::vector<char> bytes(n);
  uint32_t x = seed * 2654435761u + 1;
  for (size_t i = 0; i < n; ++i) {
    x = x * 1664525u + 1013904223u;
    bytes[i] = static_cast<char>(x >> 24);
  }
  return bytes;
}

using saver_testing::ReadFile;

// Whether the directory's file system does direct I/O with known alignment (ext4, xfs,
// tmpfs since Linux 6.6); the assertions about bypassing the cache need it.
bool DirectIoWorksIn(const std::string& dir) {
  const std::string probe = dir + "/probe";
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_DIRECT, 0644);
  bool works = false;
#ifdef STATX_DIOALIGN
  struct statx st {};
  works = fd >= 0 && ::statx(fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &st) == 0 &&
          (st.stx_mask & STATX_DIOALIGN) != 0 && st.stx_dio_offset_align != 0;
#endif
  if (fd >= 0) ::close(fd);
  ::unlink(probe.c_str());
  return works;
}

// How many of the file's pages in [offset, offset + n) are in the page cache.
size_t CachedPages(const std::string& path, uint64_t offset, size_t n) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  EXPECT_GE(fd, 0);
  void* map = ::mmap(nullptr, n, PROT_READ, MAP_SHARED, fd, static_cast<off_t>(offset));
  ::close(fd);
  EXPECT_NE(map, MAP_FAILED);
  const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  std::vector<unsigned char> resident((n + page - 1) / page);
  EXPECT_EQ(::mincore(map, n, resident.data()), 0);
  ::munmap(map, n);
  size_t cached = 0;
  for (unsigned char r : resident) cached += r & 1;
  return cached;
}

// A page-aligned copy of `bytes` (as the core allocates large tensors), freed with free().
std::unique_ptr<char, FreeAligned> AlignedCopy(const std::vector<char>& bytes) {
  void* p = nullptr;
  EXPECT_EQ(::posix_memalign(&p, 4096, bytes.size() + 1), 0);
  std::memcpy(p, bytes.data(), bytes.size());
  return std::unique_ptr<char, FreeAligned>(static_cast<char*>(p));
}

class FileIo : public ::testing::Test {
 protected:
  // Direct I/O on, whatever the environment says (TGRAPH_SAVER_DIRECT_IO).
  void SetUp() override { SetDirectIoForTesting(1); }
  void TearDown() override {
    SetDirectIoForTesting(-1);
    SetWriteFaultHookForTesting(nullptr);
    SetReadFaultHookForTesting(nullptr);
    SetReadBlockSizeForTesting(0);
  }

  // Appends the pieces (each from an odd address, to defeat any alignment luck) and
  // returns what they make together.
  std::string WriteFile(const std::string& path, const std::vector<size_t>& sizes,
                        bool* direct) {
    std::unique_ptr<FileWriter> file;
    IoStatus s = FileWriter::Create(path, &file, FileWriter::Mode::kDirectIfPossible);
    EXPECT_TRUE(s.ok()) << s.message;
    *direct = file->direct();
    std::string expected;
    unsigned seed = 1;
    for (size_t n : sizes) {
      const std::vector<char> bytes = Pattern(n + 1, seed++);
      s = file->Append(bytes.data() + 1, n);
      EXPECT_TRUE(s.ok()) << s.message;
      expected.append(bytes.data() + 1, n);
    }
    EXPECT_EQ(file->size(), expected.size());
    s = file->SyncAndClose();
    EXPECT_TRUE(s.ok()) << s.message;
    return expected;
  }

  ScratchDir dir_;
};

const std::vector<std::vector<size_t>> kLayouts = {
    {},                                            // empty file
    {1},                                           // less than a block
    {4096},                                        // exactly a block
    {8 * kMiB},                                    // exactly the staging buffer
    {8 * kMiB + 1},                                // one byte into the next
    {3, 5 * kMiB + 7, 100, 11 * kMiB + 4093, 1},   // small and large, all unaligned
    {20 * kMiB + 123},                             // several staging buffers and a tail
};

TEST_F(FileIo, DirectWritesGiveTheBytesAppended) {
  const bool can = DirectIoWorksIn(dir_ / "");
  for (size_t i = 0; i < kLayouts.size(); ++i) {
    const std::string path = dir_ / std::string("f").append(std::to_string(i));
    bool direct = false;
    const std::string expected = WriteFile(path, kLayouts[i], &direct);
    EXPECT_EQ(direct, can) << "layout " << i;
    EXPECT_TRUE(ReadFile(path) == expected) << "layout " << i;
  }
}

// Aligned sources at aligned file positions are written in place (no staging copy); the
// bytes around them still land where they belong.
TEST_F(FileIo, AlignedSourcesAreWrittenInPlace) {
  const std::string path = dir_ / "f";
  std::unique_ptr<FileWriter> file;
  ASSERT_TRUE(FileWriter::Create(path, &file, FileWriter::Mode::kDirectIfPossible).ok());
  std::string expected;
  const std::vector<char> head = Pattern(4096, 1);  // staged: 100 + 3996 = a whole page
  const std::vector<char> big = Pattern(3 * kMiB + 17, 2);
  const std::vector<char> odd = Pattern(9 * kMiB + 1, 3);
  const auto aligned_big = AlignedCopy(big);
  const auto aligned_odd = AlignedCopy(odd);
  auto append = [&](const char* p, size_t n) {
    ASSERT_TRUE(file->Append(p, n).ok());
    expected.append(p, n);
  };
  append(head.data(), 100);
  append(head.data() + 100, 3996);
  append(aligned_big.get(), big.size());  // in place, 17 bytes staged after it
  append(aligned_odd.get(), odd.size());  // the position is no longer aligned: staged
  append(aligned_big.get(), 4096 - 17 - 1);  // realigns the position (minus one byte)
  append(aligned_big.get(), 1);
  append(aligned_big.get(), big.size());  // in place again
  ASSERT_TRUE(file->SyncAndClose().ok());
  EXPECT_TRUE(ReadFile(path) == expected);
}

TEST_F(FileIo, BufferedWhenDirectIoIsOff) {
  SetDirectIoForTesting(0);
  const std::string path = dir_ / "f";
  bool direct = true;
  const std::string expected = WriteFile(path, kLayouts[5], &direct);
  EXPECT_FALSE(direct);
  EXPECT_TRUE(ReadFile(path) == expected);
}

TEST_F(FileIo, DirectWritesBypassThePageCache) {
  if (!DirectIoWorksIn(dir_ / "")) GTEST_SKIP() << "no direct I/O on " << (dir_ / "");
  const std::string path = dir_ / "f";
  bool direct = false;
  WriteFile(path, {16 * kMiB + 10}, &direct);
  ASSERT_TRUE(direct);
  // The 16 whole MiB went O_DIRECT; only the 10-byte tail went through the cache.
  EXPECT_EQ(CachedPages(path, 0, 16 * kMiB), 0u);
}

TEST_F(FileIo, ReadsUncachedBytesDirectAtAnyOffset) {
  if (!DirectIoWorksIn(dir_ / "")) GTEST_SKIP() << "no direct I/O on " << (dir_ / "");
  const std::string path = dir_ / "f";
  bool direct = false;
  const std::string expected = WriteFile(path, {3, 12 * kMiB + 5}, &direct);
  ASSERT_TRUE(direct);
  ASSERT_EQ(CachedPages(path, 0, 12 * kMiB), 0u);
  std::unique_ptr<FileReader> reader;
  ASSERT_TRUE(FileReader::Open(path, &reader).ok());
  // Unaligned offset and length, more than one staging buffer, up to the file's end.
  const uint64_t offset = 3;
  const size_t n = expected.size() - 3;
  std::vector<char> got(n);
  IoStatus s = reader->ReadAt(offset, got.data(), n);
  ASSERT_TRUE(s.ok()) << s.message;
  EXPECT_TRUE(std::string(got.data(), n) == expected.substr(3));
  // Read direct: the cache still does not hold the bytes.
  EXPECT_EQ(CachedPages(path, 0, 12 * kMiB), 0u);
  // Past the end: DATA_LOSS naming the file, as with buffered reads.
  std::vector<char> more(2 * kMiB);
  s = reader->ReadAt(expected.size() - kMiB, more.data(), more.size());
  EXPECT_EQ(s.code, TG_DATA_LOSS);
  EXPECT_NE(s.message.find(path), std::string::npos) << s.message;
}

// An aligned destination at an aligned offset is read in place; the unaligned tail through
// the staging buffer.
TEST_F(FileIo, ReadsIntoAlignedMemoryInPlace) {
  if (!DirectIoWorksIn(dir_ / "")) GTEST_SKIP() << "no direct I/O on " << (dir_ / "");
  const std::string path = dir_ / "f";
  bool direct = false;
  const std::string expected = WriteFile(path, {4096 - 1, 10 * kMiB + 3}, &direct);
  ASSERT_TRUE(direct);
  std::unique_ptr<FileReader> reader;
  ASSERT_TRUE(FileReader::Open(path, &reader).ok());
  const std::vector<char> zeros(expected.size(), 0);
  const auto dst = AlignedCopy(zeros);
  // From offset 4095 the file position is aligned one byte later: read from 4096.
  const size_t n = expected.size() - 4096;
  IoStatus s = reader->ReadAt(4096, dst.get(), n);
  ASSERT_TRUE(s.ok()) << s.message;
  EXPECT_TRUE(std::string(dst.get(), n) == expected.substr(4096));
  EXPECT_EQ(CachedPages(path, 0, 10 * kMiB), 0u);
}

TEST_F(FileIo, ReadsBytesWrittenThroughTheCache) {
  SetDirectIoForTesting(0);
  const std::string path = dir_ / "f";
  bool direct = true;
  const std::string expected = WriteFile(path, {4 * kMiB}, &direct);
  ASSERT_FALSE(direct);
  ASSERT_EQ(CachedPages(path, 0, 4 * kMiB), 4 * kMiB / 4096);  // written through the cache
  SetDirectIoForTesting(1);
  std::unique_ptr<FileReader> reader;
  ASSERT_TRUE(FileReader::Open(path, &reader).ok());
  std::vector<char> got(expected.size());
  ASSERT_TRUE(reader->ReadAt(0, got.data(), got.size()).ok());
  EXPECT_TRUE(std::string(got.data(), got.size()) == expected);
}

// An injected failure in the middle of the writes (direct or not) fails the save, naming the
// file.
TEST_F(FileIo, DirectWriteFailureIsReported) {
  SetWriteFaultHookForTesting([](const std::string&, uint64_t offset, size_t n) {
    return offset + n > 8 * kMiB ? EIO : 0;
  });
  std::unique_ptr<FileWriter> file;
  const std::string path = dir_ / "f";
  ASSERT_TRUE(FileWriter::Create(path, &file, FileWriter::Mode::kDirectIfPossible).ok());
  const std::vector<char> bytes = Pattern(20 * kMiB, 7);
  IoStatus s = file->Append(bytes.data(), bytes.size());
  if (s.ok()) s = file->SyncAndClose();
  EXPECT_EQ(s.code, TG_UNKNOWN);
  EXPECT_NE(s.message.find(path), std::string::npos) << s.message;
}

// ---- overlapped reads (ReadAhead), with small blocks so that every case crosses many ----

constexpr size_t kBlock = 16 << 10;

// Drops the file's pages from the page cache (after a sync: dirty pages stay).
void Evict(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  ::fsync(fd);
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  ::close(fd);
}

// Reads [offset, offset + n) into dst with a consumer that checks the pieces come in order,
// contiguous, each holding the file's bytes already; returns the pieces' sizes.
std::vector<size_t> ReadInPieces(const FileReader& reader, uint64_t offset, char* dst, size_t n,
                                 const std::string& file, IoStatus* status) {
  std::vector<size_t> pieces;
  size_t next = 0;
  *status = reader.ReadAt(offset, dst, n, [&](const char* data, size_t size) {
    EXPECT_EQ(data, dst + next) << "piece " << pieces.size() << " out of order";
    EXPECT_TRUE(std::memcmp(data, file.data() + offset + next, size) == 0)
        << "piece " << pieces.size() << " consumed before its bytes were read";
    next += size;
    pieces.push_back(size);
  });
  return pieces;
}

class OverlappedRead : public FileIo, public ::testing::WithParamInterface<bool> {
 protected:
  void SetUp() override {
    FileIo::SetUp();
    SetReadBlockSizeForTesting(kBlock);
    direct_ = GetParam();
    if (direct_ && !DirectIoWorksIn(dir_ / "")) GTEST_SKIP() << "no direct I/O here";
    SetDirectIoForTesting(direct_ ? 1 : 0);
    path_ = dir_ / "f";
    bool unused = false;
    expected_ = WriteFile(path_, {40 * kBlock + 4096 * 5 + 123}, &unused);
  }
  // Before each read: out of the cache for a direct read, in it for a cached one.
  void Prepare() {
    if (direct_) {
      Evict(path_);
    } else {
      (void)ReadFile(path_);  // a plain read fills the cache
      ASSERT_EQ(CachedPages(path_, 0, 20 * kBlock), 20 * kBlock / 4096);
    }
  }

  bool direct_ = false;
  std::string path_;
  std::string expected_;
};

// Offsets and lengths at, before and after block and page boundaries, into aligned memory (read
// in place when direct) and unaligned memory (through the staging ring when direct): the
// exact bytes, and the consumer sees all of them, in order, each piece already read.
TEST_P(OverlappedRead, ExactBytesAtEveryBoundary) {
  std::unique_ptr<FileReader> reader;
  ASSERT_TRUE(FileReader::Open(path_, &reader).ok());
  const size_t size = expected_.size();
  const std::vector<std::pair<uint64_t, size_t>> ranges = {
      {0, size},                      // all, unaligned tail
      {0, 40 * kBlock},               // whole blocks
      {kBlock, 33 * kBlock + 1},      // one byte into a block
      {kBlock - 1, 33 * kBlock + 2},  // from one byte before a block
      {4096, size - 4096},            // page-aligned, to the end
      {7, size - 7},                  // odd offset, to the end
      {3 * kBlock + 100, 20 * kBlock + 4095},
  };
  const std::vector<char> zeros(size + 4096, 0);
  for (const auto& [offset, n] : ranges) {
    for (int misalign : {0, 1, 513}) {
      SCOPED_TRACE(testing::Message() << "offset " << offset << " n " << n << " misalign "
                                      << misalign);
      Prepare();
      const auto memory = AlignedCopy(zeros);
      char* dst = memory.get() + misalign;
      IoStatus s;
      const std::vector<size_t> pieces = ReadInPieces(*reader, offset, dst, n, expected_, &s);
      ASSERT_TRUE(s.ok()) << s.message;
      EXPECT_TRUE(std::memcmp(dst, expected_.data() + offset, n) == 0);
      size_t total = 0;
      for (size_t p : pieces) total += p;
      EXPECT_EQ(total, n);
      // Several pieces: the consumer ran block by block, not once at the end.
      EXPECT_GE(pieces.size(), n / kBlock);
    }
  }
  if (direct_) {
    // Read direct: the cache still lacks the bytes.
    EXPECT_EQ(CachedPages(path_, 0, 40 * kBlock), 0u);
  }
}

// The same ranges read with their CRC-32C: the exact bytes and crc32c::Value of them, whether
// the reader threads checksummed the blocks (cached) or the caller did (direct, staged).
TEST_P(OverlappedRead, Crc32cOfEveryRangeIsTheBytesCrc) {
  std::unique_ptr<FileReader> reader;
  ASSERT_TRUE(FileReader::Open(path_, &reader).ok());
  const size_t size = expected_.size();
  const std::vector<std::pair<uint64_t, size_t>> ranges = {
      {0, size}, {kBlock - 1, 33 * kBlock + 2}, {7, size - 7}, {3 * kBlock + 100, 4095},
      {5, 3 * kBlock}, {0, 0}};
  const std::vector<char> zeros(size + 4096, 0);
  for (const auto& [offset, n] : ranges) {
    for (int misalign : {0, 1}) {
      SCOPED_TRACE(testing::Message() << "offset " << offset << " n " << n << " misalign "
                                      << misalign);
      Prepare();
      const auto memory = AlignedCopy(zeros);
      char* dst = memory.get() + misalign;
      uint32_t crc = 0x12345678u;
      IoStatus s = reader->ReadAtWithCrc32c(offset, dst, n, &crc);
      ASSERT_TRUE(s.ok()) << s.message;
      EXPECT_TRUE(std::memcmp(dst, expected_.data() + offset, n) == 0);
      EXPECT_EQ(crc, crc32c::Value(expected_.data() + offset, n));
    }
  }
}

// A block whose read fails once: the overlapped read stops there and the plain read loop reads
// the rest again; the blocks read (and checksummed) ahead of the failure are not counted twice.
TEST_P(OverlappedRead, Crc32cRightAfterAFailureHalfWay) {
  std::unique_ptr<FileReader> reader;
  ASSERT_TRUE(FileReader::Open(path_, &reader).ok());
  static std::atomic<int> failures_left{0};
  failures_left = 1;
  SetReadFaultHookForTesting([](const std::string&, uint64_t offset, size_t n) {
    const bool in_block_20 = offset < 21 * kBlock && offset + n > 20 * kBlock;
    return in_block_20 && failures_left.fetch_sub(1) > 0 ? EIO : 0;
  });
  Prepare();
  std::vector<char> dst(expected_.size());
  uint32_t crc = 0;
  IoStatus s = reader->ReadAtWithCrc32c(0, dst.data(), dst.size(), &crc);
  SetReadFaultHookForTesting(nullptr);
  ASSERT_TRUE(s.ok()) << s.message;
  EXPECT_LE(failures_left.load(), 0) << "the failure was never injected";
  EXPECT_TRUE(std::memcmp(dst.data(), expected_.data(), dst.size()) == 0);
  EXPECT_EQ(crc, crc32c::Value(expected_.data(), expected_.size()));
}

// A file that shrank after it was opened: every read past its new end is DATA_LOSS naming
// the file (a short read inside a block, then the plain read finding the end).
TEST_P(OverlappedRead, ShortReadIsDataLoss) {
  std::unique_ptr<FileReader> reader;
  ASSERT_TRUE(FileReader::Open(path_, &reader).ok());
  ASSERT_EQ(::truncate(path_.c_str(), static_cast<off_t>(25 * kBlock + 77)), 0);
  Prepare();
  std::vector<char> dst(expected_.size());
  size_t consumed = 0;
  IoStatus s = reader->ReadAt(0, dst.data(), dst.size(),
                              [&](const char*, size_t n) { consumed += n; });
  EXPECT_EQ(s.code, TG_DATA_LOSS);
  EXPECT_NE(s.message.find(path_), std::string::npos) << s.message;
  EXPECT_LE(consumed, 25 * kBlock + 77);
  EXPECT_TRUE(std::memcmp(dst.data(), expected_.data(), consumed) == 0);
}

// A read that fails half-way (an I/O error in block 20) fails the whole read with the errno's
// code and the file's name; nothing after the failure is handed to the consumer.
TEST_P(OverlappedRead, InjectedReadFailureNamesTheFile) {
  std::unique_ptr<FileReader> reader;
  ASSERT_TRUE(FileReader::Open(path_, &reader).ok());
  SetReadFaultHookForTesting([](const std::string&, uint64_t offset, size_t n) {
    return offset < 21 * kBlock && offset + n > 20 * kBlock ? EIO : 0;
  });
  Prepare();
  std::vector<char> dst(expected_.size());
  size_t consumed = 0;
  IoStatus s = reader->ReadAt(0, dst.data(), dst.size(),
                              [&](const char*, size_t n) { consumed += n; });
  EXPECT_EQ(s.code, TG_UNKNOWN);
  EXPECT_NE(s.message.find(path_), std::string::npos) << s.message;
  EXPECT_NE(s.message.find("cannot read"), std::string::npos) << s.message;
  EXPECT_LE(consumed, 20 * kBlock);
}

INSTANTIATE_TEST_SUITE_P(DirectAndCached, OverlappedRead, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "Direct" : "Cached"; });

}  // namespace
}  // namespace tgraph::saver_io
