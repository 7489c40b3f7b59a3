// Shape functions of the matrix-structure ops, segment reductions and miscellaneous array ops
// (core/ops/matrix_segment_ops.cc, array_misc_ops.cc): the static shapes TensorFlow infers
// (constant k / num_rows / num_segments give dims, others leave them unknown) and the
// errors it reports at graph construction.
#include <gtest/gtest.h>

#include "op_test_util.h"

namespace tgraph {
namespace {

using namespace op_testing;  // NOLINT: test helpers
using In = OpIn;

constexpr int64_t kU = PS::kUnknownDim;

PS Shape(const std::string& op, const std::vector<In>& inputs, AttrMap attrs = {}) {
  return OutShape(op, std::move(attrs), inputs);
}

TEST(MatrixSegmentOpsTest, DiagonalShapes) {
  EXPECT_EQ(Shape("MatrixBandPart", {F(PS{2, 3, 4}), Scalar(1, DT_INT64), Scalar(0, DT_INT64)}),
            (PS{2, 3, 4}));
  EXPECT_EQ(Shape("MatrixDiagPart", {F(PS{2, 3, 4})}), (PS{2, 3}));
  EXPECT_EQ(Shape("MatrixDiagPartV3", {F(PS{2, 3, 4}), Ints({-1, 2}), F(PS::Scalar())}),
            (PS{2, 4, 3}));
  EXPECT_EQ(Shape("MatrixDiagPartV3", {F(PS{2, 3, 4}), Scalar(1), F(PS::Scalar())}), (PS{2, 3}));
  EXPECT_EQ(Shape("MatrixDiagPartV3", {F(PS{2, 3, 4}), I(PS{2}), F(PS::Scalar())}),
            PS::Unknown());
  EXPECT_EQ(Shape("MatrixDiag", {F(PS{2, 3})}), (PS{2, 3, 3}));
  EXPECT_EQ(Shape("MatrixDiagV3", {F(PS{2, 3}), Ints({0, 1}), Scalar(3), Scalar(-1),
                                   F(PS::Scalar())}),
            (PS{3, 3}));
  EXPECT_EQ(Shape("MatrixDiagV3", {F(PS{2, 3}), Scalar(1), Scalar(-1), Scalar(-1),
                                   F(PS::Scalar())}),
            (PS{2, 4, 4}));
  EXPECT_EQ(Shape("MatrixDiagV3", {F(PS{2, 3}), Scalar(1), I(PS::Scalar()), Scalar(-1),
                                   F(PS::Scalar())}),
            (PS{2, kU, kU}));
  EXPECT_EQ(Shape("MatrixSetDiagV3", {F(PS{2, 3, 4}), F(PS{2, 3}), Scalar(0)}), (PS{2, 3, 4}));
  EXPECT_EQ(Shape("Diag", {F(PS{2, 3})}), (PS{2, 3, 2, 3}));
  EXPECT_EQ(Shape("DiagPart", {F(PS{2, kU, 2, 3})}), (PS{2, 3}));
  ExpectBuildError("DiagPart", {}, {F(PS{2, 3})}, {"dimensions 0 and 1 do not match"});
  ExpectBuildError("MatrixDiagPartV3", {}, {F(PS{3, 4}), Ints({1, -1}), F(PS::Scalar())},
                   {"lower_diag_index must not be larger than upper_diag_index"});
  ExpectBuildError("MatrixBandPart", {}, {F(PS{4}), Scalar(1, DT_INT64), Scalar(0, DT_INT64)},
                   {"at least rank 2"});
}

TEST(MatrixSegmentOpsTest, SegmentShapes) {
  EXPECT_EQ(Shape("SegmentSum", {F(PS{5, 3}), I(PS{5})}), (PS{kU, 3}));
  EXPECT_EQ(Shape("UnsortedSegmentMax", {F(PS{2, 3, 4}), I(PS{2, 3}), Scalar(7)}), (PS{7, 4}));
  EXPECT_EQ(Shape("SparseSegmentMean", {F(PS{5, 3}), I(PS{4}), I(PS{4})}), (PS{kU, 3}));
  EXPECT_EQ(Shape("SparseSegmentSqrtNWithNumSegments", {F(PS{5, 3}), I(PS{4}), I(PS{4}),
                                                        Scalar(9)}),
            (PS{9, 3}));
  EXPECT_EQ(Shape("SparseSegmentSumGrad", {F(PS{2, 3}), I(PS{4}), I(PS{4}), Scalar(6)}),
            (PS{6, 3}));
  ExpectBuildError("SegmentSum", {}, {F(PS{5, 3}), I(PS{5, 1})}, {"rank 1"});
}

TEST(MatrixSegmentOpsTest, MiscShapes) {
  EXPECT_EQ(Shape("EnsureShape", {F(PS{kU, 3})}, {{"shape", AttrOfShape(PS{2, kU})}}),
            (PS{2, 3}));
  ExpectBuildError("EnsureShape", {{"shape", AttrOfShape(PS{2, 2})}}, {F(PS{2, 3})},
                   {"is not compatible with expected shape"});
  EXPECT_EQ(Shape("LinSpace", {F(PS::Scalar()), F(PS::Scalar()), Scalar(5)}), (PS{5}));
  EXPECT_EQ(Shape("TopK", {F(PS{2, 7})}, {{"k", AttrOfInt(3)}}), (PS{2, 3}));
  EXPECT_EQ(Shape("InTopKV2", {F(PS{4, 9}), I(PS{kU}), Scalar(2)}), (PS{4}));
  EXPECT_EQ(Shape("Empty", {Ints({2, 0})}, {{"dtype", AttrOfType(DT_FLOAT)}}), (PS{2, 0}));
  EXPECT_EQ(Shape("Cross", {F(PS{kU, 3}), F(PS{4, kU})}), (PS{4, 3}));
  ExpectBuildError("Cross", {}, {F(PS{4, 2}), F(PS{4, 2})}, {"Dimension must be 3"});
  EXPECT_EQ(Shape("BatchMatMul", {F(PS{2, 3, 4}), F(PS{2, 4, 5})}), (PS{2, 3, 5}));
  ExpectBuildError("BatchMatMul", {}, {F(PS{2, 3, 4}), F(PS{1, 4, 5})}, {"must be the same"});
  EXPECT_EQ(Shape("BatchMatMulV3", {F(PS{2, 3, 4}), F(PS{1, 4, 5})},
                  {{"Tout", AttrOfType(DT_FLOAT)}}),
            (PS{2, 3, 5}));
}

TEST(MatrixSegmentOpsTest, ConcatV1Shapes) {
  OpIn axis = Scalar(1);
  std::vector<In> in{axis, F(PS{2, 3}), F(PS{2, kU}), F(PS{kU, 4})};
  EXPECT_EQ(OutShapes("Concat", {}, in, {{1, 3}}).at(0), (PS{2, kU}));
  std::vector<In> known{axis, F(PS{2, 3}), F(PS{2, 4})};
  EXPECT_EQ(OutShapes("Concat", {}, known, {{1, 2}}).at(0), (PS{2, 7}));
}

}  // namespace
}  // namespace tgraph
