"""Functional forms of the nn ops, as in ``torch.nn.functional``.

Every registered op is reachable here (``F.relu``, ``F.conv2d``, ...). The
family modules beside this file (``_activation.py``, ``_loss.py``, ...) add
Python wrappers where PyTorch's signature cannot be one op schema
(``F.dropout(input, p, training)``, ``F.interpolate(size=|scale_factor=)``);
each lists its names in ``__all__`` and they are collected here.
"""

import importlib as _importlib
import pkgutil as _pkgutil

from oneflow import _C

__all__: list = []

for _info in sorted(_pkgutil.iter_modules(__path__), key=lambda m: m.name):
    if _info.name.endswith("_test"):
        continue  # a test beside the family files is no part of the package
    _module = _importlib.import_module(f"{__name__}.{_info.name}")
    for _name in getattr(_module, "__all__", ()):
        globals()[_name] = getattr(_module, _name)
        __all__.append(_name)


def __getattr__(name: str):
    # Ops without a Python wrapper come straight from the registry.
    try:
        return getattr(_C.ops, name)
    except AttributeError:
        raise AttributeError(f"module 'oneflow.nn.functional' has no attribute '{name}'") from None
