// SaveV2, RestoreV2 and MergeV2Checkpoints: read their string arguments and hand the work
// to the core's checkpoint services (ABI 5), which pick the saver plugin for the prefix.
// Tensors pass by handle: nothing is copied on the way to or from the file.
#include <string>
#include <vector>

#include "array_kernel_util.h"
#include "cpu_kernels.h"

namespace tgraph_cpu {
namespace {

using tgraph::plugin::Construction;
using tgraph::plugin::Context;
using tgraph::plugin::TensorView;

// Messages by appending (GCC 12 at -O3 warns falsely on `"literal" + std::string&&`).
std::string Piece(std::string_view s) { return std::string(s); }
std::string Piece(size_t n) { return std::to_string(n); }
std::string Piece(int64_t n) { return std::to_string(n); }
template <typename... Args>
std::string Cat(const Args&... args) {
  std::string out;
  ((out += Piece(args)), ...);
  return out;
}

bool ReadStrings(Context& ctx, int input, const char* what, std::vector<std::string>* out) {
  TensorView t = ctx.input(input);
  if (t.dtype() != TG_STRING || t.rank() > 1) {
    ctx.Fail(TG_INVALID_ARGUMENT, Cat(what, " must be a string vector"));
    return false;
  }
  out->clear();
  for (int64_t i = 0; i < t.num_elements(); ++i) out->emplace_back(t.string_at(i));
  return true;
}

bool ReadScalarString(Context& ctx, int input, const char* what, std::string* out) {
  TensorView t = ctx.input(input);
  if (t.dtype() != TG_STRING || t.num_elements() != 1) {
    ctx.Fail(TG_INVALID_ARGUMENT,
             Cat(what, " must be a string scalar, but has ", t.num_elements(), " elements"));
    return false;
  }
  *out = std::string(t.string_at(0));
  return true;
}

// Reads names and shape_and_slices (inputs 1 and 2) for `count` tensors. Only whole tensors
// are saved and restored: a slice spec is refused, naming the tensor.
bool ReadNames(Context& ctx, size_t count, std::vector<std::string>* names) {
  std::vector<std::string> slices;
  if (!ReadStrings(ctx, 1, "tensor_names", names)) return false;
  if (!ReadStrings(ctx, 2, "shape_and_slices", &slices)) return false;
  if (names->size() != count || slices.size() != count) {
    ctx.Fail(TG_INVALID_ARGUMENT, Cat("expected ", count, " tensor_names and shape_and_slices, got ",
                                      names->size(), " and ", slices.size()));
    return false;
  }
  for (size_t i = 0; i < count; ++i) {
    if (!slices[i].empty()) {
      ctx.Fail(TG_UNIMPLEMENTED, Cat("tensor '", (*names)[i], "': saving or restoring a slice ('",
                                     slices[i], "') is not supported; only whole tensors"));
      return false;
    }
  }
  return true;
}

// The node's status, which the core's checkpoint services report into.
TG_Status* NodeStatus(Context& ctx) { return tgraph::plugin::Api()->context_status(ctx.raw()); }

std::vector<const char*> Pointers(const std::vector<std::string>& strings) {
  std::vector<const char*> out;
  out.reserve(strings.size());
  for (const std::string& s : strings) out.push_back(s.c_str());
  return out;
}

class SaveV2Op {
 public:
  explicit SaveV2Op(Construction&) {}
  void Compute(Context& ctx) {
    const int count = ctx.num_inputs() - 3;
    std::string prefix;
    std::vector<std::string> names;
    if (!ReadScalarString(ctx, 0, "prefix", &prefix)) return;
    if (!ReadNames(ctx, static_cast<size_t>(count), &names)) return;
    std::vector<const TG_Tensor*> tensors;
    for (int i = 0; i < count; ++i) tensors.push_back(ctx.input(3 + i).raw());
    const std::vector<const char*> name_ptrs = Pointers(names);
    tgraph::plugin::Api()->checkpoint_save(prefix.c_str(), name_ptrs.data(), tensors.data(),
                                            tensors.size(), NodeStatus(ctx));
  }
};

class RestoreV2Op {
 public:
  explicit RestoreV2Op(Construction& c) { c.GetAttr("dtypes", &dtypes_); }
  void Compute(Context& ctx) {
    std::string prefix;
    std::vector<std::string> names;
    if (!ReadScalarString(ctx, 0, "prefix", &prefix)) return;
    if (!ReadNames(ctx, dtypes_.size(), &names)) return;
    const std::vector<const char*> name_ptrs = Pointers(names);
    std::vector<TG_Tensor*> restored(names.size(), nullptr);
    const TG_CoreApi* api = tgraph::plugin::Api();
    api->checkpoint_restore(prefix.c_str(), name_ptrs.data(), names.size(), restored.data(),
                            NodeStatus(ctx));
    // Every tensor is checked before any becomes an output: a dtype mismatch fails the node
    // with no output half-set.
    for (size_t i = 0; ctx.ok() && i < restored.size(); ++i) {
      const TG_DataType have = api->tensor_dtype(restored[i]);
      if (have != dtypes_[i]) {
        ctx.Fail(TG_INVALID_ARGUMENT,
                 Cat("tensor '", names[i], "' in checkpoint '", prefix, "' has dtype ",
                     array_util::DtypeName(have), ", but the graph restores it as ",
                     array_util::DtypeName(dtypes_[i])));
      }
    }
    for (size_t i = 0; i < restored.size(); ++i) {
      if (ctx.ok()) {
        api->set_output(ctx.raw(), static_cast<int>(i), restored[i], NodeStatus(ctx));
      } else if (restored[i] != nullptr) {
        api->delete_host_tensor(restored[i]);
      }
    }
  }

 private:
  std::vector<TG_DataType> dtypes_;
};

class MergeV2CheckpointsOp {
 public:
  explicit MergeV2CheckpointsOp(Construction& c) {
    bool delete_old = true;
    if (c.GetAttr("delete_old_dirs", &delete_old)) delete_old_dirs_ = delete_old;
  }
  void Compute(Context& ctx) {
    std::vector<std::string> sources;
    std::string destination;
    if (!ReadStrings(ctx, 0, "checkpoint_prefixes", &sources)) return;
    if (!ReadScalarString(ctx, 1, "destination_prefix", &destination)) return;
    const std::vector<const char*> ptrs = Pointers(sources);
    tgraph::plugin::Api()->checkpoint_merge(ptrs.data(), ptrs.size(), destination.c_str(),
                                             delete_old_dirs_ ? 1 : 0, NodeStatus(ctx));
  }

 private:
  bool delete_old_dirs_ = true;
};

}  // namespace

void RegisterCheckpointKernels(tgraph::plugin::Init& init) {
  using tgraph::plugin::KernelBuilder;
  init.Kernel<SaveV2Op>(KernelBuilder("SaveV2", "CPU"));
  init.Kernel<RestoreV2Op>(KernelBuilder("RestoreV2", "CPU"));
  init.Kernel<MergeV2CheckpointsOp>(KernelBuilder("MergeV2Checkpoints", "CPU"));
}

}  // namespace tgraph_cpu
