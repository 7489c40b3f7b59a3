// Sparse updates on /device:GPU:0 against the CPU plugin: ScatterUpdate / ScatterAdd /
// ScatterSub and the SparseApply* optimizer updates (int32 and int64 indices, duplicates,
// scalar updates), GatherV2 with int64 indices, AddN, what the optimizers sum a sparse
// gradient's duplicate rows with (Unique, Shape, StridedSlice, UnsortedSegmentSum), their
// index and shape errors, and the seeds' word2vec (embedding lookup, a softmax or NCE loss,
// every optimizer) trained with its variables, slots and updates on the device.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "device_test_util.h"

namespace {

using devtest::Builder;
using devtest::ExpectSameValues;
using devtest::InitUpdateRead;
using devtest::kCpu;
using devtest::kGpu;
using devtest::NewVariable;
using devtest::Random;
using devtest::RunResult;

class SparseTrainingTest : public devtest::DeviceTest {};

// Feeds indices as int32 or int64.
TG_Output FeedIndices(Builder& b, bool int64, const std::vector<int64_t>& dims,
                      const std::vector<int64_t>& values) {
  if (int64) return b.FeedInt64(dims, values);
  return b.FeedInt(dims, std::vector<int32_t>(values.begin(), values.end()));
}

// ---- ScatterUpdate / ScatterAdd / ScatterSub ----

struct ScatterCase {
  const char* op;
  bool int64_indices;
  bool scalar_updates;
  bool int32_values;  // ScatterUpdate of an int32 variable
};

void PrintTo(const ScatterCase& c, std::ostream* os) { *os << c.op; }

// A [6, 3] variable; indices [2, 3] with duplicates (rows 4 and 1 three times each, 0 twice).
TG_Output BuildScatter(Builder& b, const ScatterCase& c, std::vector<TG_Variable*>* vars) {
  vars->push_back(NewVariable(b, "w", {6, 3}, Random(18, -2, 2, 3), c.int32_values));
  const TG_Output indices = FeedIndices(b, c.int64_indices, {2, 3}, {4, 1, 4, 0, 1, 0});
  TG_Output updates;
  if (c.int32_values) {
    std::vector<int32_t> u(18);
    for (size_t i = 0; i < u.size(); ++i) u[i] = static_cast<int32_t>(7 * i) - 50;
    updates = c.scalar_updates ? b.FeedInt({}, {9}) : b.FeedInt({2, 3, 3}, u);
  } else {
    updates = c.scalar_updates ? b.Feed({}, {0.75f}) : b.Feed({2, 3, 3}, Random(18, -1, 1, 4));
  }
  return b.Op(c.op, {TG_VariableOutput(vars->back()), indices, updates}, {}, "update");
}

class ScatterTest : public SparseTrainingTest,
                    public ::testing::WithParamInterface<ScatterCase> {};

TEST_P(ScatterTest, MatchesCpuOverThreeSteps) {
  const ScatterCase& c = GetParam();
  Builder cpu(kCpu), gpu(kGpu);
  std::vector<TG_Variable*> cv, gv;
  const TG_Output cu = BuildScatter(cpu, c, &cv), gu = BuildScatter(gpu, c, &gv);
  RunResult cpu_step, gpu_step;
  const RunResult want = InitUpdateRead(cpu, cv, cu, 3, &cpu_step);
  const RunResult got = InitUpdateRead(gpu, gv, gu, 3, &gpu_step);
  // The device applies a row's duplicates in the order of `indices`, as the CPU does: the
  // same sums in the same order.
  ExpectSameValues(want, got, 0, 0);
  EXPECT_EQ(gpu_step.DeviceOf("update"), kGpu) << gpu_step.StepsString();
  // The updates come in and the variable goes out; the indices are read where they were fed
  // (host memory), with no copy.
  EXPECT_EQ(gpu_step.Copies(), 2) << gpu_step.StepsString();
}

std::string ScatterName(const ::testing::TestParamInfo<ScatterCase>& info) {
  return std::string(info.param.op) + (info.param.int64_indices ? "_int64" : "_int32") +
         (info.param.scalar_updates ? "_scalar" : "") + (info.param.int32_values ? "_ints" : "");
}

INSTANTIATE_TEST_SUITE_P(Ops, ScatterTest,
                         ::testing::Values(ScatterCase{"ScatterUpdate", false, false, false},
                                           ScatterCase{"ScatterUpdate", true, true, false},
                                           ScatterCase{"ScatterUpdate", true, false, true},
                                           ScatterCase{"ScatterAdd", false, false, false},
                                           ScatterCase{"ScatterAdd", true, true, false},
                                           ScatterCase{"ScatterSub", true, false, false},
                                           ScatterCase{"ScatterSub", false, true, false}),
                         ScatterName);

// ---- SparseApply* ----

// As UpdateCase in training_test.cc: 'v' the variable, 'p' a positive slot, 'm' a small
// slot, 's' the next scalar, 'g' the gradient rows (fed) followed by the indices.
struct SparseApplyCase {
  const char* op;
  const char* kinds;
  std::vector<float> scalars;
  const char* flag;
  bool flag_value;
  bool int64_indices;
};

void PrintTo(const SparseApplyCase& c, std::ostream* os) { *os << c.op; }

TG_Output BuildSparseApply(Builder& b, const SparseApplyCase& c,
                           std::vector<TG_Variable*>* vars) {
  const std::vector<int64_t> dims = {8, 5};
  // 7 rows of gradient: row 6 three times, row 2 twice.
  const std::vector<int64_t> idx = {6, 2, 6, 0, 7, 2, 6};
  std::vector<TG_Output> inputs;
  size_t scalar = 0;
  for (size_t i = 0; c.kinds[i] != '\0'; ++i) {
    const uint32_t seed = static_cast<uint32_t>(40 + i);
    switch (c.kinds[i]) {
      case 'v':
      case 'p':
      case 'm': {
        const float lo = c.kinds[i] == 'p' ? 1.0f : c.kinds[i] == 'm' ? -0.3f : -2.0f;
        const float hi = c.kinds[i] == 'p' ? 2.0f : c.kinds[i] == 'm' ? 0.3f : 2.0f;
        vars->push_back(NewVariable(b, "slot" + std::to_string(i), dims, Random(40, lo, hi, seed)));
        inputs.push_back(TG_VariableOutput(vars->back()));
        break;
      }
      case 's':
        inputs.push_back(b.DeviceConst({}, {c.scalars.at(scalar++)}));
        break;
      default:
        inputs.push_back(b.Feed({7, 5}, Random(35, -1.0f, 1.0f, seed)));
        inputs.push_back(FeedIndices(b, c.int64_indices, {7}, idx));
    }
  }
  return b.Op(c.op, inputs, [&](TG_OperationDescription* d) {
    if (c.flag != nullptr) TG_SetAttrBool(d, c.flag, c.flag_value ? 1 : 0);
  }, "update");
}

class SparseApplyTest : public SparseTrainingTest,
                        public ::testing::WithParamInterface<SparseApplyCase> {};

TEST_P(SparseApplyTest, MatchesCpuOverThreeSteps) {
  const SparseApplyCase& c = GetParam();
  Builder cpu(kCpu), gpu(kGpu);
  std::vector<TG_Variable*> cv, gv;
  const TG_Output cu = BuildSparseApply(cpu, c, &cv), gu = BuildSparseApply(gpu, c, &gv);
  RunResult cpu_step, gpu_step;
  const RunResult want = InitUpdateRead(cpu, cv, cu, 3, &cpu_step);
  const RunResult got = InitUpdateRead(gpu, gv, gu, 3, &gpu_step);
  ExpectSameValues(want, got, 1e-5, 1e-6);
  EXPECT_EQ(gpu_step.DeviceOf("update"), kGpu) << gpu_step.StepsString();
  EXPECT_EQ(gpu_step.Copies(), 2) << gpu_step.StepsString();
  // Rows 1, 3, 4 and 5 have no gradient: every slot keeps its value there.
  ASSERT_EQ(got.values.size(), cv.size());
  Builder fresh(kCpu);
  std::vector<TG_Variable*> initial;
  const TG_Output unused = BuildSparseApply(fresh, c, &initial);
  (void)unused;
  const RunResult before = InitUpdateRead(fresh, initial, TG_Output{nullptr, 0}, 0, nullptr);
  ASSERT_EQ(before.code, TG_OK) << before.message;
  for (size_t v = 0; v < got.values.size(); ++v) {
    for (int r : {1, 3, 4, 5}) {
      for (int j = 0; j < 5; ++j) {
        const size_t k = static_cast<size_t>(r * 5 + j);
        EXPECT_EQ(got.values[v].values[k], before.values[v].values[k]) << "slot " << v;
      }
    }
  }
}

std::string SparseApplyName(const ::testing::TestParamInfo<SparseApplyCase>& info) {
  std::string name = info.param.op;
  if (info.param.flag != nullptr) {
    name += std::string("_") + info.param.flag + (info.param.flag_value ? "_on" : "_off");
  }
  return name + (info.param.int64_indices ? "_int64" : "_int32");
}

INSTANTIATE_TEST_SUITE_P(
    Ops, SparseApplyTest,
    ::testing::Values(
        SparseApplyCase{"SparseApplyMomentum", "vmsgs", {0.1f, 0.9f}, "use_nesterov", false, false},
        SparseApplyCase{"SparseApplyMomentum", "vmsgs", {0.1f, 0.9f}, "use_nesterov", true, true},
        SparseApplyCase{"SparseApplyAdagrad", "vpsg", {0.1f}, "update_slots", true, true},
        SparseApplyCase{"SparseApplyAdagrad", "vpsg", {0.1f}, "update_slots", false, false},
        SparseApplyCase{"SparseApplyRMSProp", "vppssssg", {0.01f, 0.9f, 0.5f, 1e-6f}, nullptr,
                        false, false},
        SparseApplyCase{"SparseApplyCenteredRMSProp", "vmppssssg", {0.01f, 0.9f, 0.5f, 1e-6f},
                        nullptr, false, true}),
    SparseApplyName);

// ---- errors: nothing is written ----

TEST_F(SparseTrainingTest, BadIndicesAndShapesFailNamingTheNodeAndChangeNothing) {
  struct Case {
    const char* what;
    std::function<TG_Output(Builder&, TG_Variable*)> update;
    TG_Code code;
    const char* text;
  };
  const std::vector<Case> cases = {
      {"ScatterAdd, index past the end",
       [](Builder& b, TG_Variable* v) {
         return b.Op("ScatterAdd",
                     {TG_VariableOutput(v), b.FeedInt({3}, {1, 4, 5}), b.Feed({3, 2}, Random(6))},
                     {}, "bad_scatter");
       },
       TG_INVALID_ARGUMENT, "indices[2] = 5 is not in [0, 5)"},
      {"ScatterUpdate, negative int64 index",
       [](Builder& b, TG_Variable* v) {
         return b.Op("ScatterUpdate",
                     {TG_VariableOutput(v), b.FeedInt64({2, 1}, {0, -1}),
                      b.Feed({2, 1, 2}, Random(4))},
                     {}, "bad_scatter");
       },
       TG_INVALID_ARGUMENT, "indices[1,0] = -1 is not in [0, 5)"},
      {"ScatterSub, updates of the wrong shape",
       [](Builder& b, TG_Variable* v) {
         return b.Op("ScatterSub",
                     {TG_VariableOutput(v), b.FeedInt({2}, {0, 1}), b.Feed({2, 3}, Random(6))},
                     {}, "bad_scatter");
       },
       TG_INVALID_ARGUMENT, "Must have updates.shape = indices.shape + params.shape[1:]"},
      {"SparseApplyAdagrad, index past the end",
       [](Builder& b, TG_Variable* v) {
         return b.Op("SparseApplyAdagrad",
                     {TG_VariableOutput(v), TG_VariableOutput(v), b.DeviceConst({}, {0.1f}),
                      b.Feed({2, 2}, Random(4)), b.FeedInt64({2}, {3, 9})},
                     {}, "bad_scatter");
       },
       TG_INVALID_ARGUMENT, "indices[1] = 9 is not in [0, 5)"},
      {"SparseApplyMomentum, grad rows not matching indices",
       [](Builder& b, TG_Variable* v) {
         return b.Op("SparseApplyMomentum",
                     {TG_VariableOutput(v), TG_VariableOutput(v), b.DeviceConst({}, {0.1f}),
                      b.Feed({3, 2}, Random(6)), b.FeedInt({2}, {3, 1}),
                      b.DeviceConst({}, {0.9f})},
                     {}, "bad_scatter");
       },
       TG_INVALID_ARGUMENT, "grad must have shape [len(indices)] + var.shape[1:] = [2,2]"},
      {"SparseApplyRMSProp, lr not a scalar",
       [](Builder& b, TG_Variable* v) {
         return b.Op("SparseApplyRMSProp",
                     {TG_VariableOutput(v), TG_VariableOutput(v), TG_VariableOutput(v),
                      b.Feed({2}, {0.1f, 0.2f}), b.DeviceConst({}, {0.9f}),
                      b.DeviceConst({}, {0.0f}), b.DeviceConst({}, {1e-6f}),
                      b.Feed({1, 2}, Random(2)), b.FeedInt({1}, {0})},
                     {}, "bad_scatter");
       },
       TG_INVALID_ARGUMENT, "lr is not a scalar: [2]"},
  };
  const std::vector<float> initial = Random(10, 1, 2, 9);
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    Builder gpu(kGpu);
    std::vector<TG_Variable*> vars = {NewVariable(gpu, "w", {5, 2}, initial)};
    RunResult update;
    const RunResult after = InitUpdateRead(gpu, vars, c.update(gpu, vars[0]), 1, &update);
    EXPECT_EQ(update.code, c.code) << update.message;
    EXPECT_NE(update.message.find("bad_scatter"), std::string::npos) << update.message;
    EXPECT_NE(update.message.find(c.text), std::string::npos) << update.message;
    ASSERT_EQ(after.code, TG_OK) << after.message;
    ASSERT_EQ(after.values.size(), 1u);
    ASSERT_EQ(after.values[0].values.size(), initial.size());
    for (size_t i = 0; i < initial.size(); ++i) {
      EXPECT_EQ(after.values[0].values[i], initial[i]) << "element " << i;
    }
  }
}

