#include "file_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "common/crc32c.h"
#include "read_ahead.h"

namespace tgraph::saver_io {
namespace {

// Appends at least this large go straight from the caller's memory to the file.
constexpr size_t kBufferSize = 1 << 20;
// Reads at least this large are read in blocks by several threads at once, O_DIRECT when the
// page cache lacks them (FileReader).
constexpr size_t kOverlapMin = size_t{2} << 20;
constexpr size_t kDefaultReadBlock = size_t{8} << 20;
// Reads in flight at once (ReadAhead threads): two keep the virtual disk busy while the caller
// checksums; more gained nothing on the project's VM.
constexpr int kReaders = 2;
// In-place blocks read ahead of the consumer, and the staging ring's size.
constexpr size_t kInPlaceWindow = 4;
constexpr size_t kStagingSlots = kReaders + 1;
// A reader thread checksumming the cached blocks it copies does so this much at a time, right
// after each copy, while the bytes are still in its core's cache. On the project's VM (reads of
// a cached 512 MiB file, then the CRC of each piece): 128-256 KiB pieces checksummed at 9-21
// GB/s, 1 MiB ones at 5 GB/s (no longer in cache), whole 8 MiB blocks at 3 GB/s; the reads
// themselves ran at 2.0-2.4 GB/s from 128 KiB up (smaller ones pay for their system calls).
constexpr size_t kChecksumPiece = size_t{256} << 10;
// Larger direct-I/O alignments than this are not worth staging for.
constexpr size_t kMaxDirectAlign = size_t{1} << 20;
// One write() call writes at most this much (Linux caps a write at about 2 GiB anyway).
constexpr size_t kMaxWriteChunk = size_t{1} << 30;

std::atomic<WriteFaultHook> g_write_fault_hook{nullptr};
std::atomic<ReadFaultHook> g_read_fault_hook{nullptr};
std::atomic<size_t> g_read_block_for_testing{0};

// Reads at least this large are overlapped: kOverlapMin, or two blocks of a test's size.
size_t OverlapMin() {
  const size_t forced = g_read_block_for_testing.load();
  return forced != 0 ? 2 * forced : kOverlapMin;
}

// The block of large reads, a multiple of `align`.
size_t ReadBlockSize(size_t align) {
  const size_t forced = g_read_block_for_testing.load();
  const size_t block = forced != 0 ? forced : kDefaultReadBlock;
  return (block + align - 1) / align * align;
}
std::atomic<int> g_direct_io_for_testing{-1};

IoStatus ErrnoStatus(int error, const std::string& what, const std::string& path) {
  return Error(CodeForErrno(error), Str(what, " '", path, "': ", std::strerror(error)));
}

std::string DirectoryOf(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

}  // namespace

// TensorFlow's mapping (its errors::IOError) where a saver can meet the errno, with one
// choice of ours: ENOTDIR (a component of the path is a file) is NOT_FOUND, since the file the
// caller named is not there, as a missing checkpoint file is. A directory where a file should
// be (EISDIR) is INVALID_ARGUMENT, as FileReader::Open's "not a regular file" is.
TG_Code CodeForErrno(int error) {
  switch (error) {
    case ENOENT:
    case ENOTDIR:
      return TG_NOT_FOUND;
    case EACCES:
    case EPERM:
    case EROFS:
      return TG_PERMISSION_DENIED;
    case ENOSPC:
    case EDQUOT:
    case EFBIG:
    case ENOMEM:
    case EMFILE:  // out of file descriptors: the process's or the system's
    case ENFILE:
      return TG_RESOURCE_EXHAUSTED;
    case EEXIST:
      return TG_ALREADY_EXISTS;
    case EISDIR:
    case ENAMETOOLONG:
    case EINVAL:
      return TG_INVALID_ARGUMENT;
    case ELOOP:  // too many symbolic links: the file system's state, not the argument
      return TG_FAILED_PRECONDITION;
    default:  // EIO included, as in TensorFlow
      return TG_UNKNOWN;
  }
}

void SetWriteFaultHookForTesting(WriteFaultHook hook) { g_write_fault_hook.store(hook); }
void SetReadFaultHookForTesting(ReadFaultHook hook) { g_read_fault_hook.store(hook); }
void SetReadBlockSizeForTesting(size_t bytes) { g_read_block_for_testing.store(bytes); }

bool DirectIoEnabled() {
  const int forced = g_direct_io_for_testing.load();
  if (forced >= 0) return forced != 0;
  static const bool from_environment = [] {
    const char* value = std::getenv("TGRAPH_SAVER_DIRECT_IO");
    return value == nullptr || std::strcmp(value, "0") != 0;
  }();
  return from_environment;
}

void SetDirectIoForTesting(int enabled) { g_direct_io_for_testing.store(enabled); }

// ---- FileWriter ----

void FreeAligned::operator()(char* p) const { std::free(p); }

IoStatus FileWriter::Create(const std::string& path, std::unique_ptr<FileWriter>* out,
                                Mode mode) {
  const bool direct = mode == Mode::kDirectIfPossible && DirectIoEnabled();
  constexpr int kFlags = O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC;
  int fd = ::open(path.c_str(), kFlags | (direct ? O_DIRECT : 0), 0644);
  // A file system without direct I/O refuses the flag (EINVAL): write through the cache.
  if (fd < 0 && direct && errno == EINVAL) fd = ::open(path.c_str(), kFlags, 0644);
  if (fd < 0) return ErrnoStatus(errno, "cannot create", path);
  out->reset(new FileWriter(path, fd));
  if (direct) (*out)->SetUpDirect();
  return IoStatus::OK();
}

void FileWriter::SetUpDirect() {
  const int flags = ::fcntl(fd_, F_GETFL);
  if (flags < 0 || (flags & O_DIRECT) == 0) return;
  size_t offset_align = 0;
  size_t memory_align = 0;
#ifdef STATX_DIOALIGN
  struct statx st {};
  if (::statx(fd_, "", AT_EMPTY_PATH, STATX_DIOALIGN, &st) == 0 &&
      (st.stx_mask & STATX_DIOALIGN) != 0 && st.stx_dio_offset_align != 0) {
    offset_align = st.stx_dio_offset_align;
    memory_align = std::max<uint32_t>(st.stx_dio_mem_align, 1);
  }
#endif
  // Without the file system's word on alignment, direct I/O is not worth the guess.
  void* buffer = nullptr;
  if (offset_align != 0 && offset_align <= kStagingSize && kStagingSize % offset_align == 0 &&
      memory_align <= 4096 && ::posix_memalign(&buffer, 4096, kStagingSize) == 0) {
    staging_.reset(static_cast<char*>(buffer));
    align_ = offset_align;
    memory_align_ = memory_align;
    return;
  }
  (void)StopDirect();
}

IoStatus FileWriter::StopDirect() {
  const int flags = ::fcntl(fd_, F_GETFL);
  if (flags < 0 || ::fcntl(fd_, F_SETFL, flags & ~O_DIRECT) != 0) {
    return ErrnoStatus(errno, "cannot turn off direct I/O on", path_);
  }
  if (staging_ == nullptr) return IoStatus::OK();
  // What was staged goes on as an ordinary buffered append.
  const size_t staged = staged_;
  std::unique_ptr<char, FreeAligned> staging = std::move(staging_);
  staged_ = 0;
  write_back_from_ = written_;  // nothing written direct is dirty in the cache
  return WriteAll(staging.get(), staged);
}

// Bytes that the disk can take from where they are (a whole-block run of them at an aligned
// address, the file position aligned) are written straight from the caller's memory: a
// large tensor (page-aligned, as the core allocates them) is one write, which the block layer
// splits into requests that are all in flight together. Everything else is gathered in the
// staging buffer, written whenever it is full, which keeps every direct write aligned
// whatever the tensors' addresses and sizes are.
IoStatus FileWriter::AppendDirect(const char* data, size_t n) {
  while (n > 0) {
    if (staged_ % align_ == 0 && n >= align_ &&
        reinterpret_cast<uintptr_t>(data) % memory_align_ == 0) {
      SAVER_IO_RETURN_IF_ERROR(WriteStaged());  // all of it: it is whole blocks
      if (staging_ == nullptr) return WriteAll(data, n);
      const size_t whole = n / align_ * align_;
      size_t done = 0;
      bool give_up = false;
      SAVER_IO_RETURN_IF_ERROR(WriteDirect(data, whole, &done, &give_up));
      data += done;
      n -= done;
      if (give_up) {
        SAVER_IO_RETURN_IF_ERROR(StopDirect());  // nothing is staged
        return WriteAll(data, n);
      }
      continue;
    }
    const size_t take = std::min(n, kStagingSize - staged_);
    std::memcpy(staging_.get() + staged_, data, take);
    staged_ += take;
    data += take;
    n -= take;
    if (staged_ == kStagingSize) SAVER_IO_RETURN_IF_ERROR(WriteStaged());
    if (staging_ == nullptr) return WriteAll(data, n);  // fell back to buffered writes
  }
  return IoStatus::OK();
}

// Writes [p, p + n) O_DIRECT (n whole blocks, p aligned); *done is what got written. Sets
// *give_up, leaving the rest, where direct I/O cannot go on: a file system that takes the
// flag but not the write (EINVAL), or a short write that left the position unaligned.
IoStatus FileWriter::WriteDirect(const char* p, size_t n, size_t* done, bool* give_up) {
  *done = 0;
  *give_up = false;
  while (*done < n) {
    const size_t chunk = std::min(n - *done, kMaxWriteChunk / align_ * align_);
    if (WriteFaultHook hook = g_write_fault_hook.load()) {
      if (const int injected = hook(path_, written_, chunk)) {
        return ErrnoStatus(injected, "cannot write", path_);
      }
    }
    const ssize_t wrote = ::write(fd_, p + *done, chunk);
    if (wrote < 0) {
      if (errno == EINTR) continue;
      if (errno != EINVAL) return ErrnoStatus(errno, "cannot write", path_);
      *give_up = true;
      return IoStatus::OK();
    }
    *done += static_cast<size_t>(wrote);
    written_ += static_cast<uint64_t>(wrote);
    if (*done % align_ != 0) {
      *give_up = true;
      return IoStatus::OK();
    }
  }
  return IoStatus::OK();
}

IoStatus FileWriter::WriteStaged() {
  const size_t whole = staged_ / align_ * align_;
  if (whole == 0) return IoStatus::OK();
  size_t done = 0;
  bool give_up = false;
  IoStatus s = WriteDirect(staging_.get(), whole, &done, &give_up);
  std::memmove(staging_.get(), staging_.get() + done, staged_ - done);
  staged_ -= done;
  if (!s.ok()) return s;
  return give_up ? StopDirect() : IoStatus::OK();  // StopDirect writes what is staged
}

FileWriter::~FileWriter() {
  if (fd_ >= 0) ::close(fd_);
}

IoStatus FileWriter::WriteAll(const char* data, size_t n) {
  while (n > 0) {
    const size_t chunk = n < kMaxWriteChunk ? n : kMaxWriteChunk;
    if (WriteFaultHook hook = g_write_fault_hook.load()) {
      if (const int injected = hook(path_, written_, chunk)) {
        return ErrnoStatus(injected, "cannot write", path_);
      }
    }
    const ssize_t wrote = ::write(fd_, data, chunk);
    if (wrote < 0) {
      if (errno == EINTR) continue;
      return ErrnoStatus(errno, "cannot write", path_);
    }
    data += wrote;
    n -= static_cast<size_t>(wrote);
    written_ += static_cast<uint64_t>(wrote);
    StartWriteBack();
  }
  return IoStatus::OK();
}

// Queues what was written since the last call for the disk, every kWriteBackChunk bytes, so
// the disk writes while the save goes on instead of all at SyncAndClose's fsync (a 1 GiB save
// then waits for the disk once, not for the whole file). Asynchronous; an error here changes
// nothing, since the fsync reports any I/O error.
void FileWriter::StartWriteBack() {
  if (written_ - write_back_from_ < kWriteBackChunk) return;
  (void)::sync_file_range(fd_, static_cast<off_t>(write_back_from_),
                          static_cast<off_t>(written_ - write_back_from_), SYNC_FILE_RANGE_WRITE);
  write_back_from_ = written_;
}

IoStatus FileWriter::Append(const void* data, size_t n) {
  if (fd_ < 0) return Error(TG_FAILED_PRECONDITION, Str("'", path_, "' is closed"));
  const char* bytes = static_cast<const char*>(data);
  size_ += n;
  if (staging_ != nullptr) return AppendDirect(bytes, n);
  if (buffer_.size() + n <= kBufferSize) {
    buffer_.append(bytes, n);
    return IoStatus::OK();
  }
  SAVER_IO_RETURN_IF_ERROR(Flush());
  if (n >= kBufferSize) return WriteAll(bytes, n);
  buffer_.append(bytes, n);
  return IoStatus::OK();
}

// Direct mode hands over the whole blocks staged; the last partial block stays staged until
// SyncAndClose, which writes it through the cache.
IoStatus FileWriter::Flush() {
  if (staging_ != nullptr) return WriteStaged();
  if (buffer_.empty()) return IoStatus::OK();
  IoStatus s = WriteAll(buffer_.data(), buffer_.size());
  buffer_.clear();
  return s;
}

IoStatus FileWriter::SyncAndClose() {
  SAVER_IO_RETURN_IF_ERROR(Flush());
  if (staging_ != nullptr) SAVER_IO_RETURN_IF_ERROR(StopDirect());  // the unaligned tail
  if (::fsync(fd_) != 0) return ErrnoStatus(errno, "cannot sync", path_);
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) return ErrnoStatus(errno, "cannot close", path_);
  return IoStatus::OK();
}

// ---- FileReader ----

struct FileReader::Sink {
  const PieceFn* on_piece = nullptr;
  uint32_t* crc = nullptr;  // the CRC-32C of the pieces accepted so far

