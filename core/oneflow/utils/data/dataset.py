"""Datasets: the map-style ``Dataset`` (indexable, sized) and the iterable-style
``IterableDataset``, with the combinators of PyTorch (``TensorDataset``,
``StackDataset``, ``ConcatDataset``, ``ChainDataset``, ``Subset``) and
``random_split``.
"""

from __future__ import annotations

import bisect
import itertools
import math
import warnings
from collections.abc import Iterable, Iterator, Sequence
from typing import Generic, TypeVar

import oneflow

T_co = TypeVar("T_co", covariant=True)
T = TypeVar("T")

__all__ = [
    "ChainDataset",
    "ConcatDataset",
    "Dataset",
    "IterableDataset",
    "StackDataset",
    "Subset",
    "TensorDataset",
    "random_split",
]


class Dataset(Generic[T_co]):
    """A map-style dataset: samples looked up by key (usually an index in ``range(len(self))``).

    Subclasses implement ``__getitem__`` and, for the default samplers of
    :class:`~oneflow.utils.data.DataLoader`, ``__len__``. They may also implement
    ``__getitems__(indices)`` returning a list of samples, which the DataLoader then
    calls once per batch instead of ``__getitem__`` per sample. ``a + b`` concatenates.
    """

    def __getitem__(self, index) -> T_co:
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other: Dataset[T_co]) -> ConcatDataset[T_co]:
        return ConcatDataset([self, other])


class IterableDataset(Dataset[T_co], Iterable[T_co]):
    """An iterable-style dataset: samples come from ``__iter__``, in the dataset's own order.

    With ``num_workers > 0`` every worker process iterates its own copy of the dataset;
    to avoid duplicates, ``__iter__`` (or ``worker_init_fn``) should use
    :func:`~oneflow.utils.data.get_worker_info` to pick the worker's share. ``a + b``
    chains two iterable datasets.
    """

    def __iter__(self) -> Iterator[T_co]:
        raise NotImplementedError("Subclasses of IterableDataset should implement __iter__.")

    def __add__(self, other: Dataset[T_co]) -> ChainDataset:
        return ChainDataset([self, other])


class TensorDataset(Dataset[tuple]):
    """Samples are the rows of the given tensors: item ``i`` is ``tuple(t[i] for t in tensors)``.

    Args:
        *tensors: tensors with the same size in their first dimension.
    """

    def __init__(self, *tensors: oneflow.Tensor) -> None:
        if any(tensors[0].size(0) != t.size(0) for t in tensors):
            raise AssertionError("Size mismatch between tensors")
        self.tensors = tensors

    def __getitem__(self, index) -> tuple:
        return tuple(t[index] for t in self.tensors)

    def __len__(self) -> int:
        return self.tensors[0].size(0)


class StackDataset(Dataset[T_co]):
    """Zips datasets of the same length: item ``i`` is a tuple (positional arguments) or a
    dict (keyword arguments) of the datasets' items ``i``.

    Args:
        *args: datasets whose items form a tuple.
        **kwargs: datasets whose items form a dict under the given keys.
    """

    def __init__(self, *args: Dataset, **kwargs: Dataset) -> None:
        if args and kwargs:
            raise ValueError(
                "Supported either ``tuple``- (via ``args``) or``dict``- (via ``kwargs``) like input/output, "
                "but both types are given."
            )
        if not args and not kwargs:
            raise ValueError("At least one dataset should be passed")
        datasets = args or kwargs
        lengths = [len(d) for d in (args or kwargs.values())]
        if any(n != lengths[0] for n in lengths):
            raise ValueError("Size mismatch between datasets")
        self._length = lengths[0]
        self.datasets = datasets

    def __getitem__(self, index):
        if isinstance(self.datasets, dict):
            return {k: d[index] for k, d in self.datasets.items()}
        return tuple(d[index] for d in self.datasets)

    def __getitems__(self, indices: list) -> list:
        return [self[i] for i in indices]

    def __len__(self) -> int:
        return self._length


