// String kernels. Regexes use std::regex (ECMAScript syntax); TensorFlow uses RE2, whose
// syntax agrees on what graphs use (anchors, classes, repetition, alternation). A pattern
// that does not compile fails the node with INVALID_ARGUMENT naming the pattern.
#include "string_kernels.h"

#include "../array_kernel_util.h"
#include <cstdio>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

namespace tgraph_cpu {
namespace {

using tgraph::plugin::Construction;
using tgraph::plugin::Context;
using tgraph::plugin::KernelBuilder;
using tgraph::plugin::TensorMut;
using tgraph::plugin::TensorView;
using array_util::ShapeString;

std::string Quoted(std::string_view s) {
  std::string out = "'";
  out += s;
  out += "'";
  return out;
}

bool CompileRegex(std::string_view pattern, std::regex* out, std::string* error) {
  try {
    *out = std::regex(pattern.begin(), pattern.end(), std::regex::ECMAScript);
    return true;
  } catch (const std::regex_error& e) {
    *error = "invalid regex pattern " + Quoted(pattern) + ": " + e.what();
    return false;
  }
}

// Input 0's strings matched against `re`, into a bool output of its shape.
void FullMatch(Context& ctx, const std::regex& re) {
  TensorView in = ctx.input(0);
  TensorMut out = ctx.AllocateOutput(0, in.dims());
  if (!ctx.ok()) return;
  bool* matched = out.mutable_data<bool>();
  for (int64_t i = 0; i < in.num_elements(); ++i) {
    const std::string_view s = in.string_at(i);
    matched[i] = std::regex_match(s.begin(), s.end(), re);
  }
}

class StaticRegexFullMatchOp {
 public:
  explicit StaticRegexFullMatchOp(Construction& c) {
    std::string pattern, error;
    if (!c.GetAttr("pattern", &pattern)) return;
    if (!CompileRegex(pattern, &regex_, &error)) c.Fail(TG_INVALID_ARGUMENT, error);
  }
  void Compute(Context& ctx) { FullMatch(ctx, regex_); }

 private:
  std::regex regex_;
};

class RegexFullMatchOp {
 public:
  explicit RegexFullMatchOp(Construction&) {}
  void Compute(Context& ctx) {
    TensorView pattern = ctx.input(1);
    if (pattern.rank() != 0) {
      ctx.Fail(TG_INVALID_ARGUMENT,
               "pattern must be a scalar, but has shape " + ShapeString(pattern.dims()));
      return;
    }
    std::regex re;
    std::string error;
    if (!CompileRegex(pattern.string_at(0), &re, &error)) {
      ctx.Fail(TG_INVALID_ARGUMENT, error);
      return;
    }
    FullMatch(ctx, re);
  }
};

class StringJoinOp {
 public:
  explicit StringJoinOp(Construction& c) { c.GetAttr("separator", &separator_); }
  void Compute(Context& ctx) {
    const int n = ctx.num_inputs();
    std::vector<TensorView> inputs;
    std::vector<int64_t> dims;
    bool shaped = false;
    for (int i = 0; i < n; ++i) {
      inputs.push_back(ctx.input(i));
      if (inputs.back().rank() == 0) continue;
      const std::vector<int64_t> d = inputs.back().dims();
      if (!shaped) {
        dims = d;
        shaped = true;
      } else if (d != dims) {
        ctx.Fail(TG_INVALID_ARGUMENT, "input " + std::to_string(i) + " has shape " +
                                          ShapeString(d) + " but an earlier input has " +
                                          ShapeString(dims) +
                                          " (inputs must be scalars or all of one shape)");
        return;
      }
    }
    TensorMut out = ctx.AllocateOutput(0, dims);
    if (!ctx.ok()) return;
    const int64_t count = out.num_elements();
    std::string joined;
    for (int64_t e = 0; e < count; ++e) {
      joined.clear();
      for (int i = 0; i < n; ++i) {
        if (i > 0) joined += separator_;
        const TensorView& t = inputs[static_cast<size_t>(i)];
        joined += t.string_at(t.rank() == 0 ? 0 : e);
      }
      out.set_string(e, joined);
    }
  }

