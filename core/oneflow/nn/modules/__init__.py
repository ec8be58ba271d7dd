"""The layer classes of ``oneflow.nn``: Module, the containers, and one file per family.

Every module in this package lists its public names in ``__all__``; they are
collected here (in file-name order) and re-exported by ``oneflow.nn``, so a new
family file needs no edit elsewhere. ``module.py`` and ``container.py`` come
first, as the other files build on them.
"""

import importlib as _importlib
import pkgutil as _pkgutil

__all__: list = []

_FIRST = ("module", "container")  # the base classes, before the layer families that use them

# The tests beside the files (module_test.py, ...) are no part of the package.
_FAMILIES = sorted(
    m.name for m in _pkgutil.iter_modules(__path__) if m.name not in _FIRST and not m.name.endswith("_test")
)

for _name in (*_FIRST, *_FAMILIES):
    _module = _importlib.import_module(f"{__name__}.{_name}")
    for _public in getattr(_module, "__all__", ()):
        globals()[_public] = getattr(_module, _public)
        if _public not in __all__:
            __all__.append(_public)
