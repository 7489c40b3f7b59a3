// Training builders through the C API: initializers (values, statistics, TF names, fans),
// graph- and op-level seeds (determinism per fresh session), dropout, l2_loss, the sigmoid
// cross entropy against a scalar formula, embedding_lookup (colocation, sparse gradient) and
// nce_loss (shape, accidental hits, seeded sampler, training, finite-difference gradients).
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "gradient_check_util.h"

namespace tgtest {
namespace {

class TrainingBuildersTest : public SessionTest {
 protected:
  TG_Initializer MakeInit(TG_InitializerKind kind) {
    TG_Initializer init;
    TG_InitInitializer(&init, kind);
    return init;
  }

  // get_variable(name, dims, dtype, init) in g_, checked.
  TG_Variable* GetVar(const char* name, std::vector<int64_t> dims, const TG_Initializer& init,
                      TG_DataType dtype = TG_FLOAT) {
    TG_Variable* v = TG_GraphGetVariableWithInit(g_, name, dtype, dims.data(),
                                                 static_cast<int>(dims.size()), &init, nullptr, s_);
    EXPECT_TRUE(IsOk(s_)) << name;
    return v;
  }

  // The variable's initial value, computed in a fresh session.
  std::vector<float> InitialValue(TG_Variable* v) {
    TG_Session* session = NewSession();
    EXPECT_TRUE(IsOk(s_));
    return RunFloats(session, TG_VariableInitialValue(v));
  }

  std::string OpType(const char* op_name) {
    TG_Operation* op = TG_GraphOperationByName(g_, op_name);
    return op == nullptr ? "<none: " + std::string(op_name) + ">" : TG_OperationOpType(op);
  }

  int64_t IntAttr(TG_Operation* op, const char* attr) {
    int64_t v = -1;
    TG_OperationGetAttrInt(op, attr, &v, s_);
    EXPECT_TRUE(IsOk(s_)) << attr;
    return v;
  }

