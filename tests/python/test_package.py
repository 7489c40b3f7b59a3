"""The package as the tests get it: the wheel built from the build tree (tests/python/
make_venv.py), installed by pip into the tests' venv. libtgraph and the plugins are inside
it and found without environment variables; py.typed and docstrings are present."""
import os
import subprocess
import sys
from importlib import metadata

import tgraph as tf


def test_installed_by_pip_into_this_venv():
    pkg = os.path.dirname(os.path.abspath(tf.__file__))
    # Imported from the venv's site-packages, not from a source or build tree.
    assert sys.prefix != sys.base_prefix
    assert pkg.startswith(os.path.join(sys.prefix, "lib")), pkg
    assert os.path.basename(os.path.dirname(pkg)) == "site-packages", pkg
    dist = metadata.distribution("tgraph")
    assert dist.version == tf.__version__ == "0.1.0"
    assert (dist.read_text("INSTALLER") or "").strip() == "pip"
    assert (dist.read_text("WHEEL") or "").startswith("Wheel-Version")
    files = {str(f) for f in dist.files or []}
    assert "tgraph/_lib/lib/libtgraph.so" in files
    assert any(f.startswith("tgraph/_lib/lib/tgraph/plugins/libtgraph_cpu") for f in files)
    assert "tgraph/proto/graph_pb2.py" in files and "tgraph/py.typed" in files
    # No file of the package is a link into the build tree: the wheel holds copies.
    for f in files:
        path = os.path.join(os.path.dirname(pkg), f)
        assert not os.path.islink(path), path


def test_library_and_plugins_found_without_environment_variables():
    # Resolved paths on both sides: the checkout may be reached through a symlink, and the
    # loader reports the plugins it found by their resolved paths.
    pkg = os.path.dirname(os.path.realpath(tf.__file__))
    code = ("import tgraph as tf, os\n"
            "from tgraph import _c\n"
            "x = tf.placeholder(tf.float32, [2])\n"
            "with tf.Session() as s: v = s.run(x * 2, {x: [1, 2]})\n"
            "print(v.tolist())\n"
            "print(os.path.realpath(_c._library_path()))\n"
            "for i in range(_c.lib.TG_NumPlugins()):\n"
            "    print(os.path.realpath(_c.pystr(_c.lib.TG_PluginFile(_c.lib.TG_GetPlugin(i)))))\n")
    # Nothing but PATH: no PYTHONPATH, no TGRAPH_LIBRARY, no TGRAPH_PLUGIN_PATH.
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         timeout=120, cwd="/")
    assert out.returncode == 0, out.stderr[-2000:]
    value, lib, *plugins = out.stdout.split("\n")[:-1]
    assert value == "[2.0, 4.0]"
    lib_dir = os.path.join(pkg, "_lib", "lib")
    assert lib == os.path.join(lib_dir, "libtgraph.so"), lib
    assert any(os.path.basename(p).startswith("libtgraph_cpu") for p in plugins), plugins
    for p in plugins:
        assert p.startswith(os.path.join(lib_dir, "tgraph", "plugins") + os.sep), p


def test_typed_and_documented():
    pkg = os.path.dirname(tf.__file__)
    assert os.path.exists(os.path.join(pkg, "py.typed"))
    for obj in (tf.Graph, tf.Session, tf.Session.run, tf.Variable, tf.get_variable,
                tf.variable_scope, tf.placeholder, tf.constant, tf.gradients,
                tf.train.Saver, tf.train.AdamOptimizer.minimize, tf.import_graph_def,
                tf.load_op_library, tf.nn.nce_loss, tf.nn.dropout):
        assert obj.__doc__, obj
    assert tf.__version__ == "0.1.0"
