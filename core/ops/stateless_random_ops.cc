// TensorFlow's stateless random ops (tf.random.stateless_*, Keras initializers and dropout in
// TF 2.x graphs), with TensorFlow's signatures. Unlike random_ops.cc, the numbers are a pure
// function of the inputs (a seed pair, or an explicit Philox key/counter/algorithm for the V2
// ops) and match TensorFlow's bit for bit (plugins/cpu/stateless_random_ops.cc), so these ops
// are not stateful, except StatelessRandomGetAlg, which TensorFlow marks stateful (its answer
// depends on the device).
#include "core/ops/standard_ops.h"

namespace tgraph {
namespace {

// Input `i` must be a vector of length `len` (when known): "seed must have shape [2]".
Status VectorOfLength(InferenceContext& c, int i, int64_t len, const char* what) {
  const PartialShape& s = c.input_shape(i);
  if (!s.known_rank()) return Status::OK();
  if (s.rank() != 1 || (s.dim(0) >= 0 && s.dim(0) != len)) {
    return c.Error(what, " must have shape [", len, "], but has shape ", s.ToString());
  }
  return Status::OK();
}

Status ScalarInput(InferenceContext& c, int i, const char* what) {
  const PartialShape& s = c.input_shape(i);
  if (s.known_rank() && s.rank() != 0) {
    return c.Error(what, " must be a scalar, but has shape ", s.ToString());
  }
  return Status::OK();
}

// Output 0 has the shape given by the 1-D `shape` input (input 0).
Status OutputFromShapeInput(InferenceContext& c) {
  const PartialShape& s = c.input_shape(0);
  if (s.known_rank() && s.rank() != 1) {
    return c.Error("shape must be a vector, but has shape ", s.ToString());
  }
  if (auto dims = shape_fns::ConstInts(c, 0)) {
    for (size_t i = 0; i < dims->size(); ++i) {
      if ((*dims)[i] < 0) {
        return c.Error("shape[", i, "] = ", (*dims)[i], " must be non-negative");
      }
    }
    c.set_output(0, PartialShape(std::move(*dims)));
  } else if (s.known_rank() && s.dim(0) >= 0) {
    c.set_output(0, PartialShape::UnknownOfRank(static_cast<int>(s.dim(0))));
  } else {
    c.set_output(0, PartialShape::Unknown());
  }
  return Status::OK();
}

// V1: (shape, seed[2], extra scalars from input 2 on).
Status SeededShape(InferenceContext& c) {
  TG_RETURN_IF_ERROR(VectorOfLength(c, 1, 2, "seed"));
  for (int i = 2; i < c.num_inputs(); ++i) {
    TG_RETURN_IF_ERROR(ScalarInput(c, i, i == 2 ? "minval" : "maxval"));
  }
  return OutputFromShapeInput(c);
}

// V2: (shape, key[1], counter (a vector), alg (a scalar), extra scalars from input 4 on).
Status KeyCounterShape(InferenceContext& c) {
  TG_RETURN_IF_ERROR(VectorOfLength(c, 1, 1, "key"));
  const PartialShape& counter = c.input_shape(2);
  if (counter.known_rank() && counter.rank() != 1) {
    return c.Error("counter must be a vector, but has shape ", counter.ToString());
  }
  TG_RETURN_IF_ERROR(ScalarInput(c, 3, "alg"));
  for (int i = 4; i < c.num_inputs(); ++i) {
    TG_RETURN_IF_ERROR(ScalarInput(c, i, i == 4 ? "minval" : "maxval"));
  }
  return OutputFromShapeInput(c);
}

// StatelessShuffle: (value, key[1], counter, alg); the output has the value's shape.
Status ShuffleShape(InferenceContext& c) {
  TG_RETURN_IF_ERROR(VectorOfLength(c, 1, 1, "key"));
  const PartialShape& counter = c.input_shape(2);
  if (counter.known_rank() && counter.rank() != 1) {
    return c.Error("counter must be a vector, but has shape ", counter.ToString());
  }
  TG_RETURN_IF_ERROR(ScalarInput(c, 3, "alg"));
  return shape_fns::UnchangedShape(c);
}

Status KeyCounterFromSeedShape(InferenceContext& c) {
  TG_RETURN_IF_ERROR(VectorOfLength(c, 0, 2, "seed"));
  c.set_output(0, PartialShape{1});
  c.set_output(1, PartialShape{2});
  if (c.num_outputs() > 2) c.set_output(2, PartialShape{});
  return Status::OK();
}

constexpr const char* kFloatTypes = "{half, bfloat16, float, double}";

OpDefBuilder SeededFloatOp(const char* name, const char* doc) {
  return OpDefBuilder(name)
      .Input("shape: T")
      .Input("seed: Tseed")
      .Output("output: dtype")
      .Attr(std::string("dtype: ") + kFloatTypes + " = DT_FLOAT")
      .Attr("T: {int32, int64} = DT_INT32")
      .Attr("Tseed: {int32, int64} = DT_INT64")
      .SetShapeFn(SeededShape)
      .Doc(doc);
}

OpDefBuilder KeyCounterFloatOp(const char* name, const char* doc) {
  return OpDefBuilder(name)
      .Input("shape: Tshape")
      .Input("key: uint64")
      .Input("counter: uint64")
      .Input("alg: int32")
      .Output("output: dtype")
      .Attr(std::string("dtype: ") + kFloatTypes + " = DT_FLOAT")
      .Attr("Tshape: {int32, int64} = DT_INT32")
      .SetShapeFn(KeyCounterShape)
      .Doc(doc);
}

}  // namespace

Status RegisterStatelessRandomOps(OpRegistry* registry) {
  return RegisterOps(registry, {
      SeededFloatOp("StatelessRandomUniform", "Uniform floats in [0, 1) from a seed pair."),
      SeededFloatOp("StatelessRandomNormal", "Standard normal floats from a seed pair."),
      SeededFloatOp("StatelessTruncatedNormal",
                    "Standard normal floats within 2 stddevs (redrawn outside) from a seed pair."),
      OpDefBuilder("StatelessRandomUniformInt")
          .Input("shape: T")
          .Input("seed: Tseed")
          .Input("minval: dtype")
          .Input("maxval: dtype")
          .Output("output: dtype")
          .Attr("dtype: {int32, int64}")
          .Attr("T: {int32, int64}")
          .Attr("Tseed: {int32, int64} = DT_INT64")
          .SetShapeFn(SeededShape)
          .Doc("Uniform integers in [minval, maxval) from a seed pair."),
      OpDefBuilder("StatelessRandomUniformFullInt")
          .Input("shape: T")
          .Input("seed: Tseed")
          .Output("output: dtype")
          .Attr("dtype: {int32, int64, uint32, uint64} = DT_UINT64")
          .Attr("T: {int32, int64} = DT_INT32")
          .Attr("Tseed: {int32, int64, uint32, uint64} = DT_INT64")
          .SetShapeFn(SeededShape)
          .Doc("Integers over the dtype's whole range from a seed pair."),
      OpDefBuilder("StatelessRandomGetKeyCounter")
          .Input("seed: Tseed")
          .Output("key: uint64")
          .Output("counter: uint64")
          .Attr("Tseed: {int32, int64} = DT_INT64")
          .SetShapeFn(KeyCounterFromSeedShape)
          .Doc("The Philox key and counter a seed pair scrambles into."),
      OpDefBuilder("StatelessRandomGetAlg")
          .Output("alg: int32")
          .SetIsStateful()
          .SetShapeFn(shape_fns::ScalarShape)
          .Doc("The counter-based algorithm the device uses (1: Philox)."),
      OpDefBuilder("StatelessRandomGetKeyCounterAlg")
          .Input("seed: Tseed")
          .Output("key: uint64")
          .Output("counter: uint64")
          .Output("alg: int32")
          .Attr("Tseed: {int32, int64} = DT_INT64")
          .SetShapeFn(KeyCounterFromSeedShape)
          .Doc("StatelessRandomGetKeyCounter and StatelessRandomGetAlg in one."),
      KeyCounterFloatOp("StatelessRandomUniformV2",
                        "Uniform floats in [0, 1) from a key, counter and algorithm."),
      KeyCounterFloatOp("StatelessRandomNormalV2",
                        "Standard normal floats from a key, counter and algorithm."),
      KeyCounterFloatOp("StatelessTruncatedNormalV2",
                        "Standard normal floats within 2 stddevs from a key, counter and "
                        "algorithm."),
      OpDefBuilder("StatelessRandomUniformIntV2")
          .Input("shape: Tshape")
          .Input("key: uint64")
          .Input("counter: uint64")
          .Input("alg: int32")
          .Input("minval: dtype")
          .Input("maxval: dtype")
          .Output("output: dtype")
          .Attr("dtype: {int32, int64, uint32, uint64}")
          .Attr("Tshape: {int32, int64} = DT_INT32")
          .SetShapeFn(KeyCounterShape)
          .Doc("Uniform integers in [minval, maxval) from a key, counter and algorithm."),
      OpDefBuilder("StatelessRandomUniformFullIntV2")
          .Input("shape: Tshape")
          .Input("key: uint64")
          .Input("counter: uint64")
          .Input("alg: int32")
          .Output("output: dtype")
          .Attr("dtype: {int32, int64, uint32, uint64} = DT_UINT64")
          .Attr("Tshape: {int32, int64} = DT_INT32")
          .SetShapeFn(KeyCounterShape)
          .Doc("Integers over the dtype's whole range from a key, counter and algorithm."),
      OpDefBuilder("StatelessShuffle")
          .Input("value: T")
          .Input("key: uint64")
          .Input("counter: uint64")
          .Input("alg: int32")
          .Output("output: T")
          .Attr("T: type")
          .SetShapeFn(ShuffleShape)
          .Doc("value's rows (dimension 0) permuted by a key, counter and algorithm."),
  });
}

}  // namespace tgraph
