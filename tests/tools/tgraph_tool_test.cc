// The `tgraph` tool end to end: the test writes small graph files through the C API, runs the
// tool as a separate process and checks its exit code, stdout and stderr. Bad input must give
// a message naming the culprit on stderr and exit code 1 (2 for usage errors), never a crash.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tensor_io.h"
#include "tgraph/c_api.h"

namespace {

namespace fs = std::filesystem;

struct ToolResult {
  bool exited = false;  // false: killed by a signal (a crash)
  int code = -1;
  std::string out, err;
};

std::string Quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string ReadText(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void WriteText(const fs::path& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

bool Contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

class ToolTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new fs::path(fs::temp_directory_path() /
                        (std::string("tgraph_tool_test_") + std::to_string(::getpid())));
    fs::create_directories(*dir_);
    WriteGraphFiles();
  }
  static void TearDownTestSuite() {
    fs::remove_all(*dir_);
    delete dir_;
  }

  static std::string File(const std::string& name) { return (*dir_ / name).string(); }

  // Runs `tgraph args...` with only the CPU plugin on the search path (plus `plugin_path`).
  static ToolResult Tool(const std::vector<std::string>& args,
                         const std::string& plugin_path = "") {
    std::string search = plugin_path;
#ifdef TGRAPH_CPU_PLUGIN_PATH
    if (!search.empty()) search += ":";
    search += TGRAPH_CPU_PLUGIN_PATH;  // a name that stands for the best CPU variant
#endif
    std::string command =
        std::string("TGRAPH_PLUGIN_PATH=") + Quote(search) + " " + Quote(TGRAPH_TOOL_PATH);
    for (const std::string& a : args) command += std::string(" ") + Quote(a);
    fs::path out = *dir_ / "stdout.txt", err = *dir_ / "stderr.txt";
    command += std::string(" >") + Quote(out.string()) + " 2>" + Quote(err.string());
    int status = std::system(command.c_str());
    ToolResult result;
    result.exited = status != -1 && WIFEXITED(status);
    result.code = result.exited ? WEXITSTATUS(status) : -1;
    result.out = ReadText(out);
    result.err = ReadText(err);
    return result;
  }

  static void ExpectFailure(const ToolResult& r, int code, const std::string& in_stderr) {
    EXPECT_TRUE(r.exited) << "crashed: " << r.err;
    EXPECT_EQ(r.code, code) << r.err;
    EXPECT_TRUE(Contains(r.err, in_stderr)) << "stderr: " << r.err;
  }

  static void ExpectSuccess(const ToolResult& r) {
    ASSERT_TRUE(r.exited) << "crashed: " << r.err;
    ASSERT_EQ(r.code, 0) << r.err;
  }

 private:
  static TG_Operation* Finish(TG_OperationDescription* d, TG_Status* s) {
    TG_Operation* op = TG_FinishOperation(d, s);
    EXPECT_EQ(TG_GetCode(s), TG_OK) << TG_Message(s);
    return op;
  }

  // x: float [2] placeholder; math/c = [1, 2]; math/add = x + c; math/square = add * add with
  // a control input on `init` (a NoOp); unused = a Const nothing needs.
  static void WriteGraphFiles() {
    TG_Status* s = TG_NewStatus();
    TG_Graph* g = TG_NewGraph();
    TG_OperationDescription* d = TG_NewOperation(g, "Placeholder", "x");
    TG_SetAttrType(d, "dtype", TG_FLOAT);
    int64_t dims[] = {2};
    TG_SetAttrShape(d, "shape", dims, 1);
    TG_Operation* x = Finish(d, s);
    TG_Operation* init = Finish(TG_NewOperation(g, "NoOp", "init"), s);
    TG_GraphPushNameScope(g, "math", s);
    TG_Tensor* value = TG_AllocateTensor(TG_FLOAT, dims, 1, 2 * sizeof(float));
    static_cast<float*>(TG_TensorData(value))[0] = 1;
    static_cast<float*>(TG_TensorData(value))[1] = 2;
    d = TG_NewOperation(g, "Const", "c");
    TG_SetAttrTensor(d, "value", value, s);
    TG_SetAttrType(d, "dtype", TG_FLOAT);
    TG_Operation* c = Finish(d, s);
    d = TG_NewOperation(g, "AddV2", "add");
    TG_AddInput(d, TG_Output{x, 0});
    TG_AddInput(d, TG_Output{c, 0});
    TG_Operation* add = Finish(d, s);
    d = TG_NewOperation(g, "Mul", "square");
    TG_AddInput(d, TG_Output{add, 0});
    TG_AddInput(d, TG_Output{add, 0});
    TG_AddControlInput(d, init);
    Finish(d, s);
    TG_GraphPopNameScope(g, s);
    d = TG_NewOperation(g, "Const", "unused");
    TG_SetAttrTensor(d, "value", value, s);
    TG_SetAttrType(d, "dtype", TG_FLOAT);
    Finish(d, s);

    TG_Buffer* buffer = TG_NewBuffer();
    TG_GraphToGraphDef(g, buffer, s);
    std::string binary(static_cast<const char*>(buffer->data), buffer->length);
    TG_GraphToGraphDefText(g, buffer, s);
    std::string text(static_cast<const char*>(buffer->data), buffer->length);
    WriteText(File("graph.pb"), binary);
    WriteText(File("graph.pbtxt"), text);
    WriteText(File("truncated.pb"), binary.substr(0, binary.size() / 2));
    WriteText(File("garbage.bin"), std::string("\x01\x02\xff\xfe garbage \x07", 14));
    WriteText(File("notproto.txt"), "hello, this is not a graph\n");
    WriteText(File("unknown_op.pbtxt"),
              "node { name: \"weird\" op: \"NoSuchOpHere\" }\n"
              "node { name: \"id\" op: \"Identity\" input: \"weird\" "
              "attr { key: \"T\" value { type: DT_FLOAT } } device: \"/device:GPU:3\" }\n");
    WriteText(File("functions.pbtxt"),
              "node { name: \"x\" op: \"Placeholder\" attr { key: \"dtype\" value { type: DT_FLOAT } } }\n"
              "node { name: \"call\" op: \"PartitionedCall\" input: \"x\" "
              "attr { key: \"Tin\" value { list { type: DT_FLOAT } } } "
              "attr { key: \"Tout\" value { list { type: DT_FLOAT } } } "
              "attr { key: \"f\" value { func { name: \"f\" } } } }\n"
              "library { function { signature { name: \"f\" input_arg { name: \"a\" type: DT_FLOAT } "
              "output_arg { name: \"b\" type: DT_FLOAT } } "
              "node_def { name: \"n\" op: \"NoSuchOpInBody\" input: \"a\" } ret { key: \"b\" value: \"n:y:0\" } } }\n");
    WriteText(File("meta.pbtxt"),
              "graph_def { node { name: \"v\" op: \"VariableV2\" "
              "attr { key: \"dtype\" value { type: DT_FLOAT } } "
              "attr { key: \"shape\" value { shape { dim { size: 3 } } } } } }\n"
              "collection_def { key: \"train_op\" value { node_list { value: \"v\" } } }\n");
    WriteText(File("bad.so"), "not a shared library");

    // .npy feeds: the right float [2], and an int32 [2] (wrong dtype for x).
    TG_Tensor* ints = TG_AllocateTensor(TG_INT32, dims, 1, 2 * sizeof(int32_t));
    tgraph::tool::WriteNpy(File("x.npy"), value, s);
    tgraph::tool::WriteNpy(File("ints.npy"), ints, s);
    TG_DeleteTensor(ints);
    TG_DeleteTensor(value);
    TG_DeleteBuffer(buffer);
    TG_DeleteGraph(g);
    TG_DeleteStatus(s);
  }

  static fs::path* dir_;
};

fs::path* ToolTest::dir_ = nullptr;

// ---- the program ----

TEST_F(ToolTest, VersionIsTheLibrarys) {
  ToolResult r = Tool({"--version"});
  ExpectSuccess(r);
  EXPECT_EQ(r.out, std::string("tgraph ") + TG_Version() + "\n");
}

TEST_F(ToolTest, EverySubcommandHasHelp) {
  for (const char* command : {"plugins", "ops", "info", "run", "dot", "bench"}) {
    SCOPED_TRACE(command);
    ToolResult r = Tool({command, "--help"});
    ExpectSuccess(r);
    EXPECT_TRUE(Contains(r.out, std::string("tgraph ") + command)) << r.out;
    EXPECT_TRUE(Contains(r.out, "--load")) << r.out;
  }
  const std::string info_help = Tool({"info", "--help"}).out;
  EXPECT_TRUE(Contains(info_help, "checkpoint prefix")) << info_help;
  EXPECT_TRUE(Contains(info_help, "--tensor")) << info_help;
  EXPECT_TRUE(Contains(info_help, "--npy")) << info_help;
  ToolResult r = Tool({"--help"});
  ExpectSuccess(r);
  EXPECT_TRUE(Contains(r.out, "bench")) << r.out;
}

TEST_F(ToolTest, UsageErrorsExitWithTwo) {
  ExpectFailure(Tool({}), 2, "subcommand");
  ExpectFailure(Tool({"frobnicate"}), 2, "subcommand");
  ExpectFailure(Tool({"info"}), 2, "FILE");
  ExpectFailure(Tool({"run", File("graph.pb"), "--repeat", "0"}), 2, "--repeat");
  ExpectFailure(Tool({"run", File("graph.pb")}), 2, "--fetch");
}

// ---- plugins ----

TEST_F(ToolTest, PluginsListsWhatLoadedAndWhyAFileFailed) {
  ToolResult r = Tool({"plugins"}, File("bad.so"));
  ExpectSuccess(r);
  EXPECT_TRUE(Contains(r.out, std::string("Plugin search path:\n  ") + File("bad.so"))) << r.out;
  EXPECT_TRUE(Contains(r.out, File("bad.so") + ": FAILED: ")) << r.out;
#ifdef TGRAPH_CPU_PLUGIN_PATH
  EXPECT_TRUE(Contains(r.out, ": loaded\n")) << r.out;
  EXPECT_TRUE(Contains(r.out, "devices (1): CPU")) << r.out;
  EXPECT_TRUE(Contains(r.out, "for CPU, op types")) << r.out;
#endif
}

// Two CPU variants of one plugin (only one is chosen, whatever this CPU) and a plugin file
// whose name an earlier file of the search path already took.
TEST_F(ToolTest, PluginsSaysWhyFilesWereSkipped) {
  fs::path dir = fs::path(File("plugins"));
  fs::create_directories(dir);
  WriteText(dir / "libfake.x86-64.so", "not a shared library");
  WriteText(dir / "libfake.x86-64-v4.so", "not a shared library");
  std::string good_dir = std::string(TGRAPH_TEST_PLUGIN_DIR) + "/good";
  fs::copy_file(good_dir + "/libtg_test_good.so", dir / "libtg_test_good.so",
                fs::copy_options::overwrite_existing);
  ToolResult r = Tool({"plugins"}, dir.string() + ":" + good_dir);
  ExpectSuccess(r);
  EXPECT_TRUE(Contains(r.out, "CPU variant level: x86-64")) << r.out;
  EXPECT_TRUE(Contains(r.out, ".so: skipped (CPU variant not chosen): ")) << r.out;
  EXPECT_TRUE(Contains(r.out, ".so: FAILED: ")) << r.out;
  EXPECT_TRUE(Contains(r.out, (dir / "libtg_test_good.so").string() + ": loaded\n")) << r.out;
  EXPECT_TRUE(Contains(r.out, good_dir + "/libtg_test_good.so: skipped (shadowed): ")) << r.out;
  EXPECT_TRUE(Contains(r.out, "name test_good, version 1.2.3, ABI ")) << r.out;
}

TEST_F(ToolTest, PluginsLoadsExtraFiles) {
  std::string good = std::string(TGRAPH_TEST_PLUGIN_DIR) + "/good/libtg_test_good.so";
  ToolResult r = Tool({"plugins", "--verbose", "--load", good});
  ExpectSuccess(r);
  EXPECT_TRUE(Contains(r.out, "TestScaleAdd")) << r.out;
  EXPECT_TRUE(Contains(r.out, "savers (1): test_memory")) << r.out;
  ExpectFailure(Tool({"plugins", "--load", File("bad.so")}), 1, File("bad.so"));
}

// A plugin's kernels that outrank another plugin's are listed as overrides, with its name
// and version.
TEST_F(ToolTest, PluginsListKernelOverrides) {
  const std::string dir = std::string(TGRAPH_TEST_PLUGIN_DIR);
  ToolResult r = Tool({"plugins", "--load", dir + "/good/libtg_test_abi_v1.so", "--load",
                       dir + "/override/libtg_test_override.so"});
  ExpectSuccess(r);
  EXPECT_TRUE(Contains(r.out, "    overrides (1)\n      kernel TestV1Negate on CPU [T in {float}] "
                              "priority 5 overrides TestV1Negate on CPU"))
      << r.out;
  EXPECT_TRUE(Contains(r.out, "of plugin 'test_abi_v1'")) << r.out;
}

// What a plugin logged while loading is listed, though it was not printed (INFO level).
TEST_F(ToolTest, PluginsShowWhatAPluginSaidWhileLoading) {
  std::string quiet = std::string(TGRAPH_TEST_PLUGIN_DIR) + "/variant/libtg_test_variant.so";
  ToolResult r = Tool({"plugins", "--load", quiet});
  ExpectSuccess(r);
  EXPECT_TRUE(Contains(r.out, "    said: INFO: test_variant: initialised\n")) << r.out;
  EXPECT_FALSE(Contains(r.err, "initialised")) << r.err;
}

// ---- ops ----

TEST_F(ToolTest, OpsShowsOneOpsSignature) {
  ToolResult r = Tool({"ops", "MatMul"});
  ExpectSuccess(r);
  EXPECT_TRUE(Contains(r.out, "MatMul(a: T, b: T) -> (product: T)")) << r.out;
  EXPECT_TRUE(Contains(r.out, "attr transpose_a: bool = false")) << r.out;
#ifdef TGRAPH_CPU_PLUGIN_PATH
  EXPECT_TRUE(Contains(r.out, "defined by: core; kernels: CPU")) << r.out;
#endif
}

TEST_F(ToolTest, OpsListsEveryOp) {
  ToolResult r = Tool({"ops"});
  ExpectSuccess(r);
  EXPECT_TRUE(Contains(r.out, "\nAddV2(x: T, y: T) -> (z: T)\n")) << r.out.substr(0, 2000);
  EXPECT_TRUE(Contains(r.out, "\nVariableV2() -> (ref: Ref(dtype))  [stateful]\n"));
}

TEST_F(ToolTest, OpsUnknownNameFailsNamingIt) {
  ExpectFailure(Tool({"ops", "NoSuchOpHere"}), 1, "NoSuchOpHere");
}

// ---- info ----

TEST_F(ToolTest, InfoDescribesABinaryGraphDef) {
  ToolResult r = Tool({"info", File("graph.pb")});
  ExpectSuccess(r);
  EXPECT_TRUE(Contains(r.out, File("graph.pb") + ": binary GraphDef, 6 nodes")) << r.out;
  EXPECT_TRUE(Contains(r.out, "       2  Const\n")) << r.out;
  EXPECT_TRUE(Contains(r.out, "Placeholders (1):\n  x: float [2] (Placeholder)")) << r.out;
  EXPECT_TRUE(Contains(r.out, "Variables (0):")) << r.out;
#ifdef TGRAPH_CPU_PLUGIN_PATH
  EXPECT_TRUE(Contains(r.out, "  nothing: every op is defined")) << r.out;
#endif
}

TEST_F(ToolTest, InfoReadsTextAndNamesWhatIsMissing) {
  ToolResult r = Tool({"info", File("unknown_op.pbtxt")});
  ExpectSuccess(r);
  EXPECT_TRUE(Contains(r.out, "text GraphDef, 2 nodes")) << r.out;
  EXPECT_TRUE(Contains(r.out, "op type not defined here: NoSuchOpHere (node weird)")) << r.out;
  EXPECT_TRUE(Contains(r.out, "Devices requested (1):\n  /device:GPU:3 (1 node)")) << r.out;
}

TEST_F(ToolTest, InfoListsFunctionsAndTheOpsTheirBodiesLack) {
  ToolResult r = Tool({"info", File("functions.pbtxt")});
  ExpectSuccess(r);
  EXPECT_TRUE(Contains(r.out, "Functions (1):\n  f (1 node)")) << r.out;
  EXPECT_TRUE(Contains(r.out, "op type not defined here: NoSuchOpInBody (in function f)")) << r.out;
#ifdef TGRAPH_CPU_PLUGIN_PATH
  EXPECT_FALSE(Contains(r.out, "PartitionedCall (")) << r.out;  // the call itself runs here
#endif
}

TEST_F(ToolTest, InfoShowsAMetaGraphDefsVariablesAndCollections) {
  ToolResult r = Tool({"info", File("meta.pbtxt")});
  ExpectSuccess(r);
  EXPECT_TRUE(Contains(r.out, "text MetaGraphDef, 1 nodes")) << r.out;
  EXPECT_TRUE(Contains(r.out, "Variables (1):\n  v: float [3] (VariableV2)")) << r.out;
  EXPECT_TRUE(Contains(r.out, "train_op (node_list, 1): v")) << r.out;
}

TEST_F(ToolTest, InfoRefusesBadFilesNamingThem) {
  ExpectFailure(Tool({"info", File("missing.pb")}), 1, File("missing.pb") + ": cannot open");
  ExpectFailure(Tool({"info", File("truncated.pb")}), 1,
                File("truncated.pb") + ": not a GraphDef or MetaGraphDef");
  ExpectFailure(Tool({"info", File("garbage.bin")}), 1, File("garbage.bin") + ": ");
  ExpectFailure(Tool({"info", File("notproto.txt")}), 1, "line 1");
}

// ---- info on checkpoints ----

// A checkpoint written through the C API (the tensorflow_v2 saver, found in the build
// tree's plugins/): "scope/w" float [2, 3], "names" string [2], "step" int64 scalar.
std::string WriteCheckpoint(const std::string& prefix) {
  TG_Status* s = TG_NewStatus();
  int64_t dims[] = {2, 3};
  TG_Tensor* w = TG_AllocateTensor(TG_FLOAT, dims, 2, 6 * sizeof(float));
  for (int i = 0; i < 6; ++i) static_cast<float*>(TG_TensorData(w))[i] = 0.5f * i;
  const char* strs[] = {"ab", "c"};
  size_t lens[] = {2, 1};
  int64_t two[] = {2};
  TG_Tensor* names = TG_NewStringTensor(two, 1, strs, lens, s);
  TG_Tensor* step = TG_AllocateTensor(TG_INT64, nullptr, 0, sizeof(int64_t));
  *static_cast<int64_t*>(TG_TensorData(step)) = 42;
  const char* keys[] = {"scope/w", "names", "step"};
  TG_Tensor* tensors[] = {w, names, step};
  TG_CheckpointWrite(prefix.c_str(), keys, tensors, 3, s);
  std::string result = TG_GetCode(s) == TG_OK ? "" : TG_Message(s);
  for (TG_Tensor* t : tensors) TG_DeleteTensor(t);
  TG_DeleteStatus(s);
  return result;
}

TEST_F(ToolTest, InfoListsACheckpoint) {
  ASSERT_EQ(WriteCheckpoint(File("ckpt/model")), "");
  ToolResult r = Tool({"info", File("ckpt/model")});
  ExpectSuccess(r);
  EXPECT_TRUE(Contains(r.out, File("ckpt/model") + ": checkpoint (tensorflow_v2), 3 tensors, 32 "
                                "bytes (strings not counted)\n"))
      << r.out;
  EXPECT_TRUE(Contains(r.out, "  names: string [2] (strings)\n"
                              "  scope/w: float [2, 3] (24 bytes)\n"
                              "  step: int64 [] (8 bytes)\n"))
      << r.out;
  // A checkpoint's own files name it too.
  for (const char* file : {"ckpt/model.index", "ckpt/model.data-00000-of-00001"}) {
    r = Tool({"info", File(file)});
    ExpectSuccess(r);
    EXPECT_TRUE(Contains(r.out, File("ckpt/model") + ": checkpoint (tensorflow_v2)")) << r.out;
  }
}

TEST_F(ToolTest, InfoPrintsCheckpointTensorsAndWritesNpy) {
  ASSERT_EQ(WriteCheckpoint(File("ckpt2/model")), "");
  ToolResult r = Tool({"info", File("ckpt2/model"), "--tensor", "scope/w", "--tensor", "step"});
  ExpectSuccess(r);
  EXPECT_TRUE(Contains(r.out, "scope/w = array([[0. , 0.5, 1. ],\n       [1.5, 2. , 2.5]], "
                              "dtype=float32)\n"))
      << r.out;
  EXPECT_TRUE(Contains(r.out, "step = array(42)\n")) << r.out;

  const std::string npy_dir = File("npy_out");
  r = Tool({"info", File("ckpt2/model"), "--npy", npy_dir});
  ExpectSuccess(r);
  EXPECT_TRUE(Contains(r.out, "wrote " + npy_dir + "/scope/w.npy")) << r.out;
  TG_Status* s = TG_NewStatus();
  TG_Tensor* w = tgraph::tool::ReadNpy(npy_dir + "/scope/w.npy", s);
  ASSERT_EQ(TG_GetCode(s), TG_OK) << TG_Message(s);
  EXPECT_EQ(TG_NumDims(w), 2);
  EXPECT_EQ(static_cast<float*>(TG_TensorData(w))[5], 2.5f);
  TG_DeleteTensor(w);
  TG_DeleteStatus(s);
  EXPECT_TRUE(fs::exists(npy_dir + "/names.npy"));
  EXPECT_TRUE(fs::exists(npy_dir + "/step.npy"));
}

TEST_F(ToolTest, InfoRefusesBadCheckpointsNamingThem) {
  const std::string prefix = File("ckpt3/model");
  ASSERT_EQ(WriteCheckpoint(prefix), "");
  ExpectFailure(Tool({"info", prefix, "--tensor", "nope"}), 1, "'nope'");
  std::string data = ReadText(prefix + ".data-00000-of-00001");
  data[0] = static_cast<char>(data[0] ^ 1);
  WriteText(prefix + ".data-00000-of-00001", data);
  ExpectFailure(Tool({"info", prefix, "--tensor", "scope/w"}), 1, "checksum mismatch");
  fs::resize_file(prefix + ".index", 20);
  ExpectFailure(Tool({"info", prefix}), 1, prefix + ".index");
  ExpectFailure(Tool({"info", File("ckpt3/none"), "--tensor", "x"}), 1,
                File("ckpt3/none") + ".index");
}

// ---- run ----

#ifdef TGRAPH_CPU_PLUGIN_PATH

TEST_F(ToolTest, RunFeedsLiteralsAndPrintsFetches) {
  for (const char* file : {"graph.pb", "graph.pbtxt"}) {
    ToolResult r = Tool({"run", File(file), "--feed", "x=[1, 2]", "--fetch", "math/add", "--fetch",
                         "math/square:0"});
    ExpectSuccess(r);
    EXPECT_TRUE(Contains(r.out, "math/add = array([2., 4.], dtype=float32)\n")) << r.out;
    EXPECT_TRUE(Contains(r.out, "math/square:0 = array([ 4., 16.], dtype=float32)\n")) << r.out;
  }
}

TEST_F(ToolTest, RunFeedsNpyFilesTracesAndTimes) {
  ToolResult r = Tool({"run", File("graph.pb"), "--feed", std::string("x=") + File("x.npy"),
                       "--fetch", "math/add", "--target", "init", "--repeat", "3", "--trace"});
  ExpectSuccess(r);
  EXPECT_TRUE(Contains(r.out, "math/add = array([2., 4.], dtype=float32)")) << r.out;
  EXPECT_TRUE(Contains(r.out, "duration")) << r.out;
  EXPECT_TRUE(Contains(r.out, "AddV2")) << r.out;
  EXPECT_TRUE(Contains(r.out, "runs: 3; per run: min ")) << r.out;
}

TEST_F(ToolTest, RunRefusesBadFetchesAndFeeds) {
  ExpectFailure(Tool({"run", File("graph.pb"), "--fetch", "nosuch"}), 1, "nosuch");
  ExpectFailure(Tool({"run", File("graph.pb"), "--fetch", "math/add"}), 1, "x");
  ExpectFailure(Tool({"run", File("graph.pb"), "--feed", "x=[1, 2, 3]", "--fetch", "math/add"}), 1,
                "x");
  ExpectFailure(Tool({"run", File("graph.pb"), "--feed", std::string("x=") + File("ints.npy"),
                      "--fetch", "math/add"}),
                1, "int32");
  ExpectFailure(Tool({"run", File("graph.pb"), "--feed", "x=abc", "--fetch", "math/add"}), 1,
                "--feed x");
  ExpectFailure(Tool({"run", File("graph.pb"), "--feed", "x", "--fetch", "math/add"}), 2,
                "NAME=VALUE");
  ExpectFailure(Tool({"run", File("graph.pb"), "--target", "nosuchop"}), 1, "nosuchop");
  ExpectFailure(Tool({"run", File("graph.pb"), "--feed", "x=[1, 2]", "--fetch", "math/add",
                      "--device", "/device:NOSUCH:0"}),
                1, "/device:NOSUCH:0");
  ExpectFailure(Tool({"run", File("truncated.pb"), "--fetch", "x"}), 1, File("truncated.pb"));
  ExpectFailure(Tool({"run", File("unknown_op.pbtxt"), "--fetch", "id"}), 1, "NoSuchOpHere");
}

// ---- bench ----

TEST_F(ToolTest, BenchReportsLatencyAndThroughput) {
  ToolResult r = Tool({"bench", File("graph.pb"), "--feed", "x=[1, 2]", "--fetch", "math/square",
                       "--warmup", "2", "--runs", "5"});
  ExpectSuccess(r);
  EXPECT_TRUE(Contains(r.out, "5 runs after 2 warm-up runs")) << r.out;
  EXPECT_TRUE(Contains(r.out, "latency per run: median ")) << r.out;
  EXPECT_TRUE(Contains(r.out, " runs/s")) << r.out;
  ExpectFailure(Tool({"bench", File("graph.pb"), "--fetch", "math/add", "--runs", "0"}), 2,
                "--runs");
}

#endif  // TGRAPH_CPU_PLUGIN_PATH

// ---- dot ----

TEST_F(ToolTest, DotDrawsScopesAsClustersAndControlEdgesDashed) {
  ToolResult r = Tool({"dot", File("graph.pb")});
  ExpectSuccess(r);
  EXPECT_TRUE(Contains(r.out, "digraph tgraph {")) << r.out;
  EXPECT_TRUE(Contains(r.out, "subgraph cluster_math {")) << r.out;
  EXPECT_TRUE(Contains(r.out, "style=dashed")) << r.out;
  EXPECT_TRUE(Contains(r.out, "unused")) << r.out;
}

TEST_F(ToolTest, DotPrunesToWhatTheFetchesNeed) {
  ToolResult r = Tool({"dot", File("graph.pbtxt"), "--fetch", "math/add:0", "-o", File("add.dot")});
  ExpectSuccess(r);
  std::string dot = ReadText(File("add.dot"));
  EXPECT_TRUE(Contains(dot, "math/add")) << dot;
  EXPECT_TRUE(Contains(dot, "\"x\\nPlaceholder\"")) << dot;
  EXPECT_FALSE(Contains(dot, "unused")) << dot;
  EXPECT_FALSE(Contains(dot, "square")) << dot;
  ExpectFailure(Tool({"dot", File("graph.pb"), "--fetch", "nosuch"}), 1, "nosuch");
}

}  // namespace
