// Which plan-time graph rewrites a session applies (SessionOptions::rewrites), after
// TensorFlow's grappler RewriterConfig: each one switchable, names as TG_SetSessionRewrite
// takes them. All but automatic mixed precision are on by default and leave every fetched
// value unchanged; automatic mixed precision (off by default, as in TensorFlow) changes the
// rounding of what it converts to bfloat16, never a fetched or fed tensor's dtype.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/status.h"

namespace tgraph {

struct RewriteOptions {
  // Stateless ops whose inputs are all constants are computed once, at plan time, by the CPU
  // kernels, and become constants ("constant_folding").
  bool constant_folding = true;
  // Of two ops with the same type, inputs, control inputs, attrs and device, only the first
  // runs ("common_subgraph_elimination").
  bool common_subgraph_elimination = true;
  // Identity ops are bypassed and NoOps turned into direct control edges where that does
  // not add edges ("identity_removal").
  bool identity_removal = true;
  // x*1, x+0, x-0, Neg(Neg(x)), Transpose(Transpose(x)) with inverse permutations become x
  // ("arithmetic_optimization").
  bool arithmetic_optimization = true;
  // Stateless work whose only consumers are control edges into NoOps is dropped (e.g. the
  // gradient with respect to an input in TF's gradient tuples) ("dependency_optimization").
  bool dependency_optimization = true;
  // MatMul / Conv2D + BiasAdd (+ Relu) become _FusedMatMul / _FusedConv2D, and MaxPoolGrad
  // -> ReluGrad (-> BiasAddGrad) one _FusedMaxPoolGrad ("remapping").
  bool remapping = true;
  // MatMul / Conv2D and their gradients (and the BiasAdd / Relu / MaxPool ops between them
  // that can follow) run in bfloat16 where the CPU has native bf16 kernels; float weights, float
  // loss ("auto_mixed_precision"; RewriterConfig's auto_mixed_precision and
  // auto_mixed_precision_onednn_bfloat16). Off by default, and not switched on by "all".
  bool auto_mixed_precision = false;
  // Folded values larger than this stay computed at run time (TensorFlow's limit).
  int64_t max_constant_bytes = 10 << 20;

  bool any() const {
    return constant_folding || common_subgraph_elimination || identity_removal ||
           arithmetic_optimization || dependency_optimization || remapping ||
           auto_mixed_precision;
  }
  // Sets one rewrite by name, or with "all" every one that keeps values exactly (every one,
  // auto_mixed_precision included, when switching off). INVALID_ARGUMENT naming the known
  // names for an unknown one.
  Status Set(std::string_view name, bool on);
  static const std::vector<std::string>& Names();
};

}  // namespace tgraph
