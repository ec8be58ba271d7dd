"""No .py, .cc or .h file over 800 lines ("when a file passes ~800 lines, ask what it is hiding",
STYLE.md), except those listed with a reason in file_length_allowlist.txt; the list only shrinks."""

from __future__ import annotations

from pathlib import Path

from repo_files import repo_root, source_files

LIMIT = 800
SUFFIXES = (".py", ".cc", ".h")
ALLOWLIST = Path(__file__).resolve().parent / "file_length_allowlist.txt"


def _allowlist() -> dict[str, str]:
    entries = {}
    for line in ALLOWLIST.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        path, _, reason = line.partition(":")
        assert reason.strip(), f"{ALLOWLIST.name}: {path} needs a reason after the colon"
        entries[path.strip()] = reason.strip()
    return entries


def _lengths(root: Path) -> dict[str, int]:
    out = {}
    for path in source_files(root, SUFFIXES):
        with open(path, "rb") as f:
            out[path.relative_to(root).as_posix()] = sum(1 for _ in f)
    return out


def test_no_new_long_files():
    allowed = _allowlist()
    long = {p: n for p, n in _lengths(repo_root()).items() if n > LIMIT and p not in allowed}
    assert not long, f"over {LIMIT} lines (split them, or list them with a reason in {ALLOWLIST.name}):\n" + "\n".join(
        f"{p}: {n} lines" for p, n in sorted(long.items())
    )


def test_allowlist_only_shrinks():
    lengths = _lengths(repo_root())
    stale = {p: lengths.get(p) for p in _allowlist() if lengths.get(p, 0) <= LIMIT}
    assert not stale, f"remove from {ALLOWLIST.name} (now {LIMIT} lines or fewer, or gone):\n" + "\n".join(
        f"{p}: {n} lines" if n is not None else f"{p}: no such file" for p, n in sorted(stale.items())
    )
