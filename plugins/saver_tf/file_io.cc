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

namespace tgraph::saver_tf {
namespace {

// Appends at least this large go straight from the caller's memory to the file.
constexpr size_t kBufferSize = 1 << 20;
// Reads at least this large try the page cache, then O_DIRECT (FileReader).
constexpr size_t kDirectReadMin = 1 << 20;
constexpr size_t kReadStagingSize = size_t{8} << 20;
// One write() call writes at most this much (Linux caps a write at about 2 GiB anyway).
constexpr size_t kMaxWriteChunk = size_t{1} << 30;

std::atomic<WriteFaultHook> g_write_fault_hook{nullptr};
std::atomic<int> g_direct_io_for_testing{-1};

BundleStatus ErrnoStatus(int error, const std::string& what, const std::string& path) {
  return Error(CodeForErrno(error), Str(what, " '", path, "': ", std::strerror(error)));
}

std::string DirectoryOf(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

}  // namespace

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
      return TG_RESOURCE_EXHAUSTED;
    case EEXIST:
      return TG_ALREADY_EXISTS;
    case EISDIR:
    case ENAMETOOLONG:
    case EINVAL:
      return TG_INVALID_ARGUMENT;
    default:
      return TG_UNKNOWN;
  }
}

void SetWriteFaultHookForTesting(WriteFaultHook hook) { g_write_fault_hook.store(hook); }

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

BundleStatus FileWriter::Create(const std::string& path, std::unique_ptr<FileWriter>* out,
                                Mode mode) {
  const bool direct = mode == Mode::kDirectIfPossible && DirectIoEnabled();
  constexpr int kFlags = O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC;
  int fd = ::open(path.c_str(), kFlags | (direct ? O_DIRECT : 0), 0644);
  // A file system without direct I/O refuses the flag (EINVAL): write through the cache.
  if (fd < 0 && direct && errno == EINVAL) fd = ::open(path.c_str(), kFlags, 0644);
  if (fd < 0) return ErrnoStatus(errno, "cannot create", path);
  out->reset(new FileWriter(path, fd));
  if (direct) (*out)->SetUpDirect();
  return BundleStatus::OK();
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

BundleStatus FileWriter::StopDirect() {
  const int flags = ::fcntl(fd_, F_GETFL);
  if (flags < 0 || ::fcntl(fd_, F_SETFL, flags & ~O_DIRECT) != 0) {
    return ErrnoStatus(errno, "cannot turn off direct I/O on", path_);
  }
  if (staging_ == nullptr) return BundleStatus::OK();
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
BundleStatus FileWriter::AppendDirect(const char* data, size_t n) {
  while (n > 0) {
    if (staged_ % align_ == 0 && n >= align_ &&
        reinterpret_cast<uintptr_t>(data) % memory_align_ == 0) {
      SAVER_TF_RETURN_IF_ERROR(WriteStaged());  // all of it: it is whole blocks
      if (staging_ == nullptr) return WriteAll(data, n);
      const size_t whole = n / align_ * align_;
      size_t done = 0;
      bool give_up = false;
      SAVER_TF_RETURN_IF_ERROR(WriteDirect(data, whole, &done, &give_up));
      data += done;
      n -= done;
      if (give_up) {
        SAVER_TF_RETURN_IF_ERROR(StopDirect());  // nothing is staged
        return WriteAll(data, n);
      }
      continue;
    }
    const size_t take = std::min(n, kStagingSize - staged_);
    std::memcpy(staging_.get() + staged_, data, take);
    staged_ += take;
    data += take;
    n -= take;
    if (staged_ == kStagingSize) SAVER_TF_RETURN_IF_ERROR(WriteStaged());
    if (staging_ == nullptr) return WriteAll(data, n);  // fell back to buffered writes
  }
  return BundleStatus::OK();
}

// Writes [p, p + n) O_DIRECT (n whole blocks, p aligned); *done is what got written. Sets
// *give_up, leaving the rest, where direct I/O cannot go on: a file system that takes the
// flag but not the write (EINVAL), or a short write that left the position unaligned.
BundleStatus FileWriter::WriteDirect(const char* p, size_t n, size_t* done, bool* give_up) {
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
      return BundleStatus::OK();
    }
    *done += static_cast<size_t>(wrote);
    written_ += static_cast<uint64_t>(wrote);
    if (*done % align_ != 0) {
      *give_up = true;
      return BundleStatus::OK();
    }
  }
  return BundleStatus::OK();
}

