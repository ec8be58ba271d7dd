"""``python -m oneflow.distributed.launch``: starts the processes of one node of a distributed job.

Usage::

    python -m oneflow.distributed.launch --nproc_per_node N \\
        [--nnodes M --node_rank K --master_addr A --master_port P] script.py [args ...]
    python -m oneflow.distributed.launch --nproc_per_node N -m package.module [args ...]
    python -m oneflow.distributed.launch --nproc_per_node N --no_python ./program [args ...]

Every process started here gets, in its environment, ``MASTER_ADDR`` and ``MASTER_PORT`` (where
rank 0 hosts the rendezvous store, as torch's ``env://``), ``WORLD_SIZE`` (nnodes *
nproc_per_node), ``RANK`` (node_rank * nproc_per_node + local_rank), ``LOCAL_RANK``,
``LOCAL_WORLD_SIZE``, ``GROUP_RANK`` (the node rank) and ``GROUP_WORLD_SIZE`` (nnodes). On a
multi-node job every node runs one launcher with the same ``--nnodes``, ``--master_addr`` and
``--master_port`` and its own ``--node_rank``; a launcher only starts its local processes, and
the processes meet through the store on the master.

The launcher forwards SIGINT, SIGTERM, SIGHUP and SIGQUIT to its processes. When one of them
exits non-zero it stops the others (SIGTERM, then SIGKILL after ``--grace_period`` seconds) and
exits with that process's exit code, or 128 + N if the process was killed by signal N (the
shell's convention, so the code always fits in an exit status). When the launcher itself gets
signal N it exits with 128 + N once its processes are gone. It exits 0 when all processes exit 0.

Each process runs in its own session (process group), so that stopping a process also stops the
helper processes it started (data-loader workers, for example), and, on Linux, it receives
SIGTERM if the launcher dies without a chance to stop it.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Sequence

DEFAULT_MASTER_ADDR = "127.0.0.1"
DEFAULT_MASTER_PORT = 29500
DEFAULT_GRACE_PERIOD = 30.0

# How often the launcher looks at its processes: the delay between a failure and the stop.
_POLL_INTERVAL = 0.05

# The signals that stop a job; each is forwarded to the processes as received.
_FORWARDED_SIGNALS = ("SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT")

# Lines of a failed process's redirected stderr repeated on the launcher's stderr.
_STDERR_TAIL_LINES = 20

_PROG = "python -m oneflow.distributed.launch"

_EPILOG = """\
environment of each process:
  MASTER_ADDR, MASTER_PORT  where rank 0 hosts the rendezvous store
  WORLD_SIZE                nnodes * nproc_per_node
  RANK                      node_rank * nproc_per_node + LOCAL_RANK
  LOCAL_RANK                0 .. nproc_per_node-1
  LOCAL_WORLD_SIZE          nproc_per_node
  GROUP_RANK                node_rank
  GROUP_WORLD_SIZE          nnodes
  OMP_NUM_THREADS           1 when nproc_per_node > 1 and it is not set already

exit status:
  0 when every process exits 0; otherwise the exit code of the first process that failed
  (128+N if it was killed by signal N), after the others were stopped; 128+N when the launcher
  itself got signal N (which it forwards to the processes); 2 for bad arguments.
