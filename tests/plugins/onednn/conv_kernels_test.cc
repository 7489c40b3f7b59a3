// The oneDNN Conv2D, Conv2DBackpropInput and Conv2DBackpropFilter kernels against the Eigen
// ones: random geometries (odd sizes, batch 1, strides, dilations, SAME / VALID / asymmetric
// EXPLICIT padding), 1x1 and whole-image windows, empty tensors, and bad attrs or shapes
// failing alike.
#include <cstring>
#include <random>
#include <thread>

#include "conv_test_util.h"
#include "onednn_test_util.h"

namespace tgraph::onednn_test {
namespace {

// All three ops for one geometry (the gradients only where the forward output exists).
void CheckConv(const Conv& c, uint32_t seed) {
  const std::string what = c.Describe();
  const int64_t oh = c.OutH(), ow = c.OutW();
  const bool has_output = c.HasOutput();  // else the shape function would refuse it
  {
    TwoKernelNode fwd("Conv2D",
                      {In(RandomFloats({c.batch, c.h, c.w, c.c}, seed)),
                       In(RandomFloats({c.kh, c.kw, c.c, c.oc}, seed + 1))},
                      c.Attrs(), has_output);
    fwd.ExpectSame(c.kh * c.kw * c.c, Str("Conv2D ", what));
  }
  if (!has_output) return;
  const std::vector<int64_t> out = {c.batch, oh, ow, c.oc};
  {
    TwoKernelNode input_grad("Conv2DBackpropInput",
                             {ConstIn(Int32s({c.batch, c.h, c.w, c.c})),
                              In(RandomFloats({c.kh, c.kw, c.c, c.oc}, seed + 2)),
                              In(RandomFloats(out, seed + 3))},
                             c.Attrs());
    input_grad.ExpectSame(c.kh * c.kw * c.oc, Str("Conv2DBackpropInput ", what));
  }
  {
    TwoKernelNode filter_grad("Conv2DBackpropFilter",
                              {In(RandomFloats({c.batch, c.h, c.w, c.c}, seed + 4)),
                               ConstIn(Int32s({c.kh, c.kw, c.c, c.oc})),
                               In(RandomFloats(out, seed + 5))},
                              c.Attrs());
    filter_grad.ExpectSame(c.batch * oh * ow, Str("Conv2DBackpropFilter ", what));
  }
}

TEST(OneDnnConvTest, RandomGeometries) {
  std::mt19937 gen(11);
  for (int i = 0; i < 40; ++i) {
    const Conv c = RandomConv(gen, i);
    // VALID windows larger than the image have no output: the forward op fails alike,
    // the gradients are skipped.
    CheckConv(c, 1000 + 10 * static_cast<uint32_t>(i));
  }
}

TEST(OneDnnConvTest, SpecialWindows) {
  Conv one_by_one = Geometry(2, 6, 7, 5, 1, 1, 9);  // the input already is the patch matrix
  one_by_one.padding = "VALID";
  CheckConv(one_by_one, 1);
  Conv whole = Geometry(3, 4, 5, 2, 4, 5, 6);  // one window covering each image
  whole.padding = "VALID";
  CheckConv(whole, 11);
  Conv strided_1x1 = Geometry(1, 7, 7, 4, 1, 1, 3);
  strided_1x1.sh = strided_1x1.sw = 2;
  CheckConv(strided_1x1, 21);
  Conv bigger_than_image = Geometry(1, 3, 3, 2, 5, 5, 2);  // SAME pads a 5x5 window over a 3x3 image
  CheckConv(bigger_than_image, 31);
  Conv wide_pads = Geometry(1, 4, 4, 2, 2, 2, 3);
  wide_pads.padding = "EXPLICIT";
  wide_pads.pads = {0, 0, 3, 0, 0, 4, 0, 0};  // more padding than the window is wide
  CheckConv(wide_pads, 41);
}

TEST(OneDnnConvTest, LargerThanTheOneThreadBound) {
  Conv c = Geometry(4, 28, 28, 16, 3, 3, 32);
  CheckConv(c, 51);
  Conv odd_batch = Geometry(3, 12, 12, 16, 3, 3, 32);  // 3 parts of 1 image, claimed by 2 threads
  CheckConv(odd_batch, 56);
  Conv many = Geometry(9, 10, 10, 16, 3, 3, 32);  // parts of 2, 2, 2, 2 and 1 images
  CheckConv(many, 66);
  Conv strided = Geometry(2, 17, 19, 8, 5, 5, 24);
  strided.sh = 2;
  strided.sw = 3;
  strided.dh = 2;
  strided.padding = "VALID";
  CheckConv(strided, 61);
}

// Stride 1 over 16 or more channels each way: the input gradient runs as a forward
// convolution of out_backprop with the flipped filter where oneDNN has brgconv kernels for
// that (conv_kernels.cc, FlippedForwardWins). Its paddings are the other side's reach: SAME,
// VALID, asymmetric EXPLICIT, dilated; odd batches split into parts; batch 1; and explicit
// padding past the window's reach, which stays on oneDNN's input gradient.
TEST(OneDnnConvTest, InputGradientAsFlippedForward) {
  CheckConv(Geometry(64, 14, 14, 32, 5, 5, 64), 301);  // the CNN step's second layer
  Conv valid = Geometry(5, 11, 9, 16, 3, 5, 24);
  valid.padding = "VALID";
  CheckConv(valid, 311);
  Conv one = Geometry(1, 13, 7, 20, 5, 3, 16);
  CheckConv(one, 321);
  Conv dilated = Geometry(3, 12, 10, 16, 3, 3, 17);
  dilated.dh = 2;
  dilated.dw = 3;
  CheckConv(dilated, 331);
  Conv explicit_pads = Geometry(7, 9, 8, 17, 4, 3, 32);
  explicit_pads.padding = "EXPLICIT";
  explicit_pads.pads = {0, 0, 3, 0, 1, 2, 0, 0};
  CheckConv(explicit_pads, 341);
  Conv past_reach = Geometry(2, 6, 6, 16, 2, 2, 16);
  past_reach.padding = "EXPLICIT";
  past_reach.pads = {0, 0, 2, 0, 0, 3, 0, 0};  // more than the 2-wide window reaches
  CheckConv(past_reach, 351);
  Conv one_row_strided = Geometry(2, 1, 9, 16, 1, 3, 16);  // stride 2 over one output row
  one_row_strided.sh = 2;
  one_row_strided.padding = "VALID";
  CheckConv(one_row_strided, 361);
}

// Convolutions called from several threads at once on one pool (as a step's independent
// gradients run on its inter-op threads): their parts share the cores through the plugin's
// gate (conv_kernels.cc, CoreGate), and each call gives what it gives alone, bit for bit.
TEST(OneDnnConvTest, ConcurrentCallsAgreeWithOneAlone) {
  LoadPlugins();
  const Conv c = Geometry(16, 14, 14, 32, 5, 5, 64);
  struct Op {
    std::string type;
    std::vector<Arg> args;
  };
  const std::vector<Op> ops = {
      {"Conv2DBackpropInput",
       {ConstIn(Int32s({c.batch, c.h, c.w, c.c})), In(RandomFloats({c.kh, c.kw, c.c, c.oc}, 401)),
        In(RandomFloats({c.batch, c.h, c.w, c.oc}, 402))}},
      {"Conv2DBackpropFilter",
       {In(RandomFloats({c.batch, c.h, c.w, c.c}, 403)), ConstIn(Int32s({c.kh, c.kw, c.c, c.oc})),
        In(RandomFloats({c.batch, c.h, c.w, c.oc}, 404))}},
      {"Conv2D", {In(RandomFloats({c.batch, c.h, c.w, c.c}, 405)),
                  In(RandomFloats({c.kh, c.kw, c.c, c.oc}, 406))}}};
  for (const Op& op : ops) {
    SCOPED_TRACE(op.type);
    Graph graph;
    AttrMap attrs = c.Attrs();
    attrs["T"] = AttrOfType(DT_FLOAT);
    std::vector<Tensor> values;
    Operation* node = AddNode(graph, op.type, op.args, attrs, true, &values);
    ASSERT_NE(node, nullptr);
    const KernelRegistration* kernel = KernelOf("onednn", op.type, node->attrs());
    ASSERT_NE(kernel, nullptr);
    const Outcome alone = TwoKernelNode::RunWith(*node, *kernel, values, TwoThreadPool(), 1);
    ASSERT_TRUE(alone.status.ok()) << alone.status.ToString();
    constexpr int kThreads = 4;
    std::vector<Outcome> got(kThreads);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        got[static_cast<size_t>(t)] = TwoKernelNode::RunWith(*node, *kernel, values, TwoThreadPool(), 3);
      });
    }
    for (std::thread& t : threads) t.join();
    for (const Outcome& o : got) {
      ASSERT_TRUE(o.status.ok()) << o.status.ToString();
      ASSERT_EQ(o.outputs.size(), 1u);
      const Tensor& want = alone.outputs[0];
      ASSERT_EQ(o.outputs[0].dims(), want.dims());
      EXPECT_EQ(std::memcmp(o.outputs[0].data(), want.data(),
                            static_cast<size_t>(want.NumElements()) * sizeof(float)),
                0);
    }
  }
}

