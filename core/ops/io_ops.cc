// Checkpoint ops with TensorFlow's signatures (so a TF MetaGraph's SaverDef runs here):
// SaveV2, RestoreV2 and MergeV2Checkpoints, whose kernels hand the work to the saver
// plugin the prefix selects (TG_CoreApi checkpoint services); ShardedFilename and
// ShardedFilespec, which name a sharded save's parts.
#include "core/ops/standard_ops.h"

namespace tgraph {
namespace {

// prefix: a scalar; tensor_names and shape_and_slices: vectors of one length.
Status CheckCheckpointArgs(InferenceContext& c, int count) {
  if (c.input_shape(0).known_rank() && c.input_shape(0).rank() != 0) {
    return c.Error("prefix must be a scalar, but has shape ", c.input_shape(0).ToString());
  }
  for (int i : {1, 2}) {
    const PartialShape& s = c.input_shape(i);
    if (s.known_rank() && s.rank() != 1) {
      return c.Error(i == 1 ? "tensor_names" : "shape_and_slices",
                     " must be a vector, but has shape ", s.ToString());
    }
    if (count >= 0 && s.known_rank() && s.dims()[0] >= 0 && s.dims()[0] != count) {
      return c.Error(i == 1 ? "tensor_names" : "shape_and_slices", " has ", s.dims()[0],
                     " entries for ", count, " tensors");
    }
  }
  return Status::OK();
}

Status SaveV2Shape(InferenceContext& c) {
  return CheckCheckpointArgs(c, c.num_inputs() - 3);
}

// Restored shapes are known only once the file is read.
Status RestoreV2Shape(InferenceContext& c) {
  TG_RETURN_IF_ERROR(CheckCheckpointArgs(c, c.num_outputs()));
  for (int i = 0; i < c.num_outputs(); ++i) c.set_output(i, PartialShape::Unknown());
  return Status::OK();
}

Status MergeShape(InferenceContext& c) {
  if (c.input_shape(0).known_rank() && c.input_shape(0).rank() != 1) {
    return c.Error("checkpoint_prefixes must be a vector, but has shape ",
                   c.input_shape(0).ToString());
  }
  if (c.input_shape(1).known_rank() && c.input_shape(1).rank() != 0) {
    return c.Error("destination_prefix must be a scalar, but has shape ",
                   c.input_shape(1).ToString());
  }
  return Status::OK();
}

// Every input a scalar; the output a string scalar.
Status ScalarsToScalar(InferenceContext& c) {
  for (int i = 0; i < c.num_inputs(); ++i) {
    if (c.input_shape(i).known_rank() && c.input_shape(i).rank() != 0) {
      return c.Error("input ", i, " must be a scalar, but has shape ",
                     c.input_shape(i).ToString());
    }
  }
  c.set_output(0, PartialShape::Scalar());
  return Status::OK();
}

}  // namespace

Status RegisterIoOps(OpRegistry* registry) {
  return RegisterOps(registry, {
      OpDefBuilder("SaveV2")
          .Input("prefix: string")
          .Input("tensor_names: string")
          .Input("shape_and_slices: string")
          .Input("tensors: dtypes")
          .Attr("dtypes: list(type)")
          .SetIsStateful()
          .SetShapeFn(SaveV2Shape)
          .Doc("Writes tensors under their names to the checkpoint at prefix (V2 format, or "
               "the saver plugin the prefix's extension selects)."),
      OpDefBuilder("RestoreV2")
          .Input("prefix: string")
          .Input("tensor_names: string")
          .Input("shape_and_slices: string")
          .Output("tensors: dtypes")
          .Attr("dtypes: list(type)")
          .SetIsStateful()
          .SetShapeFn(RestoreV2Shape)
          .Doc("Reads the named tensors of the checkpoint at prefix."),
      OpDefBuilder("MergeV2Checkpoints")
          .Input("checkpoint_prefixes: string")
          .Input("destination_prefix: string")
          .Attr("delete_old_dirs: bool = true")
          .Attr("allow_missing_files: bool = false")
          .SetIsStateful()
          .SetShapeFn(MergeShape)
          .Doc("Merges the checkpoints of a sharded save into one at destination_prefix."),
      OpDefBuilder("ShardedFilename")
          .Input("basename: string")
          .Input("shard: int32")
          .Input("num_shards: int32")
          .Output("filename: string")
          .SetShapeFn(ScalarsToScalar)
          .Doc("\"<basename>-<shard>-of-<num_shards>\", both numbers five digits wide."),
      OpDefBuilder("ShardedFilespec")
          .Input("basename: string")
          .Input("num_shards: int32")
          .Output("filename: string")
          .SetShapeFn(ScalarsToScalar)
          .Doc("\"<basename>-?????"  // split: "??-" would be a trigraph
               "-of-<num_shards>\": a glob of a sharded file's parts."),
  });
}

}  // namespace tgraph