"""


def _log(message: str) -> None:
    # One unbuffered write: it is also called from signal handlers, where a buffered stream that
    # the interrupted code was writing to would raise a reentrant-call error.
    os.write(sys.stderr.fileno(), f"launch: {message}\n".encode(errors="replace"))


def _parse_port(value: str) -> int:
    """``--master_port`` values: a port number, or 0/auto for a free port (reported as 0)."""
    if value.strip().lower() == "auto":
        return 0
    try:
        port = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a port number or 'auto', got {value!r}") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"port {port} is outside 0..65535")
    return port


def _parse_redirects(value: str) -> dict[int, int] | int:
    """``--redirects`` values: 0-3 for every process, or ``local_rank:0-3`` pairs joined by commas."""

    def level(text: str) -> int:
        if text.strip() not in ("0", "1", "2", "3"):
            raise argparse.ArgumentTypeError(f"redirect level must be 0, 1, 2 or 3, got {text!r}")
        return int(text)

    if ":" not in value:
        return level(value)
    per_rank: dict[int, int] = {}
    for item in value.split(","):
        rank, sep, what = item.partition(":")
        if not sep or not rank.strip().isdigit():
            raise argparse.ArgumentTypeError(f"expected local_rank:level pairs like '0:3,1:2', got {value!r}")
        per_rank[int(rank)] = level(what)
    return per_rank


def build_parser() -> argparse.ArgumentParser:
    """The launcher's command line (``--help`` lists every option)."""
    parser = argparse.ArgumentParser(
        prog=_PROG,
        description="Starts the processes of one node of a distributed OneFlow job and watches them.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        allow_abbrev=False,
    )
    add = parser.add_argument
    add(
        "--nproc_per_node",
        "--nproc-per-node",
        type=int,
        default=1,
        metavar="N",
        help="processes to start on this node (default 1)",
    )
    add("--nnodes", type=int, default=1, metavar="M", help="nodes in the job (default 1)")
    add(
        "--node_rank",
        "--node-rank",
        type=int,
        default=0,
        metavar="K",
        help="rank of this node, 0 .. nnodes-1 (default 0); node 0 hosts rank 0 and its store",
    )
    add(
        "--master_addr",
        "--master-addr",
        default=DEFAULT_MASTER_ADDR,
        metavar="ADDR",
        help=f"address of node 0, where rank 0 hosts the rendezvous store (default {DEFAULT_MASTER_ADDR})",
    )
    add(
        "--master_port",
        "--master-port",
        type=_parse_port,
        default=DEFAULT_MASTER_PORT,
        metavar="PORT",
        help=f"port of the rendezvous store (default {DEFAULT_MASTER_PORT}); 0 or 'auto' picks a free "
        "port on this machine, which only works with --nnodes 1 (other nodes could not know it)",
    )
    add(
        "--standalone",
        action="store_true",
        help="a single-node job on this machine: --nnodes 1 --master_addr 127.0.0.1 --master_port auto",
    )
    add(
        "-m",
        "--module",
        action="store_true",
        help="run the target as a module, like 'python -m' (the target is a module name)",
    )
    add(
        "--no_python",
        "--no-python",
        action="store_true",
        help="run the target as a program of its own, without 'python' in front of it",
    )
    add(
        "--logdir",
        "--log_dir",
        "--log-dir",
        default=None,
        metavar="DIR",
        help="write the output of the process with rank R to DIR/rank_R/stdout.log and stderr.log "
        "(both streams unless --redirects says otherwise)",
    )
    add(
        "--redirects",
        type=_parse_redirects,
        default=None,
        metavar="SPEC",
        help="what goes to the --logdir files instead of the console: 0 nothing, 1 stdout, 2 stderr, "
        "3 both (default 3 with --logdir); or per local rank, e.g. '0:0,1:3'",
    )
    add(
        "--grace_period",
        "--grace-period",
        type=float,
        default=DEFAULT_GRACE_PERIOD,
        metavar="SECONDS",
        help=f"how long stopped processes get to exit after SIGTERM before SIGKILL (default {DEFAULT_GRACE_PERIOD:g})",
    )
    add(
        "training_script",
        metavar="script",
        help="the Python script to run (a module with -m, a program with --no_python)",
    )
    add(
        "training_script_args",
        nargs=argparse.REMAINDER,
        metavar="args",
        help="arguments passed to the script unchanged",
    )
    return parser


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """Parses and checks the launcher's arguments; bad ones exit with status 2 and a message."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.standalone:
        if args.nnodes != 1 or args.node_rank != 0:
            parser.error("--standalone is a single-node job: it cannot be combined with --nnodes/--node_rank")
        args.master_addr = DEFAULT_MASTER_ADDR
        args.master_port = 0
    if args.nproc_per_node < 1:
        parser.error(f"--nproc_per_node must be at least 1, got {args.nproc_per_node}")
    if args.nnodes < 1:
        parser.error(f"--nnodes must be at least 1, got {args.nnodes}")
    if not 0 <= args.node_rank < args.nnodes:
        parser.error(f"--node_rank must be in 0..{args.nnodes - 1} (--nnodes {args.nnodes}), got {args.node_rank}")
    if args.master_port == 0 and args.nnodes > 1:
        parser.error("--master_port 0/auto needs --nnodes 1: the other nodes must be told the port")
    if not args.master_addr:
        parser.error("--master_addr must not be empty")
    if args.grace_period < 0:
        parser.error(f"--grace_period must not be negative, got {args.grace_period:g}")
    if args.module and args.no_python:
        parser.error("-m/--module and --no_python cannot be combined")
    if args.redirects is None:
        args.redirects = 3 if args.logdir else 0
    if isinstance(args.redirects, dict):
        bad = sorted(r for r in args.redirects if r >= args.nproc_per_node)
        if bad:
            parser.error(f"--redirects names local rank {bad[0]}, but --nproc_per_node is {args.nproc_per_node}")
    if args.logdir is None and (args.redirects if isinstance(args.redirects, int) else any(args.redirects.values())):
        parser.error("--redirects needs --logdir (the directory for the files)")
    script = args.training_script
    if args.no_python:
        if shutil.which(script) is None:
            parser.error(f"program {script!r} not found or not executable")
    elif not args.module and not os.path.isfile(script):
        parser.error(f"script {script!r} not found")
    return args


def pick_free_port() -> int:
    """A TCP port that is free on every local address right now.

    The socket is closed before rank 0 binds the port, so another program could take it in
    between; binding to port 0 makes the kernel choose a port it has not handed out recently,
    which makes that unlikely.
    """
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("", 0))
        return s.getsockname()[1]


def worker_command(args: argparse.Namespace) -> list[str]:
    """The command line every local process runs."""
    if args.no_python:
        cmd = [args.training_script]
    else:
        # Unbuffered, so the output a process wrote before it was stopped is not lost.
        cmd = [sys.executable, "-u"]
        if args.module:
            cmd.append("-m")
        cmd.append(args.training_script)
    return cmd + list(args.training_script_args)


def worker_env(args: argparse.Namespace, local_rank: int, base: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of local process ``local_rank`` (``base`` defaults to the launcher's)."""
    env = dict(os.environ if base is None else base)
    env.update(
        MASTER_ADDR=args.master_addr,
        MASTER_PORT=str(args.master_port),
        WORLD_SIZE=str(args.nnodes * args.nproc_per_node),
        RANK=str(args.node_rank * args.nproc_per_node + local_rank),
        LOCAL_RANK=str(local_rank),
        LOCAL_WORLD_SIZE=str(args.nproc_per_node),
        GROUP_RANK=str(args.node_rank),
        GROUP_WORLD_SIZE=str(args.nnodes),
    )
    # Several processes each running a thread per core would oversubscribe the machine.
    if args.nproc_per_node > 1 and "OMP_NUM_THREADS" not in env:
        env["OMP_NUM_THREADS"] = "1"
    return env


