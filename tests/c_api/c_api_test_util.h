// Helpers for the C API tests: only tgraph/c_api.h is available (the tests link libtgraph.so).
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "tgraph/c_api.h"

namespace tgtest {

// Prints code and message when a status is not OK.
inline ::testing::AssertionResult IsOk(const TG_Status* s) {
  if (TG_GetCode(s) == TG_OK) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << TG_CodeName(TG_GetCode(s)) << ": " << TG_Message(s);
}

#define TG_EXPECT_OK(s) EXPECT_TRUE(::tgtest::IsOk(s))
#define TG_ASSERT_OK(s) ASSERT_TRUE(::tgtest::IsOk(s))

inline std::string Name(const TG_Operation* op) {
  const char* n = TG_OperationName(op);
  return n == nullptr ? std::string("<null>") : std::string(n);
}

inline std::string Message(const TG_Status* s) { return TG_Message(s); }

inline TG_Output Out(TG_Operation* op, int index = 0) { return TG_Output{op, index}; }

// A graph and a status, freed at the end of each test.
class CApiTest : public ::testing::Test {
 protected:
  CApiTest() : g_(TG_NewGraph()), s_(TG_NewStatus()) {}
  ~CApiTest() override {
    TG_DeleteGraph(g_);
    TG_DeleteStatus(s_);
  }

  TG_Code code() const { return TG_GetCode(s_); }
  std::string msg() const { return TG_Message(s_); }

  // A scalar float Const.
  TG_Operation* ScalarConst(float v, const char* name = nullptr) {
    return ScalarConstIn(g_, v, name);
  }
  TG_Operation* ScalarConstIn(TG_Graph* g, float v, const char* name) {
    TG_Tensor* t = TG_AllocateTensor(TG_FLOAT, nullptr, 0, sizeof(float));
    *static_cast<float*>(TG_TensorData(t)) = v;
    TG_Operation* op = ConstOf(g, t, name);
    TG_DeleteTensor(t);
    return op;
  }
  // A float Const of shape dims filled with `fill`.
  TG_Operation* FloatConst(std::vector<int64_t> dims, float fill = 1.0f,
                           const char* name = nullptr) {
    size_t n = 1;
    for (int64_t d : dims) n *= static_cast<size_t>(d);
    TG_Tensor* t = TG_AllocateTensor(TG_FLOAT, dims.data(), static_cast<int>(dims.size()),
                                     n * sizeof(float));
    float* p = static_cast<float*>(TG_TensorData(t));
    for (size_t i = 0; i < n; ++i) p[i] = fill;
    TG_Operation* op = ConstOf(g_, t, name);
    TG_DeleteTensor(t);
    return op;
  }
  TG_Operation* IntConst(int32_t v, const char* name = nullptr) {
    TG_Tensor* t = TG_AllocateTensor(TG_INT32, nullptr, 0, sizeof(int32_t));
    *static_cast<int32_t*>(TG_TensorData(t)) = v;
    TG_Operation* op = ConstOf(g_, t, name);
    TG_DeleteTensor(t);
    return op;
  }
  TG_Operation* ConstOf(TG_Graph* g, const TG_Tensor* t, const char* name) {
    TG_OperationDescription* d = TG_NewOperation(g, "Const", name);
    TG_SetAttrTensor(d, "value", t, s_);
    TG_SetAttrType(d, "dtype", TG_TensorType(t));
    TG_Operation* op = TG_FinishOperation(d, s_);
    EXPECT_TRUE(IsOk(s_)) << "Const " << (name ? name : "");
    return op;
  }
  TG_Operation* Placeholder(TG_DataType dt, std::vector<int64_t> dims, const char* name = nullptr,
                            bool unknown_rank = false) {
    TG_OperationDescription* d = TG_NewOperation(g_, "Placeholder", name);
    TG_SetAttrType(d, "dtype", dt);
    if (unknown_rank) {
      TG_SetAttrShape(d, "shape", nullptr, -1);
    } else {
      TG_SetAttrShape(d, "shape", dims.data(), static_cast<int>(dims.size()));
    }
    TG_Operation* op = TG_FinishOperation(d, s_);
    EXPECT_TRUE(IsOk(s_)) << "Placeholder " << (name ? name : "");
    return op;
  }
  TG_Operation* Unary(const char* type, TG_Operation* a, const char* name = nullptr) {
    TG_OperationDescription* d = TG_NewOperation(g_, type, name);
    TG_AddInput(d, Out(a));
    TG_Operation* op = TG_FinishOperation(d, s_);
    EXPECT_TRUE(IsOk(s_)) << type << " " << (name ? name : "");
    return op;
  }
  TG_Operation* Identity(TG_Operation* a, const char* name = nullptr) {
    return Unary("Identity", a, name);
  }
  // Returns NULL (and leaves s_ set) on failure, so tests can check errors.
  TG_Operation* Binary(const char* type, TG_Operation* a, TG_Operation* b,
                       const char* name = nullptr) {
    TG_OperationDescription* d = TG_NewOperation(g_, type, name);
    TG_AddInput(d, Out(a));
    TG_AddInput(d, Out(b));
    return TG_FinishOperation(d, s_);
  }
  TG_Operation* NoOp(const char* name = nullptr) {
    TG_OperationDescription* d = TG_NewOperation(g_, "NoOp", name);
    TG_Operation* op = TG_FinishOperation(d, s_);
    EXPECT_TRUE(IsOk(s_)) << "NoOp";
    return op;
  }

