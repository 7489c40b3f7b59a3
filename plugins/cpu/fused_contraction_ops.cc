// _FusedMatMul and _FusedConv2D (TensorFlow's fused contractions, made by the plan-time
// rewrites or found in frozen TF graphs): MatMul's or Conv2D's own code computes the product
// into the output, then one pass adds the bias and applies the activation in place (BiasAdd's
// loop), so the step, the intermediate buffers and two passes over the output are saved.
//
// fused_ops supported: ["BiasAdd"] and ["BiasAdd", A] with A one of Relu, Relu6, Elu,
// LeakyRelu; args holds the bias. Anything else (FusedBatchNorm, Add, ...) fails at kernel
// creation with UNIMPLEMENTED naming the list.
#include <string>
#include <vector>

#include "conv_pool_common.h"
#include "nn_common.h"

namespace tgraph_cpu::nn {
namespace {

using tgraph::plugin::Construction;
using tgraph::plugin::Context;
using tgraph::plugin::TensorMut;

// The epilogue a node's fused_ops attr asks for.
struct Epilogue {
  Activation activation = Activation::kNone;
  float alpha = 0.2f;  // LeakyRelu's slope

  bool Read(Construction& c) {
    auto list = c.GetTensorAttr("fused_ops");
    if (!c.ok()) return false;
    std::vector<std::string> ops;
    for (int64_t i = 0; i < list.num_elements(); ++i) ops.emplace_back(list.string_at(i));
    std::string joined;
    for (const std::string& op : ops) joined += (joined.empty() ? "" : ", ") + op;
    const bool bias = !ops.empty() && ops[0] == "BiasAdd";
    bool known = bias && ops.size() <= 2;
    if (known && ops.size() == 2) {
      if (ops[1] == "Relu") {
        activation = Activation::kRelu;
      } else if (ops[1] == "Relu6") {
        activation = Activation::kRelu6;
      } else if (ops[1] == "Elu") {
        activation = Activation::kElu;
      } else if (ops[1] == "LeakyRelu") {
        activation = Activation::kLeakyRelu;
        if (!c.GetAttr("leakyrelu_alpha", &alpha)) return false;
      } else {
        known = false;
      }
    }
    if (!known) {
      c.Fail(TG_UNIMPLEMENTED, c.op_type() + " with fused_ops [" + joined +
                                   "] is not supported on the CPU (supported: [BiasAdd] and "
                                   "[BiasAdd, Relu|Relu6|Elu|LeakyRelu])");
      return false;
    }
    int64_t num_args = 0;
    if (!c.GetAttr("num_args", &num_args)) return false;
    if (num_args != 1) {
      c.Fail(TG_INVALID_ARGUMENT, c.op_type() + " with fused_ops [" + joined +
                                      "] takes 1 extra argument (the bias), got num_args=" +
                                      std::to_string(num_args));
      return false;
    }
    return true;
  }

  // Adds input 2 (the bias) along the last dimension of `out` and activates, in place.
  template <typename T>
  void Apply(Context& ctx, const TensorMut& out) const {
    if (!ctx.ok() || !out.valid()) return;
    const auto bias = ctx.input(2);
    const std::vector<int64_t> dims = out.dims();
    const int64_t channels = dims.empty() ? 0 : dims.back();
    if (bias.rank() != 1 || bias.dim(0) != channels) {
      ctx.Fail(TG_INVALID_ARGUMENT, "bias must be 1-D of the output's last dimension " +
                                        std::to_string(channels) + ", got shape " +
                                        ShapeString(bias.dims()));
      return;
    }
    const int64_t elements = out.num_elements();
    if (elements == 0) return;
    T* data = out.template mutable_data<T>();
    AddBias<T>(ctx, data, bias.template data<T>(), data, elements / channels, channels, 1,
               activation, alpha);
  }
};

template <typename T>
class FusedMatMulOp {
 public:
  explicit FusedMatMulOp(Construction& c) {
    if (!c.GetAttr("transpose_a", &trans_a_) || !c.GetAttr("transpose_b", &trans_b_)) return;
    epilogue_.Read(c);
  }

  void Compute(Context& ctx) {
    const TensorMut out = MatMulToOutput<T>(ctx, trans_a_, trans_b_);
    epilogue_.Apply<T>(ctx, out);
  }

 private:
  bool trans_a_ = false;
  bool trans_b_ = false;
  Epilogue epilogue_;
};

template <typename T>
class FusedConv2DOp {
 public:
  explicit FusedConv2DOp(Construction& c) {
    if (!GetConvAttrs(c, &attrs_)) return;
    int64_t host_args = 0;
    if (!c.GetAttr("num_host_args", &host_args)) return;
    if (host_args != 0) {
      c.Fail(TG_UNIMPLEMENTED, "_FusedConv2D with host_args is not supported on the CPU");
      return;
    }
    epilogue_.Read(c);
  }

  void Compute(Context& ctx) {
    const TensorMut out = Conv2DToOutput<T>(ctx, attrs_);
    epilogue_.Apply<T>(ctx, out);
  }

 private:
  ConvAttrs attrs_;
  Epilogue epilogue_;
};

}  // namespace

void RegisterFusedContractions(tgraph::plugin::Init& init) {
  using tgraph::plugin::KernelBuilder;
  init.Kernel<FusedMatMulOp<float>>(KernelBuilder("_FusedMatMul", "CPU").TypeConstraint("T", TG_FLOAT));
  init.Kernel<FusedConv2DOp<float>>(KernelBuilder("_FusedConv2D", "CPU").TypeConstraint("T", TG_FLOAT));
  init.Kernel<FusedConv2DOp<double>>(
      KernelBuilder("_FusedConv2D", "CPU").TypeConstraint("T", TG_DOUBLE));
}

}  // namespace tgraph_cpu::nn