TEST_F(SparseTrainingTest, EmptyIndicesChangeNothing) {
  for (const char* op : {"ScatterAdd", "ScatterUpdate"}) {
    SCOPED_TRACE(op);
    Builder gpu(kGpu);
    const std::vector<float> initial = Random(6, -1, 1, 2);
    std::vector<TG_Variable*> vars = {NewVariable(gpu, "w", {3, 2}, initial)};
    const TG_Output update =
        gpu.Op(op, {TG_VariableOutput(vars[0]), gpu.FeedInt({0}, {}), gpu.Feed({0, 2}, {})}, {},
               "update");
    RunResult step;
    const RunResult after = InitUpdateRead(gpu, vars, update, 2, &step);
    ASSERT_EQ(step.code, TG_OK) << step.message;
    EXPECT_EQ(step.DeviceOf("update"), kGpu) << step.StepsString();
    ASSERT_EQ(after.code, TG_OK) << after.message;
    for (size_t i = 0; i < initial.size(); ++i) {
      EXPECT_EQ(after.values[0].values[i], initial[i]);
    }
  }
}

// ---- GatherV2 with int64 indices (NCE's lookups of sampled classes) ----

TEST_F(SparseTrainingTest, GatherV2Int64IndicesMatchesCpu) {
  devtest::ExpectDeviceMatchesCpu([](Builder& b) -> std::vector<TG_Output> {
    const TG_Output params = b.DeviceConst({4, 3, 2}, Random(24));
    return {b.Op("GatherV2", {params, b.FeedInt64({2, 2}, {2, 0, 2, 1}), b.HostInts({}, {1})}),
            b.Op("GatherV2", {params, b.FeedInt64({3}, {3, 3, 0}), b.HostInts({}, {0})}, {},
                 "axis0")};
  });
  ExpectDeviceError(
      [](Builder& b) -> std::vector<TG_Output> {
        return {b.Op("GatherV2",
                     {b.DeviceConst({4, 2}, Random(8)), b.FeedInt64({3}, {0, 4, 1}),
                      b.HostInts({}, {0})},
                     {}, "bad_gather")};
      },
      TG_INVALID_ARGUMENT, "bad_gather", "indices[1] = 4 is not in [0, 4)");
}