  TG_Output Placeholder(TG_DataType dtype, std::vector<int64_t> dims, const char* name) {
    return AddOp(g_, "Placeholder", {}, [&](TG_OperationDescription* d) {
      TG_SetAttrType(d, "dtype", dtype);
      TG_SetAttrShape(d, "shape", dims.data(), static_cast<int>(dims.size()));
    }, 0, name);
  }
};

double Mean(const std::vector<float>& v) {
  return std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}
double Stddev(const std::vector<float>& v) {
  const double m = Mean(v);
  double ss = 0;
  for (float x : v) ss += (x - m) * (x - m);
  return std::sqrt(ss / static_cast<double>(v.size()));
}

// ---- initializers ----

TEST_F(TrainingBuildersTest, ZerosOnesAndConstantsAreExactAndNamedAsTensorFlow) {
  TG_Variable* w = GetVar("W", {2, 3}, MakeInit(TG_INIT_ZEROS));
  TG_Variable* b = GetVar("b", {4}, MakeInit(TG_INIT_ONES));
  TG_Initializer c = MakeInit(TG_INIT_CONSTANT);
  c.value = 2.5;
  TG_Variable* cv = GetVar("c", {2, 2}, c);
  TensorPtr values = FloatTensor({2, 2}, {1, 2, 3, 4});
  c.tensor = values.get();
  TG_Variable* tv = GetVar("t", {2, 2}, c);
  TG_Initializer ones = MakeInit(TG_INIT_ONES);
  TG_Variable* iv = GetVar("i", {3}, ones, TG_INT32);
  TG_Variable* big = GetVar("big", {40, 30}, MakeInit(TG_INIT_ZEROS));

  EXPECT_EQ(Name(TG_VariableInitialValue(w).oper), "W/Initializer/zeros");
  EXPECT_EQ(Name(TG_VariableInitialValue(b).oper), "b/Initializer/ones");
  EXPECT_EQ(Name(TG_VariableInitialValue(cv).oper), "c/Initializer/Const");
  // 1000 elements or more: Fill, as array_ops.zeros builds it.
  EXPECT_EQ(OpType("big/Initializer/zeros"), "Fill");
  EXPECT_EQ(OpType("big/Initializer/zeros/shape_as_tensor"), "Const");
  EXPECT_EQ(OpType("big/Initializer/zeros/Const"), "Const");

  EXPECT_EQ(InitialValue(w), std::vector<float>(6, 0.0f));
  EXPECT_EQ(InitialValue(b), std::vector<float>(4, 1.0f));
  EXPECT_EQ(InitialValue(cv), std::vector<float>(4, 2.5f));
  EXPECT_EQ(InitialValue(tv), (std::vector<float>{1, 2, 3, 4}));
  std::vector<float> big_value = InitialValue(big);
  EXPECT_EQ(big_value.size(), 1200u);
  EXPECT_TRUE(std::all_of(big_value.begin(), big_value.end(), [](float x) { return x == 0; }));

  TG_Session* session = NewSession();
  std::vector<TensorPtr> out = Run(session, {}, {TG_VariableInitialValue(iv)});
  TG_ASSERT_OK(s_);
  ASSERT_EQ(TG_TensorType(out[0].get()), TG_INT32);
  const auto* p = static_cast<const int32_t*>(TG_TensorData(out[0].get()));
  EXPECT_EQ(std::vector<int32_t>(p, p + 3), (std::vector<int32_t>{1, 1, 1}));

  // The variable itself is initialised by global_variables_initializer.
  TG_Operation* init = TG_GraphGlobalVariablesInitializer(g_, s_);
  TG_ASSERT_OK(s_);
  TG_Session* s2 = NewSession();
  RunTargets(s2, {init});
  TG_ASSERT_OK(s_);
  EXPECT_EQ(RunFloats(s2, Read(tv)), (std::vector<float>{1, 2, 3, 4}));
}

TEST_F(TrainingBuildersTest, UniformStaysInBoundsWithTheRightMean) {
  TG_Initializer u = MakeInit(TG_INIT_RANDOM_UNIFORM);
  u.minval = -2;
  u.maxval = 3;
  u.has_seed = 1;  // seeded, so the statistics are the same on every run
  u.seed = 1;
  TG_Variable* w = GetVar("W", {100, 100}, u);
  for (const char* name : {"W/Initializer/random_uniform/shape", "W/Initializer/random_uniform/min",
                           "W/Initializer/random_uniform/max"}) {
    EXPECT_EQ(OpType(name), "Const") << name;
  }
  EXPECT_EQ(OpType("W/Initializer/random_uniform/RandomUniform"), "RandomUniform");
  EXPECT_EQ(OpType("W/Initializer/random_uniform/sub"), "Sub");
  EXPECT_EQ(OpType("W/Initializer/random_uniform/mul"), "Mul");
  EXPECT_EQ(OpType("W/Initializer/random_uniform"), "Add");
  EXPECT_EQ(Name(TG_VariableInitialValue(w).oper), "W/Initializer/random_uniform");

  std::vector<float> v = InitialValue(w);
  ASSERT_EQ(v.size(), 10000u);
  EXPECT_GE(*std::min_element(v.begin(), v.end()), -2.0f);
  EXPECT_LT(*std::max_element(v.begin(), v.end()), 3.0f);
  EXPECT_NEAR(Mean(v), 0.5, 0.06);               // standard error 5 / sqrt(12 * 1e4) = 0.014
  EXPECT_NEAR(Stddev(v), 5 / std::sqrt(12.0), 0.05);
}

TEST_F(TrainingBuildersTest, NormalHasTheRequestedMeanAndStddev) {
  TG_Initializer n = MakeInit(TG_INIT_RANDOM_NORMAL);
  n.mean = 1;
  n.stddev = 2;
  n.has_seed = 1;
  n.seed = 2;
  TG_Variable* w = GetVar("W", {200, 100}, n);
  EXPECT_EQ(OpType("W/Initializer/random_normal/RandomStandardNormal"), "RandomStandardNormal");
  EXPECT_EQ(OpType("W/Initializer/random_normal/mean"), "Const");
  EXPECT_EQ(OpType("W/Initializer/random_normal/stddev"), "Const");
  std::vector<float> v = InitialValue(w);
  ASSERT_EQ(v.size(), 20000u);
  EXPECT_NEAR(Mean(v), 1.0, 0.06);  // standard error 2 / sqrt(2e4) = 0.014
  EXPECT_NEAR(Stddev(v), 2.0, 0.05);
}

TEST_F(TrainingBuildersTest, TruncatedNormalStaysWithinTwoStddevs) {
  TG_Initializer t = MakeInit(TG_INIT_TRUNCATED_NORMAL);
  t.mean = 3;
  t.stddev = 0.5;
  t.has_seed = 1;
  t.seed = 3;
  TG_Variable* w = GetVar("W", {200, 100}, t);
  EXPECT_EQ(OpType("W/Initializer/truncated_normal/TruncatedNormal"), "TruncatedNormal");
  std::vector<float> v = InitialValue(w);
  ASSERT_EQ(v.size(), 20000u);
  EXPECT_GE(*std::min_element(v.begin(), v.end()), 2.0f - 1e-6f);
  EXPECT_LE(*std::max_element(v.begin(), v.end()), 4.0f + 1e-6f);
  EXPECT_NEAR(Mean(v), 3.0, 0.03);
  // A normal truncated at +-2 sigma has standard deviation 0.8796 sigma.
  EXPECT_NEAR(Stddev(v), 0.8796 * 0.5, 0.02);
}

TEST_F(TrainingBuildersTest, GlorotUniformUsesTensorFlowsFans) {
  // Rank 2: fans (30, 50); rank 4 (a conv kernel 3x3x4x8): receptive field 9, fans (36, 72).
  struct Case {
    std::vector<int64_t> dims;
    double limit;
  };
  const Case cases[] = {{{30, 50}, std::sqrt(6.0 / 80)}, {{3, 3, 4, 8}, std::sqrt(6.0 / 108)},
                        {{500}, std::sqrt(6.0 / 1000)}};
  int k = 0;
  for (const Case& c : cases) {
    std::string name = "g";  // appended: GCC 12 -O3 warns falsely on "g" + to_string(k)
    name += std::to_string(k++);
    TG_Initializer glorot = MakeInit(TG_INIT_GLOROT_UNIFORM);
    glorot.has_seed = 1;
    glorot.seed = k;
    TG_Variable* v = GetVar(name.c_str(), c.dims, glorot);
    EXPECT_EQ(OpType((name + "/Initializer/random_uniform/RandomUniform").c_str()), "RandomUniform");
    std::vector<float> x = InitialValue(v);
    float max_abs = 0;
    for (float e : x) max_abs = std::max(max_abs, std::abs(e));
    EXPECT_LE(max_abs, c.limit * (1 + 1e-6)) << name;
    EXPECT_GT(max_abs, 0.9 * c.limit) << name;  // the draws fill the range
  }
}

TEST_F(TrainingBuildersTest, NewVariableWithInitAndStandaloneValues) {
  TG_VariableOptions opts;
  TG_InitVariableOptions(&opts);
  opts.name = "V";
  TG_Initializer u = MakeInit(TG_INIT_RANDOM_UNIFORM);
  int64_t dims[] = {4, 5};
  TG_Variable* v = TG_GraphNewVariableWithInit(g_, &u, TG_DOUBLE, dims, 2, &opts, s_);
  TG_ASSERT_OK(s_);
  EXPECT_EQ(Name(TG_VariableInitialValue(v).oper), "V/Initializer/random_uniform");
  EXPECT_EQ(TG_VariableDataType(v), TG_DOUBLE);

  TG_GraphPushNameScope(g_, "outer", s_);
  TG_ASSERT_OK(s_);
  TG_Output ones = TG_InitializerValue(g_, &u, TG_FLOAT, dims, 2, s_);
  TG_ASSERT_OK(s_);
  TG_GraphPopNameScope(g_, s_);
  EXPECT_EQ(Name(ones.oper), "outer/random_uniform");
}

TEST_F(TrainingBuildersTest, BadInitializerArguments) {
  int64_t dims[] = {2, 2};
  TG_Initializer u = MakeInit(TG_INIT_RANDOM_UNIFORM);
  TG_InitializerValue(g_, &u, TG_INT32, dims, 2, s_);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT) << msg();
  u.minval = 2;
  u.maxval = 1;
  TG_InitializerValue(g_, &u, TG_FLOAT, dims, 2, s_);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT) << msg();
  TG_Initializer bad = MakeInit(TG_INIT_ZEROS);
  bad.struct_size = 3;
  TG_InitializerValue(g_, &bad, TG_FLOAT, dims, 2, s_);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT) << msg();
  TG_Initializer kind = MakeInit(TG_INIT_ZEROS);
  int bogus = 99;
  std::memcpy(&kind.kind, &bogus, sizeof bogus);
  TG_InitializerValue(g_, &kind, TG_FLOAT, dims, 2, s_);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT) << msg();
  int64_t unknown[] = {2, -1};
  TG_Initializer z = MakeInit(TG_INIT_ZEROS);
  TG_InitializerValue(g_, &z, TG_FLOAT, unknown, 2, s_);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT) << msg();
  TensorPtr three = FloatTensor({3}, {1, 2, 3});
  TG_Initializer c = MakeInit(TG_INIT_CONSTANT);
  c.tensor = three.get();
  TG_InitializerValue(g_, &c, TG_FLOAT, dims, 2, s_);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT) << msg();
  TG_InitializerValue(g_, &c, TG_DOUBLE, dims, 1, s_);  // dtype mismatch
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT) << msg();
  TG_InitializerValue(g_, nullptr, TG_FLOAT, dims, 2, s_);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT) << msg();
  TG_InitializerValue(nullptr, &z, TG_FLOAT, dims, 2, s_);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT) << msg();
}

