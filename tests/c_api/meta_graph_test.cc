// MetaGraphs through the C API: export options, import into a fresh graph with the SaverDef
// handed back, imported variables that sessions initialize and read, files, bad input.
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "session_test_util.h"

namespace {

using tgtest::Contains;
using tgtest::Out;

class MetaGraphTest : public tgtest::SessionTest {
 protected:
  // model/W (2x2 of 1.5, trainable), model/y = Mul(W/read, x), train_op "train" and user
  // collections of every kind.
  void Build(TG_Graph* g) {
    TG_GraphPushNameScope(g, "model", s_);
    TG_ASSERT_OK(s_);
    auto value = tgtest::FloatTensor({2, 2}, {1.5f, 1.5f, 1.5f, 1.5f});
    TG_VariableOptions vopts;
    TG_InitVariableOptions(&vopts);
    vopts.name = "W";
    TG_Variable* w = TG_GraphNewVariableFromTensor(g, value.get(), &vopts, s_);
    TG_ASSERT_OK(s_);
    auto xv = tgtest::FloatTensor({2, 2}, {1, 2, 3, 4});
    TG_Operation* x = ConstOf(g, xv.get(), "x");
    TG_OperationDescription* d = TG_NewOperation(g, "Mul", "y");
    TG_AddInput(d, TG_VariableReadValue(w));
    TG_AddInput(d, Out(x));
    TG_Operation* y = TG_FinishOperation(d, s_);
    TG_ASSERT_OK(s_);
    TG_GraphPopNameScope(g, s_);
    TG_Operation* train = TG_FinishOperation(TG_NewOperation(g, "NoOp", "train"), s_);
    TG_ASSERT_OK(s_);
    TG_GraphAddToCollectionOperation(g, TG_TRAIN_OP, train, s_);
    TG_GraphAddToCollectionOutput(g, "outputs", Out(y), s_);
    TG_GraphAddToCollectionInt64(g, "ints", 42, s_);
    TG_GraphAddToCollectionFloat(g, "floats", 2.5f, s_);
    TG_GraphAddToCollectionBytes(g, "strings", "abc", 3, s_);
    TG_ASSERT_OK(s_);
  }

  std::string Export(TG_Graph* g, const TG_MetaGraphExportOptions* opts) {
    TG_Buffer* buf = TG_NewBuffer();
    TG_ExportMetaGraph(g, opts, buf, s_);
    std::string out(static_cast<const char*>(buf->data), buf->length);
    TG_DeleteBuffer(buf);
    return out;
  }

