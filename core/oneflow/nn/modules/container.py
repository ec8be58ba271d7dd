"""Containers: ``Sequential``, ``ModuleList``, ``ModuleDict``, ``ParameterList``, ``ParameterDict``.

They register what they hold under string keys (``"0"``, ``"1"``... for the
lists), so their contents appear in ``parameters()``, ``state_dict()`` and the
repr like any attribute-assigned member.
"""

from __future__ import annotations

import operator
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Mapping
from itertools import chain, islice
from typing import Any

import oneflow
from oneflow.nn.modules.module import Module, _addindent, _typename
from oneflow.nn.parameter import Parameter

__all__ = ["ModuleDict", "ModuleList", "ParameterDict", "ParameterList", "Sequential"]


def _abs_index(idx: Any, size: int) -> int:
    """``idx`` as an index in [0, size); IndexError when outside [-size, size)."""
    idx = operator.index(idx)
    if not -size <= idx < size:
        raise IndexError(f"index {idx} is out of range")
    return idx + size if idx < 0 else idx


def _without_digits(keys: list) -> list:
    return [k for k in keys if not k.isdigit()]


class Sequential(Module):
    """Modules called in order, each on the previous one's output.

    ``Sequential(a, b, c)`` names its members ``"0"``, ``"1"``, ``"2"``;
    ``Sequential(OrderedDict([("fc", a), ("act", b)]))`` uses the given names.
    Supports indexing and slicing (a slice is a new Sequential), ``len``,
    iteration, ``append``, ``insert``, ``extend``, ``pop``, ``+`` and ``*``.
    """

    def __init__(self, *args: Module) -> None:
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for key, module in args[0].items():
                self.add_module(key, module)
        else:
            for idx, module in enumerate(args):
                self.add_module(str(idx), module)

    def _key_at(self, idx: Any) -> str:
        return next(islice(iter(self._modules), _abs_index(idx, len(self)), None))

    def __getitem__(self, idx: int | slice) -> Module | Sequential:
        if isinstance(idx, slice):
            return self.__class__(OrderedDict(list(self._modules.items())[idx]))
        return self._modules[self._key_at(idx)]

    def __setitem__(self, idx: int, module: Module) -> None:
        setattr(self, self._key_at(idx), module)

    def __delitem__(self, idx: int | slice) -> None:
        if isinstance(idx, slice):
            for key in list(self._modules)[idx]:
                delattr(self, key)
        else:
            delattr(self, self._key_at(idx))
        # Renumber, so the keys stay "0".."n-1" (named members take numbers too, as in PyTorch).
        self._modules = OrderedDict((str(i), m) for i, m in enumerate(self._modules.values()))

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def __dir__(self) -> list:
        return _without_digits(super().__dir__())

    def __add__(self, other: Sequential) -> Sequential:
        if not isinstance(other, Sequential):
            raise ValueError(
                f"add operator supports only objects of Sequential class, but {type(other)} is given."
            )
        out = Sequential()
        for layer in chain(self, other):
            out.append(layer)
        return out

    def __iadd__(self, other: Sequential) -> Sequential:
        if not isinstance(other, Sequential):
            raise ValueError(
                f"add operator supports only objects of Sequential class, but {type(other)} is given."
            )
        for layer in list(other):
            self.append(layer)
        return self

    def _check_repeat(self, other: Any) -> None:
        if not isinstance(other, int) or isinstance(other, bool):
            raise TypeError(f"unsupported operand type(s) for *: {type(self)} and {type(other)}")
        if other <= 0:
            raise ValueError(f"Non-positive multiplication factor {other} for {type(self)}")

    def __mul__(self, other: int) -> Sequential:
        self._check_repeat(other)
        out = Sequential()
        for _ in range(other):
            for layer in self:
                out.append(layer)
        return out

    __rmul__ = __mul__

    def __imul__(self, other: int) -> Sequential:
        self._check_repeat(other)
        layers = list(self)
        for _ in range(other - 1):
            for layer in layers:
                self.append(layer)
        return self

    def pop(self, key: int | slice) -> Module:
        """Removes and returns the module at ``key``."""
        value = self[key]
        del self[key]
        return value

    def append(self, module: Module) -> Sequential:
        """Adds ``module`` at the end. Returns self."""
        self.add_module(str(len(self)), module)
        return self

    def insert(self, index: int, module: Module) -> Sequential:
        """Inserts ``module`` before position ``index`` (``len(self)`` appends)."""
        if not isinstance(module, Module):
            raise AssertionError(f"module should be of type: {Module}")
        n = len(self._modules)
        if not -n <= index <= n:
            raise IndexError(f"Index out of range: {index}")
        if index < 0:
            index += n
        for i in range(n, index, -1):
            self._modules[str(i)] = self._modules[str(i - 1)]
        self._modules[str(index)] = module
        return self

    def extend(self, sequential: Iterable[Module]) -> Sequential:
        """Appends every module of ``sequential``. Returns self."""
        for layer in sequential:
            self.append(layer)
        return self

    def forward(self, input):
        for module in self:
            input = module(input)
        return input


