// Definitions and shape functions of the array, state (scatter) and random ops: TF's
// signatures (so TF GraphDefs import) and static shapes, including shapes computed from
// constant inputs, exercised the way graph building uses them.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "op_test_util.h"

namespace tgraph {
namespace {

using namespace op_testing;  // NOLINT: test helpers
using In = OpIn;

In FloatScalar(float v) {
  Tensor t = Tensor::Allocate(DT_FLOAT, {}).value();
  t.flat<float>()[0] = v;
  return In{DT_FLOAT, PS::Scalar(), t};
}
In Matrix(std::vector<int64_t> v, int64_t rows, int64_t cols) {
  Tensor t = Tensor::Allocate(DT_INT32, {rows, cols}).value();
  for (size_t i = 0; i < v.size(); ++i) t.flat<int32_t>()[i] = static_cast<int32_t>(v[i]);
  return In{DT_INT32, PS{rows, cols}, t};
}

// The `output`th static shape; PS::Unknown() and a test failure if building fails.
PS Shape(const std::string& op, const std::vector<In>& inputs, AttrMap attrs = {},
         ListSpans lists = {}, int output = 0) {
  std::vector<PS> s = OutShapes(op, std::move(attrs), inputs, lists);
  return s.empty() ? PS::Unknown() : s.at(static_cast<size_t>(output));
}

void ExpectError(const std::string& op, const std::vector<In>& inputs, AttrMap attrs,
                 std::initializer_list<std::string> fragments, ListSpans lists = {}) {
  ExpectBuildError(op, std::move(attrs), inputs, fragments, lists);
}

using Names = std::vector<std::string>;

TEST(ArrayOpsTest, SignaturesMatchTensorFlow) {
  EXPECT_EQ(ArgNames(Def("Reshape").input_arg()), (Names{"tensor", "shape"}));
  EXPECT_EQ(FindAttr(Def("Reshape"), "Tshape")->default_value().type(), tf::DT_INT32);
  EXPECT_EQ(FindAttr(Def("Squeeze"), "squeeze_dims")->default_value().list().i_size(), 0);
  EXPECT_EQ(ArgNames(Def("ExpandDims").input_arg()), (Names{"input", "dim"}));
  EXPECT_EQ(ArgNames(Def("Transpose").input_arg()), (Names{"x", "perm"}));
  EXPECT_EQ(ArgNames(Def("Transpose").output_arg()), (Names{"y"}));
  const auto& concat = Def("ConcatV2");
  EXPECT_EQ(ArgNames(concat.input_arg()), (Names{"values", "axis"}));
  EXPECT_EQ(concat.input_arg(0).number_attr(), "N");
  EXPECT_EQ(FindAttr(concat, "N")->minimum(), 2);
  EXPECT_EQ(FindAttr(concat, "Tidx")->default_value().type(), tf::DT_INT32);
  EXPECT_EQ(FindAttr(Def("Pack"), "axis")->default_value().i(), 0);
  EXPECT_EQ(Def("Unpack").output_arg(0).number_attr(), "num");
  EXPECT_EQ(ArgNames(Def("Slice").input_arg()), (Names{"input", "begin", "size"}));
  EXPECT_FALSE(FindAttr(Def("Slice"), "Index")->has_default_value());
  const auto& ss = Def("StridedSlice");
  EXPECT_EQ(ArgNames(ss.input_arg()), (Names{"input", "begin", "end", "strides"}));
  for (const char* m :
       {"begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask"}) {
    ASSERT_NE(FindAttr(ss, m), nullptr) << m;
    EXPECT_EQ(FindAttr(ss, m)->default_value().i(), 0) << m;
  }
  EXPECT_EQ(ArgNames(Def("Tile").input_arg()), (Names{"input", "multiples"}));
  EXPECT_EQ(ArgNames(Def("Pad").input_arg()), (Names{"input", "paddings"}));
  EXPECT_EQ(ArgNames(Def("Fill").input_arg()), (Names{"dims", "value"}));
  EXPECT_EQ(FindAttr(Def("Fill"), "index_type")->default_value().type(), tf::DT_INT32);
  EXPECT_EQ(FindAttr(Def("Shape"), "out_type")->default_value().type(), tf::DT_INT32);
  EXPECT_EQ(Def("Rank").output_arg(0).type(), tf::DT_INT32);
  EXPECT_EQ(ArgNames(Def("Range").input_arg()), (Names{"start", "limit", "delta"}));
  EXPECT_EQ(FindAttr(Def("Range"), "Tidx")->default_value().type(), tf::DT_INT32);
  const auto& one_hot = Def("OneHot");
  EXPECT_EQ(ArgNames(one_hot.input_arg()), (Names{"indices", "depth", "on_value", "off_value"}));
  EXPECT_EQ(one_hot.input_arg(1).type(), tf::DT_INT32);
  EXPECT_EQ(FindAttr(one_hot, "axis")->default_value().i(), -1);
  EXPECT_EQ(FindAttr(one_hot, "TI")->default_value().type(), tf::DT_INT64);
  const auto& g2 = Def("GatherV2");
  EXPECT_EQ(ArgNames(g2.input_arg()), (Names{"params", "indices", "axis"}));
  EXPECT_EQ(FindAttr(g2, "batch_dims")->default_value().i(), 0);
  EXPECT_TRUE(FindAttr(Def("Gather"), "validate_indices")->default_value().b());

  for (const char* op : {"ScatterUpdate", "ScatterAdd", "ScatterSub"}) {
    const auto& d = Def(op);
    EXPECT_EQ(ArgNames(d.input_arg()), (Names{"ref", "indices", "updates"})) << op;
    EXPECT_TRUE(d.input_arg(0).is_ref()) << op;
    EXPECT_TRUE(d.output_arg(0).is_ref()) << op;
    EXPECT_EQ(d.output_arg(0).name(), "output_ref") << op;
    EXPECT_EQ(FindAttr(d, "use_locking")->default_value().b(), std::string(op) == "ScatterUpdate")
        << op;
  }

  for (const char* op : {"RandomUniform", "RandomStandardNormal", "TruncatedNormal"}) {
    const auto& d = Def(op);
    EXPECT_TRUE(d.is_stateful()) << op;
    EXPECT_EQ(ArgNames(d.input_arg()), (Names{"shape"})) << op;
    EXPECT_EQ(FindAttr(d, "seed")->default_value().i(), 0) << op;
    EXPECT_EQ(FindAttr(d, "seed2")->default_value().i(), 0) << op;
    EXPECT_FALSE(FindAttr(d, "dtype")->has_default_value()) << op;
  }
  EXPECT_TRUE(Def("RandomShuffle").is_stateful());
  EXPECT_EQ(ArgNames(Def("RandomUniformInt").input_arg()), (Names{"shape", "minval", "maxval"}));
  const auto& sampler = Def("LogUniformCandidateSampler");
  EXPECT_TRUE(sampler.is_stateful());
  EXPECT_EQ(ArgNames(sampler.input_arg()), (Names{"true_classes"}));
  EXPECT_EQ(ArgNames(sampler.output_arg()),
            (Names{"sampled_candidates", "true_expected_count", "sampled_expected_count"}));
  for (const char* a : {"num_true", "num_sampled", "unique", "range_max", "seed", "seed2"}) {
    EXPECT_NE(FindAttr(sampler, a), nullptr) << a;
  }
}

TEST(ArrayOpsTest, ReshapeShapes) {
  EXPECT_EQ(Shape("Reshape", {F(PS{2, 3, 4}), Ints({4, -1})}), (PS{4, 6}));
  EXPECT_EQ(Shape("Reshape", {F(PS{-1, 3}), Ints({-1, 3})}), (PS{-1, 3}));
  EXPECT_EQ(Shape("Reshape", {F(PS{2, 3}), I(PS{3})}), PS::UnknownOfRank(3));
  EXPECT_EQ(Shape("Reshape", {F(PS{2, 3}), I(PS::Unknown())}), PS::Unknown());
  EXPECT_EQ(Shape("Reshape", {F(PS{1}), Ints({}, DT_INT64)}), PS::Scalar());
  ExpectError("Reshape", {F(PS{2, 3}), Ints({4, -1})}, {}, {"Reshape 'n'", "6 elements", "[4,?]"});
  ExpectError("Reshape", {F(PS{2, 3}), Ints({5})}, {}, {"6 elements", "[5]"});
  ExpectError("Reshape", {F(PS{2, 3}), Ints({-1, -1})}, {}, {"one unknown dimension"});
  ExpectError("Reshape", {F(PS{2, 3}), Ints({-2, 3})}, {}, {"non-negative"});
}

TEST(ArrayOpsTest, SqueezeAndExpandDimsShapes) {
  EXPECT_EQ(Shape("Squeeze", {F(PS{1, 3, 1, 2})}), (PS{3, 2}));
  EXPECT_EQ(Shape("Squeeze", {F(PS{1, 3, 1})}, {{"squeeze_dims", AttrOfIntList({-1})}}),
            (PS{1, 3}));
  EXPECT_EQ(Shape("Squeeze", {F(PS{1, -1})}), PS::Unknown());
  EXPECT_EQ(Shape("Squeeze", {F(PS{1, -1})}, {{"squeeze_dims", AttrOfIntList({1})}}), (PS{1}));
  ExpectError("Squeeze", {F(PS{1, 3})}, {{"squeeze_dims", AttrOfIntList({1})}},
              {"dim[1]", "got 3"});
  ExpectError("Squeeze", {F(PS{1, 3})}, {{"squeeze_dims", AttrOfIntList({2})}}, {"out of range"});
  EXPECT_EQ(Shape("ExpandDims", {F(PS{2, 3}), Scalar(1)}), (PS{2, 1, 3}));
  EXPECT_EQ(Shape("ExpandDims", {F(PS{2, 3}), Scalar(-1)}), (PS{2, 3, 1}));
  EXPECT_EQ(Shape("ExpandDims", {F(PS{2, 3}), I(PS::Scalar())}), PS::UnknownOfRank(3));
  ExpectError("ExpandDims", {F(PS{2, 3}), Scalar(4)}, {}, {"dim 4", "out of range"});
}

TEST(ArrayOpsTest, TransposeConcatPackUnpackShapes) {
  EXPECT_EQ(Shape("Transpose", {F(PS{2, 3, 4}), Ints({2, 0, 1})}), (PS{4, 2, 3}));
  EXPECT_EQ(Shape("Transpose", {F(PS{2, 3}), I(PS{2})}), PS::UnknownOfRank(2));
  EXPECT_EQ(Shape("Transpose", {F(PS::Unknown()), Ints({1, 0})}), PS::UnknownOfRank(2));
  ExpectError("Transpose", {F(PS{2, 3}), Ints({0, 0})}, {}, {"twice"});
  ExpectError("Transpose", {F(PS{2, 3}), Ints({0, 1, 2})}, {}, {"3 entries", "rank 2"});

  EXPECT_EQ(Shape("ConcatV2", {F(PS{2, 3}), F(PS{2, 5}), Scalar(1)}, {}, {{0, 2}}), (PS{2, 8}));
  EXPECT_EQ(Shape("ConcatV2", {F(PS{-1, 3}), F(PS{2, 3}), Scalar(-2)}, {}, {{0, 2}}), (PS{-1, 3}));
  EXPECT_EQ(Shape("ConcatV2", {F(PS{-1, 3}), F(PS{2, -1}), Scalar(0)}, {}, {{0, 2}}), (PS{-1, 3}));
  EXPECT_EQ(Shape("ConcatV2", {F(PS{2, 3}), F(PS{2, 3}), I(PS::Scalar())}, {}, {{0, 2}}),
            PS::UnknownOfRank(2));
  ExpectError("ConcatV2", {F(PS{2, 3}), F(PS{3, 3}), Scalar(1)}, {}, {"dimension 0"}, {{0, 2}});
  ExpectError("ConcatV2", {F(PS{2, 3}), F(PS{3}), Scalar(0)}, {}, {"same rank"}, {{0, 2}});

  EXPECT_EQ(Shape("Pack", {F(PS{2, 3}), F(PS{-1, 3})}, {}, {{0, 2}}), (PS{2, 2, 3}));
  EXPECT_EQ(Shape("Pack", {F(PS{2, 3}), F(PS{2, 3})}, {{"axis", AttrOfInt(-1)}}, {{0, 2}}),
            (PS{2, 3, 2}));
  ExpectError("Pack", {F(PS{2, 3}), F(PS{3, 3})}, {}, {"must match"}, {{0, 2}});
  auto unpack =
      BuildNode("Unpack", {{"num", AttrOfInt(3)}, {"axis", AttrOfInt(1)}}, {F(PS{2, 3, 4})});
  ASSERT_TRUE(unpack.ok()) << unpack.status().ToString();
  ASSERT_EQ(unpack->output_shapes.size(), 3u);
  EXPECT_EQ(unpack->output_shapes[2], (PS{2, 4}));
  ExpectError("Unpack", {F(PS{2, 3})}, {{"num", AttrOfInt(2)}, {"axis", AttrOfInt(1)}},
              {"is 3", "'num' is 2"});
}

TEST(ArrayOpsTest, SliceAndStridedSliceShapes) {
  EXPECT_EQ(Shape("Slice", {F(PS{3, 4}), Ints({1, 1}), Ints({2, -1})}), (PS{2, 3}));
  EXPECT_EQ(Shape("Slice", {F(PS{-1, 4}), I(PS{2}), Ints({2, -1})}), (PS{2, -1}));
  EXPECT_EQ(Shape("Slice", {F(PS{3, 4}), I(PS{2}), I(PS{2})}), PS::UnknownOfRank(2));
  ExpectError("Slice", {F(PS{3, 4}), Ints({2, 0}), Ints({2, 4})}, {}, {"out of bounds"});
  ExpectError("Slice", {F(PS{3, 4}), Ints({0}), Ints({1})}, {}, {"1 entries"});

  auto ss = [](PS in, std::vector<int64_t> b, std::vector<int64_t> e, std::vector<int64_t> s,
               AttrMap masks = {}) {
    return Shape("StridedSlice", {F(std::move(in)), Ints(b), Ints(e), Ints(s)}, std::move(masks));
  };
  EXPECT_EQ(ss(PS{3, 4}, {1, 0}, {0, 0}, {1, 2},
               {{"begin_mask", AttrOfInt(2)}, {"end_mask", AttrOfInt(3)}}),
            (PS{2, 2}));
  EXPECT_EQ(ss(PS{3, 4}, {0, -1}, {0, 0}, {-1, 1},
               {{"begin_mask", AttrOfInt(1)},
                {"end_mask", AttrOfInt(1)},
                {"shrink_axis_mask", AttrOfInt(2)}}),
            PS{3});
  EXPECT_EQ(ss(PS{3, 4}, {0, 1}, {0, 3}, {1, 1}, {{"ellipsis_mask", AttrOfInt(1)}}), (PS{3, 2}));
  EXPECT_EQ(ss(PS{3, 4}, {0, 1}, {0, 2}, {1, 1},
               {{"new_axis_mask", AttrOfInt(1)}, {"shrink_axis_mask", AttrOfInt(2)}}),
            (PS{1, 4}));
  EXPECT_EQ(ss(PS{-1, 4}, {0, 1}, {0, 3}, {1, 1},
               {{"begin_mask", AttrOfInt(1)}, {"end_mask", AttrOfInt(1)}}),
            (PS{-1, 2}));
  EXPECT_EQ(ss(PS{-1, 4}, {2}, {3}, {1}, {{"shrink_axis_mask", AttrOfInt(1)}}), PS{4});
  EXPECT_EQ(ss(PS{3, 4}, {-100}, {100}, {1}), (PS{3, 4}));
  EXPECT_EQ(ss(PS{2, 3, 4}, {1, 0, 2}, {2, 0, 3}, {1, 1, 1},
               {{"ellipsis_mask", AttrOfInt(2)}, {"shrink_axis_mask", AttrOfInt(5)}}),
            PS{3});
  // Found by fuzz/op_run: a mask of INT64_MIN (bit 63, beyond any slice spec) overflowed the
  // one-ellipsis check; it is a mask like any other.
  EXPECT_EQ(ss(PS{3, 4}, {1}, {2}, {1},
               {{"ellipsis_mask", AttrOfInt(std::numeric_limits<int64_t>::min())}}),
            (PS{1, 4}));
  EXPECT_EQ(ss(PS{10}, {1}, {8}, {3}), PS{3});   // 1, 4, 7
  EXPECT_EQ(ss(PS{10}, {8}, {1}, {-3}), PS{3});  // 8, 5, 2
  // Unknown begin: unknown shape.
  EXPECT_EQ(Shape("StridedSlice", {F(PS{3, 4}), I(PS{1}), Ints({1}), Ints({1})}), PS::Unknown());
  ExpectError("StridedSlice", {F(PS{3, 4}), Ints({5}), Ints({6}), Ints({1})},
              {{"shrink_axis_mask", AttrOfInt(1)}}, {"slice index 5 of dimension 0 out of bounds"});
  ExpectError("StridedSlice", {F(PS{3, 4}), Ints({0}), Ints({1}), Ints({0})}, {}, {"non-zero"});
  ExpectError("StridedSlice", {F(PS{3, 4}), Ints({0, 0}), Ints({1, 1}), Ints({1, 1})},
              {{"ellipsis_mask", AttrOfInt(3)}}, {"multiple ellipses"});
}

TEST(ArrayOpsTest, TilePadFillShapes) {
  EXPECT_EQ(Shape("Tile", {F(PS{2, -1}), Ints({3, 2})}), (PS{6, -1}));
  EXPECT_EQ(Shape("Tile", {F(PS{2, 3}), I(PS{2})}), PS::UnknownOfRank(2));
  ExpectError("Tile", {F(PS{2, 3}), Ints({1})}, {}, {"1 entries"});
  ExpectError("Tile", {F(PS{2, 3}), Ints({1, -1})}, {}, {"non-negative"});
  EXPECT_EQ(Shape("Pad", {F(PS{2, -1}), Matrix({1, 0, 2, 2}, 2, 2)}), (PS{3, -1}));
  EXPECT_EQ(Shape("Pad", {F(PS::Unknown()), I(PS{3, 2})}), PS::UnknownOfRank(3));
  ExpectError("Pad", {F(PS{2}), Matrix({-1, 0}, 1, 2)}, {}, {"non-negative"});
  ExpectError("Pad", {F(PS{2}), I(PS{1, 3})}, {}, {"2 columns"});
  EXPECT_EQ(Shape("Fill", {Ints({2, 3}), FloatScalar(1)}), (PS{2, 3}));
  EXPECT_EQ(Shape("Fill", {I(PS{4}), FloatScalar(1)}), PS::UnknownOfRank(4));
  ExpectError("Fill", {Ints({2, -3}), FloatScalar(1)}, {}, {"non-negative"});
  ExpectError("Fill", {Ints({2}), F(PS{1})}, {}, {"value must be rank 0"});
  EXPECT_EQ(Shape("ZerosLike", {F(PS{-1, 2})}), (PS{-1, 2}));
  EXPECT_EQ(Shape("OnesLike", {I(PS{5})}), PS{5});
}

TEST(ArrayOpsTest, ShapeSizeRankRangeOneHotGatherShapes) {
  auto s = BuildNode("Shape", {{"out_type", AttrOfType(DT_INT64)}}, {F(PS{2, -1, 3})});
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->output_types, std::vector<DataType>{DT_INT64});
  EXPECT_EQ(s->output_shapes[0], PS{3});
  EXPECT_EQ(Shape("Shape", {F(PS::Unknown())}), PS{-1});
  EXPECT_EQ(Shape("Size", {F(PS{2, 3})}), PS::Scalar());
  EXPECT_EQ(Shape("Rank", {F(PS::Unknown())}), PS::Scalar());

