// The plan-time rewrites (core/rewrite): each one on a graph that exercises it, run through a
// Session with the rewrite on and off (same values; fewer steps with it on, counted in the
// run's step stats), and its result inspected directly through RewriteFragment (what was
// removed, replaced, and which control edges remain). Fetched, fed, stateful and off-CPU
// nodes and control-flow fragments stay as they are.
#include "core/rewrite/rewriter.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "core/autodiff/add_gradients.h"
#include "core/exec/prune.h"
#include "core/exec/session.h"
#include "core/graph/attr_value_util.h"
#include "core/graph/variables.h"
#include "core/plugin/plugin_loader.h"
#include "core/plugin/registry.h"

namespace tgraph {
namespace {

void LoadCpu() {
  static Status status = LoadPlugin(TGRAPH_CPU_PLUGIN_PATH).status();
  ASSERT_TRUE(status.ok()) << status.ToString();
}

Tensor Floats(std::vector<int64_t> dims, std::vector<float> values) {
  Tensor t = Tensor::Allocate(DT_FLOAT, std::move(dims)).value();
  std::copy(values.begin(), values.end(), t.flat<float>());
  return t;
}

Tensor Ints(std::vector<int64_t> dims, std::vector<int32_t> values) {
  Tensor t = Tensor::Allocate(DT_INT32, std::move(dims)).value();
  std::copy(values.begin(), values.end(), t.flat<int32_t>());
  return t;
}

std::vector<float> Values(const Tensor& t) {
  return std::vector<float>(t.flat<float>(), t.flat<float>() + t.NumElements());
}

class RewriteTest : public ::testing::Test {
 protected:
  void SetUp() override { LoadCpu(); }

  Operation* Op(const std::string& type, std::vector<Output> inputs, AttrMap attrs = {},
                const std::string& name = "", std::vector<Operation*> controls = {},
                const std::string& device = "") {
    NodeSpec spec;
    spec.type = type;
    spec.name = name;
    for (const Output& o : inputs) spec.inputs.push_back({{o}, false});
    spec.attrs = std::move(attrs);
    spec.control_inputs = std::move(controls);
    spec.device = device;
    auto op = g_.AddOperation(std::move(spec));
    EXPECT_TRUE(op.ok()) << op.status().ToString();
    return op.ok() ? op.value() : nullptr;
  }
  Output Const(const Tensor& t, const std::string& name = "") {
    return Op("Const", {}, {{"value", AttrOfTensor(t)}, {"dtype", AttrOfType(t.dtype())}}, name)->output(0);
  }
  Variable* Var(const std::string& name) {
    VariableOptions options;
    options.name = name;
    auto v = g_.variables().CreateVariableFromTensor(Floats({2}, {0, 0}), options);
    EXPECT_TRUE(v.ok()) << v.status().ToString();
    return v.value();
  }
  Output Placeholder(PartialShape shape, const std::string& name) {
    return Op("Placeholder", {}, {{"dtype", AttrOfType(DT_FLOAT)}, {"shape", AttrOfShape(shape)}}, name)
        ->output(0);
  }
  // A 3x3 SAME Conv2D of x (2 channels) into 3 channels, named `name`, over a Const filter
  // `filter` of small integers (exact products).
  Output SmallConv(Output x, const std::string& name, const std::string& filter = "f") {
    std::vector<float> values(3 * 3 * 2 * 3);
    for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i % 7) - 3;
    Output f = g_.FindOperation(filter) != nullptr ? g_.FindOperation(filter)->output(0)
                                                   : Const(Floats({3, 3, 2, 3}, values), filter);
    return Op("Conv2D", {x, f}, {{"strides", AttrOfIntList({1, 1, 1, 1})}, {"padding", AttrOfString("SAME")}},
              name)->output(0);
  }

  // A layer z -> `producer` (h) -> MaxPool (p) and its pool's backward pass: MaxPoolGrad of
  // the pooled gradient dp (dh) -> ReluGrad over h (dz) -> BiasAddGrad (db), each node named
  // after its field and `s`; windows kh x kw at strides sh, sw.
  struct PoolLayer {
    Output z, dp, h, p, dh, dz, db;
    std::vector<int64_t> pooled;  // p's shape
  };
  PoolLayer PoolLayerWithGradient(const std::vector<int64_t>& input, int64_t kh, int64_t kw,
                                  int64_t sh, int64_t sw, const std::string& padding,
                                  const std::string& s, const std::string& producer = "Relu") {
    auto out = [&](int64_t in, int64_t k, int64_t st) {
      return padding == "SAME" ? (in + st - 1) / st : (in - k) / st + 1;
    };
    PoolLayer l;
    l.pooled = {input[0], out(input[1], kh, sh), out(input[2], kw, sw), input[3]};
    const AttrMap pool_attrs{{"ksize", AttrOfIntList({1, kh, kw, 1})},
                             {"strides", AttrOfIntList({1, sh, sw, 1})},
                             {"padding", AttrOfString(padding)}};
    l.z = Placeholder(PartialShape(input), "z" + s);
    l.dp = Placeholder(PartialShape(l.pooled), "dp" + s);
    l.h = Op(producer, {l.z}, {}, "h" + s)->output(0);
    l.p = Op("MaxPool", {l.h}, pool_attrs, "p" + s)->output(0);
    l.dh = Op("MaxPoolGrad", {l.h, l.p, l.dp}, pool_attrs, "dh" + s)->output(0);
    l.dz = Op("ReluGrad", {l.dh, l.h}, {}, "dz" + s)->output(0);
    l.db = Op("BiasAddGrad", {l.dz}, {}, "db" + s)->output(0);
    return l;
  }

  // Runs with every rewrite off, then with only `rewrite` on ("all": every one): the fetched
  // values must agree exactly (within `rtol` of the largest magnitude, for a rewrite that
  // computes a function another way: swish); returns the op types that ran (step stats) with
  // it on.
  std::multiset<std::string> RunBothWays(const std::string& rewrite,
                                         const std::vector<std::pair<Output, Tensor>>& feeds,
                                         const std::vector<Output>& fetches,
                                         const std::vector<Operation*>& targets = {},
                                         std::multiset<std::string>* off_types = nullptr,
                                         float rtol = 0) {
    std::vector<Tensor> off, on;
    std::multiset<std::string> types_off, types_on;
    for (bool enabled : {false, true}) {
      SessionOptions options;
      options.inter_op_threads = 1;
      EXPECT_TRUE(options.rewrites.Set("all", false).ok());
      if (enabled) {
        EXPECT_TRUE(options.rewrites.Set(rewrite, true).ok());
      }
      auto session = Session::Create(&g_, options);
      EXPECT_TRUE(session.ok()) << session.status().ToString();
      RunOptions run_options;
      run_options.trace_level = 1;
      RunMetadata metadata;
      std::vector<Tensor>& out = enabled ? on : off;
      Status s = (*session)->Run(run_options, feeds, fetches, targets, &out, &metadata);
      EXPECT_TRUE(s.ok()) << s.ToString();
      for (const NodeStepStats& st : metadata.step_stats) (enabled ? types_on : types_off).insert(st.op_type);
    }
    EXPECT_EQ(off.size(), on.size());
    for (size_t i = 0; i < off.size() && i < on.size(); ++i) {
      EXPECT_EQ(off[i].dtype(), on[i].dtype());
      EXPECT_EQ(off[i].dims(), on[i].dims());
      if (off[i].dtype() == DT_FLOAT && rtol == 0) {
        EXPECT_EQ(Values(off[i]), Values(on[i])) << "fetch " << i;
      } else if (off[i].dtype() == DT_FLOAT) {
        const std::vector<float> a = Values(off[i]), b = Values(on[i]);
        float scale = 0;
        for (float v : a) scale = std::max(scale, std::abs(v));
        for (size_t e = 0; e < a.size() && e < b.size(); ++e) {
          EXPECT_NEAR(a[e], b[e], rtol * scale) << "fetch " << i << " element " << e;
        }
      }
    }
    if (off_types != nullptr) *off_types = types_off;
    // Fewer steps that compute (a rewrite may add Consts: folded weights, a zero bias).
    auto computing = [](const std::multiset<std::string>& types) { return types.size() - types.count("Const"); };
    EXPECT_LT(computing(types_on), computing(types_off)) << "the rewrite '" << rewrite << "' changed nothing";
    return types_on;
  }

  // The rewrites' result for a request (with `rewrite` alone on), as a session would plan it.
  std::unique_ptr<RewrittenFragment> Rewrite(const std::string& rewrite, const std::vector<Output>& fed,
                                             const std::vector<Output>& fetches,
                                             const std::vector<Operation*>& targets = {},
                                             const std::string& default_device_type = "CPU") {
    auto pruned = PruneAndOrder(g_, PruneRequest{fed, fetches, targets});
    EXPECT_TRUE(pruned.ok()) << pruned.status().ToString();
    ordered_ = pruned->ordered;
    RewriteRequest request{&g_, &ordered_, fed, fetches, targets, default_device_type, {}};
    EXPECT_TRUE(request.options.Set("all", false).ok());
    EXPECT_TRUE(request.options.Set(rewrite, true).ok());
    auto result = RewriteFragment(request);
    EXPECT_TRUE(result.ok()) << result.status().ToString();
    return result.ok() ? std::move(result).value() : nullptr;
  }

  // Index of the op named `name` in a rewritten fragment, or -1.
  static int Find(const RewrittenFragment& f, const std::string& name) {
    for (size_t i = 0; i < f.ordered.size(); ++i) {
      if (f.ordered[i]->name() == name) return static_cast<int>(i);
    }
    return -1;
  }
  static std::vector<std::string> ControlNames(const RewrittenFragment& f, int i) {
    std::vector<std::string> names;
    for (const Operation* c : f.control_inputs[static_cast<size_t>(i)]) names.push_back(c->name());
    std::sort(names.begin(), names.end());
    return names;
  }

  Graph g_;
  std::vector<Operation*> ordered_;
};

// ---- constant folding ----

TEST_F(RewriteTest, ConstantFoldingComputesConstantSubgraphsOnce) {
  Output x = Placeholder(PartialShape({2}), "x");
  Output a = Const(Floats({2}, {1, 2}), "a");
  Output b = Const(Floats({2}, {3, 4}), "b");
  Output sum = Op("AddV2", {a, b}, {}, "sum")->output(0);
  Output scaled = Op("Mul", {sum, Const(Floats({}, {0.5f}), "half")}, {}, "scaled")->output(0);
  Output y = Op("Mul", {x, scaled}, {}, "y")->output(0);
  const auto types = RunBothWays("constant_folding", {{x, Floats({2}, {10, 100})}}, {y});
  EXPECT_EQ(types.count("AddV2"), 0u);
  EXPECT_EQ(types.count("Mul"), 1u);  // only x * constant is left
  auto f = Rewrite("constant_folding", {x}, {y});
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->counts.constant_folding, 2);  // sum, then scaled
  EXPECT_EQ(f->counts.dead, 4);              // a, b, half and sum's folded value
  const int folded = Find(*f, "ConstantFolding/scaled");
  ASSERT_GE(folded, 0);
  EXPECT_EQ(f->ordered[static_cast<size_t>(folded)]->type(), "Const");
  EXPECT_EQ(Values(*f->ordered[static_cast<size_t>(folded)]->constant_value()), (std::vector<float>{2, 3}));
  EXPECT_EQ(Find(*f, "a"), -1);  // the constants it read went with it
}

TEST_F(RewriteTest, ConstantFoldingLeavesFedFetchedLargeAndFailingOps) {
  Output a = Const(Floats({2}, {1, 2}), "a");
  Output b = Const(Floats({2}, {3, 4}), "b");
  Output sum = Op("AddV2", {a, b}, {}, "sum")->output(0);
  Output neg = Op("Neg", {sum}, {}, "neg")->output(0);
  // A fed constant is not a constant.
  auto fed = Rewrite("constant_folding", {a}, {neg});
  EXPECT_EQ(fed, nullptr);
  // A fetched op stays, and what reads it is no longer reading constants.
  EXPECT_EQ(Rewrite("constant_folding", {}, {sum, neg}), nullptr);
  auto folded = Rewrite("constant_folding", {}, {neg});
  ASSERT_NE(folded, nullptr);
  EXPECT_EQ(Find(*folded, "sum"), -1);
  EXPECT_GE(Find(*folded, "ConstantFolding/sum"), 0);
  EXPECT_GE(Find(*folded, "neg"), 0);  // fetched
  // Values over the limit stay computed at run time.
  auto pruned = PruneAndOrder(g_, PruneRequest{{}, {neg}, {}});
  ASSERT_TRUE(pruned.ok());
  RewriteRequest request{&g_, &pruned->ordered, {}, {neg}, {}, "CPU", {}};
  ASSERT_TRUE(request.options.Set("all", false).ok());
  request.options.constant_folding = true;
  request.options.max_constant_bytes = 4;
  auto limited = RewriteFragment(request);
  ASSERT_TRUE(limited.ok());
  EXPECT_EQ(*limited, nullptr);
  // A kernel that fails leaves the op to fail at run time, as it would have.
  Output bad = Op("GatherV2", {a, Const(Ints({1}, {5}), "indices"), Const(Ints({}, {0}), "axis")}, {},
                  "bad")->output(0);
  SessionOptions options;
  auto session = Session::Create(&g_, options);
  ASSERT_TRUE(session.ok());
  std::vector<Tensor> out;
  Status s = (*session)->Run({}, {bad}, {}, &out);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("bad"), std::string::npos) << s.ToString();
}