class ModuleList(Module):
    """A list of modules, registered as ``"0"``, ``"1"``...; indexable like a list.

    It has no ``forward``: the owning module decides how to call its members.
    """

    def __init__(self, modules: Iterable[Module] | None = None) -> None:
        super().__init__()
        if modules is not None:
            self += modules

    def _key(self, idx: Any) -> str:
        return str(_abs_index(idx, len(self)))

    def __getitem__(self, idx: int | slice) -> Module | ModuleList:
        if isinstance(idx, slice):
            return self.__class__(list(self._modules.values())[idx])
        return self._modules[self._key(idx)]

    def __setitem__(self, idx: int, module: Module) -> None:
        setattr(self, self._key(idx), module)

    def __delitem__(self, idx: int | slice) -> None:
        if isinstance(idx, slice):
            for k in range(len(self._modules))[idx]:
                delattr(self, str(k))
        else:
            delattr(self, self._key(idx))
        self._modules = OrderedDict((str(i), m) for i, m in enumerate(self._modules.values()))

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def __iadd__(self, modules: Iterable[Module]) -> ModuleList:
        return self.extend(modules)

    def __add__(self, other: Iterable[Module]) -> ModuleList:
        out = ModuleList()
        for i, module in enumerate(chain(self, other)):
            out.add_module(str(i), module)
        return out

    def __repr__(self) -> str:
        # Runs of members with the same repr print once: "(0-2): 3 x Linear(...)".
        reprs = [repr(m) for m in self]
        if not reprs:
            return self._get_name() + "()"
        runs: list = []  # [first index, last index, repr]
        for i, r in enumerate(reprs):
            if runs and runs[-1][2] == r:
                runs[-1][1] = i
            else:
                runs.append([i, i, r])
        lines = []
        for first, last, r in runs:
            if first == last:
                line = f"({first}): {r}"
            else:
                line = f"({first}-{last}): {last - first + 1} x {r}"
            lines.append(_addindent(line, 2))
        return self._get_name() + "(\n  " + "\n  ".join(lines) + "\n)"

    def __dir__(self) -> list:
        return _without_digits(super().__dir__())

    def insert(self, index: int, module: Module) -> None:
        """Inserts ``module`` before position ``index``."""
        for i in range(len(self._modules), index, -1):
            self._modules[str(i)] = self._modules[str(i - 1)]
        self._modules[str(index)] = module

    def append(self, module: Module) -> ModuleList:
        """Adds ``module`` at the end. Returns self."""
        self.add_module(str(len(self)), module)
        return self

    def pop(self, key: int | slice) -> Module:
        """Removes and returns the module at ``key``."""
        value = self[key]
        del self[key]
        return value

    def extend(self, modules: Iterable[Module]) -> ModuleList:
        """Appends every module of the iterable ``modules``. Returns self."""
        if not isinstance(modules, Iterable):
            raise TypeError("ModuleList.extend should be called with an iterable, but got " + type(modules).__name__)
        offset = len(self)
        for i, module in enumerate(modules):
            self.add_module(str(offset + i), module)
        return self


