"""tgraph.errors: TF's exception classes and codes, and the C API's statuses mapped to them."""
import pytest

import tgraph as tf


def test_classes_and_codes():
    assert tf.errors.INVALID_ARGUMENT == 3 and tf.errors.NOT_FOUND == 5
    e = tf.errors.InvalidArgumentError(None, None, "bad thing")
    assert isinstance(e, tf.errors.OpError) and e.error_code == tf.errors.INVALID_ARGUMENT
    assert e.message == "bad thing" and str(e) == "bad thing" and e.op is None
    for code in range(1, 17):
        cls = tf.errors.exception_type_from_error_code(code)
        assert issubclass(cls, tf.errors.OpError)
        assert tf.errors.error_code_from_exception_type(cls) == code
        assert cls(None, None, "m").error_code == code


def test_status_codes_reach_python():
    v = tf.Variable(1.0, name="not_ready")
    with tf.Session() as sess:
        with pytest.raises(tf.errors.FailedPreconditionError) as e:
            sess.run(v)
    assert "not_ready" in e.value.message
    with pytest.raises(tf.errors.NotFoundError):
        tf.train.Saver().restore(tf.Session(), "/nonexistent/ckpt")
