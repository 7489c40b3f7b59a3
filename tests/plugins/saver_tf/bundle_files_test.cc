// Exists, remove and merge (MergeV2Checkpoints) of whole checkpoints.
#include "bundle_files.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "bundle_test_util.h"

namespace tgraph::saver_tf {
namespace {

using testing::BytesOf;
using testing::ReadRawTensor;
using testing::SaveRaw;
using testing::ScratchDir;

TEST(BundleFiles, ExistsAndRemove) {
  ScratchDir dir;
  EXPECT_FALSE(BundleExists(dir / "m"));
  ASSERT_TRUE(SaveRaw(dir / "m", {{"x", TG_INT8, {1}, "\x05"}}).ok());
  ASSERT_TRUE(SaveRaw(dir / "m2", {{"x", TG_INT8, {1}, "\x05"}}).ok());
  testing::WriteFile(dir / "m.data-00001-of-00002", "stale shard");
  testing::WriteFile(dir / "m.data-notashard", "kept");
  EXPECT_TRUE(BundleExists(dir / "m"));
  ASSERT_TRUE(RemoveBundle(dir / "m").ok());
  EXPECT_FALSE(BundleExists(dir / "m"));
  EXPECT_EQ(dir.Files(), (std::vector<std::string>{"m.data-notashard", "m2.data-00000-of-00001",
                                                   "m2.index"}));
  EXPECT_TRUE(RemoveBundle(dir / "m").ok());  // nothing there: fine
  EXPECT_TRUE(RemoveBundle(dir / "no_dir/m").ok());
}

TEST(BundleFiles, MergeRenumbersShards) {
  ScratchDir dir;
  ASSERT_TRUE(SaveRaw(dir / "part0/tmp", {{"a", TG_INT32, {2}, BytesOf(std::vector<int>{1, 2})},
                                          {"c", TG_INT32, {}, BytesOf(std::vector<int>{3})}})
                  .ok());
  ASSERT_TRUE(SaveRaw(dir / "part1/tmp", {{"b", TG_INT64, {1}, BytesOf(std::vector<int64_t>{4})}})
                  .ok());
  BundleStatus s = MergeBundles({dir / "part0/tmp", dir / "part1/tmp"}, dir / "merged", true);
  ASSERT_TRUE(s.ok()) << s.message;
  EXPECT_EQ(dir.Files(), (std::vector<std::string>{"merged.data-00000-of-00002",
                                                   "merged.data-00001-of-00002",
                                                   "merged.index"}));
  std::unique_ptr<BundleReader> reader;
  ASSERT_TRUE(BundleReader::Open(dir / "merged", &reader).ok());
  EXPECT_EQ(reader->header().num_shards(), 2);
  EXPECT_EQ(reader->entries().at("a").shard_id(), 0);
  EXPECT_EQ(reader->entries().at("b").shard_id(), 1);
  std::string bytes;
  ASSERT_TRUE(ReadRawTensor(dir / "merged", "a", &bytes).ok());
  EXPECT_EQ(bytes, BytesOf(std::vector<int>{1, 2}));
  ASSERT_TRUE(ReadRawTensor(dir / "merged", "b", &bytes).ok());
  EXPECT_EQ(bytes, BytesOf(std::vector<int64_t>{4}));
  ASSERT_TRUE(ReadRawTensor(dir / "merged", "c", &bytes).ok());
  EXPECT_EQ(bytes, BytesOf(std::vector<int>{3}));
}

TEST(BundleFiles, MergeRefusesDuplicatesAndMovesNothing) {
  ScratchDir dir;
  ASSERT_TRUE(SaveRaw(dir / "p0", {{"a", TG_INT8, {}, "\x01"}}).ok());
  ASSERT_TRUE(SaveRaw(dir / "p1", {{"a", TG_INT8, {}, "\x02"}}).ok());
  const auto before = dir.Files();
  BundleStatus s = MergeBundles({dir / "p0", dir / "p1"}, dir / "m", false);
  EXPECT_EQ(s.code, TG_INVALID_ARGUMENT);
  EXPECT_NE(s.message.find("'a'"), std::string::npos) << s.message;
  EXPECT_EQ(dir.Files(), before);
  s = MergeBundles({dir / "p0", dir / "missing"}, dir / "m", false);
  EXPECT_EQ(s.code, TG_NOT_FOUND);
  EXPECT_EQ(dir.Files(), before);
  // A source whose data file is gone: nothing is moved either.
  ASSERT_TRUE(SaveRaw(dir / "p2", {{"b", TG_INT8, {}, "\x03"}}).ok());
  std::filesystem::remove(dir / "p2.data-00000-of-00001");
  s = MergeBundles({dir / "p0", dir / "p2"}, dir / "new_dir/m", false);
  EXPECT_EQ(s.code, TG_NOT_FOUND);
  EXPECT_NE(s.message.find("p2.data-00000-of-00001"), std::string::npos) << s.message;
  EXPECT_TRUE(std::filesystem::exists(dir / "p0.data-00000-of-00001"));
}

}  // namespace
}  // namespace tgraph::saver_tf
