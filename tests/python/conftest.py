"""Each test starts with a fresh default graph and no default session (as a new TF 1.x
script would)."""
import pytest

import tgraph as tf
from tgraph import session


@pytest.fixture(autouse=True)
def fresh_graph():
    tf.reset_default_graph()
    yield
    del session._session_stack()[:]
