"""Running Global Tensor checks on real processes, for the global_*_test.py files.

A test file registers checks with :func:`check` and ends with ``if __name__ == "__main__":
worker_main(CHECKS)``. :func:`world_results` starts the file on N ranks through
``python -m oneflow.distributed.launch`` (gloo on loopback); each rank runs every check for its
world size in order, always doing the same collectives whatever it finds (a failed comparison
is recorded, not raised, so the ranks stay in step), and prints one ``RESULT {json}`` line per
check. The pytest side turns each (world size, check) into a test case.
"""

from __future__ import annotations

import datetime
import functools
import json
import os
import socket
import subprocess
import sys
import time
import traceback

import numpy as np

COMM_TIMEOUT = 30.0  # seconds: a rank stuck in a collective fails its run instead of hanging it


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def child_env(**extra: str) -> dict:
    """The environment of child processes: this process's import path, with this directory as
    seen here (under Bazel, the runfiles) rather than the script's resolved directory, which
    Python would otherwise put first (PYTHONSAFEPATH) and which may be the source tree."""
    env = dict(os.environ)
    here = os.path.dirname(os.path.abspath(__file__))
    env["PYTHONPATH"] = os.pathsep.join([here] + [p for p in sys.path if p and p != here])
    env["PYTHONSAFEPATH"] = "1"
    env.update(extra)
    return env


def launch(script: str, nproc: int, args=(), timeout: float = 120.0, env: dict | None = None, launcher_args=()):
    """Runs ``script`` on ``nproc`` ranks through the launcher; returns the CompletedProcess."""
    cmd = [sys.executable, "-m", "oneflow.distributed.launch", "--nproc_per_node", str(nproc), "--master_port",
           str(free_port()), *map(str, launcher_args), script, *map(str, args)]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env or child_env())


def results(stdout: str) -> list:
    return [json.loads(line[len("RESULT "):]) for line in stdout.splitlines() if line.startswith("RESULT ")]


@functools.cache
def world_results(script: str, nproc: int, timeout: float = 120.0) -> dict:
    """check name -> {rank: result} for one run of every check of ``script`` on ``nproc`` ranks;
    "__run__" holds the launcher's exit code and output tails."""
    start = time.time()
    try:
        proc = launch(script, nproc, ["checks"], timeout=timeout)
        code, out, err = proc.returncode, proc.stdout, proc.stderr
    except subprocess.TimeoutExpired as e:
        code, out, err = "timeout", e.stdout or "", e.stderr or ""
        out = out.decode() if isinstance(out, bytes) else out
        err = err.decode() if isinstance(err, bytes) else err
    by_check: dict = {"__run__": {"code": code, "stdout": out[-4000:], "stderr": err[-6000:],
                                  "seconds": time.time() - start}}
    for res in results(out):
        by_check.setdefault(res["check"], {})[res["rank"]] = res
    return by_check


def assert_check(script: str, nproc: int, name: str) -> None:
    """Fails unless every rank ran check ``name`` successfully."""
    by_check = world_results(script, nproc)
    run = by_check["__run__"]
    got = by_check.get(name, {})
    context = f"launcher exit {run['code']}\nstdout tail:\n{run['stdout']}\nstderr tail:\n{run['stderr']}"
    assert len(got) == nproc, f"{name}: {len(got)} of {nproc} ranks reported\n{context}"
    failed = [f"rank {r}: {res['error']}" for r, res in sorted(got.items()) if not res["ok"]]
    assert not failed, "\n".join(failed)


# ---- the worker side --------------------------------------------------------------------------------


class Checks:
    """A registry of checks: name -> (function, smallest world size, largest world size)."""

    def __init__(self) -> None:
        self.items: dict = {}

    def __call__(self, min_world: int = 1, max_world: int = 4, worlds=None):
        def register(fn):
            self.items[fn.__name__] = (fn, worlds or range(min_world, max_world + 1))
            return fn

        return register

    def cases(self, worlds=(1, 2, 3, 4)) -> list:
        return [(n, name) for n in worlds for name, (_, ok) in self.items.items() if n in ok]


class Failures:
    """Collects failed comparisons of one check without raising (the ranks stay in step)."""

    def __init__(self) -> None:
        self.items: list = []

    def close(self, name: str, got, want, atol: float = 1e-5, rtol: float = 1e-5, exact: bool = False) -> None:
        got, want = np.asarray(got), np.asarray(want)
        if got.shape != want.shape:
            self.items.append(f"{name}: shape {got.shape} != {want.shape}")
            return
        ok = np.array_equal(got, want) if exact else np.allclose(got, want, atol=atol, rtol=rtol, equal_nan=True)
        if not ok:
            diff = np.abs(got.astype(np.float64) - want.astype(np.float64)).max() if got.size else 0
            self.items.append(f"{name}: max diff {diff} (exact={exact})")

    def true(self, name: str, cond: bool, detail: str = "") -> None:
        if not cond:
            self.items.append(f"{name}: {detail}")

    def error(self, name: str, e: BaseException) -> None:
        self.items.append(f"{name}: {type(e).__name__}: {str(e)[:500]}")


def worker_main(checks: Checks) -> None:
    """Runs every check for this world size; prints one RESULT line per check."""
    import oneflow.distributed as dist

    world = int(os.environ.get("WORLD_SIZE", "1"))
    rank = int(os.environ.get("RANK", "0"))
    if world > 1:
        dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=COMM_TIMEOUT))
    for name, (fn, worlds) in checks.items.items():
        if world not in worlds:
            continue
        fails = Failures()
        res = {"check": name, "rank": rank}
        try:
            value = fn(fails)
            res["ok"] = not fails.items
            res["error"] = "; ".join(fails.items)[:3000]
            if value is not None:
                res["value"] = value
        except BaseException as e:
            res["ok"] = False
            res["error"] = f"{type(e).__name__}: {e}\n{traceback.format_exc()[-2000:]}"
        _emit(res)


def _emit(res: dict) -> None:
    # One write below the pipe's atomic size, so the lines of the ranks never interleave.
    line = "RESULT " + json.dumps(res)
    while len(line.encode()) > 3800:
        res["error"] = res["error"][: len(res["error"]) // 2] + " ..."
        line = "RESULT " + json.dumps(res)
    sys.stdout.flush()
    os.write(sys.stdout.fileno(), (line + "\n").encode())
