// Conversions between core types and their TensorFlow protos.
#pragma once

#include "core/base/shape.h"
#include "core/base/status.h"
#include "core/base/tensor.h"
#include "tgraph/proto/tensor.pb.h"
#include "tgraph/proto/tensor_shape.pb.h"

namespace tgraph {

void ShapeToProto(const PartialShape& shape, tf::TensorShapeProto* proto);
// INVALID_ARGUMENT for dims < -1 or dims with unknown_rank set.
StatusOr<PartialShape> ShapeFromProto(const tf::TensorShapeProto& proto);

// Writes tensor_content for plain dtypes and string_val for DT_STRING.
void TensorToProto(const Tensor& tensor, tf::TensorProto* proto);
// Accepts tensor_content or the typed *_val fields (a short typed field is padded with its
// last value, as TF does). INVALID_ARGUMENT on a size mismatch, bad dtype or bad shape,
// values in a field the dtype does not use, more values than elements, or padding that
// would allocate more than 2 GiB (a tiny proto must not ask for a huge tensor).
StatusOr<Tensor> TensorFromProto(const tf::TensorProto& proto);
// The checks of TensorFromProto without decoding (no allocation): OK iff TensorFromProto
// would succeed, short of running out of memory.
Status ValidateTensorProto(const tf::TensorProto& proto);

}  // namespace tgraph
