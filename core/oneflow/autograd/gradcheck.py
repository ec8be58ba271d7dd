"""Finite-difference checks of gradients: ``gradcheck`` and ``gradgradcheck``."""

from __future__ import annotations

import warnings
from collections.abc import Callable

import oneflow

__all__ = ["GradcheckError", "gradcheck", "gradgradcheck"]


class GradcheckError(RuntimeError):
    """Raised by :func:`gradcheck` and :func:`gradgradcheck` when a check fails."""


def _tuple(x) -> tuple:
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _is_diff(x) -> bool:
    return isinstance(x, oneflow.Tensor) and x.requires_grad and x.is_floating_point()


def _tensor_outputs(fn_name: str, out) -> tuple:
    outs = tuple(o for o in _tuple(out) if isinstance(o, oneflow.Tensor))
    if not outs:
        raise GradcheckError(f"{fn_name}: the function returned no Tensor to check")
    return outs


def _numerical(func: Callable, inputs: tuple, diff: list, outs: tuple, eps: float) -> list:
    """jac[i][j]: (outs[i].numel(), inputs[diff[j]].numel()), by central differences."""
    jac = [[None] * len(diff) for _ in outs]
    # Not under no_grad: gradgradcheck's function itself differentiates.
    for j, pos in enumerate(diff):
        x = inputs[pos]
        base = x.detach().clone()
        flat = base.reshape(-1)
        cols = [[] for _ in outs]
        for k in range(flat.numel()):
            value = float(flat[k])
            results = []
            for shifted in (value + eps, value - eps):
                args = list(inputs)
                moved = base.clone()
                with oneflow.no_grad():
                    moved.reshape(-1)[k] = shifted
                args[pos] = moved.requires_grad_(x.requires_grad)
                results.append(_tensor_outputs("gradcheck", func(*args)))
            for i, (a, b) in enumerate(zip(*results)):
                d = (a.detach().to(oneflow.float64) - b.detach().to(oneflow.float64)) / (2 * eps)
                cols[i].append(d.reshape(-1))
        for i, o in enumerate(outs):
            if cols[i]:
                jac[i][j] = oneflow.stack(cols[i], 1)
            else:
                jac[i][j] = oneflow.zeros((o.numel(), 0), dtype=oneflow.float64)
    return jac


def _analytical(outs: tuple, inputs: tuple, diff: list) -> list:
    wrt = [inputs[p] for p in diff]
    jac = [[[] for _ in diff] for _ in outs]
    for i, o in enumerate(outs):
        flat = o.reshape(-1)
        for k in range(flat.numel()):
            if flat.requires_grad:
                gs = oneflow.autograd.grad(flat[k], wrt, retain_graph=True, allow_unused=True)
            else:
                gs = (None,) * len(wrt)
            for j, (g, x) in enumerate(zip(gs, wrt)):
                g = oneflow.zeros_like(x) if g is None else g
                jac[i][j].append(g.detach().to(oneflow.float64).reshape(-1))
    result = [[None] * len(diff) for _ in outs]
    for i in range(len(outs)):
        for j, x in enumerate(wrt):
            rows = jac[i][j]
            result[i][j] = oneflow.stack(rows, 0) if rows else oneflow.zeros((0, x.numel()), dtype=oneflow.float64)
    return result


def _fail(raise_exception: bool, message: str) -> bool:
    if raise_exception:
        raise GradcheckError(message)
    return False


