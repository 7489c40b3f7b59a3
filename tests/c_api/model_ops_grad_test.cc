// Gradients of the ops frozen TF models use (issue 19), through TG_AddGradients: finite
// differences in float64 for Erf, SquaredDifference, SelectV2, LeakyRelu, Selu, BroadcastTo,
// Split, SplitV and Einsum; FusedBatchNorm (float only, as in TF) against central differences
// of a float64 reference of the op; StopGradient, Round, All and Any pass nothing back, and
// MirrorPad and ResizeNearestNeighbor through their fused gradient ops.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "gradient_check_util.h"

namespace tgtest {
namespace {

using Dims = std::vector<int64_t>;

void SetString(TG_OperationDescription* d, const char* name, const std::string& v) {
  TG_SetAttrString(d, name, v.data(), v.size());
}

TEST(ModelOpsGradTest, ErfErfcSeluLeakyRelu) {
  // Away from the kink of Selu / LeakyRelu at 0.
  const std::vector<double> x = {-2.1, -0.7, -0.3, 0.2, 0.45, 1.3, 2.2, -1.6};
  CheckGradients({GradInputSpec{{2, 4}, x}},
                 [](TG_Graph* g, const std::vector<TG_Output>& in) { return AddOp(g, "Erf", {in[0]}); });
  CheckGradients({GradInputSpec{{2, 4}, x}},
                 [](TG_Graph* g, const std::vector<TG_Output>& in) { return AddOp(g, "Erfc", {in[0]}); });
  CheckGradients({GradInputSpec{{2, 4}, x}},
                 [](TG_Graph* g, const std::vector<TG_Output>& in) { return AddOp(g, "Selu", {in[0]}); });
  CheckGradients({GradInputSpec{{2, 4}, x}}, [](TG_Graph* g, const std::vector<TG_Output>& in) {
    return AddOp(g, "LeakyRelu", {in[0]}, [](TG_OperationDescription* d) {
      TG_SetAttrFloat(d, "alpha", 0.3f);
    });
  });
}

TEST(ModelOpsGradTest, SquaredDifferenceBroadcasts) {
  for (const auto& [dx, dy] : std::vector<std::pair<Dims, Dims>>{
           {{2, 3}, {2, 3}}, {{2, 3}, {3}}, {{3, 1}, {1, 2}}, {{}, {2, 2}}}) {
    CheckGradients({GradInputSpec{dx}, GradInputSpec{dy}},
                   [](TG_Graph* g, const std::vector<TG_Output>& in) {
                     return AddOp(g, "SquaredDifference", {in[0], in[1]});
                   });
  }
}

TEST(ModelOpsGradTest, SelectV2BroadcastsBothBranches) {
  // condition [2, 1], t [1, 3], e [] -> [2, 3]: t's gradient sums over rows, e's over all.
  CheckGradients({GradInputSpec{{1, 3}}, GradInputSpec{{}}},
                 [](TG_Graph* g, const std::vector<TG_Output>& in) {
                   TG_Output signs = ConstDouble(g, {1.0, -1.0}, {2, 1});
                   TG_Output c = AddOp(g, "Greater", {signs, AddOp(g, "ZerosLike", {signs})});
                   return AddOp(g, "SelectV2", {c, in[0], in[1]});
                 });
}

TEST(ModelOpsGradTest, BroadcastTo) {
  CheckGradients({GradInputSpec{{3, 1}}}, [](TG_Graph* g, const std::vector<TG_Output>& in) {
    return AddOp(g, "BroadcastTo", {in[0], ConstInt32(g, {2, 3, 4})});
  });
}

TEST(ModelOpsGradTest, SplitAndSplitVConcatenateTheirPieces) {
  // Pieces 0 and 2 are used (piece 1's gradient is zeros).
  CheckGradients({GradInputSpec{{2, 6}}}, [](TG_Graph* g, const std::vector<TG_Output>& in) {
    TG_Output a = AddOp(g, "Split", {ScalarInt32(g, 1), in[0]}, [](TG_OperationDescription* d) {
      TG_SetAttrInt(d, "num_split", 3);
    });
    TG_Output last{a.oper, 2};
    return AddOp(g, "Mul", {a, last});
  });
  CheckGradients({GradInputSpec{{2, 5}}}, [](TG_Graph* g, const std::vector<TG_Output>& in) {
    TG_Output a = AddOp(g, "SplitV", {in[0], ConstInt32(g, {1, -1, 2}), ScalarInt32(g, -1)},
                        [](TG_OperationDescription* d) { TG_SetAttrInt(d, "num_split", 3); });
    TG_Output middle{a.oper, 1};
    TG_Output last{a.oper, 2};
    return AddOp(g, "Mul", {middle, last});
  });
}

TEST(ModelOpsGradTest, Einsum) {
  struct Case {
    std::string equation;
    std::vector<Dims> shapes;
  };
  const std::vector<Case> cases = {
      {"bqhd,bkhd->bhqk", {{2, 3, 2, 2}, {2, 2, 2, 2}}},
      {"abc,cde->abde", {{2, 2, 3}, {3, 2, 2}}},
      {"ij,j->i", {{3, 4}, {4}}},
      {"ij->ji", {{2, 3}}},
      {"bij->bj", {{2, 3, 2}}},              // a label summed by its only input
      {"abc,ad->bd", {{2, 3, 2}, {2, 2}}},   // c summed by the first input alone
      {"...ij,...jk->...ik", {{2, 1, 2, 3}, {3, 3, 2}}},  // broadcast ellipsis
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.equation);
    std::vector<GradInputSpec> specs;
    for (const Dims& d : c.shapes) specs.push_back(GradInputSpec{d});
    CheckGradients(specs, [&](TG_Graph* g, const std::vector<TG_Output>& in) {
      return AddOp(g, "Einsum", {OpArg::List(in)},
                   [&](TG_OperationDescription* d) { SetString(d, "equation", c.equation); });
    });
  }
}

TEST(ModelOpsGradTest, DepthwiseConv2dNative) {
  struct Case {
    Dims x, f;
    std::vector<int64_t> strides, dilations;
    const char* padding;
  };
  for (const Case& c : std::vector<Case>{{{2, 4, 5, 2}, {2, 3, 2, 2}, {1, 1, 1, 1}, {1, 1, 1, 1}, "SAME"},
                                         {{1, 5, 5, 3}, {3, 2, 3, 1}, {1, 2, 2, 1}, {1, 1, 1, 1}, "SAME"},
                                         {{1, 6, 5, 2}, {2, 2, 2, 2}, {1, 1, 1, 1}, {1, 2, 1, 1}, "VALID"}}) {
    CheckGradients({GradInputSpec{c.x}, GradInputSpec{c.f}},
                   [&](TG_Graph* g, const std::vector<TG_Output>& in) {
                     return AddOp(g, "DepthwiseConv2dNative", {in[0], in[1]},
                                  [&](TG_OperationDescription* d) {
                                    TG_SetAttrIntList(d, "strides", c.strides.data(), 4);
                                    TG_SetAttrIntList(d, "dilations", c.dilations.data(), 4);
                                    SetString(d, "padding", c.padding);
                                  });
                   });
  }
}

// ---- layout and index ops ----

GradBuildFn WithInts(const char* type, std::vector<std::vector<int32_t>> ints,
                     std::vector<std::vector<int64_t>> dims, const AttrSetter& attrs = {}) {
  return [=](TG_Graph* g, const std::vector<TG_Output>& in) {
    std::vector<OpArg> args = {in[0]};
    for (size_t k = 0; k < ints.size(); ++k) args.push_back(ConstInt32(g, ints[k], dims[k]));
    return AddOp(g, type, args, attrs);
  };
}

TEST(ModelOpsGradTest, PadV2AndReverseV2) {
  // PadV2's constant gets the padding's gradient too.
  CheckGradients({GradInputSpec{{2, 3}}, GradInputSpec{{}}},
                 [](TG_Graph* g, const std::vector<TG_Output>& in) {
                   return AddOp(g, "PadV2", {in[0], ConstInt32(g, {1, 0, 2, 1}, {2, 2}), in[1]});
                 });
  CheckGradients({GradInputSpec{{2, 3, 2}}}, WithInts("ReverseV2", {{0, 2}}, {{2}}));
}

TEST(ModelOpsGradTest, ReverseSequence) {
  CheckGradients({GradInputSpec{{3, 4, 2}}}, [](TG_Graph* g, const std::vector<TG_Output>& in) {
    return AddOp(g, "ReverseSequence", {in[0], ConstInt32(g, {4, 0, 2})},
                 [](TG_OperationDescription* d) {
                   TG_SetAttrInt(d, "seq_dim", 1);
                   TG_SetAttrInt(d, "batch_dim", 0);
                 });
  });
}

TEST(ModelOpsGradTest, SpaceDepthAndSpaceBatchAreEachOthersGradients) {
  auto block = [](TG_OperationDescription* d) { TG_SetAttrInt(d, "block_size", 2); };
  CheckGradients({GradInputSpec{{1, 2, 4, 2}}}, WithInts("SpaceToDepth", {}, {}, block));
  CheckGradients({GradInputSpec{{1, 1, 2, 8}}}, WithInts("DepthToSpace", {}, {}, block));
  CheckGradients({GradInputSpec{{1, 2, 3, 1}}},
                 WithInts("SpaceToBatchND", {{2, 2}, {0, 0, 1, 0}}, {{2}, {2, 2}}));
  CheckGradients({GradInputSpec{{4, 1, 2, 1}}},
                 WithInts("BatchToSpaceND", {{2, 2}, {0, 0, 1, 0}}, {{2}, {2, 2}}));
}

TEST(ModelOpsGradTest, GatherNdScatterNdTensorScatterUpdate) {
  // Index 1 twice: GatherNd's gradient adds up there.
  CheckGradients({GradInputSpec{{3, 2}}}, WithInts("GatherNd", {{1, 0, 1}}, {{3, 1}}));
  CheckGradients({GradInputSpec{{2, 2}}}, [](TG_Graph* g, const std::vector<TG_Output>& in) {
    return AddOp(g, "ScatterNd", {ConstInt32(g, {2, 0}, {2, 1}), in[0], ConstInt32(g, {3, 2})});
  });
  CheckGradients({GradInputSpec{{3, 2}}, GradInputSpec{{1, 2}}},
                 [](TG_Graph* g, const std::vector<TG_Output>& in) {
                   return AddOp(g, "TensorScatterUpdate", {in[0], ConstInt32(g, {1}, {1, 1}), in[1]});
                 });
}

TEST(ModelOpsGradTest, MirrorPadAndResizeNearestNeighbor) {
  for (const char* mode : {"REFLECT", "SYMMETRIC"}) {
    SCOPED_TRACE(mode);
    CheckGradients({GradInputSpec{{3, 4}}}, [mode](TG_Graph* g, const std::vector<TG_Output>& in) {
      return AddOp(g, "MirrorPad", {in[0], ConstInt32(g, {2, 1, 1, 2}, {2, 2})},
                   [mode](TG_OperationDescription* d) { SetString(d, "mode", mode); });
    });
  }
  CheckGradients({GradInputSpec{{1, 2, 3, 2}}}, [](TG_Graph* g, const std::vector<TG_Output>& in) {
    return AddOp(g, "ResizeNearestNeighbor", {in[0], ConstInt32(g, {5, 4})},
                 [](TG_OperationDescription* d) { TG_SetAttrBool(d, "half_pixel_centers", 1); });
  });
}

TEST(ModelOpsGradTest, SparseToDense) {
  CheckGradients({GradInputSpec{{2}}, GradInputSpec{{}}},
                 [](TG_Graph* g, const std::vector<TG_Output>& in) {
                   return AddOp(g, "SparseToDense",
                                {ConstInt32(g, {0, 1, 1, 0}, {2, 2}), ConstInt32(g, {2, 2}), in[0], in[1]});
                 });
}

TEST(ModelOpsGradTest, TopKV2AndPrint) {
  // Distinct values: no ties within a finite-difference step.
  CheckGradients({GradInputSpec{{2, 4}, {0.3, -0.8, 0.9, 0.1, -0.2, 0.7, -0.6, 0.5}}},
                 [](TG_Graph* g, const std::vector<TG_Output>& in) {
                   return AddOp(g, "TopKV2", {in[0], ScalarInt32(g, 2)});
                 });
  CheckGradients({GradInputSpec{{3}}}, [](TG_Graph* g, const std::vector<TG_Output>& in) {
    TG_Output p = AddOp(g, "Print", {in[0], OpArg::List({in[0]})}, [](TG_OperationDescription* d) {
      TG_SetAttrInt(d, "first_n", 0);  // silent
    });
    return AddOp(g, "Mul", {p, in[0]});
  });
}

// ---- no gradient, or an error ----

class ModelOpsNoGradTest : public SessionTest {};

TEST_F(ModelOpsNoGradTest, StopGradientRoundAllAnyPassNothingBack) {
  TG_Output x = AddOp(g_, "Placeholder", {}, [](TG_OperationDescription* d) {
    TG_SetAttrType(d, "dtype", TG_DOUBLE);
  });
  TG_Output stopped = AddOp(g_, "StopGradient", {x});
  TG_Output rounded = AddOp(g_, "Round", {x});
  TG_Output any = AddOp(g_, "Any", {AddOp(g_, "Greater", {x, AddOp(g_, "ZerosLike", {x})}),
                                    ConstInt32(g_, {})});  // x is a scalar: no axes
  TG_Output y = AddOp(g_, "AddV2", {AddOp(g_, "Mul", {x, stopped}), rounded});
  TG_Output z = AddOp(g_, "Cast", {any}, [](TG_OperationDescription* d) {
    TG_SetAttrType(d, "DstT", TG_DOUBLE);
  });
  TG_Output loss = AddOp(g_, "AddV2", {y, z});
  TG_Output dx{nullptr, 0};
  TG_AddGradients(g_, &loss, 1, &x, 1, nullptr, s_, &dx);
  ASSERT_EQ(TG_GetCode(s_), TG_OK) << TG_Message(s_);
  ASSERT_NE(dx.oper, nullptr);
  // d(x * stop(x) + round(x))/dx = stop(x) = x: only the Mul's first input carries one.
  TG_Session* session = NewSession();
  TensorPtr xv = MakeTensor<double>(TG_DOUBLE, {}, {1.75});
  std::vector<TensorPtr> out = Run(session, {{x, xv.get()}}, {dx});
  ASSERT_EQ(TG_GetCode(s_), TG_OK) << TG_Message(s_);
  EXPECT_DOUBLE_EQ(*static_cast<const double*>(TG_TensorData(out[0].get())), 1.75);
}

// ---- FusedBatchNorm ----

// The loss sum(w * y) of FusedBatchNorm in float64, NHWC or NCHW, for finite differences.
struct BatchNormReference {
  Dims dims;
  bool nchw, training;
  std::vector<double> mean, var, w;
  double epsilon = 0.001;