  bool empty() const { return on_piece == nullptr && crc == nullptr; }
  // Takes the read's next piece, in order; `piece_crc` is its CRC-32C where a reader thread
  // computed it already (null: computed here).
  void Accept(const char* data, size_t n, const uint32_t* piece_crc) const {
    if (on_piece != nullptr) (*on_piece)(data, n);
    if (crc != nullptr) {
      *crc = piece_crc != nullptr ? crc32c::Combine(*crc, *piece_crc, n)
                                  : crc32c::Extend(*crc, data, n);
    }
  }
};

IoStatus FileReader::Open(const std::string& path, std::unique_ptr<FileReader>* out) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoStatus(errno, "cannot open", path);
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int error = errno;
    ::close(fd);
    return ErrnoStatus(error, "cannot stat", path);
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return Error(TG_INVALID_ARGUMENT, Str("'", path, "' is not a regular file"));
  }
  out->reset(new FileReader(path, fd, static_cast<uint64_t>(st.st_size)));
  return IoStatus::OK();
}

struct FileReader::Direct {
  int fd = -1;
  size_t align = 0;         // file offsets and lengths (dio_offset_align)
  size_t memory_align = 0;  // addresses (dio_mem_align)
  // kStagingSlots buffers of staging_block bytes, for reads into unaligned memory.
  std::unique_ptr<char, FreeAligned> staging;
  size_t staging_block = 0;
  ~Direct() {
    if (fd >= 0) ::close(fd);
  }
};

