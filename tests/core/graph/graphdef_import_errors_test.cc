// Malformed GraphDefs and bad import options: each gives a clear status naming the node,
// and the destination graph keeps exactly the operations it had (all or nothing).
#include <gtest/gtest.h>

#include "core/graph/graph.h"
#include "core/graph/graphdef_io.h"
#include "tests/core/graph/graphdef_test_util.h"

namespace tgraph {
namespace {

using testing::ConstSpec;
using testing::GraphDefTestRegistry;
using testing::MustAdd;
using testing::OpNames;
using testing::ParseText;
using testing::PlaceholderSpec;

class GraphDefImportErrorsTest : public ::testing::Test {
 protected:
  GraphDefImportErrorsTest() : g_(GraphDefTestRegistry()) {
    existing_float_ = MustAdd(g_, PlaceholderSpec(DT_FLOAT, PartialShape({2, 3}), "existing_float"));
    existing_int_ = MustAdd(g_, ConstSpec(testing::IntScalar(7), "existing_int"));
  }

  // Imports `text`; expects `code` and every one of `needles` in the message, and the
  // graph unchanged. Then checks that a valid import still gets the plain "import" prefix
  // (the failed one reserved nothing).
  void ExpectFailure(const std::string& text, Code code, const std::vector<std::string>& needles,
                     const ImportOptions& opts = ImportOptions()) {
    tf::GraphDef def = ParseText(text);
    ExpectFailure(def, code, needles, opts);
  }

  void ExpectFailure(const tf::GraphDef& def, Code code, const std::vector<std::string>& needles,
                     const ImportOptions& opts = ImportOptions()) {
    const std::vector<std::string> before = OpNames(g_);
    const std::string next_prefix = g_.UniqueName("import", /*mark_used=*/false);
    ImportResults results;
    Status s = ImportGraphDef(def, opts, &g_, &results);
    EXPECT_FALSE(s.ok());
    EXPECT_EQ(s.code(), code) << s.ToString();
    for (const std::string& n : needles) {
      EXPECT_NE(s.message().find(n), std::string::npos) << "'" << n << "' not in: " << s.ToString();
    }
    EXPECT_EQ(OpNames(g_), before);
    for (const auto& op : g_.operations()) {
      for (int i = 0; i < op->num_outputs(); ++i) EXPECT_TRUE(op->consumers(i).empty()) << op->name();
      EXPECT_TRUE(op->control_outputs().empty()) << op->name();
    }
    if (!g_.finalized()) {
      TG_EXPECT_OK(ImportGraphDef(ParseText(R"pb(node { name: "ok" op: "NoOp" })pb"),
                                  ImportOptions(), &g_, nullptr));
      EXPECT_NE(g_.FindOperation(next_prefix + "/ok"), nullptr) << next_prefix;
    }
  }

  Graph g_;
  Operation* existing_float_ = nullptr;
  Operation* existing_int_ = nullptr;
};

constexpr char kFloatConst[] = R"pb(
    op: "Const"
    attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } dim { size: 3 } } float_val: 1 } } })pb";

std::string FloatConst(const std::string& name) {
  return "node { name: \"" + name + "\" " + kFloatConst + " }\n";
}

TEST_F(GraphDefImportErrorsTest, DuplicateNodeNames) {
  ExpectFailure(FloatConst("a") + FloatConst("b") + FloatConst("a"), Code::kInvalidArgument,
                {"'a'", "more than once"});
}

TEST_F(GraphDefImportErrorsTest, EmptyAndInvalidNames) {
  ExpectFailure(FloatConst("a") + FloatConst(""), Code::kInvalidArgument, {"Node 1", "empty name"});
  ExpectFailure(FloatConst("a") + FloatConst("bad name"), Code::kInvalidArgument,
                {"'bad name'", "invalid name"});
  ExpectFailure(FloatConst("_reserved"), Code::kInvalidArgument, {"'_reserved'"});
}

TEST_F(GraphDefImportErrorsTest, UnknownOp) {
  ExpectFailure(FloatConst("a") + R"pb(node { name: "mystery" op: "FrobnicateV7" input: "a" })pb",
                Code::kNotFound, {"mystery", "FrobnicateV7"});
  ExpectFailure(R"pb(node { name: "noop" })pb", Code::kInvalidArgument, {"'noop'", "no op"});
}