// ---- Sqrt and Square (sparse Adam's element-wise ops) ----

TEST_F(SparseTrainingTest, SqrtAndSquareMatchCpu) {
  devtest::ExpectDeviceMatchesCpu([](Builder& b) -> std::vector<TG_Output> {
    const TG_Output x = b.Feed({3, 5}, Random(15, 0, 4, 6));
    return {b.Op("Sqrt", {x}), b.Op("Square", {x}, {}, "square"),
            b.Op("Sqrt", {b.Feed({2}, {-1.0f, 0.0f})}, {}, "sqrt_of_negative")};
  });
}

// ---- AddN (the gradient of a tensor with several consumers, e.g. NCE's embeddings) ----

TEST_F(SparseTrainingTest, AddNMatchesCpu) {
  auto add_n = [](Builder& b, const std::vector<TG_Output>& xs, const char* name) {
    TG_OperationDescription* d = TG_NewOperation(b.graph(), "AddN", name);
    TG_AddInputList(d, xs.data(), static_cast<int>(xs.size()));
    TG_SetDevice(d, b.device().c_str());
    TG_Status* s = TG_NewStatus();
    TG_Operation* op = TG_FinishOperation(d, s);
    EXPECT_EQ(TG_GetCode(s), TG_OK) << TG_Message(s);
    TG_DeleteStatus(s);
    return TG_Output{op, 0};
  };
  // The CPU's order of sums ((x0 + x1) + x2) + x3: the same floats.
  const RunResult r = devtest::ExpectDeviceMatchesCpu(
      [&](Builder& b) -> std::vector<TG_Output> {
        std::vector<TG_Output> xs;
        for (uint32_t i = 0; i < 4; ++i) xs.push_back(b.Feed({5, 3}, Random(15, -3, 3, 20 + i)));
        return {add_n(b, xs, "add4"), add_n(b, {xs[0], xs[1]}, "add2"),
                add_n(b, {xs[2]}, "add1"),
                add_n(b, {b.Feed({0, 2}, {}), b.Feed({0, 2}, {})}, "add_empty")};
      },
      0, 0, "add4");
  for (const char* node : {"add2", "add1", "add_empty"}) {
    EXPECT_EQ(r.DeviceOf(node), kGpu) << node << "\n" << r.StepsString();
  }
  ExpectDeviceError(
      [&](Builder& b) -> std::vector<TG_Output> {
        return {add_n(b, {b.Feed({2, 3}, Random(6)), b.Feed({3, 2}, Random(6))}, "bad_add")};
      },
      TG_INVALID_ARGUMENT, "bad_add",
      "inputs to AddN must all have the same shape, but input 0 has shape [2,3] and input 1 "
      "has shape [3,2]");
}

