// Helpers for the array / state / random kernel tests: ops with list inputs (ConcatV2, Pack),
// constant inputs (so shape functions see values), a kernel kept across several runs (random
// ops: one kernel = one stream), and runs on a real intra-op pool.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "kernel_coverage.h"
#include "core/exec/thread_pool.h"
#include "kernel_test_util.h"

namespace tgraph::testing {

// How a test input reaches the node.
struct ArgIn {
  std::vector<Tensor> tensors;  // one, or several for a list argument
  bool is_list = false;
  bool as_const = false;        // a Const producer (static value known to the shape function)
  VariableSlot* ref = nullptr;  // a VariableV2 producer; the kernel gets this slot
};

inline ArgIn In(Tensor t) { return ArgIn{{std::move(t)}, false, false}; }
inline ArgIn Const(Tensor t) { return ArgIn{{std::move(t)}, false, true}; }
inline ArgIn List(std::vector<Tensor> ts) { return ArgIn{std::move(ts), true, false}; }
// A variable input: `slot` is what the kernel sees; `like` gives the VariableV2's static
// dtype and shape.
inline ArgIn Ref(VariableSlot* slot, Tensor like) {
  return ArgIn{{std::move(like)}, false, false, slot};
}

// A node of `op_type` built over Placeholders / Consts, with its kernel created once.
class KernelFixture {
 public:
  KernelFixture(const std::string& op_type, std::vector<ArgIn> args, AttrMap attrs = {},
                bool known_shapes = true, ThreadPool* pool = nullptr) {
    LoadCpuPlugin();
    NodeSpec spec;
    spec.type = op_type;
    spec.name = "node";
    spec.attrs = std::move(attrs);
    int k = 0;
    for (const ArgIn& a : args) {
      NodeSpec::InputGroup group;
      group.is_list = a.is_list;
      for (const Tensor& t : a.tensors) {
        NodeSpec ph;
        ph.name = "input" + std::to_string(k++);
        if (a.ref != nullptr) {
          ph.type = "VariableV2";
          ph.attrs["dtype"] = AttrOfType(t.dtype());
          ph.attrs["shape"] = AttrOfShape(t.shape());
        } else if (a.as_const) {
          ph.type = "Const";
          ph.attrs["dtype"] = AttrOfType(t.dtype());
          ph.attrs["value"] = AttrOfTensor(t);
        } else {
          ph.type = "Placeholder";
          ph.attrs["dtype"] = AttrOfType(t.dtype());
          ph.attrs["shape"] = AttrOfShape(known_shapes ? t.shape() : PartialShape::Unknown());
        }
        auto op = graph_.AddOperation(std::move(ph));
        if (!op.ok()) {
          status_ = op.status();
          return;
        }
        group.tensors.push_back(op.value()->output(0));
        KernelInput in;
        in.value = t;
        in.ref = a.ref;
        inputs_.push_back(std::move(in));
      }
      spec.inputs.push_back(std::move(group));
    }
    auto node = graph_.AddOperation(std::move(spec));
    if (!node.ok()) {
      status_ = node.status();
      return;
    }
    node_ = node.value();
    auto runner = KernelRunner::Create(*node_, "CPU", pool);
    if (!runner.ok()) {
      status_ = runner.status();
      return;
    }
    KernelCoverage::Get().Record(runner.value()->kernel());
    runner_ = std::move(runner).value();
  }

  // Construction or kernel-creation status.
  const Status& status() const { return status_; }
  const Operation* node() const { return node_; }

  OpRun Run() {
    OpRun r;
    if (!status_.ok()) {
      r.status = status_;
      return r;
    }
    r.status = runner_->Run(inputs_, &r.outputs);
    return r;
  }

 private:
  Graph graph_;
  Status status_;
  Operation* node_ = nullptr;
  std::vector<KernelInput> inputs_;
  std::unique_ptr<KernelRunner> runner_;
};

inline OpRun RunArgs(const std::string& op_type, std::vector<ArgIn> args, AttrMap attrs = {},
                     bool known_shapes = true, ThreadPool* pool = nullptr) {
  KernelFixture f(op_type, std::move(args), std::move(attrs), known_shapes, pool);
  return f.Run();
}

// A 4-thread intra-op pool shared by the tests that exercise parallel paths.
inline ThreadPool* TestPool() {
  static ThreadPool* pool = new ThreadPool(4);
  return pool;
}

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
