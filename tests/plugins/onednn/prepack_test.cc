// The oneDNN MatMul keeping B packed, and Conv2D / _FusedConv2D keeping the filter
// reordered, across calls while those bytes keep their number (plugin.h input_version, ABI
// 7; core/base/buffer_versions.h gives the numbers; plugins/onednn/kept_pack.h): against the
// Eigen kernel on the same inputs, through KernelRunner on a two-thread pool. The test
// numbers B's buffer itself, as the core does for a variable's or a constant's bytes, and
// writes B with and without a new number: with one the next call must see the new bytes
// (the pack is let go), without one it must still compute with the packed bytes — which
// shows the pack is kept at all (a kernel that packed on every call would pass everything
// else here too).
#include <cstring>
#include <thread>

#include "core/exec/session.h"
#include "core/base/buffer_versions.h"
#include "conv_test_util.h"
#include "onednn_test_util.h"

namespace tgraph::onednn_test {
namespace {

struct MatMulPair {
  Graph graph;
  const Operation* node = nullptr;
  std::unique_ptr<KernelRunner> eigen, onednn;
};

// A MatMul of two Placeholders of unknown shape, with both kernels.
std::unique_ptr<MatMulPair> MakePair(DataType dtype, bool ta, bool tb) {
  LoadPlugins();
  auto p = std::make_unique<MatMulPair>();
  p->node = AddMatMulOfUnknownShapes(p->graph, dtype, ta, tb);
  const KernelRegistration* eigen = KernelOf("cpu", "MatMul", p->node->attrs());
  const KernelRegistration* onednn = KernelOf("onednn", "MatMul", p->node->attrs());
  if (eigen == nullptr || onednn == nullptr) return nullptr;
  p->eigen = std::move(KernelRunner::CreateWithKernel(*p->node, *eigen, TwoThreadPool()).value());
  p->onednn = std::move(KernelRunner::CreateWithKernel(*p->node, *onednn, TwoThreadPool()).value());
  return p;
}

// Overwrites `t`'s bytes in place (its buffer, and so its number, stay).
void Overwrite(Tensor& t, uint32_t seed) {
  const Tensor fresh = RandomOf(t.dtype(), t.dims(), seed);
  std::memcpy(t.data(), fresh.data(), t.ByteSize());
}

Tensor RunMatMul(KernelRunner& runner, const Tensor& a, const Tensor& b) {
  std::vector<Tensor> out;
  const Status s = runner.Run(std::vector<Tensor>{a, b}, &out);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return out.empty() ? Tensor() : out[0];
}

// Within the tolerance of onednn_test_util.h's comparison (sums of k terms in [-1, 1]).
void ExpectNear(const Tensor& got, const Tensor& want, int64_t k, const std::string& what) {
  ASSERT_EQ(got.dims(), want.dims()) << what;
  const double tol = (got.dtype() == DT_BFLOAT16 ? 1.0 / 128 : 1e-6) * static_cast<double>(k) + 1e-6;
  int64_t bad = 0;
  for (int64_t e = 0; e < want.NumElements(); ++e) {
    if (!(std::abs(ValueAt(got, e) - ValueAt(want, e)) <= tol) && bad++ < 3) {
      ADD_FAILURE() << what << ": element " << e << ": oneDNN " << ValueAt(got, e) << ", Eigen "
                    << ValueAt(want, e);
    }
  }
}

bool SameBytes(const Tensor& x, const Tensor& y) {
  return x.dims() == y.dims() && std::memcmp(x.data(), y.data(), x.ByteSize()) == 0;
}

// One kernel through the life of a numbered B: first sight (packed per call), second (kept),
// hits, a write with a new number, a write without one, another A shape, no number.
void CheckPrepacked(DataType dtype, int64_t m, int64_t k, int64_t n, bool tb, uint32_t seed) {
  const std::string what = Str(dtype == DT_FLOAT ? "float" : "bfloat16", " m=", m, " k=", k,
                               " n=", n, " tb=", tb);
  SCOPED_TRACE(what);
  auto p = MakePair(dtype, false, tb);
  if (p == nullptr) GTEST_SKIP() << "no oneDNN kernel for " << what;
  const std::vector<int64_t> b_dims = tb ? std::vector<int64_t>{n, k} : std::vector<int64_t>{k, n};
  Tensor a = RandomOf(dtype, {m, k}, seed);
  Tensor b = RandomOf(dtype, b_dims, seed + 1);
  BufferVersions::Touch(b.buffer());

  Tensor last;
  for (int call = 0; call < 4; ++call) {
    last = RunMatMul(*p->onednn, a, b);
    ExpectNear(last, RunMatMul(*p->eigen, a, b), k, Str("call ", call));
  }
  // Written with a new number (what every variable write does): the next call sees it.
  Overwrite(b, seed + 2);
  BufferVersions::Touch(b.buffer());
  const Tensor want = RunMatMul(*p->eigen, a, b);
  Tensor got = RunMatMul(*p->onednn, a, b);
  ExpectNear(got, want, k, "after a renumbered write");
  // Kept again from the second call with that number; then a write behind the core's back
  // (no new number) is not seen: the kernel computes with the B it packed. That is the
  // contract's other side, and the proof that the pack is kept.
  got = RunMatMul(*p->onednn, a, b);
  ExpectNear(got, want, k, "the second call with the new number");
  Overwrite(b, seed + 3);
  const Tensor stale = RunMatMul(*p->onednn, a, b);
  EXPECT_TRUE(SameBytes(stale, got)) << "the kernel did not keep B packed across calls";
  // Another A shape with the same B: packed for that product's layout, right again.
  BufferVersions::Touch(b.buffer());
  const Tensor a2 = RandomOf(dtype, {m + 37, k}, seed + 4);
  for (int call = 0; call < 3; ++call) {
    ExpectNear(RunMatMul(*p->onednn, a2, b), RunMatMul(*p->eigen, a2, b), k, Str("m+37, call ", call));
  }
  ExpectNear(RunMatMul(*p->onednn, a, b), RunMatMul(*p->eigen, a, b), k, "back to m");
  // No number (a feed, an intermediate): every write is seen.
  BufferVersions::Drop(b.buffer().get());
  for (int call = 0; call < 3; ++call) {
    Overwrite(b, seed + 10 + static_cast<uint32_t>(call));
    ExpectNear(RunMatMul(*p->onednn, a, b), RunMatMul(*p->eigen, a, b), k, Str("unnumbered, call ", call));
  }
}

TEST(OneDnnPrepackTest, FloatKeepsBPackedWhileItsNumberHolds) {
  CheckPrepacked(DT_FLOAT, 512, 256, 300, false, 800);
  CheckPrepacked(DT_FLOAT, 512, 256, 300, true, 810);
  CheckPrepacked(DT_FLOAT, 128, 200, 512, false, 820);  // fewer rows: packed only when kept
}

// bfloat16: B packed for oneDNN's bf16 kernels, or where bf16 is computed in fp32, B kept
// widened (plugins/onednn/bf16_mode.h; tests/CMakeLists.txt runs this in both modes).
TEST(OneDnnPrepackTest, BFloat16KeepsBPacked) {
  CheckPrepacked(DT_BFLOAT16, 512, 256, 300, false, 900);
  CheckPrepacked(DT_BFLOAT16, 512, 256, 300, true, 910);
}

// A numbered B that changes number on every call (a training step's weights): never kept,
// always right.
TEST(OneDnnPrepackTest, ANewNumberEveryCallIsAlwaysSeen) {
  auto p = MakePair(DT_FLOAT, false, false);
  ASSERT_NE(p, nullptr);
  Tensor a = RandomOf(DT_FLOAT, {512, 128}, 1);
  Tensor b = RandomOf(DT_FLOAT, {128, 256}, 2);
  for (int call = 0; call < 5; ++call) {
    Overwrite(b, 10 + static_cast<uint32_t>(call));
    BufferVersions::Touch(b.buffer());
    ExpectNear(RunMatMul(*p->onednn, a, b), RunMatMul(*p->eigen, a, b), 128, Str("call ", call));
  }
}

// Calls from several threads at once on one kernel (runs of one session), B renumbered
// between rounds: each result matches the B of its round (TSan checks the kept pack).
TEST(OneDnnPrepackTest, ConcurrentCallsShareTheKeptPack) {
  auto p = MakePair(DT_FLOAT, false, false);
  ASSERT_NE(p, nullptr);
  Tensor a = RandomOf(DT_FLOAT, {384, 96}, 3);
  Tensor b = RandomOf(DT_FLOAT, {96, 200}, 4);
  for (int round = 0; round < 3; ++round) {
    Overwrite(b, 20 + static_cast<uint32_t>(round));
    BufferVersions::Touch(b.buffer());
    const Tensor want = RunMatMul(*p->eigen, a, b);
    std::vector<Tensor> got(4);
    std::vector<std::thread> threads;
    for (size_t t = 0; t < got.size(); ++t) {
      threads.emplace_back([&, t] {
        for (int i = 0; i < 3; ++i) got[t] = RunMatMul(*p->onednn, a, b);
      });
    }
    for (std::thread& t : threads) t.join();
    for (const Tensor& g : got) ExpectNear(g, want, 96, Str("round ", round));
  }
}

// A convolution's filter through the same life: numbered (a frozen graph's constant, a
// variable between writes), written with and without a new number, another input size,
// no number. The filter has channel counts for which oneDNN runs on a blocked layout, so
// the kernel reorders it; with `fused`, _FusedConv2D with a bias and Relu. `depthwise`:
// DepthwiseConv2dNative (_FusedDepthwiseConv2dNative) with the filter [KH, KW, C, 1] instead
// (conv.oc unused).
void CheckFilterKept(DataType dtype, const Conv& conv, bool fused, uint32_t seed,
                     bool depthwise = false) {
  const std::string what = Str(dtype == DT_FLOAT ? "float" : "bfloat16", fused ? " fused " : " ",
                               depthwise ? "depthwise " : "", conv.Describe());
  SCOPED_TRACE(what);
  const std::string type = depthwise ? (fused ? "_FusedDepthwiseConv2dNative" : "DepthwiseConv2dNative")
                                     : (fused ? "_FusedConv2D" : "Conv2D");
  const int64_t out_channels = depthwise ? conv.c : conv.oc;
  Tensor x = RandomOf(dtype, {conv.batch, conv.h, conv.w, conv.c}, seed);
  Tensor filter = RandomOf(dtype, {conv.kh, conv.kw, conv.c, depthwise ? 1 : conv.oc}, seed + 1);
  const Tensor bias = RandomOf(dtype, {out_channels}, seed + 2);
  std::vector<Arg> args = {In(x), In(filter)};
  AttrMap attrs = conv.Attrs();
  attrs["T"] = AttrOfType(dtype);
  if (fused) {
    args.push_back(ListIn(bias));
    if (!depthwise) {
      args.push_back(EmptyList());
      attrs["TArgs"] = AttrOfTypeList({dtype});
    }
    attrs["num_args"] = AttrOfInt(1);
    attrs["fused_ops"] = AttrOfStringList({"BiasAdd", "Relu"});
  }
  LoadPlugins();
  Graph graph;
  std::vector<Tensor> unused;
  const Operation* node = AddNode(graph, type, args, attrs, /*known_shapes=*/false, &unused);
  ASSERT_NE(node, nullptr);
  // The reference: the Eigen kernel; for bfloat16, which it has no convolution for, a new
  // oneDNN kernel per call (its first call never keeps anything).
  const KernelRegistration* onednn = KernelOf("onednn", type, node->attrs());
  if (onednn == nullptr) GTEST_SKIP() << "no oneDNN kernel for " << what;
  const KernelRegistration* eigen = KernelOf("cpu", type, node->attrs());
  ASSERT_TRUE(eigen != nullptr || dtype == DT_BFLOAT16);
  auto runner_of = [&](const KernelRegistration& kernel) {
    return std::move(KernelRunner::CreateWithKernel(*node, kernel, TwoThreadPool()).value());
  };
  auto got_runner = runner_of(*onednn);
  std::unique_ptr<KernelRunner> eigen_runner = eigen != nullptr ? runner_of(*eigen) : nullptr;
  auto run = [&](KernelRunner& runner, const Tensor& input) {
    std::vector<Tensor> in = {input, filter};
    if (fused) in.push_back(bias);
    std::vector<Tensor> out;
    const Status s = runner.Run(in, &out);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return out.empty() ? Tensor() : out[0];
  };
  auto reference = [&](const Tensor& input) {
    return eigen_runner != nullptr ? run(*eigen_runner, input) : run(*runner_of(*onednn), input);
  };
  // The sums' length, the bias included.
  const int64_t k = conv.kh * conv.kw * (depthwise ? 1 : conv.c) + 1;
  BufferVersions::Touch(filter.buffer());
  Tensor last;
  for (int call = 0; call < 4; ++call) {
    last = run(*got_runner, x);
    ExpectNear(last, reference(x), k, Str("call ", call));
  }
  Overwrite(filter, seed + 3);
  BufferVersions::Touch(filter.buffer());
  const Tensor want = reference(x);
  ExpectNear(run(*got_runner, x), want, k, "after a renumbered write");
  const Tensor got = run(*got_runner, x);
  ExpectNear(got, want, k, "the second call with the new number");
  Overwrite(filter, seed + 4);
  EXPECT_TRUE(SameBytes(run(*got_runner, x), got)) << "the kernel did not keep the filter reordered";
  BufferVersions::Touch(filter.buffer());
  const Tensor x2 = RandomOf(dtype, {conv.batch + 1, conv.h + 3, conv.w, conv.c}, seed + 5);
  for (int call = 0; call < 3; ++call) {
    ExpectNear(run(*got_runner, x2), reference(x2), k, Str("another input, call ", call));
  }
  BufferVersions::Drop(filter.buffer().get());
  for (int call = 0; call < 3; ++call) {
    Overwrite(filter, seed + 10 + static_cast<uint32_t>(call));
    ExpectNear(run(*got_runner, x), reference(x), k, Str("unnumbered, call ", call));
  }
}

TEST(OneDnnPrepackTest, ConvolutionKeepsItsFilterReordered) {
  Conv one_image = Geometry(1, 14, 14, 32, 3, 3, 64);  // split into bands of rows
  CheckFilterKept(DT_FLOAT, one_image, false, 1000);
  CheckFilterKept(DT_FLOAT, one_image, true, 1010);
  // One image whose filter outweighs its output: split by output channels, the kept
  // filter holding each part's slice.
  CheckFilterKept(DT_FLOAT, Geometry(1, 7, 7, 64, 3, 3, 64), true, 1030);
  Conv batch = Geometry(4, 9, 11, 48, 1, 1, 96);  // split by images; 1x1 as ResNet's
  batch.sh = batch.sw = 2;
  batch.padding = "VALID";
  CheckFilterKept(DT_FLOAT, batch, true, 1020);
}

// bfloat16 where oneDNN has bf16 convolutions (AVX512_BF16 or AMX); skipped elsewhere.
TEST(OneDnnPrepackTest, BFloat16ConvolutionKeepsItsFilterReordered) {
  CheckFilterKept(DT_BFLOAT16, Geometry(2, 8, 8, 32, 3, 3, 32), true, 1100);
}

TEST(OneDnnPrepackTest, DepthwiseConvolutionKeepsItsFilterReordered) {
  const Conv one_image = Geometry(1, 14, 14, 32, 3, 3, 0);  // split into bands of rows
  CheckFilterKept(DT_FLOAT, one_image, false, 1200, /*depthwise=*/true);
  CheckFilterKept(DT_FLOAT, one_image, true, 1210, /*depthwise=*/true);
  Conv strided = Geometry(3, 15, 15, 48, 3, 3, 0);  // split by images
  strided.sh = strided.sw = 2;
  strided.padding = "VALID";
  CheckFilterKept(DT_FLOAT, strided, true, 1220, /*depthwise=*/true);
}

TEST(OneDnnPrepackTest, BFloat16DepthwiseConvolutionKeepsItsFilterReordered) {
  CheckFilterKept(DT_BFLOAT16, Geometry(2, 8, 8, 32, 3, 3, 0), true, 1230, /*depthwise=*/true);
}

// End to end in a session: MatMul of two variables, B written between runs by each kind of
// write the core renumbers (Assign, AssignAdd, re-running its initializer), fed by name for
// one run, and left alone; every result against a double-precision product of the values B
// holds then. The kernel keeps B packed from the second run on (the product is large enough
// to split on the two intra-op threads), so a write the core failed to renumber would show
// here as a stale result.
class VariableMatMulGraph {
 public:
  static constexpr int64_t kM = 384, kK = 128, kN = 160;

