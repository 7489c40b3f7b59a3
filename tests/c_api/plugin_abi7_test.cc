// Plugin ABI 7 through the C API: input_version, the number that tells a kernel whether an
// input's bytes changed since it last saw them (what the oneDNN MatMul keeps its packed
// weights by). TestInputVersion (tests/plugin/good_plugin.cc) outputs the number its input
// has. A stale number is a silent wrong answer in the kernels that cache on it, so every
// way of writing a variable is here, each failing if the number does not move: Assign (same
// shape and a new one), AssignAdd, AssignSub, ScatterUpdate, the optimizers' Apply* kernels
// (Adam, gradient descent), re-running the initializer, a restore through the saver, and a
// plugin built against ABI 6 writing through mutable_ref_input. Also: a variable left alone
// keeps its number, a constant has one for good, feeds (a fed variable among them) and
// intermediate tensors have none (0). And a plugin built before ABI 7 keeps loading.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "c_api_test_util.h"
#include "gradient_check_util.h"
#include "session_test_util.h"
#include "tgraph/c_api.h"

namespace {

namespace fs = std::filesystem;
using tgtest::FloatTensor;
using tgtest::Out;

std::string Good(const std::string& name) {
  return std::string(TGRAPH_TEST_PLUGIN_DIR) + "/good/lib" + name + ".so";
}

class InputVersionTest : public tgtest::SessionTest {
 protected:
  void SetUp() override {
    SessionTest::SetUp();
    for (const std::string& path : {Good("tg_test_good"), Good("tg_test_abi_v6"),
                                   std::string(TGRAPH_SAVER_TF_PLUGIN_PATH)}) {
      ASSERT_NE(TG_LoadPlugin(path.c_str(), s_), nullptr) << path << ": " << msg();
    }
  }

  // TestInputVersion of `x` (stateful: never folded or merged).
  TG_Operation* VersionOf(TG_Output x, const char* name) {
    TG_Operation* op = OpOf("TestInputVersion", {x}, name);
    EXPECT_TRUE(tgtest::IsOk(s_)) << msg();
    return op;
  }
  // Runs `version` (with `feeds`, after `targets` in the same run when given) and returns
  // the number; -1 on failure.
  int64_t Version(TG_Session* session, TG_Operation* version, const tgtest::Feeds& feeds = {}) {
    std::vector<tgtest::TensorPtr> out = Run(session, feeds, {Out(version)});
    EXPECT_TRUE(tgtest::IsOk(s_)) << msg();
    if (out.size() != 1 || out[0] == nullptr) return -1;
    return *static_cast<const int64_t*>(TG_TensorData(out[0].get()));
  }

  // A [2, 3] variable w, the version of its read value (w/read, an Identity sharing the
  // variable's buffer) and of the variable's own output (a ref read as a value), and a
  // session in which it is initialized.
  void SetUpVariable() {
    w_ = Var("w", FloatTensor({2, 3}, {1, 2, 3, 4, 5, 6}));
    read_version_ = VersionOf(Read(w_), "read_version");
    ref_version_ = VersionOf(TG_VariableOutput(w_), "ref_version");
    init_ = Init();
    session_ = NewSession();
    RunTargets(session_, {init_});
    ASSERT_TRUE(tgtest::IsOk(s_)) << msg();
  }

  // The variable's number now: non-zero, the same through w/read and the ref, and the same
  // on a second read (nothing wrote it in between).
  int64_t Current() {
    const int64_t v = Version(session_, read_version_);
    EXPECT_NE(v, 0) << "a variable's bytes have a number";
    EXPECT_EQ(Version(session_, ref_version_), v) << "read through the ref";
    EXPECT_EQ(Version(session_, read_version_), v) << "a second read without a write";
    return v;
  }

  // Runs `write` as a target and checks that the number moved and is stable after.
  void ExpectWriteRenumbers(TG_Operation* write, const std::string& what) {
    SCOPED_TRACE(what);
    const int64_t before = Current();
    RunTargets(session_, {write});
    ASSERT_TRUE(tgtest::IsOk(s_)) << msg();
    const int64_t after = Current();
    EXPECT_NE(after, before) << what << " wrote the variable but its number did not move";
  }

