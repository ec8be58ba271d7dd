"""Utilities that sit beside the core: ``oneflow.utils.data`` (datasets, samplers, DataLoader) and
``oneflow.utils.tensor`` (to_torch/from_torch)."""

from oneflow.utils import data, tensor

__all__ = ["data", "tensor"]