// ---- seeds ----

TEST_F(TrainingBuildersTest, SeedAttrsFollowTensorFlowsGetSeed) {
  int64_t dims[] = {3};
  TG_Initializer u = MakeInit(TG_INIT_RANDOM_UNIFORM);
  TG_Output unseeded = TG_InitializerValue(g_, &u, TG_FLOAT, dims, 1, s_);
  u.has_seed = 1;
  u.seed = 5;
  TG_Output op_only = TG_InitializerValue(g_, &u, TG_FLOAT, dims, 1, s_);
  TG_ASSERT_OK(s_);
  int64_t seed = 0;
  EXPECT_EQ(TG_GraphGetRandomSeed(g_, &seed), 0);
  TG_GraphSetRandomSeed(g_, 1, s_);
  TG_ASSERT_OK(s_);
  EXPECT_EQ(TG_GraphGetRandomSeed(g_, &seed), 1);
  EXPECT_EQ(seed, 1);
  TG_Output both = TG_InitializerValue(g_, &u, TG_FLOAT, dims, 1, s_);
  u.has_seed = 0;
  TG_Output graph_only = TG_InitializerValue(g_, &u, TG_FLOAT, dims, 1, s_);
  TG_ASSERT_OK(s_);

  auto random_op = [&](TG_Output add) {
    // add = mul + min; mul = RandomUniform * range.
    TG_Output mul = TG_OperationInput(TG_Input{add.oper, 0});
    return TG_OperationInput(TG_Input{mul.oper, 0}).oper;
  };
  EXPECT_EQ(IntAttr(random_op(unseeded), "seed"), 0);
  EXPECT_EQ(IntAttr(random_op(unseeded), "seed2"), 0);
  EXPECT_EQ(IntAttr(random_op(op_only), "seed"), 87654321);
  EXPECT_EQ(IntAttr(random_op(op_only), "seed2"), 5);
  EXPECT_EQ(IntAttr(random_op(both), "seed"), 1);
  EXPECT_EQ(IntAttr(random_op(both), "seed2"), 5);
  EXPECT_EQ(IntAttr(random_op(graph_only), "seed"), 1);
  // The op seed is the number of ops made before the random op (TF's graph._last_id).
  const int64_t seed2 = IntAttr(random_op(graph_only), "seed2");
  EXPECT_GT(seed2, 0);
  EXPECT_LT(seed2, 40);
  TG_GraphSetRandomSeed(g_, 0, s_);
  u.has_seed = 1;
  u.seed = 0;
  TG_Output zeros = TG_InitializerValue(g_, &u, TG_FLOAT, dims, 1, s_);
  TG_ASSERT_OK(s_);
  EXPECT_EQ(IntAttr(random_op(zeros), "seed"), 0);
  EXPECT_EQ(IntAttr(random_op(zeros), "seed2"), 2147483647);  // never (0, 0)
}

