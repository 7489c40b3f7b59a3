"""The GPU plugins loaded into a process that imported TensorFlow first (issue 18's note: the
wheel leaves them out, but TGRAPH_PLUGIN_PATH or load_op_library can bring them in). Loading
one must not crash: TensorFlow's module makes its libraries' symbols global (its LLVM,
protobuf, ...), and the plugin's dependencies must keep binding to their own copies (the
OpenCL ICD loader's PoCL, with its LLVM, crashed here until the binding pre-opened it with
RTLD_DEEPBIND). Without a device (CUDA with CUDA_VISIBLE_DEVICES="") the plugin lists none
and the CPU keeps running graphs. Each case runs in a child process, so that a crash fails
the test instead of the test run, and TensorFlow's import is the child's first."""
import os
import subprocess
import sys

import pytest

PLUGINS = {"cuda": os.environ.get("TGRAPH_TEST_CUDA_PLUGIN", ""),
           "opencl": os.environ.get("TGRAPH_TEST_OPENCL_PLUGIN", "")}

# After TensorFlow (imported and run once, so its libraries are loaded and initialized):
# tgraph with the plugin among its plugins, a list of devices, a graph run on the CPU.
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
print(sys.argv[3] in names, types, out)
"""


@pytest.mark.parametrize("plugin", ["cuda", "opencl"])
@pytest.mark.parametrize("how", ["plugin_path", "load_op_library"])
def test_gpu_plugin_after_tensorflow(plugin, how):
    path = PLUGINS[plugin]
    if not os.path.isfile(path):
        pytest.skip(f"the {plugin} plugin is not built (TGRAPH_TEST_{plugin.upper()}_PLUGIN)")
    env = dict(os.environ, CUDA_VISIBLE_DEVICES="")
    if how == "plugin_path":
        env["TGRAPH_PLUGIN_PATH"] = os.path.dirname(path)
    out = subprocess.run([sys.executable, "-c", _CHILD, how, path, plugin], env=env,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, f"exit {out.returncode}: {out.stderr[-3000:]}"
    last = out.stdout.strip().splitlines()[-1]
    assert last.startswith("True ['CPU'"), last  # loaded, the CPU listed first
    assert last.endswith("[2.0, 4.0]"), last
    if plugin == "cuda":
        # CUDA_VISIBLE_DEVICES="" hides any GPU: the plugin loads and lists no device.
        assert last == "True ['CPU'] [2.0, 4.0]"
