// SaveV2 / RestoreV2 / MergeV2Checkpoints: the CPU kernels read their string arguments and
// hand the tensors to the saver plugin through the core (here the TF V2 plugin), so these
// tests check the kernels' side: round trips of several dtypes, dtype checks, refused slice
// specs and argument errors, and merging.
#include <boost/filesystem.hpp>

#include "array_test_util.h"
#include "core/graph/attr_value_util.h"

namespace tgraph::testing {
namespace {

namespace fs = boost::filesystem;

Tensor Strings(std::vector<std::string> values) {
  Tensor t = Tensor::Allocate(DT_STRING, {static_cast<int64_t>(values.size())}).value();
  t.strings() = std::move(values);
  return t;
}

Tensor Scalar(const std::string& value) {
  Tensor t = Tensor::Allocate(DT_STRING, {}).value();
  t.strings()[0] = value;
  return t;
}

class CheckpointKernelTest : public ::testing::Test {
 protected:
  void SetUp() override {
    static Status loaded = LoadPlugin(TGRAPH_SAVER_TF_PLUGIN_PATH).status();
    ASSERT_TRUE(loaded.ok()) << loaded.ToString();
    dir_ = fs::temp_directory_path() / fs::unique_path("tgraph-ckpt-kernel-%%%%-%%%%");
    fs::create_directories(dir_);
  }
  void TearDown() override {
    boost::system::error_code ec;
    fs::remove_all(dir_, ec);
  }
  std::string Prefix(const std::string& name) const { return (dir_ / name).string(); }

  OpRun Save(const std::string& prefix, const std::vector<std::string>& names,
             std::vector<Tensor> tensors, std::vector<std::string> slices = {}) {
    if (slices.empty()) slices.assign(names.size(), "");
    return RunArgs("SaveV2", {In(Scalar(prefix)), In(Strings(names)), In(Strings(slices)),
                              List(std::move(tensors))});
  }
  OpRun Restore(const std::string& prefix, const std::vector<std::string>& names,
                const std::vector<DataType>& dtypes, std::vector<std::string> slices = {}) {
    if (slices.empty()) slices.assign(names.size(), "");
    return RunArgs("RestoreV2", {In(Scalar(prefix)), In(Strings(names)), In(Strings(slices))},
                   {{"dtypes", AttrOfTypeList(dtypes)}});
  }

  fs::path dir_;
};

TEST_F(CheckpointKernelTest, SavesAndRestoresSeveralDtypes) {
  const Tensor w = F32({2, 2}, {1.5f, -2, 3, 4});
  const Tensor step = I64({}, {42});
  const Tensor words = Strings({"a", "", "long word"});
  OpRun r = Save(Prefix("all"), {"w", "step", "words"}, {w, step, words});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  // Restored in another order than saved: outputs follow the names asked for.
  r = Restore(Prefix("all"), {"words", "w", "step"}, {DT_STRING, DT_FLOAT, DT_INT64});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  ASSERT_EQ(r.outputs.size(), 3u);
  EXPECT_TRUE(r.outputs[0].Equals(words));
  EXPECT_TRUE(r.outputs[1].Equals(w));
  EXPECT_TRUE(r.outputs[2].Equals(step));
}

TEST_F(CheckpointKernelTest, RestoringAsAnotherDtypeNamesBoth) {
  ASSERT_TRUE(Save(Prefix("d"), {"w"}, {F32({2}, {1, 2})}).status.ok());
  OpRun r = Restore(Prefix("d"), {"w"}, {DT_INT32});
  ExpectInvalid(r.status, {"'w'", "float", "int32"});
  EXPECT_TRUE(r.outputs.empty() || r.outputs[0].dtype() == DT_INVALID);
}

TEST_F(CheckpointKernelTest, MissingTensorsAndFilesAreNotFound) {
  ASSERT_TRUE(Save(Prefix("m"), {"w"}, {F32({1}, {1})}).status.ok());
  OpRun r = Restore(Prefix("m"), {"nope"}, {DT_FLOAT});
  EXPECT_EQ(r.status.code(), Code::kNotFound) << r.status.ToString();
  EXPECT_NE(r.status.message().find("nope"), std::string::npos) << r.status.ToString();
  r = Restore(Prefix("absent"), {"w"}, {DT_FLOAT});
  EXPECT_EQ(r.status.code(), Code::kNotFound) << r.status.ToString();
}

TEST_F(CheckpointKernelTest, SliceSpecsAndBadArgumentsAreRefused) {
  OpRun r = Save(Prefix("s"), {"w"}, {F32({4}, {1, 2, 3, 4})}, {"4 0,2"});
  EXPECT_EQ(r.status.code(), Code::kUnimplemented) << r.status.ToString();
  EXPECT_NE(r.status.message().find("'w'"), std::string::npos) << r.status.ToString();
  EXPECT_FALSE(fs::exists(Prefix("s") + ".index"));
  // Two names for one tensor.
  r = RunArgs("SaveV2", {In(Scalar(Prefix("s"))), In(Strings({"a", "b"})),
                         In(Strings({"", ""})), List({F32({1}, {1})})});
  EXPECT_FALSE(r.status.ok());
  // An empty prefix names no checkpoint.
  r = Restore("", {"w"}, {DT_FLOAT});
  EXPECT_FALSE(r.status.ok());
}

TEST_F(CheckpointKernelTest, MergesShardsIntoOnePrefix) {
  ASSERT_TRUE(Save(Prefix("part0"), {"a"}, {F32({1}, {1})}).status.ok());
  ASSERT_TRUE(Save(Prefix("part1"), {"b"}, {F32({2}, {2, 3})}).status.ok());
  OpRun r = RunArgs("MergeV2Checkpoints",
                    {In(Strings({Prefix("part0"), Prefix("part1")})), In(Scalar(Prefix("merged")))});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  r = Restore(Prefix("merged"), {"a", "b"}, {DT_FLOAT, DT_FLOAT});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(Values<float>(r.outputs[1]), (std::vector<float>{2, 3}));
  EXPECT_FALSE(fs::exists(Prefix("part0") + ".index"));  // merged away
}

}  // namespace
}  // namespace tgraph::testing
