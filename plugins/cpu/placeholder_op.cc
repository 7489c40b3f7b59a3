// Placeholder: the executor feeds it; running its kernel means nothing was fed.
// PlaceholderWithDefault: passes its input through (no copy) unless fed.
#include <string>
#include <vector>

#include "array_kernel_util.h"
#include "array_kernels.h"

namespace tgraph_cpu {
namespace {

using namespace array_util;

class PlaceholderOp {
 public:
  explicit PlaceholderOp(Construction& c) {
    TG_DataType dtype = TG_INVALID_DTYPE;
    if (!c.GetAttr("dtype", &dtype)) return;
    message_ = "You must feed a value for placeholder tensor '" + c.node_name() + "' with dtype " +
               DtypeName(dtype);
    if (c.HasAttr("shape")) {
      std::vector<int64_t> dims;
      bool known_rank = false;
      if (!c.GetShapeAttr("shape", &dims, &known_rank)) return;
      if (known_rank) message_ += " and shape " + ShapeString(dims);
    }
  }
  void Compute(Context& ctx) { ctx.Fail(TG_INVALID_ARGUMENT, message_); }

 private:
  std::string message_;
};

class PlaceholderWithDefaultOp {
 public:
  explicit PlaceholderWithDefaultOp(Construction&) {}
  void Compute(Context& ctx) {
    TensorView in = ctx.input(0);
    ctx.SetOutputAlias(0, in, in.dims());
  }
};

}  // namespace

void RegisterPlaceholderKernels(tgraph::plugin::Init& init) {
  using tgraph::plugin::KernelBuilder;
  init.Kernel<PlaceholderOp>(KernelBuilder("Placeholder", "CPU"));
  init.Kernel<PlaceholderWithDefaultOp>(KernelBuilder("PlaceholderWithDefault", "CPU"));
}

}  // namespace tgraph_cpu
