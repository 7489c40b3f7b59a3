#include "read_ahead.h"

#include <system_error>
#include <utility>

namespace tgraph::saver_io {

ReadAhead::ReadAhead(size_t count, size_t window, ReadFn read)
    : count_(count), window_(window == 0 ? 1 : window), read_(std::move(read)),
      result_(count, 0), done_(count, false) {}

ReadAhead::~ReadAhead() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  changed_.notify_all();
  for (std::thread& t : threads_) t.join();
}

bool ReadAhead::Start(int readers) {
  for (int i = 0; i < readers; ++i) {
    try {
      threads_.emplace_back([this] { Run(); });
    } catch (const std::system_error&) {
      break;  // fewer readers (or none: the caller reads another way)
    }
  }
  return !threads_.empty();
}

void ReadAhead::Run() {
  for (;;) {
    size_t block = 0;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      changed_.wait(lock, [this] {
        return stop_ || next_ >= count_ || next_ < released_ + window_;
      });
      if (stop_ || next_ >= count_) return;
      block = next_++;
    }
    const int64_t result = read_(block);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      result_[block] = result;
      done_[block] = true;
    }
    changed_.notify_all();
  }
}

int64_t ReadAhead::Wait(size_t block) {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [this, block] { return done_[block]; });
  return result_[block];
}

void ReadAhead::Release(size_t block) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (block + 1 > released_) released_ = block + 1;
  }
  changed_.notify_all();
}

}  // namespace tgraph::saver_io
