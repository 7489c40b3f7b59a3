#include "core/ops/standard_ops.h"

namespace tgraph {

Status RegisterOps(OpRegistry* registry, const std::vector<OpDefBuilder>& ops) {
  for (const OpDefBuilder& op : ops) TG_RETURN_IF_ERROR(registry->Register(op));
  return Status::OK();
}

Status RegisterStandardOps(OpRegistry* registry) {
  // Every family is tried, so one broken definition does not hide the others' ops.
  Status first;
  for (auto* family : {&RegisterArrayOps, &RegisterControlFlowOps, &RegisterMathOps,
                       &RegisterNnOps, &RegisterStateOps, &RegisterResourceVariableOps,
                       &RegisterRandomOps, &RegisterStatelessRandomOps, &RegisterGradHelperOps,
                       &RegisterArrayHelperOps, &RegisterNnBackpropOps,
                       &RegisterTrainingOps, &RegisterIoOps, &RegisterLoggingOps,
                       &RegisterStringOps, &RegisterArraySplitOps, &RegisterBatchNormOps,
                       &RegisterEinsumOps, &RegisterArrayLayoutOps, &RegisterArrayNdOps,
                       &RegisterImageOps, &RegisterImageCodecOps, &RegisterListOps,
                       &RegisterFusedOps,
                       &RegisterFunctionalOps, &RegisterMathMoreOps, &RegisterMatrixSegmentOps,
                       &RegisterArrayMiscOps, &RegisterDetectionPool3DOps,
                       &RegisterSpectralOps}) {
    Status s = family(registry);
    if (!s.ok() && first.ok()) first = s;
  }
  return first;
}

}  // namespace tgraph
