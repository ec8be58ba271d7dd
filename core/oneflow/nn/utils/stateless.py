"""``functional_call``: run a module with some of its parameters and buffers temporarily replaced
by given tensors (the same API as ``torch.nn.utils.stateless``)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import oneflow
from oneflow.nn.modules.module import Module

__all__ = ["functional_call"]

_MISSING = object()


def _untie(module: Module, tensors: dict[str, oneflow.Tensor]) -> dict[str, oneflow.Tensor]:
    """Extends ``tensors`` to every name tied to a given one (the same tensor under several
    names), refusing different values for names that are tied."""
    named: dict[str, oneflow.Tensor] = {}
    named.update(module.named_parameters(remove_duplicate=False))
    named.update(module.named_buffers(remove_duplicate=False))
    groups: dict[int, set[str]] = {}
    for name, tensor in named.items():
        groups.setdefault(id(tensor), set()).add(name)
    tied = {name: names for names in groups.values() if len(names) > 1 for name in names}
    given = [name for name in tensors if name in tied]
    for name in given:
        names = tied[name]
        if len(names.intersection(given)) > 1 and len({id(tensors[n]) for n in names if n in tensors}) != 1:
            raise ValueError(
                f"functional_call got multiple values for keys {sorted(names)}, which are tied. "
                "Consider using tie_weights=False"
            )
    untied = dict(tensors)
    for name in given:
        for other in tied[name]:
            untied[other] = tensors[name]
    return untied


def _resolve(module: Module, path: str) -> tuple[Module, str]:
    *prefix, name = path.split(".")
    owner = module
    for part in prefix:
        child = getattr(owner, part, None)
        if not isinstance(child, Module):
            raise AttributeError(f"{owner._get_name()} has no submodule `{part}` (in {path!r})")
        owner = child
    return owner, name


def _swap(module: Module, path: str, value: Any) -> Any:
    """Puts ``value`` at ``path`` (bypassing the Parameter type check, as the replacement may be
    any tensor) and returns what was there (``_MISSING`` when nothing was)."""
    owner, name = _resolve(module, path)
    if value is not _MISSING and not isinstance(value, oneflow.Tensor):
        raise TypeError(f"functional_call: the value for {path!r} must be a Tensor, got {type(value).__name__}")
    if name in owner._parameters:
        old, owner._parameters[name] = owner._parameters[name], value
    elif name in owner._buffers:
        old, owner._buffers[name] = owner._buffers[name], value
    else:
        old = getattr(owner, name, _MISSING)
        if value is _MISSING:
            delattr(owner, name)
            return old
        object.__setattr__(owner, name, value) if old is _MISSING else setattr(owner, name, value)
        return old
    if value is _MISSING:  # restoring a name that did not exist
        registry = owner._parameters if name in owner._parameters else owner._buffers
        del registry[name]
    return old


@contextlib.contextmanager
def _reparametrize_module(
    module: Module, tensors: dict[str, oneflow.Tensor], tie_weights: bool = False, strict: bool = False
) -> Iterator[None]:
    untied = _untie(module, tensors) if tie_weights else tensors
    if strict:
        expected = {n for n, _ in module.named_parameters(remove_duplicate=False)}
        expected |= {n for n, _ in module.named_buffers(remove_duplicate=False)}
        errors = []
        unexpected = sorted(set(untied) - expected)
        missing = sorted(expected - set(untied))
        if unexpected:
            errors.append(f"Unexpected key(s): {', '.join(map(repr, unexpected))}.")
        if missing:
            errors.append(f"Missing key(s): {', '.join(map(repr, missing))}.")
        if errors:
            raise RuntimeError(
                "Error(s) in reparametrizing for {}:\n\t{}".format(module._get_name(), "\n\t".join(errors))
            )
    originals: dict[str, Any] = {}
    try:
        for name, value in untied.items():
            originals[name] = _swap(module, name, value)
        yield
    finally:
        for name, value in reversed(list(originals.items())):
            _swap(module, name, value)


def functional_call(
    module: Module,
    parameters_and_buffers: dict[str, oneflow.Tensor],
    args: Any | tuple | None = None,
    kwargs: dict[str, Any] | None = None,
    *,
    tie_weights: bool = True,
    strict: bool = False,
) -> Any:
    r"""Calls ``module(*args, **kwargs)`` with its parameters and buffers named in
    ``parameters_and_buffers`` replaced by the given tensors; the module is restored afterwards.
    Gradients flow to the given tensors.

    Args:
        module: the module to call.
        parameters_and_buffers: dotted names (as in ``named_parameters()``) to tensors.
        args: the positional arguments (a single non-tuple value is one argument).
        kwargs: the keyword arguments.
        tie_weights: a tensor given for one of several tied names is used for all of them.
            Default: ``True``.
        strict: the names must be exactly the module's parameters and buffers. Default: ``False``.

    Returns:
        what ``module`` returns.

    Example::

        >>> m = nn.Linear(3, 2)
        >>> w = flow.zeros(2, 3, requires_grad=True)
        >>> functional_call(m, {"weight": w}, flow.ones(1, 3)).sum().backward()
    """
    if not isinstance(module, Module):
        raise TypeError(f"functional_call: module must be an nn.Module, got {type(module).__name__}")
    if type(module).__name__ == "DataParallel":
        raise RuntimeError("The stateless API can't be used with nn.DataParallel module")
    if not isinstance(parameters_and_buffers, dict):
        raise TypeError(
            "functional_call: parameters_and_buffers must be a dict from names to tensors, got "
            f"{type(parameters_and_buffers).__name__}"
        )
    kwargs = {} if kwargs is None else kwargs
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    with _reparametrize_module(module, parameters_and_buffers, tie_weights=tie_weights, strict=strict):
        return module(*args, **kwargs)
