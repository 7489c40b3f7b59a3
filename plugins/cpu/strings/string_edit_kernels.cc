// Kernels that measure, cut and join strings: StringLength, Substr, StringStrip, ReduceJoin.
// UTF-8 counts are of bytes that do not continue a character (0b10xxxxxx), as TensorFlow
// counts them; the bytes themselves are never validated.
#include "string_kernels.h"

#include "../array_kernel_util.h"
#include <algorithm>
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

bool IsContinuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

int64_t Utf8Length(std::string_view s) {
  int64_t n = 0;
  for (char c : s) n += IsContinuation(c) ? 0 : 1;
  return n;
}

// The unit attr: true for UTF8_CHAR, false for BYTE (the op def allows no other value).
bool ReadUtf8Unit(Construction& c) {
  std::string unit;
  return c.GetAttr("unit", &unit) && unit == "UTF8_CHAR";
}

class StringLengthOp {
 public:
  explicit StringLengthOp(Construction& c) : utf8_(ReadUtf8Unit(c)) {}
  void Compute(Context& ctx) {
    TensorView in = ctx.input(0);
    TensorMut out = ctx.AllocateOutput(0, in.dims());
    if (!ctx.ok()) return;
    int32_t* lengths = out.mutable_data<int32_t>();
    for (int64_t i = 0; i < in.num_elements(); ++i) {
      const std::string_view s = in.string_at(i);
      lengths[i] = static_cast<int32_t>(utf8_ ? Utf8Length(s) : static_cast<int64_t>(s.size()));
    }
  }

 private:
  bool utf8_;
};

class StringStripOp {
 public:
  explicit StringStripOp(Construction&) {}
  void Compute(Context& ctx) {
    TensorView in = ctx.input(0);
    TensorMut out = ctx.AllocateOutput(0, in.dims());
    if (!ctx.ok()) return;
    constexpr std::string_view kSpace = " \t\n\v\f\r";  // ASCII whitespace, as isspace
    for (int64_t i = 0; i < in.num_elements(); ++i) {
      std::string_view s = in.string_at(i);
      const size_t first = s.find_first_not_of(kSpace);
      s = first == std::string_view::npos ? std::string_view() : s.substr(first);
      s = s.substr(0, s.find_last_not_of(kSpace) + 1);  // npos + 1 == 0 when empty
      out.set_string(i, s);
    }
  }
};

// Substr of one string, or false when pos is outside it. BYTE: a negative pos counts from
// the end, a negative len takes the rest. UTF8_CHAR: the same in characters, but a negative
// len takes nothing (TensorFlow's rules for each unit).
bool Substring(std::string_view s, int64_t pos, int64_t len, bool utf8, std::string_view* out) {
  if (!utf8) {
    const int64_t size = static_cast<int64_t>(s.size());
    const int64_t p = pos < 0 ? pos + size : pos;
    if (p < 0 || p > size) return false;
    *out = s.substr(static_cast<size_t>(p),
                    len < 0 ? std::string_view::npos : static_cast<size_t>(len));
    return true;
  }
  std::vector<size_t> starts;  // byte offset of each character, then the size
  for (size_t b = 0; b < s.size(); ++b) {
    if (!IsContinuation(s[b])) starts.push_back(b);
  }
  const int64_t chars = static_cast<int64_t>(starts.size());
  starts.push_back(s.size());
  const int64_t p = pos < 0 ? pos + chars : pos;
  if (p < 0 || p > chars) return false;
  const int64_t end = len < 0 ? p : (len > chars - p ? chars : p + len);
  const size_t from = starts[static_cast<size_t>(p)];
  *out = s.substr(from, starts[static_cast<size_t>(end)] - from);
  return true;
}