// Builds the same seeded graph twice; fresh sessions give the same numbers.
TEST_F(TrainingBuildersTest, SeededGraphsAreDeterministicPerFreshSession) {
  auto build_and_run = [&](bool graph_seed, bool op_seed, int runs) {
    TG_Graph* g = TG_NewGraph();
    if (graph_seed) TG_GraphSetRandomSeed(g, 42, s_);
    TG_Initializer n;
    TG_InitInitializer(&n, TG_INIT_RANDOM_NORMAL);
    n.has_seed = op_seed ? 1 : 0;
    n.seed = 7;
    int64_t dims[] = {8};
    TG_Variable* a = TG_GraphGetVariableWithInit(g, "a", TG_FLOAT, dims, 1, &n, nullptr, s_);
    TG_Variable* b = TG_GraphGetVariableWithInit(g, "b", TG_FLOAT, dims, 1, &n, nullptr, s_);
    EXPECT_TRUE(IsOk(s_));
    TG_Session* session = TG_NewSession(g, nullptr, s_);
    std::vector<std::vector<float>> values;
    for (int r = 0; r < runs; ++r) {
      TG_Output fetch[] = {TG_VariableInitialValue(a), TG_VariableInitialValue(b)};
      TG_Tensor* out[2] = {nullptr, nullptr};
      TG_SessionRun(session, nullptr, nullptr, nullptr, 0, fetch, out, 2, nullptr, 0, nullptr, s_);
      EXPECT_TRUE(IsOk(s_));
      values.push_back(Floats(out[0]));
      values.push_back(Floats(out[1]));
      TG_DeleteTensor(out[0]);
      TG_DeleteTensor(out[1]);
    }
    TG_DeleteSession(session, s_);
    TG_DeleteGraph(g);
    return values;
  };
  auto first = build_and_run(true, false, 2);
  auto second = build_and_run(true, false, 1);
  EXPECT_EQ(first[0], second[0]);
  EXPECT_EQ(first[1], second[1]);
  EXPECT_NE(first[0], first[1]);  // two variables: two op seeds
  EXPECT_NE(first[0], first[2]);  // a session's second run draws new numbers

  auto op_a = build_and_run(false, true, 1);
  auto op_b = build_and_run(false, true, 1);
  EXPECT_EQ(op_a[0], op_b[0]);
  EXPECT_EQ(op_a[0], op_a[1]);  // the same op seed without a graph seed: the same stream

  auto free_a = build_and_run(false, false, 1);
  auto free_b = build_and_run(false, false, 1);
  EXPECT_NE(free_a[0], free_b[0]);
}

// ---- dropout ----

