"""``Variable``: the pre-0.4 wrapper of a tensor, kept as PyTorch keeps it, a thin alias."""

from __future__ import annotations

import oneflow

__all__ = ["Variable"]


class _VariableMeta(type):
    def __instancecheck__(cls, other) -> bool:
        return isinstance(other, oneflow.Tensor)


class Variable(metaclass=_VariableMeta):
    """Every Tensor is a Variable: ``isinstance(t, Variable)`` holds for any tensor.

    ``Variable(t, requires_grad=False)`` gives a new tensor sharing ``t``'s data, without its
    history, that requires grad as asked (as PyTorch's). ``Variable()`` is an empty tensor.

    Args:
        data (Tensor, optional): the tensor wrapped.
        requires_grad (bool, optional): whether the result requires grad. Default: ``False``.
        volatile (bool, optional): ignored, as in PyTorch (it has no effect since 0.4).
    """

    def __new__(cls, data=None, requires_grad: bool = False, volatile: bool = False):
        if data is None:
            return oneflow.tensor([]).requires_grad_(requires_grad)
        if not isinstance(data, oneflow.Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        return data.detach().requires_grad_(requires_grad)
