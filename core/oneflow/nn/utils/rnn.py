"""Padding of variable-length sequences: ``pad_sequence`` and ``unpad_sequence``."""

from __future__ import annotations

from collections.abc import Iterable

import oneflow

__all__ = ["pad_sequence", "unpad_sequence"]


def pad_sequence(sequences: oneflow.Tensor | Iterable[oneflow.Tensor], batch_first: bool = False,
                 padding_value: float = 0.0, padding_side: str = "right") -> oneflow.Tensor:
    """Stacks tensors of shape ``(L_i, *)`` into one of shape ``(max L, B, *)`` (or
    ``(B, max L, *)`` with ``batch_first``), filling the gaps with ``padding_value``.

    Args:
        sequences: the tensors (their trailing dims must agree), or one tensor whose first
            dim is unbound into them.
        batch_first (bool): put the batch dim first. Default: False.
        padding_value (float): the fill value. Default: 0.
        padding_side (str): ``"right"`` (after each sequence, the default) or ``"left"``.

    Differentiable with respect to the sequences.
    """
    if padding_side not in ("left", "right"):
        raise RuntimeError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    if isinstance(sequences, oneflow.Tensor):
        sequences = sequences.unbind(0)
    sequences = list(sequences)
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    for i, s in enumerate(sequences):
        if not isinstance(s, oneflow.Tensor):
            raise TypeError(f"pad_sequence(): expected a sequence of Tensors, got {type(s).__name__} at {i}")
    max_len = max(s.shape[0] for s in sequences)
    trailing = tuple(sequences[0].shape[1:])
    padded = []
    for s in sequences:
        if tuple(s.shape[1:]) != trailing:
            raise RuntimeError(
                f"pad_sequence(): the sequences' trailing dims differ: {tuple(sequences[0].shape)} "
                f"and {tuple(s.shape)}"
            )
        gap = max_len - s.shape[0]
        if gap:
            pad = oneflow.full((gap, *trailing), padding_value, dtype=s.dtype, device=s.device)
            s = oneflow.cat([s, pad] if padding_side == "right" else [pad, s])
        padded.append(s)
    return oneflow.stack(padded, dim=0 if batch_first else 1)


def unpad_sequence(padded_sequences: oneflow.Tensor, lengths: oneflow.Tensor | list,
                   batch_first: bool = False) -> list:
    """The inverse of :func:`pad_sequence` (right padding): the list of ``(L_i, *)`` tensors."""
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    if isinstance(lengths, oneflow.Tensor):
        lengths = lengths.tolist()
    return [seq[: int(n)] for seq, n in zip(padded_sequences, lengths)]