TEST_F(TrainingBuildersTest, DropoutKeepsAFractionAndScales) {
  TG_Initializer ones = MakeInit(TG_INIT_ONES);
  int64_t dims[] = {100, 100};
  TG_Output x = TG_InitializerValue(g_, &ones, TG_FLOAT, dims, 2, s_);
  TG_ASSERT_OK(s_);
  int64_t seed = 3;
  TG_Output y = TG_Dropout(g_, x, 0.3, TG_Output{nullptr, 0}, &seed, nullptr, s_);
  TG_ASSERT_OK(s_);
  EXPECT_EQ(Name(y.oper), "dropout/mul");
  EXPECT_EQ(OpType("dropout/keep_prob"), "Const");
  EXPECT_EQ(OpType("dropout/Shape"), "Shape");
  EXPECT_EQ(OpType("dropout/random_uniform/RandomUniform"), "RandomUniform");
  EXPECT_EQ(OpType("dropout/add"), "Add");
  EXPECT_EQ(OpType("dropout/Floor"), "Floor");
  EXPECT_EQ(OpType("dropout/div"), "RealDiv");

  std::vector<float> v = RunFloats(NewSession(), y);
  ASSERT_EQ(v.size(), 10000u);
  int kept = 0;
  for (float e : v) {
    if (e != 0) {
      EXPECT_FLOAT_EQ(e, 1 / 0.3f);
      ++kept;
    }
  }
  EXPECT_NEAR(kept / 10000.0, 0.3, 0.03);
  EXPECT_NEAR(Mean(v), 1.0, 0.1);  // dropout keeps the expectation
  // Seeded: a fresh session drops the same elements.
  EXPECT_EQ(RunFloats(NewSession(), y), v);

  // keep_prob 1 is the identity (no nodes); a keep_prob tensor fed 1 keeps everything too.
  TG_Output same = TG_Dropout(g_, x, 1.0, TG_Output{nullptr, 0}, nullptr, nullptr, s_);
  TG_ASSERT_OK(s_);
  EXPECT_EQ(same.oper, x.oper);
  TG_Output kp = Placeholder(TG_FLOAT, {}, "keep_prob");
  TG_Output fed = TG_Dropout(g_, x, 0, kp, nullptr, "drop", s_);
  TG_ASSERT_OK(s_);
  EXPECT_EQ(Name(fed.oper), "drop/mul");
  TensorPtr one = FloatScalar(1.0f);
  EXPECT_EQ(RunFloats(NewSession(), fed, {{kp, one.get()}}), std::vector<float>(10000, 1.0f));
}

TEST_F(TrainingBuildersTest, DropoutRejectsBadArguments) {
  TG_Output x = Out(FloatConst({2, 2}));
  for (double bad : {0.0, -0.5, 1.5}) {
    TG_Dropout(g_, x, bad, TG_Output{nullptr, 0}, nullptr, nullptr, s_);
    EXPECT_EQ(code(), TG_INVALID_ARGUMENT) << bad;
  }
  TG_Output ints = Placeholder(TG_INT32, {2}, "ints");
  TG_Dropout(g_, ints, 0.5, TG_Output{nullptr, 0}, nullptr, nullptr, s_);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT) << msg();
  TG_Output kp = Placeholder(TG_DOUBLE, {}, "kp");
  TG_Dropout(g_, x, 0.5, kp, nullptr, nullptr, s_);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT) << msg();
}

// ---- losses ----

TEST_F(TrainingBuildersTest, L2LossIsHalfTheSumOfSquares) {
  TensorPtr t = FloatTensor({2, 2}, {1, -2, 3, 0.5f});
  TG_Output x = Out(ConstTensor(t));
  TG_Output loss = TG_L2Loss(g_, x, nullptr, s_);
  TG_ASSERT_OK(s_);
  EXPECT_EQ(Name(loss.oper), "L2Loss");
  EXPECT_EQ(std::string(TG_OperationOpType(loss.oper)), "L2Loss");
  std::vector<float> v = RunFloats(NewSession(), loss);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_FLOAT_EQ(v[0], (1 + 4 + 9 + 0.25f) / 2);
}

TEST_F(TrainingBuildersTest, SigmoidCrossEntropyMatchesTheScalarFormula) {
  const std::vector<float> logits = {-50, -3, -0.5f, 0, 0.7f, 4, 60, 20};
  const std::vector<float> labels = {0, 1, 0.3f, 1, 0.5f, 0, 1, 0};
  TensorPtr lt = FloatTensor({2, 4}, logits), zt = FloatTensor({2, 4}, labels);
  TG_Output loss = TG_SigmoidCrossEntropyWithLogits(g_, Out(ConstTensor(zt)), Out(ConstTensor(lt)),
                                                    nullptr, s_);
  TG_ASSERT_OK(s_);
  EXPECT_EQ(Name(loss.oper), "logistic_loss");
  EXPECT_EQ(OpType("logistic_loss/GreaterEqual"), "GreaterEqual");
  EXPECT_EQ(OpType("logistic_loss/Select"), "Select");
  std::vector<float> v = RunFloats(NewSession(), loss);
  ASSERT_EQ(v.size(), logits.size());
  for (size_t i = 0; i < v.size(); ++i) {
    // -z log(sigmoid(x)) - (1 - z) log(1 - sigmoid(x)), in long double.
    const long double x = logits[i], z = labels[i];
    const long double expected = z * std::log1p(std::exp(-x)) + (1 - z) * std::log1p(std::exp(x));
    EXPECT_NEAR(v[i], static_cast<double>(expected), 1e-5 * (1 + std::abs(static_cast<double>(expected))))
        << "x = " << logits[i] << ", z = " << labels[i];
  }
}

TEST_F(TrainingBuildersTest, SigmoidCrossEntropyGradients) {
  CheckGradients({{{2, 3}, {-2.0, -0.3, 0.4, 1.1, 3.0, -0.7}}, {{2, 3}}},
                 [](TG_Graph* g, const std::vector<TG_Output>& in) {
                   TG_Status* s = TG_NewStatus();
                   TG_Output out = TG_SigmoidCrossEntropyWithLogits(g, in[1], in[0], nullptr, s);
                   EXPECT_TRUE(IsOk(s));
                   TG_DeleteStatus(s);
                   return out;
                 });
}

