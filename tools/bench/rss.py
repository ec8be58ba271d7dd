"""Peak resident memory of GPT-2 training steps with one framework alone in this process.

    python rss.py oneflow|torch [--batch 4 --seq 128 --steps 3 --layers 12]

Prints the peak RSS in MiB after the steps (``VmHWM`` of /proc/self/status, which starts
afresh at exec, unlike ``ru_maxrss``, which a child inherits from the process that
started it): the model, AdamW's state, activations and the framework itself. models.py
runs it once per framework.
"""

from __future__ import annotations

import argparse
import importlib

import numpy as np
from references import gpt2_reference


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("framework", choices=["oneflow", "torch"])
    parser.add_argument("--batch", type=int, default=4)
    parser.add_argument("--seq", type=int, default=128)
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--layers", type=int, default=12)
    args = parser.parse_args()
    m = importlib.import_module(args.framework)
    m.manual_seed(0)
    model = gpt2_reference(m, depth=args.layers)
    opt = m.optim.AdamW(model.parameters(), lr=1e-4, weight_decay=1e-2)
    ids = m.from_numpy(np.random.default_rng(0).integers(0, 50257, (args.batch, args.seq)))
    targets = m.roll(ids, -1, 1).reshape(-1)
    for _ in range(args.steps):
        opt.zero_grad()
        logits = model(ids)
        m.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets).backward()
        opt.step()
    print(peak_rss_kib() / 1024.0)


def peak_rss_kib() -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    raise RuntimeError("no VmHWM line in /proc/self/status")


if __name__ == "__main__":
    main()
