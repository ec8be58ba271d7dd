"""Higher-level differentiation of whole functions: jacobian, hessian and the vector products
(vjp, jvp, vhp, hvp), as ``torch.autograd.functional``.

Everything is built on ``oneflow.autograd.grad``; a forward-mode product is the double-backward
trick (the gradient of a vjp with respect to its seed), so no forward-mode AD is needed.
"""

from __future__ import annotations

from collections.abc import Callable

import oneflow
from oneflow.autograd import grad as _grad

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]


def _as_tuple(x, what: str, fn_name: str) -> tuple[bool, tuple]:
    """(was a tuple, the values as a tuple), checking every value is a Tensor."""
    is_tuple = isinstance(x, (tuple, list))
    values = tuple(x) if is_tuple else (x,)
    for i, v in enumerate(values):
        if not isinstance(v, oneflow.Tensor):
            if is_tuple:
                raise TypeError(
                    f"The {what} given to {fn_name} must be either a Tensor or a tuple of Tensors but the"
                    f" value at index {i} has type {type(v)}."
                )
            raise TypeError(
                f"The {what} given to {fn_name} must be either a Tensor or a tuple of Tensors but the"
                f" given {what} has type {type(v)}."
            )
    return is_tuple, values


def _outputs(fn_name: str, outputs) -> tuple[bool, tuple]:
    return _as_tuple(outputs, "outputs of the user-provided function", fn_name)


def _unpack(values, is_tuple: bool):
    return tuple(values) if is_tuple else values[0]


def _prepare(inputs: tuple, create_graph: bool, need_graph: bool) -> tuple:
    # Fresh leaves, so the caller's tensors keep their own .grad and graph; with create_graph an
    # input that already requires grad stays connected to its history.
    out = []
    for x in inputs:
        if create_graph and x.requires_grad:
            out.append(x.view_as(x))
        else:
            out.append(x.detach().requires_grad_(need_graph))
    return tuple(out)


def _finish(values, create_graph: bool):
    if isinstance(values, tuple):
        return tuple(_finish(v, create_graph) for v in values)
    if values is None or create_graph:
        return values
    return values.detach()


def _check_v(v: tuple, outputs: tuple, fn_name: str, what: str) -> None:
    if len(v) != len(outputs):
        raise RuntimeError(
            f"{fn_name}: v has {len(v)} tensors but the {what} has {len(outputs)}; they must match one to one"
        )
    for i, (a, b) in enumerate(zip(v, outputs)):
        if tuple(a.shape) != tuple(b.shape):
            raise RuntimeError(
                f"Mismatch in shape: {fn_name} got v[{i}] of shape {tuple(a.shape)} but the {what}[{i}] has"
                f" shape {tuple(b.shape)}"
            )


def _seed_from_scalar_output(v, outputs: tuple, fn_name: str) -> tuple:
    if v is not None:
        return _as_tuple(v, "v", fn_name)[1]
    if len(outputs) != 1 or outputs[0].numel() != 1:
        raise RuntimeError(
            "The vector v can only be None if the user-provided function returns a single Tensor with a single"
            f" element ({fn_name})."
        )
    return (oneflow.ones_like(outputs[0]),)


def _vector_grad(outputs: tuple, inputs: tuple, seeds: tuple, create_graph: bool, retain_graph=None) -> tuple:
    """autograd.grad that skips outputs without a graph and gives None for unreached inputs."""
    pairs = [(o, s) for o, s in zip(outputs, seeds) if o.requires_grad]
    if not pairs:
        return (None,) * len(inputs)
    outs, grads = zip(*pairs)
    return _grad(
        outs,
        inputs,
        grads,
        retain_graph=True if retain_graph is None else retain_graph,
        create_graph=create_graph,
        allow_unused=True,
    )


def _fill(results: tuple, like: tuple, strict: bool, fn_name: str, message: str) -> tuple:
    out = []
    for i, (r, x) in enumerate(zip(results, like)):
        if r is None:
            if strict:
                raise RuntimeError(message.format(i=i, fn_name=fn_name))
            r = oneflow.zeros_like(x)
        out.append(r)
    return tuple(out)


