// How the oneDNN plugin ranks its bfloat16 contractions (plugins/onednn/bf16_mode.h): a bf16
// MatMul on every CPU, above the Eigen kernel; at the fp32 kernels' priority only where bf16
// runs natively and faster, else below it, so that automatic mixed precision leaves graphs
// in fp32 there. tests/CMakeLists.txt also runs this with TGRAPH_ONEDNN_BF16=widened and
// =native, which must each win over what the CPU would choose.
#include <cstdlib>
#include <cstring>

#include "onednn_test_util.h"

namespace tgraph::onednn_test {
namespace {

TEST(OneDnnBf16ModeTest, KernelsRankByTheMode) {
  LoadPlugins();
  const AttrMap bf16 = {{"T", AttrOfType(DT_BFLOAT16)}};
  const AttrMap f32 = {{"T", AttrOfType(DT_FLOAT)}};
  const KernelRegistration* matmul = KernelOf("onednn", "MatMul", bf16);
  const KernelRegistration* fused = KernelOf("onednn", "_FusedMatMul", bf16);
  const KernelRegistration* fp32 = KernelOf("onednn", "MatMul", f32);
  const KernelRegistration* eigen = KernelOf("cpu", "MatMul", bf16);
  ASSERT_NE(matmul, nullptr);
  ASSERT_NE(fused, nullptr);
  ASSERT_NE(fp32, nullptr);
  ASSERT_NE(eigen, nullptr);
  EXPECT_GT(matmul->priority, eigen->priority);
  EXPECT_LE(matmul->priority, fp32->priority);
  EXPECT_EQ(fused->priority, matmul->priority);
  // Native bf16 convolutions exist where oneDNN's bf16 kernels run at all.
  const bool native_available = KernelOf("onednn", "Conv2D", bf16) != nullptr;
  const char* forced = std::getenv("TGRAPH_ONEDNN_BF16");
  if (forced != nullptr && std::strcmp(forced, "widened") == 0) {
    EXPECT_LT(matmul->priority, fp32->priority);
  } else if (forced != nullptr && std::strcmp(forced, "native") == 0) {
    EXPECT_EQ(matmul->priority == fp32->priority, native_available);
  } else if (!native_available) {
    EXPECT_LT(matmul->priority, fp32->priority);
  }
}

}  // namespace
}  // namespace tgraph::onednn_test