FileReader::FileReader(std::string path, int fd, uint64_t size)
    : path_(std::move(path)), fd_(fd), size_(size) {}

FileReader::~FileReader() {
  if (fd_ >= 0) ::close(fd_);
}

int64_t FileReader::ReadBlock(int fd, uint64_t offset, char* dst, size_t n) const {
  if (ReadFaultHook hook = g_read_fault_hook.load()) {
    if (const int injected = hook(path_, offset, n)) return -injected;
  }
  size_t done = 0;
  while (done < n) {
    const size_t want = std::min(n - done, kMaxWriteChunk);
    const ssize_t r = ::pread(fd, dst + done, want, static_cast<off_t>(offset + done));
    if (r < 0) {
      if (errno == EINTR) continue;
      return -errno;
    }
    if (r == 0) break;  // end of file
    done += static_cast<size_t>(r);
  }
  return static_cast<int64_t>(done);
}

IoStatus FileReader::ReadBuffered(uint64_t offset, char* out, size_t n, size_t* got,
                                  const Sink& sink) const {
  // With a consumer, pieces of a block each, so that each is still in cache when consumed.
  const size_t piece = !sink.empty() ? ReadBlockSize(1) : kMaxWriteChunk;
  while (*got < n) {
    const size_t want = std::min(n - *got, piece);
    const int64_t r = ReadBlock(fd_, offset + *got, out + *got, want);
    if (r < 0) return ErrnoStatus(static_cast<int>(-r), "cannot read", path_);
    if (r > 0) sink.Accept(out + *got, static_cast<size_t>(r), nullptr);
    *got += static_cast<size_t>(r);
    if (static_cast<size_t>(r) < want) break;  // end of file
  }
  return IoStatus::OK();
}

