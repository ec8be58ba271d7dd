"""Starting benchmark ranks as real processes: a free port for the rendezvous and the
environment that lets them import what this process imports."""

from __future__ import annotations

import os
import socket
import sys


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def child_env() -> dict:
    """This process's import path for the ranks (under Bazel, the runfiles' directories)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    env["PYTHONSAFEPATH"] = "1"
    return env
