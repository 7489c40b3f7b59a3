// A save that fails half-way (an injected write error: a full disk, an I/O error) leaves the
// checkpoint already at the prefix whole and no file of its own behind.
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
