// Image resizing ops frozen models use (segmentation and detection heads, upsampling
// layers) and tf.image.resize_images' methods: ResizeBilinear, ResizeNearestNeighbor,
// ResizeBicubic and ResizeArea, with the gradients' ops. Signatures, attrs and defaults are
// TensorFlow's.
#include <string>
#include <vector>

#include "core/ops/standard_ops.h"

namespace tgraph {
namespace {

// images [N, H, W, C] and size, an int32 vector [new_height, new_width] -> [N, h, w, C].
Status ResizeShape(InferenceContext& c) {
  PartialShape images;
  TG_RETURN_IF_ERROR(c.WithRank(0, 4, &images));
  const PartialShape& size = c.input_shape(1);
  if (size.known_rank() && (size.rank() != 1 || (size.dim(0) >= 0 && size.dim(0) != 2))) {
    return c.Error("size must be a vector of 2 values, but has shape ", size.ToString());
  }
  std::vector<int64_t> dims = images.dims();
  dims[1] = dims[2] = PartialShape::kUnknownDim;
  if (auto v = shape_fns::ConstInts(c, 1); v && v->size() == 2) {
    if ((*v)[0] <= 0 || (*v)[1] <= 0) {
      return c.Error("size must be positive, got [", (*v)[0], ", ", (*v)[1], "]");
    }
    dims[1] = (*v)[0];
    dims[2] = (*v)[1];
  }
  c.set_output(0, PartialShape(std::move(dims)));
  return Status::OK();
}

// ResizeBilinearGrad and ResizeBicubicGrad: original_image's shape.
Status ResizeBilinearGradShape(InferenceContext& c) {
  PartialShape image;
  TG_RETURN_IF_ERROR(c.WithRank(1, 4, &image));
  c.set_output(0, image);
  return Status::OK();
}

// ResizeNearestNeighborGrad: grads [N, h, w, C] and size [H, W] -> [N, H, W, C].
Status ResizeNearestNeighborGradShape(InferenceContext& c) {
  PartialShape grads;
  TG_RETURN_IF_ERROR(c.WithRank(0, 4, &grads));
  std::vector<int64_t> dims = grads.dims();
  dims[1] = dims[2] = PartialShape::kUnknownDim;
  if (auto v = shape_fns::ConstInts(c, 1); v && v->size() == 2) {
    dims[1] = (*v)[0];
    dims[2] = (*v)[1];
  }
  c.set_output(0, PartialShape(std::move(dims)));
  return Status::OK();
}

}  // namespace

Status RegisterImageOps(OpRegistry* registry) {
  return RegisterOps(registry, {
      OpDefBuilder("ResizeBilinear")
          .Input("images: T").Input("size: int32").Output("resized_images: float")
          .Attr("T: {int8, uint8, int16, uint16, int32, int64, bfloat16, half, float, double}")
          .Attr("align_corners: bool = false")
          .Attr("half_pixel_centers: bool = false")
          .SetShapeFn(ResizeShape)
          .Doc("images resized to size by bilinear interpolation (float output)."),
      OpDefBuilder("ResizeNearestNeighbor")
          .Input("images: T").Input("size: int32").Output("resized_images: T")
          .Attr("T: {int8, uint8, int16, uint16, int32, int64, half, float, double, bfloat16}")
          .Attr("align_corners: bool = false")
          .Attr("half_pixel_centers: bool = false")
          .SetShapeFn(ResizeShape)
          .Doc("images resized to size by taking the nearest pixel."),
      OpDefBuilder("ResizeBicubic")
          .Input("images: T").Input("size: int32").Output("resized_images: float")
          .Attr("T: {int8, uint8, int16, uint16, int32, int64, half, float, double, bfloat16}")
          .Attr("align_corners: bool = false")
          .Attr("half_pixel_centers: bool = false")
          .SetShapeFn(ResizeShape)
          .Doc("images resized to size by bicubic interpolation (float output)."),
      OpDefBuilder("ResizeArea")
          .Input("images: T").Input("size: int32").Output("resized_images: float")
          .Attr("T: {int8, uint8, int16, uint16, int32, int64, half, float, double, bfloat16}")
          .Attr("align_corners: bool = false")
          .SetShapeFn(ResizeShape)
          .Doc("images resized to size, each output pixel the mean of the input area it "
               "covers (float output)."),
      OpDefBuilder("ResizeBicubicGrad")
          .Input("grads: float").Input("original_image: T").Output("output: T")
          .Attr("T: {float, double}")
          .Attr("align_corners: bool = false")
          .Attr("half_pixel_centers: bool = false")
          .SetShapeFn(ResizeBilinearGradShape)
          .Doc("The gradient of ResizeBicubic with respect to its images."),
      OpDefBuilder("ResizeBilinearGrad")
          .Input("grads: float").Input("original_image: T").Output("output: T")
          .Attr("T: {float, bfloat16, half, double}")
          .Attr("align_corners: bool = false")
          .Attr("half_pixel_centers: bool = false")
          .SetShapeFn(ResizeBilinearGradShape)
          .Doc("The gradient of ResizeBilinear with respect to its images."),
      OpDefBuilder("ResizeNearestNeighborGrad")
          .Input("grads: T").Input("size: int32").Output("output: T")
          .Attr("T: {uint8, int8, int32, half, float, double, bfloat16}")
          .Attr("align_corners: bool = false")
          .Attr("half_pixel_centers: bool = false")
          .SetShapeFn(ResizeNearestNeighborGradShape)
          .Doc("The gradient of ResizeNearestNeighbor: each output pixel's gradient added to "
               "the input pixel it copied."),
  });
}

}  // namespace tgraph
