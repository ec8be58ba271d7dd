"""The parity harness: one randomly drawn case runs through oneflow and torch, forward
and backward, and the results are compared within tolerance (like OneFlow's AutoTest).

An op is covered by an OpCase:

    OpCase(
        ops=("add", "add_"),                    # registry names this case covers
        fn=lambda m, a, b: m.add(a, b),         # m is the module: oneflow or torch
        shapes=[((2, 3), (2, 3)), ((2, 3), ()), ((0, 3), (3,))],
        dtypes=("float32", "float64", "int64"),
    )

For every input-shape tuple and dtype, inputs are drawn from a seeded generator
in `domain` (ints in `int_domain`), optionally made non-contiguous, and run
through both frameworks. Floating inputs require grad when `grad` is set; the
outputs are then seeded with the same random gradient and the input gradients
compared too. Rows whose values cannot match torch's (random ops) pass `check`,
a property both frameworks' outputs must have, instead of a value comparison.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

import numpy as np
import torch

import oneflow as flow

_TOL = {
    "float16": (2e-2, 2e-2),
    "bfloat16": (5e-2, 5e-2),
    "float32": (2e-5, 2e-5),
    "float64": (1e-9, 1e-9),
}


@dataclasses.dataclass
class OpCase:
    ops: Sequence[str]
    fn: Callable
    shapes: Sequence[Sequence[tuple]]
    dtypes: Sequence[str] = ("float32", "float64")
    domain: tuple = (-2.0, 2.0)
    int_domain: tuple = (-5, 6)
    grad: bool = True
    noncontiguous: bool = True
    rtol: float | None = None
    atol: float | None = None
    # Inputs at these positions are never made to require grad (indices, masks).
    no_grad_inputs: Sequence[int] = ()
    # Inputs at these positions are bool masks.
    bool_inputs: Sequence[int] = ()
    name: str = ""
    # For outputs that cannot match torch's values (random ops): when set, run_case calls
    # check(ours_outputs, torch_outputs, dtype) with the lists of outputs instead of comparing
    # values; shapes and dtypes are still compared.
    check: Callable | None = None

    def __post_init__(self):
        if not self.name:
            self.name = self.ops[0]


def _draw(rng, shape, dtype, case: OpCase, index: int) -> np.ndarray:
    if index in case.bool_inputs or dtype == "bool":
        return rng.random(shape) < 0.5
    if dtype in ("float16", "bfloat16", "float32", "float64"):
        lo, hi = case.domain
        return rng.uniform(lo, hi, size=shape)
    lo, hi = case.int_domain
    if dtype == "uint8":
        lo = max(lo, 0)
    return rng.integers(lo, hi, size=shape)


def _make_pair(array: np.ndarray, dtype: str, noncontiguous: bool):
    t = torch.tensor(array).to(getattr(torch, dtype))
    o = flow.tensor(array).to(getattr(flow, dtype))
    if noncontiguous and array.ndim >= 2:
        # Same values, transposed layout.
        t = t.transpose(0, -1).contiguous().transpose(0, -1)
        o = o.transpose(0, -1).contiguous().transpose(0, -1)
    return o, t


def _to_numpy(x):
    if isinstance(x, torch.Tensor):
        if x.dtype == torch.bfloat16:
            x = x.float()
        return x.detach().numpy()
    if x.dtype == flow.bfloat16:
        x = x.float()
    return x.detach().numpy()


def _flatten(out):
    if isinstance(out, (tuple, list)):
        return list(out)
    return [out]


def assert_same_meta(ours, theirs, what: str) -> None:
    """Same shape, same dtype name."""
    assert tuple(ours.shape) == tuple(theirs.shape), f"{what}: shape {tuple(ours.shape)} vs torch {tuple(theirs.shape)}"
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1], (
        f"{what}: dtype {ours.dtype} vs torch {theirs.dtype}"
    )


def assert_close(ours, theirs, dtype: str, case: OpCase, what: str) -> None:
    """Same shape, same dtype name, values within the dtype's tolerance."""
    assert_same_meta(ours, theirs, what)
    rtol, atol = _TOL.get(str(theirs.dtype).split(".")[-1], (0, 0))
    rtol = case.rtol if case.rtol is not None else rtol
    atol = case.atol if case.atol is not None else atol
    np.testing.assert_allclose(_to_numpy(ours), _to_numpy(theirs), rtol=rtol, atol=atol, equal_nan=True,
                               err_msg=what)


