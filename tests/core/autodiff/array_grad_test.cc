// The structure of the array gradients: sparse (IndexedSlices) gradients of gathers, where
// they stay sparse and where they are made dense, and which ops stop backprop. The values
// are checked against finite differences in tests/c_api/array_grad_test.cc.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "grad_test_util.h"

namespace tgraph {
namespace {

class ArrayGradTest : public grad_testing::GradTest<DT_FLOAT> {
 protected:
  std::vector<GradValue> Gradients(Output y, std::vector<Output> xs, bool allow_sparse) {
    AddGradientsOptions options;
    options.allow_sparse = allow_sparse;
    return GradientsOrFail(y, xs, {}, options);
  }
};

TEST_F(ArrayGradTest, EveryOpIsRegistered) {
  const GradientFunctionRegistry& r = GradientFunctionRegistry::Global();
  for (const char* type :
       {"Identity", "IdentityN", "PlaceholderWithDefault", "Reshape", "Squeeze", "ExpandDims", "Transpose",
        "ConcatV2", "Pack", "Unpack", "Slice", "StridedSlice", "Tile", "Pad", "Fill", "Gather",
        "GatherV2"}) {
    EXPECT_NE(r.Find(type), nullptr) << type;
  }
  for (const char* type :
       {"Const", "Placeholder", "Shape", "ShapeN", "Size", "Rank", "OneHot", "ZerosLike",
        "OnesLike", "BroadcastGradientArgs", "ConcatOffset", "InvertPermutation", "NoOp",
        "VariableV2", "Assign", "AssignAdd", "AssignSub", "ScatterUpdate", "ScatterAdd",
        "ScatterSub", "RandomUniform", "RandomStandardNormal", "TruncatedNormal",
        "RandomShuffle", "RandomUniformInt", "LogUniformCandidateSampler"}) {
    EXPECT_TRUE(r.IsNotDifferentiable(type)) << type;
  }
}

TEST_F(ArrayGradTest, GatherGradientIsSparse) {
  Output params = Placeholder({10, 3});
  Output indices = b_.ConstInt32({1, 7, 1});
  Output y = Op("GatherV2", {params, indices, b_.ScalarInt32(0)});
  std::vector<GradValue> g = Gradients(y, {params}, /*allow_sparse=*/true);
  ASSERT_TRUE(g[0].is_sparse());
  EXPECT_EQ(BaseType(g[0].values.dtype()), DT_FLOAT);
  EXPECT_EQ(g[0].indices.dtype(), DT_INT32);
  EXPECT_EQ(g[0].dense_shape.dtype(), DT_INT32);
  EXPECT_EQ(g[0].dense_shape.op->type(), "Shape");
  EXPECT_EQ(g[0].dense_shape.op->input(0), params);
  // values: grad reshaped to [num_indices, 3]; indices: the indices flattened.
  EXPECT_EQ(g[0].values.op->type(), "Reshape");
  EXPECT_EQ(g[0].indices.op->type(), "Reshape");
  EXPECT_EQ(g[0].indices.op->input(0), indices);
  EXPECT_EQ(BackwardTypes(g[0].values).count("UnsortedSegmentSum"), 0u);
}

TEST_F(ArrayGradTest, GatherGradientWithoutAllowSparseIsDense) {
  Output params = Placeholder({10, 3});
  Output y = Op("Gather", {params, b_.ConstInt32({2, 2})});
  std::vector<GradValue> g = Gradients(y, {params}, /*allow_sparse=*/false);
  ASSERT_TRUE(g[0].defined());
  EXPECT_FALSE(g[0].is_sparse());
  EXPECT_EQ(g[0].values.op->type(), "UnsortedSegmentSum");
}

TEST_F(ArrayGradTest, SparseGradientStaysSparseThroughIdentity) {
  Output params = Placeholder({6, 2});
  Output id = Op("Identity", {params});
  Tensor indices = Tensor::Allocate(DT_INT64, {2}).value();
  indices.flat<int64_t>()[0] = 5;
  indices.flat<int64_t>()[1] = 0;
  Output y = Op("Gather", {id, b_.Const(indices)});
  std::vector<GradValue> g = Gradients(y, {params}, /*allow_sparse=*/true);
  ASSERT_TRUE(g[0].is_sparse());
  EXPECT_EQ(g[0].indices.dtype(), DT_INT64);
  EXPECT_EQ(BackwardTypes(g[0].values).count("UnsortedSegmentSum"), 0u);
  EXPECT_EQ(BackwardTypes(g[0].values).count("Identity"), 0u);  // passed on, not copied
}

TEST_F(ArrayGradTest, ReshapeOfSparseGradientDensifies) {
  Output x = Placeholder({12});
  Output table = Op("Reshape", {x, b_.ConstInt32({4, 3})});
  Output y = Op("Gather", {table, b_.ConstInt32({3, 0, 3})});
  std::vector<GradValue> g = Gradients(y, {x}, /*allow_sparse=*/true);
  ASSERT_TRUE(g[0].defined());
  EXPECT_FALSE(g[0].is_sparse());
  EXPECT_EQ(g[0].values.op->type(), "Reshape");
  EXPECT_EQ(BackwardTypes(g[0].values).count("UnsortedSegmentSum"), 1u);
}

TEST_F(ArrayGradTest, GatherV2OnOtherAxisIsDense) {
  Output params = Placeholder({3, 5});
  Output y = Op("GatherV2", {params, b_.ConstInt32({4, 4}), b_.ScalarInt32(1)});
  std::vector<GradValue> g = Gradients(y, {params}, /*allow_sparse=*/true);
  ASSERT_TRUE(g[0].defined());
  EXPECT_FALSE(g[0].is_sparse());
  EXPECT_EQ(g[0].values.op->type(), "Transpose");
  EXPECT_EQ(BackwardTypes(g[0].values).count("UnsortedSegmentSum"), 1u);
}

TEST_F(ArrayGradTest, GatherV2UnsupportedCasesFailClearly) {
  {
    Output params = Placeholder({3, 5});
    Output axis = Op("Identity", {b_.ScalarInt32(0)});  // not a constant
    Output y = Op("GatherV2", {params, b_.ConstInt32({1}), axis});
    auto grads = AddGradients(g_, {y}, {params}, {});
    ASSERT_FALSE(grads.ok());
    EXPECT_EQ(grads.status().code(), Code::kUnimplemented) << grads.status().ToString();
    EXPECT_NE(grads.status().ToString().find("constant axis"), std::string::npos);
  }
  {
    Output params = Placeholder({2, 3, 4});
    Output indices =
        Op("Reshape", {b_.ConstInt32({0, 1, 2, 1, 0, 0}), b_.ConstInt32({2, 3})});
    Output y = Op("GatherV2", {params, indices, b_.ScalarInt32(1)},
                  {{"batch_dims", AttrOfInt(1)}});
    ASSERT_TRUE(b_.ok()) << b_.status().ToString();
    auto grads = AddGradients(g_, {y}, {params}, {});
    ASSERT_FALSE(grads.ok());
    EXPECT_EQ(grads.status().code(), Code::kUnimplemented) << grads.status().ToString();
  }
}

TEST_F(ArrayGradTest, UnpackFillsUnusedOutputsWithZeros) {
  Output x = Placeholder({3, 2});
  std::vector<Output> parts =
      b_.OpOutputs("Unpack", {x}, {{"num", AttrOfInt(3)}, {"axis", AttrOfInt(0)}});
  ASSERT_EQ(parts.size(), 3u);
  std::vector<GradValue> g = Gradients(parts[1], {x}, false);
  ASSERT_TRUE(g[0].defined());
  EXPECT_EQ(g[0].values.op->type(), "Pack");
  EXPECT_EQ(BackwardTypes(g[0].values).count("ZerosLike"), 2u);
}

// IdentityN (after Keras's custom-gradient activations in a frozen graph): each output's
// gradient goes to its input unchanged; an input whose output is unused gets none.
TEST_F(ArrayGradTest, IdentityNPassesEachGradientToItsInput) {
  Output a = Placeholder({2});
  Output b = Placeholder({3});
  Output c = Placeholder({2});
  std::vector<Output> outs = b_.OpOutputs("IdentityN", {GradInput::List({a, b, c})},
                                          {{"T", AttrOfTypeList({DT_FLOAT, DT_FLOAT, DT_FLOAT})}});
  ASSERT_EQ(outs.size(), 3u);
  Output y = Op("Sum", {Op("Mul", {outs[0], outs[0]}), b_.ConstInt32({0})});
  Output z = Op("AddV2", {y, Op("Sum", {outs[1], b_.ConstInt32({0})})});
  std::vector<GradValue> g = Gradients(z, {a, b, c}, false);
  ASSERT_TRUE(g[0].defined());
  ASSERT_TRUE(g[1].defined());
  EXPECT_FALSE(g[2].defined());
  EXPECT_EQ(g[1].values.op->type(), "Tile");  // Sum's gradient, passed through as is
}

TEST_F(ArrayGradTest, ShapeStopsBackprop) {
  // y depends on x only through Shape: x gets no gradient, and building succeeds.
  Output x = Placeholder({2, 3});
  Output shape = Op("Shape", {x});
  Output y = Op("Fill", {shape, b_.Scalar(DT_FLOAT, 2.0)});
  std::vector<GradValue> g = Gradients(y, {x}, false);
  EXPECT_FALSE(g[0].defined());
}

}  // namespace
}  // namespace tgraph
