"""Prints the launcher's variables and this script's arguments as one JSON line (for launch_test)."""

import json
import os
import sys

NAMES = (
    "MASTER_ADDR",
    "MASTER_PORT",
    "WORLD_SIZE",
    "RANK",
    "LOCAL_RANK",
    "LOCAL_WORLD_SIZE",
    "GROUP_RANK",
    "GROUP_WORLD_SIZE",
    "OMP_NUM_THREADS",
)

record = {name: os.environ.get(name) for name in NAMES}
record["argv"] = sys.argv[1:]
record["module"] = __name__ == "__main__" and __spec__ is not None
# One write, so that lines of concurrent processes do not interleave.
sys.stdout.write(json.dumps(record) + "\n")