void FileReader::ReadInPlace(int fd, size_t align, uint64_t offset, char* out, size_t n,
                             size_t* got, const Sink& sink) const {
  const size_t block = ReadBlockSize(align);
  const size_t begin = *got;
  const size_t whole = begin + (n - begin) / align * align;
  const size_t count = (whole - begin + block - 1) / block;
  if (count == 0) return;
  if (count == 1) {  // nothing to overlap with
    const int64_t r = ReadBlock(fd, offset + begin, out + begin, whole - begin);
    if (r == -EINVAL && fd != fd_) direct_failed_ = true;
    if (r != static_cast<int64_t>(whole - begin)) return;
    sink.Accept(out + begin, whole - begin, nullptr);
    *got = whole;
    return;
  }
  auto extent = [&](size_t i, size_t* at, size_t* length) {
    *at = begin + i * block;
    *length = std::min(block, whole - *at);
  };
  // A cached block is checksummed by the thread that copies it, piece by piece while each is
  // in its cache; a direct one (written to memory by the disk, in no cache) by the caller,
  // so that the readers keep the disk busy.
  const bool checksum_here = sink.crc != nullptr && fd == fd_;
  const size_t piece = std::max<size_t>(std::min(kChecksumPiece, block / 4), 1);
  std::vector<uint32_t> crcs(checksum_here ? count : 0);
  ReadAhead reads(count, kInPlaceWindow, [&](size_t i) -> int64_t {
    size_t at = 0, length = 0;
    extent(i, &at, &length);
    if (!checksum_here) return ReadBlock(fd, offset + at, out + at, length);
    uint32_t crc = 0;
    size_t done = 0;
    while (done < length) {
      const size_t want = std::min(piece, length - done);
      const int64_t r = ReadBlock(fd, offset + at + done, out + at + done, want);
      if (r < 0) return r;
      crc = crc32c::Extend(crc, out + at + done, static_cast<size_t>(r));
      done += static_cast<size_t>(r);
      if (static_cast<size_t>(r) < want) break;  // end of file
    }
    crcs[i] = crc;  // published to the caller by ReadAhead (Wait)
    return static_cast<int64_t>(done);
  });
  if (!reads.Start(kReaders)) return;
  for (size_t i = 0; i < count; ++i) {
    size_t at = 0, length = 0;
    extent(i, &at, &length);
    const int64_t r = reads.Wait(i);
    if (r != static_cast<int64_t>(length)) {
      // A direct read refused (EINVAL: the file system took the flag but not the read) stops
      // direct reads for this file; any other failure, or the end of the file, is the
      // caller's plain read's to report.
      if (r == -EINVAL && fd != fd_) direct_failed_ = true;
      return;
    }
    sink.Accept(out + at, length, checksum_here ? &crcs[i] : nullptr);
    *got = at + length;
    reads.Release(i);
  }
}

