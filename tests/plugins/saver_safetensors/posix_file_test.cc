// A save is atomic: when writing fails half-way (here: the file size limit, as a full disk
// would), the checkpoint already at the path stays whole and restorable, and no temporary
// file is left behind.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/resource.h>

#include <string>
#include <vector>

#include "safetensors_test_util.h"

namespace tgraph::testing {
namespace {

// Lowers the process's file size limit (RLIMIT_FSIZE) for the scope: writes past it fail
// with EFBIG. SIGXFSZ, which would kill the process, is ignored meanwhile.
class ScopedFileSizeLimit {
 public:
  explicit ScopedFileSizeLimit(rlim_t bytes) {
    getrlimit(RLIMIT_FSIZE, &saved_);
    old_handler_ = signal(SIGXFSZ, SIG_IGN);
    rlimit lowered = saved_;
    lowered.rlim_cur = bytes;
    ok_ = setrlimit(RLIMIT_FSIZE, &lowered) == 0;
  }
  ~ScopedFileSizeLimit() {
    setrlimit(RLIMIT_FSIZE, &saved_);
    signal(SIGXFSZ, old_handler_);
  }
  bool ok() const { return ok_; }

 private:
  rlimit saved_{};
  sighandler_t old_handler_ = SIG_DFL;
  bool ok_ = false;
};

TEST(SafetensorsAtomicSave, FailedWriteKeepsThePreviousCheckpoint) {
  const SaverRegistration* saver = SafetensorsSaver();
  ASSERT_NE(saver, nullptr);
  ScratchDir dir;
  const std::string path = dir / "model.safetensors";
  const Tensor before = PatternTensor(DT_FLOAT, {1000}, 1);
  ASSERT_TRUE(saver->Save(path, {"w"}, {before}).ok());
  const std::string bytes_before = ReadFile(path);

  Status s;
  {
    ScopedFileSizeLimit limit(64 * 1024);
    ASSERT_TRUE(limit.ok());
    s = saver->Save(path, {"w"}, {PatternTensor(DT_FLOAT, {1 << 20}, 2)});  // 4 MiB
  }
  EXPECT_EQ(s.code(), Code::kResourceExhausted) << s.ToString();
  EXPECT_NE(s.message().find(path), std::string::npos) << s.ToString();

  EXPECT_EQ(dir.Files(), std::vector<std::string>{"model.safetensors"})
      << "no temporary file is left";
  EXPECT_EQ(ReadFile(path), bytes_before);
  std::vector<Tensor> out;
  ASSERT_TRUE(saver->Restore(path, {"w"}, &out).ok());
  EXPECT_TRUE(SameBytes(out[0], before));
}

TEST(SafetensorsAtomicSave, LeftoverTemporaryFilesAreNotWrittenInto) {
  const SaverRegistration* saver = SafetensorsSaver();
  ASSERT_NE(saver, nullptr);
  ScratchDir dir;
  const std::string path = dir / "model.safetensors";
  // What a save killed half-way leaves: a temporary file next to the checkpoint. A later
  // save neither reads, nor reuses, nor is confused by it.
  WriteFile(path + ".tmp-1-0", "partial");
  const Tensor t = PatternTensor(DT_INT32, {7}, 3);
  ASSERT_TRUE(saver->Save(path, {"t"}, {t}).ok());
  std::vector<Tensor> out;
  ASSERT_TRUE(saver->Restore(path, {"t"}, &out).ok());
  EXPECT_TRUE(SameBytes(out[0], t));
  EXPECT_EQ(ReadFile(path + ".tmp-1-0"), "partial");
}

}  // namespace
}  // namespace tgraph::testing