  VariableMatMulGraph() {
    a_ = Variable("a", {kM, kK});
    b_ = Variable("b", {kK, kN});
    a_value_ = RandomFloats({kM, kK}, 40);
    init_a_ = Assign("Assign", a_, Const(a_value_), "init_a");
    product_ = Op("MatMul", {a_, b_}, {{"T", AttrOfType(DT_FLOAT)}}, "product");
  }
  Output a() const { return a_; }
  Output b() const { return b_; }
  Output product() const { return product_; }
  const Tensor& a_value() const { return a_value_; }
  Operation* init_a() const { return init_a_; }

  // A write of B with `value`: Assign, AssignAdd.
  Operation* Write(const std::string& type, const Tensor& value, const std::string& name) {
    return Assign(type, b_, Const(value), name);
  }
  Graph* graph() { return &g_; }

 private:
  Output Op(const std::string& type, std::vector<Output> inputs, AttrMap attrs,
            const std::string& name) {
    NodeSpec spec;
    spec.type = type;
    spec.name = name;
    for (const Output& o : inputs) spec.inputs.push_back({{o}, false});
    spec.attrs = std::move(attrs);
    auto op = g_.AddOperation(std::move(spec));
    EXPECT_TRUE(op.ok()) << op.status().ToString();
    return op.ok() ? op.value()->output(0) : Output();
  }
  Output Variable(const std::string& name, std::vector<int64_t> dims) {
    return Op("VariableV2", {}, {{"dtype", AttrOfType(DT_FLOAT)}, {"shape", AttrOfShape(PartialShape(dims))}},
              name);
  }
  Output Const(const Tensor& t) {
    static int counter = 0;
    return Op("Const", {}, {{"value", AttrOfTensor(t)}, {"dtype", AttrOfType(t.dtype())}},
              Str("const", counter++));
  }
  Operation* Assign(const std::string& type, Output var, Output value, const std::string& name) {
    const Output out = Op(type, {var, value}, {{"T", AttrOfType(DT_FLOAT)}}, name);
    return out.op;
  }

