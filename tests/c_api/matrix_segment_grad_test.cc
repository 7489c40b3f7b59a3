// Finite-difference checks (float64, through TG_AddGradients) of the gradients of the
// matrix-structure ops and the segment reductions (core/autodiff/matrix_segment_grad.cc) and
// of the miscellaneous array ops (array_misc_grad.cc).
// Index operands (k, segment ids, indices) are constants built inside each graph; inputs of
// max / min / prod reductions are chosen without ties and with the zeros the prod gradient
// treats specially.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "gradient_check_util.h"

namespace tgtest {
namespace {

using Inputs = std::vector<TG_Output>;

AttrSetter Align(const char* align) {
  return [align](TG_OperationDescription* d) {
    TG_SetAttrString(d, "align", align, std::strlen(align));
  };
}

TG_Output ScalarDouble(TG_Graph* g, double v) { return ConstDouble(g, {v}, {}); }

TEST(MatrixSegmentGradTest, MatrixBandPart) {
  for (auto [lo, hi] : {std::pair{1, 0}, std::pair{-1, 1}, std::pair{0, -1}}) {
    CheckGradients({{{2, 3, 4}}}, [lo, hi](TG_Graph* g, const Inputs& in) {
      return AddOp(g, "MatrixBandPart", {in[0], ConstInt64(g, {lo}, {}), ConstInt64(g, {hi}, {})});
    });
  }
}

TEST(MatrixSegmentGradTest, MatrixDiagAndPart) {
  CheckGradients({{{2, 3}}}, [](TG_Graph* g, const Inputs& in) {
    return AddOp(g, "MatrixDiag", {in[0]});
  });
  CheckGradients({{{2, 3, 4}}}, [](TG_Graph* g, const Inputs& in) {
    return AddOp(g, "MatrixDiagPart", {in[0]});
  });
  for (const char* align : {"RIGHT_LEFT", "LEFT_RIGHT", "LEFT_LEFT", "RIGHT_RIGHT"}) {
    // Diagonals -1..1 of 3 x 4 matrices: lengths 2, 3, 3.
    CheckGradients({{{2, 3, 4}}}, [align](TG_Graph* g, const Inputs& in) {
      return AddOp(g, "MatrixDiagPartV3", {in[0], ConstInt32(g, {-1, 1}), ScalarDouble(g, 0.5)},
                   Align(align));
    });
    CheckGradients({{{2, 3, 3}}}, [align](TG_Graph* g, const Inputs& in) {
      return AddOp(g, "MatrixDiagV3",
                   {in[0], ConstInt32(g, {-1, 1}), ScalarInt32(g, 3), ScalarInt32(g, 4),
                    ScalarDouble(g, 0.0)},
                   Align(align));
    });
    CheckGradients({{{3, 4}}, {{3, 3}}}, [align](TG_Graph* g, const Inputs& in) {
      return AddOp(g, "MatrixSetDiagV3", {in[0], in[1], ConstInt32(g, {-1, 1})}, Align(align));
    });
  }
  CheckGradients({{{4}}}, [](TG_Graph* g, const Inputs& in) {
    return AddOp(g, "MatrixDiagV2", {in[0], ConstInt32(g, {1}), ScalarInt32(g, -1),
                                     ScalarInt32(g, -1), ScalarDouble(g, 0.0)});
  });
  CheckGradients({{{3, 4}}}, [](TG_Graph* g, const Inputs& in) {
    return AddOp(g, "MatrixDiagPartV2", {in[0], ConstInt32(g, {-2, 0}), ScalarDouble(g, 0.0)});
  });
  CheckGradients({{{3, 4}}, {{2, 3}}}, [](TG_Graph* g, const Inputs& in) {
    return AddOp(g, "MatrixSetDiagV2", {in[0], in[1], ConstInt32(g, {0, 1})});
  });
  CheckGradients({{{2, 3, 4}}, {{2, 3}}}, [](TG_Graph* g, const Inputs& in) {
    return AddOp(g, "MatrixSetDiag", {in[0], in[1]});
  });
}

TEST(MatrixSegmentGradTest, DiagAndDiagPart) {
  CheckGradients({{{2, 3}}}, [](TG_Graph* g, const Inputs& in) {
    return AddOp(g, "Diag", {in[0]});
  });
  CheckGradients({{{2, 3, 2, 3}}}, [](TG_Graph* g, const Inputs& in) {
    return AddOp(g, "DiagPart", {in[0]});
  });
}

// Rows of [5, 2] data without ties, a zero in segment 0 (one zero) and two in segment 2.
const std::vector<double> kData = {0.5, -0.3, 0.0, 0.9, -0.7, 0.2, 0.0, 0.0, 0.4, 1.3};

TEST(MatrixSegmentGradTest, SortedSegments) {
  for (const char* op : {"SegmentSum", "SegmentMean", "SegmentMax", "SegmentMin", "SegmentProd"}) {
    SCOPED_TRACE(op);
    CheckGradients({{{5, 2}, kData}}, [op](TG_Graph* g, const Inputs& in) {
      return AddOp(g, op, {in[0], ConstInt32(g, {0, 0, 2, 3, 3})});
    });
  }
}

TEST(MatrixSegmentGradTest, UnsortedSegments) {
  for (const char* op : {"UnsortedSegmentSum", "UnsortedSegmentMax", "UnsortedSegmentMin",
                         "UnsortedSegmentProd"}) {
    SCOPED_TRACE(op);
    // A negative id drops its row; 5 segments for 4 named ones leave one empty.
    CheckGradients({{{5, 2}, kData}}, [op](TG_Graph* g, const Inputs& in) {
      return AddOp(g, op, {in[0], ConstInt64(g, {3, 0, -1, 3, 0}), ScalarInt32(g, 5)});
    });
  }
  // Ids of rank 2 over [2, 2, 3] data.
  CheckGradients({{{2, 2, 3}}}, [](TG_Graph* g, const Inputs& in) {
    return AddOp(g, "UnsortedSegmentMax", {in[0], ConstInt32(g, {1, 0, -1, 1}, {2, 2}),
                                           ScalarInt32(g, 2)});
  });
}

TEST(MatrixSegmentGradTest, SparseSegments) {
  for (const char* op : {"SparseSegmentSum", "SparseSegmentMean", "SparseSegmentSqrtN"}) {
    SCOPED_TRACE(op);
    CheckGradients({{{4, 3}}}, [op](TG_Graph* g, const Inputs& in) {
      return AddOp(g, op, {in[0], ConstInt32(g, {0, 2, 2, 3}), ConstInt32(g, {0, 0, 1, 3})});
    });
    const std::string with_num = std::string(op) + "WithNumSegments";
    CheckGradients({{{4, 3}}}, [&with_num](TG_Graph* g, const Inputs& in) {
      return AddOp(g, with_num.c_str(), {in[0], ConstInt64(g, {1, 0, 3}), ConstInt32(g, {0, 2, 2}),
                                         ScalarInt32(g, 5)});
    });
  }
}

// ---- miscellaneous array ops ----

AttrSetter StringAttr(const char* name, const char* value) {
  return [name, value](TG_OperationDescription* d) {
    TG_SetAttrString(d, name, value, std::strlen(value));
  };
}

TEST(ArrayMiscGradTest, ClipByValue) {
  // Values away from the bounds (the gradient has a kink there).
  const std::vector<double> t = {-0.9, -0.3, 0.1, 0.45, 0.8, -0.55};
  CheckGradients({{{2, 3}, t}, {{}, {-0.4}}, {{}, {0.5}}}, [](TG_Graph* g, const Inputs& in) {
    return AddOp(g, "ClipByValue", {in[0], in[1], in[2]});
  });
  CheckGradients({{{2, 3}, t}, {{2, 3}, {-0.8, -0.2, 0.0, 0.5, -1, -1}}, {{}, {0.6}}},
                 [](TG_Graph* g, const Inputs& in) {
                   return AddOp(g, "ClipByValue", {in[0], in[1], in[2]});
                 });
}

TEST(ArrayMiscGradTest, PassThroughAndRoll) {
  CheckGradients({{{2, 3}}}, [](TG_Graph* g, const Inputs& in) {
    return AddOp(g, "EnsureShape", {in[0]}, [](TG_OperationDescription* d) {
      const int64_t dims[] = {-1, 3};
      TG_SetAttrShape(d, "shape", dims, 2);
    });
  });
  for (const char* op : {"CheckNumerics", "CheckNumericsV2"}) {
    CheckGradients({{{2, 3}}}, [op](TG_Graph* g, const Inputs& in) {
      return AddOp(g, op, {in[0]}, StringAttr("message", "m"));
    });
  }
  CheckGradients({{{2, 3, 4}}}, [](TG_Graph* g, const Inputs& in) {
    return AddOp(g, "Roll", {in[0], ConstInt32(g, {1, -5}), ConstInt64(g, {2, 1})});
  });
}

TEST(ArrayMiscGradTest, CrossConcatBatchMatMul) {
  CheckGradients({{{2, 3}}, {{2, 3}}}, [](TG_Graph* g, const Inputs& in) {
    return AddOp(g, "Cross", {in[0], in[1]});
  });
  CheckGradients({{{2, 1}}, {{2, 3}}}, [](TG_Graph* g, const Inputs& in) {
    return AddOp(g, "Concat", {ScalarInt32(g, -1), OpArg::List({in[0], in[1]})});
  });
  CheckGradients({{{2, 3, 4}}, {{2, 3, 5}}}, [](TG_Graph* g, const Inputs& in) {
    return AddOp(g, "BatchMatMul", {in[0], in[1]},
                 [](TG_OperationDescription* d) { TG_SetAttrBool(d, "adj_x", 1); });
  });
  CheckGradients({{{2, 3, 4}}, {{1, 5, 4}}}, [](TG_Graph* g, const Inputs& in) {
    return AddOp(g, "BatchMatMulV3", {in[0], in[1]}, [](TG_OperationDescription* d) {
      TG_SetAttrBool(d, "adj_y", 1);
      TG_SetAttrType(d, "Tout", TG_DOUBLE);
    });
  });
}

}  // namespace
}  // namespace tgtest