// Strides that read a tensor of `dims` at the coordinates of a broadcast output of rank
// `rank` (dims aligned right; 0 along an axis the tensor has size 1 on).
std::vector<int64_t> BroadcastStrides(const std::vector<int64_t>& dims, size_t rank) {
  std::vector<int64_t> strides(rank, 0);
  int64_t stride = 1;
  for (size_t k = 0; k < dims.size(); ++k) {
    const size_t d = dims.size() - 1 - k;
    strides[rank - 1 - k] = dims[d] == 1 ? 0 : stride;
    stride *= dims[d];
  }
  return strides;
}

// Substr: the input and pos / len (of one shape) broadcast against each other, as
// TensorFlow's binary ops broadcast.
class SubstrOp {
 public:
  explicit SubstrOp(Construction& c) : utf8_(ReadUtf8Unit(c)) {}
  void Compute(Context& ctx) {
    TensorView in = ctx.input(0), pos = ctx.input(1), len = ctx.input(2);
    const std::vector<int64_t> in_dims = in.dims(), pos_dims = pos.dims();
    if (pos_dims != len.dims()) {
      ctx.Fail(TG_INVALID_ARGUMENT, std::string("pos and len must have the same shape, but have ")
                                        .append(ShapeString(pos_dims))
                                        .append(" and ")
                                        .append(ShapeString(len.dims())));
      return;
    }
    const size_t rank = std::max(in_dims.size(), pos_dims.size());
    std::vector<int64_t> dims(rank, 1);
    for (size_t k = 0; k < rank; ++k) {
      const int64_t a = k < in_dims.size() ? in_dims[in_dims.size() - 1 - k] : 1;
      const int64_t b = k < pos_dims.size() ? pos_dims[pos_dims.size() - 1 - k] : 1;
      if (a != b && a != 1 && b != 1) {
        ctx.Fail(TG_INVALID_ARGUMENT, std::string("Incompatible shapes: ")
                                          .append(ShapeString(in_dims))
                                          .append(" vs. ")
                                          .append(ShapeString(pos_dims)));
        return;
      }
      dims[rank - 1 - k] = a == 1 ? b : a;
    }
    TensorMut out = ctx.AllocateOutput(0, dims);
    if (!ctx.ok()) return;
    const std::vector<int64_t> in_strides = BroadcastStrides(in_dims, rank);
    const std::vector<int64_t> pos_strides = BroadcastStrides(pos_dims, rank);
    const bool wide = pos.dtype() == TG_INT64;
    auto at = [wide](const TensorView& t, int64_t i) {
      return wide ? t.data<int64_t>()[i] : static_cast<int64_t>(t.data<int32_t>()[i]);
    };
    std::vector<int64_t> coord(rank, 0);
    for (int64_t o = 0; o < out.num_elements(); ++o) {
      int64_t i = 0, j = 0;
      for (size_t d = 0; d < rank; ++d) {
        i += coord[d] * in_strides[d];
        j += coord[d] * pos_strides[d];
      }
      const std::string_view s = in.string_at(i);
      const int64_t p = at(pos, j), n = at(len, j);
      std::string_view sub;
      if (!Substring(s, p, n, utf8_, &sub)) {
        std::string message = std::string("pos ").append(std::to_string(p));
        message += " out of range for string b'";
        message += s;
        message += "' at index ";
        message += std::to_string(o);
        ctx.Fail(TG_INVALID_ARGUMENT, message);
        return;
      }
      out.set_string(o, sub);
      for (size_t d = rank; d-- > 0;) {  // the next output coordinate, row-major
        if (++coord[d] < dims[d]) break;
        coord[d] = 0;
      }
    }
  }

 private:
  bool utf8_;
};

