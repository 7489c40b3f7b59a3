// The rewrites, each over the plan-local RewriteGraph (rewrite_graph.h). Each returns how
// many nodes it removed or replaced; none touches a node that RewriteGraph::Rewritable
// refuses (fetched, fed, stateful, ref, colocated, off the CPU), and each leaves every
// value that a kept node reads unchanged. Run in this order by RewriteFragment (rewriter.cc),
// which removes what became dead after each.
#pragma once

#include "core/base/status.h"
#include "core/rewrite/rewrite_graph.h"

namespace tgraph {

// constant_folding.cc: single-output stateless ops whose inputs are all Consts are computed
// by the CPU kernel and replaced by a Const (keeping their control inputs and those of the
// constants they read); a failing kernel or a value over max_constant_bytes leaves the op.
int FoldConstants(RewriteGraph& g);
// arithmetic.cc: x*1, 1*x, x+0, 0+x, x-0 (when the constant does not broadcast x to a new
// shape), Neg(Neg(x)) and Transpose(Transpose(x, p), q) with q∘p the identity become x.
// Then (fold_affine.cc) a constant scale or offset per output channel after a Conv2D or
// MatMul of constant weights (a frozen graph's batch normalization) goes into its weights
// and bias: Mul(BiasAdd(C(x, W), b), s) -> BiasAdd(C(x, W * s), b * s),
// Add(BiasAdd(y, b), c) -> BiasAdd(y, b + c).
int SimplifyArithmetic(RewriteGraph& g);
int FoldAffineIntoContractions(RewriteGraph& g);
// fold_affine.cc, shared with fusion_affine.cc: the value of node i's input k when a float
// Const without control inputs makes it (through Identities without any); whether `c` is
// one value per channel of `y`, which has `channels` channels last (a scalar, or [1, ...,
// 1, channels] of no higher rank than y); and c's value for channel j.
const Tensor* FloatConstant(const RewriteGraph& g, int i, int k);
bool PerChannel(const Tensor& c, const Output& y, int64_t channels);
float Channel(const Tensor& c, int64_t j);
// A new float Const of `dims` and `values`, run right before node `anchor`; its output.
StatusOr<Output> InsertFloatConstant(RewriteGraph& g, int anchor, const std::string& name,
                                     std::vector<int64_t> dims, const std::vector<float>& values);
// Is every element of a float, double, int32 or int64 tensor equal to v (false when empty or
// of another type)? The neutral constants SimplifyArithmetic looks for.
bool AllElementsEqual(const Tensor& t, int v);
// fusion.cc: a string attr of `op`, or `fallback` where it has none; and whether `op`'s
// data_format (NHWC when it has none) is NHWC.
std::string StringAttr(const Operation& op, const char* name, const char* fallback);
bool IsNhwc(const Operation& op);
// common_subexpression.cc: a node equal to an earlier one (type, inputs, control inputs,
// attrs, device) is dropped and its readers read the earlier one.
int EliminateCommonSubexpressions(RewriteGraph& g);
// dependency.cc: stateless nodes whose only readers are control edges into NoOps that are
// not targets are dropped (the edge orders nothing with an effect).
int OptimizeDependencies(RewriteGraph& g);
// identity_removal.cc: Identity nodes are bypassed (readers read the input and wait for the
// Identity's control inputs); NoOps become direct control edges when that adds none.
int RemoveIdentities(RewriteGraph& g);
// fusion_pad.cc: Pad (zeros, constant paddings of height and width) -> Conv2D (VALID or
// EXPLICIT) becomes one Conv2D with EXPLICIT padding.
int FoldPadsIntoConvolutions(RewriteGraph& g);
// fusion.cc: MatMul / Conv2D + BiasAdd (+ Relu) become one _FusedMatMul / _FusedConv2D.
int FuseContractions(RewriteGraph& g);
// fusion.cc, shared with fusion_affine.cc: the one reader of node i's output that is not a
// Shape op (those go to `shapes`), when nothing waits for i, the reader is rewritable, on
// i's device and of one of `types`, reading i as its input `*k`; else -1.
int SoleValueReader(RewriteGraph& g, int i, const std::vector<const char*>& types, int* k,
                    std::vector<std::pair<int, int>>* shapes);
// fusion_affine.cc: Mul(x, s) -> Add(_, c) (-> Relu / Relu6), s and c constant per channel,
// becomes one _FusedChannelAffine (a batch normalization with nothing to fold into).
int FuseChannelAffine(RewriteGraph& g);
// fusion_pool_grad.cc: MaxPoolGrad -> ReluGrad becomes one _FusedMaxPoolGrad, whose second
// output the ReluGrad's BiasAddGrads read.
int FuseMaxPoolGradients(RewriteGraph& g);
// fusion_pool_index.cc: MaxPool and its _FusedMaxPoolGrad (num_features 0) become
// _MaxPoolWithIndex and _FusedMaxPoolGradWithIndex, which reads the winners' indices
// instead of the pool's input.
int UseMaxPoolIndices(RewriteGraph& g);
// The remapping pass: the fusions above, in that order (fusion_pool_grad.cc).
int Remap(RewriteGraph& g);
// auto_mixed_precision.cc (before fusion): MatMul / Conv2D (plain, fused, and their
// gradients) run in bfloat16 where the CPU has a native bf16 kernel, with the ops between
// them that can follow (BiasAdd, Relu, MaxPool, their gradients, Reshape); Casts at the
// edges give every other reader its float value. Returns how many ops it converted.
int AutoMixedPrecision(RewriteGraph& g);

}  // namespace tgraph
