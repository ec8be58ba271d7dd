"""``oneflow.nn.module``: OneFlow's module path of the layer base class
(``from oneflow.nn.module import Module``); the class lives in ``oneflow.nn.modules.module``."""

from oneflow.nn.modules.module import Module

__all__ = ["Module"]
