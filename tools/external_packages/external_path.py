"""Puts OneFlow's published packages (installed by tools/bazel) on sys.path, ahead of the repo's.

tools/bazel installs the pinned releases of tools/external_packages/requirements.txt into their
own directory under $OF_HOME, never into the project virtualenv, and passes it to tests as
OF_EXTERNAL_PACKAGES. The monorepo has its own ``flowvision`` and ``libai``; these tests must
import the published ones, so this module checks that every name it hands out comes from that
directory, and that ``oneflow`` still comes from this repository.
"""

import importlib
import os
import sys
import types

ENV = "OF_EXTERNAL_PACKAGES"


def external_dir() -> str:
    """The directory tools/bazel installed the external packages into."""
    path = os.environ.get(ENV, "")
    if not path or not os.path.isfile(os.path.join(path, ".complete")):
        raise RuntimeError(
            f"{ENV}={path!r} is not a complete install of tools/external_packages/requirements.txt;"
            " run the test through ./tools/bazel, which installs it and sets the variable"
        )
    return path


def import_external(name: str) -> types.ModuleType:
    """Imports the published top-level package ``name`` from the external directory.

    Raises if the name was already imported from elsewhere (for example the repo's own package)
    or would be found elsewhere, so a test can never silently exercise the wrong code.
    """
    path = external_dir()
    if path not in sys.path:
        sys.path.insert(0, path)
    module = importlib.import_module(name)
    where = os.path.realpath(module.__file__)
    if not where.startswith(os.path.realpath(path) + os.sep):
        raise RuntimeError(f"import {name} gave {where}, not the release installed in {path}")
    import oneflow

    if os.path.realpath(oneflow.__file__).startswith(os.path.realpath(path) + os.sep):
        raise RuntimeError(f"oneflow was imported from {path}; it must come from this repo")
    return module


def restore_numpy_aliases() -> None:
    """Puts back NumPy's scalar aliases (``np.float``, ``np.int``, ...) that NumPy 1.24 removed.

    libai 0.1.1 predates their removal and uses them at import time; this is the NumPy of its
    era, not a OneFlow API, so the test supplies it rather than oneflow.
    """
    import numpy as np

    for alias, value in {"float": float, "int": int, "object": object, "str": str}.items():
        if alias not in np.__dict__:
            setattr(np, alias, value)
