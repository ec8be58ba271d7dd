"""tools/bazel: a set-up machine goes straight to Bazel with the machine rc file.

The install steps themselves (apt, pip) are exercised by every fresh machine and
CI; here the wrapper runs against a fake Bazel and a prepared $OF_HOME.
"""

import hashlib
import os
import stat
import subprocess
import tempfile


def _hash(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()[:12]


def _external_dir(home):
    """$OF_HOME/ext-<hash>, as tools/bazel names the install of tools/external_packages."""
    digest = hashlib.sha256()
    for path in ("tools/external_packages/requirements.txt", "tools/external_packages/build-requirements.txt"):
        with open(path, "rb") as f:
            digest.update(f.read())
    return os.path.join(home, f"ext-{digest.hexdigest()[:12]}")


def _prepare(home, cuda_done=True):
    venv = os.path.join(home, f"venv-{_hash('tools/requirements.txt')}")
    os.makedirs(os.path.join(venv, "bin"))
    open(os.path.join(venv, ".complete"), "w").close()
    os.makedirs(_external_dir(home))  # the external packages, installed
    open(os.path.join(_external_dir(home), ".complete"), "w").close()
    if cuda_done:  # the mark tools/bazel leaves once tools/requirements-cuda.txt is installed
        open(os.path.join(venv, f".cuda-{_hash('tools/requirements-cuda.txt')}"), "w").close()
    # A stand-in interpreter that records how it was called (pip installs go through it).
    python = os.path.join(venv, "bin", "python")
    with open(python, "w") as f:
        f.write(f'#!/bin/sh\necho "$*" >> {home}/python-calls\n')
    os.chmod(python, os.stat(python).st_mode | stat.S_IEXEC)
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
        assert f"test --test_env=OF_EXTERNAL_PACKAGES={_external_dir(home)}" in text
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


def test_cuda_builds_install_nccl_once():
    with tempfile.TemporaryDirectory() as home:
        _, fake = _prepare(home, cuda_done=False)
        calls = os.path.join(home, "python-calls")
        r = _run(home, fake, "version")  # not a CUDA build: nothing to install
        assert r.returncode == 0 and not os.path.exists(calls), r.stderr
        r = _run(home, fake, "build", "--config=cuda", "//ops/cuda/...")
        assert r.returncode == 0, r.stderr
        assert "installing tools/requirements-cuda.txt" in r.stderr
        with open(calls) as f:
            text = f.read()
        assert "-m pip install" in text and "requirements-cuda.txt" in text
        r = _run(home, fake, "build", "--config=cuda", "//ops/cuda/...")
        assert r.returncode == 0 and r.stderr == "", r.stderr  # done once
        with open(calls) as f:
            assert len(f.read().splitlines()) == 1
