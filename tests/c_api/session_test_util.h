// Helpers for the session tests (through tgraph/c_api.h only): a fixture that loads the CPU
// plugin and owns its sessions, tensor makers and readers, a TG_SessionRun wrapper, and
// builders for the stateful ops the tests observe (variables, Assign, AssignAdd).
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "c_api_test_util.h"
#include "tgraph/c_api.h"

namespace tgtest {

struct TensorDeleter {
  void operator()(TG_Tensor* t) const { TG_DeleteTensor(t); }
};
using TensorPtr = std::unique_ptr<TG_Tensor, TensorDeleter>;

inline bool Contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

template <typename T>
TensorPtr MakeTensor(TG_DataType dt, std::vector<int64_t> dims, const std::vector<T>& values) {
  TG_Tensor* t = TG_AllocateTensor(dt, dims.data(), static_cast<int>(dims.size()),
                                   values.size() * sizeof(T));
  EXPECT_NE(t, nullptr) << "TG_AllocateTensor: the values do not fit the shape";
  if (t != nullptr && !values.empty()) {
    std::memcpy(TG_TensorData(t), values.data(), values.size() * sizeof(T));
  }
  return TensorPtr(t);
}
inline TensorPtr FloatTensor(std::vector<int64_t> dims, const std::vector<float>& values) {
  return MakeTensor<float>(TG_FLOAT, std::move(dims), values);
}
inline TensorPtr FloatScalar(float v) { return FloatTensor({}, {v}); }
inline TensorPtr IntTensor(std::vector<int64_t> dims, const std::vector<int32_t>& values) {
  return MakeTensor<int32_t>(TG_INT32, std::move(dims), values);
}

// The elements of a float tensor ({} for NULL or another dtype).
inline std::vector<float> Floats(const TG_Tensor* t) {
  if (t == nullptr || TG_TensorType(t) != TG_FLOAT) return {};
  const auto* p = static_cast<const float*>(TG_TensorData(t));
  return std::vector<float>(p, p + TG_TensorElementCount(t));
}
inline std::vector<int64_t> Dims(const TG_Tensor* t) {
  std::vector<int64_t> dims;
  for (int i = 0; i < TG_NumDims(t); ++i) dims.push_back(TG_Dim(t, i));
  return dims;
}

// The CPU plugin, loaded once per process (a second load of the same file is a no-op too).
inline void LoadCpuPlugin() {
  static const std::string error = [] {
    TG_Status* s = TG_NewStatus();
    TG_LoadPlugin(TGRAPH_CPU_PLUGIN_PATH, s);
    std::string e = TG_GetCode(s) == TG_OK ? "" : TG_Message(s);
    TG_DeleteStatus(s);
    return e;
  }();
  ASSERT_EQ(error, "") << TGRAPH_CPU_PLUGIN_PATH;
}

using Feeds = std::vector<std::pair<TG_Output, const TG_Tensor*>>;

class SessionTest : public CApiTest {
 protected:
  void SetUp() override { LoadCpuPlugin(); }
  ~SessionTest() override {
    // Sessions go before the graph (the base class deletes it after this).
    for (TG_Session* s : sessions_) TG_DeleteSession(s, nullptr);
  }

  // A session owned by the fixture; `opts` may be NULL. NULL (with s_ set) on failure.
  TG_Session* NewSession(const TG_SessionOptions* opts = nullptr) {
    TG_Session* s = TG_NewSession(g_, opts, s_);
    if (s != nullptr) sessions_.push_back(s);
    return s;
  }
  // Deletes a fixture session early (e.g. to check that deleting is fine).
  void DeleteSession(TG_Session* session) {
    std::erase(sessions_, session);
    TG_DeleteSession(session, s_);
  }