 private:
  std::string separator_;
};

bool ScalarString(Context& ctx, int i, const char* what, std::string* out) {
  TensorView t = ctx.input(i);
  if (t.rank() != 0 || t.dtype() != TG_STRING) {
    ctx.Fail(TG_INVALID_ARGUMENT, std::string(what) + " must be a string scalar");
    return false;
  }
  *out = std::string(t.string_at(0));
  return true;
}

void SetScalarString(Context& ctx, const std::string& value) {
  TensorMut out = ctx.AllocateOutput(0, {});
  if (ctx.ok()) out.set_string(0, value);
}

// "%05d" of a non-negative number (wider numbers print whole, as printf does).
std::string FiveDigits(int64_t n) {
  char buffer[24];
  std::snprintf(buffer, sizeof buffer, "%05lld", static_cast<long long>(n));
  return buffer;
}

class ShardedFilenameOp {
 public:
  explicit ShardedFilenameOp(Construction&) {}
  void Compute(Context& ctx) {
    std::string base;
    int64_t shard = 0, num_shards = 0;
    if (!ScalarString(ctx, 0, "basename", &base) ||
        !array_util::ReadIndexScalar(ctx, 1, "shard", &shard) ||
        !array_util::ReadIndexScalar(ctx, 2, "num_shards", &num_shards)) {
      return;
    }
    if (num_shards < 1 || shard < 0 || shard >= num_shards) {
      ctx.Fail(TG_INVALID_ARGUMENT, "shard " + std::to_string(shard) + " of " +
                                        std::to_string(num_shards) + " for " + Quoted(base) +
                                        ": need 0 <= shard < num_shards");
      return;
    }
    base += "-";
    base += FiveDigits(shard);
    base += "-of-";
    base += FiveDigits(num_shards);
    SetScalarString(ctx, base);
  }
};

class ShardedFilespecOp {
 public:
  explicit ShardedFilespecOp(Construction&) {}
  void Compute(Context& ctx) {
    std::string base;
    int64_t num_shards = 0;
    if (!ScalarString(ctx, 0, "basename", &base) ||
        !array_util::ReadIndexScalar(ctx, 1, "num_shards", &num_shards)) {
      return;
    }
    if (num_shards < 1) {
      ctx.Fail(TG_INVALID_ARGUMENT, "num_shards must be positive for " + Quoted(base) +
                                        ", got " + std::to_string(num_shards));
      return;
    }
    base += "-?????";  // apart from "-of-": "??-" would be a trigraph
    base += "-of-";
    base += FiveDigits(num_shards);
    SetScalarString(ctx, base);
  }
};

// Select over strings: condition a scalar, of the same shape, or a vector over dimension 0
// (the numeric Select's rules).
class StringSelectOp {
 public:
  explicit StringSelectOp(Construction&) {}
  void Compute(Context& ctx) {
    TensorView cond = ctx.input(0), t = ctx.input(1), e = ctx.input(2);
    const std::vector<int64_t> dims = t.dims();
    if (e.dims() != dims) {
      ctx.Fail(TG_INVALID_ARGUMENT, "t and e must have the same shape, but have " +
                                        ShapeString(dims) + " and " + ShapeString(e.dims()));
      return;
    }
    const int64_t count = t.num_elements();
    int64_t per_condition = 0;  // elements each condition value selects
    if (cond.rank() == 0) {
      per_condition = count;
    } else if (cond.dims() == dims) {
      per_condition = 1;
    } else if (cond.rank() == 1 && !dims.empty() && cond.dim(0) == dims[0]) {
      per_condition = dims[0] == 0 ? 0 : count / dims[0];
    } else {
      ctx.Fail(TG_INVALID_ARGUMENT, "condition of shape " + ShapeString(cond.dims()) +
                                        " must be a scalar, of shape " + ShapeString(dims) +
                                        ", or a vector of its first dimension");
      return;
    }
    TensorMut out = ctx.AllocateOutput(0, dims);
    if (!ctx.ok()) return;
    const bool* c = cond.data<bool>();
    for (int64_t i = 0; i < count; ++i) {
      const bool pick_t = c[per_condition == 0 ? 0 : i / per_condition];
      out.set_string(i, pick_t ? t.string_at(i) : e.string_at(i));
    }
  }
};

// Pack over strings: N inputs of one shape stacked along `axis`.
class StringPackOp {
 public:
  explicit StringPackOp(Construction& c) { c.GetAttr("axis", &axis_); }
  void Compute(Context& ctx) {
    const int n = ctx.num_inputs();
    const std::vector<int64_t> dims = ctx.input(0).dims();
    const int64_t rank = static_cast<int64_t>(dims.size()) + 1;
    const int64_t axis = axis_ < 0 ? axis_ + rank : axis_;
    if (axis < 0 || axis >= rank) {
      ctx.Fail(TG_INVALID_ARGUMENT, "axis " + std::to_string(axis_) + " is out of range for " +
                                        "packing inputs of rank " + std::to_string(rank - 1));
      return;
    }
    for (int i = 1; i < n; ++i) {
      if (ctx.input(i).dims() != dims) {
        ctx.Fail(TG_INVALID_ARGUMENT, "input " + std::to_string(i) + " has shape " +
                                          ShapeString(ctx.input(i).dims()) + " but input 0 has " +
                                          ShapeString(dims));
        return;
      }
    }
    std::vector<int64_t> out_dims = dims;
    out_dims.insert(out_dims.begin() + axis, n);
    TensorMut out = ctx.AllocateOutput(0, out_dims);
    if (!ctx.ok()) return;
    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < axis; ++d) outer *= dims[static_cast<size_t>(d)];
    for (size_t d = static_cast<size_t>(axis); d < dims.size(); ++d) inner *= dims[d];
    int64_t k = 0;
    for (int64_t o = 0; o < outer; ++o) {
      for (int i = 0; i < n; ++i) {
        TensorView in = ctx.input(i);
        for (int64_t j = 0; j < inner; ++j) out.set_string(k++, in.string_at(o * inner + j));
      }
    }
  }

 private:
  int64_t axis_ = 0;
};

}  // namespace

void RegisterStringKernels(tgraph::plugin::Init& init) {
  init.Kernel<StringJoinOp>(KernelBuilder("StringJoin", "CPU"));
  init.Kernel<StaticRegexFullMatchOp>(KernelBuilder("StaticRegexFullMatch", "CPU"));
  init.Kernel<RegexFullMatchOp>(KernelBuilder("RegexFullMatch", "CPU"));
  init.Kernel<ShardedFilenameOp>(KernelBuilder("ShardedFilename", "CPU"));
  init.Kernel<ShardedFilespecOp>(KernelBuilder("ShardedFilespec", "CPU"));
  init.Kernel<StringSelectOp>(KernelBuilder("Select", "CPU").TypeConstraint("T", {TG_STRING}));
  init.Kernel<StringPackOp>(KernelBuilder("Pack", "CPU").TypeConstraint("T", {TG_STRING}));
  RegisterStringConvertKernels(init);
  RegisterStringEditKernels(init);
}

}  // namespace tgraph_cpu
