"""Fetchers: turn one request of the sampler (an index, or a batch of them) into a batch."""

from __future__ import annotations

from typing import Any

MAP = 0  # map-style dataset: samples by index
ITERABLE = 1  # iterable-style dataset: samples from its iterator


class _MapDatasetFetcher:
    def __init__(self, dataset: Any, auto_collation: bool, collate_fn, drop_last: bool) -> None:
        self.dataset = dataset
        self.auto_collation = auto_collation
        self.collate_fn = collate_fn
        self.drop_last = drop_last

    def fetch(self, possibly_batched_index) -> Any:
        if self.auto_collation:
            getitems = getattr(self.dataset, "__getitems__", None)
            if getitems:
                data = getitems(possibly_batched_index)
            else:
                data = [self.dataset[idx] for idx in possibly_batched_index]
        else:
            data = self.dataset[possibly_batched_index]
        return self.collate_fn(data)


class _IterableDatasetFetcher:
    def __init__(self, dataset: Any, auto_collation: bool, collate_fn, drop_last: bool) -> None:
        self.dataset_iter = iter(dataset)
        self.auto_collation = auto_collation
        self.collate_fn = collate_fn
        self.drop_last = drop_last
        self.ended = False

    def fetch(self, possibly_batched_index) -> Any:
        if self.ended:
            raise StopIteration
        if self.auto_collation:
            data = []
            for _ in possibly_batched_index:
                try:
                    data.append(next(self.dataset_iter))
                except StopIteration:
                    self.ended = True
                    break
            if not data or (self.drop_last and len(data) < len(possibly_batched_index)):
                raise StopIteration
        else:
            data = next(self.dataset_iter)
        return self.collate_fn(data)


def create_fetcher(kind: int, dataset: Any, auto_collation: bool, collate_fn, drop_last: bool):
    """The fetcher for a dataset of ``kind`` (``MAP`` or ``ITERABLE``)."""
    cls = _MapDatasetFetcher if kind == MAP else _IterableDatasetFetcher
    return cls(dataset, auto_collation, collate_fn, drop_last)
