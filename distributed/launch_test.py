"""python -m oneflow.distributed.launch run as a real subprocess on small scripts in testdata/.

The scripts print what the launcher gave them (environment, arguments) as JSON lines, meet on
MASTER_ADDR:MASTER_PORT as a store would, fail on purpose, or record the signals they get.
"""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from oneflow.distributed import launch

TESTDATA = Path(__file__).resolve().parent / "testdata"


def _env(**extra: str) -> dict:
    env = dict(os.environ)
    # The launcher and the scripts import what this test imports.
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    env.pop("OMP_NUM_THREADS", None)
    env.update(extra)
    return env


def _cmd(*args) -> list:
    return [sys.executable, "-m", "oneflow.distributed.launch", *map(str, args)]


def _launch(*args, timeout: float = 60, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(_cmd(*args), capture_output=True, text=True, timeout=timeout, env=env or _env())


def _records(stdout: str) -> list:
    return [json.loads(line) for line in stdout.splitlines() if line.startswith("{")]


def _wait_for(predicate, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.mark.parametrize("nproc", [1, 2, 3, 4])
def test_env_and_arguments(nproc):
    script_args = ["--lr", "0.1", "-x", "plain", "--nproc_per_node", "9", "with space"]
    r = _launch("--nproc_per_node", nproc, TESTDATA / "print_env.py", *script_args)
    assert r.returncode == 0, r.stderr
    records = sorted(_records(r.stdout), key=lambda rec: int(rec["RANK"]))
    assert [int(rec["RANK"]) for rec in records] == list(range(nproc))
    for i, rec in enumerate(records):
        assert rec["LOCAL_RANK"] == str(i)
        assert rec["WORLD_SIZE"] == rec["LOCAL_WORLD_SIZE"] == str(nproc)
        assert rec["GROUP_RANK"] == "0" and rec["GROUP_WORLD_SIZE"] == "1"
        assert rec["MASTER_ADDR"] == "127.0.0.1" and rec["MASTER_PORT"] == "29500"
        assert rec["OMP_NUM_THREADS"] == (None if nproc == 1 else "1")
        assert rec["argv"] == script_args
        assert rec["module"] is False


def test_omp_num_threads_kept_when_set():
    r = _launch("--nproc_per_node", 2, TESTDATA / "print_env.py", env=_env(OMP_NUM_THREADS="3"))
    assert r.returncode == 0, r.stderr
    assert [rec["OMP_NUM_THREADS"] for rec in _records(r.stdout)] == ["3", "3"]
    assert "OMP_NUM_THREADS" not in r.stderr


def test_auto_port_rendezvous():
    r = _launch("--nproc_per_node", 3, "--master_port", "auto", TESTDATA / "rendezvous.py")
    assert r.returncode == 0, r.stderr
    records = {rec["rank"]: rec for rec in _records(r.stdout)}
    assert sorted(records) == [0, 1, 2]
    assert records[0]["peers"] == [1, 2]
    ports = {rec["port"] for rec in records.values()}
    assert len(ports) == 1 and ports.pop() not in (0, 29500)


def test_two_nodes_on_one_machine():
    port = launch.pick_free_port()
    common = ["--nnodes", 2, "--nproc_per_node", 2, "--master_addr", "127.0.0.1", "--master_port", port]
    nodes = [
        subprocess.Popen(
            _cmd(*common, "--node_rank", k, TESTDATA / "rendezvous.py"),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=_env(),
        )
        for k in (1, 0)
    ]
    outputs = [node.communicate(timeout=60) for node in nodes]
    for node, (_, err) in zip(nodes, outputs):
        assert node.returncode == 0, err
    node1, node0 = (_records(out) for out, _ in outputs)
    assert sorted(rec["rank"] for rec in node0) == [0, 1]
    assert sorted(rec["rank"] for rec in node1) == [2, 3]
    assert next(rec for rec in node0 if rec["rank"] == 0)["peers"] == [1, 2, 3]


def test_node_rank_env():
    r = _launch(
        "--nnodes",
        3,
        "--node_rank",
        2,
        "--nproc_per_node",
        2,
        "--master_addr",
        "10.1.2.3",
        "--master_port",
        1234,
        TESTDATA / "print_env.py",
    )
    assert r.returncode == 0, r.stderr
    records = sorted(_records(r.stdout), key=lambda rec: int(rec["RANK"]))
    assert [(rec["RANK"], rec["LOCAL_RANK"]) for rec in records] == [("4", "0"), ("5", "1")]
    for rec in records:
        assert (rec["WORLD_SIZE"], rec["LOCAL_WORLD_SIZE"], rec["GROUP_RANK"], rec["GROUP_WORLD_SIZE"]) == (
            "6",
            "2",
            "2",
            "3",
        )
        assert (rec["MASTER_ADDR"], rec["MASTER_PORT"]) == ("10.1.2.3", "1234")


@pytest.mark.parametrize("how,expected", [("7", 7), ("kill", 128 + signal.SIGKILL)])
def test_failing_rank_stops_the_others(tmp_path, how, expected):
    start = time.monotonic()
    r = _launch("--nproc_per_node", 4, TESTDATA / "fail.py", tmp_path, 2, how, timeout=30)
    elapsed = time.monotonic() - start
    assert r.returncode == expected, r.stderr
    # The sleepers (600 s) were stopped, not waited for.
    assert elapsed < 15
    assert "rank 2 (local rank 2" in r.stderr
    assert ("exited with code 7" if how == "7" else "killed by SIGKILL") in r.stderr
    pids = [int((tmp_path / f"{rank}.pid").read_text()) for rank in range(4)]
    assert not any(_alive(pid) for pid in pids)


def test_sigkill_after_grace_period(tmp_path):
    start = time.monotonic()
    r = _launch(
        "--nproc_per_node", 2, "--grace_period", 1, TESTDATA / "fail.py", tmp_path, 1, 5, "ignore_term", timeout=30
    )
    elapsed = time.monotonic() - start
    assert r.returncode == 5, r.stderr
    assert "sending SIGKILL" in r.stderr
    assert 1.0 <= elapsed < 15
    assert not _alive(int((tmp_path / "0.pid").read_text()))


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_signal_reaches_the_processes(tmp_path, sig):
    proc = subprocess.Popen(
        _cmd("--nproc_per_node", 3, TESTDATA / "signal_marker.py", tmp_path),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_env(),
    )
    try:
        _wait_for(lambda: all((tmp_path / f"{rank}.ready").exists() for rank in range(3)))
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=20)
    finally:
        proc.kill()
    assert proc.returncode == 128 + sig, err
    for rank in range(3):
        # Exactly once: the launcher forwards the signal, and nothing else delivers it.
        assert (tmp_path / f"{rank}.signals").read_text() == sig.name + "\n"


def test_module_form():
    r = _launch(
        "--nproc_per_node",
        2,
        "-m",
        "print_env",
        "a",
        "--b",
        env=_env(PYTHONPATH=os.pathsep.join([str(TESTDATA), *sys.path])),
    )
    assert r.returncode == 0, r.stderr
    records = _records(r.stdout)
    assert sorted(rec["RANK"] for rec in records) == ["0", "1"]
    assert all(rec["module"] and rec["argv"] == ["a", "--b"] for rec in records)


def test_no_python():
    r = _launch("--nproc_per_node", 2, "--no_python", sys.executable, TESTDATA / "print_env.py", "z")
    assert r.returncode == 0, r.stderr
    records = _records(r.stdout)
    assert sorted(rec["RANK"] for rec in records) == ["0", "1"]
    assert all(rec["argv"] == ["z"] for rec in records)


def test_logdir(tmp_path):
    r = _launch("--nproc_per_node", 2, "--logdir", tmp_path / "logs", TESTDATA / "print_env.py", "q")
    assert r.returncode == 0, r.stderr
    assert _records(r.stdout) == []
    for rank in range(2):
        (rec,) = _records((tmp_path / "logs" / f"rank_{rank}" / "stdout.log").read_text())
        assert rec["RANK"] == str(rank) and rec["argv"] == ["q"]
        assert (tmp_path / "logs" / f"rank_{rank}" / "stderr.log").read_text() == ""


def test_logdir_per_rank_and_failure_tail(tmp_path):
    r = _launch(
        "--nproc_per_node",
        2,
        "--logdir",
        tmp_path,
        "--redirects",
        "1:2",
        TESTDATA / "fail.py",
        tmp_path,
        1,
        3,
        timeout=30,
    )
    assert r.returncode == 3
    assert not (tmp_path / "rank_0").exists()
    # The failed rank's stderr went to its file, and the launcher repeats its end.
    assert "rank 1 fails now" in (tmp_path / "rank_1" / "stderr.log").read_text()
    assert "rank 1 fails now" in r.stderr and "rank_1" in r.stderr


@pytest.mark.parametrize(
    "argv,message",
    [
        (["--nproc_per_node", "0", "s.py"], "--nproc_per_node must be at least 1"),
        (["--nnodes", "0", "s.py"], "--nnodes must be at least 1"),
        (["--nnodes", "2", "--node_rank", "2", "s.py"], "--node_rank must be in 0..1"),
        (["--node_rank", "-1", "s.py"], "--node_rank must be in 0..0"),
        (["--nnodes", "2", "--master_port", "0", "s.py"], "needs --nnodes 1"),
        (["--master_port", "70000", "s.py"], "outside 0..65535"),
        (["--master_port", "x", "s.py"], "a port number or 'auto'"),
        (["--nnodes", "2", "--standalone", "s.py"], "--standalone"),
        (["-m", "--no_python", "s"], "cannot be combined"),
        (["--redirects", "3", "s.py"], "--redirects needs --logdir"),
        (["--logdir", "d", "--redirects", "5:1", "s.py"], "names local rank 5"),
        (["--logdir", "d", "--redirects", "4", "s.py"], "must be 0, 1, 2 or 3"),
        (["--grace_period", "-1", "s.py"], "must not be negative"),
        (["missing_script.py"], "script 'missing_script.py' not found"),
        (["--no_python", "no-such-program-here"], "not found or not executable"),
        ([], "the following arguments are required: script"),
    ],
)
def test_bad_arguments(tmp_path, monkeypatch, capsys, argv, message):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "s.py").write_text("")
    with pytest.raises(SystemExit) as e:
        launch.parse_args(argv)
    assert e.value.code == 2
    assert message in capsys.readouterr().err