def exit_code_of(returncode: int) -> int:
    """A process's exit status as the launcher reports it: 128 + N for death by signal N."""
    return 128 - returncode if returncode < 0 else returncode


def _signal_name(signum: int) -> str:
    try:
        return signal.Signals(signum).name
    except ValueError:
        return f"signal {signum}"


def _describe_exit(returncode: int) -> str:
    if returncode < 0:
        return f"was killed by {_signal_name(-returncode)}"
    return f"exited with code {returncode}"


def _parent_death_setup():
    """A preexec function that makes a process get SIGTERM when the launcher dies (Linux only)."""
    if not sys.platform.startswith("linux"):
        return None
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        prctl = libc.prctl
    except (OSError, AttributeError):
        return None
    pr_set_pdeathsig = 1
    launcher_pid = os.getpid()

    def setup() -> None:
        prctl(pr_set_pdeathsig, int(signal.SIGTERM), 0, 0, 0)
        # The launcher may have died before the line above took effect.
        if os.getppid() != launcher_pid:
            os.kill(os.getpid(), signal.SIGTERM)

    return setup


class _Worker:
    """One local process and what the launcher knows about it."""

    def __init__(self, local_rank: int, rank: int) -> None:
        self.local_rank = local_rank
        self.rank = rank
        self.proc: subprocess.Popen | None = None
        self.returncode: int | None = None
        self.stderr_path: str | None = None
        self.files: list = []

    def name(self) -> str:
        pid = self.proc.pid if self.proc is not None else "-"
        return f"rank {self.rank} (local rank {self.local_rank}, pid {pid})"

    def poll(self) -> int | None:
        if self.returncode is None and self.proc is not None:
            self.returncode = self.proc.poll()
        return self.returncode

    def running(self) -> bool:
        return self.proc is not None and self.proc.returncode is None

    def signal(self, signum: int) -> None:
        """Sends ``signum`` to the process's group (it and the processes it started)."""
        if not self.running():
            return
        try:
            os.killpg(self.proc.pid, signum)
        except ProcessLookupError:  # it left its group; signal it alone
            try:
                os.kill(self.proc.pid, signum)
            except ProcessLookupError:
                pass
        except PermissionError:
            pass

    def close_files(self) -> None:
        for f in self.files:
            f.close()
        self.files = []


