"""The flowvision model zoo.

Each family lives in its own module (``resnet.py``, ``vision_transformer.py``, ...)
and registers its constructors with ``@ModelCreator.register_model``; every module of
this package is imported here and the names in its ``__all__`` are re-exported, so a
new family needs no edit elsewhere. Constructors take ``pretrained=False,
progress=True, **kwargs``; parameter names and shapes follow torchvision (timm where
torchvision has no such model), so converted PyTorch weights load unchanged.
"""

import importlib as _importlib
import pkgutil as _pkgutil

from flowvision.models._weights import cache_dir, load_checkpoint, load_pretrained
from flowvision.models.registry import ModelCreator

__all__ = ["ModelCreator", "cache_dir", "load_checkpoint", "load_pretrained"]

for _info in sorted(_pkgutil.iter_modules(__path__), key=lambda m: m.name):
    if _info.name.startswith("_") or _info.name == "registry" or _info.name.endswith("_test"):
        continue
    _module = _importlib.import_module(f"{__name__}.{_info.name}")
    for _public in getattr(_module, "__all__", ()):
        globals()[_public] = getattr(_module, _public)
        if _public not in __all__:
            __all__.append(_public)
