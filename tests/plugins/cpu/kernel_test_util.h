// Runs single ops on the CPU plugin's kernels through KernelRunner (the executor's building
// block), for the kernel conformance tests: the node is built over Placeholders, Consts
// (static values for shape functions), VariableV2s (ref inputs) or list arguments, and
// runs inline or on a real intra-op pool. Every kernel run is recorded for the coverage check.
// With TGRAPH_CONFORMANCE_PLUGIN set, each node also runs on that plugin's device and must
// match the CPU (device_conformance.h).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "device_conformance.h"
#include "kernel_coverage.h"
#include "core/exec/kernel_runner.h"
#include "core/exec/thread_pool.h"
#include "core/graph/attr_value_util.h"
#include "core/graph/graph.h"
#include "core/plugin/plugin_loader.h"

namespace tgraph::testing {

using Dims = std::vector<int64_t>;

// The number of elements of a tensor of `dims`.
inline int64_t Count(const Dims& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

// Loads the CPU plugin built next to the tests (once per process).
inline void LoadCpuPlugin() {
  static Status status = LoadPlugin(TGRAPH_CPU_PLUGIN_PATH).status();
  ASSERT_TRUE(status.ok()) << status.ToString();
}

// The device every node is compared on, when the comparison mode is on and has a device.
inline const ConformanceDevice* ActiveConformanceDevice() {
  const ConformanceDevice& d = GetConformanceDevice(TGRAPH_CPU_PLUGIN_PATH);
  return d.active() ? &d : nullptr;
}

template <typename T>
Tensor MakeTensor(DataType dtype, std::vector<int64_t> dims, const std::vector<T>& values) {
  Tensor t = Tensor::Allocate(dtype, std::move(dims)).value();
  EXPECT_EQ(static_cast<size_t>(t.NumElements()), values.size());
  for (size_t i = 0; i < values.size() && i < static_cast<size_t>(t.NumElements()); ++i) {
    t.flat<T>()[i] = values[i];
  }
  return t;
}

template <typename T>
std::vector<T> Values(const Tensor& t) {
  return std::vector<T>(t.flat<T>(), t.flat<T>() + t.NumElements());
}

struct OpRun {
  Status status;
  std::vector<Tensor> outputs;
};

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
    } else {
      KernelCoverage::Get().Record(runner.value()->kernel());
      runner_ = std::move(runner).value();
    }
    PrepareDeviceRunner(pool);
  }

  // Construction or kernel-creation status.
  const Status& status() const { return status_; }
  const Operation* node() const { return node_; }

  // Runs the node on the CPU; in device comparison mode also on the device, from the same
  // inputs and variable contents, and compares (the CPU result is what comes back).
  OpRun Run() {
    OpRun r;
    if (node_ == nullptr) {
      r.status = status_;
      return r;
    }
    // Runs of one fixture from several threads (tests of locked variable updates) are
    // serialized in comparison mode: a comparison needs the variables to hold still from the
    // CPU run to the device run. The CPU-only suite keeps checking the concurrency.
    std::unique_lock<std::mutex> serialized;
    if (device_ != nullptr) serialized = std::unique_lock<std::mutex>(device_mu_);
    std::vector<KernelInput> device_inputs;
    std::vector<std::pair<VariableSlot*, VariableSlot*>> slots;
    std::string inputs_description;  // as they were before the run (it may change variables)
    if (device_ != nullptr) {
      device_inputs = DeviceInputs(&slots);
      inputs_description = InputsDescription(inputs_);
    }
    if (!status_.ok()) {
      r.status = status_;
    } else {
      r.status = runner_->Run(inputs_, &r.outputs);
    }
    if (device_ != nullptr) {
      OpRun d;
      d.status = device_runner_ != nullptr ? device_runner_->Run(device_inputs, &d.outputs)
                                           : device_status_;
      KernelCoverage::Device().Record(*device_kernel_);
      ComparedTests::Get().AddCurrent();
      CompareDeviceRun(*node_, "/device:" + device_->type + ":0", inputs_description,
                       r.status, r.outputs, d.status, d.outputs, slots);
    }
    return r;
  }

 private:
  // The device's kernel for the node, when the comparison mode is on and there is one.
  void PrepareDeviceRunner(ThreadPool* pool) {
    const ConformanceDevice* device = ActiveConformanceDevice();
    if (device == nullptr) return;
    device_kernel_ = KernelRegistry::Global()->FindOrNull(node_->type(), node_->attrs(), device->type);
    if (device_kernel_ == nullptr) return;  // nothing to compare
    device_ = device;
    auto runner = KernelRunner::Create(*node_, device->type, pool);
    if (runner.ok()) {
      device_runner_ = std::move(runner).value();
    } else {
      device_status_ = runner.status();  // compared with the CPU's status at run time
    }
  }

  // The inputs of a device run: the same values, and for each variable a copy of the CPU
  // slot as it is now (before the CPU run changes it); `slots` pairs them up.
  std::vector<KernelInput> DeviceInputs(std::vector<std::pair<VariableSlot*, VariableSlot*>>* slots) {
    device_slots_.clear();
    std::vector<KernelInput> inputs = inputs_;
    for (KernelInput& in : inputs) {
      if (in.ref == nullptr) continue;
      VariableSlot* copy = nullptr;
      for (const auto& [cpu, dev] : *slots) {
        if (cpu == in.ref) copy = dev;
      }
      if (copy == nullptr) {
        device_slots_.push_back(std::make_unique<VariableSlot>());
        copy = device_slots_.back().get();
        std::lock_guard<std::mutex> lock(in.ref->mu);
        copy->name = in.ref->name;
        copy->initialized = in.ref->initialized;
        copy->value = DeepCopy(in.ref->value);
        slots->emplace_back(in.ref, copy);
      }
      in.ref = copy;
    }
    return inputs;
  }

  Graph graph_;
  Status status_;
  Operation* node_ = nullptr;
  std::vector<KernelInput> inputs_;
  std::unique_ptr<KernelRunner> runner_;
  // Device comparison mode (device_ is null when it is off or the device has no kernel).
  const ConformanceDevice* device_ = nullptr;
  const KernelRegistration* device_kernel_ = nullptr;
  std::unique_ptr<KernelRunner> device_runner_;
  Status device_status_;
  std::vector<std::unique_ptr<VariableSlot>> device_slots_;
  std::mutex device_mu_;
};

