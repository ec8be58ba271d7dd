"""Packs what a GPU machine without Bazel needs to run oneflow's CUDA build.

The device machines lent to sessions (see the README's CUDA section) have CUDA, a compiler and
Python, but neither Bazel nor this machine's Python: the extension must be linked there against
that Python. This script takes the object files of a `./tools/bazel build --config=cuda
//core/oneflow:_C.so` (all but the Python bindings, which tools/cuda/device_build.sh compiles
there), the generated headers the bindings include, the shared libraries that machine lacks
(oneDNN and its OpenCL loader) and the link line, and writes them to one compressed archive:

    python3 tools/cuda/make_device_bundle.py .device/bundle.tar.xz
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HOST_LIBS = ["/lib/x86_64-linux-gnu/libdnnl.so.2", "/lib/x86_64-linux-gnu/libOpenCL.so.1"]
GENERATED = ["ops/api/ops.h", "core/pybind/version.h", "core/oneflow/_version.py"]


def link_inputs() -> list[str]:
    """The object files of the extension's link, from Bazel's action graph."""
    out = subprocess.run(
        [
            os.path.join(ROOT, "tools/bazel"),
            "aquery",
            "--config=cuda",
            "--output=jsonproto",
            'mnemonic("CppLink", //core/oneflow:_C.so)',
        ],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    graph = json.loads(out)
    (action,) = graph["actions"]
    return [a for a in action["arguments"] if a.endswith((".o", ".lo", ".a")) and a.startswith("bazel-out/")]


def main(dest: str) -> None:
    objs = link_inputs()
    keep = [o for o in objs if "/core/pybind/" not in o]
    with tempfile.TemporaryDirectory() as tmp:
        bundle = os.path.join(tmp, "bundle")
        os.makedirs(os.path.join(bundle, "objs"))
        os.makedirs(os.path.join(bundle, "lib"))
        names = []
        for i, o in enumerate(keep):
            name = f"{i:03d}_{os.path.basename(o)}"
            shutil.copy(os.path.join(ROOT, o), os.path.join(bundle, "objs", name))
            names.append(name)
        bin_dir = os.path.join(ROOT, "bazel-bin")
        for g in GENERATED:
            os.makedirs(os.path.join(bundle, "gen", os.path.dirname(g)), exist_ok=True)
            shutil.copy(os.path.join(bin_dir, g), os.path.join(bundle, "gen", g))
        for lib in HOST_LIBS:
            shutil.copy(lib, os.path.join(bundle, "lib"))
        with open(os.path.join(bundle, "objs.txt"), "w") as f:
            f.write("\n".join(names) + "\n")
        os.makedirs(os.path.dirname(os.path.abspath(dest)), exist_ok=True)
        with tarfile.open(dest, "w:xz") as tar:
            tar.add(bundle, arcname="bundle")
    print(f"{dest}: {len(keep)} object files, {os.path.getsize(dest) / 1e6:.1f} MB")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, ".device/bundle.tar.xz"))
