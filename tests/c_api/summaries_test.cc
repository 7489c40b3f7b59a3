// Summary ops through the C API, run in a session: a process holding libtgraph (with the
// core's full generated protos) and the CPU plugin (with its own lite copy of
// summary.proto) runs ScalarSummary, HistogramSummary and MergeSummary. Under
// AddressSanitizer (scripts/test.sh) the same test checks that the two copies stay apart.
#include <cmath>
#include <cstring>

#include "session_test_util.h"

namespace {

using tgtest::Contains;
using tgtest::IsOk;
using tgtest::Name;
using tgtest::Out;
using tgtest::SessionTest;
using tgtest::TensorPtr;

std::string StringOf(const TG_Tensor* t, TG_Status* s) {
  const char* data = nullptr;
  size_t len = 0;
  TG_TensorGetString(t, 0, &data, &len, s);
  return std::string(data == nullptr ? "" : data, len);
}

// Summary{value{tag, simple_value}} as protobuf serializes it: field 1 (a message) holding
// field 1 (the tag) and field 2 (fixed32 float).
std::string ScalarSummaryBytes(const std::string& tag, float v) {
  std::string value;
  value += '\x0a';
  value += static_cast<char>(tag.size());
  value += tag;
  value += '\x15';
  char bits[4];
  std::memcpy(bits, &v, 4);  // little-endian hosts, as the tests' platforms
  value.append(bits, 4);
  std::string summary;
  summary += '\x0a';
  summary += static_cast<char>(value.size());
  return summary + value;
}

class SummariesTest : public SessionTest {};

TEST_F(SummariesTest, ScalarHistogramAndMergeRunInASession) {
  TG_Output x = Out(ScalarConst(2.5f, "x"));
  TG_Output w = Out(FloatConst({2, 3}, 0.5f, "w"));
  TG_Output loss = TG_SummaryScalar(g_, "loss", x, s_);
  ASSERT_TRUE(IsOk(s_)) << msg();
  EXPECT_EQ(Name(loss.oper), "loss");
  TG_Output histo = TG_SummaryHistogram(g_, "weights", w, s_);
  ASSERT_TRUE(IsOk(s_)) << msg();
  TG_Output merged = TG_SummaryMergeAll(g_, nullptr, s_);
  ASSERT_TRUE(IsOk(s_)) << msg();
  ASSERT_NE(merged.oper, nullptr);
  EXPECT_EQ(Name(merged.oper), "Merge/MergeSummary");

  TG_Collection* c = TG_GraphGetCollection(g_, TG_SUMMARIES, nullptr, s_);
  ASSERT_EQ(TG_CollectionSize(c), 2);
  EXPECT_EQ(TG_CollectionItemOutput(c, 1).oper, histo.oper);
  TG_DeleteCollection(c);

  TG_Session* session = NewSession();
  ASSERT_NE(session, nullptr) << msg();
  std::vector<TensorPtr> out = Run(session, {}, {loss, histo, merged});
  ASSERT_TRUE(IsOk(s_)) << msg();
  const std::string scalar = StringOf(out[0].get(), s_);
  EXPECT_EQ(scalar, ScalarSummaryBytes("loss", 2.5f));
  const std::string histogram = StringOf(out[1].get(), s_);
  EXPECT_NE(histogram.find("weights"), std::string::npos);
  // The merge is the concatenation of both value lists, which protobuf writes as the
  // concatenation of the two serialized summaries.
  EXPECT_EQ(StringOf(out[2].get(), s_), scalar + histogram);
}

TEST_F(SummariesTest, MergeOfDuplicateTagsFailsNamingTheTag) {
  TG_Output x = Out(ScalarConst(1.0f, "x"));
  TG_Output a = TG_SummaryScalar(g_, "same", x, s_);
  ASSERT_TRUE(IsOk(s_)) << msg();
  TG_Output c = TG_SummaryScalar(g_, "other", x, s_);
  ASSERT_TRUE(IsOk(s_)) << msg();
  TG_Output inputs[] = {a, c, a};
  TG_Output merged = TG_SummaryMerge(g_, inputs, 3, "m", s_);
  ASSERT_TRUE(IsOk(s_)) << msg();
  EXPECT_EQ(Name(merged.oper), "m/m");
  TG_Session* session = NewSession();
  ASSERT_NE(session, nullptr) << msg();
  Run(session, {}, {merged});
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  EXPECT_TRUE(Contains(msg(), "Duplicate tag same found")) << msg();
}

TEST_F(SummariesTest, HistogramOfNanFailsNamingTheNode) {
  TG_Output nan = Out(ScalarConst(std::nanf(""), "nan"));
  TG_Output histo = TG_SummaryHistogram(g_, "bad", nan, s_);
  ASSERT_TRUE(IsOk(s_)) << msg();
  TG_Session* session = NewSession();
  ASSERT_NE(session, nullptr) << msg();
  Run(session, {}, {histo});
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  EXPECT_TRUE(Contains(msg(), "Nan in summary histogram for: bad")) << msg();
}

TEST_F(SummariesTest, MergeAllOfNothingIsNoOutputAndOk) {
  TG_Output none = TG_SummaryMergeAll(g_, nullptr, s_);
  EXPECT_TRUE(IsOk(s_)) << msg();
  EXPECT_EQ(none.oper, nullptr);
  EXPECT_EQ(none.index, -1);
  TG_Output other = TG_SummaryMergeAll(g_, "my_summaries", s_);
  EXPECT_TRUE(IsOk(s_));
  EXPECT_EQ(other.oper, nullptr);
}

TEST_F(SummariesTest, BadArgumentsAreInvalidArguments) {
  TG_Output x = Out(ScalarConst(1.0f, "x"));
  TG_SummaryScalar(nullptr, "a", x, s_);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  TG_SummaryScalar(g_, nullptr, x, s_);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  TG_SummaryHistogram(g_, "h", TG_Output{nullptr, 0}, s_);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  TG_SummaryMerge(g_, nullptr, 1, nullptr, s_);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  TG_Output not_string[] = {x};
  TG_SummaryMerge(g_, not_string, 1, nullptr, s_);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT);
  EXPECT_TRUE(Contains(msg(), "x:0")) << msg();
}

}  // namespace