  // A SaverDef naming existing nodes (model/x:0, model/y:0, model/W/Assign), built by hand:
  // fields 1, 2, 3 as strings, 4 max_to_keep = 5, 7 version = V2.
  static std::string SaverDefBytes() {
    std::string b;
    auto str = [&](char tag, const std::string& s) {
      b.push_back(tag);
      b.push_back(static_cast<char>(s.size()));
      b += s;
    };
    str('\x0a', "model/x:0");
    str('\x12', "model/y:0");
    str('\x1a', "model/W/Assign");
    b += std::string("\x20\x05\x38\x02", 4);
    return b;
  }
};

TEST_F(MetaGraphTest, ExportImportRoundTripIsByteIdenticalAndRuns) {
  Build(g_);
  std::string saver = SaverDefBytes();
  const char* tags[] = {"train"};
  TG_MetaGraphExportOptions opts;
  TG_InitMetaGraphExportOptions(&opts);
  opts.tags = tags;
  opts.num_tags = 1;
  opts.saver_def = saver.data();
  opts.saver_def_len = saver.size();
  std::string first = Export(g_, &opts);
  TG_ASSERT_OK(s_);

  // Import into the fixture's graph after clearing it: a fresh graph, sessions need g_.
  TG_DeleteGraph(g_);
  g_ = TG_NewGraph();
  TG_Buffer* saver_out = TG_NewBuffer();
  TG_ImportMetaGraph(g_, first.data(), first.size(), nullptr, saver_out, s_);
  TG_ASSERT_OK(s_);
  EXPECT_EQ(std::string(static_cast<const char*>(saver_out->data), saver_out->length), saver);

  opts.saver_def = saver_out->data;
  opts.saver_def_len = saver_out->length;
  EXPECT_EQ(Export(g_, &opts), first);
  TG_DeleteBuffer(saver_out);

  // The imported variable is a TG_Variable the initializer covers.
  TG_Collection* vars = TG_GraphGetCollection(g_, TG_GLOBAL_VARIABLES, nullptr, s_);
  ASSERT_EQ(TG_CollectionSize(vars), 1);
  TG_Variable* w = TG_CollectionItemVariable(vars, 0);
  TG_DeleteCollection(vars);
  ASSERT_NE(w, nullptr);
  EXPECT_STREQ(TG_VariableName(w), "model/W");
  EXPECT_EQ(TG_VariableTrainable(w), 1);
  TG_Operation* init = TG_GraphGlobalVariablesInitializer(g_, s_);
  TG_ASSERT_OK(s_);
  TG_Session* session = NewSession();
  ASSERT_NE(session, nullptr);
  RunTargets(session, {init});
  TG_ASSERT_OK(s_);
  std::vector<float> y = RunFloats(session, Out(TG_GraphOperationByName(g_, "model/y")));
  TG_ASSERT_OK(s_);
  EXPECT_EQ(y, (std::vector<float>{1.5f, 3.0f, 4.5f, 6.0f}));

  TG_Collection* ints = TG_GraphGetCollection(g_, "ints", nullptr, s_);
  EXPECT_EQ(TG_CollectionItemInt64(ints, 0), 42);
  TG_DeleteCollection(ints);
  TG_Collection* outputs = TG_GraphGetCollection(g_, "outputs", nullptr, s_);
  EXPECT_EQ(TG_CollectionItemKind(outputs, 0), TG_COLLECTION_ITEM_OUTPUT);
  TG_DeleteCollection(outputs);
}

TEST_F(MetaGraphTest, ImportScopeAndClearDevices) {
  TG_Graph* src = TG_NewGraph();
  TG_GraphPushDevice(src, "/cpu:0", s_);
  Build(src);
  TG_GraphPopDevice(src, s_);
  std::string saver = SaverDefBytes();
  TG_MetaGraphExportOptions eopts;
  TG_InitMetaGraphExportOptions(&eopts);
  eopts.saver_def = saver.data();
  eopts.saver_def_len = saver.size();
  std::string bytes = Export(src, &eopts);
  TG_DeleteGraph(src);
  TG_ASSERT_OK(s_);

  TG_MetaGraphImportOptions iopts;
  TG_InitMetaGraphImportOptions(&iopts);
  iopts.import_scope = "imp";
  iopts.clear_devices = 1;
  TG_Buffer* saver_out = TG_NewBuffer();
  TG_ImportMetaGraph(g_, bytes.data(), bytes.size(), &iopts, saver_out, s_);
  TG_ASSERT_OK(s_);
  std::string scoped(static_cast<const char*>(saver_out->data), saver_out->length);
  TG_DeleteBuffer(saver_out);
  EXPECT_TRUE(Contains(scoped, "imp/model/x:0"));
  EXPECT_TRUE(Contains(scoped, "imp/model/W/Assign"));
  TG_Operation* w = TG_GraphOperationByName(g_, "imp/model/W");
  ASSERT_NE(w, nullptr);
  EXPECT_STREQ(TG_OperationDevice(w), "");

  // Exporting the scope gives the original graph back, with the original SaverDef names.
  TG_MetaGraphExportOptions back;
  TG_InitMetaGraphExportOptions(&back);
  back.export_scope = "imp";
  back.saver_def = scoped.data();
  back.saver_def_len = scoped.size();
  std::string again = Export(g_, &back);
  TG_ASSERT_OK(s_);
  EXPECT_TRUE(Contains(again, "model/W/Assign"));
  EXPECT_FALSE(Contains(again, "imp/"));
}

TEST_F(MetaGraphTest, FilesAreWrittenAndReadWithErrorsNamingThem) {
  Build(g_);
  std::string path = ::testing::TempDir() + "tgraph_c_api_meta_graph_test.meta";
  TG_WriteMetaGraphFile(g_, path.c_str(), nullptr, s_);
  TG_ASSERT_OK(s_);
  TG_Graph* g2 = TG_NewGraph();
  TG_ImportMetaGraphFile(g2, path.c_str(), nullptr, nullptr, s_);
  TG_EXPECT_OK(s_);
  EXPECT_EQ(TG_GraphNumOperations(g2), TG_GraphNumOperations(g_));
  TG_DeleteGraph(g2);

  // Truncated.
  std::string bytes;
  {
    std::ifstream in(path, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes.substr(0, bytes.size() - 7);
  g2 = TG_NewGraph();
  TG_ImportMetaGraphFile(g2, path.c_str(), nullptr, nullptr, s_);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  EXPECT_TRUE(Contains(msg(), path)) << msg();
  EXPECT_EQ(TG_GraphNumOperations(g2), 0);
  std::remove(path.c_str());
  TG_ImportMetaGraphFile(g2, path.c_str(), nullptr, nullptr, s_);
  EXPECT_EQ(code(), TG_NOT_FOUND);
  EXPECT_TRUE(Contains(msg(), path)) << msg();
  TG_DeleteGraph(g2);

  const char garbage[] = "\x08\xff\xff garbage";
  TG_ImportMetaGraph(g_, garbage, sizeof garbage - 1, nullptr, nullptr, s_);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  EXPECT_TRUE(Contains(msg(), "MetaGraphDef")) << msg();
}

TEST_F(MetaGraphTest, OptionsAreChecked) {
  Build(g_);
  TG_MetaGraphExportOptions opts;
  TG_InitMetaGraphExportOptions(&opts);
  opts.struct_size = 3;
  TG_Buffer* buf = TG_NewBuffer();
  TG_ExportMetaGraph(g_, &opts, buf, s_);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  EXPECT_TRUE(Contains(msg(), "TG_InitMetaGraphExportOptions")) << msg();
  TG_InitMetaGraphExportOptions(&opts);
  opts.num_tags = 1;
  TG_ExportMetaGraph(g_, &opts, buf, s_);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  TG_ExportMetaGraph(nullptr, nullptr, buf, s_);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  TG_DeleteBuffer(buf);
  TG_ImportMetaGraph(g_, nullptr, 0, nullptr, nullptr, s_);  // empty MetaGraphDef: nothing
  TG_EXPECT_OK(s_);
  TG_WriteMetaGraphFile(g_, "", nullptr, s_);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
}

}  // namespace
