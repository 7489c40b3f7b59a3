// Einsum on the CPU (float, double; half and bfloat16 widened to float), one or two inputs. The equation is resolved by
// common/einsum.h (shared with the shape function); every dimension id then plays one role:
//   batch    in the output and both inputs     -> B
//   free     in the output and one input       -> L (first input) or R (second)
//   contract in both inputs, not the output    -> K
//   summed   in one input only, not the output -> summed away while gathering
// Each input is gathered (strided, summing its own summed ids; a repeated label's strides
// add up to its diagonal, a broadcast ellipsis dim has stride 0) into [B, L, K] and
// [B, K, R], multiplied per batch with the one Eigen contraction (matmul_op.cc), and the
// [B, L, R] result gathered into the output's order. Gathers that would copy a buffer
// unchanged are skipped, so batch-matmul forms cost no more than BatchMatMulV2.
#include <algorithm>
#include <string>
#include <type_traits>
#include <vector>

#include "common/einsum.h"
#include "eigen_device.h"
#include "model_op_kernels.h"
#include "nn_common.h"

namespace tgraph_cpu {
namespace {

using tgraph::plugin::Construction;
using tgraph::plugin::Context;
using tgraph::plugin::TensorView;
namespace einsum = tgraph::einsum;

// Axes of a gather: sizes, and strides into the source (in elements).
struct Axes {
  std::vector<int64_t> size, stride;
  void Add(int64_t s, int64_t st) {
    size.push_back(s);
    stride.push_back(st);
  }
  int64_t Count() const {
    int64_t n = 1;
    for (int64_t s : size) n *= s;
    return n;
  }
  // True when the strides are the dense row-major ones of the sizes: a gather in this order
  // would copy the source unchanged.
  bool Dense() const {
    int64_t expect = 1;
    for (size_t i = size.size(); i-- > 0;) {
      if (size[i] != 1 && stride[i] != expect) return false;
      expect *= size[i];
    }
    return true;
  }
};

// dst (dense over `out`) = sum over `summed` of src at the combined offsets.
template <typename T>
void GatherSum(Context& ctx, const T* src, const Axes& out, const Axes& summed, T* dst) {
  const int64_t n = out.Count(), m = summed.Count();
  const size_t r = out.size.size(), rs = summed.size.size();
  ctx.ParallelFor(n, 1.0 + static_cast<double>(m), [&](int64_t begin, int64_t end) {
    std::vector<int64_t> idx(r, 0), sidx(rs, 0);
    int64_t off = 0, rest = begin;
    for (size_t d = r; d-- > 0;) {
      idx[d] = rest % out.size[d];
      rest /= out.size[d];
      off += idx[d] * out.stride[d];
    }
    for (int64_t i = begin; i < end; ++i) {
      if (rs == 0) {
        dst[i] = src[off];
      } else {
        T acc = T(0);
        int64_t soff = 0;
        for (int64_t j = 0; j < m; ++j) {
          acc += src[off + soff];
          for (size_t d = rs; d-- > 0;) {
            soff += summed.stride[d];
            if (++sidx[d] < summed.size[d]) break;
            soff -= summed.stride[d] * summed.size[d];
            sidx[d] = 0;
          }
        }
        dst[i] = acc;
      }
      for (size_t d = r; d-- > 0;) {
        off += out.stride[d];
        if (++idx[d] < out.size[d]) break;
        off -= out.stride[d] * out.size[d];
        idx[d] = 0;
      }
    }
  });
}

// The contraction of `data` (dims `dims`, resolved as `r`) into `o` (`total` elements),
// for T with a contraction instance (float, double).
template <typename T>
void RunEinsum(Context& ctx, const einsum::Resolved& r,
               const std::vector<std::vector<int64_t>>& dims, const std::vector<const T*>& data,
               T* o, int64_t total) {
  // Each input's stride per id (0 where absent or broadcast).
  const size_t ids = static_cast<size_t>(r.num_ids);
  std::vector<std::vector<int64_t>> strides(data.size(), std::vector<int64_t>(ids, 0));
  std::vector<std::vector<bool>> has(data.size(), std::vector<bool>(ids, false));
  for (size_t i = 0; i < data.size(); ++i) {
    int64_t stride = 1;
    for (size_t a = dims[i].size(); a-- > 0;) {
      const size_t id = static_cast<size_t>(r.input_ids[i][a]);
      has[i][id] = true;
      if (!(dims[i][a] == 1 && r.id_size[id] != 1)) strides[i][id] += stride;
      stride *= dims[i][a];
    }
    int64_t count = 1;
    for (int64_t d : dims[i]) count *= d;
    if (count == 0) {  // sums over nothing
      std::fill(o, o + total, T(0));
      return;
    }
  }
  std::vector<bool> in_out(ids, false);
  for (int id : r.output_ids) in_out[static_cast<size_t>(id)] = true;

  if (data.size() == 1) {
    Axes out_axes, summed;
    for (int id : r.output_ids) {
      out_axes.Add(r.id_size[static_cast<size_t>(id)], strides[0][static_cast<size_t>(id)]);
    }
    for (size_t id = 0; id < ids; ++id) {
      if (!in_out[id]) summed.Add(r.id_size[id], strides[0][id]);
    }
    GatherSum(ctx, data[0], out_axes, summed, o);
    return;
  }

  std::vector<int> batch, left, right, contract;
  Axes sum_a, sum_b;
  for (size_t id = 0; id < ids; ++id) {
    const bool a = has[0][id], b = has[1][id];
    const int i = static_cast<int>(id);
    if (in_out[id]) {
      (a && b ? batch : a ? left : right).push_back(i);
    } else if (a && b) {
      contract.push_back(i);
    } else if (a) {
      sum_a.Add(r.id_size[id], strides[0][id]);
    } else {
      sum_b.Add(r.id_size[id], strides[1][id]);
    }
  }
  auto gather_axes = [&](size_t input, std::initializer_list<const std::vector<int>*> groups) {
    Axes axes;
    for (const auto* g : groups) {
      for (int id : *g) {
        axes.Add(r.id_size[static_cast<size_t>(id)], strides[input][static_cast<size_t>(id)]);
      }
    }
    return axes;
  };
  const Axes a_axes = gather_axes(0, {&batch, &left, &contract});
  const Axes b_axes = gather_axes(1, {&batch, &contract, &right});
  auto count = [&](const std::vector<int>& g) {
    int64_t n = 1;
    for (int id : g) n *= r.id_size[static_cast<size_t>(id)];
    return n;
  };
  const int64_t nb = count(batch), nl = count(left), nr = count(right), nk = count(contract);

  // The operands as [B, L, K] and [B, K, R]: the inputs themselves when already so laid out.
  auto operand = [&](size_t i, const Axes& axes, const Axes& summed,
                     tgraph::plugin::TensorMut* scratch) -> const T* {
    const T* src = data[i];
    if (summed.size.empty() && axes.Dense()) return src;
    *scratch = ctx.AllocateTemp(nn::DTypeOf<T>::value, {axes.Count()});
    if (!ctx.ok()) return nullptr;
    T* dst = scratch->template mutable_data<T>();
    GatherSum(ctx, src, axes, summed, dst);
    return dst;
  };
  tgraph::plugin::TensorMut a_tmp, b_tmp, c_tmp;
  const T* a = operand(0, a_axes, sum_a, &a_tmp);
  if (a == nullptr) return;
  const T* b = operand(1, b_axes, sum_b, &b_tmp);
  if (b == nullptr) return;

  // The product [B, L, R], straight into the output when that is its order.
  Axes result;  // the output's axes, with strides into [B, L, R]
  {
    std::vector<int64_t> stride_of(ids, 0);
    int64_t stride = 1;
    std::vector<int> order = batch;
    order.insert(order.end(), left.begin(), left.end());
    order.insert(order.end(), right.begin(), right.end());
    for (size_t k = order.size(); k-- > 0;) {
      stride_of[static_cast<size_t>(order[k])] = stride;
      stride *= r.id_size[static_cast<size_t>(order[k])];
    }
    for (int id : r.output_ids) {
      result.Add(r.id_size[static_cast<size_t>(id)], stride_of[static_cast<size_t>(id)]);
    }
  }
  const bool direct = result.Dense();
  T* c = o;
  if (!direct) {
    c_tmp = ctx.AllocateTemp(nn::DTypeOf<T>::value, {nb * nl * nr});
    if (!ctx.ok()) return;
    c = c_tmp.template mutable_data<T>();
  }
  if (nk == 0) {
    std::fill(c, c + nb * nl * nr, T(0));
  } else if (nb == 1 || nl * nk * nr >= 32768) {
    EigenCpu eigen(ctx);
    for (int64_t i = 0; i < nb; ++i) {
      nn::Contract<T>(eigen.device(), a + i * nl * nk, nl, nk, false, b + i * nk * nr, nk, nr,
                      false, c + i * nl * nr);
    }
  } else {
    ctx.ParallelFor(nb, static_cast<double>(nl * nk * nr), [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        nn::ContractSingleThread<T>(a + i * nl * nk, nl, nk, false, b + i * nk * nr, nk, nr,
                                    false, c + i * nl * nr);
      }
    });
  }
  if (!direct) GatherSum(ctx, static_cast<const T*>(c), result, Axes{}, o);
}

template <typename T>
class EinsumOp {
 public:
  explicit EinsumOp(Construction& c) {
    if (!c.GetAttr("equation", &equation_)) return;
    const std::string error = einsum::Parse(equation_, c.num_inputs(), &eq_);
    if (!error.empty()) c.Fail(TG_INVALID_ARGUMENT, error);
  }

