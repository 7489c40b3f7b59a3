// TensorArray (TF1's TensorArrayV3 family, a DT_RESOURCE handle with reference semantics),
// Stack (StackV2 family: TF1's gradients of while loops keep forward values on them) and
// TensorList (TF2's lowered loops, a DT_VARIANT value) ops, with TensorFlow's names,
// arg names and attrs. The core runs their kernels (core/exec/list_kernels.h): the values
// they pass around are objects (core/exec/host_object.h), not elements a plugin could hold.
#include "core/ops/standard_ops.h"

namespace tgraph {
namespace {

// An element_shape input (TensorList ops): a known constant gives the shape (a scalar -1:
// unknown rank; -1 dims: unknown), anything else an unknown shape.
PartialShape ShapeFromInput(const InferenceContext& c, int i) {
  auto v = shape_fns::ConstInts(c, i);
  if (!v.has_value() || (c.input_shape(i).known_rank() && c.input_shape(i).rank() == 0)) {
    return PartialShape::Unknown();
  }
  for (int64_t& d : *v) {
    if (d < 0) d = PartialShape::kUnknownDim;
  }
  return PartialShape(std::move(*v));
}

// [leading] + elem, or unknown when elem's rank is unknown.
PartialShape Prepend(int64_t leading, const PartialShape& elem) {
  if (!elem.known_rank()) return PartialShape::Unknown();
  std::vector<int64_t> dims{leading};
  for (int i = 0; i < elem.rank(); ++i) dims.push_back(elem.dim(i));
  return PartialShape(std::move(dims));
}

Status HandleShape(InferenceContext& c) {
  c.set_output(0, PartialShape({2}));
  return Status::OK();
}

Status HandleAndFlowShape(InferenceContext& c) {
  c.set_output(0, PartialShape({2}));
  c.set_output(1, PartialShape::Scalar());
  return Status::OK();
}

Status AllScalarShape(InferenceContext& c) {
  for (int i = 0; i < c.num_outputs(); ++i) c.set_output(i, PartialShape::Scalar());
  return Status::OK();
}

Status GatherShape(InferenceContext& c) {
  PartialShape elem;
  TG_RETURN_IF_ERROR(c.GetAttr("element_shape", &elem));
  const PartialShape& idx = c.input_shape(1);
  c.set_output(0, Prepend(idx.known_rank() && idx.rank() == 1 ? idx.dim(0) : PartialShape::kUnknownDim, elem));
  return Status::OK();
}

Status ConcatShape(InferenceContext& c) {
  PartialShape elem;
  TG_RETURN_IF_ERROR(c.GetAttr("element_shape_except0", &elem));
  c.set_output(0, Prepend(PartialShape::kUnknownDim, elem));
  c.set_output(1, PartialShape({PartialShape::kUnknownDim}));
  return Status::OK();
}

Status ListGetItemShape(InferenceContext& c) {
  c.set_output(0, ShapeFromInput(c, 2));
  return Status::OK();
}

Status ListStackShape(InferenceContext& c) {
  int64_t n = -1;
  TG_RETURN_IF_ERROR(c.GetAttr("num_elements", &n));
  c.set_output(0, Prepend(n >= 0 ? n : PartialShape::kUnknownDim, ShapeFromInput(c, 1)));
  return Status::OK();
}

Status ListGatherShape(InferenceContext& c) {
  const PartialShape& idx = c.input_shape(1);
  c.set_output(0, Prepend(idx.known_rank() && idx.rank() == 1 ? idx.dim(0) : PartialShape::kUnknownDim,
                          ShapeFromInput(c, 2)));
  return Status::OK();
}

Status ListElementShapeShape(InferenceContext& c) {
  c.set_output(0, PartialShape::Unknown());
  return Status::OK();
}

Status PopBackShape(InferenceContext& c) {
  c.set_output(0, PartialShape::Scalar());
  c.set_output(1, ShapeFromInput(c, 1));
  return Status::OK();
}

}  // namespace

Status RegisterListOps(OpRegistry* registry) {
  return RegisterOps(registry, {
      // ---- TensorArray (TF1) ----
      OpDefBuilder("TensorArrayV3")
          .Input("size: int32")
          .Output("handle: resource")
          .Output("flow: float")
          .Attr("dtype: type")
          .Attr("element_shape: shape = { unknown_rank: true }")
          .Attr("dynamic_size: bool = false")
          .Attr("clear_after_read: bool = true")
          .Attr("identical_element_shapes: bool = false")
          .Attr("tensor_array_name: string = ''")
          .SetIsStateful()
          .SetShapeFn(HandleAndFlowShape)
          .Doc("An array of tensors of `size` elements; `flow` orders the ops that use it."),
      OpDefBuilder("TensorArrayWriteV3")
          .Input("handle: resource")
          .Input("index: int32")
          .Input("value: T")
          .Input("flow_in: float")
          .Output("flow_out: float")
          .Attr("T: type")
          .SetIsStateful()
          .SetShapeFn(AllScalarShape)
          .Doc("Writes `value` at `index`."),
      OpDefBuilder("TensorArrayReadV3")
          .Input("handle: resource")
          .Input("index: int32")
          .Input("flow_in: float")
          .Output("value: dtype")
          .Attr("dtype: type")
          .SetIsStateful()
          .SetShapeFn(shape_fns::UnknownShape)
          .Doc("Reads the element at `index`."),
      OpDefBuilder("TensorArrayGatherV3")
          .Input("handle: resource")
          .Input("indices: int32")
          .Input("flow_in: float")
          .Output("value: dtype")
          .Attr("dtype: type")
          .Attr("element_shape: shape = { unknown_rank: true }")
          .SetIsStateful()
          .SetShapeFn(GatherShape)
          .Doc("The elements at `indices`, stacked."),
      OpDefBuilder("TensorArrayScatterV3")
          .Input("handle: resource")
          .Input("indices: int32")
          .Input("value: T")
          .Input("flow_in: float")
          .Output("flow_out: float")
          .Attr("T: type")
          .SetIsStateful()
          .SetShapeFn(AllScalarShape)
          .Doc("Writes value[i] at indices[i]."),
      OpDefBuilder("TensorArraySizeV3")
          .Input("handle: resource")
          .Input("flow_in: float")
          .Output("size: int32")
          .SetIsStateful()
          .SetShapeFn(AllScalarShape)
          .Doc("The number of elements."),
      OpDefBuilder("TensorArrayCloseV3")
          .Input("handle: resource")
          .SetIsStateful()
          .SetShapeFn(shape_fns::UnknownShape)
          .Doc("Frees the elements."),
      OpDefBuilder("TensorArrayConcatV3")
          .Input("handle: resource")
          .Input("flow_in: float")
          .Output("value: dtype")
          .Output("lengths: int64")
          .Attr("dtype: type")
          .Attr("element_shape_except0: shape = { unknown_rank: true }")
          .SetIsStateful()
          .SetShapeFn(ConcatShape)
          .Doc("Every element concatenated along dim 0, and each one's length."),
      OpDefBuilder("TensorArraySplitV3")
          .Input("handle: resource")
          .Input("value: T")
          .Input("lengths: int64")
          .Input("flow_in: float")
          .Output("flow_out: float")
          .Attr("T: type")
          .SetIsStateful()
          .SetShapeFn(AllScalarShape)
          .Doc("Splits `value` along dim 0 into elements of `lengths` rows."),
      OpDefBuilder("TensorArrayGradV3")
          .Input("handle: resource")
          .Input("flow_in: float")
          .Output("grad_handle: resource")
          .Output("flow_out: float")
          .Attr("source: string")
          .SetIsStateful()
          .SetShapeFn(HandleAndFlowShape)
          .Doc("The gradient array of `handle` for `source` (made on first use; writes add)."),
      // ---- Stack (TF1) ----
      OpDefBuilder("StackV2")
          .Input("max_size: int32")
          .Output("handle: resource")
          .Attr("elem_type: type")
          .Attr("stack_name: string = ''")
          .SetIsStateful()
          .SetShapeFn(HandleShape)
          .Doc("A stack of at most `max_size` elements (no limit when negative)."),
      OpDefBuilder("StackPushV2")
          .Input("handle: resource")
          .Input("elem: T")
          .Output("output: T")
          .Attr("T: type")
          .Attr("swap_memory: bool = false")
          .SetIsStateful()
          .SetShapeFn([](InferenceContext& c) {
            c.set_output(0, c.input_shape(1));
            return Status::OK();
          })
          .Doc("Pushes `elem` and passes it on."),
      OpDefBuilder("StackPopV2")
          .Input("handle: resource")
          .Output("elem: elem_type")
          .Attr("elem_type: type")
          .SetIsStateful()
          .SetShapeFn(shape_fns::UnknownShape)
          .Doc("Pops the element pushed last."),
      OpDefBuilder("StackCloseV2")
          .Input("handle: resource")
          .SetIsStateful()
          .SetShapeFn(shape_fns::UnknownShape)
          .Doc("Frees the elements."),
      // ---- TensorList (TF2) ----
      OpDefBuilder("TensorListReserve")
          .Input("element_shape: shape_type")
          .Input("num_elements: int32")
          .Output("handle: variant")
          .Attr("element_dtype: type")
          .Attr("shape_type: {int32, int64}")
          .SetShapeFn(AllScalarShape)
          .Doc("A list of `num_elements` unset elements."),
      OpDefBuilder("EmptyTensorList")
          .Input("element_shape: shape_type")
          .Input("max_num_elements: int32")
          .Output("handle: variant")
          .Attr("element_dtype: type")
          .Attr("shape_type: {int32, int64}")
          .SetShapeFn(AllScalarShape)
          .Doc("An empty list."),
      OpDefBuilder("TensorListFromTensor")
          .Input("tensor: element_dtype")
          .Input("element_shape: shape_type")
          .Output("output_handle: variant")
          .Attr("element_dtype: type")
          .Attr("shape_type: {int32, int64}")
          .SetShapeFn(AllScalarShape)
          .Doc("A list of the rows of `tensor`."),
      OpDefBuilder("TensorListSetItem")
          .Input("input_handle: variant")
          .Input("index: int32")
          .Input("item: element_dtype")
          .Output("output_handle: variant")
          .Attr("element_dtype: type")
          .Attr("resize_if_index_out_of_bounds: bool = false")
          .SetShapeFn(AllScalarShape)
          .Doc("The list with element `index` set to `item`."),
      OpDefBuilder("TensorListGetItem")
          .Input("input_handle: variant")
          .Input("index: int32")
          .Input("element_shape: Tshape")
          .Output("item: element_dtype")
          .Attr("element_dtype: type")
          .Attr("Tshape: {int32, int64} = DT_INT32")
          .SetShapeFn(ListGetItemShape)
          .Doc("Element `index` (zeros of the element shape when it is unset)."),
      OpDefBuilder("TensorListStack")
          .Input("input_handle: variant")
          .Input("element_shape: int32")
          .Output("tensor: element_dtype")
          .Attr("element_dtype: type")
          .Attr("num_elements: int = -1")
          .SetShapeFn(ListStackShape)
          .Doc("The elements stacked along a new dim 0."),
      OpDefBuilder("TensorListGather")
          .Input("input_handle: variant")
          .Input("indices: int32")
          .Input("element_shape: int32")
          .Output("values: element_dtype")
          .Attr("element_dtype: type")
          .SetShapeFn(ListGatherShape)
          .Doc("The elements at `indices`, stacked."),
      OpDefBuilder("TensorListLength")
          .Input("input_handle: variant")
          .Output("length: int32")
          .SetShapeFn(AllScalarShape)
          .Doc("The number of elements."),
      OpDefBuilder("TensorListElementShape")
          .Input("input_handle: variant")
          .Output("element_shape: shape_type")
          .Attr("shape_type: {int32, int64}")
          .SetShapeFn(ListElementShapeShape)
          .Doc("The list's element shape (-1 for unknown dims; a scalar -1 for unknown rank)."),
      OpDefBuilder("TensorListPushBack")
          .Input("input_handle: variant")
          .Input("tensor: element_dtype")
          .Output("output_handle: variant")
          .Attr("element_dtype: type")
          .SetShapeFn(AllScalarShape)
          .Doc("The list with `tensor` appended."),
      OpDefBuilder("TensorListPopBack")
          .Input("input_handle: variant")
          .Input("element_shape: int32")
          .Output("output_handle: variant")
          .Output("tensor: element_dtype")
          .Attr("element_dtype: type")
          .SetShapeFn(PopBackShape)
          .Doc("The list without its last element, and that element."),
      OpDefBuilder("TensorListScatter")
          .Input("tensor: element_dtype")
          .Input("indices: int32")
          .Input("element_shape: shape_type")
          .Output("output_handle: variant")
          .Attr("element_dtype: type")
          .Attr("shape_type: {int32, int64}")
          .SetShapeFn(AllScalarShape)
          .Doc("A list of max(indices) + 1 elements: row i of `tensor` at indices[i], the rest unset."),
      OpDefBuilder("TensorListScatterV2")
          .Input("tensor: element_dtype")
          .Input("indices: int32")
          .Input("element_shape: shape_type")
          .Input("num_elements: int32")
          .Output("output_handle: variant")
          .Attr("element_dtype: type")
          .Attr("shape_type: {int32, int64}")
          .SetShapeFn(AllScalarShape)
          .Doc("TensorListScatter into a list of num_elements elements (-1: max(indices) + 1)."),
      OpDefBuilder("TensorListScatterIntoExistingList")
          .Input("input_handle: variant")
          .Input("tensor: element_dtype")
          .Input("indices: int32")
          .Output("output_handle: variant")
          .Attr("element_dtype: type")
          .SetShapeFn(AllScalarShape)
          .Doc("The list with row i of `tensor` at indices[i] (grown to fit the largest index)."),
  });
}

}  // namespace tgraph