// ReduceJoin: each output element joins the strings over the reduced axes in TensorFlow's
// order, which follows reduction_indices: the first axis listed varies fastest, the last
// slowest ([0, 1] over [[a, b], [c, d]] gives "acbd", [1, 0] gives "abcd").
class ReduceJoinOp {
 public:
  explicit ReduceJoinOp(Construction& c) {
    c.GetAttr("keep_dims", &keep_dims_);
    c.GetAttr("separator", &separator_);
  }
  void Compute(Context& ctx) {
    TensorView in = ctx.input(0), axes = ctx.input(1);
    const std::vector<int64_t> dims = in.dims();
    const int64_t rank = static_cast<int64_t>(dims.size());
    if (axes.rank() > 1) {
      ctx.Fail(TG_INVALID_ARGUMENT,
               std::string("reduction_indices must be a scalar or a vector, but has shape ")
                   .append(ShapeString(axes.dims())));
      return;
    }
    std::vector<bool> reduced(dims.size(), false);
    std::vector<size_t> order;  // the reduced axes as listed
    for (int64_t k = 0; k < axes.num_elements(); ++k) {
      const int64_t axis = axes.data<int32_t>()[k];
      if (axis < -rank || axis >= rank) {
        ctx.Fail(TG_OUT_OF_RANGE, std::string("Invalid reduction dimension ")
                                      .append(std::to_string(axis))
                                      .append(" for input with ")
                                      .append(std::to_string(rank))
                                      .append(" dimension(s)"));
        return;
      }
      const size_t d = static_cast<size_t>(axis < 0 ? axis + rank : axis);
      if (reduced[d]) {
        ctx.Fail(TG_INVALID_ARGUMENT,
                 std::string("Duplicate reduction dimension ").append(std::to_string(axis)));
        return;
      }
      reduced[d] = true;
      order.push_back(d);
    }
    std::vector<int64_t> strides(dims.size(), 1);  // the input's, row-major
    for (size_t d = dims.size(); d-- > 1;) strides[d - 1] = strides[d] * dims[d];
    std::vector<int64_t> out_dims;
    std::vector<size_t> kept;
    for (size_t d = 0; d < dims.size(); ++d) {
      if (!reduced[d]) {
        out_dims.push_back(dims[d]);
        kept.push_back(d);
      } else if (keep_dims_) {
        out_dims.push_back(1);
      }
    }
    TensorMut out = ctx.AllocateOutput(0, out_dims);
    if (!ctx.ok()) return;
    int64_t joined_count = 1;
    for (size_t d : order) joined_count *= dims[d];
    std::vector<int64_t> kept_coord(kept.size(), 0), red_coord(order.size(), 0);
    std::string joined;
    for (int64_t o = 0; o < out.num_elements(); ++o) {
      int64_t base = 0;
      for (size_t k = 0; k < kept.size(); ++k) base += kept_coord[k] * strides[kept[k]];
      joined.clear();
      std::fill(red_coord.begin(), red_coord.end(), 0);
      for (int64_t j = 0; j < joined_count; ++j) {
        int64_t offset = base;
        for (size_t k = 0; k < order.size(); ++k) offset += red_coord[k] * strides[order[k]];
        if (j > 0) joined += separator_;
        joined += in.string_at(offset);
        for (size_t k = 0; k < order.size(); ++k) {  // the first listed axis fastest
          if (++red_coord[k] < dims[order[k]]) break;
          red_coord[k] = 0;
        }
      }
      out.set_string(o, joined);
      for (size_t k = kept.size(); k-- > 0;) {  // the next output element, row-major
        if (++kept_coord[k] < dims[kept[k]]) break;
        kept_coord[k] = 0;
      }
    }
  }

 private:
  bool keep_dims_ = false;
  std::string separator_;
};

}  // namespace

void RegisterStringEditKernels(tgraph::plugin::Init& init) {
  init.Kernel<StringLengthOp>(KernelBuilder("StringLength", "CPU"));
  init.Kernel<StringStripOp>(KernelBuilder("StringStrip", "CPU"));
  init.Kernel<SubstrOp>(KernelBuilder("Substr", "CPU").TypeConstraint("T", {TG_INT32, TG_INT64}));
  init.Kernel<ReduceJoinOp>(KernelBuilder("ReduceJoin", "CPU"));
}

}  // namespace tgraph_cpu