bool FileReader::SetUpDirect() const {
  if (direct_failed_) return false;
  if (direct_ != nullptr) return true;
  auto direct = std::make_unique<Direct>();
  direct->fd = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC | O_DIRECT);
  size_t align = 0;
  size_t memory_align = 0;
#ifdef STATX_DIOALIGN
  struct statx st {};
  if (direct->fd >= 0 && ::statx(direct->fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &st) == 0 &&
      (st.stx_mask & STATX_DIOALIGN) != 0 && st.stx_dio_offset_align != 0) {
    align = st.stx_dio_offset_align;
    memory_align = std::max<uint32_t>(st.stx_dio_mem_align, 1);
  }
#endif
  // Without the file system's word on alignment, direct I/O is not worth the guess.
  if (direct->fd < 0 || align == 0 || align > kMaxDirectAlign || memory_align > 4096) {
    direct_failed_ = true;
    return false;
  }
  direct->align = align;
  direct->memory_align = memory_align;
  direct_ = std::move(direct);
  return true;
}

bool FileReader::ReadDirect(uint64_t offset, char* out, size_t n, size_t* got,
                            const Sink& sink) const {
  std::lock_guard<std::mutex> lock(direct_mutex_);
  if (!SetUpDirect()) return false;
  Direct& direct = *direct_;
  const size_t align = direct.align;
  // Whole blocks at an aligned position, into an aligned address: straight into the
  // caller's memory. The unaligned tail is left to the caller's plain read.
  if (offset % align == 0 && reinterpret_cast<uintptr_t>(out) % direct.memory_align == 0) {
    ReadInPlace(direct.fd, align, offset, out, n, got, sink);
    return true;
  }
  // Otherwise the aligned window around the bytes wanted, block by block into a ring of
  // staging buffers, each block's part of the range copied out in order.
  const size_t block = ReadBlockSize(align);
  if (direct.staging == nullptr || direct.staging_block != block) {
    void* buffer = nullptr;
    if (::posix_memalign(&buffer, 4096, kStagingSlots * block) != 0) return true;
    direct.staging.reset(static_cast<char*>(buffer));
    direct.staging_block = block;
  }
  const uint64_t start = offset / align * align;
  const uint64_t end = (offset + n + align - 1) / align * align;
  const size_t count = static_cast<size_t>((end - start + block - 1) / block);
  char* staging = direct.staging.get();
  auto extent = [&](size_t i, uint64_t* at, size_t* length) {
    *at = start + i * block;
    *length = static_cast<size_t>(std::min<uint64_t>(block, end - *at));
  };
  ReadAhead reads(count, kStagingSlots, [&](size_t i) {
    uint64_t at = 0;
    size_t length = 0;
    extent(i, &at, &length);
    return ReadBlock(direct.fd, at, staging + (i % kStagingSlots) * block, length);
  });
  if (!reads.Start(kReaders)) return true;
  for (size_t i = 0; i < count; ++i) {
    uint64_t at = 0;
    size_t length = 0;
    extent(i, &at, &length);
    const int64_t r = reads.Wait(i);
    if (r < 0) {
      if (r == -EINVAL) direct_failed_ = true;
      return true;
    }
    // The block's valid bytes, [at, at + r), that fall in what is still wanted.
    const uint64_t from = offset + *got;
    const uint64_t to = std::min<uint64_t>(at + static_cast<uint64_t>(r), offset + n);
    if (to > from) {
      const size_t take = static_cast<size_t>(to - from);
      std::memcpy(out + *got, staging + (i % kStagingSlots) * block + (from - at), take);
      sink.Accept(out + *got, take, nullptr);
      *got += take;
    }
    if (static_cast<size_t>(r) < length) return true;  // end of file (or a short read)
    reads.Release(i);
  }
  return true;
}