// ---- common subexpressions ----

TEST_F(RewriteTest, CommonSubexpressionsRunOnce) {
  Output x = Placeholder(PartialShape({3}), "x");
  Output c1 = Const(Floats({}, {2}), "c1");
  Output c2 = Const(Floats({}, {2}), "c2");  // the same value: merged first
  Output m1 = Op("Mul", {x, c1}, {}, "m1")->output(0);
  Output m2 = Op("Mul", {x, c2}, {}, "m2")->output(0);
  Output sum = Op("AddV2", {m1, m2}, {}, "sum")->output(0);
  const auto types = RunBothWays("common_subgraph_elimination", {{x, Floats({3}, {1, 2, 3})}}, {sum});
  EXPECT_EQ(types.count("Mul"), 1u);
  EXPECT_EQ(types.count("Const"), 1u);
}

TEST_F(RewriteTest, CommonSubexpressionsKeepStatefulAndFetchedOps) {
  Output shape = Const(Ints({1}, {4}), "shape");
  AttrMap random{{"dtype", AttrOfType(DT_FLOAT)}, {"seed", AttrOfInt(7)}, {"seed2", AttrOfInt(9)}};
  Output r1 = Op("RandomUniform", {shape}, random, "r1")->output(0);
  Output r2 = Op("RandomUniform", {shape}, random, "r2")->output(0);
  Output n1 = Op("Neg", {r1}, {}, "n1")->output(0);
  Output n2 = Op("Neg", {r1}, {}, "n2")->output(0);
  Output sum = Op("AddV2", {r2, n2}, {}, "sum")->output(0);
  auto f = Rewrite("common_subgraph_elimination", {}, {sum, n1, n2});
  EXPECT_EQ(f, nullptr);  // the random ops are stateful, the Negs fetched
  auto g = Rewrite("common_subgraph_elimination", {}, {sum, n1});
  ASSERT_NE(g, nullptr);
  EXPECT_GE(Find(*g, "r1"), 0);
  EXPECT_GE(Find(*g, "r2"), 0);
  EXPECT_EQ(Find(*g, "n2"), -1);  // n2 reads n1 now
}

// ---- Identity and NoOp removal ----

TEST_F(RewriteTest, IdentitiesAreBypassedKeepingTheirControlInputs) {
  Output x = Placeholder(PartialShape({2}), "x");
  Operation* gate = Op("NoOp", {}, {}, "gate");
  Output i1 = Op("Identity", {x}, {}, "i1", {gate})->output(0);
  Output i2 = Op("Identity", {i1}, {}, "i2")->output(0);
  Output y = Op("Neg", {i2}, {}, "y")->output(0);
  Output kept = Op("Identity", {y}, {}, "kept")->output(0);  // fetched: stays
  const auto types = RunBothWays("identity_removal", {{x, Floats({2}, {1, -1})}}, {kept});
  EXPECT_EQ(types.count("Identity"), 1u);
  auto f = Rewrite("identity_removal", {x}, {kept});
  ASSERT_NE(f, nullptr);
  const int neg = Find(*f, "y");
  ASSERT_GE(neg, 0);
  EXPECT_EQ(f->inputs[static_cast<size_t>(neg)][0].op->name(), "x");  // read straight from the feed
  // y waits for what i1 waited for: gate, a NoOp with nothing to wait for, is itself a
  // control edge of nothing now, so it went too and y waits for nothing it did not.
  EXPECT_EQ(Find(*f, "i1"), -1);
  EXPECT_EQ(Find(*f, "i2"), -1);
}

// Keras writes an IdentityN after every activation with a custom gradient (swish): its
// outputs' readers read its inputs instead; one that a node waits for stays.
TEST_F(RewriteTest, IdentityNIsBypassedOutputByOutput) {
  Output x = Placeholder(PartialShape({3}), "x");
  Output a = Op("Neg", {x}, {}, "a")->output(0);
  Output b = Op("Abs", {x}, {}, "b")->output(0);
  auto identity_n = [&](const std::string& name) {
    NodeSpec spec;
    spec.type = "IdentityN";
    spec.name = name;
    spec.inputs.push_back({{a, b}, true});
    spec.attrs["T"] = AttrOfTypeList({DT_FLOAT, DT_FLOAT});
    return g_.AddOperation(std::move(spec)).value();
  };
  Operation* n = identity_n("n");
  Output y = Op("Sub", {n->output(0), n->output(1)}, {}, "y")->output(0);  // -x - |x|
  Operation* waited = identity_n("waited");
  Output z = Op("Neg", {waited->output(1)}, {}, "z", {waited})->output(0);
  const auto types = RunBothWays("identity_removal", {{x, Floats({3}, {1, -2, 0.5f})}}, {y, z});
  EXPECT_EQ(types.count("IdentityN"), 1u);
  auto f = Rewrite("identity_removal", {x}, {y, z});
  ASSERT_NE(f, nullptr);
  const int sub = Find(*f, "y");
  ASSERT_GE(sub, 0);
  EXPECT_EQ(f->inputs[static_cast<size_t>(sub)][0].op->name(), "a");
  EXPECT_EQ(f->inputs[static_cast<size_t>(sub)][1].op->name(), "b");
  EXPECT_EQ(Find(*f, "n"), -1);
  EXPECT_GE(Find(*f, "waited"), 0);
}

TEST_F(RewriteTest, ControlOnlyIdentityChainsBecomeDirectEdges) {
  Output x = Placeholder(PartialShape({2}), "x");
  Variable* v = Var("v");
  Operation* assign = Op("Assign", {v->ref(), x}, {}, "assign");
  Output through = Op("Identity", {x}, {}, "through", {assign})->output(0);
  Output after = Op("Identity", {through}, {}, "after")->output(0);
  Operation* neg = Op("Neg", {x}, {}, "neg", {after.op});
  auto f = Rewrite("identity_removal", {x}, {neg->output(0)});
  ASSERT_NE(f, nullptr);
  const int i = Find(*f, "neg");
  ASSERT_GE(i, 0);
  EXPECT_EQ(ControlNames(*f, i), (std::vector<std::string>{"assign"}));
  EXPECT_EQ(Find(*f, "through"), -1);
  EXPECT_EQ(Find(*f, "after"), -1);
  EXPECT_GE(Find(*f, "assign"), 0);  // stateful: stays
}

TEST_F(RewriteTest, NoOpsBecomeDirectControlEdgesUnlessTargeted) {
  Output x = Placeholder(PartialShape({2}), "x");
  Operation* a = Op("Neg", {x}, {}, "a");
  Operation* b = Op("Abs", {x}, {}, "b");
  Operation* group = Op("NoOp", {}, {}, "group", {a, b});
  Operation* out = Op("Identity", {x}, {}, "out", {group});
  Output y = Op("Mul", {out->output(0), a->output(0)}, {}, "y")->output(0);
  auto f = Rewrite("identity_removal", {x}, {y});
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(Find(*f, "group"), -1);
  const int mul = Find(*f, "y");
  ASSERT_GE(mul, 0);
  EXPECT_EQ(ControlNames(*f, mul), (std::vector<std::string>{"b"}));  // a is read already
  // A targeted NoOp is what the run asks for: kept.
  auto targeted = Rewrite("identity_removal", {x}, {}, {group});
  EXPECT_EQ(targeted, nullptr);
}

// ---- arithmetic ----

TEST_F(RewriteTest, ArithmeticNeutralElementsAndInversePairs) {
  Output x = Placeholder(PartialShape({2, 3}), "x");
  Output times_one = Op("Mul", {x, Const(Floats({}, {1}), "one")}, {}, "times_one")->output(0);
  Output plus_zero = Op("AddV2", {Const(Floats({3}, {0, 0, 0}), "zeros"), times_one}, {}, "plus_zero")->output(0);
  Output minus_zero = Op("Sub", {plus_zero, Const(Floats({}, {0}), "zero")}, {}, "minus_zero")->output(0);
  Output neg2 = Op("Neg", {Op("Neg", {minus_zero}, {}, "neg1")->output(0)}, {}, "neg2")->output(0);
  Output perm = Const(Ints({2}, {1, 0}), "perm");
  Output t2 = Op("Transpose", {Op("Transpose", {neg2, perm}, {}, "t1")->output(0), perm}, {}, "t2")->output(0);
  Output y = Op("Abs", {t2}, {}, "y")->output(0);
  const auto types = RunBothWays("arithmetic_optimization",
                                 {{x, Floats({2, 3}, {1, -2, 3, -4, 5, -6})}}, {y});
  EXPECT_EQ(types.size(), 1u);  // Abs alone
  EXPECT_EQ(types.count("Abs"), 1u);
}

TEST_F(RewriteTest, ArithmeticKeepsBroadcastsAndNonNeutralConstants) {
  Output x = Placeholder(PartialShape({3}), "x");
  // x + zeros[2, 3] broadcasts x to [2, 3]: not x.
  Output broadcast = Op("AddV2", {x, Const(Floats({2, 3}, {0, 0, 0, 0, 0, 0}), "zeros")}, {}, "b")->output(0);
  Output twice = Op("Mul", {x, Const(Floats({}, {2}), "two")}, {}, "twice")->output(0);
  Output zero_minus = Op("Sub", {Const(Floats({}, {0}), "zero"), x}, {}, "zero_minus")->output(0);
  auto f = Rewrite("arithmetic_optimization", {x}, {broadcast, twice, zero_minus});
  EXPECT_EQ(f, nullptr);
  Output y = Op("Neg", {broadcast}, {}, "y")->output(0);
  auto g = Rewrite("arithmetic_optimization", {x}, {y});
  EXPECT_EQ(g, nullptr);
}

// A frozen graph's batch normalization after a convolution: Conv2D -> BiasAdd -> Mul(scale)
// -> AddV2(offset) -> Relu. The scale goes into the filter and the bias, the offset into the
// bias; with the fusion after it, one _FusedConv2D with its Relu is left. Values are small
// integers, quarters and powers of two, so both orders of rounding give the same floats.
TEST_F(RewriteTest, ScaleAndOffsetFoldIntoTheConvolutionBefore) {
  Output x = Placeholder(PartialShape({1, 4, 4, 2}), "x");
  Output conv = SmallConv(x, "conv");
  Output ba = Op("BiasAdd", {conv, Const(Floats({3}, {1, 2, 3}), "bias")}, {}, "ba")->output(0);
  Output scaled = Op("Mul", {ba, Const(Floats({3}, {0.5f, 2, 4}), "scale")}, {}, "scaled")->output(0);
  Output shifted = Op("AddV2", {Const(Floats({1, 1, 1, 3}, {-1, 0.25f, 3}), "offset"), scaled}, {},
                      "shifted")->output(0);
  Output relu = Op("Relu", {shifted}, {}, "relu")->output(0);
  Output y = Op("Neg", {relu}, {}, "y")->output(0);
  std::vector<float> xv(32);
  for (size_t i = 0; i < xv.size(); ++i) xv[i] = static_cast<float>(i) * 0.25f - 4;
  const std::vector<std::pair<Output, Tensor>> feeds = {{x, Floats({1, 4, 4, 2}, xv)}};
  auto types = RunBothWays("arithmetic_optimization", feeds, {y});
  EXPECT_EQ(types.count("Mul") + types.count("AddV2"), 0u);
  EXPECT_EQ(types.count("Conv2D") + types.count("BiasAdd") + types.count("Relu"), 3u);
  types = RunBothWays("all", feeds, {y});
  EXPECT_EQ(types.count("_FusedConv2D"), 1u);
  EXPECT_EQ(types.count("Conv2D") + types.count("BiasAdd") + types.count("Mul") + types.count("AddV2") +
                types.count("Relu"),
            0u);
  // The user's graph keeps its own constants; the folded ones are the plan's.
  auto rewritten = Rewrite("arithmetic_optimization", {x}, {y});
  ASSERT_NE(rewritten, nullptr);
  const int c = Find(*rewritten, "conv");
  ASSERT_GE(c, 0);
  const Output folded = rewritten->inputs[static_cast<size_t>(c)][1];
  EXPECT_EQ(folded.op->type(), "Const");
  EXPECT_NE(folded.op->graph(), &g_);
  EXPECT_EQ(Find(*rewritten, "scaled"), -1);
  EXPECT_EQ(Find(*rewritten, "shifted"), -1);
  EXPECT_EQ(g_.FindOperation("f")->constant_value()->flat<float>()[0], -3.0f);
}