// Runs a node of `op_type` once over `args` (see KernelFixture).
inline OpRun RunArgs(const std::string& op_type, std::vector<ArgIn> args, AttrMap attrs = {},
                     bool known_shapes = true, ThreadPool* pool = nullptr) {
  KernelFixture f(op_type, std::move(args), std::move(attrs), known_shapes, pool);
  return f.Run();
}

// A 4-thread intra-op pool shared by the tests that exercise parallel paths. A static
// object, so its threads are joined at exit: LeakSanitizer's exit-time scan has crashed
// ("Tracer caught signal 11") when pool threads were still alive.
inline ThreadPool* TestPool() {
  static ThreadPool pool(4);
  return &pool;
}

// One Placeholder per input (static shape from the tensor, or unknown when `known_shapes` is
// false) feeding a node of `op_type`; inputs with a slot in `refs` come from a VariableV2
// and the kernel gets that slot. Kernels get the inline pool.
inline OpRun RunOp(const std::string& op_type, const std::vector<Tensor>& inputs, AttrMap attrs = {},
                   bool known_shapes = true, std::vector<VariableSlot*> refs = {}) {
  std::vector<ArgIn> args;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const bool is_ref = i < refs.size() && refs[i] != nullptr;
    args.push_back(is_ref ? Ref(refs[i], inputs[i]) : In(inputs[i]));
  }
  return RunArgs(op_type, std::move(args), std::move(attrs), known_shapes);
}

// Like RunOp, with an intra-op pool (nullptr: inline), and optionally all inputs as one list
// argument (AddN's `N * T`).
inline OpRun RunOpEx(const std::string& op_type, const std::vector<Tensor>& inputs, AttrMap attrs,
                     ThreadPool* pool, bool one_list = false, bool known_shapes = true) {
  std::vector<ArgIn> args;
  if (one_list) {
    args.push_back(List(inputs));
  } else {
    for (const Tensor& t : inputs) args.push_back(In(t));
  }
  return RunArgs(op_type, std::move(args), std::move(attrs), known_shapes, pool);
}

}  // namespace tgraph::testing
