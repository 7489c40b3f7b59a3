// Checkpoint throughput: saving and restoring 1 GiB of float tensors (16 × 64 MiB) through
// every saver plugin in the build tree (libtgraph_saver_*.so: "safetensors", and
// "tensorflow_v2" once plugins/saver_tf is built), each against plain file I/O of the same
// bytes on the same disk, interleaved with it in the same run:
//   save    vs  write(2) of every tensor into one file + fsync
//   restore vs  read(2) of the same bytes into newly allocated buffers (as any restore
//               must: the tensors it returns do not exist before it)
// Counters: GB/s (the saver), plain_GB/s, and vs_plain = saver / plain throughput (target
// >= 0.7). Restore also reports resident_GB/s: read(2) into buffers allocated and touched
// beforehand, the copy alone, without the page faults of fresh memory (a ceiling no
// restore reaches). Restores read from the page cache (the files were just written) unless
// TGRAPH_CHECKPOINT_BENCH_COLD=1, which evicts the files (POSIX_FADV_DONTNEED) before every
// read, saver and plain alike.
//
// Environment: TGRAPH_CHECKPOINT_BENCH_DIR (default: the directory of this executable, i.e.
// the build tree's disk), TGRAPH_CHECKPOINT_BENCH_MIB (default 1024).
#include <benchmark/benchmark.h>

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "core/base/tensor.h"
#include "core/plugin/plugin_loader.h"
#include "core/plugin/registry.h"

namespace tgraph {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr int kTensors = 16;

int64_t EnvInt(const char* name, int64_t fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::atoll(v) : fallback;
}

fs::path BenchDir() {
  const char* dir = std::getenv("TGRAPH_CHECKPOINT_BENCH_DIR");
  fs::path base = dir != nullptr && *dir != '\0' ? fs::path(dir)
                                                 : fs::read_symlink("/proc/self/exe").parent_path();
  return base / ("checkpoint_bench_" + std::to_string(::getpid()));
}

bool Cold() { return EnvInt("TGRAPH_CHECKPOINT_BENCH_COLD", 0) != 0; }

// The variables: kTensors float tensors of equal size, filled (a checkpoint of zeros could
// meet a file system that skips them).
struct Variables {
  std::vector<std::string> names;
  std::vector<Tensor> tensors;
  size_t total_bytes = 0;
};

const Variables& TheVariables() {
  static const Variables* vars = [] {
    auto* v = new Variables();
    const int64_t per_tensor =
        EnvInt("TGRAPH_CHECKPOINT_BENCH_MIB", 1024) * (int64_t{1} << 20) / kTensors / 4;
    for (int i = 0; i < kTensors; ++i) {
      v->names.push_back("layer_" + std::to_string(i) + "/kernel");
      Tensor t = Tensor::Allocate(DT_FLOAT, {per_tensor}).value();
      float* f = t.flat<float>();
      for (int64_t j = 0; j < per_tensor; ++j) f[j] = static_cast<float>(j % 1000) * 0.001f + i;
      v->total_bytes += t.ByteSize();
      v->tensors.push_back(std::move(t));
    }
    return v;
  }();
  return *vars;
}

void Check(bool ok, const std::string& what) {
  if (!ok) {
    std::cerr << "checkpoint_bench: " << what << "\n";
    std::exit(1);
  }
}

// Drops the page cache's copy of every file under `dir` (clean pages only: call after fsync).
void Evict(const fs::path& dir) {
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file()) continue;
    const int fd = ::open(e.path().c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) continue;
    ::fdatasync(fd);
    (void)::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    ::close(fd);
  }
}

// ---- plain I/O: the yardstick ----

void PlainWrite(const fs::path& file, const Variables& v) {
  const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  Check(fd >= 0, "open " + file.string());
  for (const Tensor& t : v.tensors) {
    const char* p = static_cast<const char*>(t.data());
    size_t left = t.ByteSize();
    while (left > 0) {
      const ssize_t n = ::write(fd, p, left);
      Check(n > 0, "write " + file.string());
      p += n;
      left -= static_cast<size_t>(n);
    }
  }
  Check(::fsync(fd) == 0, "fsync " + file.string());
  ::close(fd);
}

// Reads the file into `buffers`, `bytes_each` bytes into each.
void PlainRead(const fs::path& file, const std::vector<char*>& buffers, size_t bytes_each) {
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  Check(fd >= 0, "open " + file.string());
  for (char* buffer : buffers) {
    char* p = buffer;
    size_t left = bytes_each;
    while (left > 0) {
      const ssize_t n = ::read(fd, p, left);
      Check(n > 0, "read " + file.string());
      p += n;
      left -= static_cast<size_t>(n);
    }
  }
  ::close(fd);
}