// One image large enough to be split: the forward op and the filter gradient run as bands
// of output rows, each with the padding that falls inside it.
TEST(OneDnnConvTest, OneImageSplitIntoRowBands) {
  Conv same = Geometry(1, 29, 23, 16, 3, 3, 32);
  CheckConv(same, 201);
  Conv strided = Geometry(1, 30, 17, 8, 5, 4, 24);
  strided.sh = 2;
  strided.dh = 2;
  strided.padding = "VALID";
  CheckConv(strided, 211);
  Conv padded = Geometry(1, 21, 21, 12, 3, 3, 20);
  padded.padding = "EXPLICIT";
  padded.pads = {0, 0, 4, 1, 2, 3, 0, 0};  // more padding at the top than the window reaches
  padded.sh = 3;
  CheckConv(padded, 221);
  Conv big_window = Geometry(1, 9, 40, 16, 7, 3, 16);  // few rows, tall window, SAME
  CheckConv(big_window, 231);
}

// One image whose filter outweighs its output (4x or more; ResNet50's last stage): the
// forward op is split by output channels, 16-channel blocks per part, each part writing its
// own buffer from its slice of the filter; 48 channels do not split in two such halves and
// stay in bands of rows.
TEST(OneDnnConvTest, OneImageSplitByOutputChannels) {
  CheckConv(Geometry(1, 7, 7, 64, 3, 3, 64), 241);
  Conv projection = Geometry(1, 14, 14, 256, 1, 1, 512);  // a strided 1x1
  projection.sh = projection.sw = 2;
  projection.padding = "VALID";
  CheckConv(projection, 251);
  Conv padded = Geometry(1, 5, 6, 40, 3, 3, 32);
  padded.padding = "EXPLICIT";
  padded.pads = {0, 0, 2, 0, 1, 3, 0, 0};
  CheckConv(padded, 261);
  CheckConv(Geometry(1, 7, 7, 64, 3, 3, 48), 271);
}

