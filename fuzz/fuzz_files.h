// Scratch files for fuzz targets whose code under test reads paths: one private directory per
// process (removed at exit), files overwritten for each input. In $TMPDIR when it is set, else
// in /dev/shm where it exists (memory: a disk file system makes each input wait on the disk,
// ext4 writing back every file that is truncated and rewritten), else in /tmp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace tgraph::fuzz {

class ScratchDir {
 public:
  ScratchDir() {
    const char* tmp = std::getenv("TMPDIR");
    const bool tmpdir_set = tmp != nullptr && *tmp != '\0';
    for (const char* base : {tmpdir_set ? tmp : "/dev/shm", "/tmp"}) {
      std::string pattern = std::string(base) + "/tgraph_fuzz_XXXXXX";
      if (mkdtemp(pattern.data()) != nullptr) {
        path_ = pattern;
        return;
      }
    }
    std::abort();  // the harness itself, not the input
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  // Writes `size` bytes to the file `name` in the directory; returns its path.
  std::string Write(const std::string& name, const uint8_t* data, size_t size) const {
    const std::string file = path_ + "/" + name;
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    if (!out) std::abort();
    return file;
  }
  std::string Path(const std::string& name) const { return path_ + "/" + name; }
  void Remove(const std::string& name) const {
    std::error_code ec;
    std::filesystem::remove(path_ + "/" + name, ec);
  }

 private:
  std::string path_;
};

// The process's scratch directory (created on first use, removed when the process exits).
inline const ScratchDir& Scratch() {
  static const ScratchDir dir;
  return dir;
}

}  // namespace tgraph::fuzz
