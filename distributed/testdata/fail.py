"""One rank fails while the others sleep (for launch_test).

Usage: fail.py PIDDIR FAIL_RANK CODE|kill [ignore_term]. Every rank writes PIDDIR/RANK.pid; rank
FAIL_RANK waits until all have, then exits with CODE (or kills itself with SIGKILL); the others
sleep, ignoring SIGTERM if asked, until the launcher stops them.
"""

import os
import signal
import sys
import time

pid_dir, fail_rank, how = sys.argv[1], int(sys.argv[2]), sys.argv[3]
rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
if "ignore_term" in sys.argv[4:]:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
with open(os.path.join(pid_dir, f"{rank}.pid.tmp"), "w") as f:
    f.write(str(os.getpid()))
os.rename(os.path.join(pid_dir, f"{rank}.pid.tmp"), os.path.join(pid_dir, f"{rank}.pid"))

if rank == fail_rank:
    while len([n for n in os.listdir(pid_dir) if n.endswith(".pid")]) < world:
        time.sleep(0.02)
    print(f"rank {rank} fails now", file=sys.stderr, flush=True)
    if how == "kill":
        os.kill(os.getpid(), signal.SIGKILL)
    sys.exit(int(how))
time.sleep(600)