TEST_F(GraphDefImportErrorsTest, InputNamingAMissingNode) {
  ExpectFailure(FloatConst("a") +
                    R"pb(node { name: "id" op: "Identity" input: "ghost" attr { key: "T" value { type: DT_FLOAT } } })pb",
                Code::kInvalidArgument, {"'id'", "ghost"});
  ExpectFailure(FloatConst("a") + R"pb(node { name: "n" op: "NoOp" input: "^ghost" })pb",
                Code::kInvalidArgument, {"'n'", "ghost"});
}

TEST_F(GraphDefImportErrorsTest, OutputIndexOutOfRange) {
  ExpectFailure(FloatConst("a") +
                    R"pb(node { name: "id" op: "Identity" input: "a:1" attr { key: "T" value { type: DT_FLOAT } } })pb",
                Code::kInvalidArgument, {"'id'", "a:1", "1 output"});
}

TEST_F(GraphDefImportErrorsTest, MalformedInputStrings) {
  for (const char* bad : {"a:x", "a:", ":0", "a:-1", ""}) {
    ExpectFailure(FloatConst("a") + "node { name: \"id\" op: \"Identity\" input: \"" + bad +
                      "\" attr { key: \"T\" value { type: DT_FLOAT } } }",
                  Code::kInvalidArgument, {"'id'"});
  }
}

TEST_F(GraphDefImportErrorsTest, ControlInputBeforeDataInput) {
  ExpectFailure(FloatConst("a") + R"pb(node { name: "n" op: "NoOp" })pb" +
                    R"pb(node { name: "id" op: "Identity" input: "^n" input: "a" attr { key: "T" value { type: DT_FLOAT } } })pb",
                Code::kInvalidArgument, {"'id'", "control input"});
}

TEST_F(GraphDefImportErrorsTest, Cycles) {
  ExpectFailure(FloatConst("c") + R"pb(
    node { name: "a" op: "AddV2" input: "c" input: "b" attr { key: "T" value { type: DT_FLOAT } } }
    node { name: "b" op: "Identity" input: "a" attr { key: "T" value { type: DT_FLOAT } } }
  )pb",
                Code::kInvalidArgument, {"cycle", "'a'", "'b'"});
  // Through a control edge, and a self-loop.
  ExpectFailure(R"pb(
    node { name: "p" op: "NoOp" input: "^q" }
    node { name: "q" op: "NoOp" input: "^r" }
    node { name: "r" op: "NoOp" input: "^p" }
  )pb",
                Code::kInvalidArgument, {"cycle", "'p'", "'q'", "'r'"});
  ExpectFailure(R"pb(node { name: "self" op: "NoOp" input: "^self" })pb", Code::kInvalidArgument,
                {"cycle", "'self'"});
}

TEST_F(GraphDefImportErrorsTest, MalformedDevice) {
  ExpectFailure(FloatConst("a") + R"pb(node { name: "n" op: "NoOp" device: "/gadget:zero" })pb",
                Code::kInvalidArgument, {"'n'", "/gadget:zero"});
}

TEST_F(GraphDefImportErrorsTest, MissingAttrWithoutDefault) {
  ExpectFailure(FloatConst("a") + R"pb(node { name: "p" op: "Placeholder" })pb", Code::kInvalidArgument,
                {"'p'", "dtype"});
}

TEST_F(GraphDefImportErrorsTest, WrongAttrKindAndUnknownAttr) {
  ExpectFailure(R"pb(node { name: "p" op: "Placeholder" attr { key: "dtype" value { i: 3 } } })pb",
                Code::kInvalidArgument, {"'p'", "dtype"});
  ExpectFailure(FloatConst("a") + R"pb(node {
    name: "m" op: "MatMul" input: "a" input: "a"
    attr { key: "T" value { type: DT_FLOAT } }
    attr { key: "transpose_a" value { s: "yes" } }
  })pb",
                Code::kInvalidArgument, {"'m'", "transpose_a"});
  ExpectFailure(R"pb(node { name: "n" op: "NoOp" attr { key: "flavour" value { s: "x" } } })pb",
                Code::kInvalidArgument, {"'n'", "flavour"});
  // A type outside the allowed list.
  ExpectFailure(FloatConst("a") + R"pb(node {
    name: "add" op: "AddV2" input: "a" input: "a" attr { key: "T" value { type: DT_STRING } }
  })pb",
                Code::kInvalidArgument, {"'add'"});
}

