// Tensors of 2^31 elements or more, which the device kernels cannot index (they count in
// ints): a node whose input or output the graph already knows to be that large is declined
// by the device's kernel when it is created (plugin ABI 8's static shapes,
// plugins/device_common/int_sized.h) and placed on the CPU, with copies inserted, instead of
// failing at run time. Nothing that large is ever allocated here: the huge Fill waits on an
// Assert that fails, so the run stops before it, after the plan (and the placement, which the
// session logs) was made. Sizes known only at run time still reach the device kernel, which
// refuses them with UNIMPLEMENTED naming the node (not tested: it would need 8 GiB).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "device_test_util.h"

namespace {

using devtest::Builder;
using devtest::kCpu;
using devtest::kGpu;

class HugeShapesTest : public devtest::DeviceTest {};

// `type` on `device` with `inputs` and an optional control input.
TG_Output OpOn(Builder& b, const char* type, const char* name, const char* device,
               const std::vector<TG_Output>& inputs, TG_Operation* after = nullptr) {
  TG_Status* s = TG_NewStatus();
  TG_OperationDescription* d = TG_NewOperation(b.graph(), type, name);
  for (const TG_Output& in : inputs) TG_AddInput(d, in);
  if (after != nullptr) TG_AddControlInput(d, after);
  TG_SetDevice(d, device);
  TG_Operation* op = TG_FinishOperation(d, s);
  EXPECT_EQ(TG_GetCode(s), TG_OK) << type << ": " << TG_Message(s);
  TG_DeleteStatus(s);
  return TG_Output{op, 0};
}

TEST_F(HugeShapesTest, AStaticallyHugeNodeIsPlacedOnTheCpu) {
  Builder b(kGpu);
  const TG_Output x = b.Feed({}, {1.0f});
  const TG_Output ok = b.FeedBool({}, {false});
  // Assert(false) on the CPU: the run fails there, before anything waiting on it.
  TG_Status* s = TG_NewStatus();
  TG_OperationDescription* d = TG_NewOperation(b.graph(), "Assert", "stop_here");
  TG_AddInput(d, ok);
  TG_AddInputList(d, &x, 1);
  TG_SetDevice(d, kCpu);
  TG_Operation* stop = TG_FinishOperation(d, s);
  ASSERT_EQ(TG_GetCode(s), TG_OK) << TG_Message(s);
  // [65536, 32768]: 2^31 floats (8 GiB), one past what an int counts; its Sum takes it as input.
  const TG_Output huge =
      OpOn(b, "Fill", "fill_huge", kGpu, {b.HostInts({2}, {65536, 32768}), x}, stop);
  const TG_Output sum = OpOn(b, "Sum", "sum_huge", kGpu, {huge, b.HostInts({2}, {0, 1})});
  const TG_Output neg = OpOn(b, "Neg", "neg_small", kGpu, {sum});
  // Small tensors of the same ops stay on the device: the decline is by size only.
  const TG_Output small = OpOn(b, "Fill", "fill_small", kGpu, {b.HostInts({2}, {2, 3}), x}, stop);
  const TG_Output add = OpOn(b, "Add", "add_small", kGpu, {small, small});

  TG_SessionOptions* opts = TG_NewSessionOptions();
  TG_SetSessionAllowSoftPlacement(opts, 1);
  TG_SetSessionLogDevicePlacement(opts, 1);
  TG_Session* session = TG_NewSession(b.graph(), opts, s);
  ASSERT_EQ(TG_GetCode(s), TG_OK) << TG_Message(s);
  devtest::RunResult r;
  const std::string log = devtest::CapturingStderr([&] { r = b.RunIn(session, {neg, add}); });
  // The run stops at the Assert (so nothing huge was allocated), after placement.
  EXPECT_EQ(r.code, TG_INVALID_ARGUMENT) << r.message;
  EXPECT_NE(r.message.find("stop_here"), std::string::npos) << r.message;
  auto placed = [&](const std::string& node, const std::string& type, const char* device) {
    const std::string line = node + " (" + type + "): " + device + "\n";
    EXPECT_NE(log.find(line), std::string::npos) << "expected \"" << line << "\" in:\n" << log;
  };
  placed("fill_huge", "Fill", kCpu);   // its output has 2^31 elements
  placed("sum_huge", "Sum", kCpu);     // its input has
  placed("neg_small", "Neg", kGpu);    // a scalar: back on the device, with a copy
  placed("fill_small", "Fill", kGpu);
  placed("add_small", "Add", kGpu);
  TG_DeleteSession(session, s);
  TG_DeleteSessionOptions(opts);
  TG_DeleteStatus(s);
}

}  // namespace