BundleStatus FileWriter::WriteStaged() {
  const size_t whole = staged_ / align_ * align_;
  if (whole == 0) return BundleStatus::OK();
  size_t done = 0;
  bool give_up = false;
  BundleStatus s = WriteDirect(staging_.get(), whole, &done, &give_up);
  std::memmove(staging_.get(), staging_.get() + done, staged_ - done);
  staged_ -= done;
  if (!s.ok()) return s;
  return give_up ? StopDirect() : BundleStatus::OK();  // StopDirect writes what is staged
}

FileWriter::~FileWriter() {
  if (fd_ >= 0) ::close(fd_);
}

BundleStatus FileWriter::WriteAll(const char* data, size_t n) {
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
  return BundleStatus::OK();
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

BundleStatus FileWriter::Append(const void* data, size_t n) {
  if (fd_ < 0) return Error(TG_FAILED_PRECONDITION, Str("'", path_, "' is closed"));
  const char* bytes = static_cast<const char*>(data);
  size_ += n;
  if (staging_ != nullptr) return AppendDirect(bytes, n);
  if (buffer_.size() + n <= kBufferSize) {
    buffer_.append(bytes, n);
    return BundleStatus::OK();
  }
  SAVER_TF_RETURN_IF_ERROR(Flush());
  if (n >= kBufferSize) return WriteAll(bytes, n);
  buffer_.append(bytes, n);
  return BundleStatus::OK();
}

// Direct mode hands over the whole blocks staged; the last partial block stays staged until
// SyncAndClose, which writes it through the cache.
BundleStatus FileWriter::Flush() {
  if (staging_ != nullptr) return WriteStaged();
  if (buffer_.empty()) return BundleStatus::OK();
  BundleStatus s = WriteAll(buffer_.data(), buffer_.size());
  buffer_.clear();
  return s;
}

BundleStatus FileWriter::SyncAndClose() {
  SAVER_TF_RETURN_IF_ERROR(Flush());
  if (staging_ != nullptr) SAVER_TF_RETURN_IF_ERROR(StopDirect());  // the unaligned tail
  if (::fsync(fd_) != 0) return ErrnoStatus(errno, "cannot sync", path_);
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) return ErrnoStatus(errno, "cannot close", path_);
  return BundleStatus::OK();
}

// ---- FileReader ----

BundleStatus FileReader::Open(const std::string& path, std::unique_ptr<FileReader>* out) {
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
  return BundleStatus::OK();
}

struct FileReader::Direct {
  int fd = -1;
  size_t align = 0;         // file offsets and lengths (dio_offset_align)
  size_t memory_align = 0;  // addresses (dio_mem_align)
  std::unique_ptr<char, FreeAligned> staging;
  ~Direct() {
    if (fd >= 0) ::close(fd);
  }
};

FileReader::FileReader(std::string path, int fd, uint64_t size)
    : path_(std::move(path)), fd_(fd), size_(size) {}

FileReader::~FileReader() {
  if (fd_ >= 0) ::close(fd_);
}

BundleStatus FileReader::ReadBuffered(uint64_t offset, char* out, size_t n, size_t* got) const {
  while (*got < n) {
    const size_t want = n - *got < kMaxWriteChunk ? n - *got : kMaxWriteChunk;
    const ssize_t r = ::pread(fd_, out + *got, want, static_cast<off_t>(offset + *got));
    if (r < 0) {
      if (errno == EINTR) continue;
      return ErrnoStatus(errno, "cannot read", path_);
    }
    if (r == 0) break;  // end of file
    *got += static_cast<size_t>(r);
  }
  return BundleStatus::OK();
}

