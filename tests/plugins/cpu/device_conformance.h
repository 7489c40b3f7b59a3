// Device comparison mode of the kernel conformance suite. With TGRAPH_CONFORMANCE_PLUGIN
// naming a device plugin file (and TGRAPH_CONFORMANCE_DEVICE its device type, "GPU" unless
// set), every node a test runs on the CPU also runs on /device:TYPE:0 when that device type
// has a kernel for it, and the two runs must agree: the same status code, the same output
// dtypes and shapes, values within a per-dtype tolerance, and the same variable contents
// afterwards. The test's own assertions keep checking the CPU result; disagreements are
// extra gtest failures naming the op, the node, the output and the element. A device kernel
// that answers UNIMPLEMENTED for a case (an attr value it does not take) is not compared but
// listed at exit, unless TGRAPH_CONFORMANCE_STRICT=1; so is a case the CPU answers
// UNIMPLEMENTED for and the device runs (Conv2D in NCHW).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/exec/kernel_runner.h"
#include "core/graph/operation.h"
#include "core/plugin/plugin_loader.h"
#include "core/plugin/registry.h"

namespace tgraph::testing {

// The device under comparison, loaded once per process.
struct ConformanceDevice {
  std::string plugin_path;   // empty: the mode is off (CPU only)
  std::string type;          // "GPU", ...
  Status load_status;        // the plugin failed to load: every comparison is off, one test fails
  std::string no_device;     // why nothing is compared although the plugin loaded ("" if it is)
  const LoadedPlugin* plugin = nullptr;
  std::string description;   // of ordinal 0

