"""Parity rows for the fused optimizer steps (ops/defs/optim.cc) against torch._fused_sgd_ /
_fused_adam_ / _fused_adamw_.

Both frameworks update clones of the drawn tensors in place; the rows return the updated
parameters and state. Ours lives in oneflow._C.ops, takes the same lists and keywords (no
grad_scale / found_inf) and returns an empty list instead of None.
"""

import parity
import pytest
import torch
from parity import OpCase, run_case

import oneflow as flow

SHAPES = [((5, 3), (5, 3), (5, 3), (5, 3), (5, 3)), ((40000,),) * 5, ((),) * 5]


def _ops(m):
    return torch if m is torch else flow._C.ops


def _clone(*ts):
    return [[t.detach().clone()] for t in ts]


def _sgd(m, p, g, buf, _unused, _unused2, *, first=False, **kw):
    p, g, buf = _clone(p, g, buf)
    momentum = kw.get("momentum", 0.9)
    args = dict(weight_decay=0.1, momentum=momentum, lr=0.1, dampening=0.0, nesterov=False, maximize=False)
    args.update(kw)
    _ops(m)._fused_sgd_(p, g, buf if momentum else [], is_first_step=first, **args)
    return (p[0], buf[0]) if momentum else p[0]


def _adam(m, p, g, ea, eas, mx, *, name="_fused_adam_", step=3.0, **kw):
    p, g, ea, eas, mx = _clone(p, g, ea, eas.abs(), mx.abs())
    amsgrad = kw.pop("amsgrad", False)
    steps = [m.tensor(step)]
    args = dict(lr=0.01, beta1=0.9, beta2=0.999, weight_decay=0.05, eps=1e-8, maximize=False)
    args.update(kw)
    getattr(_ops(m), name)(p, g, ea, eas, mx if amsgrad else [], steps, amsgrad=amsgrad, **args)
    return (p[0], ea[0], eas[0], mx[0]) if amsgrad else (p[0], ea[0], eas[0])


CASES = [
    OpCase(ops=("_fused_sgd_",), name="fused_sgd", fn=_sgd, shapes=SHAPES, grad=False, noncontiguous=False),
    OpCase(ops=("_fused_sgd_",), name="fused_sgd_first", fn=lambda m, *a: _sgd(m, *a, first=True),
           shapes=SHAPES, grad=False, noncontiguous=False),
    OpCase(ops=("_fused_sgd_",), name="fused_sgd_nesterov_maximize",
           fn=lambda m, *a: _sgd(m, *a, nesterov=True, maximize=True), shapes=SHAPES, grad=False,
           noncontiguous=False),
    OpCase(ops=("_fused_sgd_",), name="fused_sgd_no_momentum",
           fn=lambda m, *a: _sgd(m, *a, momentum=0.0, dampening=0.2), shapes=SHAPES, grad=False,
           noncontiguous=False),
    OpCase(ops=("_fused_adam_",), name="fused_adam", fn=_adam, shapes=SHAPES, grad=False, noncontiguous=False),
    OpCase(ops=("_fused_adam_",), name="fused_adam_amsgrad_maximize",
           fn=lambda m, *a: _adam(m, *a, amsgrad=True, maximize=True), shapes=SHAPES, grad=False,
           noncontiguous=False),
    OpCase(ops=("_fused_adamw_",), name="fused_adamw", fn=lambda m, *a: _adam(m, *a, name="_fused_adamw_"),
           shapes=SHAPES, grad=False, noncontiguous=False),
    OpCase(ops=("_fused_adamw_",), name="fused_adamw_amsgrad",
           fn=lambda m, *a: _adam(m, *a, name="_fused_adamw_", amsgrad=True, step=1.0, beta1=0.3),
           shapes=SHAPES, grad=False, noncontiguous=False),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_parity(case):
    assert run_case(case) > 0


# The vector loops of the fused Adam / AdamW step on every instruction set (AVX-512 and AVX2
# intrinsics, scalar on baseline), at lengths around each vector width (main loop and tail),
# float32 and float64, with every flag the loop branches on. Bounds are absolute: the values are
# O(1) and each step changes a parameter by about lr.
_ADAM_ISA_SCRIPT = """
import numpy as np, oneflow as flow, torch
rng = np.random.default_rng(7)
for dtype, atol in ((np.float32, 2e-6), (np.float64, 1e-13)):
    for n in (1, 3, 4, 7, 8, 15, 16, 17, 33, 100003):
        a = [rng.standard_normal(n).astype(dtype) for _ in range(5)]
        a[3], a[4] = np.abs(a[3]), np.abs(a[4])
        for name, amsgrad, maximize in (("_fused_adam_", False, False), ("_fused_adam_", True, True),
                                        ("_fused_adamw_", True, False), ("_fused_adamw_", False, True)):
            outs = []
            for m, ops in ((flow, flow._C.ops), (torch, torch)):
                p, g, ea, eas, mx = [[m.tensor(x.copy())] for x in a]
                getattr(ops, name)(p, g, ea, eas, mx if amsgrad else [], [m.tensor(3.0)], amsgrad=amsgrad,
                                   lr=0.01, beta1=0.9, beta2=0.999, weight_decay=0.05, eps=1e-8,
                                   maximize=maximize)
                outs.append([t[0].numpy() for t in (p, ea, eas, mx)])
            for x, y in zip(*outs):
                np.testing.assert_allclose(x, y, rtol=0, atol=atol, err_msg=f"{name} {dtype} n={n}")
print("ok")
"""


@pytest.mark.parametrize("isa", parity.ISAS)
def test_adam_vector_loops_on_each_instruction_set(isa):
    parity.assert_script_passes_on_isa(_ADAM_ISA_SCRIPT, isa)
