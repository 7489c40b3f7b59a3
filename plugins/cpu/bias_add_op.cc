// BiasAdd: value + bias along the channel dimension (the last for NHWC, dimension 1 for
// NCHW). The value's buffer is reused for the output when nobody else holds it.
#include <string>

#include "nn_common.h"

namespace tgraph_cpu::nn {
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
    const T* in = value.template data<T>();
    const T* b = bias.template data<T>();
    T* o = out.template mutable_data<T>();
    const int64_t rows = outer * channels;  // each row: `inner` elements sharing one bias
    if (inner == 1) {
      ctx.ParallelFor(outer, static_cast<double>(channels), [&](int64_t begin, int64_t end) {
        for (int64_t r = begin; r < end; ++r) {
          const T* src = in + r * channels;
          T* dst = o + r * channels;
          for (int64_t c = 0; c < channels; ++c) dst[c] = src[c] + b[c];
        }
      });
    } else {
      ctx.ParallelFor(rows, static_cast<double>(inner), [&](int64_t begin, int64_t end) {
        for (int64_t r = begin; r < end; ++r) {
          const T bv = b[r % channels];
          const T* src = in + r * inner;
          T* dst = o + r * inner;
          for (int64_t i = 0; i < inner; ++i) dst[i] = src[i] + bv;
        }
      });
    }
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