bool FileReader::ReadDirect(uint64_t offset, char* out, size_t n, size_t* got) const {
  std::lock_guard<std::mutex> lock(direct_mutex_);
  if (direct_failed_) return false;
  if (direct_ == nullptr) {
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
    void* buffer = nullptr;
    if (direct->fd < 0 || align == 0 || align > kReadStagingSize ||
        kReadStagingSize % align != 0 || memory_align > 4096 ||
        ::posix_memalign(&buffer, 4096, kReadStagingSize) != 0) {
      direct_failed_ = true;
      return false;
    }
    direct->staging.reset(static_cast<char*>(buffer));
    direct->align = align;
    direct->memory_align = memory_align;
    direct_ = std::move(direct);
  }
  const size_t align = direct_->align;
  char* staging = direct_->staging.get();
  while (*got < n) {
    const uint64_t pos = offset + *got;
    // Whole blocks at an aligned position, into an aligned address: straight into the
    // caller's memory, in one read whose requests the block layer keeps in flight together.
    if (pos % align == 0 && n - *got >= align &&
        reinterpret_cast<uintptr_t>(out + *got) % direct_->memory_align == 0) {
      const size_t whole = std::min((n - *got) / align * align, kMaxWriteChunk);
      const ssize_t r = ::pread(direct_->fd, out + *got, whole, static_cast<off_t>(pos));
      if (r < 0 && errno == EINTR) continue;
      if (r < 0) {
        if (errno == EINVAL) direct_failed_ = true;
        return true;
      }
      *got += static_cast<size_t>(r);
      if (static_cast<size_t>(r) < whole) return true;  // end of file (or a short read)
      continue;
    }
    // Otherwise the aligned window around the next bytes wanted, at most the staging buffer.
    const uint64_t start = pos / align * align;
    const uint64_t end = std::min<uint64_t>((pos + (n - *got) + align - 1) / align * align,
                                            start + kReadStagingSize);
    const ssize_t r = ::pread(direct_->fd, staging, static_cast<size_t>(end - start),
                              static_cast<off_t>(start));
    if (r < 0 && errno == EINTR) continue;
    // Any failure (EINVAL from a file system that took the flag but not the read, an I/O
    // error) leaves the rest to the buffered read, which reports real errors.
    if (r < 0) {
      if (errno == EINVAL) direct_failed_ = true;
      return true;
    }
    if (static_cast<uint64_t>(r) <= pos - start) return true;  // end of file
    const size_t take = std::min<size_t>(static_cast<size_t>(r) - (pos - start), n - *got);
    std::memcpy(out + *got, staging + (pos - start), take);
    *got += take;
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

BundleStatus FileReader::ReadUpTo(uint64_t offset, void* dst, size_t n, size_t* got) const {
  char* out = static_cast<char*>(dst);
  *got = 0;
  // A large read of bytes the cache lacks (a checkpoint written direct, or evicted) goes
  // O_DIRECT; what the cache holds is copied from it.
  if (n >= kDirectReadMin && DirectIoEnabled() && offset < size_ &&
      !Cached(offset, static_cast<size_t>(std::min<uint64_t>(n, size_ - offset)))) {
    (void)ReadDirect(offset, out, n, got);
  }
  return ReadBuffered(offset, out, n, got);
}

BundleStatus FileReader::ReadAt(uint64_t offset, void* dst, size_t n) const {
  size_t got = 0;
  SAVER_TF_RETURN_IF_ERROR(ReadUpTo(offset, dst, n, &got));
  if (got != n) {
    return Error(TG_DATA_LOSS, Str("'", path_, "' is truncated: wanted ", n, " bytes at offset ",
                                   offset, ", the file has ", size_, " bytes"));
  }
  return BundleStatus::OK();
}

// ---- paths ----

bool FileExists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

BundleStatus RenameFile(const std::string& from, const std::string& to) {
  if (::rename(from.c_str(), to.c_str()) != 0) {
    return ErrnoStatus(errno, Str("cannot rename '", from, "' to"), to);
  }
  return BundleStatus::OK();
}

BundleStatus RemoveFileIfExists(const std::string& path) {
  if (::unlink(path.c_str()) != 0 && errno != ENOENT) {
    return ErrnoStatus(errno, "cannot delete", path);
  }
  return BundleStatus::OK();
}

BundleStatus SyncDirectoryOf(const std::string& path) {
  const std::string dir = DirectoryOf(path);
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return ErrnoStatus(errno, "cannot open directory", dir);
  const int rc = ::fsync(fd);
  const int error = errno;
  ::close(fd);
  // Some file systems cannot sync a directory (EINVAL); the renames happened anyway.
  if (rc != 0 && error != EINVAL) return ErrnoStatus(error, "cannot sync directory", dir);
  return BundleStatus::OK();
}

std::string TemporaryNameFor(const std::string& final_path) {
  static thread_local std::mt19937_64 generator{std::random_device{}()};
  char hex[17];
  std::snprintf(hex, sizeof(hex), "%016llx", static_cast<unsigned long long>(generator()));
  return Str(final_path, ".tempstate", hex);
}

}  // namespace tgraph::saver_tf
