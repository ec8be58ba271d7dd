"""Lazy layers: ``LazyLinear``, ``LazyConv{1,2,3}d``, ``LazyConvTranspose{1,2,3}d``,
``LazyBatchNorm{1,2,3}d`` and ``LazyInstanceNorm{1,2,3}d``, whose input size is inferred from the
first input they see.

Until that first forward their parameters are ``UninitializedParameter`` and their running
statistics ``UninitializedBuffer``; the forward pre-hook of ``LazyModuleMixin`` then materializes
them with the inferred shape, initializes them as the regular layer does, and turns the module into
that regular class (``cls_to_become``), as PyTorch does. A ``state_dict`` loaded before the first
forward materializes them from its shapes.
"""

from __future__ import annotations

import oneflow
from oneflow.nn.modules.conv import Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from oneflow.nn.modules.linear import Linear
from oneflow.nn.modules.normalization import (
    BatchNorm1d,
    BatchNorm2d,
    BatchNorm3d,
    InstanceNorm1d,
    InstanceNorm2d,
    InstanceNorm3d,
)
from oneflow.nn.parameter import Parameter

__all__ = [
    "LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d", "LazyConv1d", "LazyConv2d", "LazyConv3d",
    "LazyConvTranspose1d", "LazyConvTranspose2d", "LazyConvTranspose3d", "LazyInstanceNorm1d",
    "LazyInstanceNorm2d", "LazyInstanceNorm3d", "LazyLinear", "LazyModuleMixin", "UninitializedBuffer",
    "UninitializedParameter",
]  # fmt: skip


class UninitializedParameter(Parameter):
    """A parameter whose shape is not known yet (of a lazy module). It holds no values;
    ``materialize(shape)`` gives it values of that shape and makes it a :class:`Parameter`."""

    cls_to_become = Parameter

    def __new__(cls, requires_grad: bool = True, device=None, dtype=None) -> UninitializedParameter:
        return super().__new__(cls, oneflow.empty(0, device=device, dtype=dtype), requires_grad)

    def __init__(self, requires_grad: bool = True, device=None, dtype=None) -> None:
        super().__init__(oneflow.empty(0, device=device, dtype=dtype), requires_grad)

    def materialize(self, shape, device=None, dtype=None) -> None:
        """Gives the parameter uninitialized values of ``shape`` (on ``device``, of ``dtype``: its own
        when None) and makes it a :class:`Parameter`."""
        if isinstance(shape, int):
            shape = (shape,)
        self.data = oneflow.empty(tuple(shape), device=device or self.device, dtype=dtype or self.dtype)
        self.__class__ = self.cls_to_become

    def __repr__(self) -> str:
        return "<UninitializedParameter>"

    __str__ = __repr__

    def __deepcopy__(self, memo: dict) -> UninitializedParameter:
        if id(self) not in memo:
            memo[id(self)] = type(self)(self.requires_grad, self.device, self.dtype)
        return memo[id(self)]


class UninitializedBuffer(oneflow.Tensor):
    """A buffer whose shape is not known yet (of a lazy module); ``materialize(shape)`` returns the
    tensor of that shape the module registers in its place."""

    def __init__(self, requires_grad: bool = False, device=None, dtype=None) -> None:
        super().__init__(oneflow.empty(0, device=device, dtype=dtype))

    def materialize(self, shape, device=None, dtype=None) -> oneflow.Tensor:
        """An uninitialized tensor of ``shape``, on this buffer's device and of its dtype by default."""
        if isinstance(shape, int):
            shape = (shape,)
        return oneflow.empty(tuple(shape), device=device or self.device, dtype=dtype or self.dtype)

    def __repr__(self) -> str:
        return "<UninitializedBuffer>"


def is_lazy(value) -> bool:
    """Whether ``value`` is a parameter or buffer whose shape is not known yet."""
    return isinstance(value, (UninitializedParameter, UninitializedBuffer))


