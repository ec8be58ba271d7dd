"""Writes a marker when SIGTERM or SIGINT arrives (for launch_test).

Usage: signal_marker.py DIR. Each rank writes DIR/RANK.ready once its handlers are installed,
then sleeps; on a signal it appends the signal's name to DIR/RANK.signals and exits 0.
"""

import os
import signal
import sys
import time

out_dir = sys.argv[1]
rank = int(os.environ["RANK"])


def on_signal(signum, frame):
    with open(os.path.join(out_dir, f"{rank}.signals"), "a") as f:
        f.write(signal.Signals(signum).name + "\n")
    sys.exit(0)


signal.signal(signal.SIGTERM, on_signal)
signal.signal(signal.SIGINT, on_signal)
open(os.path.join(out_dir, f"{rank}.ready"), "w").close()
time.sleep(600)
