"""tgraph.tensor_shape: TensorShape and Dimension with TF 1.x's semantics."""
import pytest

import tgraph as tf


def test_dimension():
    d, u = tf.Dimension(3), tf.Dimension(None)
    assert d.value == 3 and u.value is None and str(u) == "?" and repr(d) == "Dimension(3)"
    assert (d == 3) is True and (d == u) is None
    assert (d + 2).value == 5 and (d * u).value is None and (d * 2).value == 6
    assert d.is_compatible_with(u) and not d.is_compatible_with(4)
    assert d.merge_with(u).value == 3
    with pytest.raises(ValueError):
        d.merge_with(4)
    with pytest.raises(ValueError):
        tf.Dimension(-1)


def test_tensor_shape():
    s = tf.TensorShape([None, 3])
    assert str(s) == "(?, 3)" and s.ndims == 2 and s.as_list() == [None, 3]
    assert str(tf.TensorShape([5])) == "(5,)" and str(tf.TensorShape([])) == "()"
    assert str(tf.TensorShape(None)) == "<unknown>" and tf.TensorShape(None).ndims is None
    assert not s.is_fully_defined() and tf.TensorShape([2, 3]).num_elements() == 6
    assert s.is_compatible_with([4, 3]) and not s.is_compatible_with([4, 2])
    assert s.merge_with([4, None]).as_list() == [4, 3]
    assert s[1].value == 3 and s[1:].as_list() == [3]
    assert s == tf.TensorShape([None, 3]) and s != tf.TensorShape([1, 3])
    assert s.concatenate([7]).as_list() == [None, 3, 7]
    assert tf.TensorShape([2, None]).as_proto().dim[1].size == -1
    assert tf.TensorShape(None).as_proto().unknown_rank
    with pytest.raises(ValueError):
        tf.TensorShape(None).as_list()
    with pytest.raises(ValueError):
        s.merge_with([1, 2])
