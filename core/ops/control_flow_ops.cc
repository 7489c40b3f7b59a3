// Control-flow ops. For now only NoOp, the anchor for control dependencies (e.g. `init`).
#include "core/ops/standard_ops.h"

namespace tgraph {

Status RegisterControlFlowOps(OpRegistry* registry) {
  return RegisterOps(registry, {
      OpDefBuilder("NoOp").SetShapeFn(shape_fns::UnknownShape).Doc("Does nothing."),
  });
}

}  // namespace tgraph