// A batch normalization with no bias before it (Keras's InceptionV3 and MobileNetV2): Conv2D
// -> Mul(scale) -> AddV2 of an offset shaped [1, 1, 1, N] -> Relu: the scale goes into the
// filter, the offset becomes a BiasAdd of a vector, and the fusion takes all of it with the
// Relu. A MatMul minus a [1, N] row likewise.
TEST_F(RewriteTest, AnOffsetAfterABareContractionBecomesItsBias) {
  Output x = Placeholder(PartialShape({1, 4, 4, 2}), "x");
  Output scaled = Op("Mul", {SmallConv(x, "conv"), Const(Floats({1, 1, 1, 3}, {0.5f, 2, 4}), "scale")}, {},
                     "scaled")->output(0);
  Output shifted = Op("AddV2", {scaled, Const(Floats({1, 1, 1, 3}, {-1, 0.25f, 3}), "offset")}, {},
                      "shifted")->output(0);
  Output y = Op("Neg", {Op("Relu", {shifted}, {}, "relu")->output(0)}, {}, "y")->output(0);
  Output m = Placeholder(PartialShape({2, 3}), "m");
  Output mm = Op("MatMul", {m, Const(Floats({3, 2}, {1, -2, 3, -4, 5, -6}), "w")}, {}, "mm")->output(0);
  Output y2 = Op("Neg", {Op("Sub", {mm, Const(Floats({1, 2}, {0.5f, -1.5f}), "row")}, {}, "minus")->output(0)}, {},
                 "y2")->output(0);
  std::vector<float> xv(32);
  for (size_t i = 0; i < xv.size(); ++i) xv[i] = static_cast<float>(i) * 0.25f - 4;
  const std::vector<std::pair<Output, Tensor>> feeds = {{x, Floats({1, 4, 4, 2}, xv)},
                                                        {m, Floats({2, 3}, {1, 2, 3, -1, -2, -3})}};
  auto types = RunBothWays("arithmetic_optimization", feeds, {y, y2});
  EXPECT_EQ(types.count("Mul") + types.count("AddV2") + types.count("Sub"), 0u);
  EXPECT_EQ(types.count("BiasAdd"), 2u);
  types = RunBothWays("all", feeds, {y, y2});
  EXPECT_EQ(types.count("_FusedConv2D"), 1u);
  EXPECT_EQ(types.count("_FusedMatMul"), 1u);
  EXPECT_EQ(types.count("Relu") + types.count("BiasAdd") + types.count("Conv2D") + types.count("MatMul"), 0u);
}

// A frozen graph's weights come through an Identity (ReadVariableOp) that constant folding
// leaves when the Const is large: the scale folds into the Const behind it all the same.
TEST_F(RewriteTest, ScaleFoldsThroughTheIdentityOfAConstant) {
  Output x = Placeholder(PartialShape({1, 4, 4, 2}), "x");
  Output read = Op("Identity", {Const(Floats({1, 1, 2, 3}, {1, -2, 3, 0.5f, 4, -1}), "filter")}, {}, "read")->output(0);
  Output conv = Op("Conv2D", {x, read}, {{"strides", AttrOfIntList({1, 1, 1, 1})}, {"padding", AttrOfString("VALID")}},
                   "conv")->output(0);
  Output y = Op("Neg", {Op("Mul", {conv, Const(Floats({3}, {0.5f, 2, 4}), "scale")}, {}, "scaled")->output(0)}, {},
                "y")->output(0);
  std::vector<float> xv(32);
  for (size_t i = 0; i < xv.size(); ++i) xv[i] = static_cast<float>(i) * 0.25f - 4;
  const auto types = RunBothWays("arithmetic_optimization", {{x, Floats({1, 4, 4, 2}, xv)}}, {y});
  EXPECT_EQ(types.count("Mul"), 0u);
}

// Dense layers: MatMul (B transposed, so a channel is a row of B) -> BiasAdd -> Mul with the
// scale first and as a [1, N] row -> Sub; and a MatMul scaled with no bias at all.
TEST_F(RewriteTest, ScaleAndOffsetFoldIntoMatMulsWithAndWithoutBias) {
  Output x = Placeholder(PartialShape({2, 3}), "x");
  Output w = Const(Floats({2, 3}, {1, -2, 3, -4, 5, -6}), "w");  // [N, K]
  Output mm = Op("MatMul", {x, w}, {{"transpose_b", AttrOfBool(true)}}, "mm")->output(0);
  Output ba = Op("BiasAdd", {mm, Const(Floats({2}, {0.5f, -0.5f}), "bias")}, {}, "ba")->output(0);
  Output scaled = Op("Mul", {Const(Floats({1, 2}, {2, 0.25f}), "scale"), ba}, {}, "scaled")->output(0);
  Output y = Op("Sub", {scaled, Const(Floats({}, {1.5f}), "offset")}, {}, "y")->output(0);
  Output mm2 = Op("MatMul", {x, Const(Floats({3, 2}, {1, 2, 3, 4, 5, 6}), "w2")}, {}, "mm2")->output(0);
  Output y2 = Op("Mul", {mm2, Const(Floats({}, {-0.5f}), "half")}, {}, "y2")->output(0);
  Output z = Op("AddV2", {Op("Neg", {y}, {}, "ny")->output(0), Op("Neg", {y2}, {}, "ny2")->output(0)}, {},
                "z")->output(0);
  const auto types = RunBothWays("arithmetic_optimization", {{x, Floats({2, 3}, {1, 2, 3, -1, -2, -3})}},
                                 {z, y});
  // `y` is fetched: its Sub stays, the Mul before it goes; mm2's Mul goes too.
  EXPECT_EQ(types.count("Mul"), 0u);
  EXPECT_EQ(types.count("Sub"), 1u);
  EXPECT_EQ(types.count("MatMul"), 2u);
}

// Left alone: a scale per row rather than per channel, a fetched BiasAdd, a filter that is
// not a constant, an NCHW BiasAdd, a biased value with a second reader, a scale that is
// computed, an offset that broadcasts the value to a higher rank.
TEST_F(RewriteTest, ScaleFoldingNeedsConstantsPerChannelAndSoleReaders) {
  Output x = Placeholder(PartialShape({2, 3}), "x");
  Output w = Const(Floats({3, 2}, {1, -2, 3, -4, 5, -6}), "w");
  Output bias = Const(Floats({2}, {0.5f, -0.5f}), "bias");
  auto dense = [&](const std::string& s, Output weights, AttrMap bias_attrs = {}) {
    Output mm = Op("MatMul", {x, weights}, {}, "mm" + s)->output(0);
    return Op("BiasAdd", {mm, bias}, std::move(bias_attrs), "ba" + s)->output(0);
  };
  Output per_row = Op("Mul", {dense("1", w), Const(Floats({2, 1}, {2, 4}), "rows")}, {}, "per_row")->output(0);
  Output ba2 = dense("2", w);
  Output fetched_bias = Op("Mul", {ba2, Const(Floats({2}, {2, 4}), "s2")}, {}, "fetched_bias")->output(0);
  Output w3 = Placeholder(PartialShape({3, 2}), "w3");
  Output not_const = Op("Mul", {dense("3", w3), Const(Floats({2}, {2, 4}), "s3")}, {}, "not_const")->output(0);
  Output ba4 = dense("4", w);
  Output shared = Op("Mul", {ba4, Const(Floats({2}, {2, 4}), "s4")}, {}, "shared")->output(0);
  Output other = Op("Neg", {ba4}, {}, "other")->output(0);
  Output s5 = Placeholder(PartialShape({2}), "s5");
  Output computed = Op("Mul", {dense("5", w), Op("Abs", {s5}, {}, "abs")->output(0)}, {}, "computed")->output(0);
  Output widened = Op("AddV2", {dense("6", w), Const(Floats({1, 1, 2}, {1, 2}), "c6")}, {}, "widened")->output(0);
  EXPECT_EQ(Rewrite("arithmetic_optimization", {x, w3, s5},
                    {per_row, fetched_bias, ba2, not_const, shared, other, computed, widened}),
            nullptr);
}

// ---- dependency optimization ----