_INDEPENDENT = (
    "The output of the user-provided function is independent of input {i}. This is not allowed in strict mode."
)


def vjp(func: Callable, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """Computes the dot product of a vector ``v`` with the Jacobian of ``func`` at ``inputs``.

    Args:
        func (function): takes Tensor inputs, returns a Tensor or a tuple of Tensors.
        inputs (tuple of Tensors or Tensor): inputs to ``func``.
        v (tuple of Tensors or Tensor): the vector, shaped as ``func``'s output; may be omitted when
            ``func`` returns a single-element Tensor.
        create_graph (bool, optional): make the result differentiable. Default: ``False``.
        strict (bool, optional): raise when an input does not affect the outputs, instead of giving
            zeros. Default: ``False``.

    Returns:
        (func_output, vjp): ``vjp`` is shaped as ``inputs`` (a Tensor or a tuple of Tensors).
    """
    with oneflow.enable_grad():
        is_tuple, xs = _as_tuple(inputs, "inputs", "vjp")
        xs = _prepare(xs, create_graph, True)
        out_tuple, outs = _outputs("vjp", func(*xs))
        seeds = _seed_from_scalar_output(v, outs, "vjp")
        _check_v(seeds, outs, "vjp", "output of the user-provided function")
        grads = _vector_grad(outs, xs, seeds, create_graph)
        grads = _fill(grads, xs, strict, "vjp", _INDEPENDENT)
    return _finish(_unpack(outs, out_tuple), create_graph), _finish(_unpack(grads, is_tuple), create_graph)


def jvp(func: Callable, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """Computes the product of the Jacobian of ``func`` at ``inputs`` with a vector ``v``.

    Args:
        func (function): takes Tensor inputs, returns a Tensor or a tuple of Tensors.
        inputs (tuple of Tensors or Tensor): inputs to ``func``.
        v (tuple of Tensors or Tensor): the vector, shaped as ``inputs``; may be omitted when
            ``inputs`` is a single-element Tensor.
        create_graph (bool, optional): make the result differentiable. Default: ``False``.
        strict (bool, optional): raise when an output does not depend on the inputs, instead of
            giving zeros. Default: ``False``.

    Returns:
        (func_output, jvp): ``jvp`` is shaped as ``func``'s output.
    """
    with oneflow.enable_grad():
        is_tuple, xs = _as_tuple(inputs, "inputs", "jvp")
        if v is None:
            if len(xs) != 1 or xs[0].numel() != 1:
                raise RuntimeError(
                    "The vector v can only be None if the input to the user-provided function is a single Tensor"
                    " with a single element (jvp)."
                )
            vs = (oneflow.ones_like(xs[0]),)
        else:
            vs = _as_tuple(v, "v", "jvp")[1]
        _check_v(vs, xs, "jvp", "inputs")
        xs = _prepare(xs, create_graph, True)
        out_tuple, outs = _outputs("jvp", func(*xs))
        # J v is the gradient, with respect to the seed u, of the vjp u^T J (linear in u).
        us = tuple(oneflow.zeros_like(o).requires_grad_(True) for o in outs)
        vjps = _vector_grad(outs, xs, us, create_graph=True)
        pairs = [(g, s) for g, s in zip(vjps, vs) if g is not None and g.requires_grad]
        if pairs:
            gs, ss = zip(*pairs)
            result = _grad(gs, us, ss, retain_graph=True, create_graph=create_graph, allow_unused=True)
        else:
            result = (None,) * len(us)
        message = (
            "The output {i} of the user-provided function is independent of the inputs. This is not allowed in"
            " strict mode."
        )
        result = _fill(result, outs, strict, "jvp", message)
    return _finish(_unpack(outs, out_tuple), create_graph), _finish(_unpack(result, out_tuple), create_graph)


def jacobian(
    func: Callable,
    inputs,
    create_graph: bool = False,
    strict: bool = False,
    vectorize: bool = False,
    strategy: str = "reverse-mode",
):
    """The Jacobian of ``func`` at ``inputs``.

    Args:
        func (function): takes Tensor inputs, returns a Tensor or a tuple of Tensors.
        inputs (tuple of Tensors or Tensor): inputs to ``func``.
        create_graph (bool, optional): make the result differentiable. Default: ``False``.
        strict (bool, optional): raise when an input and an output are independent, instead of
            giving zeros. Default: ``False``.
        vectorize (bool, optional): accepted for compatibility; the rows are computed one by one.
        strategy (str, optional): ``"reverse-mode"`` or ``"forward-mode"`` (the latter needs
            ``vectorize=True``, as in PyTorch); both give the same values.

    Returns:
        A Tensor of shape ``output.shape + input.shape`` for one input and one output; a tuple over
        the inputs or the outputs when that side is a tuple; a tuple (over outputs) of tuples
        (over inputs) when both are.

        >>> oneflow.autograd.functional.jacobian(lambda x: x**2, oneflow.tensor([1.0, 2.0]))
        tensor([[2., 0.],
                [0., 4.]], dtype=oneflow.float32)
    """
    if strategy not in ("forward-mode", "reverse-mode"):
        raise ValueError(
            f'Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your function has more'
            f' outputs than inputs, "forward-mode" tends to be more performant. Otherwise, prefer to use'
            f' "reverse-mode". (got {strategy!r})'
        )
    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError(
                'torch.autograd.functional.jacobian: `strategy="forward-mode"` does not support `create_graph=True`'
            )
        if not vectorize:
            raise NotImplementedError(
                "Computing Jacobian using forward-AD or forward-over-reverse Hessian is only implemented for"
                " `vectorize=True`."
            )
    with oneflow.enable_grad():
        is_tuple, xs = _as_tuple(inputs, "inputs", "jacobian")
        xs = _prepare(xs, create_graph, True)
        out_tuple, outs = _outputs("jacobian", func(*xs))
        rows = []  # rows[i][j]: d outs[i] / d xs[j]
        for i, out in enumerate(outs):
            flat = out.reshape(-1)
            per_input = [[] for _ in xs]
            for k in range(flat.numel()):
                if flat.requires_grad:
                    gs = _grad(flat[k], xs, retain_graph=True, create_graph=create_graph, allow_unused=True)
                else:
                    gs = (None,) * len(xs)
                for j, (g, x) in enumerate(zip(gs, xs)):
                    if g is None:
                        if strict:
                            raise RuntimeError(
                                f"Output {i} of the user-provided function is independent of input {j}. This is"
                                " not allowed in strict mode."
                            )
                        g = oneflow.zeros_like(x)
                    per_input[j].append(g)
            row = []
            for j, x in enumerate(xs):
                if per_input[j]:
                    block = oneflow.stack(per_input[j], 0)
                else:  # an empty output
                    block = oneflow.zeros((0,) + tuple(x.shape), dtype=x.dtype)
                row.append(block.reshape(tuple(out.shape) + tuple(x.shape)))
            rows.append(tuple(row))
    rows = _finish(tuple(rows), create_graph)
    if out_tuple:
        return tuple(_unpack(r, is_tuple) for r in rows)
    return _unpack(rows[0], is_tuple)


def _scalar_output(fn_name: str, func: Callable) -> Callable:
    def call(*xs):
        out = func(*xs)
        is_tuple, outs = _outputs(fn_name, out)
        if is_tuple:
            raise RuntimeError(f"The function given to {fn_name} should return a single Tensor")
        if outs[0].numel() != 1:
            raise RuntimeError(
                f"The Tensor returned by the function given to {fn_name} should contain a single element"
            )
        return outs[0].reshape(())

    return call


def hessian(
    func: Callable,
    inputs,
    create_graph: bool = False,
    strict: bool = False,
    vectorize: bool = False,
    outer_jacobian_strategy: str = "reverse-mode",
):
    """The Hessian of a scalar function ``func`` at ``inputs``.

    Args:
        func (function): takes Tensor inputs, returns a Tensor with a single element.
        inputs (tuple of Tensors or Tensor): inputs to ``func``.
        create_graph (bool, optional): make the result differentiable. Default: ``False``.
        strict (bool, optional): raise when an input does not affect the output. Default: ``False``.
        vectorize (bool, optional): accepted for compatibility.
        outer_jacobian_strategy (str, optional): as :func:`jacobian`'s ``strategy``.

    Returns:
        A Tensor of shape ``input.shape + input.shape`` for one input, else a tuple of tuples whose
        ``[i][j]`` entry has shape ``inputs[i].shape + inputs[j].shape``.
    """
    is_tuple, xs = _as_tuple(inputs, "inputs", "hessian")
    scalar = _scalar_output("hessian", func)

    def gradient(*ys):
        with oneflow.enable_grad():
            out = scalar(*ys)
            gs = _vector_grad((out,), ys, (oneflow.ones_like(out),), create_graph=True)
            return _fill(gs, ys, strict, "hessian", _INDEPENDENT)

    result = jacobian(
        gradient, xs, create_graph=create_graph, strict=strict, vectorize=vectorize, strategy=outer_jacobian_strategy
    )
    if is_tuple:
        return result
    return result[0][0]


def _second_order(fn_name: str, func: Callable, inputs, v, create_graph: bool, strict: bool):
    with oneflow.enable_grad():
        is_tuple, xs = _as_tuple(inputs, "inputs", fn_name)
        if v is None:
            if len(xs) != 1 or xs[0].numel() != 1:
                raise RuntimeError(
                    "The vector v can only be None if the input to the user-provided function is a single Tensor"
                    f" with a single element ({fn_name})."
                )
            vs = (oneflow.ones_like(xs[0]),)
        else:
            vs = _as_tuple(v, "v", fn_name)[1]
        _check_v(vs, xs, fn_name, "inputs")
        xs = _prepare(xs, create_graph, True)
        out = _scalar_output(fn_name, func)(*xs)
        gs = _vector_grad((out,), xs, (oneflow.ones_like(out),), create_graph=True)
        gs = _fill(gs, xs, strict, fn_name, _INDEPENDENT)
        # The Hessian of a twice differentiable function is symmetric, so v^T H and H v coincide.
        pairs = [(g, s) for g, s in zip(gs, vs) if g.requires_grad]
        if pairs:
            g_used, s_used = zip(*pairs)
            result = _grad(g_used, xs, s_used, retain_graph=True, create_graph=create_graph, allow_unused=True)
        else:
            result = (None,) * len(xs)
        message = (
            "The jacobian of the user-provided function with respect to input {i} is independent of the input."
            " This is not allowed in strict mode."
        )
        result = _fill(result, xs, strict, fn_name, message)
    return _finish(out, create_graph), _finish(_unpack(result, is_tuple), create_graph)


def vhp(func: Callable, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """Computes the dot product of a vector ``v`` with the Hessian of a scalar ``func`` at ``inputs``.

    Args:
        func (function): takes Tensor inputs, returns a Tensor with a single element.
        inputs (tuple of Tensors or Tensor): inputs to ``func``.
        v (tuple of Tensors or Tensor): the vector, shaped as ``inputs``; may be omitted when
            ``inputs`` is a single-element Tensor.
        create_graph (bool, optional): make the result differentiable. Default: ``False``.
        strict (bool, optional): raise when an input does not affect the output. Default: ``False``.

    Returns:
        (func_output, vhp): ``vhp`` is shaped as ``inputs``.
    """
    return _second_order("vhp", func, inputs, v, create_graph, strict)


def hvp(func: Callable, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """Computes the product of the Hessian of a scalar ``func`` at ``inputs`` with a vector ``v``.

    Args:
        func (function): takes Tensor inputs, returns a Tensor with a single element.
        inputs (tuple of Tensors or Tensor): inputs to ``func``.
        v (tuple of Tensors or Tensor): the vector, shaped as ``inputs``; may be omitted when
            ``inputs`` is a single-element Tensor.
        create_graph (bool, optional): make the result differentiable. Default: ``False``.
        strict (bool, optional): raise when an input does not affect the output. Default: ``False``.

    Returns:
        (func_output, hvp): ``hvp`` is shaped as ``inputs``.
    """
    return _second_order("hvp", func, inputs, v, create_graph, strict)
