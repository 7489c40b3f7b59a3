// Assert and Print: what TF1 graphs keep of tf.debugging checks and tf.Print. Assert fails
// the run (INVALID_ARGUMENT naming the node) unless its condition holds, with the first
// `summarize` entries of each data tensor in the message; Print passes its input through
// and writes its message and data to standard error, for the first first_n runs (all with
// -1).
#include <atomic>
#include <cstdio>
#include <string>

#include "array_kernel_util.h"
#include "array_kernels.h"

namespace tgraph_cpu {
namespace {

using namespace array_util;

// "[1 2 3...]" (the first `summarize` entries; -1 or fewer: all), a string scalar as itself.
std::string Summary(const TensorView& t, int64_t summarize) {
  const int64_t n = t.num_elements();
  if (t.dtype() == TG_STRING && t.rank() == 0) return std::string(t.string_at(0));
  const int64_t shown = summarize < 0 ? n : std::min(n, summarize);
  std::string s = "[";
  for (int64_t i = 0; i < shown; ++i) {
    if (i > 0) s += " ";
    switch (t.dtype()) {
      case TG_FLOAT: s += std::to_string(t.data<float>()[i]); break;
      case TG_DOUBLE: s += std::to_string(t.data<double>()[i]); break;
      case TG_INT32: s += std::to_string(t.data<int32_t>()[i]); break;
      case TG_INT64: s += std::to_string(t.data<int64_t>()[i]); break;
      case TG_BOOL: s += t.data<bool>()[i] ? "1" : "0"; break;
      case TG_STRING: s.append(t.string_at(i)); break;
      default: s += "?"; break;
    }
  }
  if (shown < n) s += "...";
  return s + "]";
}

class AssertOp {
 public:
  explicit AssertOp(Construction& c) { c.GetAttr("summarize", &summarize_); }
  void Compute(Context& ctx) {
    TensorView cond = ctx.input(0);
    if (cond.dtype() != TG_BOOL || cond.num_elements() != 1) {
      ctx.Fail(TG_INVALID_ARGUMENT, "condition must be a single bool, got shape " +
                                        ShapeString(cond.dims()));
      return;
    }
    if (cond.data<bool>()[0]) return;
    std::string message = "assertion failed:";
    for (int i = 1; i < ctx.num_inputs(); ++i) message.append(" ").append(Summary(ctx.input(i), summarize_));
    ctx.Fail(TG_INVALID_ARGUMENT, message);
  }

 private:
  int64_t summarize_ = 3;
};

class PrintOp {
 public:
  explicit PrintOp(Construction& c) {
    c.GetAttr("message", &message_);
    c.GetAttr("first_n", &first_n_);
    c.GetAttr("summarize", &summarize_);
  }
  void Compute(Context& ctx) {
    TensorView in = ctx.input(0);
    ctx.SetOutputAlias(0, in, in.dims());
    if (first_n_ >= 0 && runs_.fetch_add(1) >= first_n_) return;
    std::string line = message_;
    for (int i = 1; i < ctx.num_inputs(); ++i) line.append(Summary(ctx.input(i), summarize_));
    line += "\n";
    std::fputs(line.c_str(), stderr);
  }

 private:
  std::string message_;
  int64_t first_n_ = -1, summarize_ = 3;
  std::atomic<int64_t> runs_{0};
};

}  // namespace

void RegisterAssertPrintKernels(tgraph::plugin::Init& init) {
  using tgraph::plugin::KernelBuilder;
  init.Kernel<AssertOp>(KernelBuilder("Assert", "CPU").HostMemory("condition").HostMemory("data"));
  init.Kernel<PrintOp>(KernelBuilder("Print", "CPU").HostMemory("data"));
}

}  // namespace tgraph_cpu
