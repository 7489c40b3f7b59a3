// The op registry through the C API: listing ops, and TG_OpInfo snapshots of core and
// plugin ops (argument and attr specs, defining plugin, kernel device types).
#include <algorithm>
#include <string>
#include <vector>

#include "c_api_test_util.h"
#include "tgraph/c_api.h"

namespace {

using tgtest::IsOk;

std::vector<std::string> Items(const TG_OpInfo* info, int (*count)(const TG_OpInfo*),
                               const char* (*item)(const TG_OpInfo*, int)) {
  std::vector<std::string> out;
  for (int i = 0; i < count(info); ++i) out.emplace_back(item(info, i));
  return out;
}

class OpRegistryTest : public ::testing::Test {
 protected:
  ~OpRegistryTest() override {
    TG_DeleteOpInfo(info_);
    TG_DeleteStatus(s_);
  }
  const TG_OpInfo* Info(const char* op_type) {
    TG_DeleteOpInfo(info_);
    info_ = TG_NewOpInfo(op_type, s_);
    return info_;
  }
  TG_Status* s_ = TG_NewStatus();
  TG_OpInfo* info_ = nullptr;
};

TEST_F(OpRegistryTest, ListsEveryOpInNameOrder) {
  int n = TG_NumRegisteredOps();
  ASSERT_GT(n, 50);
  std::vector<std::string> names;
  for (int i = 0; i < n; ++i) names.emplace_back(TG_RegisteredOpName(i));
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
  EXPECT_NE(std::find(names.begin(), names.end(), "MatMul"), names.end());
  EXPECT_EQ(TG_RegisteredOpName(n), nullptr);
  EXPECT_EQ(TG_RegisteredOpName(-1), nullptr);
}

TEST_F(OpRegistryTest, CoreOpSignatureInRegisterOpSpelling) {
  const TG_OpInfo* info = Info("MatMul");
  ASSERT_TRUE(IsOk(s_));
  EXPECT_STREQ(TG_OpInfoName(info), "MatMul");
  EXPECT_EQ(Items(info, TG_OpInfoNumInputs, TG_OpInfoInput),
            (std::vector<std::string>{"a: T", "b: T"}));
  EXPECT_EQ(Items(info, TG_OpInfoNumOutputs, TG_OpInfoOutput),
            (std::vector<std::string>{"product: T"}));
  std::vector<std::string> attrs = Items(info, TG_OpInfoNumAttrs, TG_OpInfoAttr);
  EXPECT_NE(std::find(attrs.begin(), attrs.end(), "transpose_a: bool = false"), attrs.end());
  auto t = std::find_if(attrs.begin(), attrs.end(),
                        [](const std::string& a) { return a.starts_with("T: {"); });
  ASSERT_NE(t, attrs.end());
  EXPECT_NE(t->find("float"), std::string::npos) << *t;
  EXPECT_EQ(TG_OpInfoPlugin(info), nullptr);  // the core's own op
  EXPECT_EQ(TG_OpInfoIsStateful(info), 0);
}

TEST_F(OpRegistryTest, ListArgsMinimumsAndStringChoices) {
  std::vector<std::string> inputs = Items(Info("AddN"), TG_OpInfoNumInputs, TG_OpInfoInput);
  ASSERT_TRUE(IsOk(s_));
  EXPECT_EQ(inputs, (std::vector<std::string>{"inputs: N * T"}));
  std::vector<std::string> attrs = Items(info_, TG_OpInfoNumAttrs, TG_OpInfoAttr);
  EXPECT_NE(std::find(attrs.begin(), attrs.end(), "N: int >= 1"), attrs.end());

  attrs = Items(Info("Conv2D"), TG_OpInfoNumAttrs, TG_OpInfoAttr);
  ASSERT_TRUE(IsOk(s_));
  auto padding = std::find_if(attrs.begin(), attrs.end(),
                              [](const std::string& a) { return a.starts_with("padding: {"); });
  ASSERT_NE(padding, attrs.end());
  EXPECT_NE(padding->find("'SAME'"), std::string::npos) << *padding;

  std::vector<std::string> ref = Items(Info("Assign"), TG_OpInfoNumInputs, TG_OpInfoInput);
  ASSERT_TRUE(IsOk(s_));
  EXPECT_EQ(ref.front(), "ref: Ref(T)");
}

TEST_F(OpRegistryTest, UnknownOpIsNotFoundNamingIt) {
  EXPECT_EQ(Info("NoSuchOpAnywhere"), nullptr);
  EXPECT_EQ(TG_GetCode(s_), TG_NOT_FOUND);
  EXPECT_NE(std::string(TG_Message(s_)).find("NoSuchOpAnywhere"), std::string::npos);
  EXPECT_EQ(Info(nullptr), nullptr);
  EXPECT_EQ(TG_GetCode(s_), TG_INVALID_ARGUMENT);
}

TEST_F(OpRegistryTest, NullInfoGivesNeutralValues) {
  EXPECT_EQ(TG_OpInfoName(nullptr), nullptr);
  EXPECT_EQ(TG_OpInfoNumInputs(nullptr), 0);
  EXPECT_EQ(TG_OpInfoAttr(nullptr, 0), nullptr);
  EXPECT_EQ(TG_OpInfoPlugin(nullptr), nullptr);
  TG_DeleteOpInfo(nullptr);
}

TEST_F(OpRegistryTest, PluginOpNamesItsPluginAndKernelDevices) {
  const TG_Plugin* plugin =
      TG_LoadPlugin((std::string(TGRAPH_TEST_PLUGIN_DIR) + "/good/libtg_test_good.so").c_str(), s_);
  ASSERT_TRUE(IsOk(s_));
  const TG_OpInfo* info = Info("TestScaleAdd");
  ASSERT_TRUE(IsOk(s_));
  EXPECT_EQ(TG_OpInfoPlugin(info), plugin);
  EXPECT_STREQ(TG_OpInfoSummary(info), "z = alpha * x + y");
  EXPECT_EQ(Items(info, TG_OpInfoNumKernelDeviceTypes, TG_OpInfoKernelDeviceType),
            (std::vector<std::string>{"CPU"}));
  std::vector<std::string> attrs = Items(info, TG_OpInfoNumAttrs, TG_OpInfoAttr);
  EXPECT_NE(std::find(attrs.begin(), attrs.end(), "T: {float, double}"), attrs.end());
  EXPECT_NE(std::find(attrs.begin(), attrs.end(), "alpha: float = 1"), attrs.end());
  // A core op the plugin has a kernel for (Identity on its TESTDEV device).
  std::vector<std::string> devices =
      Items(Info("Identity"), TG_OpInfoNumKernelDeviceTypes, TG_OpInfoKernelDeviceType);
  EXPECT_NE(std::find(devices.begin(), devices.end(), "TESTDEV"), devices.end());
  EXPECT_EQ(TG_OpInfoPlugin(info_), nullptr);
}

}  // namespace