// TF's gradient tuple: group_deps waits for both gradients of a MatMul, each handed on through
// an Identity waiting for group_deps. Only the weight's gradient is needed; the input's is
// reached only through group_deps.
TEST_F(RewriteTest, DependencyOptimizationDropsWorkOnlyNoOpsWaitFor) {
  Output x = Placeholder(PartialShape({4, 3}), "x");
  Output w = Const(Floats({3, 2}, {1, 2, 3, 4, 5, 6}), "w");
  Output dy = Placeholder(PartialShape({4, 2}), "dy");
  Operation* dx = Op("MatMul", {dy, w}, {{"transpose_b", AttrOfBool(true)}}, "dx");
  Operation* dw = Op("MatMul", {x, dy}, {{"transpose_a", AttrOfBool(true)}}, "dw");
  Operation* group = Op("NoOp", {}, {}, "group_deps", {dx, dw});
  // Colocated with the gradient, as tf.tuple makes it.
  Output dw_out = Op("Identity", {dw->output(0)}, {{"_class", AttrOfStringList({"loc:@dw"})}},
                     "control_dependency_1", {group})->output(0);
  Output update = Op("Neg", {dw_out}, {}, "update")->output(0);
  const Tensor xv = Floats({4, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  const Tensor dyv = Floats({4, 2}, {1, -1, 2, -2, 3, -3, 4, -4});
  const auto types = RunBothWays("dependency_optimization", {{x, xv}, {dy, dyv}}, {update});
  EXPECT_EQ(types.count("MatMul"), 1u);
  auto f = Rewrite("dependency_optimization", {x, dy}, {update});
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(Find(*f, "dx"), -1);
  EXPECT_GE(Find(*f, "group_deps"), 0);  // NoOps go with identity_removal
  // All together: no NoOp, no Identity, one MatMul.
  const auto all = RunBothWays("all", {{x, xv}, {dy, dyv}}, {update});
  EXPECT_EQ(all, (std::multiset<std::string>{"MatMul", "Neg"}));
}

TEST_F(RewriteTest, DependencyOptimizationKeepsStatefulWorkAndTargetedNoOps) {
  Output x = Placeholder(PartialShape({2}), "x");
  Variable* v = Var("v");
  Operation* assign = Op("Assign", {v->ref(), x}, {}, "assign");
  Operation* stateless = Op("Neg", {x}, {}, "stateless");
  Operation* group = Op("NoOp", {}, {}, "group", {assign, stateless});
  Output y = Op("Identity", {x}, {}, "y", {group})->output(0);
  auto f = Rewrite("dependency_optimization", {x}, {y});
  ASSERT_NE(f, nullptr);
  EXPECT_GE(Find(*f, "assign"), 0);
  EXPECT_EQ(Find(*f, "stateless"), -1);
  // The NoOp as the target: what it waits for is what the run asks for.
  auto targeted = Rewrite("dependency_optimization", {x}, {}, {group});
  EXPECT_EQ(targeted, nullptr);
}

// ---- fusion ----

TEST_F(RewriteTest, MatMulBiasAddReluBecomesFusedMatMul) {
  Output x = Placeholder(PartialShape({2, 3}), "x");
  Output w = Const(Floats({3, 2}, {1, -2, 3, -4, 5, -6}), "w");
  Output bias = Const(Floats({2}, {0.5f, -0.5f}), "bias");
  Output mm = Op("MatMul", {x, w}, {}, "mm")->output(0);
  Output ba = Op("BiasAdd", {mm, bias}, {}, "ba")->output(0);
  Output relu = Op("Relu", {ba}, {}, "relu")->output(0);
  Output y = Op("Neg", {relu}, {}, "y")->output(0);
  const auto types = RunBothWays("remapping", {{x, Floats({2, 3}, {1, 2, 3, -1, -2, -3})}}, {y});
  EXPECT_EQ(types.count("_FusedMatMul"), 1u);
  EXPECT_EQ(types.count("MatMul") + types.count("BiasAdd") + types.count("Relu"), 0u);
  auto f = Rewrite("remapping", {x}, {y});
  ASSERT_NE(f, nullptr);
  const int fused = Find(*f, "relu");
  ASSERT_GE(fused, 0);
  const Operation& op = *f->ordered[static_cast<size_t>(fused)];
  EXPECT_EQ(op.type(), "_FusedMatMul");
  ASSERT_NE(op.FindAttr("fused_ops"), nullptr);
  EXPECT_EQ(op.FindAttr("fused_ops")->list().s_size(), 2);
  EXPECT_EQ(op.FindAttr("fused_ops")->list().s(1), "Relu");
  EXPECT_EQ(op.FindAttr("num_args")->i(), 1);
  EXPECT_NE(op.graph(), &g_);  // made in the plan's scratch graph, not the user's
  EXPECT_EQ(g_.FindOperation("relu")->type(), "Relu");
}

// The other activations TensorFlow's remapper fuses (Relu6, LeakyRelu with its slope; Elu
// too, whose expm1 may differ in the last bit from the Elu kernel's, so not compared here).
TEST_F(RewriteTest, OtherActivationsFuseToo) {
  Output x = Placeholder(PartialShape({2, 3}), "x");
  Output w = Const(Floats({3, 2}, {1, -2, 3, -4, 5, -6}), "w");
  Output bias = Const(Floats({2}, {0.5f, -0.5f}), "bias");
  std::vector<Output> ys;
  for (const char* activation : {"Relu6", "LeakyRelu"}) {
    const std::string name = activation;
    Output mm = Op("MatMul", {x, w}, {}, name + "_mm")->output(0);
    Output ba = Op("BiasAdd", {mm, bias}, {}, name + "_ba")->output(0);
    AttrMap attrs;
    if (name == "LeakyRelu") attrs["alpha"].set_f(0.3f);
    Output act = Op(activation, {ba}, attrs, name)->output(0);
    ys.push_back(Op("Neg", {act}, {}, name + "_y")->output(0));
  }
  const auto types = RunBothWays("remapping", {{x, Floats({2, 3}, {1, 2, 3, -1, -2, -3})}}, ys);
  EXPECT_EQ(types.count("_FusedMatMul"), 2u);
  EXPECT_EQ(types.count("Relu6") + types.count("LeakyRelu") + types.count("BiasAdd"), 0u);
  auto f = Rewrite("remapping", {x}, ys);
  ASSERT_NE(f, nullptr);
  for (const char* activation : {"Relu6", "LeakyRelu"}) {
    const Operation& op = *f->ordered[static_cast<size_t>(Find(*f, activation))];
    EXPECT_EQ(op.type(), "_FusedMatMul");
    EXPECT_EQ(op.FindAttr("fused_ops")->list().s(1), activation);
  }
  const Operation& leaky = *f->ordered[static_cast<size_t>(Find(*f, "LeakyRelu"))];
  ASSERT_NE(leaky.FindAttr("leakyrelu_alpha"), nullptr);
  EXPECT_FLOAT_EQ(leaky.FindAttr("leakyrelu_alpha")->f(), 0.3f);
}

// Swish, y * Sigmoid(y) in either order (EfficientNet's activation, as Keras writes it),
// after a contraction's bias: fused as TF's oneDNN build names it, "_MklSwish"; the fused
// kernel computes y / (1 + exp(-y)), a few ulps from the two kernels' result. A Sigmoid with
// another reader, or a Mul of something else, is left alone.
TEST_F(RewriteTest, SwishAfterABiasFuses) {
  Output x = Placeholder(PartialShape({1, 4, 4, 2}), "x");
  Output m = Placeholder(PartialShape({2, 3}), "m");
  Output conv = Op("BiasAdd", {SmallConv(x, "conv"), Const(Floats({3}, {0.5f, -1, 2}), "b")}, {}, "ba")->output(0);
  Output swish = Op("Mul", {Op("Sigmoid", {conv}, {}, "sig")->output(0), conv}, {}, "swish")->output(0);
  Output y1 = Op("Neg", {swish}, {}, "y1")->output(0);
  Output mm = Op("BiasAdd", {Op("MatMul", {m, Const(Floats({3, 2}, {1, -2, 3, -4, 5, -6}), "w")}, {}, "mm")->output(0),
                             Const(Floats({2}, {0.25f, -0.5f}), "b2")}, {}, "ba2")->output(0);
  Output swish2 = Op("Mul", {mm, Op("Sigmoid", {mm}, {}, "sig2")->output(0)}, {}, "swish2")->output(0);
  Output y2 = Op("Neg", {swish2}, {}, "y2")->output(0);
  Output mm3 = Op("BiasAdd", {Op("MatMul", {m, Const(Floats({3, 2}, {2, 1, 0, -1, 3, 1}), "w3")}, {}, "mm3")->output(0),
                              Const(Floats({2}, {1, 2}), "b3")}, {}, "ba3")->output(0);
  Output sig3 = Op("Sigmoid", {mm3}, {}, "sig3")->output(0);
  Output y3 = Op("Neg", {Op("Mul", {mm3, sig3}, {}, "swish3")->output(0)}, {}, "y3")->output(0);
  Output y4 = Op("Neg", {sig3}, {}, "y4")->output(0);  // the Sigmoid's second reader
  std::vector<float> xv(32);
  for (size_t i = 0; i < xv.size(); ++i) xv[i] = static_cast<float>(i) * 0.25f - 4;
  const std::vector<std::pair<Output, Tensor>> feeds = {{x, Floats({1, 4, 4, 2}, xv)},
                                                        {m, Floats({2, 3}, {1, 2, 3, -1, -2, -3})}};
  const auto types = RunBothWays("remapping", feeds, {y1, y2, y3, y4}, {}, nullptr, 1e-6f);
  EXPECT_EQ(types.count("_FusedConv2D"), 1u);
  EXPECT_EQ(types.count("_FusedMatMul"), 2u);
  EXPECT_EQ(types.count("Sigmoid"), 1u);  // sig3 stays
  EXPECT_EQ(types.count("Mul"), 1u);
  auto f = Rewrite("remapping", {x, m}, {y1, y2, y3, y4});
  ASSERT_NE(f, nullptr);
  for (const char* name : {"swish", "swish2"}) {
    const int i = Find(*f, name);
    ASSERT_GE(i, 0) << name;
    const Operation& op = *f->ordered[static_cast<size_t>(i)];
    ASSERT_NE(op.FindAttr("fused_ops"), nullptr) << name;
    EXPECT_EQ(op.FindAttr("fused_ops")->list().s(1), "_MklSwish") << name;
  }
  EXPECT_EQ(Find(*f, "sig"), -1);
  EXPECT_EQ(f->ordered[static_cast<size_t>(Find(*f, "ba3"))]->type(), "_FusedMatMul");  // bias only
}

// GELU as tf.nn.gelu writes it, 0.5 * y * Erfc(Neg(y) * 0.70710677) (ConvNeXt's and
// Transformers' activation), after a contraction's bias: fused as "GeluExact", the constants
// on either side of their Muls. With another constant (0.7) it stays.
TEST_F(RewriteTest, GeluAfterABiasFuses) {
  Output x = Placeholder(PartialShape({1, 4, 4, 2}), "x");
  Output m = Placeholder(PartialShape({2, 3}), "m");
  auto gelu = [&](Output y, const std::string& s, float c, bool swap) {
    Output half = Const(Floats({}, {0.5f}), "half" + s), k = Const(Floats({}, {c}), "k" + s);
    Output h = Op("Mul", swap ? std::vector<Output>{y, half} : std::vector<Output>{half, y}, {}, "h" + s)->output(0);
    Output neg = Op("Neg", {y}, {}, "neg" + s)->output(0);
    Output scaled =
        Op("Mul", swap ? std::vector<Output>{k, neg} : std::vector<Output>{neg, k}, {}, "scaled" + s)->output(0);
    Output erfc = Op("Erfc", {scaled}, {}, "erfc" + s)->output(0);
    return Op("Mul", swap ? std::vector<Output>{erfc, h} : std::vector<Output>{h, erfc}, {}, "gelu" + s)->output(0);
  };
  Output conv = Op("BiasAdd", {SmallConv(x, "conv"), Const(Floats({3}, {0.5f, -1, 2}), "b")}, {}, "ba")->output(0);
  Output y1 = Op("Neg", {gelu(conv, "1", 0.70710677f, false)}, {}, "y1")->output(0);
  Output mm = Op("BiasAdd", {Op("MatMul", {m, Const(Floats({3, 2}, {1, -2, 3, -4, 5, -6}), "w")}, {}, "mm")->output(0),
                             Const(Floats({2}, {0.25f, -0.5f}), "b2")}, {}, "ba2")->output(0);
  Output y2 = Op("Neg", {gelu(mm, "2", 0.70710677f, true)}, {}, "y2")->output(0);
  Output mm3 = Op("BiasAdd", {Op("MatMul", {m, Const(Floats({3, 2}, {2, 1, 0, -1, 3, 1}), "w3")}, {}, "mm3")->output(0),
                              Const(Floats({2}, {1, 2}), "b3")}, {}, "ba3")->output(0);
  Output y3 = Op("Neg", {gelu(mm3, "3", 0.7f, false)}, {}, "y3")->output(0);
  std::vector<float> xv(32);
  for (size_t i = 0; i < xv.size(); ++i) xv[i] = static_cast<float>(i) * 0.25f - 4;
  const std::vector<std::pair<Output, Tensor>> feeds = {{x, Floats({1, 4, 4, 2}, xv)},
                                                        {m, Floats({2, 3}, {1, 2, 3, -1, -2, -3})}};
  const auto types = RunBothWays("remapping", feeds, {y1, y2, y3}, {}, nullptr, 1e-6f);
  EXPECT_EQ(types.count("_FusedConv2D"), 1u);
  EXPECT_EQ(types.count("_FusedMatMul"), 2u);
  EXPECT_EQ(types.count("Erfc"), 1u);  // the third's, with 0.7
  auto f = Rewrite("remapping", {x, m}, {y1, y2, y3});
  ASSERT_NE(f, nullptr);
  for (const char* name : {"gelu1", "gelu2"}) {
    const int i = Find(*f, name);
    ASSERT_GE(i, 0) << name;
    const Operation& op = *f->ordered[static_cast<size_t>(i)];
    ASSERT_NE(op.FindAttr("fused_ops"), nullptr) << name;
    EXPECT_EQ(op.FindAttr("fused_ops")->list().s(1), "GeluExact") << name;
  }
  for (const char* gone : {"neg1", "scaled1", "erfc1", "h1", "neg2", "erfc2"}) EXPECT_EQ(Find(*f, gone), -1) << gone;
  EXPECT_EQ(f->ordered[static_cast<size_t>(Find(*f, "ba3"))]->type(), "_FusedMatMul");  // bias only
}

// A Dense layer over a rank-3 tensor (Tensordot: Reshape -> MatMul -> Reshape back ->
// BiasAdd -> activation) fuses: the Reshape after the product keeps its last dim, so the
// bias lines up; the fused product is reshaped back under the last op's name. A Reshape that
// changes the last dim stays unfused.
TEST_F(RewriteTest, DenseOverRankThreeFusesThroughItsReshape) {
  Output x = Placeholder(PartialShape({2, 3, 4}), "x");
  std::vector<float> wv(20);
  for (size_t i = 0; i < wv.size(); ++i) wv[i] = static_cast<float>(i % 5) - 2;
  Output flat = Op("Reshape", {x, Const(Ints({2}, {6, 4}), "flat_shape")}, {}, "flat")->output(0);
  Output mm = Op("MatMul", {flat, Const(Floats({4, 5}, wv), "w")}, {}, "mm")->output(0);
  Output back = Op("Reshape", {mm, Const(Ints({3}, {2, 3, 5}), "back_shape")}, {}, "back")->output(0);
  Output ba = Op("BiasAdd", {back, Const(Floats({5}, {1, -1, 0.5f, 2, -2}), "b")}, {}, "ba")->output(0);
  Output relu = Op("Relu", {ba}, {}, "relu")->output(0);
  Output y1 = Op("Neg", {relu}, {}, "y1")->output(0);
  Output mm2 = Op("MatMul", {flat, Const(Floats({4, 5}, wv), "w2")}, {}, "mm2")->output(0);
  Output other = Op("Reshape", {mm2, Const(Ints({2}, {3, 10}), "other_shape")}, {}, "other")->output(0);
  Output y2 = Op("Neg", {Op("BiasAdd", {other, Const(Floats({10}, std::vector<float>(10, 1)), "b2")}, {}, "ba2")->output(0)},
                 {}, "y2")->output(0);
  std::vector<float> xv(24);
  for (size_t i = 0; i < xv.size(); ++i) xv[i] = static_cast<float>(i) * 0.5f - 6;
  const auto types = RunBothWays("remapping", {{x, Floats({2, 3, 4}, xv)}}, {y1, y2});
  EXPECT_EQ(types.count("_FusedMatMul"), 1u);
  EXPECT_EQ(types.count("MatMul"), 1u);  // mm2
  EXPECT_EQ(types.count("Relu"), 0u);
  auto f = Rewrite("remapping", {x}, {y1, y2});
  ASSERT_NE(f, nullptr);
  const int r = Find(*f, "relu");
  ASSERT_GE(r, 0);
  const Operation& reshaped = *f->ordered[static_cast<size_t>(r)];
  EXPECT_EQ(reshaped.type(), "Reshape");
  EXPECT_EQ(reshaped.output_shape(0), PartialShape({2, 3, 5}));
  const int fused = Find(*f, "relu/fused_matmul");
  ASSERT_GE(fused, 0);
  EXPECT_LT(fused, r);
  EXPECT_EQ(f->ordered[static_cast<size_t>(fused)]->type(), "_FusedMatMul");
  EXPECT_EQ(f->ordered[static_cast<size_t>(fused)]->FindAttr("fused_ops")->list().s(1), "Relu");
  for (const char* gone : {"mm", "back", "ba"}) EXPECT_EQ(Find(*f, gone), -1) << gone;
  EXPECT_EQ(f->ordered[static_cast<size_t>(Find(*f, "ba2"))]->type(), "BiasAdd");
}

TEST_F(RewriteTest, Conv2DBiasAddBecomesFusedConv2D) {
  Output x = Placeholder(PartialShape({1, 4, 4, 2}), "x");
  Output conv = SmallConv(x, "conv");
  Output ba = Op("BiasAdd", {conv, Const(Floats({3}, {1, 2, 3}), "bias")}, {}, "ba")->output(0);
  Output y = Op("Abs", {ba}, {}, "y")->output(0);
  std::vector<float> xv(32);
  for (size_t i = 0; i < xv.size(); ++i) xv[i] = static_cast<float>(i) * 0.25f - 4;
  const auto types = RunBothWays("remapping", {{x, Floats({1, 4, 4, 2}, xv)}}, {y});
  EXPECT_EQ(types.count("_FusedConv2D"), 1u);
  EXPECT_EQ(types.count("Conv2D"), 0u);
}

// No bias at all: a Conv2D read by a Relu6 alone (a batch normalization whose zero offsets
// were folded away) and a MatMul read by a Relu fuse with a bias of zeros; an Elu (its -0
// would become +0) and a product with a second reader stay.
TEST_F(RewriteTest, ActivationsWithoutABiasFuseWithZeros) {
  Output x = Placeholder(PartialShape({1, 4, 4, 2}), "x");
  Output relu6 = Op("Relu6", {SmallConv(x, "conv")}, {}, "relu6")->output(0);
  Output elu = Op("Elu", {SmallConv(x, "conv2")}, {}, "elu")->output(0);
  Output m = Placeholder(PartialShape({2, 3}), "m");
  Output mm = Op("MatMul", {m, Const(Floats({3, 2}, {1, -2, 3, -4, 5, -6}), "w")}, {}, "mm")->output(0);
  Output relu = Op("Relu", {mm}, {}, "relu")->output(0);
  Output conv3 = SmallConv(x, "conv3");
  Output shared = Op("Relu", {conv3}, {}, "shared")->output(0);
  const std::vector<Output> fetches = {
      Op("Neg", {relu6}, {}, "n1")->output(0), Op("Neg", {elu}, {}, "n2")->output(0),
      Op("Neg", {shared}, {}, "n3")->output(0), Op("Abs", {conv3}, {}, "n4")->output(0),
      Op("Neg", {relu}, {}, "n5")->output(0)};
  std::vector<float> xv(32);
  for (size_t i = 0; i < xv.size(); ++i) xv[i] = static_cast<float>(i) * 0.25f - 4;
  const auto types = RunBothWays(
      "remapping", {{x, Floats({1, 4, 4, 2}, xv)}, {m, Floats({2, 3}, {1, 2, 3, -1, -2, -3})}}, fetches);
  EXPECT_EQ(types.count("_FusedConv2D"), 1u);
  EXPECT_EQ(types.count("_FusedMatMul"), 1u);
  EXPECT_EQ(types.count("Relu6") + types.count("MatMul"), 0u);
  EXPECT_EQ(types.count("Elu"), 1u);
  EXPECT_EQ(types.count("Conv2D"), 2u);  // under the Elu, and the one read twice
}

// A ResNet block's end: Conv2D -> BiasAdd -> AddV2 with the shortcut (a tensor of the
// convolution's shape, computed here so that its buffer may be summed into) -> Relu becomes
// one _FusedConv2D ["BiasAdd", "Add", "Relu"] reading the shortcut as its second arg; an Add
// of a broadcast operand, or of a fetched sum, stays.
TEST_F(RewriteTest, ResidualAddAfterAConvolutionFusesIntoIt) {
  Output x = Placeholder(PartialShape({2, 4, 4, 2}), "x");
  Output shortcut_in = Placeholder(PartialShape({2, 4, 4, 3}), "shortcut_in");
  Output conv = SmallConv(x, "conv");
  Output ba = Op("BiasAdd", {conv, Const(Floats({3}, {1, -2, 3}), "bias")}, {}, "ba")->output(0);
  Output shortcut = Op("Neg", {shortcut_in}, {}, "shortcut")->output(0);
  Output sum = Op("AddV2", {shortcut, ba}, {}, "sum")->output(0);
  Output relu = Op("Relu", {sum}, {}, "relu")->output(0);
  Output y = Op("Neg", {relu}, {}, "y")->output(0);
  std::vector<float> xv(64), sv(96);
  for (size_t i = 0; i < xv.size(); ++i) xv[i] = static_cast<float>(i % 11) * 0.25f - 1.5f;
  for (size_t i = 0; i < sv.size(); ++i) sv[i] = static_cast<float>(i % 13) - 6;
  const std::vector<std::pair<Output, Tensor>> feeds = {{x, Floats({2, 4, 4, 2}, xv)},
                                                        {shortcut_in, Floats({2, 4, 4, 3}, sv)}};
  const auto types = RunBothWays("remapping", feeds, {y});
  EXPECT_EQ(types.count("_FusedConv2D"), 1u);
  EXPECT_EQ(types.count("AddV2") + types.count("Relu") + types.count("BiasAdd"), 0u);
  auto f1 = Rewrite("remapping", {x, shortcut_in}, {y});
  ASSERT_NE(f1, nullptr);
  const int fused = Find(*f1, "relu");
  ASSERT_GE(fused, 0);
  const Operation& op = *f1->ordered[static_cast<size_t>(fused)];
  EXPECT_EQ(op.type(), "_FusedConv2D");
  EXPECT_EQ(op.FindAttr("num_args")->i(), 2);
  ASSERT_EQ(op.FindAttr("fused_ops")->list().s_size(), 3);
  EXPECT_EQ(op.FindAttr("fused_ops")->list().s(1), "Add");
  ASSERT_EQ(f1->inputs[static_cast<size_t>(fused)].size(), 4u);
  EXPECT_EQ(f1->inputs[static_cast<size_t>(fused)][3].op->name(), "shortcut");
  // The sum fetched: Conv2D + BiasAdd fuse, the AddV2 and Relu stay.
  auto f2 = Rewrite("remapping", {x, shortcut_in}, {y, sum});
  ASSERT_NE(f2, nullptr);
  EXPECT_EQ(f2->ordered[static_cast<size_t>(Find(*f2, "ba"))]->FindAttr("num_args")->i(), 1);
  EXPECT_EQ(f2->ordered[static_cast<size_t>(Find(*f2, "sum"))]->type(), "AddV2");
  // An operand that broadcasts ([3] against [2, 4, 4, 3]) is no residual.
  Output v = Placeholder(PartialShape({3}), "v");
  Output conv2 = SmallConv(x, "conv2");
  Output ba2 = Op("BiasAdd", {conv2, Const(Floats({3}, {1, 2, 3}), "bias2")}, {}, "ba2")->output(0);
  Output y2 = Op("Neg", {Op("AddV2", {ba2, v}, {}, "sum2")->output(0)}, {}, "y2")->output(0);
  auto f3 = Rewrite("remapping", {x, v}, {y2});
  ASSERT_NE(f3, nullptr);
  EXPECT_EQ(f3->ordered[static_cast<size_t>(Find(*f3, "ba2"))]->FindAttr("num_args")->i(), 1);
  EXPECT_EQ(f3->ordered[static_cast<size_t>(Find(*f3, "sum2"))]->type(), "AddV2");
}

// Keras's ZeroPadding2D before a VALID (or EXPLICIT) convolution: the Pad becomes the
// convolution's EXPLICIT padding (the sum of both), and with a bias and Relu after it one
// _FusedConv2D takes all of it.
TEST_F(RewriteTest, PadBeforeAConvolutionBecomesItsPadding) {
  Output x = Placeholder(PartialShape({1, 5, 4, 2}), "x");
  std::vector<float> filter(3 * 3 * 2 * 3);
  for (size_t i = 0; i < filter.size(); ++i) filter[i] = static_cast<float>(i % 5) - 2;
  Output f = Const(Floats({3, 3, 2, 3}, filter), "f");
  Output pads = Const(Ints({4, 2}, {0, 0, 3, 1, 0, 2, 0, 0}), "pads");
  Output padded = Op("Pad", {x, pads}, {}, "padded")->output(0);
  Output valid = Op("Conv2D", {padded, f}, {{"strides", AttrOfIntList({1, 2, 2, 1})}, {"padding", AttrOfString("VALID")}},
                    "valid")->output(0);
  Output padded2 = Op("Pad", {x, pads}, {}, "padded2")->output(0);
  Output explicit_conv = Op("Conv2D", {padded2, f},
                            {{"strides", AttrOfIntList({1, 1, 1, 1})}, {"padding", AttrOfString("EXPLICIT")},
                             {"explicit_paddings", AttrOfIntList({0, 0, 1, 0, 0, 1, 0, 0})}},
                            "explicit")->output(0);
  Output padded3 = Op("Pad", {x, pads}, {}, "padded3")->output(0);
  Output conv3 = Op("Conv2D", {padded3, f}, {{"strides", AttrOfIntList({1, 1, 1, 1})}, {"padding", AttrOfString("VALID")}},
                    "conv3")->output(0);
  Output ba = Op("BiasAdd", {conv3, Const(Floats({3}, {1, -2, 3}), "bias")}, {}, "ba")->output(0);
  Output relu = Op("Relu", {ba}, {}, "relu")->output(0);
  Output y1 = Op("Neg", {valid}, {}, "y1")->output(0);
  Output y2 = Op("Neg", {explicit_conv}, {}, "y2")->output(0);
  Output y3 = Op("Neg", {relu}, {}, "y3")->output(0);
  std::vector<float> xv(40);
  for (size_t i = 0; i < xv.size(); ++i) xv[i] = static_cast<float>(i % 9) * 0.5f - 2;
  const auto types = RunBothWays("remapping", {{x, Floats({1, 5, 4, 2}, xv)}}, {y1, y2, y3});
  EXPECT_EQ(types.count("Pad"), 0u);
  EXPECT_EQ(types.count("Conv2D"), 2u);
  EXPECT_EQ(types.count("_FusedConv2D"), 1u);
  auto rewritten = Rewrite("remapping", {x}, {y1, y2, y3});
  ASSERT_NE(rewritten, nullptr);
  const Operation& e = *rewritten->ordered[static_cast<size_t>(Find(*rewritten, "explicit"))];
  EXPECT_EQ(e.FindAttr("padding")->s(), "EXPLICIT");
  std::vector<int64_t> sum;
  for (int64_t v : e.FindAttr("explicit_paddings")->list().i()) sum.push_back(v);
  EXPECT_EQ(sum, (std::vector<int64_t>{0, 0, 4, 1, 0, 3, 0, 0}));
}

// MobileNetV2's depthwise layers: ZeroPadding2D -> a strided VALID depthwise convolution
// -> batch norm without a bias before it (Mul, AddV2 of [1, 1, 1, C]) -> Relu6; and one with
// channel multiplier 2 and a bias, scaled per output channel c * M + m. The Pad becomes the
// convolution's padding, the scale goes into the filter, the offset becomes a bias, and the
// fusion makes each layer one _FusedDepthwiseConv2dNative. (Small integers and powers of two:
// folded and unfolded products are equal exactly.)
TEST_F(RewriteTest, DepthwiseLayersFoldAndFuse) {
  Output x = Placeholder(PartialShape({1, 5, 5, 2}), "x");
  std::vector<float> f1(3 * 3 * 2), f2(3 * 3 * 2 * 2);
  for (size_t i = 0; i < f1.size(); ++i) f1[i] = static_cast<float>(i % 5) - 2;
  for (size_t i = 0; i < f2.size(); ++i) f2[i] = static_cast<float>(i % 7) - 3;
  const AttrMap strided{{"strides", AttrOfIntList({1, 2, 2, 1})}, {"padding", AttrOfString("VALID")}};
  const AttrMap same{{"strides", AttrOfIntList({1, 1, 1, 1})}, {"padding", AttrOfString("SAME")}};
  Output padded = Op("Pad", {x, Const(Ints({4, 2}, {0, 0, 0, 1, 0, 1, 0, 0}), "pads")}, {}, "padded")->output(0);
  Output dw1 = Op("DepthwiseConv2dNative", {padded, Const(Floats({3, 3, 2, 1}, f1), "f1")}, strided, "dw1")->output(0);
  Output scaled1 = Op("Mul", {dw1, Const(Floats({2}, {0.5f, 4}), "scale1")}, {}, "scaled1")->output(0);
  Output shifted1 = Op("AddV2", {scaled1, Const(Floats({1, 1, 1, 2}, {-1, 0.25f}), "offset1")}, {},
                       "shifted1")->output(0);
  Output y1 = Op("Neg", {Op("Relu6", {shifted1}, {}, "relu6")->output(0)}, {}, "y1")->output(0);
  Output dw2 = Op("DepthwiseConv2dNative", {x, Const(Floats({3, 3, 2, 2}, f2), "f2")}, same, "dw2")->output(0);
  Output ba2 = Op("BiasAdd", {dw2, Const(Floats({4}, {1, -2, 0.5f, 3}), "bias2")}, {}, "ba2")->output(0);
  Output scaled2 = Op("Mul", {Const(Floats({4}, {0.5f, 2, 4, 0.25f}), "scale2"), ba2}, {}, "scaled2")->output(0);
  Output y2 = Op("Neg", {Op("Relu", {scaled2}, {}, "relu")->output(0)}, {}, "y2")->output(0);
  std::vector<float> xv(50);
  for (size_t i = 0; i < xv.size(); ++i) xv[i] = static_cast<float>(i % 11) * 0.25f - 1;
  const std::vector<std::pair<Output, Tensor>> feeds = {{x, Floats({1, 5, 5, 2}, xv)}};
  auto types = RunBothWays("arithmetic_optimization", feeds, {y1, y2});
  EXPECT_EQ(types.count("Mul") + types.count("AddV2"), 0u);
  EXPECT_EQ(types.count("DepthwiseConv2dNative"), 2u);
  EXPECT_EQ(types.count("BiasAdd"), 2u);
  types = RunBothWays("all", feeds, {y1, y2});
  EXPECT_EQ(types.count("_FusedDepthwiseConv2dNative"), 2u);
  EXPECT_EQ(types.count("Pad") + types.count("DepthwiseConv2dNative") + types.count("BiasAdd") +
                types.count("Relu6") + types.count("Relu"),
            0u);
  auto rewritten = Rewrite("remapping", {x}, {y1, y2});
  ASSERT_NE(rewritten, nullptr);
  const int d = Find(*rewritten, "dw1");
  ASSERT_GE(d, 0);
  const Operation& dw = *rewritten->ordered[static_cast<size_t>(d)];
  EXPECT_EQ(dw.FindAttr("padding")->s(), "EXPLICIT");
  std::vector<int64_t> pads;
  for (int64_t v : dw.FindAttr("explicit_paddings")->list().i()) pads.push_back(v);
  EXPECT_EQ(pads, (std::vector<int64_t>{0, 0, 0, 1, 0, 1, 0, 0}));
  auto all = Rewrite("all", {x}, {y1, y2});
  ASSERT_NE(all, nullptr);
  for (const auto& [name, activation] : std::vector<std::pair<std::string, std::string>>{
           {"relu6", "Relu6"}, {"relu", "Relu"}}) {
    const int fused = Find(*all, name);
    ASSERT_GE(fused, 0) << name;
    const Operation& f = *all->ordered[static_cast<size_t>(fused)];
    ASSERT_EQ(f.type(), "_FusedDepthwiseConv2dNative") << name;
    std::vector<std::string> ops;
    for (const std::string& op : f.FindAttr("fused_ops")->list().s()) ops.push_back(op);
    EXPECT_EQ(ops, (std::vector<std::string>{"BiasAdd", activation}));
  }
}

// A batch normalization with no contraction before it (DenseNet's, after a concatenation):
// Mul(x, s) -> AddV2(c, _) -> Relu, s a [C] vector and c [1, 1, 1, C], becomes one
// _FusedChannelAffine, values equal exactly; so does a scalar scale with an Add and no
// activation. Left alone: a scale that is not a constant, an offset with a second reader,
// an offset that broadcasts x to a larger shape.
TEST_F(RewriteTest, ScaleAndOffsetWithNothingToFoldIntoFuse) {
  Output x = Placeholder(PartialShape({1, 3, 3, 4}), "x");
  Output x2 = Placeholder(PartialShape({1, 3, 3, 4}), "x2");
  Output x8 = Placeholder(PartialShape({1, 3, 3, 8}), "x8");
  Output joined = Op("Neg", {x8}, {}, "joined")->output(0);  // (DenseNet: a concatenation)
  Output scaled = Op("Mul", {joined, Const(Floats({8}, {0.5f, 2, -1, 3, 0.25f, 1.5f, -2, 1}), "s")}, {}, "scaled")->output(0);
  Output shifted = Op("AddV2", {Const(Floats({1, 1, 1, 8}, {1, -1, 0.5f, 2, -3, 0, 0.75f, -0.5f}), "c"), scaled}, {},
                      "shifted")->output(0);
  Output y1 = Op("Neg", {Op("Relu", {shifted}, {}, "relu")->output(0)}, {}, "y1")->output(0);
  Output y2 = Op("Neg", {Op("Add", {Op("Mul", {x, Const(Floats({}, {3}), "three")}, {}, "tripled")->output(0),
                                    Const(Floats({4}, {1, 2, 3, 4}), "c2")}, {}, "plus")->output(0)}, {}, "y2")->output(0);
  Output y3 = Op("AddV2", {Op("Mul", {x, x2}, {}, "product")->output(0), Const(Floats({4}, {1, 2, 3, 4}), "c3")}, {},
                 "y3")->output(0);  // no constant scale
  Output twice = Op("AddV2", {Op("Mul", {x2, Const(Floats({4}, {1, 2, 3, 4}), "s4")}, {}, "scaled4")->output(0),
                              Const(Floats({4}, {1, 1, 1, 1}), "c4")}, {}, "shifted4")->output(0);
  Output y4 = Op("Sub", {twice, Op("Neg", {twice}, {}, "neg4")->output(0)}, {}, "y4")->output(0);  // two readers
  Output y5 = Op("Neg", {Op("AddV2", {Op("Mul", {x, Const(Floats({4}, {1, 2, 3, 4}), "s5")}, {}, "scaled5")->output(0),
                                      Const(Floats({2, 1, 1, 4}, std::vector<float>(8, 1)), "c5")}, {}, "grown")->output(0)},
                 {}, "y5")->output(0);  // the offset makes a batch of 2
  std::vector<float> xv(36), x2v(36), x8v(72);
  for (size_t i = 0; i < xv.size(); ++i) {
    xv[i] = static_cast<float>(i % 9) * 0.75f - 3;
    x2v[i] = 2 - static_cast<float>(i % 5) * 0.5f;
  }
  for (size_t i = 0; i < x8v.size(); ++i) x8v[i] = static_cast<float>(i % 13) * 0.3f - 2;
  const std::vector<std::pair<Output, Tensor>> feeds = {
      {x, Floats({1, 3, 3, 4}, xv)}, {x2, Floats({1, 3, 3, 4}, x2v)}, {x8, Floats({1, 3, 3, 8}, x8v)}};
  const auto types = RunBothWays("remapping", feeds, {y1, y2, y3, y4, y5});
  EXPECT_EQ(types.count("_FusedChannelAffine"), 3u);  // y1's, y2's and twice's
  EXPECT_EQ(types.count("Relu"), 0u);
  EXPECT_EQ(types.count("Mul"), 2u);  // product, scaled5
  auto f = Rewrite("remapping", {x, x2, x8}, {y1, y2, y3, y4, y5});
  ASSERT_NE(f, nullptr);
  const int relu = Find(*f, "relu");
  ASSERT_GE(relu, 0);
  const Operation& fused = *f->ordered[static_cast<size_t>(relu)];
  EXPECT_EQ(fused.type(), "_FusedChannelAffine");
  EXPECT_EQ(fused.FindAttr("activation")->s(), "Relu");
  EXPECT_EQ(f->inputs[static_cast<size_t>(relu)][0].op->name(), "joined");
  EXPECT_EQ(f->ordered[static_cast<size_t>(Find(*f, "plus"))]->FindAttr("activation")->s(), "None");
  EXPECT_EQ(f->ordered[static_cast<size_t>(Find(*f, "shifted4"))]->type(), "_FusedChannelAffine");
  EXPECT_EQ(f->ordered[static_cast<size_t>(Find(*f, "grown"))]->type(), "AddV2");
}

// Left alone: a Pad of the channels, a PadV2 (its own fill value), a padded value with a
// second reader, a SAME convolution (its padding depends on the padded size), a fetched Pad.
TEST_F(RewriteTest, PadFoldingNeedsZerosOfHeightAndWidthForOneValidConvolution) {
  Output x = Placeholder(PartialShape({1, 5, 4, 2}), "x");
  Output f = Const(Floats({1, 1, 2, 1}, {1, 2}), "f");
  const AttrMap valid = {{"strides", AttrOfIntList({1, 1, 1, 1})}, {"padding", AttrOfString("VALID")}};
  const AttrMap same = {{"strides", AttrOfIntList({1, 1, 1, 1})}, {"padding", AttrOfString("SAME")}};
  Output channels = Op("Pad", {x, Const(Ints({4, 2}, {0, 0, 1, 1, 0, 0, 0, 1}), "p1")}, {}, "channels")->output(0);
  Output c1 = Op("Conv2D", {channels, Const(Floats({1, 1, 3, 1}, {1, 2, 3}), "f3")}, valid, "c1")->output(0);
  const Output hw = Const(Ints({4, 2}, {0, 0, 1, 1, 1, 1, 0, 0}), "hw");
  Output v2 = Op("PadV2", {x, hw, Const(Floats({}, {0}), "zero")}, {}, "v2")->output(0);
  Output c2 = Op("Conv2D", {v2, f}, valid, "c2")->output(0);
  Output shared = Op("Pad", {x, hw}, {}, "shared")->output(0);
  Output c3 = Op("Conv2D", {shared, f}, valid, "c3")->output(0);
  Output other = Op("Neg", {shared}, {}, "other")->output(0);
  Output c4 = Op("Conv2D", {Op("Pad", {x, hw}, {}, "p4")->output(0), f}, same, "c4")->output(0);
  Output fetched = Op("Pad", {x, hw}, {}, "fetched")->output(0);
  Output c5 = Op("Conv2D", {fetched, f}, valid, "c5")->output(0);
  EXPECT_EQ(Rewrite("remapping", {x}, {c1, c2, c3, other, c4, c5, fetched}), nullptr);
}

// The backward pass of Relu -> MaxPool: MaxPoolGrad -> ReluGrad (features: the Relu's
// output, which MaxPool pooled) -> BiasAddGrad becomes one _FusedMaxPoolGrad whose second
// output the BiasAddGrad's reader reads; with features of their own (a second input) too.
// Values are multiples of 1/4, so the bias sums are exact in any order.
TEST_F(RewriteTest, MaxPoolGradReluGradBiasAddGradBecomeFusedMaxPoolGrad) {
  Output z = Placeholder(PartialShape({2, 4, 5, 3}), "z");
  Output dp = Placeholder(PartialShape({2, 2, 3, 3}), "dp");
  const AttrMap pool_attrs{{"ksize", AttrOfIntList({1, 2, 2, 1})},
                           {"strides", AttrOfIntList({1, 2, 2, 1})},
                           {"padding", AttrOfString("SAME")}};
  Output h = Op("Relu", {z}, {}, "h")->output(0);
  Output p = Op("MaxPool", {h}, pool_attrs, "p")->output(0);
  std::vector<Output> fetches;
  for (bool separate : {false, true}) {
    const std::string s = separate ? "_separate" : "";
    Output dh = Op("MaxPoolGrad", {h, p, dp}, pool_attrs, "dh" + s)->output(0);
    Output dz = Op("ReluGrad", {dh, separate ? z : h}, {}, "dz" + s)->output(0);
    Output db = Op("BiasAddGrad", {dz}, {}, "db" + s)->output(0);
    fetches.push_back(Op("Neg", {dz}, {}, "ndz" + s)->output(0));
    fetches.push_back(Op("Neg", {db}, {}, "ndb" + s)->output(0));
  }
  std::vector<float> zv(2 * 4 * 5 * 3), dpv(2 * 2 * 3 * 3);
  for (size_t i = 0; i < zv.size(); ++i) zv[i] = static_cast<float>((i * 7) % 13) * 0.25f - 1.5f;
  for (size_t i = 0; i < dpv.size(); ++i) dpv[i] = static_cast<float>((i * 5) % 9) * 0.25f - 1;
  const auto types = RunBothWays("remapping", {{z, Floats({2, 4, 5, 3}, zv)}, {dp, Floats({2, 2, 3, 3}, dpv)}},
                                 fetches);
  EXPECT_EQ(types.count("_FusedMaxPoolGrad"), 2u);
  EXPECT_EQ(types.count("MaxPoolGrad") + types.count("ReluGrad") + types.count("BiasAddGrad"), 0u);
  auto f = Rewrite("remapping", {z, dp}, fetches);
  ASSERT_NE(f, nullptr);
  for (bool separate : {false, true}) {
    const std::string s = separate ? "_separate" : "";
    const int fused = Find(*f, "dz" + s);
    ASSERT_GE(fused, 0);
    const Operation& op = *f->ordered[static_cast<size_t>(fused)];
    EXPECT_EQ(op.type(), "_FusedMaxPoolGrad");
    EXPECT_EQ(op.FindAttr("num_features")->i(), separate ? 1 : 0);
    EXPECT_EQ(f->inputs[static_cast<size_t>(fused)].size(), separate ? 4u : 3u);
    EXPECT_EQ(Find(*f, "dh" + s), -1);
    EXPECT_EQ(Find(*f, "db" + s), -1);
    const int neg = Find(*f, "ndb" + s);
    ASSERT_GE(neg, 0);
    const Output& read = f->inputs[static_cast<size_t>(neg)][0];
    EXPECT_EQ(read.op, &op);
    EXPECT_EQ(read.index, 1);
  }
}

TEST_F(RewriteTest, MaxPoolGradFusionKeepsFetchedMembers) {
  const PoolLayer l = PoolLayerWithGradient({1, 4, 4, 2}, 2, 2, 2, 2, "VALID", "");
  const Output &z = l.z, &dp = l.dp, &p = l.p, &dh = l.dh, &dz = l.dz, &db = l.db;
  // The routed gradient or the masked one fetched: nothing fuses.
  EXPECT_EQ(Rewrite("remapping", {z, dp}, {db, dh}), nullptr);
  EXPECT_EQ(Rewrite("remapping", {z, dp}, {db, dz}), nullptr);
  // The bias gradient fetched: the two fuse, and the BiasAddGrad stays, reading output 0.
  // (The pool's output fetched too keeps the MaxPool and this gradient as they are:
  // UseMaxPoolIndices, tested below, would take them over otherwise.)
  auto f = Rewrite("remapping", {z, dp}, {db, p});
  ASSERT_NE(f, nullptr);
  const int fused = Find(*f, "dz");
  ASSERT_GE(fused, 0);
  EXPECT_EQ(f->ordered[static_cast<size_t>(fused)]->type(), "_FusedMaxPoolGrad");
  const int bias = Find(*f, "db");
  ASSERT_GE(bias, 0);
  EXPECT_EQ(f->ordered[static_cast<size_t>(bias)]->type(), "BiasAddGrad");
  EXPECT_EQ(f->inputs[static_cast<size_t>(bias)][0].index, 0);
}

// The op types of a rewritten fragment.
std::multiset<std::string> Types(const RewrittenFragment& f) {
  std::multiset<std::string> types;
  for (const Operation* op : f.ordered) types.insert(op->type());
  return types;
}

// Values with ties, zeros, NaN and -inf: what the winners' codes must get right.
std::vector<float> PoolInput(size_t n) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) {
    const size_t r = (i * 7 + i / 5) % 17;
    v[i] = r == 3 ? std::nanf("") : r == 5 ? -INFINITY : static_cast<float>(r % 6) * 0.5f - 1;
  }
  return v;
}

