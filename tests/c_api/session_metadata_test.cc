// Run options and metadata: a traced run records one entry per executed node (name, type,
// device, start, duration, output bytes) and the memory it allocated; an untraced one
// records none.
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "session_test_util.h"

namespace {

using tgtest::FloatTensor;
using tgtest::Out;
using tgtest::SessionTest;
using tgtest::TensorPtr;

class SessionMetadataTest : public SessionTest {
 protected:
  SessionMetadataTest() : opts_(TG_NewRunOptions()), md_(TG_NewRunMetadata()) {}
  ~SessionMetadataTest() override {
    TG_DeleteRunOptions(opts_);
    TG_DeleteRunMetadata(md_);
  }
  // Entries by node name; a node listed twice fails the test.
  std::map<std::string, int> Entries() {
    std::map<std::string, int> by_name;
    for (int i = 0; i < TG_RunMetadataNumNodes(md_); ++i) {
      const char* name = TG_RunMetadataNodeName(md_, i);
      EXPECT_NE(name, nullptr);
      if (name == nullptr) continue;
      EXPECT_TRUE(by_name.emplace(name, i).second) << name << " is listed twice";
    }
    return by_name;
  }

  TG_RunOptions* opts_;
  TG_RunMetadata* md_;
};

TEST_F(SessionMetadataTest, TracedRunRecordsEachExecutedNode) {
  TG_Operation* x = Placeholder(TG_FLOAT, {2, 3}, "x");
  TG_Operation* w = FloatConst({3, 4}, 0.5f, "w");
  TG_Operation* y = Binary("MatMul", x, w, "y");
  TG_ASSERT_OK(s_);
  TG_Operation* z = Unary("Relu", y, "z");
  TG_Operation* skipped = Unary("Neg", z, "skipped");
  (void)skipped;
  TG_Session* sess = NewSession();
  TG_SetRunOptionsTraceLevel(opts_, 1);
  TensorPtr value = FloatTensor({2, 3}, {1, 2, 3, 4, 5, 6});
  Run(sess, {{Out(x), value.get()}}, {Out(z)}, {}, opts_, md_);
  TG_ASSERT_OK(s_);

  std::map<std::string, int> entries = Entries();
  // The fed placeholder does not execute; w, y and z do, and nothing else.
  std::vector<std::string> names;
  for (const auto& [name, i] : entries) names.push_back(name);
  EXPECT_EQ(names, (std::vector<std::string>{"w", "y", "z"}));
  for (const auto& [name, i] : entries) {
    EXPECT_STREQ(TG_RunMetadataNodeDevice(md_, i), "/device:CPU:0") << name;
    EXPECT_GE(TG_RunMetadataNodeStartNs(md_, i), 0) << name;
    EXPECT_GE(TG_RunMetadataNodeDurationNs(md_, i), 0) << name;
  }
  ASSERT_TRUE(entries.count("y"));
  const int yi = entries["y"];
  EXPECT_STREQ(TG_RunMetadataNodeOpType(md_, yi), "MatMul");
  EXPECT_EQ(TG_RunMetadataNodeOutputBytes(md_, yi), 2 * 4 * 4);  // float [2,4]
  ASSERT_TRUE(entries.count("w"));
  EXPECT_STREQ(TG_RunMetadataNodeOpType(md_, entries["w"]), "Const");
  EXPECT_EQ(TG_RunMetadataNodeOutputBytes(md_, entries["w"]), 3 * 4 * 4);
}

TEST_F(SessionMetadataTest, UntracedRunRecordsNothing) {
  TG_Operation* a = ScalarConst(1.0f, "a");
  TG_Operation* b = Unary("Neg", a, "b");
  TG_Session* sess = NewSession();
  // Trace level 0, and no run options at all.
  TG_SetRunOptionsTraceLevel(opts_, 0);
  Run(sess, {}, {Out(b)}, {}, opts_, md_);
  TG_ASSERT_OK(s_);
  EXPECT_EQ(TG_RunMetadataNumNodes(md_), 0);
  Run(sess, {}, {Out(b)}, {}, nullptr, md_);
  TG_ASSERT_OK(s_);
  EXPECT_EQ(TG_RunMetadataNumNodes(md_), 0);
  // A traced run, then an untraced one reusing the metadata: the old entries are gone.
  TG_SetRunOptionsTraceLevel(opts_, 1);
  Run(sess, {}, {Out(b)}, {}, opts_, md_);
  TG_ASSERT_OK(s_);
  EXPECT_EQ(TG_RunMetadataNumNodes(md_), 2);
  Run(sess, {}, {Out(b)}, {}, nullptr, md_);
  TG_ASSERT_OK(s_);
  EXPECT_EQ(TG_RunMetadataNumNodes(md_), 0);
  // A traced run without metadata is fine too.
  Run(sess, {}, {Out(b)}, {}, opts_, nullptr);
  TG_EXPECT_OK(s_);
}

TEST_F(SessionMetadataTest, TracedRunsOnThePoolAndDeterministic) {
  // Two independent expensive branches, so a pooled executor may spread them.
  TG_Operation* a = FloatConst({128, 128}, 0.5f, "a");
  TG_Operation* left = Binary("MatMul", a, a, "left");
  TG_Operation* right = Binary("MatMul", a, a, "right");
  TG_Operation* sum = Binary("AddV2", left, right, "sum");
  TG_ASSERT_OK(s_);
  TG_SetRunOptionsTraceLevel(opts_, 2);
  for (int deterministic = 0; deterministic <= 1; ++deterministic) {
    TG_SessionOptions* so = TG_NewSessionOptions();
    TG_SetSessionDeterministic(so, deterministic);
    TG_SetSessionInterOpThreads(so, 2);
    // One intra-op thread leaves cores free, so steps run concurrently (with one per core
    // they would run one at a time on the caller).
    TG_SetSessionIntraOpThreads(so, 1);
    // The MatMuls of constants must run, not be folded at plan time.
    TG_SetSessionRewrite(so, "all", 0, s_);
    TG_Session* sess = NewSession(so);
    TG_DeleteSessionOptions(so);
    for (int run = 0; run < 3; ++run) {
      Run(sess, {}, {Out(sum)}, {}, opts_, md_);
      TG_ASSERT_OK(s_);
      std::map<std::string, int> entries = Entries();
      EXPECT_EQ(entries.size(), 4u);
      ASSERT_TRUE(entries.count("sum"));
      EXPECT_EQ(TG_RunMetadataNodeOutputBytes(md_, entries["sum"]), 128 * 128 * 4);
      // The caller keeps one branch and hands the other to a pool thread; a deterministic
      // plan runs everything on the caller.
      const int left_thread = TG_RunMetadataNodeThreadId(md_, entries["left"]);
      const int right_thread = TG_RunMetadataNodeThreadId(md_, entries["right"]);
      EXPECT_GE(std::min(left_thread, right_thread), 0);
      EXPECT_LE(std::max(left_thread, right_thread), 2);
      if (deterministic) {
        EXPECT_EQ(left_thread + right_thread, 0);
      } else {
        EXPECT_NE(left_thread, right_thread);
        EXPECT_GT(std::max(left_thread, right_thread), 0);
      }
    }
  }
}

TEST_F(SessionMetadataTest, AccessorsOutOfRange) {
  EXPECT_EQ(TG_RunMetadataNumNodes(md_), 0);
  EXPECT_EQ(TG_RunMetadataNodeName(md_, 0), nullptr);
  EXPECT_EQ(TG_RunMetadataNodeOpType(md_, -1), nullptr);
  EXPECT_EQ(TG_RunMetadataNodeDevice(md_, 3), nullptr);
  EXPECT_EQ(TG_RunMetadataNodeStartNs(md_, 0), -1);
  EXPECT_EQ(TG_RunMetadataNodeDurationNs(md_, 0), -1);
  EXPECT_EQ(TG_RunMetadataNodeOutputBytes(md_, 0), -1);
  EXPECT_EQ(TG_RunMetadataNodeThreadId(md_, 0), -1);
  EXPECT_EQ(TG_RunMetadataNodeThreadId(nullptr, 0), -1);
  EXPECT_EQ(TG_RunMetadataNumNodes(nullptr), 0);
  EXPECT_EQ(TG_RunMetadataNodeName(nullptr, 0), nullptr);
  EXPECT_EQ(TG_RunMetadataNodeOutputBytes(nullptr, 0), -1);
  TG_SetRunOptionsTraceLevel(nullptr, 1);
  TG_DeleteRunOptions(nullptr);
  TG_DeleteRunMetadata(nullptr);
}

// A chain of six MatMuls: each output is freed once the next one is computed, so the run
// holds two at most while it allocates six.
TEST_F(SessionMetadataTest, TracedRunReportsPeakAndAllocatedBytes) {
  constexpr int64_t kBytes = 128 * 128 * 4;
  TG_Operation* a = FloatConst({128, 128}, 0.01f, "a");
  TG_Operation* x = a;
  for (int i = 0; i < 6; ++i) x = Binary("MatMul", x, a);
  TG_ASSERT_OK(s_);
  TG_SessionOptions* so = TG_NewSessionOptions();
  TG_SetSessionDeterministic(so, 1);
  // The MatMuls of constants must allocate at run time, not be folded when planned.
  TG_SetSessionRewrite(so, "all", 0, s_);
  TG_Session* sess = NewSession(so);
  TG_DeleteSessionOptions(so);
  TG_SetRunOptionsTraceLevel(opts_, 1);
  Run(sess, {}, {Out(x)}, {}, opts_, md_);
  TG_ASSERT_OK(s_);
  EXPECT_GE(TG_RunMetadataAllocatedBytes(md_), 6 * kBytes);
  EXPECT_GE(TG_RunMetadataPeakBytes(md_), 2 * kBytes);
  EXPECT_LE(TG_RunMetadataPeakBytes(md_), 3 * kBytes);
  // Untraced: nothing is measured, and the old figures are gone.
  Run(sess, {}, {Out(x)}, {}, nullptr, md_);
  TG_ASSERT_OK(s_);
  EXPECT_EQ(TG_RunMetadataPeakBytes(md_), 0);
  EXPECT_EQ(TG_RunMetadataAllocatedBytes(md_), 0);
  EXPECT_EQ(TG_RunMetadataPeakBytes(nullptr), -1);
  EXPECT_EQ(TG_RunMetadataAllocatedBytes(nullptr), -1);
}

}  // namespace