double Seconds(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

void Report(benchmark::State& state, size_t bytes, double saver_s, double plain_s) {
  const double total = static_cast<double>(bytes) * static_cast<double>(state.iterations());
  state.counters["GB/s"] = total / saver_s / 1e9;
  state.counters["plain_GB/s"] = total / plain_s / 1e9;
  state.counters["vs_plain"] = plain_s / saver_s;
  state.SetBytesProcessed(static_cast<int64_t>(total));
}

// The checkpoint prefix of `format` in `dir`: the file itself for a saver with a file
// extension, else a prefix its files are named after.
std::string PrefixFor(const SaverRegistration& saver, const fs::path& dir) {
  const char* ext = saver.def.file_extension;
  return (dir / (std::string("model") + (ext != nullptr ? ext : ""))).string();
}

void BM_Save(benchmark::State& state, const SaverRegistration* saver) {
  const Variables& v = TheVariables();
  const fs::path dir = BenchDir() / saver->format;
  fs::create_directories(dir / "plain");
  const std::string prefix = PrefixFor(*saver, dir);
  double saver_s = 0, plain_s = 0;
  int round = 0;
  for (auto _ : state) {
    // Alternating which goes first, so neither always meets the other's writeback.
    for (int k = 0; k < 2; ++k) {
      if ((k + round) % 2 == 0) {
        const auto t0 = Clock::now();
        Status s = saver->Save(prefix, v.names, v.tensors);
        const auto t1 = Clock::now();
        Check(s.ok(), s.ToString());
        saver_s += Seconds(t0, t1);
        state.SetIterationTime(Seconds(t0, t1));
      } else {
        const auto t0 = Clock::now();
        PlainWrite(dir / "plain" / "model.bin", v);
        plain_s += Seconds(t0, Clock::now());
      }
    }
    ++round;
  }
  Report(state, v.total_bytes, saver_s, plain_s);
  fs::remove_all(dir);
}

void BM_Restore(benchmark::State& state, const SaverRegistration* saver) {
  const Variables& v = TheVariables();
  const fs::path dir = BenchDir() / saver->format;
  fs::create_directories(dir / "plain");
  const std::string prefix = PrefixFor(*saver, dir);
  Check(saver->Save(prefix, v.names, v.tensors).ok(), "save before restore");
  const fs::path plain_file = dir / "plain" / "model.bin";
  PlainWrite(plain_file, v);
  const size_t bytes_each = v.tensors[0].ByteSize();
  std::vector<char*> resident;
  for (int i = 0; i < kTensors; ++i) {
    resident.push_back(static_cast<char*>(std::aligned_alloc(64, bytes_each)));
    std::memset(resident.back(), 1, bytes_each);  // faulted in: read(2) only copies
  }
  const bool cold = Cold();
  double saver_s = 0, plain_s = 0, resident_s = 0;
  int round = 0;
  for (auto _ : state) {
    for (int k = 0; k < 3; ++k) {
      if (cold) Evict(dir);
      if (k == 2) {
        const auto t0 = Clock::now();
        PlainRead(plain_file, resident, bytes_each);
        resident_s += Seconds(t0, Clock::now());
      } else if ((k + round) % 2 == 0) {
        std::vector<Tensor> restored;
        const auto t0 = Clock::now();
        Status s = saver->Restore(prefix, v.names, &restored);
        const auto t1 = Clock::now();
        Check(s.ok(), s.ToString());
        Check(restored.size() == v.tensors.size() &&
                  std::memcmp(restored.back().data(), v.tensors.back().data(),
                              bytes_each) == 0,
              "restored data differs");
        saver_s += Seconds(t0, t1);
        state.SetIterationTime(Seconds(t0, t1));
      } else {
        const auto t0 = Clock::now();
        std::vector<char*> fresh;
        for (int i = 0; i < kTensors; ++i) {
          fresh.push_back(static_cast<char*>(std::aligned_alloc(64, bytes_each)));
        }
        PlainRead(plain_file, fresh, bytes_each);
        plain_s += Seconds(t0, Clock::now());
        for (char* p : fresh) std::free(p);
      }
    }
    ++round;
  }
  Report(state, v.total_bytes, saver_s, plain_s);
  state.counters["resident_GB/s"] = static_cast<double>(v.total_bytes) *
                                    static_cast<double>(state.iterations()) / resident_s / 1e9;
  for (char* p : resident) std::free(p);
  fs::remove_all(dir);
}

// Every saver plugin of the build tree (libtgraph_saver_*.so in TGRAPH_BENCH_PLUGIN_DIR).
void LoadSaverPlugins() {
  for (const auto& e : fs::directory_iterator(TGRAPH_BENCH_PLUGIN_DIR)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("libtgraph_saver_", 0) != 0 || e.path().extension() != ".so") continue;
    auto loaded = LoadPlugin(e.path().string());
    Check(loaded.ok(), loaded.status().ToString());
  }
}

}  // namespace
}  // namespace tgraph

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  tgraph::LoadSaverPlugins();
  for (const std::string& format : tgraph::SaverRegistry::Global()->Formats()) {
    const tgraph::SaverRegistration* saver = tgraph::SaverRegistry::Global()->Find(format);
    for (auto* b : {benchmark::RegisterBenchmark(("BM_Save/" + format).c_str(),
                                                 tgraph::BM_Save, saver),
                    benchmark::RegisterBenchmark(("BM_Restore/" + format).c_str(),
                                                 tgraph::BM_Restore, saver)}) {
      b->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(3);
    }
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  std::error_code ec;
  std::filesystem::remove_all(tgraph::BenchDir(), ec);
  return 0;
}