  EXPECT_EQ(Shape("Range", {Scalar(3), Scalar(18), Scalar(3)}), PS{5});
  EXPECT_EQ(Shape("Range", {FloatScalar(0), FloatScalar(1), FloatScalar(0.3f)}), PS{4});
  EXPECT_EQ(Shape("Range", {I(PS::Scalar()), Scalar(18), Scalar(3)}), PS{-1});
  ExpectError("Range", {Scalar(0), Scalar(5), Scalar(0)}, {}, {"delta != 0"});
  ExpectError("Range", {Scalar(5), Scalar(0), Scalar(1)}, {}, {"start <= limit"});

  const In idx{DT_INT64, PS{2, 3}};
  EXPECT_EQ(Shape("OneHot", {idx, Scalar(5), FloatScalar(1), FloatScalar(0)}), (PS{2, 3, 5}));
  EXPECT_EQ(
      Shape("OneHot", {idx, Scalar(5), FloatScalar(1), FloatScalar(0)}, {{"axis", AttrOfInt(1)}}),
      (PS{2, 5, 3}));
  EXPECT_EQ(Shape("OneHot", {idx, I(PS::Scalar()), FloatScalar(1), FloatScalar(0)}),
            (PS{2, 3, -1}));
  ExpectError("OneHot", {idx, Scalar(5), FloatScalar(1), FloatScalar(0)}, {{"axis", AttrOfInt(-2)}},
              {"axis"});

