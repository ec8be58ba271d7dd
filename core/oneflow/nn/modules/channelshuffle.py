"""``ChannelShuffle``: interleaving channel groups, as between ShuffleNet's grouped convolutions."""

from __future__ import annotations

import oneflow
from oneflow.nn import functional as F
from oneflow.nn.modules.module import Module

__all__ = ["ChannelShuffle"]


class ChannelShuffle(Module):
    r"""Splits the channels of :math:`(N, C, *)` into ``groups`` groups of :math:`C / g` and
    interleaves them: the output is the input reshaped to :math:`(N, g, C / g, *)`, with the two
    group dims swapped, reshaped back.

    Args:
        groups: the number of groups :math:`g`; must divide :math:`C`.

    Examples::

        >>> m = oneflow.nn.ChannelShuffle(2)
        >>> m(oneflow.arange(4.0).reshape(1, 4, 1, 1)).flatten().tolist()
        [0.0, 2.0, 1.0, 3.0]
    """

    def __init__(self, groups: int) -> None:
        super().__init__()
        self.groups = groups

    def forward(self, input: oneflow.Tensor) -> oneflow.Tensor:
        return F.channel_shuffle(input, self.groups)

    def extra_repr(self) -> str:
        return f"groups={self.groups}"
