// Plain POSIX file access for the saver plugins (plugins/saver_tf and plugins/saver_safetensors
// link it): sequential writes that can be fsynced, positioned reads, renames and directory
// syncs, each failure an IoStatus naming the file.
//
// Two ways to write. Buffered (the index, and any file where direct I/O is unavailable): small
// appends are gathered in a buffer, large ones go straight from the caller's memory to the
// page cache, and every 8 MiB written is queued for the disk at once (sync_file_range) so the
// final fsync has little left to wait for. Direct (the data file, by default): O_DIRECT, the
// disk reading the bytes by DMA, straight from the caller's memory where it and the file
// position are aligned (the core's large tensors are page-aligned) and through an aligned
// staging buffer otherwise; the page cache is never filled. On a VM whose guest page cache is
// slow to grow (the project's machine: a buffered 1 GiB write took 0.6-8.6 s with the load,
// the same bytes written O_DIRECT and fsynced 0.65-1 s), a durable direct save is faster than
// a buffered one that does not even sync. The unaligned tail of the file is written buffered
// at the end, and the fsync makes it all durable either way.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "io_status.h"

namespace tgraph::saver_io {

// The TensorFlow code for an errno value (ENOENT and ENOTDIR → NOT_FOUND, ENOSPC and EMFILE →
// RESOURCE_EXHAUSTED, EACCES → PERMISSION_DENIED, ...): the one mapping of both saver plugins.
TG_Code CodeForErrno(int error);

// Frees what posix_memalign allocated (the direct-I/O staging buffers).
struct FreeAligned {
  void operator()(char* p) const;
};

class FileWriter {
 public:
  enum class Mode {
    kBuffered,
    // O_DIRECT through a staging buffer where the file system allows it (and direct I/O is
    // enabled: DirectIoEnabled), buffered otherwise, including when a direct write is
    // refused half-way (EINVAL): the file's bytes are the same either way.
    kDirectIfPossible,
  };
  // Creates `path` (truncating it) for writing.
  static IoStatus Create(const std::string& path, std::unique_ptr<FileWriter>* out,
                             Mode mode = Mode::kBuffered);
  ~FileWriter();  // closes without syncing (an abandoned temporary file)
  FileWriter(const FileWriter&) = delete;
  FileWriter& operator=(const FileWriter&) = delete;

  IoStatus Append(const void* data, size_t n);
  IoStatus Flush();
  // Flushes, fsyncs and closes; the file is complete on disk when this returns OK.
  IoStatus SyncAndClose();

  const std::string& path() const { return path_; }
  uint64_t size() const { return size_; }  // bytes appended so far
  // True while writes go O_DIRECT (false once a fallback to buffered writes happened).
  bool direct() const { return staging_ != nullptr; }

 private:
  FileWriter(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  // Sets up the staging buffer when the file was opened O_DIRECT and the file system says
  // how to align (statx STATX_DIOALIGN); otherwise turns O_DIRECT off.
  void SetUpDirect();
  // Turns O_DIRECT off for good: what is staged is then written buffered.
  IoStatus StopDirect();
  IoStatus AppendDirect(const char* data, size_t n);
  IoStatus WriteDirect(const char* p, size_t n, size_t* done, bool* give_up);
  // Writes the staging buffer's whole aligned blocks O_DIRECT; what is left (less than a
  // block) moves to its front.
  IoStatus WriteStaged();
  IoStatus WriteAll(const char* data, size_t n);
  void StartWriteBack();

  static constexpr uint64_t kWriteBackChunk = 8u << 20;
  static constexpr size_t kStagingSize = size_t{8} << 20;

  std::string path_;
  int fd_ = -1;
  uint64_t size_ = 0;     // appended (buffered or written)
  uint64_t written_ = 0;  // handed to the kernel
  uint64_t write_back_from_ = 0;  // queued for the disk up to here (StartWriteBack)
  std::string buffer_;
  // Direct mode: kStagingSize bytes, page-aligned, staged_ of them filled.
  std::unique_ptr<char, FreeAligned> staging_;
  size_t staged_ = 0;
  size_t align_ = 0;         // file offsets and lengths of direct writes (dio_offset_align)
  size_t memory_align_ = 0;  // addresses of direct writes (dio_mem_align)
};

// Whether FileWriter::Mode::kDirectIfPossible may use O_DIRECT: yes, unless the environment
// sets TGRAPH_SAVER_DIRECT_IO=0 (to compare with buffered writes, or for a file system whose
// direct I/O misbehaves) or a test turned it off.
bool DirectIoEnabled();
// Test seam: overrides the environment for this process (-1: back to the environment).
void SetDirectIoForTesting(int enabled);

// Reads: a large read (a tensor's bytes) whose pages are not all in the page cache (mincore)
// goes O_DIRECT, so a checkpoint that a direct save just wrote, or one evicted since, does not
// go through the slow cache either (on the project's VM a cold 1 GiB read took 1-12 s
// buffered, about 1 s direct). Large reads, direct or cached, are split into blocks of 8 MiB
// read by two threads at once (ReadAhead, read_ahead.h); the caller's `on_piece` runs over each
// block in order as soon as it is in place, while the next ones are still read. A read with
// its CRC-32C (ReadAtWithCrc32c) checksums a cached block on the reader thread that copies it,
// 256 KiB at a time right after each copy while the bytes are in that core's cache (the caller's
// thread only joins the blocks' CRCs, crc32c::Combine); a direct block, which the disk wrote
// to memory, on the caller's thread behind the reads. Direct reads land in the caller's memory
// where it and the offset are aligned, in a ring of aligned staging buffers (copied out in
// order) otherwise. Small reads, and every read where direct I/O is unavailable or disabled,
// are plain preads; any failure of a direct or overlapped read leaves the rest to a plain
// pread loop, which reports real errors naming the file.
class FileReader {
 public:
  // A consumer of the bytes read: called with consecutive pieces of the destination, in
  // order, each once it holds the file's bytes.
  using PieceFn = std::function<void(const char* data, size_t size)>;

