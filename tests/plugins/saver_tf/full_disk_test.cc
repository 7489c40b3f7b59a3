// A save onto a file system that really fills up (a 1 MiB tmpfs, mounted by the ctest entry
// saver_tf.full_disk_tmpfs in a private mount namespace) fails with RESOURCE_EXHAUSTED and
// leaves the checkpoint already there whole and no file of its own. Without that mount
// (TGRAPH_SMALL_TMPFS unset: the plain test run) there is nothing to test.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "bundle_test_util.h"

namespace tgraph::saver_tf {
namespace {

using testing::BytesOf;
using testing::ReadRawTensor;
using testing::SaveRaw;

TEST(FullDisk, SaveOnAFullTmpfsLeavesTheOldCheckpoint) {
  const char* dir = std::getenv("TGRAPH_SMALL_TMPFS");
  if (dir == nullptr) GTEST_SKIP() << "runs as ctest saver_tf.full_disk_tmpfs (a small tmpfs)";
  const std::string prefix = std::string(dir) + "/model.ckpt";
  const std::vector<float> old(50000, 1.0f);  // 200 KB: fits
  BundleStatus s = SaveRaw(prefix, {{"w", TG_FLOAT, {50000}, BytesOf(old)}});
  ASSERT_TRUE(s.ok()) << s.message;
  std::vector<std::string> before;
  for (const auto& e : std::filesystem::directory_iterator(dir)) before.push_back(e.path());
  std::sort(before.begin(), before.end());

  const std::vector<float> big(500000, 2.0f);  // 2 MB: does not fit next to the old one
  s = SaveRaw(prefix, {{"w", TG_FLOAT, {500000}, BytesOf(big)}});
  EXPECT_EQ(s.code, TG_RESOURCE_EXHAUSTED) << s.message;
  EXPECT_NE(s.message.find("No space left"), std::string::npos) << s.message;

  std::vector<std::string> after;
  for (const auto& e : std::filesystem::directory_iterator(dir)) after.push_back(e.path());
  std::sort(after.begin(), after.end());
  EXPECT_EQ(after, before);
  std::string bytes;
  s = ReadRawTensor(prefix, "w", &bytes);
  ASSERT_TRUE(s.ok()) << s.message;
  EXPECT_EQ(bytes, BytesOf(old));
}

}  // namespace
}  // namespace tgraph::saver_tf