  void Compute(Context& ctx) {
    const int num_inputs = ctx.num_inputs();
    std::vector<TensorView> inputs;
    std::vector<std::vector<int64_t>> dims;
    for (int i = 0; i < num_inputs; ++i) {
      inputs.push_back(ctx.input(i));
      dims.push_back(inputs.back().dims());
    }
    einsum::Resolved r;
    const std::string error = einsum::Resolve(eq_, dims, &r);
    if (!error.empty()) {
      ctx.Fail(TG_INVALID_ARGUMENT, "equation '" + equation_ + "': " + error);
      return;
    }
    auto out = ctx.AllocateOutput(0, r.output_dims);
    if (!ctx.ok()) return;
    T* o = out.template mutable_data<T>();
    int64_t total = 1;
    for (int64_t d : r.output_dims) total *= d;
    if (total == 0) return;
    std::vector<const T*> data;
    for (const TensorView& t : inputs) data.push_back(t.template data<T>());
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      RunEinsum<T>(ctx, r, dims, data, o, total);
    } else {
      // half / bfloat16: widened to float for the gathers and the product, then narrowed.
      std::vector<tgraph::plugin::TensorMut> wide;
      std::vector<const float*> wide_data;
      for (size_t i = 0; i < inputs.size(); ++i) {
        const int64_t n = inputs[i].num_elements();
        wide.push_back(ctx.AllocateTemp(TG_FLOAT, {n}));
        if (!ctx.ok()) return;
        float* w = wide.back().template mutable_data<float>();
        for (int64_t k = 0; k < n; ++k) w[k] = static_cast<float>(data[i][k]);
        wide_data.push_back(w);
      }
      auto wide_out = ctx.AllocateTemp(TG_FLOAT, {total});
      if (!ctx.ok()) return;
      float* wo = wide_out.template mutable_data<float>();
      RunEinsum<float>(ctx, r, dims, wide_data, wo, total);
      for (int64_t k = 0; k < total; ++k) o[k] = static_cast<T>(wo[k]);
    }
  }

 private:
  std::string equation_;
  einsum::Equation eq_;
};

template <typename T>
void RegisterFor(tgraph::plugin::Init& init) {
  init.Kernel<EinsumOp<T>>(tgraph::plugin::KernelBuilder("Einsum", "CPU")
                               .TypeConstraint("T", nn::DTypeOf<T>::value));
}

}  // namespace

void RegisterEinsumKernels(tgraph::plugin::Init& init) {
  RegisterFor<float>(init);
  RegisterFor<double>(init);
  RegisterFor<Eigen::half>(init);
  RegisterFor<Eigen::bfloat16>(init);
}

}  // namespace tgraph_cpu