// A MaxPool whose input and output feed its gradient (MaxPoolGrad -> ReluGrad ->
// BiasAddGrad, fused first into _FusedMaxPoolGrad) and whose output feeds the next layer:
// the pool becomes _MaxPoolWithIndex and the gradient _FusedMaxPoolGradWithIndex (reading the
// input's Shape), with results equal to the unfused ops'; over odd sizes, SAME and VALID,
// strides other than the window (gaps, overlaps), channel counts around the vector widths,
// and pool inputs that are a Relu's (no negatives) or not.
TEST_F(RewriteTest, MaxPoolAndItsGradientUseTheWinnersIndices) {
  struct Case {
    std::vector<int64_t> input;
    int64_t kh, kw, sh, sw;
    std::string padding;
  };
  const std::vector<Case> cases = {
      {{4, 28, 28, 32}, 2, 2, 2, 2, "SAME"}, {{2, 7, 9, 3}, 2, 2, 2, 2, "SAME"},
      {{2, 7, 9, 17}, 2, 2, 2, 2, "VALID"},  {{1, 9, 10, 16}, 2, 3, 3, 4, "SAME"},
      {{2, 7, 7, 15}, 3, 3, 2, 2, "VALID"},  {{1, 6, 5, 33}, 3, 3, 1, 1, "SAME"}};
  int n = 0;
  for (const Case& c : cases) {
    for (const char* producer : {"Relu", "Neg"}) {
      std::string s(1, '_');
      s.append(std::to_string(n++));
      SCOPED_TRACE(PartialShape(c.input).ToString() + " " + c.padding + " " + producer);
      const PoolLayer l =
          PoolLayerWithGradient(c.input, c.kh, c.kw, c.sh, c.sw, c.padding, s, producer);
      const Output &z = l.z, &dp = l.dp, &dz = l.dz, &db = l.db;
      const std::vector<int64_t>& pooled = l.pooled;
      Output next = Op("Neg", {l.p}, {}, "next" + s)->output(0);
      const std::vector<Output> fetches = {next, Op("Neg", {dz}, {}, "ndz" + s)->output(0),
                                           Op("Neg", {db}, {}, "ndb" + s)->output(0)};
      int64_t count = 1, pooled_count = 1;
      for (int64_t d : c.input) count *= d;
      for (int64_t d : pooled) pooled_count *= d;
      std::vector<float> dpv(static_cast<size_t>(pooled_count));
      for (size_t i = 0; i < dpv.size(); ++i) dpv[i] = static_cast<float>((i * 5) % 9) * 0.25f - 1;
      const auto types = RunBothWays(
          "remapping", {{z, Floats(c.input, PoolInput(static_cast<size_t>(count)))}, {dp, Floats(pooled, dpv)}},
          fetches);
      EXPECT_EQ(types.count("_MaxPoolWithIndex"), 1u);
      EXPECT_EQ(types.count("_FusedMaxPoolGradWithIndex"), 1u);
      EXPECT_EQ(types.count("Shape"), 1u);
      EXPECT_EQ(types.count("MaxPool") + types.count("_FusedMaxPoolGrad") + types.count("MaxPoolGrad"), 0u);
    }
  }
  // The new gradient reads the codes (output 1 of the pool's node, which keeps its name) and
  // the Shape of the pool's input, and nothing reads that input but the pool and the Shape.
  const PoolLayer l = PoolLayerWithGradient({2, 4, 4, 3}, 2, 2, 2, 2, "VALID", "");
  auto f = Rewrite("remapping", {l.z, l.dp},
                   {Op("Neg", {l.p})->output(0), Op("Neg", {l.db})->output(0)});
  ASSERT_NE(f, nullptr);
  const int pool = Find(*f, "p");
  ASSERT_GE(pool, 0);
  EXPECT_EQ(f->ordered[static_cast<size_t>(pool)]->type(), "_MaxPoolWithIndex");
  int grad = -1, readers_of_h = 0;
  for (size_t i = 0; i < f->ordered.size(); ++i) {
    if (f->ordered[i]->type() == "_FusedMaxPoolGradWithIndex") grad = static_cast<int>(i);
    for (const Output& in : f->inputs[i]) readers_of_h += in.op->name() == "h" ? 1 : 0;
  }
  ASSERT_GE(grad, 0);
  const auto& in = f->inputs[static_cast<size_t>(grad)];
  ASSERT_EQ(in.size(), 3u);
  EXPECT_EQ(in[0].op->type(), "Shape");
  EXPECT_EQ(in[1].op, f->ordered[static_cast<size_t>(pool)]);
  EXPECT_EQ(in[1].index, 1);
  EXPECT_EQ(in[2].op->name(), "dp");
  EXPECT_EQ(readers_of_h, 2);
}

