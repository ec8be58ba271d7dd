"""The whole tree is ruff-clean under the repository's .ruff.toml (ruff comes from the project
virtualenv, pinned in tools/requirements.txt)."""

import subprocess
import sys

from repo_files import repo_root


def test_ruff_check_is_clean():
    root = repo_root()
    r = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", "--output-format", "concise", "."],
        cwd=root,
        capture_output=True,
        text=True,
    )
    assert "No module named ruff" not in r.stderr, "ruff is missing: it comes from tools/requirements.txt"
    assert r.returncode == 0, f"ruff check . in {root} (fix with `ruff check --fix`):\n{r.stdout}{r.stderr}"
