"""Parametrizations: a parameter or buffer ``module.<name>`` is replaced by the output of a chain
of modules applied to the stored ``original`` tensor(s), recomputed on every access.

The same API and state-dict layout as ``torch.nn.utils.parametrize``: the module's class becomes a
generated subclass ``Parametrized<Class>`` holding one property per parametrized name, and the
tensors live in ``module.parametrizations.<name>.original`` (or ``original0``, ``original1``, ...
when ``right_inverse`` returns several tensors), so checkpoints carry the same keys as PyTorch's.
"""

from __future__ import annotations

import collections.abc
import copy
from collections.abc import Sequence
from contextlib import contextmanager

import oneflow
from oneflow.nn.modules.container import ModuleDict, ModuleList
from oneflow.nn.modules.module import Module
from oneflow.nn.parameter import Parameter

__all__ = [
    "ParametrizationList",
    "cached",
    "is_parametrized",
    "register_parametrization",
    "remove_parametrizations",
    "transfer_parametrizations_and_params",
    "type_before_parametrizations",
]

_cache_enabled = 0
_cache: dict = {}


@contextmanager
def cached():
    r"""Context manager that caches parametrized tensors: inside it, ``module.<name>`` is computed
    on first access and reused until the outermost ``cached()`` exits.

    Useful when a parametrized tensor is read several times in one forward pass (shared weights,
    the recurrent kernel of an RNN).

    Example::

        >>> import oneflow.nn.utils.parametrize as P
        >>> with P.cached():
        ...     out = model(x)
    """
    global _cache, _cache_enabled
    _cache_enabled += 1
    try:
        yield
    finally:
        _cache_enabled -= 1
        if not _cache_enabled:
            _cache = {}


def _register_parameter_or_buffer(module: Module, name: str, value: oneflow.Tensor) -> None:
    if isinstance(value, Parameter):
        module.register_parameter(name, value)
    else:
        module.register_buffer(name, value)


def _maybe_set(dest: oneflow.Tensor, src: oneflow.Tensor) -> None:
    # Rebinding the data keeps ``dest``'s identity, so optimizers holding it stay valid.
    with oneflow.no_grad():
        dest.data = src.detach()