// ---- a sparse step's deduplication: Unique, Shape, StridedSlice, UnsortedSegmentSum ----

TG_Output Unique(Builder& b, TG_Output x, TG_DataType out_idx, const char* name) {
  return b.Op("Unique", {x}, [&](TG_OperationDescription* d) {
    TG_SetAttrType(d, "out_idx", out_idx);
  }, name);
}

TG_Output StridedSlice(Builder& b, TG_Output x, std::vector<int32_t> begin,
                       std::vector<int32_t> end, std::vector<int32_t> strides,
                       const std::vector<std::pair<const char*, int64_t>>& masks,
                       const char* name) {
  const int64_t n = static_cast<int64_t>(begin.size());
  return b.Op("StridedSlice",
              {x, b.HostInts({n}, begin), b.HostInts({n}, end), b.HostInts({n}, strides)},
              [&](TG_OperationDescription* d) {
                for (const auto& [mask, value] : masks) TG_SetAttrInt(d, mask, value);
              },
              name);
}

// What the optimizers build (core/autodiff/optimizer.cc, Deduplicate): Unique of the
// indices, the count of unique ones by StridedSlice of their Shape. All of it runs on the
// device's host-memory kernels: nothing is copied.
TEST_F(SparseTrainingTest, UniqueShapeAndStridedSliceRunOnTheDeviceAsOnTheCpu) {
  for (const bool int64 : {false, true}) {
    for (const TG_DataType out_idx : {TG_INT32, TG_INT64}) {
      SCOPED_TRACE(std::string(int64 ? "int64" : "int32") + " indices, out_idx " +
                   (out_idx == TG_INT32 ? "int32" : "int64"));
      const RunResult r = devtest::ExpectDeviceMatchesCpu(
          [&](Builder& b) -> std::vector<TG_Output> {
            const TG_Output x = FeedIndices(b, int64, {9}, {7, 3, 7, 0, 3, 3, 9, 0, 7});
            const TG_Output y = Unique(b, x, out_idx, "unique");
            const TG_Output shape = b.Op("Shape", {y}, {}, "shape");
            const TG_Output count =
                StridedSlice(b, shape, {0}, {1}, {1}, {{"shrink_axis_mask", 1}}, "count");
            return {y, TG_Output{y.oper, 1}, shape, count};
          },
          0, 0, "unique");
      for (const char* node : {"shape", "count"}) {
        EXPECT_EQ(r.DeviceOf(node), kGpu) << node << "\n" << r.StepsString();
      }
      EXPECT_EQ(r.Copies(), 0) << r.StepsString();
      if (r.values.size() == 4) {
        EXPECT_EQ(r.values[0].values, (std::vector<double>{7, 3, 0, 9}));
        EXPECT_EQ(r.values[1].values, (std::vector<double>{0, 1, 0, 2, 1, 1, 3, 2, 0}));
        EXPECT_EQ(r.values[3].values, (std::vector<double>{4}));
      }
    }
  }
  // Shape of a float tensor in device memory (its elements stay there), as int64.
  const RunResult r = devtest::ExpectDeviceMatchesCpu([](Builder& b) -> std::vector<TG_Output> {
    return {b.Op("Shape", {b.DeviceConst({2, 3, 1}, Random(6))},
                 [](TG_OperationDescription* d) { TG_SetAttrType(d, "out_type", TG_INT64); },
                 "float_shape")};
  });
  EXPECT_EQ(r.Copies(), 0) << r.StepsString();
  // StridedSlice of int32 in general: negative strides, masks, an ellipsis and a new axis.
  devtest::ExpectDeviceMatchesCpu(
      [](Builder& b) -> std::vector<TG_Output> {
        std::vector<int32_t> v(12);
        for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<int32_t>(i * 3) - 7;
        const TG_Output x = b.FeedInt({3, 4}, v);
        return {StridedSlice(b, x, {2, -1}, {0, 0}, {-1, -2}, {}, "reversed"),
                StridedSlice(b, x, {0, 1}, {0, 3}, {1, 1}, {{"begin_mask", 1}, {"end_mask", 1}},
                             "masked"),
                StridedSlice(b, x, {0, 0}, {0, 0}, {1, 1},
                             {{"ellipsis_mask", 1}, {"new_axis_mask", 2}}, "new_axis"),
                StridedSlice(b, x, {1, 0}, {5, 4}, {1, 1}, {{"shrink_axis_mask", 1}}, "row")};
      },
      0, 0, "reversed");
}

