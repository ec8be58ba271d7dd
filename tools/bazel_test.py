"""tools/bazel: a set-up machine goes straight to Bazel with the machine rc file.

The install steps themselves (apt, pip) are exercised by every fresh machine and
CI; here the wrapper runs against a fake Bazel and a prepared $OF_HOME.
"""

import hashlib
import os
import stat
import subprocess
import tempfile


def _prepare(home):
    with open("tools/requirements.txt", "rb") as f:
        req_hash = hashlib.sha256(f.read()).hexdigest()[:12]
    venv = os.path.join(home, f"venv-{req_hash}")
    os.makedirs(os.path.join(venv, "bin"))
    open(os.path.join(venv, ".complete"), "w").close()
    fake = os.path.join(home, "fake-bazel")
    with open(fake, "w") as f:
        f.write('#!/bin/sh\necho "ARGS $*"\n')
    os.chmod(fake, os.stat(fake).st_mode | stat.S_IEXEC)
    return venv, fake


def _run(home, fake, *args):
    env = dict(os.environ, OF_HOME=home, BAZEL_REAL=fake)
    return subprocess.run(["tools/bazel", *args], env=env, capture_output=True, text=True, check=False)


def test_wrapper_passes_machine_rc_and_arguments():
    with tempfile.TemporaryDirectory() as home:
        venv, fake = _prepare(home)
        # Mark setup done so nothing is installed (the stamp name mirrors tools/bazel's).
        r = _run(home, fake, "test", "//foo:bar", "--config=cuda")
        assert r.returncode == 0, r.stderr
        rc = os.path.join(home, "machine.bazelrc")
        assert r.stdout.strip() == f"ARGS --bazelrc={rc} test //foo:bar --config=cuda"
        with open(rc) as f:
            text = f.read()
        assert f"build --repo_env=OF_PYTHON={venv}/bin/python" in text
        assert f"build --disk_cache={home}/disk_cache" in text
        assert r.stderr == ""  # nothing to install, nothing printed


def test_wrapper_is_idempotent():
    with tempfile.TemporaryDirectory() as home:
        _, fake = _prepare(home)
        _run(home, fake, "version")
        rc = os.path.join(home, "machine.bazelrc")
        first = os.stat(rc).st_mtime_ns
        r = _run(home, fake, "version")
        assert r.returncode == 0 and os.stat(rc).st_mtime_ns == first
        stamps = [f for f in os.listdir(home) if f.endswith(".stamp")]
        assert len(stamps) == 1
