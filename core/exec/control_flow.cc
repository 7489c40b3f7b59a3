#include "core/exec/control_flow.h"

#include <string_view>

namespace tgraph {

ControlFlowKind ControlFlowKindOfType(std::string_view op_type) {
  std::string_view t = op_type;
  // Most operations are none of these: one length test and a character rule most out.
  if (t.size() < 4 || t.size() > 16) return ControlFlowKind::kNone;
  if (t.starts_with("Ref")) t.remove_prefix(3);
  if (t == "Switch") return ControlFlowKind::kSwitch;
  if (t == "Merge") return ControlFlowKind::kMerge;
  if (t == "Enter") return ControlFlowKind::kEnter;
  if (t == "Exit") return ControlFlowKind::kExit;
  if (t == "NextIteration") return ControlFlowKind::kNextIteration;
  if (op_type == "LoopCond") return ControlFlowKind::kLoopCond;
  if (op_type == "ControlTrigger") return ControlFlowKind::kControlTrigger;
  return ControlFlowKind::kNone;
}

}  // namespace tgraph