  Graph g_;
  Output a_, b_, product_;
  Tensor a_value_;
  Operation* init_a_ = nullptr;
};

// a [M, K] times b [K, N], in double.
void ExpectProduct(const Tensor& got, const Tensor& a, const Tensor& b, const std::string& what) {
  const int64_t m = a.dims()[0], k = a.dims()[1], n = b.dims()[1];
  ASSERT_EQ(got.dims(), (std::vector<int64_t>{m, n})) << what;
  int64_t bad = 0;
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double sum = 0;
      for (int64_t p = 0; p < k; ++p) sum += double{a.flat<float>()[i * k + p]} * b.flat<float>()[p * n + j];
      const double g = got.flat<float>()[i * n + j];
      if (!(std::abs(g - sum) <= 1e-4 * static_cast<double>(k)) && bad++ < 3) {
        ADD_FAILURE() << what << ": element [" << i << ", " << j << "]: " << g << ", want " << sum;
      }
    }
  }
}

Tensor Plus(const Tensor& x, const Tensor& y) {
  Tensor out = Tensor::Allocate(DT_FLOAT, x.dims()).value();
  for (int64_t i = 0; i < x.NumElements(); ++i) out.flat<float>()[i] = x.flat<float>()[i] + y.flat<float>()[i];
  return out;
}