class ModuleDict(Module):
    """An ordered dict of modules, registered under their keys.

    Built from a mapping or from an iterable of ``(key, module)`` pairs; keeps
    insertion order. It has no ``forward``.
    """

    def __init__(self, modules: Mapping[str, Module] | Iterable | None = None) -> None:
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key: str) -> Module:
        return self._modules[key]

    def __setitem__(self, key: str, module: Module) -> None:
        self.add_module(key, module)

    def __delitem__(self, key: str) -> None:
        del self._modules[key]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[str]:
        return iter(self._modules)

    def __contains__(self, key: str) -> bool:
        return key in self._modules

    def clear(self) -> None:
        """Removes every module."""
        self._modules.clear()

    def pop(self, key: str) -> Module:
        """Removes and returns the module under ``key``."""
        value = self[key]
        del self[key]
        return value

    def keys(self) -> Iterable[str]:
        """The keys, in order."""
        return self._modules.keys()

    def items(self) -> Iterable[tuple[str, Module]]:
        """``(key, module)`` pairs, in order."""
        return self._modules.items()

    def values(self) -> Iterable[Module]:
        """The modules, in order."""
        return self._modules.values()

    def update(self, modules: Mapping[str, Module] | Iterable) -> None:
        """Adds (or replaces) modules from a mapping or from ``(key, module)`` pairs."""
        if not isinstance(modules, Iterable):
            raise TypeError(
                "ModuleDict.update should be called with an iterable of key/value pairs, but got "
                + type(modules).__name__
            )
        if isinstance(modules, (OrderedDict, ModuleDict, Mapping)):
            for key, module in modules.items():
                self[key] = module
            return
        for j, pair in enumerate(modules):
            if not isinstance(pair, Iterable):
                raise TypeError(
                    "ModuleDict update sequence element #" + str(j) + " should be Iterable; is" + type(pair).__name__
                )
            if len(pair) != 2:
                raise ValueError(
                    "ModuleDict update sequence element #" + str(j) + " has length " + str(len(pair))
                    + "; 2 is required"
                )
            self[pair[0]] = pair[1]


def _describe(value: Any, legacy_type: bool) -> str:
    """One member of a ParameterList/Dict as its repr prints it: PyTorch's ParameterList names
    the dtype, its ParameterDict the legacy tensor type (``oneflow.FloatTensor``)."""
    if not isinstance(value, oneflow.Tensor):
        return "Object of type: " + type(value).__name__
    size = "x".join(str(s) for s in value.shape)
    device = f" ({value.device})" if value.device.type != "cpu" else ""
    kind = "Parameter" if isinstance(value, Parameter) else "Tensor"
    type_name = _typename(value) if legacy_type else str(value.dtype)
    return f"{kind} containing: [{type_name} of size {size}{device}]"


class ParameterList(Module):
    """A list of parameters, registered as ``"0"``, ``"1"``...

    Tensors put in are wrapped as :class:`Parameter`; other objects are kept as
    they are (and not registered). Calling it raises.
    """

    def __init__(self, values: Iterable[Any] | None = None) -> None:
        super().__init__()
        self._size = 0
        if values is not None:
            self += values

    def _key(self, idx: Any) -> str:
        return str(_abs_index(idx, len(self)))

    def __getitem__(self, idx: int | slice) -> Any:
        if isinstance(idx, slice):
            out = self.__class__()
            for i in range(*idx.indices(len(self))):
                out.append(self[i])
            return out
        return getattr(self, self._key(idx))

    def __setitem__(self, idx: int, param: Any) -> None:
        key = self._key(idx)
        if isinstance(param, oneflow.Tensor) and not isinstance(param, Parameter):
            param = Parameter(param)
        setattr(self, key, param)

    def __len__(self) -> int:
        return self._size

    def __iter__(self) -> Iterator[Any]:
        return (self[i] for i in range(len(self)))

    def __iadd__(self, parameters: Iterable[Any]) -> ParameterList:
        return self.extend(parameters)

    def __dir__(self) -> list:
        return _without_digits(super().__dir__())

    def append(self, value: Any) -> ParameterList:
        """Adds ``value`` at the end. Returns self."""
        index = len(self)
        self._size += 1
        self[index] = value
        return self

    def extend(self, values: Iterable[Any]) -> ParameterList:
        """Appends every element of ``values``. Returns self."""
        if not isinstance(values, Iterable) or isinstance(values, oneflow.Tensor):
            raise TypeError("ParameterList.extend should be called with an iterable, but got " + type(values).__name__)
        for value in values:
            self.append(value)
        return self

    def extra_repr(self) -> str:
        return "\n".join(f"  ({i}): {_describe(p, False)}" for i, p in enumerate(self))

    def __call__(self, *args, **kwargs):
        raise RuntimeError("ParameterList should not be called.")


