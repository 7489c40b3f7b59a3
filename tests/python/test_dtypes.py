"""tgraph.dtypes: TF's DType objects, names, enums and numpy equivalents."""
import numpy as np
import pytest

import tgraph as tf


def test_names_enums_and_reprs():
    assert tf.float32.name == "float32" and tf.float32.as_datatype_enum == 1
    assert repr(tf.float32) == "tf.float32" and str(tf.float32) == "<dtype: 'float32'>"
    assert tf.int64.as_numpy_dtype is np.int64 and tf.string.as_numpy_dtype is np.object_
    ref = tf.as_dtype(101)
    assert ref.name == "float32_ref" and ref.is_ref_dtype and ref.base_dtype == tf.float32
    assert tf.float32.is_compatible_with(ref)
    assert tf.float32.is_floating and tf.int32.is_integer and tf.bool.is_bool
    assert tf.uint8.is_unsigned and tf.complex64.is_complex
    assert tf.float32.size == 4 and tf.float64.size == 8
    assert tf.half is tf.float16 and tf.double is tf.float64


def test_as_dtype_conversions():
    assert tf.as_dtype("float") == tf.float32 and tf.as_dtype("float32") == tf.float32
    assert tf.as_dtype(np.float64) == tf.float64 and tf.as_dtype(np.dtype("int8")) == tf.int8
    assert tf.as_dtype(float) == tf.float32 and tf.as_dtype(int) == tf.int32
    assert tf.as_dtype(bool) == tf.bool and tf.as_dtype(bytes) == tf.string
    assert tf.as_dtype(3) == tf.int32
    assert tf.float32 == "float32" and tf.float32 != tf.float64 and tf.float32 is not None
    assert {tf.float32: 1}[tf.as_dtype("float32")] == 1
    assert tf.as_dtype(object) == tf.string  # numpy object arrays hold strings, as TF
    for bad in ("nope", 999, np.void):
        with pytest.raises(TypeError):
            tf.as_dtype(bad)


def test_min_max():
    assert tf.int8.min == -128 and tf.uint8.max == 255
    assert tf.float32.max == np.finfo(np.float32).max
