// Automatic mixed precision (TensorFlow's auto_mixed_precision for oneDNN bfloat16): the
// contractions run in bfloat16 where the CPU has native bf16 kernels, the rest stays float.
//
// Ops fall in three lists, as in TensorFlow's pass:
//   allow: MatMul, _FusedMatMul, BatchMatMulV2, Conv2D, _FusedConv2D, Conv2DBackpropInput,
//     Conv2DBackpropFilter — the training graph's contractions and their gradients. One
//     converts when its T is float and the CPU has a bf16 kernel for it registered
//     above the Eigen kernels (priority > 0) and not below the float kernel's: a native one
//     (oneDNN's on CPUs with AVX512_BF16 or AMX). Elsewhere nothing converts, and the graph
//     runs in float as without the option.
//   infer: BiasAdd, BiasAddGrad, Relu, ReluGrad, Relu6, Relu6Grad, MaxPool, MaxPoolGrad,
//     Reshape — cheap work between contractions. One converts only when its main inputs
//     (all float inputs but BiasAdd's bias) are already bf16 values of converted ops and a
//     bf16 kernel exists: converting it saves two Casts and half the memory traffic;
//     converting it alone would add Casts.
//   everything else (softmax, cross-entropy, reductions, the optimizer): float.
//
// It runs before fusion (rewriter.cc), as TensorFlow's does: a bf16 MatMul, BiasAdd and Relu
// then fuse into one bf16 _FusedMatMul.
//
// A converted op reads bf16 versions of its float inputs: the bf16 output of the converted
// op it came from, or one shared Cast per float tensor (so a weight read by the forward and
// the gradient MatMul is rounded once). Each of its float outputs gets a Cast back to float
// that every reader gets; converted readers read the bf16 value directly, so a Cast nobody
// reads goes with the dead nodes. Weights, the loss, the gradients the optimizer applies
// and everything fetched or fed stay float: only ops that RewriteGraph::Rewritable allows
// (not fetched, fed, stateful, colocated or off the CPU) convert, and their readers see
// float values.
#include <map>
#include <string_view>
#include <utility>

#include "core/graph/attr_value_util.h"
#include "core/plugin/registry.h"
#include "core/rewrite/passes.h"

namespace tgraph {
namespace {

constexpr std::string_view kAllow[] = {"MatMul",  "_FusedMatMul", "BatchMatMulV2",
                                       "Conv2D",  "_FusedConv2D", "Conv2DBackpropInput",
                                       "Conv2DBackpropFilter"};
constexpr std::string_view kInfer[] = {"BiasAdd", "BiasAddGrad", "Relu",    "ReluGrad",
                                       "Relu6",   "Relu6Grad",   "MaxPool", "MaxPoolGrad",
                                       "Reshape"};

template <size_t N>
bool In(const std::string_view (&list)[N], const std::string& type) {
  for (std::string_view t : list) {
    if (t == type) return true;
  }
  return false;
}

// The op's attrs with every float type (T, and list(type) attrs such as _FusedConv2D's
// TArgs) made bfloat16.
AttrMap Bf16Attrs(const Operation& op) {
  AttrMap attrs = op.attrs();
  for (auto& [name, value] : attrs) {
    if (name.empty() || name[0] == '_') continue;  // _class and other internal attrs
    if (value.value_case() == tf::AttrValue::kType && value.type() == tf::DT_FLOAT) {
      value.set_type(tf::DT_BFLOAT16);
    } else if (value.value_case() == tf::AttrValue::kList) {
      auto* types = value.mutable_list()->mutable_type();
      for (int i = 0; i < types->size(); ++i) {
        if (types->Get(i) == tf::DT_FLOAT) types->Set(i, tf::DT_BFLOAT16);
      }
    }
  }
  return attrs;
}

bool IsFloatT(const Operation& op) {
  const tf::AttrValue* t = op.FindAttr("T");
  return t != nullptr && t->value_case() == tf::AttrValue::kType && t->type() == tf::DT_FLOAT;
}

class Converter {
 public:
  explicit Converter(RewriteGraph& g) : g_(g) {}

  int Run() {
    int converted = 0;
    const int n = g_.size();  // nodes inserted below are Casts: never candidates
    for (int i = 0; i < n; ++i) {
      if (!g_.Rewritable(i)) continue;
      const Operation& op = *g_.node(i).op;
      const bool allow = In(kAllow, op.type());
      if (!allow && !In(kInfer, op.type())) continue;
      if (!IsFloatT(op)) continue;
      AttrMap attrs = Bf16Attrs(op);
      if (!HasKernel(op, attrs, allow)) continue;
      if (!allow && !MainInputsAreBf16(i)) continue;
      if (Convert(i, std::move(attrs))) ++converted;
    }
    return converted;
  }

