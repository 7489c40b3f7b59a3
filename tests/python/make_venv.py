"""Creates (once) the virtual environment the Python tests run in, and installs the build
tree's package into it without building anything again.

    python make_venv.py VENV_DIR PACKAGE_DIR

VENV_DIR gets a venv of this interpreter's base Python with two .pth files: PACKAGE_DIR
(<build>/python, holding `tgraph` as the wheel lays it out: an editable install, as
`pip install -e` writes one), then the site-packages of the running interpreter (numpy,
protobuf, pytest and TensorFlow of scripts/tf_venv.sh). Run again, it only rewrites the
.pth files when they differ. Prints the venv's python.
"""
import os
import site
import sys
import venv


def main() -> None:
    venv_dir, package_dir = (os.path.abspath(p) for p in sys.argv[1:3])
    python = os.path.join(venv_dir, "bin", "python")
    if not os.path.exists(python):
        venv.EnvBuilder(with_pip=False, symlinks=True, clear=True).create(venv_dir)
    lib = os.path.join(venv_dir, "lib")
    site_dir = next(os.path.join(lib, d, "site-packages") for d in os.listdir(lib)
                    if d.startswith("python"))
    # .pth files are read in name order and appended to sys.path: the build tree's package
    # comes first, so a tgraph installed among the dependencies cannot shadow it.
    wanted = {
        "tgraph-0-build.pth": package_dir + "\n",
        "tgraph-1-test-deps.pth": "\n".join(site.getsitepackages()) + "\n",
    }
    for name, text in wanted.items():
        path = os.path.join(site_dir, name)
        if not os.path.exists(path) or open(path).read() != text:
            with open(path, "w") as f:
                f.write(text)
    print(python)


if __name__ == "__main__":
    main()
