// The epilogue of _FusedMatMul and _FusedConv2D on oneDNN: the bias is the primitive's own
// bias input, a residual addend (_FusedConv2D only) a sum post-op, the activation one
// eltwise post-op, so the product is written once, already biased, summed and activated. The fused_ops parsing and bias checks are the CPU plugin's
// (fused_epilogue.h), so both plugins accept the same nodes with the same messages.
#pragma once

#include <cmath>

#include "dnnl_context.h"
#include "fused_epilogue.h"

namespace tgraph_onednn {

using tgraph_cpu::nn::Activation;
using tgraph_cpu::nn::FusedEpilogue;

// The primitive attrs for `epilogue` (null: a plain contraction): the user scratchpad, the
// addend of a fused residual Add as a sum post-op (the destination holds the addend before
// the primitive runs), and the activation as an eltwise post-op after it. TensorFlow's
// definitions map exactly: Relu is relu with slope 0, LeakyRelu relu with slope alpha
// (x > 0 ? x : alpha * x), Relu6 relu bounded at 6, Elu elu with alpha 1 (x > 0 ? x :
// exp(x) - 1), _MklSwish swish with alpha 1 (x * sigmoid(x)), GeluExact gelu_erf.
inline dnnl::primitive_attr EpilogueAttr(const FusedEpilogue* epilogue) {
  dnnl::primitive_attr attr = UserScratchpadAttr();
  if (epilogue == nullptr) return attr;
  dnnl::post_ops ops;
  if (epilogue->add) ops.append_sum(1.0f);
  switch (epilogue->activation) {
    case Activation::kRelu:
      ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
      break;
    case Activation::kLeakyRelu:
      ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, epilogue->alpha, 0.0f);
      break;
    case Activation::kRelu6:
      ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_bounded_relu, 6.0f, 0.0f);
      break;
    case Activation::kElu:
      ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_elu, 1.0f, 0.0f);
      break;
    case Activation::kSwish:
      ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_swish, 1.0f, 0.0f);
      break;
    case Activation::kGeluExact:
      ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_gelu_erf, 0.0f, 0.0f);
      break;
    case Activation::kNone:
      break;
  }
  if (ops.len() > 0) attr.set_post_ops(ops);
  return attr;
}

// The activation of one value, as the Eigen kernels compute it (for outputs no primitive
// writes: a product over an empty dimension is the bias alone).
inline float Activate(const FusedEpilogue& e, float x) {
  switch (e.activation) {
    case Activation::kRelu: return x > 0.0f ? x : 0.0f;
    case Activation::kRelu6: return x > 0.0f ? (x < 6.0f ? x : 6.0f) : 0.0f;
    case Activation::kElu: return x > 0.0f ? x : std::expm1(x);
    case Activation::kLeakyRelu: return x > 0.0f ? x : x * e.alpha;
    case Activation::kSwish: return x / (1.0f + std::exp(-x));
    case Activation::kGeluExact: return 0.5f * x * std::erfc(-x * 0.70710678118654752440f);
    case Activation::kNone: break;
  }
  return x;
}

}  // namespace tgraph_onednn
