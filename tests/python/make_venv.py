"""Builds the `tgraph` wheel from a build tree (compiling nothing), and installs it into the
virtual environment the Python tests run in, creating that once.

    python make_venv.py VENV_DIR BUILD_DIR PYPROJECT_DIR

1. The wheel: `pip wheel --no-build-isolation` of PYPROJECT_DIR (bindings/python) with
   scikit-build-core's CMake step pointed at bindings/python/from_build, which only installs
   BUILD_DIR's libtgraph, plugins, package sources and generated protobuf modules into the
   wheel (the layout the wheel built from source has). Written to BUILD_DIR/python-dist.
2. VENV_DIR: a venv of this interpreter's base Python (no pip of its own), made once, with
   one .pth file naming the site-packages of the running interpreter: numpy, protobuf,
   pytest and the TensorFlow of scripts/tf_venv.sh, the package's dependencies and the tests'.
3. The wheel installed into VENV_DIR's own site-packages by this interpreter's pip
   (`pip --python`), replacing the one installed before: running this again leaves the same
   environment, with the package of the current build tree.

The interpreter running this needs scikit-build-core (scripts/tf_venv.sh installs it).
Prints the venv's python and the seconds each step took.
"""
import glob
import os
import shutil
import site
import subprocess
import sys
import time
import venv


def pip(*args: str) -> None:
    subprocess.run([sys.executable, "-m", "pip", "--disable-pip-version-check", "-q", *args],
                   check=True)


def build_wheel(build_dir: str, pyproject_dir: str) -> str:
    dist = os.path.join(build_dir, "python-dist")
    shutil.rmtree(dist, ignore_errors=True)
    pip("wheel", "--no-build-isolation", "--no-deps", "-w", dist,
        "-C", "cmake.source-dir=from_build",
        "-C", f"cmake.define.TGRAPH_BUILD_DIR={build_dir}",
        "-C", f"build-dir={os.path.join(build_dir, 'python-wheel-build')}",
        pyproject_dir)
    wheels = glob.glob(os.path.join(dist, "tgraph-*.whl"))
    if len(wheels) != 1:
        sys.exit(f"make_venv: expected one wheel in {dist}, found {wheels}")
    return wheels[0]


def make_venv(venv_dir: str) -> str:
    python = os.path.join(venv_dir, "bin", "python")
    if not os.path.exists(python):
        venv.EnvBuilder(with_pip=False, symlinks=True, clear=True).create(venv_dir)
    lib = os.path.join(venv_dir, "lib")
    site_dir = next(os.path.join(lib, d, "site-packages") for d in os.listdir(lib)
                    if d.startswith("python"))
    # Before the wheel, the build tree's package was linked in by a .pth file: gone, so that
    # nothing but the installed package can be imported.
    stale = os.path.join(site_dir, "tgraph-0-build.pth")
    if os.path.exists(stale):
        os.remove(stale)
    deps = os.path.join(site_dir, "tgraph-1-test-deps.pth")
    text = "\n".join(site.getsitepackages()) + "\n"
    if not os.path.exists(deps) or open(deps).read() != text:
        with open(deps, "w") as f:
            f.write(text)
    return python


def main() -> None:
    venv_dir, build_dir, pyproject_dir = (os.path.abspath(p) for p in sys.argv[1:4])
    t0 = time.monotonic()
    wheel = build_wheel(build_dir, pyproject_dir)
    t1 = time.monotonic()
    python = make_venv(venv_dir)
    pip("--python", python, "install", "--no-deps", "--force-reinstall", wheel)
    t2 = time.monotonic()
    # The package the tests will import is the installed one.
    where = subprocess.run([python, "-c", "import tgraph, sys; print(tgraph.__file__)"],
                           check=True, capture_output=True, text=True,
                           env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")}).stdout.strip()
    if not where.startswith(venv_dir + os.sep):
        sys.exit(f"make_venv: tgraph imports from {where}, not from {venv_dir}")
    print(python)
    print(f"wheel {os.path.basename(wheel)} ({os.path.getsize(wheel) / 1e6:.1f} MB) built in "
          f"{t1 - t0:.1f} s, installed in {t2 - t1:.1f} s; tgraph imports from {where}")


if __name__ == "__main__":
    main()