// The pool and its gradient keep their ops where the pool's output or input is fetched, the
// input has another reader, the window does not fit the code (over 128 pixels), or the
// gradient's ReluGrad has features of its own.
TEST_F(RewriteTest, MaxPoolIndicesNeedTheInputAndOutputToThemselves) {
  auto build = [&](const std::string& s, int64_t k) {
    return PoolLayerWithGradient({1, 12, 12, 2}, k, k, k, k, "VALID", s);
  };
  auto fired = [&](const PoolLayer& l, std::vector<Output> fetches) {
    auto f = Rewrite("remapping", {l.z, l.dp}, fetches);
    EXPECT_NE(f, nullptr);
    if (f == nullptr) return false;
    const auto types = Types(*f);
    EXPECT_EQ(types.count("_MaxPoolWithIndex"), types.count("_FusedMaxPoolGradWithIndex"));
    if (types.count("_MaxPoolWithIndex") == 0) {
      EXPECT_EQ(types.count("MaxPool"), 1u);
      EXPECT_EQ(types.count("_FusedMaxPoolGrad"), 1u);
    }
    return types.count("_MaxPoolWithIndex") == 1;
  };
  const PoolLayer a = build("_a", 2);
  EXPECT_TRUE(fired(a, {a.db}));                                         // the control
  EXPECT_FALSE(fired(a, {a.db, a.p}));                                   // output fetched
  EXPECT_FALSE(fired(a, {a.db, a.h}));                                   // input fetched
  EXPECT_FALSE(fired(a, {a.db, Op("Neg", {a.h}, {}, "other")->output(0)}));  // another reader
  const PoolLayer b = build("_b", 12);  // 144 pixels per window
  EXPECT_FALSE(fired(b, {b.db}));
  const PoolLayer c = build("_c", 11);  // 121: fits
  EXPECT_TRUE(fired(c, {c.db}));
  // Features of their own (ReluGrad(dh, z)): _FusedMaxPoolGrad with num_features 1 stays.
  Output z = Placeholder(PartialShape({1, 4, 4, 2}), "z_d");
  Output dp = Placeholder(PartialShape({1, 2, 2, 2}), "dp_d");
  const AttrMap pool_attrs{{"ksize", AttrOfIntList({1, 2, 2, 1})},
                           {"strides", AttrOfIntList({1, 2, 2, 1})},
                           {"padding", AttrOfString("VALID")}};
  Output h = Op("Relu", {z}, {}, "h_d")->output(0);
  Output p = Op("MaxPool", {h}, pool_attrs, "p_d")->output(0);
  Output dh = Op("MaxPoolGrad", {h, p, dp}, pool_attrs, "dh_d")->output(0);
  Output dz = Op("ReluGrad", {dh, z}, {}, "dz_d")->output(0);
  auto f = Rewrite("remapping", {z, dp}, {Op("Neg", {dz})->output(0)});
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(Types(*f).count("_MaxPoolWithIndex"), 0u);
  EXPECT_EQ(Types(*f).count("_FusedMaxPoolGrad"), 1u);
}

