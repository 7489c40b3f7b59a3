// Dense optimizer updates (ApplyGradientDescent, ApplyMomentum, ApplyAdam, ApplyRMSProp,
// ApplyCenteredRMSProp, ApplyAdagrad, and their ResourceApply* twins with Keras' momentum and
// AdagradV2): every variable and the gradient have var's shape and
// are updated element by element, in slices split over the intra-op pool. Shapes and
// scalars are checked before the first write, so a rejected update changes nothing.
#include <algorithm>
#include <iterator>

#include "training_rules.h"

namespace tgraph_cpu {
namespace {

using namespace training;
using tgraph::plugin::KernelBuilder;

template <typename T, typename Rule>
class DenseApplyOp {
 public:
  static constexpr int kNumInputs = static_cast<int>(std::size(Rule::kInputs));
  // Elements per tile: 4 arrays (3 slots and the gradient) of 8 KiB in float.
  static constexpr int64_t kTile = 2048;

  explicit DenseApplyOp(Construction& c) : rule_(c) { c.GetAttr("use_locking", &use_locking_); }

  void Compute(Context& ctx) {
    {
      VarRefs<Rule::kSlots> refs(ctx, use_locking_);
      if (!refs.ok() || !CheckSlotShapes(ctx, refs, Rule::kInputs)) return;
      Scalars<T> in{};
      for (int i = Rule::kSlots; i < kNumInputs; ++i) {
        if (i == Rule::kGrad) continue;
        if (!ReadScalar(ctx, i, Rule::kInputs[i], &in[static_cast<size_t>(i)])) return;
      }
      TensorView grad = ctx.input(Rule::kGrad);
      if (grad.dims() != refs[0].dims()) {
        ctx.Fail(TG_INVALID_ARGUMENT,
                 std::string("var and ") + Rule::kInputs[Rule::kGrad] +
                     " do not have the same shape: " + array_util::ShapeString(refs[0].dims()) +
                     " vs " + array_util::ShapeString(grad.dims()));
        return;
      }
      const typename Rule::Coeffs k = rule_.Prepare(in);
      std::array<T*, Rule::kSlots> base;
      for (int s = 0; s < Rule::kSlots; ++s) {
        base[static_cast<size_t>(s)] = refs[s].template mutable_data<T>();
      }
      const T* g = grad.data<T>();
      ctx.ParallelFor(grad.num_elements(), Rule::kCost, [&](int64_t b, int64_t e) {
        // A rule is several passes over its chunk (Adam: m, then v, then var): in tiles
        // that fit the L1 cache each pass re-reads what the last one wrote from there, not
        // from memory (Adam on 400k floats: 400 -> 260 us on one core).
        for (int64_t t = b; t < e; t += kTile) {
          Chunk<T, Rule::kSlots> c;
          for (size_t s = 0; s < base.size(); ++s) c.slot[s] = base[s] + t;
          c.grad = g + t;
          c.n = std::min(kTile, e - t);
          rule_.Apply(k, c);
        }
      });
    }
    if (ctx.num_outputs() > 0) ctx.ForwardRefInputToRefOutput(0, 0);  // not ResourceApply*
  }

 private:
  Rule rule_;
  bool use_locking_ = false;
};

// The rule's op on reference variables and its op on resource variables (where it has each).
template <template <typename> class Rule>
void RegisterDense(tgraph::plugin::Init& init) {
  for (const char* op : {Rule<float>::kDenseOp, Rule<float>::kResourceOp}) {
    if (op == nullptr) continue;
    init.Kernel<DenseApplyOp<float, Rule<float>>>(KernelBuilder(op, "CPU").TypeConstraint("T", TG_FLOAT));
    init.Kernel<DenseApplyOp<double, Rule<double>>>(KernelBuilder(op, "CPU").TypeConstraint("T", TG_DOUBLE));
  }
}

}  // namespace

void RegisterDenseTrainingKernels(tgraph::plugin::Init& init) {
  RegisterDense<GradientDescentRule>(init);
  RegisterDense<MomentumRule>(init);
  RegisterDense<AdamRule>(init);
  RegisterDense<RMSPropRule>(init);
  RegisterDense<CenteredRMSPropRule>(init);
  RegisterDense<AdagradRule>(init);
  RegisterDense<AdagradV2Rule>(init);
  RegisterDense<KerasMomentumRule>(init);
  RegisterDense<AdadeltaRule>(init);
}

}  // namespace tgraph_cpu
