"""``CoinFlip``: OneFlow's data-pipeline module that draws one Bernoulli sample per batch item."""

from __future__ import annotations

import numbers

import oneflow
from oneflow.nn.modules.module import Module

__all__ = ["CoinFlip"]


class CoinFlip(Module):
    r"""Draws ``batch_size`` independent coin flips: an ``int8`` tensor of shape
    ``(batch_size,)`` holding 1 with probability ``probability`` and 0 otherwise (OneFlow's
    ``nn.CoinFlip``, modelled on DALI's operator of that name, typically fed to a random
    mirror of the images of a batch).

    Args:
        batch_size: how many flips each call draws. Default: 1.
        random_seed: with a seed, the module draws from its own generator seeded with it, so
            that a module built with the same seed repeats the same sequence of calls; ``None``
            uses the default generator (``oneflow.manual_seed``). Default: ``None``.
        probability: the probability of a 1. Default: 0.5.
        device: the device of the result (CPU when ``None`` and no placement). Default: ``None``.
        placement: with ``sbp``, makes the result a global tensor on this placement. Default: ``None``.
        sbp: the sbp (or a tuple of sbps, one per placement axis) of the global result. Default: ``None``.

    Example::

        >>> flip = flow.nn.CoinFlip(batch_size=4, random_seed=0, probability=0.5)
        >>> flip().shape, flip().dtype
        (oneflow.Size([4]), oneflow.int8)
    """

    def __init__(self, batch_size: int = 1, random_seed: int | None = None, probability: float = 0.5,
                 device=None, placement=None, sbp=None) -> None:
        super().__init__()
        if isinstance(batch_size, bool) or not isinstance(batch_size, numbers.Integral):
            raise TypeError(f"CoinFlip: batch_size must be an int, got {type(batch_size).__name__}")
        if batch_size < 1:
            raise ValueError(f"CoinFlip: batch_size must be positive, got {batch_size}")
        if isinstance(probability, bool) or not isinstance(probability, numbers.Real):
            raise TypeError(f"CoinFlip: probability must be a float, got {type(probability).__name__}")
        if not 0.0 <= float(probability) <= 1.0:
            raise ValueError(f"CoinFlip: probability must be in [0, 1], got {probability}")
        if random_seed is not None and (isinstance(random_seed, bool) or not isinstance(random_seed, numbers.Integral)):
            raise TypeError(f"CoinFlip: random_seed must be an int or None, got {type(random_seed).__name__}")
        if placement is not None and device is not None:
            raise ValueError("CoinFlip: give either device (a local result) or placement and sbp (a global one), "
                             "not both")
        if placement is None and sbp is not None:
            raise ValueError("CoinFlip: sbp needs a placement")
        if placement is not None and sbp is None:
            raise ValueError("CoinFlip: placement needs an sbp")
        self.batch_size = int(batch_size)
        self.probability = float(probability)
        self.random_seed = random_seed
        self.placement = placement
        self.sbp = sbp
        self.device = None if placement is not None else oneflow.device(device if device is not None else "cpu")
        self._generator = None
        if random_seed is not None:
            gen_device = self.device if self.device is not None else oneflow.device("cpu")
            self._generator = oneflow.Generator(gen_device.type)
            self._generator.manual_seed(int(random_seed))

    def forward(self) -> oneflow.Tensor:
        if self.placement is not None:
            u = oneflow.rand(self.batch_size, generator=self._generator, placement=self.placement, sbp=self.sbp)
        else:
            u = oneflow.rand(self.batch_size, generator=self._generator, device=self.device)
        return (u < self.probability).to(oneflow.int8)

    def extra_repr(self) -> str:
        return f"batch_size={self.batch_size}, probability={self.probability}, random_seed={self.random_seed}"