TEST_F(SparseTrainingTest, UnsortedSegmentSumMatchesCpu) {
  for (const bool int64 : {false, true}) {
    SCOPED_TRACE(int64 ? "int64 ids" : "int32 ids");
    const RunResult r = devtest::ExpectDeviceMatchesCpu(
        [&](Builder& b) -> std::vector<TG_Output> {
          const TG_Output six = b.HostInts({}, {6});
          // Duplicates (4 three times, 0 twice), a negative id (dropped), rows 1, 3 and 5
          // unaddressed (zero).
          const TG_Output ids = FeedIndices(b, int64, {7}, {4, -1, 0, 4, 2, 4, 0});
          return {b.Op("UnsortedSegmentSum", {b.Feed({7, 3}, Random(21, -1, 1, 8)), ids, six}, {},
                       "segment_sum"),
                  b.Op("UnsortedSegmentSum",
                       {b.Feed({2, 3, 2}, Random(12, -1, 1, 9)),
                        FeedIndices(b, int64, {2, 3}, {1, 0, 1, 1, 2, 0}), b.HostInts({}, {3})},
                       {}, "segment_sum_2d"),
                  b.Op("UnsortedSegmentSum",
                       {b.Feed({0, 2}, {}), FeedIndices(b, int64, {0}, {}), b.HostInts({}, {3})},
                       {}, "segment_sum_empty")};
        },
        0, 0, "segment_sum");
    for (const char* node : {"segment_sum_2d", "segment_sum_empty"}) {
      EXPECT_EQ(r.DeviceOf(node), kGpu) << node << "\n" << r.StepsString();
    }
  }
}

// Index-like arguments are fed, so that the shape functions cannot refuse them when the graph
// is built and the kernels see them.
TEST_F(SparseTrainingTest, DeduplicationOpsRejectBadArgumentsNamingTheNode) {
  ExpectDeviceError(
      [](Builder& b) -> std::vector<TG_Output> {
        return {b.Op("UnsortedSegmentSum",
                     {b.Feed({3, 2}, Random(6)), b.FeedInt({3}, {1, 5, -1}), b.HostInts({}, {5})},
                     {}, "bad_segments")};
      },
      TG_INVALID_ARGUMENT, "bad_segments", "segment_ids[1] = 5 is not in [0, 5)");
  ExpectDeviceError(
      [](Builder& b) -> std::vector<TG_Output> {
        return {b.Op("UnsortedSegmentSum",
                     {b.Feed({3, 2}, Random(6)), b.FeedInt64({2}, {1, 0}), b.HostInts({}, {5})},
                     {}, "bad_segments")};
      },
      TG_INVALID_ARGUMENT, "bad_segments",
      "data.shape = [3,2] does not start with segment_ids.shape = [2]");
  ExpectDeviceError(
      [](Builder& b) -> std::vector<TG_Output> {
        return {b.Op("UnsortedSegmentSum",
                     {b.Feed({2}, Random(2)), b.FeedInt({2}, {1, 0}), b.FeedInt({1}, {5})}, {},
                     "bad_segments")};
      },
      TG_INVALID_ARGUMENT, "bad_segments", "num_segments should be a scalar, not shape [1]");
  ExpectDeviceError(
      [](Builder& b) -> std::vector<TG_Output> {
        return {Unique(b, b.FeedInt({2, 2}, {1, 2, 3, 4}), TG_INT32, "bad_unique")};
      },
      TG_INVALID_ARGUMENT, "bad_unique", "unique expects a 1D vector, but x has shape [2,2]");
  ExpectDeviceError(
      [](Builder& b) -> std::vector<TG_Output> {
        return {b.Op("StridedSlice",
                     {b.FeedInt({3}, {1, 2, 3}), b.FeedInt({1}, {0}), b.FeedInt({1}, {2}),
                      b.FeedInt({1}, {0})},
                     {}, "bad_slice")};
      },
      TG_INVALID_ARGUMENT, "bad_slice", "strides[0] must be non-zero");
  ExpectDeviceError(
      [](Builder& b) -> std::vector<TG_Output> {
        return {b.Op("StridedSlice",
                     {b.FeedInt({3}, {1, 2, 3}), b.FeedInt({1}, {3}), b.FeedInt({1}, {4}),
                      b.FeedInt({1}, {1})},
                     [](TG_OperationDescription* d) { TG_SetAttrInt(d, "shrink_axis_mask", 1); },
                     "bad_slice")};
      },
      TG_INVALID_ARGUMENT, "bad_slice", "slice index 3 of dimension 0 out of bounds.");
}

// ---- word2vec ----

enum class Loss { kSoftmax, kNce };

struct Word2Vec {
  TG_Output center, context, loss;
  TG_Operation* train = nullptr;
  TG_Operation* init = nullptr;
  std::vector<std::string> variables;
};

constexpr int64_t kVocab = 40, kDim = 8, kBatch = 16, kSampled = 6;

