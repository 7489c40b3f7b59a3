// Which plan-time graph rewrites a session applies (SessionOptions::rewrites), after
// TensorFlow's grappler RewriterConfig: each one switchable, names as TG_SetSessionRewrite
// takes them. All are on by default; each leaves every fetched value unchanged.
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
  // Folded values larger than this stay computed at run time (TensorFlow's limit).
  int64_t max_constant_bytes = 10 << 20;

  bool any() const {
    return constant_folding || common_subgraph_elimination || identity_removal ||
           arithmetic_optimization || dependency_optimization || remapping;
  }
  // Sets one rewrite by name, or every one with "all". INVALID_ARGUMENT naming the known
  // names for an unknown one.
  Status Set(std::string_view name, bool on);
  static const std::vector<std::string>& Names();
};

}  // namespace tgraph