TEST_F(RewriteTest, FusionNeedsSoleUnfetchedIntermediates) {
  Output x = Placeholder(PartialShape({2, 3}), "x");
  Output w = Const(Floats({3, 2}, {1, -2, 3, -4, 5, -6}), "w");
  Output bias = Const(Floats({2}, {0.5f, -0.5f}), "bias");
  Output mm = Op("MatMul", {x, w}, {}, "mm")->output(0);
  Output ba = Op("BiasAdd", {mm, bias}, {}, "ba")->output(0);
  Output relu = Op("Relu", {ba}, {}, "relu")->output(0);
  // The product is fetched: nothing fuses.
  EXPECT_EQ(Rewrite("remapping", {x}, {relu, mm}), nullptr);
  // The BiasAdd is fetched: MatMul + BiasAdd cannot fuse either (BiasAdd must stay).
  EXPECT_EQ(Rewrite("remapping", {x}, {relu, ba}), nullptr);
  // The biased value has a second reader: MatMul + BiasAdd fuse, the Relu stays.
  Output other = Op("Neg", {ba}, {}, "other")->output(0);
  auto f = Rewrite("remapping", {x}, {relu, other});
  ASSERT_NE(f, nullptr);
  const int fused = Find(*f, "ba");
  ASSERT_GE(fused, 0);
  EXPECT_EQ(f->ordered[static_cast<size_t>(fused)]->type(), "_FusedMatMul");
  EXPECT_EQ(f->ordered[static_cast<size_t>(Find(*f, "relu"))]->type(), "Relu");
}

// `tf.matmul(x, w) + b` (AddV2 of the product and a vector of its width, either order; Add
// too) fuses as BiasAdd does, as TensorFlow's remapper fuses it; a Shape op reading the
// product (autodiff's gradient of the add reads its inputs' shapes) reads the fused op's
// output instead, which has the same shape.
TEST_F(RewriteTest, BiasSemanticAddFusesAndShapeReadersFollow) {
  Output x = Placeholder(PartialShape({-1, 3}), "x");
  Output w = Const(Floats({3, 2}, {1, -2, 3, -4, 5, -6}), "w");
  Output bias = Const(Floats({2}, {0.5f, -0.5f}), "bias");
  Output mm = Op("MatMul", {x, w}, {}, "mm")->output(0);
  Output sum = Op("AddV2", {bias, mm}, {}, "sum")->output(0);  // the bias first
  Output relu = Op("Relu", {sum}, {}, "relu")->output(0);
  Output y = Op("Neg", {relu}, {}, "y")->output(0);
  Output mm2 = Op("MatMul", {x, w}, {{"transpose_b", AttrOfBool(false)}}, "mm2")->output(0);
  Output sum2 = Op("Add", {mm2, bias}, {}, "sum2")->output(0);
  Output y2 = Op("Neg", {sum2}, {}, "y2")->output(0);
  Output shape = Op("Shape", {mm2}, {}, "shape")->output(0);
  const Tensor xv = Floats({2, 3}, {1, 2, 3, -1, -2, -3});
  const auto types = RunBothWays("remapping", {{x, xv}}, {y, y2, shape});
  EXPECT_EQ(types.count("_FusedMatMul"), 2u);
  EXPECT_EQ(types.count("MatMul") + types.count("AddV2") + types.count("Add") + types.count("Relu"), 0u);
  auto f = Rewrite("remapping", {x}, {y, y2, shape});
  ASSERT_NE(f, nullptr);
  const Operation& fused = *f->ordered[static_cast<size_t>(Find(*f, "relu"))];
  EXPECT_EQ(fused.type(), "_FusedMatMul");
  EXPECT_EQ(fused.FindAttr("fused_ops")->list().s(1), "Relu");
  const int s = Find(*f, "shape");
  ASSERT_GE(s, 0);
  EXPECT_EQ(f->inputs[static_cast<size_t>(s)][0].op->name(), "sum2");
  EXPECT_EQ(f->inputs[static_cast<size_t>(s)][0].op->type(), "_FusedMatMul");
  // The shape's value (RunBothWays compares float fetches only).
  SessionOptions options;
  auto session = Session::Create(&g_, options);
  ASSERT_TRUE(session.ok());
  std::vector<Tensor> out;
  ASSERT_TRUE((*session)->Run(RunOptions(), {{x, xv}}, {shape}, {}, &out, nullptr).ok());
  ASSERT_EQ(out.size(), 1u);
  ASSERT_EQ(out[0].NumElements(), 2);
  EXPECT_EQ(out[0].flat<int32_t>()[0], 2);
  EXPECT_EQ(out[0].flat<int32_t>()[1], 2);
}

