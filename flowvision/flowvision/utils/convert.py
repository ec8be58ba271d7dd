"""Turning a PyTorch checkpoint into a file flowvision loads (torch needed only here)."""

from __future__ import annotations

import os

import oneflow

__all__ = ["convert_torch_checkpoint"]


def convert_torch_checkpoint(src: str, dst: str) -> str:
    """Reads a PyTorch state dict from ``src`` (a ``.pth``) and writes it to ``dst`` with
    ``oneflow.save`` as NumPy-backed oneflow tensors; returns ``dst``.

    Requires ``torch`` (imported only by this function). Checkpoints that wrap the state
    dict under ``"state_dict"`` or ``"model"`` are unwrapped.
    """
    try:
        import torch
    except ImportError as e:
        raise ImportError("convert_torch_checkpoint needs PyTorch (pip install torch) to read .pth files") from e
    state = torch.load(src, map_location="cpu", weights_only=True)
    for key in ("state_dict", "model"):
        if isinstance(state, dict) and isinstance(state.get(key), dict):
            state = state[key]
    converted = {}
    for key, value in state.items():
        if not hasattr(value, "detach"):
            continue
        value = value.detach().cpu()
        if value.dtype == torch.bfloat16:  # NumPy has no bfloat16
            converted[key] = oneflow.from_numpy(value.float().numpy().copy()).to(oneflow.bfloat16)
        else:
            converted[key] = oneflow.from_numpy(value.contiguous().numpy().copy())
    os.makedirs(os.path.dirname(os.path.abspath(dst)), exist_ok=True)
    oneflow.save(converted, dst)
    return dst
