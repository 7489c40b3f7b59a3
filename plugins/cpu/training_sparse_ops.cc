// Sparse optimizer updates (SparseApplyMomentum, SparseApplyAdagrad, SparseApplyRMSProp,
// SparseApplyCenteredRMSProp): grad row i updates row indices[i] of every variable with the
// dense op's rule. As in TF, an index that appears twice is applied twice, one after the
// other in the order of `indices`. Distinct rows are independent, so the rows are grouped
// by index and the groups split over the intra-op pool; within a group the updates run in
// order, which gives the sequential result at any thread count. Every shape and index is
// checked before the first write, so a rejected update changes nothing.
#include <iterator>
#include <utility>
#include <vector>

#include "training_rules.h"

namespace tgraph_cpu {
namespace {

using namespace training;
using array_util::ShapeString;
using tgraph::plugin::KernelBuilder;

template <typename T, typename Rule>
class SparseApplyOp {
 public:
  static constexpr int kNumDenseInputs = static_cast<int>(std::size(Rule::kInputs));
  static constexpr int kIndices = Rule::kGrad + 1;
  // Where the dense op's input i sits in the sparse op (indices follows grad).
  static constexpr int Pos(int i) { return i <= Rule::kGrad ? i : i + 1; }

  explicit SparseApplyOp(Construction& c) : rule_(c) { c.GetAttr("use_locking", &use_locking_); }

  void Compute(Context& ctx) {
    {
      VarRefs<Rule::kSlots> refs(ctx, use_locking_);
      if (!refs.ok() || !Apply(ctx, refs)) return;
    }
    if (ctx.num_outputs() > 0) ctx.ForwardRefInputToRefOutput(0, 0);  // not ResourceSparseApply*
  }

 private:
  bool Apply(Context& ctx, const VarRefs<Rule::kSlots>& refs) {
    const std::vector<int64_t> var = refs[0].dims();
    if (var.empty()) {
      ctx.Fail(TG_INVALID_ARGUMENT, "var must be at least 1 dimensional, but has shape []");
      return false;
    }
    if (!CheckSlotShapes(ctx, refs, Rule::kInputs)) return false;
    Scalars<T> in{};
    for (int i = Rule::kSlots; i < kNumDenseInputs; ++i) {
      if (i != Rule::kGrad &&
          !ReadScalar(ctx, Pos(i), Rule::kInputs[i], &in[static_cast<size_t>(i)]))
        return false;
    }
    TensorView grad = ctx.input(Rule::kGrad);
    TensorView indices = ctx.input(kIndices);
    if (indices.rank() != 1) {
      ctx.Fail(TG_INVALID_ARGUMENT,
               "indices must be one-dimensional, but has shape " + ShapeString(indices.dims()));
      return false;
    }
    const int64_t n = indices.dim(0);
    std::vector<int64_t> want = var;
    want[0] = n;
    if (grad.dims() != want) {
      ctx.Fail(TG_INVALID_ARGUMENT, "grad must have shape [len(indices)] + var.shape[1:] = " +
                                        ShapeString(want) + ", but has shape " +
                                        ShapeString(grad.dims()));
      return false;
    }
    const std::vector<int64_t> idx = array_util::IndexValues(indices);
    for (int64_t i = 0; i < n; ++i) {
      if (idx[static_cast<size_t>(i)] < 0 || idx[static_cast<size_t>(i)] >= var[0]) {
        ctx.Fail(TG_INVALID_ARGUMENT, array_util::BadIndexMessage(i, indices.dims(),
                                                                  idx[static_cast<size_t>(i)],
                                                                  var[0]));
        return false;
      }
    }
    const int64_t row = array_util::Product(var, 1, var.size());
    if (n == 0 || row == 0) return true;

    // (index, position) sorted: each run of one index lists its positions in order.
    std::vector<std::pair<int64_t, int64_t>> order(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      order[static_cast<size_t>(i)] = {idx[static_cast<size_t>(i)], i};
    }
    std::sort(order.begin(), order.end());
    std::vector<size_t> group_start;
    for (size_t k = 0; k < order.size(); ++k) {
      if (k == 0 || order[k].first != order[k - 1].first) group_start.push_back(k);
    }
    const int64_t groups = static_cast<int64_t>(group_start.size());
    group_start.push_back(order.size());

    const typename Rule::Coeffs k = rule_.Prepare(in);
    std::array<T*, Rule::kSlots> base;
    for (int s = 0; s < Rule::kSlots; ++s) {
      base[static_cast<size_t>(s)] = refs[s].template mutable_data<T>();
    }
    const T* g = grad.data<T>();
    const double cost = Rule::kCost * static_cast<double>(row) * static_cast<double>(n) /
                        static_cast<double>(groups);
    ctx.ParallelFor(groups, cost, [&](int64_t b, int64_t e) {
      Chunk<T, Rule::kSlots> c;
      c.n = row;
      for (size_t q = static_cast<size_t>(b); q < static_cast<size_t>(e); ++q) {
        for (size_t u = group_start[q]; u < group_start[q + 1]; ++u) {
          const int64_t r = order[u].first, pos = order[u].second;
          for (size_t s = 0; s < base.size(); ++s) c.slot[s] = base[s] + r * row;
          c.grad = g + pos * row;
          rule_.Apply(k, c);
        }
      }
    });
    return true;
  }

  Rule rule_;
  bool use_locking_ = false;
};

// The rule's sparse op on reference variables and on resource variables (where it has each).
template <template <typename> class Rule>
void RegisterSparse(tgraph::plugin::Init& init) {
  for (const char* op : {Rule<float>::kSparseOp, Rule<float>::kResourceSparseOp}) {
    if (op == nullptr) continue;
    init.Kernel<SparseApplyOp<float, Rule<float>>>(
        KernelBuilder(op, "CPU").TypeConstraint("T", TG_FLOAT).TypeConstraint("Tindices", TG_ARRAY_INDEX_TYPES));
    init.Kernel<SparseApplyOp<double, Rule<double>>>(
        KernelBuilder(op, "CPU").TypeConstraint("T", TG_DOUBLE).TypeConstraint("Tindices", TG_ARRAY_INDEX_TYPES));
  }
}

}  // namespace

void RegisterSparseTrainingKernels(tgraph::plugin::Init& init) {
  RegisterSparse<MomentumRule>(init);
  RegisterSparse<AdagradRule>(init);
  RegisterSparse<RMSPropRule>(init);
  RegisterSparse<CenteredRMSPropRule>(init);
  RegisterSparse<AdagradV2Rule>(init);
  RegisterSparse<KerasMomentumRule>(init);
  RegisterSparse<AdadeltaRule>(init);
}

}  // namespace tgraph_cpu