TEST_F(GraphDefImportErrorsTest, DtypeMismatchOnAnEdge) {
  ExpectFailure(FloatConst("f") + R"pb(
    node { name: "i" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
           attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 1 } } } }
    node { name: "sum" op: "AddV2" input: "f" input: "i" attr { key: "T" value { type: DT_FLOAT } } }
  )pb",
                Code::kInvalidArgument, {"sum", "int32", "float"});
}

TEST_F(GraphDefImportErrorsTest, WrongNumberOfInputs) {
  ExpectFailure(FloatConst("a") +
                    R"pb(node { name: "id" op: "Identity" input: "a" input: "a" attr { key: "T" value { type: DT_FLOAT } } })pb",
                Code::kInvalidArgument, {"id"});
}

TEST_F(GraphDefImportErrorsTest, ShapeErrorAfterManyValidNodes) {
  // Everything before the last node is fine; the dry run catches the MatMul, so nothing
  // lands in the destination.
  std::string text;
  for (int i = 0; i < 20; ++i) text += FloatConst(StrCat("c", i));
  text += R"pb(node { name: "bad_matmul" op: "MatMul" input: "c0" input: "c1" attr { key: "T" value { type: DT_FLOAT } } })pb";
  ExpectFailure(text, Code::kInvalidArgument, {"bad_matmul"});
}

TEST_F(GraphDefImportErrorsTest, BadConstValue) {
  ExpectFailure(R"pb(node {
    name: "k" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 4 } } tensor_content: "abc" } } }
  })pb",
                Code::kInvalidArgument, {"'import/k'", "tensor_content"});
}

TEST_F(GraphDefImportErrorsTest, InputMapErrors) {
  const std::string text = FloatConst("a") +
      R"pb(node { name: "id" op: "Identity" input: "a" attr { key: "T" value { type: DT_FLOAT } } })pb";
  ImportOptions opts;
  opts.input_map[{"a", 0}] = existing_int_->output(0);
  ExpectFailure(text, Code::kInvalidArgument, {"a:0", "existing_int:0", "float", "int32"}, opts);

  // A tensor of another graph.
  Graph other(GraphDefTestRegistry());
  Operation* foreign = MustAdd(other, ConstSpec(testing::FloatMatrix(2, 3), "foreign"));
  ImportOptions foreign_opts;
  foreign_opts.input_map[{"a", 0}] = foreign->output(0);
  ExpectFailure(text, Code::kInvalidArgument, {"a:0", "foreign"}, foreign_opts);

  // The mapped tensor's shape does not fit the consumer (found by the dry run).
  const std::string mm = FloatConst("a") +
      R"pb(node { name: "mm" op: "MatMul" input: "p" input: "a" attr { key: "T" value { type: DT_FLOAT } } }
           node { name: "p" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } })pb";
  ImportOptions shape_opts;
  shape_opts.input_map[{"p", 0}] = existing_float_->output(0);  // [2,3] x [2,3]
  ExpectFailure(mm, Code::kInvalidArgument, {"mm"}, shape_opts);

  // Control dependencies on operations of another graph.
  ImportOptions deps;
  deps.control_dependencies = {foreign->graph()->operation(0)};
  ExpectFailure(text, Code::kInvalidArgument, {"control dependency"}, deps);
}

TEST_F(GraphDefImportErrorsTest, ReturnValuesNotInTheGraphDef) {
  const std::string text = FloatConst("a");
  ImportOptions t;
  t.return_tensors = {{"a", 0}, {"b", 0}};
  ExpectFailure(text, Code::kNotFound, {"b:0"}, t);
  ImportOptions range;
  range.return_tensors = {{"a", 3}};
  ExpectFailure(text, Code::kInvalidArgument, {"a:3"}, range);
  ImportOptions o;
  o.return_operations = {"a", "nope"};
  ExpectFailure(text, Code::kNotFound, {"nope"}, o);
}