TEST(OneDnnPrepackTest, VariablesWrittenBetweenRunsInASession) {
  LoadPlugins();
  VariableMatMulGraph graph;
  const int64_t k = VariableMatMulGraph::kK, n = VariableMatMulGraph::kN;
  const Tensor b1 = RandomFloats({k, n}, 41), b2 = RandomFloats({k, n}, 42);
  const Tensor d = RandomFloats({k, n}, 43), fed = RandomFloats({k, n}, 44);
  Operation* init_b = graph.Write("Assign", b1, "init_b");
  Operation* assign_b2 = graph.Write("Assign", b2, "assign_b2");
  Operation* add_d = graph.Write("AssignAdd", d, "add_d");
  SessionOptions options;
  options.intra_op_threads = 2;
  auto created = Session::Create(graph.graph(), options);
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  Session& session = *created.value();
  auto run = [&](const std::vector<Operation*>& targets) {
    std::vector<Tensor> out;
    const Status s = session.Run({}, {}, targets, &out);
    ASSERT_TRUE(s.ok()) << s.ToString();
  };
  // Three runs of the product: first sight of B's number, the run that keeps the pack, a hit.
  auto expect = [&](const Tensor& b, const std::string& what,
                    const std::vector<std::pair<Output, Tensor>>& feeds = {}) {
    for (int i = 0; i < 3; ++i) {
      std::vector<Tensor> out;
      const Status s = session.Run(feeds, {graph.product()}, {}, &out);
      ASSERT_TRUE(s.ok()) << s.ToString();
      ExpectProduct(out[0], graph.a_value(), b, Str(what, ", run ", i));
    }
  };
  run({graph.init_a(), init_b});
  expect(b1, "initialized");
  run({assign_b2});
  expect(b2, "after Assign");
  run({add_d});
  const Tensor b2d = Plus(b2, d);
  expect(b2d, "after AssignAdd");
  expect(fed, "B fed by name", {{graph.b(), fed}});
  expect(b2d, "B no longer fed (the variable was not written)");
  run({init_b});
  expect(b1, "after re-running B's initializer");
}

}  // namespace
}  // namespace tgraph::onednn_test
