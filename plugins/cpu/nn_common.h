// Shared by the neural-network kernels (matmul_op.cc ... l2loss_op.cc): per-file registration
// entry points, the one place that instantiates Eigen's contraction, dtype mapping, and the
// window arithmetic of convolution and pooling.
#pragma once

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "tgraph/plugin.hpp"

namespace Eigen {
struct ThreadPoolDevice;
}

namespace tgraph_cpu::nn {

// Registration, one per file; RegisterNnKernels (matmul_op.cc) calls them all.
void RegisterMatMul(tgraph::plugin::Init& init);       // matmul_op.cc
void RegisterBatchMatMul(tgraph::plugin::Init& init);  // batch_matmul_op.cc
void RegisterBiasAdd(tgraph::plugin::Init& init);      // bias_add_op.cc
void RegisterConv2D(tgraph::plugin::Init& init);       // conv_ops.cc
void RegisterPooling(tgraph::plugin::Init& init);      // pooling_ops.cc
void RegisterSoftmax(tgraph::plugin::Init& init);      // softmax_ops.cc
void RegisterXent(tgraph::plugin::Init& init);         // xent_ops.cc
void RegisterL2Loss(tgraph::plugin::Init& init);       // l2loss_op.cc
void RegisterFusedContractions(tgraph::plugin::Init& init);  // fused_contraction_ops.cc
void RegisterChannelAffine(tgraph::plugin::Init& init);      // channel_affine_op.cc

// The product of inputs 0 and 1 into output 0, as MatMul computes it (matmul_op.cc; also
// _FusedMatMul's first part). On failure the context holds the error. Instantiated for
// float, double, Eigen::half, Eigen::bfloat16 and int32_t.
template <typename T>
tgraph::plugin::TensorMut MatMulToOutput(tgraph::plugin::Context& ctx, bool trans_a, bool trans_b);

// The activations a fused contraction may end with (TensorFlow's fused_ops names: Relu,
// Relu6, Elu, LeakyRelu, _MklSwish, x * sigmoid(x), as TF's oneDNN build names swish, and
// GeluExact, x * erfc(-x / sqrt(2)) / 2, tf.nn.gelu's default).
enum class Activation { kNone, kRelu, kRelu6, kElu, kLeakyRelu, kSwish, kGeluExact };

// y = act(x) for the activations a fused op may end with (TensorFlow's definitions;
// bias_add_op.cc's epilogue loop, channel_affine_op.cc).
template <Activation A, typename T>
inline T Activate(T x, float alpha) {
  if constexpr (A == Activation::kRelu) {
    return x > T(0) ? x : T(0);
  } else if constexpr (A == Activation::kRelu6) {
    return x > T(0) ? (x < T(6) ? x : T(6)) : T(0);
  } else if constexpr (A == Activation::kElu) {
    return x > T(0) ? x : T(std::expm1(x));
  } else if constexpr (A == Activation::kLeakyRelu) {
    return x > T(0) ? x : T(x * T(alpha));
  } else if constexpr (A == Activation::kSwish) {
    return T(x / (T(1) + T(std::exp(-x))));
  } else if constexpr (A == Activation::kGeluExact) {
    // As tf.nn.gelu writes it: erfc keeps the tail of large negative x accurate.
    return T(T(0.5) * x * T(std::erfc(-x * T(0.70710678118654752440))));
  } else {
    (void)alpha;
    return x;
  }
}


// out = activation(in + bias) with `in` seen as [outer, channels, inner] and the bias along
// `channels` (BiasAdd's loop, bias_add_op.cc; also the fused ops' epilogue, in place when
// out == in). alpha: LeakyRelu's slope. With an `addend` (laid out as `in`): out =
// activation((in + bias) + addend), the fused residual connection. Instantiated for float
// and double.
template <typename T>
void AddBias(tgraph::plugin::Context& ctx, const T* in, const T* bias, T* out, int64_t outer,
             int64_t channels, int64_t inner, Activation activation, float alpha,
             const T* addend = nullptr);

// out[m, n] = op(a) * op(b) with a stored row-major as [a_rows, a_cols] (op = transpose when
// trans_a) and likewise b; the contracted sizes must agree. Contracts directly on the given
// buffers. Instantiated in matmul_op.cc for float, double and int32_t.
template <typename T>
void Contract(const Eigen::ThreadPoolDevice& device, const T* a, int64_t a_rows, int64_t a_cols,
              bool trans_a, const T* b, int64_t b_rows, int64_t b_cols, bool trans_b, T* out);
// The same on the calling thread only (for many small products run side by side).
// Instantiated for float and double.
template <typename T>
void ContractSingleThread(const T* a, int64_t a_rows, int64_t a_cols, bool trans_a, const T* b,
                          int64_t b_rows, int64_t b_cols, bool trans_b, T* out);

template <typename T>
struct DTypeOf;
template <>
struct DTypeOf<float> {
  static constexpr TG_DataType value = TG_FLOAT;
};
template <>
struct DTypeOf<double> {
  static constexpr TG_DataType value = TG_DOUBLE;
};
template <>
struct DTypeOf<Eigen::half> {
  static constexpr TG_DataType value = TG_HALF;
};
template <>
struct DTypeOf<Eigen::bfloat16> {
  static constexpr TG_DataType value = TG_BFLOAT16;
};
template <>
struct DTypeOf<int32_t> {
  static constexpr TG_DataType value = TG_INT32;
};
template <>
struct DTypeOf<int64_t> {
  static constexpr TG_DataType value = TG_INT64;
};

template <typename T>
constexpr bool kIsReducedFloat =
    std::is_same_v<T, Eigen::half> || std::is_same_v<T, Eigen::bfloat16>;

// "[2,3,4]" for messages.
inline std::string ShapeString(const std::vector<int64_t>& dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i > 0) s += ",";
    s += std::to_string(dims[i]);
  }
  return s + "]";
}

