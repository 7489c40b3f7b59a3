// Summary ops (TensorFlow's logging_ops): each produces a serialized Summary proto as a
// string scalar, which a FileWriter writes to an event file for TensorBoard.
#include "core/ops/standard_ops.h"

namespace tgraph {

Status RegisterLoggingOps(OpRegistry* registry) {
  return RegisterOps(registry, {
      OpDefBuilder("ScalarSummary")
          .Input("tags: string")
          .Input("values: T")
          .Output("summary: string")
          .Attr("T: realnumbertype")
          .SetShapeFn(shape_fns::ScalarShape)
          .Doc("A Summary with one simple_value per element of values, tagged by tags (the "
               "same shape)."),
      OpDefBuilder("HistogramSummary")
          .Input("tag: string")
          .Input("values: T")
          .Output("summary: string")
          .Attr("T: realnumbertype = DT_FLOAT")
          .SetShapeFn(shape_fns::ScalarShape)
          .Doc("A Summary with a histogram of values (TensorFlow's buckets)."),
      OpDefBuilder("MergeSummary")
          .Input("inputs: N * string")
          .Output("summary: string")
          .Attr("N: int >= 1")
          .SetShapeFn(shape_fns::ScalarShape)
          .Doc("The union of the values of serialized Summary protos; a tag used twice is "
               "an error."),
  });
}

}  // namespace tgraph
