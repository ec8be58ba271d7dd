"""``oneflow.framework.tensor``: ``Tensor`` and ``register_tensor_op``, under OneFlow's path."""

from __future__ import annotations

from collections.abc import Callable

from oneflow import Tensor

__all__ = ["Tensor", "register_tensor_op"]


def register_tensor_op(op_name: str) -> Callable:
    """A decorator that installs the decorated function as the method ``Tensor.<op_name>``.

        >>> @register_tensor_op("double_it")
        ... def double_it(self):
        ...     return self * 2
        >>> oneflow.ones(2).double_it()
        tensor([2., 2.])
    """
    if not isinstance(op_name, str) or not op_name.isidentifier():
        raise TypeError(f"register_tensor_op(): argument 'op_name' must be an identifier str, got {op_name!r}")

    def register(fn):
        if not callable(fn) and not isinstance(fn, property):
            raise TypeError(
                f"register_tensor_op('{op_name}'): expected a function or property, got {type(fn).__name__}"
            )
        setattr(Tensor, op_name, fn)
        return fn

    return register
