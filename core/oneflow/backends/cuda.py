"""``oneflow.backends.cuda``: ``matmul.allow_tf32`` and
``matmul.allow_fp16_reduced_precision_reduction``, as in OneFlow and PyTorch (recorded flags)."""

from __future__ import annotations

__all__ = ["matmul"]


class _MatmulFlags:
    """The matmul switches; only the two known names can be read or set, and only to a bool."""

    _NAMES = ("allow_tf32", "allow_fp16_reduced_precision_reduction", "allow_bf16_reduced_precision_reduction")

    def __init__(self) -> None:
        object.__setattr__(self, "_values", dict.fromkeys(self._NAMES, False))
        self._values["allow_fp16_reduced_precision_reduction"] = True
        self._values["allow_bf16_reduced_precision_reduction"] = True

    def __getattr__(self, name: str):
        values = object.__getattribute__(self, "_values")
        if name in values:
            return values[name]
        raise AttributeError(f"oneflow.backends.cuda.matmul has no flag '{name}' (known: {', '.join(self._NAMES)})")

    def __setattr__(self, name: str, value) -> None:
        if name not in self._NAMES:
            raise AttributeError(f"oneflow.backends.cuda.matmul has no flag '{name}' (known: {', '.join(self._NAMES)})")
        if not isinstance(value, bool):
            raise TypeError(f"oneflow.backends.cuda.matmul.{name} must be bool, not {type(value).__name__}")
        self._values[name] = value


matmul = _MatmulFlags()
