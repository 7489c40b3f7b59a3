// WriteFileAtomically: the new contents or the old file, never a mix or a leftover; statuses
// from errno values name the file.
#include "core/base/file_io.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace tgraph {
namespace {

namespace fs = std::filesystem;

class FileIoTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("tgraph_file_io_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Path(const std::string& name) const { return (dir_ / name).string(); }
  static std::string Read(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
  }
  size_t Entries() const { return std::vector<fs::path>(fs::directory_iterator(dir_), {}).size(); }
  fs::path dir_;
};

TEST_F(FileIoTest, ReplacesTheFileAndLeavesNoTemporary) {
  const std::string path = Path("state");
  ASSERT_TRUE(WriteFileAtomically(path, "old").ok());
  ASSERT_TRUE(WriteFileAtomically(path, std::string("new\0bytes", 9)).ok());
  EXPECT_EQ(Read(path), std::string("new\0bytes", 9));
  EXPECT_EQ(Entries(), 1u);
}

TEST_F(FileIoTest, AFailedWriteLeavesTheOldFile) {
  const std::string path = Path("model.meta");
  ASSERT_TRUE(WriteFileAtomically(path, "old").ok());
  // The destination is a non-empty directory: the rename fails after the temporary was written.
  const std::string dir_path = Path("a_dir");
  fs::create_directories(fs::path(dir_path) / "child");
  Status s = WriteFileAtomically(dir_path, "new");
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find(dir_path), std::string::npos) << s.message();
  EXPECT_EQ(Entries(), 2u) << "no temporary file left behind";
  EXPECT_EQ(Read(path), "old");
  s = WriteFileAtomically(Path("missing_dir/model.meta"), "x");
  EXPECT_EQ(s.code(), Code::kNotFound) << s.ToString();
}

TEST(ErrnoStatusTest, MapsCodesAndKeepsTheContext) {
  EXPECT_EQ(ErrnoStatus(ENOENT, "reading 'f'").code(), Code::kNotFound);
  EXPECT_EQ(ErrnoStatus(EACCES, "x").code(), Code::kPermissionDenied);
  EXPECT_EQ(ErrnoStatus(ENOSPC, "x").code(), Code::kResourceExhausted);
  EXPECT_EQ(ErrnoStatus(EIO, "x").code(), Code::kUnknown);
  EXPECT_NE(ErrnoStatus(ENOENT, "reading 'f'").message().find("reading 'f'"), std::string::npos);
}

}  // namespace
}  // namespace tgraph
