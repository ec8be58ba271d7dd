"""Samplers: the order in which a DataLoader visits a map-style dataset's indices.

Random samplers draw from a ``oneflow.Generator`` (their own when given one,
otherwise a fresh generator seeded from the default one each time they are
iterated), so ``oneflow.manual_seed`` makes runs reproducible. The streams are
oneflow's (Philox), so the orders differ from PyTorch's for the same seed.
"""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Iterable, Iterator, Sequence, Sized
from typing import Generic, TypeVar

import numpy as np

import oneflow

T_co = TypeVar("T_co", covariant=True)

__all__ = [
    "BatchSampler",
    "RandomSampler",
    "Sampler",
    "SequentialSampler",
    "SubsetRandomSampler",
    "WeightedRandomSampler",
]


def _draw_seed(generator: oneflow.Generator | None) -> int:
    """A non-negative 63-bit seed drawn from ``generator`` (the default generator when None)."""
    return int(oneflow.empty((), dtype=oneflow.int64).random_(generator=generator).item())


def _is_positive_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


class Sampler(Generic[T_co]):
    """Base class of samplers: ``__iter__`` yields dataset indices (or batches of them).

    Subclasses implement ``__iter__`` and, where the number of items is known,
    ``__len__`` (the DataLoader's ``len()`` uses it).
    """

    def __init__(self, data_source: Sized | None = None) -> None:
        if data_source is not None:
            warnings.warn(
                "`data_source` argument is not used by Sampler and will be removed; "
                "subclasses that need it should store it themselves.",
                UserWarning,
                stacklevel=2,
            )

    def __iter__(self) -> Iterator[T_co]:
        raise NotImplementedError


class SequentialSampler(Sampler[int]):
    """Yields ``0, 1, ..., len(data_source) - 1`` in order.

    Args:
        data_source: the dataset (only its length is used).
    """

    data_source: Sized

    def __init__(self, data_source: Sized) -> None:
        self.data_source = data_source

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


class RandomSampler(Sampler[int]):
    """Yields the indices of ``data_source`` in random order.

    Args:
        data_source: the dataset (only its length is used).
        replacement: draw ``num_samples`` indices independently (with repeats) instead of
            permutations.
        num_samples: how many indices to yield (``len(data_source)`` by default); without
            replacement, more than ``len(data_source)`` gives successive permutations.
        generator: the generator to draw from; when None every iteration seeds a fresh
            generator from the default one.
    """

    data_source: Sized
    replacement: bool

    def __init__(
        self,
        data_source: Sized,
        replacement: bool = False,
        num_samples: int | None = None,
        generator: oneflow.Generator | None = None,
    ) -> None:
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(self.replacement, bool):
            raise TypeError(f"replacement should be a boolean value, but got replacement={self.replacement}")
        if not _is_positive_int(self.num_samples):
            raise ValueError(f"num_samples should be a positive integer value, but got num_samples={self.num_samples}")

    @property
    def num_samples(self) -> int:
        """The number of indices one iteration yields."""
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self) -> Iterator[int]:
        n = len(self.data_source)
        generator = self.generator
        if generator is None:
            generator = oneflow.Generator()
            generator.manual_seed(_draw_seed(None))
        if self.replacement:
            # Drawn in chunks so that a partly consumed iteration costs little.
            full, rest = divmod(self.num_samples, 32)
            for size in [32] * full + [rest]:
                yield from oneflow.randint(0, n, (size,), generator=generator).tolist()
        else:
            full, rest = divmod(self.num_samples, n)
            for _ in range(full):
                yield from oneflow.randperm(n, generator=generator).tolist()
            if rest:
                yield from oneflow.randperm(n, generator=generator).tolist()[:rest]

    def __len__(self) -> int:
        return self.num_samples


class SubsetRandomSampler(Sampler[int]):
    """Yields the given indices in random order (a new permutation each iteration).

    Args:
        indices: the indices to yield.
        generator: the generator to draw the permutation from (the default one when None).
    """

    indices: Sequence[int]

    def __init__(self, indices: Sequence[int], generator: oneflow.Generator | None = None) -> None:
        self.indices = indices
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        for i in oneflow.randperm(len(self.indices), generator=self.generator).tolist():
            yield self.indices[i]

    def __len__(self) -> int:
        return len(self.indices)


