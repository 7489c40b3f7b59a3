// The cases the device kernels used to refuse, on /device:GPU:0 against the CPU plugin (see
// kernels_test.cc for how graphs are built and compared): Conv2D with dilations and EXPLICIT
// padding, in NCHW (which the CPU plugin does not take: compared with its NHWC result,
// transposed here), Conv2DBackpropInput / Conv2DBackpropFilter and a small CNN's gradients
// all on the device; grouped convolutions, which the device declines by static shape, on the
// CPU; MaxPool / AvgPool and their gradients; GatherV2 with batch_dims; Sum / Mean / Max /
// Min / Prod over any axes; and many host<->device copies in a row (the OpenCL plugin's copies do not block: a feed's
// staging must outlive its copy, a fetch must have landed before it is read).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "device_test_util.h"

namespace {

using devtest::Builder;
using devtest::ExpectDeviceMatchesCpu;
using devtest::kCpu;
using devtest::kGpu;
using devtest::Random;
using devtest::RunResult;

class HolesTest : public devtest::DeviceTest {};

size_t Count(const std::vector<int64_t>& dims) {
  size_t n = 1;
  for (int64_t d : dims) n *= static_cast<size_t>(d);
  return n;
}

// ---- convolutions ----

// One convolution, described in NHWC: input [n, h, w, c], filter [kh, kw, c, oc].
struct ConvSpec {
  std::vector<int64_t> input, filter;
  int64_t sh, sw, dh, dw;
  std::string padding;
  std::vector<int64_t> pads = {0, 0, 0, 0};  // EXPLICIT: top, bottom, left, right