def gradcheck(
    func: Callable,
    inputs,
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    raise_exception: bool = True,
    nondet_tol: float = 0.0,
    check_undefined_grad: bool = True,
    check_grad_dtypes: bool = False,
    check_batched_grad: bool = False,
    check_batched_forward_grad: bool = False,
    check_forward_ad: bool = False,
    check_backward_ad: bool = True,
    fast_mode: bool = False,
    masked: bool | None = None,
) -> bool:
    """Checks the gradients of ``func`` at ``inputs`` against central finite differences.

    Every floating input with ``requires_grad=True`` is perturbed by ``eps`` element by element;
    each entry of the analytical Jacobian (from backward) must satisfy
    ``|analytical - numerical| <= atol + rtol * |numerical|``. Use float64 inputs: in single
    precision the finite differences are too coarse.

    Args:
        func (function): takes Tensor inputs, returns a Tensor or a tuple of Tensors.
        inputs (tuple of Tensors or Tensor): inputs to ``func``.
        eps (float, optional): the perturbation. Default: ``1e-6``.
        atol (float, optional): absolute tolerance. Default: ``1e-5``.
        rtol (float, optional): relative tolerance. Default: ``1e-3``.
        raise_exception (bool, optional): raise ``GradcheckError`` (a ``RuntimeError``) on
            failure instead of returning ``False``. Default: ``True``.
        nondet_tol (float, optional): how far two backward runs may differ. Default: ``0.0``.
        fast_mode (bool, optional): accepted; the full Jacobians are always compared.
        check_forward_ad, check_batched_grad, ... : accepted for compatibility; forward-mode and
            batched checks are not run.

    Returns:
        ``True`` if the gradients match.
    """
    inputs = _tuple(inputs)
    diff = [p for p, x in enumerate(inputs) if _is_diff(x)]
    if not diff:
        raise ValueError(
            "gradcheck expects at least one input tensor to require gradient, but none of the them have"
            " requires_grad=True."
        )
    for p in diff:
        if inputs[p].dtype != oneflow.float64:
            warnings.warn(
                f"Input #{p} requires gradient and is not a double precision floating point or complex. This check"
                " will likely fail if all the inputs are not of double precision floating point or complex.",
                stacklevel=2,
            )
    if not check_backward_ad:
        return True
    with oneflow.enable_grad():
        outs = _tensor_outputs("gradcheck", func(*inputs))
        analytical = _analytical(outs, inputs, diff)
        again = _analytical(_tensor_outputs("gradcheck", func(*inputs)), inputs, diff)
    numerical = _numerical(func, inputs, diff, outs, eps)
    for i in range(len(outs)):
        for j, p in enumerate(diff):
            a, b = analytical[i][j], again[i][j]
            if a.numel() and float((a - b).abs().max()) > nondet_tol:
                return _fail(
                    raise_exception,
                    f"Backward is not reentrant, i.e., running backward with same input and grad_output multiple"
                    f" times gives different values, although analytical gradient matches numerical gradient. The"
                    f" tolerance for nondeterminism was {nondet_tol}.",
                )
            n = numerical[i][j]
            if n.numel() == 0:
                continue
            if tuple(a.shape) != tuple(n.shape) or not bool(((a - n).abs() <= atol + rtol * n.abs()).all()):
                return _fail(
                    raise_exception,
                    f"Jacobian mismatch for output {i} with respect to input {p},\nnumerical:{n}\nanalytical:{a}\n",
                )
    return True


def gradgradcheck(
    func: Callable,
    inputs,
    grad_outputs=None,
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    gen_non_contig_grad_outputs: bool = False,
    raise_exception: bool = True,
    nondet_tol: float = 0.0,
    check_undefined_grad: bool = True,
    check_grad_dtypes: bool = False,
    check_batched_grad: bool = False,
    check_fwd_over_rev: bool = False,
    check_rev_over_rev: bool = True,
    fast_mode: bool = False,
    masked: bool = False,
) -> bool:
    """Checks the second derivatives of ``func`` against finite differences of its gradients.

    It runs :func:`gradcheck` on the map ``(inputs, grad_outputs) -> vjp``, i.e. on the gradients
    of ``func`` taken with ``create_graph=True``.

    Args:
        func (function): takes Tensor inputs, returns a Tensor or a tuple of Tensors.
        inputs (tuple of Tensors or Tensor): inputs to ``func``.
        grad_outputs (tuple of Tensors or Tensor, optional): the seeds of the first backward;
            random (and differentiated too) when omitted.
        eps, atol, rtol, raise_exception, nondet_tol: as in :func:`gradcheck`.

    Returns:
        ``True`` if the second derivatives match.
    """
    inputs = _tuple(inputs)
    if grad_outputs is None:
        with oneflow.enable_grad():
            outs = _tensor_outputs("gradgradcheck", func(*inputs))
        gen = oneflow.Generator().manual_seed(0)
        grad_outputs = tuple(
            oneflow.rand(o.shape, generator=gen, dtype=o.dtype).mul(2).sub(1).requires_grad_(True)
            for o in outs
            if o.is_floating_point()
        )
    else:
        grad_outputs = _tuple(grad_outputs)
    n_in = len(inputs)

    def first_derivative(*args):
        xs, seeds = args[:n_in], args[n_in:]
        outs = [o for o in _tensor_outputs("gradgradcheck", func(*xs)) if o.requires_grad]
        wrt = [x for x in xs if _is_diff(x)]
        pairs = [(o, s) for o, s in zip(outs, seeds)]
        if not pairs:
            return tuple(oneflow.zeros_like(x) for x in wrt)
        os_, ss = zip(*pairs)
        gs = oneflow.autograd.grad(os_, wrt, ss, create_graph=True, allow_unused=True)
        return tuple(oneflow.zeros_like(x) if g is None else g for g, x in zip(gs, wrt))

    return gradcheck(
        first_derivative,
        inputs + tuple(grad_outputs),
        eps=eps,
        atol=atol,
        rtol=rtol,
        raise_exception=raise_exception,
        nondet_tol=nondet_tol,
        fast_mode=fast_mode,
    )
