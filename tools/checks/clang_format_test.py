"""Every C++ file of the repository (third_party and Bazel output aside) is clang-format clean
(.clang-format: Google base, 100 columns).

clang-format comes from tools/bazel's apt packages; without the binary the test skips, saying so.
"""

import shutil
import subprocess

import pytest
from repo_files import repo_root, source_files

FOLDERS = ("core", "ops", "distributed", "graph", "libai", "flowvision", "serving", "tools")
SUFFIXES = (".cc", ".h", ".cu", ".inc")


def test_cpp_is_clang_formatted():
    binary = shutil.which("clang-format")
    if binary is None:
        pytest.skip("clang-format is not installed (tools/bazel installs it with its apt packages)")
    root = repo_root()
    files = [p for folder in FOLDERS if (root / folder).is_dir() for p in source_files(root / folder, SUFFIXES)]
    assert files, f"no C++ files under {FOLDERS}"
    r = subprocess.run(
        [binary, "--style=file", "--dry-run", "--Werror", *map(str, files)],
        cwd=root,
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, (
        f"not clang-formatted (fix with: clang-format -i --style=file <file>):\n{r.stdout}{r.stderr}"
    )