  TG_Variable* w_ = nullptr;
  TG_Operation* read_version_ = nullptr;
  TG_Operation* ref_version_ = nullptr;
  TG_Operation* init_ = nullptr;
  TG_Session* session_ = nullptr;
};

TEST_F(InputVersionTest, AVariableKeepsItsNumberUntilWritten) {
  SetUpVariable();
  const int64_t v = Current();
  // Reading it (a fetch, a kernel reading it) is no write.
  EXPECT_EQ(RunFloats(session_, Read(w_)), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(Current(), v);
  // Another session's plan over the same graph has its own variable: another number.
  TG_Session* other = NewSession();
  RunTargets(other, {init_});
  TG_ASSERT_OK(s_);
  const int64_t o = Version(other, read_version_);
  EXPECT_NE(o, 0);
  EXPECT_NE(o, v);
}

TEST_F(InputVersionTest, AssignRenumbers) {
  SetUpVariable();
  TG_Operation* same = Update("Assign", w_, Out(ConstTensor(FloatTensor({2, 3}, {6, 5, 4, 3, 2, 1}))),
                              "assign_same_shape");
  ExpectWriteRenumbers(same, "Assign");
  EXPECT_EQ(RunFloats(session_, Read(w_)), (std::vector<float>{6, 5, 4, 3, 2, 1}));
  // A new shape (validate_shape false) replaces the buffer: a new number too.
  TG_Operation* reshape = Update("Assign", w_, Out(ConstTensor(FloatTensor({3}, {7, 8, 9}))),
                                 "assign_new_shape", "validate_shape", false);
  ExpectWriteRenumbers(reshape, "Assign with a new shape");
  EXPECT_EQ(RunFloats(session_, Read(w_)), (std::vector<float>{7, 8, 9}));
  // Assigning the same values again is still a write.
  ExpectWriteRenumbers(reshape, "Assign of equal values");
}

TEST_F(InputVersionTest, AssignAddAndAssignSubRenumber) {
  SetUpVariable();
  TG_Output ones = Out(ConstTensor(FloatTensor({2, 3}, {1, 1, 1, 1, 1, 1})));
  ExpectWriteRenumbers(Update("AssignAdd", w_, ones, "add"), "AssignAdd");
  ExpectWriteRenumbers(Update("AssignSub", w_, ones, "sub"), "AssignSub");
  ExpectWriteRenumbers(Update("AssignAdd", w_, ones, "add_locked", "use_locking", true),
                       "AssignAdd with use_locking");
}

TEST_F(InputVersionTest, ScatterUpdateRenumbers) {
  SetUpVariable();
  TG_Operation* scatter = OpOf("ScatterUpdate",
                               {TG_VariableOutput(w_), tgtest::ConstInt32(g_, {1}),
                                Out(ConstTensor(FloatTensor({1, 3}, {0, 0, 0})))},
                               "scatter");
  TG_ASSERT_OK(s_);
  ExpectWriteRenumbers(scatter, "ScatterUpdate");
  EXPECT_EQ(RunFloats(session_, Read(w_)), (std::vector<float>{1, 2, 3, 0, 0, 0}));
}

TEST_F(InputVersionTest, OptimizerUpdatesRenumber) {
  SetUpVariable();
  const TG_Output loss =
      tgtest::AddOp(g_, "Sum", {tgtest::AddOp(g_, "Mul", {Read(w_), Read(w_)}),
                                tgtest::ConstInt32(g_, {0, 1})});
  for (TG_OptimizerKind kind : {TG_OPTIMIZER_ADAM, TG_OPTIMIZER_GRADIENT_DESCENT}) {
    TG_OptimizerOptions opts;
    TG_InitOptimizerOptions(&opts, kind);
    opts.learning_rate = 0.1;
    TG_Optimizer* opt = TG_NewOptimizer(&opts, s_);
    TG_ASSERT_OK(s_);
    TG_Variable* vars[] = {w_};
    TG_Operation* train = TG_OptimizerMinimize(opt, g_, loss, vars, 1, nullptr, s_);
    TG_DeleteOptimizer(opt);
    TG_ASSERT_OK(s_);
    // The optimizer's slots need initializing (a new session sees the new graph).
    session_ = NewSession();
    RunTargets(session_, {Init()});
    TG_ASSERT_OK(s_);
    const std::vector<float> before = RunFloats(session_, Read(w_));
    ExpectWriteRenumbers(train, kind == TG_OPTIMIZER_ADAM ? "ApplyAdam" : "ApplyGradientDescent");
    EXPECT_NE(RunFloats(session_, Read(w_)), before) << "the step changed the weights";
  }
}

TEST_F(InputVersionTest, ReinitializingRenumbers) {
  SetUpVariable();
  ExpectWriteRenumbers(init_, "the initializer run again");
  ExpectWriteRenumbers(TG_VariableInitializer(w_), "the variable's own initializer");
}

TEST_F(InputVersionTest, RestoringRenumbers) {
  SetUpVariable();
  TG_Saver* saver = TG_NewSaver(g_, nullptr, s_);
  TG_ASSERT_OK(s_);
  const fs::path dir = fs::temp_directory_path() /
                       ("tgraph_input_version_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const char* path = TG_SaverSave(saver, session_, (dir / "model.ckpt").string().c_str(), nullptr,
                                  nullptr, nullptr, s_);
  ASSERT_TRUE(tgtest::IsOk(s_)) << msg();
  const std::string saved = path;
  const int64_t before = Current();
  TG_SaverRestore(saver, session_, saved.c_str(), s_);
  TG_EXPECT_OK(s_);
  EXPECT_NE(Current(), before) << "a restore wrote the variable but its number did not move";
  // Restoring over changed values brings the saved ones back (the number moves again).
  RunTargets(session_, {Update("Assign", w_, Out(ConstTensor(FloatTensor({2, 3}, {0, 0, 0, 0, 0, 0}))),
                               "zero")});
  TG_ASSERT_OK(s_);
  const int64_t zeroed = Current();
  TG_SaverRestore(saver, session_, saved.c_str(), s_);
  TG_EXPECT_OK(s_);
  EXPECT_NE(Current(), zeroed);
  EXPECT_EQ(RunFloats(session_, Read(w_)), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  TG_DeleteSaver(saver);
  std::error_code ec;
  fs::remove_all(dir, ec);
}

// The numbering is the core's: a plugin that knows nothing of ABI 7 writing a variable in
// place (mutable_ref_input) renumbers it too, when it asks for the variable and again when
// it returns.
TEST_F(InputVersionTest, AnAbi6PluginsWriteRenumbers) {
  SetUpVariable();
  TG_Operation* twice = OpOf("TestV6Double", {TG_VariableOutput(w_)}, "double");
  TG_ASSERT_OK(s_);
  ExpectWriteRenumbers(twice, "an ABI 6 kernel's mutable_ref_input");
  EXPECT_EQ(RunFloats(session_, Read(w_)), (std::vector<float>{2, 4, 6, 8, 10, 12}));
}

// A reader that runs after a write in the same run sees the number the write left, the
// one later runs see: the number given when the writing kernel returned.
TEST_F(InputVersionTest, AReaderAfterAWriteInTheSameRunSeesTheFinalNumber) {
  SetUpVariable();
  TG_Operation* add = Update("AssignAdd", w_, Out(ConstTensor(FloatTensor({2, 3}, {1, 1, 1, 1, 1, 1}))),
                             "add");
  TG_OperationDescription* d = TG_NewOperation(g_, "TestInputVersion", "after_add");
  TG_AddInput(d, Read(w_));
  TG_AddControlInput(d, add);
  TG_Operation* after = TG_FinishOperation(d, s_);
  TG_ASSERT_OK(s_);
  const int64_t before = Current();
  const int64_t in_run = Version(session_, after);
  EXPECT_NE(in_run, before);
  EXPECT_EQ(Current(), in_run);
}

// A reader running while a kernel writes the variable sees the number mutable_ref_input
// gave; when the writer returns the variable is renumbered again, so whatever that reader
// kept of the half-written bytes is never matched.
TEST_F(InputVersionTest, AWriterThatReturnedLeavesANumberNoConcurrentReaderSaw) {
  SetUpVariable();
  TG_Operation* write = OpOf("TestVersionDuringWrite", {TG_VariableOutput(w_)}, "write");
  TG_ASSERT_OK(s_);
  const int64_t before = Current();
  const int64_t during = Version(session_, write);
  EXPECT_NE(during, 0);
  EXPECT_NE(during, before) << "mutable_ref_input renumbers before the write";
  EXPECT_NE(Current(), during) << "the writer's return renumbers after the write";
  EXPECT_EQ(RunFloats(session_, Read(w_)), (std::vector<float>{2, 3, 4, 5, 6, 7}));
}

TEST_F(InputVersionTest, FeedingTheVariablesTensorGivesNoNumber) {
  SetUpVariable();
  const int64_t before = Current();
  tgtest::TensorPtr fed = FloatTensor({2, 3}, {9, 9, 9, 9, 9, 9});
  EXPECT_EQ(Version(session_, read_version_, {{TG_VariableOutput(w_), fed.get()}}), 0)
      << "a fed tensor's bytes are the caller's: no number";
  EXPECT_EQ(Version(session_, read_version_, {{Read(w_), fed.get()}}), 0);
  EXPECT_EQ(RunFloats(session_, Read(w_), {{TG_VariableOutput(w_), fed.get()}}),
            (std::vector<float>(6, 9.0f)));
  // The variable itself was not written: its number and values are as before.
  EXPECT_EQ(Current(), before);
  EXPECT_EQ(RunFloats(session_, Read(w_)), (std::vector<float>{1, 2, 3, 4, 5, 6}));
}

TEST_F(InputVersionTest, ConstantsHaveOneNumberFeedsAndIntermediatesNone) {
  TG_Operation* c = ConstTensor(FloatTensor({2}, {1, 2}), "c");
  TG_Operation* c_version = VersionOf(Out(c), "c_version");
  TG_OperationDescription* pd = TG_NewOperation(g_, "Placeholder", "x");
  TG_SetAttrType(pd, "dtype", TG_FLOAT);
  TG_Operation* x = TG_FinishOperation(pd, s_);
  TG_ASSERT_OK(s_);
  TG_Operation* x_version = VersionOf(Out(x), "x_version");
  TG_Operation* sum_version = VersionOf(tgtest::AddOp(g_, "Add", {Out(x), Out(c)}), "sum_version");
  TG_Session* session = NewSession();
  const int64_t cv = Version(session, c_version);
  EXPECT_NE(cv, 0) << "a constant's bytes have a number";
  EXPECT_EQ(Version(session, c_version), cv) << "for the plan's life";
  tgtest::TensorPtr value = FloatTensor({2}, {3, 4});
  EXPECT_EQ(Version(session, x_version, {{Out(x), value.get()}}), 0) << "a feed";
  EXPECT_EQ(Version(session, sum_version, {{Out(x), value.get()}}), 0) << "an intermediate";
  // Feeding the constant's output replaces it for that run: no number then.
  EXPECT_EQ(Version(session, c_version, {{Out(c), value.get()}}), 0);
  EXPECT_EQ(Version(session, c_version), cv);
}

// Built against plugin.h as of ABI 6 (tests/plugin/abi_v6): loads and runs in this core.
TEST_F(InputVersionTest, AnAbi6PluginLoadsAndRuns) {
  const TG_Plugin* p = TG_LoadPlugin(Good("tg_test_abi_v6").c_str(), s_);
  TG_ASSERT_OK(s_);
  EXPECT_EQ(TG_PluginAbiVersion(p), 6u);
  EXPECT_STREQ(TG_PluginName(p), "test_abi_v6");
  TG_Variable* v = Var("v6_var", FloatTensor({2}, {1.5f, -2}));
  TG_Operation* twice = OpOf("TestV6Double", {TG_VariableOutput(v)}, "v6_double");
  TG_ASSERT_OK(s_);
  TG_Session* session = NewSession();
  RunTargets(session, {Init()});
  TG_ASSERT_OK(s_);
  EXPECT_EQ(RunFloats(session, Out(twice)), (std::vector<float>{3}));
  EXPECT_EQ(RunFloats(session, Read(v)), (std::vector<float>{3, -4}));
}

}  // namespace