class ConcatDataset(Dataset[T_co]):
    """Map-style datasets one after the other: indices run through the first, then the second, ...

    Args:
        datasets: the (map-style) datasets; at least one.
    """

    datasets: list[Dataset[T_co]]
    cumulative_sizes: list[int]

    @staticmethod
    def cumsum(sequence: Sequence[Dataset]) -> list[int]:
        """The running totals of the datasets' lengths."""
        return list(itertools.accumulate(len(d) for d in sequence))

    def __init__(self, datasets: Iterable[Dataset]) -> None:
        self.datasets = list(datasets)
        if len(self.datasets) == 0:
            raise AssertionError("datasets should not be an empty iterable")
        for d in self.datasets:
            if isinstance(d, IterableDataset):
                raise AssertionError("ConcatDataset does not support IterableDataset")
        self.cumulative_sizes = self.cumsum(self.datasets)

    def __len__(self) -> int:
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx: int):
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx = len(self) + idx
        which = bisect.bisect_right(self.cumulative_sizes, idx)
        offset = 0 if which == 0 else self.cumulative_sizes[which - 1]
        return self.datasets[which][idx - offset]


class ChainDataset(IterableDataset):
    """Iterable datasets one after the other, chained lazily as the result is iterated.

    Args:
        datasets: the iterable datasets.
    """

    def __init__(self, datasets: Iterable[Dataset]) -> None:
        super().__init__()
        self.datasets = datasets

    def __iter__(self):
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            yield from d

    def __len__(self) -> int:
        total = 0
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            total += len(d)
        return total


class Subset(Dataset[T_co]):
    """The items of ``dataset`` at ``indices``: item ``i`` is ``dataset[indices[i]]``.

    Args:
        dataset: the whole dataset.
        indices: the indices into it that this subset keeps.
    """

    dataset: Dataset[T_co]
    indices: Sequence[int]

    def __init__(self, dataset: Dataset[T_co], indices: Sequence[int]) -> None:
        self.dataset = dataset
        self.indices = indices

    def __getitem__(self, idx):
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __getitems__(self, indices: list) -> list:
        # Hands the whole batch to the dataset's own batched lookup when it has one.
        mapped = [self.indices[i] for i in indices]
        if callable(getattr(self.dataset, "__getitems__", None)):
            return self.dataset.__getitems__(mapped)
        return [self.dataset[i] for i in mapped]

    def __len__(self) -> int:
        return len(self.indices)


def random_split(
    dataset: Dataset[T],
    lengths: Sequence[int | float],
    generator: oneflow.Generator | None = None,
) -> list[Subset[T]]:
    """Splits ``dataset`` at random into non-overlapping :class:`Subset` s.

    Args:
        dataset: the dataset to split.
        lengths: the sizes of the parts, summing to ``len(dataset)``; or fractions summing
            to 1, in which case each part gets ``floor(len(dataset) * fraction)`` items
            and the remaining items go one each to the parts in turn, from the first.
        generator: the generator of the permutation (``oneflow.default_generator`` when None).

    Example::

        >>> train, val = random_split(range(10), [0.8, 0.2], generator=oneflow.Generator().manual_seed(0))
        >>> len(train), len(val)
        (8, 2)
    """
    if generator is None:
        generator = oneflow.default_generator
    n = len(dataset)  # type: ignore[arg-type]
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        sizes = []
        for i, frac in enumerate(lengths):
            if frac < 0 or frac > 1:
                raise ValueError(f"Fraction at index {i} is not between 0 and 1")
            sizes.append(int(math.floor(n * frac)))
        for i in range(n - sum(sizes)):
            sizes[i % len(sizes)] += 1
        for i, size in enumerate(sizes):
            if size == 0:
                warnings.warn(
                    f"Length of split at index {i} is 0. This might result in an empty dataset.", stacklevel=2
                )
        lengths = sizes
    if sum(lengths) != n:
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    perm = oneflow.randperm(sum(lengths), generator=generator).tolist()
    return [
        Subset(dataset, perm[end - size : end])
        for end, size in zip(itertools.accumulate(lengths), lengths)
    ]
