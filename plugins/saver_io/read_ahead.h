// Several reads of one large range in flight at once, the caller consuming the blocks in
// order behind them: while reader threads read blocks i+1, i+2, ... the caller checksums or
// copies block i. On the project's VM a single 8 MiB O_DIRECT read at a time, with the CRC
// and the destination's page faults in between, read 1 GiB at 0.38-0.53 GB/s; two reads in
// flight, the CRC alongside, 0.63-0.82 GB/s (dd, one buffer and no CRC: 0.85-1.1 GB/s).
//
// Generic: `read(i)` reads block i (the caller knows where it goes) and returns the bytes
// read or -errno. At most `window` blocks are read ahead of the last one released, so
// blocks read into a ring of staging buffers are not overwritten before they are consumed.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace tgraph::saver_io {

class ReadAhead {
 public:
  using ReadFn = std::function<int64_t(size_t block)>;

  ReadAhead(size_t count, size_t window, ReadFn read);
  // Stops handing out blocks and waits for the reads under way: nothing is written into the
  // caller's memory once this returns.
  ~ReadAhead();
  ReadAhead(const ReadAhead&) = delete;
  ReadAhead& operator=(const ReadAhead&) = delete;

  // Starts up to `readers` threads; false when none could start (then nothing is read).
  bool Start(int readers);
  // Waits for block i (blocks are waited for in order) and returns what read(i) returned.
  int64_t Wait(size_t block);
  // The caller is done with blocks up to and including `block`: their buffers may be reused.
  void Release(size_t block);

 private:
  void Run();

  const size_t count_;
  const size_t window_;
  const ReadFn read_;
  std::mutex mutex_;
  std::condition_variable changed_;
  size_t next_ = 0;      // the next block to hand out
  size_t released_ = 0;  // blocks [0, released_) are consumed
  bool stop_ = false;
  std::vector<int64_t> result_;
  std::vector<bool> done_;
  std::vector<std::thread> threads_;
};

}  // namespace tgraph::saver_io