  int64_t Channels() const { return nchw ? dims[1] : dims.back(); }
  int64_t ChannelOf(int64_t i) const {
    const int64_t c = Channels();
    return nchw ? (i / (dims[2] * dims[3])) % c : i % c;
  }
  double Loss(const std::vector<double>& x, const std::vector<double>& scale,
              const std::vector<double>& offset) const {
    const size_t c = static_cast<size_t>(Channels());
    std::vector<double> m = mean, v = var;
    if (training) {
      std::vector<double> sum(c, 0), sq(c, 0), n(c, 0);
      for (size_t i = 0; i < x.size(); ++i) {
        sum[static_cast<size_t>(ChannelOf(static_cast<int64_t>(i)))] += x[i];
        n[static_cast<size_t>(ChannelOf(static_cast<int64_t>(i)))] += 1;
      }
      for (size_t k = 0; k < c; ++k) m[k] = sum[k] / n[k];
      for (size_t i = 0; i < x.size(); ++i) {
        const size_t k = static_cast<size_t>(ChannelOf(static_cast<int64_t>(i)));
        sq[k] += (x[i] - m[k]) * (x[i] - m[k]);
      }
      for (size_t k = 0; k < c; ++k) v[k] = sq[k] / n[k];
    }
    double loss = 0;
    for (size_t i = 0; i < x.size(); ++i) {
      const size_t k = static_cast<size_t>(ChannelOf(static_cast<int64_t>(i)));
      loss += w[i] * ((x[i] - m[k]) * scale[k] / std::sqrt(v[k] + epsilon) + offset[k]);
    }
    return loss;
  }
};

class ModelOpsBatchNormGradTest : public SessionTest {
 protected:
  void Check(const std::string& op, bool nchw, bool training) {
    SCOPED_TRACE(op + (nchw ? " NCHW" : " NHWC") + (training ? " training" : " inference"));
    BatchNormReference ref;
    ref.dims = nchw ? Dims{2, 3, 2, 2} : Dims{2, 2, 2, 3};
    ref.nchw = nchw;
    ref.training = training;
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> u(-1, 1);
    const int64_t n = 24, c = 3;
    std::vector<double> x, scale, offset;
    for (int64_t i = 0; i < n; ++i) x.push_back(u(rng) * 2);
    for (int64_t i = 0; i < n; ++i) ref.w.push_back(u(rng));
    for (int64_t i = 0; i < c; ++i) {
      scale.push_back(1 + 0.5 * u(rng));
      offset.push_back(u(rng));
      ref.mean.push_back(0.3 * u(rng));
      ref.var.push_back(1 + 0.5 * u(rng));
    }
    auto floats = [](const std::vector<double>& v) { return std::vector<float>(v.begin(), v.end()); };
    auto constant = [&](const std::vector<double>& v, Dims dims) {
      return tgtest::ConstOf<float>(g_, TG_FLOAT, floats(v), std::move(dims));
    };
    TG_Output xo = constant(x, ref.dims);
    TG_Output so = constant(scale, Dims{c});
    TG_Output oo = constant(offset, Dims{c});
    const bool stats = !training;
    TG_Output y = AddOp(g_, op.c_str(),
                        {xo, so, oo, constant(stats ? ref.mean : std::vector<double>{}, Dims{stats ? c : 0}),
                         constant(stats ? ref.var : std::vector<double>{}, Dims{stats ? c : 0})},
                        [&](TG_OperationDescription* d) {
                          TG_SetAttrFloat(d, "epsilon", static_cast<float>(ref.epsilon));
                          TG_SetAttrBool(d, "is_training", training ? 1 : 0);
                          SetString(d, "data_format", nchw ? "NCHW" : "NHWC");
                        });
    TG_Output loss = AddOp(g_, "Sum", {AddOp(g_, "Mul", {y, constant(ref.w, ref.dims)}),
                                       ConstInt32(g_, {0, 1, 2, 3})});
    TG_Output xs[3] = {xo, so, oo};
    TG_Output grads[3];
    TG_AddGradients(g_, &loss, 1, xs, 3, nullptr, s_, grads);
    ASSERT_EQ(TG_GetCode(s_), TG_OK) << TG_Message(s_);
    TG_Session* session = NewSession();
    std::vector<TensorPtr> out = Run(session, {}, {grads[0], grads[1], grads[2]});
    ASSERT_EQ(TG_GetCode(s_), TG_OK) << TG_Message(s_);
    std::vector<std::vector<double>*> args = {&x, &scale, &offset};
    for (size_t a = 0; a < 3; ++a) {
      const float* got = static_cast<const float*>(TG_TensorData(out[a].get()));
      std::vector<double>& v = *args[a];
      for (size_t k = 0; k < v.size(); ++k) {
        const double keep = v[k], h = 1e-6;
        v[k] = keep + h;
        const double plus = ref.Loss(x, scale, offset);
        v[k] = keep - h;
        const double minus = ref.Loss(x, scale, offset);
        v[k] = keep;
        const double numeric = (plus - minus) / (2 * h);
        EXPECT_NEAR(got[k], numeric, 1e-4 * (1 + std::abs(numeric))) << "input " << a << " [" << k << "]";
      }
    }
  }
};

TEST_F(ModelOpsBatchNormGradTest, InferenceAndTrainingEveryLayout) {
  for (const char* op : {"FusedBatchNorm", "FusedBatchNormV3"}) {
    for (bool nchw : {false, true}) {
      for (bool training : {false, true}) Check(op, nchw, training);
    }
  }
}

}  // namespace
}  // namespace tgtest