// True when every page of [offset, offset + n) is in the page cache. Mapping the range
// without touching it reads nothing; mincore then reports residency page by page.
bool FileReader::Cached(uint64_t offset, size_t n) const {
  const auto page = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
  const uint64_t start = offset / page * page;
  const size_t length = static_cast<size_t>(offset + n - start);
  void* map = ::mmap(nullptr, length, PROT_READ, MAP_SHARED, fd_, static_cast<off_t>(start));
  if (map == MAP_FAILED) return true;  // cannot tell: read through the cache as before
  std::vector<unsigned char> resident((length + page - 1) / page);
  const bool known = ::mincore(map, length, resident.data()) == 0;
  ::munmap(map, length);
  if (!known) return true;
  for (unsigned char r : resident) {
    if ((r & 1) == 0) return false;
  }
  return true;
}

IoStatus FileReader::Read(uint64_t offset, char* out, size_t n, size_t* got,
                          const Sink& sink) const {
  *got = 0;
  if (n >= OverlapMin() && offset < size_) {
    const size_t available = static_cast<size_t>(std::min<uint64_t>(n, size_ - offset));
    // Bytes the cache lacks (a checkpoint written direct, or evicted) are read O_DIRECT;
    // what it holds is copied from it, by several reads at once too.
    if (!(DirectIoEnabled() && !Cached(offset, available) &&
          ReadDirect(offset, out, available, got, sink))) {
      ReadInPlace(fd_, 1, offset, out, available, got, sink);
    }
  }
  // The rest (all of a small read; the tail of a large one; anything after a failure).
  return ReadBuffered(offset, out, n, got, sink);
}