  std::string Name() const {
    std::string s = padding + " strides " + std::to_string(sh) + "," + std::to_string(sw) +
                    " dilations " + std::to_string(dh) + "," + std::to_string(dw);
    if (padding == "EXPLICIT") {
      s += " pads";
      for (int64_t p : pads) s += " " + std::to_string(p);
    }
    return s;
  }
  // The forward output's NHWC dims (TensorFlow's rules).
  std::vector<int64_t> OutputDims() const {
    auto out = [&](int64_t in, int64_t k, int64_t s, int64_t d, int64_t before, int64_t after) {
      const int64_t eff = (k - 1) * d + 1;
      if (padding == "SAME") return (in + s - 1) / s;
      if (padding == "VALID") return (in - eff + s) / s;
      return (in + before + after - eff + s) / s;
    };
    return {input[0], out(input[1], filter[0], sh, dh, pads[0], pads[1]),
            out(input[2], filter[1], sw, dw, pads[2], pads[3]), filter[3]};
  }
};

// The attrs of `c` in data_format `format`.
Builder::AttrFn ConvAttrs(const ConvSpec& c, bool nchw) {
  return [c, nchw](TG_OperationDescription* d) {
    const std::vector<int64_t> strides =
        nchw ? std::vector<int64_t>{1, 1, c.sh, c.sw} : std::vector<int64_t>{1, c.sh, c.sw, 1};
    const std::vector<int64_t> dilations =
        nchw ? std::vector<int64_t>{1, 1, c.dh, c.dw} : std::vector<int64_t>{1, c.dh, c.dw, 1};
    TG_SetAttrIntList(d, "strides", strides.data(), 4);
    TG_SetAttrIntList(d, "dilations", dilations.data(), 4);
    TG_SetAttrString(d, "padding", c.padding.data(), c.padding.size());
    const char* format = nchw ? "NCHW" : "NHWC";
    TG_SetAttrString(d, "data_format", format, std::strlen(format));
    if (c.padding == "EXPLICIT") {
      const std::vector<int64_t> p = c.pads;
      const std::vector<int64_t> explicit_paddings =
          nchw ? std::vector<int64_t>{0, 0, 0, 0, p[0], p[1], p[2], p[3]}
               : std::vector<int64_t>{0, 0, p[0], p[1], p[2], p[3], 0, 0};
      TG_SetAttrIntList(d, "explicit_paddings", explicit_paddings.data(), 8);
    }
  };
}

// NHWC <-> NCHW of a 4-D tensor's values (`dims` are the source's).
std::vector<float> ToNchw(const std::vector<float>& x, const std::vector<int64_t>& nhwc) {
  const int64_t n = nhwc[0], h = nhwc[1], w = nhwc[2], c = nhwc[3];
  std::vector<float> y(x.size());
  for (int64_t b = 0; b < n; ++b)
    for (int64_t i = 0; i < h; ++i)
      for (int64_t j = 0; j < w; ++j)
        for (int64_t k = 0; k < c; ++k)
          y[static_cast<size_t>(((b * c + k) * h + i) * w + j)] =
              x[static_cast<size_t>(((b * h + i) * w + j) * c + k)];
  return y;
}
std::vector<int64_t> NchwDims(const std::vector<int64_t>& nhwc) {
  return {nhwc[0], nhwc[3], nhwc[1], nhwc[2]};
}
std::vector<double> NchwToNhwc(const std::vector<double>& y, const std::vector<int64_t>& nchw) {
  const int64_t n = nchw[0], c = nchw[1], h = nchw[2], w = nchw[3];
  std::vector<double> x(y.size());
  for (int64_t b = 0; b < n; ++b)
    for (int64_t k = 0; k < c; ++k)
      for (int64_t i = 0; i < h; ++i)
        for (int64_t j = 0; j < w; ++j)
          x[static_cast<size_t>(((b * h + i) * w + j) * c + k)] =
              y[static_cast<size_t>(((b * c + k) * h + i) * w + j)];
  return x;
}

std::vector<int32_t> Ints(const std::vector<int64_t>& v) { return {v.begin(), v.end()}; }

// The three ops of one convolution, built in either format from the same NHWC values.
enum class ConvOp { kForward, kBackpropInput, kBackpropFilter };

TG_Output BuildConv(Builder& b, ConvOp op, const ConvSpec& c, bool nchw) {
  const std::vector<int64_t> out = c.OutputDims();
  const std::vector<float> x = Random(Count(c.input), -1, 1, 31);
  const std::vector<float> f = Random(Count(c.filter), -1, 1, 32);
  const std::vector<float> dy = Random(Count(out), -1, 1, 33);
  auto in4 = [&](const std::vector<float>& v, const std::vector<int64_t>& dims) {
    return nchw ? b.Feed(NchwDims(dims), ToNchw(v, dims)) : b.Feed(dims, v);
  };
  switch (op) {
    case ConvOp::kForward:
      return b.Op("Conv2D", {in4(x, c.input), b.Feed(c.filter, f)}, ConvAttrs(c, nchw), "conv");
    case ConvOp::kBackpropInput:
      return b.Op("Conv2DBackpropInput",
                  {b.HostInts({4}, Ints(nchw ? NchwDims(c.input) : c.input)),
                   b.Feed(c.filter, f), in4(dy, out)},
                  ConvAttrs(c, nchw), "conv");
    case ConvOp::kBackpropFilter:
      return b.Op("Conv2DBackpropFilter",
                  {in4(x, c.input), b.HostInts({4}, Ints(c.filter)), in4(dy, out)},
                  ConvAttrs(c, nchw), "conv");
  }
  return {};
}

const std::vector<ConvSpec>& ConvCases() {
  static const std::vector<ConvSpec> cases = {
      {{2, 9, 8, 3}, {3, 3, 3, 4}, 1, 1, 2, 2, "SAME"},
      {{2, 9, 8, 3}, {3, 3, 3, 4}, 1, 1, 2, 3, "VALID"},
      {{2, 9, 8, 3}, {3, 2, 3, 5}, 2, 1, 2, 2, "SAME"},
      {{1, 7, 7, 2}, {3, 3, 2, 3}, 1, 1, 1, 1, "EXPLICIT", {1, 2, 0, 3}},
      {{2, 8, 6, 3}, {2, 3, 3, 2}, 2, 2, 2, 1, "EXPLICIT", {3, 0, 1, 1}},
      {{1, 6, 6, 4}, {1, 1, 4, 3}, 1, 1, 1, 1, "EXPLICIT", {2, 2, 2, 2}},  // 1x1, padded
      {{1, 5, 5, 1}, {2, 2, 1, 1}, 3, 3, 3, 3, "VALID"},
      {{1, 4, 5, 2}, {3, 3, 2, 2}, 1, 2, 1, 1, "SAME"},
  };
  return cases;
}

const char* OpName(ConvOp op) {
  return op == ConvOp::kForward         ? "Conv2D"
         : op == ConvOp::kBackpropInput ? "Conv2DBackpropInput"
                                        : "Conv2DBackpropFilter";
}

// NHWC with dilations and EXPLICIT padding: the CPU plugin's result.
TEST_F(HolesTest, Conv2DAndGradientsWithDilationsAndExplicitPaddingMatchCpu) {
  for (ConvOp op : {ConvOp::kForward, ConvOp::kBackpropInput, ConvOp::kBackpropFilter}) {
    for (const ConvSpec& c : ConvCases()) {
      SCOPED_TRACE(std::string(OpName(op)) + " " + c.Name());
      ExpectDeviceMatchesCpu(
          [&](Builder& b) { return std::vector<TG_Output>{BuildConv(b, op, c, false)}; }, 1e-4,
          1e-4);
    }
  }
}

// NCHW: the CPU plugin's NHWC result, transposed.
TEST_F(HolesTest, Conv2DAndGradientsInNchwMatchCpuNhwc) {
  for (ConvOp op : {ConvOp::kForward, ConvOp::kBackpropInput, ConvOp::kBackpropFilter}) {
    for (const ConvSpec& c : ConvCases()) {
      SCOPED_TRACE(std::string(OpName(op)) + " NCHW " + c.Name());
      Builder cpu(kCpu), gpu(kGpu);
      const RunResult want = cpu.Run({BuildConv(cpu, op, c, false)});
      const RunResult got = gpu.Run({BuildConv(gpu, op, c, true)});
      ASSERT_EQ(want.code, TG_OK) << want.message;
      ASSERT_EQ(got.code, TG_OK) << got.message;
      EXPECT_EQ(got.DeviceOf("conv"), kGpu) << got.StepsString();
      std::vector<double> values = got.values[0].values;
      if (op != ConvOp::kBackpropFilter) {  // the filter's gradient is HWIO in both formats
        ASSERT_EQ(got.values[0].dims, NchwDims(want.values[0].dims));
        values = NchwToNhwc(values, got.values[0].dims);
      } else {
        ASSERT_EQ(got.values[0].dims, want.values[0].dims);
      }
      ASSERT_EQ(values.size(), want.values[0].values.size());
      for (size_t i = 0; i < values.size(); ++i) {
        const double a = want.values[0].values[i];
        ASSERT_NEAR(values[i], a, 1e-4 + 1e-4 * std::abs(a)) << "element " << i;
      }
    }
  }
}

// Runs `fetches` of `b`'s graph in a new session with or without soft placement.
RunResult RunPlaced(Builder& b, const std::vector<TG_Output>& fetches, bool soft) {
  TG_SessionOptions* options = TG_NewSessionOptions();
  TG_SetSessionAllowSoftPlacement(options, soft ? 1 : 0);
  TG_Status* s = TG_NewStatus();
  TG_Session* session = TG_NewSession(b.graph(), options, s);
  TG_DeleteSessionOptions(options);
  RunResult r;
  if (session == nullptr) {
    r.code = TG_GetCode(s);
    r.message = TG_Message(s);
  } else {
    r = b.RunIn(session, fetches);
    TG_DeleteSession(session, s);
  }
  TG_DeleteStatus(s);
  return r;
}

void ExpectContains(const std::string& message, const std::vector<std::string>& parts) {
  for (const std::string& part : parts) {
    EXPECT_NE(message.find(part), std::string::npos) << "no '" << part << "' in: " << message;
  }
}

// The CPU plugin's convolution kernels decline NCHW (plugin ABI 6) instead of failing: a
// convolution in NCHW asked for on the CPU runs on the device under soft placement, with
// copies to and from it, and gives the CPU's NHWC result; without soft placement the run
// fails at placement, naming the node, the kernel and the reason.
TEST_F(HolesTest, NchwConvolutionsTheCpuDeclinesRunOnTheDevice) {
  const ConvSpec& c = ConvCases()[0];
  for (ConvOp op : {ConvOp::kForward, ConvOp::kBackpropInput, ConvOp::kBackpropFilter}) {
    SCOPED_TRACE(std::string(OpName(op)) + " NCHW on " + kCpu);
    Builder cpu(kCpu), pinned(kCpu);
    const RunResult want = cpu.Run({BuildConv(cpu, op, c, false)});
    ASSERT_EQ(want.code, TG_OK) << want.message;
    const TG_Output conv = BuildConv(pinned, op, c, true);
    const RunResult got = RunPlaced(pinned, {conv}, /*soft=*/true);
    ASSERT_EQ(got.code, TG_OK) << got.message;
    EXPECT_EQ(got.DeviceOf("conv"), kGpu) << got.StepsString();
    EXPECT_GT(got.Copies(), 0) << got.StepsString();
    std::vector<double> values = got.values[0].values;
    if (op != ConvOp::kBackpropFilter) values = NchwToNhwc(values, got.values[0].dims);
    ASSERT_EQ(values.size(), want.values[0].values.size());
    for (size_t i = 0; i < values.size(); ++i) {
      const double a = want.values[0].values[i];
      ASSERT_NEAR(values[i], a, 1e-4 + 1e-4 * std::abs(a)) << "element " << i;
    }
    const RunResult strict = RunPlaced(pinned, {conv}, /*soft=*/false);
    EXPECT_EQ(strict.code, TG_INVALID_ARGUMENT) << strict.message;
    ExpectContains(strict.message, {"'conv'", "declined", "plugin 'cpu'",
                                    "supports only data_format 'NHWC', got 'NCHW'"});
  }
}

// Grouped convolutions (the input depth a multiple k of the filter's: k groups of channels,
// TensorFlow's rule): the device kernels compute none, and decline a node whose static shapes
// show one (plugin ABI 8), so under soft placement it runs on the CPU, whose kernels do, with
// copies from and to the device, and gives the CPU's result bit for bit; without soft
// placement the run fails at placement, naming the node and the reason. In NCHW, which the
// CPU declines too, no kernel takes it. Depths known only at run time still reach the device
// kernel, which refuses them (MaxArgMaxConvTest.Conv2DRejectsBadShapes).
TEST_F(HolesTest, GroupedConvolutionsTheDeviceDeclinesRunOnTheCpu) {
  const std::vector<ConvSpec> cases = {
      {{2, 6, 5, 4}, {3, 3, 2, 6}, 1, 1, 1, 1, "SAME"},        // 2 groups of 2 channels
      {{1, 7, 6, 6}, {2, 3, 2, 3}, 2, 1, 1, 2, "VALID"},       // 3 groups, strides, dilations
  };
  for (const ConvSpec& c : cases) {
    for (ConvOp op : {ConvOp::kForward, ConvOp::kBackpropInput, ConvOp::kBackpropFilter}) {
      SCOPED_TRACE(std::string(OpName(op)) + " " + c.Name() + ", " +
                   std::to_string(c.input[3] / c.filter[2]) + " groups");
      Builder cpu(kCpu), gpu(kGpu);
      cpu.DeclareFeedShapes();
      gpu.DeclareFeedShapes();
      const RunResult want = cpu.Run({BuildConv(cpu, op, c, false)});
      ASSERT_EQ(want.code, TG_OK) << want.message;
      const TG_Output conv = BuildConv(gpu, op, c, false);
      const TG_Output after = gpu.Op("Neg", {conv}, {}, "after");  // back on the device
      const RunResult got = RunPlaced(gpu, {conv, after}, /*soft=*/true);
      ASSERT_EQ(got.code, TG_OK) << got.message;
      EXPECT_EQ(got.DeviceOf("conv"), kCpu) << got.StepsString();
      EXPECT_EQ(got.DeviceOf("after"), kGpu) << got.StepsString();
      EXPECT_GT(got.CopiesOf("conv:0"), 0) << got.StepsString();
      ASSERT_EQ(got.values.size(), 2u);
      EXPECT_EQ(got.values[0].dims, want.values[0].dims);
      EXPECT_EQ(got.values[0].values, want.values[0].values);
      ASSERT_EQ(got.values[1].values.size(), want.values[0].values.size());
      for (size_t i = 0; i < want.values[0].values.size(); ++i) {
        ASSERT_EQ(got.values[1].values[i], -want.values[0].values[i]) << "element " << i;
      }
      const std::string reason = "grouped convolution (input depth " +
                                 std::to_string(c.input[3]) + ", filter input depth " +
                                 std::to_string(c.filter[2]) + ")";
      const RunResult strict = RunPlaced(gpu, {conv}, /*soft=*/false);
      EXPECT_EQ(strict.code, TG_INVALID_ARGUMENT) << strict.message;
      ExpectContains(strict.message, {"'conv'", "declined", reason});
      Builder nchw(kGpu);
      nchw.DeclareFeedShapes();
      const RunResult nowhere = RunPlaced(nchw, {BuildConv(nchw, op, c, true)}, /*soft=*/true);
      EXPECT_EQ(nowhere.code, TG_INVALID_ARGUMENT) << nowhere.message;
      ExpectContains(nowhere.message,
                     {"'conv'", reason, "supports only data_format 'NHWC', got 'NCHW'"});
    }
  }
}

// Pooling in NCHW and over the depth dimension: no shipped kernel takes them, and each
// declines (the device's and the CPU's), so placement fails naming every reason instead of
// a kernel failing when the step runs.
TEST_F(HolesTest, PoolingNoKernelTakesIsDeclinedEverywhere) {
  struct Case {
    std::vector<int64_t> ksize, strides;
    const char* format;
    const char* reason;
  };
  for (const Case& k : std::vector<Case>{
           {{1, 1, 2, 2}, {1, 1, 2, 2}, "NCHW", "supports only data_format 'NHWC', got 'NCHW'"},
           {{1, 1, 1, 2}, {1, 1, 1, 2}, "NHWC", "pooling over the depth dimension"}}) {
    for (const char* op : {"MaxPool", "AvgPool"}) {
      SCOPED_TRACE(std::string(op) + " " + k.format + " ksize " + std::to_string(k.ksize[3]));
      Builder gpu(kGpu);
      const TG_Output y = gpu.Op(
          op, {gpu.Feed({1, 2, 4, 4}, Random(32))},
          [&](TG_OperationDescription* d) {
            TG_SetAttrIntList(d, "ksize", k.ksize.data(), 4);
            TG_SetAttrIntList(d, "strides", k.strides.data(), 4);
            TG_SetAttrString(d, "padding", "VALID", 5);
            TG_SetAttrString(d, "data_format", k.format, std::strlen(k.format));
          },
          "pool");
      const RunResult r = RunPlaced(gpu, {y}, /*soft=*/true);
      EXPECT_EQ(r.code, TG_INVALID_ARGUMENT) << r.message;
      ExpectContains(r.message, {"'pool'", "Declined", "plugin 'cpu'", "on the CPU", k.reason});
      // The device kernel's reason too (its plugin's name is the backend's).
      const std::string type = std::string(kGpu).substr(std::strlen("/device:"));
      ExpectContains(r.message, {"on " + type.substr(0, type.rfind(':')) + " "});
    }
  }
}

// Conv2DBackpropInput's input_sizes may give only height and width (batch from out_backprop,
// depth from the filter), in either format.
TEST_F(HolesTest, Conv2DBackpropInputTakesHeightAndWidthOnly) {
  const ConvSpec c = {{2, 6, 5, 3}, {3, 3, 3, 4}, 2, 1, 1, 2, "SAME"};
  const std::vector<int64_t> out = c.OutputDims();
  const std::vector<float> f = Random(Count(c.filter), -1, 1, 71);
  const std::vector<float> dy = Random(Count(out), -1, 1, 72);
  Builder cpu(kCpu), gpu(kGpu);
  const RunResult want = cpu.Run({cpu.Op("Conv2DBackpropInput",
                                         {cpu.HostInts({2}, {6, 5}), cpu.Feed(c.filter, f),
                                          cpu.Feed(out, dy)},
                                         ConvAttrs(c, false), "dx")});
  const RunResult got = gpu.Run({gpu.Op("Conv2DBackpropInput",
                                        {gpu.HostInts({2}, {6, 5}), gpu.Feed(c.filter, f),
                                         gpu.Feed(NchwDims(out), ToNchw(dy, out))},
                                        ConvAttrs(c, true), "dx")});
  ASSERT_EQ(want.code, TG_OK) << want.message;
  ASSERT_EQ(got.code, TG_OK) << got.message;
  EXPECT_EQ(got.DeviceOf("dx"), kGpu) << got.StepsString();
  ASSERT_EQ(want.values[0].dims, c.input);
  ASSERT_EQ(got.values[0].dims, NchwDims(c.input));
  const std::vector<double> values = NchwToNhwc(got.values[0].values, got.values[0].dims);
  for (size_t i = 0; i < values.size(); ++i) {
    const double a = want.values[0].values[i];
    ASSERT_NEAR(values[i], a, 1e-4 + 1e-4 * std::abs(a)) << "element " << i;
  }
}

TEST_F(HolesTest, ConvGradientsRejectBadShapes) {
  const ConvSpec c = {{1, 5, 5, 2}, {3, 3, 2, 2}, 1, 1, 1, 1, "SAME"};
  ExpectDeviceError(
      [&](Builder& b) {
        return std::vector<TG_Output>{
            b.Op("Conv2DBackpropInput",
                 {b.HostInts({4}, {1, 5, 5, 2}), b.Feed(c.filter, Random(36)),
                  b.Feed({1, 4, 5, 2}, Random(40))},
                 ConvAttrs(c, false), "dx")};
      },
      TG_INVALID_ARGUMENT, "dx", "out_backprop must have the convolution's output shape");
  ExpectDeviceError(
      [&](Builder& b) {
        return std::vector<TG_Output>{
            b.Op("Conv2DBackpropFilter",
                 {b.Feed({1, 5, 5, 2}, Random(50)), b.FeedInt({3}, {3, 3, 2}),
                  b.Feed({1, 5, 5, 2}, Random(50))},
                 ConvAttrs(c, false), "df")};
      },
      TG_INVALID_ARGUMENT, "df", "filter_sizes must be an int32 vector of 4 values");
  ExpectDeviceError(
      [&](Builder& b) {
        return std::vector<TG_Output>{
            b.Op("Conv2DBackpropFilter",
                 {b.Feed({1, 5, 5, 3}, Random(75)), b.HostInts({4}, {3, 3, 2, 2}),
                  b.Feed({1, 5, 5, 2}, Random(50))},
                 ConvAttrs(c, false), "df")};
      },
      TG_INVALID_ARGUMENT, "df", "input depth must equal the filter's input depth");
}

// ---- pooling ----

struct PoolSpec {
  std::vector<int64_t> input;  // NHWC
  int64_t kh, kw, sh, sw;
  std::string padding;
  std::vector<int64_t> pads = {0, 0, 0, 0};  // EXPLICIT (MaxPool only): top, bottom, left, right