class ParametrizationList(ModuleList):
    r"""The list of parametrizations of one tensor, stored as ``module.parametrizations.<name>``.

    Its first element is applied to the original tensor(s) and each following element to the
    previous result. It holds the unparametrized tensor as ``original``, or as ``original0``,
    ``original1``, ... when the first parametrization's ``right_inverse`` returns a sequence.
    Built by :func:`register_parametrization`; not meant to be created directly.

    Args:
        modules: the parametrizations, at least one.
        original: the parameter or buffer being parametrized.
        unsafe: skip the dtype and shape consistency checks. Default: ``False``.
    """

    original: oneflow.Tensor
    unsafe: bool

    def __init__(self, modules: Sequence[Module], original: oneflow.Tensor, unsafe: bool = False) -> None:
        if len(modules) == 0:
            raise ValueError("ParametrizationList requires one or more modules.")
        super().__init__(modules)
        self.unsafe = unsafe
        original_shape, original_dtype = original.shape, original.dtype
        # The stored tensors are the right inverse of the chain applied to the current value,
        # so the parametrized value starts out equal to the original one.
        with oneflow.no_grad():
            new = original
            for module in reversed(self):  # type: ignore[call-overload]
                if hasattr(module, "right_inverse"):
                    try:
                        new = module.right_inverse(new)
                    except NotImplementedError:
                        pass
        if not isinstance(new, (oneflow.Tensor, collections.abc.Sequence)):
            raise ValueError(
                "'right_inverse' must return a Tensor or a Sequence of tensors (list, tuple...). "
                f"Got {type(new).__name__}"
            )
        self.is_tensor = isinstance(new, oneflow.Tensor)
        self.ntensors = 1 if self.is_tensor else len(new)
        if self.is_tensor:
            if original.dtype != new.dtype:
                raise ValueError(
                    "When `right_inverse` outputs one tensor, it may not change the dtype.\n"
                    f"original.dtype: {original.dtype}\nright_inverse(original).dtype: {new.dtype}"
                )
            if new is not original:
                _maybe_set(original, new)
            _register_parameter_or_buffer(self, "original", original)
        else:
            for i, tensor in enumerate(new):
                if not isinstance(tensor, oneflow.Tensor):
                    raise ValueError(
                        "'right_inverse' must return a Tensor or a Sequence of tensors (list, tuple...). "
                        f"Got element {i} of the sequence with type {type(tensor).__name__}."
                    )
                if isinstance(original, Parameter):
                    tensor = Parameter(tensor.detach(), original.requires_grad)
                else:
                    tensor = tensor.detach()
                _register_parameter_or_buffer(self, f"original{i}", tensor)
        if not self.unsafe:
            z = self()
            if not isinstance(z, oneflow.Tensor):
                raise ValueError(f"A parametrization must return a tensor. Got {type(z).__name__}.")
            if z.dtype != original_dtype:
                raise ValueError(
                    "Registering a parametrization may not change the dtype of the tensor, unless "
                    f"`unsafe` flag is enabled.\nunparametrized dtype: {original_dtype}\n"
                    f"parametrized dtype: {z.dtype}"
                )
            if z.shape != original_shape:
                raise ValueError(
                    "Registering a parametrization may not change the shape of the tensor, unless "
                    f"`unsafe` flag is enabled.\nunparametrized shape: {original_shape}\n"
                    f"parametrized shape: {z.shape}"
                )

    def right_inverse(self, value: oneflow.Tensor) -> None:
        r"""Sets the original tensor(s) so that the chain evaluates to ``value``: calls the
        ``right_inverse`` of every parametrization, last to first.

        Raises:
            RuntimeError: when a parametrization has no ``right_inverse``.
        """
        with oneflow.no_grad():
            for module in reversed(self):  # type: ignore[call-overload]
                if not hasattr(module, "right_inverse"):
                    raise RuntimeError(f"parametrization {type(module).__name__} does not implement right_inverse.")
                value = module.right_inverse(value)
            if self.is_tensor:
                if not isinstance(value, oneflow.Tensor):
                    raise ValueError(f"`right_inverse` should return a tensor. Got {type(value).__name__}")
                if not self.unsafe:
                    if value.dtype != self.original.dtype:
                        raise ValueError(
                            f"The tensor returned by `right_inverse` has dtype {value.dtype} while "
                            f"`original` has dtype {self.original.dtype}"
                        )
                    if value.shape != self.original.shape:
                        raise ValueError(
                            f"The tensor returned by `right_inverse` has shape {value.shape} while "
                            f"`original` has shape {self.original.shape}"
                        )
                _maybe_set(self.original, value)
            else:
                if not isinstance(value, collections.abc.Sequence):
                    raise ValueError(f"'right_inverse' must return a sequence of tensors. Got {type(value).__name__}.")
                if len(value) != self.ntensors:
                    raise ValueError(
                        "'right_inverse' must return a sequence of tensors of length "
                        f"{self.ntensors}. Got a sequence of length {len(value)}."
                    )
                for i, tensor in enumerate(value):
                    original_i = getattr(self, f"original{i}")
                    if not isinstance(tensor, oneflow.Tensor):
                        raise ValueError(
                            f"`right_inverse` must return a sequence of tensors. "
                            f"Got element {i} of type {type(tensor).__name__}"
                        )
                    if not self.unsafe and original_i.dtype != tensor.dtype:
                        raise ValueError(
                            f"Tensor {i} returned by `right_inverse` has dtype {tensor.dtype} "
                            f"while `original{i}` has dtype {original_i.dtype}"
                        )
                    _maybe_set(original_i, tensor)

    def forward(self) -> oneflow.Tensor:
        """The parametrized tensor: the chain applied to the original tensor(s)."""
        if self.is_tensor:
            x = self[0](self.original)
        else:
            x = self[0](*(getattr(self, f"original{i}") for i in range(self.ntensors)))
        for module in list(self)[1:]:
            x = module(x)
        return x


def _inject_new_class(module: Module) -> None:
    """Swaps ``module``'s class for a subclass (``Parametrized<Class>``) that can hold the
    properties; pickling such a module is refused, only its state_dict is portable."""
    cls = module.__class__

    def default_deepcopy(self, memo):
        obj = memo.get(id(self))
        if obj is not None:
            return obj
        replica = self.__new__(self.__class__)
        memo[id(self)] = replica
        replica.__dict__ = copy.deepcopy(self.__dict__, memo)
        return replica

    def getstate(self):
        raise RuntimeError(
            "Serialization of parametrized modules is only supported through state_dict(). See:\n"
            "https://pytorch.org/tutorials/beginner/saving_loading_models.html"
            "#saving-loading-a-general-checkpoint-for-inference-and-or-resuming-training"
        )

    namespace = {"__getstate__": getstate}
    if not hasattr(cls, "__deepcopy__"):
        namespace["__deepcopy__"] = default_deepcopy
    module.__class__ = type(f"Parametrized{cls.__name__}", (cls,), namespace)


