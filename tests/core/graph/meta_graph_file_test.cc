// `.meta` files: written (WriteFileAtomically) and read back, binary and text reading, errors
// naming the file.
#include <gtest/gtest.h>
#include <google/protobuf/text_format.h>

#include <filesystem>
#include <fstream>

#include "core/base/file_io.h"
#include "core/graph/meta_graph_io.h"
#include "tests/core/graph/meta_graph_test_util.h"

namespace tgraph {
namespace {

namespace fs = std::filesystem;

class MetaGraphFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("tgraph_meta_graph_file_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Path(const std::string& name) const { return (dir_ / name).string(); }
  static void WriteRaw(const std::string& path, const std::string& bytes) {
    std::ofstream(path, std::ios::binary) << bytes;
  }
  fs::path dir_;
};

TEST_F(MetaGraphFileTest, WritesAtomicallyAndReadsBack) {
  Graph g;
  testing::BuildMetaGraphTestGraph(g);
  std::string bytes;
  ASSERT_TRUE(ExportMetaGraphBytes(g, {}, &bytes).ok());
  std::string path = Path("model.meta");
  ASSERT_TRUE(WriteFileAtomically(path, bytes).ok());
  EXPECT_EQ(std::vector<fs::path>(fs::directory_iterator(dir_), {}).size(), 1u)
      << "the temporary file is gone";
  tf::MetaGraphDef meta;
  ASSERT_TRUE(ReadMetaGraphFile(path, &meta).ok());
  std::string again;
  ASSERT_TRUE(SerializeMetaGraphDef(meta, &again).ok());
  EXPECT_EQ(again, bytes);
}

TEST_F(MetaGraphFileTest, ReadsTextFormat) {
  Graph g;
  testing::BuildMetaGraphTestGraph(g);
  tf::MetaGraphDef meta;
  ASSERT_TRUE(ExportMetaGraph(g, {}, &meta).ok());
  std::string text;
  ASSERT_TRUE(google::protobuf::TextFormat::PrintToString(meta, &text));
  std::string path = Path("model.meta.txt");
  WriteRaw(path, text);
  tf::MetaGraphDef read;
  Status s = ReadMetaGraphFile(path, &read);
  ASSERT_TRUE(s.ok()) << s.ToString();
  std::string want, got;
  ASSERT_TRUE(SerializeMetaGraphDef(meta, &want).ok());
  ASSERT_TRUE(SerializeMetaGraphDef(read, &got).ok());
  EXPECT_EQ(got, want);
}

TEST_F(MetaGraphFileTest, TruncatedGarbageAndMissingFilesNameTheFile) {
  Graph g;
  testing::BuildMetaGraphTestGraph(g);
  std::string bytes;
  ASSERT_TRUE(ExportMetaGraphBytes(g, {}, &bytes).ok());
  std::string truncated = Path("truncated.meta");
  WriteRaw(truncated, bytes.substr(0, bytes.size() / 2));
  std::string garbage = Path("garbage.meta");
  WriteRaw(garbage, "this is { not a MetaGraphDef");
  for (const std::string& path : {truncated, garbage}) {
    tf::MetaGraphDef meta;
    Status s = ReadMetaGraphFile(path, &meta);
    EXPECT_EQ(s.code(), Code::kInvalidArgument) << path;
    EXPECT_NE(s.message().find(path), std::string::npos) << s.message();
  }
  tf::MetaGraphDef meta;
  Status s = ReadMetaGraphFile(Path("absent.meta"), &meta);
  EXPECT_EQ(s.code(), Code::kNotFound);
  EXPECT_NE(s.message().find("absent.meta"), std::string::npos);
}

}  // namespace
}  // namespace tgraph
