"""``oneflow.nn.Parameter`` and ``oneflow.nn.Buffer``: tensors a Module registers by assignment.

A Parameter is a ``oneflow.Tensor`` subclass. It is its own tensor object (a new
TensorImpl over the memory of the tensor it wraps), so in-place ops return the
Parameter itself and ``p.data = t`` swaps its values without changing its identity.
"""

from __future__ import annotations

import oneflow

__all__ = ["Buffer", "Parameter"]


class Parameter(oneflow.Tensor):
    """A tensor that is a module parameter: assigning it as an attribute of a
    :class:`~oneflow.nn.Module` registers it, so it shows up in ``parameters()``
    and ``state_dict()``.

    Args:
        data (Tensor, optional): the values; the parameter shares their memory.
            An empty tensor when omitted.
        requires_grad (bool, optional): whether the parameter requires gradient.
            Default: ``True``.
    """

    def __new__(cls, data: oneflow.Tensor | None = None, requires_grad: bool = True) -> Parameter:
        # Parameter(global tensor) is a global parameter, the oneflow-distributed package's class
        # (a Parameter subclass, so its __init__ runs next).
        if cls is Parameter and getattr(data, "is_global", False) is True:
            cls = oneflow._creation._global_plugin().GlobalParameter
        return super().__new__(cls, data, requires_grad)

    def __init__(self, data: oneflow.Tensor | None = None, requires_grad: bool = True) -> None:
        if data is None:
            data = oneflow.empty(0)
        if not isinstance(data, oneflow.Tensor):
            raise TypeError(f"Parameter(): data must be a Tensor, not {type(data).__name__}")
        # Tensor.__init__(tensor): a new tensor object over the same memory, without history.
        super().__init__(data)
        self.requires_grad_(requires_grad)

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()

    __str__ = __repr__

    def __deepcopy__(self, memo: dict) -> Parameter:
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self.data.clone(), self.requires_grad)
        memo[id(self)] = result
        return result

    def __reduce_ex__(self, protocol):
        # The values pickle as a plain tensor (a copy); attributes set on the parameter come along.
        return (_rebuild_parameter, (type(self), self.data, self.requires_grad, dict(self.__dict__)))


def _rebuild_parameter(cls, data, requires_grad, state):
    p = cls(data, requires_grad)
    if state:
        p.__dict__.update(state)
    return p


class _BufferMeta(type):
    # isinstance(t, Buffer) holds for the tensors Buffer(...) marks.
    def __instancecheck__(cls, instance) -> bool:
        return isinstance(instance, oneflow.Tensor) and getattr(instance, "_is_buffer", False)


class Buffer(metaclass=_BufferMeta):
    """Marks a tensor as a module buffer when assigned to a Module attribute.

    ``module.x = Buffer(t, persistent=False)`` is ``module.register_buffer("x", t,
    persistent=False)``. ``Buffer(t)`` returns a tensor sharing ``t``'s memory.

    Args:
        data (Tensor, optional): the values. An empty tensor when omitted.
        persistent (bool, optional): whether the buffer is part of the module's
            ``state_dict``. Default: ``True``.
    """

    def __new__(cls, data: oneflow.Tensor | None = None, *, persistent: bool = True) -> oneflow.Tensor:
        if data is None:
            data = oneflow.empty(0)
        if not isinstance(data, oneflow.Tensor):
            raise TypeError(f"Buffer(): data must be a Tensor, not {type(data).__name__}")
        t = data.detach().requires_grad_(data.requires_grad)
        t.persistent = persistent
        t._is_buffer = True
        return t
