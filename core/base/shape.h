// A static shape as graph construction knows it: unknown rank, or a list of dimensions
// where -1 means "unknown size".
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "core/base/status.h"

namespace tgraph {

class PartialShape {
 public:
  static constexpr int64_t kUnknownDim = -1;

  PartialShape() = default;  // unknown rank
  PartialShape(std::initializer_list<int64_t> dims) : known_rank_(true), dims_(dims) {}
  explicit PartialShape(std::vector<int64_t> dims) : known_rank_(true), dims_(std::move(dims)) {}

  static PartialShape Unknown() { return PartialShape(); }
  static PartialShape Scalar() { return PartialShape(std::vector<int64_t>{}); }
  static PartialShape UnknownOfRank(int rank) {
    return PartialShape(std::vector<int64_t>(static_cast<size_t>(rank), kUnknownDim));
  }

  bool known_rank() const { return known_rank_; }
  int rank() const { return known_rank_ ? static_cast<int>(dims_.size()) : -1; }
  int64_t dim(int i) const { return dims_[static_cast<size_t>(i)]; }
  const std::vector<int64_t>& dims() const { return dims_; }
  bool IsFullyDefined() const;
  // Product of dims, or -1 if any is unknown.
  int64_t NumElements() const;

  // Could a tensor of shape `other` also have this shape?
  bool IsCompatibleWith(const PartialShape& other) const;
  // The same against a fully known shape, without building one (checked on every feed).
  bool IsCompatibleWithDims(const std::vector<int64_t>& dims) const;
  // The most specific shape compatible with both; INVALID_ARGUMENT if they conflict.
  Status Merge(const PartialShape& other, PartialShape* out) const;

  // "[2,?,3]", "[]" for a scalar, "<unknown>" for unknown rank.
  std::string ToString() const;

  bool operator==(const PartialShape& other) const {
    return known_rank_ == other.known_rank_ && dims_ == other.dims_;
  }

 private:
  bool known_rank_ = false;
  std::vector<int64_t> dims_;
};

// Checks that every dim is >= -1 (a GraphDef or C caller may send anything).
Status ValidatePartialShapeDims(const std::vector<int64_t>& dims);

}  // namespace tgraph