class WeightedRandomSampler(Sampler[int]):
    """Yields ``num_samples`` indices in ``[0, len(weights))``, index ``i`` drawn with probability
    proportional to ``weights[i]``.

    Args:
        weights: non-negative weights (a 1-D sequence or tensor); they need not sum to one.
        num_samples: how many indices to yield.
        replacement: draw with repeats (the default); without, every index appears at most
            once, so ``num_samples`` may not exceed ``len(weights)``.
        generator: the generator to draw from (the default one when None).

    Uses ``oneflow.multinomial`` when oneflow has it; otherwise the draws are made by
    NumPy from a seed drawn from ``generator``, which keeps them reproducible.
    """

    weights: oneflow.Tensor
    num_samples: int
    replacement: bool

    def __init__(
        self,
        weights: Sequence[float],
        num_samples: int,
        replacement: bool = True,
        generator: oneflow.Generator | None = None,
    ) -> None:
        if not _is_positive_int(num_samples):
            raise ValueError(f"num_samples should be a positive integer value, but got num_samples={num_samples}")
        if not isinstance(replacement, bool):
            raise ValueError(f"replacement should be a boolean value, but got replacement={replacement}")
        weights_tensor = oneflow.as_tensor(weights, dtype=oneflow.float64)
        if weights_tensor.ndim != 1:
            raise ValueError(
                f"weights should be a 1d sequence but given weights have shape {tuple(weights_tensor.shape)}"
            )
        self.weights = weights_tensor
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        multinomial = getattr(oneflow, "multinomial", None)
        if multinomial is not None:
            drawn = multinomial(self.weights, self.num_samples, self.replacement, generator=self.generator)
            yield from drawn.tolist()
            return
        yield from _multinomial_numpy(
            self.weights.numpy(), self.num_samples, self.replacement, _draw_seed(self.generator)
        ).tolist()

    def __len__(self) -> int:
        return self.num_samples


def _multinomial_numpy(weights: np.ndarray, num_samples: int, replacement: bool, seed: int) -> np.ndarray:
    """``num_samples`` category indices drawn with probabilities proportional to ``weights``,
    with the errors of PyTorch's ``multinomial``."""
    if not np.all(np.isfinite(weights)):
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    if np.any(weights < 0):
        raise RuntimeError("invalid multinomial distribution (encountering probability entry < 0)")
    total = weights.sum()
    if not total > 0:
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    n = weights.shape[0]
    rng = np.random.default_rng(seed)
    if replacement:
        # Inverse-CDF sampling; side="right" never lands on a zero-weight category.
        cdf = np.cumsum(weights)
        picks = np.searchsorted(cdf, rng.random(num_samples) * cdf[-1], side="right")
        return np.minimum(picks, n - 1)
    if num_samples > n:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    # Successive sampling without replacement: the smallest Exp(1) / w keys (zero weights come last).
    with np.errstate(divide="ignore"):
        keys = rng.standard_exponential(n) / weights
    return np.argsort(keys, kind="stable")[:num_samples]


class BatchSampler(Sampler[list[int]]):
    """Groups the indices of another sampler into lists of ``batch_size``.

    Args:
        sampler: a sampler or any iterable of indices.
        batch_size: the size of each batch.
        drop_last: drop the last batch when it is smaller than ``batch_size``.

    Example::

        >>> list(BatchSampler(SequentialSampler(range(5)), batch_size=2, drop_last=False))
        [[0, 1], [2, 3], [4]]
    """

    def __init__(self, sampler: Sampler[int] | Iterable[int], batch_size: int, drop_last: bool) -> None:
        if not _is_positive_int(batch_size):
            raise ValueError(f"batch_size should be a positive integer value, but got batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self) -> Iterator[list[int]]:
        it = iter(self.sampler)
        while True:
            batch = list(itertools.islice(it, self.batch_size))
            if not batch or (self.drop_last and len(batch) < self.batch_size):
                return
            yield batch

    def __len__(self) -> int:
        n = len(self.sampler)  # type: ignore[arg-type]
        return n // self.batch_size if self.drop_last else (n + self.batch_size - 1) // self.batch_size