class LazyModuleMixin:
    """Makes a module infer its parameters' shapes from its first input, as PyTorch's.

    A lazy module's ``initialize_parameters(*args)`` materializes its ``UninitializedParameter``\\ s
    from the input; the mixin calls it before the first forward, then turns the module into
    ``cls_to_become`` (the regular layer). Derive from the mixin first:
    ``class LazyLinear(LazyModuleMixin, Linear)``.
    """

    cls_to_become = None

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._initialize_hook = self.register_forward_pre_hook(self._infer_parameters, with_kwargs=True)

    def has_uninitialized_params(self) -> bool:
        """Whether a parameter or buffer of this module still has no shape."""
        return any(is_lazy(v) for v in (*self._parameters.values(), *self._buffers.values()))

    def initialize_parameters(self, *args, **kwargs) -> None:
        """Materializes the parameters from the forward's inputs; each lazy layer defines it."""
        raise NotImplementedError(f"initialize_parameters is not implemented for {type(self).__name__}")

    def _materialize(self, name: str, shape) -> None:
        value = self._parameters.get(name, self._buffers.get(name))
        if isinstance(value, UninitializedParameter):
            value.materialize(shape)
        elif isinstance(value, UninitializedBuffer):
            self._buffers[name] = value.materialize(shape)

    @staticmethod
    def _infer_parameters(module, args, kwargs):
        module.initialize_parameters(*args, **kwargs)
        if module.has_uninitialized_params():
            raise RuntimeError(f"module {type(module).__name__} has not been fully initialized")
        module._initialize_hook.remove()
        del module._initialize_hook
        if module.cls_to_become is not None:
            module.__class__ = module.cls_to_become

    def _apply(self, fn, recurse: bool = True):
        # Uninitialized buffers keep their kind across .to() and friends (parameters keep their class).
        lazy = [name for name, buf in self._buffers.items() if isinstance(buf, UninitializedBuffer)]
        super()._apply(fn, recurse)
        for name in lazy:
            buf = self._buffers[name]
            self._buffers[name] = UninitializedBuffer(device=buf.device, dtype=buf.dtype)
        return self

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs) -> None:  # fmt: skip
        for name, value in (*self._parameters.items(), *self._buffers.items()):
            key = prefix + name
            if is_lazy(value) and key in state_dict:
                self._materialize(name, tuple(state_dict[key].shape))
        if not self.has_uninitialized_params():
            self._after_load()
        super()._load_from_state_dict(
            state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs
        )

    def _after_load(self) -> None:
        """Sets the inferred sizes (in_features, ...) from the loaded shapes; layers override it."""

    def _lazy_parameters(self, shapes: dict, after: str, value: int) -> None:
        if not self.has_uninitialized_params():
            return
        with oneflow.no_grad():
            setattr(self, after, value)
            for name, shape in shapes.items():
                self._materialize(name, shape)
            self.reset_parameters()


def _uninitialized(module, names, device, dtype) -> None:
    for name in names:
        if getattr(module, name, None) is not None:
            setattr(module, name, UninitializedParameter(device=device, dtype=dtype))


class LazyLinear(LazyModuleMixin, Linear):
    """A :class:`Linear` whose ``in_features`` is the last dimension of its first input.

    Examples::

        >>> m = oneflow.nn.LazyLinear(4)
        >>> m(oneflow.randn(2, 3)).shape, type(m).__name__, m.in_features
        (oneflow.Size([2, 4]), 'Linear', 3)
    """

    cls_to_become = Linear

    def __init__(self, out_features: int, bias: bool = True, device=None, dtype=None) -> None:
        super().__init__(0, 0, bias, device=device, dtype=dtype)
        self.out_features = out_features
        _uninitialized(self, ("weight", "bias"), device, dtype)

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input) -> None:
        shapes = {"weight": (self.out_features, input.shape[-1]), "bias": (self.out_features,)}
        self._lazy_parameters(shapes, "in_features", input.shape[-1])

    def _after_load(self) -> None:
        self.in_features = self.weight.shape[1]


