"""Installs wheels into a brand-new virtualenv and runs code there (for wheel tests).

The virtualenv has no packages but the wheels given and NumPy, which is linked
in from the project virtualenv so that tests need no network.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile

import numpy
from build import wheel_filename

# Paths inside the runfiles tree (tests run from the workspace root there).
ONEFLOW_WHEEL = "core/wheel.whl"


class FreshVenv:
    """A throw-away virtualenv; use as a context manager."""

    def __init__(self):
        self._tmp = tempfile.TemporaryDirectory(prefix="wheeltest-")
        self.root = os.path.join(self._tmp.name, "venv")
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", self.root], check=True)
        self.python = os.path.join(self.root, "bin", "python")
        site = subprocess.run(
            [self.python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            check=True, capture_output=True, text=True,
        ).stdout.strip()
        deps = os.path.join(self._tmp.name, "deps")
        os.makedirs(deps)
        numpy_dir = os.path.dirname(numpy.__file__)
        for name in ("numpy", "numpy.libs"):
            src = os.path.join(os.path.dirname(numpy_dir), name)
            if os.path.exists(src):
                os.symlink(src, os.path.join(deps, name))
        with open(os.path.join(site, "_numpy_from_project.pth"), "w") as f:
            f.write(deps + "\n")
        self.site_packages = site

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._tmp.cleanup()

    def install(self, *wheels: str) -> None:
        # pip insists on PEP 427 file names; Bazel's wheel outputs have fixed ones.
        named = []
        for w in wheels:
            dst = os.path.join(self._tmp.name, wheel_filename(w))
            shutil.copyfile(w, dst)
            named.append(dst)
        subprocess.run(
            [sys.executable, "-m", "pip", "--python", self.python, "install", "--quiet",
             "--no-index", "--no-deps", "--no-cache-dir", "--disable-pip-version-check",
             *named],
            check=True,
        )

    def run(self, code: str) -> subprocess.CompletedProcess:
        """Runs `code` in the venv's interpreter from an empty folder (so nothing in
        the source tree can be imported by accident)."""
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONSAFEPATH")}
        return subprocess.run(
            [self.python, "-I", "-c", code], capture_output=True, text=True,
            cwd=self._tmp.name, env=env, check=False,
        )


def read_version(path: str) -> str:
    with open(path) as f:
        return f.read().strip()


def check_package_sources(pkg: str, module: str) -> None:
    """`module` (Bazel package `pkg`) imports with its VERSION and accepts this oneflow."""
    import importlib

    import oneflow
    from oneflow._plugin import version_satisfies

    m = importlib.import_module(module)
    assert m.__version__ == read_version(f"{pkg}/VERSION")
    assert version_satisfies(oneflow.__version__, m.ONEFLOW_REQUIREMENT)
    assert m.__doc__ and len(m.__doc__) > 40


def check_package_wheel(pkg: str, module: str, dist: str) -> None:
    """The wheel of Bazel package `pkg` installs next to the oneflow wheel in a fresh venv;
    `module` imports there from site-packages with its version, declares its oneflow
    requirement to pip, and refuses an incompatible oneflow with a clear ImportError."""
    with FreshVenv() as venv:
        venv.install(ONEFLOW_WHEEL, f"{pkg}/wheel.whl")
        r = venv.run(
            "import importlib, importlib.metadata as md\n"
            f"m = importlib.import_module({module!r})\n"
            "print(m.__version__)\n"
            "print(m.__file__)\n"
            f"print(md.version({dist!r}))\n"
            f"print(';'.join(md.requires({dist!r}) or []))\n"
            "print(m.ONEFLOW_REQUIREMENT)\n"
        )
        assert r.returncode == 0, r.stderr
        version, path, dist_version, requires, requirement = r.stdout.split("\n")[:5]
        want = read_version(f"{pkg}/VERSION")
        assert version == want and dist_version == want, (version, dist_version, want)
        assert path.startswith(venv.site_packages), path  # the installed copy, not the sources
        assert requires == "oneflow" + requirement, requires

        # With an incompatible oneflow, the import fails and says why.
        r = venv.run(
            "import oneflow._plugin as p\n"
            "p.check_oneflow_requirement.__defaults__ = ('99.0.0',)\n"
            f"import {module}\n"
        )
        assert r.returncode != 0
        assert "ImportError" in r.stderr and "requires oneflow" in r.stderr, r.stderr
        assert "99.0.0 is installed" in r.stderr, r.stderr