TEST(OneDnnConvTest, EmptyTensors) {
  Conv no_batch = Geometry(0, 5, 5, 3, 3, 3, 4);
  CheckConv(no_batch, 71);
  Conv no_filters = Geometry(2, 5, 5, 3, 3, 3, 0);
  CheckConv(no_filters, 81);
  Conv no_rows = Geometry(2, 0, 5, 3, 1, 3, 4);
  no_rows.padding = "VALID";
  CheckConv(no_rows, 91);
  Conv zero_output = Geometry(1, 2, 5, 3, 3, 3, 4);  // VALID 3-high window, stride 2, 2-high image
  zero_output.padding = "VALID";
  zero_output.sh = 2;
  CheckConv(zero_output, 101);
}

TEST(OneDnnConvTest, BadInputsFailAlike) {
  // NCHW: refused at kernel creation by both.
  Conv c;
  AttrMap nchw = c.Attrs();
  nchw["data_format"] = AttrOfString("NCHW");
  TwoKernelNode fmt("Conv2D", {In(RandomFloats({1, 3, 5, 5}, 1)), In(RandomFloats({3, 3, 3, 4}, 2))},
                    nchw, /*known_shapes=*/false);
  fmt.ExpectSame(27, "Conv2D NCHW");
  // Depth mismatch and a filter of the wrong rank, past the shape function. (A grouped
  // depth is no error: the Eigen kernel computes groups, and the oneDNN kernel declines
  // the node when its static shapes show one, or computes it when they don't: below.)
  for (const auto& [input, filter] : std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>>{
           {{1, 5, 5, 3}, {3, 3, 4, 2}}, {{1, 5, 5, 3}, {3, 3, 3}}}) {
    TwoKernelNode bad("Conv2D", {In(RandomFloats(input, 3)), In(RandomFloats(filter, 4))},
                      c.Attrs(), /*known_shapes=*/false);
    bad.ExpectSame(27, Str("Conv2D ", DimsString(input), " ", DimsString(filter)));
  }
  // out_backprop of the wrong shape.
  TwoKernelNode grad("Conv2DBackpropInput",
                     {ConstIn(Int32s({1, 5, 5, 3})), In(RandomFloats({3, 3, 3, 4}, 5)),
                      In(RandomFloats({1, 4, 5, 4}, 6))},
                     c.Attrs(), /*known_shapes=*/false);
  grad.ExpectSame(36, "Conv2DBackpropInput with a wrong out_backprop");
  TwoKernelNode filter_grad("Conv2DBackpropFilter",
                            {In(RandomFloats({1, 5, 5, 3}, 7)), ConstIn(Int32s({3, 3, 3, 4})),
                             In(RandomFloats({1, 5, 6, 4}, 8))},
                            c.Attrs(), /*known_shapes=*/false);
  filter_grad.ExpectSame(25, "Conv2DBackpropFilter with a wrong out_backprop");
}

