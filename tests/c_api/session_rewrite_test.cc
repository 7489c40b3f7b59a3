// TG_SetSessionRewrite: the plan-time graph rewrites switched by name through the C API.
// Each name turns its rewrite on or off (seen in the nodes a traced run executes), values
// are the same either way, and bad names or NULL arguments are TG_INVALID_ARGUMENT.
#include <map>
#include <string>
#include <vector>

#include "session_test_util.h"

namespace {

using tgtest::FloatTensor;
using tgtest::Out;
using tgtest::SessionTest;
using tgtest::TensorPtr;

class SessionRewriteTest : public SessionTest {
 protected:
  // Runs `fetch` (x fed) in a session with `options` and returns the op types that ran.
  std::multiset<std::string> TracedTypes(TG_SessionOptions* options, TG_Operation* x,
                                         TG_Operation* fetch, std::vector<float>* values) {
    TG_Session* sess = NewSession(options);
    EXPECT_NE(sess, nullptr);
    TG_RunOptions* run_options = TG_NewRunOptions();
    TG_SetRunOptionsTraceLevel(run_options, 1);
    TG_RunMetadata* metadata = TG_NewRunMetadata();
    TensorPtr value = FloatTensor({2, 2}, {1, -2, 3, -4});
    std::vector<TensorPtr> out = Run(sess, {{Out(x), value.get()}}, {Out(fetch)}, {}, run_options, metadata);
    std::multiset<std::string> types;
    for (int i = 0; i < TG_RunMetadataNumNodes(metadata); ++i) {
      types.insert(TG_RunMetadataNodeOpType(metadata, i));
    }
    if (!out.empty()) *values = tgtest::Floats(out[0].get());
    TG_DeleteRunMetadata(metadata);
    TG_DeleteRunOptions(run_options);
    return types;
  }
};

TEST_F(SessionRewriteTest, EachRewriteIsSwitchedByName) {
  // y = -(Relu(BiasAdd(MatMul(Identity(x), w), b)) * (one + zero)), with folding, Identity
  // removal, fusion and x * 1 to do.
  TG_Operation* x = Placeholder(TG_FLOAT, {2, 2}, "x");
  TG_Operation* id = Unary("Identity", x, "id");
  TG_Operation* w = FloatConst({2, 2}, 0.5f, "w");
  TG_Operation* b = FloatConst({2}, 0.25f, "b");
  TG_Operation* mm = Binary("MatMul", id, w, "mm");
  TG_Operation* ba = Binary("BiasAdd", mm, b, "ba");
  TG_Operation* relu = Unary("Relu", ba, "relu");
  TG_Operation* one = Binary("AddV2", ScalarConst(1.0f, "one"), ScalarConst(0.0f, "zero"), "one_plus_zero");
  TG_Operation* times_one = Binary("Mul", relu, one, "times_one");
  TG_Operation* y = Unary("Neg", times_one, "y");
  TG_ASSERT_OK(s_);

  TG_SessionOptions* off = TG_NewSessionOptions();
  TG_SetSessionRewrite(off, "all", 0, s_);
  TG_ASSERT_OK(s_);
  std::vector<float> expected;
  const std::multiset<std::string> none = TracedTypes(off, x, y, &expected);
  TG_DeleteSessionOptions(off);
  TG_ASSERT_OK(s_);
  EXPECT_EQ(none.count("Identity"), 1u);
  EXPECT_EQ(none.count("MatMul"), 1u);

  // Defaults: everything on.
  std::vector<float> got;
  const std::multiset<std::string> all = TracedTypes(nullptr, x, y, &got);
  TG_ASSERT_OK(s_);
  EXPECT_EQ(got, expected);
  EXPECT_EQ(all, (std::multiset<std::string>{"Const", "Const", "Neg", "_FusedMatMul"}));

  // One at a time.
  const std::map<std::string, std::string> gone = {{"identity_removal", "Identity"},
                                                   {"remapping", "BiasAdd"},
                                                   {"constant_folding", "AddV2"},
                                                   {"arithmetic_optimization", "Mul"}};
  for (const auto& [name, type] : gone) {
    TG_SessionOptions* options = TG_NewSessionOptions();
    TG_SetSessionRewrite(options, "all", 0, s_);
    TG_SetSessionRewrite(options, name.c_str(), 1, s_);
    TG_ASSERT_OK(s_);
    const std::multiset<std::string> types = TracedTypes(options, x, y, &got);
    TG_DeleteSessionOptions(options);
    TG_ASSERT_OK(s_);
    EXPECT_EQ(got, expected) << name;
    EXPECT_EQ(types.count(type), 0u) << name;
    EXPECT_LT(types.size(), none.size()) << name;
  }
  // All on but one: that one's work stays.
  TG_SessionOptions* no_fusion = TG_NewSessionOptions();
  TG_SetSessionRewrite(no_fusion, "remapping", 0, s_);
  TG_ASSERT_OK(s_);
  const std::multiset<std::string> unfused = TracedTypes(no_fusion, x, y, &got);
  TG_DeleteSessionOptions(no_fusion);
  EXPECT_EQ(unfused.count("MatMul"), 1u);
  EXPECT_EQ(unfused.count("_FusedMatMul"), 0u);
}

TEST_F(SessionRewriteTest, BadArguments) {
  TG_SessionOptions* options = TG_NewSessionOptions();
  TG_SetSessionRewrite(options, "layout_optimizer", 1, s_);
  EXPECT_EQ(TG_GetCode(s_), TG_INVALID_ARGUMENT);
  EXPECT_TRUE(tgtest::Contains(TG_Message(s_), "layout_optimizer")) << TG_Message(s_);
  EXPECT_TRUE(tgtest::Contains(TG_Message(s_), "constant_folding")) << TG_Message(s_);
  TG_SetSessionRewrite(options, nullptr, 1, s_);
  EXPECT_EQ(TG_GetCode(s_), TG_INVALID_ARGUMENT);
  TG_SetSessionRewrite(nullptr, "all", 1, s_);
  EXPECT_EQ(TG_GetCode(s_), TG_INVALID_ARGUMENT);
  TG_DeleteSessionOptions(options);
}

}  // namespace
