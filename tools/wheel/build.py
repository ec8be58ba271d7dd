"""Copies every package's wheel into one folder, under its PEP 427 file name.

    ./tools/bazel run //tools/wheel:build -- --output_dir DIR

then `pip install DIR/*.whl` (or any one of them plus the oneflow wheel).
"""

import argparse
import os
import shutil
import sys
import zipfile


def wheel_filename(path: str) -> str:
    """The PEP 427 name of the wheel at `path`, read from its own dist-info."""
    with zipfile.ZipFile(path) as zf:
        dist_info = next(n.split("/")[0] for n in zf.namelist() if n.endswith(".dist-info/WHEEL"))
        tag = next(
            line.split(":", 1)[1].strip()
            for line in zf.read(f"{dist_info}/WHEEL").decode().splitlines()
            if line.startswith("Tag:")
        )
    return f"{dist_info[: -len('.dist-info')]}-{tag}.whl"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--output_dir", required=True, help="folder to write the .whl files into")
    p.add_argument("wheels", nargs="*", help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    # `bazel run` starts us in the runfiles tree; relative output paths mean the caller's folder.
    out = a.output_dir
    if not os.path.isabs(out):
        out = os.path.join(os.environ.get("BUILD_WORKING_DIRECTORY", os.getcwd()), out)
    os.makedirs(out, exist_ok=True)
    for src in a.wheels:
        name = wheel_filename(src)
        tmp = os.path.join(out, "." + name + ".tmp")
        shutil.copyfile(src, tmp)
        os.replace(tmp, os.path.join(out, name))
        print(os.path.join(out, name))
    return 0


if __name__ == "__main__":
    sys.exit(main())
