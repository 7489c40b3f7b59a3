// BiasAdd: value + bias along the channel dimension (the last for NHWC, dimension 1 for
// NCHW). The value's buffer is reused for the output when nobody else holds it.
#include <string>

#include "nn_common.h"

namespace tgraph_cpu::nn {
namespace {

// kAddend: `add` (laid out as `in`) is added after the bias.
template <Activation A, bool kAddend, typename T>
void AddBiasThen(tgraph::plugin::Context& ctx, const T* in, const T* b, T* o, int64_t outer,
                 int64_t channels, int64_t inner, float alpha, const T* add) {
  auto plus = [add](T v, int64_t e) {
    if constexpr (kAddend) {
      return T(v + add[e]);
    } else {
      (void)add;
      (void)e;
      return v;
    }
  };
  const int64_t rows = outer * channels;  // each row: `inner` elements sharing one bias
  if (inner == 1) {
    ctx.ParallelFor(outer, static_cast<double>(channels), [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        const T* src = in + r * channels;
        T* dst = o + r * channels;
        for (int64_t c = 0; c < channels; ++c) {
          dst[c] = Activate<A>(plus(T(src[c] + b[c]), r * channels + c), alpha);
        }
      }
    });
  } else {
    ctx.ParallelFor(rows, static_cast<double>(inner), [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        const T bv = b[r % channels];
        const T* src = in + r * inner;
        T* dst = o + r * inner;
        for (int64_t i = 0; i < inner; ++i) dst[i] = Activate<A>(plus(T(src[i] + bv), r * inner + i), alpha);
      }
    });
  }
}

template <Activation A, typename T>
void AddBiasActivated(tgraph::plugin::Context& ctx, const T* in, const T* b, T* o, int64_t outer,
                      int64_t channels, int64_t inner, float alpha, const T* add) {
  if (add != nullptr) return AddBiasThen<A, true>(ctx, in, b, o, outer, channels, inner, alpha, add);
  AddBiasThen<A, false>(ctx, in, b, o, outer, channels, inner, alpha, add);
}

}  // namespace

template <typename T>
void AddBias(tgraph::plugin::Context& ctx, const T* in, const T* bias, T* out, int64_t outer,
             int64_t channels, int64_t inner, Activation activation, float alpha, const T* addend) {
  if (outer * channels * inner == 0) return;
  switch (activation) {
    case Activation::kNone:
      return AddBiasActivated<Activation::kNone>(ctx, in, bias, out, outer, channels, inner, alpha, addend);
    case Activation::kRelu:
      return AddBiasActivated<Activation::kRelu>(ctx, in, bias, out, outer, channels, inner, alpha, addend);
    case Activation::kRelu6:
      return AddBiasActivated<Activation::kRelu6>(ctx, in, bias, out, outer, channels, inner, alpha, addend);
    case Activation::kElu:
      return AddBiasActivated<Activation::kElu>(ctx, in, bias, out, outer, channels, inner, alpha, addend);
    case Activation::kLeakyRelu:
      return AddBiasActivated<Activation::kLeakyRelu>(ctx, in, bias, out, outer, channels, inner, alpha,
                                                      addend);
    case Activation::kSwish:
      return AddBiasActivated<Activation::kSwish>(ctx, in, bias, out, outer, channels, inner, alpha, addend);
    case Activation::kGeluExact:
      return AddBiasActivated<Activation::kGeluExact>(ctx, in, bias, out, outer, channels, inner, alpha,
                                                      addend);
  }
}

template void AddBias<float>(tgraph::plugin::Context&, const float*, const float*, float*, int64_t,
                             int64_t, int64_t, Activation, float, const float*);
template void AddBias<double>(tgraph::plugin::Context&, const double*, const double*, double*,
                              int64_t, int64_t, int64_t, Activation, float, const double*);

namespace {

using tgraph::plugin::Construction;
using tgraph::plugin::Context;

template <typename T>
class BiasAddOp {
 public:
  explicit BiasAddOp(Construction& c) {
    std::string format;
    if (!c.GetAttr("data_format", &format)) return;
    if (format == "NCHW") {
      nchw_ = true;
    } else if (format != "NHWC") {
      c.Fail(TG_INVALID_ARGUMENT, "unknown data_format '" + format + "'");
    }
  }

  void Compute(Context& ctx) {
    const auto value = ctx.input(0);
    const auto bias = ctx.input(1);
    const std::vector<int64_t> dims = value.dims();
    const size_t min_rank = nchw_ ? 3 : 2;
    if (dims.size() < min_rank) {
      ctx.Fail(TG_INVALID_ARGUMENT, "value must have rank at least " + std::to_string(min_rank) +
                                        " for data_format " + (nchw_ ? "NCHW" : "NHWC") +
                                        ", got shape " + ShapeString(dims));
      return;
    }
    if (bias.rank() != 1) {
      ctx.Fail(TG_INVALID_ARGUMENT, "bias must be 1-D, got shape " + ShapeString(bias.dims()));
      return;
    }
    const size_t channel_dim = nchw_ ? 1 : dims.size() - 1;
    const int64_t channels = dims[channel_dim];
    if (bias.dim(0) != channels) {
      ctx.Fail(TG_INVALID_ARGUMENT, "bias size " + std::to_string(bias.dim(0)) +
                                        " must equal the channel dimension of value " +
                                        ShapeString(dims) + " (dimension " +
                                        std::to_string(channel_dim) + ")");
      return;
    }
    // value as [outer, channels, inner].
    int64_t outer = 1, inner = 1;
    for (size_t i = 0; i < channel_dim; ++i) outer *= dims[i];
    for (size_t i = channel_dim + 1; i < dims.size(); ++i) inner *= dims[i];
    auto out = ctx.ForwardOrAllocateOutput(0, 0, dims);
    if (!ctx.ok() || outer * channels * inner == 0) return;
    AddBias<T>(ctx, value.template data<T>(), bias.template data<T>(),
               out.template mutable_data<T>(), outer, channels, inner, Activation::kNone, 0.f);
  }

 private:
  bool nchw_ = false;
};

template <typename T>
void RegisterFor(tgraph::plugin::Init& init) {
  init.Kernel<BiasAddOp<T>>(
      tgraph::plugin::KernelBuilder("BiasAdd", "CPU").TypeConstraint("T", DTypeOf<T>::value));
}

}  // namespace

void RegisterBiasAdd(tgraph::plugin::Init& init) {
  RegisterFor<float>(init);
  RegisterFor<double>(init);
}

}  // namespace tgraph_cpu::nn
