// Softmax cross-entropy losses, one row (batch element) per work item:
//   loss[b]        = sum_c labels[b, c] * (logsumexp(features[b]) - features[b, c])
//   backprop[b, c] = softmax(features[b])[c] - labels[b, c]
// The dense op broadcasts features and labels to [batch, classes] (as TF does); the sparse
// one takes class indices and checks every index before writing anything.
#include <cmath>
#include <string>

#include "nn_common.h"

namespace tgraph_cpu::nn {
namespace {

using tgraph::plugin::Construction;
using tgraph::plugin::Context;

template <typename T>
using Row = Eigen::Array<T, Eigen::Dynamic, 1>;

// bp holds the row's features; turns it into exp(f - max) / sum and returns
// (max, log of the sum of exp(f - max)).
template <typename T>
void SoftmaxInPlace(Eigen::Map<Row<T>>& bp, T* shift, T* log_sum) {
  *shift = bp.maxCoeff();
  bp -= *shift;
  *log_sum = std::log(bp.exp().sum());
}

template <typename T>
class SoftmaxXentOp {
 public:
  explicit SoftmaxXentOp(Construction&) {}

  void Compute(Context& ctx) {
    const auto features = ctx.input(0);
    const auto labels = ctx.input(1);
    std::vector<int64_t> fd = features.dims(), ld = labels.dims();
    const std::string shapes = "features " + ShapeString(fd) + ", labels " + ShapeString(ld);
    if (fd.size() > 2 || ld.size() > 2 || std::max(fd.size(), ld.size()) != 2) {
      ctx.Fail(TG_INVALID_ARGUMENT,
               "features and labels must be 2-D or broadcast to 2-D, got " + shapes);
      return;
    }
    while (fd.size() < 2) fd.insert(fd.begin(), 1);
    while (ld.size() < 2) ld.insert(ld.begin(), 1);
    int64_t dims[2];
    for (size_t i = 0; i < 2; ++i) {
      if (fd[i] != ld[i] && fd[i] != 1 && ld[i] != 1) {
        ctx.Fail(TG_INVALID_ARGUMENT, "features and labels must be broadcastable, got " + shapes);
        return;
      }
      dims[i] = fd[i] == 1 ? ld[i] : fd[i];
    }
    const int64_t batch = dims[0], classes = dims[1];
    auto loss = ctx.AllocateOutput(0, {batch});
    auto backprop = ctx.AllocateOutput(1, {batch, classes});
    if (!ctx.ok() || batch == 0) return;
    T* lo = loss.template mutable_data<T>();
    if (classes == 0) {
      std::fill(lo, lo + batch, T(0));
      return;
    }
    T* bo = backprop.template mutable_data<T>();
    const T* f = features.template data<T>();
    const T* l = labels.template data<T>();
    // Strides in elements; 0 along a broadcast dimension.
    const int64_t f_row = fd[0] == 1 ? 0 : fd[1], f_col = fd[1] == 1 ? 0 : 1;
    const int64_t l_row = ld[0] == 1 ? 0 : ld[1], l_col = ld[1] == 1 ? 0 : 1;
    ctx.ParallelFor(batch, static_cast<double>(classes) * 20.0, [&](int64_t begin, int64_t end) {
      for (int64_t b = begin; b < end; ++b) {
        Eigen::Map<Row<T>> bp(bo + b * classes, classes);
        const T* fr = f + b * f_row;
        const T* lr = l + b * l_row;
        for (int64_t c = 0; c < classes; ++c) bp[c] = fr[c * f_col];
        T shift, log_sum;
        SoftmaxInPlace(bp, &shift, &log_sum);
        T sum = T(0);
        for (int64_t c = 0; c < classes; ++c) sum += lr[c * l_col] * (log_sum - bp[c]);
        lo[b] = sum;
        bp = (bp - log_sum).exp();
        for (int64_t c = 0; c < classes; ++c) bp[c] -= lr[c * l_col];
      }
    });
  }
};

template <typename T, typename L>
class SparseSoftmaxXentOp {
 public:
  explicit SparseSoftmaxXentOp(Construction&) {}

  void Compute(Context& ctx) {
    const auto features = ctx.input(0);
    const auto labels = ctx.input(1);
    if (features.rank() != 2 || labels.rank() != 1 || labels.dim(0) != features.dim(0)) {
      ctx.Fail(TG_INVALID_ARGUMENT,
               "features must be 2-D [batch, classes] and labels 1-D [batch], got features " +
                   ShapeString(features.dims()) + ", labels " + ShapeString(labels.dims()));
      return;
    }
    const int64_t batch = features.dim(0), classes = features.dim(1);
    if (batch > 0 && classes == 0) {
      ctx.Fail(TG_INVALID_ARGUMENT,
               "features must have at least one class, got shape " + ShapeString(features.dims()));
      return;
    }
    const L* lab = labels.template data<L>();
    for (int64_t b = 0; b < batch; ++b) {
      if (lab[b] < 0 || static_cast<int64_t>(lab[b]) >= classes) {
        ctx.Fail(TG_INVALID_ARGUMENT,
                 "labels[" + std::to_string(b) + "] = " + std::to_string(lab[b]) +
                     " is outside the valid range of classes [0, " + std::to_string(classes) + ")");
        return;
      }
    }
    auto loss = ctx.AllocateOutput(0, {batch});
    auto backprop = ctx.AllocateOutput(1, {batch, classes});
    if (!ctx.ok() || batch == 0) return;
    T* lo = loss.template mutable_data<T>();
    T* bo = backprop.template mutable_data<T>();
    const T* f = features.template data<T>();
    ctx.ParallelFor(batch, static_cast<double>(classes) * 20.0, [&](int64_t begin, int64_t end) {
      for (int64_t b = begin; b < end; ++b) {
        Eigen::Map<Row<T>> bp(bo + b * classes, classes);
        bp = Eigen::Map<const Row<T>>(f + b * classes, classes);
        T shift, log_sum;
        SoftmaxInPlace(bp, &shift, &log_sum);
        const int64_t label = static_cast<int64_t>(lab[b]);
        lo[b] = log_sum - bp[label];
        bp = (bp - log_sum).exp();
        bp[label] -= T(1);
      }
    });
  }
};

template <typename T>
void RegisterFor(tgraph::plugin::Init& init) {
  init.Kernel<SoftmaxXentOp<T>>(
      tgraph::plugin::KernelBuilder("SoftmaxCrossEntropyWithLogits", "CPU")
          .TypeConstraint("T", DTypeOf<T>::value));
  init.Kernel<SparseSoftmaxXentOp<T, int32_t>>(
      tgraph::plugin::KernelBuilder("SparseSoftmaxCrossEntropyWithLogits", "CPU")
          .TypeConstraint("T", DTypeOf<T>::value)
          .TypeConstraint("Tlabels", TG_INT32));
  init.Kernel<SparseSoftmaxXentOp<T, int64_t>>(
      tgraph::plugin::KernelBuilder("SparseSoftmaxCrossEntropyWithLogits", "CPU")
          .TypeConstraint("T", DTypeOf<T>::value)
          .TypeConstraint("Tlabels", TG_INT64));
}

}  // namespace

void RegisterXent(tgraph::plugin::Init& init) {
  RegisterFor<float>(init);
  RegisterFor<double>(init);
}

}  // namespace tgraph_cpu::nn