TEST_F(GraphDefImportErrorsTest, ColocationWithAnUnknownNode) {
  ExpectFailure(R"pb(node {
    name: "n" op: "NoOp" attr { key: "_class" value { list { s: "loc:@missing" } } }
  })pb",
                Code::kInvalidArgument, {"'n'", "missing"});
}

TEST_F(GraphDefImportErrorsTest, NameAlreadyTakenWithoutPrefix) {
  ImportOptions opts;
  opts.prefix = "";
  ExpectFailure(FloatConst("fresh") + FloatConst("existing_float"), Code::kAlreadyExists,
                {"existing_float"}, opts);
}

TEST_F(GraphDefImportErrorsTest, TooNewAGraphDef) {
  tf::GraphDef def = ParseText(FloatConst("a"));
  def.mutable_versions()->set_producer(kGraphDefProducer + 100);
  def.mutable_versions()->set_min_consumer(kGraphDefProducer + 1);
  ExpectFailure(def, Code::kInvalidArgument, {"min consumer"});
  tf::GraphDef bad = ParseText(FloatConst("a"));
  bad.mutable_versions()->add_bad_consumers(kGraphDefProducer);
  ExpectFailure(bad, Code::kInvalidArgument, {"consumer"});
}

TEST_F(GraphDefImportErrorsTest, FinalizedGraph) {
  g_.Finalize();
  ExpectFailure(FloatConst("a"), Code::kFailedPrecondition, {"finalized"});
}

TEST_F(GraphDefImportErrorsTest, InvalidPrefix) {
  ImportOptions opts;
  opts.prefix = "bad prefix";
  ExpectFailure(FloatConst("a"), Code::kInvalidArgument, {"bad prefix"}, opts);
}

// ---- parsing ----

TEST(GraphDefParseTest, GarbageAndTruncatedBytes) {
  Graph g(GraphDefTestRegistry());
  MustAdd(g, PlaceholderSpec(DT_FLOAT, PartialShape({2}), "x"));
  std::string bytes = testing::ExportBytes(g);
  tf::GraphDef def;
  TG_ASSERT_OK(ParseGraphDefBytes(bytes.data(), bytes.size(), &def));

  Status truncated = ParseGraphDefBytes(bytes.data(), bytes.size() - 1, &def);
  EXPECT_EQ(truncated.code(), Code::kInvalidArgument);
  EXPECT_NE(truncated.message().find("Invalid GraphDef"), std::string::npos) << truncated.ToString();

  const std::string garbage = "\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff";
  Status s = ParseGraphDefBytes(garbage.data(), garbage.size(), &def);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_NE(s.message().find("Invalid GraphDef"), std::string::npos) << s.ToString();

  // A length-delimited field longer than the buffer.
  const std::string overlong = std::string("\x0a\x7f", 2) + "abc";
  EXPECT_EQ(ParseGraphDefBytes(overlong.data(), overlong.size(), &def).code(), Code::kInvalidArgument);

  EXPECT_EQ(ParseGraphDefBytes(nullptr, 3, &def).code(), Code::kInvalidArgument);
  TG_EXPECT_OK(ParseGraphDefBytes(nullptr, 0, &def));
  EXPECT_EQ(def.node_size(), 0);
}

TEST(GraphDefParseTest, BadText) {
  tf::GraphDef def;
  for (const char* bad : {"node { name: \"x\" ", "nodes { }", "node { name: 3.5 }",
                          "node { attr { key: \"dtype\" value { type: DT_NOPE } } }"}) {
    Status s = ParseGraphDefText(bad, &def);
    EXPECT_EQ(s.code(), Code::kInvalidArgument) << bad;
    EXPECT_NE(s.message().find("Invalid GraphDef"), std::string::npos) << s.ToString();
    EXPECT_NE(s.message().find("line 1"), std::string::npos) << s.ToString();
  }
}

}  // namespace
}  // namespace tgraph