// Grouped convolutions whose depths the kernel's construction cannot see (unknown static
// shapes, as in a function body: Keras's grouped Conv2D in ConvNeXt) run on oneDNN's grouped
// primitives, as the Eigen kernel computes them: depthwise-like (one input channel per
// group, multipliers 1 and 2), a few wide groups, strides, SAME and VALID, the fused form
// with a bias and an activation; a depth that is no multiple of the filter's fails alike.
TEST(OneDnnConvTest, GroupedDepthsSeenOnlyWhenRun) {
  struct Case {
    std::vector<int64_t> input, filter;
    int64_t stride;
    std::string padding;
  };
  const std::vector<Case> cases = {{{1, 9, 9, 8}, {7, 7, 1, 8}, 1, "SAME"},
                                   {{2, 6, 7, 4}, {3, 3, 1, 8}, 2, "VALID"},
                                   {{1, 8, 8, 32}, {3, 3, 8, 16}, 1, "SAME"},
                                   {{3, 5, 5, 6}, {1, 1, 2, 9}, 1, "VALID"}};
  uint32_t seed = 200;
  for (const Case& c : cases) {
    AttrMap attrs{{"strides", AttrOfIntList({1, c.stride, c.stride, 1})}, {"padding", AttrOfString(c.padding)}};
    const std::string what = Str(DimsString(c.input), " ", DimsString(c.filter), " ", c.padding);
    TwoKernelNode plain("Conv2D", {In(RandomFloats(c.input, seed)), In(RandomFloats(c.filter, seed + 1))},
                        attrs, /*known_shapes=*/false);
    plain.ExpectSame(c.filter[0] * c.filter[1] * c.filter[2] + 8, "grouped Conv2D " + what);
    AttrMap fused_attrs = attrs;
    fused_attrs["fused_ops"] = AttrOfStringList({"BiasAdd", "Relu"});
    fused_attrs["num_args"] = AttrOfInt(1);
    TwoKernelNode fused("_FusedConv2D",
                        {In(RandomFloats(c.input, seed + 2)), In(RandomFloats(c.filter, seed + 3)),
                         ListIn(RandomFloats({c.filter[3]}, seed + 4)), EmptyList()},
                        fused_attrs, /*known_shapes=*/false);
    fused.ExpectSame(c.filter[0] * c.filter[1] * c.filter[2] + 8, "grouped _FusedConv2D " + what);
    seed += 10;
  }
  TwoKernelNode bad("Conv2D", {In(RandomFloats({1, 5, 5, 6}, 1)), In(RandomFloats({3, 3, 4, 6}, 2))},
                    {{"strides", AttrOfIntList({1, 1, 1, 1})}, {"padding", AttrOfString("SAME")}},
                    /*known_shapes=*/false);
  bad.ExpectSame(27, "Conv2D of depth 6 over a filter of depth 4");
}

TEST(OneDnnConvTest, InputSizesOfHeightAndWidthOnly) {
  Conv c = Geometry(2, 6, 5, 3, 3, 2, 4);
  TwoKernelNode node("Conv2DBackpropInput",
                     {ConstIn(Int32s({6, 5})), In(RandomFloats({3, 2, 3, 4}, 1)),
                      In(RandomFloats({2, 6, 5, 4}, 2))},
                     c.Attrs());
  node.ExpectSame(24, "Conv2DBackpropInput with input_sizes [6, 5]");
}

}  // namespace
}  // namespace tgraph::onednn_test