  // NOT_FOUND naming `path` when it does not exist.
  static IoStatus Open(const std::string& path, std::unique_ptr<FileReader>* out);
  ~FileReader();  // out of line: Direct is incomplete here
  FileReader(const FileReader&) = delete;
  FileReader& operator=(const FileReader&) = delete;

  // Reads exactly n bytes at `offset`; DATA_LOSS naming the file when it ends first.
  IoStatus ReadAt(uint64_t offset, void* dst, size_t n) const;
  // The same, handing the bytes to on_piece as they arrive (all n of them when it is OK).
  IoStatus ReadAt(uint64_t offset, void* dst, size_t n, const PieceFn& on_piece) const;
  // The same, with the CRC-32C of the n bytes (crc32c::Value) in *crc when it is OK.
  IoStatus ReadAtWithCrc32c(uint64_t offset, void* dst, size_t n, uint32_t* crc) const;
  // Reads up to n bytes at `offset` into dst; *got is how many were there.
  IoStatus ReadUpTo(uint64_t offset, void* dst, size_t n, size_t* got) const;

  const std::string& path() const { return path_; }
  uint64_t size() const { return size_; }

 private:
  struct Direct;  // the O_DIRECT descriptor and its staging buffers, made on first use
  struct Sink;    // where a read's pieces go: the caller's PieceFn, a running CRC, or nothing

  FileReader(std::string path, int fd, uint64_t size);
  IoStatus Read(uint64_t offset, char* dst, size_t n, size_t* got, const Sink& sink) const;
  bool Cached(uint64_t offset, size_t n) const;
  // pread of `n` bytes at `offset` on `fd` (EINTR and partial reads retried, the read fault
  // hook consulted): the bytes read (fewer at the end of the file), or -errno.
  int64_t ReadBlock(int fd, uint64_t offset, char* dst, size_t n) const;
  IoStatus ReadBuffered(uint64_t offset, char* dst, size_t n, size_t* got,
                        const Sink& sink) const;
  // Reads [offset + *got, offset + n) in blocks, several in flight, straight into dst, from
  // `fd` (buffered, or direct with `align`ed offsets, lengths and addresses); stops at the
  // first block that fails or comes short, leaving the rest to the caller.
  void ReadInPlace(int fd, size_t align, uint64_t offset, char* dst, size_t n, size_t* got,
                   const Sink& sink) const;
  // Reads what it can of [offset, offset + n) O_DIRECT into dst; false (and *got untouched)
  // where direct reads are unavailable, so the caller reads through the cache instead.
  bool ReadDirect(uint64_t offset, char* dst, size_t n, size_t* got, const Sink& sink) const;
  bool SetUpDirect() const;

  std::string path_;
  int fd_ = -1;
  uint64_t size_ = 0;
  mutable std::mutex direct_mutex_;
  mutable std::unique_ptr<Direct> direct_;
  mutable bool direct_failed_ = false;
};

bool FileExists(const std::string& path);
IoStatus RenameFile(const std::string& from, const std::string& to);
// Removes `path`; a file that is not there is fine.
IoStatus RemoveFileIfExists(const std::string& path);
// fsyncs the directory holding `path`, so that renames into it are durable.
IoStatus SyncDirectoryOf(const std::string& path);
// A fresh temporary name next to `final_path` ("<final_path>.tempstate<random hex>").
std::string TemporaryNameFor(const std::string& final_path);

// Test seam: when set, every write to a file calls hook(path, offset, n) first; a non-zero
// return fails that write with that errno (tests inject ENOSPC or EIO half-way through a
// save). Process-wide; only unit tests that link these sources directly set it.
using WriteFaultHook = int (*)(const std::string& path, uint64_t offset, size_t n);
void SetWriteFaultHookForTesting(WriteFaultHook hook);
// The same for reads: every pread of a file (direct, overlapped or plain) calls hook(path,
// offset, n) first; a non-zero return fails that read with that errno.
using ReadFaultHook = int (*)(const std::string& path, uint64_t offset, size_t n);
void SetReadFaultHookForTesting(ReadFaultHook hook);
// Test seam: the block size of large reads (0: the default, 8 MiB), so that tests cross many
// block boundaries with small files. Rounded up to the direct-I/O alignment; reads of two
// blocks or more are then overlapped (by default: of 2 MiB or more).
void SetReadBlockSizeForTesting(size_t bytes);

}  // namespace tgraph::saver_io
