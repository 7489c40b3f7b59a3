// Issue 21, item 4: a GraphDef that declares more nodes than the machine could import fails
// RESOURCE_EXHAUSTED from its wire bytes, before protobuf allocates the parsed messages.
#include "core/graph/proto_budget.h"

#include <gtest/gtest.h>
#include <malloc.h>

#include <string>

#include "core/graph/graphdef_io.h"
#include "core/graph/meta_graph_io.h"
#include "tgraph/proto/function.pb.h"
#include "tgraph/proto/graph.pb.h"
#include "tgraph/proto/meta_graph.pb.h"

namespace tgraph {
namespace {

// `n` nodes of the smallest wire form: field 1 (node), length 0 — an empty NodeDef each.
std::string EmptyNodes(uint64_t n) {
  std::string bytes;
  bytes.reserve(2 * n);
  for (uint64_t i = 0; i < n; ++i) bytes.append("\x0a\x00", 2);
  return bytes;
}

// Field `field` of wire type 2 holding `body`.
std::string LengthDelimited(int field, const std::string& body) {
  std::string out(1, static_cast<char>(field << 3 | 2));
  uint64_t length = body.size();
  do {
    out.push_back(static_cast<char>((length & 0x7f) | (length > 0x7f ? 0x80 : 0)));
    length >>= 7;
  } while (length > 0);
  return out + body;
}

tf::GraphDef SmallGraph(int nodes) {
  tf::GraphDef def;
  for (int i = 0; i < nodes; ++i) {
    tf::NodeDef* node = def.add_node();
    node->set_name("node_" + std::to_string(i));
    node->set_op(i == 0 ? "Placeholder" : "Identity");
    if (i > 0) node->add_input("node_" + std::to_string(i - 1));
    (*node->mutable_attr())["T"].set_type(tf::DT_FLOAT);
    node->mutable_attr()->at("T").mutable_list()->add_i(7);  // a list: packed scalars
  }
  def.mutable_library()->add_function()->add_node_def()->set_name("in_a_function");
  return def;
}

TEST(ProtoBudgetTest, EstimateCountsNodesAndCoversWhatParsingAllocates) {
  const tf::GraphDef def = SmallGraph(500);
  const std::string bytes = def.SerializeAsString();
  const ParsedSizeEstimate e = EstimateParsedSize(*tf::GraphDef::descriptor(), bytes.data(),
                                                  bytes.size(), tf::NodeDef::descriptor());
  EXPECT_EQ(e.counted, 501u);  // the function's NodeDef too
  // Per node: the NodeDef, an attr map entry, its AttrValue and ListValue; and the library.
  EXPECT_GE(e.messages, 4u * 500);
  tf::GraphDef parsed;
  ASSERT_TRUE(parsed.ParseFromString(bytes));
  const uint64_t used = parsed.SpaceUsedLong();
  EXPECT_GE(e.bytes, used) << "the estimate must not be below what protobuf reports";
  EXPECT_LE(e.bytes, 4 * used) << "nor far above it";
}

TEST(ProtoBudgetTest, EmptyAndMalformedBytesEstimateOnlyWhatWasRead) {
  const auto* type = tf::GraphDef::descriptor();
  const ParsedSizeEstimate empty = EstimateParsedSize(*type, nullptr, 0);
  EXPECT_EQ(empty.messages, 1u);
  EXPECT_GT(empty.bytes, 0u);
  // A node whose length runs past the end, and a zero tag: the walk stops, nothing throws.
  const std::string truncated("\x0a\x05\x0a", 3);
  EXPECT_EQ(EstimateParsedSize(*type, truncated.data(), truncated.size()).messages, 2u);
  const std::string zero_tag("\x00\x00\x0a\x00", 4);
  EXPECT_EQ(EstimateParsedSize(*type, zero_tag.data(), zero_tag.size()).messages, 1u);
  // AttrValue{func{attr{"a": AttrValue{func{...}}}}} 1000 levels deep (3 messages a level):
  // deeper than protobuf parses is skipped as bytes, not followed.
  std::string nested;
  for (int i = 0; i < 1000; ++i) {
    const std::string entry = LengthDelimited(1, "a") + LengthDelimited(2, nested);
    nested = LengthDelimited(10, LengthDelimited(1, "f") + LengthDelimited(2, entry));
  }
  const ParsedSizeEstimate deep =
      EstimateParsedSize(*tf::AttrValue::descriptor(), nested.data(), nested.size());
  EXPECT_GT(deep.messages, 90u);
  EXPECT_LT(deep.messages, 110u);
}

TEST(ProtoBudgetTest, ManyEmptyNodesOverTheLimitAreRefusedWithoutAllocating) {
  const std::string bytes = EmptyNodes(2'000'000);  // 4 MB of wire, gigabytes imported
  // Once first, so that protobuf's lazily built default instances are not counted below.
  EXPECT_TRUE(CheckImportFitsInMemory(*tf::GraphDef::descriptor(), bytes.data(), 2, "warm-up").ok());
  const struct mallinfo2 before = mallinfo2();
  Status s = CheckImportFitsInMemory(*tf::GraphDef::descriptor(), bytes.data(), bytes.size(),
                                     "GraphDef 'huge.pb'", /*limit=*/uint64_t{1} << 30);
  const struct mallinfo2 after = mallinfo2();
  ASSERT_EQ(s.code(), Code::kResourceExhausted) << s.ToString();
  EXPECT_NE(s.message().find("GraphDef 'huge.pb'"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("2000000 nodes"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("TGRAPH_MAX_IMPORT_BYTES"), std::string::npos) << s.message();
  // The check itself holds no more than a few kilobytes (under ASan mallinfo2 reads 0).
  EXPECT_LT(after.uordblks, before.uordblks + (64u << 10));
  // Within a limit large enough, the same bytes pass.
  EXPECT_TRUE(CheckImportFitsInMemory(*tf::GraphDef::descriptor(), bytes.data(), bytes.size(),
                                      "GraphDef", uint64_t{1} << 40)
                  .ok());
}

TEST(ProtoBudgetTest, FunctionLibrariesAndMetaGraphsCountTheirNodes) {
  tf::MetaGraphDef meta;
  *meta.mutable_graph_def() = SmallGraph(1000);
  const std::string bytes = meta.SerializeAsString();
  const Status s = CheckImportFitsInMemory(*tf::MetaGraphDef::descriptor(), bytes.data(),
                                           bytes.size(), "meta", /*limit=*/1000 * 1024);
  ASSERT_EQ(s.code(), Code::kResourceExhausted) << s.ToString();
  EXPECT_NE(s.message().find("1001 nodes"), std::string::npos) << s.message();
}

TEST(ProtoBudgetTest, TextIsBoundedFromAbove) {
  std::string text;
  for (int i = 0; i < 100000; ++i) text += "node{}";
  Status s = CheckTextImportFitsInMemory(text, "GraphDef 'huge.pbtxt'", /*limit=*/64u << 20);
  ASSERT_EQ(s.code(), Code::kResourceExhausted) << s.ToString();
  EXPECT_NE(s.message().find("100000 nodes"), std::string::npos) << s.message();
  EXPECT_TRUE(CheckTextImportFitsInMemory(text, "GraphDef", uint64_t{1} << 30).ok());
}

// The parse entry points apply the machine's limit: a GraphDef declaring one node more than
// physical memory could import (21 M empty nodes, 42 MB of wire, on a 24 GiB machine) is
// RESOURCE_EXHAUSTED, as a GraphDef and inside a MetaGraphDef.
TEST(ProtoBudgetTest, ParsingAGraphDefBeyondPhysicalMemoryIsResourceExhausted) {
  const uint64_t nodes = MaxImportBytes() / kImportedNodeBytes + 1;
  if (nodes > (uint64_t{512} << 20)) {
    GTEST_SKIP() << "this machine's memory (" << MaxImportBytes()
                 << " bytes) needs over 1 GiB of test GraphDef";
  }
  const std::string bytes = EmptyNodes(nodes);
  tf::GraphDef def;
  Status s = ParseGraphDefBytes(bytes.data(), bytes.size(), &def);
  ASSERT_EQ(s.code(), Code::kResourceExhausted) << s.ToString();
  EXPECT_EQ(def.node_size(), 0);

  // A MetaGraphDef holding the same nodes as its graph_def (field 2).
  const std::string meta = LengthDelimited(2, bytes);
  tf::MetaGraphDef meta_def;
  s = ParseMetaGraphDef(meta.data(), meta.size(), "MetaGraph file 'huge.meta'", &meta_def);
  ASSERT_EQ(s.code(), Code::kResourceExhausted) << s.ToString();
  EXPECT_NE(s.message().find("huge.meta"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace tgraph