// A dense layer written `relu(matmul(x, w) + b)` and its gradients, as a TF1 script trains it:
// the forward product, add and Relu fuse although the gradient of the add reads the product's
// shape; the gradients are unchanged.
TEST_F(RewriteTest, BiasSemanticAddFusesUnderItsGradient) {
  Output x = Placeholder(PartialShape({-1, 3}), "x");
  Output w = Const(Floats({3, 2}, {1, -2, 3, -4, 5, -6}), "w");
  Output bias = Const(Floats({2}, {0.5f, -0.5f}), "bias");
  Output mm = Op("MatMul", {x, w}, {}, "mm")->output(0);
  Output sum = Op("AddV2", {mm, bias}, {}, "sum")->output(0);
  Output relu = Op("Relu", {sum}, {}, "relu")->output(0);
  Output loss = Op("Sum", {relu, Const(Ints({2}, {0, 1}), "axes")}, {}, "loss")->output(0);
  auto grads = AddGradients(g_, {loss}, {w, bias}, {});
  ASSERT_TRUE(grads.ok()) << grads.status().ToString();
  const Tensor xv = Floats({2, 3}, {1, 2, 3, -1, -2, -3});
  std::multiset<std::string> off;
  const auto types =
      RunBothWays("remapping", {{x, xv}}, {loss, (*grads)[0].values, (*grads)[1].values}, {}, &off);
  EXPECT_EQ(types.count("_FusedMatMul"), 1u);
  EXPECT_EQ(types.count("MatMul"), 1u);  // the weight gradient's
  EXPECT_EQ(types.count("Relu"), 0u);
  // The forward add went (the Sum's gradient computes shapes with an int32 AddV2 of its own).
  EXPECT_EQ(off.count("AddV2"), types.count("AddV2") + 1);
}

// Adds that are not a bias: a [1, N] matrix, a scalar, a vector that widens the product (it
// broadcasts the product too), and a vector computed from the product's shape.
TEST_F(RewriteTest, BiasSemanticAddNeedsAVectorOfTheProductsWidth) {
  Output x = Placeholder(PartialShape({2, 3}), "x");
  Output w = Const(Floats({3, 2}, {1, -2, 3, -4, 5, -6}), "w");
  Output w1 = Const(Floats({3, 1}, {1, -2, 3}), "w1");
  const std::vector<std::pair<std::string, Output>> others = {
      {"row", Const(Floats({1, 2}, {0.5f, -0.5f}), "row")},
      {"scalar", Const(Floats({}, {0.5f}), "scalar")},
      {"wide", Const(Floats({2}, {0.5f, -0.5f}), "wide")}};
  for (const auto& [name, other] : others) {
    Output mm = Op("MatMul", {x, name == "wide" ? w1 : w}, {}, name + "_mm")->output(0);
    Output sum = Op("AddV2", {mm, other}, {}, name + "_sum")->output(0);
    Output y = Op("Neg", {sum}, {}, name + "_y")->output(0);
    EXPECT_EQ(Rewrite("remapping", {x}, {y}), nullptr) << name;
  }
  // The bias computed from the product's shape: the Shape runs before the add, so it cannot
  // read the fused op's output (a cycle); nothing fuses.
  Output mm = Op("MatMul", {x, w}, {}, "early_mm")->output(0);
  Output shape = Op("Shape", {mm}, {}, "early_shape")->output(0);
  Output vec = Op("Cast", {shape}, {{"DstT", AttrOfType(DT_FLOAT)}}, "early_bias")->output(0);
  Output sum = Op("AddV2", {mm, vec}, {}, "early_sum")->output(0);
  Output y = Op("Neg", {sum}, {}, "early_y")->output(0);
  EXPECT_EQ(Rewrite("remapping", {x}, {y}), nullptr);
}

// ---- all together ----

// A constant read both by an op that folding replaces (by a Const without inputs) and by one
// that stays, then merged with its twin: the merge must not look at the folded op's inputs.
TEST_F(RewriteTest, RewritesComposeOnSharedConstants) {
  Output x = Placeholder(PartialShape({2}), "x");
  Output c1 = Const(Floats({2}, {2, 3}), "c1");
  Output c2 = Const(Floats({2}, {2, 3}), "c2");
  Output n1 = Op("Neg", {c1}, {}, "n1")->output(0);
  Output n2 = Op("Neg", {c2}, {}, "n2")->output(0);
  Output scaled = Op("Mul", {x, c2}, {}, "scaled")->output(0);
  NodeSpec add;
  add.type = "AddN";
  add.name = "sum";
  add.inputs.push_back({{n1, n2, scaled}, true});
  Output sum = g_.AddOperation(std::move(add)).value()->output(0);
  const auto types = RunBothWays("all", {{x, Floats({2}, {5, 7})}}, {sum});
  EXPECT_EQ(types.count("Neg"), 0u);
  EXPECT_EQ(types.count("Mul"), 1u);
}

// ---- what no rewrite touches ----

TEST_F(RewriteTest, NodesOffTheCpuAreLeftAlone) {
  Output x = Placeholder(PartialShape({2}), "x");
  Output i = Op("Identity", {x}, {}, "i")->output(0);
  Output y = Op("Neg", {i}, {}, "y")->output(0);
  // The session's default device is another type: nothing is the CPU's to rewrite.
  EXPECT_EQ(Rewrite("all", {x}, {y}, {}, "TESTACC"), nullptr);
  Output j = Op("Identity", {x}, {}, "j", {}, "/device:GPU:0")->output(0);
  Output z = Op("Neg", {j}, {}, "z")->output(0);
  auto f = Rewrite("all", {x}, {z});
  EXPECT_EQ(f, nullptr);
}

TEST_F(RewriteTest, ControlFlowFragmentsAreNotRewritten) {
  Output x = Placeholder(PartialShape({2}), "x");
  Output pred = Const([] {
    Tensor t = Tensor::Allocate(DT_BOOL, {}).value();
    *t.flat<bool>() = true;
    return t;
  }(), "pred");
  Operation* sw = Op("Switch", {x, pred}, {}, "switch");
  Output taken = Op("Identity", {sw->output(1)}, {}, "taken")->output(0);
  Output other = Op("Identity", {sw->output(0)}, {}, "other")->output(0);
  Operation* merge = nullptr;
  {
    NodeSpec spec;
    spec.type = "Merge";
    spec.name = "merge";
    spec.inputs.push_back({{other, taken}, true});
    auto op = g_.AddOperation(std::move(spec));
    ASSERT_TRUE(op.ok()) << op.status().ToString();
    merge = *op;
  }
  int identities[2] = {0, 0};
  for (bool on : {false, true}) {
    SessionOptions options;
    ASSERT_TRUE(options.rewrites.Set("all", on).ok());
    auto session = Session::Create(&g_, options);
    ASSERT_TRUE(session.ok());
    RunOptions run_options;
    run_options.trace_level = 1;
    RunMetadata metadata;
    std::vector<Tensor> out;
    Status s = (*session)->Run(run_options, {{x, Floats({2}, {3, 4})}}, {merge->output(0)}, {}, &out, &metadata);
    ASSERT_TRUE(s.ok()) << s.ToString();
    EXPECT_EQ(Values(out[0]), (std::vector<float>{3, 4}));
    for (const NodeStepStats& st : metadata.step_stats) identities[on] += st.op_type == "Identity";
  }
  EXPECT_EQ(identities[0], 2);  // both branches' (the untaken one dead)
  EXPECT_EQ(identities[1], identities[0]);
}

// ---- cost where nothing matches ----

// A fragment no rewrite can change (a chain of AddV2 with a non-neutral constant, a MatMul
// without a bias, one Neg, one Transpose, distinct constants) is only scanned: no plan-local
// view is built and no pass runs. One Identity in it makes identity removal, and after it
// the passes whose op types the fragment holds, run over a view; the others still do not.
TEST_F(RewriteTest, NothingIsCopiedWhereNoRewriteCanMatch) {
  Output x = Placeholder(PartialShape({1, 1}), "x");
  Output one = Const(Floats({1, 1}, {1}), "one");
  Output w = Const(Floats({1, 1}, {2}), "w");
  Output perm = Const(Ints({2}, {1, 0}), "perm");
  Output prev = x;
  for (int i = 0; i < 50; ++i) prev = Op("AddV2", {prev, one})->output(0);
  Output product = Op("MatMul", {prev, w}, {}, "product")->output(0);
  Output abs = Op("Abs", {product}, {}, "abs")->output(0);
  Output neg = Op("Neg", {abs}, {}, "neg")->output(0);
  Output y = Op("Transpose", {neg, perm}, {}, "y")->output(0);

  auto rewrite_all = [&](const Output& fetch, RewriteStats* stats) {
    auto pruned = PruneAndOrder(g_, PruneRequest{{x}, {fetch}, {}});
    EXPECT_TRUE(pruned.ok()) << pruned.status().ToString();
    ordered_ = pruned->ordered;
    RewriteRequest request{&g_, &ordered_, {x}, {fetch}, {}, "CPU", {}, stats};
    auto result = RewriteFragment(request);
    EXPECT_TRUE(result.ok()) << result.status().ToString();
    return result.ok() ? std::move(result).value() : nullptr;
  };
  RewriteStats stats;
  EXPECT_EQ(rewrite_all(y, &stats), nullptr);
  EXPECT_EQ(stats.scanned_nodes, static_cast<int64_t>(ordered_.size()));
  EXPECT_EQ(stats.view_nodes, 0);
  EXPECT_FALSE(stats.ran.any()) << "a pass ran";

  Output copy = Op("Identity", {y}, {}, "copy")->output(0);
  Output z = Op("Neg", {copy}, {}, "z")->output(0);
  RewriteStats with_identity;
  auto f = rewrite_all(z, &with_identity);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->counts.identity_removal, 1);
  EXPECT_EQ(with_identity.view_nodes, static_cast<int64_t>(ordered_.size()));
  EXPECT_TRUE(with_identity.ran.identity_removal);
  EXPECT_TRUE(with_identity.ran.remapping);  // after a change, with a MatMul in the fragment
  EXPECT_FALSE(with_identity.ran.constant_folding);
  EXPECT_FALSE(with_identity.ran.arithmetic_optimization);
  EXPECT_FALSE(with_identity.ran.common_subgraph_elimination);
  EXPECT_FALSE(with_identity.ran.dependency_optimization);
}

// Automatic mixed precision converts only where a native bf16 kernel outranks the Eigen
// ones (which widen bf16 to float: slower than float). With the CPU plugin alone there is
// none, and the fragment comes back unchanged. (Its conversions, with the oneDNN plugin's
// bf16 kernels, are tested in tests/plugins/onednn/amp_test.cc.)
TEST_F(RewriteTest, MixedPrecisionNeedsNativeBf16Kernels) {
  // The premise: no plugin but the CPU plugin in this process (plugins never unload, so a
  // test that loaded oneDNN's before this one would make it convert).
  const KernelRegistration* bf16 =
      KernelRegistry::Global()->FindOrNull("MatMul", {{"T", AttrOfType(DT_BFLOAT16)}}, "CPU");
  ASSERT_TRUE(bf16 == nullptr || bf16->priority <= 0)
      << "a native bf16 MatMul kernel is loaded (plugin "
      << (bf16->plugin != nullptr ? bf16->plugin->name : "?") << ")";
  Output x = Placeholder(PartialShape({2, 3}), "x");
  Output w = Const(Floats({3, 2}, {1, -2, 3, -4, 5, -6}), "w");
  Output mm = Op("MatMul", {x, w}, {}, "mm")->output(0);
  Output y = Op("Neg", {mm}, {}, "y")->output(0);
  RewriteStats stats;
  auto pruned = PruneAndOrder(g_, PruneRequest{{x}, {y}, {}});
  ASSERT_TRUE(pruned.ok());
  ordered_ = pruned->ordered;
  RewriteRequest request{&g_, &ordered_, {x}, {y}, {}, "CPU", {}, &stats};
  ASSERT_TRUE(request.options.Set("all", false).ok());
  ASSERT_TRUE(request.options.Set("auto_mixed_precision", true).ok());
  auto f = RewriteFragment(request);
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_TRUE(stats.ran.auto_mixed_precision);  // it looked at the MatMul
  EXPECT_EQ(f.value(), nullptr);                // and changed nothing
}

TEST_F(RewriteTest, OptionsByName) {
  RewriteOptions o;
  EXPECT_TRUE(o.any());
  for (const std::string& name : RewriteOptions::Names()) EXPECT_TRUE(o.Set(name, false).ok()) << name;
  EXPECT_FALSE(o.any());
  EXPECT_TRUE(o.Set("remapping", true).ok());
  EXPECT_TRUE(o.remapping);
  Status s = o.Set("layout_optimizer", true);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_NE(s.message().find("constant_folding"), std::string::npos) << s.ToString();
}

}  // namespace
}  // namespace tgraph
