// Summary kernels (TensorFlow's ScalarSummary, HistogramSummary and MergeSummary): each
// outputs a serialized Summary proto as a string scalar. The protos come from the lite copy
// of summary.proto linked into this plugin (proto/CMakeLists.txt says why lite), and the
// histogram from common/histogram.h, the same code the core's FileWriter uses.
#include <cmath>
#include <cstdint>
#include <string>
#include <unordered_set>
#include <vector>

#include "summary_kernels.h"

#include "common/histogram.h"
#include "tgraph/proto/summary.pb.h"

namespace tgraph_cpu {
namespace {

using tgraph::plugin::Construction;
using tgraph::plugin::Context;
using tgraph::plugin::KernelBuilder;
using tgraph::plugin::TensorView;
using Summary = tgraph::tf::Summary;

template <typename T>
struct SummaryDType;
#define TGRAPH_SUMMARY_DTYPE(T, DT) \
  template <>                       \
  struct SummaryDType<T> {          \
    static constexpr TG_DataType value = DT; \
  };
TGRAPH_SUMMARY_DTYPE(float, TG_FLOAT)
TGRAPH_SUMMARY_DTYPE(double, TG_DOUBLE)
TGRAPH_SUMMARY_DTYPE(int8_t, TG_INT8)
TGRAPH_SUMMARY_DTYPE(int16_t, TG_INT16)
TGRAPH_SUMMARY_DTYPE(int32_t, TG_INT32)
TGRAPH_SUMMARY_DTYPE(int64_t, TG_INT64)
TGRAPH_SUMMARY_DTYPE(uint8_t, TG_UINT8)
TGRAPH_SUMMARY_DTYPE(uint16_t, TG_UINT16)
TGRAPH_SUMMARY_DTYPE(uint32_t, TG_UINT32)
TGRAPH_SUMMARY_DTYPE(uint64_t, TG_UINT64)
#undef TGRAPH_SUMMARY_DTYPE

std::string ShapeString(const std::vector<int64_t>& dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i > 0) s += ",";
    s += std::to_string(dims[i]);
  }
  return s + "]";
}

// Serializes `summary` into output 0, a string scalar.
void SetSummaryOutput(Context& ctx, const Summary& summary) {
  std::string bytes;
  if (!summary.SerializeToString(&bytes)) {
    ctx.Fail(TG_INTERNAL, "cannot serialize the Summary");
    return;
  }
  auto out = ctx.AllocateOutput(0, {});
  if (!ctx.ok()) return;
  out.set_string(0, bytes);
}

// tags and values of one shape (or both scalars): one simple_value per element.
template <typename T>
class ScalarSummaryOp {
 public:
  explicit ScalarSummaryOp(Construction&) {}

  void Compute(Context& ctx) {
    const TensorView tags = ctx.input(0);
    const TensorView values = ctx.input(1);
    const std::vector<int64_t> tag_dims = tags.dims(), value_dims = values.dims();
    if (tag_dims != value_dims) {
      std::string message = "tags and values are not the same shape: " +
                            ShapeString(tag_dims) + " != " + ShapeString(value_dims);
      if (tags.num_elements() == 1) message += " (tag '" + std::string(tags.string_at(0)) + "')";
      ctx.Fail(TG_INVALID_ARGUMENT, message);
      return;
    }
    const int64_t n = values.num_elements();
    const T* v = n > 0 ? values.template data<T>() : nullptr;
    Summary summary;
    for (int64_t i = 0; i < n; ++i) {
      Summary::Value* value = summary.add_value();
      const std::string_view tag = tags.string_at(i);
      value->set_tag(tag.data(), tag.size());
      value->set_simple_value(static_cast<float>(v[i]));
    }
    SetSummaryOutput(ctx, summary);
  }
};

// A scalar tag and values of any shape: one histogram; values must be finite.
template <typename T>
class HistogramSummaryOp {
 public:
  explicit HistogramSummaryOp(Construction&) {}

  void Compute(Context& ctx) {
    const TensorView tag = ctx.input(0);
    const TensorView values = ctx.input(1);
    if (tag.rank() != 0) {
      ctx.Fail(TG_INVALID_ARGUMENT, "tags must be scalar, but has shape " +
                                        ShapeString(tag.dims()));
      return;
    }
    const int64_t n = values.num_elements();
    const T* v = n > 0 ? values.template data<T>() : nullptr;
    tgraph::histogram::Histogram histogram;
    for (int64_t i = 0; i < n; ++i) {
      const double d = static_cast<double>(v[i]);
      if (!std::isfinite(d)) {
        ctx.Fail(TG_INVALID_ARGUMENT,
                 std::string("Nan in summary histogram for: ") + ctx.node_name());
        return;
      }
      histogram.Add(d);
    }
    Summary summary;
    Summary::Value* value = summary.add_value();
    const std::string_view t = tag.string_at(0);
    value->set_tag(t.data(), t.size());
    histogram.EncodeTo(value->mutable_histo());
    SetSummaryOutput(ctx, summary);
  }
};

// The values of every element of every input, in order; a non-empty tag seen twice is an
// error (as in TensorFlow, which leaves untagged values alone).
class MergeSummaryOp {
 public:
  explicit MergeSummaryOp(Construction&) {}

  void Compute(Context& ctx) {
    Summary merged;
    std::unordered_set<std::string> tags;
    for (int input = 0; input < ctx.num_inputs(); ++input) {
      const TensorView in = ctx.input(input);
      for (int64_t i = 0; i < in.num_elements(); ++i) {
        const std::string_view bytes = in.string_at(i);
        Summary summary;
        if (!summary.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
          ctx.Fail(TG_INVALID_ARGUMENT, "Could not parse one of the summary inputs (input " +
                                            std::to_string(input) + ")");
          return;
        }
        for (Summary::Value& value : *summary.mutable_value()) {
          if (!value.tag().empty() && !tags.insert(value.tag()).second) {
            ctx.Fail(TG_INVALID_ARGUMENT,
                     "Duplicate tag " + value.tag() + " found in summary inputs");
            return;
          }
          *merged.add_value() = std::move(value);
        }
      }
    }
    SetSummaryOutput(ctx, merged);
  }
};

template <typename T>
void RegisterFor(tgraph::plugin::Init& init) {
  init.Kernel<ScalarSummaryOp<T>>(
      KernelBuilder("ScalarSummary", "CPU").TypeConstraint("T", SummaryDType<T>::value));
  init.Kernel<HistogramSummaryOp<T>>(
      KernelBuilder("HistogramSummary", "CPU").TypeConstraint("T", SummaryDType<T>::value));
}

}  // namespace

void RegisterSummaryKernels(tgraph::plugin::Init& init) {
  RegisterFor<float>(init);
  RegisterFor<double>(init);
  RegisterFor<int8_t>(init);
  RegisterFor<int16_t>(init);
  RegisterFor<int32_t>(init);
  RegisterFor<int64_t>(init);
  RegisterFor<uint8_t>(init);
  RegisterFor<uint16_t>(init);
  RegisterFor<uint32_t>(init);
  RegisterFor<uint64_t>(init);
  init.Kernel<MergeSummaryOp>(KernelBuilder("MergeSummary", "CPU"));
}

}  // namespace tgraph_cpu