  // TG_SessionRun with the outcome in s_. On failure every output slot must be NULL, which
  // is checked here for every failing run of every test.
  std::vector<TensorPtr> Run(TG_Session* session, const Feeds& feeds,
                             const std::vector<TG_Output>& fetches,
                             const std::vector<TG_Operation*>& targets = {},
                             const TG_RunOptions* run_options = nullptr,
                             TG_RunMetadata* metadata = nullptr) {
    std::vector<TG_Output> inputs;
    std::vector<TG_Tensor*> values;
    for (const auto& [out, value] : feeds) {
      inputs.push_back(out);
      values.push_back(const_cast<TG_Tensor*>(value));
    }
    // Poisoned, so a slot the library forgot to set shows up.
    TG_Tensor* const poison = reinterpret_cast<TG_Tensor*>(alignof(TG_Tensor*));
    std::vector<TG_Tensor*> outputs(fetches.size(), poison);
    std::vector<const TG_Operation*> target_ops(targets.begin(), targets.end());
    TG_SessionRun(session, run_options, inputs.data(), values.data(),
                  static_cast<int>(inputs.size()), fetches.data(), outputs.data(),
                  static_cast<int>(fetches.size()), target_ops.data(),
                  static_cast<int>(target_ops.size()), metadata, s_);
    std::vector<TensorPtr> result;
    for (TG_Tensor* t : outputs) {
      if (t == poison) {
        ADD_FAILURE() << "TG_SessionRun did not set an output slot";
        result.emplace_back(nullptr);
      } else if (TG_GetCode(s_) == TG_OK) {
        EXPECT_NE(t, nullptr) << "a successful run left an output slot NULL";
        result.emplace_back(t);
      } else {
        EXPECT_EQ(t, nullptr) << "a failed run left an output slot set";
      }
    }
    return result;
  }
  // Runs one fetch and returns its float elements ({} with s_ set on failure).
  std::vector<float> RunFloats(TG_Session* session, TG_Output fetch, const Feeds& feeds = {},
                               const std::vector<TG_Operation*>& targets = {}) {
    std::vector<TensorPtr> out = Run(session, feeds, {fetch}, targets);
    return out.empty() ? std::vector<float>{} : Floats(out[0].get());
  }
  // Runs targets only; asserts nothing (the caller checks s_).
  void RunTargets(TG_Session* session, const std::vector<TG_Operation*>& targets) {
    Run(session, {}, {}, targets);
  }

  // ---- graph builders ----

  // A float variable with the given initial value, and its read value.
  TG_Variable* Var(const char* name, TensorPtr initial) {
    TG_VariableOptions opts;
    TG_InitVariableOptions(&opts);
    opts.name = name;
    TG_Variable* v = TG_GraphNewVariableFromTensor(g_, initial.get(), &opts, s_);
    EXPECT_TRUE(IsOk(s_)) << name;
    return v;
  }
  TG_Variable* ScalarVar(const char* name, float initial) {
    return Var(name, FloatScalar(initial));
  }
  TG_Output Read(TG_Variable* v) { return TG_VariableReadValue(v); }

  // ref (op)= value: Assign / AssignAdd / AssignSub on variable `v`.
  TG_Operation* Update(const char* type, TG_Variable* v, TG_Output value, const char* name,
                       const char* bool_attr = nullptr, bool bool_value = false) {
    TG_OperationDescription* d = TG_NewOperation(g_, type, name);
    TG_AddInput(d, TG_VariableOutput(v));
    TG_AddInput(d, value);
    if (bool_attr != nullptr) TG_SetAttrBool(d, bool_attr, bool_value ? 1 : 0);
    TG_Operation* op = TG_FinishOperation(d, s_);
    EXPECT_TRUE(IsOk(s_)) << type << " " << (name ? name : "");
    return op;
  }
  // v += 1 (float).
  TG_Operation* Increment(TG_Variable* v, const char* name = nullptr, bool use_locking = false) {
    return Update("AssignAdd", v, Out(ScalarConst(1.0f)), name, "use_locking", use_locking);
  }
  TG_Operation* Init() {
    TG_Operation* op = TG_GraphGlobalVariablesInitializer(g_, s_);
    EXPECT_TRUE(IsOk(s_));
    return op;
  }

  // An op with inputs given as outputs; NULL (s_ set) on failure.
  TG_Operation* OpOf(const char* type, const std::vector<TG_Output>& inputs,
                     const char* name = nullptr) {
    TG_OperationDescription* d = TG_NewOperation(g_, type, name);
    for (const TG_Output& in : inputs) TG_AddInput(d, in);
    return TG_FinishOperation(d, s_);
  }
  TG_Operation* ConstTensor(const TensorPtr& t, const char* name = nullptr) {
    return ConstOf(g_, t.get(), name);
  }

  // Float value of a scalar variable, read through its snapshot in `session`.
  float ScalarValue(TG_Session* session, TG_Variable* v) {
    std::vector<float> got = RunFloats(session, Read(v));
    EXPECT_TRUE(IsOk(s_)) << "reading " << TG_VariableName(v);
    return got.size() == 1 ? got[0] : -12345.0f;
  }

  std::vector<TG_Session*> sessions_;
};

}  // namespace tgtest
