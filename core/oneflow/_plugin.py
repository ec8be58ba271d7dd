"""The core's side of its plugins: version checks and hooks.

distributed, graph, libai, flowvision and serving ship as separate wheels. Each
declares the oneflow versions it works with (the same range as the
Requires-Dist of its wheel) and calls :func:`check_oneflow_requirement` when
imported, so a mismatch is an ImportError that says what to install instead of
an AttributeError deep inside.

The core never imports a plugin by name (the layering test checks it): plugins
register hooks here (:func:`register_hook`) that the core calls when set, and
declare, in ``oneflow._entry_points``, what the core may import on first use.
"""

from __future__ import annotations

import operator
import re

from oneflow._version import __version__

_OPS = {
    ">=": operator.ge,
    "<=": operator.le,
    "==": operator.eq,
    "!=": operator.ne,
    ">": operator.gt,
    "<": operator.lt,
}


def _parse(version: str) -> tuple[int, ...]:
    m = re.match(r"^(\d+(?:\.\d+)*)", version.strip())
    if not m:
        raise ValueError(f"cannot parse version {version!r}")
    return tuple(int(p) for p in m.group(1).split("."))


def _pad(a: tuple[int, ...], b: tuple[int, ...]):
    n = max(len(a), len(b))
    return a + (0,) * (n - len(a)), b + (0,) * (n - len(b))


def version_satisfies(version: str, requirement: str) -> bool:
    """True when ``version`` meets every clause of ``requirement`` (e.g. ``">=0.1.0,<0.2.0"``)."""
    for clause in filter(None, (c.strip() for c in requirement.split(","))):
        m = re.match(r"^(>=|<=|==|!=|>|<)\s*(.+)$", clause)
        if not m:
            raise ValueError(f"unsupported version clause {clause!r} in {requirement!r}")
        have, want = _pad(_parse(version), _parse(m.group(2)))
        if not _OPS[m.group(1)](have, want):
            return False
    return True


def check_oneflow_requirement(package: str, requirement: str, installed: str = __version__) -> None:
    """Raises ImportError unless the installed oneflow satisfies ``requirement``."""
    if not version_satisfies(installed, requirement):
        raise ImportError(
            f"{package} requires oneflow{requirement}, but oneflow {installed} is installed. "
            f"Install a matching oneflow wheel, e.g. pip install 'oneflow{requirement}'."
        )


# ---- Hooks: how the core reaches the packages built on it -------------------------------------
# The core never imports a plugin by name. A plugin registers the objects the core calls
# (register_hook) when its modules are imported. So that `import oneflow` neither needs nor loads a
# plugin, while `oneflow.env` or `placement=` still work without importing one first, each plugin
# ships an entry-point module in the `oneflow._entry_points` namespace package (the folder
# oneflow/_entry_points/ of its own tree, found through oneflow.__path__), which declares
#
#   HOOKS = {hook name: module that registers that hook when imported}
#   ATTRIBUTES = {"oneflow.nn": {attribute: (module to import, attribute of it or None)}}
#
# and the core reads these declarations on first need, never at import time.

_hooks: dict = {}
_entry_points: list | None = None


def register_hook(name: str, impl) -> None:
    """Called by a plugin at import time: the core reaches ``impl`` as hook ``name`` from now on."""
    _hooks[name] = impl


def hook(name: str):
    """The object registered as hook ``name``, or None while no imported plugin registered it."""
    return _hooks.get(name)


def _declarations() -> list:
    """The entry-point modules of the installed plugins, imported once, in name order."""
    global _entry_points
    if _entry_points is None:
        import importlib
        import pkgutil

        try:
            namespace = importlib.import_module("oneflow._entry_points")
        except ImportError:  # no plugin installed
            _entry_points = []
        else:
            names = sorted(info.name for info in pkgutil.iter_modules(namespace.__path__))
            _entry_points = [importlib.import_module(f"{namespace.__name__}.{n}") for n in names]
    return _entry_points


def load_hook(name: str, missing: str):
    """Hook ``name``, importing the plugin that declares it on first use.

    Raises ImportError with the message ``missing`` when no installed plugin declares it (errors
    inside an installed plugin propagate).
    """
    impl = _hooks.get(name)
    if impl is not None:
        return impl
    import importlib

    for entry in _declarations():
        module = getattr(entry, "HOOKS", {}).get(name)
        if module is not None:
            importlib.import_module(module)
            if name in _hooks:
                return _hooks[name]
    raise ImportError(missing)


_MISSING = object()


def plugin_attribute(module: str, name: str, default=_MISSING):
    """Attribute ``name`` of the core module ``module`` that an installed plugin declares (imported
    on first use); ``default`` when none does, or AttributeError without a default."""
    if name.startswith("__"):  # dunder probes (copy, pickle, inspect) never come from a plugin
        return _missing_attribute(module, name, default)
    import importlib

    for entry in _declarations():
        target = getattr(entry, "ATTRIBUTES", {}).get(module, {}).get(name)
        if target is not None:
            value = importlib.import_module(target[0])
            return value if target[1] is None else getattr(value, target[1])
    return _missing_attribute(module, name, default)


def _missing_attribute(module: str, name: str, default):
    if default is _MISSING:
        raise AttributeError(f"module '{module}' has no attribute '{name}'")
    return default
