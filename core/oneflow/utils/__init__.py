"""Utilities that sit beside the core: ``oneflow.utils.data`` (datasets, samplers, DataLoader)."""

from oneflow.utils import data

__all__ = ["data"]
