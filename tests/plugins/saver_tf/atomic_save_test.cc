// A save that fails half-way (an injected write error: a full disk, an I/O error) leaves the
// checkpoint already at the prefix whole and no file of its own behind.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cerrno>

#include "bundle_test_util.h"
#include "file_io.h"

namespace tgraph::saver_tf {
namespace {

using testing::BytesOf;
using testing::ReadRawTensor;
using testing::SaveRaw;
using testing::ScratchDir;

// Fails the first write to a file whose name contains g_fail_in, once g_fail_after bytes of
// it were written.
std::string g_fail_in;
uint64_t g_fail_after = 0;
int g_fail_errno = ENOSPC;

int FailingWrite(const std::string& path, uint64_t offset, size_t n) {
  if (path.find(g_fail_in) == std::string::npos) return 0;
  return offset + n > g_fail_after ? g_fail_errno : 0;
}

class AtomicSave : public ::testing::Test {
 protected:
  void SetUp() override {
    old_ = std::vector<float>(1000, 1.5f);
    ASSERT_TRUE(SaveRaw(prefix_, {{"w", TG_FLOAT, {1000}, BytesOf(old_)}}).ok());
    files_before_ = dir_.Files();
  }
  void TearDown() override { SetWriteFaultHookForTesting(nullptr); }

  // Saves new values over the checkpoint with a fault injected; the save must fail with
  // `code`, and the old checkpoint must read back whole.
  void SaveFailsAndOldCheckpointSurvives(TG_Code code) {
    SetWriteFaultHookForTesting(FailingWrite);
    const std::vector<float> fresh(3 << 20, 2.5f);  // 12 MiB: direct writes too
    BundleStatus s = SaveRaw(prefix_, {{"w", TG_FLOAT, {1000}, BytesOf(old_)},
                                       {"big", TG_FLOAT, {3 << 20}, BytesOf(fresh)}});
    SetWriteFaultHookForTesting(nullptr);
    EXPECT_EQ(s.code, code) << s.message;
    EXPECT_NE(s.message.find("tempstate"), std::string::npos) << s.message;  // names the file
    EXPECT_EQ(dir_.Files(), files_before_);  // no temporary or partial file left
    std::string bytes;
    s = ReadRawTensor(prefix_, "w", &bytes);
    ASSERT_TRUE(s.ok()) << s.message;
    EXPECT_EQ(bytes, BytesOf(old_));
  }

  ScratchDir dir_;
  std::string prefix_ = dir_ / "model.ckpt";
  std::vector<float> old_;
  std::vector<std::string> files_before_;
};

TEST_F(AtomicSave, FullDiskWhileWritingData) {
  g_fail_in = ".data-";
  g_fail_after = 5 << 20;
  g_fail_errno = ENOSPC;
  SaveFailsAndOldCheckpointSurvives(TG_RESOURCE_EXHAUSTED);
}

TEST_F(AtomicSave, FullDiskAtTheFirstWrite) {
  g_fail_in = ".data-";
  g_fail_after = 0;
  g_fail_errno = ENOSPC;
  SaveFailsAndOldCheckpointSurvives(TG_RESOURCE_EXHAUSTED);
}

TEST_F(AtomicSave, IoErrorWhileWritingIndex) {
  g_fail_in = ".index";
  g_fail_after = 10;
  g_fail_errno = EIO;
  SaveFailsAndOldCheckpointSurvives(TG_UNKNOWN);
}

// A save killed half-way (SIGKILL: no destructor, no cleanup) leaves the checkpoint at the
// prefix whole; the next save over it works. The child process stops itself in the middle
// of the data file's writes (a write hook that tells the parent and waits), so the kill
// always lands half-way, whatever the disk's speed.
int g_ready_fd = -1;

int PauseHalfWay(const std::string& path, uint64_t offset, size_t) {
  if (path.find(".data-") == std::string::npos || offset < (24u << 20)) return 0;
  const char byte = 1;
  (void)!::write(g_ready_fd, &byte, 1);
  for (;;) ::pause();
}

TEST_F(AtomicSave, KilledHalfWayLeavesTheOldCheckpoint) {
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {  // single-threaded test binary: safe to go on after fork
    ::close(ready[0]);
    g_ready_fd = ready[1];
    SetWriteFaultHookForTesting(PauseHalfWay);
    const std::vector<float> fresh(16 << 20, 2.5f);  // 64 MiB
    (void)SaveRaw(prefix_, {{"w", TG_FLOAT, {1000}, BytesOf(std::vector<float>(1000, 9.0f))},
                            {"big", TG_FLOAT, {16 << 20}, BytesOf(fresh)}});
    ::_exit(3);  // the hook never lets the save finish
  }
  ::close(ready[1]);
  char byte = 0;
  ASSERT_EQ(::read(ready[0], &byte, 1), 1) << "the child did not reach the middle of its save";
  ::close(ready[0]);
  ASSERT_EQ(::kill(child, SIGKILL), 0);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status));

  // Only the killed save's temporary data file is new; the checkpoint reads back as before.
  std::vector<std::string> files = dir_.Files();
  EXPECT_EQ(files.size(), files_before_.size() + 1);
  std::string bytes;
  BundleStatus s = ReadRawTensor(prefix_, "w", &bytes);
  ASSERT_TRUE(s.ok()) << s.message;
  EXPECT_EQ(bytes, BytesOf(old_));
  EXPECT_EQ(ReadRawTensor(prefix_, "big", &bytes).code, TG_NOT_FOUND);

  // A later save over the same prefix replaces it whole.
  const std::vector<float> next(1000, 4.0f);
  ASSERT_TRUE(SaveRaw(prefix_, {{"w", TG_FLOAT, {1000}, BytesOf(next)}}).ok());
  ASSERT_TRUE(ReadRawTensor(prefix_, "w", &bytes).ok());
  EXPECT_EQ(bytes, BytesOf(next));
}

TEST(AtomicSaveFirst, FailedFirstSaveLeavesNothing) {
  ScratchDir dir;
  g_fail_in = ".data-";
  g_fail_after = 0;
  g_fail_errno = ENOSPC;
  SetWriteFaultHookForTesting(FailingWrite);
  BundleStatus s = SaveRaw(dir / "m", {{"w", TG_FLOAT, {1}, BytesOf(std::vector<float>{1})}});
  SetWriteFaultHookForTesting(nullptr);
  EXPECT_EQ(s.code, TG_RESOURCE_EXHAUSTED);
  EXPECT_TRUE(dir.Files().empty());
}

TEST(AtomicSaveFirst, AbandonedWriterRemovesItsTemporaryFile) {
  ScratchDir dir;
  {
    BundleWriter writer(dir / "m");
    ASSERT_TRUE(writer.Begin().ok());
    const float x = 1;
    ASSERT_TRUE(writer.AddRaw("x", TG_FLOAT, {}, &x, 4).ok());
    EXPECT_EQ(dir.Files().size(), 1u);  // the temporary data file
  }
  EXPECT_TRUE(dir.Files().empty());
}

TEST(AtomicSaveFirst, CreatesTheDirectory) {
  ScratchDir dir;
  const float x = 3;
  ASSERT_TRUE(SaveRaw(dir / "a/b/m", {{"x", TG_FLOAT, {}, BytesOf(std::vector<float>{x})}}).ok());
  std::string bytes;
  EXPECT_TRUE(ReadRawTensor(dir / "a/b/m", "x", &bytes).ok());
}

}  // namespace
}  // namespace tgraph::saver_tf
