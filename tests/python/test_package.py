"""The package as laid out (build tree or wheel): libtgraph inside it, plugins found by the
library's discovery, no environment variables; py.typed and docstrings present."""
import os
import subprocess
import sys

import tgraph as tf


def test_library_and_plugins_found_without_environment_variables():
    pkg = os.path.dirname(tf.__file__)
    code = ("import tgraph as tf, os\n"
            "lib = tf._c._library_path()\n"
            "x = tf.placeholder(tf.float32, [2])\n"
            "with tf.Session() as s: v = s.run(x * 2, {x: [1, 2]})\n"
            "print(os.path.dirname(os.path.abspath(lib)), v.tolist())\n")
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"),
           "PYTHONPATH": os.path.dirname(pkg)}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    lib_dir, value = out.stdout.strip().rsplit(" ", 1)[0], out.stdout.strip().split(" ", 1)[1]
    assert lib_dir.startswith(os.path.join(pkg, "_lib")), lib_dir
    assert value == "[2.0, 4.0]"


def test_typed_and_documented():
    pkg = os.path.dirname(tf.__file__)
    assert os.path.exists(os.path.join(pkg, "py.typed"))
    for obj in (tf.Graph, tf.Session, tf.Session.run, tf.Variable, tf.get_variable,
                tf.variable_scope, tf.placeholder, tf.constant, tf.gradients,
                tf.train.Saver, tf.train.AdamOptimizer.minimize, tf.import_graph_def,
                tf.load_op_library, tf.nn.nce_loss, tf.nn.dropout):
        assert obj.__doc__, obj
    assert tf.__version__ == "0.1.0"
