// Issue 21, item 4, at run time: a kernel asked by its input values for an output larger than
// the machine's memory fails with RESOURCE_EXHAUSTED naming its node, before anything is
// allocated (core/base/tensor_limits.h), and the session stays usable.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "session_test_util.h"

namespace tgtest {
namespace {

class ResourceLimitsTest : public SessionTest {
 protected:
  // Fill(dims, value) named "fill".
  TG_Operation* Fill(const std::vector<int32_t>& dims, TG_Operation* value) {
    TensorPtr d = IntTensor({static_cast<int64_t>(dims.size())}, dims);
    TG_Operation* dims_op = ConstOf(g_, d.get(), "dims");
    return Binary("Fill", dims_op, value, "fill");
  }
};

TEST_F(ResourceLimitsTest, HugeFillIsResourceExhaustedNamingTheNode) {
  // 2^42 floats: 16 TiB.
  TG_Operation* fill = Fill({1 << 21, 1 << 21}, ScalarConst(1.0f, "one"));
  ASSERT_NE(fill, nullptr) << msg();
  TG_Session* session = NewSession();
  ASSERT_NE(session, nullptr) << msg();
  Run(session, {}, {Out(fill)});
  EXPECT_EQ(code(), TG_RESOURCE_EXHAUSTED) << msg();
  EXPECT_TRUE(Contains(msg(), "fill")) << msg();
  EXPECT_TRUE(Contains(msg(), "TGRAPH_MAX_TENSOR_BYTES")) << msg();
  // The session goes on.
  TG_Operation* small = Fill({2}, ScalarConst(3.0f, "three"));
  ASSERT_NE(small, nullptr) << msg();
  EXPECT_EQ(RunFloats(session, Out(small)), (std::vector<float>{3.0f, 3.0f})) << msg();
}

TEST_F(ResourceLimitsTest, HugeTensorFromTheCApiIsNull) {
  // TG_AllocateTensor of 2^42 floats: NULL, nothing allocated.
  const int64_t dims[] = {int64_t{1} << 21, int64_t{1} << 21};
  EXPECT_EQ(TG_AllocateTensor(TG_FLOAT, dims, 2, (size_t{1} << 42) * sizeof(float)), nullptr);
  // 2^42 empty strings: 128 TiB of std::string. The vector of strings threw std::bad_alloc
  // (and the sanitizers aborted on the request) before the limit.
  EXPECT_EQ(TG_AllocateTensor(TG_STRING, dims, 2, 0), nullptr);
}

}  // namespace
}  // namespace tgtest