  EXPECT_EQ(Shape("Gather", {F(PS{10, 4}), I(PS{2, 3})}), (PS{2, 3, 4}));
  EXPECT_EQ(Shape("GatherV2", {F(PS{5, 6, 7}), I(PS{2}), Scalar(1)}), (PS{5, 2, 7}));
  EXPECT_EQ(Shape("GatherV2", {F(PS{5, 6, 7}), I(PS{2}), I(PS::Scalar())}), PS::UnknownOfRank(3));
  EXPECT_EQ(
      Shape("GatherV2", {F(PS{5, 6, 7}), I(PS{5, 2}), Scalar(1)}, {{"batch_dims", AttrOfInt(1)}}),
      (PS{5, 2, 7}));
  ExpectError("GatherV2", {F(PS{5, 6}), I(PS{2}), Scalar(2)}, {}, {"axis 2", "out of range"});
  ExpectError("Gather", {F(PS::Scalar()), I(PS{2})}, {}, {"at least 1 dimensional"});
}

// Found by fuzz/op_run: Range's element count overflowed int64 arithmetic (limit - start of
// int64 bounds) or cast a non-finite or huge float count to int64 (undefined behaviour).
TEST(ArrayOpsTest, RangeSizesOutsideInt64AreErrors) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  const AttrMap i64{{"Tidx", AttrOfType(DT_INT64)}};
  // The span does not fit in int64, the count does.
  EXPECT_EQ(Shape("Range", {Scalar(kMin, DT_INT64), Scalar(kMax, DT_INT64), Scalar(kMax, DT_INT64)},
                  i64),
            PS{3});
  EXPECT_EQ(Shape("Range", {Scalar(kMax, DT_INT64), Scalar(kMin, DT_INT64), Scalar(kMin, DT_INT64)},
                  i64),
            PS{2});
  ExpectError("Range", {Scalar(kMin, DT_INT64), Scalar(kMax, DT_INT64), Scalar(1, DT_INT64)}, i64,
              {"too many elements"});
  ExpectError("Range", {FloatScalar(0), FloatScalar(INFINITY), FloatScalar(1)}, {},
              {"representable number of elements"});
  ExpectError("Range", {FloatScalar(0), FloatScalar(1e30f), FloatScalar(1e-30f)}, {},
              {"representable number of elements"});
}