// Converts n elements between types on the intra-op pool.
template <typename To, typename From>
void ConvertParallel(tgraph::plugin::Context& ctx, const From* in, To* out, int64_t n) {
  ctx.ParallelFor(n, 1.0, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) out[i] = static_cast<To>(static_cast<float>(in[i]));
  });
}

// ---- windows of convolution and pooling ----

enum class Padding { kSame, kValid, kExplicit };

// Reads `padding` (and `explicit_paddings` when allow_explicit) into *padding and the 8
// before/after values (all zero unless EXPLICIT). Fails the construction on bad values.
inline bool GetPaddingAttrs(tgraph::plugin::Construction& c, bool allow_explicit, Padding* padding,
                            std::vector<int64_t>* pads) {
  std::string s;
  if (!c.GetAttr("padding", &s)) return false;
  if (s == "SAME") {
    *padding = Padding::kSame;
  } else if (s == "VALID") {
    *padding = Padding::kValid;
  } else if (s == "EXPLICIT" && allow_explicit) {
    *padding = Padding::kExplicit;
  } else {
    c.Fail(TG_INVALID_ARGUMENT, "unsupported padding '" + s + "'");
    return false;
  }
  pads->assign(8, 0);
  if (!allow_explicit) return true;
  std::vector<int64_t> given;
  if (!c.GetAttr("explicit_paddings", &given)) return false;
  if (*padding != Padding::kExplicit) {
    if (!given.empty()) {
      c.Fail(TG_INVALID_ARGUMENT, "explicit_paddings must be empty unless padding is 'EXPLICIT'");
      return false;
    }
    return true;
  }
  if (given.size() != 8) {
    c.Fail(TG_INVALID_ARGUMENT,
           "explicit_paddings must contain 8 values, but has " + std::to_string(given.size()));
    return false;
  }
  for (int64_t p : given) {
    if (p < 0) {
      c.Fail(TG_INVALID_ARGUMENT, "explicit_paddings must be non-negative");
      return false;
    }
  }
  if (given[0] != 0 || given[1] != 0 || given[6] != 0 || given[7] != 0) {
    c.Fail(TG_INVALID_ARGUMENT, "explicit_paddings in the batch and depth dimensions must be zero");
    return false;
  }
  *pads = given;
  return true;
}

// A list(int) attr of exactly four values > 0 (strides, ksize, dilations).
inline bool GetFourPositive(tgraph::plugin::Construction& c, const char* name,
                            std::vector<int64_t>* v) {
  if (!c.GetAttr(name, v)) return false;
  if (v->size() != 4) {
    c.Fail(TG_INVALID_ARGUMENT,
           std::string(name) + " must contain 4 values, but has " + std::to_string(v->size()));
    return false;
  }
  for (int64_t x : *v) {
    if (x <= 0) {
      c.Fail(TG_INVALID_ARGUMENT,
             std::string(name) + " must be > 0 in every dimension, got " + ShapeString(*v));
      return false;
    }
  }
  return true;
}

// One spatial dim of a windowed op: the output size and the padding before the first
// element. False (with *error) when the output would be negative.
struct Window {
  int64_t out = 0;
  int64_t pad_before = 0;
};
inline bool ComputeWindow(int64_t in, int64_t k, int64_t dilation, int64_t stride, Padding padding,
                          int64_t explicit_before, int64_t explicit_after, Window* w,
                          std::string* error) {
  const int64_t effective = (k - 1) * dilation + 1;
  int64_t numerator = 0;
  switch (padding) {
    case Padding::kValid:
      numerator = in - effective + stride;
      w->pad_before = 0;
      break;
    case Padding::kExplicit:
      numerator = in + explicit_before + explicit_after - effective + stride;
      w->pad_before = explicit_before;
      break;
    case Padding::kSame: {
      w->out = (in + stride - 1) / stride;
      const int64_t total = std::max<int64_t>((w->out - 1) * stride + effective - in, 0);
      w->pad_before = total / 2;
      return true;
    }
  }
  if (numerator / stride < 0) {
    *error = "computed output size would be negative (input size " + std::to_string(in) +
             ", effective window size " + std::to_string(effective) + ", stride " +
             std::to_string(stride) + ")";
    return false;
  }
  w->out = numerator / stride;
  return true;
}

}  // namespace tgraph_cpu::nn