TEST_F(TrainingBuildersTest, LossesRejectBadArguments) {
  TG_Output f = Out(FloatConst({2, 2}));
  TG_Output g3 = Out(FloatConst({3}));
  TG_SigmoidCrossEntropyWithLogits(g_, g3, f, nullptr, s_);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT) << msg();
  TG_Output d = Placeholder(TG_DOUBLE, {2, 2}, "d");
  TG_SigmoidCrossEntropyWithLogits(g_, d, f, nullptr, s_);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT) << msg();
  TG_L2Loss(g_, TG_Output{nullptr, 0}, nullptr, s_);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT) << msg();
}

// ---- embedding_lookup ----

TEST_F(TrainingBuildersTest, EmbeddingLookupGathersRowsColocatedWithParams) {
  TG_Variable* params = Var("params", FloatTensor({5, 2}, {0, 1, 10, 11, 20, 21, 30, 31, 40, 41}));
  TensorPtr ids_t = IntTensor({2, 2}, {0, 3, 3, 4});
  TG_Output ids = Out(ConstTensor(ids_t));
  TG_Output e = TG_EmbeddingLookup(g_, Read(params), ids, nullptr, s_);
  TG_ASSERT_OK(s_);
  EXPECT_EQ(Name(e.oper), "embedding_lookup/Identity");
  TG_Operation* gather = TG_GraphOperationByName(g_, "embedding_lookup");
  ASSERT_NE(gather, nullptr);
  EXPECT_EQ(std::string(TG_OperationOpType(gather)), "GatherV2");
  EXPECT_EQ(StringListAttr(gather, "_class"), std::vector<std::string>{"loc:@params"});
  TG_OperationGetAttrMetadata(e.oper, "_class", s_);
  EXPECT_EQ(code(), TG_NOT_FOUND);  // the Identity is free of the constraint
  EXPECT_EQ(OpType("embedding_lookup/axis"), "Const");

  TG_Session* session = NewSession();
  RunTargets(session, {Init()});
  TG_ASSERT_OK(s_);
  std::vector<TensorPtr> out = Run(session, {}, {e});
  TG_ASSERT_OK(s_);
  EXPECT_EQ(Dims(out[0].get()), (std::vector<int64_t>{2, 2, 2}));
  EXPECT_EQ(Floats(out[0].get()), (std::vector<float>{0, 1, 30, 31, 30, 31, 40, 41}));

  // The gradient with respect to params is sparse: rows 0, 3, 3, 4.
  TG_Output loss = AddOp(g_, "Sum", {e, ConstInt32(g_, {0, 1, 2})});
  TG_Output x = Read(params);
  TG_Output values, indices, dense_shape;
  TG_AddGradientsSparse(g_, nullptr, &loss, 1, &x, 1, nullptr, s_, &values, &indices, &dense_shape);
  TG_ASSERT_OK(s_);
  ASSERT_NE(indices.oper, nullptr);
  ASSERT_NE(dense_shape.oper, nullptr);
}

TEST_F(TrainingBuildersTest, EmbeddingLookupGradient) {
  CheckGradients({{{5, 3}}}, [](TG_Graph* g, const std::vector<TG_Output>& in) {
    TG_Status* s = TG_NewStatus();
    TG_Output out = TG_EmbeddingLookup(g, in[0], ConstInt64(g, {4, 0, 4, 2}, {2, 2}), nullptr, s);
    EXPECT_TRUE(IsOk(s));
    TG_DeleteStatus(s);
    return out;
  });
}

// ---- nce_loss ----

// Fixed sampled values (as TF's sampled_values argument) make the loss a plain function.
TG_Output NceWithFixedSamples(TG_Graph* g, const std::vector<TG_Output>& in, int num_true,
                              std::vector<int64_t> labels, std::vector<int64_t> sampled,
                              bool remove_hits) {
  const auto batch = static_cast<int64_t>(labels.size()) / num_true;
  std::vector<float> true_expected(labels.size()), sampled_expected(sampled.size());
  for (size_t i = 0; i < labels.size(); ++i) true_expected[i] = 0.05f + 0.01f * static_cast<float>(i);
  for (size_t i = 0; i < sampled.size(); ++i) sampled_expected[i] = 0.2f + 0.1f * static_cast<float>(i);
  const auto num_sampled = static_cast<int64_t>(sampled.size());
  TG_Output values[3] = {ConstInt64(g, sampled),
                         ConstOf<float>(g, TG_FLOAT, true_expected, {batch, num_true}),
                         ConstOf<float>(g, TG_FLOAT, sampled_expected, {num_sampled})};
  TG_NceLossOptions opts;
  TG_InitNceLossOptions(&opts);
  opts.num_true = num_true;
  opts.sampled_values = values;
  opts.remove_accidental_hits = remove_hits ? 1 : 0;
  TG_Status* s = TG_NewStatus();
  TG_Output loss = TG_NceLoss(g, in[0], in[1], ConstInt64(g, labels, {batch, num_true}), in[2],
                              num_sampled, 10, &opts, s);
  EXPECT_TRUE(IsOk(s)) << TG_Message(s);
  TG_DeleteStatus(s);
  return loss;
}

