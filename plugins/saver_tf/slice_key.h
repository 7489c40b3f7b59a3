// The `.index` key under which TensorFlow stores one slice of a partitioned tensor
// (tensor_slice_util's EncodeTensorNameSlice): OrderedCode's NumIncreasing(0),
// String(name), NumIncreasing(rank), then SignedNumIncreasing(start) and
// SignedNumIncreasing(length) per dimension, a whole dimension's length being -1. Checked
// against keys TensorFlow wrote (tests/plugins/saver_tf/slice_key_test.cc).
#pragma once

#include <cstdint>
#include <string>

#include "tgraph/proto/tensor_slice.pb.h"

namespace tgraph::saver_tf {

std::string SliceKey(const std::string& name, const tf::TensorSliceProto& slice);

// OrderedCode's order-preserving encodings (tensorflow/core/lib/strings/ordered_code.cc).
void AppendNumIncreasing(std::string* out, uint64_t value);
void AppendSignedNumIncreasing(std::string* out, int64_t value);
void AppendOrderedString(std::string* out, const std::string& value);

}  // namespace tgraph::saver_tf