class _Launcher:
    """Starts the local processes, watches them and stops them all on a failure or a signal."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.workers = [_Worker(i, args.node_rank * args.nproc_per_node + i) for i in range(args.nproc_per_node)]
        self.stopping = False
        self.signum: int | None = None

    def _on_signal(self, signum: int, frame) -> None:
        if self.stopping:
            # A second request while stopping: do not wait for the grace period.
            _log(f"got {_signal_name(signum)} while stopping; sending SIGKILL")
            self._signal_all(signal.SIGKILL)
            return
        self.stopping = True
        self.signum = signum
        _log(f"got {_signal_name(signum)}; forwarding it to the processes")
        self._signal_all(signum)

    def _signal_all(self, signum: int) -> None:
        for w in self.workers:
            w.signal(signum)

    def _open_outputs(self, w: _Worker) -> dict:
        redirects = self.args.redirects
        level = redirects.get(w.local_rank, 0) if isinstance(redirects, dict) else redirects
        if not level:
            return {}
        rank_dir = os.path.join(self.args.logdir, f"rank_{w.rank}")
        os.makedirs(rank_dir, exist_ok=True)
        streams = {}
        for bit, stream in ((1, "stdout"), (2, "stderr")):
            if level & bit:
                path = os.path.join(rank_dir, f"{stream}.log")
                f = open(path, "wb")  # closed once the process has started
                w.files.append(f)
                streams[stream] = f
                if stream == "stderr":
                    w.stderr_path = path
        return streams

    def _start(self) -> None:
        cmd = worker_command(self.args)
        preexec = _parent_death_setup()
        for w in self.workers:
            if self.stopping:  # a signal arrived while starting
                return
            w.proc = subprocess.Popen(
                cmd,
                env=worker_env(self.args, w.local_rank),
                start_new_session=True,
                preexec_fn=preexec,
                **self._open_outputs(w),
            )
            w.close_files()  # the process has its own copies

    def _wait_stopped(self) -> None:
        """Waits up to the grace period for the processes to exit, then kills the rest."""
        deadline = time.monotonic() + self.args.grace_period
        while any(w.poll() is None for w in self.workers if w.proc is not None):
            if time.monotonic() >= deadline:
                left = [w.name() for w in self.workers if w.running()]
                _log(
                    f"{', '.join(left)} still running {self.args.grace_period:g} s after being told to stop; "
                    "sending SIGKILL"
                )
                self._signal_all(signal.SIGKILL)
                for w in self.workers:
                    if w.proc is not None:
                        w.returncode = w.proc.wait()
                return
            time.sleep(_POLL_INTERVAL)

    def _report_failure(self, w: _Worker) -> None:
        others = sum(1 for o in self.workers if o is not w and o.running())
        _log(f"{w.name()} {_describe_exit(w.returncode)}; stopping the other {others} running process(es)")
        if w.stderr_path:
            try:
                with open(w.stderr_path, errors="replace") as f:
                    tail = f.readlines()[-_STDERR_TAIL_LINES:]
            except OSError:
                tail = []
            _log(f"its stderr is in {w.stderr_path}" + ("; it ends with:" if tail else ""))
            sys.stderr.write("".join(tail))
            sys.stderr.flush()

    def _watch(self) -> int:
        while True:
            if self.signum is not None:
                self._wait_stopped()
                return 128 + self.signum
            failed = None
            for w in self.workers:
                if w.poll() not in (None, 0) and failed is None:
                    failed = w
            if failed is not None and self.signum is None:
                self.stopping = True
                self._report_failure(failed)
                self._signal_all(signal.SIGTERM)
                self._wait_stopped()
                return exit_code_of(failed.returncode)
            if all(w.returncode == 0 for w in self.workers):
                return 0
            time.sleep(_POLL_INTERVAL)

    def run(self) -> int:
        handled = []
        for name in _FORWARDED_SIGNALS:
            signum = getattr(signal, name, None)
            if signum is not None:
                handled.append((signum, signal.signal(signum, self._on_signal)))
        try:
            try:
                self._start()
            except OSError as e:
                _log(f"could not start {worker_command(self.args)[0]!r}: {e}")
                self.stopping = True
                self._signal_all(signal.SIGTERM)
                self._wait_stopped()
                return 1
            return self._watch()
        finally:
            for signum, previous in handled:
                signal.signal(signum, previous)
            for w in self.workers:
                w.close_files()


def main(argv: Sequence[str] | None = None) -> int:
    """Runs the launcher with ``argv`` (default ``sys.argv[1:]``) and returns its exit status."""
    args = parse_args(argv)
    if args.master_port == 0:
        args.master_port = pick_free_port()
    if args.nproc_per_node > 1 and "OMP_NUM_THREADS" not in os.environ:
        _log(
            "OMP_NUM_THREADS is not set; setting it to 1 for each process so that they do not oversubscribe "
            "the cores (set it yourself to tune this)"
        )
    return _Launcher(args).run()


if __name__ == "__main__":
    sys.exit(main())