// Found by the op_run fuzzer (UBSan: signed overflow in the shape functions): a slice's end,
// a tiled dim and a padded dim past int64 are errors, not wrapped-around sizes.
TEST(ArrayOpsTest, SliceTilePadShapesOutsideInt64AreErrors) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  const AttrMap index64{{"Index", AttrOfType(DT_INT64)}};
  ExpectError("Slice", {F(PS{10}), Ints({8}, DT_INT64), Ints({kMax}, DT_INT64)}, index64,
              {"out of bounds"});
  ExpectError("Slice", {F(PS{10}), Ints({kMax}, DT_INT64), Ints({8}, DT_INT64)}, index64,
              {"out of bounds"});
  const AttrMap multiples64{{"Tmultiples", AttrOfType(DT_INT64)}};
  ExpectError("Tile", {F(PS{3}), Ints({kMax / 2}, DT_INT64)}, multiples64, {"does not fit in int64"});
  Tensor pads = Tensor::Allocate(DT_INT64, {1, 2}).value();
  pads.flat<int64_t>()[0] = kMax - 1;
  pads.flat<int64_t>()[1] = kMax - 1;
  ExpectError("Pad", {F(PS{2}), In{DT_INT64, PS{1, 2}, pads}}, {{"Tpaddings", AttrOfType(DT_INT64)}},
              {"does not fit in int64"});
}