class _LazyConvMixin(LazyModuleMixin):
    _spatial = 1

    def __init__(self, out_channels: int, kernel_size, stride=1, padding=0, *rest, bias: bool = True,
                 **kwargs) -> None:  # fmt: skip
        super().__init__(0, 0, kernel_size, stride, padding, *rest, bias=False, **kwargs)
        self.out_channels = out_channels
        self.bias = oneflow.nn.Parameter(oneflow.empty(0)) if bias else None
        _uninitialized(self, ("weight", "bias"), kwargs.get("device"), kwargs.get("dtype"))

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def initialize_parameters(self, input, *args, **kwargs) -> None:
        in_channels = input.shape[0] if input.dim() == self._spatial + 1 else input.shape[1]
        if in_channels % self.groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if self.transposed:
            weight = (in_channels, self.out_channels // self.groups, *self.kernel_size)
        else:
            weight = (self.out_channels, in_channels // self.groups, *self.kernel_size)
        self._lazy_parameters({"weight": weight, "bias": (self.out_channels,)}, "in_channels", in_channels)

    def _after_load(self) -> None:
        w = self.weight.shape
        self.in_channels = w[0] if self.transposed else w[1] * self.groups


def _conv_class(name: str, base, spatial: int):
    doc = (f"A :class:`{base.__name__}` whose ``in_channels`` is inferred from its first input "
           f"(dimension 1, or 0 for an unbatched input).")  # fmt: skip
    return type(name, (_LazyConvMixin, base), {"cls_to_become": base, "_spatial": spatial, "__doc__": doc,
                                                "__module__": __name__})  # fmt: skip


LazyConv1d = _conv_class("LazyConv1d", Conv1d, 1)
LazyConv2d = _conv_class("LazyConv2d", Conv2d, 2)
LazyConv3d = _conv_class("LazyConv3d", Conv3d, 3)
LazyConvTranspose1d = _conv_class("LazyConvTranspose1d", ConvTranspose1d, 1)
LazyConvTranspose2d = _conv_class("LazyConvTranspose2d", ConvTranspose2d, 2)
LazyConvTranspose3d = _conv_class("LazyConvTranspose3d", ConvTranspose3d, 3)


class _LazyNormMixin(LazyModuleMixin):
    _unbatched_dim = None  # input rank without a batch dimension (instance norm), None for batch norm

    def __init__(self, eps: float = 1e-5, momentum: float | None = 0.1, affine: bool = True,
                 track_running_stats: bool = True, device=None, dtype=None) -> None:  # fmt: skip
        super().__init__(0, eps, momentum, affine, track_running_stats, device, dtype)
        _uninitialized(self, ("weight", "bias"), device, dtype)
        for name in ("running_mean", "running_var"):
            if self._buffers.get(name) is not None:
                self._buffers[name] = UninitializedBuffer(device=device, dtype=dtype)

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.num_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input) -> None:
        num_features = input.shape[0] if input.dim() == self._unbatched_dim else input.shape[1]
        shapes = dict.fromkeys(("weight", "bias", "running_mean", "running_var"), (num_features,))
        self._lazy_parameters(shapes, "num_features", num_features)

    def _after_load(self) -> None:
        for name in ("weight", "running_mean"):
            value = getattr(self, name, None)
            if value is not None:
                self.num_features = value.shape[0]


def _norm_class(name: str, base, unbatched_dim):
    # PyTorch's lazy instance norms default to affine=True, track_running_stats=True too (unlike
    # InstanceNorm*d): the defaults come from _LazyNormMixin for all of them.
    doc = f"A :class:`{base.__name__}` whose ``num_features`` is inferred from its first input."
    namespace = {"cls_to_become": base, "_unbatched_dim": unbatched_dim, "__doc__": doc, "__module__": __name__}
    return type(name, (_LazyNormMixin, base), namespace)


LazyBatchNorm1d = _norm_class("LazyBatchNorm1d", BatchNorm1d, None)
LazyBatchNorm2d = _norm_class("LazyBatchNorm2d", BatchNorm2d, None)
LazyBatchNorm3d = _norm_class("LazyBatchNorm3d", BatchNorm3d, None)
LazyInstanceNorm1d = _norm_class("LazyInstanceNorm1d", InstanceNorm1d, 2)
LazyInstanceNorm2d = _norm_class("LazyInstanceNorm2d", InstanceNorm2d, 3)
LazyInstanceNorm3d = _norm_class("LazyInstanceNorm3d", InstanceNorm3d, 4)