def _inject_property(module: Module, tensor_name: str) -> None:
    if hasattr(module, tensor_name):
        raise AssertionError(f"Module already has an attribute named '{tensor_name}'")

    def get_parametrized(self) -> oneflow.Tensor:
        parametrization = self.parametrizations[tensor_name]
        if not _cache_enabled:
            return parametrization()
        key = (id(self), tensor_name)
        tensor = _cache.get(key)
        if tensor is None:
            tensor = parametrization()
            _cache[key] = tensor
        return tensor

    def set_original(self, value: oneflow.Tensor) -> None:
        self.parametrizations[tensor_name].right_inverse(value)

    setattr(module.__class__, tensor_name, property(get_parametrized, set_original))


def register_parametrization(
    module: Module, tensor_name: str, parametrization: Module, *, unsafe: bool = False
) -> Module:
    r"""Registers a parametrization of the tensor ``module.<tensor_name>``.

    Afterwards ``module.<tensor_name>`` returns ``parametrization(original)``, where ``original``
    (in ``module.parametrizations[tensor_name].original``) holds the former parameter or buffer.
    Registering again on the same name stacks: the new parametrization is applied to the output
    of the previous ones. If ``parametrization`` has a method ``right_inverse(X)``, it sets the
    initial ``original`` (so that the parametrized value starts equal to the old one) and makes
    ``module.<tensor_name> = value`` assignable; it may return a sequence of tensors, which are
    stored as ``original0``, ``original1``, ... and passed to ``forward`` as separate arguments.

    Args:
        module: the module owning the tensor.
        tensor_name: the name of the parameter, buffer or parametrized tensor.
        parametrization: the module computing the parametrized value.
        unsafe: skip the checks that the parametrization keeps dtype and shape. Default: ``False``.

    Returns:
        ``module``.

    Raises:
        ValueError: when ``module`` has no tensor ``tensor_name``, or (unless ``unsafe``) when the
            parametrization changes its dtype or shape.

    Example::

        >>> class Symmetric(nn.Module):
        ...     def forward(self, X):
        ...         return X.triu() + X.triu(1).transpose(-1, -2)
        >>> m = P.register_parametrization(nn.Linear(5, 5), "weight", Symmetric())
        >>> bool((m.weight == m.weight.T).all())
        True
    """
    if not isinstance(module, Module):
        raise TypeError(f"register_parametrization: module must be an nn.Module, got {type(module).__name__}")
    if not isinstance(parametrization, Module):
        raise TypeError(
            f"register_parametrization: parametrization must be an nn.Module, got {type(parametrization).__name__}"
        )
    parametrization.train(module.training)
    if is_parametrized(module, tensor_name):
        if not unsafe:
            _check_stacked(module, tensor_name, parametrization)
        plist = module.parametrizations[tensor_name]
        plist.append(parametrization)
        plist.unsafe |= unsafe
    elif tensor_name in module._buffers or tensor_name in module._parameters:
        original = getattr(module, tensor_name)
        plist = ParametrizationList([parametrization], original, unsafe=unsafe)
        delattr(module, tensor_name)
        if not is_parametrized(module):
            _inject_new_class(module)
            module.parametrizations = ModuleDict()
        _inject_property(module, tensor_name)
        module.parametrizations[tensor_name] = plist
    else:
        raise ValueError(
            f"Module '{module}' does not have a parameter, a buffer, or a parametrized element "
            f"with name '{tensor_name}'"
        )
    return module