def test_bad_arguments_exit_status():
    r = _launch("--nproc_per_node", 4, "--nnodes", 2, "--node_rank", 5, TESTDATA / "print_env.py")
    assert r.returncode == 2
    assert "--node_rank must be in 0..1 (--nnodes 2), got 5" in r.stderr
    assert r.stdout == ""


def test_parse_defaults_and_standalone():
    args = launch.parse_args(["--nproc-per-node", "2", "--standalone", "-m", "pkg.mod", "--x", "-m"])
    assert (args.nproc_per_node, args.nnodes, args.node_rank) == (2, 1, 0)
    assert (args.master_addr, args.master_port) == ("127.0.0.1", 0)
    assert args.module and args.training_script == "pkg.mod" and args.training_script_args == ["--x", "-m"]
    assert launch.worker_command(args)[-4:] == ["-m", "pkg.mod", "--x", "-m"]
    env = launch.worker_env(args, 1, base={"PATH": "/bin"})
    assert env["RANK"] == "1" and env["PATH"] == "/bin"


def test_help_mentions_auto_port(capsys):
    with pytest.raises(SystemExit) as e:
        launch.parse_args(["--help"])
    assert e.value.code == 0
    out = capsys.readouterr().out
    assert "'auto' picks a free port" in out and "128+N" in out
