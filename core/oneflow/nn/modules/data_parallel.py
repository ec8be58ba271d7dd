"""``DataParallel`` with PyTorch's interface. Without several GPUs it simply calls the wrapped
module (as PyTorch does); single-process multi-GPU splitting is left to
``oneflow.nn.parallel.DistributedDataParallel``."""

from __future__ import annotations

import itertools
import warnings
from typing import Any

import oneflow
from oneflow.nn.modules.module import Module

__all__ = ["DataParallel"]


def _device_index(device: Any) -> int:
    if isinstance(device, int):
        return device
    device = oneflow.device(device)
    return 0 if device.index is None else device.index


class DataParallel(Module):
    r"""Wraps ``module`` for data parallelism over ``device_ids``.

    With no GPU (or none listed) the module is called as it is; with GPUs the inputs are moved
    to ``device_ids[0]``, where the module must live, and the module runs there on the whole
    batch (splitting the batch across several GPUs in one process is not done; use
    ``DistributedDataParallel`` for multi-GPU training). The wrapped module is ``self.module``,
    so state dicts carry the ``module.`` prefix, as in PyTorch.

    Args:
        module: the module to wrap.
        device_ids: the CUDA devices (default: all).
        output_device: where outputs go (default: ``device_ids[0]``).
        dim: the batch dim inputs would be scattered along. Default: 0.
    """

    def __init__(self, module: Module, device_ids=None, output_device=None, dim: int = 0) -> None:
        super().__init__()
        if not isinstance(module, Module):
            raise TypeError(f"DataParallel: module must be an nn.Module, got {type(module).__name__}")
        self.module = module
        self.dim = dim
        if not oneflow.cuda.is_available():
            self.device_ids = []
            self.output_device = None
            self.src_device_obj = None
            return
        if device_ids is None:
            device_ids = list(range(oneflow.cuda.device_count()))
        self.device_ids = [_device_index(d) for d in device_ids]
        self.output_device = _device_index(output_device if output_device is not None else self.device_ids[0])
        self.src_device_obj = oneflow.device("cuda", self.device_ids[0]) if self.device_ids else None
        if len(self.device_ids) > 1:
            warnings.warn(
                "DataParallel: the batch is not split across several GPUs in oneflow; the module runs on "
                f"cuda:{self.device_ids[0]}. Use DistributedDataParallel for multi-GPU training.",
                stacklevel=2,
            )

    def forward(self, *inputs: Any, **kwargs: Any) -> Any:
        if not self.device_ids:
            return self.module(*inputs, **kwargs)
        for t in itertools.chain(self.module.parameters(), self.module.buffers()):
            if t.device != self.src_device_obj:
                raise RuntimeError(
                    f"module must have its parameters and buffers on device {self.src_device_obj} (device_ids[0]) "
                    f"but found one of them on device: {t.device}"
                )
        inputs, kwargs = _move((inputs, kwargs), self.src_device_obj)
        return _move(self.module(*inputs, **kwargs), oneflow.device("cuda", self.output_device))


def _move(obj: Any, device) -> Any:
    if isinstance(obj, oneflow.Tensor):
        return obj.to(device)
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):
        return type(obj)(*(_move(x, device) for x in obj))
    if isinstance(obj, (list, tuple)):
        return type(obj)(_move(x, device) for x in obj)
    if isinstance(obj, dict):
        return type(obj)((k, _move(v, device)) for k, v in obj.items())
    return obj
