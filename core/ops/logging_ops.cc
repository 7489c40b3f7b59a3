// TensorFlow's logging_ops: the summary ops, each producing a serialized Summary proto as a
// string scalar, which a FileWriter writes to an event file for TensorBoard; and Assert and
// Print, which TF1 graphs keep in frozen models (tf.debugging checks, tf.Print).
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
      OpDefBuilder("Assert")
          .Input("condition: bool")
          .Input("data: T")
          .Attr("T: list(type)")
          .Attr("summarize: int = 3")
          .SetIsStateful()
          .Doc("Fails the run (INVALID_ARGUMENT, with the first summarize entries of data) "
               "unless condition is true."),
      OpDefBuilder("Print")
          .Input("input: T")
          .Input("data: U")
          .Output("output: T")
          .Attr("T: type")
          .Attr("U: list(type) >= 0")
          .Attr("message: string = ''")
          .Attr("first_n: int = -1")
          .Attr("summarize: int = 3")
          .SetIsStateful()
          .SetShapeFn(shape_fns::UnchangedShape)
          .Doc("Returns input; prints message and data to standard error (the first first_n "
               "runs; all with -1)."),
  });
}

}  // namespace tgraph
