"""The repository's own source files, for the checks in this folder that read the whole tree.

The checks run as Bazel tests but read the source tree itself (through the real path of their own
file), not runfiles: their input is every file of the repository, which no Bazel target lists.
Their targets are tagged so that Bazel never caches their results.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

# Folders that are not the repository's own sources.
SKIPPED_DIRS = {".git", "__pycache__", ".ruff_cache", "third_party", "node_modules"}


def repo_root() -> Path:
    """The checkout this file belongs to (the WORKSPACE folder)."""
    here = Path(os.path.realpath(__file__)).parent
    for folder in (here, *here.parents):
        if (folder / "WORKSPACE").is_file() and (folder / "core").is_dir():
            return folder
    raise RuntimeError(f"no WORKSPACE above {here}: run the check from a checkout")


def source_files(root: Path, suffixes: tuple[str, ...]) -> Iterator[Path]:
    """Files under ``root`` ending with one of ``suffixes`` (Bazel output and third_party skipped),
    in sorted order."""
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS and not d.startswith("bazel-"))
        for name in sorted(files):
            if name.endswith(suffixes):
                yield Path(folder) / name