// The seeds' skip-gram model on `device`: embeddings [V, D] looked up for the center words
// (TG_EmbeddingLookup), then either a softmax over the vocabulary (weights [D, V], biases
// [V], SparseSoftmaxCrossEntropyWithLogits) or NCE (TG_NceLoss: weights [V, D], biases [V],
// int64 labels, a seeded LogUniformCandidateSampler), the mean loss minimized by `kind`.
// Everything is built under the device scope; the session's soft placement puts the ops the
// device has no kernel for on the CPU.
Word2Vec BuildWord2Vec(TG_Graph* g, const char* device, Loss loss, TG_OptimizerKind kind,
                       double learning_rate) {
  TG_Status* s = TG_NewStatus();
  Word2Vec m;
  auto check = [&](const char* what) {
    EXPECT_EQ(TG_GetCode(s), TG_OK) << what << ": " << TG_Message(s);
  };
  auto placeholder = [&](const char* name, TG_DataType dt, std::vector<int64_t> dims) {
    TG_OperationDescription* d = TG_NewOperation(g, "Placeholder", name);
    TG_SetAttrType(d, "dtype", dt);
    TG_SetAttrShape(d, "shape", dims.data(), static_cast<int>(dims.size()));
    TG_Operation* op = TG_FinishOperation(d, s);
    check(name);
    return TG_Output{op, 0};
  };
  m.center = placeholder("center", TG_INT32, {kBatch});
  m.context = loss == Loss::kNce ? placeholder("context", TG_INT64, {kBatch, 1})
                                 : placeholder("context", TG_INT32, {kBatch});
  TG_GraphSetRandomSeed(g, 11, s);
  TG_GraphPushDevice(g, device, s);
  check("push device");
  auto variable = [&](const char* name, std::vector<int64_t> dims, TG_InitializerKind init_kind,
                      double scale, int64_t seed) {
    TG_Initializer init;
    TG_InitInitializer(&init, init_kind);
    init.minval = -scale;
    init.maxval = scale;
    init.stddev = scale;
    init.has_seed = 1;
    init.seed = seed;
    TG_VariableOptions opts;
    TG_InitVariableOptions(&opts);
    opts.name = name;
    TG_Variable* v = TG_GraphNewVariableWithInit(g, &init, TG_FLOAT, dims.data(),
                                                 static_cast<int>(dims.size()), &opts, s);
    check(name);
    m.variables.push_back(name);
    return v;
  };
  TG_Variable* emb = variable("embeddings", {kVocab, kDim}, TG_INIT_RANDOM_UNIFORM, 1.0, 1);
  const TG_Output embed = TG_EmbeddingLookup(g, TG_VariableReadValue(emb), m.center, "embed", s);
  check("TG_EmbeddingLookup");
  TG_Output per_example;
  if (loss == Loss::kNce) {
    TG_Variable* w =
        variable("nce_weights", {kVocab, kDim}, TG_INIT_TRUNCATED_NORMAL, 0.35, 2);
    TG_Variable* b = variable("nce_biases", {kVocab}, TG_INIT_ZEROS, 0, 3);
    TG_NceLossOptions nce;
    TG_InitNceLossOptions(&nce);
    nce.has_seed = 1;
    nce.seed = 5;
    per_example = TG_NceLoss(g, TG_VariableReadValue(w), TG_VariableReadValue(b), m.context,
                             embed, kSampled, kVocab, &nce, s);
    check("TG_NceLoss");
  } else {
    TG_Variable* w = variable("softmax_weights", {kDim, kVocab}, TG_INIT_RANDOM_UNIFORM, 0.3, 2);
    TG_Variable* b = variable("softmax_biases", {kVocab}, TG_INIT_ZEROS, 0, 3);
    TG_OperationDescription* d = TG_NewOperation(g, "MatMul", "logits");
    TG_AddInput(d, embed);
    TG_AddInput(d, TG_VariableReadValue(w));
    TG_Output logits{TG_FinishOperation(d, s), 0};
    check("MatMul");
    d = TG_NewOperation(g, "BiasAdd", "logits_b");
    TG_AddInput(d, logits);
    TG_AddInput(d, TG_VariableReadValue(b));
    logits = TG_Output{TG_FinishOperation(d, s), 0};
    check("BiasAdd");
    d = TG_NewOperation(g, "SparseSoftmaxCrossEntropyWithLogits", "xent");
    TG_AddInput(d, logits);
    TG_AddInput(d, m.context);
    per_example = TG_Output{TG_FinishOperation(d, s), 0};
    check("xent");
  }
  int32_t zero = 0;
  const int64_t one = 1;
  TG_Tensor* axis = TG_AllocateTensor(TG_INT32, &one, 1, sizeof zero);
  std::memcpy(TG_TensorData(axis), &zero, sizeof zero);
  TG_OperationDescription* d = TG_NewOperation(g, "Const", "axis");
  TG_SetAttrTensor(d, "value", axis, s);
  TG_SetAttrType(d, "dtype", TG_INT32);
  const TG_Output axis_op{TG_FinishOperation(d, s), 0};
  TG_DeleteTensor(axis);
  d = TG_NewOperation(g, "Mean", "loss");
  TG_AddInput(d, per_example);
  TG_AddInput(d, axis_op);
  m.loss = TG_Output{TG_FinishOperation(d, s), 0};
  check("loss");
  TG_OptimizerOptions opt_options;
  TG_InitOptimizerOptions(&opt_options, kind);
  opt_options.learning_rate = learning_rate;
  TG_Optimizer* opt = TG_NewOptimizer(&opt_options, s);
  check("TG_NewOptimizer");
  m.train = TG_OptimizerMinimize(opt, g, m.loss, nullptr, 0, nullptr, s);
  check("TG_OptimizerMinimize");
  TG_DeleteOptimizer(opt);
  m.init = TG_GraphGlobalVariablesInitializer(g, s);
  check("initializer");
  TG_GraphPopDevice(g, s);
  TG_DeleteStatus(s);
  return m;
}

struct TrainRun {
  std::vector<double> losses;
  RunResult last_step;  // step stats of the last training run
  std::string error;
};

