"""Hostile arguments give Python exceptions, never a crash or a huge allocation.

Each expression runs in a child process, so a segfault fails this test instead
of killing the test runner.
"""

import subprocess
import sys

import pytest

CASES = [
    ("flow.zeros(2**62)", "RuntimeError", "overflowed"),
    ("flow.empty(2**61, dtype=flow.float64)", "RuntimeError", "overflowed"),
    ("flow.zeros(2**31, 2**31, 2**31)", "RuntimeError", "overflows int64"),
    ("flow.arange(-2**63, 2**63 - 1, 1)", "RuntimeError", "overflows int64"),
    ("flow.arange(0, 1e300, 1e-300)", "RuntimeError", "too many elements"),
    ("flow.arange(0, float('nan'))", "RuntimeError", "unsupported range"),
    ("flow.linspace(0, 1, 2**62)", "RuntimeError", "overflowed"),
    ("flow.eye(2**40)", "RuntimeError", "overflows int64"),
    ("flow.zeros(3)[::2**63 - 1].shape", None, None),
    ("flow.zeros(3).narrow(0, 2, 2**63 - 1)", "RuntimeError", "exceeds dimension size"),
    ("flow.zeros(4).view(2**40, 2**40, 0)", "RuntimeError", "more elements than int64"),
    ("flow.full((2,), 2**70)", "RuntimeError", "int64"),
    ("flow.zeros(3)[2**70]", "IndexError", "out of bounds"),
    ("flow.zeros(3).expand(2**62, 3).contiguous()", "RuntimeError", "overflows int64"),
    ("flow.zeros(1).expand(2**62).unsqueeze(0).expand(2**62, 2**62)", "RuntimeError", "overflows int64"),
    ("repr(flow.zeros(1).expand(2**40))", None, None),
    ("repr(flow.zeros(1, 1).expand(2**30, 2**30))", None, None),
    ("flow.zeros(2).transpose(0.5, 1)", "TypeError", "transpose"),
    ("flow.zeros(2).view('a')", "TypeError", "size"),
    ("flow.zeros(2).permute(None)", "TypeError", "dims"),
    ("flow.tensor([1, 2], dtype=None).to('cuda:99')", "RuntimeError", "cuda"),
    ("flow.from_numpy(np.zeros(3, dtype='>f4'))", "ValueError", "big-endian"),
    ("flow.from_numpy(np.zeros((2, 2))[:, ::-1])", "ValueError", "negative"),
    ("flow.zeros(2).fill_('x')", "TypeError", "value"),
    ("flow.zeros(2).fill_(None)", "TypeError", "value"),
    ("flow.zeros(2).copy_(flow.zeros(3))", "RuntimeError", "must match the size"),
    ("flow.zeros(2, 3).slice(5, 0, 1, 1)", "IndexError", "range"),
    ("flow.device('cuda:99999999999')", "RuntimeError", "Invalid device"),
]


@pytest.mark.parametrize("expr, error, message", CASES, ids=[c[0] for c in CASES])
def test_hostile_argument(expr, error, message):
    code = (
        "import numpy as np, oneflow as flow\n"
        "try:\n"
        f"    {expr}\n"
        "    print('OK')\n"
        "except Exception as e:\n"
        "    print(type(e).__name__, e)\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False)
    assert r.returncode == 0, f"crashed with {r.returncode}: {r.stderr}"
    if error is None:
        assert r.stdout.startswith("OK"), r.stdout
    else:
        assert r.stdout.startswith(error + " "), r.stdout
        assert message in r.stdout, r.stdout
