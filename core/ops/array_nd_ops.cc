// Index ops frozen TF models use: GatherNd, ScatterNd, TensorScatterUpdate, SparseToDense,
// and TopKV2. Signatures, attrs and defaults are TensorFlow's (bad_indices_policy, Tk and
// index_type arrived after TF 1.x: with their defaults, older GraphDefs import too).
#include <string>
#include <vector>

#include "core/ops/standard_ops.h"

namespace tgraph {
namespace {

using shape_fns::ConstInts;

constexpr int64_t kUnknown = PartialShape::kUnknownDim;

// GatherNd: indices [..., K] pick K-dim slices of params: indices[:-1] + params[K:].
Status GatherNdShape(InferenceContext& c) {
  const PartialShape& params = c.input_shape(0);
  const PartialShape& indices = c.input_shape(1);
  if (indices.known_rank() && indices.rank() < 1) {
    return c.Error("indices must be at least a vector, but has shape ", indices.ToString());
  }
  if (!params.known_rank() || !indices.known_rank() || indices.dim(indices.rank() - 1) < 0) {
    c.set_output(0, PartialShape::Unknown());
    return Status::OK();
  }
  const int64_t k = indices.dim(indices.rank() - 1);
  if (k > params.rank()) {
    return c.Error("indices.shape[-1] (", k, ") must be <= the rank of params (",
                   params.rank(), ")");
  }
  std::vector<int64_t> dims(indices.dims().begin(), indices.dims().end() - 1);
  for (int d = static_cast<int>(k); d < params.rank(); ++d) dims.push_back(params.dim(d));
  c.set_output(0, PartialShape(std::move(dims)));
  return Status::OK();
}

// Checks updates against indices [..., K] and the target shape: updates must be
// indices[:-1] + shape[K:] where known.
Status CheckUpdates(const InferenceContext& c, const PartialShape& indices,
                    const PartialShape& updates, const PartialShape& shape) {
  if (!indices.known_rank() || !updates.known_rank() || !shape.known_rank()) return Status::OK();
  if (indices.rank() < 1) {
    return c.Error("indices must be at least a vector, but has shape ", indices.ToString());
  }
  const int64_t k = indices.dim(indices.rank() - 1);
  if (k < 0) return Status::OK();
  if (k > shape.rank()) {
    return c.Error("indices.shape[-1] (", k, ") must be <= the rank of the output (",
                   shape.rank(), ")");
  }
  std::vector<int64_t> want(indices.dims().begin(), indices.dims().end() - 1);
  for (int d = static_cast<int>(k); d < shape.rank(); ++d) want.push_back(shape.dim(d));
  PartialShape merged;
  if (!updates.Merge(PartialShape(want), &merged).ok()) {
    return c.Error("updates must have shape ", PartialShape(want).ToString(),
                   " (indices ", indices.ToString(), ", output ", shape.ToString(),
                   "), but has shape ", updates.ToString());
  }
  return Status::OK();
}

// A shape given as a constant vector input (or a rank from its length).
PartialShape ShapeFromInput(const InferenceContext& c, int i) {
  auto v = ConstInts(c, i);
  if (v) return PartialShape(*v);
  const PartialShape& s = c.input_shape(i);
  if (s.known_rank() && s.rank() == 1 && s.dim(0) >= 0) {
    return PartialShape::UnknownOfRank(static_cast<int>(s.dim(0)));
  }
  return PartialShape::Unknown();
}

Status ScatterNdShape(InferenceContext& c) {
  const PartialShape shape = ShapeFromInput(c, 2);
  TG_RETURN_IF_ERROR(CheckUpdates(c, c.input_shape(0), c.input_shape(1), shape));
  c.set_output(0, shape);
  return Status::OK();
}

Status TensorScatterUpdateShape(InferenceContext& c) {
  TG_RETURN_IF_ERROR(CheckUpdates(c, c.input_shape(1), c.input_shape(2), c.input_shape(0)));
  c.set_output(0, c.input_shape(0));
  return Status::OK();
}

// SparseToDense(sparse_indices, output_shape, sparse_values, default_value).
Status SparseToDenseShape(InferenceContext& c) {
  const PartialShape& def = c.input_shape(3);
  if (def.known_rank() && def.rank() != 0) {
    return c.Error("default_value must be a scalar, but has shape ", def.ToString());
  }
  c.set_output(0, ShapeFromInput(c, 1));
  return Status::OK();
}

// TopKV2: input [..., n] and a scalar k -> values and indices [..., k].
Status TopKShape(InferenceContext& c) {
  const PartialShape& input = c.input_shape(0);
  if (input.known_rank() && input.rank() < 1) {
    return c.Error("input must have rank >= 1, but has shape ", input.ToString());
  }
  const PartialShape& k_shape = c.input_shape(1);
  if (k_shape.known_rank() && k_shape.rank() != 0) {
    return c.Error("k must be a scalar, but has shape ", k_shape.ToString());
  }
  auto k = ConstInts(c, 1);
  PartialShape out = PartialShape::Unknown();
  if (input.known_rank()) {
    std::vector<int64_t> dims = input.dims();
    const int64_t n = dims.back();
    if (k) {
      if ((*k)[0] < 0) return c.Error("k must be non-negative, got ", (*k)[0]);
      if (n >= 0 && (*k)[0] > n) {
        return c.Error("input must have at least k = ", (*k)[0],
                       " columns, but has shape ", input.ToString());
      }
      dims.back() = (*k)[0];
    } else {
      dims.back() = kUnknown;
    }
    out = PartialShape(std::move(dims));
  }
  c.set_output(0, out);
  c.set_output(1, out);
  return Status::OK();
}

}  // namespace

Status RegisterArrayNdOps(OpRegistry* registry) {
  return RegisterOps(registry, {
      OpDefBuilder("GatherNd")
          .Input("params: Tparams").Input("indices: Tindices").Output("output: Tparams")
          .Attr("Tparams: type")
          .Attr("Tindices: {int16, int32, int64}")
          .Attr("bad_indices_policy: string = ''")
          .NewerThanTf1("bad_indices_policy")
          .SetShapeFn(GatherNdShape)
          .Doc("Slices of params picked by the index vectors in indices' last dimension."),
      OpDefBuilder("ScatterNd")
          .Input("indices: Tindices").Input("updates: T").Input("shape: Tindices")
          .Output("output: T")
          .Attr("T: type")
          .Attr("Tindices: {int16, int32, int64}")
          .Attr("bad_indices_policy: string = ''")
          .NewerThanTf1("bad_indices_policy")
          .SetShapeFn(ScatterNdShape)
          .Doc("Zeros of shape with updates added at indices (duplicates sum)."),
      OpDefBuilder("TensorScatterUpdate")
          .Input("tensor: T").Input("indices: Tindices").Input("updates: T")
          .Output("output: T")
          .Attr("T: type")
          .Attr("Tindices: {int16, int32, int64, uint16}")
          .Attr("bad_indices_policy: string = ''")
          .NewerThanTf1("bad_indices_policy")
          .SetShapeFn(TensorScatterUpdateShape)
          .Doc("A copy of tensor with the slices at indices replaced by updates."),
      OpDefBuilder("SparseToDense")
          .Input("sparse_indices: Tindices").Input("output_shape: Tindices")
          .Input("sparse_values: T").Input("default_value: T")
          .Output("dense: T")
          .Attr("validate_indices: bool = true")
          .Attr("T: type")
          .Attr("Tindices: {int32, int64}")
          .SetShapeFn(SparseToDenseShape)
          .Doc("A dense tensor of output_shape: sparse_values at sparse_indices, "
               "default_value elsewhere."),
      OpDefBuilder("TopKV2")
          .Input("input: T").Input("k: Tk")
          .Output("values: T").Output("indices: index_type")
          .Attr("sorted: bool = true")
          .Attr("T: realnumbertype")
          .Attr("Tk: {int16, int32, int64} = DT_INT32")
          .Attr("index_type: {int16, int32, int64} = DT_INT32")
          .NewerThanTf1("Tk")
          .NewerThanTf1("index_type")
          .SetShapeFn(TopKShape)
          .Doc("The k largest entries of each last-dimension row, and their indices (ties "
               "go to the lower index)."),
  });
}

}  // namespace tgraph
