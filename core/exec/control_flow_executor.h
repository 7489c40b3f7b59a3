// The frame executor: runs plans whose fragment holds TF1 control flow, with TensorFlow's
// semantics.
//
// - Every value carries liveness. A Switch sends its data to output[pred]; the other output
//   is dead. A step with a dead data input, or a control input from a dead step, is dead:
//   it does not run and its outputs are dead. A Merge is the exception: it forwards the
//   first live data input (and its index) and is dead only when every data input is.
//   A ControlTrigger always runs.
// - Loops are frames. An Enter makes a value available in iteration 0 of its child frame
//   (is_constant: in every iteration); NextIteration passes a value to the next
//   iteration; Exit hands a live value to the parent frame (a dead Exit of the last
//   iteration makes its consumers dead when the frame ends). Each iteration has its own
//   pending counts and input values; at most `parallel_iterations` iterations of a frame
//   are in flight, and a NextIteration beyond that waits for the oldest to finish.
// - The run ends when nothing is ready. A fetched tensor that is dead (or never produced)
//   has no value: Session::Run then fails with INVALID_ARGUMENT naming it.
//
// Steps run one at a time on the calling thread, in a deterministic order (kernels may
// still use the intra-op pool). Pending counts follow TensorFlow's executor: a Merge waits
// for two per control input plus one live data input, everything else for every input.
#pragma once

#include "core/base/status.h"
#include "core/exec/executor.h"

namespace tgraph {

// Runs a plan with `control_flow` set. Fetched slots hold their values afterwards (a dead
// fetch leaves its slot empty); every other slot is empty.
Status ExecuteControlFlow(const ExecuteArgs& args);

}  // namespace tgraph