  std::vector<int64_t> OutputDims() const {
    auto out = [&](int64_t in, int64_t k, int64_t s, int64_t before, int64_t after) {
      if (padding == "SAME") return (in + s - 1) / s;
      if (padding == "VALID") return (in - k + s) / s;
      return (in + before + after - k + s) / s;
    };
    return {input[0], out(input[1], kh, sh, pads[0], pads[1]),
            out(input[2], kw, sw, pads[2], pads[3]), input[3]};
  }
  Builder::AttrFn Attrs() const {
    return [this](TG_OperationDescription* d) {
      const int64_t ksize[] = {1, kh, kw, 1}, strides[] = {1, sh, sw, 1};
      TG_SetAttrIntList(d, "ksize", ksize, 4);
      TG_SetAttrIntList(d, "strides", strides, 4);
      TG_SetAttrString(d, "padding", padding.data(), padding.size());
      if (padding == "EXPLICIT") {
        const int64_t p[] = {0, 0, pads[0], pads[1], pads[2], pads[3], 0, 0};
        TG_SetAttrIntList(d, "explicit_paddings", p, 8);
      }
    };
  }
};

TEST_F(HolesTest, PoolingAndGradientsMatchCpu) {
  const std::vector<PoolSpec> cases = {
      {{2, 7, 6, 3}, 2, 2, 2, 2, "VALID"},
      {{2, 7, 6, 3}, 3, 3, 2, 2, "SAME"},    // overlapping windows, padded edges
      {{1, 5, 8, 2}, 3, 2, 1, 3, "SAME"},
      {{1, 6, 6, 4}, 6, 6, 1, 1, "VALID"},   // one window per image
      {{2, 5, 5, 2}, 3, 3, 2, 1, "EXPLICIT", {1, 2, 0, 2}},
  };
  for (const PoolSpec& c : cases) {
    const bool explicit_padding = c.padding == "EXPLICIT";
    // Few distinct values: ties, whose gradient goes to the first maximum.
    std::vector<float> x = Random(Count(c.input), 0, 4, 61);
    for (float& v : x) v = static_cast<float>(static_cast<int>(v));
    const std::vector<int64_t> out = c.OutputDims();
    const std::vector<float> dy = Random(Count(out), -1, 1, 62);
    for (const char* op : {"MaxPool", "AvgPool", "MaxPoolGrad", "AvgPoolGrad"}) {
      const std::string name = op;
      if (explicit_padding && name.rfind("Avg", 0) == 0) continue;  // MaxPool's only
      SCOPED_TRACE(name + " " + c.padding + " window " + std::to_string(c.kh) + "x" +
                   std::to_string(c.kw) + " strides " + std::to_string(c.sh) + "," +
                   std::to_string(c.sw));
      ExpectDeviceMatchesCpu([&](Builder& b) {
        if (name == "MaxPool" || name == "AvgPool") {
          return std::vector<TG_Output>{b.Op(op, {b.Feed(c.input, x)}, c.Attrs(), "pool")};
        }
        if (name == "MaxPoolGrad") {
          return std::vector<TG_Output>{b.Op(
              op, {b.Feed(c.input, x), b.Feed(out, Random(Count(out))), b.Feed(out, dy)},
              c.Attrs(), "pool")};
        }
        return std::vector<TG_Output>{
            b.Op(op, {b.HostInts({4}, Ints(c.input)), b.Feed(out, dy)}, c.Attrs(), "pool")};
      }, 1e-5, 1e-6);
    }
  }
  // NaN: MaxPool skips it, MaxPoolGrad routes to it only when it comes first in its window.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const PoolSpec c = {{1, 4, 4, 1}, 2, 2, 2, 2, "VALID"};
  const std::vector<float> x = {nan, 1, 2, 3, 4, nan, 6, 7, 8, 9, nan, nan, 5, 1, nan, 2};
  for (const char* op : {"MaxPool", "MaxPoolGrad"}) {
    SCOPED_TRACE(op);
    ExpectDeviceMatchesCpu([&](Builder& b) {
      if (std::string(op) == "MaxPool") {
        return std::vector<TG_Output>{b.Op(op, {b.Feed(c.input, x)}, c.Attrs())};
      }
      return std::vector<TG_Output>{b.Op(op,
                                         {b.Feed(c.input, x), b.Feed({1, 2, 2, 1}, Random(4)),
                                          b.Feed({1, 2, 2, 1}, {1, 2, 3, 4})},
                                         c.Attrs())};
    });
  }
  ExpectDeviceError(
      [&](Builder& b) {
        return std::vector<TG_Output>{b.Op("MaxPoolGrad",
                                           {b.Feed(c.input, x), b.Feed({1, 2, 2, 1}, Random(4)),
                                            b.Feed({1, 3, 2, 1}, Random(6))},
                                           c.Attrs(), "grad")};
      },
      TG_INVALID_ARGUMENT, "grad", "grad must have the pooled shape [1,2,2,1]");
}

// A small CNN's gradients (TG_AddGradients: Conv2D's are Conv2DBackpropInput and
// Conv2DBackpropFilter, MaxPool's MaxPoolGrad) run on the device, every step of them, and
// match the CPU.
TEST_F(HolesTest, CnnGradientsRunOnTheDeviceAndMatchCpu) {
  auto build = [](Builder& b) {
    b.DeclareFeedShapes();  // static shapes: the gradients take constant shapes
    TG_Output x = b.Feed({2, 9, 9, 3}, Random(2 * 9 * 9 * 3, -1, 1, 41));
    TG_Output f1 = b.Feed({3, 3, 3, 4}, Random(3 * 3 * 3 * 4, -0.5f, 0.5f, 42));
    TG_Output f2 = b.Feed({2, 2, 4, 5}, Random(2 * 2 * 4 * 5, -0.5f, 0.5f, 43));
    const ConvSpec dilated = {{2, 9, 9, 3}, {3, 3, 3, 4}, 1, 1, 2, 2, "SAME"};
    const ConvSpec strided = {{2, 9, 9, 4}, {2, 2, 4, 5}, 2, 2, 1, 1, "EXPLICIT", {1, 0, 0, 1}};
    TG_Output h = b.Op("Conv2D", {x, f1}, ConvAttrs(dilated, false), "conv1");
    h = b.Op("Relu", {h}, {}, "relu1");
    const PoolSpec pool = {{2, 9, 9, 4}, 3, 3, 1, 1, "SAME"};
    h = b.Op("MaxPool", {h}, pool.Attrs(), "pool1");
    h = b.Op("Conv2D", {h, f2}, ConvAttrs(strided, false), "conv2");
    TG_Output loss =
        b.Op("Mean", {b.Op("Tanh", {h}, {}, "tanh"), b.HostInts({4}, {0, 1, 2, 3})}, {}, "loss");
    TG_Status* s = TG_NewStatus();
    TG_GraphPushDevice(b.graph(), b.device().c_str(), s);
    std::vector<TG_Output> wrt = {x, f1, f2}, grads(3);
    TG_AddGradients(b.graph(), &loss, 1, wrt.data(), 3, nullptr, s, grads.data());
    EXPECT_EQ(TG_GetCode(s), TG_OK) << TG_Message(s);
    TG_GraphPopDevice(b.graph(), s);
    TG_DeleteStatus(s);
    return grads;
  };
  Builder cpu(kCpu), gpu(kGpu);
  const std::vector<TG_Output> cpu_grads = build(cpu), gpu_grads = build(gpu);
  const RunResult want = cpu.Run(cpu_grads);
  const RunResult got = gpu.Run(gpu_grads);
  ASSERT_EQ(want.code, TG_OK) << want.message;
  ASSERT_EQ(got.code, TG_OK) << got.message << "\n" << got.StepsString();
  for (size_t f = 0; f < want.values.size(); ++f) {
    ASSERT_EQ(got.values[f].dims, want.values[f].dims) << "gradient " << f;
    for (size_t i = 0; i < want.values[f].values.size(); ++i) {
      const double a = want.values[f].values[i];
      ASSERT_NEAR(got.values[f].values[i], a, 1e-5 + 1e-4 * std::abs(a))
          << "gradient " << f << " element " << i;
    }
  }
  int backprops = 0;
  for (const devtest::Step& step : got.steps) {
    if (step.op == "_Copy" || (step.op == "Const" && step.device == kCpu)) continue;
    EXPECT_EQ(step.device, kGpu) << step.name << " (" << step.op << ")\n" << got.StepsString();
    backprops += step.op == "Conv2DBackpropInput" || step.op == "Conv2DBackpropFilter" ||
                 step.op == "MaxPoolGrad";
  }
  EXPECT_GE(backprops, 4) << got.StepsString();
}

// ---- GatherV2 with batch_dims ----

TEST_F(HolesTest, GatherV2WithBatchDimsMatchesCpu) {
  struct Case {
    std::vector<int64_t> params, indices_dims;
    int32_t axis;
    int64_t batch_dims;
  };
  const std::vector<Case> cases = {
      {{3, 5, 2}, {3, 4}, 1, 1},        // per-row lookups
      {{3, 5, 2}, {3, 4}, -2, -1},      // negative axis and batch_dims
      {{2, 3, 5, 2}, {2, 6}, 2, 1},     // a dim between the batch dims and the axis
      {{2, 3, 5}, {2, 3, 4}, 2, 2},     // two batch dims, the last axis
      {{2, 3, 5}, {2, 3}, 2, 2},        // as many batch dims as indices dims: one per row
      {{4, 6}, {4, 0}, 1, 1},           // no indices
  };
  for (const Case& c : cases) {
    SCOPED_TRACE("axis " + std::to_string(c.axis) + " batch_dims " + std::to_string(c.batch_dims) +
                 " of rank " + std::to_string(c.params.size()));
    const size_t nidx = Count(c.indices_dims);
    const int64_t axis = c.axis < 0 ? c.axis + static_cast<int64_t>(c.params.size()) : c.axis;
    const int64_t limit = c.params[static_cast<size_t>(axis)];
    std::vector<int32_t> indices(nidx);
    for (size_t i = 0; i < nidx; ++i) indices[i] = static_cast<int32_t>((i * 7 + 3) % limit);
    ExpectDeviceMatchesCpu([&](Builder& b) {
      return std::vector<TG_Output>{
          b.Op("GatherV2",
               {b.Feed(c.params, Random(Count(c.params))), b.FeedInt(c.indices_dims, indices),
                b.HostInts({}, {c.axis})},
               [&](TG_OperationDescription* d) { TG_SetAttrInt(d, "batch_dims", c.batch_dims); })};
    }, 0, 0);
  }
  auto gather = [](std::vector<int32_t> indices, int64_t batch_dims,
                   std::vector<int64_t> indices_dims) {
    return [=](Builder& b) {
      return std::vector<TG_Output>{
          b.Op("GatherV2",
               {b.Feed({2, 3, 2}, Random(12)), b.FeedInt(indices_dims, indices),
                b.HostInts({}, {1})},
               [&](TG_OperationDescription* d) { TG_SetAttrInt(d, "batch_dims", batch_dims); },
               "gather")};
    };
  };
  ExpectDeviceError(gather({0, 1, 2, 3}, 1, {2, 2}), TG_INVALID_ARGUMENT, "gather",
                    "indices[1,1] = 3 is not in [0, 3)");
  ExpectDeviceError(gather({0, 1, 2}, 1, {3, 1}), TG_INVALID_ARGUMENT, "gather",
                    "params.shape[0]: 2 should be equal to indices.shape[0]: 3");
  ExpectDeviceError(gather({0, 1}, 2, {2, 1}), TG_INVALID_ARGUMENT, "gather",
                    "must be less than rank(params) (3) and at most axis (1)");
  ExpectDeviceError(gather({0, 1}, 3, {2, 1}), TG_INVALID_ARGUMENT, "gather",
                    "Expected batch_dims in the range [-2, 2]");
}

// ---- reductions over any axes ----

TEST_F(HolesTest, ReductionsOverAnyAxesMatchCpu) {
  struct Case {
    std::vector<int64_t> dims;
    std::vector<int32_t> axes;
    bool keep_dims;
  };
  const std::vector<Case> cases = {
      {{2, 3, 4}, {0, 2}, false},              // non-adjacent
      {{2, 3, 4}, {-3, -1}, true},             // the same, negative, keep_dims
      {{3, 4, 5, 6}, {1, 3}, false},           // kept dims on both sides of each
      {{3, 4, 5, 6}, {0, 2}, true},
      {{2, 3, 2, 3, 2, 3}, {0, 2, 4}, false},  // three reduced groups
      {{2, 3, 2, 3, 2, 3}, {5, 3, 1}, true},
      {{4, 1, 5, 1, 6}, {1, 2, 4}, false},     // size-1 axes among them
      {{2, 3, 4}, {2, 0, 2}, false},           // a repeated axis
      {{5, 300}, {1}, false},                  // adjacent (Min, Prod: the general kernel)
      {{300, 5}, {0}, true},
      {{4, 7}, {0, 1}, false},
      {{3, 4}, {}, false},                     // nothing reduced
      {{3, 0, 2}, {1}, false},                 // an empty axis: the identity (Mean NaN)
      {{3, 0, 2}, {0, 2}, true},               // no output
  };
  for (const char* op : {"Sum", "Mean", "Max", "Min", "Prod"}) {
    const bool prod = std::string(op) == "Prod";
    for (const Case& c : cases) {
      SCOPED_TRACE(std::string(op) + " over " + std::to_string(c.axes.size()) + " axes of " +
                   std::to_string(c.dims.size()) + "-d");
      // Prod: factors near 1, so long products stay finite.
      const std::vector<float> x =
          prod ? Random(Count(c.dims), 0.9f, 1.1f, 19) : Random(Count(c.dims), -2, 2, 19);
      ExpectDeviceMatchesCpu([&](Builder& b) {
        return std::vector<TG_Output>{
            b.Op(op,
                 {b.Feed(c.dims, x), b.HostInts({static_cast<int64_t>(c.axes.size())}, c.axes)},
                 [&](TG_OperationDescription* d) { TG_SetAttrBool(d, "keep_dims", c.keep_dims); })};
      }, 1e-4, 1e-5);
    }
  }
  // NaN propagates through Max and Min along non-adjacent axes too.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> x = Random(24, -1, 1, 5);
  x[5] = nan;
  for (const char* op : {"Max", "Min"}) {
    SCOPED_TRACE(op);
    ExpectDeviceMatchesCpu([&](Builder& b) {
      return std::vector<TG_Output>{b.Op(op, {b.Feed({2, 3, 4}, x), b.HostInts({2}, {0, 2})})};
    });
  }
  ExpectDeviceError(
      [](Builder& b) {
        return std::vector<TG_Output>{
            b.Op("Min", {b.Feed({2, 3}, Random(6)), b.HostInts({2}, {0, -3})}, {}, "min")};
      },
      TG_INVALID_ARGUMENT, "min", "Invalid reduction dimension (-3");
  // Many alternating groups of kept and reduced dims: 9 kept and 8 reduced (rank 17), 9 kept
  // and 10 reduced (rank 19), past the 8 of each kind the device kernels once took (a
  // run-time UNIMPLEMENTED then: a kernel cannot decline on shapes). 16 of each kind cover
  // every input of fewer than 2^31 elements (device_common/reduce_args.h).
  struct Many {
    const char* op;
    int64_t rank;
    bool odd_axes;
  };
  for (const Many& m : {Many{"Sum", 17, true}, Many{"Mean", 19, false}, Many{"Max", 19, false},
                        Many{"Prod", 17, true}}) {
    SCOPED_TRACE(std::string(m.op) + " of rank " + std::to_string(m.rank));
    const std::vector<int64_t> dims(static_cast<size_t>(m.rank), 2);
    std::vector<int32_t> axes;
    for (int32_t a = m.odd_axes ? 1 : 0; a < m.rank; a += 2) axes.push_back(a);
    const bool prod = std::string(m.op) == "Prod";
    const std::vector<float> x =
        prod ? Random(Count(dims), 0.9f, 1.1f, 23) : Random(Count(dims), -2, 2, 23);
    ExpectDeviceMatchesCpu([&](Builder& b) {
      return std::vector<TG_Output>{
          b.Op(m.op, {b.Feed(dims, x), b.HostInts({static_cast<int64_t>(axes.size())}, axes)})};
    }, 1e-4, 1e-5);
  }
}

// ---- many copies in a row ----

// 300 runs of one session, each with new feeds of several sizes: the feeds go to the device,
// through device ops, back to a CPU op, to the device again, and out. Every value is checked,
// so a copy that read its source after the core reused it, or a fetch read before it landed,
// shows up as a wrong value.
TEST_F(HolesTest, ManyFeedsAndFetchesInARow) {
  TG_Status* s = TG_NewStatus();
  TG_Graph* g = TG_NewGraph();
  auto op = [&](const char* type, std::vector<TG_Output> inputs, const char* device,
                const std::string& name, TG_DataType dtype = TG_FLOAT) {
    TG_OperationDescription* d = TG_NewOperation(g, type, name.c_str());
    for (const TG_Output& in : inputs) TG_AddInput(d, in);
    if (std::string(type) == "Placeholder") TG_SetAttrType(d, "dtype", dtype);
    if (device != nullptr) TG_SetDevice(d, device);
    TG_Operation* o = TG_FinishOperation(d, s);
    EXPECT_EQ(TG_GetCode(s), TG_OK) << name << ": " << TG_Message(s);
    return TG_Output{o, 0};
  };
  const std::vector<int64_t> sizes = {1, 37, 4096, 100003};
  std::vector<TG_Output> feeds, fetches;
  for (size_t k = 0; k < sizes.size(); ++k) {
    const std::string p = "f" + std::to_string(k);
    TG_Output x = op("Placeholder", {}, nullptr, p);
    TG_Output a = op("Add", {x, x}, kGpu, p + "/double");      // 2x, on the device
    TG_Output b = op("Mul", {a, x}, kCpu, p + "/times_x");     // 2x^2, on the CPU
    TG_Output c = op("Sub", {b, a}, kGpu, p + "/minus_2x");    // 2x^2 - 2x, on the device
    feeds.push_back(x);
    fetches.push_back(a);
    fetches.push_back(c);
  }
  TG_Session* session = TG_NewSession(g, nullptr, s);
  ASSERT_NE(session, nullptr) << TG_Message(s);
  for (int run = 0; run < 300; ++run) {
    std::vector<TG_Tensor*> values;
    for (size_t k = 0; k < sizes.size(); ++k) {
      const int64_t n = sizes[k];
      TG_Tensor* t = TG_AllocateTensor(TG_FLOAT, &n, 1, static_cast<size_t>(n) * sizeof(float));
      auto* p = static_cast<float*>(TG_TensorData(t));
      for (int64_t i = 0; i < n; ++i) p[i] = static_cast<float>((run * 7 + i * 3 + k) % 61) - 30;
      values.push_back(t);
    }
    std::vector<TG_Tensor*> outs(fetches.size(), nullptr);
    TG_SessionRun(session, nullptr, feeds.data(), values.data(), static_cast<int>(feeds.size()),
                  fetches.data(), outs.data(), static_cast<int>(fetches.size()), nullptr, 0,
                  nullptr, s);
    ASSERT_EQ(TG_GetCode(s), TG_OK) << "run " << run << ": " << TG_Message(s);
    for (size_t k = 0; k < sizes.size(); ++k) {
      const auto* x = static_cast<const float*>(TG_TensorData(values[k]));
      const auto* a = static_cast<const float*>(TG_TensorData(outs[2 * k]));
      const auto* c = static_cast<const float*>(TG_TensorData(outs[2 * k + 1]));
      ASSERT_EQ(TG_TensorElementCount(outs[2 * k]), sizes[k]);
      ASSERT_EQ(TG_TensorElementCount(outs[2 * k + 1]), sizes[k]);
      for (int64_t i = 0; i < sizes[k]; ++i) {
        const float v = x[i];
        ASSERT_EQ(a[i], 2 * v) << "run " << run << " feed " << k << " element " << i;
        ASSERT_EQ(c[i], 2 * v * v - 2 * v) << "run " << run << " feed " << k << " element " << i;
      }
    }
    for (TG_Tensor* t : values) TG_DeleteTensor(t);
    for (TG_Tensor* t : outs) TG_DeleteTensor(t);
  }
  TG_DeleteSession(session, s);
  TG_DeleteGraph(g);
  TG_DeleteStatus(s);
}

}  // namespace
