// The static side of running TF1 control flow: which frame (loop) every step of a plan runs
// in, and the edges along which values and deadness travel. Built once per plan, and only
// for plans whose fragment holds control-flow operations (core/exec/control_flow.h); the
// frame executor (control_flow_executor.h) keeps per-iteration state against it.
//
// Frames follow TensorFlow: the root frame is the run; an Enter's outputs are in the child
// frame named by its `frame_name` (one per (parent frame, name)); an Exit's outputs are in
// its frame's parent; every other step is in the frame of its inputs, which must agree.
// Steps without inputs are in the root frame (TF1 loop bodies give their constants a
// control input from the loop's pivot to keep them inside).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/base/status.h"
#include "core/exec/control_flow.h"

namespace tgraph {

class ExecutionPlan;

struct FlowEdge {
  int dst = 0;         // consumer step
  int dst_input = -1;  // its data input, or -1 for a control edge
  int src_output = 0;  // data edges: the producer's output
  bool last_use = false;  // the producer output's last data edge: its value can move
};

struct FlowStep {
  ControlFlowKind kind = ControlFlowKind::kNone;
  int frame = 0;       // static frame the step runs in
  int out_frame = 0;   // frame its outputs are in (Enter: the child, Exit: the parent)
  int local = 0;       // index among its frame's steps (pending counts per iteration)
  int input_base = 0;  // first of its input entries in its frame's per-iteration inputs
  int num_inputs = 0;  // data inputs
  bool constant_enter = false;   // Enter with is_constant: the value joins every iteration
  bool stores_fetch = false;     // an output is fetched (its out_frame is the root)
  bool uses_output1 = false;     // output 1 is read or fetched (a Merge's value_index)
  std::vector<FlowEdge> edges;   // out edges, data and control
};

struct FlowFrame {
  std::string name;  // "" for the root
  int parent = -1;
  int parallel_iterations = 1;  // iterations that may be in flight at once
  int num_enters = 0;           // Enter steps into it: its inputs from the parent
  int num_inputs = 0;           // input entries per iteration
  std::vector<int> initial_pending;  // per local step, at the start of each iteration
};

struct FlowFeedEdge {
  int slot = 0;  // the feed's slot
  int dst = 0;
  int dst_input = 0;
};

struct ControlFlowPlan {
  std::vector<FlowFrame> frames;   // [0] is the root
  std::vector<FlowStep> steps;     // per plan step
  std::vector<FlowFeedEdge> feed_edges;
  std::vector<int> root_sources;   // root-frame steps waiting on nothing
  int max_outputs = 0;             // of any step
};

// Frames, edges and pending counts for `plan` (steps, slots and fetches laid out).
// `slot_producer`: per slot, its step or -1 for a feed; `step_of_op`: per graph op id, its
// step or -1. INVALID_ARGUMENT naming the nodes for a step whose inputs come from different
// frames, an Exit or NextIteration outside a loop, and a fetch of a tensor inside a loop.
Status BuildControlFlowPlan(ExecutionPlan* plan, const std::vector<int>& slot_producer,
                            const std::vector<int>& step_of_op);

}  // namespace tgraph