  std::vector<int64_t> Shape(TG_Operation* op, int index = 0) {
    int n = TG_GraphGetTensorNumDims(g_, Out(op, index), s_);
    EXPECT_TRUE(IsOk(s_));
    if (n < 0) return {-2};  // unknown rank marker
    std::vector<int64_t> dims(static_cast<size_t>(n));
    TG_GraphGetTensorShape(g_, Out(op, index), dims.data(), n, s_);
    EXPECT_TRUE(IsOk(s_));
    return dims;
  }

  std::string StringAttr(TG_Operation* op, const char* attr) {
    TG_AttrMetadata m = TG_OperationGetAttrMetadata(op, attr, s_);
    if (TG_GetCode(s_) != TG_OK) return "<missing>";
    std::string v(static_cast<size_t>(m.total_size), '\0');
    TG_OperationGetAttrString(op, attr, v.data(), v.size(), s_);
    return v;
  }
  std::vector<std::string> StringListAttr(TG_Operation* op, const char* attr) {
    TG_AttrMetadata m = TG_OperationGetAttrMetadata(op, attr, s_);
    if (TG_GetCode(s_) != TG_OK) return {"<missing>"};
    int n = static_cast<int>(m.list_size);
    std::vector<void*> values(static_cast<size_t>(n) + 1);
    std::vector<size_t> lengths(static_cast<size_t>(n) + 1);
    std::vector<char> storage(static_cast<size_t>(m.total_size) + 1);
    TG_OperationGetAttrStringList(op, attr, values.data(), lengths.data(), n, storage.data(),
                                  storage.size(), s_);
    EXPECT_TRUE(IsOk(s_));
    std::vector<std::string> out;
    for (int i = 0; i < n; ++i) {
      out.emplace_back(static_cast<const char*>(values[static_cast<size_t>(i)]),
                       lengths[static_cast<size_t>(i)]);
    }
    return out;
  }
  std::vector<std::string> ControlInputNames(TG_Operation* op) {
    int n = TG_OperationNumControlInputs(op);
    std::vector<TG_Operation*> ops(static_cast<size_t>(n));
    TG_OperationGetControlInputs(op, ops.data(), n);
    std::vector<std::string> names;
    for (TG_Operation* o : ops) names.push_back(Name(o));
    return names;
  }
  std::vector<std::string> OpNames() {
    std::vector<std::string> names;
    size_t pos = 0;
    while (TG_Operation* op = TG_GraphNextOperation(g_, &pos)) names.push_back(Name(op));
    return names;
  }
  std::string Scope() { return TG_GraphCurrentNameScope(g_); }

  TG_Graph* g_;
  TG_Status* s_;
};

}  // namespace tgtest