IoStatus FileReader::ReadUpTo(uint64_t offset, void* dst, size_t n, size_t* got) const {
  return Read(offset, static_cast<char*>(dst), n, got, Sink{});
}

// A read that wanted n bytes at `offset` where the file ends first.
static IoStatus ShortReadError(const std::string& path, uint64_t offset, size_t n, uint64_t size) {
  return Error(TG_DATA_LOSS, Str("'", path, "' is truncated: wanted ", n, " bytes at offset ",
                                 offset, ", the file has ", size, " bytes"));
}

IoStatus FileReader::ReadAt(uint64_t offset, void* dst, size_t n, const PieceFn& on_piece) const {
  size_t got = 0;
  Sink sink;
  sink.on_piece = on_piece ? &on_piece : nullptr;
  SAVER_IO_RETURN_IF_ERROR(Read(offset, static_cast<char*>(dst), n, &got, sink));
  return got == n ? IoStatus::OK() : ShortReadError(path_, offset, n, size_);
}

IoStatus FileReader::ReadAtWithCrc32c(uint64_t offset, void* dst, size_t n, uint32_t* crc) const {
  size_t got = 0;
  uint32_t running = 0;
  Sink sink;
  sink.crc = &running;
  SAVER_IO_RETURN_IF_ERROR(Read(offset, static_cast<char*>(dst), n, &got, sink));
  if (got != n) return ShortReadError(path_, offset, n, size_);
  *crc = running;
  return IoStatus::OK();
}

IoStatus FileReader::ReadAt(uint64_t offset, void* dst, size_t n) const {
  return ReadAt(offset, dst, n, PieceFn());
}

// ---- paths ----

bool FileExists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

IoStatus RenameFile(const std::string& from, const std::string& to) {
  if (::rename(from.c_str(), to.c_str()) != 0) {
    return ErrnoStatus(errno, Str("cannot rename '", from, "' to"), to);
  }
  return IoStatus::OK();
}

IoStatus RemoveFileIfExists(const std::string& path) {
  if (::unlink(path.c_str()) != 0 && errno != ENOENT) {
    return ErrnoStatus(errno, "cannot delete", path);
  }
  return IoStatus::OK();
}

IoStatus SyncDirectoryOf(const std::string& path) {
  const std::string dir = DirectoryOf(path);
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return ErrnoStatus(errno, "cannot open directory", dir);
  const int rc = ::fsync(fd);
  const int error = errno;
  ::close(fd);
  // Some file systems cannot sync a directory (EINVAL); the renames happened anyway.
  if (rc != 0 && error != EINVAL) return ErrnoStatus(error, "cannot sync directory", dir);
  return IoStatus::OK();
}

std::string TemporaryNameFor(const std::string& final_path) {
  static thread_local std::mt19937_64 generator{std::random_device{}()};
  char hex[17];
  std::snprintf(hex, sizeof(hex), "%016llx", static_cast<unsigned long long>(generator()));
  return Str(final_path, ".tempstate", hex);
}

}  // namespace tgraph::saver_io
