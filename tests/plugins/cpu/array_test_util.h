// Helpers for the array / state / random kernel tests: tensor makers and error checks (the
// fixture for list, constant and ref inputs is in kernel_test_util.h).
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "kernel_test_util.h"

namespace tgraph::testing {

template <typename T>
Tensor Vec(DataType dtype, const std::vector<T>& v) {
  return MakeTensor<T>(dtype, {static_cast<int64_t>(v.size())}, v);
}
inline Tensor I32(std::vector<int64_t> dims, const std::vector<int32_t>& v) {
  return MakeTensor<int32_t>(DT_INT32, std::move(dims), v);
}
inline Tensor I64(std::vector<int64_t> dims, const std::vector<int64_t>& v) {
  return MakeTensor<int64_t>(DT_INT64, std::move(dims), v);
}
inline Tensor F32(std::vector<int64_t> dims, const std::vector<float>& v) {
  return MakeTensor<float>(DT_FLOAT, std::move(dims), v);
}
inline Tensor I32Vec(const std::vector<int32_t>& v) { return Vec<int32_t>(DT_INT32, v); }
inline Tensor I32Scalar(int32_t v) { return MakeTensor<int32_t>(DT_INT32, {}, {v}); }
// 0, 1, 2, ... as float in `dims`.
inline Tensor Iota(std::vector<int64_t> dims, DataType dtype = DT_FLOAT) {
  Tensor t = Tensor::Allocate(dtype, std::move(dims)).value();
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    switch (dtype) {
      case DT_FLOAT:
        t.flat<float>()[i] = static_cast<float>(i);
        break;
      case DT_DOUBLE:
        t.flat<double>()[i] = static_cast<double>(i);
        break;
      case DT_INT32:
        t.flat<int32_t>()[i] = static_cast<int32_t>(i);
        break;
      case DT_INT64:
        t.flat<int64_t>()[i] = i;
        break;
      default:
        ADD_FAILURE() << "Iota: unsupported dtype";
    }
  }
  return t;
}

// The status is INVALID_ARGUMENT and its message holds every fragment.
inline void ExpectInvalid(const Status& s, std::initializer_list<std::string> fragments,
                          Code code = Code::kInvalidArgument) {
  ASSERT_FALSE(s.ok()) << "expected an error";
  EXPECT_EQ(s.code(), code) << s.ToString();
  for (const auto& f : fragments) {
    EXPECT_NE(s.message().find(f), std::string::npos) << "'" << f << "' not in: " << s.message();
  }
}

}  // namespace tgraph::testing