// Initializes, then trains `steps` steps on fixed batches, fetching the loss of each.
TrainRun Train(const char* device, Loss loss, TG_OptimizerKind kind, int steps,
               double learning_rate = 0.5) {
  TrainRun out;
  TG_Graph* g = TG_NewGraph();
  const Word2Vec m = BuildWord2Vec(g, device, loss, kind, learning_rate);
  TG_Status* s = TG_NewStatus();
  TG_SessionOptions* options = TG_NewSessionOptions();
  TG_SetSessionAllowSoftPlacement(options, 1);
  TG_Session* session = TG_NewSession(g, options, s);
  TG_DeleteSessionOptions(options);
  if (session == nullptr) {
    out.error = TG_Message(s);
    TG_DeleteStatus(s);
    TG_DeleteGraph(g);
    return out;
  }
  TG_SessionRun(session, nullptr, nullptr, nullptr, 0, nullptr, nullptr, 0, &m.init, 1, nullptr,
                s);
  const int64_t batch = kBatch, context_dims[2] = {kBatch, 1};
  for (int step = 0; step < steps && TG_GetCode(s) == TG_OK; ++step) {
    // Skip-gram pairs whose context is a function of the center, so the loss can fall;
    // rows repeat within a batch (the sparse updates meet duplicate indices).
    TG_Tensor* center = TG_AllocateTensor(TG_INT32, &batch, 1, kBatch * 4);
    const bool nce = loss == Loss::kNce;
    TG_Tensor* context = nce ? TG_AllocateTensor(TG_INT64, context_dims, 2, kBatch * 8)
                             : TG_AllocateTensor(TG_INT32, &batch, 1, kBatch * 4);
    for (int64_t i = 0; i < kBatch; ++i) {
      const int32_t c = static_cast<int32_t>((i * 7 + step * 3) % (kVocab / 2));
      static_cast<int32_t*>(TG_TensorData(center))[i] = c;
      const int64_t ctx = (c * 3 + 1) % kVocab;
      if (nce) {
        static_cast<int64_t*>(TG_TensorData(context))[i] = ctx;
      } else {
        static_cast<int32_t*>(TG_TensorData(context))[i] = static_cast<int32_t>(ctx);
      }
    }
    const TG_Output feeds[2] = {m.center, m.context};
    TG_Tensor* values[2] = {center, context};
    TG_Tensor* loss_value = nullptr;
    TG_RunOptions* ro = TG_NewRunOptions();
    TG_SetRunOptionsTraceLevel(ro, 1);
    TG_RunMetadata* md = TG_NewRunMetadata();
    TG_SessionRun(session, ro, feeds, values, 2, &m.loss, &loss_value, 1, &m.train, 1, md, s);
    if (TG_GetCode(s) == TG_OK) {
      out.losses.push_back(*static_cast<const float*>(TG_TensorData(loss_value)));
      out.last_step.steps.clear();
      for (int i = 0; i < TG_RunMetadataNumNodes(md); ++i) {
        out.last_step.steps.push_back({TG_RunMetadataNodeName(md, i),
                                       TG_RunMetadataNodeOpType(md, i),
                                       TG_RunMetadataNodeDevice(md, i)});
      }
    }
    TG_DeleteTensor(loss_value);
    TG_DeleteRunMetadata(md);
    TG_DeleteRunOptions(ro);
    TG_DeleteTensor(center);
    TG_DeleteTensor(context);
  }
  if (TG_GetCode(s) != TG_OK) out.error = TG_Message(s);
  TG_DeleteSession(session, s);
  TG_DeleteStatus(s);
  TG_DeleteGraph(g);
  return out;
}

// Every optimizer: GradientDescent subtracts the gradient's rows as they come (ScatterSub;
// the softmax weights get ApplyGradientDescent); the others first sum duplicate rows
// (Unique, Shape, StridedSlice, UnsortedSegmentSum, colocated with the variable as in
// TensorFlow), then apply SparseApplyMomentum / Adagrad / RMSProp, or (Adam) scale the slots
// with Assign and add the rows with ScatterAdd. All of it must stay on the device with the
// variable; before the device had the deduplication ops, soft placement moved the variable,
// its slots and every update to the CPU.
struct Word2VecCase {
  Loss loss;
  TG_OptimizerKind kind;
  double learning_rate;
  // The op types that write the variables or sum their gradients, with how many of each
  // one training step runs.
  std::vector<std::pair<const char*, int>> update_ops;
};

const char* KindName(TG_OptimizerKind kind) {
  switch (kind) {
    case TG_OPTIMIZER_GRADIENT_DESCENT: return "GradientDescent";
    case TG_OPTIMIZER_MOMENTUM: return "Momentum";
    case TG_OPTIMIZER_ADAM: return "Adam";
    case TG_OPTIMIZER_RMSPROP: return "RMSProp";
    case TG_OPTIMIZER_ADAGRAD: return "Adagrad";
  }
  return "Unknown";
}

void PrintTo(const Word2VecCase& c, std::ostream* os) {
  *os << (c.loss == Loss::kNce ? "NCE" : "softmax") << " loss, " << KindName(c.kind);
}

class Word2VecTest : public SparseTrainingTest,
                     public ::testing::WithParamInterface<Word2VecCase> {};

TEST_P(Word2VecTest, TrainsWithItsVariablesOnTheDeviceAsOnTheCpu) {
  const Word2VecCase& c = GetParam();
  constexpr int kSteps = 12;
  const TrainRun want = Train(kCpu, c.loss, c.kind, kSteps, c.learning_rate);
  const TrainRun got = Train(kGpu, c.loss, c.kind, kSteps, c.learning_rate);
  ASSERT_EQ(want.error, "");
  ASSERT_EQ(got.error, "");
  ASSERT_EQ(got.losses.size(), want.losses.size());
  for (size_t i = 0; i < want.losses.size(); ++i) {
    EXPECT_NEAR(got.losses[i], want.losses[i], 1e-4 + 1e-4 * std::abs(want.losses[i]))
        << "step " << i;
  }
  EXPECT_LT(want.losses.back(), want.losses.front());
  const RunResult& r = got.last_step;
  // Every variable (slots included), its reads for the lookups, and every op of the
  // optimizer's per-variable updates ("<Optimizer>/update_<variable>/...") ran on the
  // device.
  int lookups = 0, variables = 0, update_steps = 0;
  const std::string update_scope = std::string(KindName(c.kind)) + "/update_";
  for (const devtest::Step& step : r.steps) {
    if (step.op == "_Copy") continue;
    const bool update = step.name.rfind(update_scope, 0) == 0;
    if (step.op == "VariableV2" || step.op == "GatherV2" || update) {
      EXPECT_EQ(step.device, kGpu) << step.name << " (" << step.op << ")\n" << r.StepsString();
    }
    lookups += step.op == "GatherV2";
    variables += step.op == "VariableV2";
    update_steps += update;
  }
  EXPECT_GE(lookups, 1) << r.StepsString();
  EXPECT_GE(variables, 3) << r.StepsString();
  EXPECT_GE(update_steps, 3) << r.StepsString();
  for (const auto& [op, count] : c.update_ops) {
    SCOPED_TRACE(op);
    int seen = 0;
    for (const devtest::Step& step : r.steps) {
      if (step.op != op) continue;
      ++seen;
      EXPECT_EQ(step.device, kGpu) << step.name << "\n" << r.StepsString();
    }
    EXPECT_EQ(seen, count) << r.StepsString();
  }
  // The NCE loss's log-sigmoid (Softplus) and its gradient run on the device too, and so do
  // its logistic loss's Selects (max(x, 0) and -|x|) and their gradients' Selects.
  if (c.loss == Loss::kNce) {
    int softplus = 0, softplus_grad = 0, selects = 0;
    for (const devtest::Step& step : r.steps) {
      if (step.op != "Softplus" && step.op != "SoftplusGrad" && step.op != "Select") continue;
      (step.op == "Softplus" ? softplus : step.op == "Select" ? selects : softplus_grad)++;
      EXPECT_EQ(step.device, kGpu) << step.name << "\n" << r.StepsString();
    }
    EXPECT_GE(softplus, 1) << r.StepsString();
    EXPECT_GE(softplus_grad, 1) << r.StepsString();
    EXPECT_GE(selects, 4) << r.StepsString();
  }
}

