"""``oneflow.nn.Module``: the base class of every layer and model.

A Module keeps three ordered registries, filled by attribute assignment:
``_parameters`` (``nn.Parameter``), ``_buffers`` (tensors that are state but not
trained, e.g. running statistics) and ``_modules`` (child modules). Everything
recursive (``parameters()``, ``state_dict()``, ``to()``, ``train()``, the repr)
walks these registries, in registration order, as PyTorch does.
"""

from __future__ import annotations

import functools
import itertools
import warnings
import weakref
from collections import OrderedDict, namedtuple
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import numpy as np

import oneflow
from oneflow.nn.parameter import Buffer, Parameter

__all__ = [
    "Identity",
    "Module",
    "RemovableHandle",
    "register_module_forward_hook",
    "register_module_forward_pre_hook",
]


def _typename(obj: Any) -> str:
    """The name PyTorch's messages use for ``obj``: ``oneflow.FloatTensor`` for tensors."""
    if isinstance(obj, oneflow.Tensor):
        return _legacy_tensor_type(obj)
    cls = obj if isinstance(obj, type) else type(obj)
    module = getattr(cls, "__module__", "") or ""
    name = getattr(cls, "__qualname__", cls.__name__)
    return name if module in ("", "builtins") else f"{module}.{name}"


_LEGACY_NAMES = {
    "float32": "FloatTensor", "float64": "DoubleTensor", "float16": "HalfTensor",
    "bfloat16": "BFloat16Tensor", "int64": "LongTensor", "int32": "IntTensor",
    "int16": "ShortTensor", "int8": "CharTensor", "uint8": "ByteTensor", "bool": "BoolTensor",
}  # fmt: skip


def _legacy_tensor_type(t: oneflow.Tensor) -> str:
    prefix = "oneflow.cuda." if t.device.type == "cuda" else "oneflow."
    return prefix + _LEGACY_NAMES.get(t.dtype._name, "Tensor")


def _addindent(text: str, spaces: int) -> str:
    """Indents every line of ``text`` but the first by ``spaces``."""
    first, *rest = text.split("\n")
    if not rest:
        return text
    pad = " " * spaces
    return first + "\n" + "\n".join(pad + line for line in rest)


class RemovableHandle:
    """Returned by the ``register_*_hook`` methods; ``remove()`` unregisters the hook.

    Also a context manager that removes the hook on exit.
    """

    _next_id = 0

    def __init__(self, hooks_dict: dict, *, extra_dict: dict | list | None = None) -> None:
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = RemovableHandle._next_id
        RemovableHandle._next_id += 1
        extras = extra_dict if isinstance(extra_dict, (list, tuple)) else [extra_dict]
        self.extra_dict_ref = tuple(weakref.ref(d) for d in extras if d is not None)

    def remove(self) -> None:
        """Unregisters the hook (a no-op when it is gone already)."""
        for ref in (self.hooks_dict_ref, *self.extra_dict_ref):
            d = ref()
            if d is not None and self.id in d:
                del d[self.id]

    def __getstate__(self):
        return (self.hooks_dict_ref(), self.id, tuple(r() for r in self.extra_dict_ref))

    def __setstate__(self, state) -> None:
        hooks, self.id, extras = state
        self.hooks_dict_ref = weakref.ref(hooks if hooks is not None else OrderedDict())
        self.extra_dict_ref = tuple(weakref.ref(d) for d in extras if d is not None)

    def __enter__(self) -> RemovableHandle:
        return self

    def __exit__(self, *exc) -> None:
        self.remove()


class _WeakSet(dict):
    """A weakref-able set of hook ids (``dict`` keys; plain sets cannot be weakly referenced)."""


# Hooks for every module (register_module_forward_pre_hook / register_module_forward_hook).
_global_forward_pre_hooks: dict = OrderedDict()
_global_forward_hooks: dict = OrderedDict()
_global_forward_hooks_always_called: dict = _WeakSet()


def register_module_forward_pre_hook(hook: Callable) -> RemovableHandle:
    """Registers ``hook(module, args)`` to run before every module's ``forward``.

    Global hooks run before the module's own. Returns a handle with ``remove()``.
    """
    handle = RemovableHandle(_global_forward_pre_hooks)
    _global_forward_pre_hooks[handle.id] = hook
    return handle