def _check_stacked(module: Module, tensor_name: str, parametrization: Module) -> None:
    """A parametrization added on top of others must map (and right-invert) tensors of the
    current dtype and shape to tensors of the same dtype and shape."""
    y = getattr(module, tensor_name)
    x = parametrization(y)
    if not isinstance(x, oneflow.Tensor):
        raise ValueError(f"A parametrization must return a tensor. Got {type(x).__name__}.")
    for what, got, want in (("dtype", x.dtype, y.dtype), ("shape", x.shape, y.shape)):
        if got != want:
            raise ValueError(
                f"Registering a parametrization may not change the {what} of the tensor, unless the "
                f"`unsafe` flag is enabled.\nmodule.{tensor_name}.{what}: {want}\n"
                f"parametrization(module.{tensor_name}).{what}: {got}"
            )
    if hasattr(parametrization, "right_inverse"):
        try:
            z = parametrization.right_inverse(x)
        except NotImplementedError:
            return
        if not isinstance(z, oneflow.Tensor):
            raise ValueError(f"parametrization.right_inverse must return a tensor. Got: {type(z).__name__}")
        for what, got, want in (("dtype", z.dtype, y.dtype), ("shape", z.shape, y.shape)):
            if got != want:
                raise ValueError(
                    f"The tensor returned by parametrization.right_inverse must have the same {what} "
                    f"as module.{tensor_name}, unless the `unsafe` flag is enabled.\n"
                    f"module.{tensor_name}.{what}: {want}\nreturned {what}: {got}"
                )


def is_parametrized(module: Module, tensor_name: str | None = None) -> bool:
    r"""Whether ``module`` has a parametrization on ``tensor_name`` (on any tensor when
    ``tensor_name`` is ``None``)."""
    parametrizations = getattr(module, "parametrizations", None)
    if parametrizations is None or not isinstance(parametrizations, ModuleDict):
        return False
    if tensor_name is None:
        return len(parametrizations) > 0
    return tensor_name in parametrizations


def remove_parametrizations(module: Module, tensor_name: str, leave_parametrized: bool = True) -> Module:
    r"""Removes the parametrizations on ``module.<tensor_name>``.

    With ``leave_parametrized`` the tensor becomes a plain parameter (or buffer) holding the
    current parametrized value; otherwise it goes back to the stored ``original``. When the
    last parametrization of the module goes, the module gets its original class back.

    Args:
        module: the module to remove the parametrizations from.
        tensor_name: the parametrized tensor's name.
        leave_parametrized: keep the current value rather than the original. Default: ``True``.

    Returns:
        ``module``.

    Raises:
        ValueError: when ``module.<tensor_name>`` is not parametrized, or when
            ``leave_parametrized=False`` and it is parametrized by several tensors.
    """
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    plist = module.parametrizations[tensor_name]
    if plist.is_tensor:
        original = plist.original
        if leave_parametrized:
            with oneflow.no_grad():
                t = getattr(module, tensor_name)
            if t.dtype != original.dtype:
                raise ValueError(
                    f"remove_parametrizations: cannot keep the parametrized value of dtype {t.dtype} "
                    f"in the original tensor of dtype {original.dtype}"
                )
            _maybe_set(original, t)
    elif leave_parametrized:
        t = getattr(module, tensor_name)
        original = Parameter(t.detach(), t.requires_grad)
    else:
        raise ValueError(
            "Cannot leave unparametrized (`leave_parametrized=False`) a tensor that is parametrized "
            "in terms of a sequence of tensors."
        )
    delattr(module.__class__, tensor_name)
    del module.parametrizations[tensor_name]
    _register_parameter_or_buffer(module, tensor_name, original)
    if not is_parametrized(module):
        delattr(module, "parametrizations")
        module.__class__ = module.__class__.__bases__[0]
    return module


def type_before_parametrizations(module: Module) -> type:
    r"""The module's class before parametrizations were registered (its class if none were)."""
    if is_parametrized(module):
        return module.__class__.__bases__[0]
    return type(module)


def transfer_parametrizations_and_params(
    from_module: Module, to_module: Module, tensor_name: str | None = None
) -> Module:
    r"""Copies the parametrizations of ``from_module`` (all of them, or only ``tensor_name``'s)
    onto ``to_module``, sharing the original tensors. A tensor ``to_module`` lacks is created
    first. Does nothing when ``from_module`` is not parametrized.

    Returns:
        ``to_module``.
    """
    if not is_parametrized(from_module):
        return to_module
    names = list(from_module.parametrizations) if tensor_name is None else [tensor_name]
    for name in names:
        if not hasattr(to_module, name):
            setattr(to_module, name, Parameter(getattr(from_module, name)))
        source = from_module.parametrizations[name]
        for parametrization in source:
            register_parametrization(to_module, name, parametrization)
        target = to_module.parametrizations[name]
        if hasattr(source, "original"):
            target.original = source.original
        else:
            i = 0
            while hasattr(source, f"original{i}"):
                setattr(target, f"original{i}", getattr(source, f"original{i}"))
                i += 1
    return to_module
