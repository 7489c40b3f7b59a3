// tf.train.Saver through the C API: TF's node layout and SaverDef, save and restore in a
// session, the checkpoint state file, max_to_keep rotation, latest_checkpoint, and the
// errors of a restore that must change no variable. Files go through the TF V2 saver plugin.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "session_test_util.h"

namespace {

namespace fs = std::filesystem;
using tgtest::Contains;
using tgtest::FloatTensor;
using tgtest::Floats;
using tgtest::IntTensor;
using tgtest::SessionTest;

std::string ReadText(const fs::path& p) {
  std::ifstream in(p.string());
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

class SaverTest : public SessionTest {
 protected:
  void SetUp() override {
    SessionTest::SetUp();
    TG_Status* s = TG_NewStatus();
    for (const char* plugin : {TGRAPH_SAVER_TF_PLUGIN_PATH, TGRAPH_SAVER_SAFETENSORS_PLUGIN_PATH}) {
      TG_LoadPlugin(plugin, s);
      ASSERT_EQ(TG_GetCode(s), TG_OK) << TG_Message(s);
    }
    TG_DeleteStatus(s);
    dir_ = fs::temp_directory_path() /
           ("tgraph_saver_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override {
    for (TG_Saver* saver : savers_) TG_DeleteSaver(saver);
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  TG_Saver* NewSaver(const TG_SaverOptions* opts = nullptr) {
    TG_Saver* saver = TG_NewSaver(g_, opts, s_);
    if (saver != nullptr) savers_.push_back(saver);
    return saver;
  }
  std::string Save(TG_Saver* saver, TG_Session* sess, const std::string& prefix,
                   const int64_t* step = nullptr) {
    const char* path = TG_SaverSave(saver, sess, prefix.c_str(), step, nullptr, nullptr, s_);
    return path != nullptr ? path : "";
  }
  // Two variables with known values, initialized in a new session.
  TG_Session* TwoVariables() {
    w_ = Var("w", FloatTensor({2, 3}, {1, 2, 3, 4, 5, 6}));
    b_ = Var("b", FloatTensor({3}, {0.5f, -0.5f, 9}));
    init_ = Init();
    TG_Session* sess = NewSession();
    RunTargets(sess, {init_});
    return sess;
  }
  void Clobber(TG_Session* sess) {
    RunTargets(sess, {Update("Assign", w_, tgtest::Out(ConstTensor(FloatTensor({2, 3}, {0, 0, 0, 0, 0, 0}))), "zero_w"),
                      Update("Assign", b_, tgtest::Out(ConstTensor(FloatTensor({3}, {7, 7, 7}))), "seven_b")});
    TG_ASSERT_OK(s_);
  }

  fs::path dir_;
  std::vector<TG_Saver*> savers_;
  TG_Variable* w_ = nullptr;
  TG_Variable* b_ = nullptr;
  TG_Operation* init_ = nullptr;
};

TEST_F(SaverTest, AddsTensorFlowsNodesAndSaverDef) {
  TwoVariables();
  TG_Saver* saver = NewSaver();
  TG_ASSERT_OK(s_);
  ASSERT_NE(saver, nullptr);
  const std::vector<std::pair<std::string, std::string>> expected = {
      {"save/filename/input", "Const"}, {"save/filename", "PlaceholderWithDefault"},
      {"save/Const", "PlaceholderWithDefault"}, {"save/SaveV2/tensor_names", "Const"},
      {"save/SaveV2/shape_and_slices", "Const"}, {"save/SaveV2", "SaveV2"},
      {"save/control_dependency", "Identity"}, {"save/RestoreV2", "RestoreV2"},
      {"save/Assign", "Assign"}, {"save/Assign_1", "Assign"}, {"save/restore_all", "NoOp"}};
  for (const auto& [name, type] : expected) {
    TG_Operation* op = TG_GraphOperationByName(g_, name.c_str());
    ASSERT_NE(op, nullptr) << name;
    EXPECT_EQ(std::string(TG_OperationOpType(op)), type) << name;
  }
  // Keys are sorted: "b" before "w", so save/Assign restores b.
  TG_Operation* assign = TG_GraphOperationByName(g_, "save/Assign");
  EXPECT_EQ(std::string(TG_OperationName(TG_OperationInput(TG_Input{assign, 0}).oper)), "b");
  EXPECT_EQ(TG_OperationNumControlInputs(TG_GraphOperationByName(g_, "save/restore_all")), 2);

  TG_Buffer* def = TG_NewBuffer();
  TG_SaverToSaverDef(saver, def, s_);
  TG_ASSERT_OK(s_);
  const std::string bytes(static_cast<const char*>(def->data), def->length);
  for (const char* field : {"save/Const:0", "save/control_dependency:0", "save/restore_all"}) {
    EXPECT_TRUE(Contains(bytes, field)) << field;
  }
  TG_DeleteBuffer(def);
  // A second saver gets its own scope.
  NewSaver();
  TG_ASSERT_OK(s_);
  EXPECT_NE(TG_GraphOperationByName(g_, "save_1/restore_all"), nullptr);
}

TEST_F(SaverTest, SavesAndRestoresWithTheStateFile) {
  TG_Session* sess = TwoVariables();
  TG_Saver* saver = NewSaver();
  const int64_t step = 7;
  const std::string path = Save(saver, sess, (dir_ / "model.ckpt").string(), &step);
  TG_ASSERT_OK(s_);
  EXPECT_EQ(path, (dir_ / "model.ckpt-7").string());
  EXPECT_TRUE(fs::exists(path + ".index"));
  EXPECT_TRUE(fs::exists(path + ".data-00000-of-00001"));
  const std::string state = ReadText(dir_ / "checkpoint");
  EXPECT_TRUE(Contains(state, "model_checkpoint_path: \"model.ckpt-7\"")) << state;
  EXPECT_TRUE(Contains(state, "all_model_checkpoint_paths: \"model.ckpt-7\"")) << state;

  Clobber(sess);
  TG_SaverRestore(saver, sess, path.c_str(), s_);
  TG_ASSERT_OK(s_);
  EXPECT_EQ(RunFloats(sess, Read(w_)), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(RunFloats(sess, Read(b_)), (std::vector<float>{0.5f, -0.5f, 9}));

  // A new session restores without running the initializer.
  TG_Session* fresh = NewSession();
  TG_SaverRestore(saver, fresh, path.c_str(), s_);
  TG_ASSERT_OK(s_);
  EXPECT_EQ(RunFloats(fresh, Read(b_)), (std::vector<float>{0.5f, -0.5f, 9}));

  TG_Buffer* latest = TG_NewBuffer();
  EXPECT_EQ(TG_LatestCheckpoint(dir_.string().c_str(), nullptr, latest, s_), 1);
  TG_ASSERT_OK(s_);
  EXPECT_EQ(std::string(static_cast<const char*>(latest->data), latest->length), path);
  TG_DeleteBuffer(latest);
}

TEST_F(SaverTest, MaxToKeepDeletesTheOldest) {
  TG_Session* sess = TwoVariables();
  TG_SaverOptions opts;
  TG_InitSaverOptions(&opts);
  opts.max_to_keep = 2;
  TG_Saver* saver = NewSaver(&opts);
  TG_Buffer* meta = TG_NewBuffer();  // any bytes: the saver writes them as <prefix>.meta
  for (int64_t step = 1; step <= 4; ++step) {
    TG_SaverSave(saver, sess, (dir_ / "m").string().c_str(), &step, meta, nullptr, s_);
    TG_ASSERT_OK(s_);
  }
  TG_DeleteBuffer(meta);
  for (int step = 1; step <= 4; ++step) {
    const std::string p = (dir_ / ("m-" + std::to_string(step))).string();
    EXPECT_EQ(fs::exists(p + ".index"), step >= 3) << p;
    EXPECT_EQ(fs::exists(p + ".meta"), step >= 3) << p;
  }
  ASSERT_EQ(TG_SaverNumLastCheckpoints(saver), 2);
  EXPECT_EQ(std::string(TG_SaverLastCheckpoint(saver, 0)), (dir_ / "m-3").string());
  EXPECT_EQ(std::string(TG_SaverLastCheckpoint(saver, 1)), (dir_ / "m-4").string());
  const std::string state = ReadText(dir_ / "checkpoint");
  EXPECT_TRUE(Contains(state, "all_model_checkpoint_paths: \"m-3\"\nall_model_checkpoint_paths: \"m-4\"")) << state;
  EXPECT_FALSE(Contains(state, "m-2")) << state;
}

TEST_F(SaverTest, AFailedRestoreChangesNoVariable) {
  TG_Session* sess = TwoVariables();
  TG_Saver* saver = NewSaver();
  const std::string path = Save(saver, sess, (dir_ / "good").string());
  TG_ASSERT_OK(s_);
  Clobber(sess);

  TG_SaverRestore(saver, sess, (dir_ / "nothing_here").string().c_str(), s_);
  EXPECT_EQ(code(), TG_NOT_FOUND) << msg();
  EXPECT_TRUE(Contains(msg(), "nothing_here")) << msg();

  // A checkpoint holding "w" with another shape and no "b": NOT_FOUND for b is reported
  // first (keys in order), and nothing is assigned.
  TG_Graph* other = TG_NewGraph();
  {
    TG_VariableOptions vo;
    TG_InitVariableOptions(&vo);
    vo.name = "w";
    auto value = FloatTensor({3, 2}, {1, 1, 1, 1, 1, 1});
    TG_Variable* ow = TG_GraphNewVariableFromTensor(other, value.get(), &vo, s_);
    TG_ASSERT_OK(s_);
    TG_Session* osess = TG_NewSession(other, nullptr, s_);
    TG_Operation* oinit = TG_GraphGlobalVariablesInitializer(other, s_);
    TG_SessionRun(osess, nullptr, nullptr, nullptr, 0, nullptr, nullptr, 0, &oinit, 1, nullptr, s_);
    TG_ASSERT_OK(s_);
    TG_SaverOptions so;
    TG_InitSaverOptions(&so);
    so.var_list = &ow;
    so.num_vars = 1;
    TG_Saver* osaver = TG_NewSaver(other, &so, s_);
    TG_ASSERT_OK(s_);
    TG_SaverSave(osaver, osess, (dir_ / "other").string().c_str(), nullptr, nullptr, nullptr, s_);
    TG_ASSERT_OK(s_);
    TG_DeleteSaver(osaver);
    TG_DeleteSession(osess, s_);
  }
  TG_DeleteGraph(other);
  TG_SaverRestore(saver, sess, (dir_ / "other").string().c_str(), s_);
  EXPECT_EQ(code(), TG_NOT_FOUND) << msg();
  EXPECT_TRUE(Contains(msg(), "Key b not found")) << msg();
  EXPECT_EQ(RunFloats(sess, Read(w_)), (std::vector<float>{0, 0, 0, 0, 0, 0}));

  // Only w, saved as [3,2], restored into a [2,3] variable: INVALID_ARGUMENT naming both.
  TG_SaverOptions wo;
  TG_InitSaverOptions(&wo);
  wo.var_list = &w_;
  wo.num_vars = 1;
  TG_Saver* only_w = NewSaver(&wo);
  TG_ASSERT_OK(s_);
  TG_SaverRestore(only_w, sess, (dir_ / "other").string().c_str(), s_);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT) << msg();
  EXPECT_TRUE(Contains(msg(), "[2,3]") && Contains(msg(), "[3,2]")) << msg();
  EXPECT_EQ(RunFloats(sess, Read(w_)), (std::vector<float>{0, 0, 0, 0, 0, 0}));
}

// A checksum failure in the last tensor of the data file ("w", after "b"): DATA_LOSS naming
// the tensor, and "b", read fine before it, is not assigned either.
TEST_F(SaverTest, ACorruptTensorAssignsNoVariable) {
  TG_Session* sess = TwoVariables();
  TG_Saver* saver = NewSaver();
  const std::string path = Save(saver, sess, (dir_ / "model.ckpt").string());
  TG_ASSERT_OK(s_);
  Clobber(sess);
  {
    // b's 12 bytes come first (keys in order), then w's 24: flip one of w's.
    std::fstream data(path + ".data-00000-of-00001",
                      std::ios::in | std::ios::out | std::ios::binary);
    ASSERT_TRUE(data.good());
    data.seekg(20);
    char byte = 0;
    data.read(&byte, 1);
    byte = static_cast<char>(byte ^ 0x40);
    data.seekp(20);
    data.write(&byte, 1);
  }
  TG_SaverRestore(saver, sess, path.c_str(), s_);
  EXPECT_EQ(code(), TG_DATA_LOSS) << msg();
  EXPECT_TRUE(Contains(msg(), "'w'")) << msg();
  EXPECT_EQ(RunFloats(sess, Read(w_)), (std::vector<float>{0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(RunFloats(sess, Read(b_)), (std::vector<float>{7, 7, 7}));
}

TEST_F(SaverTest, RestoresThroughASaverDef) {
  TG_Session* sess = TwoVariables();
  TG_Saver* saver = NewSaver();
  const std::string path = Save(saver, sess, (dir_ / "viadef").string());
  TG_ASSERT_OK(s_);
  TG_Buffer* def = TG_NewBuffer();
  TG_SaverToSaverDef(saver, def, s_);
  TG_Saver* again = TG_NewSaverFromDef(g_, def->data, def->length, s_);
  TG_DeleteBuffer(def);
  TG_ASSERT_OK(s_);
  savers_.push_back(again);
  Clobber(sess);
  TG_SaverRestore(again, sess, path.c_str(), s_);
  TG_ASSERT_OK(s_);
  EXPECT_EQ(RunFloats(sess, Read(w_)), (std::vector<float>{1, 2, 3, 4, 5, 6}));

  TG_NewSaverFromDef(g_, "garbage", 7, s_);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT) << msg();
}

TEST_F(SaverTest, TheExtensionChoosesTheFormatAndKeepsItsPlaceAfterTheStep) {
  TG_Session* sess = TwoVariables();
  TG_Saver* saver = NewSaver();
  const int64_t step = 2;
  const std::string path = Save(saver, sess, (dir_ / "m.safetensors").string(), &step);
  TG_ASSERT_OK(s_);
  EXPECT_EQ(path, (dir_ / "m-2.safetensors").string());
  EXPECT_TRUE(fs::is_regular_file(path));
  EXPECT_FALSE(fs::exists(path + ".index"));  // not the V2 format
  Clobber(sess);
  TG_SaverRestore(saver, sess, path.c_str(), s_);
  TG_ASSERT_OK(s_);
  EXPECT_EQ(RunFloats(sess, Read(b_)), (std::vector<float>{0.5f, -0.5f, 9}));
  TG_Buffer* latest = TG_NewBuffer();
  EXPECT_EQ(TG_LatestCheckpoint(dir_.string().c_str(), nullptr, latest, s_), 1);
  EXPECT_EQ(std::string(static_cast<const char*>(latest->data), latest->length), path);
  TG_DeleteBuffer(latest);
}

TEST_F(SaverTest, SaveErrorsNameThePath) {
  TG_Session* sess = TwoVariables();
  TG_Saver* saver = NewSaver();
  Save(saver, sess, (dir_ / "no_such_dir" / "model").string());
  EXPECT_EQ(code(), TG_NOT_FOUND) << msg();
  EXPECT_TRUE(Contains(msg(), "no_such_dir")) << msg();
  TG_Buffer* latest = TG_NewBuffer();
  EXPECT_EQ(TG_LatestCheckpoint(dir_.string().c_str(), nullptr, latest, s_), 0);
  TG_EXPECT_OK(s_);
  TG_DeleteBuffer(latest);
}

// Sharded: w on "/device:CPU:0" and b with no device are two devices to TF's grouping, so two
// SaveV2 ops write two parts under "<path>_temp/", merged into one checkpoint with two data
// files; the parts' directory is gone afterwards.
TEST_F(SaverTest, ShardedSavesOnePartPerDeviceAndMergesThem) {
  TG_GraphPushDevice(g_, "/device:CPU:0", s_);
  TG_ASSERT_OK(s_);
  w_ = Var("w", FloatTensor({2, 3}, {1, 2, 3, 4, 5, 6}));
  TG_GraphPopDevice(g_, s_);
  b_ = Var("b", FloatTensor({3}, {0.5f, -0.5f, 9}));
  init_ = Init();
  TG_Session* sess = NewSession();
  RunTargets(sess, {init_});
  TG_SaverOptions opts;
  TG_InitSaverOptions(&opts);
  opts.sharded = 1;
  TG_Saver* saver = NewSaver(&opts);
  TG_ASSERT_OK(s_);
  ASSERT_NE(saver, nullptr);
  const std::vector<std::pair<std::string, std::string>> expected = {
      {"save/StaticRegexFullMatch", "StaticRegexFullMatch"}, {"save/Select", "Select"},
      {"save/StringJoin", "StringJoin"}, {"save/num_shards", "Const"},
      {"save/ShardedFilename", "ShardedFilename"}, {"save/ShardedFilename_1", "ShardedFilename"},
      {"save/SaveV2", "SaveV2"}, {"save/SaveV2_1", "SaveV2"},
      {"save/MergeV2Checkpoints/checkpoint_prefixes", "Pack"},
      {"save/MergeV2Checkpoints", "MergeV2Checkpoints"}, {"save/Identity", "Identity"},
      {"save/RestoreV2", "RestoreV2"}, {"save/RestoreV2_1", "RestoreV2"},
      {"save/restore_shard", "NoOp"}, {"save/restore_shard_1", "NoOp"},
      {"save/restore_all/NoOp", "NoOp"}, {"save/restore_all", "NoOp"}};
  for (const auto& [name, type] : expected) {
    TG_Operation* op = TG_GraphOperationByName(g_, name.c_str());
    ASSERT_NE(op, nullptr) << name;
    EXPECT_EQ(std::string(TG_OperationOpType(op)), type) << name;
  }
  // Devices sort "" first: shard 0 saves b, shard 1 saves w, each on its device's CPU:0.
  EXPECT_EQ(std::string(TG_OperationDevice(TG_GraphOperationByName(g_, "save/SaveV2_1"))),
            "/device:CPU:0");
  EXPECT_EQ(std::string(TG_OperationDevice(TG_GraphOperationByName(g_, "save/StringJoin"))),
            "/device:CPU:*");
  TG_Buffer* def = TG_NewBuffer();
  TG_SaverToSaverDef(saver, def, s_);
  TG_ASSERT_OK(s_);
  const std::string bytes(static_cast<const char*>(def->data), def->length);
  EXPECT_TRUE(Contains(bytes, "save/Identity:0")) << "save_tensor_name";
  TG_DeleteBuffer(def);

  const int64_t step = 3;
  const std::string path = Save(saver, sess, (dir_ / "model").string(), &step);
  TG_ASSERT_OK(s_);
  EXPECT_EQ(path, (dir_ / "model-3").string());
  EXPECT_TRUE(fs::is_regular_file(path + ".index"));
  EXPECT_TRUE(fs::is_regular_file(path + ".data-00000-of-00002"));
  EXPECT_TRUE(fs::is_regular_file(path + ".data-00001-of-00002"));
  EXPECT_FALSE(fs::exists(path + "_temp"));
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(dir_)) files.push_back(entry.path().filename());
  EXPECT_EQ(files.size(), 4u) << "index, two data files and the state file";

  Clobber(sess);
  TG_SaverRestore(saver, sess, path.c_str(), s_);
  TG_ASSERT_OK(s_);
  EXPECT_EQ(RunFloats(sess, Read(w_)), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(RunFloats(sess, Read(b_)), (std::vector<float>{0.5f, -0.5f, 9}));

  // An unsharded Saver restores the merged checkpoint too: it is one V2 bundle.
  TG_Saver* plain = NewSaver();
  TG_ASSERT_OK(s_);
  Clobber(sess);
  TG_SaverRestore(plain, sess, path.c_str(), s_);
  TG_ASSERT_OK(s_);
  EXPECT_EQ(RunFloats(sess, Read(w_)), (std::vector<float>{1, 2, 3, 4, 5, 6}));
}

TEST_F(SaverTest, ShardedOnOneDeviceGroupsRestoreAllDirectly) {
  TG_Session* sess = TwoVariables();
  TG_SaverOptions opts;
  TG_InitSaverOptions(&opts);
  opts.sharded = 1;
  TG_Saver* saver = NewSaver(&opts);
  TG_ASSERT_OK(s_);
  EXPECT_EQ(TG_GraphOperationByName(g_, "save/SaveV2_1"), nullptr);
  EXPECT_EQ(TG_GraphOperationByName(g_, "save/restore_all/NoOp"), nullptr);
  EXPECT_EQ(TG_OperationNumControlInputs(TG_GraphOperationByName(g_, "save/restore_all")), 1);
  const std::string path = Save(saver, sess, (dir_ / "one").string());
  TG_ASSERT_OK(s_);
  EXPECT_TRUE(fs::is_regular_file(path + ".data-00000-of-00001"));
  Clobber(sess);
  TG_SaverRestore(saver, sess, path.c_str(), s_);
  TG_ASSERT_OK(s_);
  EXPECT_EQ(RunFloats(sess, Read(b_)), (std::vector<float>{0.5f, -0.5f, 9}));
}

TEST_F(SaverTest, ShardedRefusesAnotherFormatBeforeWritingAnything) {
  TG_Session* sess = TwoVariables();
  TG_SaverOptions opts;
  TG_InitSaverOptions(&opts);
  opts.sharded = 1;
  TG_Saver* saver = NewSaver(&opts);
  TG_ASSERT_OK(s_);
  Save(saver, sess, (dir_ / "m.safetensors").string());
  EXPECT_EQ(code(), TG_UNIMPLEMENTED) << msg();
  EXPECT_TRUE(Contains(msg(), "safetensors")) << msg();
  EXPECT_TRUE(fs::is_empty(dir_));
}

// The resident high-water mark (VmHWM, bytes), after resetting it to the current resident
// size when `reset`; -1 when /proc cannot do that here.
int64_t ResidentPeak(bool reset) {
  if (reset) {
    std::ofstream clear("/proc/self/clear_refs");
    clear << "5";
    clear.close();
    if (!clear) return -1;
  }
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stoll(line.substr(6)) * 1024;
  }
  return -1;
}

// Issue 17: tensors of any size stream — a save writes each from the variable's own memory,
// a restore reads into the one tensor it assigns — so a 2 GiB variable never needs 4 GiB.
// Measured on a 256 MiB variable as the rise of the resident high-water mark, through both
// savers (the extension picks the format).
TEST_F(SaverTest, ALargeVariableSavesAndRestoresWithoutASecondCopy) {
  constexpr int32_t kElements = 64 << 20;
  constexpr int64_t kBytes = int64_t{kElements} * 4;
  TG_Operation* dims = ConstTensor(IntTensor({1}, {kElements}), "dims");
  TG_Operation* quarter = Binary("Fill", dims, ScalarConst(0.25f, "quarter_value"), "quarter");
  TG_VariableOptions vopts;
  TG_InitVariableOptions(&vopts);
  vopts.name = "big";
  TG_Variable* big = TG_GraphNewVariable(g_, tgtest::Out(quarter), &vopts, s_);
  TG_ASSERT_OK(s_);
  TG_Operation* init = Init();
  TG_Operation* clobber = Update(
      "Assign", big, tgtest::Out(Binary("Fill", dims, ScalarConst(-1.0f, "minus_one"), "minus")),
      "clobber");
  TG_Operation* read = TG_VariableReadValue(big).oper;
  TG_Operation* axis = ConstTensor(IntTensor({1}, {0}), "axis");
  TG_Operation* lowest = Binary("Min", read, axis, "lowest");
  TG_Operation* highest = Binary("Max", read, axis, "highest");
  TG_ASSERT_OK(s_);
  TG_Session* sess = NewSession();
  RunTargets(sess, {init});
  TG_ASSERT_OK(s_);
  TG_Saver* saver = NewSaver();
  TG_ASSERT_OK(s_);
  if (ResidentPeak(/*reset=*/true) < 0) GTEST_SKIP() << "/proc/self/clear_refs is not writable";

  for (const char* name : {"big", "big.safetensors"}) {
    SCOPED_TRACE(name);
    const int64_t before_save = ResidentPeak(/*reset=*/true);
    const std::string path = Save(saver, sess, (dir_ / name).string());
    TG_ASSERT_OK(s_);
    const int64_t save_rise = ResidentPeak(false) - before_save;
    EXPECT_LT(save_rise, kBytes / 4) << "the save copied the variable";

    RunTargets(sess, {clobber});
    TG_ASSERT_OK(s_);
    const int64_t before_restore = ResidentPeak(/*reset=*/true);
    TG_SaverRestore(saver, sess, path.c_str(), s_);
    TG_ASSERT_OK(s_);
    const int64_t restore_rise = ResidentPeak(false) - before_restore;
    // The restored tensor itself, and no more than a quarter of it besides.
    EXPECT_LT(restore_rise, kBytes + kBytes / 4) << "the restore held a second copy";
    std::cout << name << ": resident peak rose " << save_rise / 1024 << " KiB in the save and "
              << restore_rise / 1024 << " KiB in the restore of " << kBytes / 1024 << " KiB\n";
    EXPECT_EQ(RunFloats(sess, tgtest::Out(lowest)), std::vector<float>{0.25f});
    EXPECT_EQ(RunFloats(sess, tgtest::Out(highest)), std::vector<float>{0.25f});
  }
}

}  // namespace

