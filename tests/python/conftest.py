"""Each test starts with a fresh default graph (as a new TF 1.x script would)."""
import pytest

import tgraph as tf


@pytest.fixture(autouse=True)
def fresh_graph():
    tf.reset_default_graph()
    yield