TEST_F(TrainingBuildersTest, NceLossGradientsMatchFiniteDifferences) {
  // weights [10, 3], biases [10], inputs [4, 3].
  const std::vector<GradInputSpec> specs = {{{10, 3}}, {{10}}, {{4, 3}}};
  CheckGradients(specs, [](TG_Graph* g, const std::vector<TG_Output>& in) {
    return NceWithFixedSamples(g, in, 1, {1, 4, 7, 4}, {0, 2, 5, 8}, false);
  });
  CheckGradients(specs, [](TG_Graph* g, const std::vector<TG_Output>& in) {
    // One example with two true labels; candidate 7 is one of them, an accidental hit that
    // is removed (it contributes nothing).
    return NceWithFixedSamples(g, in, 2, {1, 7}, {7, 2, 5}, true);
  });
}

TEST_F(TrainingBuildersTest, NceLossValueAndAccidentalHits) {
  // With one example whose label 3 is also sampled, removing accidental hits gives the loss
  // without that candidate.
  const std::vector<double> w = {0.1, -0.2, 0.3, 0.4, -0.5, 0.6, 0.7, 0.8, -0.9, 1.0,
                                 0.2, 0.1, -0.3, 0.5, 0.25, -0.6, 0.35, 0.45, 0.15, -0.05};
  const std::vector<double> b = {0.01, 0.02, -0.03, 0.04, 0.05, -0.06, 0.07, 0.08, 0.09, 0.1};
  const std::vector<double> x = {0.5, -1.5};
  auto loss_of = [&](std::vector<int64_t> sampled, std::vector<float> sampled_q, bool remove) {
    TG_Graph* g = TG_NewGraph();
    TG_Output in[3] = {ConstDouble(g, w, {10, 2}), ConstDouble(g, b, {10}), ConstDouble(g, x, {1, 2})};
    TG_Output values[3] = {ConstInt64(g, sampled), tgtest::ConstOf<float>(g, TG_FLOAT, {0.25f}, {1, 1}),
                           tgtest::ConstOf<float>(g, TG_FLOAT, sampled_q, {static_cast<int64_t>(sampled.size())})};
    TG_NceLossOptions opts;
    TG_InitNceLossOptions(&opts);
    opts.sampled_values = values;
    opts.remove_accidental_hits = remove;
    TG_Output loss = TG_NceLoss(g, in[0], in[1], ConstInt64(g, {3}, {1, 1}), in[2],
                                static_cast<int64_t>(sampled.size()), 10, &opts, s_);
    EXPECT_TRUE(IsOk(s_)) << msg();
    TG_Session* session = TG_NewSession(g, nullptr, s_);
    TG_Tensor* out = nullptr;
    TG_SessionRun(session, nullptr, nullptr, nullptr, 0, &loss, &out, 1, nullptr, 0, nullptr, s_);
    EXPECT_TRUE(IsOk(s_)) << msg();
    std::vector<double> v = Doubles(out);
    EXPECT_EQ(v.size(), 1u);
    TG_DeleteTensor(out);
    TG_DeleteSession(session, s_);
    TG_DeleteGraph(g);
    return v.empty() ? -1.0 : v[0];
  };
  // The formula by hand for sampled {6}: true logit l_t = <x, w3> + b3 - log(0.25),
  // sampled l_s = <x, w6> + b6 - log(0.5); loss = xent(l_t, 1) + xent(l_s, 0).
  auto xent = [](double l, double z) { return std::max(l, 0.0) - l * z + std::log1p(std::exp(-std::abs(l))); };
  const double lt = x[0] * w[6] + x[1] * w[7] + b[3] - std::log(0.25);
  const double ls = x[0] * w[12] + x[1] * w[13] + b[6] - std::log(0.5);
  const double only6 = loss_of({6}, {0.5f}, false);
  EXPECT_NEAR(only6, xent(lt, 1) + xent(ls, 0), 1e-6);
  EXPECT_NEAR(loss_of({3, 6}, {0.3f, 0.5f}, true), only6, 1e-9);
  EXPECT_GT(loss_of({3, 6}, {0.3f, 0.5f}, false), only6);
}