class ParameterDict(Module):
    """An ordered dict of parameters, registered under their (string) keys.

    Tensors put in are wrapped as :class:`Parameter`. Built from an OrderedDict or
    another ParameterDict (in order), from a plain mapping (in sorted key order, as
    PyTorch does) or from ``(key, value)`` pairs. Calling it raises.
    """

    def __init__(self, parameters: Any = None) -> None:
        super().__init__()
        self._keys: dict = {}
        if parameters is not None:
            self.update(parameters)

    @staticmethod
    def _check_key(key: Any) -> str:
        if not isinstance(key, str):
            raise TypeError(
                "Index given to ParameterDict cannot be used as a key as it is not a string "
                f"(type is '{type(key).__name__}')."
            )
        return key

    def __getitem__(self, key: str) -> Any:
        return getattr(self, self._check_key(key))

    def __setitem__(self, key: str, value: Any) -> None:
        self._check_key(key)
        self._keys[key] = None
        if isinstance(value, oneflow.Tensor) and not isinstance(value, Parameter):
            value = Parameter(value)
        setattr(self, key, value)

    def __delitem__(self, key: str) -> None:
        del self._keys[key]
        delattr(self, key)

    def __len__(self) -> int:
        return len(self._keys)

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys)

    def __reversed__(self) -> Iterator[str]:
        return reversed(list(self._keys))

    def __contains__(self, key: str) -> bool:
        return key in self._keys

    def copy(self) -> ParameterDict:
        """A new ParameterDict holding the same parameters."""
        return ParameterDict(OrderedDict((k, self[k]) for k in self._keys))

    def setdefault(self, key: str, default: Any | None = None) -> Any:
        """The value under ``key``, first setting it to ``default`` when absent."""
        if key not in self:
            self[key] = default
        return self[key]

    def clear(self) -> None:
        """Removes every entry."""
        for k in list(self._keys):
            del self[k]

    def pop(self, key: str) -> Any:
        """Removes and returns the value under ``key``."""
        value = self[key]
        del self[key]
        return value

    def popitem(self) -> tuple[str, Any]:
        """Removes and returns the last inserted ``(key, value)`` pair."""
        key = list(self._keys)[-1]
        value = self[key]
        del self[key]
        return key, value

    def get(self, key: str, default: Any | None = None) -> Any:
        """The value under ``key``, or ``default``."""
        return self[key] if key in self else default

    def fromkeys(self, keys: Iterable[str], default: Any | None = None) -> ParameterDict:
        """A new ParameterDict with ``keys`` all set to ``default``."""
        return ParameterDict((k, default) for k in keys)

    def keys(self) -> Iterable[str]:
        """The keys, in order."""
        return self._keys.keys()

    def items(self) -> Iterable[tuple[str, Any]]:
        """``(key, value)`` pairs, in order."""
        return ((k, self[k]) for k in self._keys)

    def values(self) -> Iterable[Any]:
        """The values, in order."""
        return (self[k] for k in self._keys)

    def update(self, parameters: Any) -> None:
        """Adds (or replaces) entries from a mapping or from ``(key, value)`` pairs."""
        if not isinstance(parameters, Iterable):
            raise TypeError(
                "ParametersDict.update should be called with an iterable of key/value pairs, but got "
                + type(parameters).__name__
            )
        if isinstance(parameters, (OrderedDict, ParameterDict)):
            for key, value in parameters.items():
                self[key] = value
        elif isinstance(parameters, Mapping):
            for key, value in sorted(parameters.items()):
                self[key] = value
        else:
            for j, pair in enumerate(parameters):
                if not isinstance(pair, Iterable):
                    raise TypeError(
                        "ParameterDict update sequence element #" + str(j) + " should be Iterable; is"
                        + type(pair).__name__
                    )
                if len(pair) != 2:
                    raise ValueError(
                        "ParameterDict update sequence element #" + str(j) + " has length " + str(len(pair))
                        + "; 2 is required"
                    )
                self[pair[0]] = pair[1]

    def extra_repr(self) -> str:
        return "\n".join(f"  ({k}): {_describe(p, True)}" for k, p in self.items())

    def __call__(self, input):
        raise RuntimeError("ParameterDict should not be called.")

    def __or__(self, other: ParameterDict) -> ParameterDict:
        out = self.copy()
        out.update(other)
        return out

    def __ror__(self, other: ParameterDict) -> ParameterDict:
        out = other.copy()
        out.update(self)
        return out

    def __ior__(self, other: ParameterDict) -> ParameterDict:
        self.update(other)
        return self
