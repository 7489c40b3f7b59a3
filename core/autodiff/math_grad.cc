// Gradients of the math ops: registration, and the helpers the math_grad_*.cc files share.
#include <limits>
#include <utility>

#include "core/autodiff/gradient_registry.h"
#include "core/autodiff/math_grad_util.h"

namespace tgraph {
namespace math_grad {

Output Conj(GraphBuilder& b, Output x) {
  if (!b.ok()) return Output{};
  const DataType t = BaseType(x.dtype());
  if (t == DT_COMPLEX64 || t == DT_COMPLEX128) return b.Op("Conj", {x});
  return x;
}

std::optional<std::vector<int64_t>> ConstantInts(Output t) {
  if (t.op == nullptr || t.op->type() != "Const") return std::nullopt;
  const Tensor* value = t.op->constant_value();
  if (value == nullptr || value->rank() > 1) return std::nullopt;
  std::vector<int64_t> out;
  for (int64_t i = 0; i < value->NumElements(); ++i) {
    if (value->dtype() == DT_INT32) {
      out.push_back(value->flat<int32_t>()[i]);
    } else if (value->dtype() == DT_INT64) {
      out.push_back(value->flat<int64_t>()[i]);
    } else {
      return std::nullopt;
    }
  }
  return out;
}

Output ConstInt32Vector(GraphBuilder& b, const std::vector<int64_t>& values) {
  std::vector<int32_t> narrowed;
  narrowed.reserve(values.size());
  for (int64_t v : values) {
    if (v > std::numeric_limits<int32_t>::max() || v < std::numeric_limits<int32_t>::min()) {
      b.Fail(Unimplemented("gradient: the value ", v, " does not fit the int32 shape vectors "
                           "gradients build"));
      return Output{};
    }
    narrowed.push_back(static_cast<int32_t>(v));
  }
  return b.ConstInt32(narrowed);
}

}  // namespace math_grad

Status RegisterMathGradients(GradientFunctionRegistry& registry) {
  // Every part is tried, so one clash (another family registering the same op) does not
  // drop the rest; the first error is reported.
  Status first;
  auto keep = [&first](Status s) {
    if (first.ok() && !s.ok()) first = std::move(s);
  };
  keep(math_grad::RegisterCwiseGradients(registry));
  keep(math_grad::RegisterReductionGradients(registry));
  keep(math_grad::RegisterMatMulGradients(registry));
  keep(math_grad::RegisterEinsumGradients(registry));
  keep(math_grad::RegisterCwiseMoreGradients(registry));
  // Integer, boolean and index results carry no gradient: backprop stops there.
  for (const char* type : {"Equal", "NotEqual", "Less", "LessEqual", "Greater", "GreaterEqual",
                           "LogicalAnd", "LogicalOr", "LogicalNot", "ArgMax", "ArgMin",
                           "FloorMod", "FloorDiv", "Range", "All", "Any"}) {
    keep(registry.RegisterNotDifferentiable(type));
  }
  return first;
}

}  // namespace tgraph