  bool active() const { return !plugin_path.empty() && load_status.ok() && no_device.empty(); }
  // The mode is on and its plugin loaded, but it has no device (a CUDA plugin on a machine
  // without a GPU): the whole run is skipped, since it would only repeat cpu.kernel_coverage.
  bool skips_suite() const { return !plugin_path.empty() && load_status.ok() && !no_device.empty(); }
};

// `cpu_plugin_path` is loaded first (the device plugin may rely on its ops).
inline const ConformanceDevice& GetConformanceDevice(const char* cpu_plugin_path) {
  static const ConformanceDevice device = [cpu_plugin_path] {
    ConformanceDevice d;
    const char* path = std::getenv("TGRAPH_CONFORMANCE_PLUGIN");
    if (path == nullptr || *path == '\0') return d;
    d.plugin_path = path;
    const char* type = std::getenv("TGRAPH_CONFORMANCE_DEVICE");
    d.type = type != nullptr && *type != '\0' ? type : "GPU";
    Status cpu = LoadPlugin(cpu_plugin_path).status();
    auto loaded = LoadPlugin(d.plugin_path);
    if (!cpu.ok() || !loaded.ok()) {
      d.load_status = !cpu.ok() ? cpu : loaded.status();
      std::cerr << "device conformance: cannot load " << d.plugin_path << ": "
                << d.load_status.ToString() << "\n";
      return d;
    }
    d.plugin = loaded.value();
    const DeviceRegistration* reg = DeviceRegistry::Global()->Find(d.type);
    if (reg == nullptr || reg->DeviceCount() == 0) {
      d.no_device = StrCat("no device: device comparison skipped (", d.plugin_path, " has ",
                           reg == nullptr ? "no device type " : "0 devices of type ", d.type, ")");
    } else {
      auto instance = DeviceRegistry::Global()->GetInstance(d.type, 0);
      if (!instance.ok()) {
        d.no_device = StrCat("no device: device comparison skipped (", d.type,
                             ":0 cannot be created: ", instance.status().ToString(), ")");
      } else {
        d.description = reg->Description(0);
      }
    }
    if (!d.no_device.empty()) {
      std::cerr << "device conformance: " << d.no_device << "\n";
    } else {
      std::cerr << "device conformance: comparing every node with a " << d.type
                << " kernel against the CPU on /device:" << d.type << ":0 (" << d.description
                << ")\n";
    }
    return d;
  }();
  return device;
}

// How closely a device's value must match the CPU's, per dtype: |device - cpu| <= atol +
// rtol * |cpu|, with atol scaled by the output's largest CPU magnitude (at least 1), so
// values near zero that come from cancellation are judged against the output's scale.
// Ops that sum many terms (matmul, convolutions, reductions, softmax and losses) get ten
// times more: the device adds in another order (tiles, tree reductions) than Eigen does,
// and the rounding difference grows with the number of terms, relative to the terms'
// magnitudes rather than the result's.
struct Tolerance {
  bool exact = true;
  double rtol = 0;
  double atol = 0;
};

inline bool SumsManyTerms(const std::string& op_type) {
  static const char* const kOps[] = {
      "MatMul", "BatchMatMul", "BatchMatMulV2", "BatchMatMulV3", "Conv2D", "Conv2DBackpropInput",
      "Conv2DBackpropFilter", "Sum", "Mean", "Prod", "BiasAddGrad", "Softmax", "LogSoftmax",
      "SoftmaxCrossEntropyWithLogits", "SparseSoftmaxCrossEntropyWithLogits", "L2Loss",
      "AvgPool", "AvgPoolGrad", "MaxPoolGrad"};
  return std::any_of(std::begin(kOps), std::end(kOps),
                     [&](const char* op) { return op_type == op; });
}

inline Tolerance ToleranceFor(DataType dtype, const std::string& op_type) {
  double base = 0;
  switch (dtype) {
    case DT_FLOAT:
    case DT_COMPLEX64:
      base = 1e-5;
      break;
    case DT_DOUBLE:
    case DT_COMPLEX128:
      base = 1e-12;
      break;
    case DT_HALF:
    case DT_BFLOAT16:
      base = 1e-2;
      break;
    default:
      return Tolerance{};  // integers, bool: exact
  }
  if (SumsManyTerms(op_type)) base *= 10;
  return Tolerance{false, base, base};
}

inline double HalfToDouble(uint16_t h) {
  const int sign = h >> 15, exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  double v;
  if (exp == 0) {
    v = std::ldexp(mant, -24);
  } else if (exp == 31) {
    v = mant != 0 ? std::nan("") : INFINITY;
  } else {
    v = std::ldexp(mant + 1024, exp - 25);
  }
  return sign ? -v : v;
}

inline double Bfloat16ToDouble(uint16_t b) {
  const uint32_t bits = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

// Element `i` of a host tensor as (real, imaginary) doubles; false for dtypes the
// comparison does not read (strings, quantized, sub-byte types).
inline bool ElementAt(const Tensor& t, int64_t i, double* re, double* im) {
  *im = 0;
  switch (t.dtype()) {
    case DT_FLOAT: *re = t.flat<float>()[i]; return true;
    case DT_DOUBLE: *re = t.flat<double>()[i]; return true;
    case DT_HALF: *re = HalfToDouble(t.flat<uint16_t>()[i]); return true;
    case DT_BFLOAT16: *re = Bfloat16ToDouble(t.flat<uint16_t>()[i]); return true;
    case DT_INT8: *re = t.flat<int8_t>()[i]; return true;
    case DT_UINT8: *re = t.flat<uint8_t>()[i]; return true;
    case DT_INT16: *re = t.flat<int16_t>()[i]; return true;
    case DT_UINT16: *re = t.flat<uint16_t>()[i]; return true;
    case DT_INT32: *re = t.flat<int32_t>()[i]; return true;
    case DT_UINT32: *re = t.flat<uint32_t>()[i]; return true;
    case DT_BOOL: *re = t.flat<bool>()[i] ? 1 : 0; return true;
    case DT_COMPLEX64:
      *re = t.flat<std::complex<float>>()[i].real();
      *im = t.flat<std::complex<float>>()[i].imag();
      return true;
    case DT_COMPLEX128:
      *re = t.flat<std::complex<double>>()[i].real();
      *im = t.flat<std::complex<double>>()[i].imag();
      return true;
    default: return false;  // 64-bit integers are compared bit for bit by the caller
  }
}

inline bool Close(double cpu, double dev, const Tolerance& tol, double scale) {
  if (std::isnan(cpu) || std::isnan(dev)) return std::isnan(cpu) && std::isnan(dev);
  if (std::isinf(cpu) || std::isinf(dev)) return cpu == dev;
  if (tol.exact) return cpu == dev;
  return std::fabs(dev - cpu) <= tol.atol * scale + tol.rtol * std::fabs(cpu);
}

// Compares one value (an output or a variable's contents) of `node`; `what` names it.
inline void CompareDeviceValue(const Operation& node, const std::string& device,
                               const std::string& what, const Tensor& cpu, const Tensor& dev) {
  const std::string where = StrCat("device conformance: ", node.type(), " node '", node.name(),
                                   "', ", what, ": ");
  if (cpu.dtype() != dev.dtype() || cpu.dims() != dev.dims()) {
    ADD_FAILURE() << where << "CPU gives " << DataTypeName(cpu.dtype()) << " "
                  << PartialShape(cpu.dims()).ToString() << ", " << device << " gives "
                  << DataTypeName(dev.dtype()) << " " << PartialShape(dev.dims()).ToString();
    return;
  }
  const int64_t n = cpu.NumElements();
  if (n == 0) return;
  if (cpu.dtype() == DT_INT64 || cpu.dtype() == DT_UINT64) {
    for (int64_t i = 0; i < n; ++i) {
      if (cpu.flat<int64_t>()[i] != dev.flat<int64_t>()[i]) {
        ADD_FAILURE() << where << "element " << i << ": CPU " << cpu.flat<int64_t>()[i] << ", "
                      << device << " " << dev.flat<int64_t>()[i];
        return;
      }
    }
    return;
  }
  double re, im;
  if (!ElementAt(cpu, 0, &re, &im)) return;  // a dtype no device kernel produces
  const Tolerance tol = ToleranceFor(cpu.dtype(), node.type());
  double scale = 1;
  for (int64_t i = 0; i < n; ++i) {
    ElementAt(cpu, i, &re, &im);
    if (std::isfinite(re)) scale = std::max(scale, std::fabs(re));
    if (std::isfinite(im)) scale = std::max(scale, std::fabs(im));
  }
  int reported = 0;
  int64_t mismatches = 0;
  for (int64_t i = 0; i < n; ++i) {
    double c_re, c_im, d_re, d_im;
    ElementAt(cpu, i, &c_re, &c_im);
    ElementAt(dev, i, &d_re, &d_im);
    if (Close(c_re, d_re, tol, scale) && Close(c_im, d_im, tol, scale)) continue;
    ++mismatches;
    if (reported++ < 3) {
      ADD_FAILURE() << where << "element " << i << " of " << n << ": CPU "
                    << ::testing::PrintToString(c_re)
                    << (c_im != 0 || d_im != 0 ? StrCat("+", c_im, "i") : "") << ", " << device
                    << " " << ::testing::PrintToString(d_re)
                    << (c_im != 0 || d_im != 0 ? StrCat("+", d_im, "i") : "")
                    << (tol.exact ? " (must be equal)"
                                  : StrCat(" (tolerance ", tol.atol * scale, " + ", tol.rtol,
                                           " * |cpu|)"));
    }
  }
  if (mismatches > 3) {
    ADD_FAILURE() << where << mismatches << " of " << n << " elements differ in all";
  }
}

// TGRAPH_CONFORMANCE_STRICT=1: a device kernel's UNIMPLEMENTED for a case the CPU runs is a
// failure too (by default it only counts as a case the device does not support).
inline bool ConformanceStrict() {
  const char* v = std::getenv("TGRAPH_CONFORMANCE_STRICT");
  return v != nullptr && std::string(v) == "1";
}

// "[2,3,4]" -> "[...]": the cases listed at exit are grouped by kind, not by shape.
inline std::string WithoutShapes(const std::string& message) {
  std::string out;
  for (size_t i = 0; i < message.size(); ++i) {
    const size_t close = message[i] == '[' ? message.find(']', i) : std::string::npos;
    if (close == std::string::npos) {
      out += message[i];
    } else {
      out += "[...]";
      i = close;
    }
  }
  return out;
}

// "float[2,3], int32[] (variable v: float[2,3])": a node's inputs, for the messages.
inline std::string InputsDescription(const std::vector<KernelInput>& inputs) {
  std::string out;
  for (const KernelInput& in : inputs) {
    if (!out.empty()) out += ", ";
    if (in.ref != nullptr) {
      std::lock_guard<std::mutex> lock(in.ref->mu);
      out += StrCat("variable ", in.ref->name, ":");
      if (!in.ref->initialized) {
        out += "uninitialized";
        continue;
      }
      out += StrCat(DataTypeName(in.ref->value.dtype()), PartialShape(in.ref->value.dims()).ToString());
    } else {
      out += StrCat(DataTypeName(in.value.dtype()), PartialShape(in.value.dims()).ToString());
    }
  }
  return out.empty() ? "no inputs" : out;
}

// The tests that compared at least one node (for the summary at exit).
class ComparedTests {
 public:
  static ComparedTests& Get() {
    static ComparedTests* const tests = new ComparedTests();
    return *tests;
  }
  void AddCurrent() {
    const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
    if (info == nullptr) return;
    std::lock_guard<std::mutex> lock(mu_);
    names_.insert(StrCat(info->test_suite_name(), ".", info->name()));
  }
  size_t size() const {
    std::lock_guard<std::mutex> lock(mu_);
    return names_.size();
  }

 private:
  mutable std::mutex mu_;
  std::set<std::string> names_;
};

// The cases a device kernel refused as UNIMPLEMENTED, with how often (reported at exit).
class UnsupportedCases {
 public:
  static UnsupportedCases& Get() {
    static UnsupportedCases* const cases = new UnsupportedCases();
    return *cases;
  }
  void Add(const std::string& what) {
    std::lock_guard<std::mutex> lock(mu_);
    ++counts_[what];
  }
  std::map<std::string, int> counts() const {
    std::lock_guard<std::mutex> lock(mu_);
    return counts_;
  }

 private:
  mutable std::mutex mu_;
  std::map<std::string, int> counts_;
};

// A node's CPU run against its device run: statuses, outputs and variables (pairs of the
// CPU run's slot and the device run's own copy of it).
// `inputs` describes the node's inputs for the messages (InputsDescription).
inline void CompareDeviceRun(const Operation& node, const std::string& device,
                             const std::string& inputs, const Status& cpu_status,
                             const std::vector<Tensor>& cpu_outputs, const Status& dev_status,
                             const std::vector<Tensor>& dev_outputs,
                             const std::vector<std::pair<VariableSlot*, VariableSlot*>>& slots) {
  const std::string where = StrCat("device conformance: ", node.type(), " node '", node.name(),
                                   "' on ", inputs, ": ");
  if (dev_status.code() == Code::kUnimplemented && cpu_status.code() != Code::kUnimplemented &&
      !ConformanceStrict()) {
    // The device's kernel does not take this case (an attr value, a layout): like a node
    // without a device kernel, nothing to compare. Listed at exit (UnsupportedCases).
    UnsupportedCases::Get().Add(StrCat(node.type(), ": ", WithoutShapes(dev_status.message())));
    return;
  }
  if (cpu_status.code() == Code::kUnimplemented && dev_status.ok()) {
    // The device does more than the CPU here (Conv2D in NCHW): nothing to compare with.
    UnsupportedCases::Get().Add(StrCat(node.type(), " (device only): ",
                                       WithoutShapes(cpu_status.message())));
    return;
  }
  if (cpu_status.code() != dev_status.code()) {
    ADD_FAILURE() << where << "CPU gives " << cpu_status.ToString() << "\n  " << device
                  << " gives " << dev_status.ToString();
    return;
  }
  if (!cpu_status.ok()) return;
  if (cpu_outputs.size() != dev_outputs.size()) {
    ADD_FAILURE() << where << "CPU gives " << cpu_outputs.size() << " outputs, " << device
                  << " gives " << dev_outputs.size();
    return;
  }
  for (size_t i = 0; i < cpu_outputs.size(); ++i) {
    CompareDeviceValue(node, device, StrCat("output ", i, " (inputs ", inputs, ")"), cpu_outputs[i],
                       dev_outputs[i]);
  }
  for (const auto& [cpu_slot, dev_slot] : slots) {
    if (cpu_slot->initialized != dev_slot->initialized) {
      ADD_FAILURE() << where << "variable " << cpu_slot->name << " is "
                    << (cpu_slot->initialized ? "" : "not ") << "initialized after the CPU run, "
                    << (dev_slot->initialized ? "" : "not ") << "after the " << device << " run";
    } else if (cpu_slot->initialized) {
      CompareDeviceValue(node, device, StrCat("variable ", cpu_slot->name, " (inputs ", inputs, ")"),
                         cpu_slot->value, dev_slot->value);
    }
  }
}

// A host tensor with its own copy of `t`'s bytes (the CPU run may write a variable in place).
inline Tensor DeepCopy(const Tensor& t) {
  if (!IsPlainDataType(t.dtype()) || t.data() == nullptr) return t;
  Tensor copy = Tensor::AllocateUninitialized(t.dtype(), t.dims()).value();
  if (t.ByteSize() != 0) std::memcpy(copy.data(), t.data(), t.ByteSize());
  return copy;
}

}  // namespace tgraph::testing