TEST(ArrayOpsTest, ScatterShapes) {
  const In ref{DT_FLOAT_REF, PS{4, 2}};
  auto n = BuildNode("ScatterAdd", {}, {ref, I(PS{3}), F(PS{3, 2})});
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  EXPECT_EQ(n->output_types, std::vector<DataType>{DT_FLOAT_REF});
  EXPECT_EQ(n->output_shapes[0], (PS{4, 2}));
  EXPECT_TRUE(BuildNode("ScatterUpdate", {}, {ref, I(PS{3}), F(PS::Scalar())}).ok());
  EXPECT_TRUE(BuildNode("ScatterSub", {}, {ref, I(PS{-1}), F(PS{-1, 2})}).ok());
  ExpectError("ScatterUpdate", {ref, I(PS{3}), F(PS{3, 3})}, {}, {"[3,3]", "[3,2]"});
  ExpectError("ScatterAdd", {In{DT_FLOAT, PS{4, 2}}, I(PS{3}), F(PS{3, 2})}, {}, {"reference"});
}

TEST(ArrayOpsTest, RandomShapes) {
  auto r = BuildNode("RandomUniform", {{"dtype", AttrOfType(DT_DOUBLE)}}, {Ints({2, 3})});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->output_types, std::vector<DataType>{DT_DOUBLE});
  EXPECT_EQ(r->output_shapes[0], (PS{2, 3}));
  EXPECT_EQ(Shape("TruncatedNormal", {I(PS{3})}, {{"dtype", AttrOfType(DT_FLOAT)}}),
            PS::UnknownOfRank(3));
  ExpectError("RandomStandardNormal", {Ints({2, -1})}, {{"dtype", AttrOfType(DT_FLOAT)}},
              {"non-negative"});
  EXPECT_EQ(Shape("RandomUniformInt", {Ints({4}), Scalar(0), Scalar(9)}), PS{4});
  ExpectError("RandomUniformInt", {Ints({4}), I(PS{2}), Scalar(9)}, {},
              {"minval must be a scalar"});
  EXPECT_EQ(Shape("RandomShuffle", {F(PS{5, 2})}), (PS{5, 2}));

  AttrMap attrs{{"num_true", AttrOfInt(2)},
                {"num_sampled", AttrOfInt(8)},
                {"unique", AttrOfBool(true)},
                {"range_max", AttrOfInt(100)}};
  auto s = BuildNode("LogUniformCandidateSampler", attrs, {In{DT_INT64, PS{-1, 2}}});
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->output_types, (std::vector<DataType>{DT_INT64, DT_FLOAT, DT_FLOAT}));
  EXPECT_EQ(s->output_shapes[0], PS{8});
  EXPECT_EQ(s->output_shapes[1], (PS{-1, 2}));
  EXPECT_EQ(s->output_shapes[2], PS{8});
  ExpectError("LogUniformCandidateSampler", {In{DT_INT64, PS{4, 3}}}, attrs,
              {"num_true (2) columns"});
  attrs["num_sampled"] = AttrOfInt(101);
  ExpectError("LogUniformCandidateSampler", {In{DT_INT64, PS{4, 2}}}, attrs, {"range_max"});
}

}  // namespace
}  // namespace tgraph
