// TF1 dataflow control flow as the executor sees it: which operations move values and
// deadness between branches, frames and iterations instead of computing. The executor runs
// these itself (core/exec/control_flow_executor.cc), on whatever device placement picks:
// they only forward a value (and a Merge's int32 index), so no plugin kernel is needed.
#pragma once

#include <cstdint>
#include <string_view>

#include "core/graph/operation.h"

namespace tgraph {

enum class ControlFlowKind : uint8_t {
  kNone,            // an ordinary operation
  kSwitch,          // Switch, RefSwitch: data to output[pred], the other output dead
  kMerge,           // Merge, RefMerge: the first live input, and its index
  kEnter,           // Enter, RefEnter: into the child frame `frame_name`
  kExit,            // Exit, RefExit: back to the parent frame
  kNextIteration,   // NextIteration, RefNextIteration: to the next iteration (a back edge)
  kLoopCond,        // forwards the loop predicate
  kControlTrigger,  // runs even when its inputs are dead; has no outputs
};

ControlFlowKind ControlFlowKindOfType(std::string_view op_type);
inline ControlFlowKind ControlFlowKindOf(const Operation& op) { return ControlFlowKindOfType(op.type()); }

inline bool IsControlFlowOp(const Operation& op) {
  return ControlFlowKindOf(op) != ControlFlowKind::kNone;
}

// A data edge producer -> consumer that closes a loop: NextIteration into Merge. Pruning and
// ordering leave these out; every other cycle is an error.
inline bool IsLoopBackEdge(const Operation& producer, const Operation& consumer) {
  return ControlFlowKindOf(producer) == ControlFlowKind::kNextIteration &&
         ControlFlowKindOf(consumer) == ControlFlowKind::kMerge;
}

}  // namespace tgraph
