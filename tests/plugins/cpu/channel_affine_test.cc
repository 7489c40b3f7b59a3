// _FusedChannelAffine (plugins/cpu/channel_affine_op.cc) against the Mul, Add and Relu /
// Relu6 kernels it stands for, which it must match exactly (each element rounded as they
// round it, no FMA); on the pool and inline, float and double, odd channel counts; and the
// errors (a scale or offset that is not a vector of x's last dimension, an unknown
// activation).
#include <cmath>

#include "nn_test_util.h"

namespace tgraph::testing {
namespace {

using Dims = std::vector<int64_t>;

std::vector<double> Unfused(ThreadPool* pool, const Tensor& x, const Tensor& scale,
                            const Tensor& offset, const std::string& activation) {
  auto product = RunOpOnPool(pool, "Mul", {x, scale});
  EXPECT_TRUE(product.status.ok()) << product.status.ToString();
  if (!product.status.ok()) return {};
  auto sum = RunOpOnPool(pool, "AddV2", {product.outputs[0], offset});
  EXPECT_TRUE(sum.status.ok()) << sum.status.ToString();
  if (!sum.status.ok()) return {};
  if (activation == "None") return ToDoubles(sum.outputs[0]);
  auto act = RunOpOnPool(pool, activation, {sum.outputs[0]});
  EXPECT_TRUE(act.status.ok()) << act.status.ToString();
  return act.status.ok() ? ToDoubles(act.outputs[0]) : std::vector<double>{};
}

TEST(FusedChannelAffine, MatchesMulAddActivationExactly) {
  LoadCpuPlugin();
  for (DataType dtype : {DT_FLOAT, DT_DOUBLE}) {
    for (ThreadPool* pool : Pools()) {
      for (const Dims& dims : std::vector<Dims>{{1, 7, 5, 3}, {2, 16, 16, 64}, {5, 13}, {17}, {0, 4, 4, 8}}) {
        for (const std::string activation : {"None", "Relu", "Relu6"}) {
          SCOPED_TRACE(StrCat(DataTypeName(dtype), " ", PartialShape(dims).ToString(), " ", activation));
          int64_t n = 1;
          for (int64_t d : dims) n *= d;
          const int64_t channels = dims.back();
          const Tensor x = MakeTyped(dtype, dims, RandomValues(dtype, n, 1, -8, 8));
          const Tensor scale = MakeTyped(dtype, {channels}, RandomValues(dtype, channels, 2, -2, 2));
          const Tensor offset = MakeTyped(dtype, {channels}, RandomValues(dtype, channels, 3, -3, 3));
          const std::vector<double> want = Unfused(pool, x, scale, offset, activation);
          auto got = RunOpEx("_FusedChannelAffine", {x, scale, offset},
                             {{"activation", AttrOfString(activation)}}, pool);
          ASSERT_TRUE(got.status.ok()) << got.status.ToString();
          ASSERT_EQ(got.outputs[0].dims(), dims);
          EXPECT_EQ(ToDoubles(got.outputs[0]), want);
        }
      }
    }
  }
}

TEST(FusedChannelAffine, Errors) {
  LoadCpuPlugin();
  const Tensor x = MakeTyped(DT_FLOAT, {2, 3}, RandomValues(DT_FLOAT, 6, 1));
  const Tensor three = MakeTyped(DT_FLOAT, {3}, {1, 2, 3});
  // Unknown static shapes, so that the kernel, not the shape function, finds them.
  auto wrong_scale = RunOpEx("_FusedChannelAffine", {x, MakeTyped(DT_FLOAT, {2}, {1, 2}), three}, {},
                             nullptr, false, /*known_shapes=*/false);
  ExpectStatus(wrong_scale.status, Code::kInvalidArgument, {"scale", "[2]", "[2,3]"});
  auto wrong_offset = RunOpEx("_FusedChannelAffine", {x, three, MakeTyped(DT_FLOAT, {1, 3}, {1, 2, 3})}, {},
                              nullptr, false, /*known_shapes=*/false);
  ExpectStatus(wrong_offset.status, Code::kInvalidArgument, {"offset", "[1,3]"});
  auto scalar = RunOpEx("_FusedChannelAffine", {MakeTyped(DT_FLOAT, {}, {1}), three, three}, {}, nullptr,
                        false, /*known_shapes=*/false);
  ExpectStatus(scalar.status, Code::kInvalidArgument, {"scale"});
  auto unknown = RunOpEx("_FusedChannelAffine", {x, three, three}, {{"activation", AttrOfString("Elu")}},
                         nullptr);
  EXPECT_FALSE(unknown.status.ok());
}

}  // namespace
}  // namespace tgraph::testing
