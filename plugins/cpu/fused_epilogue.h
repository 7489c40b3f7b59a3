// The epilogue of TensorFlow's fused contractions (_FusedMatMul, _FusedConv2D): which
// fused_ops lists a kernel runs, and the checks of the bias it adds. Header-only and shared
// by the Eigen kernels (fused_contraction_ops.cc) and the oneDNN plugin's, so both accept the
// same nodes and fail with the same messages.
//
// fused_ops supported: ["BiasAdd"] and ["BiasAdd", A] with A one of Relu, Relu6, Elu,
// LeakyRelu (slope leakyrelu_alpha), _MklSwish (x * sigmoid(x)) or GeluExact (x * erfc(-x /
// sqrt(2)) / 2; both TF's oneDNN build's names); num_args must be 1 (args holds the bias). Where the
// kernel supports it (`addend_supported`), also ["BiasAdd", "Add"] and ["BiasAdd", "Add", A]
// (TensorFlow's oneDNN build fuses a residual connection so): args holds the bias and the
// addend, a tensor of the output's shape added after the bias, before the activation;
// num_args must be 2. Anything else
// (FusedBatchNorm, ...) is declined at kernel creation (plugin ABI 6), naming the list:
// a kernel of another plugin that runs it may take the node; when none does, the session
// fails to place it (INVALID_ARGUMENT) and a lone kernel run is UNIMPLEMENTED.
#pragma once

#include <string>
#include <vector>

#include "array_kernel_util.h"
#include "nn_common.h"

namespace tgraph_cpu::nn {

struct FusedEpilogue {
  Activation activation = Activation::kNone;
  float alpha = 0.2f;  // LeakyRelu's slope
  bool add = false;    // args[1] (input 3) is added after the bias

  // Reads fused_ops, num_args and leakyrelu_alpha; declines the node when the list is not
  // supported.
  bool Read(tgraph::plugin::Construction& c, bool addend_supported = false) {
    auto list = c.GetTensorAttr("fused_ops");
    if (!c.ok()) return false;
    std::vector<std::string> ops;
    for (int64_t i = 0; i < list.num_elements(); ++i) ops.emplace_back(list.string_at(i));
    std::string joined;
    for (const std::string& op : ops) {
      if (!joined.empty()) joined.append(", ");
      joined.append(op);
    }
    const bool bias = !ops.empty() && ops[0] == "BiasAdd";
    add = addend_supported && ops.size() >= 2 && ops[1] == "Add";
    const size_t act = add ? 2 : 1;  // where the activation is, if any
    bool known = bias && ops.size() <= act + 1;
    if (known && ops.size() == act + 1) {
      const std::string& a = ops[act];
      if (a == "Relu") {
        activation = Activation::kRelu;
      } else if (a == "Relu6") {
        activation = Activation::kRelu6;
      } else if (a == "Elu") {
        activation = Activation::kElu;
      } else if (a == "LeakyRelu") {
        activation = Activation::kLeakyRelu;
        if (!c.GetAttr("leakyrelu_alpha", &alpha)) return false;
      } else if (a == "_MklSwish") {
        activation = Activation::kSwish;
      } else if (a == "GeluExact") {
        activation = Activation::kGeluExact;
      } else {
        known = false;
      }
    }
    if (!known) {
      std::string message = c.op_type();
      message.append(" with fused_ops [")
          .append(joined)
          .append(addend_supported
                      ? "] is not supported on the CPU (supported: [BiasAdd], "
                        "[BiasAdd, Relu|Relu6|Elu|LeakyRelu|_MklSwish|GeluExact], [BiasAdd, Add] and "
                        "[BiasAdd, Add, Relu|Relu6|Elu|LeakyRelu|_MklSwish|GeluExact])"
                      : "] is not supported by this kernel (supported: [BiasAdd] and "
                        "[BiasAdd, Relu|Relu6|Elu|LeakyRelu|_MklSwish|GeluExact])");
      c.Decline(message);
      return false;
    }
    int64_t num_args = 0;
    if (!c.GetAttr("num_args", &num_args)) return false;
    if (num_args != (add ? 2 : 1)) {
      std::string message = c.op_type();
      message.append(" with fused_ops [")
          .append(joined)
          .append(add ? "] takes 2 extra arguments (the bias and the addend), got num_args="
                      : "] takes 1 extra argument (the bias), got num_args=")
          .append(std::to_string(num_args));
      c.Fail(TG_INVALID_ARGUMENT, message);
      return false;
    }
    return true;
  }

  // Input 2 (the bias) must be a vector of `channels` values of the output's dtype
  // (_FusedConv2D's TArgs may name another type). Fails the node otherwise.
  static bool CheckBias(tgraph::plugin::Context& ctx, TG_DataType dtype, int64_t channels) {
    const auto bias = ctx.input(2);
    if (bias.rank() != 1 || bias.dim(0) != channels) {
      ctx.Fail(TG_INVALID_ARGUMENT, "bias must be 1-D of the output's last dimension " +
                                        std::to_string(channels) + ", got shape " +
                                        ShapeString(bias.dims()));
      return false;
    }
    if (bias.dtype() != dtype) {
      ctx.Fail(TG_INVALID_ARGUMENT, "bias must be " + array_util::DtypeName(dtype) +
                                        " like the input, got " +
                                        array_util::DtypeName(bias.dtype()));
      return false;
    }
    return true;
  }
};

// Input 3 (the addend of ["BiasAdd", "Add", ...]) must have the output's shape and dtype.
// Fails the node otherwise.
inline bool CheckAddend(tgraph::plugin::Context& ctx, TG_DataType dtype,
                        const std::vector<int64_t>& dims) {
  const auto addend = ctx.input(3);
  if (addend.dims() != dims || addend.dtype() != dtype) {
    ctx.Fail(TG_INVALID_ARGUMENT, "the addend must be " + array_util::DtypeName(dtype) + " of the output's shape " +
                                      ShapeString(dims) + ", got " +
                                      array_util::DtypeName(addend.dtype()) + " " +
                                      ShapeString(addend.dims()));
    return false;
  }
  return true;
}

// _FusedConv2D's attrs beyond Conv2D's: the filter in TensorFlow's HWIO layout only, and no
// host_args. Declines the node otherwise.
inline bool CheckFusedConvAttrs(tgraph::plugin::Construction& c) {
  std::string filter_format;
  if (!c.GetAttr("filter_format", &filter_format)) return false;
  if (filter_format != "HWIO") {
    c.Decline("_FusedConv2D on the CPU supports only filter_format 'HWIO', got '" +
              filter_format + "'");
    return false;
  }
  int64_t host_args = 0;
  if (!c.GetAttr("num_host_args", &host_args)) return false;
  if (host_args != 0) {
    c.Decline("_FusedConv2D with host_args is not supported on the CPU");
    return false;
  }
  return true;
}

}  // namespace tgraph_cpu::nn
