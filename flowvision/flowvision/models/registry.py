"""The model registry: every constructor registers itself by name.

A model family module decorates each public constructor with
``@ModelCreator.register_model``; ``ModelCreator.create_model(name, ...)`` builds a
model by name, optionally with weights, and ``ModelCreator.model_table()`` lists
what is registered.
"""

from __future__ import annotations

import difflib
import fnmatch
import inspect
from collections.abc import Callable
from typing import Any

__all__ = ["ModelCreator"]


class ModelCreator:
    """Names every registered model constructor and builds models by name."""

    _registry: dict[str, Callable[..., Any]] = {}

    @classmethod
    def register_model(cls, fn: Callable[..., Any]) -> Callable[..., Any]:
        """Decorator: registers ``fn`` under its ``__name__`` (names are unique)."""
        name = fn.__name__
        if name in cls._registry and cls._registry[name] is not fn:
            raise ValueError(f"register_model: a model named {name!r} is already registered "
                             f"(by {cls._registry[name].__module__})")
        cls._registry[name] = fn
        return fn

    @classmethod
    def model_list(cls, pattern: str | None = None) -> list[str]:
        """Registered names, sorted; ``pattern`` filters with shell wildcards (``"resnet*"``)."""
        names = sorted(cls._registry)
        if pattern:
            names = [n for n in names if fnmatch.fnmatchcase(n, pattern)]
        return names

    @classmethod
    def _check_name(cls, name: str) -> Callable[..., Any]:
        if name not in cls._registry:
            close = difflib.get_close_matches(name, cls._registry, n=5, cutoff=0.5)
            hint = f" Did you mean: {', '.join(close)}?" if close else ""
            raise ValueError(f"create_model: unknown model {name!r}.{hint} "
                             f"ModelCreator.model_table() lists the {len(cls._registry)} registered models.")
        return cls._registry[name]

    @classmethod
    def create_model(cls, model_name: str, pretrained: bool = False, checkpoint: str | None = None,
                     **kwargs: Any):
        """Builds the model registered as ``model_name``.

        Args:
            model_name: a registered name (see :meth:`model_table`).
            pretrained: load the weights from the cache dir (see
                :func:`flowvision.models.load_pretrained`).
            checkpoint: a local weights file to load instead.
            **kwargs: passed to the constructor (``num_classes=``, ...).
        """
        fn = cls._check_name(model_name)
        model = fn(pretrained=pretrained and checkpoint is None, **kwargs)
        if checkpoint is not None:
            from flowvision.models._weights import load_checkpoint

            load_checkpoint(model, checkpoint)
        return model

    @classmethod
    def model_table(cls, pattern: str | None = None) -> str:
        """A text table of the registered models (name, family, defaults), filtered by ``pattern``."""
        rows = []
        for name in cls.model_list(pattern):
            fn = cls._registry[name]
            family = fn.__module__.rsplit(".", 1)[-1]
            params = inspect.signature(fn).parameters
            extra = ", ".join(f"{k}={v.default!r}" for k, v in params.items()
                              if k not in ("pretrained", "progress", "kwargs") and v.default is not inspect._empty)
            rows.append((name, family, extra))
        if not rows:
            return f"no registered model matches {pattern!r}"
        w_name = max(len("model"), *(len(r[0]) for r in rows))
        w_family = max(len("family"), *(len(r[1]) for r in rows))
        lines = [f"{'model':<{w_name}}  {'family':<{w_family}}  defaults",
                 f"{'-' * w_name}  {'-' * w_family}  --------"]
        lines += [f"{n:<{w_name}}  {f:<{w_family}}  {e}".rstrip() for n, f, e in rows]
        lines.append(f"({len(rows)} models)")
        return "\n".join(lines)
