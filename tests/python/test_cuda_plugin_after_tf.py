"""The CUDA plugin loaded into a process that imported TensorFlow first (issue 18's note: the
wheel leaves the CUDA plugin out, but TGRAPH_PLUGIN_PATH or load_op_library can bring it).
Loading it must neither crash nor bind its calls to TensorFlow's libraries; without a GPU it
lists no device and the CPU keeps running graphs. Each case runs in a child process, so that a
crash fails the test instead of the test run, and TensorFlow's import is the child's first."""
import os
import subprocess
import sys

import pytest

CUDA_PLUGIN = os.environ.get("TGRAPH_TEST_CUDA_PLUGIN", "")
pytestmark = pytest.mark.skipif(not os.path.isfile(CUDA_PLUGIN),
                                reason="the CUDA plugin is not built (TGRAPH_TEST_CUDA_PLUGIN)")

# After TensorFlow (imported and run once, so its libraries are loaded and initialized):
# tgraph with the CUDA plugin among its plugins, a list of devices, a graph run on the CPU.
_CHILD = """
import sys
import tensorflow
tf1 = tensorflow.compat.v1
with tf1.Session(graph=tf1.Graph()) as s:
    s.run(tf1.constant(1.0))
import tgraph as tf
if sys.argv[1] == "load_op_library":
    tf.load_op_library(sys.argv[2])
from tgraph import _c
_c.ensure_plugins()
names = [_c.pystr(_c.lib.TG_PluginName(_c.lib.TG_GetPlugin(i)))
         for i in range(_c.lib.TG_NumPlugins())]
x = tf.placeholder(tf.float32, [2])
y = x * 2.0
with tf.Session() as sess:
    types = sorted({d.device_type for d in sess.list_devices()})
    out = sess.run(y, {x: [1.0, 2.0]}).tolist()
print("cuda" in names, types, out)
"""


def _run_child(how: str, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", _CHILD, how, CUDA_PLUGIN], env=env,
                          capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("how", ["plugin_path", "load_op_library"])
def test_cuda_plugin_after_tensorflow(how):
    env = dict(os.environ, CUDA_VISIBLE_DEVICES="")
    if how == "plugin_path":
        env["TGRAPH_PLUGIN_PATH"] = os.path.dirname(CUDA_PLUGIN)
    out = _run_child(how, env)
    assert out.returncode == 0, f"exit {out.returncode}: {out.stderr[-3000:]}"
    # CUDA_VISIBLE_DEVICES="" hides any GPU: the plugin loads and lists no device.
    assert out.stdout.strip().splitlines()[-1] == "True ['CPU'] [2.0, 4.0]"
