#include "core/base/shape.h"

#include <limits>

namespace tgraph {

bool PartialShape::IsFullyDefined() const {
  if (!known_rank_) return false;
  for (int64_t d : dims_)
    if (d < 0) return false;
  return true;
}

// -1 also when the product does not fit in int64_t: a shape read from an untrusted GraphDef
// can declare one, and no tensor of it can exist (a wrapped-around count could be small).
int64_t PartialShape::NumElements() const {
  if (!IsFullyDefined()) return -1;
  int64_t n = 1;
  for (int64_t d : dims_) {
    if (d != 0 && n > std::numeric_limits<int64_t>::max() / d) return -1;  // would overflow
    n *= d;
  }
  return n;
}

bool PartialShape::IsCompatibleWith(const PartialShape& other) const {
  if (!known_rank_ || !other.known_rank_) return true;
  if (dims_.size() != other.dims_.size()) return false;
  for (size_t i = 0; i < dims_.size(); ++i) {
    if (dims_[i] >= 0 && other.dims_[i] >= 0 && dims_[i] != other.dims_[i]) return false;
  }
  return true;
}

bool PartialShape::IsCompatibleWithDims(const std::vector<int64_t>& dims) const {
  if (!known_rank_) return true;
  if (dims_.size() != dims.size()) return false;
  for (size_t i = 0; i < dims_.size(); ++i) {
    if (dims_[i] >= 0 && dims_[i] != dims[i]) return false;
  }
  return true;
}

Status PartialShape::Merge(const PartialShape& other, PartialShape* out) const {
  if (!IsCompatibleWith(other)) {
    return InvalidArgument("shapes ", ToString(), " and ", other.ToString(),
                           " are not compatible");
  }
  if (!known_rank_) {
    *out = other;
    return Status::OK();
  }
  if (!other.known_rank_) {
    *out = *this;
    return Status::OK();
  }
  std::vector<int64_t> merged = dims_;
  for (size_t i = 0; i < merged.size(); ++i) {
    if (merged[i] < 0) merged[i] = other.dims_[i];
  }
  *out = PartialShape(std::move(merged));
  return Status::OK();
}

std::string PartialShape::ToString() const {
  if (!known_rank_) return "<unknown>";
  std::string s = "[";
  for (size_t i = 0; i < dims_.size(); ++i) {
    if (i) s += ",";
    s += dims_[i] < 0 ? std::string("?") : std::to_string(dims_[i]);
  }
  return s + "]";
}

Status ValidatePartialShapeDims(const std::vector<int64_t>& dims) {
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < -1) {
      return InvalidArgument("dimension ", i, " has size ", dims[i],
                             "; sizes must be >= 0, or -1 for unknown");
    }
  }
  return Status::OK();
}

}  // namespace tgraph
