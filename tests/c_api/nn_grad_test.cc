// Finite-difference checks (float64, through TG_AddGradients) of the nn ops' gradients
// (core/autodiff/nn_grad.cc).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "gradient_check_util.h"

namespace tgtest {
namespace {

using Dims = std::vector<int64_t>;

void SetInts(TG_OperationDescription* d, const char* name, const std::vector<int64_t>& v) {
  TG_SetAttrIntList(d, name, v.data(), static_cast<int>(v.size()));
}

void SetString(TG_OperationDescription* d, const char* name, const std::string& v) {
  TG_SetAttrString(d, name, v.data(), v.size());
}

int64_t NumElements(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

// Random values in [-range, range] at least `gap` away from every point in `kinks`, so
// central differences never straddle a kink (Relu at 0, Relu6 at 0 and 6).
std::vector<double> AwayFrom(const std::vector<int64_t>& dims, double range,
                             const std::vector<double>& kinks, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> uniform(-range, range);
  std::vector<double> v;
  while (static_cast<int64_t>(v.size()) < NumElements(dims)) {
    const double x = uniform(rng);
    bool near = false;
    for (double k : kinks) near = near || std::abs(x - k) < 0.05;
    if (!near) v.push_back(x);
  }
  return v;
}

// Distinct values (a shuffled ramp), so every pooling window has a single maximum with a
// margin far larger than the finite-difference step.
std::vector<double> Distinct(const std::vector<int64_t>& dims, unsigned seed) {
  const int64_t n = NumElements(dims);
  std::vector<double> v;
  for (int64_t i = 0; i < n; ++i) v.push_back(-1.0 + 2.0 * static_cast<double>(i) / n);
  std::mt19937 rng(seed);
  std::shuffle(v.begin(), v.end(), rng);
  return v;
}

// Rows of positive values summing to 1: the op's backprop output is the loss gradient only
// for labels that are distributions (as in TensorFlow).
std::vector<double> Distributions(int64_t rows, int64_t cols, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> uniform(0.1, 1.0);
  std::vector<double> v;
  for (int64_t r = 0; r < rows; ++r) {
    double sum = 0;
    const size_t start = v.size();
    for (int64_t c = 0; c < cols; ++c) {
      v.push_back(uniform(rng));
      sum += v.back();
    }
    for (size_t k = start; k < v.size(); ++k) v[k] /= sum;
  }
  return v;
}

GradBuildFn Unary(const char* type) {
  return [type](TG_Graph* g, const std::vector<TG_Output>& in) { return AddOp(g, type, {in[0]}); };
}

// ---- activations ----

TEST(NnGradTest, Relu) {
  for (const Dims& dims : std::vector<Dims>{{7}, {3, 4}}) {
    CheckGradients({{dims, AwayFrom(dims, 1.0, {0.0}, 1)}}, Unary("Relu"));
  }
}

TEST(NnGradTest, Relu6) {
  const std::vector<int64_t> dims{4, 5};
  CheckGradients({{dims, AwayFrom(dims, 8.0, {0.0, 6.0}, 2)}}, Unary("Relu6"));
}

TEST(NnGradTest, Elu) {
  const std::vector<int64_t> dims{3, 4};
  CheckGradients({{dims, AwayFrom(dims, 2.0, {0.0}, 3)}}, Unary("Elu"));
}

TEST(NnGradTest, Softplus) {
  CheckGradients({{{3, 4}}}, Unary("Softplus"));
  CheckGradients({GradInputSpec{{5}, {-30.0, -3.0, 0.0, 3.0, 30.0}}}, Unary("Softplus"));
}

// ---- softmax and losses ----

TEST(NnGradTest, Softmax) {
  for (const Dims& dims : std::vector<Dims>{{5}, {3, 4}, {2, 3, 4}}) {
    CheckGradients({{dims}}, Unary("Softmax"));
  }
}

TEST(NnGradTest, LogSoftmax) {
  for (const Dims& dims : std::vector<Dims>{{5}, {3, 4}, {2, 3, 4}}) {
    CheckGradients({{dims}}, Unary("LogSoftmax"));
  }
}

TEST(NnGradTest, SoftmaxCrossEntropyWithLogitsLoss) {
  CheckGradients({{{3, 4}}, {{3, 4}, Distributions(3, 4, 4)}},
                 [](TG_Graph* g, const std::vector<TG_Output>& in) {
    return AddOp(g, "SoftmaxCrossEntropyWithLogits", {in[0], in[1]}, {}, 0);
  });
}

TEST(NnGradTest, SoftmaxCrossEntropyWithLogitsBackpropOutput) {
  // The second output (softmax - labels) differentiated on its own, then with the loss.
  CheckGradients({{{2, 5}}, {{2, 5}, Distributions(2, 5, 5)}},
                 [](TG_Graph* g, const std::vector<TG_Output>& in) {
    return AddOp(g, "SoftmaxCrossEntropyWithLogits", {in[0], in[1]}, {}, 1);
  });
  CheckGradients({{{2, 5}}, {{2, 5}, Distributions(2, 5, 6)}},
                 [](TG_Graph* g, const std::vector<TG_Output>& in) {
    TG_Output loss = AddOp(g, "SoftmaxCrossEntropyWithLogits", {in[0], in[1]}, {}, 0);
    TG_Output backprop{loss.oper, 1};
    TG_Output row = AddOp(g, "Sum", {AddOp(g, "Square", {backprop}), ScalarInt32(g, 1)});
    return AddOp(g, "AddV2", {loss, row});
  });
}

TEST(NnGradTest, SparseSoftmaxCrossEntropyWithLogits) {
  for (int output : {0, 1}) {
    CheckGradients({{{4, 5}}}, [output](TG_Graph* g, const std::vector<TG_Output>& in) {
      TG_Output labels = ConstInt32(g, {0, 4, 2, 2});
      return AddOp(g, "SparseSoftmaxCrossEntropyWithLogits", {in[0], labels}, {}, output);
    });
  }
  CheckGradients({{{3, 2}}}, [](TG_Graph* g, const std::vector<TG_Output>& in) {
    TG_Output labels = ConstInt64(g, {1, 0, 1});
    return AddOp(g, "SparseSoftmaxCrossEntropyWithLogits", {in[0], labels}, {}, 0);
  });
}

TEST(NnGradTest, L2Loss) {
  CheckGradients({{{3, 4}}}, Unary("L2Loss"));
  CheckGradients({GradInputSpec{{}, {0.7}}}, Unary("L2Loss"));
}

// ---- bias, convolution, pooling ----

TEST(NnGradTest, BiasAddNhwc) {
  CheckGradients({{{2, 3, 4}}, {{4}}}, [](TG_Graph* g, const std::vector<TG_Output>& in) {
    return AddOp(g, "BiasAdd", {in[0], in[1]});
  });
  CheckGradients({{{3, 2}}, {{2}}}, [](TG_Graph* g, const std::vector<TG_Output>& in) {
    return AddOp(g, "BiasAdd", {in[0], in[1]});
  });
}

TEST(NnGradTest, BiasAddNchw) {
  CheckGradients({{{2, 3, 2, 2}}, {{3}}}, [](TG_Graph* g, const std::vector<TG_Output>& in) {
    return AddOp(g, "BiasAdd", {in[0], in[1]},
                 [](TG_OperationDescription* d) { SetString(d, "data_format", "NCHW"); });
  });
}

struct ConvCase {
  std::vector<int64_t> input, filter, strides, dilations;
  std::string padding;
  std::vector<int64_t> explicit_paddings = {};
};

void CheckConv(const ConvCase& c) {
  SCOPED_TRACE("padding " + c.padding + ", stride " + std::to_string(c.strides[1]) +
               ", dilation " + std::to_string(c.dilations[1]));
  CheckGradients({{c.input}, {c.filter}}, [&c](TG_Graph* g, const std::vector<TG_Output>& in) {
    return AddOp(g, "Conv2D", {in[0], in[1]}, [&c](TG_OperationDescription* d) {
      SetInts(d, "strides", c.strides);
      SetInts(d, "dilations", c.dilations);
      SetString(d, "padding", c.padding);
      if (!c.explicit_paddings.empty()) SetInts(d, "explicit_paddings", c.explicit_paddings);
    });
  });
}

TEST(NnGradTest, Conv2DSameAndValid) {
  CheckConv({{2, 5, 5, 3}, {3, 3, 3, 2}, {1, 1, 1, 1}, {1, 1, 1, 1}, "SAME"});
  CheckConv({{1, 5, 4, 2}, {2, 3, 2, 3}, {1, 1, 1, 1}, {1, 1, 1, 1}, "VALID"});
}

TEST(NnGradTest, Conv2DStride2) {
  CheckConv({{2, 6, 5, 2}, {3, 3, 2, 2}, {1, 2, 2, 1}, {1, 1, 1, 1}, "SAME"});
  CheckConv({{1, 7, 6, 2}, {3, 2, 2, 3}, {1, 2, 2, 1}, {1, 1, 1, 1}, "VALID"});
  CheckConv({{1, 6, 7, 1}, {2, 2, 1, 2}, {1, 2, 3, 1}, {1, 1, 1, 1}, "SAME"});
}

TEST(NnGradTest, Conv2DDilation2) {
  CheckConv({{1, 7, 7, 2}, {3, 3, 2, 2}, {1, 1, 1, 1}, {1, 2, 2, 1}, "VALID"});
  CheckConv({{2, 6, 5, 1}, {2, 3, 1, 2}, {1, 1, 1, 1}, {1, 2, 2, 1}, "SAME"});
}

// Conv3D's gradient (Conv3DBackpropInputV2 / FilterV2), and theirs: strides, dilations and
// both paddings.
void CheckConv3D(const ConvCase& c) {
  SCOPED_TRACE("Conv3D padding " + c.padding);
  auto set = [&c](TG_OperationDescription* d) {
    SetInts(d, "strides", c.strides);
    SetInts(d, "dilations", c.dilations);
    SetString(d, "padding", c.padding);
  };
  CheckGradients({{c.input}, {c.filter}}, [&](TG_Graph* g, const std::vector<TG_Output>& in) {
    return AddOp(g, "Conv3D", {in[0], in[1]}, set);
  });
  // The backprops are linear in their tensors: their own gradients, by the same check.
  CheckGradients({{c.filter}, {c.input}}, [&](TG_Graph* g, const std::vector<TG_Output>& in) {
    TG_Output y = AddOp(g, "Conv3D", {in[1], in[0]}, set);
    TG_Output sizes = AddOp(g, "Shape", {in[1]});
    TG_Output dx = AddOp(g, "Conv3DBackpropInputV2", {sizes, in[0], AddOp(g, "Tanh", {y})}, set);
    TG_Output fsizes = AddOp(g, "Shape", {in[0]});
    TG_Output df = AddOp(g, "Conv3DBackpropFilterV2", {in[1], fsizes, AddOp(g, "Square", {y})}, set);
    TG_Output flat = AddOp(g, "Reshape", {dx, ConstInt32(g, {-1})});
    TG_Output flat_f = AddOp(g, "Reshape", {df, ConstInt32(g, {-1})});
    return AddOp(g, "ConcatV2", {OpArg::List({flat, flat_f}), ScalarInt32(g, 0)});
  });
}

TEST(NnGradTest, Conv3D) {
  CheckConv3D({{1, 4, 3, 4, 2}, {2, 2, 3, 2, 3}, {1, 1, 1, 2, 1}, {1, 1, 1, 1, 1}, "SAME"});
  CheckConv3D({{2, 5, 3, 3, 1}, {2, 2, 2, 1, 2}, {1, 2, 1, 1, 1}, {1, 1, 1, 1, 1}, "VALID"});
  CheckConv3D({{1, 5, 4, 3, 2}, {2, 2, 1, 2, 2}, {1, 1, 1, 1, 1}, {1, 2, 2, 1, 1}, "SAME"});
}

TEST(NnGradTest, Conv2DExplicitPadding) {
  CheckConv({{1, 4, 5, 2}, {3, 2, 2, 2}, {1, 2, 1, 1}, {1, 1, 1, 1}, "EXPLICIT",
             {0, 0, 1, 2, 2, 0, 0, 0}});
}

// The backprop ops are differentiable too (conv2d_transpose, second derivatives): each is
// linear in its two tensor inputs; the sizes input is a constant.
void CheckConvBackprops(const ConvCase& c, const std::vector<int64_t>& out_dims) {
  SCOPED_TRACE("backprops, padding " + c.padding + ", stride " + std::to_string(c.strides[1]));
  auto attrs = [&c](TG_OperationDescription* d) {
    SetInts(d, "strides", c.strides);
    SetInts(d, "dilations", c.dilations);
    SetString(d, "padding", c.padding);
  };
  auto int32s = [](const std::vector<int64_t>& v) { return std::vector<int32_t>(v.begin(), v.end()); };
  CheckGradients({{c.filter}, {out_dims}}, [&](TG_Graph* g, const std::vector<TG_Output>& in) {
    return AddOp(g, "Conv2DBackpropInput", {ConstInt32(g, int32s(c.input)), in[0], in[1]}, attrs);
  });
  CheckGradients({{c.input}, {out_dims}}, [&](TG_Graph* g, const std::vector<TG_Output>& in) {
    return AddOp(g, "Conv2DBackpropFilter", {in[0], ConstInt32(g, int32s(c.filter)), in[1]}, attrs);
  });
}

TEST(NnGradTest, Conv2DBackpropInputAndFilter) {
  CheckConvBackprops({{2, 5, 5, 3}, {3, 3, 3, 2}, {1, 1, 1, 1}, {1, 1, 1, 1}, "SAME"}, {2, 5, 5, 2});
  CheckConvBackprops({{1, 7, 6, 2}, {3, 2, 2, 3}, {1, 2, 2, 1}, {1, 1, 1, 1}, "VALID"}, {1, 3, 3, 3});
  CheckConvBackprops({{1, 7, 7, 2}, {3, 3, 2, 2}, {1, 1, 1, 1}, {1, 2, 2, 1}, "VALID"}, {1, 3, 3, 2});
}

struct PoolCase {
  std::vector<int64_t> input, ksize, strides;
  std::string padding;
  std::vector<int64_t> explicit_paddings = {};
};

void CheckPool(const char* type, const PoolCase& c, bool distinct) {
  SCOPED_TRACE(std::string(type) + " padding " + c.padding + ", ksize " +
               std::to_string(c.ksize[1]) + ", stride " + std::to_string(c.strides[1]));
  GradInputSpec spec{c.input};
  if (distinct) spec.values = Distinct(c.input, 7);
  CheckGradients({spec}, [&c, type](TG_Graph* g, const std::vector<TG_Output>& in) {
    return AddOp(g, type, {in[0]}, [&c](TG_OperationDescription* d) {
      SetInts(d, "ksize", c.ksize);
      SetInts(d, "strides", c.strides);
      SetString(d, "padding", c.padding);
      if (!c.explicit_paddings.empty()) SetInts(d, "explicit_paddings", c.explicit_paddings);
    });
  });
}

TEST(NnGradTest, MaxPool) {
  CheckPool("MaxPool", {{2, 4, 4, 3}, {1, 2, 2, 1}, {1, 2, 2, 1}, "VALID"}, true);
  CheckPool("MaxPool", {{1, 5, 5, 2}, {1, 3, 3, 1}, {1, 2, 2, 1}, "SAME"}, true);
  CheckPool("MaxPool", {{1, 4, 5, 2}, {1, 3, 2, 1}, {1, 1, 1, 1}, "SAME"}, true);
  CheckPool("MaxPool", {{2, 5, 4, 1}, {1, 3, 3, 1}, {1, 2, 1, 1}, "VALID"}, true);
  CheckPool("MaxPool",
            {{1, 4, 4, 2}, {1, 2, 2, 1}, {1, 2, 1, 1}, "EXPLICIT", {0, 0, 1, 0, 0, 1, 0, 0}},
            true);
}

TEST(NnGradTest, AvgPool) {
  CheckPool("AvgPool", {{2, 4, 4, 3}, {1, 2, 2, 1}, {1, 2, 2, 1}, "VALID"}, false);
  CheckPool("AvgPool", {{1, 5, 5, 2}, {1, 3, 3, 1}, {1, 2, 2, 1}, "SAME"}, false);
  CheckPool("AvgPool", {{1, 4, 5, 2}, {1, 3, 2, 1}, {1, 1, 1, 1}, "SAME"}, false);
  CheckPool("AvgPool", {{2, 5, 4, 1}, {1, 3, 3, 1}, {1, 2, 1, 1}, "VALID"}, false);
}

}  // namespace
}  // namespace tgtest
