"""``GraphModule``: how an ``nn.Graph`` holds the modules assigned to it (OneFlow's proxy).

A graph wraps each module assigned in its ``__init__``; ``graph.model`` is the proxy, which calls
the module and forwards attribute reads to it. ``graph.model.to(nn.graph.GraphModule)`` is the
proxy and ``graph.model.to(nn.Module)`` the module itself, as in OneFlow v0.9.
"""

from __future__ import annotations

import oneflow


class ModuleConfig:
    """Per-module graph options: OneFlow v0.7's ``graph.model.config`` spellings (``stage_id``,
    ``activation_checkpointing``), stored for the passes that read them."""

    def __init__(self) -> None:
        self.stage_id = None
        self.activation_checkpointing = False


class GraphModule:
    """A module as an ``nn.Graph`` holds it.

    Attributes:
        name: the attribute name the graph gave it.
        name_prefix: the graph's name and the dots leading to it.
        type: ``"MODULE"``.
        origin: the wrapped ``nn.Module``.
    """

    def __init__(self, module: oneflow.nn.Module, name: str, prefix: str) -> None:
        object.__setattr__(self, "_origin", module)
        object.__setattr__(self, "_name", name)
        object.__setattr__(self, "_prefix", prefix)
        object.__setattr__(self, "_config", ModuleConfig())
        object.__setattr__(self, "_stage", None)

    @property
    def origin(self) -> oneflow.nn.Module:
        return self._origin

    @property
    def name(self) -> str:
        return self._name

    @property
    def name_prefix(self) -> str:
        return self._prefix

    @property
    def type(self) -> str:
        return "MODULE"

    @property
    def config(self) -> ModuleConfig:
        return self._config

    @property
    def activation_checkpointing(self) -> bool:
        return self._config.activation_checkpointing

    @activation_checkpointing.setter
    def activation_checkpointing(self, value: bool) -> None:
        self._config.activation_checkpointing = bool(value)

    def set_stage(self, stage_id: int, placement=None) -> None:
        """Puts the module in pipeline stage ``stage_id`` (on ``placement``)."""
        self._config.stage_id = stage_id
        object.__setattr__(self, "_stage", (stage_id, placement))

    def to(self, kind):
        """``to(nn.Module)``: the wrapped module; ``to(GraphModule)``: this proxy."""
        if kind is GraphModule:
            return self
        if isinstance(kind, type) and issubclass(kind, oneflow.nn.Module):
            return self._origin
        raise TypeError(f"GraphModule.to() takes nn.Module or nn.graph.GraphModule, got {kind!r}")

    def __call__(self, *args, **kwargs):
        return self._origin(*args, **kwargs)

    def __getattr__(self, name: str):
        return getattr(self._origin, name)

    def __setattr__(self, name: str, value) -> None:
        setattr(self._origin, name, value)

    def __repr__(self) -> str:
        inner = repr(self._origin).replace("\n", "\n  ")
        return f"(MODULE:{self._prefix}{self._name}:{inner})"