 private:
  // Is there a bf16 kernel worth running? For allow-list ops a native one: above the Eigen
  // kernels' priority 0 (which widen bf16 to float and back, slower than float itself) and
  // not below the float kernel's.
  static bool HasKernel(const Operation& op, const AttrMap& bf16_attrs, bool allow) {
    const KernelRegistry& registry = *KernelRegistry::Global();
    const KernelRegistration* bf16 = registry.FindOrNull(op.type(), bf16_attrs, "CPU");
    if (bf16 == nullptr) return false;
    if (!allow) return true;
    const KernelRegistration* fp32 = registry.FindOrNull(op.type(), op.attrs(), "CPU");
    return bf16->priority > 0 && (fp32 == nullptr || bf16->priority >= fp32->priority);
  }

  // Infer-list ops: every float input but BiasAdd's bias has a bf16 value already.
  bool MainInputsAreBf16(int i) const {
    const RewriteGraph::Node& n = g_.node(i);
    const bool bias_add = n.op->type() == "BiasAdd";
    for (size_t k = 0; k < n.inputs.size(); ++k) {
      if (bias_add && k == 1) continue;
      const Output& in = n.inputs[k];
      if (in.dtype() != DT_FLOAT) continue;
      if (bf16_of_.find(Key(in)) == bf16_of_.end()) return false;
    }
    return true;
  }

  static std::pair<const Operation*, int> Key(const Output& o) { return {o.op, o.index}; }

  // A Cast of `in` to `dst` in the scratch graph.
  StatusOr<Operation*> NewCast(const Output& in, DataType src, DataType dst, std::string name,
                               const std::string& device) {
    NodeSpec spec;
    spec.type = "Cast";
    spec.name = std::move(name);
    spec.device = device;
    spec.attrs["SrcT"] = AttrOfType(src);
    spec.attrs["DstT"] = AttrOfType(dst);
    spec.attrs["Truncate"].set_b(false);
    return g_.NewOp(std::move(spec), {in});
  }

  // The bf16 value of float tensor `in` for node `reader`: a converted op's own output, or
  // the tensor's shared Cast (made before `reader` when it is the first to need it).
  StatusOr<Output> Bf16Of(const Output& in, int reader) {
    auto it = bf16_of_.find(Key(in));
    if (it != bf16_of_.end()) return it->second;
    TG_ASSIGN_OR_RETURN(Operation * cast,
                        NewCast(in, DT_FLOAT, DT_BFLOAT16,
                                StrCat(in.op->name(), "/amp_bf16_", in.index),
                                g_.node(reader).op->device()));
    const Output out{cast, 0};
    g_.Insert(cast, {in}, reader, /*after=*/false);
    bf16_of_.emplace(Key(in), out);
    return out;
  }

  bool Convert(int i, AttrMap attrs) {
    const Operation& op = *g_.node(i).op;
    std::vector<Output> inputs = g_.node(i).inputs;
    for (Output& in : inputs) {
      if (in.dtype() != DT_FLOAT) continue;
      auto bf16 = Bf16Of(in, i);
      if (!bf16.ok()) return false;
      in = *bf16;
    }
    NodeSpec spec;
    spec.type = op.type();
    // Ops of the scratch graph (fused by remapping) already hold their name there.
    spec.name = op.graph() == g_.request().graph ? op.name() : StrCat(op.name(), "/bf16");
    spec.device = op.device();
    spec.attrs = std::move(attrs);
    auto converted = g_.NewOp(std::move(spec), inputs);
    if (!converted.ok()) return false;
    Operation* bf16_op = *converted;
    // Outputs that were float: a Cast back for the readers (made before the replacement,
    // so a failure leaves the node as it was).
    std::vector<std::pair<int, Operation*>> casts;
    for (int k = 0; k < op.num_outputs(); ++k) {
      if (op.output_type(k) != DT_FLOAT) continue;
      if (bf16_op->output_type(k) != DT_BFLOAT16) return false;
      auto cast = NewCast(Output{bf16_op, k}, DT_BFLOAT16, DT_FLOAT,
                          StrCat(bf16_op->name(), "/amp_fp32_", k), op.device());
      if (!cast.ok()) return false;
      casts.emplace_back(k, *cast);
    }
    const std::vector<std::pair<int, int>> readers = g_.Readers(i);
    g_.Replace(i, bf16_op, std::move(inputs), std::vector<int>(g_.node(i).controls));
    for (const auto& [k, cast] : casts) {
      const int c = g_.Insert(cast, {Output{bf16_op, k}}, i, /*after=*/true);
      for (const auto& [reader, slot] : readers) {
        if (g_.node(reader).inputs[static_cast<size_t>(slot)].index == k) {
          g_.SetInput(reader, slot, Output{cast, 0});
        }
      }
      (void)c;
      bf16_of_.emplace(Key(Output{cast, 0}), Output{bf16_op, k});
    }
    return true;
  }

  RewriteGraph& g_;
  // Float tensor -> its bf16 value (a converted op's output behind its Cast back, or the
  // shared Cast of a float tensor).
  std::map<std::pair<const Operation*, int>, Output> bf16_of_;
};

}  // namespace

int AutoMixedPrecision(RewriteGraph& g) { return Converter(g).Run(); }

}  // namespace tgraph