TEST_F(TrainingBuildersTest, NceLossSamplesSeededAndTrains) {
  TG_GraphSetRandomSeed(g_, 11, s_);
  TG_Initializer normal = MakeInit(TG_INIT_TRUNCATED_NORMAL);
  normal.stddev = 0.3;
  TG_Variable* emb = GetVar("embeddings", {12, 4}, MakeInit(TG_INIT_GLOROT_UNIFORM));
  TG_Variable* w = GetVar("nce_weights", {12, 4}, normal);
  TG_Variable* b = GetVar("nce_biases", {12}, MakeInit(TG_INIT_ZEROS));
  TensorPtr ids = IntTensor({6}, {0, 2, 4, 6, 8, 10});
  TG_Output inputs = TG_EmbeddingLookup(g_, Read(emb), Out(ConstTensor(ids)), nullptr, s_);
  TG_ASSERT_OK(s_);
  TensorPtr labels = IntTensor({6, 1}, {1, 3, 5, 7, 9, 11});
  TG_NceLossOptions opts;
  TG_InitNceLossOptions(&opts);
  opts.has_seed = 1;
  opts.seed = 2;
  TG_Output per_example = TG_NceLoss(g_, Read(w), Read(b), Out(ConstTensor(labels)), inputs, 4, 12,
                                     &opts, s_);
  TG_ASSERT_OK(s_);
  EXPECT_EQ(Name(per_example.oper), "nce_loss");
  TG_Operation* sampler = TG_GraphOperationByName(g_, "nce_loss/LogUniformCandidateSampler");
  ASSERT_NE(sampler, nullptr);
  EXPECT_EQ(IntAttr(sampler, "seed"), 11);
  EXPECT_EQ(IntAttr(sampler, "seed2"), 2);
  int64_t dims[1] = {0};
  TG_GraphGetTensorShape(g_, per_example, dims, 1, s_);
  TG_ASSERT_OK(s_);
  EXPECT_EQ(dims[0], 6);
  TG_Output loss = AddOp(g_, "Mean", {per_example, ConstInt32(g_, {0})});

  TG_OptimizerOptions oo;
  TG_InitOptimizerOptions(&oo, TG_OPTIMIZER_GRADIENT_DESCENT);
  oo.learning_rate = 0.5;
  TG_Optimizer* opt = TG_NewOptimizer(&oo, s_);
  TG_ASSERT_OK(s_);
  TG_Operation* train = TG_OptimizerMinimize(opt, g_, loss, nullptr, 0, nullptr, s_);
  TG_DeleteOptimizer(opt);
  TG_ASSERT_OK(s_);
  TG_Operation* init = Init();

  // The seeded sampler draws the same candidates in each fresh session, new ones per run.
  TG_Output candidates = Out(sampler, 0);
  auto samples = [&](TG_Session* session) {
    std::vector<TensorPtr> out = Run(session, {}, {candidates});
    EXPECT_TRUE(IsOk(s_));
    const auto* p = static_cast<const int64_t*>(TG_TensorData(out[0].get()));
    return std::vector<int64_t>(p, p + 4);
  };
  TG_Session* a = NewSession();
  TG_Session* b2 = NewSession();
  const std::vector<int64_t> first = samples(a);
  EXPECT_EQ(samples(b2), first);
  std::vector<int64_t> sorted = first;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(std::unique(sorted.begin(), sorted.end()), sorted.end()) << "unique sampling";
  for (int64_t c : first) {
    EXPECT_GE(c, 0);
    EXPECT_LT(c, 12);
  }

  TG_Session* session = NewSession();
  RunTargets(session, {init});
  TG_ASSERT_OK(s_);
  std::vector<float> values = RunFloats(session, per_example);
  ASSERT_EQ(values.size(), 6u);
  for (float v : values) EXPECT_TRUE(std::isfinite(v)) << v;
  // Gradient descent lowers the loss (averaged over a few runs: each run samples anew).
  auto average_loss = [&] {
    double sum = 0;
    for (int i = 0; i < 5; ++i) sum += RunFloats(session, loss)[0];
    return sum / 5;
  };
  const double before = average_loss();
  for (int step = 0; step < 60; ++step) {
    RunTargets(session, {train});
    ASSERT_TRUE(IsOk(s_)) << "step " << step;
  }
  const double after = average_loss();
  EXPECT_LT(after, 0.7 * before) << "before " << before << ", after " << after;
}

TEST_F(TrainingBuildersTest, NceLossRejectsBadArguments) {
  TG_Output w = Out(FloatConst({10, 3}));
  TG_Output b = Out(FloatConst({10}));
  TG_Output x = Out(FloatConst({4, 3}));
  TensorPtr labels_t = IntTensor({4, 1}, {1, 2, 3, 4});
  TG_Output labels = Out(ConstTensor(labels_t));
  TG_NceLoss(g_, w, b, labels, x, 11, 10, nullptr, s_);  // more samples than classes
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT) << msg();
  TG_NceLoss(g_, w, b, labels, x, 0, 10, nullptr, s_);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT) << msg();
  TG_NceLoss(g_, w, b, x, x, 2, 10, nullptr, s_);  // float labels
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT) << msg();
  TG_Output d = Placeholder(TG_DOUBLE, {4, 3}, "d");
  TG_NceLoss(g_, w, b, labels, d, 2, 10, nullptr, s_);  // mixed dtypes
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT) << msg();
  TG_NceLoss(g_, b, b, labels, x, 2, 10, nullptr, s_);  // weights of rank 1
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT) << msg();
  TG_NceLossOptions opts;
  TG_InitNceLossOptions(&opts);
  opts.num_true = 2;  // labels have one column
  TG_NceLoss(g_, w, b, labels, x, 2, 10, &opts, s_);
  EXPECT_NE(code(), TG_OK);
  opts.struct_size = 1;
  TG_NceLoss(g_, w, b, labels, x, 2, 10, &opts, s_);
  EXPECT_EQ(code(), TG_INVALID_ARGUMENT) << msg();
}

}  // namespace
}  // namespace tgtest