std::string Word2VecName(const ::testing::TestParamInfo<Word2VecCase>& info) {
  return std::string(info.param.loss == Loss::kNce ? "Nce" : "Softmax") +
         KindName(info.param.kind);
}

// The softmax model has one sparse variable (the embeddings) and two dense ones; in the NCE
// model all three are sparse.
INSTANTIATE_TEST_SUITE_P(
    Models, Word2VecTest,
    ::testing::Values(
        Word2VecCase{Loss::kSoftmax, TG_OPTIMIZER_GRADIENT_DESCENT, 0.5,
                     {{"ScatterSub", 1}, {"ApplyGradientDescent", 2}}},
        Word2VecCase{Loss::kNce, TG_OPTIMIZER_GRADIENT_DESCENT, 0.5, {{"ScatterSub", 3}}},
        Word2VecCase{Loss::kSoftmax, TG_OPTIMIZER_MOMENTUM, 0.5,
                     {{"Unique", 1},
                      {"UnsortedSegmentSum", 1},
                      {"SparseApplyMomentum", 1},
                      {"ApplyMomentum", 2}}},
        Word2VecCase{Loss::kNce, TG_OPTIMIZER_MOMENTUM, 0.5,
                     {{"Unique", 3}, {"UnsortedSegmentSum", 3}, {"SparseApplyMomentum", 3}}},
        Word2VecCase{Loss::kSoftmax, TG_OPTIMIZER_ADAGRAD, 0.5,
                     {{"Unique", 1}, {"SparseApplyAdagrad", 1}, {"ApplyAdagrad", 2}}},
        Word2VecCase{Loss::kNce, TG_OPTIMIZER_ADAGRAD, 0.5,
                     {{"Unique", 3}, {"UnsortedSegmentSum", 3}, {"SparseApplyAdagrad", 3}}},
        Word2VecCase{Loss::kSoftmax, TG_OPTIMIZER_RMSPROP, 0.05,
                     {{"Unique", 1}, {"SparseApplyRMSProp", 1}, {"ApplyRMSProp", 2}}},
        Word2VecCase{Loss::kNce, TG_OPTIMIZER_RMSPROP, 0.05,
                     {{"Unique", 3}, {"SparseApplyRMSProp", 3}}},
        Word2VecCase{Loss::kSoftmax, TG_OPTIMIZER_ADAM, 0.05,
                     {{"Unique", 1}, {"ScatterAdd", 2}, {"ApplyAdam", 2}}},
        Word2VecCase{Loss::kNce, TG_OPTIMIZER_ADAM, 0.05,
                     {{"Unique", 3}, {"UnsortedSegmentSum", 3}, {"ScatterAdd", 6}}}),
    Word2VecName);

}  // namespace

namespace {

// A variable that soft placement puts on another device in a later run than in the run that
// wrote it moves its value there first (it used to stay in device memory, and the CPU
// kernels read it as host memory and crashed). An int32 variable: the device has Assign and
// ScatterUpdate for it but no AssignAdd, so the AssignAdd run puts the variable on the CPU
// between two runs that put it on the device.
TEST_F(SparseTrainingTest, AVariableThatSoftPlacementMovesKeepsItsValue) {
  auto run = [](const char* device, std::vector<std::string>* devices) {
    Builder b(device);
    TG_Variable* v = NewVariable(b, "w", {4, 2}, Random(8, -1, 1, 12), /*ints=*/true);
    const TG_Output scatter =
        b.Op("ScatterUpdate",
             {TG_VariableOutput(v), b.FeedInt({2}, {3, 1}), b.FeedInt({2, 2}, {5, 6, 7, 8})}, {},
             "scatter");
    std::vector<int32_t> ones(8, 1);
    const TG_Output add = b.Op("AssignAdd", {TG_VariableOutput(v), b.FeedInt({4, 2}, ones)}, {},
                               "add");
    TG_Status* s = TG_NewStatus();
    TG_SessionOptions* options = TG_NewSessionOptions();
    TG_SetSessionAllowSoftPlacement(options, 1);
    TG_Session* session = TG_NewSession(b.graph(), options, s);
    TG_DeleteSessionOptions(options);
    EXPECT_NE(session, nullptr) << TG_Message(s);
    RunResult r;
    if (session == nullptr) {
      TG_DeleteStatus(s);
      return r;
    }
    const std::vector<std::pair<const char*, TG_Output>> steps = {
        {"init", TG_Output{TG_VariableInitializer(v), 0}},
        {"scatter", scatter},
        {"add", add},
        {"scatter", scatter},
        {"add", add},
        {"read", TG_VariableReadValue(v)}};
    for (const auto& [what, step] : steps) {
      r = b.RunIn(session, {step});
      EXPECT_EQ(r.code, TG_OK) << what << ": " << r.message;
      devices->push_back(std::string(what) + " on " + r.DeviceOf("w"));
    }
    TG_DeleteSession(session, s);
    TG_DeleteStatus(s);
    return r;
  };
  std::vector<std::string> cpu_devices, gpu_devices;
  const RunResult want = run(kCpu, &cpu_devices), got = run(kGpu, &gpu_devices);
  ExpectSameValues(want, got, 0, 0);
  const std::string gpu = kGpu, cpu = kCpu;
  // Where the variable was in each run: it moved three times.
  EXPECT_EQ(gpu_devices, (std::vector<std::string>{"init on " + gpu, "scatter on " + gpu,
                                                   "add on " + cpu, "scatter on " + gpu,
                                                   "add on " + cpu, "read on " + gpu}));
}

}  // namespace