def run_case(case: OpCase, seed: int = 0) -> int:
    """Runs every shape x dtype x layout combination of `case`; returns how many ran."""
    runs = 0
    for si, shapes in enumerate(case.shapes):
        for dtype in case.dtypes:
            layouts = (False, True) if case.noncontiguous else (False,)
            for noncontig in layouts:
                if noncontig and not any(len(s) >= 2 for s in shapes):
                    continue
                rng = np.random.default_rng(seed + 1000 * si)
                arrays = [_draw(rng, s, dtype, case, i) for i, s in enumerate(shapes)]
                pairs = []
                for i, a in enumerate(arrays):
                    d = "bool" if i in case.bool_inputs else dtype
                    pairs.append(_make_pair(a, d, noncontig))
                floating = dtype in _TOL
                want_grad = case.grad and floating
                if want_grad:
                    for i, (o, t) in enumerate(pairs):
                        if i not in case.no_grad_inputs and i not in case.bool_inputs:
                            o.requires_grad_(True)
                            t.requires_grad_(True)
                ours_in = [o for o, _ in pairs]
                theirs_in = [t for _, t in pairs]
                what = f"{case.name} shapes={shapes} dtype={dtype} noncontiguous={noncontig}"
                try:
                    theirs = _flatten(case.fn(torch, *theirs_in))
                except Exception as e:
                    try:
                        case.fn(flow, *ours_in)
                    except Exception as ours_e:
                        assert type(ours_e).__name__ == type(e).__name__ or isinstance(ours_e, type(e)), (
                            f"{what}: torch raised {type(e).__name__}, we raised {type(ours_e).__name__}: {ours_e}"
                        )
                        runs += 1
                        continue
                    raise AssertionError(f"{what}: torch raised {type(e).__name__}: {e}; we did not") from None
                ours = _flatten(case.fn(flow, *ours_in))
                assert len(ours) == len(theirs), f"{what}: {len(ours)} outputs vs torch {len(theirs)}"
                for k, (o, t) in enumerate(zip(ours, theirs)):
                    if case.check is None:
                        assert_close(o, t, dtype, case, f"{what} output {k}")
                    else:
                        assert_same_meta(o, t, f"{what} output {k}")
                if case.check is not None:
                    case.check(ours, theirs, dtype)
                runs += 1
                if not want_grad:
                    continue
                diff = [(o, t) for o, t in zip(ours, theirs) if t.requires_grad]
                if not diff:
                    continue
                grng = np.random.default_rng(seed + 7)
                seeds = [grng.uniform(-1, 1, size=tuple(t.shape)) for _, t in diff]
                torch.autograd.backward([t for _, t in diff],
                                        [torch.tensor(s).to(t.dtype) for s, (_, t) in zip(seeds, diff)])
                flow.autograd.backward([o for o, _ in diff],
                                       [flow.tensor(s).to(o.dtype) for s, (o, _) in zip(seeds, diff)])
                for i, (o, t) in enumerate(pairs):
                    if not t.requires_grad:
                        continue
                    if t.grad is None:
                        assert o.grad is None or not np.any(_to_numpy(o.grad)), f"{what}: grad {i} should be None"
                        continue
                    assert o.grad is not None, f"{what}: missing grad of input {i}"
                    assert_close(o.grad, t.grad, dtype, case, f"{what} grad of input {i}")
    return runs


def covered_ops(cases: Sequence[OpCase]) -> set:
    return {name for c in cases for name in c.ops}


ISAS = ("native", "avx2", "baseline")


def assert_script_passes_on_isa(script: str, isa: str) -> None:
    """Runs `script` (which prints "ok" when its checks pass) in a fresh interpreter with the
    hand-vectorized kernels pinned to one instruction set (ONEFLOW_VEC_ISA, which every CPU
    kernel reads; "native" = the widest this CPU has), so every copy of a per-ISA kernel is
    exercised on this machine."""
    import os
    import subprocess
    import sys

    env = dict(os.environ)
    if isa != "native":
        env["ONEFLOW_VEC_ISA"] = isa
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=600,
                         check=False)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr


def raises_like_torch(fn: Callable, *, allow_subclass: bool = False) -> str:
    """Runs ``fn(torch)`` and ``fn(oneflow)``: both must raise, and ours the same exception type
    as torch's (by name; a subclass of it too when ``allow_subclass``). Returns our message, for
    the caller's checks on what it says."""
    import pytest

    with pytest.raises(Exception) as theirs:
        fn(torch)
    with pytest.raises(Exception) as ours:
        fn(flow)
    same = type(ours.value).__name__ == type(theirs.value).__name__
    assert same or (allow_subclass and isinstance(ours.value, type(theirs.value))), (
        f"torch raised {type(theirs.value).__name__}: {theirs.value}; "
        f"we raised {type(ours.value).__name__}: {ours.value}"
    )
    return str(ours.value)