def register_module_forward_hook(hook: Callable, *, always_call: bool = False) -> RemovableHandle:
    """Registers ``hook(module, args, output)`` to run after every module's ``forward``.

    Global hooks run before the module's own. Returns a handle with ``remove()``.
    """
    handle = RemovableHandle(_global_forward_hooks, extra_dict=_global_forward_hooks_always_called)
    _global_forward_hooks[handle.id] = hook
    if always_call:
        _global_forward_hooks_always_called[handle.id] = True
    return handle


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What ``load_state_dict`` returns: the keys it missed and the ones it did not expect."""

    __slots__ = ()

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


def _as_tensor(value: Any):
    """A state_dict value as a oneflow tensor: tensors stay, NumPy arrays (and objects that
    convert to one, like a torch tensor's ``.numpy()``) are wrapped; anything else is None."""
    if isinstance(value, oneflow.Tensor):
        return value
    if isinstance(value, (np.ndarray, np.generic)):
        array = np.asarray(value)
    elif hasattr(value, "detach") and hasattr(value, "numpy") and hasattr(value, "shape"):
        array = value.detach().cpu().numpy()  # a tensor of another framework
    elif hasattr(value, "__array__") and hasattr(value, "shape"):
        array = np.asarray(value)
    else:
        return None
    if array.dtype.kind not in "biuf":
        return None
    return oneflow.tensor(np.ascontiguousarray(array))


class _HookForward(oneflow.autograd.Function):
    """Identity on tensors whose backward runs a module's backward hooks (see _BackwardHook)."""

    @staticmethod
    def forward(ctx, callback, *tensors):
        ctx.callback = callback
        # New tensor objects over the same memory carry this node's history.
        outs = tuple(t.detach() if isinstance(t, oneflow.Tensor) else t for t in tensors)
        return outs

    @staticmethod
    def backward(ctx, *grads):
        new = ctx.callback(grads)
        return (None, *(grads if new is None else new))


class _BackwardHook:
    """Full backward hooks of one call: ``hook(module, grad_input, grad_output)``.

    The tensor outputs pass through an identity node that records ``grad_output`` (and
    runs the backward pre-hooks, which may replace it); the tensor inputs pass through
    another whose backward sees ``grad_input`` and runs the hooks, which may replace it.
    Without inputs that require grad, the hooks run with ``grad_input`` all None.
    """

    def __init__(self, module: Module, hooks: list, pre_hooks: list) -> None:
        self.module = module
        self.hooks = hooks
        self.pre_hooks = pre_hooks
        self.grad_outputs = None
        self.n_inputs = 0
        self.input_positions: list = []

    def _wrap(self, values: tuple, callback) -> tuple:
        positions = [i for i, v in enumerate(values) if isinstance(v, oneflow.Tensor) and v.requires_grad]
        if not positions:
            return values, positions
        wrapped = _HookForward.apply(callback, *(values[i] for i in positions))
        out = list(values)
        for i, w in zip(positions, wrapped):
            out[i] = w
        return tuple(out), positions

    def setup_input_hook(self, args: tuple) -> tuple:
        self.n_inputs = len(args)
        if not oneflow.is_grad_enabled():
            return args
        out, self.input_positions = self._wrap(args, self._on_input_grads)
        return out

    def _on_input_grads(self, grads: tuple):
        grad_input = [None] * self.n_inputs
        for i, g in zip(self.input_positions, grads):
            grad_input[i] = g
        grad_input = tuple(grad_input)
        changed = False
        for hook in self.hooks:
            result = hook(self.module, grad_input, self.grad_outputs)
            if result is None:
                continue
            result = tuple(result) if isinstance(result, (tuple, list)) else (result,)
            if len(result) != len(grad_input):
                raise RuntimeError(
                    f"backward hook returned {len(result)} gradients where the module has "
                    f"{len(grad_input)} inputs"
                )
            grad_input, changed = result, True
        self.grad_outputs = None
        if not changed:
            return None
        return tuple(grad_input[i] for i in self.input_positions)

    def setup_output_hook(self, result):
        if not oneflow.is_grad_enabled():
            return result
        single = isinstance(result, oneflow.Tensor)
        values = (result,) if single else result
        if not isinstance(values, tuple):
            return result
        out, positions = self._wrap(values, functools.partial(self._on_output_grads, len(values)))
        if not positions:
            return result
        self.output_positions = positions
        return out[0] if single else out

    def _on_output_grads(self, n_outputs: int, grads: tuple):
        grad_output = [None] * n_outputs
        for i, g in zip(self.output_positions, grads):
            grad_output[i] = g
        grad_output = tuple(grad_output)
        changed = False
        for hook in self.pre_hooks:
            result = hook(self.module, grad_output)
            if result is not None:
                grad_output = tuple(result) if isinstance(result, (tuple, list)) else (result,)
                changed = True
        self.grad_outputs = grad_output
        if not self.input_positions and self.hooks:
            # No input needs a gradient: the hooks see grad_input as Nones, now.
            warnings.warn(
                "Full backward hook is firing when gradients are computed with respect to module "
                "outputs since no inputs require gradients.",
                stacklevel=2,
            )
            for hook in self.hooks:
                if hook(self.module, (None,) * self.n_inputs, grad_output) is not None:
                    raise RuntimeError(
                        "backward hook returned gradients for a module whose inputs do not require grad"
                    )
            self.grad_outputs = None
        if not changed:
            return None
        return tuple(grad_output[i] for i in self.output_positions)


class Module:
    """Base class of all neural-network modules.

    Subclasses call ``super().__init__()`` first, assign parameters, buffers and
    submodules as attributes, and define ``forward``. Call the module (``m(x)``),
    not ``forward``, so that hooks run::

        class Net(oneflow.nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = oneflow.nn.Linear(4, 2)

            def forward(self, x):
                return self.fc(x).relu()
    """

    dump_patches: bool = False
    _version: int = 1
    training: bool
    call_super_init: bool = False

    def __init__(self, *args, **kwargs) -> None:
        if not self.call_super_init and kwargs:
            raise TypeError(f"Module.__init__() got an unexpected keyword argument '{next(iter(kwargs))}'")
        if not self.call_super_init and args:
            raise TypeError(f"Module.__init__() takes 1 positional argument but {len(args) + 1} were given")
        setattr_ = object.__setattr__
        setattr_(self, "training", True)
        setattr_(self, "_parameters", {})
        setattr_(self, "_buffers", {})
        setattr_(self, "_non_persistent_buffers_set", set())
        setattr_(self, "_backward_pre_hooks", OrderedDict())
        setattr_(self, "_backward_hooks", OrderedDict())
        setattr_(self, "_is_full_backward_hook", None)
        setattr_(self, "_forward_hooks", OrderedDict())
        setattr_(self, "_forward_hooks_with_kwargs", OrderedDict())
        setattr_(self, "_forward_hooks_always_called", OrderedDict())
        setattr_(self, "_forward_pre_hooks", OrderedDict())
        setattr_(self, "_forward_pre_hooks_with_kwargs", OrderedDict())
        setattr_(self, "_state_dict_hooks", OrderedDict())
        setattr_(self, "_state_dict_pre_hooks", OrderedDict())
        setattr_(self, "_load_state_dict_pre_hooks", OrderedDict())
        setattr_(self, "_load_state_dict_post_hooks", OrderedDict())
        setattr_(self, "_modules", {})
        if self.call_super_init:
            super().__init__(*args, **kwargs)

    def forward(self, *args, **kwargs):
        """The computation of the module; subclasses define it."""
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required "forward" function')

    # ---- registration -----------------------------------------------------------------

    def _check_name(self, kind: str, name: Any, registry: dict) -> None:
        if not isinstance(name, str):
            raise TypeError(f"{kind} name should be a string. Got {_typename(name)}")
        if "." in name:
            raise KeyError(f'{kind} name can\'t contain ".", got: {name}')
        if name == "":
            raise KeyError(f'{kind} name can\'t be empty string ""')
        if hasattr(self, name) and name not in registry:
            raise KeyError(f"attribute '{name}' already exists")

    def register_buffer(self, name: str, tensor: oneflow.Tensor | None, persistent: bool = True) -> None:
        """Adds a buffer: state that is not a parameter, e.g. BatchNorm's running mean.

        Buffers move with the module (``to``, ``float``...) and, when ``persistent``,
        are part of its ``state_dict``. ``tensor`` may be None (a placeholder).
        """
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        self._check_name("buffer", name, self._buffers)
        if tensor is not None and not isinstance(tensor, oneflow.Tensor):
            raise TypeError(
                f"cannot assign '{_typename(tensor)}' object to buffer '{name}' (oneflow Tensor or None required)"
            )
        if isinstance(tensor, Buffer):
            persistent = getattr(tensor, "persistent", persistent)
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def register_parameter(self, name: str, param: Parameter | None) -> None:
        """Adds a parameter (or a None placeholder) under ``name``."""
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        self._check_name("parameter", name, self._parameters)
        if param is None:
            self._parameters[name] = None
            return
        if not isinstance(param, Parameter):
            raise TypeError(
                f"cannot assign '{_typename(param)}' object to parameter '{name}' "
                "(oneflow.nn.Parameter or None required)"
            )
        if param.grad_fn is not None:
            raise ValueError(
                f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must be "
                f"created explicitly. To express '{name}' as a function of another Tensor, "
                "compute the value in the forward() method."
            )
        self._parameters[name] = param

    def add_module(self, name: str, module: Module | None) -> None:
        """Adds a child module (or a None placeholder) under ``name``."""
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{_typename(module)} is not a Module subclass")
        self._check_name("module", name, self._modules)
        self._modules[name] = module

    def register_module(self, name: str, module: Module | None) -> None:
        """Alias of :meth:`add_module`."""
        self.add_module(name, module)

    def get_submodule(self, target: str) -> Module:
        """The submodule at the dotted path ``target`` (``""`` is the module itself)."""
        if target == "":
            return self
        mod = self
        for item in target.split("."):
            if not hasattr(mod, item):
                raise AttributeError(mod._get_name() + " has no attribute `" + item + "`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError("`" + item + "` is not an nn.Module")
        return mod

    def set_submodule(self, target: str, module: Module, strict: bool = False) -> None:
        """Replaces (or with ``strict=False`` also adds) the submodule at ``target``."""
        if target == "":
            raise ValueError("Cannot set the submodule without a target name!")
        if not isinstance(module, Module):
            raise ValueError("`module` is not an nn.Module, found " + str(type(module)))
        parent_path, _, name = target.rpartition(".")
        parent = self.get_submodule(parent_path)
        if strict and not hasattr(parent, name):
            raise AttributeError(parent._get_name() + " has no attribute `" + name + "`")
        if hasattr(parent, name) and not isinstance(getattr(parent, name), Module):
            raise AttributeError("`" + name + "` is not an nn.Module")
        setattr(parent, name, module)

    def _get_member(self, target: str, registry: str, kind: str):
        module_path, _, name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, name):
            raise AttributeError(mod._get_name() + " has no attribute `" + name + "`")
        if name not in getattr(mod, registry):
            raise AttributeError("`" + name + "` is not " + kind)
        return getattr(mod, name)

    def get_parameter(self, target: str) -> Parameter:
        """The parameter at the dotted path ``target`` (e.g. ``"net.0.weight"``)."""
        return self._get_member(target, "_parameters", "an nn.Parameter")

    def get_buffer(self, target: str) -> oneflow.Tensor:
        """The buffer at the dotted path ``target``."""
        return self._get_member(target, "_buffers", "a buffer")

    def get_extra_state(self) -> Any:
        """State to save beside parameters and buffers; define it together with
        :meth:`set_extra_state` to have it in the ``state_dict``."""
        raise RuntimeError(
            "Reached a code path in Module.get_extra_state() that should never be called."
        )

    def set_extra_state(self, state: Any) -> None:
        """Restores what :meth:`get_extra_state` returned."""
        raise RuntimeError(
            "Reached a code path in Module.set_extra_state() that should never be called."
        )

    # ---- attribute routing ------------------------------------------------------------

    def __getattr__(self, name: str) -> Any:
        # Called only when normal lookup fails: the registries.
        d = self.__dict__
        for registry in ("_parameters", "_buffers", "_modules"):
            members = d.get(registry)
            if members is not None and name in members:
                return members[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name: str, value: Any) -> None:
        d = self.__dict__

        def remove_from(*registries):
            for r in registries:
                if name in r:
                    if isinstance(r, dict):
                        del r[name]
                    else:
                        r.discard(name)

        params = d.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            remove_from(d, self._buffers, self._modules, self._non_persistent_buffers_set)
            self.register_parameter(name, value)
            return
        if params is not None and name in params:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{_typename(value)}' as parameter '{name}' "
                    "(oneflow.nn.Parameter or None expected)"
                )
            self.register_parameter(name, value)
            return
        modules = d.get("_modules")
        if isinstance(value, Module):
            if modules is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            remove_from(d, self._parameters, self._buffers, self._non_persistent_buffers_set)
            modules[name] = value
            return
        if modules is not None and name in modules:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{_typename(value)}' as child module '{name}' "
                    "(oneflow.nn.Module or None expected)"
                )
            modules[name] = value
            return
        buffers = d.get("_buffers")
        if isinstance(value, Buffer) or (buffers is not None and name in buffers):
            if value is not None and not isinstance(value, oneflow.Tensor):
                raise TypeError(
                    f"cannot assign '{_typename(value)}' as buffer '{name}' "
                    "(oneflow.nn.Buffer, oneflow.Tensor or None expected)"
                )
            if buffers is None:
                raise AttributeError("cannot assign buffer before Module.__init__() call")
            if isinstance(value, Buffer):
                persistent = value.persistent
            else:
                persistent = name not in self._non_persistent_buffers_set
            remove_from(d, self._parameters, self._modules)
            buffers[name] = value
            if persistent:
                self._non_persistent_buffers_set.discard(name)
            else:
                self._non_persistent_buffers_set.add(name)
            return
        object.__setattr__(self, name, value)

    def __delattr__(self, name: str) -> None:
        if name in self._parameters:
            del self._parameters[name]
        elif name in self._buffers:
            del self._buffers[name]
            self._non_persistent_buffers_set.discard(name)
        elif name in self._modules:
            del self._modules[name]
        else:
            super().__delattr__(name)

    def __dir__(self) -> list:
        keys = [
            *dir(type(self)), *self.__dict__, *self._parameters, *self._modules, *self._buffers,
        ]
        # Names that are not identifiers (ModuleList's "0", "1"...) stay out.
        return sorted({k for k in keys if not k[0].isdigit()})

    def __getstate__(self) -> dict:
        return self.__dict__.copy()

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        # Modules pickled by older versions may lack the newer registries.
        defaults = {
            "_forward_pre_hooks": OrderedDict, "_forward_hooks": OrderedDict,
            "_forward_hooks_with_kwargs": OrderedDict, "_forward_hooks_always_called": OrderedDict,
            "_forward_pre_hooks_with_kwargs": OrderedDict, "_state_dict_hooks": OrderedDict,
            "_state_dict_pre_hooks": OrderedDict, "_load_state_dict_pre_hooks": OrderedDict,
            "_load_state_dict_post_hooks": OrderedDict, "_non_persistent_buffers_set": set,
            "_backward_pre_hooks": OrderedDict, "_backward_hooks": OrderedDict,
        }  # fmt: skip
        for key, make in defaults.items():
            if key not in self.__dict__:
                self.__dict__[key] = make()
        self.__dict__.setdefault("_is_full_backward_hook", None)

    # ---- iteration --------------------------------------------------------------------

    def _named_members(self, get_members: Callable, prefix: str = "", recurse: bool = True,
                       remove_duplicate: bool = True) -> Iterator:
        seen = set()
        modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if recurse else [(prefix, self)]
        for module_prefix, module in modules:
            for name, value in get_members(module):
                if value is None or (remove_duplicate and id(value) in seen):
                    continue
                if remove_duplicate:
                    seen.add(id(value))
                yield (module_prefix + ("." if module_prefix else "") + name, value)

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        """The module's parameters (and, with ``recurse``, its descendants'), each once."""
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_parameters(self, prefix: str = "", recurse: bool = True,
                         remove_duplicate: bool = True) -> Iterator[tuple[str, Parameter]]:
        """``(dotted name, parameter)`` pairs; shared parameters come once unless
        ``remove_duplicate=False``."""
        yield from self._named_members(lambda m: m._parameters.items(), prefix, recurse, remove_duplicate)

    def buffers(self, recurse: bool = True) -> Iterator[oneflow.Tensor]:
        """The module's buffers (and, with ``recurse``, its descendants')."""
        for _, buf in self.named_buffers(recurse=recurse):
            yield buf

    def named_buffers(self, prefix: str = "", recurse: bool = True,
                      remove_duplicate: bool = True) -> Iterator[tuple[str, oneflow.Tensor]]:
        """``(dotted name, buffer)`` pairs."""
        yield from self._named_members(lambda m: m._buffers.items(), prefix, recurse, remove_duplicate)

    def children(self) -> Iterator[Module]:
        """The direct submodules, each once."""
        for _, module in self.named_children():
            yield module

    def named_children(self) -> Iterator[tuple[str, Module]]:
        """``(name, submodule)`` pairs of the direct submodules, each module once."""
        seen = set()
        for name, module in self._modules.items():
            if module is not None and id(module) not in seen:
                seen.add(id(module))
                yield name, module

    def modules(self) -> Iterator[Module]:
        """This module and all its descendants, each once, parents first."""
        for _, module in self.named_modules():
            yield module

    def named_modules(self, memo: set | None = None, prefix: str = "",
                      remove_duplicate: bool = True) -> Iterator[tuple[str, Module]]:
        """``(dotted name, module)`` pairs of this module (name ``prefix``) and its descendants."""
        if memo is None:
            memo = set()
        if remove_duplicate:
            if self in memo:
                return
            memo.add(self)
        yield prefix, self
        for name, module in self._modules.items():
            if module is None:
                continue
            sub_prefix = prefix + ("." if prefix else "") + name
            yield from module.named_modules(memo, sub_prefix, remove_duplicate)

    # ---- conversion -------------------------------------------------------------------

    def _apply(self, fn: Callable, recurse: bool = True) -> Module:
        """Applies ``fn`` to every parameter, gradient and buffer (with ``recurse``, also
        the descendants'). Parameters keep their identity: their data is replaced in place."""
        if recurse:
            for module in self.children():
                module._apply(fn)
        for param in self._parameters.values():
            if param is None:
                continue
            with oneflow.no_grad():
                new = fn(param)
            if new is not param:
                param.data = new
            grad = param.grad
            if grad is not None:
                with oneflow.no_grad():
                    new_grad = fn(grad)
                if new_grad is not grad:
                    grad.data = new_grad
        for key, buf in self._buffers.items():
            if buf is not None:
                self._buffers[key] = fn(buf)
        return self

    def apply(self, fn: Callable[[Module], None]) -> Module:
        """Calls ``fn(module)`` on every descendant, children first, then on this module
        (e.g. to initialize weights). Returns self."""
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    def to(self, *args, **kwargs) -> Module:
        """Moves and/or casts the parameters and buffers, in place.

        ``to(device)``, ``to(dtype)``, ``to(device, dtype)``, ``to(tensor)`` (its device and
        dtype) or keywords ``device=``, ``dtype=``, ``non_blocking=``, ``memory_format=``. A dtype
        applies to the floating point parameters and buffers only, and must itself be floating
        point. A memory format (e.g. ``oneflow.channels_last``) applies to the 4-D and 5-D ones,
        as in PyTorch.
        """
        kwargs = dict(kwargs)
        kwargs.pop("non_blocking", None)
        memory_format = kwargs.pop("memory_format", None)
        if memory_format is not None and not isinstance(memory_format, oneflow.memory_format):
            raise TypeError(f"to(): argument 'memory_format' must be oneflow.memory_format, not "
                            f"{type(memory_format).__name__}")
        device = kwargs.pop("device", None)
        dtype = kwargs.pop("dtype", None)
        tensor = kwargs.pop("tensor", None)
        if kwargs:
            raise TypeError(f"to() got an unexpected keyword argument '{next(iter(kwargs))}'")
        for a in args:
            if isinstance(a, oneflow.dtype):
                dtype = a
            elif isinstance(a, oneflow.Tensor):
                tensor = a
            elif isinstance(a, bool):
                continue  # non_blocking
            elif isinstance(a, (str, int, oneflow.device)):
                device = a
            else:
                raise TypeError(f"to() received an invalid combination of arguments: got {type(a).__name__}")
        if tensor is not None:
            device, dtype = tensor.device, tensor.dtype
        if dtype is not None and not dtype.is_floating_point:
            raise TypeError(f"nn.Module.to only accepts floating point dtypes, but got desired dtype={dtype}")
        if device is not None:
            device = oneflow.device(device)

        def convert(t):
            target = dtype if dtype is not None and t.is_floating_point() else None
            if memory_format is not None and t.dim() in (4, 5):
                return t.to(device=device, dtype=target, memory_format=memory_format)
            if device is None and target is None:
                return t
            if device is None:
                return t.to(target)
            return t.to(device, target) if target is not None else t.to(device)

        return self._apply(convert)

    def to_empty(self, *, device, recurse: bool = True) -> Module:
        """Replaces every parameter and buffer with uninitialized memory on ``device``."""
        return self._apply(lambda t: oneflow.empty_like(t, device=device), recurse=recurse)

    def cpu(self) -> Module:
        """Moves all parameters and buffers to the CPU."""
        return self._apply(lambda t: t.cpu())

    def cuda(self, device: int | oneflow.device | None = None) -> Module:
        """Moves all parameters and buffers to a CUDA device."""
        return self._apply(lambda t: t.cuda(device))

    def to_global(self, placement=None, sbp=None) -> Module:
        """Converts every parameter and buffer to a global tensor on ``placement`` with ``sbp``.

        Parameters become new global ``Parameter`` objects (make the optimizer afterwards);
        ``sbp`` may also be a function ``sbp(name, tensor)`` choosing per tensor. Needs the
        oneflow-distributed package, which implements it.
        """
        return oneflow._creation._global_plugin().module_to_global(self, placement, sbp)

    def type(self, dst_type: oneflow.dtype) -> Module:
        """Casts all parameters and buffers to ``dst_type``."""
        return self._apply(lambda t: t.to(dst_type))

    def _cast_floating(self, dtype: oneflow.dtype) -> Module:
        return self._apply(lambda t: t.to(dtype) if t.is_floating_point() else t)

    def float(self) -> Module:
        """Casts the floating point parameters and buffers to float32."""
        return self._cast_floating(oneflow.float32)

    def double(self) -> Module:
        """Casts the floating point parameters and buffers to float64."""
        return self._cast_floating(oneflow.float64)

    def half(self) -> Module:
        """Casts the floating point parameters and buffers to float16."""
        return self._cast_floating(oneflow.float16)

    def bfloat16(self) -> Module:
        """Casts the floating point parameters and buffers to bfloat16."""
        return self._cast_floating(oneflow.bfloat16)

    def share_memory(self) -> Module:
        """Kept for PyTorch compatibility: tensors need no moving to shared memory here."""
        return self

    # ---- modes and gradients ----------------------------------------------------------

    def train(self, mode: bool = True) -> Module:
        """Sets training mode (``mode=True``) or evaluation mode on this module and all its
        descendants; affects e.g. Dropout and BatchNorm. Returns self."""
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self) -> Module:
        """``train(False)``."""
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> Module:
        """Sets ``requires_grad`` of every parameter. Returns self."""
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Resets the gradients of all parameters: to None (the default) or to zeros."""
        for p in self.parameters():
            if p.grad is None:
                continue
            if set_to_none:
                p.grad = None
            else:
                if p.grad.grad_fn is not None:
                    p.grad = p.grad.detach()
                else:
                    p.grad.requires_grad_(False)
                p.grad.zero_()

    # ---- calling and hooks ------------------------------------------------------------

    def register_forward_pre_hook(self, hook: Callable, *, prepend: bool = False,
                                  with_kwargs: bool = False) -> RemovableHandle:
        """Registers ``hook(module, args)`` (or ``hook(module, args, kwargs)`` with
        ``with_kwargs``) to run before ``forward``. It may return new args (a tuple, or one
        value), or with ``with_kwargs`` a ``(args, kwargs)`` pair."""
        handle = RemovableHandle(self._forward_pre_hooks, extra_dict=self._forward_pre_hooks_with_kwargs)
        self._forward_pre_hooks[handle.id] = hook
        if with_kwargs:
            self._forward_pre_hooks_with_kwargs[handle.id] = True
        if prepend:
            self._forward_pre_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_forward_hook(self, hook: Callable, *, prepend: bool = False, with_kwargs: bool = False,
                              always_call: bool = False) -> RemovableHandle:
        """Registers ``hook(module, args, output)`` (or ``hook(module, args, kwargs, output)``
        with ``with_kwargs``) to run after ``forward``; a non-None result replaces the output.
        With ``always_call`` it also runs when ``forward`` raises."""
        handle = RemovableHandle(
            self._forward_hooks,
            extra_dict=[self._forward_hooks_with_kwargs, self._forward_hooks_always_called],
        )
        self._forward_hooks[handle.id] = hook
        if with_kwargs:
            self._forward_hooks_with_kwargs[handle.id] = True
        if always_call:
            self._forward_hooks_always_called[handle.id] = True
        if prepend:
            self._forward_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_full_backward_pre_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        """Registers ``hook(module, grad_output)`` to run when the gradients of the module's
        outputs are known; it may return replacements."""
        handle = RemovableHandle(self._backward_pre_hooks)
        self._backward_pre_hooks[handle.id] = hook
        if prepend:
            self._backward_pre_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_full_backward_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        """Registers ``hook(module, grad_input, grad_output)`` to run when the gradients of
        the module's tensor inputs are computed; it may return replacements for grad_input.
        ``grad_input`` has one entry per positional argument (None for non-tensors and for
        tensors that do not require grad)."""
        if self._is_full_backward_hook is False:
            raise RuntimeError(
                "Cannot use both regular backward hooks and full backward hooks on a single Module. "
                "Please use only one of them."
            )
        self._is_full_backward_hook = True
        handle = RemovableHandle(self._backward_hooks)
        self._backward_hooks[handle.id] = hook
        if prepend:
            self._backward_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_backward_hook(self, hook: Callable) -> RemovableHandle:
        """Deprecated in PyTorch; here the same as :meth:`register_full_backward_hook`."""
        return self.register_full_backward_hook(hook)

    def _call_impl(self, *args, **kwargs):
        forward = self.forward
        if not (self._forward_hooks or self._forward_pre_hooks or self._backward_hooks
                or self._backward_pre_hooks or _global_forward_hooks or _global_forward_pre_hooks):
            return forward(*args, **kwargs)

        called_always = set()
        try:
            for hook_id, hook in (*_global_forward_pre_hooks.items(), *self._forward_pre_hooks.items()):
                if hook_id in self._forward_pre_hooks_with_kwargs:
                    result = hook(self, args, kwargs)
                    if result is not None:
                        if not (isinstance(result, tuple) and len(result) == 2):
                            raise RuntimeError(
                                "forward pre-hook must return None or a tuple of (new_args, new_kwargs), "
                                f"but got {result}."
                            )
                        args, kwargs = result
                else:
                    result = hook(self, args)
                    if result is not None:
                        args = result if isinstance(result, tuple) else (result,)

            backward_hook = None
            if self._backward_hooks or self._backward_pre_hooks:
                backward_hook = _BackwardHook(
                    self, list(self._backward_hooks.values()), list(self._backward_pre_hooks.values())
                )
                args = backward_hook.setup_input_hook(args)

            output = forward(*args, **kwargs)

            for hook_id, hook in (*_global_forward_hooks.items(), *self._forward_hooks.items()):
                if hook_id in _global_forward_hooks_always_called or hook_id in self._forward_hooks_always_called:
                    called_always.add(hook_id)
                if hook_id in self._forward_hooks_with_kwargs:
                    result = hook(self, args, kwargs, output)
                else:
                    result = hook(self, args, output)
                if result is not None:
                    output = result

            if backward_hook is not None:
                output = backward_hook.setup_output_hook(output)
            return output
        except Exception:
            # Hooks registered with always_call run even when forward (or a hook) raised.
            for hook_id, hook in (*_global_forward_hooks.items(), *self._forward_hooks.items()):
                always = hook_id in _global_forward_hooks_always_called or hook_id in self._forward_hooks_always_called
                if always and hook_id not in called_always:
                    try:
                        if hook_id in self._forward_hooks_with_kwargs:
                            hook(self, args, kwargs, None)
                        else:
                            hook(self, args, None)
                    except Exception:
                        pass  # the original error is the one to report
            raise

    __call__: Callable[..., Any] = _call_impl

    # ---- state dict -------------------------------------------------------------------

    def _register_state_dict_hook(self, hook: Callable) -> RemovableHandle:
        handle = RemovableHandle(self._state_dict_hooks)
        self._state_dict_hooks[handle.id] = hook
        return handle

    def register_state_dict_post_hook(self, hook: Callable) -> RemovableHandle:
        """Registers ``hook(module, state_dict, prefix, local_metadata)`` to run after this
        module's entries are added to a state_dict (it may edit the dict in place)."""
        return self._register_state_dict_hook(hook)

    def register_state_dict_pre_hook(self, hook: Callable) -> RemovableHandle:
        """Registers ``hook(module, prefix, keep_vars)`` to run before ``state_dict`` saves
        this module."""
        handle = RemovableHandle(self._state_dict_pre_hooks)
        self._state_dict_pre_hooks[handle.id] = hook
        return handle

    def _register_load_state_dict_pre_hook(self, hook: Callable, with_module: bool = False) -> RemovableHandle:
        handle = RemovableHandle(self._load_state_dict_pre_hooks)
        self._load_state_dict_pre_hooks[handle.id] = (
            functools.partial(hook, self) if with_module else hook
        )
        return handle

    def register_load_state_dict_pre_hook(self, hook: Callable) -> RemovableHandle:
        """Registers ``hook(module, state_dict, prefix, local_metadata, strict, missing_keys,
        unexpected_keys, error_msgs)`` to run before this module loads its entries."""
        return self._register_load_state_dict_pre_hook(hook, with_module=True)

    def register_load_state_dict_post_hook(self, hook: Callable) -> RemovableHandle:
        """Registers ``hook(module, incompatible_keys)`` to run after ``load_state_dict``
        loaded this module; it may edit the key lists in place."""
        handle = RemovableHandle(self._load_state_dict_post_hooks)
        self._load_state_dict_post_hooks[handle.id] = hook
        return handle

    def _save_to_state_dict(self, destination: dict, prefix: str, keep_vars: bool) -> None:
        """Adds this module's own parameters and persistent buffers (not its children's)
        to ``destination``; subclasses override it to save differently."""
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars else param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if keep_vars else buf.detach()
        if type(self).get_extra_state is not Module.get_extra_state:
            destination[prefix + "_extra_state"] = self.get_extra_state()

    def state_dict(self, *args, destination: dict | None = None, prefix: str = "",
                   keep_vars: bool = False) -> dict:
        """The module's state: an ordered dict from dotted names to parameters and persistent
        buffers (detached unless ``keep_vars``), children after the module's own entries."""
        if args:
            # The old positional form state_dict(destination, prefix, keep_vars).
            if len(args) > 3:
                raise TypeError(f"state_dict() takes at most 4 positional arguments but {len(args) + 1} were given")
            destination = args[0] if destination is None else destination
            if len(args) > 1 and prefix == "":
                prefix = args[1]
            if len(args) > 2 and keep_vars is False:
                keep_vars = args[2]
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()
        local_metadata = {"version": self._version}
        if hasattr(destination, "_metadata"):
            destination._metadata[prefix[:-1]] = local_metadata
        for hook in self._state_dict_pre_hooks.values():
            hook(self, prefix, keep_vars)
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars)
        for hook in self._state_dict_hooks.values():
            result = hook(self, destination, prefix, local_metadata)
            if result is not None:
                destination = result
        return destination

    def _load_from_state_dict(self, state_dict: dict, prefix: str, local_metadata: dict, strict: bool,
                              missing_keys: list, unexpected_keys: list, error_msgs: list) -> None:
        """Loads this module's own parameters and persistent buffers from ``state_dict``
        (not its children's), recording missing and unexpected keys and errors;
        subclasses override it to load differently (e.g. to convert old formats)."""
        for hook in self._load_state_dict_pre_hooks.values():
            hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs)

        persistent_buffers = {k: v for k, v in self._buffers.items() if k not in self._non_persistent_buffers_set}
        local_state = {k: v for k, v in itertools.chain(self._parameters.items(), persistent_buffers.items())
                       if v is not None}
        assign = local_metadata.get("assign_to_params_buffers", False)

        for name, param in local_state.items():
            key = prefix + name
            if key not in state_dict:
                if strict:
                    missing_keys.append(key)
                continue
            value = state_dict[key]
            input_param = _as_tensor(value)
            if input_param is None:
                error_msgs.append(
                    f'While copying the parameter named "{key}", expected oneflow.Tensor or '
                    f"Tensor-like object from checkpoint but received {type(value)}"
                )
                continue
            # Checkpoints from very old versions stored 0-d tensors as 1-element 1-d ones.
            if param.ndim == 0 and input_param.ndim == 1 and input_param.shape[0] == 1:
                input_param = input_param[0]
            if input_param.shape != param.shape:
                error_msgs.append(
                    f"size mismatch for {key}: copying a param with shape {input_param.shape} from "
                    f"checkpoint, the shape in current model is {param.shape}."
                )
                continue
            try:
                with oneflow.no_grad():
                    if assign:
                        if isinstance(param, Parameter):
                            if not isinstance(input_param, Parameter):
                                input_param = Parameter(input_param, requires_grad=param.requires_grad)
                            else:
                                input_param.requires_grad_(param.requires_grad)
                        setattr(self, name, input_param)
                    else:
                        param.copy_(input_param)
            except Exception as ex:
                error_msgs.append(
                    f'While copying the parameter named "{key}", whose dimensions in the model are '
                    f"{param.shape} and whose dimensions in the checkpoint are {input_param.shape}, "
                    f"an exception occurred : {ex.args}."
                )

        extra_key = prefix + "_extra_state"
        if type(self).set_extra_state is not Module.set_extra_state:
            if extra_key in state_dict:
                self.set_extra_state(state_dict[extra_key])
            elif strict:
                missing_keys.append(extra_key)
        elif strict and extra_key in state_dict:
            unexpected_keys.append(extra_key)

        if strict:
            for key in state_dict:
                if key.startswith(prefix) and key != extra_key:
                    head = key[len(prefix):].split(".", 1)[0]
                    if head not in self._modules and head not in local_state:
                        unexpected_keys.append(key)

    def load_state_dict(self, state_dict: Mapping[str, Any], strict: bool = True,
                        assign: bool = False) -> _IncompatibleKeys:
        """Copies parameters and buffers from ``state_dict`` into this module and its
        descendants.

        Values may be oneflow tensors or NumPy arrays (e.g. ``torch_tensor.numpy()``). With
        ``strict`` (the default) the keys must match ``state_dict()``'s exactly; any missing
        or unexpected key, or a shape mismatch, raises a RuntimeError listing them all. With
        ``assign`` the module takes the given tensors instead of copying into its own.

        Returns:
            a named tuple ``(missing_keys, unexpected_keys)``.
        """
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing_keys: list = []
        unexpected_keys: list = []
        error_msgs: list = []
        metadata = getattr(state_dict, "_metadata", None)
        state_dict = OrderedDict(state_dict)
        if metadata is not None:
            state_dict._metadata = metadata

        def load(module: Module, local_state_dict: dict, prefix: str = "") -> None:
            local_metadata = {} if metadata is None else dict(metadata.get(prefix[:-1], {}))
            if assign:
                local_metadata["assign_to_params_buffers"] = assign
            module._load_from_state_dict(
                local_state_dict, prefix, local_metadata, True, missing_keys, unexpected_keys, error_msgs
            )
            for name, child in module._modules.items():
                if child is not None:
                    child_prefix = prefix + name + "."
                    child_state = {k: v for k, v in local_state_dict.items() if k.startswith(child_prefix)}
                    load(child, child_state, child_prefix)
            incompatible = _IncompatibleKeys(missing_keys, unexpected_keys)
            for hook in module._load_state_dict_post_hooks.values():
                if hook(module, incompatible) is not None:
                    raise RuntimeError(
                        "Hooks registered with ``register_load_state_dict_post_hook`` are not "
                        "expected to return new values, if incompatible_keys need to be modified, "
                        "it should be done inplace."
                    )

        load(self, state_dict)

        if strict:
            if unexpected_keys:
                error_msgs.insert(
                    0, "Unexpected key(s) in state_dict: {}. ".format(", ".join(f'"{k}"' for k in unexpected_keys))
                )
            if missing_keys:
                error_msgs.insert(
                    0, "Missing key(s) in state_dict: {}. ".format(", ".join(f'"{k}"' for k in missing_keys))
                )
        if error_msgs:
            raise RuntimeError(
                "Error(s) in loading state_dict for {}:\n\t{}".format(type(self).__name__, "\n\t".join(error_msgs))
            )
        return _IncompatibleKeys(missing_keys, unexpected_keys)

    # ---- printing ---------------------------------------------------------------------

    def _get_name(self) -> str:
        return type(self).__name__

    def extra_repr(self) -> str:
        """The module's own settings for its repr (e.g. ``in_features=4``); subclasses
        override it. One line prints inside the parentheses, several lines each on their own."""
        return ""

    def __repr__(self) -> str:
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [f"({name}): " + _addindent(repr(module), 2) for name, module in self._modules.items()]
        lines = extra_lines + child_lines
        body = ""
        if len(extra_lines) == 1 and not child_lines:
            body = extra_lines[0]
        elif lines:
            body = "\n  " + "\n  ".join(lines) + "\n"
        return f"{self._get_name()}({body})"


class Identity(Module):
    """Returns its input unchanged; takes (and ignores) any constructor arguments, so it can
    stand in for another layer."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__()

    def forward(self, input: oneflow.Tensor) -> oneflow.Tensor:
        return input
