"""``oneflow.utils.tensor``: ``to_torch`` and ``from_torch``, OneFlow's bridges to PyTorch.

Both share memory with their argument where the two frameworks can (a CPU tensor of a dtype that
NumPy has): writes through one are seen through the other. ``bfloat16`` (no NumPy type) and
tensors on another device are copied instead. ``torch`` is imported on first call.
"""

from __future__ import annotations

import oneflow

__all__ = ["from_torch", "to_torch"]


def _torch():
    try:
        import torch
    except ImportError as e:
        raise ImportError(f"oneflow.utils.tensor needs PyTorch, which is not installed ({e})") from e
    return torch


def to_torch(flow_tensor: oneflow.Tensor):
    """A ``torch.Tensor`` with the values of ``flow_tensor`` (a local tensor), sharing its memory.

        >>> t = oneflow.tensor([[1, 2, 3], [4, 5, 6]])
        >>> oneflow.utils.tensor.to_torch(t)
        tensor([[1, 2, 3],
                [4, 5, 6]])
    """
    if not isinstance(flow_tensor, oneflow.Tensor):
        got = type(flow_tensor).__name__
        raise TypeError(f"to_torch(): argument 'flow_tensor' must be oneflow.Tensor, not {got}")
    if flow_tensor.is_global:
        raise RuntimeError("to_torch(): only local tensors are supported; call .to_local() first")
    torch = _torch()
    t = flow_tensor.detach()
    if t.dtype == oneflow.bfloat16:
        return torch.from_numpy(t.float().cpu().numpy()).to(torch.bfloat16)
    if t.device.type != "cpu":
        return torch.from_numpy(t.cpu().numpy()).to(str(t.device))
    return torch.from_numpy(t.numpy())


def from_torch(torch_tensor) -> oneflow.Tensor:
    """A ``oneflow.Tensor`` with the values of ``torch_tensor``, sharing its memory.

        >>> t = torch.tensor([[1, 2, 3], [4, 5, 6]])
        >>> oneflow.utils.tensor.from_torch(t)
        tensor([[1, 2, 3],
                [4, 5, 6]], dtype=oneflow.int64)
    """
    torch = _torch()
    if not isinstance(torch_tensor, torch.Tensor):
        got = type(torch_tensor).__name__
        raise TypeError(f"from_torch(): argument 'torch_tensor' must be torch.Tensor, not {got}")
    t = torch_tensor.detach()
    if t.dtype == torch.bfloat16:
        return oneflow.from_numpy(t.float().cpu().numpy()).to(device=str(t.device), dtype=oneflow.bfloat16)
    if t.device.type != "cpu":
        return oneflow.from_numpy(t.cpu().numpy()).to(str(t.device))
    try:
        return oneflow.from_numpy(t.numpy())
    except TypeError as e:  # a torch dtype without a NumPy or oneflow counterpart
        raise TypeError(f"from_torch(): torch dtype {t.dtype} has no oneflow counterpart ({e})") from None
